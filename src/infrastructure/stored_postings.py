"""Stored postings: for each common word of a segment, the chunks that hold it with what FTS5's bm25 needs of
each (the weighted count of the word in the chunk and the chunk's length in tokens), written by the index run
so that a search reads a word's scores instead of having FTS5 rank every chunk that holds it (~1 us a chunk:
"column" in sqlalchemy's 11,398 chunks cost 10.5 ms, paid again by every new process).

Tables (made when first needed, so an older index reads as "none stored" and gets them on its next run):

    posting_terms(term PRIMARY KEY)                 the stored words, as FTS5 stores them (stemmed)
    postings(term, file_id, data)                   a word's chunks in one file: packed (rowid, freq, length)
    meta 'postings' = 'ready', 'postings_chunks'    complete for every stored word / chunks when chosen
    meta 'postings_stamp'                           the chunks they were written for (see stamp)

What is stored does not depend on the rest of the segment: the score is computed when read, from the
segment's row count and average length (FTS5's own totals) and the word's chunk count, with FTS5's formula
and order of operations, so it is bit for bit the score FTS5 gives (the tests compare them). Each batch that
changes files rewrites their rows in its own transaction (the changed chunks tokenized by an in-memory FTS5
table with the same tokenizer), so the stored postings are never out of step with the index; a batch larger
than MAINTAIN_MAX_CHUNKS drops them instead, and the run's end stores them again.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from typing import Any

# A word in fewer chunks is ranked by FTS5 when searched: at most ~0.5 ms. Each stored chunk costs ~1.5 us of
# index time and 16 bytes (sqlalchemy: 687 words, 1.2M chunks, 20 MB, 2.2 s at 500; 271, 15 MB, 1.4 s at 1500).
MIN_CHUNKS = 500
# A word in more than this share of the chunks is left out of any-word searches (sqlite_store.search_terms),
# so storing it would cost index time for nothing.
MAX_SHARE = 0.25
# A segment with fewer chunks stores no word: FTS5 ranks any word it would store (at most MAX_SHARE of them, 2,000)
# in ~2 ms, and building them there costs more than it saves (ts-rxjs, 2.5k chunks: +124 ms per full index,
# most of it importing numpy).
MIN_SEGMENT_CHUNKS = 8000
MAINTAIN_MAX_CHUNKS = 5000  # a batch writing more chunks drops the stored postings; the run's end rebuilds
REBUILD_GROWTH = 0.25  # the run's end chooses the words again when the chunk count moved this much since
K1, B = 1.2, 0.75  # FTS5's bm25 constants
# packed (rowid int32, freq float64, length int32): 16 bytes. numpy is imported when first needed (a CLI
# call that never ranks a common word skips it: ~60 ms)
POSTING_FIELDS = [("rowid", "<i4"), ("freq", "<f8"), ("length", "<i4")]


def posting_dtype() -> Any:
    import numpy as np

    return np.dtype(POSTING_FIELDS)


TABLES = """
CREATE TABLE IF NOT EXISTS posting_terms(term TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS postings(
    term TEXT NOT NULL, file_id INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (term, file_id)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS postings_file ON postings(file_id);
"""


def varints(blob: bytes) -> list[int]:
    """SQLite's varints (FTS5's sizes and totals records)."""
    out: list[int] = []
    i, n = 0, len(blob)
    while i < n:
        value = 0
        for k in range(9):
            byte = blob[i]
            i += 1
            if k == 8:
                value = (value << 8) | byte
                break
            value = (value << 7) | (byte & 0x7F)
            if byte < 0x80:
                break
        out.append(value)
    return out


def totals(conn: sqlite3.Connection, table: str) -> tuple[int, int]:
    """FTS5's row count and token count (all columns): what its bm25 takes the average length from."""
    row = conn.execute(f"SELECT block FROM {table}_data WHERE id = 1").fetchone()
    if row is None:
        return 0, 0
    values = varints(row[0])
    return values[0], sum(values[1:])


def lengths(conn: sqlite3.Connection, table: str, rowids: Sequence[int] | None = None) -> dict[int, int]:
    """Each chunk's length in tokens, all columns (FTS5's docsize records)."""
    if rowids is None:
        rows: Iterable[tuple[int, bytes]] = conn.execute(f"SELECT id, sz FROM {table}_docsize")
    else:
        rows = []
        for start in range(0, len(rowids), 500):
            batch = list(rowids[start : start + 500])
            rows += conn.execute(
                f"SELECT id, sz FROM {table}_docsize WHERE id IN ({','.join('?' * len(batch))})", batch
            ).fetchall()
    out = {}
    for rowid, size in rows:
        # one byte a column below 128 tokens: the common case, without the decoder
        out[rowid] = sum(size) if max(size, default=0) < 0x80 else sum(varints(size))
    return out


def frequencies(counts: Any, weights: Sequence[float]) -> Any:
    """FTS5's weighted count of a phrase in each row from its per-column counts (rows x columns): the weight
    of each instance added one at a time, column by column, as its bm25 does (2 + 0.8 + 0.8 + 0.8 + 0.8 + 0.8
    is not 2 + 5 * 0.8): a multiplication while every weight so far is a whole number, where both are exact."""
    import numpy as np

    freq = np.zeros(counts.shape[0], dtype=np.float64)
    whole = True
    for col, weight in enumerate(weights):
        n = counts[:, col]
        whole = whole and float(weight).is_integer()
        if whole:
            freq += weight * n
            continue
        left = n.copy()
        while (more := left > 0).any():
            freq[more] += weight
            left[more] -= 1
    return freq


def scores(found: Any, n_rows: int, n_tokens: int) -> Any:
    """FTS5's bm25 of one phrase over its stored postings, in its order of operations."""
    import numpy as np

    n_hit = len(found)
    idf = math.log((n_rows - n_hit + 0.5) / (n_hit + 0.5))
    if idf <= 0.0:
        idf = 1e-6
    avgdl = float(n_tokens) / float(n_rows)
    freq = found["freq"]
    num = freq * (K1 + 1.0)
    denom = freq + K1 * ((1 - B) + (B * found["length"].astype(np.float64)) / avgdl)
    return idf * (num / denom)


def state(conn: sqlite3.Connection) -> str:
    row = conn.execute("SELECT value FROM meta WHERE key = 'postings'").fetchone()
    return row[0] if row else ""


def stamp(conn: sqlite3.Connection) -> str:
    """What the chunks are, as far as the postings go: their count and highest rowid (a changed file's
    chunks get new rowids). Written with the postings: a trifecta that predates them and changed the index
    leaves another stamp, and they are not read (nor kept) until the next run stores them again."""
    n, top = conn.execute("SELECT count(*), coalesce(max(rowid), 0) FROM chunks").fetchone()
    return f"{n}:{top}"


def usable(conn: sqlite3.Connection) -> bool:
    if state(conn) != "ready":
        return False
    row = conn.execute("SELECT value FROM meta WHERE key = 'postings_stamp'").fetchone()
    return row is not None and row[0] == stamp(conn)


def _stamped(conn: sqlite3.Connection) -> None:
    conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('postings_stamp', ?)", (stamp(conn),))


def stored_terms(conn: sqlite3.Connection) -> frozenset[str]:
    """The words whose postings are stored and complete; none in an index that has no such table yet."""
    if not usable(conn):
        return frozenset()
    return frozenset(r[0] for r in conn.execute("SELECT term FROM posting_terms"))


def read(conn: sqlite3.Connection, term: str) -> Any:
    import numpy as np

    blobs = [r[0] for r in conn.execute("SELECT data FROM postings WHERE term = ?", (term,))]
    return np.frombuffer(b"".join(blobs), dtype=posting_dtype())


def _pack(conn: sqlite3.Connection, term: str, records: Any, files: Any) -> None:
    """Write one word's postings, one row per file."""
    import numpy as np

    order = np.argsort(files, kind="stable")
    records, files = records[order], files[order]
    cuts = np.flatnonzero(np.diff(files)) + 1
    starts = np.concatenate(([0], cuts))
    ends = np.concatenate((cuts, [len(files)]))
    conn.executemany(
        "INSERT INTO postings(term, file_id, data) VALUES (?, ?, ?)",
        [(term, int(files[s]), records[s:e].tobytes()) for s, e in zip(starts, ends, strict=True)],
    )


def drop(conn: sqlite3.Connection) -> None:
    """Forget every stored posting (a batch too large to follow): searches rank with FTS5 until rebuilt."""
    if state(conn):
        conn.execute("DELETE FROM postings")
        conn.execute("DELETE FROM posting_terms")
        conn.execute("UPDATE meta SET value = 'stale' WHERE key = 'postings'")


def needs_build(conn: sqlite3.Connection, n_chunks: int) -> bool:
    if not usable(conn):
        return True
    row = conn.execute("SELECT value FROM meta WHERE key = 'postings_chunks'").fetchone()
    chosen = int(row[0]) if row else 0
    return abs(n_chunks - chosen) > REBUILD_GROWTH * max(chosen, MIN_CHUNKS)


def build(
    conn: sqlite3.Connection,
    table: str,
    weights: Sequence[float],
    rank: str,
    tokenizer: Tokenizer,
    paths: Sequence[tuple[int, str]],
) -> None:
    """Choose the common words and store their postings, inside the caller's transaction. Each word's chunks
    and scores come from FTS5 (`rank`: its bm25 with these column `weights`); the weighted count is solved
    back from the score and the chunk's length, then made exact: every weight but the last (the path
    column's) is a whole number, and a word's count in the path column is the same in every chunk of a file
    (`paths`: each file's id and path column), so the count is a whole part plus k path weights added one by
    one. A word is stored only when the scores recomputed from what is stored equal FTS5's bit for bit."""
    for statement in TABLES.split(";"):  # not executescript: it would commit the caller's transaction
        if statement.strip():
            conn.execute(statement)
    conn.execute("DELETE FROM postings")
    conn.execute("DELETE FROM posting_terms")
    n_chunks = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    path_weight = Fraction(weights[-1]).limit_denominator(1000)
    regular = all(float(w).is_integer() for w in weights[:-1]) and float(path_weight) == weights[-1]
    terms: list[str] = []
    if n_chunks >= max(MIN_CHUNKS, MIN_SEGMENT_CHUNKS) and regular:
        conn.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{table}_vrow USING fts5vocab(main, {table}, row)"
        )
        sql = f"SELECT term FROM temp.{table}_vrow WHERE doc >= ? AND doc <= ?"
        found = [r[0] for r in conn.execute(sql, (MIN_CHUNKS, int(MAX_SHARE * n_chunks)))]
        asked = _spellings(found, tokenizer)
        terms = [t for t in found if t in asked]
    stored: list[str] = []
    if terms:
        import numpy as np

        ids = np.array(conn.execute("SELECT rowid, file_id FROM chunks").fetchall(), dtype=np.int64)
        size = int(ids[:, 0].max()) + 1
        file_of = np.zeros(size, dtype=np.int64)
        file_of[ids[:, 0]] = ids[:, 1]
        length_of = np.zeros(size, dtype=np.int64)
        for rowid, n in lengths(conn, table).items():
            if rowid < size:
                length_of[rowid] = n
        in_path: dict[str, list[tuple[int, int]]] = {}
        blank = ("",) * (len(weights) - 1)
        for term, file_id, _, n in tokenizer.counts([(f, (*blank, words)) for f, words in paths]):
            in_path.setdefault(term, []).append((file_id, n))
        n_rows, n_tokens = totals(conn, table)
        fits = size < 2**31 and int(length_of.max()) < 2**31 and n_rows > 0
        for term in terms if fits else []:
            rows = conn.execute(
                f"SELECT rowid, -rank FROM {table} WHERE {table} MATCH ? AND rank MATCH ?",
                (f'"{asked[term]}"', rank),
            ).fetchall()
            at = np.fromiter((r[0] for r in rows), np.int64, len(rows))
            score = np.fromiter((r[1] for r in rows), np.float64, len(rows))
            k_of = np.zeros(int(file_of.max()) + 1, dtype=np.int64)
            for file_id, n in in_path.get(term, ()):
                if file_id < len(k_of):
                    k_of[file_id] = n
            k = k_of[file_of[at]]
            freq = _solved(score, length_of[at], k, path_weight, n_rows, n_tokens)
            if freq is None:
                continue
            records = np.empty(len(at), dtype=posting_dtype())
            records["rowid"], records["freq"], records["length"] = at, freq, length_of[at]
            if not np.array_equal(scores(records, n_rows, n_tokens), score):
                continue
            _pack(conn, term, records, file_of[at])
            stored.append(term)
    conn.executemany("INSERT INTO posting_terms(term) VALUES (?)", [(t,) for t in stored])
    conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('postings', 'ready')")
    conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('postings_chunks', ?)", (str(n_chunks),))
    _stamped(conn)


