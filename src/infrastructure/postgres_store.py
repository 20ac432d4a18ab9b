"""The index in PostgreSQL: many segments (repositories) in one database, written by IndexWriter, read by
IndexReader, for teams that share one index (`[index] db_url = "postgresql://..."`).

Schema (version in `trifecta_meta.schema_version`, migrated forward in one transaction under an advisory
lock; a database from a newer trifecta is refused, never misread):

    trifecta_meta(key, value)                         schema_version
    trifecta_segments(id, name UNIQUE, built_at, generation, stemmer, edges_version)
                                                      generation: bumped by every write; stemmer: the text
                                                      search dictionary of its lexemes; edges_version: the
                                                      EDGES_VERSION its edges were all written with ('' when
                                                      unknown or mixed: the next run re-parses every file)
    trifecta_files(segment_id, id, path, size, mtime_ns, sha256, language, n_lines, parse_error, content)
                                                      UNIQUE (segment_id, path); content: the file's text
    trifecta_skipped_files(segment_id, path, size, mtime_ns, reason)   skipped for their content (binary)
    trifecta_symbols(segment_id, id, file_id, name, qualname, kind, ... the SQLite store's columns)
    trifecta_edges(segment_id, file_id, kind, caller, line, col, name, text, alias)   the SQLite store's edges
    trifecta_chunks(segment_id, id, chunk_id, file_id, path, start_line, end_line, kind, language, symbol,
                    name, signature, doc, body, tsv tsvector, n_tokens)   UNIQUE (segment_id, chunk_id)
        GIN (tsv): weighted full text, name A, qualname and signature B, doc C, body and path D
        GIN (body gin_trgm_ops): substring and regex prefilter (pg_trgm; without it look-ups scan)
        both GIN indexes with a pending list of at most GIN_PENDING_KB, which every search reads whole
        (segment_id, path, start_line): the chunks of a file, the chunk around a line
    trifecta_postings(segment_id, file_id, lexeme, chunk, tf, named, n_tokens)   one row per chunk and word of
                                                      its tsvector: the weighted frequency in all fields
                                                      (tf) and in name, qualname, signature and doc
                                                      (named); (segment_id, lexeme) INCLUDE the rest, so
                                                      bm25 is summed from index-only scans
    trifecta_rewrite_cache(segment_id, query, model, vocabulary_version, terms, focus, created_at)
    trifecta_embeddings(segment_id, chunk_id, text_sha, model, dim, vec float4[]), trifecta_embedded_files:
                                                      vectors (pg_vector_store; pgvector used when present)

Every table is keyed by segment id first, so Citus can distribute them all by it (docs/scaling.md).

Text is split here as SQLite's FTS5 splits it (runs of letters, digits and '_', lower-cased, accents
removed, identifiers expanded by the domain), then stemmed by the Porter stemmer, as FTS5's porter tokenizer
stems it (the server's snowball `porter` dictionary, `trifecta_porter`; stop words are kept), and stored as a
weighted tsvector. Queries go through the same steps, so a word matches in both stores alike. Ranking is
FTS5's bm25 (per query phrase, its inverse document frequency in the segment times its weighted frequency
over a length norm), and the any-word tiers are the SQLite store's: both stores rank alike
(tests/integration/test_postgres_ranking.py; the path field weighs 1 here, 0.8 there: four weight classes).
A single word's frequencies come from its postings, written with its chunk from the chunk's tsvector; a
phrase (a query term of several words) is scored from the tsvectors of the chunks holding it.

Writes: one transaction per batch of whole files (never half a file); one writer per segment through a
session advisory lock (a second gets INDEX_LOCKED); writers of different segments never wait for each
other. Readers see the last commit (MVCC). A query is never SQL text: every value is a parameter.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import inspect
import json
import math
import re
import threading
import time
import unicodedata
import urllib.parse
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, NoReturn, TypeVar

from ..application.ports import (
    CodedError,
    FileSource,
    FileUpdate,
    IndexReader,
    IndexStats,
    IndexWriter,
    OutsideSegment,
    Scan,
    ScoredChunk,
    SourceFile,
    StoredFile,
)
from ..application.rewrite import RewriteCache, RewriteKey
from ..domain.calls import Edge, EdgeKind
from ..domain.code import Chunk, FileState, Symbol
from ..domain.contract import ErrorCode
from ..domain.rewrite_policy import RewrittenQuery, parse_focus
from .sqlite_store import (  # the same rows, decoded the same way
    COMMON_WORDS_FROM_CHUNKS,
    COORDINATION,
    EDGES_VERSION,
    MAX_PAIR_CLAUSES,
    IndexLocked,
    _chunk,
    _json_list,
    _path_words,
    _symbol,
    edge_filter,
    edge_from_row,
)

SCHEMA_VERSION = 9
# A searcher (a search machine, a replica) reads a database of this schema or later, up to its own: what
# came after it (GIN options, the edges version) is the writers' business. A search machine upgraded before
# the indexer has migrated the database keeps searching it.
READS_FROM = 7


# ts_rank_cd weights {D, C, B, A}: body/path, doc, qualname/signature, name: the SQLite store's 1, 3, 6, 10 / 10
RANK_WEIGHTS = "{0.1, 0.3, 0.6, 1.0}"
BM25_K1, BM25_B = 1.2, 0.75  # FTS5's bm25 constants
CONNECT_TIMEOUT_SECONDS = 10
GIN_PENDING_KB = 256  # a GIN index's pending list (the default is 4 MB), read whole by every search
ANALYZE_AFTER_FILES = 100  # a run that wrote this many files vacuums and analyzes the segment's tables
FRESH_SECONDS = 0.5  # how long a check that nobody wrote the segment stays good for this process's caches
MAX_TOKEN_CHARS = 200  # longer "words" (base64, minified code) are not indexed as words
MAX_POSITIONS = 256  # PostgreSQL keeps at most this many positions per lexeme
SKIPPED_PREFIX = "skipped:"  # a FileUpdate's sha256 for a file skipped for its content (index_segment)
_LOCK_CLASS = 0x7472  # advisory lock namespace ("tr"); the second key is the segment id
_SCHEMA_LOCK = 0x7472_0000  # held while the schema is created or migrated
M = TypeVar("M", bound=Callable[..., Any])

# The postings of chunks, read from their stored tsvectors (so they hold exactly what ts_rank_cd would
# read): per chunk and lexeme, its weighted frequency (10 per occurrence in the name, 6 in the qualname or
# signature, 3 in the doc, 1 in the body or path: RANK_WEIGHTS x 10) and that of the named fields alone.
_POSTINGS_OF = (
    "SELECT c.segment_id, c.file_id, u.lexeme, c.id, "
    "10 * cardinality(array_positions(u.weights, 'A')) + 6 * cardinality(array_positions(u.weights, 'B')) "
    "+ 3 * cardinality(array_positions(u.weights, 'C')) + cardinality(array_positions(u.weights, 'D')), "
    "10 * cardinality(array_positions(u.weights, 'A')) + 6 * cardinality(array_positions(u.weights, 'B')) "
    "+ 3 * cardinality(array_positions(u.weights, 'C')), c.n_tokens "
    "FROM trifecta_chunks c CROSS JOIN LATERAL unnest(c.tsv) AS u"
)

_MIGRATIONS: tuple[str, ...] = (
    # 0 -> 1: the index
    """
    CREATE TABLE IF NOT EXISTS trifecta_segments(
        id SERIAL PRIMARY KEY, name TEXT NOT NULL UNIQUE, built_at TEXT NOT NULL DEFAULT '',
        generation BIGINT NOT NULL DEFAULT 0);
    CREATE TABLE IF NOT EXISTS trifecta_files(
        segment_id INTEGER NOT NULL, id BIGSERIAL, path TEXT NOT NULL, size BIGINT NOT NULL,
        mtime_ns BIGINT NOT NULL, sha256 TEXT NOT NULL, language TEXT NOT NULL, n_lines INTEGER NOT NULL,
        parse_error TEXT NOT NULL, PRIMARY KEY (segment_id, id), UNIQUE (segment_id, path));
    CREATE TABLE IF NOT EXISTS trifecta_symbols(
        segment_id INTEGER NOT NULL, id BIGSERIAL, file_id BIGINT NOT NULL, name TEXT NOT NULL,
        qualname TEXT NOT NULL, kind TEXT NOT NULL, start_line INTEGER NOT NULL, end_line INTEGER NOT NULL,
        def_line INTEGER NOT NULL, signature TEXT NOT NULL, docstring TEXT NOT NULL, decorators TEXT NOT NULL,
        bases TEXT NOT NULL, params TEXT NOT NULL, is_async BOOLEAN NOT NULL, parent TEXT NOT NULL,
        depth INTEGER NOT NULL, exported BOOLEAN NOT NULL, PRIMARY KEY (segment_id, id));
    CREATE INDEX IF NOT EXISTS trifecta_symbols_file ON trifecta_symbols(segment_id, file_id);
    CREATE INDEX IF NOT EXISTS trifecta_symbols_name ON trifecta_symbols(segment_id, name);
    CREATE INDEX IF NOT EXISTS trifecta_symbols_qualname
        ON trifecta_symbols(segment_id, qualname text_pattern_ops);
    CREATE TABLE IF NOT EXISTS trifecta_chunks(
        segment_id INTEGER NOT NULL, id BIGSERIAL, chunk_id TEXT NOT NULL, file_id BIGINT NOT NULL,
        path TEXT NOT NULL, start_line INTEGER NOT NULL, end_line INTEGER NOT NULL, kind TEXT NOT NULL,
        language TEXT NOT NULL, symbol TEXT NOT NULL, name TEXT NOT NULL, signature TEXT NOT NULL,
        doc TEXT NOT NULL, body TEXT NOT NULL, tsv TSVECTOR NOT NULL, n_tokens INTEGER NOT NULL,
        PRIMARY KEY (segment_id, id), UNIQUE (segment_id, chunk_id));
    CREATE INDEX IF NOT EXISTS trifecta_chunks_file ON trifecta_chunks(segment_id, file_id);
    CREATE INDEX IF NOT EXISTS trifecta_chunks_tsv ON trifecta_chunks USING GIN (tsv);
    """,
    # 1 -> 2: the rewrite cache and vectors (float4[]: no pgvector needed)
    """
    CREATE TABLE IF NOT EXISTS trifecta_rewrite_cache(
        segment_id INTEGER NOT NULL, query TEXT NOT NULL, model TEXT NOT NULL,
        vocabulary_version TEXT NOT NULL, terms TEXT NOT NULL, focus TEXT NOT NULL,
        created_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (segment_id, query, model, vocabulary_version));
    CREATE TABLE IF NOT EXISTS trifecta_embeddings(
        segment_id INTEGER NOT NULL, chunk_id TEXT NOT NULL, text_sha TEXT NOT NULL, model TEXT NOT NULL,
        dim INTEGER NOT NULL, vec REAL[] NOT NULL, PRIMARY KEY (segment_id, chunk_id));
    """,
    # 2 -> 3: each file's text, so a search machine answers `ctx get` / `ast snippet` without a checkout;
    # files skipped for their content (binary), not read again until their stat changes
    """
    ALTER TABLE trifecta_files ADD COLUMN IF NOT EXISTS content TEXT;
    CREATE TABLE IF NOT EXISTS trifecta_skipped_files(
        segment_id INTEGER NOT NULL, path TEXT NOT NULL, size BIGINT NOT NULL, mtime_ns BIGINT NOT NULL,
        reason TEXT NOT NULL, PRIMARY KEY (segment_id, path));
    """,
    # 3 -> 4: call sites and imports (domain.calls.Edge), replaced with their file's symbols
    """
    CREATE TABLE IF NOT EXISTS trifecta_edges(
        segment_id INTEGER NOT NULL, file_id BIGINT NOT NULL, kind TEXT NOT NULL, caller TEXT NOT NULL,
        line INTEGER NOT NULL, col INTEGER NOT NULL, name TEXT NOT NULL, text TEXT NOT NULL,
        alias TEXT NOT NULL);
    CREATE INDEX IF NOT EXISTS trifecta_edges_file ON trifecta_edges(segment_id, file_id);
    CREATE INDEX IF NOT EXISTS trifecta_edges_name ON trifecta_edges(segment_id, name);
    """,
    # 4 -> 5: words stemmed by the Porter stemmer, as SQLite's FTS5 stems them (english_stem is Porter2,
    # which splits and joins other words). A segment keeps the stemmer it was written with until its next
    # writer rewrites it whole (PostgresIndex.writing).
    """
    ALTER TABLE trifecta_segments ADD COLUMN IF NOT EXISTS stemmer TEXT NOT NULL DEFAULT 'english_stem';
    ALTER TABLE trifecta_segments ALTER COLUMN stemmer SET DEFAULT 'trifecta_porter';
    DO $$ BEGIN
        IF NOT EXISTS (SELECT 1 FROM pg_ts_dict WHERE dictname = 'trifecta_porter'
                       AND dictnamespace = current_schema()::regnamespace) THEN
            CREATE TEXT SEARCH DICTIONARY trifecta_porter (TEMPLATE = snowball, LANGUAGE = porter);
        END IF;
    END $$;
    """,
    # 5 -> 6: vectors kept in step per file, as in the SQLite file (pg_vector_store.PostgresVectorStore)
    """
    ALTER TABLE trifecta_segments ADD COLUMN IF NOT EXISTS vectors_generation BIGINT NOT NULL DEFAULT 0;
    CREATE TABLE IF NOT EXISTS trifecta_embedded_files(
        segment_id INTEGER NOT NULL, path TEXT NOT NULL, sha256 TEXT NOT NULL, model TEXT NOT NULL,
        chunk_ids TEXT NOT NULL, PRIMARY KEY (segment_id, path));
    CREATE INDEX IF NOT EXISTS trifecta_embeddings_model ON trifecta_embeddings(segment_id, model);
    """,
    # 6 -> 7: per-word postings, so a search reads a few index entries per word instead of every matching
    # chunk's tsvector (docs/scaling.md, "What a search costs on the server"); chunks by path (the chunk
    # around a line, a file's chunks) without a scan of the segment
    f"""
    CREATE TABLE IF NOT EXISTS trifecta_postings(
        segment_id INTEGER NOT NULL, file_id BIGINT NOT NULL, lexeme TEXT NOT NULL, chunk BIGINT NOT NULL,
        tf SMALLINT NOT NULL, named SMALLINT NOT NULL, n_tokens INTEGER NOT NULL);
    CREATE INDEX IF NOT EXISTS trifecta_postings_lexeme
        ON trifecta_postings(segment_id, lexeme) INCLUDE (chunk, tf, named, n_tokens);
    CREATE INDEX IF NOT EXISTS trifecta_postings_file ON trifecta_postings(segment_id, file_id);
    CREATE INDEX IF NOT EXISTS trifecta_chunks_path ON trifecta_chunks(segment_id, path, start_line);
    DELETE FROM trifecta_postings;
    INSERT INTO trifecta_postings(segment_id, file_id, lexeme, chunk, tf, named, n_tokens) {_POSTINGS_OF};
    """,
    # 7 -> 8: GIN pending lists kept short. A GIN index gathers new entries in a pending list that every
    # search asking the index reads whole; at the default 4 MB, a writer of any segment kept it full (the
    # stdlib's searches took 38 ms of SQL instead of 6 while another segment was re-indexed). Without a list
    # (fastupdate off) writing the stdlib took 3x longer: 256 kB keeps the writes batched.
    f"""
    ALTER INDEX trifecta_chunks_tsv SET (gin_pending_list_limit = {GIN_PENDING_KB});
    SELECT gin_clean_pending_list('trifecta_chunks_tsv');
    DO $$ BEGIN
        IF to_regclass('trifecta_chunks_trgm') IS NOT NULL THEN
            ALTER INDEX trifecta_chunks_trgm SET (gin_pending_list_limit = {GIN_PENDING_KB});
            PERFORM gin_clean_pending_list('trifecta_chunks_trgm');
        END IF;
    END $$;
    """,
    # 8 -> 9: the version of the edges each segment holds (sqlite_store.EDGES_VERSION), so that a plain run
    # after an upgrade that changes what the parsers record re-parses the segment once, as the SQLite store
    # does. A segment written before is of no known version (''): its next run re-parses it. Older trifecta
    # versions, which would write edges under the stamp without minding it, are refused from here on.
    """
    ALTER TABLE trifecta_segments ADD COLUMN IF NOT EXISTS edges_version TEXT NOT NULL DEFAULT '';
    """,
)
STEMMER = "trifecta_porter"  # what new segments are written with (migration 4 -> 5)
_TRIGRAM_INDEX = (
    "CREATE INDEX IF NOT EXISTS trifecta_chunks_trgm ON trifecta_chunks USING GIN (body gin_trgm_ops) "
    f"WITH (gin_pending_list_limit = {GIN_PENDING_KB})"
)

_CHUNK_COLS = (
    "c.chunk_id, c.path, c.start_line, c.end_line, c.kind, c.language, c.symbol, c.name, c.signature, "
    "c.doc, c.body"
)
_SYMBOL_COLS = (
    "s.name, s.qualname, s.kind, s.start_line, s.end_line, s.def_line, s.signature, s.docstring, "
    "s.decorators, s.bases, s.params, s.is_async, s.parent, s.depth, s.exported"
)
_WORD = re.compile(r"\w+")
_WORDY = re.compile(r"\w")
_NON_WORD = re.compile(r"[^\w]+")
_LEXEME = re.compile(r"'\w+'")  # a lexeme in tsquery text (word characters only: no quote inside)


class IndexUnavailable(CodedError):
    """The PostgreSQL server cannot be reached or refuses us (down, wrong URL, wrong credentials, a schema
    from a newer trifecta, a segment it does not hold): INDEX_UNAVAILABLE, exit 1. The message names the URL
    without its password; `data.reason` is unavailable | schema | no_segment."""

    code = ErrorCode.INDEX_UNAVAILABLE

    def __init__(self, message: str, *, url: str, reason: str = "unavailable") -> None:
        super().__init__(message, data={"reason": reason, "url": url})
        self.reason = reason


class ServerReadOnly(IndexUnavailable):
    """A read-only server (a replica) asked to index: INDEX_UNWRITABLE, reason read_only."""

    code = ErrorCode.INDEX_UNWRITABLE


def redact(url: str) -> str:
    """The URL without its password (`postgresql://u:***@host/db`); query parameters other than the password
    are kept."""
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return "postgresql://(unparsable URL)"
    netloc = parts.netloc
    if "@" in netloc:
        user, _, host = netloc.rpartition("@")
        if ":" in user:
            user = user.split(":", 1)[0] + ":***"
        netloc = f"{user}@{host}"
    query = "&".join(
        f"{k}=***" if k == "password" else f"{k}={v}"
        for k, v in urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
    )
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, query, ""))


def is_postgres_url(url: str) -> bool:
    return url.startswith(("postgresql://", "postgres://"))


def _tokens(text: str) -> list[str]:
    """FTS5 unicode61 with '_' kept: runs of word characters, lower-cased, accents removed."""
    if not text.isascii():
        text = "".join(ch for ch in unicodedata.normalize("NFKD", text) if not unicodedata.combining(ch))
    return [t for t in _WORD.findall(text.lower()) if len(t) <= MAX_TOKEN_CHARS]


def _first_line(exc: Exception) -> str:
    """An error's first line (psycopg adds CONTEXT lines that may quote the data being written)."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def connect(url: str, *, autocommit: bool = True) -> Any:
    """A psycopg connection; a server that is down, a wrong URL or wrong credentials -> IndexUnavailable."""
    import psycopg

    try:
        return psycopg.connect(url, autocommit=autocommit, connect_timeout=CONNECT_TIMEOUT_SECONDS)
    except psycopg.Error as exc:
        detail = _first_line(exc)
        raise IndexUnavailable(
            f"cannot connect to the index database {redact(url)}: {detail.replace(url, redact(url))}",
            url=redact(url),
        ) from None
    except ValueError as exc:  # a malformed URL
        raise IndexUnavailable(
            f"the index database URL {redact(url)} is not valid: {exc}", url=redact(url)
        ) from None


