"""RewriteCache in the index database file itself, so a repeated question costs no model call.

    rewrite_cache(query, model, vocabulary_version, terms JSON, focus, created_at)
        PRIMARY KEY (query, model, vocabulary_version)

The table lives beside the index tables but belongs to this adapter: it opens its own connection to the same
file and creates the table if it is missing, so the index schema (and its version) stays the store's. When
the store rebuilds the file (a schema change, a damaged file) the cache goes with it, which is right: the
vocabulary version changes then anyway. The connection is reopened when the file is replaced. Writes wait at
most ``BUSY_TIMEOUT`` for an indexer holding the write lock; the caller treats any error as a miss.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import time
from pathlib import Path

from ..application.rewrite import RewriteCache, RewriteKey
from ..domain.rewrite_policy import RewrittenQuery, parse_focus
from .sqlite_store import connect, writable

MAX_ROWS = 5000
BUSY_TIMEOUT = 0.5

_SCHEMA = """
CREATE TABLE IF NOT EXISTS rewrite_cache(
    query TEXT NOT NULL, model TEXT NOT NULL, vocabulary_version TEXT NOT NULL,
    terms TEXT NOT NULL, focus TEXT NOT NULL, created_at REAL NOT NULL,
    PRIMARY KEY (query, model, vocabulary_version));
"""


class SqliteRewriteCache(RewriteCache):
    def __init__(self, db_path: str | os.PathLike[str], *, max_rows: int = MAX_ROWS) -> None:
        self.path = Path(db_path)
        self.max_rows = max_rows
        self._conn: sqlite3.Connection | None = None
        self._identity: tuple[int, int] | None = None

    def _connection(self) -> sqlite3.Connection:
        """The open connection, reopened when the database file was replaced (or first used)."""
        st = os.stat(self.path)  # FileNotFoundError when there is no index yet: a miss for the caller
        identity = (st.st_dev, st.st_ino)
        if self._conn is None or identity != self._identity:
            self.close()
            if self.path.is_symlink():  # the store refuses it too: never write through a link
                raise FileNotFoundError(f"{self.path} is a symbolic link")
            read_only = not writable(self.path)
            conn = connect(self.path, read_only=read_only, timeout=BUSY_TIMEOUT)
            try:
                if (
                    not read_only
                    and not conn.execute(
                        "SELECT 1 FROM sqlite_master WHERE type='table' AND name='rewrite_cache'"
                    ).fetchone()
                ):  # opening writes only when the table is missing
                    conn.executescript(f"BEGIN IMMEDIATE;\n{_SCHEMA}\nCOMMIT;")
            except BaseException:
                conn.close()
                raise
            self._conn, self._identity = conn, identity
        return self._conn

    def get(self, key: RewriteKey) -> RewrittenQuery | None:
        row = (
            self._connection()
            .execute(
                "SELECT terms, focus FROM rewrite_cache WHERE query = ? AND model = ? AND vocabulary_version = ?",
                (key.query, key.model, key.vocabulary_version),
            )
            .fetchone()
        )
        if row is None:
            return None
        try:
            terms = json.loads(row[0])
        except ValueError:
            return None
        if not isinstance(terms, list) or not terms or not all(isinstance(t, str) and t for t in terms):
            return None  # a row this version did not write: ask the model again
        return RewrittenQuery(terms=tuple(terms), focus=parse_focus(row[1]))

    def put(self, key: RewriteKey, rewrite: RewrittenQuery) -> None:
        conn = self._connection()
        conn.execute(
            "INSERT OR REPLACE INTO rewrite_cache(query, model, vocabulary_version, terms, focus, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (
                key.query,
                key.model,
                key.vocabulary_version,
                json.dumps(list(rewrite.terms), ensure_ascii=False),
                rewrite.focus.value,
                time.time(),
            ),
        )
        # keep the newest rows only; the table is a cache, not a log
        conn.execute(
            "DELETE FROM rewrite_cache WHERE rowid IN "
            "(SELECT rowid FROM rewrite_cache ORDER BY created_at DESC LIMIT -1 OFFSET ?)",
            (self.max_rows,),
        )

    def close(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(Exception):
                self._conn.close()
            self._conn, self._identity = None, None
