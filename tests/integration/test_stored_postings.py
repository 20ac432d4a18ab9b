"""Stored postings on a real SQLite file: the scores read from them are FTS5's bm25 bit for bit, a refresh
keeps them as a fresh index would have them, and an index made before them searches the same."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from trifecta.application.ports import FileUpdate
from trifecta.domain.code import FileState
from trifecta.infrastructure import stored_postings
from trifecta.infrastructure.code_parser import parse_item
from trifecta.infrastructure.sqlite_store import _RANK, FIELD_WEIGHTS, SqliteIndex

WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "theta", "kappa", "lambda_", "omega"]
# a word five and more times in a path: 0.8 added one at a time is not a multiple of 0.8
DEEP = "alpha/alpha/alpha/alpha/alpha/alpha_alpha_beta.py"


def source(n: int, extra: str = "") -> str:
    out = []
    for f in range(4):
        name = "_".join(WORDS[(n + f + k) % len(WORDS)] for k in range(1 + (n + f) % 3))
        doc = " ".join(WORDS[(n * 3 + f + k) % len(WORDS)] for k in range((n + f) % 4))
        body = " + ".join(WORDS[(n * 7 + f * 5 + k) % len(WORDS)] for k in range((n * f) % 6)) or "0"
        out.append(f'def {name}_{f}():\n    """{doc} {extra}"""\n    return {body}\n')
    return "\n".join(out)


def corpus() -> dict[str, str]:
    files = {f"pkg/{WORDS[n % len(WORDS)]}/m{n}.py": source(n) for n in range(40)}
    files[DEEP] = source(41, "alpha alpha alpha")
    return files


def update(path: str, text: str) -> FileUpdate:
    _, parsed = parse_item((path, text))
    state = FileState(path=path, size=len(text), mtime_ns=0, sha256=str(hash(text)))
    return FileUpdate(state=state, parsed=parsed, n_lines=text.count("\n"))


def indexed(db: Path, files: dict[str, str]) -> SqliteIndex:
    index = SqliteIndex(db)
    index.apply([update(p, t) for p, t in files.items()], [], [])
    index.finish_run("now")
    return index


@pytest.fixture(autouse=True)
def small_segment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Words in a handful of chunks count as common here (a real segment needs thousands)."""
    monkeypatch.setattr(stored_postings, "MIN_CHUNKS", 5)
    monkeypatch.setattr(stored_postings, "MIN_SEGMENT_CHUNKS", 0)
    monkeypatch.setattr(stored_postings, "MAX_SHARE", 1.0)


def fts5_scores(index: SqliteIndex, term: str) -> dict[int, float]:
    rows = index._conn.execute(
        "SELECT rowid, -rank FROM chunks_fts WHERE chunks_fts MATCH ? AND rank MATCH ?", (f'"{term}"', _RANK)
    ).fetchall()
    return dict(rows)


def stored_scores(index: SqliteIndex, term: str) -> dict[int, float]:
    found = stored_postings.read(index._conn, term)
    values = stored_postings.scores(found, *stored_postings.totals(index._conn, "chunks_fts"))
    return dict(zip(found["rowid"].tolist(), values.tolist(), strict=True))


def by_chunk(index: SqliteIndex, term: str) -> dict[str, tuple[float, int, float]]:
    """A word's stored (freq, length, score) by chunk id: comparable across two index files."""
    found = stored_postings.read(index._conn, term)
    values = stored_postings.scores(found, *stored_postings.totals(index._conn, "chunks_fts"))
    ids = dict(index._conn.execute("SELECT rowid, id FROM chunks").fetchall())
    return {
        ids[int(r)]: (float(f), int(n), float(s))
        for r, f, n, s in zip(found["rowid"], found["freq"], found["length"], values, strict=True)
    }


def test_stored_scores_are_fts5_bm25_bit_for_bit(tmp_path: Path) -> None:
    index = indexed(tmp_path / "index.db", corpus())
    terms = sorted(index._stored_words())
    assert {"alpha", "beta", "lambda_"} <= set(terms)
    for term in terms:
        assert stored_scores(index, term) == fts5_scores(index, term), term  # == on floats: bit for bit


