"""Search lifts a hit that calls, or is called by, another hit: the calls are read from a real SQLite index."""

from __future__ import annotations

from pathlib import Path

import pytest

from trifecta.application.ports import FileUpdate
from trifecta.application.search import CALL_EVIDENCE, SearchSegment
from trifecta.domain.code import FileState, Hit
from trifecta.infrastructure.code_parser import parse_item
from trifecta.infrastructure.sqlite_store import SqliteIndex

FILES = {
    "pool.py": "def checkin(record):\n    reset(record)\n    record.release()\n\n\ndef reset(record):\n    record.rollback()\n",
    "events.py": "def rollback(connection):\n    pass\n",  # called by `reset` only as a method of `record`
    "other.py": "def release(x):\n    return x\n\n\ndef get(x):\n    return x\n",
    "more_gets.py": "".join(
        f"class G{i}:\n    def get(self):\n        checkin(self)\n\n\n" for i in range(4)
    ),
}


@pytest.fixture
def reader(tmp_path: Path):
    index = SqliteIndex(tmp_path / "index.db")
    updates = []
    for path, text in FILES.items():
        _, parsed = parse_item((path, text))
        updates.append(FileUpdate(state=FileState(path=path, size=len(text), mtime_ns=0, sha256=path),
                                  parsed=parsed, n_lines=text.count("\n")))  # fmt: skip
    index.apply(updates, [], [])
    index.finish_run("now")
    yield index
    index.close()


def hits_of(reader: SqliteIndex, scores: dict[str, float]) -> list[Hit]:
    chunks = {c.symbol: c for c in reader.iter_chunks() if c.symbol}
    return [Hit(chunk=chunks[symbol], score=score, match_type="lexical") for symbol, score in scores.items()]


@pytest.mark.timeout(60)
def test_a_caller_and_its_callee_lift_each_other_by_the_best_linked_score(reader: SqliteIndex) -> None:
    hits = hits_of(reader, {"checkin": 4.0, "reset": 10.0, "rollback": 6.0, "release": 3.0})
    out = {h.chunk.symbol: h.score for h in SearchSegment(reader=reader)._with_call_evidence(hits)}
    assert out["checkin"] == 4.0 + CALL_EVIDENCE * 10.0  # calls reset (10) and release (3): the best counts
    assert out["reset"] == 10.0 + CALL_EVIDENCE * 6.0  # called by checkin (4), calls rollback (6)
    assert out["rollback"] == 6.0 + CALL_EVIDENCE * 10.0
    assert out["release"] == 3.0 + CALL_EVIDENCE * 4.0


@pytest.mark.timeout(60)
def test_a_name_many_hits_define_links_nothing_and_lone_hits_keep_their_score(reader: SqliteIndex) -> None:
    scores = {"get": 5.0, **{f"G{i}.get": 1.0 for i in range(4)}}
    segment = SearchSegment(reader=reader)
    out = {h.chunk.symbol: h.score for h in segment._with_call_evidence(hits_of(reader, scores))}
    # five definitions of `get`: no link by that name, but each G.get calls checkin, not among the hits
    assert out == scores
    lone = hits_of(reader, {"release": 2.0})
    assert segment._with_call_evidence(lone) == lone
    assert segment._with_call_evidence([]) == []
