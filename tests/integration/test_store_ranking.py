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
