"""The ast-grep adapter: a pattern runs in each language's grammar, in the context that language needs
(`fmt.Errorf(...)` inside a Go function body, a Java statement inside a method), and a pattern that does
not parse in a language is refused there with a clear message."""

from __future__ import annotations

from pathlib import Path

import pytest

from trifecta.application.ports import InvalidCodePattern
from trifecta.infrastructure.astgrep_matcher import AstGrepMatcher, language_names, resolve_language

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "patterns"
MATCHER = AstGrepMatcher()


def _found(pattern: str, path: str, language: str) -> list[tuple[int, str]]:
    grammar = MATCHER.grammar(language, path)
    assert grammar is not None
    text = (FIXTURES / path).read_text()
    return [(m.start_line, m.text) for m in MATCHER.find(pattern, grammar, text, 50)]


@pytest.mark.parametrize(
    ("pattern", "path", "language", "expected"),
    [
        ("throw new Error($$$)", "src/server.ts", "typescript", [(16, "throw new Error(reason);")]),
        ("throw new Error($$$)", "src/view.tsx", "typescript", [(7, 'throw new Error("too many items");')]),
        ("throw new Error($$$)", "lib/legacy.js", "javascript", [(6, 'throw new Error("no name");')]),
        # alone at the top level Go reads `fmt.Errorf(x)` as a type conversion
        ("fmt.Errorf($$$)", "cmd/config.go", "go", [(12, 'fmt.Errorf("missing key %q", key)')]),
        ("fmt.Errorf($$$)", "cmd/validate.go", "go", [(13, 'fmt.Errorf("empty name")')]),
        ("panic!($$$)", "core/errors.rs", "rust", [(8, 'panic!("{}", message)')]),
        ("panic!($$$)", "core/must.rs", "rust", [(4, 'panic!("no value")')]),
        ("throw new $E($$$)", "java/App.java", "java", [(8, 'throw new IllegalArgumentException("name");')]),
        (
            "<button $$$>$$$</button>",
            "lib/widget.jsx",
            "javascript",
            [(2, "<button title={label}>{label}</button>")],
        ),
        ("REGISTRY[$K] = $V", "tools/registry.py", "python", [(6, "REGISTRY[name] = handler")]),
    ],
)
def test_a_pattern_finds_its_sites_in_the_files_language(
    pattern: str, path: str, language: str, expected: list[tuple[int, str]]
) -> None:
    assert _found(pattern, path, language) == expected


def test_declarations_and_blocks_need_their_own_contexts() -> None:
    # a Go declaration is not a statement; `$$$` inside an impl block stands for no items
    assert [
        line for line, _ in _found("func ($R *Config) $M($$$) error { $$$ }", "cmd/validate.go", "go")
    ] == [11]
    assert [line for line, _ in _found("impl $T { $$$ }", "core/errors.rs", "rust")] == [5]
    # a Java method is a class member, not a statement
    assert [line for line, _ in _found("public String $M() { $$$ }", "java/App.java", "java")] == [13]


def test_tsx_files_parse_in_the_tsx_grammar() -> None:
    assert MATCHER.grammar("typescript", "src/view.tsx") == "tsx"
    assert MATCHER.grammar("typescript", "src/server.ts") == "typescript"
    assert MATCHER.grammar("javascript", "lib/widget.jsx") == "javascript"
    assert MATCHER.grammar("markdown", "README.md") is None
    # JSX only parses in tsx: the same pattern is refused as plain TypeScript
    MATCHER.validate("<li $$$>$$$</li>", "tsx")
    with pytest.raises(InvalidCodePattern, match="typescript"):
        MATCHER.validate("<li $$$>$$$</li>", "typescript")


@pytest.mark.parametrize(
    ("pattern", "grammar", "message"),
    [
        ("throw new Error($$$)", "python", "does not parse as python code"),
        ("throw new Error($$$)", "go", "does not parse as go code"),
        ("def $F($$$): $$$", "typescript", "does not parse as typescript code"),
        ("foo(", "rust", "does not parse as rust code"),
        ("$X", "go", "no code besides metavariables"),
        ("$$$(", "python", "no code besides metavariables"),
        ("foo($$$)", "cobol", "not supported"),
    ],
)
def test_a_pattern_that_does_not_parse_is_refused(pattern: str, grammar: str, message: str) -> None:
    with pytest.raises(InvalidCodePattern, match=message):
        MATCHER.validate(pattern, grammar)


def test_the_same_pattern_is_valid_in_one_language_and_not_another() -> None:
    MATCHER.validate("throw new Error($$$)", "typescript")
    MATCHER.validate("panic!($$$)", "rust")
    with pytest.raises(InvalidCodePattern):
        MATCHER.validate("panic!($$$)", "python")


def test_language_names_and_aliases() -> None:
    for name in ("python", "go", "rust", "typescript", "javascript", "java", "c", "cpp", "csharp"):
        assert name in language_names() and resolve_language(name) == name
    assert resolve_language("TS") == "typescript"
    assert resolve_language("tsx") == "typescript"
    assert resolve_language("jsx") == "javascript"
    assert resolve_language("golang") == "go"
    assert resolve_language("rs") == "rust"
    assert resolve_language("cobol") is None
    assert MATCHER.language(" Go ") == "go"
