"""Benchmark `ast hover` / `ast refs` through jedi-language-server over the CPython standard library.

    python bench/bench_lsp.py                                      # the stdlib of this interpreter
    python bench/bench_lsp.py --quick                              # json/, email/, asyncio/ only
    python bench/bench_lsp.py --json bench/results/lsp-stdlib.json # also write the raw numbers

The tree (default `sysconfig.get_paths()["stdlib"]`) is copied into a temp dir without `site-packages` and
`__pycache__` (the language server's project is the segment, and site-packages would widen every reference
search), indexed there (untimed here: bench_index.py measures that), then, through the facade an agent uses:

  1. cold start, `--cold-runs` times with a new Engine each: the server's start + initialize
     (`start_seconds` of the adapter), the first hover after it, and the whole first `engine.hover()` call;
     then `close()` (shutdown + exit).
  2. warm hover: one Engine, one hover to warm up, then `--hovers` definitions drawn at random (seeded) from the
     index: `engine.hover()` wall p50/p95 and the server's share (`lsp_ms`).
  3. references: `--refs` other definitions (functions, classes and methods, no dunders): `engine.refs()` wall
     p50/p95/max, hits, and how many hit the timeout (`--timeout`, default the shipped 10 s; a timed-out server
     is killed, so the call after it pays a cold start, which is counted in its time).
  4. CLI: `trifecta ast hover URI --json` as a new process (interpreter, imports, server start, one hover).

Prints a markdown table on stdout, progress on stderr. The temp dir is removed at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

QUICK_SUBDIRS = ("json", "email", "asyncio")
COLD_URI_CANDIDATES = (
    "sym://python/type/json/decoder/JSONDecoder#decode",
    "sym://python/type/email/message/Message#get_payload",
)
TEST_PARTS = ("test", "tests", "idle_test", "test_")


def log(message: str) -> None:
    sys.stderr.write(message + "\n")
    sys.stderr.flush()


def pct(values: Sequence[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def copy_tree(src: Path, dest: Path, quick: bool) -> None:
    ignore = shutil.ignore_patterns("site-packages", "__pycache__")
    if not quick:
        shutil.copytree(src, dest, ignore=ignore, symlinks=True)
        return
    dest.mkdir(parents=True)
    for name in QUICK_SUBDIRS:
        if (src / name).is_dir():
            shutil.copytree(src / name, dest / name, ignore=ignore, symlinks=True)


def sample_uris(engine: Any, count: int, seed: int, *, refs: bool) -> list[str]:
    """Selectors of definitions outside test code, drawn at random (seeded) from the index."""
    from trifecta.application.zoom_ast import uri_for_hit

    pool = []
    for path, symbol in engine._app.store.all_symbols():
        parts = path.split("/")
        if any(p in TEST_PARTS or p.startswith("test_") for p in parts):
            continue
        if refs and symbol.name.startswith("__"):
            continue
        uri = uri_for_hit(path, symbol.qualname, "python")
        if uri:
            pool.append(uri)
    pool = sorted(set(pool))
    rng = random.Random(seed)
    return rng.sample(pool, min(count, len(pool)))


def rss_mb(pid: int | None) -> float:
    if pid is None:
        return float("nan")
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tree", type=Path, default=Path(sysconfig.get_paths()["stdlib"]))
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--cold-runs", type=int, default=5)
    parser.add_argument("--hovers", type=int, default=100)
    parser.add_argument("--refs", type=int, default=25)
    parser.add_argument("--cli-runs", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)

    import trifecta
    from trifecta.infrastructure.lsp_client import resolve_command

    command = resolve_command(("jedi-language-server",))
    if command is None:
        log("jedi-language-server is not installed: pip install -e '.[lsp]'")
        return 1
    version = subprocess.run([command[0], "--version"], capture_output=True, text=True).stdout.strip()
    results: dict[str, Any] = {
        "source_tree": str(args.tree),
        "quick": args.quick,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "server": f"jedi-language-server {version}",
        "timeout_s": args.timeout,
        "loadavg_start": list(os.getloadavg()),
    }
    work = Path(tempfile.mkdtemp(prefix="trifecta-bench-lsp-"))
    try:
        tree = work / "tree"
        log(f"copying {args.tree} ...")
        copy_tree(args.tree, tree, args.quick)
        db = work / "index.db"
        options = {"db_path": str(db), "lsp_timeout": args.timeout}
        started = time.perf_counter()
        with trifecta.open(str(tree), **options) as engine:
            report = engine.index()
            results["index_s"] = time.perf_counter() - started
            results["files"] = report.files_indexed
            cold_uri = next(u for u in COLD_URI_CANDIDATES if engine.snippet(u).ok)
            hover_uris = sample_uris(engine, args.hovers, args.seed, refs=False)
            refs_uris = sample_uris(engine, args.refs, args.seed + 1, refs=True)
        log(f"indexed {results['files']} files in {results['index_s']:.1f}s")

        # 1. cold start
        cold = []
        for run in range(args.cold_runs):
            with trifecta.open(str(tree), **options) as engine:
                t0 = time.perf_counter()
                response = engine.hover(cold_uri)
                wall = time.perf_counter() - t0
                adapter = engine._app.language_server.inner
                start = adapter.start_seconds
                t1 = time.perf_counter()
                engine.close()
                closed = time.perf_counter() - t1
            cold.append(
                {
                    "ok": response.ok,
                    "start_s": start,
                    "first_hover_s": response.data.get("lsp_ms", 0) / 1000 - start,
                    "call_s": wall,
                    "close_s": closed,
                }
            )
            log(f"cold {run + 1}/{args.cold_runs}: start {start:.2f}s, call {wall:.2f}s, close {closed:.2f}s")
        results["cold"] = cold

        # 2. warm hover, 3. references
        with trifecta.open(str(tree), **options) as engine:
            engine.hover(cold_uri)
            hovers = []
            for i, uri in enumerate(hover_uris):
                t0 = time.perf_counter()
                response = engine.hover(uri)
                wall = time.perf_counter() - t0
                reason = (
                    ""
                    if response.ok
                    else response.errors[0].data.get("reason", response.errors[0].code.value)
                )
                hovers.append(
                    {
                        "uri": uri,
                        "ok": response.ok,
                        "error": reason,
                        "call_s": wall,
                        "lsp_s": response.data.get("lsp_ms", float("nan")) / 1000,
                        "has_hover": bool(response.data.get("content")),
                    }
                )
                if (i + 1) % 20 == 0:
                    log(f"hover {i + 1}/{len(hover_uris)}")
            results["hovers"] = hovers
            refs = []
            for i, uri in enumerate(refs_uris):
                t0 = time.perf_counter()
                response = engine.refs(uri, limit=50)
                wall = time.perf_counter() - t0
                reason = (
                    ""
                    if response.ok
                    else response.errors[0].data.get("reason", response.errors[0].code.value)
                )
                refs.append(
                    {
                        "uri": uri,
                        "ok": response.ok,
                        "error": reason,
                        "call_s": wall,
                        "total": response.data.get("total", 0),
                        "shown": len(response.data.get("hits", [])),
                    }
                )
                log(
                    f"refs {i + 1}/{len(refs_uris)}: {wall:.2f}s {response.data.get('total', 0)} hits {reason}"
                )
            results["refs"] = refs
            adapter = engine._app.language_server.inner
            results["server_rss_mb"] = rss_mb(adapter.pid if adapter else None)
            results["server_starts"] = adapter.starts if adapter else 0

        # 4. CLI
        exe = Path(sys.executable).parent / "trifecta"
        cli_cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "trifecta.interfaces.cli.main"]
        env = {**os.environ, "TRIFECTA_DB": str(db)}
        cli = []
        for _ in range(args.cli_runs):
            t0 = time.perf_counter()
            proc = subprocess.run(
                [*cli_cmd, "ast", "hover", cold_uri, "-s", str(tree), "--json"],
                capture_output=True,
                text=True,
                env=env,
                timeout=120,
            )
            cli.append(time.perf_counter() - t0)
            if proc.returncode != 0:
                log(f"cli exit {proc.returncode}: {proc.stderr[-300:]}")
        results["cli_s"] = cli
        results["loadavg_end"] = list(os.getloadavg())
    finally:
        shutil.rmtree(work, ignore_errors=True)

    print_table(results)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


def print_table(r: dict[str, Any]) -> None:
    ms = 1000.0
    cold, hovers, refs = r["cold"], r["hovers"], r["refs"]
    starts = [c["start_s"] for c in cold if c["ok"]]
    firsts = [c["first_hover_s"] for c in cold if c["ok"]]
    calls = [c["call_s"] for c in cold if c["ok"]]
    closes = [c["close_s"] for c in cold]
    h_ok = [h for h in hovers if h["ok"]]
    h_call = [h["call_s"] for h in h_ok]
    h_lsp = [h["lsp_s"] for h in h_ok]
    r_ok = [x for x in refs if x["ok"]]
    r_call = [x["call_s"] for x in refs]
    timeouts = sum(1 for x in refs if x["error"] == "timeout")
    failed_h = [h["error"] for h in hovers if not h["ok"]]
    print(
        f"{r['server']} on {r['source_tree']} ({r['files']} files{', quick' if r['quick'] else ''}), "
        f"Python {r['python']}, {r['cpus']} CPUs, load {r['loadavg_start'][0]:.1f} -> {r['loadavg_end'][0]:.1f}\n"
    )
    print("| figure | value |")
    print("|---|---|")
    print(
        f"| cold start (spawn + initialize), p50 of {len(starts)} | {statistics.median(starts) * ms:.0f} ms |"
    )
    print(f"| first hover after start, p50 | {statistics.median(firsts) * ms:.0f} ms |")
    print(f"| first `engine.hover()` call (start + hover), p50 | {statistics.median(calls) * ms:.0f} ms |")
    print(f"| `close()` (shutdown + exit), p50 | {statistics.median(closes) * ms:.0f} ms |")
    print(
        f"| warm hover `engine.hover()`, p50 / p95 over {len(h_call)} definitions | "
        f"{pct(h_call, 50) * ms:.0f} / {pct(h_call, 95) * ms:.0f} ms (server share {pct(h_lsp, 50) * ms:.0f} / "
        f"{pct(h_lsp, 95) * ms:.0f} ms); {sum(h['has_hover'] for h in h_ok)} with hover text, "
        f"{len(failed_h)} errors {sorted(set(failed_h))} |"
    )
    print(
        f"| references `engine.refs()`, p50 / p95 / max over {len(r_call)} definitions | "
        f"{pct(r_call, 50) * ms:.0f} / {pct(r_call, 95) * ms:.0f} / {max(r_call) * ms:.0f} ms; "
        f"{len(r_ok)} answered, {timeouts} timed out at {r['timeout_s']:g} s; hits p50 "
        f"{pct([x['total'] for x in r_ok], 50):.0f}, max {max((x['total'] for x in r_ok), default=0)} |"
    )
    print(
        f"| CLI `ast hover --json` wall, p50 of {len(r['cli_s'])} | {statistics.median(r['cli_s']) * ms:.0f} ms |"
    )
    print(f"| server RSS after the run | {r['server_rss_mb']:.0f} MB ({r['server_starts']} server starts) |")


if __name__ == "__main__":
    raise SystemExit(main())
