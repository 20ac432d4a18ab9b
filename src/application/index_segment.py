"""Build or refresh a segment's index: stat first, hash only what changed, parse in parallel, commit in
atomic batches (a killed run leaves the last consistent index and the next run carries on)."""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import attrs

from ..domain.code import FileState, ParsedFile
from ..domain.contract import ErrorCode
from ..domain.secrets import secret_kind
from .embedding import EmbedReport
from .ports import CodeParser, FileRefused, FileSource, FileUpdate, IndexWriter, ProgressSink, SourceFile

BATCH_FILES = 256
BATCH_SECONDS = 2.0
BINARY_SNIFF = 8192
# a file refused when read (it changed after the listing) is counted under the listing's own reason
_SCAN_REASONS = {
    ErrorCode.SPECIAL_FILE: "not_regular",
    ErrorCode.FILE_TOO_LARGE: "too_large",
    ErrorCode.SECRET_FILE: "secret",
    ErrorCode.IGNORED_FILE: "ignored",
}
# A run that rewrites this many indexed files drops the substring accelerator and rebuilds it once at the
# end (deleting a file's trigrams costs as much as adding them); so does an implicit first build (it leaves
# it for later, to be searchable sooner). A run that adds files keeps it: the store adds each batch's.
BULK_FILES = 200
# A file skipped for its content (a NUL byte: binary) is stored as a FileState whose sha256 is this prefix
# and the reason: the next run leaves it unread until its size or mtime changes (the store keeps it apart
# from the indexed files: no chunk, no symbol, not listed).
SKIPPED_PREFIX = "skipped:"


@attrs.frozen(kw_only=True)
class IndexRequest:
    full: bool = False  # re-parse every file, ignoring what is stored
    # Leave the substring accelerator for a later explicit run (an implicit build before a search
    # should make the segment searchable as soon as possible; pattern look-ups scan meanwhile).
    defer_substring_index: bool = False


@attrs.frozen(kw_only=True)
class IndexReport:
    files_seen: int
    files_indexed: int  # parsed and written in this run
    files_unchanged: int
    files_deleted: int
    symbols_added: int
    parse_errors: int
    skipped: dict[str, int]
    seconds: float  # the whole run
    parse_error_files: tuple[str, ...] = ()
    searchable_seconds: float = 0.0  # until every file was committed and searchable
    substring_index_seconds: float = 0.0  # building the trigram accelerator after that (0: not built)
    embeddings: EmbedReport | None = None  # the vectors' sync, when an embedder is configured

    @property
    def changed(self) -> int:
        return self.files_indexed + self.files_deleted

    def to_data(self) -> dict[str, Any]:
        """The report as the `index` envelope's data (the CLI and the MCP `reindex` tool)."""
        data: dict[str, Any] = {
            "files_seen": self.files_seen,
            "files_indexed": self.files_indexed,
            "files_unchanged": self.files_unchanged,
            "files_deleted": self.files_deleted,
            "symbols_added": self.symbols_added,
            "parse_errors": self.parse_errors,
            "parse_error_files": list(self.parse_error_files),
            "skipped": dict(self.skipped),
            "seconds": round(self.seconds, 3),
            "searchable_seconds": round(self.searchable_seconds, 3),
            "substring_index_seconds": round(self.substring_index_seconds, 3),
        }
        if self.embeddings is not None:
            data["embeddings"] = self.embeddings.to_data()
        return data


def _noop_progress(done: int, total: int, message: str) -> None:
    return None


