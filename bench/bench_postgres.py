"""The shared PostgreSQL index against the SQLite file: indexing time. Search under load is
bench/bench_pg_load.py.

    python bench/bench_postgres.py                          # the stdlib, a throw-away server (initdb/pg_ctl)
    python bench/bench_postgres.py --db-url postgresql://u@host/db --tree ~/src/repo
    python bench/bench_postgres.py --quick                  # email/, json/, asyncio/ only

1. Full index of a copy of the tree (fresh database each, in this process, one parser worker): SQLite vs
   PostgreSQL, wall seconds.
2. Load: bench_pg_load.py's run with CLIENTS processes for SECONDS (see there), PostgreSQL only.

Nothing is written into the measured tree: the copies and the SQLite database live in a temp dir. The throw-away
server is started as tests/postgres_server.py starts it (as the `postgres` user when run as root).
"""

from __future__ import annotations

import argparse
import json
import shutil
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
        url, data_dir = args.db_url, None
        if url is None:
            from postgres_server import controlled_server, new_database

            server = controlled_server()
            started = server.__enter__()
            url, data_dir = new_database(started.url, "bench"), started.data
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
                _index_seconds(other, db_url=url, segment_id="other")
            print(f"load: {args.clients} clients for {args.seconds:g} s ...", file=sys.stderr)
            from bench_pg_load import run

            backend = {
                "name": "postgres", "url": url, "tree": str(tree), "other": str(other), "db_path": None,
                "other_db_path": None, "data_dir": data_dir, "seconds": args.seconds,
            }  # fmt: skip
            figures["load"] = run(backend, args.clients)
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
