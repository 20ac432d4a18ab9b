"""The files of a segment on the local disk.

Listing honours `.gitignore` and `.trifectaignore` files at every level (git's precedence: a deeper file
and a later line win), the default excludes (VCS folders, `.trifecta`, virtual environments, dependency
and cache folders, build output) and secret-looking file names. Directory symlinks are never followed
(no loops, nothing outside); a file symlink is kept only when it points inside the segment. A name that
is not valid UTF-8 is skipped and counted (`undecodable_name`): the index stores text.

Every read is bounded and never blocks: the path is resolved inside the segment and `lstat`ed (a regular
file only: a FIFO, socket or device is never opened), opened with `O_NONBLOCK | O_NOFOLLOW`, `fstat`ed
again (a file swapped for a FIFO after the check is refused, not waited on), and at most the size limit
plus one byte is read. Ignore files are read the same way with their own cap (`MAX_IGNORE_FILE_BYTES`);
one that is bigger or special is skipped and counted (`ignore_file_refused`).

`read_admitted` is the read for an agent: it refuses what the listing leaves out (ignored, secret by name)
and what the indexer skips (binary, secret by content), each with its own error, so `ctx get` and
`ast snippet` never show what `ctx search` cannot find.
"""

from __future__ import annotations

import errno
import fnmatch
import os
import re
import stat as statmod
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from pathspec import GitIgnoreSpec

from ..application.ports import (
    BinaryFile,
    FileRefused,
    FileSource,
    FileTooLarge,
    IgnoredFile,
    OutsideSegment,
    Scan,
    SecretFile,
    SourceFile,
    SpecialFile,
)
from ..domain.secrets import secret_kind
from .dir_watch import DirectoryWatch

DEFAULT_EXCLUDED_DIRS = frozenset(
    {
        ".git", ".hg", ".svn", ".trifecta", ".venv", "venv", ".env", "env", "node_modules", "__pycache__",
        ".mypy_cache", ".pytest_cache", ".ruff_cache", ".tox", ".nox", ".hypothesis", ".cache", ".idea",
        ".vscode", "build", "dist", "site-packages", ".eggs", "target", ".next", ".gradle", "coverage",
        "htmlcov", ".ipynb_checkpoints",
    }
)  # fmt: skip
# `secrets.*` only as data or config: the standard library's `secrets.py` is code (secrets in code are
# found by their content, not by the file's name).
DEFAULT_SECRET_PATTERNS = (
    ".env", ".env.*", "*.env", "*.pem", "*.key", "id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*", "*.p12",
    "*.pfx", "*.keystore", "*.jks", ".netrc", ".pgpass", ".htpasswd", "*.kdbx", "credentials.json",
    "secrets.yaml", "secrets.yml", "secrets.json", "secrets.toml", "secrets.ini", "secrets.cfg", "secrets.conf",
    "secrets.env", "secrets.txt", "secrets.properties", "secrets.xml",
)  # fmt: skip
IGNORE_FILES = (".gitignore", ".trifectaignore")
DEFAULT_MAX_FILE_BYTES = 1 << 20
MAX_IGNORE_FILE_BYTES = 1 << 20
BINARY_SNIFF = 8192  # as the indexer sniffs: a NUL byte in the first 8 KiB means binary
_OPEN_FLAGS = (
    os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
)
_READ_BLOCK = 1 << 16

_Specs = tuple[tuple[str, GitIgnoreSpec, str], ...]  # (base directory, spec, the ignore file's path)