def migrate(conn: Any, *, target: int = SCHEMA_VERSION) -> tuple[int, list[str]]:
    """Bring the schema to `target` in one transaction, under an advisory lock (several processes may
    open a new database at once). Returns the version found before and the features that fell back."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
        conn.execute("CREATE TABLE IF NOT EXISTS trifecta_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        row = conn.execute("SELECT value FROM trifecta_meta WHERE key='schema_version'").fetchone()
        found = int(row[0]) if row else 0
        if found > SCHEMA_VERSION:
            raise ValueError(f"schema version {found}, this trifecta reads {SCHEMA_VERSION}")
        for step in range(found, target):
            conn.execute(_MIGRATIONS[step])
        if target > found:
            conn.execute(
                "INSERT INTO trifecta_meta(key, value) VALUES ('schema_version', %s) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (str(target),),
            )
    # pg_trgm is optional: without it (or without the right to create it) substring look-ups scan. Created
    # only when missing: CREATE INDEX IF NOT EXISTS would wait for every writer's transaction to end.
    if conn.execute("SELECT to_regclass('trifecta_chunks_trgm')").fetchone()[0] is None:
        with contextlib.suppress(Exception), conn.transaction():
            conn.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
            conn.execute(_TRIGRAM_INDEX)
    if not _has_extension(conn, "vector"):
        with contextlib.suppress(Exception), conn.transaction():
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    return found, fallbacks_of(conn)


FALLBACK_TRGM = "pg_trgm: substring and regex look-ups scan every chunk of the segment"
FALLBACK_VECTOR = "pgvector: vectors are stored as float4[] and compared in this process"


def fallbacks_of(conn: Any) -> list[str]:
    """The features this server lacks and what is done instead (`status`, the search plan)."""
    found = []
    if conn.execute("SELECT to_regclass('trifecta_chunks_trgm')").fetchone()[0] is None:
        found.append(FALLBACK_TRGM)
    if not _has_extension(conn, "vector"):
        found.append(FALLBACK_VECTOR)
    return found


def _has_extension(conn: Any, name: str) -> bool:
    return conn.execute("SELECT 1 FROM pg_extension WHERE extname = %s", (name,)).fetchone() is not None


def segment_names(url: str) -> list[str]:
    """Every segment of the shared index at `url` that finished a run, by name (nothing is created)."""
    conn = connect(url)
    try:
        if conn.execute("SELECT to_regclass('trifecta_segments')").fetchone()[0] is None:
            return []
        rows = conn.execute("SELECT name FROM trifecta_segments WHERE built_at != '' ORDER BY name")
        return [r[0] for r in rows]
    except Exception as exc:
        import psycopg

        if isinstance(exc, psycopg.Error):
            raise IndexUnavailable(
                f"the index database {redact(url)} failed: {_first_line(exc)}", url=redact(url)
            ) from None
        raise
    finally:
        conn.close()


def _guard(method: M) -> M:
    """A store method whose connection failures become IndexUnavailable (naming the URL, no password)."""
    if inspect.isgeneratorfunction(method):

        @functools.wraps(method)
        def generator(self: PostgresIndex, *args: Any, **kwargs: Any) -> Any:
            try:
                yield from method(self, *args, **kwargs)
            except Exception as exc:
                self._raise_named(exc)

        return generator  # type: ignore[return-value]

    @functools.wraps(method)
    def inner(self: PostgresIndex, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except Exception as exc:
            self._raise_named(exc)

    return inner  # type: ignore[return-value]


def _text(value: str) -> str:
    """Text as PostgreSQL stores it: it has no NUL character."""
    return value.replace("\x00", "") if "\x00" in value else value


def _like(needle: str) -> str:
    """A needle as an ILIKE pattern that matches at least what it contains ('\\' escaped; '%' and '_' stay
    wildcards, so callers verify, as with the SQLite store)."""
    return "%" + needle.replace("\\", "\\\\") + "%"


class Stemmer:
    """Words -> lexemes through one of the server's text search dictionaries, cached for the process. A
    stop word (an empty answer) is kept as it is. With the Porter dictionary, words of fewer than 3 or more
    than 64 characters are kept as they are too, as FTS5's porter tokenizer keeps them (so the two stores
    stem alike: 22k words of the stdlib, click and flask differ in 6)."""

    def __init__(self, dictionary: str) -> None:
        self.dictionary = dictionary
        self._cache: dict[str, str] = {}
        self._lock = threading.Lock()
        self._kept = (3, 64) if dictionary == STEMMER else (0, 1 << 30)

    def learn(self, conn: Any, words: Iterable[str]) -> None:
        shortest, longest = self._kept
        unknown = [w for w in set(words) if w not in self._cache]
        kept = [w for w in unknown if not shortest <= len(w) <= longest]
        unknown = [w for w in unknown if shortest <= len(w) <= longest]
        rows = (
            conn.execute(
                "SELECT w, ts_lexize(%s::regdictionary, w) FROM unnest(%s::text[]) AS w",
                (self.dictionary, unknown),
            ).fetchall()
            if unknown
            else []
        )
        with self._lock:
            self._cache.update((w, w) for w in kept)
            for word, lexemes in rows:
                self._cache[word] = lexemes[0] if lexemes else word

    def lexeme(self, word: str) -> str:
        return self._cache[word]


_STEMMERS: dict[str, Stemmer] = {}


def stemmer(dictionary: str) -> Stemmer:
    """The process's stemmer of a dictionary (its cache is shared by every store of the process)."""
    found = _STEMMERS.get(dictionary)
    if found is None:
        found = _STEMMERS.setdefault(dictionary, Stemmer(dictionary))
    return found


