"""A position in a file (``PATH:LINE[:COL]``) and the definition it names.

``ast def`` reads a name at a position; ``ast callers``, ``callees`` and ``impact`` take one as their target
instead of a ``sym://`` selector, because a selector names a qualified name and a file may define one name
several times (a ``const reducer`` in each test's callback, a Python function defined again under ``if``):
only a position tells those apart. ::

    Position = Path ":" Line [ ":" Column ] ;
    Path     = any text but NUL, line breaks, lone surrogates ;  (* not empty; relative to the segment *)
    Line     = Digit { Digit } ;                                (* 1-based, at most MAX_LINE *)
    Column   = Digit { Digit } ;                                (* 1-based, at most MAX_LINE *)
    Digit    = "0" | ... | "9" ;                                (* ASCII only: "²" is no digit here *)

Surrounding whitespace is stripped; ``\\`` becomes ``/`` and a leading ``./`` is dropped, so a path pasted
from a Windows shell or ``find`` names the segment's file. Whether the path is in the segment is the
caller's business (its file source decides), not the grammar's.

The definition a position names (``definition_at``): the innermost one declared on that line (its
``def_line``: the ``def``/``function`` line, not a decorator's); with a column, the one whose name is at it
when several are; else the innermost one whose lines contain it. ``parse_position`` never raises: any input
yields a ``Position`` or an ``Error`` (``INVALID_ARGUMENT``) saying what to write instead.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import attrs

from .code import Symbol
from .contract import Error, ErrorCode

MAX_LINE = 10**9
SCHEME = "sym:"  # a selector's start: text that starts so is never read as a position
_NUMBER = re.compile(r"[0-9]{1,10}")  # (10 digits: int() never sees a number Python refuses to convert)
_SHOWN = 120  # characters of the input an error message quotes


@attrs.frozen(kw_only=True)
class Position:
    path: str
    line: int
    column: int | None = None


def is_position(text: object) -> bool:
    """Whether a target is meant as a position rather than a selector: text with a ``:`` that does not
    start as a ``sym://`` selector does (``app/x.ts:42``, and ``app/x.ts:abc``, to be told what is wrong)."""
    if not isinstance(text, str):
        return False
    stripped = text.strip()
    return ":" in stripped and not stripped.lower().startswith(SCHEME)


def parse_position(text: object) -> Position | Error:
    """``PATH:LINE[:COL]`` as a ``Position``, or why it is not one."""
    if not isinstance(text, str):
        return _error(f"a position is a string PATH:LINE[:COL], got {type(text).__name__}")
    stripped = text.strip()
    parts = stripped.rsplit(":", 2)
    numbers: list[str] = []
    while len(parts) > 1 and len(numbers) < 2 and _NUMBER.fullmatch(parts[-1]):
        numbers.insert(0, parts.pop())
    path = ":".join(parts).replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    if not numbers:
        return _error(f"{_shown(stripped)} is not PATH:LINE[:COL]: end it with a 1-based line number")
    if not path or any(c in path for c in "\0\n\r") or not _encodable(path):
        return _error(f"{_shown(stripped)} names no file: write PATH:LINE, the path relative to the segment")
    values = [int(n) for n in numbers]
    if not all(1 <= v <= MAX_LINE for v in values):
        return _error(f"{_shown(stripped)}: lines and columns are 1-based numbers up to {MAX_LINE}")
    return Position(path=path, line=values[0], column=values[1] if len(values) > 1 else None)


def definition_at(
    symbols: Sequence[Symbol], line: int, column: int | None = None, text: str = ""
) -> Symbol | None:
    """The definition a position names among a file's ``symbols`` (see the module docstring); ``text`` is
    the line's source, read for a column only. None when the line is in no definition."""
    declared = [s for s in symbols if s.def_line == line]
    if column is not None and len(declared) > 1:
        at_column = [s for s in declared if _name_at(s.name, text, column)]
        declared = at_column or declared
    if declared:
        return max(declared, key=_inner)
    around = [s for s in symbols if s.start_line <= line <= s.end_line]
    return max(around, key=_inner) if around else None


def _inner(symbol: Symbol) -> tuple[int, int, int]:
    """The innermost first: the deepest, then the last to start, then the shortest."""
    return symbol.depth, symbol.start_line, symbol.start_line - symbol.end_line


def _name_at(name: str, text: str, column: int) -> bool:
    return any(
        m.start() < column <= m.end() for m in re.finditer(rf"(?<![\w$]){re.escape(name)}(?![\w$])", text)
    )


def _encodable(text: str) -> bool:
    """Whether a path can name a file: a lone surrogate (``\\udc80``) cannot."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _shown(text: str) -> str:
    return repr(text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "...")


def _error(message: str) -> Error:
    return Error(code=ErrorCode.INVALID_ARGUMENT, message=message)
