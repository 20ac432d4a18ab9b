"""The pattern engine (application/engines.py) over in-memory fakes: each file in its own language, a
language the pattern does not parse in skipped, `lang` restricting, the matching line as preview; and the
regex engine's exact line in a module chunk."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import pytest
from tests.unit.fakes import FakeSource

from trifecta.application.engines import AstPatternEngine, RegexEngine, compile_smart_case
from trifecta.application.ports import CodeMatch, IndexStats, InvalidCodePattern, StoredFile
from trifecta.domain.code import Chunk
from trifecta.infrastructure.code_parser import parse_source

FILES = {
    "a.ts": "function f() {\n  const x = 1; throw new Error('a');\n}\n",
    "b.go": 'package b\n\nfunc g() error {\n\treturn fmt.Errorf("b")\n}\n',
    "c.py": "def h():\n    raise ValueError('c')\n",
    "d.tsx": "export const V = () => {\n  throw new Error('d');\n};\n",
    "notes.md": "throw new Error in prose\n",
}


class Reader:
    """An IndexReader holding the real parser's chunks of FILES."""

    def __init__(self, files: dict[str, str]) -> None:
        self.parsed = {path: parse_source(path, text) for path, text in files.items()}
        self.chunks = [c for p in self.parsed.values() for c in p.chunks]

    def stats(self) -> IndexStats:
        return IndexStats(
            files=len(self.parsed), symbols=0, chunks=0, built_at="t", parse_errors=0, db_bytes=0
        )

    def files(self) -> list[StoredFile]:
        return [
            StoredFile(path=path, language=p.language, n_lines=0, parse_error="", sha256="")
            for path, p in sorted(self.parsed.items())
        ]

    def substring_candidates(self, needles: Sequence[str], *, limit: int) -> list[Chunk]:
        return [c for c in self.chunks if all(n.lower() in c.body.lower() for n in needles)][:limit]

    def iter_chunks(self, paths: Iterable[str] | None = None) -> Iterator[Chunk]:
        return iter([c for c in self.chunks if paths is None or c.path in paths])

    def containing_chunk(self, path: str, line: int) -> Chunk | None:
        inside = [c for c in self.chunks if c.path == path and c.start_line <= line <= c.end_line]
        return min(inside, key=lambda c: c.end_line - c.start_line, default=None)


class Matcher:
    """A CodePatternMatcher where a pattern is valid in the grammars `valid` names and matches the lines
    holding its text up to the first `(`."""

    def __init__(self, valid: dict[str, set[str]]) -> None:
        self.valid = valid
        self.searched: list[tuple[str, str]] = []

    def languages(self) -> tuple[str, ...]:
        return ("python", "typescript", "go")

    def language(self, name: str) -> str | None:
        return name.lower() if name.lower() in self.languages() else None

    def grammar(self, language: str, path: str) -> str | None:
        if language not in self.languages():
            return None
        return "tsx" if path.endswith(".tsx") else language

    def validate(self, pattern: str, grammar: str) -> None:
        if grammar not in self.valid.get(pattern, set()):
            raise InvalidCodePattern(f"invalid code pattern {pattern!r}: it does not parse as {grammar} code")

    def find(self, pattern: str, grammar: str, text: str, limit: int) -> list[CodeMatch]:
        self.validate(pattern, grammar)
        self.searched.append((pattern, grammar))
        needle = pattern.split("(")[0]
        return [
            CodeMatch(start_line=n, end_line=n, text=line[line.index(needle) :])
            for n, line in enumerate(text.split("\n"), 1)
            if needle in line
        ][:limit]


def _engine(valid: dict[str, set[str]]) -> tuple[AstPatternEngine, Matcher]:
    matcher = Matcher(valid)
    return AstPatternEngine(Reader(FILES), FakeSource(FILES), matcher), matcher


