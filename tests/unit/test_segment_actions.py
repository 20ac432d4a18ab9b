"""Next actions of a search over several segments name the segment they need, as a command and as a tool
call, and decode back to the same action."""

from __future__ import annotations

import pytest

from trifecta.domain import actions as act


def test_an_action_on_a_segment_keeps_its_segment_as_command_and_tool_call() -> None:
    action = act.on_segment(act.snippet("sym://python/type/m/C#f"), "flask")
    assert act.cli_command(action, "/somewhere/else") == (
        "trifecta ast snippet 'sym://python/type/m/C#f' --segment flask"
    )
    call = act.tool_call(action)
    assert (call.tool, dict(call.arguments)) == (
        "snippet",
        {"uri": "sym://python/type/m/C#f", "segment": "flask"},
    )
    assert act.from_tool_call(call.tool, call.arguments) == action
    got = act.tool_call(act.on_segment(act.get_id("abc"), "my repo"))
    assert dict(got.arguments) == {"id": "abc", "segment": "my repo"}


def test_an_action_names_one_segment_and_index_runs_from_a_checkout() -> None:
    with pytest.raises(act.NotAnAction):
        act.on_segment(act.on_segment(act.get_id("a"), "x"), "y")
    with pytest.raises(act.NotAnAction):
        act.on_segment(act.index(), "x")
    # a uri or query that reads "--segment" is still the action's own word
    assert act.cli_command(act.snippet("--segment"), "/r") == "trifecta ast snippet --segment --segment /r"
