"""Telemetry on disk: JSONL events and cumulative counters under `<segment>/.trifecta/telemetry/`.
Implements `application.ports.TelemetrySink`.

    telemetry/events.jsonl      one event per line, newest last (application/telemetry.py has the shape)
    telemetry/events.1.jsonl    ... rotated out when events.jsonl passes max_bytes; `backups` files kept,
    telemetry/events.2.jsonl        so the whole directory stays under about (backups + 1) * max_bytes
    telemetry/counters.json     the query-linter.md counters, summed over all time (rotation keeps them)
    telemetry/.lock             serializes writers: a CLI call and an MCP server may record at once

Recording never fails the command it describes: any error (read-only disk, a held lock) drops the event.

A repository is not trusted to shape these files: `telemetry` (or `.trifecta`) committed as a symlink to
somewhere else, or `events.jsonl` as a symlink to a user's file, a FIFO or /dev/zero, is never written
through nor read. Every file is opened relative to a descriptor of the telemetry directory, itself opened
with O_NOFOLLOW, and with O_NOFOLLOW | O_NONBLOCK, then checked to be a regular file with one link;
anything else skips the recording (and reads as no events). Reads stop at a size limit.
"""

from __future__ import annotations

import contextlib
import datetime
import errno
import json
import os
import stat
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..application.telemetry import TelemetryEvent

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: writers are not serialized
    fcntl = None  # type: ignore[assignment]

TELEMETRY_DIR = "telemetry"
EVENTS_FILE = "events.jsonl"
COUNTERS_FILE = "counters.json"
LOCK_WAIT_SECONDS = 0.25


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIR_FDS = os.open in os.supports_dir_fd and bool(_NOFOLLOW)  # POSIX; elsewhere lstat checks only


class UnsafeTelemetryPath(OSError):
    """The telemetry directory or one of its files is a symlink or not a regular file: not used."""


