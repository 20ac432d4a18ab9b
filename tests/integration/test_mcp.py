"""`trifecta mcp` as an agent's client sees it: the official MCP client (`ClientSession` + `stdio_client`)
starts the server as a subprocess over stdio, lists the tools and calls every one with good and bad
arguments. Tool results are compared with tests/golden/mcp_session.json after volatile fields (timings,
timestamps, the temp path) are normalized; TRIFECTA_UPDATE_GOLDEN=1 rewrites the golden file.

One server process serves the whole scripted session (module fixture), as an agent's client would use it."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp_types import CallToolResult

from trifecta.application.stats import summarize
from trifecta.domain.contract import Response
from trifecta.infrastructure.telemetry import JsonlTelemetry

# slow: two MCP server subprocesses (SDK import ~1 s each) and a real language server for hover/refs
# (jedi, ~1 s to start): about 8 s together on 2 cores.
pytestmark = pytest.mark.slow

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "sample_repo"
GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "mcp_session.json"
_SCRIPT = Path(sys.executable).parent / "trifecta"  # this interpreter's install, not another on PATH
EXE = str(_SCRIPT) if _SCRIPT.exists() else None
TOOLS = [
    "search",
    "get",
    "symbols",
    "snippet",
    "hover",
    "refs",
    "definition",
    "callers",
    "callees",
    "impact",
    "lint",
    "classify",
    "index_status",
    "reindex",
]
HEADER = "sym://python/type/shop/checkout/parse_http_header"
TIMEOUT = 60.0  # seconds per request: a hung server fails the test instead of hanging the suite

# (tool, arguments): a good call first, then bad ones, for every tool
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("search", {"query": "parse an HTTP header line", "limit": 3}),
    ("search", {"query": "config", "limit": 2, "lint": True, "mode": "lexical"}),
    ("search", {"query": "zzqxv_nothing_like_this"}),
    ("search", {"query": "   "}),
    ("search", {"query": "reserve stock", "limit": "many"}),
    ("search", {"query": "reserve stock", "limit": 0}),
    ("search", {"query": "reserve stock", "mode": "telepathic"}),
    ("search", {"qurey": "reserve stock"}),
    ("get", {"path": "shop/checkout.py:18-21"}),
    ("get", {}),
    ("get", {"path": "../outside.py"}),
    ("get", {"id": "0000000000000000"}),
    ("symbols", {"uri": "sym://python/mod/shop/checkout"}),
    ("symbols", {"uri": "sym://python/mod/utils"}),
    ("symbols", {"uri": "shop/checkout.py"}),
    ("symbols", {}),
    ("snippet", {"uri": HEADER}),
    ("snippet", {"uri": "sym://python/type/shop/checkout/no_such_thing"}),
    ("snippet", {"uri": 42}),
    ("hover", {"uri": HEADER}),
    ("hover", {"uri": "sym://python/type/shop/checkout/no_such_thing"}),
    ("refs", {"uri": "sym://python/type/shop/checkout/PaymentError"}),
    ("refs", {"uri": HEADER, "limit": 0}),
    ("definition", {"path": "shop/checkout.py", "line": 50, "column": 35}),
    ("definition", {"path": "shop/checkout.py", "line": 2, "column": 1}),
    ("callers", {"uri": "sym://python/type/shop/inventory/Inventory#reserveStock"}),
    ("callers", {"uri": "sym://python/type/shop/checkout/no_such_thing"}),
    ("callees", {"uri": "sym://python/type/shop/checkout/Checkout#place_order"}),
    ("impact", {"uri": "sym://python/type/shop/inventory/Inventory#reserveStock", "depth": 9}),
    ("impact", {"uri": HEADER, "depth": 0}),
    ("lint", {"query": "config"}),
    ("lint", {"query": ""}),
    ("classify", {"query": "subclasses of PaymentError"}),
    ("classify", {"query": ["not", "a", "string"]}),
    ("index_status", {}),
    ("index_status", {"verbose": True}),
    ("reindex", {}),
    ("reindex", {"full": "sometimes"}),
    ("no_such_tool", {}),
]

# values that differ from run to run; replaced before comparing with the golden file
VOLATILE = {
    "took_ms",
    "latency_ms",
    "lsp_ms",
    "seconds",
    "searchable_seconds",
    "substring_index_seconds",
    "built_at",
    "db_bytes",
    "engines",
    "traceback",
}


def normalize(value: Any, segment: str) -> Any:
    if isinstance(value, dict):
        return {k: "<volatile>" if k in VOLATILE else normalize(v, segment) for k, v in value.items()}
    if isinstance(value, list):
        return [normalize(v, segment) for v in value]
    if isinstance(value, str):
        return value.replace(segment, "<SEGMENT>")
    return value


def server_params(segment: Path) -> StdioServerParameters:
    """The console script, as an MCP client config would name it (`python -m trifecta` without it; the raw
    protocol test below always uses `python -m trifecta`)."""
    env = {"TRIFECTA_WORKERS": "1", "PYTHONUNBUFFERED": "1"}
    if EXE:
        return StdioServerParameters(command=EXE, args=["mcp", "--segment", str(segment)], env=env)
    return StdioServerParameters(
        command=sys.executable, args=["-m", "trifecta", "mcp", "--segment", str(segment)], env=env
    )


async def scripted_session(segment: Path) -> dict[str, Any]:
    async with (
        stdio_client(server_params(segment)) as (read, write),
        ClientSession(read, write, read_timeout_seconds=TIMEOUT) as session,
    ):
        init = await session.initialize()
        listed = await session.list_tools()
        results = []
        for name, arguments in CALLS:
            result = await session.call_tool(name, arguments)
            results.append((name, arguments, result))
        followed = []  # every next action of those answers, called as written
        for _, _, result in results:
            for action in result.structured_content["next_actions"]:
                got = await session.call_tool(action["tool"], action["arguments"])
                followed.append((action, got))
    return {"init": init, "tools": listed.tools, "results": results, "followed": followed}


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    segment = tmp_path_factory.mktemp("mcp") / "repo"
    shutil.copytree(FIXTURE, segment)
    out = anyio.run(scripted_session, segment)
    out["segment"] = segment
    return out


def test_server_announces_itself_with_instructions_for_agents(session: dict[str, Any]) -> None:
    init = session["init"]
    assert init.server_info.name == "trifecta"
    assert init.instructions and "L0" in init.instructions and "L3" in init.instructions


def test_lists_every_tool_with_descriptions_for_agents(session: dict[str, Any]) -> None:
    tools = {tool.name: tool for tool in session["tools"]}
    assert sorted(tools) == sorted(TOOLS)
    for tool in tools.values():
        assert tool.description and len(tool.description) > 80, tool.name
        assert tool.output_schema and set(tool.output_schema["required"]) >= {
            "status",
            "kind",
            "data",
            "errors",
        }
    assert "L0" in tools["search"].description and "L2" in tools["snippet"].description
    assert "L1" in tools["symbols"].description and "L3" in tools["get"].description
    assert set(tools["search"].input_schema["properties"]) == {
        "query",
        "limit",
        "mode",
        "rewrite",
        "lint",
        "lang",
        "explain",
        "expand",
    }
    assert tools["search"].input_schema["required"] == ["query"]
    assert tools["search"].annotations.read_only_hint is True
    assert tools["reindex"].annotations.read_only_hint is False


def test_every_result_is_an_envelope_as_structured_content_and_text(session: dict[str, Any]) -> None:
    for name, arguments, result in session["results"]:
        envelope = result.structured_content
        decoded = Response.from_dict(envelope)  # decodes back into the typed model
        assert result.is_error == (not decoded.ok), (name, arguments)
        assert json.loads(result.content[0].text) == envelope


def test_good_calls_answer_and_bad_calls_name_an_error_code(session: dict[str, Any]) -> None:
    codes = []
    for name, arguments, result in session["results"]:
        errors = result.structured_content["errors"]
        codes.append((name, errors[0]["code"] if errors else None))
        if errors:
            assert errors[0]["message"] and "Traceback" not in errors[0]["message"], (name, arguments)
    assert codes == [
        ("search", None),
        ("search", None),
        ("search", None),
        ("search", "EMPTY_QUERY"),
        ("search", "INVALID_ARGUMENT"),
        ("search", "INVALID_ARGUMENT"),
        ("search", "INVALID_ARGUMENT"),
        ("search", "INVALID_ARGUMENT"),
        ("get", None),
        ("get", "INVALID_ARGUMENT"),
        ("get", "PATH_OUTSIDE_SEGMENT"),
        ("get", "CHUNK_NOT_FOUND"),
        ("symbols", None),
        ("symbols", "AMBIGUOUS_SYMBOL"),
        ("symbols", "INVALID_SELECTOR_SYNTAX"),
        ("symbols", "INVALID_ARGUMENT"),
        ("snippet", None),
        ("snippet", "SYMBOL_NOT_FOUND"),
        ("snippet", "INVALID_ARGUMENT"),
        ("hover", None),
        ("hover", "SYMBOL_NOT_FOUND"),
        ("refs", None),
        ("refs", "INVALID_ARGUMENT"),
        ("definition", None),
        ("definition", "INVALID_ARGUMENT"),
        ("callers", None),
        ("callers", "SYMBOL_NOT_FOUND"),
        ("callees", None),
        ("impact", None),
        ("impact", "INVALID_ARGUMENT"),
        ("lint", None),
        ("lint", "EMPTY_QUERY"),
        ("classify", None),
        ("classify", "INVALID_ARGUMENT"),
        ("index_status", None),
        ("index_status", "INVALID_ARGUMENT"),
        ("reindex", None),
        ("reindex", "INVALID_ARGUMENT"),
        ("no_such_tool", "INVALID_ARGUMENT"),
    ]
    first = session["results"][0][2].structured_content
    assert first["data"]["hits"][0]["symbol"] == "parse_http_header"
    assert session["results"][2][2].structured_content["data"]["hits"] == []  # zero hits is an answer
    bad_limit = session["results"][4][2].structured_content["errors"][0]["message"]
    assert "limit" in bad_limit and "'many'" in bad_limit
    typo = session["results"][7][2].structured_content["errors"][0]
    assert typo["data"] == {
        "unknown": ["qurey"],
        "expected": ["expand", "explain", "lang", "limit", "lint", "mode", "query", "rewrite"],
    }


def test_every_next_action_is_a_tool_call_that_answers(session: dict[str, Any]) -> None:
    followed = session["followed"]
    assert len(followed) >= 10, followed
    for action, result in followed:
        assert set(action) == {"tool", "arguments"} and action["tool"] in TOOLS, action
        errors = result.structured_content["errors"]
        # an answer, or the one documented failure that is not the call's fault (no language server)
        assert not errors or errors[0]["code"] == "LSP_UNAVAILABLE", (action, errors)


def test_tool_results_match_the_golden_file(session: dict[str, Any]) -> None:
    segment = str(session["segment"])
    actual = [
        {
            "tool": name,
            "arguments": arguments,
            "is_error": result.is_error,
            "result": normalize(result.structured_content, segment),
        }
        for name, arguments, result in session["results"]
    ]
    if os.environ.get("TRIFECTA_UPDATE_GOLDEN") == "1":
        GOLDEN.write_text(json.dumps(actual, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert len(golden) == len(actual)
    for want, got in zip(golden, actual, strict=True):
        assert got == want, f"{want['tool']} {want['arguments']}"


def test_the_session_left_telemetry_for_ctx_stats(session: dict[str, Any]) -> None:
    sink = JsonlTelemetry(session["segment"] / ".trifecta" / "telemetry")
    events = list(sink.events())
    assert events and {e["origin"] for e in events} == {"mcp"}
    commands = [e["command"] for e in events]
    # calls the schema rejected never reached the Engine; the rest left one event each
    assert commands.count("ctx.search") == 6
    assert {"ctx.get", "ast.symbols", "ast.snippet", "ast.hover", "ast.refs", "index", "status"} <= set(
        commands
    )
    report = summarize(events, sink.counters())
    assert report.searches == 3 and report.zero_hit_searches == 1
    assert report.top_zero_hit_queries == (("zzqxv_nothing_like_this", 1),)
    assert report.by_linter_class["vague"] == 1 and report.counters["ctx_search_linter_expansion_count"] == 1


def test_stdout_carries_nothing_but_protocol(tmp_path: Path) -> None:
    """Raw JSON-RPC over the pipes: the first search builds the index (progress would go to stdout if any
    leaked) and every line the server writes must be a JSON-RPC message."""
    segment = tmp_path / "repo"
    shutil.copytree(FIXTURE, segment)
    proc = subprocess.Popen(
        [sys.executable, "-m", "trifecta", "mcp", "--segment", str(segment)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=(tmp_path / "stderr.txt").open("w"),
        text=True,
    )
    assert proc.stdin and proc.stdout
    watchdog = threading.Timer(TIMEOUT, proc.kill)  # a hung server fails the test instead of hanging it
    watchdog.start()

    def send(message: dict[str, Any]) -> None:
        assert proc.stdin
        proc.stdin.write(json.dumps(message) + "\n")
        proc.stdin.flush()

    try:
        send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "0"},
                },
            }
        )
        init = json.loads(proc.stdout.readline())
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send(
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "search", "arguments": {"query": "reserve stock", "limit": 1}},
            }
        )
        answer = json.loads(proc.stdout.readline())
        proc.stdin.close()
        rest = proc.stdout.read()
        proc.wait(timeout=30)
    finally:
        watchdog.cancel()
        if proc.poll() is None:
            proc.kill()
    assert init["id"] == 1 and init["result"]["serverInfo"]["name"] == "trifecta"
    assert answer["id"] == 2 and answer["result"]["structuredContent"]["status"] == "ok"
    assert all(json.loads(line)["jsonrpc"] == "2.0" for line in rest.splitlines() if line.strip())
    assert proc.returncode == 0


def test_a_missing_segment_fails_before_serving(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "trifecta", "mcp", "--segment", str(tmp_path / "nope")],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 2 and proc.stdout == "" and "not a directory" in proc.stderr


async def _hang_session(segment: Path, hung_lsp: Path) -> list[tuple[str, CallToolResult, float]]:
    """search, a hover whose language server never answers, search, the same hover on the fresh engine,
    search and index_status: each call with the client's own 30 s limit, past which the test fails."""
    env = {
        "TRIFECTA_WORKERS": "1",
        "TRIFECTA_MCP_CALL_TIMEOUT": "6",  # room for a fresh engine's first search on a loaded machine
        "TRIFECTA_LSP_COMMAND": shlex.join([sys.executable, str(hung_lsp)]),
        "TRIFECTA_LSP_TIMEOUT": "300",  # the language server's own limit is far past the call's
    }
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "trifecta", "mcp", "--segment", str(segment)], env=env
    )
    calls = [
        ("search", {"query": "reserve stock", "limit": 3}),
        ("hover", {"uri": HEADER}),
        ("search", {"query": "reserve stock", "limit": 3}),
        ("hover", {"uri": HEADER}),
        ("search", {"query": "reserve stock", "limit": 3}),
        ("index_status", {}),
    ]
    out = []
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write, read_timeout_seconds=30) as session,
    ):
        await session.initialize()
        for name, arguments in calls:
            started = time.monotonic()
            result = await session.call_tool(name, arguments)
            out.append((name, result, time.monotonic() - started))
    return out


