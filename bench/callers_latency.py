"""Callers latency from the index (no language server), on the symbols callers_vs_jedi.py samples.

    python bench/callers_latency.py --tree /usr/lib/python3.11 --seeds 3,11,23
    python bench/callers_latency.py --work /tmp/cl --seeds 3,11,23 --answers /tmp/after.json   # reuse an index
    python bench/callers_latency.py --work /tmp/cl --pythonpath /tmp/old-src --pythonpath src --rounds 3

The tree is copied to ``--work`` (a temp dir unless given; an index already there is reused) and indexed
once. Then a fresh process per variant (``--pythonpath``: folders holding a ``trifecta`` package to compare,
this checkout's by default; their rounds interleaved) opens the index and, for every symbol of the seeds'
samples (``--n`` per seed, the same ``pick_symbols`` as callers_vs_jedi.py; a symbol two seeds pick is asked
once), asks ``engine.callers(uri, limit=--limit)`` once (``first``: its previews' files read and checked),
then ``--asks`` more times, keeping the fastest (CPU: ``time.process_time``; wall). The engine keeps its
call graph between requests while the index is unchanged, so an ask after others reads less of the index;
``--fresh-graph`` starts every request on a new graph (what one ``trifecta ast callers`` process pays, less
its start-up). Reported: p50, p95 and
max of the first ask and of the fastest, per variant, and the slowest symbols. ``--answers FILE`` writes
each symbol's answer (``data`` of the last ask) as JSON, to check that a change keeps every answer.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from callers_vs_jedi import copy_tree, pct, pick_symbols, python_uri  # noqa: E402


def measure(work: Path, seeds: list[int], n: int, limit: int, asks: int, answers: str, fresh: bool) -> None:
    """In a fresh process: time every symbol's callers; one JSON line per symbol on stdout."""
    import trifecta

    if fresh:
        from trifecta.application import call_graph

        if hasattr(call_graph, "KEPT_GRAPH_ENTRIES"):
            call_graph.KEPT_GRAPH_ENTRIES = -1  # every request on a new graph: nothing kept between asks

    engine = trifecta.open(work / "tree", db_path=str(work / "index.db"))
    uris: dict[str, None] = {}
    for seed in seeds:
        picked, _, rules = pick_symbols(engine, n, seed)
        uris.update((python_uri(rules, path, symbol), None) for path, symbol in picked)
    out = {}
    for uri in uris:
        c, w = time.process_time(), time.perf_counter()
        engine.callers(uri, limit=limit)
        first_cpu, first_wall = time.process_time() - c, time.perf_counter() - w
        cpu = wall = float("inf")
        response = None
        for _ in range(asks):
            c, w = time.process_time(), time.perf_counter()
            response = engine.callers(uri, limit=limit)
            cpu, wall = min(cpu, time.process_time() - c), min(wall, time.perf_counter() - w)
        data = response.to_dict() if response is not None else {}
        out[uri] = {"status": data.get("status"), "data": data.get("data"), "errors": data.get("errors")}
        hits = len((data.get("data") or {}).get("hits", []))
        print(json.dumps({"uri": uri, "first_cpu": first_cpu * 1000, "first_wall": first_wall * 1000,
                          "cpu": cpu * 1000, "wall": wall * 1000, "hits": hits}), flush=True)  # fmt: skip
    engine.close()
    if answers:
        Path(answers).write_text(json.dumps(out, indent=1, sort_keys=True))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", default=sysconfig.get_paths()["stdlib"])
    ap.add_argument("--work", default="", help="keep the copy and its index here (reused when present)")
    ap.add_argument("--seeds", default="3,11,23")
    ap.add_argument("--n", type=int, default=100, help="symbols per seed")
    ap.add_argument("--limit", type=int, default=50)
    ap.add_argument("--asks", type=int, default=3, help="asks after the first; the fastest is kept")
    ap.add_argument("--rounds", type=int, default=1, help="fresh processes per variant, interleaved")
    ap.add_argument("--pythonpath", action="append", default=[], help="a variant's package folder")
    ap.add_argument("--answers", default="", help="write the answers here (the first variant's)")
    ap.add_argument("--slowest", type=int, default=10)
    ap.add_argument(
        "--fresh-graph",
        action="store_true",
        help="no graph kept between requests: every ask looks everything up again (a one-shot CLI call)",
    )
    ap.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    seeds = [int(s) for s in args.seeds.split(",") if s]
    if args.measure:
        measure(Path(args.work), seeds, args.n, args.limit, args.asks, args.answers, args.fresh_graph)
        return 0
    work = Path(args.work or tempfile.mkdtemp(prefix="callers-latency-"))
    try:
        if not (work / "index.db").exists():
            work.mkdir(parents=True, exist_ok=True)
            if not (work / "tree").exists():
                copy_tree(Path(args.tree), work / "tree")
            import trifecta

            engine = trifecta.open(work / "tree", db_path=str(work / "index.db"))
            started = time.perf_counter()
            engine.index(full=True)
            engine.close()
            print(f"indexed in {time.perf_counter() - started:.1f} s", file=sys.stderr)
        variants = args.pythonpath or ["checkout"]
        rows: dict[str, dict[str, list[dict[str, float]]]] = {v: {} for v in variants}
        for rnd in range(args.rounds):
            for i, variant in enumerate(variants):
                env = {**os.environ, "TRIFECTA_NO_TELEMETRY": "1"}
                if args.pythonpath:
                    env["PYTHONPATH"] = variant
                command = [sys.executable, __file__, "--measure", "--work", str(work), "--seeds", args.seeds,
                           "--n", str(args.n), "--limit", str(args.limit), "--asks", str(args.asks)]  # fmt: skip
                command += ["--fresh-graph"] if args.fresh_graph else []
                if args.answers and i == 0 and rnd == 0:
                    command += ["--answers", args.answers]
                done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=1800)
                if done.returncode != 0:
                    raise SystemExit(done.stderr[-3000:])
                for line in done.stdout.splitlines():
                    row = json.loads(line)
                    rows[variant].setdefault(row["uri"], []).append(row)
                print(f"round {rnd + 1} {variant}: {len(rows[variant])} symbols", file=sys.stderr)
        print(f"\n{len(next(iter(rows.values())))} symbols (seeds {args.seeds}, {args.n} each), limit "
              f"{args.limit}, fastest of {args.asks} asks after the first, load {os.getloadavg()[0]:.1f}\n")  # fmt: skip
        print("| variant | measure | p50 ms | p95 ms | max ms |\n|---|---|---|---|---|")
        for variant, by_uri in rows.items():
            for measure_name in ("cpu", "wall", "first_cpu", "first_wall"):
                # over the rounds, each symbol's fastest
                values = [min(r[measure_name] for r in runs) for runs in by_uri.values()]
                print(f"| {variant} | {measure_name} | {statistics.median(values):.2f} | "
                      f"{pct(values, 0.95):.2f} | {max(values):.2f} |")  # fmt: skip
        for variant, by_uri in rows.items():
            slow = sorted(by_uri.items(), key=lambda kv: -min(r["cpu"] for r in kv[1]))[: args.slowest]
            print(f"\nslowest ({variant}), CPU ms:")
            for uri, runs in slow:
                print(f"  {min(r['cpu'] for r in runs):7.2f}  {runs[0]['hits']:4d} hits  {uri}")
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
