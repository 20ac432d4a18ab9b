"""The any-word query of the SQLite store, on a real database: its tiers must only ever skip work."""

from __future__ import annotations

from pathlib import Path

import pytest

from trifecta.application.ports import FileUpdate
from trifecta.domain.code import FileState
from trifecta.infrastructure.code_parser import parse_item
from trifecta.infrastructure.sqlite_store import COORDINATION, SqliteIndex

FILES = {
    "both.py": "def alpha_gamma():\n    return beta()\n",  # names one word, holds another
    "named.py": "def alpha():\n    pass\n",  # names one word
    "documented.py": 'def helper():\n    """Beta release notes."""\n',  # one word in its docstring
    "body.py": "def unrelated():\n    return beta_value\n",  # one word in its body only
    "pairs.py": "def other():\n    return alpha + beta + gamma\n",  # three words, body only
    "filler.py": "".join(f"def filler_{i}():\n    return {i}\n" for i in range(30)),
}


@pytest.fixture
def store(tmp_path: Path):
    index = SqliteIndex(tmp_path / "index.db")
    updates = []
    for path, text in FILES.items():
        _, parsed = parse_item((path, text))
        state = FileState(path=path, size=len(text), mtime_ns=0, sha256=path)
        updates.append(FileUpdate(state=state, parsed=parsed, n_lines=text.count("\n")))
    index.apply(updates, [], [])
    index.finish_run("now")
    yield index
    index.close()


def paths(found) -> list[str]:
    return [sc.chunk.path for sc in found]


def test_two_words_rank_the_chunks_that_name_one_first_then_fill(store: SqliteIndex) -> None:
    few = paths(store.search_terms([["alpha"], ["beta"]], require_all=False, limit=3))
    assert set(few) == {"both.py", "named.py", "documented.py"}  # the chunks naming a word come first
    everything = paths(store.search_terms([["alpha"], ["beta"]], require_all=False, limit=50))
    assert {"body.py", "pairs.py"} <= set(everything)  # room left: every chunk holding a word
    assert len(everything) == len(set(everything))


def test_three_words_rank_the_chunks_holding_two_first_then_fill(store: SqliteIndex) -> None:
    groups = [["alpha"], ["beta"], ["gamma"]]
    assert set(paths(store.search_terms(groups, require_all=False, limit=2))) == {"both.py", "pairs.py"}
    everything = paths(store.search_terms(groups, require_all=False, limit=50))
    assert {"both.py", "pairs.py", "named.py", "documented.py", "body.py"} <= set(everything)


def test_all_words_and_one_word_are_single_queries(store: SqliteIndex) -> None:
    both = store.search_terms([["alpha"], ["beta"]], require_all=True, limit=50)
    assert set(paths(both)) == {"both.py", "pairs.py"}
    assert "body.py" in paths(store.search_terms([["beta"]], require_all=False, limit=50))


def test_cached_counts_follow_writes_on_this_connection_and_others(
    store: SqliteIndex, tmp_path: Path
) -> None:
    before = store.stats()
    assert (before.files, before.built_at) == (len(FILES), "now")
    text = "class Added:\n    def method(self):\n        pass\n"
    _, parsed = parse_item(("added.py", text))
    update = FileUpdate(
        state=FileState(path="added.py", size=1, mtime_ns=0, sha256="x"), parsed=parsed, n_lines=3
    )
    store.apply([update], [], [])  # this connection: PRAGMA data_version does not move
    after = store.stats()
    assert (after.files, after.symbols, after.chunks) == (
        before.files + 1,
        before.symbols + 2,
        before.chunks + 2,
    )
    store.finish_run("later")
    assert store.stats().built_at == "later"
    other = SqliteIndex(tmp_path / "index.db")  # another connection deletes a file: the cache must see it
    try:
        other.apply([], ["added.py"], [])
    finally:
        other.close()
    assert store.stats().files == before.files


WORDS = ["alpha", "beta", "gamma", "delta", "omega", "sigma", "kappa", "theta", "zeta", "iota", "rho"]


@pytest.fixture
def wordy(tmp_path: Path):
    """120 functions, each holding a few of WORDS in its name, docstring or body, some words many times."""
    index = SqliteIndex(tmp_path / "wordy.db")
    updates = []
    for n in range(120):
        name = "_".join(WORDS[(n * k) % len(WORDS)] for k in (1, 3)) + f"_{n}"
        doc = " ".join(WORDS[(n + k) % len(WORDS)] for k in range(n % 3))
        body = " + ".join(WORDS[(n * 7 + k) % len(WORDS)] for k in range(n % 5)) or "0"
        text = f'def {name}():\n    """{doc}"""\n    return {body}\n'
        _, parsed = parse_item((f"m{n}.py", text))
        state = FileState(path=f"m{n}.py", size=len(text), mtime_ns=0, sha256=str(n))
        updates.append(FileUpdate(state=state, parsed=parsed, n_lines=3))
    index.apply(updates, [], [])
    index.finish_run("now")
    yield index
    index.close()


