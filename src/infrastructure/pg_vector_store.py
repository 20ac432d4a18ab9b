"""Chunk vectors of one segment of the shared PostgreSQL index, beside its tables (application.embedding's
VectorStore port, as vector_store.SqliteVectorStore keeps them in the SQLite file).

    trifecta_embeddings(segment_id, chunk_id, text_sha, model, dim, vec float4[])   PRIMARY KEY (segment_id,
                        chunk_id); L2-normalized on write, so cosine similarity is a dot product
    trifecta_embedded_files(segment_id, path, sha256, model, chunk_ids)   ids as JSON
    trifecta_segments.vectors_generation              bumped by every vector write

Where the server has pgvector, the nearest vectors are found there and nothing crosses the network but the
k answers: through an HNSW index per dimension (`trifecta_embeddings_hnsw_<dim>`, on the stored float4[]
cast to `vector(dim)`, cosine distance; made by the first write of vectors of that dimension), which is
approximate and filters the segment and model after its walk, so when it yields fewer than k of them (a
segment that is a small share of a shared table) the segment's vectors are scanned exactly instead.
pgvector's HNSW takes up to 2,000 dimensions; a longer vector is always scanned. Otherwise (FALLBACK_VECTOR) the segment's vectors of the model are read once into a matrix kept in
this process, read again only when vectors_generation moved, and searched with numpy as the SQLite store
does. Connection failures are named as the index's are (IndexUnavailable, the URL without its password).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from ..application.embedding import EmbedderUnavailable, StoredVector, SyncedFile, VectorStore
from .postgres_store import PostgresIndex

_LOOKUP_BATCH = 5000
HNSW_MAX_DIM = 2000  # pgvector's limit for an HNSW index on `vector`
HNSW_EF_SEARCH = 100  # candidates the HNSW walk keeps (pgvector's default 40; at least k is asked)


class PostgresVectorStore(VectorStore):
    def __init__(self, index: PostgresIndex) -> None:
        self._index = index
        self._pgvector: bool | None = None
        self._hnsw: dict[int, bool] = {}  # dimension -> its HNSW index exists
        self._cache_key: tuple[str, int] | None = None  # (model, vectors_generation) of the matrix
        self._cache_count = 0
        self._ids: list[str] = []
        self._matrix = np.zeros((0, 0), dtype=np.float32)

    def _run(self, sql: str, params: Sequence[object] = ()) -> Any:
        return self._index.run(sql, params)

    def close(self) -> None:
        """The connection is the index's, closed with it."""

    # ---------------------------------------------------------------- writing
    def stored(self, chunk_ids: Iterable[str] | None = None) -> dict[str, StoredVector]:
        sid = self._index.segment_key()
        if chunk_ids is None:
            rows = self._run(
                "SELECT chunk_id, text_sha, model FROM trifecta_embeddings WHERE segment_id=%s", (sid,)
            ).fetchall()
        else:
            ids = sorted(set(chunk_ids))
            rows = []
            for start in range(0, len(ids), _LOOKUP_BATCH):
                rows += self._run(
                    "SELECT chunk_id, text_sha, model FROM trifecta_embeddings WHERE segment_id=%s "
                    "AND chunk_id = ANY(%s)",
                    (sid, ids[start : start + _LOOKUP_BATCH]),
                ).fetchall()
        return {r[0]: StoredVector(chunk_id=r[0], text_sha=r[1], model=r[2]) for r in rows}

    def synced_files(self) -> dict[str, SyncedFile]:
        rows = self._run(
            "SELECT path, sha256, model, chunk_ids FROM trifecta_embedded_files WHERE segment_id=%s",
            (self._index.segment_key(),),
        )
        return {
            r[0]: SyncedFile(path=r[0], sha256=r[1], model=r[2], chunk_ids=tuple(json.loads(r[3])))
            for r in rows
        }

    def mark_synced(self, files: Sequence[SyncedFile]) -> None:
        if not files:
            return
        sid = self._index.segment_key()
        with self._index.transaction() as conn, conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO trifecta_embedded_files(segment_id, path, sha256, model, chunk_ids) "
                "VALUES (%s,%s,%s,%s,%s) ON CONFLICT (segment_id, path) DO UPDATE SET sha256=excluded.sha256, "
                "model=excluded.model, chunk_ids=excluded.chunk_ids",
                [(sid, f.path, f.sha256, f.model, json.dumps(list(f.chunk_ids))) for f in files],
            )

    def forget_files(self, paths: Sequence[str]) -> None:
        if paths:
            self._run(
                "DELETE FROM trifecta_embedded_files WHERE segment_id=%s AND path = ANY(%s)",
                (self._index.segment_key(), list(paths)),
            )

    def put(self, model: str, items: Sequence[tuple[str, str, Sequence[float]]]) -> None:
        if not items:
            return
        matrix = np.asarray([vec for _, _, vec in items], dtype=np.float32)
        if matrix.ndim != 2 or matrix.shape[1] == 0:
            raise ValueError(
                f"vectors must be a non-empty list of equal-length rows, got shape {matrix.shape}"
            )
        if not np.all(np.isfinite(matrix)):
            raise ValueError("the embedder returned a vector with NaN or infinite values")
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        matrix = (matrix / np.where(norms == 0, 1.0, norms)).astype(np.float32)
        dim = int(matrix.shape[1])
        sid = self._index.segment_key()
        with self._index.transaction() as conn:
            with conn.cursor() as cur:
                cur.executemany(
                    "INSERT INTO trifecta_embeddings(segment_id, chunk_id, text_sha, model, dim, vec) "
                    "VALUES (%s,%s,%s,%s,%s,%s) ON CONFLICT (segment_id, chunk_id) DO UPDATE SET "
                    "text_sha=excluded.text_sha, model=excluded.model, dim=excluded.dim, vec=excluded.vec",
                    [
                        (sid, cid, sha, model, dim, matrix[i].tolist())
                        for i, (cid, sha, _) in enumerate(items)
                    ],
                )
            conn.execute(_BUMP, (sid,))
        if self._uses_pgvector():
            self._ensure_hnsw(dim)

    def _has_hnsw(self, dim: int) -> bool:
        if dim not in self._hnsw:
            found = self._run("SELECT to_regclass(%s)", (_hnsw_name(dim),)).fetchone()[0]
            self._hnsw[dim] = found is not None
        return self._hnsw[dim]

    def _ensure_hnsw(self, dim: int) -> None:
        """The HNSW index of this dimension, made once for the whole table (every segment and model)."""
        if dim > HNSW_MAX_DIM or self._has_hnsw(dim):
            return
        with self._index.transaction() as conn:
            conn.execute(
                f"CREATE INDEX IF NOT EXISTS {_hnsw_name(dim)} ON trifecta_embeddings USING hnsw "
                f"({_as_vector(dim)} vector_cosine_ops) WHERE dim = {int(dim)}"
            )
        self._hnsw[dim] = True

    def delete(self, chunk_ids: Sequence[str]) -> None:
        if not chunk_ids:
            return
        sid = self._index.segment_key()
        with self._index.transaction() as conn:
            conn.execute(
                "DELETE FROM trifecta_embeddings WHERE segment_id=%s AND chunk_id = ANY(%s)",
                (sid, list(chunk_ids)),
            )
            conn.execute(_BUMP, (sid,))

    # ---------------------------------------------------------------- reading
    def count(self, model: str) -> int:
        if self._uses_pgvector():
            return int(
                self._run(
                    "SELECT count(*) FROM trifecta_embeddings WHERE segment_id=%s AND model=%s",
                    (self._index.segment_key(), model),
                ).fetchone()[0]
            )
        self._load(model)
        return self._cache_count

    def _uses_pgvector(self) -> bool:
        if self._pgvector is None:
            self._pgvector = self._index.has_pgvector()
        return self._pgvector

    def _load(self, model: str) -> None:
        sid = self._index.segment_key()
        row = self._run("SELECT vectors_generation FROM trifecta_segments WHERE id=%s", (sid,)).fetchone()
        key = (model, int(row[0]) if row else -1)
        if self._cache_key == key:
            return
        rows = self._run(
            "SELECT chunk_id, dim, vec FROM trifecta_embeddings WHERE segment_id=%s AND model=%s "
            'ORDER BY chunk_id COLLATE "C"',
            (sid, model),
        ).fetchall()
        self._cache_count = len(rows)
        dims = {int(r[1]) for r in rows}
        if len(dims) > 1:  # one model name with two dimensions: keep the most common, the rest is stale
            dim = max(dims, key=lambda d: sum(1 for r in rows if r[1] == d))
            rows = [r for r in rows if r[1] == dim]
        self._ids = [r[0] for r in rows]
        self._matrix = (
            np.asarray([r[2] for r in rows], dtype=np.float32) if rows else np.zeros((0, 0), dtype=np.float32)
        )
        self._cache_key = key

    def top_k(self, model: str, vector: Sequence[float], k: int) -> list[tuple[str, float]]:
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        norm = float(np.linalg.norm(query))
        if k < 1 or norm == 0.0 or not np.isfinite(norm):
            return []
        if self._uses_pgvector():
            return self._top_k_on_server(model, query / norm, k)
        self._load(model)
        if not self._ids:
            return []
        if query.shape[0] != self._matrix.shape[1]:
            raise _dimension_changed(model, query.shape[0], self._matrix.shape[1])
        scores = np.einsum("ij,j->i", self._matrix, query / norm)
        k = min(k, len(self._ids))
        top = np.argpartition(-scores, k - 1)[:k] if k < len(self._ids) else np.arange(len(self._ids))
        order = top[np.argsort(-scores[top], kind="stable")]
        return [(self._ids[i], float(scores[i])) for i in order]

    def _top_k_on_server(self, model: str, query: Any, k: int) -> list[tuple[str, float]]:
        sid = self._index.segment_key()
        dims = [
            int(r[0])
            for r in self._run(
                "SELECT dim FROM trifecta_embeddings WHERE segment_id=%s AND model=%s GROUP BY dim "
                "ORDER BY count(*) DESC",
                (sid, model),
            )
        ]
        if not dims:
            return []
        if query.shape[0] != dims[0]:
            raise _dimension_changed(model, query.shape[0], dims[0])
        literal = "[" + ",".join(repr(float(x)) for x in query) + "]"
        if self._has_hnsw(dims[0]):
            found = self._top_k_hnsw(sid, model, dims[0], literal, k)
            if found is not None:
                return found
        rows = self._run(
            "SELECT chunk_id, 1 - (vec::vector <=> %s::vector) AS score FROM trifecta_embeddings "
            "WHERE segment_id=%s AND model=%s AND dim=%s ORDER BY vec::vector <=> %s::vector, "
            'chunk_id COLLATE "C" LIMIT %s',
            (literal, sid, model, dims[0], literal, k),
        ).fetchall()
        return [(r[0], float(r[1])) for r in rows]

    def _top_k_hnsw(
        self, sid: int, model: str, dim: int, literal: str, k: int
    ) -> list[tuple[str, float]] | None:
        """The k nearest through the HNSW index (ordered by distance alone, as the index scan needs; ties
        then by chunk id), or None when its walk found fewer than k of this segment and model while the
        segment holds more."""
        vector = _as_vector(dim)
        with self._index.transaction() as conn:
            conn.execute(f"SET LOCAL hnsw.ef_search = {int(min(1000, max(HNSW_EF_SEARCH, k)))}")
            rows = conn.execute(
                f"SELECT chunk_id, 1 - ({vector} <=> %s::vector({int(dim)})) AS score FROM trifecta_embeddings "
                f"WHERE dim = {int(dim)} AND segment_id=%s AND model=%s "
                f"ORDER BY {vector} <=> %s::vector({int(dim)}) LIMIT %s",
                (literal, sid, model, literal, k),
            ).fetchall()
        if len(rows) < k:
            held = self._run(
                "SELECT count(*) FROM trifecta_embeddings WHERE segment_id=%s AND model=%s AND dim=%s",
                (sid, model, dim),
            ).fetchone()[0]
            if held > len(rows):
                return None
        return sorted(((r[0], float(r[1])) for r in rows), key=lambda hit: (-hit[1], hit[0]))


def _hnsw_name(dim: int) -> str:
    return f"trifecta_embeddings_hnsw_{int(dim)}"


def _as_vector(dim: int) -> str:
    """The stored float4[] as pgvector's type, as the HNSW index of that dimension is built on it."""
    return f"(vec::vector({int(dim)}))"


_BUMP = "UPDATE trifecta_segments SET vectors_generation = vectors_generation + 1 WHERE id=%s"


def _dimension_changed(model: str, asked: int, stored: int) -> EmbedderUnavailable:
    return EmbedderUnavailable(
        f"the query vector has {asked} dimensions but the stored vectors of {model} have {stored}: the model "
        "changed under the same name; run `trifecta index --full`"
    )
