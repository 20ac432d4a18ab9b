"""ast-grep patterns (`ast-grep-py`): `$X.append($Y)`, `os.path.join($$$)`, `raise $E($$$)`.

A pattern is code with metavariables: `$NAME` matches one node, `$$$` any number. ast-grep parses the
pattern as code of the language; a pattern that does not parse (or parses into something that matches every
node, like `$$$(`) is refused with a clear message rather than answered with noise.
"""

from __future__ import annotations

import re

from ..application.ports import CodeMatch, CodePatternMatcher, InvalidCodePattern

_PROBE = "def __trifecta_probe__(a, b):\n    return a\n"
_METAVARS = re.compile(r"\$\$\$[A-Z_]*|\$[A-Z_][A-Z0-9_]*")
LANGUAGES = {"python": "python", "javascript": "javascript", "typescript": "typescript"}


class AstGrepMatcher(CodePatternMatcher):
    def validate(self, pattern: str, language: str) -> None:
        if language not in LANGUAGES:
            raise InvalidCodePattern(f"code patterns are not supported for {language!r}")
        if not _METAVARS.sub("", pattern).strip(" \t\n()[]{},.:;"):
            raise InvalidCodePattern(
                f"the pattern {pattern!r} has no code besides metavariables; name something to match, "
                "e.g. '$X.append($Y)' or 'raise $E($$$)'"
            )
        try:
            from ast_grep_py import SgRoot
        except ImportError as exc:  # pragma: no cover - a core dependency
            raise InvalidCodePattern(f"ast-grep-py is not installed: {exc}") from None
        try:
            probe = SgRoot(_PROBE, LANGUAGES[language]).root()
            matched = probe.find_all(pattern=pattern)
        except (RuntimeError, ValueError) as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise InvalidCodePattern(f"invalid code pattern {pattern!r}: {first}") from None
        # a pattern that parsed into an error node matches every node of any file
        if len(matched) > 4:
            raise InvalidCodePattern(
                f"the pattern {pattern!r} does not parse as {language} code (it would match everything)"
            )

    def find(self, pattern: str, language: str, text: str, limit: int) -> list[CodeMatch]:
        from ast_grep_py import SgRoot

        root = SgRoot(text, LANGUAGES[language]).root()
        out = []
        for node in root.find_all(pattern=pattern)[:limit]:
            span = node.range()
            out.append(
                CodeMatch(start_line=span.start.line + 1, end_line=span.end.line + 1, text=node.text())
            )
        return out
