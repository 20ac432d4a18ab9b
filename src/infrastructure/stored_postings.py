"""Stored postings: for each common word of a segment, the chunks that hold it with what FTS5's bm25 needs of
each (the weighted count of the word in the chunk and the chunk's length in tokens), written by the index run
so that a search reads a word's scores instead of having FTS5 rank every chunk that holds it (~1 us a chunk:
"column" in sqlalchemy's 11,398 chunks cost 10.5 ms, paid again by every new process).

Tables (made when first needed, so an older index reads as "none stored" and gets them on its next run):

    posting_terms(term PRIMARY KEY)                 the stored words, as FTS5 stores them (stemmed)
    posting_blocks(term, block, data)               a word's chunks in one block of FILES_PER_BLOCK files
                                                    (file_id // FILES_PER_BLOCK): packed (rowid, freq, length)
    meta 'postings' = READY, 'postings_chunks'      complete for every stored word / chunks when chosen
    meta 'postings_stamp'                           the chunks they were written for (see stamp)
    meta 'postings_rule'                            which words were chosen (RULE; none: rule 1)

What is stored does not depend on the rest of the segment: the score is computed when read, from the
segment's row count and average length (FTS5's own totals) and the word's chunk count, with FTS5's formula
and order of operations, so it is bit for bit the score FTS5 gives (the tests compare them). Each batch that
changes files rewrites the rows of their blocks in its own transaction (the changed chunks tokenized by an
in-memory FTS5 table with the same tokenizer, the block's other files' records kept), so the stored postings
are never out of step with the index; a batch larger than MAINTAIN_MAX_CHUNKS drops them instead, and the
run's end stores them again.
"""

from __future__ import annotations

import itertools
import math
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from typing import Any

from ..domain.terms import STOP_WORDS

# A word in fewer chunks is ranked by FTS5 when searched: 0.1-0.2 ms below 200 chunks, 0.2-0.5 ms from 200 to
# 500, where a stored one is read and scored in ~0.1 ms. Each stored chunk costs ~1.5 us of index time and 16
# bytes (sqlalchemy: 687 words, 1.2M chunks, 20 MB, 2.2 s at 500; 271, 15 MB, 1.4 s at 1500). From 500 down to
# 200: sqlalchemy 704 -> 1,301 words, +190k chunks, +5 MB, build 1.7 -> 1.9 s of CPU; first-pass search CPU
# p50 15.1 -> 13.5 ms over its 16 questions (stdlib's 27: unchanged), the same hits and scores.
MIN_CHUNKS = 200
# A word in more than this share of the chunks is left out of any-word searches (sqlite_store.search_terms);
MAX_SHARE = 0.25
# an all-words search still asks for it, and FTS5 then counts every chunk it is in ("error": 15k of the stdlib's
# 61k chunks, 3-4 ms a query): such a word is stored up to this share, if a question can ask for it (no stop
# word, two characters or more). sqlalchemy: +9 words, +107k postings, its build 1.8 -> 1.95 s of CPU; the
# stdlib +2 (assert, error), +39k, 2.0 -> 2.1 s.
MAX_ALL_WORDS_SHARE = 0.5
RULE = "2"  # which words are stored: an index whose words were chosen by another rule chooses them again
# A segment with fewer chunks stores no word: FTS5 ranks any word it would store (at most MAX_SHARE of them, 3,000)
# in ~3 ms, and building them there costs more than it saves (ts-rxjs, 2.5k chunks: +124 ms per full index,
# most of it importing numpy). First-pass search CPU per question over 3 fresh processes, stored postings or
# none (bench_polyglot's 20 questions; sqlalchemy's 16 on subsets of its tree), p50 / p95 / max in ms:
#   go-x-tools 10.3k chunks   8.6 / 23.8 / 113  vs  9.2 / 13.8 / 38  (the first search imports numpy)
#   rust-tokio-syn 11.4k      8.4 / 13.9 / 99   vs  7.6 / 11.5 / 22
#   ts-effect 10.2k           7.6 / 25.8 / 101  vs  7.9 / 12.8 / 14
#   sqlalchemy lib 13.4k     11.4 / 22.3 / 97   vs 14.3 / 21.3 / 23
#   sqlalchemy lib+doc 19.5k 11.6 / 14.1 / 103  vs 21.0 / 31.0 / 36
# and the build cost go-x-tools' full index ~0.4 s of CPU (1.3x -> 1.6x its parse-only pass).
MIN_SEGMENT_CHUNKS = 12_000
MAINTAIN_MAX_CHUNKS = 5000  # a batch writing more chunks drops the stored postings; the run's end rebuilds
REBUILD_GROWTH = 0.25  # the run's end chooses the words again when the chunk count moved this much since
K1, B = 1.2, 0.75  # FTS5's bm25 constants
# packed (rowid int32, freq float64, length int32): 16 bytes. numpy is imported when first needed (a CLI
# call that never ranks a common word skips it: ~60 ms)
POSTING_FIELDS = [("rowid", "<i4"), ("freq", "<f8"), ("length", "<i4")]
# One database row holds a word's chunks in this many files (by file id): a row per word and file cost
# go-x-tools' full index 150 ms of its 420 ms build (58k rows, 147 words: 5k rows now), and a changed file
# rewrites the rows of its block (sqlalchemy: ~1 MB a one-file refresh).
FILES_PER_BLOCK = 32
# meta 'postings' of the block layout; 'ready' was the row-per-file layout (table `postings`, before
# 2026-11-23): not read, and the next run that ends stores them again in blocks
READY = "blocks"


