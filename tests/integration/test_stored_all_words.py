"""The all-words query (and a one-clause query) over stored postings, on a real SQLite file: the same chunks, in
the same order, with FTS5's bm25 bit for bit, where FTS5 would have ranked the expression itself."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from test_stored_postings import corpus, indexed

from trifecta.infrastructure import sqlite_store, stored_postings
from trifecta.infrastructure.sqlite_store import SqliteIndex

# groups of alternatives, as search_terms gets them: stored words, alternatives, a phrase repeated in two
# groups, rare words FTS5 ranks alone (`missing`: no row; `m0`: a file name, in few chunks)
GROUPS = [
    [["alpha"], ["beta"]],
    [["alpha", "gamma"], ["beta", "betas"], ["delta"]],
    [["theta"], ["alpha", "theta"], ["kappa", "lambda_"]],
    [["epsilon", "zeta"], ["omega"], ["missing"]],
    [["alpha"], ["m0", "m1"]],
    [["zeta", "omega", "kappa"]],
    [["gamma"]],
]


@pytest.fixture(autouse=True)
def small_segment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Words in a handful of chunks count as common here (a real segment needs thousands)."""
    monkeypatch.setattr(stored_postings, "MIN_CHUNKS", 5)
    monkeypatch.setattr(stored_postings, "MIN_SEGMENT_CHUNKS", 0)
    monkeypatch.setattr(stored_postings, "MAX_SHARE", 1.0)
    monkeypatch.setattr(sqlite_store, "RARE_PHRASE_ROWS", 5)


def ranked(index: SqliteIndex, groups: list[list[str]], require_all: bool) -> list[tuple[str, float]]:
    return [(sc.chunk.id, sc.score) for sc in index.search_terms(groups, require_all=require_all, limit=60)]


def by_fts5(index: SqliteIndex, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(SqliteIndex, "_ranked_stored", lambda self, clauses, phrases, limit: None)
    index._forget()


def test_all_words_from_stored_postings_rank_as_fts5_bit_for_bit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = indexed(tmp_path / "index.db", corpus())
    assert {"alpha", "beta", "gamma", "theta"} <= index._stored_words()
    asked: list[str] = []
    real = SqliteIndex._ranked
    monkeypatch.setattr(
        SqliteIndex, "_ranked", lambda self, expr, limit: asked.append(expr) or real(self, expr, limit)
    )
    stored = [ranked(index, g, True) for g in GROUPS] + [ranked(index, g[:1], False) for g in GROUPS]
    assert not asked  # FTS5 ranked no expression
    by_fts5(index, monkeypatch)
    fts5 = [ranked(index, g, True) for g in GROUPS] + [ranked(index, g[:1], False) for g in GROUPS]
    assert asked
    assert stored == fts5  # the same ids in the same order, == on floats: bit for bit
    assert all(stored[:3]) and not stored[3]  # answers, and a missing word's none
    scores = [s for found in stored for _, s in found]
    assert len(scores) > len(set(scores))  # ties: left in rowid order, as FTS5's sorter leaves them


def test_a_common_word_that_is_not_stored_is_ranked_by_fts5(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = indexed(tmp_path / "index.db", corpus())
    stored = index._stored_words()
    # "py" is in every path: stored here; as a word in more rows than RARE_PHRASE_ROWS not stored, FTS5 ranks
    monkeypatch.setattr(SqliteIndex, "_stored_words", lambda self: stored - {"py"})
    groups = [["alpha"], ["py"]]
    index._forget()
    assert (
        index._conn.execute("SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH 'py'").fetchone()[0] > 5
    )
    asked: list[str] = []
    real = SqliteIndex._ranked
    monkeypatch.setattr(
        SqliteIndex, "_ranked", lambda self, expr, limit: asked.append(expr) or real(self, expr, limit)
    )
    found = ranked(index, groups, True)
    assert asked == ['"alpha" AND "py"'] and found


@pytest.mark.timeout(120)
def test_an_all_words_search_over_stored_postings_does_not_import_numpy_ma(tmp_path: Path) -> None:
    indexed(tmp_path / "index.db", corpus()).close()
    script = (
        "import sys\n"
        "from trifecta.infrastructure import sqlite_store, stored_postings\n"
        "stored_postings.MIN_CHUNKS = 5\n"
        "index = sqlite_store.SqliteIndex(sys.argv[1])\n"
        "assert index._stored_words()\n"
        "found = index.search_terms([['alpha', 'gamma'], ['beta'], ['m0']], require_all=True, limit=60)\n"
        "print(len(found), 'numpy' in sys.modules, 'numpy.ma' in sys.modules)\n"
    )
    out: Any = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "index.db")],
        capture_output=True,
        text=True,
        timeout=100,
        check=True,
    ).stdout.split()
    assert int(out[0]) > 0 and out[1] == "True"  # numpy summed the stored postings
    assert out[2] == "False"


def test_a_word_in_more_than_a_quarter_of_the_chunks_is_stored_for_all_words_searches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the real shares: "py" is in every chunk (over half), "pkg" too; "return" is in every chunk and a stop word
    monkeypatch.setattr(stored_postings, "MAX_SHARE", 0.25)
    monkeypatch.setattr(stored_postings, "MAX_ALL_WORDS_SHARE", 1.0)
    index = indexed(tmp_path / "index.db", corpus())
    n_chunks = index._conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    stored = index._stored_words()
    assert "py" in stored  # in every chunk: over a quarter
    assert "return" not in stored  # a stop word: no question asks for it
    over = [
        w
        for w in stored
        if index._conn.execute(
            "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?", (f'"{w}"',)
        ).fetchone()[0]
        > n_chunks / 4
    ]
    assert over
    index.close()


def test_an_index_whose_words_an_older_rule_chose_chooses_them_again_on_its_next_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(stored_postings, "MAX_SHARE", 0.25)
    monkeypatch.setattr(stored_postings, "MAX_ALL_WORDS_SHARE", 1.0)
    db = tmp_path / "index.db"
    index = indexed(db, corpus())
    assert index.has_completed_run() and "py" in index._stored_words()
    with index._transaction() as c:  # as the version before the rule left it: no word over a quarter
        c.execute("DELETE FROM meta WHERE key = 'postings_rule'")
        c.execute("DELETE FROM posting_terms WHERE term = 'py'")
        c.execute("DELETE FROM posting_blocks WHERE term = 'py'")
    assert not index.has_completed_run()  # so the next run ends as a full one does, no file changed
    index.finish_run("later")
    assert index.has_completed_run() and "py" in index._stored_words()
    index.close()


def test_a_clause_whose_postings_an_all_words_query_read_is_counted_from_them(tmp_path: Path) -> None:
    index = indexed(tmp_path / "index.db", corpus())
    groups = [["alpha"], ["m0", "theta", "m1"]]  # m0, m1: rare file names, not stored
    assert index.search_terms(groups, require_all=True, limit=60)  # reads every phrase's postings
    clause, phrases = '("m0" OR "theta" OR "m1")', ['"m0"', '"theta"', '"m1"']
    counted: list[str] = []
    index._conn.set_trace_callback(counted.append)
    frequency = index._doc_frequency(clause, phrases)
    index._conn.set_trace_callback(None)
    assert not [sql for sql in counted if "count(*)" in sql]  # no FTS5 count: the postings held
    fts5 = index._conn.execute("SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?", (clause,))
    assert frequency == fts5.fetchone()[0] > 0
