"""The shared PostgreSQL index against the SQLite file: indexing time, and search under load.

    python bench/bench_postgres.py                          # the stdlib, a throw-away server (initdb/pg_ctl)
    python bench/bench_postgres.py --db-url postgresql://u@host/db --tree ~/src/repo
    python bench/bench_postgres.py --quick                  # email/, json/, asyncio/ only

1. Full index of a copy of the tree (fresh database each, in this process, one parser worker): SQLite vs
   PostgreSQL, wall seconds.
2. Load: CLIENTS processes search the PostgreSQL segment for SECONDS (each its own Engine and connection,
   cycling through bench_index.py's queries), while another process re-indexes a second segment (`--full`,
   over and over). Reports p50/p95/max per search and errors. Target: p95 < 50 ms, zero errors.

Nothing is written into the measured tree: the copies and the SQLite database live in a temp dir. The throw-away
server is started as tests/postgres_server.py starts it (as the `postgres` user when run as root).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import shutil
import statistics
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "tests")]
QUICK_SUBDIRS = ("email", "json", "asyncio")
TARGET_P95_MS = 50.0


def _copy(tree: Path, dest: Path, quick: bool) -> Path:
    ignore = shutil.ignore_patterns("__pycache__", "site-packages", "test", "tests", "idlelib", ".trifecta")
    if quick:
        dest.mkdir(parents=True)
        for sub in QUICK_SUBDIRS:
            shutil.copytree(tree / sub, dest / sub, ignore=ignore)
    else:
        shutil.copytree(tree, dest, ignore=ignore, symlinks=True)
    return dest


def _index_seconds(segment: Path, **options: Any) -> tuple[float, int]:
    import trifecta

    started = time.perf_counter()
    with trifecta.open(segment, workers=1, telemetry=False, **options) as engine:
        report = engine.index(full=True)
    return time.perf_counter() - started, report.files_indexed


def _client(url: str, segment: Path, seconds: float, queries: list[str], out: Any) -> None:
    import trifecta

    latencies: list[float] = []
    errors: list[str] = []
    with trifecta.open(segment, db_url=url, segment_id="stdlib", telemetry=False) as engine:
        engine.search(queries[0])  # connect, learn the stems: not a searcher's steady state
        deadline = time.monotonic() + seconds
        i = os.getpid()
        while time.monotonic() < deadline:
            query = queries[i % len(queries)]
            i += 1
            started = time.perf_counter()
            answer = engine.search(query, limit=10).to_dict()
            latencies.append((time.perf_counter() - started) * 1000)
            if answer["status"] == "error":
                errors.append(
                    f"{query!r}: {answer['errors'][0]['code']} {answer['errors'][0]['message'][:200]}"
                )
    out.put((latencies, errors))


def _reindexer(url: str, segment: Path, stop: Any, out: Any) -> None:
    import trifecta

    runs = 0
    with trifecta.open(segment, db_url=url, segment_id="other", workers=1, telemetry=False) as engine:
        while not stop.is_set():
            engine.index(full=True)
            runs += 1
    out.put(runs)


def load(url: str, segment: Path, other: Path, clients: int, seconds: float) -> dict[str, Any]:
    from bench_index import SEARCH_QUERIES

    queries = [q for q in SEARCH_QUERIES if q.strip()]  # the blank edge cases answer EMPTY_QUERY by design
    ctx = multiprocessing.get_context("spawn")
    out, runs_out, stop = ctx.Queue(), ctx.Queue(), ctx.Event()
    writer = ctx.Process(target=_reindexer, args=(url, other, stop, runs_out))
    writer.start()
    time.sleep(1.0)  # the re-index is under way before the searches start
    procs = [ctx.Process(target=_client, args=(url, segment, seconds, queries, out)) for _ in range(clients)]
    for p in procs:
        p.start()
    results = [out.get(timeout=seconds + 120) for _ in procs]
    for p in procs:
        p.join(30)
    stop.set()
    reindex_runs = runs_out.get(timeout=600)
    writer.join(60)
    latencies = sorted(x for lat, _ in results for x in lat)
    return {
        "clients": clients,
        "seconds": seconds,
        "searches": len(latencies),
        "errors": sum(len(e) for _, e in results),
        "error_samples": sorted({x for _, e in results for x in e})[:5],
        "p50_ms": round(statistics.median(latencies), 1),
        "p95_ms": round(latencies[int(len(latencies) * 0.95)], 1),
        "max_ms": round(latencies[-1], 1),
        "reindex_runs_of_other_segment": reindex_runs,
        "load_average": os.getloadavg(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tree", type=Path, default=Path(sysconfig.get_paths()["stdlib"]))
    parser.add_argument(
        "--other", type=Path, help="the tree re-indexed during the load (default: json/ + csv.py)"
    )
    parser.add_argument("--db-url", help="an existing database (default: a throw-away server)")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--skip-index", action="store_true", help="only the load (the segment must exist)")
    parser.add_argument("--json", type=Path, help="write the figures here too")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="trifecta-bench-pg-") as tmp:
        work = Path(tmp)
        tree = _copy(args.tree, work / "stdlib", args.quick)
        other = work / "other"
        if args.other:
            shutil.copytree(args.other, other, ignore=shutil.ignore_patterns(".trifecta"))
        else:
            shutil.copytree(args.tree / "json", other / "json", ignore=shutil.ignore_patterns("__pycache__"))
        server = None
        url = args.db_url
        if url is None:
            from postgres_server import new_database, running_server

            server = running_server()
            url = new_database(server.__enter__(), "bench")
        try:
            figures: dict[str, Any] = {"tree": str(args.tree), "quick": args.quick}
            if not args.skip_index:
                print("indexing into SQLite ...", file=sys.stderr)
                sqlite_s, files = _index_seconds(tree, db_path=str(work / "index.db"))
                print("indexing into PostgreSQL ...", file=sys.stderr)
                pg_s, _ = _index_seconds(tree, db_url=url, segment_id="stdlib")
                figures["index"] = {
                    "files": files,
                    "sqlite_s": round(sqlite_s, 2),
                    "postgres_s": round(pg_s, 2),
                }
            print(f"load: {args.clients} clients for {args.seconds:g} s ...", file=sys.stderr)
            figures["load"] = load(url, tree, other, args.clients, args.seconds)
        finally:
            if server is not None:
                server.__exit__(None, None, None)
    load_ok = figures["load"]["p95_ms"] < TARGET_P95_MS and figures["load"]["errors"] == 0
    figures["load"]["meets_target"] = load_ok
    print(json.dumps(figures, indent=2))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
