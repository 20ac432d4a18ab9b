"""`ctx stats`: what a run of telemetry events adds up to. Pure: events in, a report out.

The report answers the questions telemetry exists for: how often does search find something (hit rate),
which questions find nothing (top zero-hit queries), how slow is each command (p50 / p95), and how are
questions read (counts by linter class and by route). Events come from files people can edit or truncate,
so anything malformed is counted as skipped rather than trusted.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

from ..domain.contract import ErrorCode, Response
from .ports import TelemetrySink
from .telemetry import COUNTER_NAMES

TOP_QUERIES = 10


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of `values`; 0.0 when there are none."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


@attrs.frozen(kw_only=True)
class CommandStats:
    count: int
    errors: int
    p50_ms: float
    p95_ms: float


@attrs.frozen(kw_only=True)
class StatsReport:
    events: int
    skipped: int
    first: str
    last: str
    commands: Mapping[str, CommandStats]
    searches: int  # searches that answered (ok), the denominator of the hit rate
    hit_rate: float | None  # None when there was no search
    zero_hit_searches: int
    top_zero_hit_queries: tuple[tuple[str, int], ...]
    by_linter_class: Mapping[str, int]
    by_route: Mapping[str, int]
    by_rewrite: Mapping[str, int]
    by_origin: Mapping[str, int]
    errors_by_code: Mapping[str, int]
    counters: Mapping[str, int]

    def to_data(self) -> dict[str, Any]:
        return {
            "events": self.events,
            "skipped": self.skipped,
            "first": self.first,
            "last": self.last,
            "commands": {name: attrs.asdict(stats) for name, stats in sorted(self.commands.items())},
            "search": {
                "searches": self.searches,
                "hit_rate": self.hit_rate,
                "zero_hit": self.zero_hit_searches,
                "top_zero_hit_queries": [{"query": q, "count": n} for q, n in self.top_zero_hit_queries],
                "by_linter_class": dict(self.by_linter_class),
                "by_route": dict(self.by_route),
                "by_rewrite": dict(self.by_rewrite),
            },
            "by_origin": dict(self.by_origin),
            "errors_by_code": dict(self.errors_by_code),
            "counters": dict(self.counters),
        }


def _sorted_counts(counter: Counter[str]) -> dict[str, int]:
    return dict(sorted(counter.items(), key=lambda kv: (-kv[1], kv[0])))


def summarize(
    events: Iterable[Mapping[str, Any]], counters: Mapping[str, int] | None = None, top: int = TOP_QUERIES
) -> StatsReport:
    timings: dict[str, list[float]] = {}
    errors: Counter[str] = Counter()
    error_codes: Counter[str] = Counter()
    origins: Counter[str] = Counter()
    linter_classes: Counter[str] = Counter()
    routes: Counter[str] = Counter()
    rewrites: Counter[str] = Counter()
    zero_queries: Counter[str] = Counter()
    total = skipped = searches = hits = zero = 0
    first = last = ""
    for event in events:
        command = event.get("command") if isinstance(event, Mapping) else None
        took = event.get("took_ms") if isinstance(event, Mapping) else None
        if not isinstance(command, str) or isinstance(took, bool) or not isinstance(took, int | float):
            skipped += 1
            continue
        total += 1
        ts = str(event.get("ts") or "")
        if ts:
            first = ts if not first or ts < first else first
            last = ts if ts > last else last
        timings.setdefault(command, []).append(float(took))
        origins[str(event.get("origin") or "unknown")] += 1
        if event.get("status") == "error":
            errors[command] += 1
            error_codes[str(event.get("error") or "UNKNOWN")] += 1
        if command != "ctx.search":
            continue
        linter = event.get("linter")
        if isinstance(linter, Mapping) and linter.get("query_class"):
            linter_classes[str(linter["query_class"])] += 1
        if event.get("route"):
            routes[str(event["route"])] += 1
        if event.get("rewrite"):
            rewrites[str(event["rewrite"])] += 1
        if event.get("status") != "ok":
            continue
        searches += 1
        if event.get("zero_hit") is True:
            zero += 1
            args = event.get("args")
            query = args.get("query") if isinstance(args, Mapping) else None
            if isinstance(query, str) and query.strip():
                zero_queries[" ".join(query.split()).casefold()] += 1
        else:
            hits += 1
    commands = {
        name: CommandStats(
            count=len(values),
            errors=errors[name],
            p50_ms=round(percentile(values, 50), 3),
            p95_ms=round(percentile(values, 95), 3),
        )
        for name, values in timings.items()
    }
    top_zero = sorted(zero_queries.items(), key=lambda kv: (-kv[1], kv[0]))[:top]
    return StatsReport(
        events=total,
        skipped=skipped,
        first=first,
        last=last,
        commands=commands,
        searches=searches,
        hit_rate=round(hits / searches, 4) if searches else None,
        zero_hit_searches=zero,
        top_zero_hit_queries=tuple(top_zero),
        by_linter_class=_sorted_counts(linter_classes),
        by_route=_sorted_counts(routes),
        by_rewrite=_sorted_counts(rewrites),
        by_origin=_sorted_counts(origins),
        errors_by_code=_sorted_counts(error_codes),
        counters=dict(sorted({**dict.fromkeys(COUNTER_NAMES, 0), **(counters or {})}.items())),
    )


@attrs.frozen(kw_only=True)
class StatsRequest:
    top: int = TOP_QUERIES


class StatsUseCase:
    """Reads the sink's events and counters and summarizes them; `where` says where they were read from."""

    def __init__(self, sink: TelemetrySink, *, where: str = "", enabled: bool = True) -> None:
        self._sink = sink
        self._where = where
        self._enabled = enabled

    def execute(self, request: StatsRequest) -> Response:
        if isinstance(request.top, bool) or not isinstance(request.top, int) or not 1 <= request.top <= 100:
            return Response.failure("stats", ErrorCode.INVALID_ARGUMENT, "top must be between 1 and 100")
        report = summarize(self._sink.events(), self._sink.counters(), top=request.top)
        data = {"telemetry": {"enabled": self._enabled, "dir": self._where}, **report.to_data()}
        # advice, not commands: next_actions hold only commands that run as written
        hints = [] if report.events else ["run some searches (ctx search, or the MCP tools) first"]
        if not self._enabled:
            hints.append("unset TRIFECTA_NO_TELEMETRY (or set [telemetry] enabled = true) to record events")
        if hints:
            data["hints"] = hints
        return Response.success("stats", data)