class IndexSegment:
    def __init__(
        self,
        *,
        source: FileSource,
        parser: CodeParser,
        writer: IndexWriter,
        clock: Callable[[], str],
    ) -> None:
        self._source = source
        self._parser = parser
        self._writer = writer
        self._clock = clock
        self._settled = False  # the last run completed and committed what its listing saw
        # Files whose content holds a credential, by (size, mtime_ns) when it was read: while that stays
        # the same they are skipped without being read again (for this process; a new one checks anew).
        self._secret_stats: dict[str, tuple[int, int]] = {}

    def freshness(self) -> bool | None:
        """What a file-system watch says about the index, at the cost of a non-blocking read: True when
        the last run here completed and nothing changed since its listing, False when something did, None
        when no watch can tell (then only `execute` finds out)."""
        if not self._settled or not self._source.watching():
            return None
        return not self._source.changed_since_scan()

    def execute(self, request: IndexRequest, progress: ProgressSink | None = None) -> IndexReport:
        self._settled = False
        report = self._execute(request, progress)
        self._settled = True
        return report

    def _execute(self, request: IndexRequest, progress: ProgressSink | None) -> IndexReport:
        started = time.perf_counter()
        report = progress or _noop_progress
        scan = self._source.scan()
        skipped: Counter[str] = Counter(scan.skipped)
        indexed = self._writer.file_states()
        stored = {} if request.full or not self._writer.edges_current() else indexed
        candidates = [f for f in scan.files if self._parser.language_of(f.path) is not None]
        skipped["unsupported"] += len(scan.files) - len(candidates)

        present = {f.path for f in candidates}
        deleted = sorted(set(indexed) - present)
        to_check = [f for f in candidates if _stat_changed(stored.get(f.path), f)]
        unchanged = len(candidates) - len(to_check)
        checking = {f.path for f in to_check}
        for path, state in stored.items():  # skipped before and unchanged since: counted, not read again
            if state.sha256.startswith(SKIPPED_PREFIX) and path in present and path not in checking:
                skipped[state.sha256.removeprefix(SKIPPED_PREFIX)] += 1
                unchanged -= 1
        known_secret = [f for f in to_check if self._secret_stats.get(f.path) == (f.size, f.mtime_ns)]
        if known_secret:
            skipped["secret"] += len(known_secret)
            to_check = [f for f in to_check if self._secret_stats.get(f.path) != (f.size, f.mtime_ns)]
        self._secret_stats = {f.path: (f.size, f.mtime_ns) for f in known_secret}
        secret_removed: list[str] = []  # indexed before, holding a credential now

        # Read and hash what looks changed, lazily: the parser's workers draw on this while earlier files
        # are parsed and written. Content-identical files only get their stat data refreshed.
        touched: list[FileState] = []
        states: dict[str, tuple[FileState, int]] = {}
        # skipped for their content: stored, so that the next run skips them unread
        remembered: list[FileUpdate] = []

        def changed_texts() -> Iterator[tuple[str, str]]:
            nonlocal unchanged
            for f in to_check:
                try:
                    data = self._source.read_bytes(f.path)
                except FileRefused as exc:  # changed since the listing: now a FIFO, or past the size limit
                    skipped[_SCAN_REASONS.get(exc.code, "unreadable")] += 1
                    continue
                except Exception:
                    skipped["unreadable"] += 1
                    continue
                if b"\x00" in data[:BINARY_SNIFF]:
                    skipped["binary"] += 1
                    remembered.append(_skipped_update(f, "binary"))
                    continue
                text = data.decode("utf-8", errors="replace")
                if secret_kind(text, path=f.path) is not None:  # no chunk, no symbol: search never shows it
                    skipped["secret"] += 1
                    self._secret_stats[f.path] = (f.size, f.mtime_ns)
                    if f.path in indexed:
                        secret_removed.append(f.path)
                    continue
                digest = hashlib.sha256(data).hexdigest()
                old = stored.get(f.path)
                state = FileState(path=f.path, size=f.size, mtime_ns=f.mtime_ns, sha256=digest)
                if old is not None and old.sha256 == digest:
                    touched.append(state)
                    unchanged += 1
                    continue
                states[f.path] = (state, text.count("\n") + (0 if text.endswith("\n") or not text else 1))
                yield f.path, text

        total = len(to_check)  # at most: some turn out unchanged, unreadable or binary once read
        report(0, total, f"indexing {total} files" if total else "index up to date")
        if deleted:
            self._writer.apply([], deleted, [])
        batch: list[FileUpdate] = []
        last_commit = time.monotonic()
        done = symbols = errors = replaced = 0
        error_files: list[str] = []
        bulk = False
        for path, parsed in self._parser.parse_many(changed_texts()):
            state, n_lines = states[path]
            batch.append(FileUpdate(state=state, parsed=parsed, n_lines=n_lines))
            symbols += len(parsed.symbols)
            replaced += path in indexed
            if parsed.error:
                errors += 1
                error_files.append(path)
            done += 1
            if len(batch) >= BATCH_FILES or time.monotonic() - last_commit > BATCH_SECONDS:
                bulk = bulk or self._suspend_substring_index_for(request, done, replaced)
                self._writer.apply(batch, [], [])
                batch = []
                last_commit = time.monotonic()
                report(done, total, path)
        if batch or touched or secret_removed or remembered:
            bulk = bulk or self._suspend_substring_index_for(request, done, replaced)
            self._writer.apply(batch + remembered, secret_removed, touched)
        deleted += secret_removed
        if done or deleted or touched or remembered or request.full or not self._writer.has_completed_run():
            self._writer.finish_run(self._clock())  # a no-change refresh writes nothing
        searchable = time.perf_counter() - started
        report(total, total, "done")
        substring_seconds = 0.0
        if not request.defer_substring_index and not self._writer.substring_index_ready():
            report(0, 1, "substring index: building the trigram accelerator")
            t = time.perf_counter()
            self._writer.build_substring_index()
            substring_seconds = time.perf_counter() - t
            report(1, 1, "substring index: built")
        return IndexReport(
            files_seen=len(candidates),
            files_indexed=done,
            files_unchanged=unchanged,
            files_deleted=sum(not indexed[p].sha256.startswith(SKIPPED_PREFIX) for p in deleted),
            symbols_added=symbols,
            parse_errors=errors,
            skipped={k: v for k, v in sorted(skipped.items()) if v},
            seconds=time.perf_counter() - started,
            parse_error_files=tuple(error_files[:50]),
            searchable_seconds=searchable,
            substring_index_seconds=substring_seconds,
        )

    def _suspend_substring_index_for(self, request: IndexRequest, written: int, replaced: int) -> bool:
        """Before a commit: a run that rewrites BULK_FILES indexed files or more, or an implicit one that
        writes that many, drops the trigram accelerator (it is rebuilt once at the end, or later). True
        once it is suspended."""
        bulk = replaced >= BULK_FILES or (request.defer_substring_index and written >= BULK_FILES)
        if bulk and self._writer.substring_index_ready():
            self._writer.suspend_substring_index()
            return True
        return False


def _skipped_update(f: SourceFile, reason: str) -> FileUpdate:
    """The record of a file skipped for `reason`: its stat data, no content."""
    state = FileState(path=f.path, size=f.size, mtime_ns=f.mtime_ns, sha256=SKIPPED_PREFIX + reason)
    return FileUpdate(state=state, parsed=ParsedFile(language=""), n_lines=0)


def _stat_changed(old: FileState | None, new: SourceFile) -> bool:
    return old is None or old.size != new.size or old.mtime_ns != new.mtime_ns
