"""Search under load: CLIENTS processes search the stdlib while another process re-indexes another segment,
against the shared PostgreSQL index and, in the same run, against SQLite files.

    python bench/bench_pg_load.py                        # 1, 4, 8, 16 clients, 15 s each, both backends
    python bench/bench_pg_load.py --clients 16 --seconds 30 --backends postgres
    python bench/bench_pg_load.py --db-url postgresql://u@host/db --skip-index   # a segment "stdlib" there
    python bench/bench_pg_load.py --quick                # email/, json/, asyncio/; 1 and 3 clients, 3 s
    python bench/bench_pg_load.py --clients 16 --think-ms 1000   # agents that read each answer for a second

What is measured:
- A client is one OS process, as an agent's `trifecta mcp` or `trifecta ctx search` is: its own Engine
  (`trifecta.open` on a checkout, with `db_url` and `segment_id` for PostgreSQL, the SQLite file otherwise),
  its own connection, searching back to back with no think time (the most a set of agents can ask of one
  machine; `--think-ms` pauses after each answer, as an agent waits for its model), through bench_index.py's questions (every non-blank one) from its own starting point. Its first
  search (connect, learn the stems) is not counted. Neither backend refreshes the index before a search
  (`auto_refresh` off, PostgreSQL's default): the indexer keeps it fresh.
- The re-indexer is one more process running `index(full=True)` on another tree (json/ and csv.py) over and
  over: segment "other" of the same database, or its own SQLite file.
- Reported per backend and client count: searches, searches per second, p50/p95/max latency, errors, the
  CPU time per search of the clients and of the server (the PostgreSQL processes of a throw-away server,
  read from /proc; not known for --db-url), the re-indexer's runs and CPU, the cores this process may use
  and the load average.

With clients searching back to back, a search waits for the CPU the others use: on C cores a search's
latency is about clients x (client + server CPU per search) / C once the clients outnumber the cores
(docs/scaling.md). Target (issue 18): 16 clients, p95 < 50 ms, zero errors.
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
TARGET_CLIENTS, TARGET_P95_MS = 16, 50.0
APP = "trifecta-load"  # application_name of the bench's connections: the server's CPU is told apart by it


def copy_tree(tree: Path, dest: Path, quick: bool) -> Path:
    ignore = shutil.ignore_patterns("__pycache__", "site-packages", "test", "tests", "idlelib", ".trifecta")
    if quick:
        dest.mkdir(parents=True)
        for sub in QUICK_SUBDIRS:
            shutil.copytree(tree / sub, dest / sub, ignore=ignore)
    else:
        shutil.copytree(tree, dest, ignore=ignore, symlinks=True)
    return dest


def copy_other(tree: Path, dest: Path) -> Path:
    shutil.copytree(tree / "json", dest / "json", ignore=shutil.ignore_patterns("__pycache__"))
    if (tree / "csv.py").exists():
        shutil.copy(tree / "csv.py", dest / "csv.py")
    return dest


def queries() -> list[str]:
    from bench_index import SEARCH_QUERIES

    return [q for q in SEARCH_QUERIES if q.strip()]  # the blank edge cases answer EMPTY_QUERY by design


def _open(backend: dict[str, Any], segment_id: str, role: str) -> Any:
    import trifecta

    if backend["url"]:
        url = backend["url"] + ("&" if "?" in backend["url"] else "?") + f"application_name={APP}-{role}"
        return trifecta.open(backend["tree"], db_url=url, segment_id=segment_id, telemetry=False, workers=1)
    return trifecta.open(
        backend["tree"], db_path=backend["db_path"], telemetry=False, auto_refresh=False, workers=1
    )


def _client(backend: dict[str, Any], n: int, ready: Any, start: Any, release: Any, out: Any) -> None:
    latencies: list[float] = []
    errors: list[str] = []
    asked = queries()
    cpu = 0.0
    try:
        with _open(backend, "stdlib", "client") as engine:
            engine.search(asked[0], limit=10)  # connect, learn the stems: not a searcher's steady state
            ready.put(n)
            start.wait()
            deadline = time.monotonic() + backend["seconds"]
            i = n * 7
            cpu_started = time.process_time()
            while time.monotonic() < deadline:
                query = asked[i % len(asked)]
                i += 1
                started = time.perf_counter()
                try:
                    answer = engine.search(query, limit=10).to_dict()
                except Exception as exc:  # an exception is an error too, never a crash of the bench
                    answer = {
                        "status": "error",
                        "errors": [{"code": type(exc).__name__, "message": str(exc)}],
                    }
                latencies.append((time.perf_counter() - started) * 1000)
                if backend.get("think_s"):
                    time.sleep(backend["think_s"])  # an agent reading the answer and asking its model
                if answer["status"] == "error":
                    error = answer["errors"][0]
                    errors.append(f"{query[:60]!r}: {error['code']} {error['message'][:200]}")
            cpu = time.process_time() - cpu_started
            out.put((latencies, errors, cpu))
            release.wait(120)
    except Exception as exc:
        ready.put(n)
        out.put(([], [f"client {n}: {type(exc).__name__}: {exc}"], cpu))


def _reindexer(backend: dict[str, Any], start: Any, stop: Any, out: Any) -> None:
    """Re-index the other tree until told to stop; its runs, errors and CPU, counted from the clients' start."""
    other = {**backend, "tree": backend["other"], "db_path": backend["other_db_path"]}
    runs, errors = 0, []
    started: float | None = None
    with _open(other, "other", "reindexer") as engine:
        while not stop.is_set():
            if started is None and start.is_set():
                started, runs = time.process_time(), 0
            try:
                engine.index(full=True)
                runs += 1
            except Exception as exc:
                errors.append(f"{type(exc).__name__}: {exc}")
                time.sleep(0.5)
    out.put((runs, errors, 0.0 if started is None else time.process_time() - started))


