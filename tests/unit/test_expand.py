"""One-call answers: inlined sources stay inside the snippet budget, and say so."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from trifecta.application.expand import clear_lead, expand, invalid_expand
from trifecta.domain.budget import BudgetPolicy
from trifecta.domain.contract import ErrorCode, Response

POLICY = BudgetPolicy(max_snippet_bytes=100, max_snippets=3, max_bytes_total=1000)


def hits(n: int) -> list[dict]:
    return [{"uri": f"sym://python/type/m/f{i}", "symbol": f"f{i}", "score": 10.0 - i} for i in range(n)]


def snippets(sizes: dict[str, int], truncated: frozenset[str] = frozenset()):
    def snippet(uri: str) -> Response:
        return Response.success("snippet", {"content": "x" * sizes[uri], "truncated": uri in truncated})

    return snippet


@given(st.lists(st.integers(min_value=0, max_value=150), min_size=1, max_size=6), st.integers(1, 3))
def test_inlined_sources_never_exceed_the_budget_and_what_is_left_out_is_said(
    sizes: list[int], n: int
) -> None:
    found = hits(len(sizes))
    by_uri = {h["uri"]: size for h, size in zip(found, sizes, strict=True)}
    out = expand(Response.success("search", {"hits": found}), n, snippets(by_uri), POLICY)
    report = out.data["expanded"]
    inlined = [h for h in out.data["hits"] if "source" in h]
    assert report["budget"] == n * POLICY.max_snippet_bytes
    assert report["bytes"] == sum(len(h["source"]) for h in inlined) <= report["budget"]
    assert report["inlined"] == len(inlined) <= n
    assert len(inlined) + len(report.get("skipped", [])) == min(n, len(sizes))


def test_out_of_range_is_invalid_argument_with_the_range() -> None:
    for bad in (-1, 4, True, "2"):
        answer = invalid_expand(bad, POLICY)
        assert answer is not None and answer.errors[0].code is ErrorCode.INVALID_ARGUMENT
        assert answer.errors[0].data == {"argument": "expand", "min": 0, "max": 3}
        assert "between 0 and 3" in answer.errors[0].message
    assert invalid_expand(0, POLICY) is None and invalid_expand(3, POLICY) is None


def test_a_clear_lead_is_expanded_unasked_only_when_it_fits_whole() -> None:
    assert clear_lead([{"uri": "u", "symbol": "f", "score": 10}, {"score": 4}])
    assert not clear_lead([{"uri": "u", "symbol": "f", "score": 10}, {"score": 6}])
    assert not clear_lead([{"uri": None, "symbol": "", "score": 10}])
    found = hits(2)
    cut = snippets({found[0]["uri"]: 50}, frozenset({found[0]["uri"]}))
    out = expand(Response.success("search", {"hits": found}), 1, cut, POLICY, whole_only=True)
    assert "source" not in out.data["hits"][0]
    assert out.data["expanded"]["skipped"] == [{"uri": found[0]["uri"], "reason": "truncated"}]