# Porter's stems are not all stems of themselves ("databas" -> "databa"): a stored word is searched by a word
# that stems to it, the stem itself or the stem with one of these endings ("database").
_ENDINGS = (
    "",
    "e",
    "s",
    "es",
    "ed",
    "ing",
    "y",
    "ion",
    "ions",
    "er",
    "al",
    "ate",
    "ation",
    "ize",
    "ment",
    "ly",
)


def _spellings(terms: Sequence[str], tokenizer: Tokenizer) -> dict[str, str]:
    """A word to search by for each stored word (stemmed) that one of _ENDINGS gives."""
    out: dict[str, str] = {}
    left = list(terms)
    for ending in _ENDINGS:
        if not left:
            break
        asked = [t + ending for t in left]
        for term, word, tokens in zip(left, asked, tokenizer.phrases(asked), strict=True):
            if tokens == [term]:
                out[term] = word
        left = [t for t in left if t not in out]
    return out


def _solved(score: Any, length: Any, k: Any, path_weight: Fraction, n_rows: int, n_tokens: int) -> Any:
    """The weighted counts behind FTS5's bm25 scores of one phrase: None when they are not whole numbers
    plus k path weights (then the word is not stored)."""
    import numpy as np

    n_hit = len(score)
    idf = math.log((n_rows - n_hit + 0.5) / (n_hit + 0.5))
    if idf <= 0.0:
        idf = 1e-6
    avgdl = float(n_tokens) / float(n_rows)
    scale = K1 * ((1 - B) + (B * length.astype(np.float64)) / avgdl)
    solved = score * scale / (idf * (K1 + 1.0) - score)
    p, q = path_weight.numerator, path_weight.denominator
    whole = (np.rint(solved * q) - p * k) / q
    if not np.all(np.isfinite(whole)) or np.any(whole < 0) or not np.array_equal(whole, np.rint(whole)):
        return None
    freq = whole.astype(np.float64)
    left = k.copy()
    while (more := left > 0).any():  # added one at a time, as bm25 does
        freq[more] += float(path_weight)
        left[more] -= 1
    return freq


