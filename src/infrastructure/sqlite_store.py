"""The index: one SQLite file, written by IndexWriter, read by IndexReader.

Schema (version in `meta.schema_version`; a mismatch or a damaged file rebuilds, never misreads; see
SqliteIndex for what is never thrown away):

    meta(key, value)                               schema_version, built_at
    files(id, path UNIQUE, size, mtime_ns, sha256, language, n_lines, parse_error)
    symbols(id, file_id, name, qualname, kind, start_line, end_line, def_line, signature, docstring,
            decorators, bases, params, is_async, parent, depth, exported)        -- lists as JSON
    chunks(rowid, id UNIQUE, file_id, path, start_line, end_line, kind, language, symbol, name,
           signature, doc, body)
    edges(file_id, kind, caller, line, col, name, text, alias)   call sites and imports (domain.calls.Edge),
                replaced with their file's symbols; looked up by file and by name (edges_file, edges_name: a
                run that starts on an empty table makes them at its end); edges_calls (name, file_id,
                caller) of the call edges, made by the run's end (an older index gets it on its next run)
    symbols_shape (kind, bases, decorators): structural look-ups by a substring of the bases or decorators,
                made by the run's end like edges_calls
    posting_blocks, posting_terms   common words' chunks with their bm25 inputs (stored_postings): added
                later, made when first needed
    skipped_files(path PRIMARY KEY, size, mtime_ns, reason)  files skipped for their content (binary): not
                read again until their stat changes (added after schema 7 was set: made when first needed)
    chunks_fts  contentless FTS5(name, qualname, signature, doc, body, path)  porter + unicode61, '_' kept;
                text is identifier-expanded (`parseHTTPHeader parse http header`); ranked by bm25 with
                field weights name > qualname, signature > doc > body > path
    chunks_tri  FTS5(body) trigram, detail=none, external content = chunks: substring look-ups (LIKE).
                An accelerator (`meta.substring_index`): 'ready' when built, each batch's chunks then added
                in the batch's transaction (one INSERT ... SELECT: as cheap as a rebuild, where row-by-row
                inserts cost 1.5x); 'suspended' when dropped for a large rewrite or an implicit first build
                (substring look-ups scan `chunks` with LIKE meanwhile: same answers, slower) until the next
                explicit run rebuilds it; 'scan' below SUBSTRING_INDEX_MIN_CHARS of chunk text, where a
                scan costs a few ms: a new index starts so, and the batch that takes it past the threshold
                builds it.

WAL journal; every batch of files is one transaction, so a run killed at any moment leaves the last
committed, consistent index. Extension loading is never needed.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import itertools
import json
import os
import re
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from json.encoder import encode_basestring_ascii as _encode_json_string
from pathlib import Path
from typing import Any, NoReturn, TypeVar

from ..application.index_segment import SKIPPED_PREFIX
from ..application.ports import (
    CodedError,
    FileUpdate,
    IndexReader,
    IndexStats,
    IndexWriter,
    ScoredChunk,
    StoredFile,
)
from ..domain.calls import Edge, EdgeKind
from ..domain.calls import edge_from_row as _edge_from_row
from ..domain.code import Chunk, ChunkKind, FileState, Symbol, SymbolKind
from ..domain.contract import ErrorCode
from ..domain.terms import expand_identifiers
from . import stored_postings
from .state_folder import STATE_DIR, write_gitignore

SCHEMA_VERSION = "8"  # 8: the edges table (call sites and imports)
# What the parsers record in `edges`, in meta from a new index's creation and each completed run: 2 added
# RETURN and reference edges, 3 TypeScript's callback parameters' types, 4 Python's field types and class
# attributes (RETURN edges of `Class.field`), 5 Python's classes read as values and calls of a local name, 6
# Python's untyped parameters typed as the file's variables of that name, 7 `return cls()` of `cls = Klass`,
# 8 Python's fields typed in the class body (`flags: Flags`, `impl = Impl()`) and `x.field.m()` receivers,
# 9 a module's function passed or decorating, 10 Python's module-level variables' classes and class
# aliases (RETURN edges, alias "var"/"alias"), returned tuples' items ("[i]"), `x = a or b()`, 11 Python's
# `return self` / `-> Self` (alias "self"), what `klass()` makes in a classmethod, more references,
# 12 Python's ARGUMENT edges (what a call passes, of a known class) and untyped parameters as receivers
# (`(param)F:p`), 13 TypeScript's and JavaScript's re-exports (`export * from`), module-level variables'
# classes (alias "var"), `{ f }` values, object literals' methods as the holding variable's members,
# 14 TypeScript's array types (`Query[]`, `f()[]`: an element of what `f` returns), for-of variables,
# interfaces' property types, type aliases (alias "alias"), `v.f` receivers (`T:f`), 15 Python's
# untyped parameters as receivers with the call position and the default's class (`(param)F:p@i=T`),
# `return cls(...)` as the class a method is called on (alias "self"); TypeScript's object literals'
# methods with the literal's types as bases, destructured variables (`{state}.f`), 16 TypeScript's unions
# (`A|B` receivers, a union's type alias: an "alias" edge a type); 18 Go's typed receivers, parameters,
# variables and fields, returns, package variables ("var") and interfaces' method sets (alias "methods");
# 20 Go's functions read as values (REFERENCE edges); 21 Go's slices, arrays and maps typed by their
# elements, range values (`=X`), type assertions' values.
# An index of another version (or
# of none: built before) is re-parsed whole by its next run (no schema change: nothing to drop); a new
# index killed mid-run keeps what it committed.
# Session 34: 32-34, 36 and 40 Python (annotated fields of a method, isinstance narrowing, a parameter's default
# read from an imported module, narrowed chained calls, returns of a class attribute); 35, 37-39 TypeScript
# (type predicates and instanceof, variables holding a member or an element, `this` in an object literal's
# method, built-in maps' and sets' iterators).
# Session 35: 41 SCOPE rows (TypeScript's and JavaScript's local functions a file defines under one name again).
# 42 TypeScript/JavaScript functions read as values in a conditional's branch, `typeof f`, `f.x = ...`, `f as T`, defaults.
# 43 TypeScript: the keys of an object literal a type types (`return { reset }` of `(): Ops`) read Ops.reset.
# 44 TypeScript: an object literal passed to a call gets the call as its methods' base (`(arg)f@12:4#0`).
# 45 tree-sitter receivers typed through a field's field (`this.view.docView.m()`) and a cast (`(x as T).m()`).
# 46 TypeScript receivers typed as a field of an element (`local[i].type.m()`) and through a ternary's held branch.
EDGES_VERSION = "46"
COMMON_WORDS_FROM_CHUNKS = 200  # below this many chunks no word is left out of an any-word query
MAX_PAIR_CLAUSES = 8  # "at least two words" pairs up to this many query words (28 pairs)
PYTHON_POSTINGS = 20_000  # any-word postings up to this many chunks are summed without numpy
# an all-words query computes a phrase that is not a stored word from its own FTS5 ranking up to this many rows
# (its postings then serve the any-word query too; "meta data" in sqlalchemy, 1,849 rows): 200 -> 2,000 took
# sqlalchemy's 15 first-pass questions 162 -> 151 ms of CPU (the stdlib's 27: 217 -> 215); 5,000: 160
RARE_PHRASE_ROWS = 2000
MAX_BOUND = 30_000  # bound parameters in one statement (SQLite's limit: 32,766)
MAX_CACHED_POSTINGS = 2_000_000  # chunk ids a reader keeps of the words it searched (16 bytes each)
# A run ends by merging FTS5's index into one segment when it has this many or more (each batch commits one;
# FTS5's automerge keeps a refresh's few). FTS5 looks every word of a query up in every segment: sqlalchemy's
# 15 segments cost its first-pass search ~4 ms a question (FTS5 ranking 70 -> 19 ms for 16 questions, counts
# 22 -> 9 ms); merging costs ~0.3 s of CPU there (61k chunks of the stdlib: the same).
FTS_MERGE_SEGMENTS = 8
# A chunk holding m of the paired words scores (m - 1) ** COORDINATION times their summed bm25. FTS5's pairs
# expression gave (m - 1) ** 1, which let a long docstring naming every word of a question outrank the code
# it describes; 0.5, measured on all sets in one run (symbol MRR@10, 1 -> 0.5 -> 0): stdlib 0.783 -> 0.801 ->
# 0.797, held-out stdlib 0.588 -> 0.589 -> 0.561, click 0.611 -> 0.646 -> 0.708, flask 0.736 -> 0.778 -> 0.771,
# sqlalchemy 0.472 -> 0.466 -> 0.452, polyglot held-out 0.570 -> 0.577 (polyglot public unchanged).
COORDINATION = 0.5
FIELD_WEIGHTS = (10.0, 6.0, 6.0, 3.0, 1.0, 0.8)  # name, qualname, signature, doc, body, path
# Ranked with the weights named in each query (`rank MATCH`, FTS5's per-query ranking function; as fast as
# the stored setting, which would have to be written, and a reader writing it on open collided with the
# indexer: "SQL logic error").
_RANK = f"bm25({', '.join(map(str, FIELD_WEIGHTS))})"
# How long a statement waits for another process's write lock before INDEX_LOCKED (TRIFECTA_BUSY_TIMEOUT
# overrides it). Readers never wait: WAL lets them read the last commit while a writer works.
BUSY_TIMEOUT_SECONDS = 5.0
CORRUPT_SUFFIX = ".corrupt"  # a damaged index is kept beside the new one as index.db.corrupt
M = TypeVar("M", bound=Callable[..., Any])
NAMED_COLUMNS = ("name", "qualname", "signature", "doc")  # where a chunk says what it is
# Below this much chunk text (characters) substring look-ups scan `chunks` instead of a trigram index: on
# rxjs (0.8 MB) a scan costs 1-3 ms a look-up, and building the index 55 ms, a third of the parse.
SUBSTRING_INDEX_MIN_CHARS = 1_000_000
# Rows this connection may write after a quick_check before the next index run checks the file again (see
# verify): a one-file refresh writes tens to hundreds, a large run tens of thousands.
VERIFY_AFTER_CHANGES = 20_000

FTS_COLUMNS = ("name", "qualname", "signature", "doc", "body", "path")
FTS_TOKENIZE = "porter unicode61 remove_diacritics 2 tokenchars '_'"
_SKIPPED_TABLE = (
    "CREATE TABLE IF NOT EXISTS skipped_files("
    "path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, reason TEXT NOT NULL);"
)
_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files(
    id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
    sha256 TEXT NOT NULL, language TEXT NOT NULL, n_lines INTEGER NOT NULL, parse_error TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS symbols(
    id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL, name TEXT NOT NULL, qualname TEXT NOT NULL,
    kind TEXT NOT NULL, start_line INTEGER NOT NULL, end_line INTEGER NOT NULL, def_line INTEGER NOT NULL,
    signature TEXT NOT NULL, docstring TEXT NOT NULL, decorators TEXT NOT NULL, bases TEXT NOT NULL,
    params TEXT NOT NULL, is_async INTEGER NOT NULL, parent TEXT NOT NULL, depth INTEGER NOT NULL,
    exported INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS symbols_file ON symbols(file_id);
CREATE INDEX IF NOT EXISTS symbols_name ON symbols(name);
CREATE INDEX IF NOT EXISTS symbols_qualname ON symbols(qualname);
CREATE TABLE IF NOT EXISTS chunks(
    rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, file_id INTEGER NOT NULL, path TEXT NOT NULL,
    start_line INTEGER NOT NULL, end_line INTEGER NOT NULL, kind TEXT NOT NULL, language TEXT NOT NULL,
    symbol TEXT NOT NULL, name TEXT NOT NULL, signature TEXT NOT NULL, doc TEXT NOT NULL, body TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS chunks_file ON chunks(file_id);
CREATE TABLE IF NOT EXISTS edges(
    file_id INTEGER NOT NULL, kind TEXT NOT NULL, caller TEXT NOT NULL, line INTEGER NOT NULL,
    col INTEGER NOT NULL, name TEXT NOT NULL, text TEXT NOT NULL, alias TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS edges_file ON edges(file_id);
CREATE INDEX IF NOT EXISTS edges_name ON edges(name);
{_SKIPPED_TABLE}
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
    {", ".join(FTS_COLUMNS)}, content = '',
    tokenize = "{FTS_TOKENIZE}");
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_tri USING fts5(
    body, content = 'chunks', content_rowid = 'rowid', tokenize = 'trigram', detail = 'none');
INSERT OR IGNORE INTO meta(key, value) VALUES ('schema_version', '{SCHEMA_VERSION}');
INSERT OR IGNORE INTO meta(key, value) VALUES ('edges_version', '{EDGES_VERSION}');
INSERT OR IGNORE INTO meta(key, value) VALUES ('substring_index', 'scan');
"""

