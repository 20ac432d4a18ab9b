"""ast-grep patterns (`ast-grep-py`) in every language it parses: `$X.append($Y)`, `fmt.Errorf($$$)`,
`throw new Error($$$)`, `panic!($$$)`.

A pattern is code with metavariables: `$NAME` matches one node, `$$$` any number. ast-grep parses the
pattern as code of the file's language. Many patterns are not a whole file of that language: `fmt.Errorf(a)`
alone is a Go type conversion, `printf(a)` is no C at all. So each language row lists the contexts a pattern
is tried in, in order (`{}` is the pattern as written): the first context in which the pattern, with its
metavariables filled in, parses without an error and matches itself is the one used, with the node that
spans the pattern as ast-grep's `selector`. A pattern that fits no context is refused with a clear message
rather than answered with noise (a pattern that parses into an error node matches every node of a file).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import attrs

from ..application.ports import CodeMatch, CodePatternMatcher, InvalidCodePattern

_METAVARS = re.compile(r"\$\$\$[A-Z_]*|\$[A-Z_][A-Z0-9_]*")
_MULTI = re.compile(r"\$\$\$[A-Z_]*")
_SINGLE = re.compile(r"\$[A-Z_][A-Z0-9_]*")

_BODY = "void f() {{\n{}\n}}"  # a statement inside a function (C, C++)
_BODY_SEMI = "void f() {{\n{};\n}}"  # the same, for a statement written without its `;`
_METHOD = "class C {{\nvoid f() {{\n{}\n}}\n}}"  # a statement inside a method (Java, C#)
_METHOD_SEMI = "class C {{\nvoid f() {{\n{};\n}}\n}}"
_MEMBER = "class C {{\n{}\n}}"  # a class member (a method, a field)


@attrs.frozen
class PatternLanguage:
    """One row: an index language (a chunk's `language`), the ast-grep grammar its files parse in, other
    grammars by file extension, the names a user may give it, and the contexts a pattern is tried in."""

    name: str
    grammar: str
    contexts: tuple[str, ...] = ("{}",)
    by_extension: tuple[tuple[str, str], ...] = ()
    aliases: tuple[str, ...] = ()


LANGUAGES: tuple[PatternLanguage, ...] = (
    PatternLanguage("python", "python", aliases=("py",)),
    PatternLanguage(
        "typescript", "typescript", ("{}", _MEMBER), by_extension=((".tsx", "tsx"),), aliases=("ts", "tsx")
    ),
    PatternLanguage("javascript", "javascript", ("{}", _MEMBER), aliases=("js", "jsx")),
    # Go: `fmt.Errorf(a)` at the top level is a type conversion, in a function body a call
    PatternLanguage("go", "go", ("func f() {{\n{}\n}}", "{}"), aliases=("golang",)),
    PatternLanguage("rust", "rust", ("{}", "fn f() {{\n{}\n}}", "fn f() {{\n{};\n}}"), aliases=("rs",)),
    PatternLanguage("java", "java", ("{}", _METHOD, _METHOD_SEMI, _MEMBER)),
    PatternLanguage("c", "c", ("{}", _BODY, _BODY_SEMI)),
    PatternLanguage("cpp", "cpp", ("{}", _BODY, _BODY_SEMI), aliases=("c++",)),
    PatternLanguage("csharp", "csharp", ("{}", _METHOD, _METHOD_SEMI, _MEMBER), aliases=("cs", "c#")),
    PatternLanguage("kotlin", "kotlin", ("{}", "fun f() {{\n{}\n}}", _MEMBER), aliases=("kt",)),
    PatternLanguage("swift", "swift", ("{}", "func f() {{\n{}\n}}", _MEMBER)),
    PatternLanguage("ruby", "ruby", aliases=("rb",)),
    PatternLanguage("php", "php", ("{}", "{};", "function f() {{\n{};\n}}", _MEMBER)),
    PatternLanguage("scala", "scala", ("{}", "object O {{\n{}\n}}")),
    PatternLanguage("lua", "lua"),
    PatternLanguage("shell", "bash", aliases=("bash", "sh")),
    PatternLanguage("html", "html"),
    PatternLanguage("css", "css"),
    PatternLanguage("json", "json"),
    PatternLanguage("yaml", "yaml", aliases=("yml",)),
)
_BY_NAME = {row.name: row for row in LANGUAGES}
_BY_GRAMMAR = {row.grammar: row for row in LANGUAGES} | {
    grammar: row for row in LANGUAGES for _, grammar in row.by_extension
}
_NAMES = {row.name: row.name for row in LANGUAGES} | {
    alias: row.name for row in LANGUAGES for alias in row.aliases
}


def language_names() -> tuple[str, ...]:
    """The index languages a pattern can run in, as `--lang` accepts them."""
    return tuple(row.name for row in LANGUAGES)


def resolve_language(name: str) -> str | None:
    """The index language a user's name means (`ts` -> typescript, `Go` -> go), None when unknown."""
    return _NAMES.get(name.strip().lower())


class AstGrepMatcher(CodePatternMatcher):
    def languages(self) -> tuple[str, ...]:
        return language_names()

    def language(self, name: str) -> str | None:
        return resolve_language(name)

    def grammar(self, language: str, path: str) -> str | None:
        row = _BY_NAME.get(language)
        if row is None:
            return None
        lower = path.lower()
        return next((g for ext, g in row.by_extension if lower.endswith(ext)), row.grammar)

    def validate(self, pattern: str, grammar: str) -> None:
        _rule(pattern, grammar)

    def find(self, pattern: str, grammar: str, text: str, limit: int) -> list[CodeMatch]:
        from ast_grep_py import SgRoot

        rule = _rule(pattern, grammar)
        root = SgRoot(text, grammar).root()
        out = []
        for node in root.find_all(**rule)[:limit]:
            span = node.range()
            out.append(
                CodeMatch(start_line=span.start.line + 1, end_line=span.end.line + 1, text=node.text())
            )
        return out


@lru_cache(maxsize=256)
def _rule(pattern: str, grammar: str) -> dict[str, Any]:
    """The ast-grep rule for a pattern in a grammar, or InvalidCodePattern saying why there is none."""
    row = _BY_GRAMMAR.get(grammar)
    if row is None:
        known = ", ".join(language_names())
        raise InvalidCodePattern(f"code patterns are not supported for {grammar!r}; they run in {known}")
    if not _METAVARS.sub("", pattern).strip(" \t\n()[]{},.:;"):
        raise InvalidCodePattern(
            f"the pattern {pattern!r} has no code besides metavariables; name something to match, "
            "e.g. '$X.append($Y)' or 'raise $E($$$)'"
        )
    try:
        from ast_grep_py import SgRoot
    except ImportError as exc:  # pragma: no cover - a core dependency
        raise InvalidCodePattern(f"ast-grep-py is not installed: {exc}") from None
    reason = "it does not parse"
    # `$$$` filled with one node fits an argument list, with nothing fits a block (`impl a for a { }`)
    for filler in ("a", ""):
        code = _SINGLE.sub("a", _MULTI.sub(filler, pattern)).strip()
        for context in row.contexts:
            root = SgRoot(context.format(code), grammar).root()
            if _has_error(root):
                continue
            if context == "{}":
                rule: dict[str, Any] = {"pattern": pattern}
            else:
                node = _spanning(root, code)
                if node is None:
                    continue
                rule = {"pattern": {"context": context.format(pattern), "selector": node.kind()}}
            try:
                if root.find_all(**rule):
                    return rule
            except (RuntimeError, ValueError) as exc:
                text = str(exc).strip()
                reason = text.splitlines()[0] if text else type(exc).__name__
    raise InvalidCodePattern(f"invalid code pattern {pattern!r}: {reason} as {row.name} code")


def _has_error(node: Any) -> bool:
    return node.kind() == "ERROR" or any(_has_error(child) for child in node.children())


def _spanning(node: Any, code: str) -> Any:
    """The deepest node whose text is the whole of `code` (a call, not its expression statement)."""
    found = node if node.text().strip() == code else None
    for child in node.children():
        if code in child.text():
            deeper = _spanning(child, code)
            if deeper is not None:
                return deeper
    return found
