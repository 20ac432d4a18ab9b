"""The files of a segment on the local disk.

Listing honours `.gitignore` and `.trifectaignore` files at every level (git's precedence: a deeper file
and a later line win), the default excludes (VCS folders, `.trifecta`, virtual environments, dependency
and cache folders, build output) and secret-looking files. Directory symlinks are never followed (no
loops, nothing outside); a file symlink is kept only when it points inside the segment. Reading refuses
any path that resolves outside the segment.
"""

from __future__ import annotations

import fnmatch
import os
import re
import stat as statmod
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from pathspec import GitIgnoreSpec

from ..application.ports import FileSource, OutsideSegment, Scan, SourceFile
from .dir_watch import DirectoryWatch

DEFAULT_EXCLUDED_DIRS = frozenset(
    {
        ".git", ".hg", ".svn", ".trifecta", ".venv", "venv", ".env", "env", "node_modules", "__pycache__",
        ".mypy_cache", ".pytest_cache", ".ruff_cache", ".tox", ".nox", ".hypothesis", ".cache", ".idea",
        ".vscode", "build", "dist", "site-packages", ".eggs", "target", ".next", ".gradle", "coverage",
        "htmlcov", ".ipynb_checkpoints",
    }
)  # fmt: skip
DEFAULT_SECRET_PATTERNS = (
    ".env", ".env.*", "*.env", "*.pem", "*.key", "id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*", "*.p12",
    "*.pfx", "*.keystore", "*.jks", ".netrc", ".pgpass", ".htpasswd", "*.kdbx", "secrets.*", "credentials.json",
)  # fmt: skip
IGNORE_FILES = (".gitignore", ".trifectaignore")
DEFAULT_MAX_FILE_BYTES = 1 << 20


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
        # can skip the stat scan (a one-shot CLI process lists once and never pays for the watch).
        self._watch = DirectoryWatch(_relevant_name) if watch and DirectoryWatch.supported() else None
        self._listings = 0

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
        stack: list[tuple[str, str, tuple[tuple[str, GitIgnoreSpec], ...]]] = [(root_str, "", ())]
        self._listings += 1
        watch = self._watch if self._listings > 1 else None
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
                specs = specs + self._ignore_specs(abs_dir, rel_dir)
            for entry in entries:
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

    def _ignore_specs(self, abs_dir: str, rel_dir: str) -> tuple[tuple[str, GitIgnoreSpec], ...]:
        found = []
        for name in IGNORE_FILES:
            try:
                with open(os.path.join(abs_dir, name), encoding="utf-8", errors="replace") as fh:
                    found.append((rel_dir, GitIgnoreSpec.from_lines(fh.read().splitlines())))
            except OSError:
                continue
        return tuple(found)

    def _ignored(self, rel: str, specs: tuple[tuple[str, GitIgnoreSpec], ...]) -> bool:
        if self._extra is not None and self._extra.match_file(rel):
            return True
        verdict: bool | None = None
        for base, spec in specs:  # shallow to deep: deeper files decide last
            result = spec.check_file(rel[len(base) :])
            if result.include is not None:
                verdict = result.include
        return bool(verdict)

    def admits(self, path: str) -> bool:
        """Whether the listing would include `path` (ignore files, default excludes, secrets, size)."""
        try:
            full = self.resolve(path)
        except OutsideSegment:
            return False
        parts = path.replace("\\", "/").split("/")
        if any(p in DEFAULT_EXCLUDED_DIRS or p.endswith(".egg-info") for p in parts[:-1]):
            return False
        if self._secrets.matches(parts[-1], path):
            return False
        specs: tuple[tuple[str, GitIgnoreSpec], ...] = ()
        rel_dir = ""
        abs_dir = str(self.root)
        for index, part in enumerate(parts):
            specs = specs + self._ignore_specs(abs_dir, rel_dir)
            rel = rel_dir + part + ("/" if index < len(parts) - 1 else "")
            if self._ignored(rel, specs):
                return False
            rel_dir += part + "/"
            abs_dir = os.path.join(abs_dir, part)
        try:
            return full.is_file() and full.stat().st_size <= self.max_file_bytes
        except OSError:
            return False

    # ---------------------------------------------------------------- reading
    def resolve(self, path: str) -> Path:
        """The absolute path of a segment-relative path; raises OutsideSegment when it leaves."""
        if not path or "\x00" in path:
            raise OutsideSegment(f"not a path inside the segment: {path!r}")
        candidate = Path(path)
        if candidate.is_absolute() or ".." in candidate.parts:
            raise OutsideSegment(f"{path!r} is not a path inside the segment {self.root}")
        full = self.root / candidate
        if not _inside(os.path.realpath(full), str(self.root)):
            raise OutsideSegment(f"{path!r} resolves outside the segment {self.root}")
        return full

    def read_bytes(self, path: str) -> bytes:
        return self.resolve(path).read_bytes()

    def stat(self, path: str) -> SourceFile | None:
        try:
            st = self.resolve(path).stat()
        except OSError:
            return None
        return SourceFile(path=path, size=st.st_size, mtime_ns=st.st_mtime_ns)


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
