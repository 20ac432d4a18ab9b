"""A run's end merges FTS5's segments (a word is looked up once per segment at search time): the searches
answer the same, and an index left with many segments by an earlier version gets merged by its next run,
changed files or not."""

from __future__ import annotations

from pathlib import Path

import pytest

from trifecta.application.ports import FileUpdate
from trifecta.domain.code import FileState
from trifecta.infrastructure import sqlite_store
from trifecta.infrastructure.code_parser import parse_item
from trifecta.infrastructure.sqlite_store import SqliteIndex

WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "theta", "kappa"]


def update(path: str, text: str) -> FileUpdate:
    _, parsed = parse_item((path, text))
    state = FileState(path=path, size=len(text), mtime_ns=0, sha256=str(hash(text)))
    return FileUpdate(state=state, parsed=parsed, n_lines=text.count("\n"))


def batch(n: int) -> list[FileUpdate]:
    """Four files, each a few functions named and documented with the words."""
    out = []
    for f in range(4):
        defs = [
            f'def {WORDS[(n + f + k) % 8]}_{WORDS[(n * f + k) % 8]}_{k}():\n    """{WORDS[(n + k) % 8]} '
            f'{WORDS[(f + k * 3) % 8]}"""\n    return {WORDS[(n * 5 + k) % 8]}\n'
            for k in range(3)
        ]
        out.append(update(f"pkg/b{n}/m{f}.py", "\n".join(defs)))
    return out


def segments(index: SqliteIndex) -> int:
    return int(index._conn.execute("SELECT count(DISTINCT segid) FROM chunks_fts_idx").fetchone()[0])


def answers(index: SqliteIndex) -> list[list[tuple[str, float]]]:
    index._forget()
    questions = [["alpha", "beta"], ["gamma", "delta", "zeta"], ["kappa"], WORDS]
    return [
        [(sc.chunk.id, sc.score) for sc in index.search_terms([[w] for w in q], require_all=False, limit=20)]
        for q in questions
    ]


@pytest.fixture
def many_segments(tmp_path: Path) -> SqliteIndex:
    index = SqliteIndex(tmp_path / "index.db")
    for n in range(6):  # one FTS5 segment per committed batch
        index.apply(batch(n), [], [])
    return index


def test_a_run_ends_with_one_fts5_segment_and_the_same_answers(
    many_segments: SqliteIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = many_segments
    monkeypatch.setattr(sqlite_store, "FTS_MERGE_SEGMENTS", 3)
    assert segments(index) >= 3
    before = answers(index)
    index.finish_run("now")
    assert segments(index) == 1
    assert answers(index) == before  # the same chunks and scores, bit for bit
    assert all(before)
    assert index.has_completed_run()


def test_an_index_with_many_segments_is_merged_by_its_next_run_and_a_few_are_left(
    many_segments: SqliteIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = many_segments
    n = segments(index)
    monkeypatch.setattr(sqlite_store, "FTS_MERGE_SEGMENTS", n + 1)
    index.finish_run("now")  # under the threshold: left as they are (merging rewrites the whole FTS5 index)
    assert segments(index) == n
    assert index.has_completed_run()
    monkeypatch.setattr(sqlite_store, "FTS_MERGE_SEGMENTS", n)
    assert not index.has_completed_run()  # so a run that changed no file still ends by merging them
    index.finish_run("later")
    assert segments(index) == 1 and index.has_completed_run()