class LocalFileSource(FileSource):
    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
        exclude: Sequence[str] = (),
        secret_patterns: Sequence[str] = DEFAULT_SECRET_PATTERNS,
        watch: bool = True,
    ) -> None:
        self.root = Path(root).resolve()
        self.max_file_bytes = max_file_bytes
        self._extra = GitIgnoreSpec.from_lines(list(exclude)) if exclude else None
        self._secrets = _SecretMatcher(secret_patterns)
        # From its second listing on, a source watches the directories it reads, so the next freshness check
        # can skip the stat scan (a one-shot CLI process lists once and never pays for the watch); a caller
        # that knows more listings or searches follow (`watch_next_scan`) has the first one watched too.
        self._watch = DirectoryWatch(_relevant_name) if watch and DirectoryWatch.supported() else None
        self._listings = 0
        self._watch_next = False

    def watch_next_scan(self) -> None:
        """Watch the next listing even when it is the first: this process will search again (an explicit
        `index()` in a library or server process), so its first freshness check need not list the tree anew.
        Costs the watch's set-up (~10 ms: ctypes, one inotify watch per directory) once."""
        self._watch_next = True

    def watching(self) -> bool:
        return self._watch is not None and self._watch.armed

    def changed_since_scan(self) -> bool:
        """False only when a file-system watch vouches that nothing under the listed directories changed
        since the last complete `scan()` (the second or a later one); True when something did or nothing
        can tell."""
        return self._watch is None or self._watch.changed()

    def close(self) -> None:
        if self._watch is not None:
            self._watch.close()

    # ---------------------------------------------------------------- listing
    def scan(self) -> Scan:
        files: list[SourceFile] = []
        skipped: Counter[str] = Counter()
        root_str = str(self.root)
        stack: list[tuple[str, str, _Specs]] = [(root_str, "", ())]
        self._listings += 1
        watch = self._watch if self._listings > 1 or self._watch_next else None
        if watch is not None:
            watch.begin()
        while stack:
            abs_dir, rel_dir, specs = stack.pop()
            if watch is not None:
                watch.add(abs_dir)  # before the listing: a change after it is reported, one before is in it
            try:
                with os.scandir(abs_dir) as listing:
                    entries = list(listing)  # any order: the files are sorted once at the end
            except OSError:
                skipped["unreadable"] += 1
                continue
            names = {e.name for e in entries}
            if not names.isdisjoint(IGNORE_FILES):
                specs = specs + self._ignore_specs(abs_dir, rel_dir, skipped)
            for entry in entries:
                if not _utf8(entry.name):
                    skipped["undecodable_name"] += 1
                    continue
                rel = f"{rel_dir}{entry.name}"
                try:
                    is_link = entry.is_symlink()
                    is_dir = entry.is_dir(follow_symlinks=False)
                except OSError:
                    skipped["unreadable"] += 1
                    continue
                if is_dir:
                    if entry.name in DEFAULT_EXCLUDED_DIRS or entry.name.endswith(".egg-info"):
                        skipped["excluded"] += 1
                    elif self._ignored(rel + "/", specs):
                        skipped["ignored"] += 1
                    elif os.path.exists(os.path.join(entry.path, "pyvenv.cfg")):
                        skipped["excluded"] += 1
                    else:
                        stack.append((entry.path, rel + "/", specs))
                    continue
                if is_link:
                    target = os.path.realpath(entry.path)
                    if not _inside(target, root_str):
                        skipped["symlink_outside"] += 1
                        continue
                    if os.path.isdir(target):
                        skipped["symlink_dir"] += 1
                        continue
                if self._ignored(rel, specs):
                    skipped["ignored"] += 1
                    continue
                if self._secrets.matches(entry.name, rel):
                    skipped["secret"] += 1
                    continue
                try:
                    st = entry.stat(follow_symlinks=True)
                except OSError:
                    skipped["unreadable"] += 1
                    continue
                if not statmod.S_ISREG(st.st_mode):
                    skipped["not_regular"] += 1
                    continue
                if st.st_size > self.max_file_bytes:
                    skipped["too_large"] += 1
                    continue
                files.append(SourceFile(path=rel, size=st.st_size, mtime_ns=st.st_mtime_ns))
        files.sort(key=lambda f: f.path)
        if watch is not None:
            watch.arm()
        return Scan(files=tuple(files), skipped=dict(skipped))

    def _ignore_specs(self, abs_dir: str, rel_dir: str, skipped: Counter[str] | None = None) -> _Specs:
        """The ignore files of one directory, each read bounded (a FIFO, a device, a link out of the segment
        or a file over MAX_IGNORE_FILE_BYTES is skipped and counted, never read)."""
        found = []
        for name in IGNORE_FILES:
            full = os.path.join(abs_dir, name)
            try:
                data = _read_regular(full, str(self.root), MAX_IGNORE_FILE_BYTES, f"{rel_dir}{name}")
            except FileNotFoundError:
                continue
            except (OSError, OutsideSegment, FileRefused):
                if skipped is not None:
                    skipped["ignore_file_refused"] += 1
                continue
            lines = data.decode("utf-8", errors="replace").splitlines()
            found.append((rel_dir, GitIgnoreSpec.from_lines(lines), f"{rel_dir}{name}"))
        return tuple(found)

    def _ignored(self, rel: str, specs: _Specs) -> str | None:
        """What ignores `rel` ("[index] exclude" or the deciding ignore file's path), or None."""
        if self._extra is not None and self._extra.match_file(rel):
            return "[index] exclude"
        verdict: str | None = None
        for base, spec, origin in specs:  # shallow to deep: deeper files decide last
            result = spec.check_file(rel[len(base) :])
            if result.include is not None:
                verdict = origin if result.include else None
        return verdict

    def admits(self, path: str) -> bool:
        """Whether the listing would include `path` (ignore files, default excludes, secret names, a regular
        file within the size limit)."""
        try:
            self.check(path)
        except (OutsideSegment, OSError, FileRefused):
            return False
        return True

    def check(self, path: str) -> None:
        """Raises why the listing would leave `path` out: OutsideSegment, IgnoredFile, SecretFile,
        SpecialFile, FileTooLarge, or FileNotFoundError / OSError (nothing is read but ignore files)."""
        real = self._real(path)
        self._check_rules(path)
        _check_regular(real, self.max_file_bytes, path)

    def _check_rules(self, path: str) -> None:
        """The listing's rules by name: default excludes, ignore files and [index] exclude, secret names."""
        parts = path.replace("\\", "/").split("/")
        abs_dir = str(self.root)
        for index, part in enumerate(parts[:-1]):
            if part in DEFAULT_EXCLUDED_DIRS or part.endswith(".egg-info"):
                raise IgnoredFile(
                    f"{path!r} is inside {'/'.join(parts[: index + 1])!r}, a folder the index leaves out "
                    "(dependencies, caches, build output, version control)",
                    data={"path": path, "reason": "excluded_folder"},
                )
            abs_dir = os.path.join(abs_dir, part)
            if os.path.exists(os.path.join(abs_dir, "pyvenv.cfg")):
                raise IgnoredFile(
                    f"{path!r} is inside the virtual environment {'/'.join(parts[: index + 1])!r}",
                    data={"path": path, "reason": "excluded_folder"},
                )
        if self._secrets.matches(parts[-1], path):
            raise SecretFile(
                f"{path!r} looks like a secret by its name (.env, keys, certificates, credentials): "
                "it is not indexed and not shown",
                data={"path": path, "reason": "secret_name"},
            )
        specs: _Specs = ()
        rel_dir = ""
        abs_dir = str(self.root)
        for index, part in enumerate(parts):
            specs = specs + self._ignore_specs(abs_dir, rel_dir)
            rel = rel_dir + part + ("/" if index < len(parts) - 1 else "")
            origin = self._ignored(rel, specs)
            if origin is not None:
                raise IgnoredFile(
                    f"{path!r} is ignored by {origin}: it is not indexed and not shown",
                    data={"path": path, "reason": "ignored", "by": origin},
                )
            rel_dir += part + "/"
            abs_dir = os.path.join(abs_dir, part)

    # ---------------------------------------------------------------- reading
    def resolve(self, path: str) -> Path:
        """The absolute path of a segment-relative path; raises OutsideSegment when it leaves."""
        self._real(path)
        return self.root / path

    def _real(self, path: str) -> str:
        """The real path (links resolved) of a segment-relative path; raises OutsideSegment when it leaves."""
        if not path or "\x00" in path:
            raise OutsideSegment(f"not a path inside the segment: {path!r}")
        candidate = Path(path)
        if candidate.is_absolute() or ".." in candidate.parts:
            raise OutsideSegment(f"{path!r} is not a path inside the segment {self.root}")
        real = os.path.realpath(self.root / candidate)
        if not _inside(real, str(self.root)):
            raise OutsideSegment(f"{path!r} resolves outside the segment {self.root}")
        return real

    def read_bytes(self, path: str) -> bytes:
        return _read_real(self._real(path), self.max_file_bytes, path)

    def read_admitted(self, path: str) -> bytes:
        real = self._real(path)
        self._check_rules(path)
        data = _read_real(real, self.max_file_bytes, path)
        if b"\x00" in data[:BINARY_SNIFF]:
            raise BinaryFile(
                f"{path!r} is a binary file (a NUL byte in its first {BINARY_SNIFF} bytes): it is not indexed "
                "and not shown",
                data={"path": path, "reason": "binary"},
            )
        kind = secret_kind(data.decode("utf-8", errors="replace"), path=path)
        if kind is not None:
            raise SecretFile(
                f"{path!r} holds a secret ({kind}): it is not indexed and not shown",
                data={"path": path, "reason": kind},
            )
        return data

    def stat(self, path: str) -> SourceFile | None:
        try:
            st = self.resolve(path).stat()
        except OSError:
            return None
        return SourceFile(path=path, size=st.st_size, mtime_ns=st.st_mtime_ns)