def test_a_segment_below_the_size_that_pays_stores_no_word_and_searches_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    big = indexed(tmp_path / "big.db", corpus())
    n_chunks = big._conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    monkeypatch.setattr(stored_postings, "MIN_SEGMENT_CHUNKS", n_chunks + 1)
    small = indexed(tmp_path / "small.db", corpus())
    assert big._stored_words() and not small._stored_words()
    # chosen, not missing: the next run does not retry
    assert stored_postings.state(small._conn) == stored_postings.READY
    assert not stored_postings.needs_build(small._conn, n_chunks)
    for words in QUESTIONS:
        assert search(small, words) == search(big, words), words


def test_a_word_in_a_path_five_times_is_still_exact(tmp_path: Path) -> None:
    index = indexed(tmp_path / "index.db", corpus())
    deep = dict(
        index._conn.execute("SELECT c.rowid, c.path FROM chunks c WHERE c.path = ?", (DEEP,)).fetchall()
    )
    found = stored_postings.read(index._conn, "alpha")
    assert set(deep) <= set(found["rowid"].tolist())
    assert stored_scores(index, "alpha") == fts5_scores(index, "alpha")


def test_frequencies_add_a_fractional_weight_one_instance_at_a_time() -> None:
    counts = np.array([[0, 0, 0, 0, 2, 5], [1, 0, 0, 0, 2, 6]])
    one_by_one = [sum([0.8] * 5, 2.0), sum([0.8] * 6, 12.0)]
    assert stored_postings.frequencies(counts, FIELD_WEIGHTS).tolist() == one_by_one
    assert one_by_one[0] != 2.0 + 5 * 0.8  # why: a multiplication would differ from FTS5 in the last bit


def test_varints_read_sqlite_encoding() -> None:
    assert stored_postings.varints(bytes([0x05, 0x81, 0x00, 0x7F])) == [5, 128, 127]


def search(index: SqliteIndex, words: list[str]) -> list[tuple[str, float]]:
    found = index.search_terms([[w] for w in words], require_all=False, limit=30)
    return [(sc.chunk.id, sc.score) for sc in found]


QUESTIONS = [
    ["alpha", "beta", "gamma"],
    ["delta", "zeta", "omega", "kappa", "missing"],
    ["theta", "lambda_", "alpha", "epsilon"],
]