def fts5_any(index: SqliteIndex, clauses: list[str], limit: int) -> list[tuple[str, float]]:
    """The any-word tiers computed from FTS5's own bm25 of each clause alone: chunks holding m >= 2 of the
    first 8 clauses score (m - 1) ** COORDINATION times the sum of those clauses' scores, then chunks
    holding one score the sum over every clause (the reference the postings must reproduce)."""
    alone = [{sc.chunk.id: sc.score for sc in index._ranked(clause, 100_000)} for clause in clauses]
    chunk_ids = set().union(*alone)
    paired = {c: [a[c] for a in alone[:8] if c in a] for c in chunk_ids}
    first = {c: (len(p) - 1) ** COORDINATION * sum(p) for c, p in paired.items() if len(p) >= 2}
    rest = {c: sum(a.get(c, 0.0) for a in alone) for c in chunk_ids if c not in first}
    rowid = {
        c: index._conn.execute("SELECT rowid FROM chunks WHERE id = ?", (c,)).fetchone()[0] for c in chunk_ids
    }
    ranked = sorted(first.items(), key=lambda kv: (-kv[1], rowid[kv[0]]))
    ranked += sorted(rest.items(), key=lambda kv: (-kv[1], rowid[kv[0]]))
    return [(c, round(s, 6)) for c, s in ranked[:limit]]


def test_fts5_scores_a_pairs_expression_as_m_minus_one_times_the_words_alone(wordy: SqliteIndex) -> None:
    """The identity the postings rest on: FTS5 counts a phrase only where its branch matched."""
    clauses = ['"alpha"', '"beta"', '"gamma"', '"delta"']
    alone = [{sc.chunk.id: sc.score for sc in wordy._ranked(c, 100_000)} for c in clauses]
    pairs = " OR ".join(f"({a} AND {b})" for i, a in enumerate(clauses) for b in clauses[i + 1 :])
    found = wordy._ranked(pairs, 100_000)
    assert found
    for sc in found:
        held = [a[sc.chunk.id] for a in alone if sc.chunk.id in a]
        assert sc.score == pytest.approx((len(held) - 1) * sum(held))


@pytest.mark.parametrize("n_words", [3, 5, 9, 11])
@pytest.mark.parametrize("limit", [3, 20, 200])
def test_any_word_postings_rank_exactly_as_the_fts5_pairs_expression(
    wordy: SqliteIndex, n_words: int, limit: int
) -> None:
    words = WORDS[:n_words]
    found = wordy.search_terms([[w] for w in words], require_all=False, limit=limit)
    assert [(sc.chunk.id, round(sc.score, 6)) for sc in found] == fts5_any(
        wordy, [f'"{w}"' for w in words], limit
    )


def test_any_word_postings_with_alternatives_rank_as_fts5(wordy: SqliteIndex) -> None:
    groups = [["alpha", "omega"], ["beta"], ["gamma", "kappa", "zeta"], ["rho"]]
    found = wordy.search_terms(groups, require_all=False, limit=40)
    clauses = ['("alpha" OR "omega")', '"beta"', '("gamma" OR "kappa" OR "zeta")', '"rho"']
    assert [(sc.chunk.id, round(sc.score, 6)) for sc in found] == fts5_any(wordy, clauses, 40)


def test_cached_postings_follow_the_data(wordy: SqliteIndex) -> None:
    groups = [["alpha"], ["beta"], ["gamma"]]
    before = {sc.chunk.path for sc in wordy.search_terms(groups, require_all=False, limit=500)}
    text = "def added():\n    return alpha + beta + gamma\n"
    _, parsed = parse_item(("added.py", text))
    update = FileUpdate(
        state=FileState(path="added.py", size=1, mtime_ns=0, sha256="x"), parsed=parsed, n_lines=2
    )
    wordy.apply([update], [], [])
    after = wordy.search_terms(groups, require_all=False, limit=500)
    assert {sc.chunk.path for sc in after} == before | {"added.py"}
    # every score moved (a new chunk changes each word's idf): nothing stale is served from the cache
    clauses = ['"alpha"', '"beta"', '"gamma"']
    assert [(sc.chunk.id, round(sc.score, 6)) for sc in after] == fts5_any(wordy, clauses, 500)


def test_an_alternative_counts_its_weight_of_what_it_scores_alone(store: SqliteIndex) -> None:
    """Three words or more: a group's alternatives after the first (a synonym) count `alternative_weights`
    of their bm25; the word written counts in full."""
    groups = [["delta", "gamma"], ["beta"], ["alpha"]]  # `delta` is in no chunk: only its alternative matches
    plain = {sc.chunk.path: sc.score for sc in store.search_terms(groups, require_all=False, limit=50)}
    weighted = {
        sc.chunk.path: sc.score
        for sc in store.search_terms(groups, require_all=False, limit=50, alternative_weights=[0.5, 1.0, 1.0])
    }
    assert set(weighted) == set(plain)
    gamma = {sc.chunk.path: sc.score for sc in store.search_terms([["gamma"]], require_all=False, limit=50)}
    for path in ("both.py", "pairs.py"):  # each holds the three words: scored (3 - 1) ** COORDINATION * sum
        assert plain[path] - weighted[path] == pytest.approx(2**COORDINATION * 0.5 * gamma[path])
    unweighted = store.search_terms(groups, require_all=False, limit=50, alternative_weights=[1.0, 1.0, 1.0])
    assert {sc.chunk.path: sc.score for sc in unweighted} == plain
