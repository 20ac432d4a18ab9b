"""Telemetry events: what one Engine call leaves behind, so the team can see where search fails
(query-linter.md "Telemetry").

One event per public Engine call, a flat JSON-ready mapping:

    {"v": 1, "ts": "2026-11-22T10:00:00.123+00:00", "command": "ctx.search", "origin": "mcp",
     "args": {"query": "where is the config loaded", "limit": 10, "mode": "auto"},
     "status": "ok", "error": null, "took_ms": 12.4, "counts": {"hits": 3}, "zero_hit": false,
     "route": "semantic", "linter": {"query_class": "vague", "expanded": true, "added_strong_count": 2,
     "added_weak_count": 0, "reasons": ["vague_default_boost"]}, "rewrite": "skipped"}

Arguments are scrubbed before they are kept: anything that looks like a credential becomes `[REDACTED]`
and text is truncated (queries to 200 characters), because telemetry files are read by people who were
never meant to see a pasted token. Counters (`ctx_search_linter_*_count`) are derived from events here and
summed by the sink. Pure: the caller supplies the clock and the timing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import attrs

from ..domain.contract import Response
from ..domain.secrets import REDACTED, redact

EVENT_VERSION = 1
MAX_QUERY_CHARS = 200
MAX_TEXT_CHARS = 300
LINTER_CLASSES = ("vague", "semi", "guided", "disabled")
EXPANSION_COUNTER = "ctx_search_linter_expansion_count"
COUNTER_NAMES = (EXPANSION_COUNTER, *(f"ctx_search_linter_class_{c}_count" for c in LINTER_CLASSES))

# Engine method -> the command name an event records (the CLI's spelling, so events read like commands).
COMMANDS: Mapping[str, str] = {
    "search": "ctx.search",
    "get": "ctx.get",
    "symbols": "ast.symbols",
    "snippet": "ast.snippet",
    "hover": "ast.hover",
    "refs": "ast.refs",
    "index": "index",
    "status": "status",
}

# A last resort after the known formats: 32+ characters of letters and digits well mixed, with no `_` or `/`
# (which identifiers and paths have): a key or a hash, not a word.
_OPAQUE = re.compile(r"[A-Za-z0-9+=-]{32,}")


def _opaque(match: re.Match[str]) -> str:
    text = match.group(0)
    digits = sum(c.isdigit() for c in text)
    letters = sum(c.isalpha() for c in text)
    return REDACTED if digits >= 4 and letters >= 4 else text


def scrub_text(text: str, limit: int = MAX_TEXT_CHARS) -> str:
    """Credentials out (the formats of domain/secrets.py, then opaque keys and hashes), then cut to `limit`
    characters (with an ellipsis when cut). Redacting first means a cut never leaves half a secret."""
    text = _OPAQUE.sub(_opaque, redact(text, REDACTED))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def scrub_arguments(arguments: Mapping[str, Any]) -> dict[str, Any]:
    """Plain values kept, text scrubbed and truncated, anything else (callbacks, objects) named by type."""
    out: dict[str, Any] = {}
    for key, value in arguments.items():
        if key in ("self", "progress"):
            continue
        if value is None or isinstance(value, bool | int | float):
            out[key] = value
        elif isinstance(value, str):
            out[key] = scrub_text(value, MAX_QUERY_CHARS if key == "query" else MAX_TEXT_CHARS)
        else:
            out[key] = f"<{type(value).__name__}>"
    return out


_COUNTED = frozenset(
    {
        "total",
        "files",
        "symbols",
        "chunks",
        "files_indexed",
        "files_unchanged",
        "files_deleted",
        "parse_errors",
    }
)


def result_counts(response: Response) -> dict[str, int]:
    """How much came back: the length of each list in the data, the bytes of any content, totals."""
    counts: dict[str, int] = {}
    for key, value in response.data.items():
        if isinstance(value, list | tuple):
            counts[key] = len(value)
        elif key == "content" and isinstance(value, str):
            counts["bytes"] = len(value.encode("utf-8"))
        elif key in _COUNTED and isinstance(value, int) and not isinstance(value, bool):
            counts[key] = value
    return counts


@attrs.frozen(kw_only=True)
class LinterFacts:
    query_class: str  # vague | semi | guided | disabled
    expanded: bool = False
    added_strong_count: int = 0
    added_weak_count: int = 0
    reasons: tuple[str, ...] = ()

    @classmethod
    def from_plan(cls, lint_plan: Mapping[str, Any]) -> LinterFacts:
        changes = lint_plan.get("changes") or {}
        return cls(
            query_class=str(lint_plan.get("query_class", "disabled")),
            expanded=bool(lint_plan.get("changed", False)),
            added_strong_count=len(changes.get("added_strong", ())),
            added_weak_count=len(changes.get("added_weak", ())),
            reasons=tuple(str(r) for r in changes.get("reasons", ())),
        )


@attrs.frozen(kw_only=True)
class TelemetryEvent:
    timestamp: str
    command: str
    origin: str = "library"  # cli | mcp | library
    arguments: Mapping[str, Any] = attrs.field(factory=dict)
    status: str = "ok"
    error: str | None = None
    took_ms: float = 0.0
    counts: Mapping[str, int] = attrs.field(factory=dict)
    zero_hit: bool | None = None  # searches only
    route: str | None = None
    linter: LinterFacts | None = None
    rewrite: str | None = None  # the rewriter's status for this search: tried | skipped | failed

    def to_dict(self) -> dict[str, Any]:
        return {
            "v": EVENT_VERSION,
            "ts": self.timestamp,
            "command": self.command,
            "origin": self.origin,
            "args": dict(self.arguments),
            "status": self.status,
            "error": self.error,
            "took_ms": self.took_ms,
            "counts": dict(self.counts),
            "zero_hit": self.zero_hit,
            "route": self.route,
            "linter": None
            if self.linter is None
            else {**attrs.asdict(self.linter), "reasons": list(self.linter.reasons)},
            "rewrite": self.rewrite,
        }

    def counters(self) -> dict[str, int]:
        """The query-linter.md counters this event adds to."""
        if self.command != "ctx.search" or self.linter is None:
            return {}
        out = {f"ctx_search_linter_class_{self.linter.query_class}_count": 1}
        if self.linter.expanded:
            out[EXPANSION_COUNTER] = 1
        return out


def build_event(
    *,
    method: str,
    arguments: Mapping[str, Any],
    response: Response,
    took_ms: float,
    timestamp: str,
    origin: str = "library",
) -> TelemetryEvent:
    """The event for one Engine call that answered `response` (errors included) in `took_ms`."""
    command = COMMANDS.get(method, method)
    counts = result_counts(response)
    route: str | None = None
    linter: LinterFacts | None = None
    rewrite: str | None = None
    zero_hit: bool | None = None
    if command == "ctx.search":
        plan = response.data.get("plan") or {}
        route = plan.get("route")
        if response.ok or plan:
            linter = LinterFacts.from_plan(plan.get("lint") or {"query_class": "disabled"})
        rewrite_plan = plan.get("rewrite")
        if isinstance(rewrite_plan, Mapping) and rewrite_plan.get("status"):
            rewrite = str(rewrite_plan["status"])
        if response.ok:
            zero_hit = counts.get("hits", counts.get("total", 0)) == 0
    return TelemetryEvent(
        timestamp=timestamp,
        command=command,
        origin=origin,
        arguments=scrub_arguments(arguments),
        status=response.status,
        error=response.errors[0].code.value if response.errors else None,
        took_ms=round(took_ms, 3),
        counts=counts,
        zero_hit=zero_hit,
        route=None if route is None else str(route),
        linter=linter,
        rewrite=rewrite,
    )
