"""Navigation from the index: the definition of a name at a position, callers, callees and impact.

The edges (call sites and imports) are recorded when a file is indexed; they are resolved here, when asked,
against the symbol table (``domain.calls`` holds the rules), so an index run pays only for recording them
and a changed file never makes another file's resolutions stale.

``ast def PATH:LINE[:COL]`` (kind ``"definition"``): the name at the position (the first call on the line
without a column), how it resolved (``exact``, ``import``, ``name`` with every candidate, ``unresolved``
with a ``reason``) and ``definitions``, each with path, lines, symbol, kind, signature and ``uri``;
``engine`` says who answered: ``lsp`` (the language server's ``textDocument/definition``, exact; places
outside the segment in ``external``) when one is running for the file's language or ``engine="lsp"``
asks for it, else ``index``; a server that fails leaves the answer to the index with ``lsp.reason`` and an
``LSP_FALLBACK`` warning. A position that is not on a name is ``INVALID_ARGUMENT``.

``ast callers URI`` / ``ast callees URI`` (kinds ``"callers"``, ``"callees"``): ``hits``, one per call site,
with ``path``, ``line``, ``column`` (1-based), ``symbol`` and ``uri`` of the other end, ``resolution``,
``callee`` (the call as written), ``use`` (callers: ``call``; ``reference`` for a function read as a
value: a callback, a dispatch table; ``doc`` for a doc comment's link, ``{@link name}``) and a one-line
``preview``; as many as fit in ``max_bytes_total`` (``total``, ``omitted``). Callers are the calls that reach the definition (``name`` matches too, marked
so: a caller counts ``exact``/``import`` ones as sure), then, for a method, the calls that reach another
method of its class family (``related``: ``base``, a method it overrides, so the call may run it;
``override``; ``sibling``, another implementation of a base's method; ``reaches`` names it), the family a
language server's references follow; callees also list the calls that reach nothing in the segment, as
``resolution: "unresolved"``.

Their ``URI`` is a ``sym://`` selector, or ``PATH:LINE[:COL]`` for the definition declared on that line, else
the innermost around it (``domain.position``): the one way to ask about the second of two definitions a
file gives one qualified name, which a selector names together (the first answers, in ``range``); callees
of a position are that definition's own calls.

``ast impact URI --depth N`` (kind ``"impact"``): transitive callers through ``exact`` and ``import``
resolutions, breadth first, up to ``depth`` (at most ``MAX_DEPTH``; a larger one is capped and the answer
says so), each definition once (recursion and mutual calls end); grouped by file with counts, test files
marked, and the test definitions that reach the symbol listed in ``tests``.
"""

from __future__ import annotations

import collections
import contextlib
import functools
import json
import re
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Protocol, TypeVar

import attrs

from ..domain import actions as act
from ..domain.budget import BudgetPolicy, cut_snippet, utf8_size
from ..domain.calls import (
    GO_MODULE_FOLDER,
    LOCAL,
    PARAMETER,
    Candidate,
    Edge,
    EdgeKind,
    FileContext,
    GraphQuestion,
    Relation,
    Resolution,
    Resolved,
    Segment,
    accessor_receiver,
    accessor_uses,
    bound_imports,
    callee_parts,
    calls_target,
    external_bases,
    family_in_callers,
    is_accessor,
    names_external,
    parameter_calls,
    relation,
    resolve_accessor_use,
    resolve_edge,
    star_imports,
)
from ..domain.code import ChunkKind, Symbol, SymbolKind
from ..domain.contract import Error, ErrorCode, Notice, Ref, Response, WarningCode
from ..domain.position import definition_at, is_position, parse_position
from ..domain.rewrite_policy import is_test_file
from ..domain.selector import Selector, SelectorKind, parse
from ..domain.tsconfig import CONFIG_NAMES, MAX_CONFIG_BYTES, PathAliases, load_aliases, parse_jsonc
from .navigation import LanguageServerUnavailable, Location
from .ports import FileRefused, FileSource, IndexReader, OutsideSegment
from .zoom_ast import PathRules, SymbolResolver, Unresolved, uri_of

DEFINITION_KIND = "definition"
CALLERS_KIND = "callers"
CALLEES_KIND = "callees"
IMPACT_KIND = "impact"
MAX_LIMIT = 500
MAX_DEPTH = 5
ADMITTED_FILES = 256  # files whose lines previews keep
KEPT_GRAPH_ENTRIES = 50_000  # kept graph entries (~0.9 kB each) beyond which a request starts afresh
SURE = frozenset({Resolution.EXACT, Resolution.IMPORT})
_WORD = re.compile(r"[A-Za-z_$][\w$]*")
_USE = {EdgeKind.CALL: "call", EdgeKind.REFERENCE: "reference", EdgeKind.DOC: "doc"}  # a caller hit's `use`
_STATIC = re.compile(r"(?:[\w@]+\s+)*static\s")  # `static m()`, `public static m()`
# what a bare import's path may end in, in the compiler's order; a `.js` one names its `.ts` source
_RESOLVED_ENDINGS = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mts", ".cts", ".mjs", ".cjs")
_SOURCE_OF_OUTPUT = {".js": (".ts", ".tsx"), ".jsx": (".tsx",), ".mjs": (".mts",), ".cjs": (".cts",)}
# `f()[0]`: a receiver typed by an item of what `f` returns; `f()[]`: an element of it (TypeScript)
_ITEM_SUFFIX = re.compile(r"\[\d*\]$")
_DOTTED_LEFT = re.compile(r"(?:[A-Za-z_$][\w$]*(?:\(\))?\s*(?:\?\.|\.|::|->)\s*)*$")


# --------------------------------------------------------------------------------------------- the graph


# TypeScript's and JavaScript's endings: their callers list each signature of an overloaded declaration
_ECMASCRIPT = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")
_ACCESSOR_CHUNKS = 2000  # the chunks an accessor's name is looked for in (`.size`)
_SELF = frozenset({"self", "this", "cls"})
# a variable's field as a receiver (`observable.observers_`)
_FIELD_RECEIVER = re.compile(r"(?!(?:self|this|cls)\.)([A-Za-z_$][\w$]*)\.([A-Za-z_$][\w$]*)")
_RECEIVER_FILES = 24  # the files whose receiver types an accessor's question reads at most
# definitions that are no caller: a read in a field's initializer is its class's
_NOT_CALLERS = frozenset({SymbolKind.FIELD, SymbolKind.CONST, SymbolKind.TYPE, SymbolKind.MACRO})


_ASSIGNED = re.compile(r"\s*(?::\s*([A-Za-z_$][\w$.]*)[^=\n]*)?=(?!=)\s*(?:new\s+)?([A-Za-z_$][\w$.]*)?(\()?")


def _assignments(receiver: str, text: str) -> list[tuple[int, str]]:
    """Where ``text`` assigns ``receiver`` and the type each assignment gives it: an annotation
    (``p: Path = make()``: Path), a call's value (``acc = Account(3)``, ``const m = new Map()``: what
    ``Account()``/``Map()`` make), else "" (a value of no known type)."""
    out = []
    at = text.find(receiver)
    while at >= 0:
        end = at + len(receiver)
        if not _in_name(text[at - 1 : at], dot=True) and not _in_name(text[end : end + 1]):
            m = _ASSIGNED.match(text, end)
            if m is not None:
                annotation, callee, called = m.groups()
                out.append((at, annotation or (f"{callee}()" if callee and called else "")))
        at = text.find(receiver, end)
    return out


def _in_name(char: str, *, dot: bool = False) -> bool:
    return bool(char) and (char.isalnum() or char in "_$" or (dot and char == "."))


def _declared_type(receiver: str, signature: str, assignments: Sequence[tuple[int, str]], at: int) -> str:
    """A receiver's type as its definition declares it: an annotation in the signature (``gauge: Gauge``,
    ``g?: Gauge``), else what the last assignment before ``at`` gives it (``_assignments``)."""
    typed = re.search(rf"(?<![\w$]){re.escape(receiver)}\??\s*:\s*([A-Za-z_$][\w$.]*)", signature)
    if typed:
        return typed.group(1)
    return next((t for start, t in reversed(assignments) if start < at), "")


