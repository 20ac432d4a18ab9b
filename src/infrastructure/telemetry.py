"""Telemetry on disk: JSONL events and cumulative counters under `<segment>/.trifecta/telemetry/`.
Implements `application.ports.TelemetrySink`.

    telemetry/events.jsonl      one event per line, newest last (application/telemetry.py has the shape)
    telemetry/events.1.jsonl    ... rotated out when events.jsonl passes max_bytes; `backups` files kept,
    telemetry/events.2.jsonl        so the whole directory stays under about (backups + 1) * max_bytes
    telemetry/counters.json     the query-linter.md counters, summed over all time (rotation keeps them)
    telemetry/.lock             serializes writers: a CLI call and an MCP server may record at once

Recording never fails the command it describes: any error (read-only disk, a held lock) drops the event.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import os
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

    def _rotated(self, n: int) -> Path:
        return self.directory / f"events.{n}.jsonl"

    # ------------------------------------------------------------------ writing
    def record(self, event: TelemetryEvent) -> None:
        if not self.enabled:
            return
        try:
            line = json.dumps(event.to_dict(), ensure_ascii=False, separators=(",", ":")) + "\n"
            self.directory.mkdir(parents=True, exist_ok=True)
            with self._locked():
                with open(self.events_path, "a", encoding="utf-8") as out:
                    out.write(line)
                    size = out.tell()
                increments = event.counters()
                if increments:
                    self._add_counters(increments)
                if size > self.max_bytes:
                    self._rotate()
        except Exception as exc:  # telemetry must never break the call it describes
            if not self._warned:  # say it once per process, on stderr, then stay quiet
                self._warned = True
                with contextlib.suppress(Exception):
                    sys.stderr.write(f"trifecta: telemetry event dropped ({type(exc).__name__}: {exc})\n")

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        if fcntl is None:
            yield
            return
        fd = os.open(self.directory / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            deadline = time.monotonic() + LOCK_WAIT_SECONDS
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        raise TimeoutError("telemetry lock held by another process") from None
                    time.sleep(0.005)
            yield
        finally:
            os.close(fd)  # closing the descriptor releases the lock

    def _rotate(self) -> None:
        if self.backups == 0:
            self.events_path.unlink(missing_ok=True)
            return
        self._rotated(self.backups).unlink(missing_ok=True)
        for n in range(self.backups - 1, 0, -1):
            if self._rotated(n).exists():
                os.replace(self._rotated(n), self._rotated(n + 1))
        os.replace(self.events_path, self._rotated(1))

    def _add_counters(self, increments: dict[str, int]) -> None:
        counters = self.counters()
        for key, n in increments.items():
            counters[key] = counters.get(key, 0) + n
        tmp = self.directory / f"{COUNTERS_FILE}.tmp"
        tmp.write_text(json.dumps(counters, sort_keys=True, indent=1) + "\n", encoding="utf-8")
        os.replace(tmp, self.directory / COUNTERS_FILE)

    # ------------------------------------------------------------------ reading
    def files(self) -> list[Path]:
        """The event files, oldest first."""
        paths = [self._rotated(n) for n in range(self.backups, 0, -1)] + [self.events_path]
        return [p for p in paths if p.is_file()]

    def events(self) -> Iterator[dict[str, Any]]:
        for path in self.files():
            try:
                with open(path, encoding="utf-8", errors="replace") as lines:
                    for line in lines:
                        try:
                            event = json.loads(line)
                        except ValueError:
                            continue  # a torn or hand-edited line
                        if isinstance(event, dict):
                            yield event
            except OSError:
                continue

    def counters(self) -> dict[str, int]:
        try:
            raw = json.loads((self.directory / COUNTERS_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(raw, dict):
            return {}
        return {str(k): v for k, v in raw.items() if isinstance(v, int) and not isinstance(v, bool)}


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
