"""Which plain strings every match of a regular expression must contain: the trigram index narrows the
chunks to those holding them, and the regex itself then decides (a prefilter never decides a match).

Deliberately conservative: a top-level alternation (`a|b`) has no required literal; characters inside
groups, classes or under a quantifier that allows zero (`?`, `*`, `{0,`) are left out; an escaped
punctuation character (`\\.`) is a literal, an escaped letter (`\\d`, `\\b`) is not, and neither are its
arguments (`\\p{Greek}`, `\\x{263a}`, `\\x41`). The syntax is RE2's (what the regex engine runs): POSIX classes
inside brackets (`[[:alpha:]]`), `\\Q...\\E` quoting (left out), and inline flags anywhere (`a(?i)b`: no
literal, since a flag may fold the case or change what follows).
"""

from __future__ import annotations

import re

_META = set(".^$*+?{}[]()|\\")
# An escaped letter's arguments: \p{Greek} \pL \x{263a} \x41 \u00e9 \N{...}, or the digits of \1 / \012.
_ESCAPE_ARGUMENT = re.compile(
    r"[pP](?:\{[^}]*\}|.)|x(?:\{[^}]*\}|[0-9A-Fa-f]{0,2})|u[0-9A-Fa-f]{0,4}|U[0-9A-Fa-f]{0,8}|N\{[^}]*\}|[0-9]+"
)
_INLINE_FLAGS = re.compile(r"\(\?[A-Za-z-]+[):]")  # (?i) (?s:...) but not (?: alone


def _has_top_level_alternation(pattern: str) -> bool:
    depth = 0
    in_class = False
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
            if pattern[i + 1 : i + 2] == "]":  # `[]...]`: a leading ] is literal
                i += 1
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        elif ch == "|" and depth == 0:
            return True
        i += 1
    return False


def _quantifier_end(pattern: str, i: int) -> tuple[int, bool]:
    """(index after a quantifier at i, whether it allows zero repetitions); (i, False) when none."""
    if i >= len(pattern):
        return i, False
    ch = pattern[i]
    if ch in "?*+":
        j = i + 1
        if j < len(pattern) and pattern[j] in "?+":  # lazy or possessive
            j += 1
        return j, ch != "+"
    if ch == "{":
        close = pattern.find("}", i)
        body = pattern[i + 1 : close] if close > 0 else ""
        low, _, high = body.partition(",")
        if body and low.isdigit() and (not high or high.isdigit()):
            j = close + 1
            if j < len(pattern) and pattern[j] == "?":
                j += 1
            return j, int(low) == 0
    return i, False


def required_literals(pattern: str, min_length: int = 3) -> list[str]:
    """Maximal literal runs (case as written) that any match must contain, longest first."""
    if _has_top_level_alternation(pattern) or _INLINE_FLAGS.search(pattern):  # e.g. (?x), a(?i)b
        return []
    runs: list[str] = []
    current: list[str] = []

    def close() -> None:
        if current:
            runs.append("".join(current))
            current.clear()

    i = 0
    depth = 0
    while i < len(pattern):
        ch = pattern[i]
        literal: str | None = None
        if ch == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            literal = None if nxt.isalnum() else nxt  # \d \w \b \1 ... are not literals
            argument = _ESCAPE_ARGUMENT.match(pattern, i + 1) if nxt.isalnum() else None
            if nxt == "Q":  # \Q...\E: quoted text, left out (conservative)
                end = pattern.find("\\E", i + 2)
                i = len(pattern) if end < 0 else end + 2
            elif argument:
                i = argument.end()
            else:
                i += 2
        elif ch == "[":  # a class matches one of several characters
            j = i + 1
            if pattern[j : j + 1] == "^":
                j += 1
            if pattern[j : j + 1] == "]":
                j += 1
            while j < len(pattern) and pattern[j] != "]":
                if pattern.startswith("[:", j) and pattern.find(":]", j + 2) > 0:  # [:alpha:] inside
                    j = pattern.find(":]", j + 2) + 2
                    continue
                j += 2 if pattern[j] == "\\" else 1
            i = j + 1
        elif ch == "(":
            close()
            depth += 1
            i += 1
            continue
        elif ch == ")":
            close()
            depth = max(0, depth - 1)
            i += 1
        elif ch in _META:
            i += 1
        else:
            literal = ch
            i += 1
        i, optional = _quantifier_end(pattern, j := i)
        repeated = i != j
        if literal is None or depth > 0 or optional:
            close()
            continue
        current.append(literal)
        if repeated:  # `a+`, `a{2}`: an `a` is required, but the next literal is not adjacent for sure
            close()
    close()
    return sorted({r for r in runs if len(r) >= min_length}, key=lambda r: (-len(r), r))
