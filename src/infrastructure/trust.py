"""Where the user's own configuration lives, reading small config files safely, and the trust store.

A repository's `.trifecta/config.toml` is not the user's: a cloned repository could point the index at
the user's files, run a program or send code and tokens to a server of its choosing. Settings like these
are honoured from a segment only when the user trusted it (`trifecta trust SEGMENT`), the way git's
`safe.directory` and direnv's `allow` work. Trust is bound to the config file's content (its sha256): a
`git pull` that changes the file needs trusting again.

The trust file, `<user config dir>/trusted.toml`, is written by `trifecta trust` and atomically replaced:

    [[segment]]
    path = "/home/u/src/project"          # the segment's real path (symlinks resolved)
    config_sha256 = "9f2c..."             # of .trifecta/config.toml when trusted ("" when it had none)
    trusted_at = "2025-01-31T12:00:00+00:00"
"""

from __future__ import annotations

import datetime
import fcntl
import hashlib
import json
import os
import stat
import tempfile
import tomllib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import attrs

USER_CONFIG_FILE = "config.toml"
TRUST_FILE = "trusted.toml"
MAX_CONFIG_BYTES = 1 << 20  # a config file past 1 MiB is refused: nothing legitimate is that large


class UnsafeConfigFile(ValueError):
    """A config file that is not read: a FIFO, a device, a folder, too large, or not UTF-8 TOML."""


def user_dir(env: Mapping[str, str], own: str, xdg: str, under_home: str) -> Path | None:
    """`$<own>`, else `$<xdg>/trifecta`, else `$HOME/<under_home>/trifecta`, all read from `env`; None when `env`
    names none of them (an explicit, empty environment has no user folder)."""
    if env.get(own, ""):
        return Path(env[own]).expanduser().absolute()
    if env.get(xdg, ""):
        return Path(env[xdg]).expanduser().absolute() / "trifecta"
    if env.get("HOME", ""):
        return Path(env["HOME"]) / under_home / "trifecta"
    return None


def user_config_dir(env: Mapping[str, str]) -> Path | None:
    """`$TRIFECTA_CONFIG_HOME`, else `$XDG_CONFIG_HOME/trifecta`, else `$HOME/.config/trifecta`."""
    return user_dir(env, "TRIFECTA_CONFIG_HOME", "XDG_CONFIG_HOME", ".config")


def read_small_file(path: Path, *, limit: int = MAX_CONFIG_BYTES) -> bytes | None:
    """The bytes of a regular file of at most `limit` bytes; None when nothing is there. Never blocks on a
    FIFO or reads a device: the file is opened non-blocking and checked on its descriptor before reading."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise UnsafeConfigFile(f"{path}: cannot be read ({exc.strerror})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UnsafeConfigFile(f"{path} is not a regular file; it is not read")
        if info.st_size > limit:
            raise UnsafeConfigFile(f"{path} is {info.st_size} bytes; a config file may be at most {limit}")
        data = os.read(fd, limit + 1)
        if len(data) > limit:  # grew while we looked
            raise UnsafeConfigFile(f"{path} is larger than {limit} bytes; it is not read")
        return data
    finally:
        os.close(fd)


def parse_toml(data: bytes, path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(data.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UnsafeConfigFile(f"{path}: {exc}") from None


def digest(data: bytes | None) -> str:
    """The sha256 a trust entry is bound to ("" for a segment with no config file)."""
    return "" if data is None else hashlib.sha256(data).hexdigest()


@attrs.frozen(kw_only=True)
class TrustEntry:
    path: str
    config_sha256: str
    trusted_at: str = ""


class TrustStore:
    """The segments the user trusts, in `<directory>/trusted.toml`."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.file = directory / TRUST_FILE

    def entries(self) -> list[TrustEntry]:
        data = read_small_file(self.file)
        if data is None:
            return []
        rows = parse_toml(data, self.file).get("segment", [])
        if not isinstance(rows, list):
            raise UnsafeConfigFile(f"{self.file}: [[segment]] must be an array of tables")
        return [
            TrustEntry(
                path=str(row.get("path", "")),
                config_sha256=str(row.get("config_sha256", "")),
                trusted_at=str(row.get("trusted_at", "")),
            )
            for row in rows
            if isinstance(row, dict) and row.get("path")
        ]

    def find(self, segment: Path) -> TrustEntry | None:
        real = str(segment.resolve())
        return next((e for e in self.entries() if e.path == real), None)

    def trust(self, segment: Path, config_sha256: str) -> TrustEntry:
        entry = TrustEntry(
            path=str(segment.resolve()),
            config_sha256=config_sha256,
            trusted_at=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        )
        with self._locked():
            kept = [e for e in self.entries() if e.path != entry.path]
            self._write([*kept, entry])
        return entry

    def remove(self, segment: Path) -> bool:
        with self._locked():
            entries = self.entries()
            real = {str(segment.resolve()), str(segment.absolute())}
            kept = [e for e in entries if e.path not in real]
            if len(kept) == len(entries):
                return False
            self._write(kept)
        return True

    @contextmanager
    def _locked(self) -> Iterator[None]:
        """One writer at a time, so two `trifecta trust` runs never lose each other's entry."""
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        with open(self.directory / (TRUST_FILE + ".lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            yield

    def _write(self, entries: list[TrustEntry]) -> None:
        lines = ["# Segments whose .trifecta/config.toml may set every setting (`trifecta trust`).\n"]
        for e in entries:
            lines.append(
                "\n[[segment]]\n"
                f"path = {_toml_string(e.path)}\n"
                f"config_sha256 = {_toml_string(e.config_sha256)}\n"
                f"trusted_at = {_toml_string(e.trusted_at)}\n"
            )
        fd, temp = tempfile.mkstemp(dir=self.directory, prefix=".trusted-", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write("".join(lines))
                out.flush()
                os.fsync(out.fileno())
            os.replace(temp, self.file)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise


def _toml_string(text: str) -> str:
    """A TOML basic string (JSON's escapes are valid TOML); a path that is not valid UTF-8 is refused."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"{text!r} is not valid UTF-8 and cannot be recorded") from None
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")  # TOML wants DEL escaped
