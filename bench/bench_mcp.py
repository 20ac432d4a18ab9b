"""`trifecta mcp` as a client sees it, and what telemetry costs.

usage: python bench/bench_mcp.py [SEGMENT] [--calls 50] [--events 20000] [--json]

SEGMENT defaults to tests/fixtures/sample_repo copied to a temp dir. Measures, with the official MCP client
(`ClientSession` + `stdio_client`) against `python -m trifecta mcp`:
  - start + initialize (process start, imports, handshake), and the first search (which builds/refreshes)
  - warm tool-call round trips p50 / p95 for search, snippet, get, symbols
and in process:
  - JsonlTelemetry.record per event p50 / p95 (append + lock, counters for searches)
  - `summarize` over N events, and the disk size they take with rotation (bounded by 3 x max_bytes)
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client

from trifecta.application.stats import percentile, summarize
from trifecta.application.telemetry import LinterFacts, TelemetryEvent
from trifecta.infrastructure.telemetry import JsonlTelemetry

FIXTURE = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "sample_repo"


def ms(seconds: float) -> float:
    return round(seconds * 1000, 2)


async def mcp_figures(segment: Path, calls: int) -> dict[str, Any]:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "trifecta", "mcp", "--segment", str(segment)]
    )
    started = time.perf_counter()
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        connect = time.perf_counter() - started
        t = time.perf_counter()
        first = await session.call_tool("search", {"query": "where is the configuration loaded", "limit": 5})
        first_search = time.perf_counter() - t
        hits = first.structured_content["data"]["hits"]
        uri = next((h["uri"] for h in hits if h.get("uri")), None)
        path = hits[0]["path"] if hits else None
        plans: dict[str, dict[str, Any]] = {"search": {"query": "parse a header line", "limit": 10}}
        if uri:
            plans["snippet"] = {"uri": uri}
        if path:
            plans["get"] = {"path": path}
            stem = path.rsplit(".", 1)[0]
            plans["symbols"] = {"uri": f"sym://python/mod/{stem}"}
        timings: dict[str, list[float]] = {name: [] for name in plans}
        for _ in range(calls):
            for name, arguments in plans.items():
                t = time.perf_counter()
                await session.call_tool(name, arguments)
                timings[name].append(time.perf_counter() - t)
    return {
        "connect_s": round(connect, 3),
        "first_search_ms": ms(first_search),
        "calls": {
            name: {"p50_ms": ms(statistics.median(v)), "p95_ms": ms(percentile(v, 95))}
            for name, v in timings.items()
        },
    }


def telemetry_figures(events: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        sink = JsonlTelemetry(Path(tmp) / "telemetry")
        linter = LinterFacts(
            query_class="vague", expanded=True, added_strong_count=2, reasons=("vague_default_boost",)
        )
        costs = []
        for i in range(events):
            event = TelemetryEvent(
                timestamp=f"2026-11-22T10:{i // 60 % 60:02d}:{i % 60:02d}.000+00:00",
                command="ctx.search",
                origin="mcp",
                arguments={"query": f"where is thing {i % 500} handled", "limit": 10, "mode": "auto"},
                took_ms=float(i % 97),
                counts={"hits": i % 7, "total": i % 7},
                zero_hit=i % 7 == 0,
                route="semantic",
                linter=linter,
                rewrite="skipped",
            )
            t = time.perf_counter()
            sink.record(event)
            costs.append(time.perf_counter() - t)
        t = time.perf_counter()
        report = summarize(sink.events(), sink.counters())
        summarize_s = time.perf_counter() - t
        disk = sum(p.stat().st_size for p in (Path(tmp) / "telemetry").iterdir())
    return {
        "events_written": events,
        "record_p50_ms": round(statistics.median(costs) * 1000, 3),
        "record_p95_ms": round(percentile(costs, 95) * 1000, 3),
        "events_kept": report.events,
        "summarize_ms": ms(summarize_s),
        "disk_bytes": disk,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("segment", nargs="?")
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--events", type=int, default=20_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if args.segment:
            segment = Path(args.segment).resolve()
        else:
            segment = Path(tmp) / "repo"
            shutil.copytree(FIXTURE, segment)
        result = {"segment": str(segment), "mcp": anyio.run(mcp_figures, segment, args.calls)}
    result["telemetry"] = telemetry_figures(args.events)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    m, t = result["mcp"], result["telemetry"]
    print(f"segment {result['segment']}")
    print(f"mcp: start + initialize {m['connect_s']} s; first search {m['first_search_ms']} ms")
    for name, row in m["calls"].items():
        print(f"  {name:<8} p50 {row['p50_ms']:>7} ms  p95 {row['p95_ms']:>7} ms")
    print(
        f"telemetry: record p50 {t['record_p50_ms']} ms p95 {t['record_p95_ms']} ms; "
        f"{t['events_written']} written, {t['events_kept']} kept in {t['disk_bytes']} bytes; "
        f"summarize {t['summarize_ms']} ms"
    )


if __name__ == "__main__":
    main()