def posting_dtype() -> Any:
    import numpy as np

    return np.dtype(POSTING_FIELDS)


TABLES = """
CREATE TABLE IF NOT EXISTS posting_terms(term TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS posting_blocks(
    term TEXT NOT NULL, block INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (term, block)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS posting_blocks_block ON posting_blocks(block);
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
    if state(conn) != READY:
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

    blobs = [r[0] for r in conn.execute("SELECT data FROM posting_blocks WHERE term = ?", (term,))]
    return np.frombuffer(b"".join(blobs), dtype=posting_dtype())


def _blocked(term: str, records: Any, blocks: Any) -> list[tuple[str, int, bytes]]:
    """One word's postings as rows, one per block (`blocks`: each record's)."""
    import numpy as np

    if len(blocks) > 1 and bool(np.any(blocks[1:] < blocks[:-1])):
        order = np.argsort(blocks, kind="stable")
        records, blocks = records[order], blocks[order]
    cuts = np.flatnonzero(blocks[1:] != blocks[:-1]) + 1
    starts = [0, *cuts.tolist()]
    ends = [*cuts.tolist(), len(blocks)]
    return [(term, int(blocks[s]), records[s:e].tobytes()) for s, e in zip(starts, ends, strict=True)]


def drop(conn: sqlite3.Connection) -> None:
    """Forget every stored posting (a batch too large to follow): searches rank with FTS5 until rebuilt."""
    if state(conn) == READY:
        conn.execute("DELETE FROM posting_blocks")
        conn.execute("DELETE FROM posting_terms")
        conn.execute("UPDATE meta SET value = 'stale' WHERE key = 'postings'")


def current_rule(conn: sqlite3.Connection) -> bool:
    """Whether the stored words were chosen by this version's RULE (an index made before it: rule 1)."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'postings_rule'").fetchone()
    return (row[0] if row else "1") == RULE


def needs_build(conn: sqlite3.Connection, n_chunks: int) -> bool:
    if not usable(conn) or not current_rule(conn):
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
    conn.execute("DROP TABLE IF EXISTS postings")  # the row-per-file layout before blocks
    conn.execute("DELETE FROM posting_blocks")
    conn.execute("DELETE FROM posting_terms")
    n_chunks = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    path_weight = Fraction(weights[-1]).limit_denominator(1000)
    regular = all(float(w).is_integer() for w in weights[:-1]) and float(path_weight) == weights[-1]
    terms: list[str] = []
    if n_chunks >= max(MIN_CHUNKS, MIN_SEGMENT_CHUNKS) and regular:
        conn.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{table}_vrow USING fts5vocab(main, {table}, row)"
        )
        sql = f"SELECT term, doc FROM temp.{table}_vrow WHERE doc >= ? AND doc <= ?"
        common = int(MAX_SHARE * n_chunks)
        stop = {w for words in tokenizer.phrases(sorted(STOP_WORDS)) for w in words}
        found = [
            term
            for term, doc in conn.execute(
                sql, (MIN_CHUNKS, int(max(MAX_SHARE, MAX_ALL_WORDS_SHARE) * n_chunks))
            )
            if doc <= common or (len(term) >= 2 and term not in stop)
        ]
        asked = _spellings(found, tokenizer)
        terms = [t for t in found if t in asked]
    stored: list[str] = []
    if terms:
        import numpy as np

        file_of = _files_of_chunks(conn)
        size = len(file_of)
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
        block_of = file_of // FILES_PER_BLOCK
        k_of = np.zeros(int(file_of.max()) + 1, dtype=np.int64)
        written: list[tuple[str, int, bytes]] = []
        for term in terms if fits else []:
            rows = conn.execute(
                f"SELECT rowid, -rank FROM {table} WHERE {table} MATCH ? AND rank MATCH ?",
                (f'"{asked[term]}"', rank),
            ).fetchall()
            if not rows:
                continue
            both = np.fromiter(itertools.chain.from_iterable(rows), np.float64, 2 * len(rows))
            at, score = both[0::2].astype(np.int64), both[1::2]  # rowids below 2**31: exact
            k_of[:] = 0
            for file_id, n in in_path.get(term, ()):
                if file_id < len(k_of):
                    k_of[file_id] = n
            k = k_of[file_of[at]]
            length = length_of[at]
            freq = _solved(score, length, k, path_weight, n_rows, n_tokens)
            if freq is None:
                continue
            records = np.empty(len(at), dtype=posting_dtype())
            records["rowid"], records["freq"], records["length"] = at, freq, length
            if not np.array_equal(scores(records, n_rows, n_tokens), score):
                continue
            written += _blocked(term, records, block_of[at])
            stored.append(term)
        conn.executemany("INSERT INTO posting_blocks(term, block, data) VALUES (?, ?, ?)", written)
    conn.executemany("INSERT INTO posting_terms(term) VALUES (?)", [(t,) for t in stored])
    conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('postings', ?)", (READY,))
    conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('postings_chunks', ?)", (str(n_chunks),))
    conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('postings_rule', ?)", (RULE,))
    _stamped(conn)


