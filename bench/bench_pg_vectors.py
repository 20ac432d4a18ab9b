"""Nearest vectors of a shared index on a server with pgvector: HNSW, the exact scan on the server, and the
exact search in the searching process (what a server without pgvector gets), on the same vectors.

    python bench/bench_pg_vectors.py                      # 20,000 x 384, clustered, pgserver's PostgreSQL 16
    python bench/bench_pg_vectors.py --n 5000 --dim 64 --random
    python bench/bench_pg_vectors.py --db-url postgresql://u@host/db    # a server of your own with pgvector

The vectors are written through PostgresVectorStore.put in batches of 2,000 (the first write makes the HNSW
index, later ones add to it), then 30 queries are asked each way: latency p50/p95 per query (warm: the
in-process matrix is read once before) and recall@10 against numpy's exact answer. --random draws every
vector independently (no neighbourhoods: the hardest case for HNSW); the default draws them around 200
centres, closer to how embeddings of code cluster. Needs `pip install pgserver` without --db-url.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "tests")]


def _vectors(n: int, dim: int, random: bool, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    if random:
        return rng.normal(size=(n, dim)).astype(np.float32), rng.normal(size=(30, dim)).astype(np.float32)
    centres = rng.normal(size=(200, dim))
    data = centres[rng.integers(0, 200, n)] + 0.35 * rng.normal(size=(n, dim))
    queries = centres[rng.integers(0, 200, 30)] + 0.35 * rng.normal(size=(30, dim))
    return data.astype(np.float32), queries.astype(np.float32)


def measure(url: str, n: int, dim: int, random: bool) -> dict[str, Any]:
    from trifecta.infrastructure.pg_vector_store import PostgresVectorStore
    from trifecta.infrastructure.postgres_store import PostgresIndex

    rng = np.random.default_rng(1)
    data, queries = _vectors(n, dim, random, rng)
    ids = [f"c{i:06d}" for i in range(n)]
    index = PostgresIndex(url, "vectors")
    store = PostgresVectorStore(index)
    figures: dict[str, Any] = {"n": n, "dim": dim, "data": "random" if random else "clustered (200 centres)"}
    try:
        started = time.perf_counter()
        for i in range(0, n, 2000):
            store.put("m", [(ids[j], "s", data[j].tolist()) for j in range(i, min(n, i + 2000))])
        figures["write_s"] = round(time.perf_counter() - started, 1)
        index.run("ANALYZE trifecta_embeddings")
        normed = data / np.linalg.norm(data, axis=1, keepdims=True)
        exact = [{ids[j] for j in np.argsort(-(normed @ (q / np.linalg.norm(q))))[:10]} for q in queries]

        def run(label: str) -> None:
            store.top_k("m", queries[0].tolist(), 10)  # warm (the in-process matrix is read here)
            latencies, recall = [], []
            for q, truth in zip(queries, exact, strict=True):
                started = time.perf_counter()
                found = store.top_k("m", q.tolist(), 10)
                latencies.append((time.perf_counter() - started) * 1000)
                recall.append(len(truth & {c for c, _ in found}) / 10)
            latencies.sort()
            figures[label] = {
                "p50_ms": round(statistics.median(latencies), 1),
                "p95_ms": round(latencies[int(len(latencies) * 0.95)], 1),
                "recall_at_10": round(float(np.mean(recall)), 3),
            }
            print(label, figures[label], file=sys.stderr)

        run("hnsw")
        store._hnsw[dim] = False  # the same store, told the index is not there: the exact scan on the server
        run("exact_on_server")
        store._pgvector = False  # as on a server without pgvector: float4[] read once, numpy here
        run("numpy_in_process")
    finally:
        index.close()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--n", type=int, default=20000)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--random", action="store_true")
    parser.add_argument("--db-url", help="a database on a server with pgvector (default: pgserver's)")
    args = parser.parse_args()
    if args.db_url:
        figures = measure(args.db_url, args.n, args.dim, args.random)
    else:
        import pgserver

        from postgres_server import new_database

        with tempfile.TemporaryDirectory(prefix="trifecta-bench-vectors-") as tmp:
            server = pgserver.get_server(tmp, cleanup_mode="stop")
            try:
                figures = measure(new_database(server.get_uri(), "vectors"), args.n, args.dim, args.random)
            finally:
                server.cleanup()
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