def server_cpu_seconds(backend: dict[str, Any]) -> dict[str, float] | None:
    """User + system CPU seconds of a local PostgreSQL server's processes (the postmaster and its children),
    by whom they serve: the bench's clients, its re-indexer, or the server itself (autovacuum, WAL, the
    checkpointer, this look-up)."""
    data_dir = backend["data_dir"]
    if data_dir is None:
        return None
    try:
        postmaster = int((Path(data_dir) / "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    import psycopg

    with psycopg.connect(backend["url"], autocommit=True) as conn:
        roles = dict(
            conn.execute(
                "SELECT pid, substr(application_name, %s) FROM pg_stat_activity WHERE application_name LIKE %s",
                (len(APP) + 2, APP + "-%"),
            ).fetchall()
        )
    ticks = os.sysconf("SC_CLK_TCK")
    totals = {"client": 0.0, "reindexer": 0.0, "server": 0.0}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid, ppid = int(entry), int(fields[1])
        if pid == postmaster or ppid == postmaster:
            totals[roles.get(pid, "server")] += (int(fields[11]) + int(fields[12])) / ticks  # utime, stime
    return totals


def run(backend: dict[str, Any], clients: int) -> dict[str, Any]:
    """One load run: `clients` searching processes and the re-indexer, for backend['seconds']."""
    ctx = multiprocessing.get_context("spawn")
    ready, out, runs_out = ctx.Queue(), ctx.Queue(), ctx.Queue()
    start, release, stop = ctx.Event(), ctx.Event(), ctx.Event()
    writer = ctx.Process(target=_reindexer, args=(backend, start, stop, runs_out))
    if backend.get("reindex", True):
        writer.start()
    else:
        runs_out.put((0, [], 0.0))
    procs = [
        ctx.Process(target=_client, args=(backend, n, ready, start, release, out)) for n in range(clients)
    ]
    for p in procs:
        p.start()
    for _ in procs:
        ready.get(timeout=300)
    time.sleep(0.5)  # the re-index is under way
    server_before = server_cpu_seconds(backend)
    load_before = os.getloadavg()
    start.set()
    time.sleep(backend["seconds"])
    server_after = server_cpu_seconds(backend)
    results = [out.get(timeout=backend["seconds"] + 300) for _ in procs]
    release.set()
    stop.set()
    for p in procs:
        p.join(60)
    reindex_runs, reindex_errors, reindex_cpu = runs_out.get(timeout=600)
    if writer.is_alive():
        writer.join(60)
    latencies = sorted(x for lat, _, _ in results for x in lat)
    errors = [e for _, errs, _ in results for e in errs]
    n = max(len(latencies), 1)
    server = (
        None
        if server_before is None or server_after is None
        else {k: server_after[k] - server_before[k] for k in server_after}
    )
    return {
        "backend": backend["name"],
        "clients": clients,
        "seconds": backend["seconds"],
        "think_ms": backend.get("think_s", 0.0) * 1000,
        "searches": len(latencies),
        "searches_per_s": round(len(latencies) / backend["seconds"], 1),
        "p50_ms": round(statistics.median(latencies), 1) if latencies else None,
        "p95_ms": round(latencies[min(int(len(latencies) * 0.95), len(latencies) - 1)], 1)
        if latencies
        else None,
        "max_ms": round(latencies[-1], 1) if latencies else None,
        "errors": len(errors),
        "error_samples": sorted(set(errors))[:5],
        "client_cpu_ms_per_search": round(sum(c for _, _, c in results) * 1000 / n, 2),
        # the server's CPU serving the clients' connections; what the re-indexer's writes and the server's
        # own processes (autovacuum, WAL, checkpoints) cost it, per search too
        "server_cpu_ms_per_search": None if server is None else round(server["client"] * 1000 / n, 2),
        "server_cpu_ms_per_search_reindexer": None
        if server is None
        else round(server["reindexer"] * 1000 / n, 2),
        "server_cpu_ms_per_search_own": None if server is None else round(server["server"] * 1000 / n, 2),
        "reindex_runs": reindex_runs,
        "reindex_errors": len(reindex_errors),
        "reindex_cpu_s": round(reindex_cpu, 1),
        "cores": len(os.sched_getaffinity(0)),
        # the CPU the bench's processes got (clients, re-indexer, server), in cores: the rest of the machine's
        # cores went to other work
        "cores_obtained": round(
            (
                sum(c for _, _, c in results)
                + (reindex_cpu if backend.get("reindex", True) else 0.0)
                + (sum(server.values()) if server else 0.0)
            )
            / backend["seconds"],
            2,
        ),
        "load_average_before": load_before[0],
        "load_average_after": os.getloadavg()[0],
    }


def prepare(
    work: Path, tree: Path, quick: bool, url: str | None, skip_index: bool
) -> dict[str, dict[str, Any]]:
    """Copies of the trees and their indexes: PostgreSQL segments "stdlib" and "other" (at `url`), and the
    SQLite files of both. Returns a backend description per name."""
    import trifecta

    stdlib, other = copy_tree(tree, work / "stdlib", quick), copy_other(tree, work / "other")
    common = {"tree": str(stdlib), "other": str(other), "data_dir": None}
    backends = {
        "sqlite": {
            **common, "name": "sqlite", "url": None, "db_path": str(work / "stdlib.db"),
            "other_db_path": str(work / "other.db"),
        },
        "postgres": {**common, "name": "postgres", "url": url, "db_path": None, "other_db_path": None},
    }  # fmt: skip
    for name, backend in backends.items():
        if name == "postgres" and (url is None or skip_index):
            continue
        print(f"indexing into {name} ...", file=sys.stderr)
        for path, segment_id, db_path in (
            (stdlib, "stdlib", backend["db_path"]),
            (other, "other", backend["other_db_path"]),
        ):
            options = {"db_url": url, "segment_id": segment_id} if backend["url"] else {"db_path": db_path}
            with trifecta.open(path, telemetry=False, workers=1, **options) as engine:
                engine.index(full=True)
    return backends


def table(rows: list[dict[str, Any]]) -> str:
    """Markdown: per run, the searches, their latency and errors, and the CPU per search in the client and in
    the server process serving it; the re-indexer's runs and its CPU (its process, and the server's)."""
    head = (
        "| backend | clients | searches/s | p50 ms | p95 ms | max ms | errors | client CPU ms/search "
        "| server CPU ms/search | re-index runs | re-indexer CPU s (process + server) | cores obtained |"
    )
    lines = [head, "|" + "---|" * 12]
    for r in rows:
        server = "-" if r["server_cpu_ms_per_search"] is None else f"{r['server_cpu_ms_per_search']:.1f}"
        reindexer = f"{r['reindex_cpu_s']:.1f}"
        if r["server_cpu_ms_per_search_reindexer"] is not None:
            reindexer += f" + {r['server_cpu_ms_per_search_reindexer'] * r['searches'] / 1000:.1f}"
        lines.append(
            f"| {r['backend']} | {r['clients']} | {r['searches_per_s']} | {r['p50_ms']} | {r['p95_ms']} "
            f"| {r['max_ms']} | {r['errors']} | {r['client_cpu_ms_per_search']:.1f} | {server} "
            f"| {r['reindex_runs']} | {reindexer} | {r['cores_obtained']} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tree", type=Path, default=Path(sysconfig.get_paths()["stdlib"]))
    parser.add_argument("--db-url", help="an existing database (default: a throw-away server)")
    parser.add_argument("--backends", default="postgres,sqlite")
    parser.add_argument("--clients", help="comma-separated client counts (default 1,4,8,16; --quick 1,3)")
    parser.add_argument("--seconds", type=float, help="per run (default 15; --quick 3)")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--no-reindex", action="store_true", help="no re-indexer: the searches alone")
    parser.add_argument(
        "--think-ms",
        type=float,
        default=0.0,
        help="each client pauses this long after each answer (default 0)",
    )
    parser.add_argument(
        "--skip-index", action="store_true", help="PostgreSQL: the segments are there already"
    )
    parser.add_argument("--json", type=Path, help="write the figures here too")
    args = parser.parse_args()
    counts = [int(c) for c in (args.clients or ("1,3" if args.quick else "1,4,8,16")).split(",")]
    seconds = args.seconds or (3.0 if args.quick else 15.0)
    names = [b.strip() for b in args.backends.split(",") if b.strip()]

    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="trifecta-bench-load-") as tmp:
        server = None
        url, data_dir = args.db_url, None
        if url is None and "postgres" in names:
            from postgres_server import controlled_server, new_database

            server = controlled_server()
            started = server.__enter__()
            url, data_dir = new_database(started.url, "load"), started.data
        try:
            backends = prepare(Path(tmp), args.tree, args.quick, url, args.skip_index)
            backends["postgres"]["data_dir"] = data_dir
            for name in names:
                for clients in counts:
                    print(f"{name}: {clients} clients for {seconds:g} s ...", file=sys.stderr)
                    rows.append(
                        run(
                            {
                                **backends[name],
                                "seconds": seconds,
                                "think_s": args.think_ms / 1000,
                                "reindex": not args.no_reindex,
                            },
                            clients,
                        )
                    )
                    print(table(rows[-1:]).splitlines()[-1], file=sys.stderr)
        finally:
            if server is not None:
                server.__exit__(None, None, None)
    figures = {
        "tree": str(args.tree),
        "quick": args.quick,
        "cores": len(os.sched_getaffinity(0)),
        "runs": rows,
    }
    target = [r for r in rows if r["backend"] == "postgres" and r["clients"] == TARGET_CLIENTS]
    if target:
        figures["meets_target"] = target[0]["p95_ms"] < TARGET_P95_MS and target[0]["errors"] == 0
    print(table(rows))
    print(json.dumps(figures, indent=2))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
