"""`PATH:LINE[:COL]` as a target of callers, callees and impact (domain.position), and the use cases' answers
to it over in-memory fakes: which definition a line names, and a clear error, never an exception, for any
other text."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.unit.fakes import PARSER, FakeIndex, FakeSource

from trifecta.application.call_graph import (
    CalleesRequest,
    CalleesUseCase,
    CallersRequest,
    CallersUseCase,
    ImpactRequest,
    ImpactUseCase,
)
from trifecta.application.zoom_ast import SymbolResolver, path_rules
from trifecta.domain.code import Symbol, SymbolKind
from trifecta.domain.contract import Error, ErrorCode, Response
from trifecta.domain.position import MAX_LINE, Position, definition_at, is_position, parse_position

# --------------------------------------------------------------------------------------------- the grammar


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("app/x.test.ts:42", Position(path="app/x.test.ts", line=42)),
        ("app/x.test.ts:42:7", Position(path="app/x.test.ts", line=42, column=7)),
        ("  ./app\\x.ts:3\n", Position(path="app/x.ts", line=3)),  # pasted: whitespace, ./ and \ go
        ("odd:name.py:1:2:3", Position(path="odd:name.py:1", line=2, column=3)),  # a ":" in a path stays
        (f"a.py:{MAX_LINE}", Position(path="a.py", line=MAX_LINE)),
    ],
)
def test_a_position_is_a_path_a_line_and_maybe_a_column(text: str, expected: Position) -> None:
    assert parse_position(text) == expected


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("a.py", "not PATH:LINE"),
        ("a.py:", "not PATH:LINE"),
        ("a.py:abc", "not PATH:LINE"),
        ("a.py:12-20", "not PATH:LINE"),  # a range of `ctx get`, not a line
        ("a.py:²", "not PATH:LINE"),  # a digit to str.isdigit, none to int()
        ("a.py:" + "9" * 5000, "not PATH:LINE"),  # more digits than int() converts
        ("a.py:0", "1-based"),
        ("a.py:3:0", "1-based"),
        (f"a.py:{MAX_LINE + 1}", "1-based"),
        (":12", "names no file"),
        ("./:12", "names no file"),
        ("a\x00b.py:1", "names no file"),
        ("a\nb.py:1", "names no file"),
        ("\udc80.py:1", "names no file"),  # a lone surrogate names no file
    ],
)
def test_anything_else_is_invalid_argument_saying_what_to_write(text: str, says: str) -> None:
    error = parse_position(text)
    assert isinstance(error, Error) and error.code is ErrorCode.INVALID_ARGUMENT
    assert says in error.message


def test_a_selector_is_never_read_as_a_position() -> None:
    assert is_position("app/x.ts:4") and is_position("app/x.ts:abc")  # the second to be told what is wrong
    assert not is_position("sym://typescript/type/app/x/f")
    assert not is_position("SYM://python/mod/a")  # the selector's own error: case matters
    assert not is_position("app/x.ts") and not is_position(None) and not is_position(42)


paths = st.text(st.characters(codec="utf-8", exclude_characters="\x00\n\r:\\"), min_size=1).filter(
    lambda p: p == p.strip() and not p.startswith("./")
)


@given(paths, st.integers(1, MAX_LINE), st.none() | st.integers(1, MAX_LINE))
def test_parse_reads_back_what_was_written(path: str, line: int, column: int | None) -> None:
    text = f"{path}:{line}" + (f":{column}" if column is not None else "")
    assert parse_position(text) == Position(path=path, line=line, column=column)


@given(st.one_of(st.text(), st.text(alphabet="ab./\\:09 \x00\n²", max_size=30), st.integers(), st.none()))
def test_parse_is_total(value: object) -> None:
    result = parse_position(value)
    assert isinstance(result, Position | Error)
    if isinstance(result, Position):
        assert result.path and 1 <= result.line <= MAX_LINE
        result.path.encode("utf-8")
    else:
        assert result.code is ErrorCode.INVALID_ARGUMENT and result.message


# --------------------------------------------------------------------------------------------- the choice


def sym(
    name: str, start: int, end: int, *, at: int | None = None, depth: int = 0, parent: str = ""
) -> Symbol:
    return Symbol(
        name=name,
        qualname=f"{parent}.{name}" if parent else name,
        kind=SymbolKind.METHOD if parent else SymbolKind.FUNCTION,
        start_line=start,
        end_line=end,
        def_line=at or start,
        depth=depth,
        parent=parent,
    )


FIRST = sym("reducer", 5, 5)
SECOND = sym("reducer", 8, 8)
THIRD = sym("reducer", 13, 15)
CLASS = Symbol(name="Box", qualname="Box", kind=SymbolKind.CLASS, start_line=20, end_line=30, def_line=20)
METHOD = sym("get", 22, 25, at=23, depth=1, parent="Box")  # line 22: a decorator
FILE = [FIRST, SECOND, THIRD, CLASS, METHOD]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (8, SECOND),  # declared on the line: the second of the name, which a selector cannot name
        (13, THIRD),
        (14, THIRD),  # in its body
        (22, METHOD),  # a decorator's line: the method it decorates
        (23, METHOD),
        (20, CLASS),
        (27, CLASS),  # in the class, after its method
        (9, None),  # in a callback no definition holds
        (99, None),
    ],
)
def test_the_definition_declared_on_the_line_else_the_innermost_around_it(
    line: int, expected: Symbol | None
) -> None:
    assert definition_at(FILE, line) == expected


def test_a_column_picks_among_definitions_declared_on_one_line() -> None:
    a, b = sym("pickA", 3, 3), sym("pickB", 3, 3)
    text = "const pickA = () => 1, pickB = () => 2"
    assert definition_at([a, b], 3, 24, text) == b
    assert definition_at([a, b], 3, 7, text) == a
    assert definition_at([a, b], 3, 1, text) in (a, b)  # on neither name: the line's rule


@given(st.integers(-5, 40), st.none() | st.integers(1, 60))
def test_the_choice_is_on_or_around_the_line(line: int, column: int | None) -> None:
    chosen = definition_at(FILE, line, column, "x" * 60)
    if chosen is None:
        assert not any(s.start_line <= line <= s.end_line or s.def_line == line for s in FILE)
    else:
        assert chosen.def_line == line or chosen.start_line <= line <= chosen.end_line


# --------------------------------------------------------------------------------------------- use cases

LOCALS = """\
const reducer = (n: number): number => n + 1