class Tokenizer:
    """FTS5's tokenizer, in an in-memory table of the same columns and options: the words, stemmed as the
    index stores them, of a query's phrases or of changed chunks."""

    def __init__(self, columns: Sequence[str], tokenize: str) -> None:
        self._conn = sqlite3.connect(":memory:", check_same_thread=False)
        self._conn.execute(
            f"CREATE VIRTUAL TABLE t USING fts5({', '.join(columns)}, tokenize = {tokenize!r})"
        )
        self._conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, instance)")
        self._columns = tuple(columns)

    def phrases(self, texts: Sequence[str]) -> list[list[str]]:
        """Each text's tokens in order (as its first column's)."""
        c = self._conn
        c.execute("DELETE FROM t")
        c.executemany(f"INSERT INTO t(rowid, {self._columns[0]}) VALUES (?, ?)", list(enumerate(texts)))
        out: list[list[str]] = [[] for _ in texts]
        for doc, term in c.execute("SELECT doc, term FROM v ORDER BY doc, offset"):
            out[doc].append(term)
        c.execute("DELETE FROM t")
        return out

    def counts(
        self, rows: Sequence[tuple[int, Sequence[str]]], terms: Iterable[str] | None = None
    ) -> list[tuple[str, int, int, int]]:
        """(term, rowid, column index, count) of these rows' column values, of these terms only if given."""
        c = self._conn
        c.execute("DELETE FROM t")
        marks = ", ".join("?" * (len(self._columns) + 1))
        c.executemany(
            f"INSERT INTO t(rowid, {', '.join(self._columns)}) VALUES ({marks})", [(r, *v) for r, v in rows]
        )
        column = {name: i for i, name in enumerate(self._columns)}
        if terms is None:
            found = c.execute("SELECT term, doc, col, count(*) FROM v GROUP BY term, doc, col")
        else:
            c.execute("CREATE TEMP TABLE IF NOT EXISTS wanted(term TEXT PRIMARY KEY) WITHOUT ROWID")
            c.execute("DELETE FROM wanted")
            c.executemany("INSERT INTO wanted(term) VALUES (?)", [(t,) for t in terms])
            found = c.execute(
                "SELECT term, doc, col, count(*) FROM v WHERE term IN (SELECT term FROM wanted) "
                "GROUP BY term, doc, col"
            )
        out = [(term, doc, column[col], n) for term, doc, col, n in found]
        c.execute("DELETE FROM t")
        return out


