"""`trifecta mcp --segment S`: Trifecta's zoom levels as MCP tools over stdio, for coding agents.

One Engine per server process (one SQLite connection, one language server), opened at start and reused by
every call. The Engine is not thread-safe, so every call runs on one dedicated worker thread: calls are
serialized and the event loop stays free to answer the protocol meanwhile.

Every tool answers with the contract envelope of `domain/contract.py` as structured content (and the same
JSON as text, for clients that only show text), with `is_error` set when the envelope carries errors.
Arguments the tool schema rejects (a string for `limit`, a missing `uri`) and unknown tool names are
answered with an `INVALID_ARGUMENT` envelope too, so an agent always gets a code to act on.

stdout is the protocol: the SDK's stdio transport points fd 1 at stderr while it serves, so a stray print
(ours, a library's, a child process's) lands on stderr; logging goes to stderr.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, Literal, NotRequired

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field, ValidationError
from typing_extensions import TypedDict

from .. import __version__
from ..domain.contract import ErrorCode, Response

if TYPE_CHECKING:
    from mcp.server.mcpserver.context import Context

    from .facade import Engine


# --------------------------------------------------------------------------- the published result schema
class EnvelopeError(TypedDict):
    code: str
    message: str
    data: dict[str, Any]


class EnvelopeRef(TypedDict):
    kind: str
    uri: str


class Envelope(TypedDict):
    """The JSON envelope every Trifecta answer travels in (README "The JSON envelope")."""

    schema_version: int
    status: Literal["ok", "error"]
    kind: str
    data: dict[str, Any]
    refs: list[EnvelopeRef]
    errors: list[EnvelopeError]
    next_actions: list[str]
    warnings: NotRequired[list[EnvelopeError]]  # present when the answer comes with something to know


Result = Annotated[CallToolResult, Envelope]

# --------------------------------------------------------------------------- what agents read
INSTRUCTIONS = """\
Trifecta finds the few places in this repository that answer a question and shows them inside a byte \
budget. Use it instead of reading whole files or grepping blindly. Zoom in, level by level:
L0 `search`: ranked hits (path, lines, symbol, preview, a sym:// `uri`) for a question in words or identifiers.
L1 `symbols`: a file's or class's skeleton (names, signatures, first doc lines, line ranges), no bodies.
L2 `snippet`: one definition's source by its sym:// uri, cut to the snippet budget.
L3 `get`: raw source by hit id or path[:start-end], cut to the byte budget.
`hover` and `refs` answer "what is this" and "who uses this" for a sym:// uri.
Every answer is an envelope {status, kind, data, errors, next_actions}; follow `next_actions` to go deeper. \
An error has a code (SYMBOL_NOT_FOUND, AMBIGUOUS_SYMBOL with candidates, INVALID_ARGUMENT, ...) and a message \
saying what to do instead."""

SEARCH = """\
L0 map: find where something is, or how something works, in this repository. Start here for any question \
about the code ("where is the config loaded", "parse_http_header", "subclasses of Exception", \
"¿dónde se valida la entrada?"). Returns ranked hits: id, path, start_line/end_line, symbol, kind, \
score, preview (a few lines) and, for definitions, a sym:// `uri`. Then zoom: `snippet(uri)` for one \
definition (L2), `symbols` for a file's outline (L1), `get(id=...)` for raw lines (L3). \
mode: auto (default: classifies the question and routes it) | lexical | pattern (exact text, like grep) | \
structural (symbol table: bases, decorators, async) | semantic | hybrid. limit: 1-200 (default 10). \
lint: expand vague queries (query-linter). rewrite: true forces an LLM query rewrite, false never, \
null lets the gate decide. Zero hits is a normal answer (status ok, empty hits): rephrase with words \
that appear in the code."""

GET = """\
L3 raw source: exact lines of a file, cut to the byte budget (hidden lines are marked). Give either \
`id` (a hit id from `search`) or `path` ("pkg/mod.py" or "pkg/mod.py:10-40", relative to the segment). \
Prefer `snippet` for a whole definition and `symbols` for an outline; use `get` for lines that are not a \
definition, or to see context around a hit. Paths outside the segment are refused (PATH_OUTSIDE_SEGMENT)."""

SYMBOLS = """\
L1 skeleton: the outline of a file (uri "sym://python/mod/<path without .py>", e.g. \
"sym://python/mod/shop/checkout") or of a class ("sym://python/type/<path>/<Class>"): each definition's \
name, kind, signature, first doc line, line range, its own sym:// uri, and children. No bodies, so it is \
cheap: use it to see what a file contains before asking for a snippet. A short path matches by trailing \
components ("utils" finds "pkg/utils.py"); several matches answer AMBIGUOUS_SYMBOL with candidates."""

SNIPPET = """\
L2 snippet: the source of one definition, by sym:// uri: "sym://python/type/<path>/<Symbol>" or \
"sym://python/type/<path>/<Class>#<method>" (uris come from `search` hits and `symbols`). Returns content, \
range, signature and children, cut to the snippet budget (2,000 bytes / 50 lines). Resolves exactly or \
fails closed: SYMBOL_NOT_FOUND (next action: the file's skeleton) or AMBIGUOUS_SYMBOL with candidates."""

HOVER = """\
What a symbol is, without reading its body: signature, type information and docstring for a sym:// uri \
(the AST first, the language server for what only it knows). Use it to check how to call something."""

REFS = """\
Who uses a symbol: the places that reference the definition named by a sym:// uri (path, line, a \
preview), at most `limit` (1-200, default 50). Use it before changing a function, to see its callers."""

LINT = """\
How the query linter reads a query, without searching: vague / semi / guided, the anchors it found and \
the expansion a vague query would get. Use it to understand why a search found little."""

CLASSIFY = """\
How `search` would route a query, without searching: pattern (exact text) / structural (symbol table) / \
semantic / hybrid, with confidence, indicators and the suggested tool."""

INDEX_STATUS = """\
What the index of this segment holds: files, symbols, chunks, when it was built, parse errors, size. \
Searches refresh the index on their own; use this to check the segment is the one you expect."""

REINDEX = """\
Build or refresh the index now (incremental: only changed files are parsed; full=true re-parses all). \
Searches already refresh before answering, so call this only after large changes or when told to."""

READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITES_INDEX = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)

