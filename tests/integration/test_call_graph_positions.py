"""Callers, callees and impact of the definition at a line (`PATH:LINE[:COL]` instead of a sym:// selector),
through the facade, the real CLI and the official MCP client, over tests/fixtures/callgraph_ts and
tests/fixtures/callgraph indexed into real SQLite files.

app/locals.test.ts defines `reducer` three times (at module level, line 5; in one test's callback, line 8;
in another's, lines 13-15): one selector names all three and answers for the first, so only a position
asks about the others."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import ClientSession, StdioServerParameters, stdio_client

import trifecta
from trifecta.domain.contract import Response

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
_SCRIPT = Path(sys.executable).parent / "trifecta"
CLI = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "trifecta"]
REDUCER = "sym://typescript/type/app/locals.test/reducer"
pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dest = tmp_path_factory.mktemp("positions") / "repo"
    shutil.copytree(FIXTURES / "callgraph_ts", dest, ignore=shutil.ignore_patterns(".trifecta"))
    (dest / "notes.md").write_text("# Notes\n\nNo definitions here.\n")
    return dest


@pytest.fixture(scope="module")
def engine(repo: Path) -> Iterator[trifecta.Engine]:
    with trifecta.open(repo) as e:
        e.index()
        yield e


def answer(response: Response) -> dict[str, Any]:
    data = response.to_dict()
    assert data["status"] == "ok", data["errors"]
    return dict(data["data"])


def sites(data: dict[str, Any]) -> list[tuple[str, int, str]]:
    return [(h["path"], h["line"], h["symbol"]) for h in data["hits"]]


def test_callers_of_the_second_definition_of_a_name_are_its_own(engine: trifecta.Engine) -> None:
    by_uri = answer(engine.callers(REDUCER))  # the first: module level
    assert by_uri["range"] == {"start_line": 5, "end_line": 5}
    assert sites(by_uri) == [("app/locals.test.ts", 21, ""), ("app/locals.test.ts", 24, "outer")]
    second = answer(engine.callers("app/locals.test.ts:8"))  # `const reducer` in the first callback
    assert second["range"] == {"start_line": 8, "end_line": 8} and second["uri"] == REDUCER
    assert sites(second) == [("app/locals.test.ts", 9, "")]
    third = answer(engine.callers("app/locals.test.ts:14"))  # a line in the body of the third
    assert third["range"] == {"start_line": 13, "end_line": 15}
    assert sites(third) == [("app/locals.test.ts", 16, ""), ("app/locals.test.ts", 17, "twice")]
    # the envelope is the URI form's: the same keys, the same refs
    assert set(second) == set(by_uri)
    assert engine.callers("app/locals.test.ts:8").refs == engine.callers(REDUCER).refs
    assert answer(engine.callers("app/locals.test.ts:5")) == by_uri


def test_callees_and_impact_of_a_position(engine: trifecta.Engine) -> None:
    # app/steps.ts: `const step` in `first` (line 2) and in `second` (line 7)
    callees = answer(engine.callees("app/steps.ts:6"))  # `second`: its calls reach its own `step`
    assert [(h["call_line"], h["symbol"], h["line"]) for h in callees["hits"]] == [
        (8, "step", 7),
        (8, "step", 7),
    ]
    twice = answer(engine.callees("app/locals.test.ts:17"))  # `reducer(3)` in the second callback
    assert [(h["symbol"], h["line"]) for h in twice["hits"]] == [("reducer", 13)]
    impact = answer(engine.impact("app/steps.ts:7"))
    assert impact["range"] == {"start_line": 7, "end_line": 7}
    assert [(f["path"], [s["symbol"] for s in f["symbols"]]) for f in impact["files"]] == [
        ("app/steps.ts", ["second"])
    ]
    by_uri = answer(engine.impact("sym://typescript/type/app/steps/step"))
    assert [s["symbol"] for f in by_uri["files"] for s in f["symbols"]] == ["first"]


def test_a_cut_answer_asks_for_the_rest_by_the_same_definitions_line(engine: trifecta.Engine) -> None:
    response = engine.callers("app/locals.test.ts:14", limit=1)
    assert response.next_actions[0] == "ast callers app/locals.test.ts:13 --limit 2"
    rest = engine.callers("app/locals.test.ts:13", offset=1)
    assert sites(answer(rest)) == [("app/locals.test.ts", 17, "twice")]


@pytest.mark.parametrize(
    ("target", "code"),
    [
        ("app/locals.test.ts:9", "INVALID_ARGUMENT"),  # in a callback: in no definition
        ("app/locals.test.ts:4000", "INVALID_ARGUMENT"),
        ("app/locals.test.ts:0", "INVALID_ARGUMENT"),
        ("app/locals.test.ts:nine", "INVALID_ARGUMENT"),
        ("app/absent.ts:3", "FILE_NOT_FOUND"),
        ("../outside.ts:3", "PATH_OUTSIDE_SEGMENT"),
        ("/etc/passwd:1", "PATH_OUTSIDE_SEGMENT"),
        ("notes.md:1", "INVALID_ARGUMENT"),  # a file of the segment, of no language with definitions
    ],
)
def test_a_position_that_names_no_definition_is_a_clear_error(
    engine: trifecta.Engine, target: str, code: str
) -> None:
    for response in (engine.callers(target), engine.callees(target), engine.impact(target)):
        error = response.to_dict()["errors"][0]
        assert error["code"] == code and error["message"], error
        assert "traceback" not in error["data"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.one_of(
        st.text(max_size=40),
        st.builds(
            lambda path, line: f"{path}:{line}",
            st.sampled_from(["app/locals.test.ts", "app/steps.ts", "", ".", "..", "app", "\\", "a:b"]),
            st.text(alphabet="0123456789:-x ²", max_size=12),
        ),
    )
)
def test_any_target_gets_an_answer_or_a_clear_error(engine: trifecta.Engine, target: str) -> None:
    for response in (engine.callers(target), engine.callees(target), engine.impact(target)):
        data = response.to_dict()
        if data["status"] == "error":
            assert data["errors"][0]["code"] != "INTERNAL_ERROR", data["errors"]
            assert data["errors"][0]["message"]


def run_cli(*args: str) -> tuple[int, dict[str, Any], str]:
    proc = subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=120, env={**os.environ})
    data = json.loads(proc.stdout)
    Response.from_dict(data)
    return proc.returncode, data, proc.stderr


def test_the_cli_takes_a_position(repo: Path, engine: trifecta.Engine) -> None:
    seg = ["--segment", str(repo), "--json"]
    code, data, _ = run_cli("ast", "callers", "app/locals.test.ts:8", *seg)
    assert code == 0 and [(h["line"], h["symbol"]) for h in data["data"]["hits"]] == [(9, "")]
    code, data, _ = run_cli("ast", "callees", "app/steps.ts:6", *seg)
    assert code == 0 and {h["line"] for h in data["data"]["hits"]} == {7}
    code, data, _ = run_cli("ast", "impact", "app/steps.ts:7", "--depth", "2", *seg)
    assert code == 0 and data["data"]["range"] == {"start_line": 7, "end_line": 7}
    code, data, stderr = run_cli("ast", "callers", "app/locals.test.ts:9", *seg)
    assert code != 0 and data["errors"][0]["code"] == "INVALID_ARGUMENT" and "Traceback" not in stderr
    assert data["next_actions"] == [
        f"trifecta ast symbols sym://typescript/mod/app/locals.test --segment {repo.resolve()}"
    ]
    code, data, stderr = run_cli("ast", "def", "app/locals.test.ts:²", *seg)  # one grammar: no int('²')
    assert code != 0 and data["errors"][0]["code"] == "INVALID_ARGUMENT" and "Traceback" not in stderr


def test_a_python_name_defined_again_under_if(tmp_path: Path) -> None:
    # py/app/compat.py: `def to_bytes` at line 4 and again at line 10 under `if`
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURES / "callgraph", repo, ignore=shutil.ignore_patterns(".trifecta"))
    with trifecta.open(repo) as engine:
        engine.index()
        second = answer(engine.callers("py/app/compat.py:10"))
        assert second["range"] == {"start_line": 10, "end_line": 11}
        assert sites(second) == [("py/app/compat.py", 15, "send")]  # a call reaches whichever runs
        by_uri = answer(engine.callees("sym://python/type/py/app/compat/to_bytes"))  # every definition's
        own = answer(engine.callees("py/app/compat.py:11"))  # the second's only
        assert [h["callee"] for h in by_uri["hits"]] == ["bytes", "text.encode"]
        assert [h["callee"] for h in own["hits"]] == ["text.encode"]


def test_the_mcp_tools_take_a_position(repo: Path, engine: trifecta.Engine) -> None:
    params = StdioServerParameters(
        command=CLI[0],
        args=[*CLI[1:], "mcp", "--segment", str(repo)],
        env={**os.environ, "TRIFECTA_WORKERS": "1"},
    )

    async def session() -> tuple[dict[str, Any], list[dict[str, Any]]]:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            tools = {t.name: t for t in (await s.list_tools()).tools}
            calls = [
                ("callers", {"uri": "app/locals.test.ts:8"}),
                ("callers", {"uri": "app/locals.test.ts:14", "limit": 1}),
                ("callees", {"uri": "app/steps.ts:6"}),
                ("impact", {"uri": "app/steps.ts:7", "depth": 2}),
                ("callers", {"uri": "app/locals.test.ts:9"}),
                ("callers", {"uri": "not a target"}),
            ]
            results = [(await s.call_tool(name, args)).structured_content for name, args in calls]
            follow = results[1]["next_actions"][0]  # the rest, by the same definition's line
            results.append((await s.call_tool(follow["tool"], follow["arguments"])).structured_content)
            return tools, results

    tools, results = anyio.run(session)
    for name in ("callers", "callees", "impact"):
        assert "path:line" in tools[name].description
        assert "path:line" in tools[name].input_schema["properties"]["uri"]["description"]
    second, cut, callees, impact, outside, garbage, rest = results  # (brief: an empty symbol left out)
    assert [(h["line"], h.get("symbol", "")) for h in second["data"]["hits"]] == [(9, "")]
    assert cut["next_actions"][0] == {
        "tool": "callers",
        "arguments": {"uri": "app/locals.test.ts:13", "limit": 2},
    }
    assert [(h["line"], h.get("symbol", "")) for h in rest["data"]["hits"]] == [(16, ""), (17, "twice")]
    assert {h["line"] for h in callees["data"]["hits"]} == {7}
    assert impact["data"]["total"] == 1
    assert outside["errors"][0]["code"] == "INVALID_ARGUMENT"
    assert outside["next_actions"] == [
        {"tool": "symbols", "arguments": {"uri": "sym://typescript/mod/app/locals.test"}}
    ]
    assert garbage["errors"][0]["code"] == "INVALID_SELECTOR_SYNTAX"
