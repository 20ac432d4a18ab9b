"""A TypeScript project's module aliases: ``compilerOptions.paths`` and ``baseUrl`` of its tsconfig.json
(or jsconfig.json), as the compiler resolves a bare import through them (``@/*`` -> ``src/*``, a package's
own name -> its ``src/index.ts``).

The files are the repository's, so untrusted: read as JSON with comments and trailing commas (JSONC) within
a size cap, anything that does not parse ignored; ``extends`` followed to relative files only, a few levels,
a cycle ending it; a target outside the segment dropped. Pure: the caller reads the files."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

import attrs

MAX_CONFIG_BYTES = 1 << 20  # a tsconfig larger than this is not read
MAX_EXTENDS_DEPTH = 4  # how many `extends` are followed from the file itself
CONFIG_NAMES = ("tsconfig.json", "jsconfig.json")  # the files that govern a folder's files, the first found
# JSONC: a string (kept as it is), a line or block comment (dropped)
_COMMENT = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*[\s\S]*?\*/')
_TRAILING_COMMA = re.compile(r'"(?:\\.|[^"\\])*"|,(?=\s*[}\]])')


def parse_jsonc(data: bytes) -> dict[str, Any] | None:
    """A JSON object written with comments and trailing commas; None when too large or not one."""
    if len(data) > MAX_CONFIG_BYTES:
        return None
    text = data.decode("utf-8", errors="replace").lstrip("\ufeff")
    text = _COMMENT.sub(lambda m: m.group() if m.group().startswith('"') else " ", text)
    text = _TRAILING_COMMA.sub(lambda m: m.group() if m.group().startswith('"') else "", text)
    try:
        found = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return found if isinstance(found, dict) else None


def _folder(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


def join(folder: str, relative: str) -> str | None:
    """A segment-relative path: ``relative`` (``./src/*``, ``../lib``) read from ``folder``; None when it
    is absolute or leaves the segment."""
    if relative.startswith("/") or "\\" in relative or ":" in relative.split("/", 1)[0]:
        return None
    parts = folder.split("/") if folder else []
    for piece in relative.split("/"):
        if piece == "..":
            if not parts:
                return None
            parts.pop()
        elif piece not in ("", "."):
            parts.append(piece)
    return "/".join(parts)


@attrs.frozen(kw_only=True)
class PathAliases:
    """What a tsconfig maps bare imports to: ``paths`` (pattern -> targets, segment-relative, a ``*`` in
    each substituted by what the pattern's ``*`` matched) and the ``baseUrl`` folder ("" the root)."""

    paths: tuple[tuple[str, tuple[str, ...]], ...] = ()
    base_url: str | None = None

    def targets(self, spec: str) -> list[str]:
        """The segment-relative paths (without an ending, or as written) a bare import may name, in the
        compiler's order: the targets of the exact pattern, else of the wildcard pattern with the longest
        prefix, then the import read from ``baseUrl``. Nothing for a relative import."""
        if not spec or spec.startswith((".", "/")):
            return []
        found: list[str] = []
        best: tuple[int, str, tuple[str, ...]] | None = None  # (prefix length, what `*` matched, targets)
        for pattern, targets in self.paths:
            if pattern == spec:
                best = (len(pattern) + 1, "", targets)
                break
            prefix, star, suffix = pattern.partition("*")
            if (
                star
                and len(spec) >= len(prefix) + len(suffix)
                and spec.startswith(prefix)
                and spec.endswith(suffix)
                and (best is None or len(prefix) > best[0])
            ):
                best = (len(prefix), spec[len(prefix) : len(spec) - len(suffix)], targets)
        if best is not None:
            for target in best[2]:
                path = join("", target.replace("*", best[1], 1)) if "*" in target else target
                if path is not None:
                    found.append(path)
        if self.base_url is not None and (path := join(self.base_url, spec)) is not None:
            found.append(path)
        return list(dict.fromkeys(found))


def _extended(config: Mapping[str, Any]) -> list[str]:
    extends = config.get("extends")
    names = [extends] if isinstance(extends, str) else extends if isinstance(extends, list) else []
    return [n for n in names if isinstance(n, str) and n.startswith(("./", "../"))]  # a package's: not read


def _options(
    path: str, read: Callable[[str], Mapping[str, Any] | None], seen: frozenset[str], depth: int
) -> dict[str, tuple[object, str]]:
    """``baseUrl`` and ``paths`` in effect for the config at ``path``: option -> (value, the folder of the
    config that sets it); an extended config's, overridden by the file's own."""
    config = read(path)
    if config is None:
        return {}
    found: dict[str, tuple[object, str]] = {}
    if depth < MAX_EXTENDS_DEPTH:
        for name in _extended(config):
            target = join(_folder(path), name)
            if target is None:
                continue
            for candidate in (target, f"{target}.json") if not target.endswith(".json") else (target,):
                if candidate in seen or read(candidate) is None:
                    continue
                found.update(_options(candidate, read, seen | {candidate}, depth + 1))
                break
    options = config.get("compilerOptions")
    if isinstance(options, dict):
        for key in ("baseUrl", "paths"):
            if key in options:
                found[key] = (options[key], _folder(path))
    return found


def load_aliases(path: str, read: Callable[[str], Mapping[str, Any] | None]) -> PathAliases | None:
    """The aliases of the tsconfig at ``path`` (segment-relative), its ``extends`` followed through
    ``read`` (a config's parsed object, None when it cannot be read or parsed); None when it maps nothing."""
    options = _options(path, read, frozenset({path}), 0)
    base_url: str | None = None
    if "baseUrl" in options and isinstance(options["baseUrl"][0], str):
        base_url = join(options["baseUrl"][1], str(options["baseUrl"][0]))
    paths: list[tuple[str, tuple[str, ...]]] = []
    if "paths" in options and isinstance(options["paths"][0], dict):
        value, folder = options["paths"]
        assert isinstance(value, dict)
        root = base_url if base_url is not None else folder  # from baseUrl, else the file's folder
        for pattern, targets in value.items():
            if not isinstance(targets, list) or pattern.count("*") > 1:
                continue
            joined = [join(root, t) for t in targets if isinstance(t, str) and t.count("*") <= 1]
            kept = tuple(t for t in joined if t is not None)
            if kept:
                paths.append((pattern, kept))
    if not paths and base_url is None:
        return None
    return PathAliases(paths=tuple(paths), base_url=base_url)