# call_names' look-up: the call edges of a few names, with no row read (sqlalchemy +11 MB, stdlib +17 MB)
_CALLS_INDEX = f"CREATE INDEX IF NOT EXISTS edges_calls ON edges(name, file_id, caller) WHERE kind = '{EdgeKind.CALL.value}'"
# The edges' look-ups by file and by name. A run that starts on an empty edges table (a new index, the usual
# first run) drops them and makes them at its end: one sort of the finished table rather than 76k B-tree
# inserts (stdlib: 0.19 -> 0.14 s of CPU for the edges' writes, these two and edges_calls)
_EDGE_INDEXES = {
    "edges_file": "CREATE INDEX IF NOT EXISTS edges_file ON edges(file_id)",
    "edges_name": "CREATE INDEX IF NOT EXISTS edges_name ON edges(name)",
}
# structural_candidates' scan for a substring of the bases or decorators (stdlib +1.9 MB)
_SHAPE_INDEX = "CREATE INDEX IF NOT EXISTS symbols_shape ON symbols(kind, bases, decorators)"
# and for a substring of the decorators alone, the few decorated symbols (stdlib: 6k of 72k symbols): a structural
# question about a base also asks for the types that derive it (Rust's #[derive]), 1.1 -> 0.1 ms on the stdlib
_DECORATED_INDEX = (
    "CREATE INDEX IF NOT EXISTS symbols_decorated ON symbols(kind, decorators) WHERE decorators != '[]'"
)
_CHUNK_COLS = (
    "c.id, c.path, c.start_line, c.end_line, c.kind, c.language, c.symbol, c.name, c.signature, c.doc, c.body"
)
_SYMBOL_COLS = (
    "s.name, s.qualname, s.kind, s.start_line, s.end_line, s.def_line, s.signature, s.docstring, "
    "s.decorators, s.bases, s.params, s.is_async, s.parent, s.depth, s.exported"
)
_WORDY = re.compile(r"\w", re.UNICODE)


class IndexLocked(CodedError):
    """Another process is writing this index, and kept it past the wait (the writer lock or SQLite's own)."""

    code = ErrorCode.INDEX_LOCKED


class IndexUnwritable(CodedError):
    """The index cannot be written: `data.reason` is read_only, disk_full, io_error, symlink or replaced.
    A write that fails this way is rolled back whole; the index as last committed stays searchable."""

    code = ErrorCode.INDEX_UNWRITABLE

    def __init__(self, message: str, *, reason: str, path: str | os.PathLike[str]) -> None:
        super().__init__(message, data={"reason": reason, "path": str(path)})
        self.reason = reason


class IndexReplaced(IndexUnwritable):
    """The database file was replaced or deleted while this process had it open: what was written since
    went into a file nobody will read again."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        super().__init__(
            f"the index {path} was replaced or deleted by another process while this one was writing it",
            reason="replaced",
            path=path,
        )


class IndexCorrupt(CodedError):
    """SQLite found the file damaged (not a database, malformed). The store has set it aside and started an
    empty one where it could; the next call rebuilds it."""

    def __init__(self, message: str, *, path: str | os.PathLike[str], kept: str = "") -> None:
        super().__init__(message, data={"reason": "corrupt", "path": str(path), "kept": kept})


def busy_timeout() -> float:
    """How long one statement waits for another process's write lock: BUSY_TIMEOUT_SECONDS, or the
    TRIFECTA_BUSY_TIMEOUT environment variable (seconds) when it is set."""
    try:
        return max(0.0, float(os.environ.get("TRIFECTA_BUSY_TIMEOUT", BUSY_TIMEOUT_SECONDS)))
    except ValueError:
        return BUSY_TIMEOUT_SECONDS


def failure_kind(exc: sqlite3.Error) -> str:
    """What an SQLite error means for the index: corrupt, busy, disk_full, read_only, io_error, or ''."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    if name.startswith("SQLITE_CORRUPT") or name == "SQLITE_NOTADB":
        return "corrupt"
    for prefix, kind in _ERROR_KINDS:
        if name.startswith(prefix):
            return kind
    return ""


_ERROR_KINDS = (
    ("SQLITE_BUSY", "busy"),
    ("SQLITE_LOCKED", "busy"),
    ("SQLITE_FULL", "disk_full"),
    ("SQLITE_READONLY", "read_only"),
    ("SQLITE_CANTOPEN", "read_only"),
    ("SQLITE_PERM", "read_only"),
    ("SQLITE_IOERR", "io_error"),
)


def translated(exc: sqlite3.Error, path: Path) -> Exception:
    """The named failure an SQLite error stands for (IndexLocked, IndexUnwritable), or the error itself."""
    kind = failure_kind(exc)
    if kind == "busy":
        return IndexLocked(
            f"another process kept the index {path} locked for more than {busy_timeout():g} s; "
            "wait for it to finish and retry",
            data={"path": str(path)},
        )
    if kind == "disk_full":
        return IndexUnwritable(
            f"the disk holding {path} is full: nothing was written and the index is as it was; "
            "free some space and run `trifecta index` again",
            reason="disk_full",
            path=path,
        )
    if kind == "read_only":
        return IndexUnwritable(
            f"the index {path} cannot be written ({exc}); make {path.parent} writable, or point "
            "[index] db_path somewhere writable",
            reason="read_only",
            path=path,
        )
    if kind == "io_error":
        return IndexUnwritable(
            f"writing the index {path} failed ({exc}; the disk may be full or failing): nothing was "
            "written and the index is as it was",
            reason="io_error",
            path=path,
        )
    return exc


def file_identity(path: str | os.PathLike[str]) -> tuple[int, int] | None:
    """(st_dev, st_ino) of the file at `path`, None when there is none: tells a replaced file apart."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def connect(path: Path, *, read_only: bool, timeout: float | None = None) -> sqlite3.Connection:
    """A connection to the index file. Read-only opens `mode=ro`; a WAL database in a folder where its
    `-shm` cannot be created opens immutable (nobody can write there either)."""
    wait = busy_timeout() if timeout is None else timeout
    if not read_only:
        return sqlite3.connect(path, timeout=wait, isolation_level=None, check_same_thread=False)
    uri = path.absolute().as_uri()
    for query in ("?mode=ro", "?mode=ro&immutable=1"):
        conn = sqlite3.connect(
            uri + query, uri=True, timeout=wait, isolation_level=None, check_same_thread=False
        )
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return conn
        except sqlite3.OperationalError as exc:
            conn.close()
            if failure_kind(exc) != "read_only" or query.endswith("immutable=1"):
                raise
    raise AssertionError("unreachable")


def writable(path: Path) -> bool:
    """Whether the index file (or, before it exists, its folder) can be written, with its -wal and lock
    files beside it. os.access also answers False on a read-only file system, for root too."""
    if not os.access(path.parent, os.W_OK):
        return False
    return not path.exists() or os.access(path, os.W_OK)


def _guard(method: M) -> M:
    """A store method whose SQLite failures become named ones: busy -> IndexLocked, full / read-only /
    I/O -> IndexUnwritable, damaged -> IndexCorrupt after the file is set aside (see `_damaged`)."""
    if inspect.isgeneratorfunction(method):

        @functools.wraps(method)
        def generator(self: SqliteIndex, *args: Any, **kwargs: Any) -> Any:
            try:
                yield from method(self, *args, **kwargs)
            except sqlite3.DatabaseError as exc:
                _raise_named(self, exc)

        return generator  # type: ignore[return-value]

    @functools.wraps(method)
    def inner(self: SqliteIndex, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except sqlite3.DatabaseError as exc:
            _raise_named(self, exc)

    return inner  # type: ignore[return-value]


_WILDCARDS = re.compile(r"[%_]")


def _raise_named(store: SqliteIndex, exc: sqlite3.DatabaseError) -> NoReturn:
    """Re-raise `exc` as the store's named failure for it, or as itself when it has none."""
    failure = store._failure(exc)
    if failure is exc:
        raise exc
    raise failure from exc


def _chunk(row: Sequence[object]) -> Chunk:
    return Chunk(
        id=str(row[0]),
        path=str(row[1]),
        start_line=int(row[2]),  # type: ignore[call-overload]
        end_line=int(row[3]),  # type: ignore[call-overload]
        kind=ChunkKind(str(row[4])),
        language=str(row[5]),
        symbol=str(row[6]),
        name=str(row[7]),
        signature=str(row[8]),
        doc=str(row[9]),
        body=str(row[10]),
    )


@functools.lru_cache(maxsize=8192)
def _json_tuple(text: object) -> tuple[Any, ...]:
    """A stored JSON list as a tuple; most are empty (a callers answer decodes thousands of symbols), and many
    repeat (`["Exception"]`): decoded once (a structural set of 300 classes: 1.0 -> 0.6 ms)."""
    return () if text == "[]" else tuple(json.loads(str(text)))