describe("doubles", () => {
  const reducer = (n: number): number => n * 2
  reducer(1)
})
"""


class GraphIndex(FakeIndex):
    """The reader's half the graph asks of a file with no edges recorded."""

    def data_generation(self) -> object:
        return 0

    def find_symbols(self, *, name: str | None = None, qualname: str | None = None) -> list[tuple[str, Any]]:
        return [
            (p, s)
            for p, (_, symbols) in self.entries.items()
            for s in symbols
            if s.name == name or s.qualname == qualname
        ]

    def edges(self, **_: object) -> list[tuple[str, Any]]:
        return []


def use_cases() -> tuple[CallersUseCase, CalleesUseCase, ImpactUseCase]:
    files = {"app/locals.test.ts": LOCALS, "notes.txt": "a:1\n"}
    index = GraphIndex({"app/locals.test.ts": LOCALS})
    source = FakeSource(files, outside=["../up.ts"])
    rules = path_rules({"python": [".py"], "typescript": [".ts"]})
    resolver = SymbolResolver(reader=index, source=source, parser=PARSER, rules=rules)
    parts: dict[str, Any] = {"reader": index, "resolver": resolver, "source": source, "rules": rules}
    return CallersUseCase(**parts), CalleesUseCase(**parts), ImpactUseCase(**parts)


def answers(target: object) -> list[Response]:
    callers, callees, impact = use_cases()
    return [
        callers.execute(CallersRequest(uri=target)),  # type: ignore[arg-type]
        callees.execute(CalleesRequest(uri=target)),  # type: ignore[arg-type]
        impact.execute(ImpactRequest(uri=target)),  # type: ignore[arg-type]
    ]


def test_a_line_answers_for_the_definition_declared_there() -> None:
    for response in answers("app/locals.test.ts:4"):
        assert response.ok, response.errors
        assert response.data["range"] == {"start_line": 4, "end_line": 4}  # the second, not the first
        assert response.data["uri"] == "sym://typescript/type/app/locals.test/reducer"
    for response in answers("sym://typescript/type/app/locals.test/reducer"):  # the URI form: the first
        assert response.ok and response.data["range"] == {"start_line": 1, "end_line": 1}


@pytest.mark.parametrize(
    ("target", "code", "says"),
    [
        ("app/locals.test.ts:5", ErrorCode.INVALID_ARGUMENT, "in no definition"),  # in the callback
        ("app/locals.test.ts:900", ErrorCode.INVALID_ARGUMENT, "in no definition"),
        ("app/locals.test.ts:x", ErrorCode.INVALID_ARGUMENT, "not PATH:LINE"),
        ("app/gone.ts:3", ErrorCode.FILE_NOT_FOUND, "no file"),
        ("../up.ts:1", ErrorCode.PATH_OUTSIDE_SEGMENT, "../up.ts"),
        ("notes.txt:1", ErrorCode.INVALID_ARGUMENT, "not in the index"),
        ("sym://typescript/type/app/locals.test/nothing", ErrorCode.SYMBOL_NOT_FOUND, ""),  # as before
        (42, ErrorCode.INVALID_ARGUMENT, "PATH:LINE"),
    ],
)
def test_a_position_that_names_no_definition_says_why(target: object, code: ErrorCode, says: str) -> None:
    for response in answers(target):
        assert not response.ok
        assert response.errors[0].code is code and says in response.errors[0].message


def test_a_line_in_no_definition_points_at_the_files_outline() -> None:
    response = answers("app/locals.test.ts:5")[0]
    assert response.next_actions == ("ast symbols sym://typescript/mod/app/locals.test",)


@given(st.text(max_size=60))
def test_any_text_is_an_answer_or_an_error_never_an_exception(text: str) -> None:
    for response in answers(text):
        assert isinstance(response, Response)
        assert response.ok or response.errors[0].message
