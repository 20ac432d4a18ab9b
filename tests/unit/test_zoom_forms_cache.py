"""A name defined several times in a file reads the file's forms (overload signature, accessor) from its
syntax tree: parsed once per file content, not on every resolve (zoom_ast.SymbolResolver._forms).

Over in-memory fakes of the index and the file source; the parser is the real one behind a spy.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from tests.unit.fakes import FakeIndex, FakeSource

from trifecta.application.zoom_ast import Resolved, SymbolResolver, Unresolved, path_rules
from trifecta.domain.code import ParsedFile
from trifecta.domain.contract import ErrorCode
from trifecta.infrastructure.code_parser import SourceParser

PARSER = SourceParser(workers=1)
RULES = path_rules({"typescript": (".ts",)})

OVERLOADS = """export function parse(text: string): number;
export function parse(text: string, radix: number): number;
export function parse(text: string, radix = 10): number {
    return parseInt(text, radix)
}

export class Box {
    get value(): number {
        return 1
    }
    get value(): number {
        return 2
    }
}
"""


class SpyParser:
    """The real parser, recording the files it is asked to parse."""

    def __init__(self) -> None:
        self.parsed: list[str] = []

    def language_of(self, path: str) -> str | None:
        return PARSER.language_of(path)

    def parse(self, path: str, text: str) -> ParsedFile:
        self.parsed.append(path)
        return PARSER.parse(path, text)

    def parse_many(self, items: Sequence[tuple[str, str]]) -> Iterator[tuple[str, ParsedFile]]:
        return PARSER.parse_many(items)


def _resolver(text: str) -> tuple[SymbolResolver, SpyParser, FakeSource]:
    files = {"src/parse.ts": text}
    spy = SpyParser()
    source = FakeSource(files)
    return SymbolResolver(reader=FakeIndex(files), source=source, parser=spy, rules=RULES), spy, source


def test_an_overload_set_resolves_to_the_same_implementation_without_a_second_parse() -> None:
    resolver, spy, _source = _resolver(OVERLOADS)
    first = resolver.resolve("sym://typescript/type/src/parse/parse")
    assert isinstance(first, Resolved), first
    assert (first.start_line, first.end_line) == (3, 5)
    assert [(s.start_line, s.end_line) for s in first.overloads] == [(1, 1), (2, 2)]
    assert spy.parsed == ["src/parse.ts"]  # the index holds the symbols; the forms need the tree, once
    second = resolver.resolve("sym://typescript/type/src/parse/parse")
    assert second == first
    assert spy.parsed == ["src/parse.ts"]
    assert resolver.forms_parses == 1


def test_a_duplicate_stays_ambiguous_from_the_cached_forms() -> None:
    resolver, spy, _source = _resolver(OVERLOADS)
    answers = [resolver.resolve("sym://typescript/type/src/parse/Box#value") for _ in range(2)]
    for answer in answers:
        assert isinstance(answer, Unresolved), answer
        assert answer.error.code is ErrorCode.AMBIGUOUS_SYMBOL
    assert answers[0] == answers[1]
    assert [c["range"] for c in answers[0].error.data["candidates"]] == [
        {"start_line": 8, "end_line": 10},
        {"start_line": 11, "end_line": 13},
    ]
    assert spy.parsed == ["src/parse.ts"]  # one parse serves both names of the file and both asks
    assert resolver.resolve("sym://typescript/type/src/parse/parse") is not None
    assert spy.parsed == ["src/parse.ts"]


def test_changed_content_is_parsed_again_for_its_own_forms() -> None:
    resolver, spy, source = _resolver(OVERLOADS)
    assert isinstance(resolver.resolve("sym://typescript/type/src/parse/parse"), Resolved)
    # the implementation's body goes: three signatures with no implementation are one group
    changed = OVERLOADS.replace(
        "radix = 10): number {\n    return parseInt(text, radix)\n}", "radix: string): number;\n\n"
    )
    source.files["src/parse.ts"] = changed.encode()
    resolved = resolver.resolve("sym://typescript/type/src/parse/parse")
    assert isinstance(resolved, Resolved), resolved
    assert (resolved.start_line, resolved.end_line) == (1, 3)
    assert resolved.overloads == ()
    assert len(resolved.definitions) == 3
    assert resolver.forms_parses == 2


def test_definitions_in_different_functions_need_no_forms() -> None:
    # `const step = ...` in two functions: no overload set nor accessor pair can span two scopes, so the
    # file is not parsed again for its forms (effect's Schema.ts: 10,000 lines, 250-300 ms a first ask)
    nested = (
        "export function first(): number {\n  const step = (n: number) => n + 1\n  return step(1)\n}\n"
        "export function second(): number {\n  const step = (n: number) => n + 2\n  return step(2)\n}\n"
    )
    resolver, spy, _source = _resolver(nested)
    answer = resolver.resolve("sym://typescript/type/src/parse/step")  # callers select the first
    assert isinstance(answer, Unresolved) and answer.error.code is ErrorCode.AMBIGUOUS_SYMBOL, answer
    assert [c["range"] for c in answer.error.data["candidates"]] == [
        {"start_line": 2, "end_line": 2},
        {"start_line": 6, "end_line": 6},
    ]
    assert spy.parsed == [] and resolver.forms_parses == 0  # the index holds the symbols: no parse