def _files_of_chunks(conn: sqlite3.Connection) -> Any:
    """Each chunk's file id, indexed by rowid (0 where no chunk). A file's chunks are written together with
    consecutive rowids, so one row per file says it (from the chunks_file index), else every chunk's."""
    import numpy as np

    spans = conn.execute(
        "SELECT file_id, min(rowid), max(rowid), count(*) FROM chunks GROUP BY file_id"
    ).fetchall()
    size = max((hi for _, _, hi, _ in spans), default=0) + 1
    file_of = np.zeros(size, dtype=np.int64)
    if all(hi - lo + 1 == n for _, lo, hi, n in spans):
        for file_id, lo, hi, _ in spans:
            file_of[lo : hi + 1] = file_id
        return file_of
    ids = np.array(conn.execute("SELECT rowid, file_id FROM chunks").fetchall(), dtype=np.int64)
    file_of[ids[:, 0]] = ids[:, 1]
    return file_of


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
    if state(conn) != READY:
        return
    if not usable_before:
        drop(conn)
        return
    _rewrite(conn, file_ids, tokenizer, values, table, weights)
    if state(conn) == READY:
        _stamped(conn)


def _rewrite(
    conn: sqlite3.Connection,
    file_ids: Sequence[int],
    tokenizer: Tokenizer,
    values: Callable[[Sequence[int]], list[tuple[int, Sequence[str]]]],
    table: str,
    weights: Sequence[float],
) -> None:
    """The rows of the changed files' blocks again: the records of the block's other files as they were,
    the changed files' from their chunks now (a deleted file has none). Which file a record belongs to is
    read from `chunks` now: a changed file's new chunks may reuse its old rowids, but every chunk written in
    this transaction belongs to a changed file."""
    import numpy as np

    terms = frozenset(r[0] for r in conn.execute("SELECT term FROM posting_terms"))
    if not terms or not file_ids:
        return
    ids = sorted(set(file_ids))
    rows = values(ids)
    if len(rows) > MAINTAIN_MAX_CHUNKS:
        drop(conn)
        return
    changed = set(ids)
    blocks = sorted({f // FILES_PER_BLOCK for f in ids})
    kept: list[int] = []  # the chunks of the blocks' unchanged files: their records stay
    old: list[tuple[str, int, bytes]] = []
    for start in range(0, len(blocks), 500):
        batch = blocks[start : start + 500]
        marks = ",".join("?" * len(batch))
        for block in batch:
            lo = block * FILES_PER_BLOCK
            kept += [
                rowid
                for rowid, file_id in conn.execute(
                    "SELECT rowid, file_id FROM chunks WHERE file_id >= ? AND file_id < ?",
                    (lo, lo + FILES_PER_BLOCK),
                )
                if file_id not in changed
            ]
        old += conn.execute(
            f"SELECT term, block, data FROM posting_blocks WHERE block IN ({marks})", batch
        ).fetchall()
        conn.execute(f"DELETE FROM posting_blocks WHERE block IN ({marks})", batch)
    dtype = posting_dtype()
    out: dict[tuple[str, int], list[Any]] = {}
    if old:
        records = np.frombuffer(b"".join(r[2] for r in old), dtype=dtype)
        owner = np.repeat(np.arange(len(old)), [len(r[2]) // dtype.itemsize for r in old])
        keep = np.isin(records["rowid"], np.array(kept, dtype=np.int64))
        records, owner = records[keep], owner[keep]
        cuts = (np.flatnonzero(owner[1:] != owner[:-1]) + 1).tolist()
        for s, e in zip([0, *cuts], [*cuts, len(owner)], strict=True) if len(owner) else ():
            term, block, _ = old[int(owner[s])]
            out[term, block] = [records[s:e]]
    if rows:
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
        if at:
            counts = np.zeros((len(at), len(weights)), dtype=np.int64)
            for term, rowid, col, n in found:
                counts[at[term, rowid], col] = n
            keys = list(at)
            fresh = np.empty(len(keys), dtype=dtype)
            fresh["rowid"] = [r for _, r in keys]
            fresh["freq"] = frequencies(counts, weights)
            fresh["length"] = [length_of[r] for _, r in keys]
            groups: dict[tuple[str, int], list[int]] = {}
            for i, (term, rowid) in enumerate(keys):
                groups.setdefault((term, file_of[rowid] // FILES_PER_BLOCK), []).append(i)
            for key, members in groups.items():
                out.setdefault(key, []).append(fresh[members])
    conn.executemany(
        "INSERT INTO posting_blocks(term, block, data) VALUES (?, ?, ?)",
        [(term, block, b"".join(p.tobytes() for p in parts)) for (term, block), parts in out.items()],
    )
