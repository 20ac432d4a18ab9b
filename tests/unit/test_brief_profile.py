"""The brief profile: per hit only what an agent needs to choose, no defaults, no plan unless asked."""

from __future__ import annotations

import json

from trifecta.domain.contract import Response
from trifecta.interfaces.render import brief, brief_hit

HIT = {
    "id": "60a89a45fd50663b",
    "path": "shop/checkout.py",
    "start_line": 18,
    "end_line": 21,
    "symbol": "parse_http_header",
    "kind": "function",
    "language": "python",
    "score": 74.6024,
    "match_type": "lexical",
    "preview": 'def parse_http_header(line: str) -> tuple[str, str]:\n    """Split one HTTP header line."""\n    x = 1',
    "uri": "sym://python/type/shop/checkout/parse_http_header",
}


def test_a_hit_keeps_where_what_signature_doc_and_handle() -> None:
    assert brief_hit(HIT) == {
        "loc": "shop/checkout.py:18-21",
        "symbol": "parse_http_header",
        "kind": "function",
        "sig": "def parse_http_header(line: str) -> tuple[str, str]:",
        "doc": "Split one HTTP header line.",
        "uri": "sym://python/type/shop/checkout/parse_http_header",
    }
    text = {
        **HIT,
        "symbol": "",
        "kind": "text",
        "uri": None,
        "line": 20,
        "preview": "  the matching line\nmore",
    }
    assert brief_hit(text) == {
        "loc": "shop/checkout.py:18-21",
        "line": 20,
        "kind": "text",
        "sig": "the matching line",
        "id": "60a89a45fd50663b",
    }


def test_ten_hits_fit_in_two_and_a_half_kilobytes_and_the_plan_only_when_asked() -> None:
    data = {"query": "q", "hits": [HIT] * 10, "total": 10, "plan": {"route": "lexical"}, "took_ms": 3.2}
    envelope = Response.success("search", data, next_actions=["ast snippet x"]).to_dict()
    full = len(json.dumps(envelope, separators=(",", ":")))
    short = brief(envelope)
    size = len(json.dumps(short, separators=(",", ":")))
    assert size <= 2500 < full
    assert "plan" not in short["data"] and "total" not in short["data"] and short["next_actions"] == []
    assert brief(envelope, plan=True)["data"]["plan"] == {"route": "lexical"}
    assert set(short) == set(envelope)  # the same envelope keys: the published schema holds


def test_other_answers_lose_timings_and_defaults_only() -> None:
    data = {
        "path": "a.py",
        "content": "x",
        "truncated": False,
        "hidden_lines": 0,
        "bytes": 1,
        "took_ms": 1.23,
    }
    envelope = Response.success("source", {**data, "range": {"start_line": 1, "end_line": 1}}).to_dict()
    assert brief(envelope)["data"] == {
        "path": "a.py",
        "content": "x",
        "range": {"start_line": 1, "end_line": 1},
    }
