"""The CodeParser adapter: Python through `ast`, the languages of `data/languages.toml` through tree-sitter
(`treesitter_parser`), every other known text format as line windows.

`parse_many` spreads parsing over worker processes when there is enough of it to pay for them.
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import os
from collections.abc import Iterable, Iterator

import attrs

from ..application.ports import CodeParser
from ..domain.code import Chunk, ChunkKind, ParsedFile
from .python_parser import chunk_id, parse_python
from .treesitter_parser import language_specs, load_grammars, parse_tree_sitter, spec_for

TEXT_WINDOW = 50

LANGUAGES: dict[str, str] = {
    ".py": "python", ".pyi": "python", ".pyw": "python",
    ".md": "markdown", ".rst": "rst", ".txt": "text",
    ".toml": "toml", ".yaml": "yaml", ".yml": "yaml", ".json": "json", ".ini": "ini", ".cfg": "ini",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".tsx": "typescript", ".mts": "typescript", ".cts": "typescript",
    ".go": "go", ".rs": "rust", ".java": "java", ".kt": "kotlin", ".c": "c", ".h": "c",
    ".cc": "cpp", ".cpp": "cpp", ".hpp": "cpp", ".cs": "csharp", ".rb": "ruby", ".php": "php",
    ".swift": "swift", ".scala": "scala", ".sh": "shell", ".bash": "shell", ".sql": "sql",
    ".html": "html", ".css": "css", ".xml": "xml", ".proto": "protobuf", ".lua": "lua",
}  # fmt: skip
LANGUAGES.update(
    {ext: spec.name for spec in language_specs() for ext in spec.extensions}
)  # the tree-sitter table
NAMED_FILES = {"Makefile": "make", "Dockerfile": "docker", "README": "text", "LICENSE": "text"}
# Below this much text one process is faster than starting parser workers as fresh interpreters (~0.2 s
# and 0.2 s of CPU each: imports, grammar queries). On 2 cores, index wall time in-process vs 2 workers,
# go-x-tools subsets: 0.5 MB 0.21 vs 0.28 s, 1 MB 0.45 vs 0.46 s, 2 MB 0.99 vs 0.80 s; rxjs (0.8 MB) 0.38
# vs 0.44 s.
PARALLEL_MIN_CHARS = 1_000_000
# The same for workers forked from this process (see parse_pool.can_fork): they start in ~2 ms with the
# parser and grammars loaded, so less text pays for them, while the machine has cores to spare. rxjs
# (0.8 MB), 2 cores, interleaved medians, in-process vs 2 forked workers: load 1.5-3.5 0.36-0.39 vs
# 0.27-0.29 s; load 4.7-6.4 0.76-0.89 vs 0.90-0.96 s (the workers cost 0.07 s more CPU: pickling, and each
# warms its own identifier memo; with no idle core that is all they bring). Below ~0.5 MB they cost as much
# as they save.
FORKED_MIN_CHARS = 500_000
FORKED_MAX_LOAD_PER_CPU = 2.0  # 1-minute load average per CPU above which FORKED_MIN_CHARS does not apply


def language_of(path: str) -> str | None:
    name = path.rsplit("/", 1)[-1]
    if name in NAMED_FILES:
        return NAMED_FILES[name]
    dot = name.rfind(".")
    return LANGUAGES.get(name[dot:].lower()) if dot > 0 else None


def text_chunks(path: str, language: str, text: str) -> tuple[Chunk, ...]:
    lines = text.splitlines()
    name = path.rsplit("/", 1)[-1]
    out = []
    for index, start in enumerate(range(0, len(lines), TEXT_WINDOW)):
        window = lines[start : start + TEXT_WINDOW]
        if not any(line.strip() for line in window):
            continue
        headings = (
            [w.lstrip("#").strip() for w in window if w.startswith("#")] if language == "markdown" else []
        )
        out.append(
            Chunk(
                id=chunk_id(path, "text", "", index),
                path=path,
                start_line=start + 1,
                end_line=start + len(window),
                kind=ChunkKind.TEXT,
                language=language,
                name=name,
                signature=path,
                doc="\n".join(headings),
                body="\n".join(window),
            )
        )
    return tuple(out)


def parse_source(path: str, text: str) -> ParsedFile:
    """A file's symbols and chunks. A parser that fails on a file (a defect of ours, never of the file)
    costs that file its symbols, not the index run: the file stays searchable as text, its error counted."""
    language = language_of(path) or "text"
    text = text.removeprefix("\ufeff")  # a byte order mark is not part of the first line's text
    try:
        return _parse_source(path, text, language)
    except Exception as exc:  # one file must not stop the run (deep nesting past the parser's own guard too)
        error = f"parser failed: {type(exc).__name__}: {exc}"[:300]
        return ParsedFile(language=language, chunks=text_chunks(path, language, text), error=error)


def _parse_source(path: str, text: str, language: str) -> ParsedFile:
    if language == "python":
        parsed = parse_python(path, text)
        if parsed.error:  # keep the file searchable as text; symbols are skipped and counted
            return ParsedFile(language="python", chunks=text_chunks(path, "python", text), error=parsed.error)
        return parsed
    spec = spec_for(path)
    if spec is not None:
        parsed = parse_tree_sitter(path, text, spec)
        if parsed.error and not parsed.chunks:  # too slow or minified: searchable as text, counted
            return ParsedFile(
                language=spec.name, chunks=text_chunks(path, spec.name, text), error=parsed.error
            )
        return parsed
    return ParsedFile(language=language, chunks=text_chunks(path, language, text))


def parse_item(item: tuple[str, str]) -> tuple[str, ParsedFile]:
    """A file parsed with its chunks' search fields filled (identifier splitting, in the parser's worker)
    and its edges as plain rows (``ParsedFile.edge_rows``)."""
    parsed = parse_source(*item)
    return item[0], attrs.evolve(
        parsed,
        chunks=tuple(chunk.with_search_fields() for chunk in parsed.chunks),
        edges=(),
        edge_rows=parsed.edge_table(),  # plain rows cross the worker pipe 10x cheaper than Edge objects
    )


class SourceParser(CodeParser):
    def __init__(self, workers: int | None = None) -> None:
        self._workers = workers if workers is not None else max(1, min(4, os.cpu_count() or 1))

    def language_of(self, path: str) -> str | None:
        return language_of(path)

    def parse(self, path: str, text: str) -> ParsedFile:
        return parse_source(path, text)

    def parse_many(self, items: Iterable[tuple[str, str]]) -> Iterator[tuple[str, ParsedFile]]:
        with _collector_paused():
            yield from self._parse_many(items)

    def _parse_many(self, items: Iterable[tuple[str, str]]) -> Iterator[tuple[str, ParsedFile]]:
        source = iter(items)
        first = next(source, None)
        if first is None:  # nothing changed (a search's refresh): no pool, not even its import
            return
        source = itertools.chain([first], source)
        from . import parse_pool  # worker processes: see parse_pool for why not multiprocessing

        fork = parse_pool.can_fork()
        threshold = FORKED_MIN_CHARS if fork and _cores_to_spare() else PARALLEL_MIN_CHARS
        head: list[tuple[str, str]] = []
        size = 0
        for item in source:
            head.append(item)
            size += len(item[1])
            if size >= threshold:
                break
        if self._workers <= 1 or size < threshold:
            yield from map(parse_item, itertools.chain(head, source))
            return
        if fork:  # loaded once, here: every forked worker has them
            load_grammars(path for path, _ in head)
        yield from parse_pool.parallel_map(parse_item, itertools.chain(head, source), workers=self._workers)


def _cores_to_spare() -> bool:
    """Whether the machine's load leaves parser workers a core of their own (see FORKED_MIN_CHARS)."""
    try:
        load = os.getloadavg()[0]
    except OSError:
        return True
    return load < FORKED_MAX_LOAD_PER_CPU * (os.cpu_count() or 1)


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off while a run parses (as in the parser workers, see parse_pool): the
    syntax trees and the values made from them (here, or unpickled from the workers) hold no reference
    cycles, yet every 700 allocations wake the collector, which then walks them all: rxjs parses in-process
    ~10% faster without it. Back as it was when the run ends or is abandoned."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
