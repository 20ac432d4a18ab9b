"""Read-only navigation through a language server: hover and references (ast-lsp-dual-engine.md §1, §2, §6).

A language server knows what the AST engine cannot: the resolved types and signature of a definition, and
where it is used. It is also a separate, slower, less predictable program, so it only ever adds to an answer
the AST engine has already given:

1. **AST first** (§6.1). The selector goes through ``SymbolResolver``; ``INVALID_SELECTOR_SYNTAX``,
   ``SYMBOL_NOT_FOUND``, ``AMBIGUOUS_SYMBOL`` and the rest are answered from there and the server is never
   asked (§6.2, §6.5: no nearest match, no pick among candidates). A ``mod`` selector is
   ``INVALID_ARGUMENT``: hover and references are of one definition.
2. **The resolved position.** The request goes to the definition's name on its ``def``/``class`` line (the
   first definition of a property or overload group), with the file's text as the AST engine read it, so the
   server and the answer agree on the line numbers.
3. **Isolation** (§6.4). A server that is missing, crashes, hangs past its timeout or is killed mid-request
   raises ``LanguageServerUnavailable`` in the adapter; the answer keeps the AST data and carries one
   ``LSP_UNAVAILABLE`` error that says why (``data.reason``), with ``ast snippet`` as the next action. The
   adapter, not this module, decides that the next request starts a fresh server.

Hover (kind ``"hover"``): the AST data plus ``content``, the server's hover text cut by
``budget.cut_snippet`` (``max_snippet_bytes``, ``max_lines_per_snippet``), and ``hover.signature``, the
signature as the server renders it (the first fenced code block of Markdown, or the text before the first
``---`` rule of plain text). A server with nothing to say is ``status: ok`` with ``hover: null``.

References (kind ``"refs"``): the AST data plus ``hits``, the places that use the symbol. The definition's own
name is not a use and is left out. Each hit: ``path``, ``line`` and ``column`` (1-based) of the reference,
``start_line``/``end_line`` and ``symbol`` of the innermost definition around it (the reference's own line and
``""`` at module level), that definition's ``uri`` (the file's at module level), and ``preview``, the line
itself stripped and cut to ``max_snippet_bytes``. Hits in the definition's file come first, then by path and
line. Places outside the segment (the standard library, site-packages) or in files the indexer skips
(ignored, secret, virtual environments) are counted in ``excluded`` and never shown, so a hit is always
something ``ctx get`` can read. The list is a prefix: at most ``limit`` hits, and only as many as fit in
``max_bytes_total`` with the rest of the data (compact JSON, as the skeleton is budgeted); ``total`` counts
the hits found and ``omitted`` those left out. ``max_snippets`` does not apply: a hit is a location with a
one-line preview, not a snippet.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

import attrs

from ..domain import actions as act
from ..domain.budget import BudgetPolicy, cut_snippet, utf8_size
from ..domain.code import Symbol
from ..domain.contract import Error, ErrorCode, Ref, Response
from ..domain.selector import Selector, SelectorKind, parse
from .ports import CodeParser, FileRefused, FileSource, OutsideSegment
from .zoom_ast import LANGUAGE, SUFFIX, Resolved, SymbolResolver, Unresolved, uri_of

HOVER_KIND = "hover"
REFS_KIND = "refs"
MAX_REFS_LIMIT = 200
TOP_ACTIONS = 3


# --------------------------------------------------------------------------------------------- the port


@attrs.frozen(kw_only=True)
class HoverInfo:
    """What the server shows on hover: its text and the markup it is written in."""

    text: str
    markup: str = "plaintext"  # "markdown" or "plaintext"


@attrs.frozen(kw_only=True)
class Location:
    """A place the server points at. ``path`` is relative to the segment ('/'-separated) when ``in_segment``,
    otherwise absolute (or the server's URI when it is not a file). ``line`` is 1-based; ``character`` is
    the 0-based offset in UTF-16 code units, as LSP counts it."""

    path: str
    line: int
    character: int = 0
    in_segment: bool = True


class LanguageServerUnavailable(Exception):
    """The server could not answer: ``reason`` is one of ``not_installed``, ``start_failed``, ``exited``,
    ``timeout``, ``request_failed``, ``closed``; ``details`` (command, exit code, stderr tail, ...) goes into
    the error's data."""

    def __init__(self, reason: str, message: str, details: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.details = dict(details or {})


class LanguageServer(Protocol):
    """A read-only language server for one segment. Positions are the file's 1-based line and 0-based
    character index (a Python string index into the line); ``text`` is the file's content as the caller
    read it, so the server answers about that text. Every method raises ``LanguageServerUnavailable`` and
    nothing else when the server cannot answer."""

    def hover(self, path: str, text: str, line: int, column: int) -> HoverInfo | None: ...

    def references(self, path: str, text: str, line: int, column: int) -> list[Location]: ...

    def close(self) -> None: ...


# --------------------------------------------------------------------------------------------- requests


@attrs.frozen(kw_only=True)
class HoverRequest:
    uri: str


@attrs.frozen(kw_only=True)
class RefsRequest:
    uri: str
    limit: int = 50


@attrs.frozen(kw_only=True)
class _Target:
    """A resolved definition and where its name is."""

    resolved: Resolved
    line: int  # 1-based
    column: int  # 0-based string index

    @property
    def symbol(self) -> Symbol:
        return self.resolved.definitions[0]

    def ast_data(self) -> dict[str, Any]:
        s, r = self.symbol, self.resolved
        data: dict[str, Any] = {
            "uri": r.uri,
            "path": r.path,
            "name": s.name,
            "kind": s.kind.value,
            "range": {"start_line": r.start_line, "end_line": r.end_line},
            "signature": s.signature,
            "doc": s.first_doc_line,
            "position": {"line": self.line, "column": self.column + 1},
        }
        if len(r.definitions) > 1:
            data["definitions"] = [
                {"start_line": d.start_line, "end_line": d.end_line} for d in r.definitions
            ]
        return data


# --------------------------------------------------------------------------------------------- helpers


def _json_size(value: Any) -> int:
    return utf8_size(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def name_position(lines: Sequence[str], symbol: Symbol) -> tuple[int, int]:
    """The 1-based line and 0-based column of a definition's name: on its ``def``/``class`` line, or the
    first line of the definition where the name follows the keyword (a keyword and name split by a
    backslash continuation), else the name's first occurrence as a word in the definition."""
    keyword = re.compile(rf"\b(?:def|class)\s+({re.escape(symbol.name)})\b")
    word = re.compile(rf"(?<![\w.]){re.escape(symbol.name)}\b")
    first = max(symbol.def_line, symbol.start_line, 1)
    last = min(max(symbol.end_line, first), len(lines))
    for pattern in (keyword, word):
        for number in range(first, last + 1):
            match = pattern.search(lines[number - 1])
            if match:
                return number, match.start(1) if pattern is keyword else match.start()
    return first, 0


def _python_column(line: str, utf16: int) -> int:
    """A UTF-16 offset (LSP) as a string index into ``line``."""
    units = 0
    for index, char in enumerate(line):
        if units >= utf16:
            return index
        units += 2 if ord(char) > 0xFFFF else 1
    return len(line)


def _hover_signature(info: HoverInfo) -> str:
    """The signature as the server renders it: the first fenced code block, or the text before the first
    ``---`` rule (jedi's plain text); "" when the hover has neither."""
    text = info.text.strip()
    fence = re.search(r"```[\w+-]*\n(.*?)\n```", text, re.DOTALL)
    if fence:
        return fence.group(1).strip()
    parts = re.split(r"\n-{3,}\n", text, maxsplit=1)
    return parts[0].strip() if len(parts) == 2 else ""


def _innermost(symbols: Sequence[Symbol], line: int) -> Symbol | None:
    around = [s for s in symbols if s.start_line <= line <= s.end_line]
    return max(around, key=lambda s: (s.depth, s.start_line)) if around else None


def _unavailable(exc: LanguageServerUnavailable) -> Error:
    return Error(
        code=ErrorCode.LSP_UNAVAILABLE,
        message=f"the language server could not answer ({exc.reason}): {exc.message}; "
        "the AST data is still in the answer",
        data={"reason": exc.reason, **exc.details},
    )


# --------------------------------------------------------------------------------------------- use cases


class _Navigation:
    """The AST step both use cases share: selector -> definition -> the position of its name."""

    def __init__(
        self, resolver: SymbolResolver, server: LanguageServer, policy: BudgetPolicy | None = None
    ) -> None:
        self._resolver = resolver
        self._server = server
        self._policy = policy or BudgetPolicy()

    def _target(self, uri: object, kind: str, verb: str) -> _Target | Response:
        if not isinstance(uri, str):
            return Response.failure(kind, ErrorCode.INVALID_ARGUMENT, "uri must be a sym:// selector string")
        selector = parse(uri, self._resolver.languages)
        if isinstance(selector, Selector) and selector.kind is SelectorKind.MOD:
            return Response.failure(
                kind,
                ErrorCode.INVALID_ARGUMENT,
                f"{selector.render()} names a file; {verb} is of one definition: use ast symbols for the "
                f"file's skeleton, then ast {verb} on a definition (sym://{selector.language}/type/<path>/<Symbol>)",
                error_data={"sym": selector.render()},
                next_actions=[act.symbols(selector.render())],
            )
        resolved = self._resolver.resolve(uri)
        if isinstance(resolved, Unresolved):
            return resolved.response(kind, verb)
        line, column = name_position(resolved.lines, resolved.definitions[0])
        return _Target(resolved=resolved, line=line, column=column)

    @staticmethod
    def _text(target: _Target) -> str:
        return "\n".join(target.resolved.lines) + "\n"

    @staticmethod
    def _degraded(
        kind: str, data: Mapping[str, Any], target: _Target, exc: LanguageServerUnavailable
    ) -> Response:
        return Response(
            kind=kind,
            data=data,
            refs=(Ref(kind="definition", uri=target.resolved.mod_uri),),
            errors=(_unavailable(exc),),
            next_actions=(act.snippet(target.resolved.uri),),
        )


class HoverUseCase(_Navigation):
    """``ast hover``: the server's hover text and signature for one definition, with the AST data."""

    def execute(self, request: HoverRequest) -> Response:
        target = self._target(request.uri, HOVER_KIND, "hover")
        if isinstance(target, Response):
            return target
        data = target.ast_data()
        started = time.perf_counter()
        try:
            info = self._server.hover(target.resolved.path, self._text(target), target.line, target.column)
        except LanguageServerUnavailable as exc:
            data.update(content="", hover=None)
            return self._degraded(HOVER_KIND, data, target, exc)
        data["lsp_ms"] = round((time.perf_counter() - started) * 1000, 1)
        if info is None or not info.text.strip():
            data.update(content="", hover=None)
        else:
            cut = cut_snippet(self._policy, info.text.strip())
            data["content"] = cut.text
            data["hover"] = {
                "markup": info.markup,
                "signature": _hover_signature(info),
                "truncated": cut.truncated,
                "hidden_lines": cut.hidden_lines,
                "bytes": cut.size_bytes,
            }
        return Response.success(
            HOVER_KIND,
            data,
            refs=[Ref(kind="definition", uri=target.resolved.mod_uri)],
            next_actions=[act.snippet(target.resolved.uri), act.refs(target.resolved.uri)],
        )


@attrs.frozen(kw_only=True)
class _FileView:
    lines: tuple[str, ...]
    symbols: tuple[Symbol, ...]
    components: tuple[str, ...] | None  # selector components of the file, None when not expressible
    language: str = LANGUAGE


class RefsUseCase(_Navigation):
    """``ast refs``: where one definition is used, as budgeted hits with their enclosing definitions."""

    def __init__(
        self,
        resolver: SymbolResolver,
        server: LanguageServer,
        policy: BudgetPolicy | None = None,
        *,
        source: FileSource,
        parser: CodeParser,
        admit: Callable[[str], bool] | None = None,
    ) -> None:
        super().__init__(resolver, server, policy)
        self._source = source
        self._parser = parser
        self._admit = admit or (lambda _path: True)

    def execute(self, request: RefsRequest) -> Response:
        limit = request.limit
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_REFS_LIMIT:
            return Response.failure(
                REFS_KIND,
                ErrorCode.INVALID_ARGUMENT,
                f"limit must be an integer between 1 and {MAX_REFS_LIMIT}, got {limit!r}",
            )
        target = self._target(request.uri, REFS_KIND, "refs")
        if isinstance(target, Response):
            return target
        data = target.ast_data()
        started = time.perf_counter()
        try:
            locations = self._server.references(
                target.resolved.path, self._text(target), target.line, target.column
            )
        except LanguageServerUnavailable as exc:
            data.update(hits=[], total=0, omitted=0)
            return self._degraded(REFS_KIND, data, target, exc)
        data["lsp_ms"] = round((time.perf_counter() - started) * 1000, 1)

        hits, excluded = self._hits(target, locations)
        data["total"] = len(hits)
        data["excluded"] = excluded
        data["hits"] = []
        data["omitted"] = len(hits)  # the largest it can be, so its digits are paid for
        room = self._policy.max_bytes_total - _json_size(data)
        kept: list[dict[str, Any]] = []
        used = 0
        for hit in hits[:limit]:
            cost = _json_size(hit) + (1 if kept else 0)
            if used + cost > room:
                break
            used += cost
            kept.append(hit)
        data["hits"] = kept
        data["omitted"] = len(hits) - len(kept)

        actions = [act.snippet(u) for u in dict.fromkeys(h["uri"] for h in kept if h["symbol"] and h["uri"])]
        actions = actions[:TOP_ACTIONS]
        if data["omitted"] and len(kept) == limit < MAX_REFS_LIMIT:
            actions.append(act.refs(target.resolved.uri, limit=min(MAX_REFS_LIMIT, limit * 2)))
        return Response.success(
            REFS_KIND,
            data,
            refs=[Ref(kind="definition", uri=target.resolved.mod_uri)],
            next_actions=actions,
        )

    # ------------------------------------------------------------------ hits
    def _hits(
        self, target: _Target, locations: Sequence[Location]
    ) -> tuple[list[dict[str, Any]], dict[str, int]]:
        excluded = {"outside_segment": 0, "ignored": 0, "unreadable": 0}
        views: dict[str, _FileView | None] = {}
        seen: set[tuple[str, int, int]] = set()
        own = target.resolved.path
        hits: list[dict[str, Any]] = []
        for loc in locations:
            if not loc.in_segment:
                excluded["outside_segment"] += 1
                continue
            if loc.path != own and not self._admit(loc.path):
                excluded["ignored"] += 1
                continue
            if loc.path not in views:
                views[loc.path] = self._view(loc.path, target)
            view = views[loc.path]
            if view is None or not 1 <= loc.line <= len(view.lines):
                excluded["unreadable"] += 1
                continue
            text = view.lines[loc.line - 1]
            column = _python_column(text, loc.character)
            key = (loc.path, loc.line, column)
            if key in seen or (loc.path == own and loc.line == target.line and column == target.column):
                continue  # a duplicate, or the definition's own name
            seen.add(key)
            hits.append(self._hit(loc.path, loc.line, column, text, view))
        hits.sort(key=lambda h: (h["path"] != own, h["path"], h["line"], h["column"]))
        return hits, excluded

    def _hit(self, path: str, line: int, column: int, text: str, view: _FileView) -> dict[str, Any]:
        enclosing = _innermost(view.symbols, line)
        components = view.components
        uri = None
        if components is not None:
            qualname = enclosing.qualname if enclosing else ""
            uri = uri_of(components, qualname, view.language)
        return {
            "path": path,
            "start_line": enclosing.start_line if enclosing else line,
            "end_line": enclosing.end_line if enclosing else line,
            "line": line,
            "column": column + 1,
            "symbol": enclosing.qualname if enclosing else "",
            "uri": uri,
            "preview": cut_snippet(self._policy, text.strip()).text,
        }

    def _view(self, path: str, target: _Target) -> _FileView | None:
        """The file's lines and definitions: through the resolver (its cache, the index's symbols) when the
        path is expressible as a selector, else read and parsed here."""
        resolved = target.resolved
        if path == resolved.path:
            return _FileView(
                lines=resolved.lines,
                symbols=resolved.symbols,
                components=resolved.file_components,
                language=resolved.selector.language,
            )
        module = self._resolver.module_of(path)
        if module is None:
            return self._read(path, None)
        language, components = module
        try:
            found = self._resolver.resolve(Selector.module(language, components).render())
        except ValueError:  # components a selector cannot spell
            return self._read(path, None)
        if isinstance(found, Resolved) and found.path == path:
            return _FileView(
                lines=found.lines, symbols=found.symbols, components=components, language=language
            )
        return self._read(path, module)

    def _read(self, path: str, module: tuple[str, tuple[str, ...]] | None) -> _FileView | None:
        try:
            text = self._source.read_admitted(path).decode("utf-8", errors="replace").removeprefix("\ufeff")
        except (OutsideSegment, OSError, FileRefused):  # a preview follows the indexer's rules too
            return None
        lines = tuple(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"))
        symbols: tuple[Symbol, ...] = ()
        if module is not None or path.endswith(SUFFIX):
            try:
                symbols = self._parser.parse(path, text).symbols
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                symbols = ()
        language, components = module if module is not None else (LANGUAGE, None)
        return _FileView(lines=lines, symbols=symbols, components=components, language=language)