def _fields(ch: Chunk) -> list[tuple[str, str]]:
    """(weight, text) of a chunk's searchable fields (search_fields filled), as the SQLite store's columns."""
    name, qualname, signature, doc, body_parts = ch.search_fields
    body = f"{ch.body}\n{body_parts}" if body_parts else ch.body
    return [
        ("A", name),
        ("B", qualname),
        ("B", signature),
        ("C", doc),
        ("D", body),
        ("D", _path_words(ch.path)),
    ]


def tsvector_text(fields: Sequence[tuple[str, list[str]]], stem: Callable[[str], str]) -> tuple[str, int]:
    """A tsvector literal (`'lex':1A,2A 'other':3D`) of weighted token lists, and the token count. Tokens
    are word characters only, so they need no quoting beyond the surrounding quotes."""
    positions: dict[str, list[str]] = {}
    pos = 0
    for weight, tokens in fields:
        for token in tokens:
            pos += 1
            slots = positions.setdefault(stem(token), [])
            if len(slots) < MAX_POSITIONS:
                slots.append(f"{min(pos, 16383)}{weight}")
    return " ".join(f"'{lex}':{','.join(p)}" for lex, p in positions.items()), pos


def _tsquery_term(term: str, stem: Callable[[str], str]) -> str | None:
    """One query term as tsquery text: a lexeme, or a phrase of lexemes (`'a' <-> 'b'`) for a term of
    several words, as FTS5 reads a quoted string; None when it holds no word."""
    lexemes = [f"'{stem(t)}'" for t in _tokens(term)]
    if not lexemes:
        return None
    return lexemes[0] if len(lexemes) == 1 else "(" + " <-> ".join(lexemes) + ")"


def _any(terms: Sequence[str]) -> str:
    """tsquery text matching any of these terms (one term as it is)."""
    return terms[0] if len(terms) == 1 else " | ".join(f"({t})" for t in terms)


# A chunk's score rounded to 1e-9: the server sums a chunk's terms in the order its plan meets them, so two
# chunks that tie in the SQLite store (the same frequencies and lengths, summed in one order there) could
# differ here in the last bit and leave the order of their ids.
_TIES = "round(({}) * 1e9) / 1e9"
_POSTED = re.compile(r"'(\w+)'(:ABC)?")  # a single word's tsquery term, maybe in the named fields only


def _posting_key(term: str) -> tuple[str, bool] | None:
    """(lexeme, named fields only) of a tsquery term that one word's postings answer; None for a phrase."""
    found = _POSTED.fullmatch(term)
    return (found[1], found[2] is not None) if found else None


def _edge_filter(
    paths: Sequence[str], names: Sequence[str], kinds: Sequence[str], aliases: Sequence[str] = ()
) -> tuple[str, list[object]]:
    """sqlite_store.edge_filter's WHERE clause with one array parameter per column (`= ANY(%s)`): one
    statement text whatever the number of values, so it is planned once and prepared, not planned again
    for every length of the lists (1 ms of a 5 ms look-up)."""
    edge_filter(paths, names, kinds, aliases=aliases)  # the same argument checks
    where: list[str] = []
    params: list[object] = []
    for column, values in (("f.path", paths), ("e.name", names), ("e.kind", kinds), ("e.alias", aliases)):
        if values:
            where.append(f"{column} = ANY(%s)")
            params.append(list(values))
    return " AND ".join(where), params


