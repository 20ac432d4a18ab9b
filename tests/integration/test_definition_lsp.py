"""`ast def` through a real language server (jedi-language-server, the default `[lsp] command`), and back
to the index when the server is not running, crashes or hangs (small fake servers this test writes)."""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import trifecta
from trifecta.infrastructure.lsp_client import resolve_command

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "definition_lsp"
pytestmark = pytest.mark.timeout(120)
JEDI_LS = resolve_command(["jedi-language-server"])

CRASHING = "import sys\nsys.stdin.readline()\nsys.exit(3)\n"  # dies on the first message
HANGING = "import sys, time\nwhile sys.stdin.buffer.read(1):\n    pass\ntime.sleep(600)\n"  # never answers


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    dest = tmp_path / "repo"
    shutil.copytree(FIXTURE, dest)
    return dest


def opened(repo: Path, **options: Any) -> trifecta.Engine:
    engine = trifecta.open(str(repo), **options)
    engine.index()
    return engine


def answer(response: trifecta.Response) -> dict[str, Any]:
    raw = response.to_dict()
    assert raw["status"] == "ok", raw["errors"]
    data: dict[str, Any] = raw["data"]
    data["_warnings"] = [w["code"] for w in raw.get("warnings", [])]
    data["_symbols"] = [(d["path"], d["symbol"]) for d in data["definitions"]]
    return data


@pytest.fixture
def jedi(repo: Path) -> Iterator[trifecta.Engine]:
    if JEDI_LS is None:
        pytest.skip("jedi-language-server is not installed (pip install 'trifecta[lsp]')")
    engine = opened(repo, lsp_timeout=30)
    yield engine
    engine.close()


@pytest.mark.slow  # a real jedi-language-server: ~1 s to start plus its first inference
def test_definition_is_exact_through_the_running_language_server(jedi: trifecta.Engine) -> None:
    # `item` comes out of a list: the index can only match `run` by name; jedi knows it is Alpha's
    auto = answer(jedi.definition("app/things.py", 14, 14))
    assert auto["engine"] == "index" and auto["resolution"] == "name"
    assert auto["_symbols"] == [("app/things.py", "Alpha.run"), ("app/things.py", "Beta.run")]
    assert jedi._app.language_server.inner is None  # type: ignore[union-attr]  # auto started nothing

    exact = answer(jedi.definition("app/things.py", 14, 14, engine="lsp"))
    assert exact["engine"] == "lsp" and exact["resolution"] == "exact"
    assert exact["_symbols"] == [("app/things.py", "Alpha.run")]
    assert exact["definitions"][0]["uri"] == "sym://python/type/app/things/Alpha#run"
    # now that a server runs, auto goes through it
    running = answer(jedi.definition("app/things.py", 15, 19))
    assert running["engine"] == "lsp" and running["_symbols"] == [("app/things.py", "Beta.run")]
    # the index only, when asked
    assert answer(jedi.definition("app/things.py", 14, 14, engine="index"))["engine"] == "index"


@pytest.mark.parametrize(
    ("script", "timeout", "reason"), [(CRASHING, 5.0, "exited"), (HANGING, 1.0, "timeout")]
)
def test_a_crashed_or_hung_server_leaves_the_answer_to_the_index(
    repo: Path, tmp_path: Path, script: str, timeout: float, reason: str
) -> None:
    server = tmp_path / "server.py"
    server.write_text(script)
    with opened(repo, lsp_command=[sys.executable, str(server)], lsp_timeout=timeout) as engine:
        started = time.monotonic()
        data = answer(engine.definition("app/things.py", 14, 14, engine="lsp"))
        took = time.monotonic() - started
    assert data["engine"] == "index" and data["resolution"] == "name"
    assert len(data["_symbols"]) == 2 and data["_warnings"] == ["LSP_FALLBACK"]
    assert data["lsp"]["reason"] in (reason, "start_failed")
    assert took < timeout * 3 + 5


def test_an_unknown_engine_is_invalid_argument(repo: Path) -> None:
    with opened(repo) as engine:
        raw = engine.definition("app/things.py", 14, 14, engine="magic").to_dict()
    assert raw["errors"][0]["code"] == "INVALID_ARGUMENT"


async def _mcp_definitions(repo: Path, calls: list[dict[str, Any]]) -> tuple[Any, list[Any]]:
    from mcp import ClientSession, StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "trifecta", "mcp", "--segment", str(repo)],
        env={"TRIFECTA_WORKERS": "1", "PYTHONUNBUFFERED": "1"},
    )
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write, read_timeout_seconds=60) as session,
    ):
        await session.initialize()
        listed = await session.list_tools()
        [tool] = [t for t in listed.tools if t.name == "definition"]
        return tool, [await session.call_tool("definition", arguments) for arguments in calls]


@pytest.mark.slow  # an MCP server subprocess and a real jedi-language-server
def test_the_mcp_definition_tool_takes_the_engine(repo: Path) -> None:
    """The official MCP client over stdio: `engine` is in the tool's schema, "index" answers from the
    index, "lsp" starts the server, "auto" then uses it, and an engine the schema does not list is refused."""
    import anyio

    if JEDI_LS is None:
        pytest.skip("jedi-language-server is not installed (pip install 'trifecta[lsp]')")
    where = {"path": "app/things.py", "line": 14, "column": 14}
    tool, results = anyio.run(
        _mcp_definitions,
        repo,
        [
            {**where, "engine": "index"},
            {**where, "engine": "lsp"},
            {"path": "app/things.py", "line": 15, "column": 19},  # auto, the server running now
            {**where, "engine": "magic"},
        ],
    )
    assert tool.input_schema["properties"]["engine"]["enum"] == ["auto", "lsp", "index"]
    index, lsp, auto, magic = (r.structured_content for r in results)
    assert index["data"]["engine"] == "index" and index["data"]["resolution"] == "name"
    assert len(index["data"]["definitions"]) == 2
    assert lsp["data"]["engine"] == "lsp" and lsp["data"]["resolution"] == "exact"
    assert [d["symbol"] for d in lsp["data"]["definitions"]] == ["Alpha.run"]
    assert auto["data"]["engine"] == "lsp"
    assert [d["symbol"] for d in auto["data"]["definitions"]] == ["Beta.run"]
    assert results[3].is_error and magic["errors"][0]["code"] == "INVALID_ARGUMENT"
