"""The response envelope every Trifecta answer travels in (ast-lsp-dual-engine.md §4).

    {"schema_version": 1, "status": "ok" | "error", "kind": ..., "data": {...},
     "refs": [{"kind", "uri"}], "errors": [{"code", "message", "data"}], "next_actions": [...],
     "warnings": [{"code", "message", "data"}]}        # only when there are some

`warnings` tell of an answer that is still an answer: the index was rebuilt, is read-only or may be stale,
the segment's own config set something only the user may set.

`next_actions` are commands built by `domain.actions` that run as written: in the CLI each is a full command
line (`trifecta ast snippet 'sym://...' --segment /abs/repo`), over MCP a tool call `{"tool", "arguments"}`,
and from the library the command without program and segment (`ast snippet 'sym://...'`).

`status` is derived, never stored: it is "error" if and only if `errors` is non-empty, so the two can
never disagree. An empty result is `status: "ok"` with empty data, never an error.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

from . import actions

SCHEMA_VERSION = 1


class ErrorCode(enum.StrEnum):
    # ast-lsp-dual-engine.md §4.1
    INVALID_SELECTOR_SYNTAX = "INVALID_SELECTOR_SYNTAX"
    LANGUAGE_NOT_SUPPORTED = "LANGUAGE_NOT_SUPPORTED"
    SYMBOL_NOT_FOUND = "SYMBOL_NOT_FOUND"
    AMBIGUOUS_SYMBOL = "AMBIGUOUS_SYMBOL"
    BUDGET_EXCEEDED = "BUDGET_EXCEEDED"
    # added by Trifecta
    EMPTY_QUERY = "EMPTY_QUERY"
    INVALID_ARGUMENT = "INVALID_ARGUMENT"
    PATH_OUTSIDE_SEGMENT = "PATH_OUTSIDE_SEGMENT"
    FILE_NOT_FOUND = "FILE_NOT_FOUND"
    CHUNK_NOT_FOUND = "CHUNK_NOT_FOUND"
    SEGMENT_NOT_FOUND = "SEGMENT_NOT_FOUND"
    INDEX_LOCKED = "INDEX_LOCKED"
    PARSE_ERROR = "PARSE_ERROR"
    EMBEDDER_UNAVAILABLE = "EMBEDDER_UNAVAILABLE"
    LSP_UNAVAILABLE = "LSP_UNAVAILABLE"
    INTERNAL_ERROR = "INTERNAL_ERROR"
    # reading follows the indexer's rules: a file it would not index is refused, and the code says why
    SECRET_FILE = "SECRET_FILE"  # a secret by name (`.env`, `id_rsa`, `*.pem`) or by content (a key, a token)
    IGNORED_FILE = (
        "IGNORED_FILE"  # .gitignore / .trifectaignore / [index] exclude / a default-excluded folder
    )
    SPECIAL_FILE = "SPECIAL_FILE"  # not a regular file: FIFO, socket, device
    FILE_TOO_LARGE = "FILE_TOO_LARGE"  # over [index] max_file_bytes
    BINARY_FILE = "BINARY_FILE"
    # the index and the call itself
    INDEX_UNWRITABLE = "INDEX_UNWRITABLE"  # data.reason: read_only | disk_full | io_error
    # a shared index's server cannot be reached or refuses us (down, wrong URL or credentials, a schema from a
    # newer trifecta, a segment it does not hold): data.url (no password), data.reason
    INDEX_UNAVAILABLE = "INDEX_UNAVAILABLE"
    TIMEOUT = "TIMEOUT"  # a call or a regular expression ran past its time limit


class WarningCode(enum.StrEnum):
    """Something the caller should know about an answer that is still an answer (envelope `warnings`)."""

    INDEX_REBUILT = "INDEX_REBUILT"  # the index was found corrupt (integrity check, malformed) and rebuilt
    INDEX_READ_ONLY = "INDEX_READ_ONLY"  # the index cannot be written: searched as it is, not refreshed
    INDEX_STALE = "INDEX_STALE"  # another process was refreshing; the answer is from the last committed index
    INDEX_REPLACED = "INDEX_REPLACED"  # the database file was replaced while this process was writing it
    CONFIG_UNTRUSTED = "CONFIG_UNTRUSTED"  # the segment's own config set settings only the user may set
    LSP_FALLBACK = "LSP_FALLBACK"  # the language server could not answer; the answer is the index's


# Codes that mean "the caller asked for something malformed" (CLI exit 2); the rest are exit 1
# when they are internal, or exit 0-with-error-envelope when they are a legitimate negative answer.
INPUT_ERRORS = frozenset(
    {
        ErrorCode.INVALID_SELECTOR_SYNTAX,
        ErrorCode.LANGUAGE_NOT_SUPPORTED,
        ErrorCode.EMPTY_QUERY,
        ErrorCode.INVALID_ARGUMENT,
        ErrorCode.PATH_OUTSIDE_SEGMENT,
        ErrorCode.SEGMENT_NOT_FOUND,
    }
)


def _plain(value: Any) -> Any:
    """Turn attrs values, enums, tuples and mappings into JSON-ready builtins."""
    if isinstance(value, enum.Enum):
        return value.value
    if attrs.has(type(value)):
        return {f.name: _plain(getattr(value, f.name)) for f in attrs.fields(type(value))}
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | frozenset | set):
        items = sorted(value) if isinstance(value, frozenset | set) else value
        return [_plain(v) for v in items]
    return value


@attrs.frozen(kw_only=True)
class Error:
    code: ErrorCode
    message: str
    data: Mapping[str, Any] = attrs.field(factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code.value, "message": self.message, "data": _plain(self.data)}


@attrs.frozen(kw_only=True)
class Notice:
    """One envelope warning: the answer stands, and this is what the caller should know about it."""

    code: WarningCode
    message: str
    data: Mapping[str, Any] = attrs.field(factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code.value, "message": self.message, "data": _plain(self.data)}


def _notices(value: Iterable[Notice]) -> tuple[Notice, ...]:
    return tuple(value)


@attrs.frozen(kw_only=True)
class Ref:
    kind: str
    uri: str


def _refs(value: Iterable[Ref]) -> tuple[Ref, ...]:
    return tuple(value)


def _errors(value: Iterable[Error]) -> tuple[Error, ...]:
    return tuple(value)


def _strings(value: Iterable[str]) -> tuple[str, ...]:
    return tuple(value)


def _action(raw: Any) -> str:
    """A next action as the envelope carries it: a command (CLI) or a tool call {tool, arguments} (MCP)."""
    if isinstance(raw, Mapping):
        return actions.from_tool_call(raw["tool"], raw.get("arguments", {}))
    return str(raw)


@attrs.frozen(kw_only=True)
class Response:
    kind: str
    data: Mapping[str, Any] = attrs.field(factory=dict)
    refs: tuple[Ref, ...] = attrs.field(default=(), converter=_refs)
    errors: tuple[Error, ...] = attrs.field(default=(), converter=_errors)
    next_actions: tuple[str, ...] = attrs.field(default=(), converter=_strings)
    # notes about an answer that is still an answer; in the JSON only when there are some
    warnings: tuple[Notice, ...] = attrs.field(default=(), converter=_notices)

    @property
    def status(self) -> str:
        return "error" if self.errors else "ok"

    @property
    def ok(self) -> bool:
        return not self.errors

    @classmethod
    def success(
        cls,
        kind: str,
        data: Mapping[str, Any],
        *,
        refs: Sequence[Ref] = (),
        next_actions: Sequence[str] = (),
    ) -> Response:
        return cls(kind=kind, data=data, refs=tuple(refs), next_actions=tuple(next_actions))

    @classmethod
    def failure(
        cls,
        kind: str,
        code: ErrorCode,
        message: str,
        *,
        error_data: Mapping[str, Any] | None = None,
        data: Mapping[str, Any] | None = None,
        next_actions: Sequence[str] = (),
    ) -> Response:
        error = Error(code=code, message=message, data=dict(error_data or {}))
        return cls(kind=kind, data=dict(data or {}), errors=(error,), next_actions=tuple(next_actions))

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": SCHEMA_VERSION,
            "status": self.status,
            "kind": self.kind,
            "data": _plain(self.data),
            "refs": [_plain(r) for r in self.refs],
            "errors": [e.to_dict() for e in self.errors],
            "next_actions": list(self.next_actions),
            **({"warnings": [w.to_dict() for w in self.warnings]} if self.warnings else {}),
        }

    def with_warnings(self, warnings: Iterable[Notice]) -> Response:
        """This response with `warnings` added after its own (none added: the same response)."""
        extra = tuple(warnings)
        return attrs.evolve(self, warnings=self.warnings + extra) if extra else self

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> Response:
        """Decode an envelope back into the typed model (the JSON contract's round trip)."""
        if raw.get("schema_version") != SCHEMA_VERSION:
            raise ValueError(f"unsupported schema_version {raw.get('schema_version')!r}")
        errors = tuple(
            Error(code=ErrorCode(e["code"]), message=e["message"], data=e.get("data", {}))
            for e in raw.get("errors", [])
        )
        response = cls(
            kind=raw["kind"],
            data=raw.get("data", {}),
            refs=tuple(Ref(kind=r["kind"], uri=r["uri"]) for r in raw.get("refs", [])),
            errors=errors,
            next_actions=tuple(_action(a) for a in raw.get("next_actions", [])),
            warnings=tuple(
                Notice(code=WarningCode(w["code"]), message=w["message"], data=w.get("data", {}))
                for w in raw.get("warnings", [])
            ),
        )
        if response.status != raw.get("status"):
            raise ValueError("status disagrees with errors")
        return response