class CallGraph:
    """Resolution over one reader, with what it looks up kept for one request (the index may change
    between requests, never during one)."""

    def __init__(
        self, reader: IndexReader, rules: Mapping[str, PathRules], read: Callable[[str], bytes] | None = None
    ) -> None:
        self._reader = reader
        self._rules = rules
        self._read = read  # a file's bytes as an agent may see them (Go's go.mod), if the caller has them
        self._go_modules: dict[str, tuple[str, tuple[str, ...]] | None] = {}  # folder -> its go.mod's module
        self._ts_aliases: dict[str, PathAliases | None] = {}  # folder -> its nearest tsconfig's aliases
        self._ts_configs: dict[str, dict[str, Any] | None] = {}  # a tsconfig's path -> its object, read once
        self._ts_files: dict[str, str | None] = {}  # an alias's target -> the file of the segment it names
        self._candidates: dict[str, list[Candidate]] = {}
        self._named: dict[str, dict[tuple[str, str], Symbol]] = {}
        self._definitions: dict[str, dict[tuple[str, str], list[Symbol]]] = {}
        self._file_symbols: dict[str, list[Symbol]] = {}  # a file's, for the scopes of a name's definitions
        self._contexts: dict[str, FileContext] = {}
        self._modules: dict[str, tuple[str, tuple[str, ...]] | None] = {}
        self._module_of: dict[str, tuple[str, ...]] = {}
        self._importers: dict[str, list[tuple[tuple[str, ...], str, Edge]]] = {}
        self._stars: list[tuple[str, Edge]] | None = None
        self._returns: dict[str, dict[tuple[str, str], list[str]]] = {}
        self._module_binders: dict[str, list[tuple[tuple[str, ...], str, Edge]]] = {}
        self._arguments: dict[tuple[str, tuple[str, ...]], list[tuple[str, Edge, list[Edge]]]] = {}
        self.segment = Segment(
            lookup=self.candidates,
            context_of=self.context,
            importers=self.importers,
            returns=self.returns,
            module_binders=self.module_binders,
            arguments=self.arguments,
            symbol_of=self.symbol,
            calls_in=self.calls_in,
        )

    def language_and_stem(self, path: str) -> tuple[str, tuple[str, ...]] | None:
        if path not in self._modules:
            self._modules[path] = next(
                ((lang, stem) for lang, row in self._rules.items() if (stem := row.stem(path)) is not None),
                None,
            )
        return self._modules[path]

    def module(self, path: str) -> tuple[str, ...]:
        """A file's module: its path without the ending, without a folder's own file (`__init__`, `index`,
        `mod`), and a Go file's folder."""
        known = self._module_of.get(path)
        if known is None:
            known = self._module_of[path] = self._new_module(path)
        return known

    def _new_module(self, path: str) -> tuple[str, ...]:
        found = self.language_and_stem(path)
        stem = found[1] if found is not None else tuple(path.rsplit(".", 1)[0].split("/"))
        row = self._rules.get(found[0]) if found is not None else None
        if row is not None and row.package_folders:
            return stem[:-1]
        if row is not None and stem and stem[-1] in row.folder_files and len(stem) > 1:
            return stem[:-1]
        return stem

    def uri(self, path: str, qualname: str) -> str | None:
        found = self.language_and_stem(path)
        return uri_of(found[1], qualname, found[0]) if found is not None else None

    def candidates(self, name: str) -> list[Candidate]:
        if name not in self._candidates:
            found = self._reader.find_symbols(name=name)
            self._named[name] = {(p, s.qualname): s for p, s in reversed(found)}  # the first of a name
            self._candidates[name] = [
                Candidate(path=p, qualname=s.qualname, kind=s.kind, module=self.module(p), bases=s.bases)
                for p, s in found
            ]
        return self._candidates[name]

    def symbol(self, path: str, qualname: str) -> Symbol | None:
        """A definition, from the look-up of its name (not the whole file's symbols)."""
        name = qualname.rsplit(".", 1)[-1]
        self.candidates(name)
        return self._named[name].get((path, qualname))

    def definitions(self, path: str, qualname: str) -> list[Symbol]:
        """Every definition of one qualified name in a file, in source order: an overloaded function's
        signatures (TypeScript's `f(a: A): B` lines above its body), each a declaration of its own."""
        name = qualname.rsplit(".", 1)[-1]
        if name not in self._definitions:
            by_place: dict[tuple[str, str], list[Symbol]] = {}
            for p, s in self._reader.find_symbols(name=name):
                by_place.setdefault((p, s.qualname), []).append(s)
            self._definitions[name] = by_place
        return self._definitions[name].get((path, qualname), [])

    def in_scope(self, path: str, symbol: Symbol) -> Callable[[str, int], bool] | None:
        """Where a call reaches this definition, when its file defines its qualified name again and the
        index has the blocks each is visible in (SCOPE edges): ``(path, line) -> bool``. A use in the file
        reaches the definition of the innermost block around it, else the module's own definition; a use in
        another file reaches the module's one only (a local function is never imported). None when every
        use of the name reaches the same place (one definition, or no blocks known)."""
        if not path.endswith(_ECMASCRIPT):  # (the languages with SCOPE rows: no look-up for the others)
            return None
        scopes: dict[int, tuple[int, int]] = {}
        for _, edge in self._reader.edges(paths=[path], names=[symbol.name], kinds=[EdgeKind.SCOPE]):
            low, _, high = edge.text.partition("-")
            if edge.caller == symbol.qualname and low.isdigit() and high.isdigit():
                scopes[edge.line] = (int(low), int(high))
        if not scopes:
            return None
        module_level = [
            s.def_line for s in self.definitions(path, symbol.qualname) if s.def_line not in scopes
        ]
        mine = symbol.def_line

        def reaches(where: str, line: int) -> bool:
            if where != path:
                return mine not in scopes
            around = [(high - low, -at, at) for at, (low, high) in scopes.items() if low <= line <= high]
            owner = min(around)[2] if around else (module_level[0] if module_level else None)
            return owner == mine

        return reaches

    def calls_in(self, path: str, name: str) -> list[Edge]:
        """The calls of ``name`` in one file (its CALL edges), by position."""
        return [e for _, e in self._reader.edges(paths=[path], names=[name], kinds=[EdgeKind.CALL])]

    def load_contexts(self, paths: Iterable[str]) -> None:
        """The imports of many files in one look-up."""
        todo = sorted({p for p in paths if p not in self._contexts})
        if not todo:
            return
        imports: dict[str, list[Edge]] = {p: [] for p in todo}
        for start in range(0, len(todo), 500):
            for path, edge in self._reader.edges(paths=todo[start : start + 500], kinds=[EdgeKind.IMPORT]):
                imports[path].append(edge)
        for path in todo:
            self._contexts[path] = self._new_context(path, imports[path])

    def context(self, path: str) -> FileContext:
        found = self._contexts.get(path)
        if found is None:
            self.load_contexts([path])
            found = self._contexts[path]
        return found

    def returns(self, name: str) -> Mapping[tuple[str, str], Sequence[str]]:
        """What the functions of this name return (their RETURN edges), by path and qualified name."""
        if name not in self._returns:
            self.load_returns([name])
        return self._returns[name]

    def load_returns(self, names: Iterable[str]) -> None:
        """The RETURN edges of many names in one look-up."""
        todo = sorted({n for n in names if n not in self._returns})
        for name in todo:
            self._returns[name] = {}
        for start in range(0, len(todo), 500):
            for path, edge in self._reader.edges(names=todo[start : start + 500], kinds=[EdgeKind.RETURN]):
                # what a function hands its callback argument i as parameter j: "#i.j Type"; the class of
                # item i of the tuple it returns: "#[i] Type"; a class's attribute, field, a module's
                # variable or class alias: "#attr", "#field", "#var", "#alias"
                text = f"#{edge.alias} {edge.text}" if edge.alias else edge.text
                self._returns[edge.name].setdefault((path, edge.caller), []).append(text)

    def importers(self, name: str) -> list[tuple[tuple[str, ...], str, Edge]]:
        """The module-level imports of the segment that bind ``name`` or import ``*``, with their files'
        modules and paths (for re-exports: a file's context is loaded only when its module is the one)."""
        if name not in self._importers:
            if self._stars is None:
                self._stars = [
                    (p, e)
                    for p, e in self._reader.edges(names=["*"], kinds=[EdgeKind.IMPORT])
                    if not e.caller
                ]
            found = [
                (p, e)
                for p, e in self._reader.edges(names=[name], kinds=[EdgeKind.IMPORT])
                if not e.caller and e.alias == name
            ]
            found += self._stars  # (a renaming re-export, `from .x import a as b`, is not followed)
            self._importers[name] = [(self.module(p), p, e) for p, e in found]
        return self._importers[name]

    def module_binders(self, alias: str) -> list[tuple[tuple[str, ...], str, Edge]]:
        """The module-level `import m as alias` / `import alias` of the segment, with their files' modules
        and paths: a module's attribute that is another module (`os.path`)."""
        if alias not in self._module_binders:
            self._module_binders[alias] = [
                # TypeScript's `import * as m from '@/m'`: the file it names
                (self.module(p), p, self._aliased_imports(p, [e])[0] if p.endswith(_ECMASCRIPT) else e)
                for p, e in self._reader.edges(names=[""], kinds=[EdgeKind.IMPORT], aliases=[alias])
                if not e.caller and not e.name
            ]
        return self._module_binders[alias]

    def arguments(self, name: str, aliases: Sequence[str]) -> list[tuple[str, Edge, list[Edge]]]:
        """The calls of ``name`` that pass an argument of a known class at one of ``aliases`` (a position
        "0", a keyword "=key"), each with those ARGUMENT edges (Python: a parameter typed by its calls);
        their files' contexts loaded in one look-up."""
        key = (name, tuple(aliases))
        if key not in self._arguments:
            self.load_arguments([key])
        return self._arguments[key]

    def load_arguments(self, wanted: Iterable[tuple[str, tuple[str, ...]]]) -> None:
        """``arguments`` of many (name, aliases) in three look-ups: their ARGUMENT edges, the calls there,
        and the calling files' contexts."""
        todo = sorted({w for w in wanted if w not in self._arguments})
        if not todo:
            return
        needed: dict[str, set[str]] = {}  # name -> the aliases some parameter of it needs
        for name, aliases in todo:
            needed.setdefault(name, set()).update(aliases)
        names = sorted(needed)
        # (name, path, line, column) -> the ARGUMENT edges there
        by_place: dict[tuple[str, str, int, int], list[Edge]] = {}
        for start in range(0, len(names), 500):
            for path, edge in self._reader.edges(names=names[start : start + 500], kinds=[EdgeKind.ARGUMENT]):
                if edge.alias in needed[edge.name]:
                    by_place.setdefault((edge.name, path, edge.line, edge.column), []).append(edge)
        calls: dict[tuple[str, str, int, int], Edge] = {}
        paths = sorted({p for _, p, _, _ in by_place})
        if paths:
            self.load_contexts(paths)
            for start in range(0, len(paths), 500):
                for path, edge in self._reader.edges(
                    paths=paths[start : start + 500], names=names, kinds=[EdgeKind.CALL]
                ):
                    calls[(edge.name, path, edge.line, edge.column)] = edge
        by_name: dict[str, list[tuple[str, Edge, list[Edge]]]] = {}
        for place, passed in by_place.items():
            call = calls.get(place)
            if call is not None:
                by_name.setdefault(place[0], []).append((place[1], call, passed))
        for name, aliases in todo:
            self._arguments[(name, aliases)] = [
                (path, call, at)
                for path, call, passed in by_name.get(name, ())
                if (at := [e for e in passed if e.alias in aliases])
            ]

    def _calling_contexts(self, calls: Sequence[tuple[str, Edge]]) -> dict[str, FileContext]:
        """Contexts enough to resolve these calls, per calling file: a common name (`append`, `execute`) is
        called from hundreds of files, whose every import would cost more to read than the calls themselves.
        A call's resolution reads only the imports binding its first name and its receiver type's, and the
        file's star imports (what else it needs, a base class's file, is loaded whole when asked), so those
        are the ones read: one look-up for all the files."""
        paths = sorted({p for p, _ in calls})
        out = {p: self._contexts[p] for p in paths if p in self._contexts}
        todo = [p for p in paths if p not in out]
        if not todo:
            return out
        heads: set[str] = set()
        for _, edge in calls:
            parts = callee_parts(edge.text)
            heads.update(parts[:1])
            for type_text in edge.alias.split("|") if edge.alias else ():
                # `make().m()`; `T:field` (a field of a variable's type)
                heads.update(re.split(r"[(:]", part, maxsplit=1)[0] for part in callee_parts(type_text)[:1])
        imports: dict[str, list[Edge]] = {p: [] for p in todo}
        for start in range(0, len(todo), 500):
            chunk = todo[start : start + 500]
            for path, edge in self._reader.edges(paths=chunk, kinds=[EdgeKind.IMPORT], aliases=sorted(heads)):
                imports[path].append(edge)
            for path, edge in self._reader.edges(paths=chunk, names=["*"], kinds=[EdgeKind.IMPORT]):
                imports[path].append(edge)
        for path in todo:
            imports[path].sort(key=lambda e: (e.line, e.column))  # a later import of a name wins
            out[path] = self._new_context(path, imports[path])
        return out

    def _new_context(self, path: str, imports: Sequence[Edge]) -> FileContext:
        module = self.module(path)
        stem = self.language_and_stem(path)
        package = stem[1][:-1] if stem is not None else module[:-1]  # where `from . import` starts
        return FileContext(
            path=path,
            module=module,
            package=package,
            imports=bound_imports(imports := self._own_imports(path, imports)),
            stars=star_imports(imports),
        )

    def _own_imports(self, path: str, imports: Sequence[Edge]) -> Sequence[Edge]:
        """A file's imports of its own project's files by another name, as the paths they name: Go's
        module path (go.mod), TypeScript's and JavaScript's aliases (tsconfig.json's ``paths``, ``baseUrl``)."""
        if path.endswith(".go"):
            return self._go_own_imports(path, imports)
        if path.endswith(_ECMASCRIPT):
            return self._aliased_imports(path, imports)
        return imports

    def _aliased_imports(self, path: str, imports: Sequence[Edge]) -> Sequence[Edge]:
        """A TypeScript or JavaScript file's bare imports its nearest tsconfig.json (or jsconfig.json) maps
        to a file of the segment (``@/util`` with ``"@/*": ["src/*"]``, a package's own name with
        ``"pkg": ["src/index.ts"]``), written as that file's path relative to the importing file, so they
        name it exactly; the others as they are."""
        folder = path.rsplit("/", 1)[0] if "/" in path else ""
        aliases = self._aliases(folder)
        if aliases is None:
            return imports
        up = "../" * folder.count("/") + ("../" if folder else "./")  # from the file's folder to the root
        out = []
        for edge in imports:
            text = edge.text.strip().strip("\"'`")
            for target in aliases.targets(text):
                found = self._ts_file(target)
                if found is not None:
                    edge = attrs.evolve(edge, text=up + found)
                    break
            out.append(edge)
        return out

    def _aliases(self, folder: str) -> PathAliases | None:
        """The aliases of the tsconfig.json (or jsconfig.json) nearest at or above a segment-relative
        folder: the first that parses governs its folder's files, with the ones it ``extends``."""
        if folder in self._ts_aliases:
            return self._ts_aliases[folder]
        found: PathAliases | None = None
        for name in CONFIG_NAMES:
            config = f"{folder}/{name}" if folder else name
            if self._ts_config(config) is not None:
                found = load_aliases(config, self._ts_config)
                break
        else:
            found = self._aliases(folder.rsplit("/", 1)[0] if "/" in folder else "") if folder else None
        self._ts_aliases[folder] = found
        return found

    def _ts_config(self, path: str) -> dict[str, Any] | None:
        """A tsconfig's object, read once through the segment's file rules; None when it cannot be read or
        parsed (too large, not JSON with comments)."""
        if path not in self._ts_configs:
            config = None
            if self._read is not None:
                try:
                    config = parse_jsonc(self._read(path)[: MAX_CONFIG_BYTES + 1])
                except (OutsideSegment, OSError, FileRefused):
                    config = None
            self._ts_configs[path] = config
        return self._ts_configs[path]

    def _ts_file(self, target: str) -> str | None:
        """The indexed file an alias's target names, as the compiler looks for it: the path as written
        (a `.js` one as its `.ts` source first), with a TypeScript or JavaScript ending, a folder's index."""
        if target not in self._ts_files:
            stem, dot, ending = target.rpartition(".")
            tried = [target]
            if dot and "/" not in ending and f".{ending}" in _SOURCE_OF_OUTPUT:
                tried = [stem + e for e in _SOURCE_OF_OUTPUT[f".{ending}"]] + tried
            tried += [target + e for e in _RESOLVED_ENDINGS]
            tried += [f"{target}/index{e}" for e in _RESOLVED_ENDINGS]
            self._ts_files[target] = next((t for t in tried if self._reader.file(t) is not None), None)
        return self._ts_files[target]

    def _go_own_imports(self, path: str, imports: Sequence[Edge]) -> Sequence[Edge]:
        """A Go file's imports of its own module's packages written as their folders (``GO_MODULE_FOLDER``):
        `github.com/spf13/cobra` imported by cobra's `doc/` is the module's root folder, which no import
        path's last part names; `example.com/m/util` the folder `util` of the go.mod's folder exactly."""
        found = self._go_module(path.rsplit("/", 1)[0] if "/" in path else "")
        if found is None:
            return imports
        declared, folder = found
        out = []
        for edge in imports:
            text = edge.text.strip().strip('"`')
            if text == declared or text.startswith(declared + "/"):
                rest = text.removeprefix(declared).strip("/")
                edge = attrs.evolve(edge, text=GO_MODULE_FOLDER + "/".join((*folder, *rest.split("/"))))
            out.append(edge)
        return out

    def _go_module(self, folder: str) -> tuple[str, tuple[str, ...]] | None:
        """(the module path, its folder as a Go package's module) of the go.mod nearest above ``folder`` (a
        segment-relative folder, "" the root), read through the segment's file rules; None without one."""
        if folder in self._go_modules:
            return self._go_modules[folder]
        found: tuple[str, tuple[str, ...]] | None = None
        declared = _go_module_path(self._read, f"{folder}/go.mod" if folder else "go.mod")
        if declared:
            found = (declared, self.module(f"{folder}/x.go" if folder else "x.go"))
        elif folder:
            found = self._go_module(folder.rsplit("/", 1)[0] if "/" in folder else "")
        self._go_modules[folder] = found
        return found

    def resolve(self, path: str, edge: Edge) -> Resolved:
        return resolve_edge(edge, self.context(path), self.segment)

    def callers(self, path: str, symbol: Symbol) -> list[tuple[str, Edge, Resolved]]:
        """The call sites that reach the definition, and the places that read it as a value (a callback,
        a dispatch table: ``EdgeKind.REFERENCE``), by path and position."""
        return self.callers_and_related(path, symbol, related=False, docs=False)[0]

    def callers_and_related(
        self, path: str, symbol: Symbol, *, related: bool = True, docs: bool = True
    ) -> tuple[
        list[tuple[str, Edge, Resolved]],
        list[tuple[str, Edge, Resolved, Candidate, Relation]],
        list[tuple[Candidate, Relation]],
    ]:
        """``callers``, and (``related``, for a method) the calls that reach, ``exact`` or through an
        ``import``, a method of its class family instead (``domain.calls.relation``: a base's method the
        asked one overrides, an override of it, a sibling implementation), with what each reaches, and the
        family's methods themselves (their declarations: a changed signature must change them too);
        ``docs``: doc comments' links to it too (``EdgeKind.DOC``), with the calls."""
        aliases = {
            e.alias
            for _, e in self._reader.edges(names=[symbol.name], kinds=[EdgeKind.IMPORT])
            if e.alias and e.alias != symbol.name
        }
        calls = self._reader.edges(
            names=sorted({symbol.name, *aliases}),
            kinds=[EdgeKind.CALL, EdgeKind.REFERENCE, *([EdgeKind.DOC] if docs else [])],
        )
        written = calls
        function = symbol.kind in (SymbolKind.FUNCTION, SymbolKind.MACRO)
        if function:
            # a typed receiver reaches members of classes only: no need to work out what `x` is in `x.f()`
            calls = [
                (p, attrs.evolve(e, alias="")) if e.alias and e.alias != LOCAL else (p, e) for p, e in calls
            ]
        uses: set[int] = set()  # the accessor uses' edges, by identity: resolved to properties too
        if self._read is not None and is_accessor(symbol):
            found_uses = self._accessor_uses(symbol, calls)
            uses = {id(e) for _, e in found_uses}
            calls = calls + found_uses
        calling = self._calling_contexts(calls)
        if function:  # but a typed `x` that the file also imports may be a local that shadows the import
            calls = [
                (p, w) if e is not w and (callee_parts(w.text) or [""])[0] in calling[p].imports else (p, e)
                for (p, e), (_, w) in zip(calls, written, strict=False)
            ] + calls[len(written) :]
        self.load_returns(  # the calls whose receiver is what another call returns (`x = f(); x.m()`) or
            # hands a callback (`f((x) => x.m())`)
            # `x.f()[0]`: an item of what `f` returns
            _ITEM_SUFFIX.sub("", t.split("()#", 1)[0]).removesuffix("()").rsplit(".", 1)[-1]
            for _, e in calls
            if "()" in e.alias
            for t in e.alias.split("|")
            if t.endswith(("()", "]")) or "()#" in t
        )
        # the calls that type the parameters some receivers are (`(param)F:p@0`): their arguments at once
        self.load_arguments(w for _, e in calls if PARAMETER in e.alias for w in parameter_calls(e.alias))
        found = []
        family: list[tuple[str, Edge, Resolved, Candidate, Relation]] = []
        asked = Candidate(
            path=path,
            qualname=symbol.qualname,
            kind=symbol.kind,
            module=self.module(path),
            bases=symbol.bases,
        )
        # a static member is no class family's (TypeScript's references do not relate statics)
        related = related and symbol.kind is SymbolKind.METHOD and not _STATIC.match(symbol.signature)
        relations: dict[tuple[str, str], Relation | None] = {}
        # by the targets' identity (a name's matches are one tuple for all its calls), each kept alive here so
        # that its id is not reused
        reaches: dict[int, tuple[tuple[Candidate, ...], bool]] = {}
        # TypeScript: a method of a class that extends a built-in (`DraftMap extends Map`) is reached by the
        # calls on a receiver typed by that base (`copy_: Map<any, any>`, `copy_.set()`)
        outside = external_bases(asked, self.segment) if related else frozenset()
        base = Candidate(
            path="", qualname=f"{min(outside, default='')}.{symbol.name}", kind=symbol.kind, module=()
        )
        BASE = Relation.BASE
        for call_path, edge in calls:
            resolved = (resolve_accessor_use if id(edge) in uses else resolve_edge)(
                edge, calling[call_path], self.segment
            )
            known = reaches.get(id(resolved.targets))
            if known is None or known[0] is not resolved.targets:
                known = reaches[id(resolved.targets)] = (
                    resolved.targets,
                    any(t.path == path and t.qualname == symbol.qualname for t in resolved.targets),
                )
            if (
                outside
                and resolved.resolution not in SURE
                and (edge.kind is EdgeKind.CALL or id(edge) in uses)  # (an accessor's use: `set.size`)
                and edge.alias
                and names_external(edge.alias, outside, edge, calling[call_path], self.segment)
            ):  # the built-in base's method, in place of the methods of that name
                family.append(
                    (call_path, edge, Resolved(resolution=Resolution.EXACT, targets=(base,)), base, BASE)
                )
            elif known[1]:
                found.append((call_path, edge, resolved))
            elif related and resolved.resolution in SURE:
                for t in resolved.targets:
                    key = (t.path, t.qualname)
                    if key not in relations:
                        relations[key] = relation(asked, t, self.segment)
                    how = relations[key]
                    if how is not None:
                        family.append((call_path, edge, resolved, t, how))
                        break
        found = self._in_scope(path, symbol, found)
        declared: list[tuple[Candidate, Relation]] = []
        if related:
            methods = [  # and TypeScript's interface properties (`readonly f: (a: A) => B`)
                c
                for c in self.candidates(symbol.name)
                if c.kind is SymbolKind.METHOD
                or (c.kind is SymbolKind.FIELD and c.path.endswith(_ECMASCRIPT))
            ]
            self.load_contexts(c.path for c in methods)  # their classes' bases are read there: one look-up
            for c in methods:
                key = (c.path, c.qualname)
                how = relations[key] if key in relations else relation(asked, c, self.segment)
                if how is not None:
                    declared.append((c, how))
        return found, family, declared

    def _accessor_uses(self, symbol: Symbol, calls: Sequence[tuple[str, Edge]]) -> list[tuple[str, Edge]]:
        """An accessor's reads and writes (``x.size``, ``self.flags = v``): no call, so no edge of the index
        names them. They are found by the name's text in the files that hold it, each as a reference on its
        receiver, typed as a call on it would be: ``self``/``this`` through the enclosing class; another
        receiver by the type the index gave the same receiver's calls in that definition (or in the
        class's other methods, for ``self.x``), else by its annotation in the definition's signature
        (``observable: IObservable``). A receiver of no known type is left out (a common name would list
        every ``.size`` of the repository by name). Places already recorded (a Python property read as a
        value) are not repeated."""
        assert self._read is not None
        pattern = accessor_uses(symbol.name)
        seen = {(p, e.line, e.column) for p, e in calls}
        # where the name is: a function's or a method's chunk is its own lines, with its definition (the
        # caller: a nested function's uses are its outer one's); else the lines read from the file, the
        # caller the innermost definition around the use (a class's chunk is its skeleton)
        places: list[tuple[str, int, str, str | None, str]] = []
        files: dict[str, list[str] | None] = {}
        for c in self._reader.substring_candidates([f".{symbol.name}"], limit=_ACCESSOR_CHUNKS):
            own = c.symbol if c.kind in (ChunkKind.FUNCTION, ChunkKind.METHOD) and c.symbol else None
            if c.body.count("\n") == c.end_line - c.start_line:
                places.append((c.path, c.start_line, c.body, own, c.signature))
                continue
            if c.path not in files:
                try:
                    files[c.path] = self._read(c.path).decode("utf-8", errors="replace").split("\n")
                except (OutsideSegment, OSError, FileRefused):
                    files[c.path] = None
            lines = files[c.path]
            if lines is not None:
                text = "\n".join(lines[c.start_line - 1 : c.end_line])
                places.append((c.path, c.start_line, text, own, c.signature))
        scopes: dict[str, list[Symbol]] = {}
        # (path, line, column, caller, receiver, its type: "" until the index's edges are read for it)
        found: list[tuple[str, int, int, str, str, str]] = []
        for path, first, text, defined, signature in places:
            line, at, line_start = first, 0, 0
            assignments: dict[str, list[tuple[int, str]]] = {}  # a receiver's, in this text
            for m in pattern.finditer(text):
                line += text.count("\n", at, m.start())
                line_start = max(line_start, text.rfind("\n", at, m.start()) + 1)
                at = m.start()
                column = m.end() - len(symbol.name) - line_start
                if (path, line, column) in seen:
                    continue
                seen.add((path, line, column))
                receiver = accessor_receiver(text, m.start())
                if receiver is None:
                    continue
                caller, declared = defined or "", signature
                if defined is None:
                    if path not in scopes:
                        scopes[path] = sorted(
                            (s for s in self.symbols(path) if s.kind not in _NOT_CALLERS),
                            key=lambda s: (s.start_line, -s.end_line),
                        )
                    around = next(
                        (s for s in reversed(scopes[path]) if s.start_line <= line <= s.end_line), None
                    )
                    caller, declared = (around.qualname, around.signature) if around else ("", "")
                alias = receiver if receiver.endswith("()") else ""  # `current_process().authkey`: its return
                if not alias and receiver not in _SELF and "." not in receiver:
                    if receiver not in assignments:
                        assignments[receiver] = _assignments(receiver, text)
                    alias = _declared_type(receiver, declared, assignments[receiver], m.start())
                elif (
                    not alias and path.endswith(_ECMASCRIPT) and (held := _FIELD_RECEIVER.fullmatch(receiver))
                ):
                    # `observable.observers_.size`, `observable: IObservable`: the field's type there
                    owner, field = held.groups()
                    if owner not in assignments:
                        assignments[owner] = _assignments(owner, text)
                    typed = _declared_type(owner, declared, assignments[owner], m.start())
                    alias = "|".join(f"{t}:{field}" for t in typed.split("|")) if typed else ""
                found.append((path, line, column, caller, receiver, alias))
        # the other receivers: as the index typed their calls, read in one look-up for every file that needs
        # it, unless that is too many files (a common name, `.name`: the receivers above are kept)
        needed = sorted({f[0] for f in found if not f[5] and f[4] not in _SELF})
        receivers = self._receiver_types(needed) if len(needed) <= _RECEIVER_FILES else {}
        out: list[tuple[str, Edge]] = []
        for path, line, column, qualname, receiver, alias in found:
            if not alias and receiver not in _SELF:
                known = receivers.get(path, {})
                alias = known.get((qualname, receiver), "")
                if (
                    not alias and receiver.split(".", 1)[0] in _SELF
                ):  # `self.x`: as the class's methods type it
                    owner = qualname.rpartition(".")[0] + "."
                    alias = next(
                        (t for (c, r), t in known.items() if r == receiver and c.startswith(owner)), ""
                    )
                    if not alias and path.endswith(_ECMASCRIPT) and owner != ".":
                        # `this.data_.size`: the type the class declares the field with (`Class:data_`);
                        # `this.editor.manager.commands`, each field's in the one before (`Class:editor:manager`)
                        alias = f"{owner[:-1]}:{receiver.partition('.')[2].replace('.', ':')}"
                if not alias:
                    continue
            out.append(
                (
                    path,
                    Edge(
                        kind=EdgeKind.REFERENCE,
                        caller=qualname,
                        line=line,
                        column=column,
                        name=symbol.name,
                        # what a call returns is written `?.name` on the call as the receiver's type
                        text=f"{'?' if receiver.endswith('()') else receiver}.{symbol.name}",
                        alias=alias,
                    ),
                )
            )
        return out

    def _receiver_types(self, paths: Sequence[str]) -> dict[str, dict[tuple[str, str], str]]:
        """Per file, (caller, receiver as written) -> the receiver type the index recorded on its calls."""
        out: dict[str, dict[tuple[str, str], str]] = {}
        for start in range(0, len(paths), 500):
            for path, e in self._reader.edges(paths=paths[start : start + 500], kinds=[EdgeKind.CALL]):
                if e.alias and "." in e.text:
                    out.setdefault(path, {}).setdefault((e.caller, e.text.rpartition(".")[0]), e.alias)
        return out

    def _scope(self, path: str, d: Symbol) -> tuple[int, int]:
        """The lines of the innermost definition around ``d`` (the whole file when none is)."""
        if path not in self._file_symbols:
            self._file_symbols[path] = self.symbols(path)
        around = [
            (s.start_line, -s.end_line)
            for s in self._file_symbols[path]
            if s.start_line <= d.start_line
            and d.end_line <= s.end_line
            and (s.start_line, s.end_line) != (d.start_line, d.end_line)
        ]
        start, end = max(around, default=(1, -(1 << 30)))  # the latest start, then the first end
        return start, -end

    def _in_scope(
        self, path: str, symbol: Symbol, found: list[tuple[str, Edge, Resolved]]
    ) -> list[tuple[str, Edge, Resolved]]:
        """TypeScript and JavaScript: when a file defines the name several times in different scopes (a
        nested function is qualified by its own name: `const loop = ...` in many functions), the bare
        calls in that file reaching the asked one are those inside its scope (the definition around it)
        and not inside the narrower scope of another of them; an overload's signatures share one scope."""
        if not path.endswith(_ECMASCRIPT) or len(self.definitions(path, symbol.qualname)) < 2:
            return found
        own = self._scope(path, symbol)
        others = [
            o
            for d in self.definitions(path, symbol.qualname)
            if d.start_line != symbol.start_line
            and (o := self._scope(path, d)) != own
            and own[0] <= o[0]
            and o[1] <= own[1]
        ]
        return [
            (p, e, r)
            for p, e, r in found
            if p != path
            or e.text != e.name
            or (own[0] <= e.line <= own[1] and not any(o[0] <= e.line <= o[1] for o in others))
        ]

    def callees(self, path: str, qualname: str) -> list[tuple[Edge, Resolved]]:
        """The calls made directly in the definition (not in definitions nested in it), in source order."""
        edges = self._reader.edges(paths=[path], kinds=[EdgeKind.CALL])
        return [(e, self.resolve(path, e)) for _, e in edges if e.caller == qualname]

    def symbols(self, path: str) -> list[Symbol]:
        return self._reader.symbols(path)

    def size(self) -> int:
        """How much it keeps: names, files and worked-out answers."""
        return (
            len(self._candidates)
            + len(self._contexts)
            + len(self._returns)
            + len(self._module_binders)
            + len(self._arguments)
            + len(self.segment.memo)
        )


