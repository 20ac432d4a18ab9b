"""What each public Engine method accepts, checked before the method runs.

A wrong type or a value out of range is answered with INVALID_ARGUMENT naming the argument and what it
expected, never INTERNAL_ERROR from deep inside, and never a silent coercion (`index(full="no")` must not
run a full rebuild because a non-empty string is truthy). `bool` is not accepted where an integer is
expected, even though it is one to Python: `limit=True` is a mistake, not a request for one hit.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from ..application.ports import CodedError
from ..application.search import MODES
from ..domain.contract import ErrorCode

MAX_HITS = 200  # search's `limit` and eval's `k` (the use cases refuse more)
MAX_TOP = 100  # stats' `top`
# refs' `limit`: navigation.MAX_REFS_LIMIT, not imported so that a search does not load navigation (a test
# checks they agree)
MAX_REFS_LIMIT = 200


class InvalidArgument(CodedError, ValueError):
    """An argument of the wrong type or out of range. Envelope methods answer it as an INVALID_ARGUMENT
    envelope; `Engine.index()` and `trifecta.open()`, which answer no envelope, raise it (a ValueError)."""

    code = ErrorCode.INVALID_ARGUMENT


@attrs.frozen
class Expect:
    """What one argument must be: a phrase for the message ("an integer from 1 to 200") and its test."""

    phrase: str
    test: Callable[[Any], bool]


def _integer(low: int, high: int) -> Expect:
    return Expect(
        f"an integer from {low} to {high}",
        lambda v: isinstance(v, int) and not isinstance(v, bool) and low <= v <= high,
    )


def _choice(options: tuple[str, ...]) -> Expect:
    return Expect(f"one of {', '.join(options)}", lambda v: isinstance(v, str) and v in options)


TEXT = Expect("a string", lambda v: isinstance(v, str))
OPTIONAL_TEXT = Expect("a string or None", lambda v: v is None or isinstance(v, str))
FLAG = Expect("True or False", lambda v: isinstance(v, bool))
OPTIONAL_FLAG = Expect("True, False or None", lambda v: v is None or isinstance(v, bool))
FILE_PATH = Expect("a file path (str or os.PathLike)", lambda v: isinstance(v, str | os.PathLike))
FOLDER_PATH = Expect("a folder path (str or os.PathLike)", lambda v: isinstance(v, str | os.PathLike))
PROGRESS = Expect("None or a callable progress(done, total, message)", lambda v: v is None or callable(v))
URI = Expect("a sym:// selector string", lambda v: isinstance(v, str))
# the upper bound is the segment's budget (max_snippets): the use case checks it, with the valid range
EXPAND = Expect(
    'an integer from 0 to the budget\'s max_snippets, or "auto"',
    lambda v: v == "auto" or (isinstance(v, int) and not isinstance(v, bool) and v >= 0),
)

EXPECTED: Mapping[str, Mapping[str, Expect]] = {
    "search": {
        "query": TEXT,
        "limit": _integer(1, MAX_HITS),
        "mode": _choice(MODES),
        "lint": OPTIONAL_FLAG,
        "rewrite": OPTIONAL_FLAG,
        "regex": FLAG,
        "code_pattern": FLAG,
        "lang": OPTIONAL_TEXT,
        "expand": EXPAND,
    },
    "get": {"id": OPTIONAL_TEXT, "path": OPTIONAL_TEXT},
    "symbols": {"uri": URI},
    "snippet": {"uri": URI},
    "hover": {"uri": URI},
    "refs": {"uri": URI, "limit": _integer(1, MAX_REFS_LIMIT)},
    "evaluate": {"queries": FILE_PATH, "k": _integer(1, MAX_HITS), "mode": _choice(MODES)},
    "index": {"progress": PROGRESS, "full": FLAG},
    "status": {},
    "stats": {"top": _integer(1, MAX_TOP)},
    "open": {"path": FOLDER_PATH},
}


def shown(value: object) -> str:
    """A value as a message quotes it: its repr, shortened, with its type when the repr does not say it."""
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    obvious = value is None or isinstance(value, bool | str)
    return text if obvious else f"{text} ({type(value).__name__})"


def problem(
    method: str, signature: inspect.Signature, args: tuple[Any, ...], kwargs: Mapping[str, Any]
) -> InvalidArgument | None:
    """What is wrong with a call of `method` (an Engine method named in EXPECTED, `signature` including
    `self`, so `args` starts with the instance), or None. A missing or unknown argument is wrong too."""
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError as exc:
        known = [name for name in signature.parameters if name != "self"]
        return InvalidArgument(
            f"{method}(): {exc}; its arguments are {', '.join(known) or 'none'}",
            data={"arguments": known},
        )
    bound.apply_defaults()
    for name, expect in EXPECTED.get(method, {}).items():
        if name in bound.arguments and not expect.test(bound.arguments[name]):
            value = bound.arguments[name]
            return InvalidArgument(
                f"{name} must be {expect.phrase}, got {shown(value)}",
                data={"argument": name, "expected": expect.phrase, "got": type(value).__name__},
            )
    return None