def _symbol(row: Sequence[object]) -> Symbol:
    return Symbol(
        name=str(row[0]),
        qualname=str(row[1]),
        kind=SymbolKind(str(row[2])),
        start_line=int(row[3]),  # type: ignore[call-overload]
        end_line=int(row[4]),  # type: ignore[call-overload]
        def_line=int(row[5]),  # type: ignore[call-overload]
        signature=str(row[6]),
        docstring=str(row[7]),
        decorators=_json_tuple(row[8]),
        bases=_json_tuple(row[9]),
        params=_json_tuple(row[10]),
        is_async=bool(row[11]),
        parent=str(row[12]),
        depth=int(row[13]),  # type: ignore[call-overload]
        exported=bool(row[14]),
    )


def edge_from_row(row: Sequence[Any]) -> Edge:
    """(kind, caller, line, col, name, text, alias) -> Edge, for both stores."""
    return _edge_from_row(row)


def edge_filter(
    paths: Sequence[str],
    names: Sequence[str],
    kinds: Sequence[str],
    mark: str = "?",
    aliases: Sequence[str] = (),
) -> tuple[str, list[object]]:
    """The WHERE clause of an edges look-up (every filter given must hold) and its parameters."""
    if not paths and not names:
        raise ValueError("edges() needs paths or names")
    where: list[str] = []
    params: list[object] = []
    for column, values in (("f.path", paths), ("e.name", names), ("e.kind", kinds), ("e.alias", aliases)):
        if values:
            where.append(f"{column} IN ({', '.join(mark for _ in values)})")
            params.extend(values)
    return " AND ".join(where), params


# A file's edge rows are inserted many to a statement, the file's id bound once per statement: as many
# statements of 64 rows as the file has, then of 8, then one row each (the rows and their order unchanged).
# OR FAIL, not the default ABORT: a statement that writes many rows and may abort opens a statement savepoint,
# and FTS5 writes its pending terms out at every savepoint (chunks_fts is written in the same transaction):
# with ABORT the stdlib's edge inserts cost 0.23 s of CPU in a full index, with FAIL 0.06 s (one row a
# statement: 0.09 s). A failed row still fails the batch, which is rolled back whole.
EDGE_ROWS_PER_INSERT = (64, 8)
_EDGE_INSERT = "INSERT OR FAIL INTO edges(file_id, kind, caller, line, col, name, text, alias) "
_EDGE_INSERTS = {
    size: f"{_EDGE_INSERT}SELECT ?, * FROM (VALUES {', '.join(['(?,?,?,?,?,?,?)'] * size)})"
    for size in EDGE_ROWS_PER_INSERT
}
_EDGE_INSERT_ONE = f"{_EDGE_INSERT}VALUES (?,?,?,?,?,?,?,?)"


def insert_edges(conn: sqlite3.Connection, file_id: int, rows: Sequence[Sequence[Any]]) -> None:
    """A file's edge rows (kind, caller, line, column, name, text, alias), in the order given."""
    chain = itertools.chain.from_iterable
    start, total = 0, len(rows)
    for size in EDGE_ROWS_PER_INSERT:
        end = start + (total - start) // size * size
        if end > start:
            conn.executemany(
                _EDGE_INSERTS[size], [(file_id, *chain(rows[i : i + size])) for i in range(start, end, size)]
            )
            start = end
    if start < total:
        conn.executemany(_EDGE_INSERT_ONE, [(file_id, *row) for row in rows[start:]])


def _json_list(values: Sequence[str]) -> str:
    """`json.dumps` of a list of strings, through the C string encoder only (this runs 3x per symbol)."""
    return "[" + ", ".join(map(_encode_json_string, values)) + "]" if values else "[]"


def _path_words(path: str) -> str:
    """The FTS `path` column: the path's folders, stem and extension as words, identifiers split."""
    return expand_identifiers(path.replace("/", " ").replace(".", " "))


def _fts_values(ch: Chunk, path_words: str | None = None) -> tuple[str, ...]:
    """The six FTS columns of a chunk (search_fields must be filled); `path_words` when already known."""
    name, qualname, signature, doc, body_parts = ch.search_fields
    path = _path_words(ch.path) if path_words is None else path_words
    return (name, qualname, signature, doc, f"{ch.body}\n{body_parts}" if body_parts else ch.body, path)


def fts_string(term: str) -> str | None:
    """A term as an FTS5 string literal; None when it holds no word character (it would match nothing)."""
    if not _WORDY.search(term):
        return None
    return '"' + term.replace('"', '""') + '"'


def _chosen_in_python(
    first: Sequence[tuple[Any, Any]], every: Callable[[], Sequence[tuple[Any, Any]]], limit: int
) -> list[tuple[int, float]]:
    """SqliteIndex._ranked_any's two tiers over a few postings (lists), without importing numpy (~60-150 ms,
    most of a small segment's first search). The same sums in the same order as _chosen_in_numpy: equal
    scores to the last bit (the tests compare them)."""
    total: dict[int, float] = {}
    held: dict[int, int] = {}
    for ids, scores in first:
        for i, score in zip(ids, scores, strict=True):
            total[i] = total.get(i, 0.0) + score
            held[i] = held.get(i, 0) + 1
    tier = [(i, (held[i] - 1) ** COORDINATION * s) for i, s in total.items() if held[i] >= 2]
    tier.sort(key=lambda kv: (-kv[1], kv[0]))  # best score first; FTS5 broke ties by rowid
    chosen = tier[:limit]
    if len(chosen) < limit:  # then the chunks holding one of the words, ranked by every word
        paired = {i for i, _ in tier}
        rest: dict[int, float] = {}
        for ids, scores in every():
            for i, score in zip(ids, scores, strict=True):
                rest[i] = rest.get(i, 0.0) + score
        ranked = sorted(((i, s) for i, s in rest.items() if i not in paired), key=lambda kv: (-kv[1], kv[0]))
        chosen += ranked[: limit - len(chosen)]
    return chosen


def _chosen_in_numpy(
    first: Sequence[tuple[Any, Any]], every: Callable[[], Sequence[tuple[Any, Any]]], limit: int
) -> list[tuple[int, float]]:
    """SqliteIndex._ranked_any's two tiers over postings of any size."""
    import numpy as np  # here, not at the top: a CLI call that never ranks many postings skips its import

    def gather(postings: Sequence[tuple[Any, Any]]) -> tuple[Any, Any, Any]:
        """The chunks holding any of these clauses: ids, the sum of their scores, how many they hold."""
        ids = np.concatenate([np.asarray(p[0], dtype=np.int64) for p in postings])
        unique, inverse = np.unique(ids, return_inverse=True)
        total = np.bincount(
            inverse, weights=np.concatenate([np.asarray(p[1], dtype=np.float64) for p in postings])
        )
        return unique, total, np.bincount(inverse)

    unique, total, held = gather(first)
    tier = held >= 2
    tier_ids, tier_scores = unique[tier], (held[tier] - 1) ** COORDINATION * total[tier]
    order = np.lexsort((tier_ids, -tier_scores))[:limit]  # best score first; FTS5 broke ties by rowid
    chosen = [(int(i), float(s)) for i, s in zip(tier_ids[order], tier_scores[order], strict=True)]
    if len(chosen) < limit:  # then the chunks holding one of the words, ranked by every word
        rest_ids, rest_total, _ = gather(every())
        # both sets of ids are unique already: told so, isin skips np.unique, whose first call imports numpy.ma
        # (17-27 ms)
        keep = ~np.isin(rest_ids, unique[tier], assume_unique=True)
        rest_ids, rest_total = rest_ids[keep], rest_total[keep]
        order = np.lexsort((rest_ids, -rest_total))[: limit - len(chosen)]
        chosen += [(int(i), float(s)) for i, s in zip(rest_ids[order], rest_total[order], strict=True)]
    return chosen


def _by_rowid(ids: Any, scores: Any) -> tuple[Any, Any]:
    """A phrase's postings (rowids, scores) as arrays in rowid order."""
    import numpy as np

    ids, scores = np.asarray(ids, dtype=np.int64), np.asarray(scores, dtype=np.float64)
    order = np.argsort(ids, kind="stable")
    return ids[order], scores[order]