@pytest.mark.timeout(150)
def test_a_hung_call_answers_timeout_and_the_server_keeps_serving(tmp_path: Path) -> None:
    """A language server that never answers holds the engine's thread (a real hang, not a fake engine):
    past TRIFECTA_MCP_CALL_TIMEOUT the hover answers TIMEOUT, and the searches after it answer as before,
    twice (a second hang on the fresh engine is abandoned too)."""
    segment = tmp_path / "repo"
    shutil.copytree(FIXTURE, segment)
    hung_lsp = tmp_path / "hung_lsp.py"
    hung_lsp.write_text("import sys, time\nsys.stdin.read(1)\ntime.sleep(300)\n")
    results = anyio.run(_hang_session, segment, hung_lsp)
    envelopes = [(name, r.structured_content or {}, r.is_error, seconds) for name, r, seconds in results]
    searches = [env for name, env, _, _ in envelopes if name == "search"]
    assert all(env["status"] == "ok" for env in searches)
    first_hits = [h["loc"] for h in searches[0]["data"]["hits"]]
    assert first_hits and all([h["loc"] for h in env["data"]["hits"]] == first_hits for env in searches)
    for name, env, is_error, seconds in envelopes:
        if name == "hover":
            assert is_error and env["errors"][0]["code"] == "TIMEOUT"
            assert env["errors"][0]["data"]["timeout_seconds"] == 6
            assert 5.5 < seconds < 30
    assert envelopes[-1][1]["status"] == "ok" and envelopes[-1][1]["kind"] == "status"


def test_a_bad_time_limit_fails_before_serving(tmp_path: Path) -> None:
    segment = tmp_path / "seg"  # a copy: opening a segment creates its .trifecta/, never in the fixture
    shutil.copytree(FIXTURE, segment)
    proc = subprocess.run(
        [sys.executable, "-m", "trifecta", "mcp", "--segment", str(segment)],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "TRIFECTA_MCP_CALL_TIMEOUT": "soon"},
    )
    assert proc.returncode == 1 and proc.stdout == ""
    assert "TRIFECTA_MCP_CALL_TIMEOUT must be a number of seconds" in proc.stderr
