"""Parsed files cross the worker pipe in a compact pickle (each frozen attrs object as its class and field
values): what arrives must equal what was sent, on real files of every language, and stay frozen."""

from __future__ import annotations

import pickle
from pathlib import Path

import attrs
import pytest

from trifecta.domain.code import Chunk
from trifecta.infrastructure import parse_pool
from trifecta.infrastructure.code_parser import language_of, parse_item

FIXTURES = Path(__file__).parents[1] / "fixtures"


def test_parsed_fixture_files_round_trip_through_the_compact_frames() -> None:
    items = []
    for path in sorted((FIXTURES / "polyglot").rglob("*")) + sorted((FIXTURES / "sample_repo").rglob("*")):
        rel = path.relative_to(FIXTURES).as_posix()
        if path.is_file() and language_of(rel) is not None:
            items.append(parse_item((rel, path.read_text("utf-8", errors="replace"))))
    assert len(items) > 20 and sum(len(parsed.chunks) for _, parsed in items) > 100
    frame = parse_pool._dumps(items)
    back = pickle.loads(frame)
    assert back == items
    assert {type(parsed) for _, parsed in back} == {type(items[0][1])}
    # the compact form, not attrs's dict per object (a dict would name every field in every object)
    assert frame.count(b"search_fields") <= 1
    assert len(frame) < len(pickle.dumps(items, protocol=pickle.HIGHEST_PROTOCOL))
    chunk = next(chunk for _, parsed in back for chunk in parsed.chunks)
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        chunk.body = "changed"  # type: ignore[misc]


class _Plain:
    def __init__(self, value: int) -> None:
        self.value = value


def test_other_objects_pickle_as_they_always_do() -> None:
    chunk = Chunk(id="c", path="a.py", start_line=1, end_line=2, kind="function", language="python", body="x")
    sent = [chunk, _Plain(3), {"k": (1, "two")}, b"bytes"]
    back = pickle.loads(parse_pool._dumps(sent))
    assert back[0] == chunk and back[1].value == 3 and back[2:] == sent[2:]
    assert parse_pool._layout(_Plain) is None