class JsonlTelemetry:
    """Events as JSON lines with size-bounded rotation. Disabled, it records nothing but still reads what
    earlier runs left, so `ctx stats` works with TRIFECTA_NO_TELEMETRY=1 set."""

    def __init__(
        self, directory: Path, *, enabled: bool = True, max_bytes: int = 2_000_000, backups: int = 2
    ) -> None:
        self.directory = Path(directory)
        self.enabled = enabled
        self.max_bytes = max(1, max_bytes)
        self.backups = max(0, backups)
        self._warned = False

    @property
    def events_path(self) -> Path:
        return self.directory / EVENTS_FILE

    @staticmethod
    def _rotated(n: int) -> str:
        return f"events.{n}.jsonl"

    # ------------------------------------------------------------------ the directory, never through a link
    @contextlib.contextmanager
    def _opened(self, *, create: bool) -> Iterator[_Dir]:
        """The telemetry directory, opened without following a symlink at it or at its parent (the
        segment's `.trifecta`): created when `create` and missing."""
        if not _DIR_FDS:
            yield _Dir(None, self.directory)
            return
        flags = os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC
        parent = self.directory.parent
        if create:
            with contextlib.suppress(FileExistsError):
                os.mkdir(parent, 0o755)
        try:
            parent_fd = os.open(parent, flags)
        except OSError as exc:
            raise _unsafe(parent, exc) from None
        try:
            if create:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(self.directory.name, 0o755, dir_fd=parent_fd)
            try:
                fd = os.open(self.directory.name, flags, dir_fd=parent_fd)
            except OSError as exc:
                raise _unsafe(self.directory, exc) from None
        finally:
            os.close(parent_fd)
        try:
            yield _Dir(fd, self.directory)
        finally:
            os.close(fd)

    # ------------------------------------------------------------------ writing
    def record(self, event: TelemetryEvent) -> None:
        if not self.enabled:
            return
        try:
            line = json.dumps(event.to_dict(), ensure_ascii=False, separators=(",", ":")) + "\n"
            with self._opened(create=True) as where, self._locked(where):
                fd = where.open(EVENTS_FILE, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
                # a lone surrogate (a query from a mangled file name) is kept as an escape, not dropped
                with open(fd, "a", encoding="utf-8", errors="backslashreplace") as out:
                    out.write(line)
                    size = out.tell()
                increments = event.counters()
                if increments:
                    self._add_counters(where, increments)
                if size > self.max_bytes:
                    self._rotate(where)
        except Exception as exc:  # telemetry must never break the call it describes
            if not self._warned:  # say it once per process, on stderr, then stay quiet
                self._warned = True
                with contextlib.suppress(Exception):
                    sys.stderr.write(f"trifecta: telemetry event dropped ({type(exc).__name__}: {exc})\n")

    @contextlib.contextmanager
    def _locked(self, where: _Dir, *, shared: bool = False) -> Iterator[None]:
        """The writers' lock (`shared`: a reader's, against a counters file half rewritten; none when no
        writer made the lock file yet or it cannot be opened, nor after LOCK_WAIT_SECONDS)."""
        if fcntl is None:
            yield
            return
        if shared:
            try:
                fd = where.open(".lock", os.O_RDONLY)
            except OSError:
                yield
                return
        else:
            fd = where.open(".lock", os.O_RDWR | os.O_CREAT)
        try:
            deadline = time.monotonic() + LOCK_WAIT_SECONDS
            while True:
                try:
                    fcntl.flock(fd, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        if shared:  # read as it is, as before readers took the lock
                            break
                        raise TimeoutError("telemetry lock held by another process") from None
                    time.sleep(0.005)
            yield
        finally:
            os.close(fd)  # closing the descriptor releases the lock

    def _rotate(self, where: _Dir) -> None:
        # renaming or unlinking a symlink acts on the link, never on what it points to
        if self.backups == 0:
            where.unlink(EVENTS_FILE)
            return
        where.unlink(self._rotated(self.backups))
        for n in range(self.backups - 1, 0, -1):
            if where.exists(self._rotated(n)):
                where.replace(self._rotated(n), self._rotated(n + 1))
        where.replace(EVENTS_FILE, self._rotated(1))

    def _add_counters(self, where: _Dir, increments: dict[str, int]) -> None:
        """The counters file rewritten in place, under the writers' lock (readers take it shared): a file
        renamed over another makes ext4 write the new one out first, ~2 ms of every search's wall time. A
        file that is missing, a link or not a regular file is written anew and renamed over the name."""
        try:
            fd = where.open(COUNTERS_FILE, os.O_RDWR)  # a regular file of its own, never through a link
        except OSError:
            fd = None
        if fd is not None:
            with open(fd, "r+b") as f:
                counters = self._parsed_counters(f.read(1_000_000).decode("utf-8", errors="replace"))
                for key, n in increments.items():
                    counters[key] = counters.get(key, 0) + n
                f.seek(0)
                f.write((json.dumps(counters, sort_keys=True, indent=1) + "\n").encode("utf-8"))
                f.truncate()
            return
        counters = self._read_counters(where)
        for key, n in increments.items():
            counters[key] = counters.get(key, 0) + n
        tmp = f"{COUNTERS_FILE}.tmp"
        where.unlink(tmp)  # a leftover, or a planted link: O_EXCL below creates a fresh file
        fd = where.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
        with open(fd, "w", encoding="utf-8") as out:
            out.write(json.dumps(counters, sort_keys=True, indent=1) + "\n")
        where.replace(tmp, COUNTERS_FILE)

    # ------------------------------------------------------------------ reading
    def files(self) -> list[Path]:
        """The event files, oldest first (regular files only, never a link)."""
        names = [self._rotated(n) for n in range(self.backups, 0, -1)] + [EVENTS_FILE]
        try:
            with self._opened(create=False) as where:
                return [self.directory / name for name in names if where.is_regular(name)]
        except OSError:
            return []

    def events(self) -> Iterator[dict[str, Any]]:
        names = [self._rotated(n) for n in range(self.backups, 0, -1)] + [EVENTS_FILE]
        try:
            with self._opened(create=False) as where:
                texts = [where.read_text(name, self._read_limit()) for name in names]
        except OSError:
            return
        for text in texts:
            for line in (text or "").splitlines():
                try:
                    event = json.loads(line)
                except ValueError:
                    continue  # a torn or hand-edited line
                if isinstance(event, dict):
                    yield event

    def counters(self) -> dict[str, int]:
        try:
            with self._opened(create=False) as where, self._locked(where, shared=True):
                return self._read_counters(where)
        except OSError:
            return {}

    def _read_limit(self) -> int:
        return 2 * self.max_bytes + 65_536  # a file rotation keeps near max_bytes; more is not ours

    @staticmethod
    def _read_counters(where: _Dir) -> dict[str, int]:
        return JsonlTelemetry._parsed_counters(where.read_text(COUNTERS_FILE, 1_000_000) or "")

    @staticmethod
    def _parsed_counters(text: str) -> dict[str, int]:
        try:
            raw = json.loads(text)
        except ValueError:
            return {}
        if not isinstance(raw, dict):
            return {}
        return {str(k): v for k, v in raw.items() if isinstance(v, int) and not isinstance(v, bool)}


class _Dir:
    """Files of one directory, by name, through its descriptor (or by path where descriptors are not
    supported): opened O_NOFOLLOW | O_NONBLOCK, regular files with one link only."""

    def __init__(self, fd: int | None, path: Path) -> None:
        self.fd = fd
        self.path = path

    def open(self, name: str, flags: int) -> int:
        flags |= _NOFOLLOW | _NONBLOCK | _CLOEXEC
        if self.fd is None:
            if os.path.islink(self.path / name):
                raise UnsafeTelemetryPath(f"{self.path / name} is a symbolic link: not followed")
            fd = os.open(self.path / name, flags, 0o644)
        else:
            try:
                fd = os.open(name, flags, 0o644, dir_fd=self.fd)
            except OSError as exc:
                raise _unsafe(self.path / name, exc) from None
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or st.st_nlink > 1:
                raise UnsafeTelemetryPath(f"{self.path / name} is not a regular file of its own: not used")
            if _NONBLOCK and flags & (os.O_WRONLY | os.O_RDWR):
                os.set_blocking(fd, True)
        except BaseException:
            os.close(fd)
            raise
        return fd

    def read_text(self, name: str, limit: int) -> str | None:
        try:
            fd = self.open(name, os.O_RDONLY)
        except FileNotFoundError:
            return None
        except OSError:
            return None  # a link, a FIFO, a device: not ours to read
        with open(fd, "rb") as f:
            return f.read(limit).decode("utf-8", errors="replace")

    def is_regular(self, name: str) -> bool:
        try:
            st = os.stat(name, dir_fd=self.fd, follow_symlinks=False) if self.fd is not None else None
            if st is None:
                st = os.lstat(self.path / name)
        except OSError:
            return False
        return stat.S_ISREG(st.st_mode)

    def exists(self, name: str) -> bool:
        try:
            if self.fd is not None:
                os.stat(name, dir_fd=self.fd, follow_symlinks=False)
            else:
                os.lstat(self.path / name)
        except FileNotFoundError:
            return False
        return True

    def unlink(self, name: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            if self.fd is not None:
                os.unlink(name, dir_fd=self.fd)
            else:
                os.unlink(self.path / name)

    def replace(self, src: str, dst: str) -> None:
        if self.fd is not None:
            os.replace(src, dst, src_dir_fd=self.fd, dst_dir_fd=self.fd)
        else:
            os.replace(self.path / src, self.path / dst)


def _unsafe(path: Path, exc: OSError) -> OSError:
    """ELOOP (or ENOTDIR, on some systems) from O_NOFOLLOW means a symlink: say so; other errors pass."""
    if exc.errno in (errno.ELOOP, errno.EMLINK) or (exc.errno == errno.ENOTDIR and os.path.islink(path)):
        return UnsafeTelemetryPath(f"{path} is a symbolic link: not followed")
    return exc


class NullTelemetry:
    """Records nothing, reads nothing: for tests and embedders that want no files written."""

    def record(self, event: TelemetryEvent) -> None:
        return None

    def events(self) -> Iterator[dict[str, Any]]:
        return iter(())

    def counters(self) -> dict[str, int]:
        return {}


def telemetry_dir(segment: Path) -> Path:
    return Path(segment) / ".trifecta" / TELEMETRY_DIR


def timestamp() -> str:
    """Now, UTC, ISO-8601 to the millisecond (events of one second must still sort)."""
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds")
