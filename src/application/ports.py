"""Ports: what the use cases need from the outside world, as Protocols owned by the inside.

Adapters in `trifecta.infrastructure` implement them; `interfaces.bootstrap` wires them together.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Protocol

import attrs

from ..domain.calls import Edge
from ..domain.code import Chunk, FileState, ParsedFile, Symbol
from ..domain.contract import ErrorCode
from .telemetry import TelemetryEvent


@attrs.frozen(kw_only=True)
class SourceFile:
    path: str  # relative to the segment, '/'-separated
    size: int
    mtime_ns: int


@attrs.frozen(kw_only=True)
class Scan:
    files: tuple[SourceFile, ...]
    skipped: Mapping[str, int]  # reason -> count (ignored, secret, too_large, symlink_outside, unreadable)


class CodedError(Exception):
    """A failure an adapter or use case can name: the facade answers it with an envelope carrying `code`
    and `data` (never INTERNAL_ERROR). Subclasses fix the code; `data` says more (a reason, a path)."""

    code: ErrorCode = ErrorCode.INTERNAL_ERROR

    def __init__(self, message: str, *, data: Mapping[str, object] | None = None) -> None:
        super().__init__(message)
        self.data: dict[str, object] = dict(data or {})


class OutsideSegment(Exception):
    """A path that leaves the segment (`..`, absolute, or a symlink pointing out)."""


class FileRefused(CodedError):
    """A file the indexer would not index, so it is not read for an agent either; `data.reason` says why."""


class SecretFile(FileRefused):
    code = ErrorCode.SECRET_FILE  # by name (`.env`, `id_rsa`, `*.pem`) or by content (a key, a token)


class IgnoredFile(FileRefused):
    code = ErrorCode.IGNORED_FILE  # .gitignore, .trifectaignore, [index] exclude, a default-excluded folder


class SpecialFile(FileRefused):
    code = ErrorCode.SPECIAL_FILE  # a FIFO, socket or device: never opened, so never waited on


class FileTooLarge(FileRefused):
    code = ErrorCode.FILE_TOO_LARGE  # over the size limit: at most limit+1 bytes are ever read


class BinaryFile(FileRefused):
    code = ErrorCode.BINARY_FILE


class FileSource(Protocol):
    """The files of one segment: listing honours ignore rules, reading never leaves the segment."""

    def scan(self) -> Scan: ...

    def watching(self) -> bool:
        """Whether a file-system watch covers the last complete scan, so `changed_since_scan` can vouch."""
        ...

    def changed_since_scan(self) -> bool:
        """False only when the source can vouch that nothing changed since its last complete scan (a
        file-system watch); True otherwise. Lets a freshness check skip the scan."""
        ...

    def read_bytes(self, path: str) -> bytes:
        """The bytes of a regular file of the segment, read within the size limit and without ever blocking
        (what the indexer reads). Raises OutsideSegment, SpecialFile, FileTooLarge, FileNotFoundError or
        OSError."""
        ...

    def read_admitted(self, path: str) -> bytes:
        """`read_bytes` for an agent (`ctx get`, `ast snippet`, refs previews): also refuses what the listing
        leaves out or the indexer skips, raising IgnoredFile, SecretFile (by name or content) or BinaryFile."""
        ...

    def stat(self, path: str) -> SourceFile | None: ...


class CodeParser(Protocol):
    def language_of(self, path: str) -> str | None:
        """The language a path is indexed as, or None when it is not indexed as text at all."""
        ...

    def parse(self, path: str, text: str) -> ParsedFile: ...

    def parse_many(self, items: Iterable[tuple[str, str]]) -> Iterator[tuple[str, ParsedFile]]:
        """(path, text) pairs -> (path, parsed) pairs in the same order; may use worker processes, which
        may draw on `items` lazily from other threads while earlier results are being consumed."""
        ...


@attrs.frozen(kw_only=True)
class FileUpdate:
    state: FileState
    parsed: ParsedFile
    n_lines: int


@attrs.frozen(kw_only=True)
class IndexStats:
    files: int
    symbols: int
    chunks: int
    built_at: str  # ISO-8601 UTC of the last completed run, "" if none completed
    parse_errors: int
    db_bytes: int


@attrs.frozen(kw_only=True)
class StoredFile:
    path: str
    language: str
    n_lines: int
    parse_error: str
    sha256: str


@attrs.frozen(kw_only=True)
class ScoredChunk:
    chunk: Chunk
    score: float  # larger is better


class IndexWriter(Protocol):
    def file_states(self) -> dict[str, FileState]: ...

    def apply(
        self, updates: Sequence[FileUpdate], deleted: Sequence[str], touched: Sequence[FileState]
    ) -> None:
        """One atomic batch: replace updated files, remove deleted ones, refresh stat data of touched ones."""
        ...

    def finish_run(self, built_at: str) -> None: ...

    def has_completed_run(self) -> bool: ...

    def edges_current(self) -> bool:
        """Whether the stored call edges are what this version's parsers record (an index written before a
        new kind of edge has none of them: the next run re-parses every file, as `index --full` does)."""
        ...

    def substring_index_ready(self) -> bool:
        """Whether the substring accelerator (trigram index) is built and maintained."""
        ...

    def suspend_substring_index(self) -> None:
        """Drop the accelerator before a bulk load (look-ups scan meanwhile, same answers)."""
        ...

    def build_substring_index(self) -> None: ...

    def rebuild_needed(self) -> bool:
        """True when the stored schema differs from this version's (the store then starts empty)."""
        ...


