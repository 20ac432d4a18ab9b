"""Next actions: built quoted, run as written on the CLI, called as written over MCP, decoded back."""

from __future__ import annotations

import shlex

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trifecta.domain import actions as act
from trifecta.domain.contract import Response


def test_a_command_names_its_segment_quoted_and_runs_from_anywhere() -> None:
    action = act.snippet("sym://python/type/m/C#f")
    assert action == "ast snippet 'sym://python/type/m/C#f'"  # a '#' in zsh's extended glob would match files
    command = act.cli_command(action, "/home/me/my repo")
    assert command == "trifecta ast snippet 'sym://python/type/m/C#f' --segment '/home/me/my repo'"
    assert act.cli_command(act.index(), "/r") == "trifecta index /r"  # index takes its segment as argument
    assert act.cli_command(act.search("it's a query", mode="pattern"), "/r") == (
        "trifecta ctx search --query 'it'\"'\"'s a query' --mode pattern --segment /r"
    )


@pytest.mark.parametrize(
    ("action", "tool", "arguments"),
    [
        (act.symbols("sym://python/mod/a"), "symbols", {"uri": "sym://python/mod/a"}),
        (act.refs("sym://python/type/a/B", limit=20), "refs", {"uri": "sym://python/type/a/B", "limit": 20}),
        (act.hover("sym://python/type/a/B"), "hover", {"uri": "sym://python/type/a/B"}),
        (act.callers("sym://go/type/a/B", limit=120), "callers", {"uri": "sym://go/type/a/B", "limit": 120}),
        (act.callers("sym://go/type/a/B"), "callers", {"uri": "sym://go/type/a/B"}),
        (
            act.callers("sym://go/type/a/B", limit=50, offset=104),
            "callers",
            {"uri": "sym://go/type/a/B", "limit": 50, "offset": 104},
        ),
        (act.get_id("abc"), "get", {"id": "abc"}),
        (act.get_path("a b.py", 3, 9), "get", {"path": "a b.py:3-9"}),
        (
            act.search("x y", mode="pattern", limit=5),
            "search",
            {"query": "x y", "mode": "pattern", "limit": 5},
        ),
        (act.index(full=True), "reindex", {"full": True}),
        (act.status(), "index_status", {}),
    ],
)
def test_each_action_is_a_tool_call_and_back(action: str, tool: str, arguments: dict) -> None:
    call = act.tool_call(action)
    assert call.to_dict() == {"tool": tool, "arguments": arguments}
    assert act.from_tool_call(call.tool, call.arguments) == action


@pytest.mark.parametrize(
    "prose",
    [
        "rephrase with identifiers",
        "ctx search --mode pattern",
        "trifecta index .",
        "ctx get",
        "ast snippet",
        "ast refs sym://python/type/a/B --offset 3",  # only callers pages
    ],
)
def test_what_the_builders_did_not_make_is_refused(prose: str) -> None:
    with pytest.raises(act.NotAnAction):
        act.tool_call(prose)
    with pytest.raises(act.NotAnAction):
        act.cli_command(prose, "/r")


@given(
    st.text(min_size=1).filter(lambda t: "\x00" not in t),
    st.text(min_size=1).filter(lambda t: "\x00" not in t),
)
def test_any_text_survives_quoting(text: str, segment: str) -> None:
    assert act.tool_call(act.search(text)).arguments["query"] == text
    words = shlex.split(act.cli_command(act.snippet(text), segment))
    assert words == ["trifecta", "ast", "snippet", text, "--segment", segment]


def test_an_mcp_envelope_decodes_its_tool_calls_back_into_actions() -> None:
    response = Response.success("search", {}, next_actions=[act.snippet("sym://python/type/m/C#f")])
    raw = response.to_dict()
    raw["next_actions"] = [act.tool_call(a).to_dict() for a in response.next_actions]
    assert Response.from_dict(raw) == response


def test_search_actions_zoom_into_hits_and_retry_zero_hits_as_text() -> None:
    hits = [
        {"uri": "sym://python/type/m/f", "symbol": "f", "id": "1"},
        {"uri": None, "symbol": "", "id": "2"},
    ]
    assert act.after_search(hits, "q", route="lexical") == [
        "ast snippet sym://python/type/m/f",
        "ctx get --id 2",
    ]
    assert act.after_search([], "two words", route="semantic") == [
        "ctx search --query 'two words' --mode pattern"
    ]
    assert act.after_search([], "two words", route="pattern") == []