def _newer(stored: str, ours: str) -> bool:
    """Whether an edges version was written by a newer trifecta than ours (versions are whole numbers)."""
    return stored.isdigit() and ours.isdigit() and int(stored) > int(ours)


def _weighted(term: str, weights: str) -> str:
    """A tsquery term (`'a'`, `('a' <-> 'b')`) matching only in fields of these weights (`'a':ABC`)."""
    return _LEXEME.sub(rf"\g<0>:{weights}", term)


class PostgresIndex(IndexWriter, IndexReader):
    """One segment of a shared PostgreSQL index. The facade's store surface (writing, verify, replaced,
    reopen, rebuilt, read_only, path) is kept so the Engine treats it as it treats the SQLite file."""

    def __init__(
        self, url: str, segment: str, *, source: FileSource | None = None, searcher: bool = False
    ) -> None:
        """`source`: where the writer reads each written file's text from, to store it (None: not stored).
        `searcher`: open an existing segment to search it, creating and migrating nothing (a search machine
        with read-only rights, or a replica)."""
        if not segment:
            raise ValueError("a segment id is needed")
        self.url = url
        self.segment = segment
        self.searcher = searcher
        self.path = f"{redact(url)} (segment {segment})"  # what messages name
        self.read_only = False
        self.rebuilt: dict[str, str] | None = None
        self.fallbacks: list[str] = []
        self._source = source
        self._segment_id: int | None = None
        self._connection: Any = None
        self._lock_depth = 0
        self._generation = -1
        self._fresh_at = float("-inf")
        self._connects = 0  # connections opened: part of data_generation
        self._df_cache: dict[str, int] = {}
        self._states_cache: dict[str, FileState] | None = None
        self._counts_cache: tuple[int, int, int, int, str, float] | None = None
        self._dictionary = STEMMER  # the segment's stemmer (trifecta_segments.stemmer), learnt by _fresh
        self._written = 0  # files written since the planner's statistics were last refreshed

    # ---------------------------------------------------------------- lifecycle
    @property
    def _conn(self) -> Any:
        if self._connection is None or self._connection.closed:
            conn = connect(self.url)
            try:
                self.read_only = bool(
                    conn.execute(
                        "SELECT pg_is_in_recovery() OR current_setting('transaction_read_only') = 'on'"
                    ).fetchone()[0]
                )
                if self.read_only or self.searcher:  # a replica, or a search machine: search what is there
                    self._segment_id = self._existing_segment(conn)
                    self.fallbacks = fallbacks_of(conn)
                else:
                    _, self.fallbacks = migrate(conn)
                    self._segment_id = self._ensure_segment(conn)
            except ValueError as exc:
                conn.close()
                raise IndexUnavailable(
                    f"the index database {redact(self.url)} was written by a newer trifecta ({exc}); "
                    "upgrade trifecta to read it",
                    url=redact(self.url),
                    reason="schema",
                ) from None
            except BaseException:
                conn.close()
                raise
            self._connection = conn
            self._connects += 1
            self._forget()
            self._generation = -1
            self._fresh_at = float("-inf")
        return self._connection

    def _existing_segment(self, conn: Any) -> int:
        """On a read-only server, or to search: the segment's id, when the schema is one this version reads
        (READS_FROM to SCHEMA_VERSION) and the segment is there (nothing is created or migrated)."""
        version = None
        if conn.execute("SELECT to_regclass('trifecta_meta')").fetchone()[0] is not None:
            row = conn.execute("SELECT value FROM trifecta_meta WHERE key='schema_version'").fetchone()
            version = int(row[0]) if row else None
        kind = "read-only index database" if self.read_only else "index database"
        if version is None or not READS_FROM <= version <= SCHEMA_VERSION:
            raise IndexUnavailable(
                f"the {kind} {redact(self.url)} holds "
                + ("no trifecta index" if version is None else f"schema version {version}")
                + f" (this trifecta reads {READS_FROM} to {SCHEMA_VERSION}): "
                + (
                    "upgrade trifecta to read it"
                    if version is not None and version > SCHEMA_VERSION
                    else "index into " + ("its primary first" if self.read_only else "it first")
                ),
                url=redact(self.url),
                reason="schema",
            )
        row = conn.execute("SELECT id FROM trifecta_segments WHERE name=%s", (self.segment,)).fetchone()
        if row is None:
            raise IndexUnavailable(
                f"the {kind} {redact(self.url)} has no segment {self.segment!r}: index it "
                + ("into the primary first" if self.read_only else "first"),
                url=redact(self.url),
                reason="no_segment",
            )
        return int(row[0])

    def _ensure_segment(self, conn: Any) -> int:
        row = conn.execute(  # a new segment holds no edges: of this version, trivially
            "INSERT INTO trifecta_segments(name, edges_version) VALUES (%s, %s) ON CONFLICT (name) DO NOTHING "
            "RETURNING id",
            (self.segment, EDGES_VERSION),
        ).fetchone()
        if row is None:
            row = conn.execute("SELECT id FROM trifecta_segments WHERE name=%s", (self.segment,)).fetchone()
        return int(row[0])

    @property
    def _sid(self) -> int:
        self._conn  # noqa: B018 - opens the connection, which learns the segment id
        assert self._segment_id is not None
        return self._segment_id

    def _raise_named(self, exc: Exception) -> NoReturn:
        import psycopg

        if isinstance(exc, psycopg.OperationalError) or (
            isinstance(exc, psycopg.Error) and self._connection is not None and self._connection.closed
        ):
            self.close()
            raise IndexUnavailable(
                f"the index database {redact(self.url)} failed: {_first_line(exc)}; "
                "nothing half-written was committed",
                url=redact(self.url),
            ) from exc
        raise exc

    def verify(self) -> None:
        """Nothing to check here: the server keeps its own files whole (WAL, checksums when enabled)."""

    def replaced(self) -> bool:
        return False

    def reopen(self) -> None:
        self.close()

    def rebuild_needed(self) -> bool:
        return False

    def close(self) -> None:
        if self._connection is not None:
            with contextlib.suppress(Exception):
                self._connection.close()
            self._connection = None
            self._lock_depth = 0

    @contextlib.contextmanager
    def writing(self, wait_seconds: float = 0.0) -> Iterator[None]:
        """Hold this segment's writer lock (a session advisory lock, re-entrant); raises IndexLocked when
        another writer keeps it past `wait_seconds`. A writer that dies releases it with its connection."""
        if self._lock_depth:
            self._lock_depth += 1
            try:
                yield
            finally:
                self._lock_depth -= 1
            return
        sid = self._sid
        if self.searcher:
            raise ServerReadOnly(
                f"segment {self.segment!r} of {redact(self.url)} was opened to search it: index it from its "
                "checkout (trifecta index --db-url ... PATH)",
                url=redact(self.url),
                reason="read_only",
            )
        if self.read_only:
            raise ServerReadOnly(
                f"the index database {redact(self.url)} is read-only (a replica?): index into its primary",
                url=redact(self.url),
                reason="read_only",
            )
        self._fresh_at = float("-inf")
        deadline = time.monotonic() + wait_seconds
        while not self._try_lock(sid):
            if time.monotonic() >= deadline:
                raise IndexLocked(
                    f"another trifecta process is indexing segment {self.segment!r} in {redact(self.url)}; "
                    "wait for it to finish and retry",
                    data={"path": self.path},
                )
            time.sleep(0.1)
        self._lock_depth = 1
        try:
            self._restem(sid)
            yield
        finally:
            self._lock_depth = 0
            if self._connection is not None and not self._connection.closed:
                with contextlib.suppress(Exception):
                    self._connection.execute("SELECT pg_advisory_unlock(%s, %s)", (_LOCK_CLASS, sid))

    @_guard
    def _restem(self, sid: int) -> None:
        """A segment written with an older stemmer is emptied under its writer lock, so this run writes it
        whole with the current one (its old lexemes would not match the words a query is stemmed into now):
        as the SQLite store rebuilds a file of another schema version. Searchers see it rebuilt."""
        self._fresh_at = float("-inf")
        self._fresh()
        if self._dictionary == STEMMER:
            return
        with self._conn.transaction():
            self._conn.execute("SELECT id FROM trifecta_segments WHERE id=%s FOR UPDATE", (sid,))
            for table in (
                "trifecta_chunks", "trifecta_postings", "trifecta_symbols", "trifecta_edges", "trifecta_files",
                "trifecta_skipped_files",
            ):  # fmt: skip
                self._conn.execute(f"DELETE FROM {table} WHERE segment_id=%s", (sid,))
            self._conn.execute(
                "UPDATE trifecta_segments SET stemmer=%s, built_at='', edges_version=%s, "
                "generation = generation + 1 WHERE id=%s",
                (STEMMER, EDGES_VERSION, sid),
            )
        detail = f"segment {self.segment!r} was stemmed with {self._dictionary}; rewritten with {STEMMER}"
        self.rebuilt = {"reason": "stemmer", "detail": detail, "kept": ""}
        self._fresh_at = float("-inf")
        self._fresh()

    @_guard
    def _try_lock(self, sid: int) -> bool:
        return bool(
            self._conn.execute("SELECT pg_try_advisory_lock(%s, %s)", (_LOCK_CLASS, sid)).fetchone()[0]
        )

    def _forget(self) -> None:
        self._df_cache.clear()
        self._states_cache = None
        self._counts_cache = None

    def _fresh(self) -> None:
        """Drop the caches when any connection committed a write to this segment since they were filled.
        Asked at most every FRESH_SECONDS (a search asks several times; each is a round trip), and always
        when this process takes the writer lock."""
        now = time.monotonic()
        if now - self._fresh_at < FRESH_SECONDS:
            return
        self._fresh_at = now
        row = self._conn.execute(
            "SELECT generation, stemmer FROM trifecta_segments WHERE id=%s", (self._sid,)
        ).fetchone()
        generation = int(row[0]) if row else -1
        if row:
            self._dictionary = row[1]
        if generation != self._generation:
            self._generation = generation
            self._forget()

    # ---------------------------------------------------------------- writing
    @_guard
    def file_states(self) -> dict[str, FileState]:
        self._fresh()
        if self._states_cache is None:
            self._states_cache = {
                r[0]: FileState(path=r[0], size=r[1], mtime_ns=r[2], sha256=r[3])
                for r in self._conn.execute(
                    "SELECT path, size, mtime_ns, sha256 FROM trifecta_files WHERE segment_id=%s UNION ALL "
                    "SELECT path, size, mtime_ns, %s || reason FROM trifecta_skipped_files WHERE segment_id=%s",
                    (self._sid, SKIPPED_PREFIX, self._sid),
                )
            }
        return self._states_cache

    @_guard
    def apply(
        self, updates: Sequence[FileUpdate], deleted: Sequence[str], touched: Sequence[FileState]
    ) -> None:
        conn, sid = self._conn, self._sid
        skipped = [up.state for up in updates if up.state.sha256.startswith(SKIPPED_PREFIX)]
        written = [up for up in updates if not up.state.sha256.startswith(SKIPPED_PREFIX)]
        prepared = [self._prepare(up) for up in written]  # tokens and stems before the transaction opens
        try:
            with conn.transaction():
                paths = [up.state.path for up in updates]
                if deleted or paths:
                    self._remove([*deleted, *paths])
                    conn.execute(
                        "DELETE FROM trifecta_files WHERE segment_id=%s AND path = ANY(%s)",
                        (sid, [*deleted, *(st.path for st in skipped)]),
                    )
                    conn.execute(
                        "DELETE FROM trifecta_skipped_files WHERE segment_id=%s AND path = ANY(%s)",
                        (sid, [*deleted, *paths]),
                    )
                with conn.cursor() as cur:
                    if skipped:
                        cur.executemany(
                            "INSERT INTO trifecta_skipped_files(segment_id, path, size, mtime_ns, reason) "
                            "VALUES (%s, %s, %s, %s, %s)",
                            [
                                (sid, st.path, st.size, st.mtime_ns, st.sha256.removeprefix(SKIPPED_PREFIX))
                                for st in skipped
                            ],
                        )
                    if touched:
                        cur.executemany(
                            "UPDATE trifecta_files SET size=%s, mtime_ns=%s WHERE segment_id=%s AND path=%s",
                            [(st.size, st.mtime_ns, sid, st.path) for st in touched],
                        )
                file_ids = [self._write_file(up, rows) for up, rows in zip(written, prepared, strict=True)]
                if file_ids:
                    conn.execute(
                        f"INSERT INTO trifecta_postings(segment_id, file_id, lexeme, chunk, tf, named, n_tokens) "
                        f"{_POSTINGS_OF} WHERE c.segment_id=%s AND c.file_id = ANY(%s) ORDER BY u.lexeme",
                        (sid, file_ids),
                    )
                self._written += len(file_ids)
                # Edges of this version written beside another's: the segment's edges are of no one version
                # until this run finishes (a run killed before that leaves '', and the next one re-parses
                # every file, whichever version it is).
                conn.execute(
                    "UPDATE trifecta_segments SET generation = generation + 1, edges_version = CASE "
                    "WHEN edges_version = %s OR %s THEN edges_version ELSE '' END WHERE id=%s",
                    (EDGES_VERSION, not written, sid),
                )
        finally:
            self._forget()

    def _remove(self, paths: Sequence[str]) -> None:
        conn, sid = self._conn, self._sid
        ids = "SELECT id FROM trifecta_files WHERE segment_id=%s AND path = ANY(%s)"
        for table in ("trifecta_chunks", "trifecta_postings", "trifecta_symbols", "trifecta_edges"):
            conn.execute(
                f"DELETE FROM {table} WHERE segment_id=%s AND file_id IN ({ids})", (sid, sid, list(paths))
            )

    def _prepare(self, up: FileUpdate) -> list[tuple[Any, ...]]:
        """The chunk rows of a file, tsvector and token count included (tokenized and stemmed here)."""
        chunks = [ch if ch.search_fields else ch.with_search_fields() for ch in up.parsed.chunks]
        tokenized = [[(w, _tokens(text)) for w, text in _fields(ch)] for ch in chunks]
        self._fresh()
        stems = stemmer(self._dictionary)
        stems.learn(self._conn, (t for fields in tokenized for _, tokens in fields for t in tokens))
        rows = []
        for ch, fields in zip(chunks, tokenized, strict=True):
            tsv, n_tokens = tsvector_text(fields, stems.lexeme)
            rows.append(
                (
                    ch.id, ch.path, ch.start_line, ch.end_line, ch.kind.value, ch.language, ch.symbol,
                    ch.name, _text(ch.signature), _text(ch.doc), _text(ch.body), tsv, n_tokens,
                )
            )  # fmt: skip
        return rows

    def _content(self, state: FileState) -> str | None:
        """The text of a written file as the indexer hashed it, or None (no source, or it changed since)."""
        if self._source is None:
            return None
        try:
            data = self._source.read_bytes(state.path)
        except (OSError, ValueError, CodedError, OutsideSegment):
            return None
        if hashlib.sha256(data).hexdigest() != state.sha256:
            return None
        return _text(data.decode("utf-8", errors="replace"))

    def _write_file(self, up: FileUpdate, chunk_rows: list[tuple[Any, ...]]) -> int:
        """Write one file's rows (its postings are read back from its chunks by the caller); its id."""
        conn, sid = self._conn, self._sid
        st, parsed = up.state, up.parsed
        file_id = conn.execute(
            "INSERT INTO trifecta_files(segment_id, path, size, mtime_ns, sha256, language, n_lines, parse_error, "
            "content) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s) ON CONFLICT (segment_id, path) DO UPDATE SET "
            "size=excluded.size, mtime_ns=excluded.mtime_ns, sha256=excluded.sha256, language=excluded.language, "
            "n_lines=excluded.n_lines, parse_error=excluded.parse_error, content=excluded.content RETURNING id",
            (
                sid, st.path, st.size, st.mtime_ns, st.sha256, parsed.language, up.n_lines, parsed.error,
                self._content(st),
            ),
        ).fetchone()[0]  # fmt: skip
        with conn.cursor() as cur:
            if parsed.symbols:
                with cur.copy(
                    "COPY trifecta_symbols(segment_id, file_id, name, qualname, kind, start_line, end_line, "
                    "def_line, signature, docstring, decorators, bases, params, is_async, parent, depth, exported) "
                    "FROM STDIN"
                ) as copy:
                    for s in parsed.symbols:
                        copy.write_row(
                            (
                                sid, file_id, s.name, s.qualname, s.kind.value, s.start_line, s.end_line,
                                s.def_line, _text(s.signature), _text(s.docstring), _json_list(s.decorators),
                                _json_list(s.bases), _json_list(s.params), s.is_async, s.parent, s.depth,
                                s.exported,
                            )
                        )  # fmt: skip
            edge_rows = parsed.edge_table()
            if edge_rows:
                with cur.copy(
                    "COPY trifecta_edges(segment_id, file_id, kind, caller, line, col, name, text, alias) FROM STDIN"
                ) as copy:
                    for kind, caller, line, col, name, text, alias in edge_rows:
                        copy.write_row((sid, file_id, kind, caller, line, col, name, _text(text), alias))
            if chunk_rows:
                with cur.copy(
                    "COPY trifecta_chunks(segment_id, file_id, chunk_id, path, start_line, end_line, kind, "
                    "language, symbol, name, signature, doc, body, tsv, n_tokens) FROM STDIN"
                ) as copy:
                    for row in chunk_rows:
                        copy.write_row((sid, file_id, *row))
        return int(file_id)

    # The trigram index is shared by every segment and PostgreSQL maintains it row by row at a fair cost:
    # it is never dropped for one segment's bulk load.
    def substring_index_ready(self) -> bool:
        return True

    def suspend_substring_index(self) -> None:
        pass

    def build_substring_index(self) -> None:
        pass

    @_guard
    def has_completed_run(self) -> bool:
        row = self._conn.execute(
            "SELECT built_at FROM trifecta_segments WHERE id=%s", (self._sid,)
        ).fetchone()
        return bool(row and row[0])

    @_guard
    def edges_current(self) -> bool:
        """Whether the segment's edges were all written with this version's EDGES_VERSION (asked under the
        writer lock, at a run's start: when not, the run re-parses every file). Edges of a newer trifecta are
        not current either: this run rewrites them as its version records them, says so (INDEX_REBUILT,
        reason `edges`) and stamps its own version, never the newer one; the newer trifecta's next run
        re-parses the segment again."""
        row = self._conn.execute(
            "SELECT edges_version FROM trifecta_segments WHERE id=%s", (self._sid,)
        ).fetchone()
        stored = row[0] if row else ""
        if _newer(stored, EDGES_VERSION):
            detail = (
                f"segment {self.segment!r} holds call edges of version {stored}, written by a newer trifecta; "
                f"rewritten with this version's ({EDGES_VERSION}): upgrade trifecta to keep the newer edges"
            )
            self.rebuilt = {"reason": "edges", "detail": detail, "kept": ""}
        return stored == EDGES_VERSION

    @_guard
    def finish_run(self, built_at: str) -> None:
        """Mark the run complete, its edges of this version (index_segment re-parsed every file when they
        were not: edges_current)."""
        self._conn.execute(
            "UPDATE trifecta_segments SET built_at=%s, edges_version=%s, generation = generation + 1 WHERE id=%s",
            (built_at, EDGES_VERSION, self._sid),
        )
        self._forget()
        if self._written >= ANALYZE_AFTER_FILES and not self._conn.info.transaction_status:
            # Until autovacuum comes by (a minute, or longer) a segment that grew a lot has stale planner
            # estimates (the planner then filters every chunk of the segment instead of asking the GIN
            # index) and pages not yet marked all-visible (every posting an index-only scan reads is looked
            # up in the table too: twice the time). VACUUM reads only the pages not marked yet (0.1 s after
            # the stdlib). SKIP_LOCKED: a writer of another segment vacuuming the table is never waited for.
            self._conn.execute(
                "VACUUM (ANALYZE, SKIP_LOCKED) trifecta_chunks, trifecta_postings, trifecta_symbols, "
                "trifecta_files, trifecta_edges, trifecta_embeddings"
            )
            self._written = 0

    # ---------------------------------------------------------------- reading
    @_guard
    def data_generation(self) -> object:
        """The segment's generation (bumped in the transaction of every write, this process's or another
        client's: a run on another machine changes it when its first batch commits), asked of the server at
        every call, not once in FRESH_SECONDS: a call graph kept by it must not outlive another client's
        write (one round trip, ~0.1 ms, against a graph's look-ups). With the connection it was read on: a
        reconnected store starts its caches anew."""
        self._fresh_at = float("-inf")
        self._fresh()
        return (self._connects, self._generation)

    def _counts(self, *, check: bool = True) -> tuple[int, int, int, int, str, float]:
        """Files, files with parse errors, symbols, chunks, when built, mean tokens per chunk: cached
        until this segment's data changes (`check`: ask the server whether it did)."""
        if check:
            self._fresh()
        if self._counts_cache is None:
            c, sid = self._conn, self._sid
            files, errors = c.execute(
                "SELECT count(*), count(*) FILTER (WHERE parse_error != '') FROM trifecta_files "
                "WHERE segment_id=%s",
                (sid,),
            ).fetchone()
            chunks, mean = c.execute(
                "SELECT count(*), coalesce(avg(n_tokens), 1) FROM trifecta_chunks WHERE segment_id=%s", (sid,)
            ).fetchone()
            symbols = c.execute(
                "SELECT count(*) FROM trifecta_symbols WHERE segment_id=%s", (sid,)
            ).fetchone()[0]
            built = c.execute("SELECT built_at FROM trifecta_segments WHERE id=%s", (sid,)).fetchone()
            self._counts_cache = (
                files,
                errors,
                symbols,
                chunks,
                built[0] if built else "",
                float(mean) or 1.0,
            )
        return self._counts_cache

    @_guard
    def stats(self) -> IndexStats:
        files, errors, symbols, chunks, built_at, _ = self._counts()
        size = 0  # the segment's share of a shared database is not worth a scan per call
        return IndexStats(
            files=files, symbols=symbols, chunks=chunks, built_at=built_at, parse_errors=errors, db_bytes=size
        )

    def _stem(self, words: Iterable[str]) -> Callable[[str], str]:
        self._fresh()
        stems = stemmer(self._dictionary)
        stems.learn(self._conn, words)
        return stems.lexeme

    @_guard
    def search_terms(
        self,
        groups: Sequence[Sequence[str]],
        *,
        require_all: bool,
        limit: int,
        alternative_weights: Sequence[float] = (),
    ) -> list[ScoredChunk]:
        """The SQLite store's search_terms, rule for rule: the same clauses (a word's alternatives, kept
        apart even when they stem alike: FTS5 scores every phrase of the expression on its own), the same
        common-word filter and the same any-word tiers, each ranked as FTS5 ranks it."""
        stem = self._stem(t for group in groups for term in group for t in _tokens(term))
        clauses: list[list[str]] = []  # per query word, its alternatives as tsquery terms
        weight_of: dict[
            tuple[str, ...], float
        ] = {}  # a clause -> the weight of its alternatives after the first
        for i, group in enumerate(groups):
            alts = [q for q in (_tsquery_term(t, stem) for t in dict.fromkeys(group)) if q]
            if alts:
                clauses.append(alts)
                if i < len(alternative_weights):
                    weight_of[tuple(alts)] = alternative_weights[i]
        if not clauses:
            return []
        n_chunks = self._counts()[3]
        # every frequency this search may ask for, in one round trip: each term's (for its idf), in the named
        # fields too (the first tier of two words), and each word's (the common-word filter)
        phrases = [p for alts in clauses for p in alts]
        self._learn_frequencies(
            [*([p] for p in phrases), *([_weighted(p, "ABC")] for p in phrases), *clauses]
        )
        if not require_all and len(clauses) > 1 and n_chunks >= COMMON_WORDS_FROM_CHUNKS:
            # as the SQLite store: a word in a quarter of the chunks or more is left out of an any-word query
            frequency = [self._doc_frequency(alts) for alts in clauses]
            # a word no chunk holds is not rare (kept alone, it would leave the question unanswered)
            rare = [alts for alts, df in zip(clauses, frequency, strict=True) if 0 < df <= n_chunks / 4]
            clauses = rare or [alts for alts, df in zip(clauses, frequency, strict=True) if df] or clauses
        if require_all or len(clauses) == 1:
            return self._ranked(
                [self._scoring(alts, n_chunks) for alts in clauses] if require_all else
                [self._scoring([p for alts in clauses for p in alts], n_chunks)],
                limit,
            )  # fmt: skip
        if len(clauses) > 2:
            return self._ranked_any(
                [self._scoring(alts, n_chunks, weight_of.get(tuple(alts), 1.0)) for alts in clauses], limit
            )
        # Two words: first the chunks that name one of them (name, qualname, signature, doc: weights A-C;
        # as in FTS5's column filter, only those fields count, for the match, the frequency and the idf),
        # then any chunk holding one.
        tiers = (
            [_weighted(p, "ABC") for alts in clauses for p in alts],
            [p for alts in clauses for p in alts],
        )
        found: list[ScoredChunk] = []
        seen: set[str] = set()
        for phrases in tiers:
            found += [
                sc
                for sc in self._ranked([self._scoring(phrases, n_chunks)], limit)
                if sc.chunk.id not in seen
            ]
            if len(found) >= limit:
                break
            seen = {sc.chunk.id for sc in found}
        return found[:limit]

    def _scoring(
        self, phrases: Sequence[str], n_chunks: int, alternative_weight: float = 1.0
    ) -> list[tuple[str, float]]:
        """Each phrase with its idf, FTS5's: log((N - n + 0.5) / (n + 0.5)), at least 1e-6; the phrases after
        the first times `alternative_weight` (bm25 is linear in a phrase's idf)."""
        self._learn_frequencies([[p] for p in phrases])
        scoring = []
        for i, phrase in enumerate(phrases):
            df = self._doc_frequency([phrase])
            idf = math.log((n_chunks - df + 0.5) / (df + 0.5)) if n_chunks else 0.0
            scoring.append((phrase, (idf if idf > 0 else 1e-6) * (alternative_weight if i else 1.0)))
        return scoring

    def _learn_frequencies(self, clauses: Sequence[Sequence[str]]) -> None:
        """Fill the cache of the chunk counts matching each clause (any of its terms) in one round trip,
        from the postings, for the clauses whose terms are single words (a phrase is asked by _doc_frequency)."""
        todo: dict[str, list[tuple[str, bool]]] = {}
        for alts in clauses:
            keys = [_posting_key(t) for t in alts]
            if _any(alts) not in self._df_cache and all(keys):
                todo[_any(alts)] = [k for k in keys if k]
        if not todo:
            return
        group, lexemes, named = [], [], []
        for i, posted in enumerate(todo.values()):
            for lexeme, only_named in posted:
                group.append(i)
                lexemes.append(lexeme)
                named.append(only_named)
        rows = self._conn.execute(
            "SELECT t.g, count(DISTINCT p.chunk) FROM unnest(%s::int[], %s::text[], %s::bool[]) AS t(g, lexeme, named) "
            "JOIN trifecta_postings p ON p.segment_id=%s AND p.lexeme = t.lexeme AND (p.named > 0 OR NOT t.named) "
            "GROUP BY t.g",
            (group, lexemes, named, self._sid),
        ).fetchall()
        counts = dict(rows)
        for i, text in enumerate(todo):
            self._df_cache[text] = int(counts.get(i, 0))

    def _doc_frequency(self, alts: Sequence[str]) -> int:
        """Chunks matching any of these tsquery terms; cached until the data changes (callers `_fresh` first)."""
        text = _any(alts)
        if text not in self._df_cache:
            self._df_cache[text] = self._conn.execute(
                "SELECT count(*) FROM trifecta_chunks WHERE segment_id=%s AND tsv @@ %s::tsquery",
                (self._sid, text),
            ).fetchone()[0]
        return self._df_cache[text]

    def _hits(
        self, clauses: Sequence[Sequence[tuple[str, float]]], within: Sequence[str] = ()
    ) -> tuple[str, list[object]]:
        """SQL (and its parameters) of the rows (id, clause, score): for each chunk holding a term of a
        clause, FTS5's bm25 (k1 1.2, b 0.75) of the clause's terms in it: per term, its idf times its
        weighted frequency through the length norm, summed. A single word's frequency is read from its
        postings; a phrase's from the tsvectors of the chunks holding it (ts_rank_cd without normalization
        is the sum of its occurrences' weights; RANK_WEIGHTS are the field weights / 10). `within`: only
        the chunks holding one of these lexemes (the rarest clause of an all-words query) are summed."""
        mean = self._counts(check=False)[5]
        group, lexemes, named, idfs = [], [], [], []
        branches, params = [], []
        for i, scoring in enumerate(clauses):
            for text, idf in scoring:
                key = _posting_key(text)
                if key is not None:
                    group.append(i)
                    lexemes.append(key[0])
                    named.append(key[1])
                    idfs.append(idf * (BM25_K1 + 1))
                    continue
                branches.append(
                    f"SELECT c.id, %s, %s::float8, round(10 * ts_rank_cd('{RANK_WEIGHTS}', c.tsv, %s::tsquery, 0)), "
                    "c.n_tokens FROM trifecta_chunks c WHERE c.segment_id=%s AND c.tsv @@ %s::tsquery"
                )
                params += [i, idf * (BM25_K1 + 1), text, self._sid, text]
        if lexemes:
            branches.insert(
                0,
                "SELECT p.chunk, t.g, t.idf, CASE WHEN t.named THEN p.named ELSE p.tf END::float8, p.n_tokens "
                "FROM unnest(%s::int[], %s::text[], %s::bool[], %s::float8[]) AS t(g, lexeme, named, idf) "
                "JOIN trifecta_postings p ON p.segment_id=%s AND p.lexeme = t.lexeme AND (p.named > 0 OR NOT t.named)"
                + (
                    " AND p.chunk IN (SELECT q.chunk FROM trifecta_postings q WHERE q.segment_id=%s "
                    "AND q.lexeme = ANY(%s))"
                    if within
                    else ""
                ),
            )
            params[:0] = [
                group,
                lexemes,
                named,
                idfs,
                self._sid,
                *((self._sid, list(within)) if within else ()),
            ]
        # idf * f * (k1 + 1) / (f + K) written as idf * (k1 + 1) * (1 - K / (f + K)), K = k1 * (1 - b + b * |D| / avgdl)
        norm = "(%s * (1 - %s + %s * h.n / %s))"
        k = [BM25_K1, BM25_B, BM25_B, mean]
        sql = (
            f"SELECT h.id, h.g, sum(h.idf * (1 - {norm} / (h.f + {norm}))) AS score "
            f"FROM ({' UNION ALL '.join(branches)}) AS h(id, g, idf, f, n) GROUP BY h.id, h.g"
        )
        return sql, [*k, *k, *params]

    def _chunks_ranked(self, ranked_sql: str, params: Sequence[object], order: str) -> list[ScoredChunk]:
        """The chunks of the ranked ids (a statement yielding id, score and the `order` columns), whole."""
        rows = self._conn.execute(
            f"SELECT {_CHUNK_COLS}, s.score FROM ({ranked_sql}) AS s "
            f"JOIN trifecta_chunks c ON c.segment_id=%s AND c.id = s.id ORDER BY {order}",
            (*params, self._sid),
        ).fetchall()
        return [ScoredChunk(chunk=_chunk(r), score=float(r[11])) for r in rows]

    def _ranked(self, clauses: Sequence[Sequence[tuple[str, float]]], limit: int) -> list[ScoredChunk]:
        """The chunks holding a term of every clause, best summed bm25 first; ties in the order they were
        written. With several clauses, only the chunks holding the rarest one are summed (a common word
        such as `def` has postings in most chunks: summing them all would cost most of the search)."""
        hits, params = self._hits(clauses, self._rarest(clauses) if len(clauses) > 1 else ())
        return self._chunks_ranked(
            f"SELECT id, {_TIES.format('sum(score)')} AS score FROM ({hits}) AS h GROUP BY id HAVING count(*) = %s "
            "ORDER BY score DESC, id LIMIT %s",
            (*params, len(clauses), limit),
            "s.score DESC, s.id",
        )

    def _rarest(self, clauses: Sequence[Sequence[tuple[str, float]]]) -> list[str]:
        """The lexemes of the clause held by the fewest chunks among those of single words in any field
        (known from their idf's frequencies); none when no clause is such."""
        plain = []
        for scoring in clauses:
            keys = [_posting_key(text) for text, _ in scoring]
            if all(key is not None and not key[1] for key in keys):
                held = sum(self._doc_frequency([text]) for text, _ in scoring)
                plain.append((held, [key[0] for key in keys if key]))
        return min(plain)[1] if plain else []

    def _ranked_any(self, clauses: Sequence[Sequence[tuple[str, float]]], limit: int) -> list[ScoredChunk]:
        """Any of three or more words, in the SQLite store's two tiers (SqliteIndex._ranked_any): the chunks
        holding at least two of the first MAX_PAIR_CLAUSES words, a chunk holding m of them scored
        (m - 1) ** COORDINATION (the SQLite store's) times the sum of their bm25; then the chunks holding
        one, scored by the sum over every word. Ties in the order they were written."""
        hits, params = self._hits(clauses)
        return self._chunks_ranked(
            "SELECT id, held >= 2 AS paired, "
            + _TIES.format("CASE WHEN held >= 2 THEN power(held - 1, %s) * paired ELSE total END")
            + " AS score FROM (SELECT id, count(*) FILTER (WHERE g < %s) AS held, "
            f"sum(score) FILTER (WHERE g < %s) AS paired, sum(score) AS total FROM ({hits}) AS h GROUP BY id) AS m "
            "ORDER BY paired DESC, score DESC, id LIMIT %s",
            (COORDINATION, MAX_PAIR_CLAUSES, MAX_PAIR_CLAUSES, *params, limit),
            "s.paired DESC, s.score DESC, s.id",
        )

    @_guard
    def substring_candidates(self, needles: Sequence[str], *, limit: int) -> list[Chunk]:
        needles = [n.replace("\x00", "") for n in needles if n]
        if not needles:
            return []
        # ILIKE folds the case of every body it tests (three times slower than LIKE): a needle with no cased
        # character matches alike either way.
        where = " AND ".join(f"c.body {'ILIKE' if n.lower() != n.upper() else 'LIKE'} %s" for n in needles)
        rows = self._conn.execute(
            f"SELECT {_CHUNK_COLS} FROM trifecta_chunks c WHERE c.segment_id=%s AND {where} "
            "ORDER BY c.path, c.start_line LIMIT %s",
            (self._sid, *map(_like, needles), limit),
        )
        return [_chunk(r) for r in rows]

    @_guard
    def iter_chunks(self, paths: Iterable[str] | None = None) -> Iterator[Chunk]:
        if paths is None:
            rows = self._conn.execute(
                f"SELECT {_CHUNK_COLS} FROM trifecta_chunks c WHERE c.segment_id=%s ORDER BY c.id",
                (self._sid,),
            ).fetchall()
            yield from map(_chunk, rows)
            return
        for path in paths:
            rows = self._conn.execute(
                f"SELECT {_CHUNK_COLS} FROM trifecta_chunks c WHERE c.segment_id=%s AND c.path=%s "
                "ORDER BY c.start_line",
                (self._sid, path),
            ).fetchall()
            yield from map(_chunk, rows)

    @_guard
    def chunk(self, chunk_id: str) -> Chunk | None:
        row = self._conn.execute(
            f"SELECT {_CHUNK_COLS} FROM trifecta_chunks c WHERE c.segment_id=%s AND c.chunk_id=%s",
            (self._sid, chunk_id),
        ).fetchone()
        return _chunk(row) if row else None

    @_guard
    def file(self, path: str) -> StoredFile | None:
        row = self._conn.execute(
            "SELECT path, language, n_lines, parse_error, sha256 FROM trifecta_files "
            "WHERE segment_id=%s AND path=%s",
            (self._sid, path),
        ).fetchone()
        return (
            StoredFile(path=row[0], language=row[1], n_lines=row[2], parse_error=row[3], sha256=row[4])
            if row
            else None
        )

    @_guard
    def files(self) -> list[StoredFile]:
        return [
            StoredFile(path=r[0], language=r[1], n_lines=r[2], parse_error=r[3], sha256=r[4])
            for r in self._conn.execute(
                "SELECT path, language, n_lines, parse_error, sha256 FROM trifecta_files WHERE segment_id=%s "
                'ORDER BY path COLLATE "C"',
                (self._sid,),
            )
        ]

    def _symbol_rows(self, where: str, params: Sequence[object], tail: str = "") -> list[tuple[str, Symbol]]:
        rows = self._conn.execute(
            f"SELECT f.path, {_SYMBOL_COLS} FROM trifecta_symbols s JOIN trifecta_files f "
            "ON f.segment_id = s.segment_id AND f.id = s.file_id "
            f'WHERE s.segment_id=%s AND {where} ORDER BY f.path COLLATE "C", s.start_line{tail}',
            (self._sid, *params),
        ).fetchall()
        return [(r[0], _symbol(r[1:])) for r in rows]

    @_guard
    def edges(
        self,
        *,
        paths: Sequence[str] = (),
        names: Sequence[str] = (),
        kinds: Sequence[str] = (),
        aliases: Sequence[str] = (),
    ) -> list[tuple[str, Edge]]:
        where, params = _edge_filter(paths, names, kinds, aliases)
        rows = self._conn.execute(
            "SELECT f.path, e.kind, e.caller, e.line, e.col, e.name, e.text, e.alias FROM trifecta_edges e "
            "JOIN trifecta_files f ON f.segment_id = e.segment_id AND f.id = e.file_id "
            f'WHERE e.segment_id=%s AND {where} ORDER BY f.path COLLATE "C", e.line, e.col',
            (self._sid, *params),
        ).fetchall()
        return [(r[0], edge_from_row(r[1:])) for r in rows]

    @_guard
    def call_names(
        self, paths: Sequence[str], names: Sequence[str], callers: Sequence[str] = ()
    ) -> list[tuple[str, str, str]]:
        if not paths or not names:
            return []
        where, params = _edge_filter(paths, names, (EdgeKind.CALL.value,))
        rows = self._conn.execute(
            "SELECT f.path, e.caller, e.name FROM trifecta_edges e "
            "JOIN trifecta_files f ON f.segment_id = e.segment_id AND f.id = e.file_id "
            f"WHERE e.segment_id=%s AND {where}",
            (self._sid, *params),
        ).fetchall()
        return [(r[0], r[1], r[2]) for r in rows]

    @_guard
    def name_uses(self, names: Sequence[str]) -> dict[str, int]:
        if not names:
            return {}
        rows = self._conn.execute(
            "SELECT name, COUNT(DISTINCT file_id) FROM trifecta_edges "
            "WHERE segment_id=%s AND name = ANY(%s) AND kind NOT IN ('return', 'doc', 'scope') GROUP BY name",
            (self._sid, sorted(set(names))),
        ).fetchall()
        return {r[0]: int(r[1]) for r in rows}

    @_guard
    def symbols(self, path: str) -> list[Symbol]:
        rows = self._conn.execute(
            f"SELECT {_SYMBOL_COLS} FROM trifecta_symbols s JOIN trifecta_files f "
            "ON f.segment_id = s.segment_id AND f.id = s.file_id "
            "WHERE s.segment_id=%s AND f.path=%s ORDER BY s.start_line, s.depth",
            (self._sid, path),
        ).fetchall()
        return [_symbol(r) for r in rows]

    @_guard
    def find_symbols(
        self, *, name: str | None = None, qualname: str | None = None
    ) -> list[tuple[str, Symbol]]:
        if qualname is not None:
            return self._symbol_rows("s.qualname=%s", (qualname,))
        return self._symbol_rows("s.name=%s", (name,))

    @_guard
    def all_symbols(self) -> Iterator[tuple[str, Symbol]]:
        yield from self._symbol_rows("TRUE", ())

    @_guard
    def structural_candidates(
        self,
        *,
        bases: Sequence[str] = (),
        decorator: str = "",
        is_async: bool = False,
        parent: str = "",
        path_words: Sequence[str] = (),
        kinds: Sequence[str] = (),
        exported: bool | None = None,
        signature: str = "",
        limit: int = 2000,
    ) -> list[tuple[str, Symbol]]:
        where: list[str] = []
        params: list[object] = []
        if bases:
            where.append("(" + " OR ".join("s.bases ILIKE %s" for _ in bases) + ")")
            params.extend(map(_like, bases))
        if parent:
            where.append("s.qualname LIKE %s")
            params.append(parent.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + ".%")
        if path_words:
            where.append("(" + " OR ".join("f.path ILIKE %s" for _ in path_words) + ")")
            params.extend(map(_like, path_words))
        if decorator:
            where.append("s.decorators ILIKE %s")
            params.append(_like(decorator.lstrip("*")))
        if is_async:
            where.append("s.is_async")
        if signature:
            where.append("s.signature ILIKE %s")
            params.append(_like(signature))
        if kinds:
            where.append("s.kind = ANY(%s)")
            params.append(list(kinds))
        if not where:
            return []
        if exported is not None:
            where.append("s.exported = %s")
            params.append(exported)
        return self._symbol_rows(" AND ".join(where), params, f" LIMIT {int(limit)}")

    @_guard
    def containing_chunk(self, path: str, line: int) -> Chunk | None:
        row = self._conn.execute(
            f"SELECT {_CHUNK_COLS} FROM trifecta_chunks c WHERE c.segment_id=%s AND c.path=%s "
            "AND c.start_line<=%s AND c.end_line>=%s AND c.kind != 'module' "
            "ORDER BY c.end_line - c.start_line, c.id LIMIT 1",
            (self._sid, path, line, line),
        ).fetchone()
        return _chunk(row) if row else None

    @_guard
    def vocabulary(self, limit: int) -> list[str]:
        rows = self._conn.execute(
            "SELECT name FROM trifecta_symbols WHERE segment_id=%s AND depth <= 1 GROUP BY name "
            'ORDER BY count(*) DESC, name COLLATE "C" LIMIT %s',
            (self._sid, limit),
        )
        return [r[0] for r in rows]

    @_guard
    def stored_text(self, path: str) -> bytes | None:
        """The text of an indexed file as it was written, None when it is not stored."""
        row = self._conn.execute(
            "SELECT content FROM trifecta_files WHERE segment_id=%s AND path=%s", (self._sid, path)
        ).fetchone()
        return row[0].encode("utf-8") if row and row[0] is not None else None

    # ---------------------------------------------------------------- for the vector store beside it
    def segment_key(self) -> int:
        """This segment's id in the database's tables."""
        return self._sid

    @_guard
    def run(self, sql: str, params: Sequence[object] = ()) -> Any:
        """One statement on this store's connection (parameters only); its cursor."""
        return self._conn.execute(sql, params)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Any]:
        """The connection inside one transaction: committed whole or rolled back; failures named."""
        try:
            conn = self._conn
            with conn.transaction():
                yield conn
        except Exception as exc:
            self._raise_named(exc)

    @_guard
    def has_pgvector(self) -> bool:
        return _has_extension(self._conn, "vector")

    @_guard
    def segments(self) -> list[str]:
        """Every segment in this database that finished a run, by name."""
        rows = self._conn.execute("SELECT name FROM trifecta_segments WHERE built_at != '' ORDER BY name")
        return [r[0] for r in rows]