# --------------------------------------------------------------------------------------------- requests


ENGINES = ("auto", "lsp", "index")
MAX_EXTERNAL = 5  # definitions outside the segment a server answer lists


class DefinitionServer(Protocol):
    """A language server that answers ``textDocument/definition`` (``lsp_client``): positions as the
    ``navigation.LanguageServer`` port has them; raises ``LanguageServerUnavailable`` and nothing else."""

    def definition(self, path: str, text: str, line: int, column: int) -> list[Location]: ...

    def running(self, path: str) -> bool: ...


@attrs.frozen(kw_only=True)
class DefinitionRequest:
    path: str
    line: int
    column: int | None = None  # 1-based; None: the first call on the line, else its first name
    # "auto": the language server when one is running for the file's language, else the index; "lsp": the
    # server (started if need be), the index when it cannot answer; "index": the index only
    engine: str = "auto"


@attrs.frozen(kw_only=True)
class CallersRequest:
    uri: str
    limit: int = 50
    offset: int = 0  # the hits before it were given in an earlier answer (one the byte budget cut)


@attrs.frozen(kw_only=True)
class CalleesRequest:
    uri: str
    limit: int = 200


@attrs.frozen(kw_only=True)
class ImpactRequest:
    uri: str
    depth: int = 3


_GO_MODULE_LINE = re.compile(rb"^\s*module\s+\"?([^\s\"/][^\s\"]*)", re.MULTILINE)


