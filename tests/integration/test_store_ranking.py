"""The any-word query of the SQLite store, on a real database: its tiers must only ever skip work."""

from __future__ import annotations

from pathlib import Path

import pytest

from trifecta.application.ports import FileUpdate
from trifecta.domain.code import FileState
from trifecta.infrastructure.code_parser import parse_item
from trifecta.infrastructure.sqlite_store import SqliteIndex

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
    """What the any-word tiers were before they read postings: FTS5 ranking the pairs expression, then
    every word (the reference the postings must reproduce, scores included)."""
    pairs = " OR ".join(f"({a} AND {b})" for i, a in enumerate(clauses[:8]) for b in clauses[i + 1 : 8])
    found = index._ranked(pairs, limit)
    seen = {sc.chunk.id for sc in found}
    found += [sc for sc in index._ranked(" OR ".join(clauses), limit) if sc.chunk.id not in seen]
    return [(sc.chunk.id, round(sc.score, 6)) for sc in found[:limit]]


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
