"""Chunk vectors in the index's own SQLite file, searched with numpy.

    embeddings(chunk_id TEXT PRIMARY KEY, text_sha TEXT, model TEXT, dim INTEGER, vec BLOB)
    embedded_files(path TEXT PRIMARY KEY, sha256 TEXT, model TEXT, chunk_ids TEXT)   -- ids as JSON
    embeddings_version(id = 1, n INTEGER)                                           -- bumped by each write

`vec` is little-endian float32, L2-normalized on write, so cosine similarity is one matrix-vector product.
The interpreter's sqlite3 cannot load extensions (FACTS.md "SQLite"), so no vector extension is used: the
vectors of the model asked for are read once into a matrix kept in memory, and read again only when the
table changed: every write bumps `embeddings_version(n)` in the same transaction, one cheap read per search
(`PRAGMA data_version` would also move on every commit of the index tables). 20k x 384 top-10: about 10 ms.

The table lives beside the index tables but is opened through its own connection, so the index store knows
nothing of it; the tables are created (in a write transaction) when missing, so they appear in an existing
index without a schema bump, and opening never writes otherwise. The connection follows the file: when the
store sets a damaged file aside and starts a new one, the next call opens the new one. Read-only when the
index cannot be written.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import numpy as np

from ..application.embedding import EmbedderUnavailable, StoredVector, SyncedFile, VectorStore
from .sqlite_store import connect, file_identity, translated, writable

_SCHEMA = """
CREATE TABLE IF NOT EXISTS embeddings(
    chunk_id TEXT PRIMARY KEY, text_sha TEXT NOT NULL, model TEXT NOT NULL, dim INTEGER NOT NULL,
    vec BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS embeddings_model ON embeddings(model);
CREATE TABLE IF NOT EXISTS embedded_files(
    path TEXT PRIMARY KEY, sha256 TEXT NOT NULL, model TEXT NOT NULL, chunk_ids TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS embeddings_version(id INTEGER PRIMARY KEY CHECK (id = 1), n INTEGER NOT NULL);
INSERT OR IGNORE INTO embeddings_version(id, n) VALUES (1, 0);
"""
_BUMP = "UPDATE embeddings_version SET n = n + 1 WHERE id = 1"
_DELETE_BATCH = 500
_LOOKUP_BATCH = 500


class SqliteVectorStore(VectorStore):
    def __init__(self, db_path: str | os.PathLike[str]) -> None:
        self.path = Path(db_path)
        self._connection: sqlite3.Connection | None = None
        self._identity: tuple[int, int] | None = None
        # the in-memory matrix of one model, and the embeddings_version it was read at
        self._cache_model: str | None = None
        self._cache_version = -1
        self._cache_count = 0  # rows of the model, before dropping any of a stale dimension
        self._ids: list[str] = []
        self._matrix = np.zeros((0, 0), dtype=np.float32)

    @property
    def _conn(self) -> sqlite3.Connection:
        """The open connection, (re)opened when the file at the path is not the one it opened."""
        identity = file_identity(self.path)
        if self._connection is None or identity != self._identity:
            self.close()
            self._invalidate()
            self._cache_version = -1
            try:
                self._connection = self._open()
            except sqlite3.DatabaseError as exc:
                raise translated(exc, self.path) from exc
            self._identity = file_identity(self.path)
        return self._connection

    def _open(self) -> sqlite3.Connection:
        read_only = not writable(self.path)
        conn = connect(self.path, read_only=read_only)
        try:
            missing = not conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type='table' AND name='embeddings_version'"
            ).fetchone()
            if missing and read_only:
                conn.close()  # an in-memory stand-in: no vectors, nothing to write
                conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
            if missing:
                conn.executescript(f"BEGIN IMMEDIATE;\n{_SCHEMA}\nCOMMIT;")
        except BaseException:
            conn.close()
            raise
        return conn

    def close(self) -> None:
        if self._connection is not None:
            with contextlib.suppress(Exception):
                self._connection.close()
            self._connection = None

    def _invalidate(self) -> None:
        self._cache_model = None

    # ---------------------------------------------------------------- writing
    def stored(self, chunk_ids: Iterable[str] | None = None) -> dict[str, StoredVector]:
        wanted = None if chunk_ids is None else set(chunk_ids)
        if wanted is not None and len(wanted) <= _LOOKUP_BATCH * 10:
            out: dict[str, StoredVector] = {}
            ids = sorted(wanted)
            for start in range(0, len(ids), _LOOKUP_BATCH):
                part = ids[start : start + _LOOKUP_BATCH]
                rows = self._conn.execute(
                    "SELECT chunk_id, text_sha, model FROM embeddings "
                    f"WHERE chunk_id IN ({','.join('?' * len(part))})",
                    part,
                )
                out.update({r[0]: StoredVector(chunk_id=r[0], text_sha=r[1], model=r[2]) for r in rows})
            return out
        return {  # all of them: one scan beats thousands of look-ups
            r[0]: StoredVector(chunk_id=r[0], text_sha=r[1], model=r[2])
            for r in self._conn.execute("SELECT chunk_id, text_sha, model FROM embeddings")
            if wanted is None or r[0] in wanted
        }

    def synced_files(self) -> dict[str, SyncedFile]:
        return {
            r[0]: SyncedFile(path=r[0], sha256=r[1], model=r[2], chunk_ids=tuple(json.loads(r[3])))
            for r in self._conn.execute("SELECT path, sha256, model, chunk_ids FROM embedded_files")
        }

    def mark_synced(self, files: Sequence[SyncedFile]) -> None:
        self._conn.executemany(
            "INSERT OR REPLACE INTO embedded_files(path, sha256, model, chunk_ids) VALUES (?,?,?,?)",
            [(f.path, f.sha256, f.model, json.dumps(list(f.chunk_ids))) for f in files],
        )

    def forget_files(self, paths: Sequence[str]) -> None:
        self._conn.executemany("DELETE FROM embedded_files WHERE path=?", [(p,) for p in paths])

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
        matrix = (matrix / np.where(norms == 0, 1.0, norms)).astype("<f4")
        dim = int(matrix.shape[1])
        rows = [(cid, sha, model, dim, matrix[i].tobytes()) for i, (cid, sha, _) in enumerate(items)]
        with self._writing() as c:
            c.executemany(
                "INSERT OR REPLACE INTO embeddings(chunk_id, text_sha, model, dim, vec) VALUES (?,?,?,?,?)",
                rows,
            )

    def delete(self, chunk_ids: Sequence[str]) -> None:
        if not chunk_ids:
            return
        with self._writing() as c:
            for start in range(0, len(chunk_ids), _DELETE_BATCH):
                part = list(chunk_ids[start : start + _DELETE_BATCH])
                c.execute(f"DELETE FROM embeddings WHERE chunk_id IN ({','.join('?' * len(part))})", part)

    @contextlib.contextmanager
    def _writing(self) -> Iterator[sqlite3.Connection]:
        """One write transaction that bumps the table's version: committed whole, or rolled back (when SQLite
        has not already) with a storage failure named (IndexUnwritable); cached vectors are dropped either way."""
        c = self._conn
        c.execute("BEGIN IMMEDIATE")
        try:
            yield c
            c.execute(_BUMP)
            c.execute("COMMIT")
        except BaseException as exc:
            if c.in_transaction:  # SQLite has already rolled back after some failures (a full disk)
                with contextlib.suppress(sqlite3.Error):
                    c.execute("ROLLBACK")
            if isinstance(exc, sqlite3.DatabaseError):
                raise translated(exc, self.path) from exc
            raise
        self._invalidate()

    # ---------------------------------------------------------------- reading
    def count(self, model: str) -> int:
        """From the cached matrix when it is current: a search asks this twice and must stay cheap."""
        self._load(model)
        return self._cache_count

    def _load(self, model: str) -> None:
        version = int(self._conn.execute("SELECT n FROM embeddings_version WHERE id = 1").fetchone()[0])
        if self._cache_model == model and self._cache_version == version:
            return
        rows = self._conn.execute(
            "SELECT chunk_id, dim, vec FROM embeddings WHERE model=? ORDER BY chunk_id", (model,)
        ).fetchall()
        self._cache_count = len(rows)
        dims = {int(r[1]) for r in rows}
        if len(dims) > 1:  # one model name with two dimensions: keep the most common, the rest is stale
            dim = max(dims, key=lambda d: sum(1 for r in rows if r[1] == d))
            rows = [r for r in rows if r[1] == dim]
        if rows:
            self._matrix = np.frombuffer(b"".join(r[2] for r in rows), dtype="<f4").reshape(len(rows), -1)
        else:
            self._matrix = np.zeros((0, 0), dtype=np.float32)
        self._ids = [r[0] for r in rows]
        self._cache_model = model
        self._cache_version = version

    def top_k(self, model: str, vector: Sequence[float], k: int) -> list[tuple[str, float]]:
        self._load(model)
        if not self._ids or k < 1:
            return []
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        if query.shape[0] != self._matrix.shape[1]:
            raise EmbedderUnavailable(
                f"the query vector has {query.shape[0]} dimensions but the stored vectors of {model} have "
                f"{self._matrix.shape[1]}: the model changed under the same name; run `trifecta index --full`"
            )
        norm = float(np.linalg.norm(query))
        if norm == 0.0 or not np.isfinite(norm):
            return []
        # einsum's own loop, not BLAS: gemv is memory-bound anyway, and waking BLAS threads on a busy
        # 2-core machine cost 1-12 ms per query where this takes 0.1 ms (2k x 256) to 8 ms (70k x 384)
        scores = np.einsum("ij,j->i", self._matrix, query / norm)
        k = min(k, len(self._ids))
        top = np.argpartition(-scores, k - 1)[:k] if k < len(self._ids) else np.arange(len(self._ids))
        order = top[np.argsort(-scores[top], kind="stable")]
        return [(self._ids[i], float(scores[i])) for i in order]
