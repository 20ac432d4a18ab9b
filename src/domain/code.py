"""Values the index is made of: files, symbols, chunks and hits.

Line numbers are 1-based and inclusive. A symbol's `start_line` includes its decorators; `def_line` is the
line of the `def`/`class` keyword. Paths are relative to the segment and `/`-separated.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING

import attrs

from .terms import expand_identifiers, identifier_parts

if TYPE_CHECKING:
    from .calls import Edge, EdgeRow


class SymbolKind(enum.StrEnum):
    """What a definition is. Python uses the first three; the others come from the tree-sitter languages
    (`src/data/languages/*.scm` names them in its `@definition.<kind>` captures)."""

    CLASS = "class"
    FUNCTION = "function"
    METHOD = "method"
    INTERFACE = "interface"
    STRUCT = "struct"
    ENUM = "enum"
    TRAIT = "trait"
    TYPE = "type"  # a type alias or other named type
    CONST = "const"  # a module-level constant, variable or static
    IMPL = "impl"  # a Rust `impl [Trait for] Type` block
    MODULE = "module"  # a named module or namespace inside a file
    MACRO = "macro"
    FIELD = "field"  # an interface's property

    @property
    def is_callable(self) -> bool:
        return self in (SymbolKind.FUNCTION, SymbolKind.METHOD, SymbolKind.MACRO)

    @property
    def is_container(self) -> bool:
        """Definitions whose members are qualified by its name: `Type.member`."""
        return self in _CONTAINERS


_CONTAINERS = frozenset(
    {
        SymbolKind.CLASS, SymbolKind.INTERFACE, SymbolKind.STRUCT, SymbolKind.ENUM, SymbolKind.TRAIT,
        SymbolKind.IMPL, SymbolKind.MODULE,
    }
)  # fmt: skip


class ChunkKind(enum.StrEnum):
    CLASS = "class"  # a class header: the class minus its methods' bodies
    FUNCTION = "function"
    METHOD = "method"
    DECLARATION = "declaration"  # a multi-line type, constant or variable outside a class (other languages)
    MODULE = "module"  # module-level code outside any definition
    TEXT = "text"  # a line window of a non-code file, or of a file that failed to parse


@attrs.frozen(kw_only=True)
class Symbol:
    name: str
    qualname: str
    kind: SymbolKind
    start_line: int
    end_line: int
    def_line: int
    signature: str = ""
    docstring: str = ""
    decorators: tuple[str, ...] = ()
    bases: tuple[str, ...] = ()
    params: tuple[str, ...] = ()
    is_async: bool = False
    parent: str = ""  # qualified name of the enclosing definition, "" at module level
    depth: int = 0  # nesting depth: 0 for top level
    exported: bool = (
        False  # visible outside its module: `export`, `pub`, a capitalised Go name, no `_` prefix
    )

    @property
    def first_doc_line(self) -> str:
        return self.docstring.strip().splitlines()[0] if self.docstring.strip() else ""


@attrs.frozen(kw_only=True)
class Chunk:
    """A unit of search: what a hit points at."""

    id: str
    path: str
    start_line: int
    end_line: int
    kind: ChunkKind
    language: str
    symbol: str = ""  # qualified name, "" for module-level and text chunks
    name: str = ""  # the symbol's own name
    signature: str = ""
    doc: str = ""  # docstring and comments
    body: str = ""  # the source text of the chunk
    # name, symbol, signature, doc with identifiers split (terms.expand_identifiers) and the body's identifier
    # parts (terms.identifier_parts), filled by the parser so the splitting runs in its worker processes;
    # empty means "not computed yet"
    search_fields: tuple[str, ...] = attrs.field(default=(), eq=False, repr=False)

    def with_search_fields(self) -> Chunk:
        """name, symbol, signature and doc with identifiers split in place; for the body, only the parts of
        its distinct identifiers (the store indexes them after the body itself)."""
        return Chunk(  # not attrs.evolve: this runs once per chunk of a full index, and evolve costs 3x more
            id=self.id,
            path=self.path,
            start_line=self.start_line,
            end_line=self.end_line,
            kind=self.kind,
            language=self.language,
            symbol=self.symbol,
            name=self.name,
            signature=self.signature,
            doc=self.doc,
            body=self.body,
            search_fields=(
                expand_identifiers(self.name),
                expand_identifiers(self.symbol),
                expand_identifiers(self.signature),
                expand_identifiers(self.doc),
                identifier_parts(self.body),
            ),
        )


@attrs.frozen(kw_only=True)
class ParsedFile:
    language: str
    symbols: tuple[Symbol, ...] = ()
    chunks: tuple[Chunk, ...] = ()
    error: str = ""  # why symbols could not be extracted ("" when they were)
    edges: tuple[Edge, ...] = ()  # call sites and imports (domain.calls)
    # the same as plain rows, as the Python parser makes them and parser workers send them: unpickling the
    # stdlib's 62k Edge objects cost the indexing process 160 ms, rows 14 ms; the stores write either form
    edge_rows: tuple[EdgeRow, ...] = ()
    # (qualname, def_line, form) of the callables whose tree says what their text cannot: "signature" (no
    # body: a TypeScript overload signature, an abstract or interface method) or "get" / "set" (a property
    # accessor). Known from a parse, not stored: a selector parses again a file that defines a name twice.
    forms: tuple[tuple[str, int, str], ...] = ()

    def edge_table(self) -> tuple[EdgeRow, ...]:
        """Every edge as a row (kind, caller, line, column, name, text, alias), whichever form it came in."""
        return self.edge_rows or tuple(e.row() for e in self.edges)

    def edge_list(self) -> tuple[Edge, ...]:
        """Every edge as an ``Edge``, whichever form it came in (the Python parser gives rows)."""
        if self.edges or not self.edge_rows:
            return self.edges
        from .calls import edge_from_row  # calls imports this module

        return tuple(edge_from_row(row) for row in self.edge_rows)


@attrs.frozen(kw_only=True)
class FileState:
    """What the indexer remembers of a file to decide whether it changed."""

    path: str
    size: int
    mtime_ns: int
    sha256: str = ""


@attrs.frozen(kw_only=True)
class Hit:
    chunk: Chunk
    score: float
    match_type: str  # "lexical", "pattern", "verbatim", "structural", "semantic", "symbol", "hybrid"
    line: int = 0  # the matching line for pattern hits, 0 otherwise
    preview: str = ""

    def rescored(self, score: float) -> Hit:
        """This hit with another score: attrs.evolve without looking its fields up on each call (a search
        rescores every ranked hit a few times: ~2.5 us a call saved)."""
        return Hit(
            chunk=self.chunk, score=score, match_type=self.match_type, line=self.line, preview=self.preview
        )
