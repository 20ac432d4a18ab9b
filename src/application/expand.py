"""One-call answers: a search whose first hits carry their source, inside the snippet budget.

`expand(response, n, snippet, policy)` inlines, in rank order, the source of the first `n` hits that name a
definition (each as `ast snippet` would show it: cut to `max_snippet_bytes` / `max_lines_per_snippet`).
The inlined sources together stay within `n * max_snippet_bytes` and `max_bytes_total`: a source that would
cross it is left out and said so, never cut silently. `data["expanded"]` reports the budget:

    {"requested": n, "inlined": k, "bytes": b, "budget": B, "skipped": [{"uri", "reason"}]}

`clear_lead(hits)` is the case for expanding unasked: the top hit names a definition and scores at least
`LEAD` times the second; then only a definition that fits whole is inlined.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from ..domain.budget import BudgetPolicy, utf8_size
from ..domain.contract import ErrorCode, Response

LEAD = 2.0  # the top hit's score over the second's that makes it the answer


def expand_range(policy: BudgetPolicy) -> tuple[int, int]:
    return 0, policy.max_snippets


def invalid_expand(n: object, policy: BudgetPolicy) -> Response | None:
    """INVALID_ARGUMENT with the valid range when `n` is not a count of hits to inline; None when it is."""
    low, high = expand_range(policy)
    if isinstance(n, bool) or not isinstance(n, int) or not low <= n <= high:
        return Response.failure(
            "search",
            ErrorCode.INVALID_ARGUMENT,
            f"expand must be between {low} and {high} (the snippet budget's max_snippets), got {n!r}",
            error_data={"argument": "expand", "min": low, "max": high},
        )
    return None


def clear_lead(hits: Sequence[Mapping[str, Any]]) -> bool:
    if not hits or not hits[0].get("uri") or not hits[0].get("symbol"):
        return False
    if len(hits) == 1:
        return True
    top, second = float(hits[0].get("score", 0)), float(hits[1].get("score", 0))
    return top > 0 and top >= LEAD * second


def expand(
    response: Response,
    n: int,
    snippet: Callable[[str], Response],
    policy: BudgetPolicy,
    *,
    whole_only: bool = False,
) -> Response:
    """The search response with the source of its first `n` definition hits inlined as `hit["source"]`.
    `whole_only`: a definition the snippet budget would cut is not inlined (reason "truncated"): unasked,
    only a whole definition is an answer by itself."""
    if n <= 0 or not response.ok or not response.data.get("hits"):
        return response
    budget = min(n * policy.max_snippet_bytes, policy.max_bytes_total)
    hits = [dict(h) for h in response.data["hits"]]
    used, inlined = 0, 0
    skipped: list[dict[str, str]] = []
    for hit in hits:
        if inlined + len(skipped) >= n:
            break
        uri = hit.get("uri")
        if not uri or not hit.get("symbol"):
            continue
        answer = snippet(uri)
        if not answer.ok:
            skipped.append({"uri": uri, "reason": answer.errors[0].code.value})
            continue
        source = str(answer.data.get("content", ""))
        if whole_only and answer.data.get("truncated"):
            skipped.append({"uri": uri, "reason": "truncated"})
            continue
        size = utf8_size(source)
        if used + size > budget:
            skipped.append({"uri": uri, "reason": "budget"})
            continue
        hit["source"] = source
        if answer.data.get("truncated"):
            hit["source_truncated"] = True
        used += size
        inlined += 1
    report: dict[str, Any] = {"requested": n, "inlined": inlined, "bytes": used, "budget": budget}
    if skipped:
        report["skipped"] = skipped
    return attrs.evolve(response, data={**response.data, "hits": hits, "expanded": report})