Query = Annotated[str, Field(description="The question, in words or identifiers (English or Spanish).")]
Uri = Annotated[str, Field(description='A sym:// selector, e.g. "sym://python/type/pkg/mod/Class#method".')]


# --------------------------------------------------------------------------- envelopes
def to_result(response: Response) -> CallToolResult:
    envelope = response.to_dict()
    text = json.dumps(envelope, ensure_ascii=False, separators=(",", ":"))
    return CallToolResult(
        content=[TextContent(type="text", text=text)], structured_content=envelope, is_error=not response.ok
    )


def _validation_message(error: ValidationError) -> str:
    problems = []
    for item in error.errors():
        where = ".".join(str(part) for part in item["loc"]) or "arguments"
        got = "" if item["type"] == "missing" else f" (got {item.get('input')!r:.80})"
        problems.append(f"{where}: {item['msg']}{got}")
    return "; ".join(problems)


class EnvelopeServer(MCPServer[Any]):
    """MCPServer whose failures outside a tool body (bad arguments, unknown tools, crashes) are envelopes too."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> Any:
        tools = {t.name: t for t in await self.list_tools()}
        tool = tools.get(name)
        if tool is None:
            known = sorted(tools)
            return to_result(
                Response.failure(
                    name or "tool",
                    ErrorCode.INVALID_ARGUMENT,
                    f"unknown tool {name!r}; tools: {', '.join(known)}",
                    error_data={"tools": known},
                )
            )
        expected = sorted(tool.input_schema.get("properties", {}))
        unknown = sorted(set(arguments) - set(expected))
        if unknown:  # a misspelt argument would otherwise be dropped without a word
            return to_result(
                Response.failure(
                    name,
                    ErrorCode.INVALID_ARGUMENT,
                    f"unknown argument(s) {', '.join(unknown)} for {name}; expected: {', '.join(expected) or 'none'}",
                    error_data={"unknown": unknown, "expected": expected},
                )
            )
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError as exc:
            cause = exc.__cause__
            detail = f"{type(cause).__name__}: {cause}" if cause else str(exc)
            return to_result(Response.failure(name, ErrorCode.INTERNAL_ERROR, detail))
        except ToolError as exc:
            cause = exc.__cause__
            message = _validation_message(cause) if isinstance(cause, ValidationError) else str(exc)
            return to_result(
                Response.failure(name, ErrorCode.INVALID_ARGUMENT, f"bad arguments for {name}: {message}")
            )


# --------------------------------------------------------------------------- the server
class TrifectaMCP:
    """The tools, bound to one Engine. `server` is the MCPServer to run; `close()` releases the Engine."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._worker = concurrent.futures.ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="trifecta-engine"
        )
        self.server = EnvelopeServer(
            name="trifecta",
            title="Trifecta code context",
            instructions=INSTRUCTIONS,
            version=__version__,
            log_level="WARNING",
        )
        self._register()

    async def _run(self, kind: str, call: Callable[[], Response]) -> CallToolResult:
        """Run one Engine call on the worker thread; anything it raises becomes an INTERNAL_ERROR envelope."""
        loop = asyncio.get_running_loop()
        try:
            response = await loop.run_in_executor(self._worker, call)
        except Exception as exc:
            response = Response.failure(kind, ErrorCode.INTERNAL_ERROR, f"{type(exc).__name__}: {exc}")
        return to_result(response)

    def _register(self) -> None:
        engine = self.engine
        tool = self.server.tool

        @tool(name="search", title="Search (L0)", description=SEARCH, annotations=READ_ONLY)
        async def search(
            query: Query,
            limit: Annotated[int, Field(description="How many hits, 1-200.")] = 10,
            mode: Annotated[
                str, Field(description="auto | lexical | pattern | structural | semantic | hybrid")
            ] = "auto",
            rewrite: Annotated[
                bool | None,
                Field(description="true: force an LLM rewrite; false: never; null: the gate decides"),
            ] = None,
            lint: Annotated[
                bool | None, Field(description="Expand vague queries; null uses the segment's setting.")
            ] = None,
        ) -> Result:
            return await self._run(
                "search", lambda: engine.search(query, limit=limit, mode=mode, lint=lint, rewrite=rewrite)
            )

        @tool(name="get", title="Raw source (L3)", description=GET, annotations=READ_ONLY)
        async def get(
            id: Annotated[str | None, Field(description="A hit id from search.")] = None,
            path: Annotated[str | None, Field(description='"pkg/mod.py" or "pkg/mod.py:10-40".')] = None,
        ) -> Result:
            return await self._run("source", lambda: engine.get(id=id, path=path))

        @tool(name="symbols", title="Skeleton (L1)", description=SYMBOLS, annotations=READ_ONLY)
        async def symbols(uri: Uri) -> Result:
            return await self._run("skeleton", lambda: engine.symbols(uri))

        @tool(name="snippet", title="Snippet (L2)", description=SNIPPET, annotations=READ_ONLY)
        async def snippet(uri: Uri) -> Result:
            return await self._run("snippet", lambda: engine.snippet(uri))

        @tool(name="hover", title="Hover", description=HOVER, annotations=READ_ONLY)
        async def hover(uri: Uri) -> Result:
            return await self._run("hover", lambda: engine.hover(uri))

        @tool(name="refs", title="References", description=REFS, annotations=READ_ONLY)
        async def refs(
            uri: Uri, limit: Annotated[int, Field(description="At most this many references.")] = 50
        ) -> Result:
            return await self._run("refs", lambda: engine.refs(uri, limit=limit))

        @tool(name="lint", title="Lint a query", description=LINT, annotations=READ_ONLY)
        async def lint(query: Query) -> Result:
            return to_result(_lint(query))

        @tool(name="classify", title="Classify a query", description=CLASSIFY, annotations=READ_ONLY)
        async def classify(query: Query) -> Result:
            return to_result(_classify(query))

        @tool(name="index_status", title="Index status", description=INDEX_STATUS, annotations=READ_ONLY)
        async def index_status() -> Result:
            return await self._run("status", engine.status)

        @tool(name="reindex", title="Rebuild the index", description=REINDEX, annotations=WRITES_INDEX)
        async def reindex(
            full: Annotated[bool, Field(description="Re-parse every file, not only changed ones.")] = False,
        ) -> Result:
            return await self._run("index", lambda: _reindex(engine, full))

    def run(self) -> None:
        # Build or refresh the index while the client is still shaking hands and its model is thinking: the
        # worker is first in line, so the first call waits for the index instead of starting it.
        self._worker.submit(self._warm_up)
        self.server.run("stdio")

    def _warm_up(self) -> None:
        from ..infrastructure.sqlite_store import IndexLocked

        try:
            self.engine.index(progress=self.engine.progress)
        except IndexLocked:
            pass  # another process is indexing; searches use what it commits
        except Exception as exc:  # the first call will report it as an envelope
            sys.stderr.write(f"trifecta mcp: indexing at start failed: {type(exc).__name__}: {exc}\n")

    def close(self) -> None:
        try:
            self._worker.submit(self.engine.close).result(timeout=30)
        finally:
            self._worker.shutdown(wait=False, cancel_futures=True)


def _lint(query: str) -> Response:
    from ..domain.query_linter import lint

    if not query.strip():
        return Response.failure("lint", ErrorCode.EMPTY_QUERY, "the query is empty: give the words to lint")
    return Response.success("lint", lint(query).to_data())


def _classify(query: str) -> Response:
    from ..domain.query_classifier import classify

    if not query.strip():
        return Response.failure(
            "classification", ErrorCode.EMPTY_QUERY, "the query is empty: give the words to classify"
        )
    return Response.success("classification", classify(query).to_data())


def _reindex(engine: Engine, full: bool) -> Response:
    from ..infrastructure.sqlite_store import IndexLocked

    try:
        report = engine.index(progress=None, full=full)
    except IndexLocked as exc:
        return Response.failure("index", ErrorCode.INDEX_LOCKED, str(exc))
    status = engine.status()
    data = {**report.to_data(), "index": dict(status.data)}
    return Response.success("index", data)


def serve(engine: Engine) -> None:
    """Serve MCP over stdio with this Engine until the client hangs up, then close the Engine. Progress of
    a first index build may go to stderr (the Engine's progress sink); stdout carries only the protocol."""
    app = TrifectaMCP(engine)
    try:
        app.run()
    finally:
        app.close()
