"""Callers latency on a PostgreSQL-backed segment, the engine's call graph kept between requests or not.

    python bench/pg_graph_reuse.py --tree /tmp/sec_corpora/realrepo/flask-3.1.3 --n 40 --asks 3

Starts a throw-away PostgreSQL server (tests/postgres_server.py), indexes a copy of the tree into it and
into a SQLite file, then, in this process, for each of: PostgreSQL (the store's data_generation), PostgreSQL
without it (``object()`` at every call: the port's default, what the store answered before), SQLite, opens
an engine, asks ``callers`` for ``--n`` functions (callers_vs_jedi.py's sample) once, then ``--asks`` more
times in rounds over every symbol (so a repeat ask comes after the others, as an agent's next question does),
keeping each symbol's fastest. Reported: p50 and p95 CPU (``time.process_time``) and wall, milliseconds, of
the first ask and of the fastest repeat. Every variant's answers are checked to be the same.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from callers_vs_jedi import copy_tree, pct, pick_symbols, python_uri  # noqa: E402

import trifecta  # noqa: E402
from postgres_server import new_database, running_server  # noqa: E402
from trifecta.infrastructure.postgres_store import PostgresIndex  # noqa: E402


def run(
    engine: Any, uris: list[str], asks: int
) -> tuple[dict[str, tuple[float, float]], dict[str, Any], Any]:
    first: dict[str, tuple[float, float]] = {}
    best: dict[str, tuple[float, float]] = {}
    answers: dict[str, Any] = {}
    for round_ in range(asks + 1):
        for uri in uris:
            c, w = time.process_time(), time.perf_counter()
            response = engine.callers(uri, limit=50)
            took = (time.process_time() - c, time.perf_counter() - w)
            if round_ == 0:
                first[uri] = took
            else:
                old = best.get(uri, (float("inf"), float("inf")))
                best[uri] = (min(old[0], took[0]), min(old[1], took[1]))
            answers[uri] = response.to_dict()["data"]
    return first, best, answers


def line(name: str, first: dict[str, tuple[float, float]], best: dict[str, tuple[float, float]]) -> str:
    def ms(values: dict[str, tuple[float, float]], i: int, q: float) -> str:
        return f"{pct([v[i] for v in values.values()], q) * 1000:7.2f}"

    return (
        f"{name:<28} first cpu p50 {ms(first, 0, 0.5)} p95 {ms(first, 0, 0.95)} wall p50 {ms(first, 1, 0.5)} | "
        f"repeat cpu p50 {ms(best, 0, 0.5)} p95 {ms(best, 0, 0.95)} wall p50 {ms(best, 1, 0.5)}"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", required=True)
    ap.add_argument("--n", type=int, default=40)
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--asks", type=int, default=3)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="pg-graph-"))
    try:
        tree = work / "tree"
        copy_tree(Path(args.tree), tree)
        with running_server() as server:
            url = new_database(server, "bench")
            opened = {
                "postgres": lambda: trifecta.open(tree, db_url=url, segment_id="bench", telemetry=False),
                "sqlite": lambda: trifecta.open(tree, db_path=str(work / "index.db"), telemetry=False),
            }
            for opener in opened.values():
                with opener() as engine:
                    engine.index()
            with opened["sqlite"]() as engine:
                picked, _, rules = pick_symbols(engine, args.n, args.seed)
                uris = list(dict.fromkeys(python_uri(rules, path, symbol) for path, symbol in picked))
            results = {}
            kept = PostgresIndex.data_generation
            for name, backend, generation in (
                ("postgres (data_generation)", "postgres", kept),
                ("postgres (a new value each)", "postgres", lambda self: object()),
                ("sqlite", "sqlite", None),
            ):
                PostgresIndex.data_generation = generation or kept  # type: ignore[method-assign]
                try:
                    with opened[backend]() as engine:
                        first, best, answers = run(engine, uris, args.asks)
                finally:
                    PostgresIndex.data_generation = kept  # type: ignore[method-assign]
                results[name] = answers
                print(line(name, first, best), flush=True)
            reference = next(iter(results.values()))
            same = all(answers == reference for answers in results.values())
            print(f"{len(uris)} symbols; answers the same in every variant: {same}")
            return 0 if same else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