class SqliteIndex(IndexWriter, IndexReader):
    """The index file. Opening it never writes unless it is new or must be rebuilt, and it is thrown away
    only when SQLite says it is damaged (then set aside as `index.db.corrupt`) or it holds another
    schema version; busy, full, read-only and I/O failures are named (IndexLocked, IndexUnwritable) and
    leave it as it was. A file or folder that cannot be written is opened read-only (`read_only`).
    A failure to open is raised by the first call that needs the connection, not by the constructor."""

    def __init__(self, db_path: str | os.PathLike[str]) -> None:
        self.path = Path(db_path)
        self.read_only = False
        self.rebuilt: dict[str, str] | None = None  # reason, detail, kept: when this process rebuilt the file
        self._identity: tuple[int, int] | None = None  # of the file the connection opened
        self._lock_depth = 0
        self._substring_ready = True
        self._edge_indexes_deferred = False  # dropped by this run on an empty table (finish_run makes them)
        self._trigrams_from: int | None = None  # the first chunk rowid of this batch not yet in chunks_tri
        self._df_cache: dict[str, int] = {}  # FTS expression -> matching chunks, until the data changes
        self._rare_cache: dict[str, bool] = {}  # FTS phrase -> in few rows (see _rare), likewise
        self._postings_cache: dict[str, tuple[Any, Any]] = {}  # FTS clause -> (rowids, scores), likewise
        self._postings_size = 0
        self._stored: tuple[frozenset[str], tuple[int, int]] | None = None  # stored words, FTS5 totals
        self._tokenizer: stored_postings.Tokenizer | None = None
        self._shape: bool | None = None  # whether symbols_shape is there (made by a run's end)
        self._indexes: dict[str, bool] = {}  # likewise, other indexes (see _has_index)
        self._phrase_words: dict[str, list[str]] = {}  # FTS5 phrase -> its stemmed words, see _words_of
        self._states_cache: dict[str, FileState] | None = None
        self._counts_cache: tuple[int, int, int, int, str] | None = None  # see _counts
        self._cache_version = -1
        self._generation = 0  # see data_generation
        self._connection: sqlite3.Connection | None = None
        self._verified: tuple[object, ...] | None = None  # see verify
        self._changes_since_check = 0  # rows this connection wrote since the file was last checked
        with contextlib.suppress(CodedError):  # raised again by the first call that needs it
            self._connection = self._open()

    # ---------------------------------------------------------------- lifecycle
    @property
    def _conn(self) -> sqlite3.Connection:
        if self._connection is None:
            self._connection = self._open()
            self._cache_version = -1
        return self._connection

    def _refuse_symlink(self) -> None:
        if self.path.is_symlink():  # writing through it would replace whatever it points at
            raise IndexUnwritable(
                f"{self.path} is a symbolic link; trifecta keeps its index in a regular file only: remove "
                "the link (the index is rebuilt) or set [index] db_path",
                reason="symlink",
                path=self.path,
            )

    def _open(self) -> sqlite3.Connection:
        self._refuse_symlink()
        with contextlib.suppress(OSError):  # a folder that cannot be made is read-only, below
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if self.path.parent.name == STATE_DIR:  # keep the index out of the user's `git status`
                write_gitignore(self.path.parent)
        self.read_only = not writable(self.path)
        if self.read_only:
            return self._open_read_only()
        seen = file_identity(self.path)
        conn: sqlite3.Connection | None = None
        try:
            conn = connect(self.path, read_only=False)
            conn.execute("PRAGMA journal_mode=WAL")
            version = self._stored_version(conn)
            if version is None:
                self._create(conn)
        except sqlite3.DatabaseError as exc:
            if conn is not None:
                conn.close()
            if failure_kind(exc) != "corrupt":
                raise translated(exc, self.path) from exc
            return self._start_again("corrupt", str(exc), seen, keep=True)
        if version not in (None, SCHEMA_VERSION):
            conn.close()
            detail = f"schema version {version}, this trifecta reads {SCHEMA_VERSION}"
            return self._start_again("schema", detail, seen, keep=version == "unknown")
        self._identity = file_identity(self.path)
        return self._tuned(conn)

    def _open_read_only(self) -> sqlite3.Connection:
        if not self.path.exists():
            raise IndexUnwritable(
                f"there is no index at {self.path} and {self.path.parent} cannot be written, so none can be "
                "built: make it writable, or set [index] db_path to a writable place",
                reason="read_only",
                path=self.path,
            )
        try:
            conn = connect(self.path, read_only=True)
            version = self._stored_version(conn)
        except sqlite3.DatabaseError as exc:
            if failure_kind(exc) == "corrupt":
                raise IndexCorrupt(
                    f"the index {self.path} is damaged ({exc}) and cannot be written, so it cannot be "
                    "rebuilt: make it writable, or delete it",
                    path=self.path,
                ) from exc
            raise translated(exc, self.path) from exc
        if version != SCHEMA_VERSION:
            conn.close()
            raise IndexUnwritable(
                f"the index {self.path} was built by another version of trifecta (schema {version}) and "
                "cannot be written, so it cannot be rebuilt: make it writable",
                reason="read_only",
                path=self.path,
            )
        self._identity = file_identity(self.path)
        return self._tuned(conn)

    @staticmethod
    def _tuned(conn: sqlite3.Connection) -> sqlite3.Connection:
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA temp_store=MEMORY")
        conn.execute("PRAGMA cache_size=-32000")
        return conn

    @staticmethod
    def _create(conn: sqlite3.Connection) -> None:
        """The tables of a new index, in one write transaction (two processes may race to create it)."""
        try:
            conn.executescript(f"BEGIN IMMEDIATE;\n{_SCHEMA}\nCOMMIT;")
        except BaseException:
            if conn.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
            raise

    def _start_again(
        self, reason: str, detail: str, seen: tuple[int, int] | None, *, keep: bool
    ) -> sqlite3.Connection:
        """Set the file aside (`keep`: as index.db.corrupt, else deleted) and open a new, empty index. Under
        the writer lock, and only if the file at the path is still the one found wanting (another process
        may have started again already)."""
        self.close()
        with self.writing(wait_seconds=busy_timeout()):
            kept = ""
            if seen is not None and file_identity(self.path) == seen:
                kept = self._set_aside(keep)
                self.rebuilt = {"reason": reason, "detail": detail, "kept": kept}
            conn = connect(self.path, read_only=False)
            try:
                conn.execute("PRAGMA journal_mode=WAL")
                if self._stored_version(conn) is None:
                    self._create(conn)
            except sqlite3.DatabaseError as exc:
                conn.close()
                raise translated(exc, self.path) from exc
        self._identity = file_identity(self.path)
        self._forget()
        self._cache_version = -1
        return self._tuned(conn)

    def _set_aside(self, keep: bool) -> str:
        """Move (or delete) the database and its -wal; the -shm is only a cache of the -wal's index."""
        base = str(self.path)
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                if keep and suffix != "-shm":
                    os.replace(base + suffix, base + CORRUPT_SUFFIX + suffix)
                else:
                    os.remove(base + suffix)
        return base + CORRUPT_SUFFIX if keep else ""

    def _stored_version(self, conn: sqlite3.Connection) -> str | None:
        has_meta = conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='meta'").fetchone()
        if not has_meta:
            tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
            return None if tables == 0 else "unknown"
        row = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        return row[0] if row else "unknown"

    def _failure(self, exc: sqlite3.DatabaseError) -> Exception:
        if failure_kind(exc) == "corrupt":
            return self._damaged(str(exc))
        return translated(exc, self.path)

    def _damaged(self, detail: str) -> IndexCorrupt:
        """SQLite found the file damaged while using it: set it aside and start an empty one now, so this
        process's next call (or the next process) rebuilds it."""
        if self.read_only:
            return IndexCorrupt(
                f"the index {self.path} is damaged ({detail}) and cannot be written, so it cannot be "
                "rebuilt: make it writable, or delete it",
                path=self.path,
            )
        try:
            self._connection = self._start_again("corrupt", detail, self._identity, keep=True)
        except CodedError as exc:  # another process holds the writer lock: it will meet the damage too
            self._connection = None
            return IndexCorrupt(
                f"the index {self.path} is damaged ({detail}); it could not be set aside yet ({exc})",
                path=self.path,
            )
        kept = self.rebuilt["kept"] if self.rebuilt else ""
        return IndexCorrupt(
            f"the index {self.path} was damaged ({detail}); it was set aside"
            + (f" as {kept}" if kept else "")
            + " and an empty index started: retry, and the index is rebuilt",
            path=self.path,
            kept=kept,
        )

    @_guard
    def verify(self) -> None:
        """`PRAGMA quick_check` (the b-trees' structure, not the FTS contents): a damaged file is set aside
        and an empty one started (raises IndexCorrupt). The check reads the whole file (90 ms on a 110 MB
        index, more than a one-file refresh), so it is skipped when this connection found the file sound and
        nothing but this connection's own committed transactions changed it since: no commit by any other
        connection, no change to the database or -wal file on disk between them (see `_transaction`), and
        fewer than VERIFY_AFTER_CHANGES rows written. A new process, a run that was interrupted, a write
        by anyone else and a large run all check."""
        stamp = self._verify_stamp()
        if stamp == self._verified:
            return
        rows = [str(r[0]) for r in self._conn.execute("PRAGMA quick_check").fetchall()]
        if rows != ["ok"]:
            raise self._damaged("quick_check: " + "; ".join(rows[:3]))
        self._verified = stamp
        self._changes_since_check = 0

    def _verify_stamp(self) -> tuple[object, ...]:
        conn = self._conn
        files: list[tuple[int, int, int, int] | None] = []
        for suffix in ("", "-wal"):
            try:
                st = os.stat(str(self.path) + suffix)
                files.append((st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns))
            except OSError:
                files.append(None)
        version = conn.execute("PRAGMA data_version").fetchone()[0]
        return (id(conn), conn.total_changes, version, *files)

    def replaced(self) -> bool:
        """Whether the file at the path is no longer the one this connection opened (deleted, or replaced
        by another process's rebuild)."""
        return self._connection is not None and file_identity(self.path) != self._identity

    def reopen(self) -> None:
        """Drop the connection; the next call opens what is at the path now."""
        self.close()
        self._forget()

    def rebuild_needed(self) -> bool:
        return self.rebuilt is not None

    def close(self) -> None:
        self._verified = None
        if self._connection is not None:
            with contextlib.suppress(Exception):
                self._connection.close()
            self._connection = None

    @contextlib.contextmanager
    def writing(self, wait_seconds: float = 0.0) -> Iterator[None]:
        """Hold the writer lock of this index (re-entrant); raises IndexLocked when another writer keeps it,
        IndexUnwritable when the index cannot be written."""
        if self._lock_depth:
            self._lock_depth += 1
            try:
                yield
            finally:
                self._lock_depth -= 1
            return
        self._refuse_symlink()
        if self.read_only or not writable(self.path):
            raise IndexUnwritable(
                f"the index {self.path} cannot be written (read-only file or folder): it is searched as it "
                "is; make it writable to refresh it",
                reason="read_only",
                path=self.path,
            )
        lock_path = str(self.path) + ".lock"
        try:
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
        except OSError as exc:
            raise IndexUnwritable(
                f"cannot create the lock file {lock_path} ({exc.strerror})",
                reason="read_only",
                path=self.path,
            ) from exc
        try:
            try:
                import fcntl
            except ImportError:  # no advisory locks on this platform: SQLite's own locking still holds
                self._lock_depth = 1
                try:
                    yield
                finally:
                    self._lock_depth = 0
                return
            deadline = time.monotonic() + wait_seconds
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise IndexLocked(
                            f"another trifecta process is indexing {self.path.parent.parent} "
                            f"(lock {lock_path}); wait for it to finish and retry"
                        ) from None
                    time.sleep(0.1)
            self._lock_depth = 1
            try:
                yield
            finally:
                self._lock_depth = 0
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    # ---------------------------------------------------------------- writing
    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: committed whole or rolled back whole (even on KeyboardInterrupt). SQLite
        has already rolled back after some failures (a full disk), so ROLLBACK only what is still open."""
        c = self._conn
        c.execute("BEGIN IMMEDIATE")
        # Under the write lock nobody else commits: if the file is as it was when last found sound, what
        # this transaction commits keeps it so (SQLite wrote it), and verify need not read it all again.
        sound = self._verified is not None and self._verify_stamp() == self._verified
        before = c.total_changes
        try:
            yield c
            c.execute("COMMIT")
        except BaseException:
            self._verified = None  # an interrupted write: the next run checks the file
            if c.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    c.execute("ROLLBACK")
            raise
        finally:
            self._forget()
        self._changes_since_check += c.total_changes - before
        if sound and self._changes_since_check < VERIFY_AFTER_CHANGES:
            self._verified = self._verify_stamp()

    def _forget(self) -> None:
        """Drop what is cached of the data: after this connection writes (`PRAGMA data_version` only
        tells of other connections' commits)."""
        self._generation += 1
        self._df_cache.clear()
        self._rare_cache.clear()
        self._postings_cache.clear()
        self._postings_size = 0
        self._stored = None
        self._shape = None
        self._indexes.clear()
        self._states_cache = None
        self._counts_cache = None

    @_guard
    def file_states(self) -> dict[str, FileState]:
        """Every stored file's stat data and hash. Cached until the data changes (this connection's writes
        or another process's), since a freshness check before each search asks for all of it; callers
        must not modify the dict."""
        self._fresh_caches()
        if self._states_cache is None:
            states = {}
            for path, size, mtime_ns, sha256 in self._conn.execute(
                "SELECT path, size, mtime_ns, sha256 FROM files"
            ):
                if not (
                    isinstance(path, str)
                    and isinstance(size, int)
                    and isinstance(mtime_ns, int)
                    and isinstance(sha256, str)
                ):
                    # a flipped byte in a record header can turn a value into NULL or another type, a row SQLite
                    # reads without complaint (quick_check, which would tell, runs after the run)
                    raise self._damaged(f"a row of the files table does not match its schema: {path!r}")
                states[path] = FileState(path=path, size=size, mtime_ns=mtime_ns, sha256=sha256)
            if self._has_skipped_table():
                for path, size, mtime_ns, reason in self._conn.execute(
                    "SELECT path, size, mtime_ns, reason FROM skipped_files"
                ):
                    states[path] = FileState(
                        path=path, size=size, mtime_ns=mtime_ns, sha256=SKIPPED_PREFIX + reason
                    )
            self._states_cache = states
        return self._states_cache

    def _has_skipped_table(self) -> bool:
        sql = "SELECT 1 FROM sqlite_master WHERE type='table' AND name='skipped_files'"
        return self._conn.execute(sql).fetchone() is not None

    def _remove(self, file_id: int) -> None:
        c = self._conn
        if self._substring_ready:
            self._add_trigrams()  # every row it deletes from chunks_tri must be there
            c.execute(
                "INSERT INTO chunks_tri(chunks_tri, rowid, body) "
                "SELECT 'delete', rowid, body FROM chunks WHERE file_id=?",
                (file_id,),
            )
        # a contentless FTS5 row is removed by handing the table the values it indexed, once more
        rows = c.execute(
            f"SELECT c.rowid, {_CHUNK_COLS} FROM chunks c WHERE c.file_id=?", (file_id,)
        ).fetchall()
        c.executemany(
            "INSERT INTO chunks_fts(chunks_fts, rowid, name, qualname, signature, doc, body, path) "
            "VALUES ('delete', ?, ?, ?, ?, ?, ?, ?)",
            [(r[0], *_fts_values(_chunk(r[1:]).with_search_fields())) for r in rows],
        )
        c.execute("DELETE FROM chunks WHERE file_id=?", (file_id,))
        c.execute("DELETE FROM symbols WHERE file_id=?", (file_id,))
        c.execute("DELETE FROM edges WHERE file_id=?", (file_id,))

    @_guard
    def apply(
        self, updates: Sequence[FileUpdate], deleted: Sequence[str], touched: Sequence[FileState]
    ) -> None:
        cached = self._states_cache
        with self._transaction() as c:
            self._substring_ready = self._read_substring_state() == "ready"
            self._trigrams_from = None
            if updates:
                self._prepare_edge_indexes(c)
            before = self._file_ids([*deleted, *(up.state.path for up in updates)])  # see _keep_postings
            usable = stored_postings.usable(c)
            skipped = [up.state for up in updates if up.state.sha256.startswith(SKIPPED_PREFIX)]
            if skipped:
                c.execute(_SKIPPED_TABLE)  # an index made before the table was added gets it now
            has_skipped = bool(skipped) or self._has_skipped_table()
            for path in [*deleted, *(st.path for st in skipped)]:
                row = c.execute("SELECT id FROM files WHERE path=?", (path,)).fetchone()
                if row:
                    self._remove(row[0])
                    c.execute("DELETE FROM files WHERE id=?", (row[0],))
            if has_skipped:  # deleted, or readable now (a skipped one is written again below)
                c.executemany(
                    "DELETE FROM skipped_files WHERE path=?",
                    [(p,) for p in itertools.chain(deleted, (up.state.path for up in updates))],
                )
            if skipped:
                c.executemany(
                    "INSERT INTO skipped_files(path, size, mtime_ns, reason) VALUES (?,?,?,?)",
                    [
                        (st.path, st.size, st.mtime_ns, st.sha256.removeprefix(SKIPPED_PREFIX))
                        for st in skipped
                    ],
                )
            for st in touched:
                c.execute("UPDATE files SET size=?, mtime_ns=? WHERE path=?", (st.size, st.mtime_ns, st.path))
            for up in updates:
                if not up.state.sha256.startswith(SKIPPED_PREFIX):
                    self._write_file(up)
            if len(skipped) < len(updates):
                # Edges of this version beside another's: of no one version until the run's end (finish_run);
                # a run killed before leaves no stamp, and the next one re-parses every file, whichever version.
                c.execute(
                    "UPDATE meta SET value='' WHERE key='edges_version' AND value != ?", (EDGES_VERSION,)
                )
            if self._substring_ready:
                self._add_trigrams()
            elif updates and self._read_substring_state() == "scan" and not self._small_for_trigrams():
                # grown past the size a scan serves well: build the accelerator now, batch by batch after
                c.execute("INSERT INTO chunks_tri(chunks_tri) VALUES ('rebuild')")
                self._set_substring_state("ready")
            self._keep_postings([*before, *self._file_ids([up.state.path for up in updates])], usable)
        if cached is not None:  # what was written, rather than reading every file's row again (6 ms on 2k)
            states = dict(cached)  # a new dict: callers may hold the old one
            for path in deleted:
                states.pop(path, None)
            states.update((st.path, st) for st in itertools.chain(touched, (up.state for up in updates)))
            self._states_cache = states

    def _prepare_edge_indexes(self, c: sqlite3.Connection) -> None:
        """Before a batch's writes: on an empty edges table, drop the edges' look-up indexes until the run's
        end (finish_run); on a filled one, make sure they are there (a run that dropped them was stopped
        before its end: its files are replaced by file, which needs edges_file)."""
        if self._edge_indexes_deferred:
            return
        present = {
            row[0]
            for row in c.execute("SELECT name FROM sqlite_master WHERE type='index' AND tbl_name='edges'")
        }
        if c.execute("SELECT 1 FROM edges LIMIT 1").fetchone() is None:
            for name in _EDGE_INDEXES:
                if name in present:
                    c.execute(f"DROP INDEX {name}")
            self._edge_indexes_deferred = True
        else:
            for name, sql in _EDGE_INDEXES.items():
                if name not in present:
                    c.execute(sql)

    def _write_file(self, up: FileUpdate) -> None:
        c = self._conn
        st, parsed = up.state, up.parsed
        row = c.execute("SELECT id FROM files WHERE path=?", (st.path,)).fetchone()
        if row:
            file_id = row[0]
            self._remove(file_id)
            c.execute(
                "UPDATE files SET size=?, mtime_ns=?, sha256=?, language=?, n_lines=?, parse_error=? WHERE id=?",
                (st.size, st.mtime_ns, st.sha256, parsed.language, up.n_lines, parsed.error, file_id),
            )
        else:
            file_id = c.execute(
                "INSERT INTO files(path, size, mtime_ns, sha256, language, n_lines, parse_error) VALUES (?,?,?,?,?,?,?)",
                (st.path, st.size, st.mtime_ns, st.sha256, parsed.language, up.n_lines, parsed.error),
            ).lastrowid
        c.executemany(
            "INSERT INTO symbols(file_id, name, qualname, kind, start_line, end_line, def_line, signature, "
            "docstring, decorators, bases, params, is_async, parent, depth, exported) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            [
                (
                    file_id, s.name, s.qualname, s.kind.value, s.start_line, s.end_line, s.def_line, s.signature,
                    s.docstring, _json_list(s.decorators), _json_list(s.bases), _json_list(s.params),
                    int(s.is_async), s.parent, s.depth, int(s.exported),
                )
                for s in parsed.symbols
            ],
        )  # fmt: skip
        insert_edges(c, file_id, parsed.edge_table())
        base = c.execute("SELECT coalesce(max(rowid), 0) FROM chunks").fetchone()[0]
        chunks = [ch if ch.search_fields else ch.with_search_fields() for ch in parsed.chunks]
        path_words = _path_words(st.path)  # every chunk of a file has its path
        c.executemany(
            "INSERT INTO chunks(rowid, id, file_id, path, start_line, end_line, kind, language, symbol, "
            "name, signature, doc, body) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
            [
                (
                    base + i, ch.id, file_id, ch.path, ch.start_line, ch.end_line, ch.kind.value, ch.language,
                    ch.symbol, ch.name, ch.signature, ch.doc, ch.body,
                )
                for i, ch in enumerate(chunks, 1)
            ],
        )  # fmt: skip
        c.executemany(
            "INSERT INTO chunks_fts(rowid, name, qualname, signature, doc, body, path) VALUES (?,?,?,?,?,?,?)",
            [(base + i, *_fts_values(ch, path_words)) for i, ch in enumerate(chunks, 1)],
        )
        if self._substring_ready and self._trigrams_from is None:
            self._trigrams_from = base + 1  # every row from here on is new: _remove adds them first

    # ---------------------------------------------------------------- substring accelerator
    def _read_substring_state(self) -> str:
        """'ready' (built and maintained), 'suspended' (dropped for a bulk load, to be built) or 'scan' (a
        small segment: never built)."""
        row = self._conn.execute("SELECT value FROM meta WHERE key='substring_index'").fetchone()
        return str(row[0]) if row else "ready"

    def _add_trigrams(self) -> None:
        """The batch's new chunks into chunks_tri, in one statement."""
        if self._trigrams_from is not None:
            self._conn.execute(
                "INSERT INTO chunks_tri(rowid, body) SELECT rowid, body FROM chunks WHERE rowid >= ?",
                (self._trigrams_from,),
            )
            self._trigrams_from = None

    def _set_substring_state(self, state: str) -> None:
        self._conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('substring_index', ?)", (state,))

    def _small_for_trigrams(self) -> bool:
        """Whether the chunks hold too little text for the trigram index to pay (reads every body: run it
        only where the answer is cheap, or once before a build that reads them all anyway)."""
        row = self._conn.execute(
            "SELECT 1 FROM (SELECT sum(length(body)) AS n FROM chunks) WHERE n >= ?",
            (SUBSTRING_INDEX_MIN_CHARS,),
        ).fetchone()
        return row is None

    @_guard
    def substring_index_ready(self) -> bool:
        """Built, or not needed (a small segment scans)."""
        return self._read_substring_state() != "suspended"

    @_guard
    def suspend_substring_index(self) -> None:
        """Empty the trigram table and stop maintaining it: a bulk load then skips its cost, and
        look-ups scan until `build_substring_index` runs. One transaction, so never half-dropped."""
        with self._transaction() as c:
            c.execute("INSERT INTO chunks_tri(chunks_tri) VALUES ('delete-all')")
            self._set_substring_state("suspended")

    @_guard
    def build_substring_index(self) -> None:
        """Rebuild the trigram table from `chunks` in one transaction (a killed build leaves it suspended);
        a segment below SUBSTRING_INDEX_MIN_CHARS gets none and scans ('scan')."""
        with self._transaction() as c:
            if self._small_for_trigrams():
                c.execute("INSERT INTO chunks_tri(chunks_tri) VALUES ('delete-all')")
                self._set_substring_state("scan")
                return
            c.execute("INSERT INTO chunks_tri(chunks_tri) VALUES ('rebuild')")
            self._set_substring_state("ready")

    @_guard
    def has_completed_run(self) -> bool:
        """A run completed, and left what this version's run end makes (stored postings, edges_calls,
        symbols_shape, FTS5's segments merged): an index an older version built gets them from its next run,
        changed files or not."""
        c = self._conn
        if c.execute("SELECT 1 FROM meta WHERE key='built_at'").fetchone() is None:
            return False
        made = c.execute(
            "SELECT count(*) FROM sqlite_master WHERE type='index' AND name IN "
            "('edges_calls', 'symbols_shape', 'symbols_decorated', 'edges_file', 'edges_name')"
        ).fetchone()[0]
        return (
            made == 5
            and stored_postings.state(c) == stored_postings.READY
            and c.execute("SELECT 1 FROM meta WHERE key='postings_stamp'").fetchone() is not None
            and stored_postings.current_rule(c)
            and not self._fts_to_merge(c)
        )

    @staticmethod
    def _fts_to_merge(c: sqlite3.Connection) -> bool:
        return bool(
            c.execute("SELECT count(DISTINCT segid) FROM chunks_fts_idx").fetchone()[0] >= FTS_MERGE_SEGMENTS
        )

    @_guard
    def edges_current(self) -> bool:
        row = self._conn.execute("SELECT value FROM meta WHERE key='edges_version'").fetchone()
        return row is not None and row[0] == EDGES_VERSION

    @_guard
    def finish_run(self, built_at: str) -> None:
        """Mark the run complete; raises IndexReplaced when the file is no longer the one written to."""
        if self.replaced():
            raise IndexReplaced(self.path)
        states = self._states_cache
        with self._transaction() as c:
            c.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('built_at', ?)", (built_at,))
            c.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('edges_version', ?)", (EDGES_VERSION,))
            for sql in _EDGE_INDEXES.values():  # dropped by a run that started on an empty edges table
                c.execute(sql)
            c.execute(_CALLS_INDEX)  # made once, after the first run's inserts (an older index gets it here)
            c.execute(_SHAPE_INDEX)
            c.execute(_DECORATED_INDEX)
            if self._fts_to_merge(c):
                c.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('optimize')")
            if stored_postings.needs_build(c, self._chunk_count_now()):
                paths = [(r[0], _path_words(r[1])) for r in c.execute("SELECT id, path FROM files")]
                stored_postings.build(c, "chunks_fts", FIELD_WEIGHTS, _RANK, self._fts_tokenizer(), paths)
        self._edge_indexes_deferred = False
        self._states_cache = states  # no file changed

    def _chunk_count_now(self) -> int:
        return int(self._conn.execute("SELECT count(*) FROM chunks").fetchone()[0])

    def _file_ids(self, paths: Sequence[str]) -> list[int]:
        ids: list[int] = []
        for start in range(0, len(paths), 500):
            batch = list(paths[start : start + 500])
            sql = f"SELECT id FROM files WHERE path IN ({','.join('?' * len(batch))})"
            ids += [r[0] for r in self._conn.execute(sql, batch)]
        return ids

    def _keep_postings(self, file_ids: Sequence[int], usable: bool) -> None:
        """Rewrite the stored postings of the files this batch changed, added or deleted (ids from before and
        after its writes), in its transaction: see stored_postings."""
        if not file_ids or not stored_postings.state(self._conn):
            return

        def values(ids: Sequence[int]) -> list[tuple[int, Sequence[str]]]:
            rows = self._conn.execute(
                f"SELECT c.rowid, {_CHUNK_COLS} FROM chunks c WHERE c.file_id IN ({','.join('?' * len(ids))})",
                list(ids),
            ).fetchall()
            return [(r[0], _fts_values(_chunk(r[1:]).with_search_fields())) for r in rows]

        stored_postings.maintain(
            self._conn,
            file_ids,
            self._fts_tokenizer(),
            values,
            "chunks_fts",
            FIELD_WEIGHTS,
            usable_before=usable,
        )

    def _fts_tokenizer(self) -> stored_postings.Tokenizer:
        if self._tokenizer is None:
            self._tokenizer = stored_postings.Tokenizer(FTS_COLUMNS, FTS_TOKENIZE)
        return self._tokenizer

    # ---------------------------------------------------------------- reading
    def _counts(self) -> tuple[int, int, int, int, str]:
        """Files, files with parse errors, symbols, chunks and when built: cached until the data changes (a
        search asks up to four times)."""
        self._fresh_caches()
        if self._counts_cache is None:
            c = self._conn
            files, errors = c.execute(
                "SELECT count(*), coalesce(sum(parse_error != ''), 0) FROM files"
            ).fetchone()
            built = c.execute("SELECT value FROM meta WHERE key='built_at'").fetchone()
            self._counts_cache = (
                files,
                errors,
                c.execute("SELECT count(*) FROM symbols").fetchone()[0],
                c.execute("SELECT count(*) FROM chunks").fetchone()[0],
                built[0] if built else "",
            )
        return self._counts_cache

    @_guard
    def data_generation(self) -> object:
        """A number that changes whenever the data may have (this connection's writes, another process's
        commits): what a reader's caches are kept by."""
        self._fresh_caches()
        return self._generation

    @_guard
    def stats(self) -> IndexStats:
        files, errors, symbols, chunks, built_at = self._counts()
        size = sum(
            os.path.getsize(str(self.path) + s) for s in ("", "-wal") if os.path.exists(str(self.path) + s)
        )
        return IndexStats(
            files=files, symbols=symbols, chunks=chunks, built_at=built_at, parse_errors=errors, db_bytes=size
        )

    @_guard
    def search_terms(
        self,
        groups: Sequence[Sequence[str]],
        *,
        require_all: bool,
        limit: int,
        alternative_weights: Sequence[float] = (),
    ) -> list[ScoredChunk]:
        clauses = []
        phrases: dict[str, list[str]] = {}  # clause -> its phrases (FTS5 strings), for _postings
        weights: dict[str, float] = {}  # clause -> the weight of its phrases after the first
        for i, group in enumerate(groups):
            alts = [s for s in dict.fromkeys(fts_string(t) for t in group) if s]
            if alts:
                clauses.append(alts[0] if len(alts) == 1 else "(" + " OR ".join(alts) + ")")
                phrases[clauses[-1]] = alts
                if len(alts) > 1 and i < len(alternative_weights) and alternative_weights[i] != 1.0:
                    weights[clauses[-1]] = alternative_weights[i]
        if not clauses:
            return []
        if not require_all and len(clauses) > 1 and self._chunk_count() >= COMMON_WORDS_FROM_CHUNKS:
            # A word in a quarter of the chunks or more ("test" in a tree with a test/ folder) weighs little in
            # BM25, yet ranking every chunk it matches costs tens of ms: leave it out of the any-word query.
            # Leaving them out helps the ranking too (the eval set: MRR 0.832 -> 0.838), but not in a handful of
            # chunks, where every word of a question is in a quarter of them.
            common = self._chunk_count() / 4
            if self._stored_words():  # one tokenizer call for every phrase, before they are looked up
                self._words_of([p for c in clauses for p in phrases[c]])
            frequency = {c: self._doc_frequency(c, phrases[c]) for c in clauses}
            # a word no chunk holds is not rare: kept alone it would leave the common ones unsearched and the
            # question unanswered ("Check if the instance is of the appropriate type": 'appropriate')
            rare = [c for c in clauses if 0 < frequency[c] <= common]
            clauses = rare or [c for c in clauses if frequency[c]] or clauses
        if require_all or len(clauses) == 1:
            stored = self._ranked_stored(clauses, phrases, limit)
            if stored is not None:
                return stored
            return self._ranked((" AND " if require_all else " OR ").join(clauses), limit)
        # Any word, in tiers that each rank a far smaller set than "any word anywhere" (ranking costs ~1 us
        # per matching chunk, and a common word matches thousands), then, if that leaves room, any chunk
        # holding one. BM25 ranks the later tier's chunks below most of the first tier's anyway. Two words:
        # the chunks that name one of them (name, signature, docstring); more: those holding two of them.
        if len(clauses) > 2:
            return self._ranked_any(clauses, limit, phrases, weights)
        first = f"{{{' '.join(NAMED_COLUMNS)}}} : ({' OR '.join(clauses)})"
        tiers = (first, " OR ".join(clauses))
        found: list[ScoredChunk] = []
        seen: set[str] = set()
        for expr in tiers:
            found += [sc for sc in self._ranked(expr, limit) if sc.chunk.id not in seen]
            if len(found) >= limit:
                break
            seen = {sc.chunk.id for sc in found}
        return found[:limit]

    def _ranked_any(
        self,
        clauses: Sequence[str],
        limit: int,
        phrases: dict[str, list[str]] | None = None,
        weights: dict[str, float] | None = None,
    ) -> list[ScoredChunk]:
        """Any of three or more words, in two tiers: the chunks holding at least two of the first
        MAX_PAIR_CLAUSES words, then those holding one. This was FTS5 ranking `(a AND b) OR (a AND c) OR ...`
        and then `a OR b OR ...`; it is now computed from each word's postings: bm25 is a sum over the
        query's phrases, and FTS5 counts a phrase only where its branch of the expression matched, so a chunk
        holding m of the paired words scored (m - 1) times the sum of their scores alone (the tests check the
        identity against FTS5). The coordination factor is now (m - 1) ** COORDINATION.
        A word's postings are the chunks it matches with their scores, cached until the data changes: the
        common words of a repository come back in question after question, and ranking the thousands of
        chunks they match is what a search spent its time on (the pairs expression repeats each word once per
        pair: sqlalchemy 50-75 ms)."""
        phrases, weights = phrases or {}, weights or {}

        def postings(clause: str) -> tuple[Any, Any]:
            if clause in weights:
                return self._weighted_postings(clause, phrases[clause], weights[clause])
            return self._postings(clause, phrases.get(clause))

        first = [postings(clause) for clause in clauses[:MAX_PAIR_CLAUSES]]

        def every() -> list[tuple[Any, Any]]:
            return first + [postings(c) for c in clauses[MAX_PAIR_CLAUSES:]]

        small = sum(len(p[0]) for p in first) <= PYTHON_POSTINGS and all(
            isinstance(p[0], list) for p in first
        )
        chosen = (_chosen_in_python if small else _chosen_in_numpy)(first, every, limit)
        if not chosen:
            return []
        rows = self._chunk_rows([rowid for rowid, _ in chosen])
        return [ScoredChunk(chunk=_chunk(rows[rowid]), score=s) for rowid, s in chosen if rowid in rows]

    def _rare(self, phrase: str) -> bool:
        """Whether an FTS5 phrase matches at most RARE_PHRASE_ROWS rows (counted no further)."""
        self._fresh_caches()
        if phrase not in self._rare_cache:
            sql = "SELECT count(*) FROM (SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT ?)"
            rows = self._conn.execute(sql, (phrase, RARE_PHRASE_ROWS + 1)).fetchone()[0]
            self._rare_cache[phrase] = rows <= RARE_PHRASE_ROWS
        return self._rare_cache[phrase]

    def _chunk_rows(self, rowids: Sequence[int]) -> dict[int, Any]:
        rows: dict[int, Any] = {}
        for start in range(0, len(rowids), 500):  # under SQLite's limit of bound parameters
            batch = rowids[start : start + 500]
            sql = (
                f"SELECT {_CHUNK_COLS}, c.rowid FROM chunks c WHERE c.rowid IN ({','.join('?' * len(batch))})"
            )
            rows.update((r[-1], r) for r in self._conn.execute(sql, batch))
        return rows

    def _ranked_stored(
        self, clauses: Sequence[str], phrases: dict[str, list[str]], limit: int
    ) -> list[ScoredChunk] | None:
        """What `_ranked` answers for every clause (or the one clause), computed from the phrases' postings when
        each phrase is one stored word; None otherwise. FTS5 first counts each phrase's rows for its idf, ~1 us
        a row (stdlib: `"subclasses" AND ("exception" OR "error") AND "json"`, 7 rows, 3.7 ms), where a stored
        word is read in ~0.1 ms, and the any-word query that follows reads the same postings. The score is
        FTS5's bm25: a sum over the expression's phrases in their order, from 0.0, so the same bits (a phrase a
        row lacks adds 0.0); ties in rowid order, as FTS5's sorter leaves them (the tests compare both)."""
        every = [p for c in clauses for p in phrases[c]]
        stored = self._stored_words()
        if not stored:
            return None
        for phrase, words in zip(every, self._words_of(every), strict=True):
            # any other phrase is ranked by FTS5 alone when it is rare enough: in more rows, counting them for
            # the idf in the expression costs less than ranking them all
            if not (len(words) == 1 and words[0] in stored) and not self._rare(phrase):
                return None
        import numpy as np

        postings = {p: _by_rowid(*self._phrase_postings(p)) for p in dict.fromkeys(every)}
        keep: Any = None
        for clause in clauses:  # the rows holding a phrase of every clause
            ids = np.concatenate([postings[p][0] for p in phrases[clause]])
            ids.sort()
            ids = ids[np.concatenate(([True], ids[1:] != ids[:-1]))] if len(ids) else ids
            keep = ids if keep is None else keep[np.isin(keep, ids, assume_unique=True)]
        if keep is None or not len(keep):
            return []
        total = np.zeros(len(keep))
        for phrase in every:
            ids, scores = postings[phrase]
            if not len(ids):
                continue
            at = np.minimum(np.searchsorted(ids, keep), len(ids) - 1)
            held = ids[at] == keep
            total[held] += scores[at[held]]
        order = np.lexsort((keep, -total))[:limit]
        chosen = [(int(i), float(s)) for i, s in zip(keep[order], total[order], strict=True)]
        rows = self._chunk_rows([rowid for rowid, _ in chosen])
        if len(rows) < len(chosen):  # a chunk FTS5 holds and the table does not: as the join would skip it
            return None
        return [ScoredChunk(chunk=_chunk(rows[rowid]), score=s) for rowid, s in chosen]

    def _weighted_postings(self, clause: str, phrases: Sequence[str], weight: float) -> tuple[Any, Any]:
        """A clause's postings with its phrases after the first counting `weight` of their bm25 (the first
        phrase is the word the question wrote, the others its alternatives), summed as _postings sums."""
        self._fresh_caches()
        key = f"{clause} * {weight!r}"
        cached = self._postings_cache.get(key)
        if cached is None:
            rest = phrases[1:]
            written = self._postings(phrases[0], phrases[:1])
            others = self._postings(rest[0] if len(rest) == 1 else "(" + " OR ".join(rest) + ")", rest)
            if isinstance(written[0], list) and isinstance(others[0], list):
                total: dict[int, float] = dict(zip(written[0], written[1], strict=True))
                for rowid, score in zip(others[0], others[1], strict=True):
                    total[rowid] = total.get(rowid, 0.0) + weight * score
                cached = (list(total), list(total.values()))  # lists: see _chosen_in_python
            else:
                import numpy as np

                unique, inverse = np.unique(
                    np.concatenate(
                        [np.asarray(written[0], dtype=np.int64), np.asarray(others[0], dtype=np.int64)]
                    ),
                    return_inverse=True,
                )
                scores = np.concatenate(
                    [np.asarray(written[1], dtype=float), weight * np.asarray(others[1], dtype=float)]
                )
                cached = (unique, np.bincount(inverse, weights=scores))
            self._postings_size += len(cached[0])
            self._postings_cache[key] = cached
        return cached

    def _postings(self, clause: str, phrases: Sequence[str] | None = None) -> tuple[Any, Any]:
        """The chunks an FTS5 clause matches and the bm25 score of each for that clause alone. bm25 is a sum
        over the clause's phrases (`"a" OR "b"`) of each phrase's score alone, where a common word's comes
        from its stored postings (stored_postings) and any other's from FTS5."""
        self._fresh_caches()
        cached = self._postings_cache.get(clause)
        if cached is None and phrases and self._stored_words():
            parts = [self._phrase_postings(p) for p in phrases]
            if len(parts) == 1:
                return parts[0]
            import numpy as np  # a segment with stored postings is one where numpy pays for itself

            # summed phrase by phrase, in the clause's order, as FTS5 does
            unique, inverse = np.unique(np.concatenate([p[0] for p in parts]), return_inverse=True)
            cached = (unique, np.bincount(inverse, weights=np.concatenate([p[1] for p in parts])))
            self._postings_size += len(cached[0])
            self._postings_cache[clause] = cached
        if cached is None:
            rows = self._conn.execute(
                "SELECT rowid, -rank FROM chunks_fts WHERE chunks_fts MATCH ? AND rank MATCH ?",
                (clause, _RANK),
            ).fetchall()
            cached = ([r[0] for r in rows], [r[1] for r in rows])  # lists: see _chosen_in_python
            self._postings_size += len(rows)
            if self._postings_size > MAX_CACHED_POSTINGS:
                self._postings_cache.clear()
                self._postings_size = len(rows)
            self._postings_cache[clause] = cached
        return cached

    def _has_shape_index(self) -> bool:
        self._fresh_caches()
        if self._shape is None:
            sql = "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'symbols_shape'"
            self._shape = self._conn.execute(sql).fetchone() is not None
        return self._shape

    def _has_index(self, name: str) -> bool:
        """Whether the index file has this index (an older version's may not yet), cached with the data."""
        self._fresh_caches()
        if name not in self._indexes:
            sql = "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?"
            self._indexes[name] = self._conn.execute(sql, (name,)).fetchone() is not None
        return self._indexes[name]

    def _stored_words(self) -> frozenset[str]:
        """The words whose postings the index stores (none in an index made before they were), cached with the
        data like the postings."""
        self._fresh_caches()
        if self._stored is None:
            has = self._conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'posting_terms'").fetchone()
            words = stored_postings.stored_terms(self._conn) if has else frozenset()
            self._stored = (words, stored_postings.totals(self._conn, "chunks_fts") if words else (0, 0))
        return self._stored[0]

    def _phrase_postings(self, phrase: str) -> tuple[Any, Any]:
        """One phrase's chunks and bm25 scores: from the stored postings when it is one stored word."""
        import numpy as np

        cached = self._postings_cache.get(phrase)
        if cached is not None:
            return cached
        [words] = self._words_of([phrase])
        if len(words) == 1 and words[0] in self._stored_words() and self._stored is not None:
            found = stored_postings.read(self._conn, words[0])
            cached = (found["rowid"].astype(np.int64), stored_postings.scores(found, *self._stored[1]))
            self._postings_cache[phrase] = cached
            self._postings_size += len(found)
            return cached
        return self._postings(phrase)

    def _ranked(self, expr: str, limit: int) -> list[ScoredChunk]:
        rows = self._conn.execute(
            f"SELECT {_CHUNK_COLS}, -f.rank FROM chunks_fts f JOIN chunks c ON c.rowid = f.rowid "
            "WHERE chunks_fts MATCH ? AND f.rank MATCH ? ORDER BY f.rank LIMIT ?",
            (expr, _RANK, limit),
        ).fetchall()
        return [ScoredChunk(chunk=_chunk(r), score=float(r[11])) for r in rows]

    def _fresh_caches(self) -> dict[str, int]:
        version = self._conn.execute("PRAGMA data_version").fetchone()[0]
        if version != self._cache_version:
            self._cache_version = version
            self._forget()
        return self._df_cache

    def _chunk_count(self) -> int:
        return self._counts()[3]

    def _doc_frequency(self, expression: str, phrases: Sequence[str] = ()) -> int:
        """The chunks an FTS5 expression matches; for a clause (`phrases`) of stored words, or of phrases whose
        postings this reader holds (an all-words query read them: a Spanish question's translations), the
        chunks in their postings."""
        cache = self._fresh_caches()
        if expression not in cache:
            stored = self._stored_words()
            words = self._words_of(phrases) if phrases and stored else []
            held = self._postings_cache
            if words and all(
                (len(w) == 1 and w[0] in stored) or p in held for p, w in zip(phrases, words, strict=True)
            ):
                # the clause's postings, kept for the search that follows (not np.unique alone: its first call
                # imports numpy.ma, ~27 ms)
                cache[expression] = len(self._postings(expression, phrases)[0])
            else:
                sql = "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?"
                cache[expression] = self._conn.execute(sql, (expression,)).fetchone()[0]
        return cache[expression]

    def _words_of(self, phrases: Sequence[str]) -> list[list[str]]:
        """Each FTS5 phrase's words as the index stores them (stemmed), remembered: they depend on the
        tokenizer alone."""
        known = self._phrase_words
        todo = [p for p in dict.fromkeys(phrases) if p not in known]
        if todo:
            if len(known) > 10_000:
                known.clear()
            words = self._fts_tokenizer().phrases([p[1:-1].replace('""', '"') for p in todo])
            known.update(zip(todo, words, strict=True))
        return [known[p] for p in phrases]

    @_guard
    def substring_candidates(self, needles: Sequence[str], *, limit: int) -> list[Chunk]:
        """A superset filter: LIKE treats '%' and '_' inside a needle as wildcards, so callers verify.
        Needles of three characters or more use the trigram index when it is built; otherwise this scans."""
        needles = [n for n in needles if n]
        if not needles:
            return []
        # The trigram table answers one LIKE, on the longest run of a needle free of wildcards ('%', '_'); every
        # needle is then tested on the chunk's body. SQLite 3.40's trigram LIKE crashes the process on two LIKEs
        # one of which has a run under three characters ('%ab%' AND '%cdefg%', '%a_c%' AND '%xyz%') and on a
        # multibyte character beside a wildcard ('%8¡%¿bvX%').
        runs = [r for n in needles for r in _WILDCARDS.split(n) if len(r) >= 3]
        indexed = max(runs, key=len) if runs and self._read_substring_state() == "ready" else ""
        table = "chunks_tri t JOIN chunks c ON c.rowid = t.rowid" if indexed else "chunks c"
        where = " AND ".join(["t.body LIKE ?"] * bool(indexed) + ["c.body LIKE ?"] * len(needles))
        params: list[object] = [f"%{n}%" for n in ([indexed] if indexed else []) + needles]
        params.append(limit)
        sql = f"SELECT {_CHUNK_COLS} FROM {table} WHERE {where} ORDER BY c.path, c.start_line LIMIT ?"
        return [_chunk(r) for r in self._conn.execute(sql, params)]

    @_guard
    def iter_chunks(self, paths: Iterable[str] | None = None) -> Iterator[Chunk]:
        if paths is None:
            yield from (
                _chunk(r) for r in self._conn.execute(f"SELECT {_CHUNK_COLS} FROM chunks c ORDER BY c.rowid")
            )
            return
        for path in paths:
            rows = self._conn.execute(
                f"SELECT {_CHUNK_COLS} FROM files f JOIN chunks c ON c.file_id = f.id "
                "WHERE f.path=? ORDER BY c.start_line",
                (path,),
            )
            yield from (_chunk(r) for r in rows)

    @_guard
    def chunk(self, chunk_id: str) -> Chunk | None:
        row = self._conn.execute(f"SELECT {_CHUNK_COLS} FROM chunks c WHERE c.id=?", (chunk_id,)).fetchone()
        return _chunk(row) if row else None

    @_guard
    def file(self, path: str) -> StoredFile | None:
        row = self._conn.execute(
            "SELECT path, language, n_lines, parse_error, sha256 FROM files WHERE path=?", (path,)
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
                "SELECT path, language, n_lines, parse_error, sha256 FROM files ORDER BY path"
            )
        ]

    @_guard
    def symbols(self, path: str) -> list[Symbol]:
        rows = self._conn.execute(
            f"SELECT {_SYMBOL_COLS} FROM symbols s JOIN files f ON f.id = s.file_id WHERE f.path=? "
            "ORDER BY s.start_line, s.depth",
            (path,),
        )
        return [_symbol(r) for r in rows]

    @_guard
    def find_symbols(
        self, *, name: str | None = None, qualname: str | None = None
    ) -> list[tuple[str, Symbol]]:
        where, arg = ("s.qualname=?", qualname) if qualname is not None else ("s.name=?", name)
        rows = self._conn.execute(
            f"SELECT f.path, {_SYMBOL_COLS} FROM symbols s JOIN files f ON f.id = s.file_id WHERE {where} "
            "ORDER BY f.path, s.start_line",
            (arg,),
        )
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
        where, params = edge_filter(paths, names, kinds, aliases=aliases)
        rows = self._conn.execute(
            "SELECT f.path, e.kind, e.caller, e.line, e.col, e.name, e.text, e.alias FROM edges e "
            f"JOIN files f ON f.id = e.file_id WHERE {where} ORDER BY f.path, e.line, e.col",
            params,
        )
        return [(r[0], edge_from_row(r[1:])) for r in rows]

    @_guard
    def call_names(
        self, paths: Sequence[str], names: Sequence[str], callers: Sequence[str] = ()
    ) -> list[tuple[str, str, str]]:
        if not paths or not names:
            return []
        # The names' call edges (edges_calls, else edges_name), then their files (`+e.file_id`), rather than
        # every edge of each file and then the names: a search's hits are in the largest files (CPU a search,
        # sqlalchemy 5-8 ms by file, 3.6 ms by name, 1.3 ms by edges_calls; stdlib 6, 4.5, 1.5 ms)
        # The files' ids first: each edge is then kept or dropped on its index entry, without a join per edge
        # (stdlib, 27 questions: 42 -> 35 ms)
        path_of: dict[int, str] = {}
        for start in range(0, len(paths), 500):  # under SQLite's limit of bound parameters
            batch = paths[start : start + 500]
            sql = f"SELECT id, path FROM files WHERE path IN ({', '.join('?' * len(batch))})"
            path_of.update(self._conn.execute(sql, batch).fetchall())
        if not path_of:
            return []
        sql = (
            "SELECT e.file_id, e.caller, e.name FROM edges e "
            f"WHERE e.kind = '{EdgeKind.CALL.value}' AND e.name IN ({', '.join('?' * len(names))}) "
            f"AND +e.file_id IN ({', '.join(map(str, path_of))})"
        )
        params = list(names)
        if callers and len(names) + len(callers) <= MAX_BOUND:
            # tested on the index entry too: a search's few hits make a fraction of the calls in their files,
            # and each row returned costs more than the test (sqlalchemy 2.4 -> 1.4 ms a search)
            sql += f" AND e.caller IN ({', '.join('?' * len(callers))})"
            params += callers
        return [(path_of[f], caller, name) for f, caller, name in self._conn.execute(sql, params)]

    @_guard
    def name_uses(self, names: Sequence[str]) -> dict[str, int]:
        unique = sorted(set(names))
        uses: dict[str, int] = {}
        for start in range(0, len(unique), 500):  # under SQLite's limit of bound parameters
            batch = unique[start : start + 500]
            sql = (
                "SELECT name, COUNT(DISTINCT file_id) FROM edges "
                f"WHERE name IN ({','.join('?' * len(batch))}) AND kind NOT IN ('return', 'doc', 'scope') GROUP BY name"
            )
            uses.update(self._conn.execute(sql, batch).fetchall())
        return uses

    @_guard
    def all_symbols(self) -> Iterator[tuple[str, Symbol]]:
        rows = self._conn.execute(
            f"SELECT f.path, {_SYMBOL_COLS} FROM symbols s JOIN files f ON f.id = s.file_id ORDER BY f.path, s.start_line"
        )
        for r in rows:
            yield r[0], _symbol(r[1:])

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
        needle = decorator.lstrip("*")
        if (
            decorator
            and not bases
            and not parent
            and not path_words
            and any(ch not in "%_[]" for ch in needle)  # no row without decorators can match it
            and self._has_index("symbols_decorated")
        ):
            shape = [f"kind IN ({', '.join('?' for _ in kinds)})"] if kinds else []
            shape += ["decorators != '[]'", "decorators LIKE ?"]
            where.append(
                f"s.rowid IN (SELECT rowid FROM symbols INDEXED BY symbols_decorated WHERE {' AND '.join(shape)})"
            )
            params.extend([*kinds, f"%{needle}%"])
            decorator, kinds = "", ()
        if (bases or decorator) and not parent and not path_words and self._has_shape_index():
            # no index narrows a substring of the bases or decorators: scan symbols_shape (kind, bases,
            # decorators), a small part of the table's bytes, then read the symbols it finds (stdlib 11 -> 2 ms)
            shape = [f"kind IN ({', '.join('?' for _ in kinds)})"] if kinds else []
            shape += ["(" + " OR ".join("bases LIKE ?" for _ in bases) + ")"] if bases else []
            shape += ["decorators LIKE ?"] if decorator else []
            where.append(
                f"s.rowid IN (SELECT rowid FROM symbols INDEXED BY symbols_shape WHERE {' AND '.join(shape)})"
            )
            params.extend(kinds)
            params.extend(f"%{b}%" for b in bases)
            params.extend([f"%{decorator.lstrip('*')}%"] if decorator else [])
            bases, decorator, kinds = (), "", ()
        if kinds:  # `+`: never symbols_shape by kind, where the qualname or file index narrows far more
            # and tested before the LIKEs below (SQLite tests in this order): "subclasses of Exception in json"
            # tests 61 built-in exceptions' names on json's classes, not on all its symbols (0.8 -> 0.5 ms)
            where.append(f"+s.kind IN ({', '.join('?' for _ in kinds)})")
            params.extend(kinds)
        if bases:
            where.append("(" + " OR ".join("s.bases LIKE ?" for _ in bases) + ")")
            params.extend(f"%{b}%" for b in bases)
        if parent:  # members of a top-level class: a range of the qualname index ('/' follows '.')
            where.append("s.qualname >= ? AND s.qualname < ?")
            params.extend((f"{parent}.", f"{parent}/"))
        if (
            path_words
        ):  # the few files first (the symbols_file index), then the other filters on their symbols
            likes = " OR ".join("path LIKE ?" for _ in path_words)
            where.insert(0, f"s.file_id IN (SELECT id FROM files WHERE {likes})")
            params[:0] = [f"%{w}%" for w in path_words]
        if decorator:
            where.append("s.decorators LIKE ?")
            params.append(f"%{decorator.lstrip('*')}%")
        if is_async:
            where.append("s.is_async = 1")
        if signature:
            where.append("s.signature LIKE ?")
            params.append(f"%{signature}%")
        if not where:  # visibility alone is most of an index, not a question
            return []
        if exported is not None:
            where.append("s.exported = ?")
            params.append(int(exported))
        rows = self._conn.execute(
            f"SELECT f.path, {_SYMBOL_COLS} FROM symbols s JOIN files f ON f.id = s.file_id "
            f"WHERE {' AND '.join(where)} ORDER BY f.path, s.start_line LIMIT ?",
            (*params, limit),
        )
        return [(r[0], _symbol(r[1:])) for r in rows]

    @_guard
    def containing_chunk(self, path: str, line: int) -> Chunk | None:
        row = self._conn.execute(
            f"SELECT {_CHUNK_COLS} FROM files f JOIN chunks c ON c.file_id = f.id "  # both lookups indexed
            "WHERE f.path=? AND c.start_line<=? AND c.end_line>=? "
            "AND c.kind != 'module' ORDER BY c.end_line - c.start_line LIMIT 1",
            (path, line, line),
        ).fetchone()
        return _chunk(row) if row else None

    @_guard
    def vocabulary(self, limit: int) -> list[str]:
        rows = self._conn.execute(
            "SELECT name FROM symbols WHERE depth <= 1 GROUP BY name ORDER BY count(*) DESC, name LIMIT ?",
            (limit,),
        )
        return [r[0] for r in rows]