def maintain(
    conn: sqlite3.Connection,
    file_ids: Sequence[int],
    tokenizer: Tokenizer,
    values: Callable[[Sequence[int]], list[tuple[int, Sequence[str]]]],
    table: str,
    weights: Sequence[float],
    *,
    usable_before: bool,
) -> None:
    """Rewrite the stored postings of these files (changed, added or deleted in this transaction) from their
    chunks now: `values(file_ids)` gives each chunk's rowid and FTS column values. Postings that were not
    usable before the batch (see stamp) are dropped instead."""
    if state(conn) != "ready":
        return
    if not usable_before:
        drop(conn)
        return
    _rewrite(conn, file_ids, tokenizer, values, table, weights)
    if state(conn) == "ready":
        _stamped(conn)


def _rewrite(
    conn: sqlite3.Connection,
    file_ids: Sequence[int],
    tokenizer: Tokenizer,
    values: Callable[[Sequence[int]], list[tuple[int, Sequence[str]]]],
    table: str,
    weights: Sequence[float],
) -> None:
    import numpy as np

    terms = frozenset(r[0] for r in conn.execute("SELECT term FROM posting_terms"))
    if not terms or not file_ids:
        return
    ids = sorted(set(file_ids))
    for start in range(0, len(ids), 500):
        batch = ids[start : start + 500]
        conn.execute(f"DELETE FROM postings WHERE file_id IN ({','.join('?' * len(batch))})", batch)
    rows = values(ids)
    if not rows:
        return
    if len(rows) > MAINTAIN_MAX_CHUNKS:
        drop(conn)
        return
    file_of = dict(
        conn.execute(
            f"SELECT rowid, file_id FROM chunks WHERE file_id IN ({','.join('?' * len(ids))})", ids
        ).fetchall()
    )
    length_of = lengths(conn, table, [r for r, _ in rows])
    at: dict[tuple[str, int], int] = {}  # (term, rowid) -> its row in `counts`, all terms at once
    found = tokenizer.counts(rows, terms)
    for term, rowid, _, _ in found:
        at.setdefault((term, rowid), len(at))
    if not at:
        return
    counts = np.zeros((len(at), len(weights)), dtype=np.int64)
    for term, rowid, col, n in found:
        counts[at[term, rowid], col] = n
    keys = list(at)
    records = np.empty(len(keys), dtype=posting_dtype())
    records["rowid"] = [r for _, r in keys]
    records["freq"] = frequencies(counts, weights)
    records["length"] = [length_of[r] for _, r in keys]
    groups: dict[tuple[str, int], list[int]] = {}
    for i, (term, rowid) in enumerate(keys):
        groups.setdefault((term, file_of[rowid]), []).append(i)
    conn.executemany(
        "INSERT INTO postings(term, file_id, data) VALUES (?, ?, ?)",
        [(term, file_id, records[i].tobytes()) for (term, file_id), i in groups.items()],
    )
