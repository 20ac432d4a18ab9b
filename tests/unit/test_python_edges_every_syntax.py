"""The Python parser's edge walk reads every node kind the grammar has, whatever its fields hold: a
`case True:` pattern holds a bool, `global` holds strings, and the index must never crash on them."""

from __future__ import annotations

from trifecta.infrastructure.python_parser import parse_python

EVERY_KIND = """
import os.path as p
from . import sibling
from ..pkg import thing as other

counter = 0


def match_everything(value):
    global counter
    match value:
        case True:
            counter += 1
        case False | None:
            return p.join("a", "b")
        case [1, *rest]:
            return len(rest)
        case {"k": v, **others}:
            return other(v, others)
        case Point(x=0, y=yy) as point:
            return point.move(yy)
        case str() | bytes():
            return f"{value!r:>{10}}"
    lambda *a, **k: (yield from a)
    return [x async for x in value] if False else {k: v for k, v in {}.items()}


class Point:
    x: int = 0

    def move(self, dy):
        nonlocal_free = sibling.go(dy)
        return type(self)(nonlocal_free)
"""


def test_a_file_with_every_kind_of_node_parses_with_its_call_edges() -> None:
    parsed = parse_python("every.py", EVERY_KIND)
    assert not parsed.error
    called = {edge.name for edge in parsed.edge_list() if edge.kind.value == "call"}
    assert {"join", "len", "other", "move", "go"} <= called


def test_a_parser_that_fails_on_a_file_leaves_it_searchable_as_text(monkeypatch) -> None:
    import trifecta.infrastructure.code_parser as code_parser

    def broken(path: str, text: str):
        raise AttributeError("a defect of ours")

    monkeypatch.setattr(code_parser, "parse_python", broken)
    parsed = code_parser.parse_source("mod.py", "def f():\n    return 1\n")
    assert parsed.error.startswith("parser failed: AttributeError")
    assert parsed.chunks and "return 1" in parsed.chunks[0].body


def test_parsing_leaves_no_reference_cycle_for_the_collector() -> None:
    """Parser workers run with the cyclic collector off: whatever a parse leaves in a cycle stays in
    memory. A nested function that called itself (the edge walk's target binder) left its closure so."""
    import gc

    source = EVERY_KIND + "\n(a, [b, c]) = d = 1, [2, 3]\nfor (i, j) in []:\n    pass\n"
    parse_python("every.py", source)  # types and caches created once, before counting
    gc.collect()
    gc.disable()
    try:
        parse_python("every.py", source)
        assert gc.collect() == 0
    finally:
        gc.enable()