def _hits(engine: AstPatternEngine, pattern: str, lang: str | None = None) -> list[tuple[str, int, str]]:
    plan: dict[str, Any] = {}
    return [(h.chunk.path, h.line, h.preview) for h in engine.search(pattern, 10, plan, lang)]


def test_each_file_is_searched_in_its_own_grammar() -> None:
    engine, matcher = _engine({"throw new Error($$$)": {"typescript", "tsx"}})
    engine.validate("throw new Error($$$)")  # invalid in go and python: not an error
    assert _hits(engine, "throw new Error($$$)") == [
        ("a.ts", 2, "const x = 1; throw new Error('a');"),  # the whole line, not only the match
        ("d.tsx", 2, "throw new Error('d');"),
    ]
    assert sorted(matcher.searched) == [
        ("throw new Error($$$)", "tsx"),
        ("throw new Error($$$)", "typescript"),
    ]


def test_languages_the_pattern_does_not_parse_in_are_skipped_and_said() -> None:
    engine, _ = _engine({"fmt.Errorf($$$)": {"go"}})
    plan: dict[str, Any] = {}
    hits = engine.search("fmt.Errorf($$$)", 10, plan)
    assert [(h.chunk.path, h.line, h.preview) for h in hits] == [("b.go", 4, 'return fmt.Errorf("b")')]
    assert plan["code_pattern"]["languages"] == ["go"]
    assert plan["code_pattern"]["files"] == 1


def test_a_pattern_valid_in_no_language_searched_is_an_error() -> None:
    engine, _ = _engine({})
    with pytest.raises(InvalidCodePattern, match="does not parse as code of any language searched"):
        engine.validate("throw new Error($$$)")
    engine, _ = _engine({"throw new Error($$$)": {"typescript"}})
    with pytest.raises(InvalidCodePattern, match="does not parse as go code"):  # one language: its own words
        engine.validate("throw new Error($$$)", "go")


def test_lang_restricts_the_files_and_the_grammars() -> None:
    engine, matcher = _engine({"throw new Error($$$)": {"typescript", "tsx", "go"}})
    assert _hits(engine, "throw new Error($$$)", "go") == []
    assert {grammar for _, grammar in matcher.searched} == {"go"}  # no TypeScript file was parsed
    assert [h[0] for h in _hits(engine, "throw new Error($$$)", "typescript")] == ["a.ts", "d.tsx"]


def test_an_unknown_language_names_the_accepted_ones() -> None:
    engine, _ = _engine({})
    assert engine.language("Go") == "go"
    with pytest.raises(InvalidCodePattern, match="unknown language 'cobol'.*python, typescript, go"):
        engine.language("cobol")


def test_regex_hits_in_a_module_chunk_carry_their_exact_line() -> None:
    text = '"""Doc."""\n\n\ndef f():\n    return 1\n\n\nLIMIT = 64\n'
    files = {"m.py": text}
    reader: Any = Reader(files)
    module = next(c for c in reader.chunks if c.kind.value == "module")
    assert module.start_line == 1  # the chunk is the lines no definition covers: 1 and 8
    plan: dict[str, Any] = {}
    exact = RegexEngine(reader, FakeSource(files)).search(compile_smart_case(r"LIMIT = \d+"), 5, plan)
    assert [(h.line, h.preview) for h in exact] == [(8, "LIMIT = 64")]
    guess = RegexEngine(reader).search(compile_smart_case(r"LIMIT = \d+"), 5, plan)  # no source: the guess
    assert [h.line for h in guess] == [1]


def test_regex_lang_keeps_that_languages_chunks() -> None:
    reader: Any = Reader(FILES)
    plan: dict[str, Any] = {}
    found = RegexEngine(reader).search(compile_smart_case(r"throw new \w+\("), 10, plan, "typescript")
    assert sorted(h.chunk.path for h in found) == ["a.ts", "d.tsx"]
    assert plan["regex"]["lang"] == "typescript"