def test_search_reads_stored_postings_and_ranks_as_fts5(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = indexed(tmp_path / "index.db", corpus())
    with_stored = [search(index, q) for q in QUESTIONS]
    read: list[str] = []
    real_read = stored_postings.read
    monkeypatch.setattr(
        stored_postings, "read", lambda conn, term: read.append(term) or real_read(conn, term)
    )
    index._forget()
    assert [search(index, q) for q in QUESTIONS] == with_stored
    assert read  # the stored postings were used
    monkeypatch.setattr(SqliteIndex, "_stored_words", lambda self: frozenset())
    index._forget()
    assert [search(index, q) for q in QUESTIONS] == with_stored  # FTS5 alone: the same ids and scores


def test_an_alternative_group_sums_its_phrases_as_fts5(tmp_path: Path) -> None:
    index = indexed(tmp_path / "index.db", corpus())
    groups = [["alpha", "gamma"], ["beta", "betas"], ["delta", "zeta", "unknown"]]
    found = index.search_terms(groups, require_all=False, limit=40)
    index._forget()
    index._stored = (frozenset(), (0, 0))  # as an index without stored postings: FTS5 ranks every clause
    index._cache_version = index._conn.execute("PRAGMA data_version").fetchone()[0]
    plain = index.search_terms(groups, require_all=False, limit=40)
    assert [(sc.chunk.id, sc.score) for sc in found] == [(sc.chunk.id, sc.score) for sc in plain]


def test_weighted_alternatives_score_alike_from_stored_postings_and_fts5(tmp_path: Path) -> None:
    index = indexed(tmp_path / "index.db", corpus())
    groups = [["alpha", "gamma"], ["beta", "betas"], ["delta", "zeta", "unknown"]]
    weights = [0.7, 0.5, 0.3]
    found = index.search_terms(groups, require_all=False, limit=40, alternative_weights=weights)
    assert found != index.search_terms(groups, require_all=False, limit=40)
    index._forget()
    index._stored = (frozenset(), (0, 0))  # FTS5 ranks every clause
    index._cache_version = index._conn.execute("PRAGMA data_version").fetchone()[0]
    plain = index.search_terms(groups, require_all=False, limit=40, alternative_weights=weights)
    assert [sc.chunk.id for sc in found] == [sc.chunk.id for sc in plain]
    assert [sc.score for sc in found] == pytest.approx([sc.score for sc in plain], rel=1e-9)


def edited(files: dict[str, str]) -> tuple[dict[str, str], list[str]]:
    after = dict(files)
    after["pkg/alpha/m0.py"] = source(7, "gamma gamma beta")  # changed
    gone = ["pkg/beta/m1.py", "pkg/gamma/m2.py"]  # deleted
    for path in gone:
        del after[path]
    after["pkg/new/alpha_beta.py"] = source(13, "alpha omega")  # added
    return after, gone


def test_a_refresh_leaves_the_postings_a_fresh_index_would_have(tmp_path: Path) -> None:
    files = corpus()
    index = indexed(tmp_path / "a.db", files)
    after, gone = edited(files)
    changed = [p for p in after if files.get(p) != after[p]]
    index.apply([update(p, after[p]) for p in changed], gone, [])
    index.finish_run("later")
    fresh = indexed(tmp_path / "b.db", after)
    terms = index._stored_words()
    assert terms and terms == fresh._stored_words()
    for term in terms:
        assert by_chunk(index, term) == by_chunk(fresh, term), term
        assert stored_scores(index, term) == fts5_scores(index, term), term
    for q in QUESTIONS:
        assert search(index, q) == search(fresh, q)


def test_a_large_batch_drops_the_postings_and_the_run_stores_them_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = corpus()
    index = indexed(tmp_path / "index.db", files)
    monkeypatch.setattr(stored_postings, "MAINTAIN_MAX_CHUNKS", 3)
    after, gone = edited(files)
    index.apply([update(p, after[p]) for p in after if files.get(p) != after[p]], gone, [])
    assert stored_postings.state(index._conn) == "stale"
    assert not index._stored_words()  # meanwhile FTS5 ranks every word
    index.finish_run("later")
    assert stored_postings.state(index._conn) == stored_postings.READY
    for term in index._stored_words():
        assert stored_scores(index, term) == fts5_scores(index, term), term


def test_an_index_made_before_stored_postings_searches_the_same_and_gets_them(tmp_path: Path) -> None:
    files = corpus()
    db = tmp_path / "index.db"
    index = indexed(db, files)
    expected = [search(index, q) for q in QUESTIONS]
    index.close()
    older = sqlite3.connect(db)  # as the previous version left it: no postings tables
    older.executescript(
        "DROP TABLE posting_blocks; DROP TABLE posting_terms; DELETE FROM meta WHERE key LIKE 'postings%';"
    )
    older.close()
    index = SqliteIndex(db)
    assert not index._stored_words()
    assert [search(index, q) for q in QUESTIONS] == expected
    after, gone = edited(files)
    index.apply([update(p, after[p]) for p in after if files.get(p) != after[p]], gone, [])
    index.finish_run("later")
    assert index._stored_words()
    for term in index._stored_words():
        assert stored_scores(index, term) == fts5_scores(index, term), term
    index.close()


def test_a_failed_batch_leaves_the_stored_postings_as_committed(tmp_path: Path) -> None:
    files = corpus()
    index = indexed(tmp_path / "index.db", files)
    before = {t: by_chunk(index, t) for t in index._stored_words()}
    after, _ = edited(files)
    broken = update("pkg/alpha/m0.py", after["pkg/alpha/m0.py"])

    class Boom(Exception):
        pass

    def fail(*args: object, **kwargs: object) -> None:
        raise Boom

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(stored_postings, "maintain", fail)
        with pytest.raises(Boom):
            index.apply([broken], [], [])
    index._forget()
    assert {t: by_chunk(index, t) for t in index._stored_words()} == before


@pytest.mark.parametrize("stored", [True, False])
def test_few_postings_are_summed_without_numpy_to_the_same_scores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stored: bool
) -> None:
    from trifecta.infrastructure import sqlite_store

    if not stored:
        monkeypatch.setattr(stored_postings, "MIN_CHUNKS", 10**9)
    index = indexed(tmp_path / "index.db", corpus())
    questions = [*QUESTIONS, WORDS, WORDS[::-1][:7]]  # more words than are paired (MAX_PAIR_CLAUSES)
    ran: list[str] = []
    for name in ("_chosen_in_python", "_chosen_in_numpy"):
        real = getattr(sqlite_store, name)
        monkeypatch.setattr(sqlite_store, name, lambda *a, _n=name, _r=real: ran.append(_n) or _r(*a))

    def answers() -> list[list[tuple[str, float]]]:
        index._forget()
        return [
            [
                (sc.chunk.id, sc.score)
                for sc in index.search_terms([[w] for w in q], require_all=False, limit=n)
            ]
            for q in questions
            for n in (3, 60)
        ]

    monkeypatch.setattr(sqlite_store, "PYTHON_POSTINGS", 0)
    with_numpy = answers()
    assert set(ran) == {"_chosen_in_numpy"}
    ran.clear()
    monkeypatch.setattr(sqlite_store, "PYTHON_POSTINGS", 10**9)
    in_python = answers()
    assert set(ran) == ({"_chosen_in_numpy"} if stored else {"_chosen_in_python"})  # stored: numpy arrays
    assert in_python == with_numpy
    assert all(with_numpy)