def _check_regular(real: str, limit: int, rel: str) -> None:
    """Without opening it: raises SpecialFile, FileTooLarge, IsADirectoryError, FileNotFoundError or OSError
    unless `real` (a path with no link left in it) is a regular file within `limit` bytes."""
    _refuse_irregular(os.lstat(real), rel, limit)


def _read_regular(full: str, root: str, limit: int, rel: str) -> bytes:
    """At most `limit` bytes of a regular file inside `root` (after its links are resolved)."""
    real = os.path.realpath(full)
    if not _inside(real, root):
        raise OutsideSegment(f"{rel!r} resolves outside the segment {root}")
    return _read_real(real, limit, rel)


def _read_real(real: str, limit: int, rel: str) -> bytes:
    """At most `limit` bytes of the regular file at `real`; never opens a FIFO or device, never blocks."""
    _check_regular(real, limit, rel)
    try:
        fd = os.open(real, _OPEN_FLAGS)
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # swapped for a symlink since the check
            raise SpecialFile(
                f"{rel!r} changed into a symbolic link while it was being read",
                data={"path": rel, "reason": "changed"},
            ) from None
        raise
    try:
        _refuse_irregular(os.fstat(fd), rel, limit)  # what was opened, not what was checked
        chunks: list[bytes] = []
        left = limit + 1
        while left > 0:
            chunk = os.read(fd, min(left, _READ_BLOCK))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > limit:  # it grew since the check
        raise FileTooLarge(
            f"{rel!r} is over the size limit of {limit} bytes",
            data={"path": rel, "reason": "too_large", "limit": limit},
        )
    return data


