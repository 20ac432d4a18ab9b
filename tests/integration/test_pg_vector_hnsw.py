"""Vectors in a shared index on a server that has pgvector: PostgreSQL 16 with pgvector from the `pgserver`
wheel, started here (skipped with the reason when the wheel is missing or cannot start a server). The
VectorStore contract, the HNSW index made by the first write and used by the search, its answers against an
exact search, the exact scan a small segment falls back to, and an embedder's vectors searched end to end."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import psycopg
import pytest

sys.path[:0] = [str(Path(__file__).parents[1]), str(Path(__file__).parents[1] / "unit")]
from test_embedding import check_vector_store_contract  # noqa: E402
from test_semantic import REPO, EmbeddingServer  # noqa: E402

import trifecta  # noqa: E402
from postgres_server import new_database  # noqa: E402
from trifecta.infrastructure.pg_vector_store import PostgresVectorStore  # noqa: E402
from trifecta.infrastructure.postgres_store import FALLBACK_TRGM, FALLBACK_VECTOR, PostgresIndex  # noqa: E402

pgserver = pytest.importorskip(
    "pgserver",
    reason="the pgserver wheel (PostgreSQL 16 with pgvector) is not installed: pip install pgserver",
)
pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    try:
        server = pgserver.get_server(tmp_path_factory.mktemp("pgserver"), cleanup_mode="stop")
    except Exception as exc:  # pgserver refuses some environments; the reason is the test's answer
        pytest.skip(f"pgserver could not start a server here: {exc}")
    try:
        with psycopg.connect(server.get_uri(), autocommit=True) as conn:
            if conn.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'").fetchone() is None:
                pytest.skip("this pgserver build has no pgvector")
        yield server.get_uri()
    finally:
        server.cleanup()


_counter = iter(range(1000))


@pytest.fixture
def url(server_url: str) -> str:
    return new_database(server_url, f"hnsw{next(_counter)}")


def test_the_vector_store_meets_the_contract_with_pgvector(url: str) -> None:
    index = PostgresIndex(url, "a")
    try:
        assert index.has_pgvector() and FALLBACK_VECTOR not in index.fallbacks
        assert FALLBACK_TRGM in index.fallbacks  # pgserver has no pg_trgm: said, and substring look-ups scan
        check_vector_store_contract(PostgresVectorStore(index))
    finally:
        index.close()


def _exact(matrix: np.ndarray, ids: list[str], query: np.ndarray, k: int) -> list[str]:
    scores = (matrix / np.linalg.norm(matrix, axis=1, keepdims=True)) @ (query / np.linalg.norm(query))
    return [ids[i] for i in np.argsort(-scores, kind="stable")[:k]]


def test_nearest_vectors_come_from_the_hnsw_index(url: str) -> None:
    rng = np.random.default_rng(7)
    big, small = rng.normal(size=(1500, 64)).astype(np.float32), rng.normal(size=(4, 64)).astype(np.float32)
    big_ids, small_ids = [f"big{i:04d}" for i in range(len(big))], [f"small{i}" for i in range(len(small))]
    index, other = PostgresIndex(url, "big"), PostgresIndex(url, "small")
    try:
        store, small_store = PostgresVectorStore(index), PostgresVectorStore(other)
        store.put("m", [(cid, "s", vec.tolist()) for cid, vec in zip(big_ids, big, strict=True)])
        small_store.put("m", [(cid, "s", vec.tolist()) for cid, vec in zip(small_ids, small, strict=True)])
        query = rng.normal(size=64).astype(np.float32)
        index.run("ANALYZE trifecta_embeddings")
        plan = "\n".join(
            r[0]
            for r in index.run(
                "EXPLAIN SELECT chunk_id FROM trifecta_embeddings WHERE dim = 64 AND segment_id=%s AND model='m' "
                "ORDER BY (vec::vector(64)) <=> %s::vector(64) LIMIT 10",
                (index.segment_key(), "[" + ",".join(map(str, query.tolist())) + "]"),
            )
        )
        assert "trifecta_embeddings_hnsw_64" in plan
        # a stored vector finds itself first; HNSW is approximate, so the rest is compared by recall
        assert store.top_k("m", big[123].tolist(), 10)[0] == ("big0123", pytest.approx(1.0, abs=1e-5))
        recall = []
        for q in rng.normal(size=(20, 64)).astype(np.float32):
            found = [cid for cid, _ in store.top_k("m", q.tolist(), 10)]
            assert len(found) == 10
            recall.append(len(set(found) & set(_exact(big, big_ids, q, 10))) / 10)
        assert np.mean(recall) >= 0.9
        # four vectors among 1,504: the index's walk misses them, the exact scan answers
        assert [cid for cid, _ in small_store.top_k("m", query.tolist(), 3)] == _exact(
            small, small_ids, query, 3
        )
    finally:
        index.close()
        other.close()


def test_semantic_search_through_pgvector(url: str, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    for rel, text in REPO.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    server = EmbeddingServer()
    options = {"embed_provider": "openai", "embed_api_url": server.url, "embed_model": "bow", "workers": 1}
    try:
        with trifecta.open(repo, db_url=url, **options) as engine:
            assert engine.index().embeddings.complete
            response = engine.search("open socket host port", mode="semantic").to_dict()
            assert response["data"]["plan"]["semantic"]["status"] == "used"
            assert response["data"]["hits"][0]["symbol"] == "open_socket"
    finally:
        server.close()