def _go_module_path(read: Callable[[str], bytes] | None, path: str) -> str:
    """The module path a go.mod declares (`module github.com/spf13/cobra`), "" when it cannot be read."""
    if read is None:
        return ""
    try:
        found = _GO_MODULE_LINE.search(read(path)[:65536])
    except (OutsideSegment, OSError, FileRefused):
        return ""
    return found.group(1).decode("utf-8", errors="replace") if found else ""


def _json_size(value: Any) -> int:
    return utf8_size(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def _bad(kind: str, message: str) -> Response:
    return Response.failure(kind, ErrorCode.INVALID_ARGUMENT, message)


def _bounded_int(value: object, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


@attrs.frozen(kw_only=True)
class _Target:
    """The definition a request asks about and its canonical uri; ``position``: its ``PATH:DEF_LINE`` when
    it was asked for by a position (its uri may name another definition of its name first)."""

    path: str
    symbol: Symbol
    uri: str
    position: str | None = None

    @property
    def again(self) -> str:
        """What asks for this definition again in a next action."""
        return self.position or self.uri


class _GraphUseCase:
    def __init__(
        self,
        *,
        reader: IndexReader,
        resolver: SymbolResolver,
        source: FileSource,
        rules: Mapping[str, PathRules],
        policy: BudgetPolicy | None = None,
    ) -> None:
        self._reader = reader
        self._resolver = resolver
        self._source = source
        self._rules = rules
        self._policy = policy or BudgetPolicy()
        # admitted files' lines, for previews, while their size and mtime stay (reading one runs the secret
        # scan: 0.7 ms a file, most of a callers answer over many files)
        self._admitted: collections.OrderedDict[str, tuple[int, int, list[str] | None]] = (
            collections.OrderedDict()
        )
        self._admitted_lock = threading.Lock()  # the MCP server answers from worker threads
        self._kept: tuple[object, CallGraph] | None = None  # (the index's data generation, its graph)
        self._kept_lock = threading.Lock()
        self._request = threading.local()  # .graph: the kept graph, for the request that holds the lock

    def _graph(self) -> CallGraph:
        """The request's graph: the kept one inside ``_kept_graph``, else a new one."""
        graph: CallGraph | None = getattr(self._request, "graph", None)
        return (
            graph if graph is not None else CallGraph(self._reader, self._rules, self._source.read_admitted)
        )

    @contextlib.contextmanager
    def _kept_graph(self) -> Iterator[None]:
        """Keep the graph from one request to the next while the index's data stays the same: what it
        looked up (definitions by name, files' imports, returns) and worked out (bases, re-exports, class
        families) holds until the index changes, so an agent's next question on the same code reads little
        of the index again. One request at a time uses it (its memo marks work in progress); a request of
        another thread meanwhile works on a new graph. A request that fails drops it."""
        if not self._kept_lock.acquire(blocking=False):
            yield
            return
        try:
            generation = self._reader.data_generation()
            kept = self._kept
            if kept is None or kept[0] != generation or kept[1].size() > KEPT_GRAPH_ENTRIES:
                kept = self._kept = (
                    generation,
                    CallGraph(self._reader, self._rules, self._source.read_admitted),
                )
            self._request.graph = kept[1]
            try:
                yield
            except BaseException:
                self._kept = None
                raise
        finally:
            self._request.graph = None
            self._kept_lock.release()

    def _limited_target(self, uri: object, limit: object, kind: str, verb: str) -> _Target | Response:
        """`_target`, after checking the request's limit (callers and callees)."""
        if not _bounded_int(limit, 1, MAX_LIMIT):
            return _bad(kind, f"limit must be an integer between 1 and {MAX_LIMIT}, got {limit!r}")
        return self._target(uri, kind, verb)

    def _target(self, uri: object, kind: str, verb: str) -> _Target | Response:
        """The definition a ``sym://`` selector or a ``PATH:LINE[:COL]`` position names, or why none is."""
        if not isinstance(uri, str):
            return _bad(kind, "uri must be a sym:// selector or a PATH:LINE position string")
        if is_position(uri):
            return self._at_position(uri, kind, verb)
        selector = parse(uri, self._resolver.languages)
        if isinstance(selector, Selector) and selector.kind is SelectorKind.MOD:
            return Response.failure(
                kind,
                ErrorCode.INVALID_ARGUMENT,
                f"{selector.render()} names a file; {verb} is of one definition: use ast symbols for the "
                "file's definitions, then a sym://<lang>/type/... selector",
                error_data={"sym": selector.render()},
                next_actions=[act.symbols(selector.render())],
            )
        resolved = self._resolver.resolve(uri)
        if isinstance(resolved, Unresolved):
            return self._redefined(resolved) or resolved.response(kind, "snippet")
        return _Target(path=resolved.path, symbol=resolved.definitions[0], uri=resolved.uri)

    def _at_position(self, text: str, kind: str, verb: str) -> _Target | Response:
        """The definition at a position (``domain.position``): the one a file defines under a name it
        defines again too, which a selector cannot tell from the first. Next actions ask for it by its
        ``PATH:DEF_LINE``, as its uri may name the first."""
        position = parse_position(text)
        if isinstance(position, Error):
            return Response.failure(
                kind, position.code, f"{position.message} (or a sym:// selector)", error_data=position.data
            )
        path, line = position.path, position.line
        if self._reader.file(path) is None:
            return self._not_indexed(path, kind)
        symbols = self._reader.symbols(path)
        line_text = ""
        if position.column is not None:
            lines = self._admitted_lines(path) or []
            line_text = lines[line - 1] if line <= len(lines) else ""
        symbol = definition_at(symbols, line, position.column, line_text)
        graph = self._graph()
        if symbol is None:
            outline = graph.uri(path, "")  # the file's outline
            return Response.failure(
                kind,
                ErrorCode.INVALID_ARGUMENT,
                f"{path}:{line} is in no definition of the file; {verb} is of one definition: give a line of "
                "a function, method or class (ast symbols lists them with their lines)",
                error_data={"path": path, "line": line, "definitions": len(symbols)},
                next_actions=[act.symbols(outline)] if outline else [],
            )
        uri = graph.uri(path, symbol.qualname)
        if uri is None:
            return _bad(kind, f"{path}:{line} is in {symbol.qualname!r}, which no sym:// selector names")
        return _Target(path=path, symbol=symbol, uri=uri, position=f"{path}:{symbol.def_line}")

    def _not_indexed(self, path: str, kind: str) -> Response:
        """Why a position's file has no definitions in the index: not in the segment, no such file, a file
        the indexer refuses, or one of no language it parses."""
        try:
            found = self._source.stat(path)
        except OutsideSegment as exc:
            return Response.failure(kind, ErrorCode.PATH_OUTSIDE_SEGMENT, f"{path}: {exc}")
        except FileRefused as exc:
            return Response.failure(kind, exc.code, f"{path} cannot be read: {exc}", error_data=exc.data)
        except (OSError, ValueError):
            found = None
        if found is None:
            return Response.failure(kind, ErrorCode.FILE_NOT_FOUND, f"no file {path} in the segment")
        return _bad(
            kind, f"{path} is not in the index: a file of no language trifecta parses, or one it ignores"
        )

    def _redefined(self, unresolved: Unresolved) -> _Target | None:
        """A name one file defines several times (``try``/``except`` alternatives, a redefinition): the
        selector cannot pick one, but a call reaches the name whichever runs, so callers, callees and
        impact answer for the name (every definition's calls; the first definition in ``range``)."""
        if unresolved.error.code is not ErrorCode.AMBIGUOUS_SYMBOL:
            return None
        candidates = (unresolved.error.data or {}).get("candidates") or []
        if not candidates or "omitted" in (unresolved.error.data or {}):
            return None
        syms = {c.get("sym") for c in candidates}
        paths = {c.get("file_rel") for c in candidates}
        if len(syms) != 1 or len(paths) != 1 or not all("range" in c for c in candidates):
            return None
        (uri,), (path,) = syms, paths
        selector = parse(str(uri), self._resolver.languages)
        if not isinstance(selector, Selector) or not selector.symbol:
            return None
        qualname = ".".join([selector.symbol, *selector.member])
        same = [s for s in self._reader.symbols(str(path)) if s.qualname == qualname]
        return _Target(path=str(path), symbol=same[0], uri=str(uri)) if len(same) == len(candidates) else None

    def _lines(self, path: str, cache: dict[str, list[str] | None]) -> list[str] | None:
        if path not in cache:
            cache[path] = self._admitted_lines(path)
        return cache[path]

    def _admitted_lines(self, path: str) -> list[str] | None:
        try:
            stat = self._source.stat(path)
        except (OutsideSegment, OSError, FileRefused):
            stat = None
        if stat is None:
            return None
        with self._admitted_lock:
            kept = self._admitted.get(path)
            if kept is not None and kept[:2] == (stat.size, stat.mtime_ns):
                self._admitted.move_to_end(path)
                return kept[2]
        try:
            text = self._source.read_admitted(path).decode("utf-8", errors="replace")
            lines: list[str] | None = (
                text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n").split("\n")
            )
        except (OutsideSegment, OSError, FileRefused):
            lines = None
        with self._admitted_lock:
            self._admitted[path] = (stat.size, stat.mtime_ns, lines)
            if len(self._admitted) > ADMITTED_FILES:
                self._admitted.popitem(last=False)
        return lines

    def _column(self, path: str, line: int, name: str, cache: dict[str, list[str] | None]) -> int:
        """The 1-based column of a name on a line (a declaration's), 1 when it is not there."""
        lines = self._lines(path, cache)
        if lines is None or not 1 <= line <= len(lines):
            return 1
        found = re.search(rf"(?<![\w$]){re.escape(name)}(?![\w$])", lines[line - 1])
        return found.start() + 1 if found else 1

    def _preview(self, path: str, line: int, cache: dict[str, list[str] | None]) -> str:
        lines = self._lines(path, cache)
        if lines is None or not 1 <= line <= len(lines):
            return ""
        return cut_snippet(self._policy, lines[line - 1].strip()).text

    def _fit(
        self,
        data: dict[str, Any],
        hits: Sequence[dict[str, Any]],
        limit: int,
        fill: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
        offset: int = 0,
    ) -> None:
        """``hits`` from ``offset`` on: the run that fits in ``max_bytes_total`` with the rest of the data;
        ``fill`` completes a hit (its preview) only when it is a candidate for the answer. ``omitted``
        counts the hits after the answer (``offset`` says how many came before it)."""
        data["total"] = len(hits)
        if offset:
            data["offset"] = offset
        data["hits"] = []
        data["omitted"] = max(0, len(hits) - offset)
        room = self._policy.max_bytes_total - _json_size(data)
        kept: list[dict[str, Any]] = []
        used = 0
        for hit in hits[offset : offset + limit]:
            hit = fill(hit) if fill is not None else hit
            cost = _json_size(hit) + (1 if kept else 0)
            if used + cost > room:
                break
            used += cost
            kept.append(hit)
        data["hits"] = kept
        data["omitted"] = max(0, len(hits) - offset - len(kept))


_Execute = TypeVar("_Execute", bound=Callable[..., Response])


def _with_kept_graph(execute: _Execute) -> _Execute:
    """A use case's ``execute`` on the graph kept from earlier requests (``_GraphUseCase._kept_graph``)."""

    @functools.wraps(execute)
    def inner(self: _GraphUseCase, request: Any) -> Response:
        with self._kept_graph():
            return execute(self, request)

    return inner  # type: ignore[return-value]


def _twins(path: str, symbol: Symbol, definitions: list[Symbol]) -> list[dict[str, Any]]:
    """TypeScript, JavaScript: the other object literals' methods of the asked one's name that implement
    one of its literal's types in its file, as declarations of siblings (the `next() {...}` of the
    object each `[Symbol.iterator]()` of Iterable.ts returns: one qualified name, `next`, a URI selects the
    first of; a language server relates them through `Iterator`)."""
    if symbol.kind is not SymbolKind.METHOD or not symbol.bases or not path.endswith(_ECMASCRIPT):
        return []
    return [
        {"path": path, "line": d.def_line, "column": 0, "symbol": d.qualname, "uri": None,
         "resolution": Resolution.EXACT.value, "callee": d.qualname, "use": "declaration",
         "related": Relation.SIBLING.value, "reaches": d.qualname, "preview": ""}
        for d in definitions
        if d.kind is SymbolKind.METHOD and d.def_line != symbol.def_line and set(d.bases) & set(symbol.bases)
    ]  # fmt: skip


def _reached(graph: CallGraph, target: Candidate, path: str, line: int) -> Symbol | None:
    """The definition a call at ``path:line`` reaches: of a name the target's file defines again (a local
    in each test's callback), the one whose block holds the call, so its line is the one to ask about
    (``ast callers PATH:LINE``); else the first of the name."""
    same = [s for s in graph.symbols(target.path) if s.qualname == target.qualname]
    for definition in same if len(same) > 1 else ():
        reaches = graph.in_scope(target.path, definition)
        if reaches is not None and reaches(path, line):
            return definition
    return same[0] if same else None


def _target_data(path: str, symbol: Symbol, uri: str) -> dict[str, Any]:
    return {
        "uri": uri,
        "path": path,
        "name": symbol.name,
        "kind": symbol.kind.value,
        "range": {"start_line": symbol.start_line, "end_line": symbol.end_line},
    }


# --------------------------------------------------------------------------------------------- use cases


class CallersUseCase(_GraphUseCase):
    """``ast callers``: the call sites that reach one definition."""

    @_with_kept_graph
    def execute(self, request: CallersRequest) -> Response:
        if not _bounded_int(request.offset, 0, 1 << 31):
            return _bad(CALLERS_KIND, f"offset must be an integer of 0 or more, got {request.offset!r}")
        target = self._limited_target(request.uri, request.limit, CALLERS_KIND, "callers")
        if isinstance(target, Response):
            return target
        path, symbol, uri = target.path, target.symbol, target.uri
        graph = self._graph()
        found, family, declared = graph.callers_and_related(path, symbol, related=family_in_callers(path))
        reaches = graph.in_scope(path, symbol)
        if reaches is not None:  # a local function its file defines again: the uses in its own block
            found = [f for f in found if reaches(f[0], f[1].line)]
            family = [f for f in family if reaches(f[0], f[1].line)]
        found.sort(key=lambda f: (f[2].resolution not in SURE, f[0] != path, f[0], f[1].line, f[1].column))
        order = list(Relation)
        family.sort(key=lambda f: (order.index(f[4]), f[0] != path, f[0], f[1].line, f[1].column))
        lines: dict[str, list[str] | None] = {}

        def row(p: str, e: Any, r: Any, **related: str) -> dict[str, Any]:
            return {
                "path": p,
                "line": e.line,
                "column": e.column + 1,
                "symbol": e.caller,
                "uri": None,
                "resolution": r.resolution.value,
                "callee": e.text,
                "use": _USE[e.kind],
                **related,
                "preview": "",
            }

        def declaration(c: Candidate, how: str) -> list[dict[str, Any]]:
            if not c.path.endswith(_ECMASCRIPT):  # one definition a name, as before
                one = graph.symbol(c.path, c.qualname)
                definitions = [one] if one is not None else []
            else:
                definitions = graph.definitions(c.path, c.qualname)
            return [
                {"path": c.path, "line": d.def_line, "column": 0, "symbol": c.qualname, "uri": None,
                 "resolution": Resolution.EXACT.value, "callee": c.qualname, "use": "declaration",
                 "related": how, "reaches": c.qualname, "preview": ""}
                for d in definitions
                if not _STATIC.match(d.signature)
                and (c.path, d.def_line) != (path, symbol.def_line)
                and d.kind is c.kind  # not a function of the name a method shares (Iterable.ts's `next`s)
            ]  # fmt: skip

        # uri and preview are filled for the hits that may fit (a common name has thousands of calls): the
        # sure ones first, the calls matched by name only last
        hits = [row(p, e, r) for p, e, r in found if r.resolution in SURE]
        # then the calls that reach another method of the class family: after every direct one
        hits += [row(p, e, r, related=how.value, reaches=t.qualname) for p, e, r, t, how in family]
        # and the family's declarations (an override, the interface's member it implements), each signature
        for c, how in sorted(
            dict.fromkeys(declared), key=lambda d: (order.index(d[1]), d[0].path, d[0].qualname)
        ):
            hits += declaration(c, how.value)
        if family_in_callers(path):
            hits += _twins(path, symbol, graph.definitions(path, symbol.qualname))
        hits += [row(p, e, r) for p, e, r in found if r.resolution not in SURE]
        data = _target_data(path, symbol, uri)
        data["by_resolution"] = {
            k.value: sum(1 for _, _, r in found if r.resolution is k)
            for k in (Resolution.EXACT, Resolution.IMPORT, Resolution.NAME)
        }
        self._fit(
            data,
            hits,
            request.limit,
            lambda h: {
                **h,
                "uri": graph.uri(h["path"], h["symbol"]),
                "preview": self._preview(h["path"], h["line"], lines),
                "column": h["column"] or self._column(h["path"], h["line"], symbol.name, lines),
            },
            offset=request.offset,
        )
        actions = [
            act.snippet(u) for u in dict.fromkeys(h["uri"] for h in data["hits"] if h["symbol"] and h["uri"])
        ][:3]
        if data["omitted"]:
            after = request.offset + len(data["hits"])
            if len(data["hits"]) == request.limit < MAX_LIMIT:
                # the limit cut the answer, not the byte budget: the same question with room for the rest
                more = min(MAX_LIMIT, data["total"] - request.offset)
                actions.insert(0, act.callers(target.again, limit=more, offset=request.offset or None))
            else:  # the byte budget cut it: the rest from where this answer stops
                actions.insert(0, act.callers(target.again, limit=request.limit, offset=after))
        return Response.success(
            CALLERS_KIND, data, refs=[Ref(kind="definition", uri=uri)], next_actions=actions
        )


class CalleesUseCase(_GraphUseCase):
    """``ast callees``: the calls one definition makes, resolved, unresolved ones included."""

    @_with_kept_graph
    def execute(self, request: CalleesRequest) -> Response:
        target = self._limited_target(request.uri, request.limit, CALLEES_KIND, "callees")
        if isinstance(target, Response):
            return target
        path, symbol, uri = target.path, target.symbol, target.uri
        graph = self._graph()
        lines: dict[str, list[str] | None] = {}
        hits = []
        # asked by its position, or a local function defined again: its own calls, not its name's others'
        own_lines = target.position is not None or graph.in_scope(path, symbol) is not None
        for edge, resolved in graph.callees(path, symbol.qualname):
            if own_lines and not symbol.start_line <= edge.line <= symbol.end_line:
                continue
            preview = self._preview(path, edge.line, lines)
            if not resolved.targets:
                hits.append(
                    {"path": None, "line": edge.line, "column": edge.column + 1, "symbol": None, "uri": None,
                     "resolution": resolved.resolution.value, "reason": resolved.reason, "callee": edge.text,
                     "preview": preview}
                )  # fmt: skip
            for t in dict.fromkeys(resolved.targets):  # (a name its file defines twice: one hit)
                definition = _reached(graph, t, path, edge.line)
                hits.append(
                    {"path": t.path, "line": definition.def_line if definition else 0, "call_line": edge.line,
                     "column": edge.column + 1, "symbol": t.qualname, "uri": graph.uri(t.path, t.qualname),
                     "resolution": resolved.resolution.value, "callee": edge.text, "preview": preview}
                )  # fmt: skip
        data = _target_data(path, symbol, uri)
        data["unresolved"] = sum(1 for h in hits if h["resolution"] == Resolution.UNRESOLVED.value)
        self._fit(data, hits, request.limit)
        actions = [act.snippet(u) for u in dict.fromkeys(h["uri"] for h in data["hits"] if h["uri"])]
        return Response.success(
            CALLEES_KIND, data, refs=[Ref(kind="definition", uri=uri)], next_actions=actions[:3]
        )


class ImpactUseCase(_GraphUseCase):
    """``ast impact``: what reaches a definition, transitively, grouped by file, tests marked."""

    @_with_kept_graph
    def execute(self, request: ImpactRequest) -> Response:
        depth = request.depth
        if not _bounded_int(depth, 1, 10**6):
            return _bad(IMPACT_KIND, f"depth must be a positive integer, got {depth!r}")
        target = self._target(request.uri, IMPACT_KIND, "impact")
        if isinstance(target, Response):
            return target
        path, symbol, uri = target.path, target.symbol, target.uri
        capped = depth > MAX_DEPTH
        depth = min(depth, MAX_DEPTH)
        graph = self._graph()
        seen: dict[tuple[str, str], int] = {(path, symbol.qualname): 0}
        frontier: list[tuple[str, Symbol]] = [(path, symbol)]
        reached: list[tuple[str, str, int]] = []
        for level in range(1, depth + 1):
            nxt: list[tuple[str, Symbol]] = []
            for p, s in frontier:
                reaches = graph.in_scope(p, s)  # (a local function its file defines again: its own block's)
                for call_path, edge, resolved in graph.callers(p, s):
                    if resolved.resolution not in SURE or (
                        reaches is not None and not reaches(call_path, edge.line)
                    ):
                        continue
                    key = (call_path, edge.caller)
                    if key in seen:
                        continue  # recursion, mutual calls, a second path to the same definition
                    seen[key] = level
                    reached.append((call_path, edge.caller, level))
                    if edge.caller:
                        caller = next(
                            (c for c in graph.symbols(call_path) if c.qualname == edge.caller), None
                        )
                        if caller is not None:
                            nxt.append((call_path, caller))
            frontier = nxt
            if not frontier:
                break
        files: dict[str, dict[str, Any]] = {}
        for p, q, level in reached:
            entry = files.setdefault(p, {"path": p, "count": 0, "test": is_test_file(p), "symbols": []})
            entry["count"] += 1
            entry["symbols"].append({"symbol": q, "uri": graph.uri(p, q), "depth": level})
        groups = sorted(
            files.values(), key=lambda f: (f["test"], min(s["depth"] for s in f["symbols"]), f["path"])
        )
        data = _target_data(path, symbol, uri)
        data.update(
            depth=depth,
            max_depth=MAX_DEPTH,
            depth_capped=capped,
            total=len(reached),
            files_total=len(groups),
            tests=[
                s["uri"] or f"{f['path']}:{s['symbol']}" for f in groups if f["test"] for s in f["symbols"]
            ],
        )
        data["files"] = []
        room = self._policy.max_bytes_total - _json_size(data)
        kept = []
        used = 0
        for group in groups:
            cost = _json_size(group) + 1
            if used + cost > room:
                break
            used += cost
            kept.append(group)
        data["files"] = kept
        data["files_omitted"] = len(groups) - len(kept)
        return Response.success(IMPACT_KIND, data, refs=[Ref(kind="definition", uri=uri)])


class DefinitionUseCase(_GraphUseCase):
    """``ast def PATH:LINE[:COL]``: what the name at a position is, through the language server (exact, as
    the server reads the code) when one is running or asked for, else from the index; ``data.engine`` says
    which answered. A server that is missing, crashes, hangs past its timeout or finds nothing leaves the
    answer to the index, with ``data.lsp`` saying why (and, for a failure, an ``LSP_FALLBACK`` warning)."""

    def __init__(self, *, server: DefinitionServer | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._server = server

    @_with_kept_graph
    def execute(self, request: DefinitionRequest) -> Response:
        path, line, column = request.path, request.line, request.column
        if request.engine not in ENGINES:
            return _bad(
                DEFINITION_KIND, f"engine must be one of {', '.join(ENGINES)}, got {request.engine!r}"
            )
        if not isinstance(path, str) or not path:
            return _bad(DEFINITION_KIND, "path must be a file of the segment")
        if not _bounded_int(line, 1, 10**9) or (column is not None and not _bounded_int(column, 1, 10**9)):
            return _bad(
                DEFINITION_KIND, f"line and column are 1-based positive integers, got {line!r}:{column!r}"
            )
        path = path.replace("\\", "/").removeprefix("./")
        cache: dict[str, list[str] | None] = {}
        try:
            text = self._source.read_admitted(path)
        except OutsideSegment as exc:
            return Response.failure(DEFINITION_KIND, ErrorCode.PATH_OUTSIDE_SEGMENT, f"{path}: {exc}")
        except FileRefused as exc:
            return Response.failure(
                DEFINITION_KIND, exc.code, f"{path} cannot be read: {exc}", error_data=exc.data
            )
        except OSError:
            return Response.failure(
                DEFINITION_KIND, ErrorCode.FILE_NOT_FOUND, f"no file {path} in the segment"
            )
        lines = self._lines(path, cache) or []
        if line > len(lines):
            return _bad(DEFINITION_KIND, f"{path} has {len(lines)} lines, not {line}")
        graph = self._graph()
        edges = [e for p, e in self._reader.edges(paths=[path]) if e.line == line]
        word = _word_at(lines[line - 1], column)
        if word is None:
            where = f"{path}:{line}" + (f":{column}" if column is not None else "")
            return _bad(DEFINITION_KIND, f"{where} is not on a name: give the column of an identifier")
        start, name = word
        edge = next(
            (
                e
                for e in edges
                if e.kind in (EdgeKind.CALL, EdgeKind.REFERENCE, EdgeKind.DOC)
                and e.column <= start < e.column + max(len(e.name), 1)
            ),
            None,
        )
        if edge is None and column is None:
            edge = next((e for e in edges if e.kind is EdgeKind.CALL), None)
            if edge is not None:
                start, name = edge.column, edge.name
        symbols = graph.symbols(path)
        own = next((s for s in symbols if s.def_line == line and s.name == name), None)
        data: dict[str, Any] = {"path": path, "line": line, "column": start + 1, "name": name}
        warnings: list[Notice] = []
        resolved: Resolved | None = None
        if edge is None and own is not None:
            resolved = Resolved(
                resolution=Resolution.EXACT,
                targets=(
                    Candidate(path=path, qualname=own.qualname, kind=own.kind, module=graph.module(path)),
                ),
            )
            data["expression"] = name
        else:
            if edge is None:
                inner = [s for s in symbols if s.start_line <= line <= s.end_line]
                caller = max(inner, key=lambda s: (s.depth, s.start_line)).qualname if inner else ""
                left = _DOTTED_LEFT.search(lines[line - 1][:start])
                prefix = re.sub(r"\s+", "", left.group(0)) if left else ""
                edge = Edge(
                    kind=EdgeKind.CALL, caller=caller, line=line, column=start, name=name, text=prefix + name
                )
            data["expression"] = edge.text
        server = self._server
        if server is not None and (
            request.engine == "lsp" or (request.engine == "auto" and server.running(path))
        ):
            try:
                locations = server.definition(path, text.decode("utf-8", "replace"), line, start)
            except LanguageServerUnavailable as exc:
                data["lsp"] = {"reason": exc.reason, "message": exc.message}
                warnings.append(
                    Notice(
                        code=WarningCode.LSP_FALLBACK,
                        message=f"the language server could not answer ({exc.reason}): {exc.message}; "
                        "the definitions are the index's",
                        data={"reason": exc.reason, **exc.details},
                    )
                )
            else:
                if locations:
                    return self._from_server(data, locations, graph)
                data["lsp"] = {"reason": "no_definition", "message": "the language server found none"}
        data["engine"] = "index"
        if resolved is None:
            assert edge is not None
            resolved = graph.resolve(path, edge)
        data["resolution"] = resolved.resolution.value
        if resolved.reason:
            data["reason"] = resolved.reason
        definitions = []
        for t in resolved.targets:
            s = next((x for x in graph.symbols(t.path) if x.qualname == t.qualname), None)
            if s is None:
                continue
            definitions.append(
                {"path": t.path, "line": s.def_line, "start_line": s.start_line, "end_line": s.end_line,
                 "symbol": s.qualname, "kind": s.kind.value, "signature": s.signature, "uri": graph.uri(t.path, s.qualname)}
            )  # fmt: skip
        self._fit(data, definitions, MAX_LIMIT)
        data["definitions"] = data.pop("hits")
        actions = [act.snippet(d["uri"]) for d in data["definitions"][:3] if d["uri"]]
        return Response.success(DEFINITION_KIND, data, next_actions=actions).with_warnings(warnings)

    def _from_server(self, data: dict[str, Any], locations: Sequence[Location], graph: CallGraph) -> Response:
        """The server's definitions, each described from the index (the definition whose name is on that
        line, else the innermost around it); places outside the segment are listed in ``external``."""
        data["engine"] = "lsp"
        data["resolution"] = Resolution.EXACT.value
        definitions: list[dict[str, Any]] = []
        external: list[str] = []
        cache: dict[str, list[str] | None] = {}
        for loc in dict.fromkeys(locations):
            if not loc.in_segment:
                external.append(f"{loc.path}:{loc.line}")
                continue
            symbols = graph.symbols(loc.path)
            s = next((x for x in symbols if x.def_line == loc.line), None)
            if s is None:
                around = [x for x in symbols if x.start_line <= loc.line <= x.end_line]
                s = max(around, key=lambda x: (x.depth, x.start_line)) if around else None
                if s is not None and s.def_line != loc.line:  # a variable, a parameter: its own line
                    definitions.append(
                        {"path": loc.path, "line": loc.line, "start_line": loc.line, "end_line": loc.line,
                         "symbol": None, "kind": None, "in": s.qualname, "signature": "",
                         "preview": self._preview(loc.path, loc.line, cache), "uri": graph.uri(loc.path, s.qualname)}
                    )  # fmt: skip
                    continue
            if s is None:
                definitions.append(
                    {"path": loc.path, "line": loc.line, "start_line": loc.line, "end_line": loc.line,
                     "symbol": None, "kind": None, "signature": "",
                     "preview": self._preview(loc.path, loc.line, cache), "uri": None}
                )  # fmt: skip
                continue
            definitions.append(
                {"path": loc.path, "line": s.def_line, "start_line": s.start_line, "end_line": s.end_line,
                 "symbol": s.qualname, "kind": s.kind.value, "signature": s.signature, "uri": graph.uri(loc.path, s.qualname)}
            )  # fmt: skip
        data["external"] = external[:MAX_EXTERNAL]
        self._fit(data, definitions, MAX_LIMIT)
        data["definitions"] = data.pop("hits")
        actions = [act.snippet(d["uri"]) for d in data["definitions"][:3] if d["uri"]]
        return Response.success(DEFINITION_KIND, data, next_actions=actions)


def _word_at(text: str, column: int | None) -> tuple[int, str] | None:
    """(0-based start, name) of the identifier at a 1-based column, or the line's first one."""
    for match in _WORD.finditer(text):
        if column is None or match.start() <= column - 1 < match.end():
            return match.start(), match.group(0)
    return None


def answer_graph_question(
    reader: IndexReader,
    rules: Mapping[str, PathRules],
    question: GraphQuestion,
    limit: int = 50,
    read: Callable[[str], bytes] | None = None,
) -> list[tuple[str, str, int, str]]:
    """The hook for search (`domain.calls.graph_question` recognises the question): (path, calling symbol,
    line, resolution) of the call sites that reach the target, sure resolutions first; only tests' call
    sites for a tests question. A target in the segment (`Store.load`, `normalize`) is resolved by its
    definitions; one outside it (`subprocess.run`) by what the calling files import. With ``read`` (the
    segment's admitted files), an accessor's reads and writes count too, as ``ast callers`` lists them."""
    graph = CallGraph(reader, rules, read)
    parts = question.target.split(".")
    found: list[tuple[str, str, int, str]] = []
    # `Store.load` by its qualified name, `shlex.quote` by its module's too (a function of shlex.py, whose
    # callers in its own module call it by its bare name, as no import says)

    def dotted(path: str, qualname: str) -> list[str]:
        return [*graph.module(path), *qualname.split(".")]

    definitions = [
        (p, s)
        for p, s in reader.find_symbols(name=parts[-1])
        if s.qualname.split(".")[-len(parts) :] == parts or dotted(p, s.qualname)[-len(parts) :] == parts
    ]
    if definitions and (
        len(parts) == 1
        or any(
            s.qualname == question.target or dotted(p, s.qualname)[-len(parts) :] == parts
            for p, s in definitions
        )
    ):
        seen: set[tuple[str, int, int]] = set()  # a property's getter and setter share their uses
        for path, symbol in definitions:
            # a call matched by its name alone says nothing of a module the question names (`x.dumps()` is
            # not json.dumps), where a class's method may be called on a receiver of no known type
            by_module = symbol.qualname.split(".")[-len(parts) :] != parts
            for call_path, edge, resolved in graph.callers(path, symbol):
                site = (call_path, edge.line, edge.column)
                if site not in seen and (not by_module or resolved.resolution in SURE):
                    seen.add(site)
                    found.append((call_path, edge.caller, edge.line, resolved.resolution.value))
    else:
        aliases = {e.alias for _, e in reader.edges(names=[parts[-1]], kinds=[EdgeKind.IMPORT]) if e.alias}
        calls = reader.edges(names=sorted({parts[-1], *aliases}), kinds=[EdgeKind.CALL])
        graph.load_contexts(p for p, _ in calls)
        found = [
            (p, e.caller, e.line, Resolution.IMPORT.value)
            for p, e in calls
            if calls_target(e, graph.context(p), question.target)
        ]
    if question.tests_only:
        found = [f for f in found if is_test_file(f[0])]
    found.sort(key=lambda f: (f[3] not in SURE, f[0], f[2]))
    return found[:limit]