class IndexReader(Protocol):
    def stats(self) -> IndexStats: ...

    def data_generation(self) -> object:
        """A value that stays equal (``==``) while the index's data stays the same, for a reader's caches
        (the call graph's look-ups); a store that cannot tell answers a new value each time."""
        return object()

    def search_terms(
        self,
        groups: Sequence[Sequence[str]],
        *,
        require_all: bool,
        limit: int,
        alternative_weights: Sequence[float] = (),
    ) -> list[ScoredChunk]:
        """BM25 over chunks. Each group is a set of alternatives for one query word (any may match);
        with require_all every group must match, otherwise any. Ranked best first. In the any-word ranking
        of three groups or more, a group's alternatives after its first count `alternative_weights[i]` of
        what they would alone (a synonym weighs less than the word written; 1.0 where none is given)."""
        ...

    def substring_candidates(self, needles: Sequence[str], *, limit: int) -> list[Chunk]:
        """Chunks whose text contains every needle (case-insensitive; trigram-accelerated)."""
        ...

    def iter_chunks(self, paths: Iterable[str] | None = None) -> Iterator[Chunk]: ...

    def chunk(self, chunk_id: str) -> Chunk | None: ...

    def file(self, path: str) -> StoredFile | None: ...

    def files(self) -> list[StoredFile]: ...

    def symbols(self, path: str) -> list[Symbol]: ...

    def find_symbols(
        self, *, name: str | None = None, qualname: str | None = None
    ) -> list[tuple[str, Symbol]]:
        """(path, symbol) pairs for symbols with this name or qualified name."""
        ...

    def all_symbols(self) -> Iterator[tuple[str, Symbol]]: ...

    def edges(
        self,
        *,
        paths: Sequence[str] = (),
        names: Sequence[str] = (),
        kinds: Sequence[str] = (),
        aliases: Sequence[str] = (),
    ) -> list[tuple[str, Edge]]:
        """(path, edge) pairs of the call sites and imports in `paths`, with the name in `names`, of the kind
        in `kinds`, binding a name in `aliases` (every filter given must hold; paths or names must be given),
        by path and position."""
        ...

    def call_names(
        self, paths: Sequence[str], names: Sequence[str], callers: Sequence[str] = ()
    ) -> list[tuple[str, str, str]]:
        """(path, caller, name) of each call in `paths` to a name in `names`, in no set order: what search
        asks of every question, so no Edge is built. `callers`: the calls of other callers may be left out."""
        ...

    def name_uses(self, names: Sequence[str]) -> dict[str, int]:
        """How many files call, import or reference each of `names` (by name, as the edges record it): how much
        of the repository leans on a definition of that name. Names no file uses are left out."""
        ...

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
        """(path, symbol) pairs that pass every filter given, as a superset (callers filter exactly):
        stored bases mentioning one of `bases`, decorators mentioning `decorator`, async when asked,
        qualified names under the top-level class `parent`, paths containing one of `path_words`, of one
        of `kinds`, exported or not, signatures mentioning `signature`. Visibility alone selects nothing;
        a kind alone lists that kind."""
        ...

    def containing_chunk(self, path: str, line: int) -> Chunk | None:
        """The smallest chunk of `path` whose range holds `line`."""
        ...

    def vocabulary(self, limit: int) -> list[str]:
        """The segment's most distinctive names: symbol names and file stems."""
        ...


class ProgressSink(Protocol):
    def __call__(self, done: int, total: int, message: str) -> None: ...


class TelemetrySink(Protocol):
    """Where call events go (JSONL under `.trifecta/telemetry/`, or nowhere). `record` never raises: a
    telemetry failure must not fail the command it describes."""

    def record(self, event: TelemetryEvent) -> None: ...

    def events(self) -> Iterator[dict[str, object]]:
        """The stored events, oldest first (malformed lines are left out)."""
        ...

    def counters(self) -> dict[str, int]:
        """The cumulative query-linter.md counters."""
        ...


@attrs.frozen(kw_only=True)
class CodeMatch:
    start_line: int  # 1-based, inclusive
    end_line: int
    text: str


class InvalidCodePattern(ValueError):
    """The code pattern does not parse in the language; the message says why."""


class CodePatternMatcher(Protocol):
    """Structural code search (ast-grep patterns with $VAR / $$$ metavariables) in many languages."""

    def languages(self) -> tuple[str, ...]:
        """The index languages (a chunk's `language`) patterns run in."""
        ...

    def language(self, name: str) -> str | None:
        """The index language a user's name means (`ts` -> typescript), None when patterns cannot run in it."""
        ...

    def grammar(self, language: str, path: str) -> str | None:
        """The grammar a file of an index language is parsed in (a `.tsx` file: `tsx`), None if none."""
        ...

    def validate(self, pattern: str, grammar: str) -> None:
        """Raises InvalidCodePattern when the pattern cannot be used in the grammar."""
        ...

    def find(self, pattern: str, grammar: str, text: str, limit: int) -> list[CodeMatch]: ...
