"""Concurrent indexers, searchers and an MCP server over one segment while files are edited: zero errors, and
once the writers stop every reader answers from the latest files (issue 19, "Concurrent stress").

Each worker is a real process on the real SQLite file: two `trifecta index` loops (CLI), two library
processes searching in a loop (each search refreshes first, so they write too), and `trifecta mcp` driven by
the official MCP client. An editor thread rewrites files meanwhile, each edit defining a new function
`marker_<n>`. Bounded: STRESS_SECONDS (env TRIFECTA_STRESS_SECONDS; `bench/bench_safety.py` runs it longer).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

pytestmark = pytest.mark.slow

STRESS_SECONDS = float(os.environ.get("TRIFECTA_STRESS_SECONDS", "12"))
_SCRIPT = Path(sys.executable).parent / "trifecta"
EXE = str(_SCRIPT) if _SCRIPT.exists() else None

SEARCHER = textwrap.dedent(
    """
    import json, sys, time, trifecta
    segment, seconds = sys.argv[1], float(sys.argv[2])
    calls, errors = 0, []
    with trifecta.open(segment, workers=1) as engine:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            for query in ("marker function", "compute the total", "class Widget"):
                answer = engine.search(query, limit=5).to_dict()
                calls += 1
                errors += answer["errors"]
    print(json.dumps({"calls": calls, "errors": errors}))
    """
)

INDEXER = textwrap.dedent(
    """
    import json, subprocess, sys, time
    exe, segment, seconds = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]
    calls, errors = 0, []
    deadline = time.monotonic() + float(seconds)
    while time.monotonic() < deadline:
        done = subprocess.run(exe + ["index", segment, "--json"], capture_output=True,
                              text=True, timeout=120)
        calls += 1
        try:
            answer = json.loads(done.stdout)
        except ValueError:
            errors.append({"code": "NO_JSON", "message": done.stdout[-300:] + done.stderr[-300:]})
            continue
        errors += answer.get("errors", [])
        if done.returncode != 0 and not answer.get("errors"):
            errors.append({"code": "EXIT", "message": str(done.returncode)})
    print(json.dumps({"calls": calls, "errors": errors}))
    """
)


def make_segment(root: Path, files: int = 40) -> None:
    for i in range(files):
        pkg = root / f"pkg{i % 5}"
        pkg.mkdir(parents=True, exist_ok=True)
        (pkg / f"mod_{i}.py").write_text(
            f"class Widget{i}:\n    def compute_total_{i}(self, items):\n        return sum(items)\n\n"
            f"def helper_{i}(x):\n    return x * {i}\n"
        )


def cli() -> list[str]:
    return [EXE] if EXE else [sys.executable, "-m", "trifecta"]


def server_params(segment: Path) -> StdioServerParameters:
    env = {**os.environ, "TRIFECTA_NO_TELEMETRY": "1"}
    command = cli()
    return StdioServerParameters(
        command=command[0], args=[*command[1:], "mcp", "--segment", str(segment)], env=env
    )


def edit_loop(segment: Path, stop: threading.Event, last: list[int]) -> None:
    """Rewrite one file after another, each time with a new `marker_<n>` function (atomically, as editors do)."""
    n = 0
    while not stop.is_set():
        n += 1
        target = segment / f"pkg{n % 5}" / f"mod_{n % 40}.py"
        tmp = target.with_suffix(".tmp")
        tmp.write_text(f"def marker_{n}():\n    return {n}\n\n\ndef helper_{n % 40}(x):\n    return x\n")
        os.replace(tmp, target)
        last[0] = n
        time.sleep(0.05)


async def mcp_session(
    segment: Path, seconds: float, stop_writers: threading.Event, last: list[int]
) -> dict[str, Any]:
    calls, errors = 0, []
    async with (
        stdio_client(server_params(segment)) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            result = await session.call_tool("search", {"query": "marker function", "limit": 5})
            calls += 1
            errors += (result.structured_content or {}).get("errors", [])
        while not stop_writers.is_set():  # the writers' last edits: wait for them
            await anyio.sleep(0.1)
        await anyio.sleep(1.5)  # past the server's 1 s refresh interval
        marker = f"marker_{last[0]}"
        result = await session.call_tool("search", {"query": marker, "limit": 3})
        answer = result.structured_content or {}
        errors += answer.get("errors", [])
        symbols = [h.get("symbol") for h in answer.get("data", {}).get("hits", [])]
    return {"calls": calls, "errors": errors, "fresh": symbols[:1] == [marker], "symbols": symbols}


@pytest.mark.timeout(240)
def test_concurrent_indexers_searchers_and_mcp_with_edits(tmp_path: Path) -> None:
    segment = tmp_path / "seg"
    make_segment(segment)
    env = {**os.environ, "TRIFECTA_NO_TELEMETRY": "1", "TRIFECTA_WORKERS": "1"}
    subprocess.run(
        [*cli(), "index", str(segment), "--json"], check=True, capture_output=True, env=env, timeout=120
    )

    seconds = str(STRESS_SECONDS)
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", SEARCHER, str(segment), seconds],
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        for _ in range(2)
    ] + [
        subprocess.Popen(
            [sys.executable, "-c", INDEXER, json.dumps(cli()), str(segment), seconds],
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        for _ in range(2)
    ]
    stop = threading.Event()
    last = [0]
    editor = threading.Thread(target=edit_loop, args=(segment, stop, last), daemon=True)
    editor.start()

    stopped = threading.Event()

    def stop_after() -> None:
        time.sleep(STRESS_SECONDS)
        stop.set()
        editor.join()
        stopped.set()

    threading.Thread(target=stop_after, daemon=True).start()
    mcp = anyio.run(mcp_session, segment, STRESS_SECONDS, stopped, last)

    results = []
    for proc in workers:
        out, _ = proc.communicate(timeout=180)
        results.append(json.loads(out.strip().splitlines()[-1]))
    assert last[0] > 10, "the editor made too few edits to mean anything"
    assert all(r["calls"] > 0 for r in results) and mcp["calls"] > 0
    errors = [e for r in results for e in r["errors"]] + mcp["errors"]
    assert errors == [], errors[:5]
    assert mcp["fresh"], mcp  # the MCP server answers from the last edit once the writers stop

    # and a new reader, after one more refresh, sees exactly the files on disk
    import trifecta

    with trifecta.open(str(segment), workers=1) as engine:
        hits = engine.search(f"marker_{last[0]}", limit=3).to_dict()["data"]["hits"]
        assert hits and hits[0]["symbol"] == f"marker_{last[0]}"
        stale = engine.search("marker_1", limit=10).to_dict()["data"]["hits"]
        on_disk = {p.read_text().split("(")[0].removeprefix("def ") for p in segment.rglob("mod_*.py")}
        assert all(h["symbol"] in on_disk for h in stale if h["symbol"].startswith("marker_"))
