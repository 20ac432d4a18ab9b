"""Search over several segments of a shared index, as one answer.

Each segment is searched by its own search pipeline (`SearchSegment` over that segment's reader, unchanged),
for `limit` hits, so the top `limit` of the union is always among them. The hits are then merged into one
ranking, each carrying its `segment`, and the next actions name the segment they need
(`ast snippet URI --segment flask`; over MCP, the tool's `segment` argument).

Merging (`MERGES`): "score" orders every hit by the score its own pipeline gave it. Those scores are
comparable across segments because the pipeline fuses its engines by reciprocal rank (a hit's score comes
from its ranks, not from a segment's BM25 magnitudes) and gives an exact symbol or path match a fixed score;
"rank" interleaves the segments rank by rank instead. Measured on flask + click searched together with each
set's own questions (docs/scaling.md), "score" keeps the single-segment MRR best, so it is the default.
"""

from __future__ import annotations

import concurrent.futures
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from ..domain import actions
from ..domain.contract import ErrorCode, Notice, Response

MERGES = ("score", "rank")
MAX_PARALLEL = 4  # segments searched at once (each has its own connection; the work is partly the server's)

# (segment, limit) -> that segment's search envelope
SearchOne = Callable[[str, int], Response]


@attrs.frozen(kw_only=True)
class SegmentsRequest:
    query: str
    segments: tuple[str, ...]
    limit: int = 10
    merge: str = "score"


def merge_hits(
    per_segment: Mapping[str, Sequence[Mapping[str, Any]]], how: str = "score"
) -> list[dict[str, Any]]:
    """Every segment's hits (best first), each tagged with its segment, in one ranking: by score, ties by
    the segments' order and then rank; or ("rank") the first hit of every segment, then the second, ..."""
    order = {name: i for i, name in enumerate(per_segment)}
    tagged = [
        (rank, order[name], {**hit, "segment": name})
        for name, hits in per_segment.items()
        for rank, hit in enumerate(hits)
    ]
    if how == "rank":
        tagged.sort(key=lambda t: (t[0], t[1]))
    else:
        tagged.sort(key=lambda t: (-float(t[2].get("score", 0.0)), t[1], t[0]))
    return [hit for _, _, hit in tagged]


def next_actions(hits: Sequence[Mapping[str, Any]], query: str) -> list[str]:
    """Zoom into the first hits, each on its own segment."""
    out = []
    for hit in hits[:3]:
        for action in actions.after_search([hit], query, route="", top=1):
            out.append(actions.on_segment(action, str(hit["segment"])))
    return out


class SearchSegments:
    """One question over several segments: each searched on its own, the hits merged (module docstring)."""

    def __init__(self, search_one: SearchOne, *, parallel: int = MAX_PARALLEL) -> None:
        self._search_one = search_one
        self._parallel = parallel

    def execute(self, request: SegmentsRequest) -> Response:
        started = time.perf_counter()
        if request.merge not in MERGES:
            return Response.failure(
                "search",
                ErrorCode.INVALID_ARGUMENT,
                f"unknown merge {request.merge!r}; expected one of {', '.join(MERGES)}",
                error_data={"argument": "merge"},
            )
        if not request.segments:
            return Response.failure(
                "search", ErrorCode.SEGMENT_NOT_FOUND, "no segment to search: the shared index holds none yet"
            )
        answers = self._each(request)
        for name, answer in answers.items():
            if not answer.ok:  # the same question fails alike everywhere (an empty query, a bad regex)
                error = answer.errors[0]
                return Response.failure(
                    "search",
                    error.code,
                    f"{name}: {error.message}",
                    error_data={**error.data, "segment": name},
                ).with_warnings(answer.warnings)
        hits = merge_hits({n: a.data.get("hits", []) for n, a in answers.items()}, request.merge)
        shown = hits[: request.limit]
        data = {
            "query": next(iter(answers.values())).data.get("query", request.query),
            "hits": shown,
            "total": len(shown),
            "segments": list(request.segments),
            "plan": {
                "merge": request.merge,
                "segments": {n: a.data.get("plan", {}) for n, a in answers.items()},
            },
            "index": _index_totals([a.data.get("index", {}) for a in answers.values()]),
            "took_ms": round((time.perf_counter() - started) * 1000, 3),
        }
        response = Response.success("search", data, next_actions=next_actions(shown, request.query))
        return response.with_warnings(_warnings(answers))

    def _each(self, request: SegmentsRequest) -> dict[str, Response]:
        names = request.segments
        if len(names) == 1 or self._parallel <= 1:
            return {n: self._search_one(n, request.limit) for n in names}
        workers = min(self._parallel, len(names))
        with concurrent.futures.ThreadPoolExecutor(workers, thread_name_prefix="segment") as pool:
            futures = {n: pool.submit(self._search_one, n, request.limit) for n in names}
            return {n: f.result() for n, f in futures.items()}


def _index_totals(indexes: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    return {
        "files": sum(int(i.get("files", 0)) for i in indexes),
        "symbols": sum(int(i.get("symbols", 0)) for i in indexes),
        "built_at": max((str(i.get("built_at", "")) for i in indexes), default=""),
        "refreshed": sum(int(i.get("refreshed", 0)) for i in indexes),
    }


def _warnings(answers: Mapping[str, Response]) -> list[Notice]:
    """Each segment's warnings once, naming the segment."""
    seen: set[tuple[str, str]] = set()
    out = []
    for name, answer in answers.items():
        for notice in answer.warnings:
            key = (notice.code.value, notice.message)
            if key not in seen:
                seen.add(key)
                out.append(attrs.evolve(notice, data={**notice.data, "segment": name}))
    return out
