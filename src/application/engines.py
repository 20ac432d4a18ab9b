"""Retrieval engines beside the lexical one: structural (symbol table) and pattern (literal text)."""

from __future__ import annotations

import re

from ..domain.code import Chunk, ChunkKind, Hit, Symbol
from ..domain.structural_query import StructuralQuery, base_matches, decorator_matches
from .ports import IndexReader

_QUOTED = re.compile(r"`([^`]+)`|\"([^\"]+)\"|'([^']+)'")
_CODEISH = re.compile(
    r"[A-Za-z_][\w]*(?:[.(\[][\w.()\[\]'\"=,\s]*)+|[A-Z][A-Z0-9_]{2,}|\w*_\w+|\w*[a-z][A-Z]\w*"
)
_CODE_PUNCT = re.compile(r"[()\[\]{}.=:_]")


def literals(query: str, *, code_words: bool = True) -> list[str]:
    """What a pattern question asks to find verbatim: quoted text, else the whole query when it reads as
    code (`raise FrozenInstanceError`, `os.environ[`), else its code-like words."""
    quoted = [next(g for g in m.groups() if g) for m in _QUOTED.finditer(query)]
    if quoted:
        return [q for q in quoted if q.strip()]
    words = query.split()
    if (
        1 <= len(words) <= 4
        and _CODE_PUNCT.search(query)
        or (len(words) == 2 and words[0] in ("raise", "import", "def", "class", "from", "return", "await"))
    ):
        return [query.strip()]
    if not code_words:
        return []
    return [m.group(0).strip() for m in _CODEISH.finditer(query) if len(m.group(0).strip()) >= 3][:4]


class PatternEngine:
    def __init__(self, reader: IndexReader) -> None:
        self._reader = reader

    def search(self, needles: list[str], limit: int) -> list[Hit]:
        needles = [n for n in needles if n]
        if not needles:
            return []
        hits: list[Hit] = []
        for needle in needles[:4]:
            smart_case = (
                needle != needle.lower()
            )  # like ripgrep: an upper-case letter makes it case-sensitive
            for chunk in self._reader.substring_candidates([needle], limit=400):
                line_no, line = _first_line(chunk, needle, smart_case)
                if not line_no:
                    continue
                defines = line.lstrip().startswith(("def ", "class ", "async def ")) and needle in line
                score = 2.0 if defines else 1.0
                if chunk.kind in (ChunkKind.MODULE, ChunkKind.TEXT):
                    score *= 0.8
                hits.append(
                    Hit(
                        chunk=chunk,
                        score=score,
                        match_type="pattern",
                        line=line_no,
                        preview=line.strip()[:300],
                    )
                )
        best: dict[str, Hit] = {}
        for h in hits:
            if h.chunk.id not in best or h.score > best[h.chunk.id].score:
                best[h.chunk.id] = h
        ranked = sorted(best.values(), key=lambda h: (-h.score, h.chunk.path, h.chunk.start_line))
        return ranked[:limit]


def _first_line(chunk: Chunk, needle: str, case_sensitive: bool) -> tuple[int, str]:
    want = needle if case_sensitive else needle.lower()
    for offset, line in enumerate(chunk.body.splitlines()):
        hay = line if case_sensitive else line.lower()
        if want in hay:
            return chunk.start_line + offset if chunk.kind is not ChunkKind.MODULE else chunk.start_line, line
    return 0, ""


class StructuralEngine:
    def __init__(self, reader: IndexReader) -> None:
        self._reader = reader

    def search(self, sq: StructuralQuery, limit: int) -> list[Hit]:
        if not sq.has_filter:
            return []
        found: list[tuple[str, Symbol]] = []
        for path, sym in self._reader.structural_candidates(
            base=sq.base, decorator=sq.decorator, is_async=sq.is_async
        ):
            if sq.base and not (sym.kind == "class" and base_matches(sq.base, sym.bases)):
                continue
            if sq.decorator and not decorator_matches(sq.decorator, sym.decorators):
                continue
            if (
                sq.is_async
                and sq.kinds
                and sym.kind not in sq.kinds
                and not ("function" in sq.kinds and sym.kind == "method")
            ):
                continue
            found.append((path, sym))
        scope = set(sq.scope)
        scope_lower = {s.lower() for s in scope}

        def in_scope(item: tuple[str, Symbol]) -> int:
            path, sym = item
            in_path = {p.lower() for p in path.removesuffix(".py").split("/")} & scope_lower
            in_class = set(sym.qualname.split(".")[:-1]) & scope
            return len(in_path) + 2 * len(in_class)

        found.sort(key=lambda item: (-in_scope(item), item[0], item[1].start_line))
        hits = []
        for rank, (path, sym) in enumerate(found[:limit]):
            container = self._reader.containing_chunk(path, sym.def_line)
            chunk = Chunk(
                id=container.id if container else "",
                path=path,
                start_line=sym.start_line,
                end_line=sym.end_line,
                kind=ChunkKind(sym.kind.value),
                language="python",
                symbol=sym.qualname,
                name=sym.name,
                signature=sym.signature,
                doc=sym.docstring,
                body=sym.signature,
            )
            score = 1.0 / (1 + rank) + in_scope((path, sym))
            hits.append(Hit(chunk=chunk, score=score, match_type="structural", preview=sym.signature))
        return hits
