"""In-memory stand-ins for the index reader and the file source, shared by the AST and LSP unit tests."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from trifecta.application.ports import OutsideSegment, Scan, SourceFile, StoredFile
from trifecta.domain.code import Symbol
from trifecta.infrastructure.code_parser import SourceParser

PARSER = SourceParser(workers=1)


class FakeIndex:
    """An IndexReader holding what an indexing run stored: files with their hash and symbols."""

    def __init__(self, files: Mapping[str, str] | None = None) -> None:
        self.entries: dict[str, tuple[StoredFile, list[Symbol]]] = {}
        for path, text in (files or {}).items():
            self.add(path, text)

    def add(self, path: str, text: str) -> None:
        parsed = PARSER.parse(path, text)
        stored = StoredFile(
            path=path,
            language=parsed.language,
            n_lines=text.count("\n"),
            parse_error=parsed.error,
            sha256=hashlib.sha256(text.encode()).hexdigest(),
        )
        self.entries[path] = (stored, list(parsed.symbols))

    def files(self) -> list[StoredFile]:
        return [stored for _path, (stored, _symbols) in sorted(self.entries.items())]

    def file(self, path: str) -> StoredFile | None:
        entry = self.entries.get(path)
        return entry[0] if entry else None

    def symbols(self, path: str) -> list[Symbol]:
        entry = self.entries.get(path)
        return list(entry[1]) if entry else []

    def __getattr__(self, name: str) -> Any:  # the search half of the port is not used by this engine
        raise NotImplementedError(name)


class FakeSource:
    """A FileSource over a dict of bytes; `outside` paths are symlinks that leave the segment."""

    def __init__(self, files: Mapping[str, str | bytes], outside: Sequence[str] = ()) -> None:
        self.files = {p: t.encode() if isinstance(t, str) else t for p, t in files.items()}
        self.outside = set(outside)

    def scan(self) -> Scan:
        return Scan(
            files=tuple(SourceFile(path=p, size=len(b), mtime_ns=0) for p, b in self.files.items()),
            skipped={},
        )

    def watching(self) -> bool:
        return False

    def changed_since_scan(self) -> bool:
        return True  # no watch: every freshness check lists the files

    def read_bytes(self, path: str) -> bytes:
        if path in self.outside:
            raise OutsideSegment(f"{path!r} resolves outside the segment")
        if path not in self.files:
            raise FileNotFoundError(path)
        return self.files[path]

    def read_admitted(self, path: str) -> bytes:
        return self.read_bytes(path)  # the fake segment holds no ignored, secret or binary file

    def stat(self, path: str) -> SourceFile | None:
        if path in self.outside:
            raise OutsideSegment(f"{path!r} resolves outside the segment")
        data = self.files.get(path)
        return SourceFile(path=path, size=len(data), mtime_ns=0) if data is not None else None