class PostgresRewriteCache(RewriteCache):
    """The rewrite cache (application.rewrite.RewriteCache) of one segment of a shared index, beside its
    tables; the newest MAX_ROWS rows per segment are kept. Errors are misses for the caller."""

    def __init__(self, store: PostgresIndex, *, max_rows: int = 5000) -> None:
        self._store = store
        self.max_rows = max_rows

    def get(self, key: RewriteKey) -> RewrittenQuery | None:
        store = self._store
        row = store._conn.execute(
            "SELECT terms, focus FROM trifecta_rewrite_cache WHERE segment_id=%s AND query=%s AND model=%s "
            "AND vocabulary_version=%s",
            (store._sid, key.query, key.model, key.vocabulary_version),
        ).fetchone()
        if row is None:
            return None
        try:
            terms = json.loads(row[0])
        except ValueError:
            return None
        if not isinstance(terms, list) or not terms or not all(isinstance(t, str) and t for t in terms):
            return None
        return RewrittenQuery(terms=tuple(terms), focus=parse_focus(row[1]))

    def put(self, key: RewriteKey, rewrite: RewrittenQuery) -> None:
        store = self._store
        conn, sid = store._conn, store._sid
        with conn.transaction():
            conn.execute(
                "INSERT INTO trifecta_rewrite_cache(segment_id, query, model, vocabulary_version, terms, focus, "
                "created_at) VALUES (%s,%s,%s,%s,%s,%s,%s) ON CONFLICT (segment_id, query, model, "
                "vocabulary_version) DO UPDATE SET terms=excluded.terms, focus=excluded.focus, "
                "created_at=excluded.created_at",
                (
                    sid,
                    _text(key.query),
                    key.model,
                    key.vocabulary_version,
                    json.dumps(list(rewrite.terms), ensure_ascii=False),
                    rewrite.focus.value,
                    time.time(),
                ),
            )
            conn.execute(
                "DELETE FROM trifecta_rewrite_cache WHERE segment_id=%s AND created_at < (SELECT created_at "
                "FROM trifecta_rewrite_cache WHERE segment_id=%s ORDER BY created_at DESC OFFSET %s LIMIT 1)",
                (sid, sid, self.max_rows - 1),
            )

    def close(self) -> None:
        """The connection is the store's, closed with it."""


