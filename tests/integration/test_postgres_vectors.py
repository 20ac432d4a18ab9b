"""Vectors in the shared PostgreSQL index: the VectorStore contract on a real server (float4[], compared in
this process: Debian's server has no pgvector), commits of another process seen, and an embedder's vectors
written to the server by `index` and used by semantic search, with the local /v1/embeddings stand-in of
test_semantic (nothing downloads)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path[:0] = [str(Path(__file__).parents[1]), str(Path(__file__).parents[1] / "unit")]
from test_embedding import check_vector_store_contract  # noqa: E402
from test_semantic import DIM, REPO, EmbeddingServer  # noqa: E402

import trifecta  # noqa: E402
from postgres_server import bindir, new_database, running_server  # noqa: E402
from trifecta.infrastructure.pg_vector_store import PostgresVectorStore  # noqa: E402
from trifecta.infrastructure.postgres_store import FALLBACK_VECTOR, PostgresIndex  # noqa: E402

pytestmark = [
    pytest.mark.timeout(120),
    pytest.mark.skipif(bindir() is None, reason="PostgreSQL is not installed (scripts/test installs it)"),
]


@pytest.fixture(scope="module")
def pg_server() -> Iterator[str]:
    with running_server() as url:
        yield url


_counter = iter(range(10_000))


@pytest.fixture
def pg_url(pg_server: str) -> str:
    return new_database(pg_server, f"v{next(_counter)}")


def test_the_vector_store_meets_the_contract_without_pgvector(pg_url: str) -> None:
    index = PostgresIndex(pg_url, "a")
    try:
        assert not index.has_pgvector() and FALLBACK_VECTOR in index.fallbacks
        check_vector_store_contract(PostgresVectorStore(index))
        other = PostgresIndex(pg_url, "b")  # another segment sees none of them
        try:
            assert PostgresVectorStore(other).stored() == {} and PostgresVectorStore(other).count("m") == 0
        finally:
            other.close()
    finally:
        index.close()


def test_a_reader_sees_vectors_another_process_wrote(pg_url: str) -> None:
    first, second = PostgresIndex(pg_url, "a"), PostgresIndex(pg_url, "a")
    try:
        reader, writer = PostgresVectorStore(first), PostgresVectorStore(second)
        writer.put("m", [("a", "s", [1.0, 0.0])])
        assert [c for c, _ in reader.top_k("m", [1.0, 0.0], 5)] == ["a"]  # cached from here on
        writer.put("m", [("b", "s", [0.0, 1.0])])
        assert [c for c, _ in reader.top_k("m", [0.0, 1.0], 5)] == ["b", "a"]  # the cache was dropped
        writer.delete(["b"])
        assert reader.count("m") == 1
    finally:
        first.close()
        second.close()


def test_an_embedders_vectors_live_in_the_server(pg_url: str, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    for rel, text in REPO.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    server = EmbeddingServer()
    options = {"embed_provider": "openai", "embed_api_url": server.url, "embed_model": "bow", "workers": 1}
    try:
        with trifecta.open(repo, db_url=pg_url, **options) as engine:
            report = engine.index().embeddings
            assert report is not None and report.complete and report.embedded == report.chunks >= 3
            first = len(server.texts)
            assert engine.index().embeddings.embedded == 0 and len(server.texts) == first  # kept in step
            response = engine.search("open socket host port", mode="semantic").to_dict()
            assert response["data"]["plan"]["semantic"]["status"] == "used"
            assert response["data"]["hits"][0]["symbol"] == "open_socket"
        index = PostgresIndex(pg_url, "repo")
        try:
            rows = index.run("SELECT model, dim, cardinality(vec) FROM trifecta_embeddings").fetchall()
            assert len(rows) == report.chunks and set(rows) == {("openai:bow", DIM, DIM)}
        finally:
            index.close()
        assert not (repo / ".trifecta" / "index.db").exists()  # nothing in a local SQLite file
    finally:
        server.close()
