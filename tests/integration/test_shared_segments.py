"""Many repositories in one search: segments of a shared index on a real PostgreSQL server (started here),
searched together through the CLI (no checkout on the search machine) and the official MCP client; a
server that cannot be reached is INDEX_UNAVAILABLE; fallbacks are shown."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

sys.path.insert(0, str(Path(__file__).parents[1]))
import trifecta  # noqa: E402
from postgres_server import bindir, new_database, running_server  # noqa: E402
from trifecta.application.multi_search import merge_hits  # noqa: E402

pytestmark = [
    pytest.mark.timeout(180),
    pytest.mark.skipif(bindir() is None, reason="PostgreSQL is not installed (scripts/test installs it)"),
]

FIXTURE = Path(__file__).parents[1] / "fixtures" / "sample_repo"
RUN = [sys.executable, "-m", "trifecta"]


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """Two repositories indexed into one database: `shop` (the sample repository) and `tools` (a small one
    of its own), then their checkouts removed; `search_machine` is an empty folder."""
    root = tmp_path_factory.mktemp("shared")
    with running_server() as server:
        url = new_database(server, "segments")
        shop, tools = root / "shop", root / "tools"
        shutil.copytree(FIXTURE, shop)
        (tools / "cli").mkdir(parents=True)
        (tools / "cli" / "headers.py").write_text(
            "def format_http_header(name: str, value: str) -> str:\n"
            '    """Join an HTTP header name and value into one line."""\n'
            '    return f"{name}: {value}"\n\n\n'
            "def unrelated_helper() -> int:\n    return 3\n"
        )
        for repo in (shop, tools):
            with trifecta.open(repo, db_url=url) as engine:
                assert engine.index().files_indexed >= 1
        shutil.rmtree(shop)
        shutil.rmtree(tools)
        machine = root / "search_machine"
        machine.mkdir()
        yield {"url": url, "server": server, "machine": machine}


def _run(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*RUN, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=90)


def _env(url: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "TRIFECTA_DB_URL"}
    env.update({"TRIFECTA_NO_TELEMETRY": "1", "TRIFECTA_CONFIG_HOME": "/nonexistent-trifecta-config"})
    if url:
        env["TRIFECTA_DB_URL"] = url
    return env


def test_two_segments_are_searched_as_one_ranking_and_every_hit_names_its_segment(
    shared: dict[str, Any],
) -> None:
    env, machine = _env(shared["url"]), shared["machine"]
    done = _run(["ctx", "search", "-q", "http header", "-s", "shop", "-s", "tools", "--json"], env, machine)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    hits = answer["data"]["hits"]
    assert {h["segment"] for h in hits} == {"shop", "tools"}
    found = {(h["segment"], h["symbol"]) for h in hits}
    assert {("shop", "parse_http_header"), ("tools", "format_http_header")} <= found
    assert [h["score"] for h in hits] == sorted((h["score"] for h in hits), reverse=True)
    assert answer["data"]["segments"] == ["shop", "tools"] and answer["data"]["plan"]["merge"] == "score"
    # every next action names its segment and runs as written, on a machine with no checkout
    assert answer["next_actions"]
    for command in answer["next_actions"]:
        words = shlex.split(command)
        assert words[0] == "trifecta" and words[-2] == "--segment" and words[-1] in ("shop", "tools")
        followed = _run([*words[1:], "--json"], env, machine)
        assert followed.returncode == 0, (command, followed.stdout)
        assert json.loads(followed.stdout)["status"] == "ok"


def test_all_searches_every_segment_and_a_hit_is_read_by_id(shared: dict[str, Any]) -> None:
    env, machine = _env(shared["url"]), shared["machine"]
    done = _run(["ctx", "search", "-q", "format_http_header", "--all", "--json"], env, machine)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["data"]["segments"] == ["shop", "tools"]
    top = answer["data"]["hits"][0]
    assert (top["segment"], top["symbol"]) == ("tools", "format_http_header")
    read = _run(["ctx", "get", "--id", top["id"], "--segment", "tools", "--json"], env, machine)
    assert read.returncode == 0 and "def format_http_header" in read.stdout
    wrong = _run(["ctx", "get", "--id", top["id"], "--segment", "shop", "--json"], env, machine)
    assert json.loads(wrong.stdout)["errors"][0]["code"] == "CHUNK_NOT_FOUND"
    human = _run(["ctx", "search", "-q", "format_http_header", "--all", "-n", "1"], env, machine)
    assert human.stdout.startswith("tools:cli/headers.py:1")


def test_several_segments_without_a_shared_index_or_an_unknown_one_are_clear_errors(
    shared: dict[str, Any],
) -> None:
    machine = shared["machine"]
    alone = _run(["ctx", "search", "-q", "x", "-s", "shop", "-s", "tools", "--json"], _env(None), machine)
    error = json.loads(alone.stdout)["errors"][0]
    assert (
        alone.returncode == 2 and error["code"] == "INVALID_ARGUMENT" and "shared index" in error["message"]
    )
    unknown = _run(
        ["ctx", "search", "-q", "x", "-s", "shop", "-s", "nope", "--json"], _env(shared["url"]), machine
    )
    error = json.loads(unknown.stdout)["errors"][0]
    assert unknown.returncode == 2 and error["code"] == "SEGMENT_NOT_FOUND"
    assert error["data"]["missing"] == ["nope"] and error["data"]["segments"] == ["shop", "tools"]


def test_merging_by_score_or_by_rank() -> None:
    per = {"a": [{"score": 5.0}, {"score": 1.0}], "b": [{"score": 3.0}, {"score": 2.0}]}
    assert [(h["segment"], h["score"]) for h in merge_hits(per, "score")] == [
        ("a", 5.0),
        ("b", 3.0),
        ("b", 2.0),
        ("a", 1.0),
    ]
    assert [h["segment"] for h in merge_hits(per, "rank")] == ["a", "b", "a", "b"]


# ---------------------------------------------------------------- MCP over several segments
async def _mcp_session(url: str, cwd: Path) -> dict[str, Any]:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "trifecta", "mcp", "--all"], env=_env(url), cwd=str(cwd)
    )
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write, read_timeout_seconds=60) as session,
    ):
        await session.initialize()
        tools = {t.name: t for t in (await session.list_tools()).tools}
        listed = await session.call_tool("segments", {})
        found = await session.call_tool("search", {"query": "http header", "limit": 6})
        one = await session.call_tool("search", {"query": "http header", "segment": "tools"})
        followed = []
        for hit in found.structured_content["data"]["hits"]:  # brief hits: a uri or id, and the segment
            if "uri" in hit:
                call = ("snippet", {"uri": hit["uri"], "segment": hit["segment"]})
            else:
                call = ("get", {"id": hit["id"], "segment": hit["segment"]})
            followed.append(await session.call_tool(*call))
        snippet = await session.call_tool(
            "snippet", {"uri": "sym://python/type/cli/headers/format_http_header", "segment": "tools"}
        )
        unnamed = await session.call_tool(
            "snippet", {"uri": "sym://python/type/cli/headers/format_http_header"}
        )
    return {
        "tools": tools,
        "listed": listed.structured_content,
        "found": found.structured_content,
        "one": one.structured_content,
        "followed": [f.structured_content for f in followed],
        "snippet": snippet.structured_content,
        "unnamed": unnamed.structured_content,
    }


def test_the_mcp_server_serves_several_segments(shared: dict[str, Any]) -> None:
    out = anyio.run(_mcp_session, shared["url"], shared["machine"])
    tools = out["tools"]
    assert "segments" in tools and "reindex" not in tools
    for name in ("search", "get", "symbols", "snippet", "hover", "refs"):
        assert "segment" in tools[name].input_schema["properties"], name
    assert [row["segment"] for row in out["listed"]["data"]["segments"]] == ["shop", "tools"]
    hits = out["found"]["data"]["hits"]
    assert {h["segment"] for h in hits} == {"shop", "tools"}
    assert {h["segment"] for h in out["one"]["data"]["hits"]} == {"tools"}
    assert len(out["followed"]) == len(hits) and all(f["status"] == "ok" for f in out["followed"])
    assert "def format_http_header" in out["snippet"]["data"]["content"]
    assert out["unnamed"]["errors"][0]["code"] == "SEGMENT_NOT_FOUND"


# ---------------------------------------------------------------- a server that cannot be reached
def test_a_port_nothing_listens_on_is_index_unavailable_naming_the_url_without_its_password(
    shared: dict[str, Any],
) -> None:
    port = int(shared["server"].rsplit(":", 1)[1].split("/")[0])
    bad = f"postgresql://trifecta:hunter2@127.0.0.1:{port + 7}/postgres"
    for args in (
        ["ctx", "search", "-q", "x", "--all", "--json"],
        ["ctx", "search", "-q", "x", "-s", "shop", "--json"],
    ):
        done = _run(args, _env(bad), shared["machine"])
        error = json.loads(done.stdout)["errors"][0]
        assert done.returncode == 1, done.stdout
        assert error["code"] == "INDEX_UNAVAILABLE" and error["data"]["reason"] == "unavailable"
        assert (
            "hunter2" not in done.stdout + done.stderr and f"trifecta:***@127.0.0.1:{port + 7}" in done.stdout
        )


def test_status_and_the_search_plan_say_what_falls_back(shared: dict[str, Any]) -> None:
    env, machine = _env(shared["url"]), shared["machine"]
    status = json.loads(_run(["status", "-s", "shop", "--json"], env, machine).stdout)
    fallbacks = status["data"]["fallbacks"]
    assert any(f.startswith("pgvector") for f in fallbacks)  # Debian's server has no pgvector
    assert not any(f.startswith("pg_trgm") for f in fallbacks)  # it has pg_trgm
    found = json.loads(_run(["ctx", "search", "-q", "header", "-s", "shop", "--json"], env, machine).stdout)
    assert found["data"]["plan"]["segments"]["shop"]["fallbacks"] == fallbacks