def test_a_clause_of_stored_words_counts_its_chunks_as_fts5(tmp_path: Path) -> None:
    index = indexed(tmp_path / "index.db", corpus())
    sql = "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?"
    for phrases, stored in (
        (['"alpha"'], True),
        (['"beta"', '"gamma"'], True),
        (['"zeta"', '"zetas"'], True),  # both stem to a stored word
        (['"delta"', '"missing"'], False),
    ):
        expression = phrases[0] if len(phrases) == 1 else "(" + " OR ".join(phrases) + ")"
        asked: list[str] = []
        index._conn.set_trace_callback(asked.append)
        found = index._doc_frequency(expression, phrases)
        index._conn.set_trace_callback(None)
        assert found == index._conn.execute(sql, (expression,)).fetchone()[0] > 0
        assert any("count(*) FROM chunks_fts" in q for q in asked) is not stored, expression


def test_postings_an_older_trifecta_left_behind_are_not_read_and_the_next_run_stores_them_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = corpus()
    db = tmp_path / "index.db"
    index = indexed(db, files)
    after, gone = edited(files)
    with monkeypatch.context() as older:  # a version before stored postings: it writes chunks, not postings
        older.setattr(SqliteIndex, "_keep_postings", lambda self, *args: None)
        index.apply([update(p, after[p]) for p in after if files.get(p) != after[p]], gone, [])
    index.close()
    index = SqliteIndex(db)  # the next process of this version
    assert stored_postings.state(index._conn) == stored_postings.READY and not index._stored_words()
    fresh = indexed(tmp_path / "fresh.db", after)
    for q in QUESTIONS:
        assert search(index, q) == search(fresh, q)  # FTS5 ranks every word meanwhile
    index.apply([update("pkg/new/alpha_beta.py", after["pkg/new/alpha_beta.py"] + "# more\n")], [], [])
    assert stored_postings.state(index._conn) == "stale"  # not kept on top of a state it did not write
    index.finish_run("later")
    assert index._stored_words()
    for term in index._stored_words():
        assert stored_scores(index, term) == fts5_scores(index, term), term
    index.close()


def test_an_unchanged_index_an_older_version_built_gets_what_the_run_end_makes(sample_repo: Path) -> None:
    import trifecta

    with trifecta.open(str(sample_repo)) as engine:
        engine.index()
    db = sample_repo / ".trifecta" / "index.db"
    older = sqlite3.connect(db)  # as a version before stored postings and the look-up indexes left it
    older.executescript(
        "DROP TABLE posting_blocks; DROP TABLE posting_terms; DELETE FROM meta WHERE key LIKE 'postings%';"
        "DROP INDEX edges_calls; DROP INDEX symbols_shape;"
    )
    older.close()
    with trifecta.open(str(sample_repo)) as engine:
        report = engine.index()  # no file changed
        assert report.files_indexed == 0
    check = sqlite3.connect(db)
    names = {r[0] for r in check.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'index')")}
    assert {"posting_blocks", "posting_terms", "edges_calls", "symbols_shape"} <= names
    assert stored_postings.usable(check)
    check.close()