class StoredTextSource(FileSource):
    """A segment's files where they are, else as the shared index stored them: a search machine with no
    checkout still answers `ctx get` and `ast snippet`. What the indexer admitted is what was stored, so a
    stored file passes the reading rules; the listing is the local one."""

    def __init__(self, local: Any, store: PostgresIndex) -> None:
        self._local = local
        self._store = store

    def __getattr__(self, name: str) -> Any:  # close, admits, root, ... of the local source
        return getattr(self._local, name)

    def scan(self) -> Scan:
        return self._local.scan()

    def watching(self) -> bool:
        return bool(self._local.watching())

    def changed_since_scan(self) -> bool:
        return bool(self._local.changed_since_scan())

    def _stored(self, path: str, exc: Exception) -> bytes:
        data = self._store.stored_text(path)
        if data is None:
            raise exc
        return data

    def read_bytes(self, path: str) -> bytes:
        try:
            return self._local.read_bytes(path)
        except FileNotFoundError as exc:
            return self._stored(path, exc)

    def read_admitted(self, path: str) -> bytes:
        try:
            return self._local.read_admitted(path)
        except FileNotFoundError as exc:
            return self._stored(path, exc)

    def admits(self, path: str) -> bool:
        return bool(self._local.admits(path)) or self._store.file(path) is not None

    def stat(self, path: str) -> SourceFile | None:
        found = self._local.stat(path)
        if found is not None:
            return found
        data = self._store.stored_text(path)
        return None if data is None else SourceFile(path=path, size=len(data), mtime_ns=0)