def _refuse_irregular(st: os.stat_result, rel: str, limit: int) -> None:
    mode = st.st_mode
    if statmod.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, "is a directory", rel)
    if not statmod.S_ISREG(mode):
        kind = (
            "fifo" if statmod.S_ISFIFO(mode)
            else "socket" if statmod.S_ISSOCK(mode)
            else "device" if statmod.S_ISCHR(mode) or statmod.S_ISBLK(mode)
            else "symlink" if statmod.S_ISLNK(mode)
            else "special"
        )  # fmt: skip
        raise SpecialFile(
            f"{rel!r} is not a regular file ({kind}): it is never opened", data={"path": rel, "reason": kind}
        )
    if st.st_size > limit:
        raise FileTooLarge(
            f"{rel!r} is {st.st_size} bytes, over the size limit of {limit} bytes ([index] max_file_bytes)",
            data={"path": rel, "reason": "too_large", "size": st.st_size, "limit": limit},
        )


def _utf8(name: str) -> bool:
    """Whether a file name decoded from the file system is valid UTF-8 (not surrogate-escaped bytes)."""
    if name.isascii():
        return True
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class _SecretMatcher:
    """Secret-file patterns. Plain name globs (`*.pem`, `.env.*`: the defaults) compile into one regex
    over the file name, which is what makes a no-change refresh cheap; patterns with a `/` or a `!`
    keep full gitignore semantics over the relative path."""

    def __init__(self, patterns: Sequence[str]) -> None:
        patterns = [p.strip() for p in patterns if p.strip() and not p.lstrip().startswith("#")]
        if any("/" in p or p.startswith("!") or "**" in p for p in patterns):
            self._regex = None
            self._spec: GitIgnoreSpec | None = GitIgnoreSpec.from_lines(patterns)
        else:
            self._spec = None
            joined = "|".join(f"(?:{fnmatch.translate(p)})" for p in patterns) or r"(?!)"
            self._regex = re.compile(joined)

    def matches(self, name: str, rel: str) -> bool:
        if self._regex is not None:
            return self._regex.match(name) is not None
        assert self._spec is not None
        return self._spec.match_file(name) or self._spec.match_file(rel)


def _relevant_name(name: str) -> bool:
    """Whether a change to an entry of a listed directory can matter (caches and VCS folders cannot)."""
    return name not in DEFAULT_EXCLUDED_DIRS


def _inside(target: str, root: str) -> bool:
    return target == root or target.startswith(root.rstrip(os.sep) + os.sep)