@pytest.mark.parametrize("files_per_block", [1, 4, 32])
def test_a_refresh_rewrites_whole_blocks_keeping_the_other_files_records(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files_per_block: int
) -> None:
    monkeypatch.setattr(stored_postings, "FILES_PER_BLOCK", files_per_block)
    files = corpus()
    index = indexed(tmp_path / "a.db", files)
    after, gone = edited(files)
    # the last file written changes too: its new chunks take the rowids its old ones had
    after[DEEP] = source(9, "beta beta alpha")
    changed = [DEEP, *(p for p in after if files.get(p) != after[p] and p != DEEP)]  # DEEP written first
    top = index._conn.execute("SELECT max(rowid) FROM chunks").fetchone()[0]
    index.apply([update(p, after[p]) for p in changed], gone, [])
    reused = index._conn.execute(
        "SELECT count(*) FROM chunks WHERE path = ? AND rowid <= ?", (DEEP, top)
    ).fetchone()[0]
    assert reused  # what this test is about
    fresh = indexed(tmp_path / "b.db", {p: after[p] for p in sorted(after, key=lambda p: p != DEEP)})
    blocks = index._conn.execute("SELECT count(DISTINCT block), count(*) FROM posting_blocks").fetchone()
    assert blocks[0] == len({f // files_per_block for (f,) in index._conn.execute("SELECT id FROM files")})
    for term in fresh._stored_words():
        assert by_chunk(index, term) == by_chunk(fresh, term), term
        assert stored_scores(index, term) == fts5_scores(index, term), term


def test_postings_of_the_row_per_file_layout_are_not_read_and_the_next_run_stores_blocks(
    tmp_path: Path,
) -> None:
    files = corpus()
    db = tmp_path / "index.db"
    index = indexed(db, files)
    expected = [search(index, q) for q in QUESTIONS]
    index.close()
    older = sqlite3.connect(db)  # as the version before blocks left it: table postings, meta 'ready'
    older.executescript(
        "DROP TABLE posting_blocks; CREATE TABLE postings(term TEXT NOT NULL, file_id INTEGER NOT NULL, "
        "data BLOB NOT NULL, PRIMARY KEY (term, file_id)) WITHOUT ROWID;"
        "UPDATE meta SET value = 'ready' WHERE key = 'postings';"
    )
    older.close()
    index = SqliteIndex(db)
    assert not index._stored_words() and not index.has_completed_run()
    assert [search(index, q) for q in QUESTIONS] == expected
    index.finish_run("later")  # a run that changed nothing still ends by storing them
    assert index._stored_words() and index.has_completed_run()
    tables = {r[0] for r in index._conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "postings" not in tables
    for term in index._stored_words():
        assert stored_scores(index, term) == fts5_scores(index, term), term
    assert [search(index, q) for q in QUESTIONS] == expected
    index.close()


@pytest.mark.timeout(120)
def test_a_search_over_stored_postings_does_not_import_numpy_ma(tmp_path: Path) -> None:
    """np.unique without indices (and np.isin, which calls it) imports numpy.ma on first use: 17-27 ms of a new
    process's search, on top of numpy's own import."""
    import subprocess
    import sys

    indexed(tmp_path / "index.db", corpus()).close()
    script = (
        "import sys\n"
        "from trifecta.infrastructure import sqlite_store\n"
        "sqlite_store.COMMON_WORDS_FROM_CHUNKS = 0  # counts each clause's chunks, as a big segment does\n"
        "index = sqlite_store.SqliteIndex(sys.argv[1])\n"
        "assert index._stored_words()\n"
        "groups = [['alpha', 'gamma'], ['beta', 'betas'], ['delta', 'zeta', 'unknown'], ['omega']]\n"
        "found = index.search_terms(groups, require_all=False, limit=60)\n"
        "print(len(found), 'numpy' in sys.modules, 'numpy.ma' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "index.db")],
        capture_output=True,
        text=True,
        timeout=100,
        check=True,
    ).stdout.split()
    assert int(out[0]) > 0 and out[1] == "True"  # numpy summed the stored postings
    assert out[2] == "False"
