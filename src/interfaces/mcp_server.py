"""`trifecta mcp --segment S`: Trifecta's zoom levels as MCP tools over stdio, for coding agents.

One Engine per server process (one SQLite connection, one language server), opened at start and reused by
every call. The Engine is not thread-safe, so every call runs on one dedicated worker thread: calls are
serialized and the event loop stays free to answer the protocol meanwhile.

Every call has a time limit (`DEFAULT_CALL_TIMEOUT`, 30 s; `reindex` and the first index build
`DEFAULT_INDEX_TIMEOUT`, 600 s; `TRIFECTA_MCP_CALL_TIMEOUT` / `TRIFECTA_MCP_INDEX_TIMEOUT` or
`trifecta mcp --call-timeout / --index-timeout`), counted from when the call starts to run. A call past it
answers `TIMEOUT`, and the server keeps serving: a Python thread cannot be stopped, so the stuck worker is
abandoned with its Engine (a daemon thread, which closes that Engine when the call finally returns) and
later calls run on a fresh Engine on a new worker thread.

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
import os
import queue
import sys
import threading
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Annotated, Any, Literal, NotRequired

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field, ValidationError
from typing_extensions import TypedDict

from .. import __version__
from ..application.ports import CodedError
from ..domain.actions import NotAnAction, tool_call
from ..domain.contract import ErrorCode, Response
from .render import PROFILES, brief

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


class NextAction(TypedDict):
    """A tool call to make next: `tool` with `arguments`, as written."""

    tool: str
    arguments: dict[str, Any]


class Envelope(TypedDict):
    """The JSON envelope every Trifecta answer travels in (README "The JSON envelope")."""

    schema_version: int
    status: Literal["ok", "error"]
    kind: str
    data: dict[str, Any]
    refs: list[EnvelopeRef]
    errors: list[EnvelopeError]
    next_actions: list[NextAction]
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
Every answer is an envelope {status, kind, data, errors, next_actions}; each next action is a tool call \
({"tool", "arguments"}) to make as written to go deeper. \
An error has a code (SYMBOL_NOT_FOUND, AMBIGUOUS_SYMBOL with candidates, INVALID_ARGUMENT, ...) and a message \
saying what to do instead. Every call has a time limit (30 s by default, 600 s for reindex): past it the \
answer is TIMEOUT and the server goes on serving the next calls."""

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
that appear in the code. A regex (written /.../ or in pattern mode) runs in linear time (RE2: no \
backreferences or lookaround). A search past the time limit answers TIMEOUT: narrow it."""

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

DEFINITION = """\
What a name in the code is: give a position (path, 1-based line and column) and get the definitions it \
resolves to, with how (exact, import, or name with every candidate). `engine`: "auto" asks the language \
server when one is already running (an earlier hover or refs started it), else the index's call graph; \
"lsp" starts the server for an exact answer (about a second the first time); "index" never asks it. \
`data.engine` says which answered. Use it while reading code to jump to what a call means."""

CALLERS = """\
Who calls a function or method (a sym:// uri, or "path:line" for the one defined at that line), from the \
index, fast and without a language server: each call site's path, line, calling symbol and its uri, \
resolution (exact, import; name = same name only) and a preview. Use it before changing a signature. An \
answer the byte budget cut says where it stopped: its next action asks for the rest with offset. A file \
that defines one name twice (a local in each test's callback) is told apart by "path:line" only."""
OFFSET = "Skip this many call sites: the ones an earlier answer (cut by the byte budget) gave."

CALLEES = """\
What a function or method (a sym:// uri, or "path:line" for the one defined at that line) calls: each \
call resolved to definitions in this repository, or unresolved (a library call) with the call as written."""

IMPACT = """\
What breaks if a definition (a sym:// uri, or "path:line" for the one defined at that line) changes: \
transitive callers up to `depth` (1-5), grouped by file with counts, tests that reach it listed."""

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
Searches already refresh before answering, so call this only after large changes or when told to. \
Its time limit is the longer index limit (600 s by default), not the 30 s of the other tools."""

SHARED_SEARCH = """ This server serves several segments (repositories) of a shared index: without `segment` \
the question runs in all of them as one ranking, and every hit names its `segment`; pass that segment to \
snippet, symbols, get, hover and refs."""

SEGMENTS = """\
The segments (repositories) this server serves from the shared index: each one's id, files, symbols, \
chunks, when it was built and the server features that fall back. Pass an id as `segment` to the other tools."""

READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITES_INDEX = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)

Query = Annotated[str, Field(description="The question, in words or identifiers (English or Spanish).")]
Uri = Annotated[str, Field(description='A sym:// selector, e.g. "sym://python/type/pkg/mod/Class#method".')]
Target = Annotated[
    str,
    Field(
        description='A sym:// selector, e.g. "sym://python/type/pkg/mod/Class#method", or "path:line" '
        '("app/x.test.ts:42"): the innermost definition declared on that line, else around it.'
    ),
]
DefinitionEngine = Annotated[
    Literal["auto", "lsp", "index"],
    Field(description='"auto": the language server if running, else the index; "lsp": start it; "index".'),
]
OneSegment = Annotated[
    str | None,
    Field(description="The segment (repository) to read: a hit's `segment`; see the segments tool."),
]


# --------------------------------------------------------------------------- envelopes
def tool_calls(actions: Iterable[str]) -> list[dict[str, Any]]:
    """Next actions as the tool calls that run them here: {"tool": "snippet", "arguments": {"uri": ...}}."""
    calls = []
    for action in actions:
        try:
            calls.append(tool_call(action).to_dict())
        except NotAnAction:  # not a call: shown to no one rather than shown not to run
            continue
    return calls


def to_result(response: Response, profile: str = "full", *, plan: bool = False) -> CallToolResult:
    """The envelope as the tool result: structured content and the same compact JSON as text. The brief
    profile (the server's default) cuts data to what an agent acts on; next actions are tool calls."""
    envelope = response.to_dict()
    envelope["next_actions"] = tool_calls(response.next_actions)
    if profile == "brief":
        envelope = brief(envelope, plan=plan)
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


# --------------------------------------------------------------------------- time limits
DEFAULT_CALL_TIMEOUT = 30.0  # seconds for search, get, symbols, snippet, hover, refs, index_status
DEFAULT_INDEX_TIMEOUT = 600.0  # seconds for reindex and for the index build at start
CALL_TIMEOUT_ENV = "TRIFECTA_MCP_CALL_TIMEOUT"
INDEX_TIMEOUT_ENV = "TRIFECTA_MCP_INDEX_TIMEOUT"


def timeout_from_env(name: str, default: float) -> float:
    """Seconds from an environment variable (a positive number), else the default; a bad value is a
    clear error at start rather than a limit nobody asked for."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        seconds = float(raw)
    except ValueError:
        raise ValueError(f"{name} must be a number of seconds, got {raw!r}") from None
    if not 0 < seconds <= 86400:
        raise ValueError(f"{name} must be between 0 and 86400 seconds, got {raw!r}")
    return seconds


Call = Callable[["Engine"], Response]


def _any(call: Callable[[Any], Response]) -> Call:
    """A call on a SegmentSet (the shared tools), which answers the Engine's questions with a `segment`."""
    return call


_STOP = object()  # asks a worker to close its Engine and end


class _Worker:
    """One daemon thread owning one Engine: runs calls one at a time, in order. The Engine is opened on
    the thread by the first call when the worker was given a way to open one (a fresh worker after a
    time-out), so a hung open is bounded like any call. `stop()` closes the Engine after the calls already
    queued, including a stuck one, whenever it returns."""

    def __init__(self, engine: Engine | None, reopen: Callable[[], Engine], name: str) -> None:
        self._engine = engine
        self._reopen = reopen
        self._calls: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self.thread.start()

    def submit(self, call: Call) -> concurrent.futures.Future[Response]:
        future: concurrent.futures.Future[Response] = concurrent.futures.Future()
        self._calls.put((future, call))
        return future

    def stop(self) -> None:
        self._calls.put(_STOP)

    def _loop(self) -> None:
        while True:
            item = self._calls.get()
            if item is _STOP:
                if self._engine is not None:
                    try:
                        self._engine.close()
                    except Exception as exc:  # closing must not kill the thread's report
                        sys.stderr.write(f"trifecta mcp: closing an engine failed: {exc}\n")
                return
            future, call = item
            if not future.set_running_or_notify_cancel():
                continue
            try:
                if self._engine is None:
                    self._engine = self._reopen()
                future.set_result(call(self._engine))
            except BaseException as exc:
                future.set_exception(exc)


# --------------------------------------------------------------------------- the server
class TrifectaMCP:
    """The tools, bound to one Engine at a time. `server` is the MCPServer to run; `close()` releases the
    Engine. A call past its time limit leaves its Engine behind and later calls get a fresh one from
    `reopen` (by default the same segment opened again, as the first one was)."""

    def __init__(
        self,
        engine: Engine,
        *,
        call_timeout: float = DEFAULT_CALL_TIMEOUT,
        index_timeout: float = DEFAULT_INDEX_TIMEOUT,
        reopen: Callable[[], Engine] | None = None,
        profile: str = "brief",
        shared: bool = False,
    ) -> None:
        """`shared`: `engine` is a SegmentSet (several segments of a shared index), served read-only."""
        if profile not in PROFILES:
            raise ValueError(f"profile must be one of {', '.join(PROFILES)}, got {profile!r}")
        self.profile = profile
        self.engine = engine  # the first Engine; after a time-out the worker holds a fresh one
        self.call_timeout = call_timeout
        self.index_timeout = index_timeout
        self._reopen = reopen or (lambda: _reopen_like(engine))
        self._generation = 0
        self._worker = _Worker(engine, self._reopen, "trifecta-engine-0")
        self._abandoned: list[_Worker] = []
        self._lock: asyncio.Lock | None = None  # made on the server's event loop, by the first call
        self._warming: concurrent.futures.Future[Response] | None = None
        self._warm_deadline = 0.0
        self.shared = shared
        self.server = EnvelopeServer(
            name="trifecta",
            title="Trifecta code context",
            instructions=INSTRUCTIONS,
            version=__version__,
            log_level="WARNING",
        )
        if shared:
            self._register_shared()
        else:
            self._register()

    async def _run(
        self, kind: str, call: Call, timeout: float | None = None, *, plan: bool = False
    ) -> CallToolResult:
        """Run one Engine call on the worker thread, within its time limit; anything it raises becomes an
        INTERNAL_ERROR envelope, a call past its limit a TIMEOUT one."""
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:  # one call at a time; a call's clock starts when it starts to run
            await self._after_warm_up()
            limit = self.call_timeout if timeout is None else timeout
            future = self._worker.submit(call)
            try:
                response = await asyncio.wait_for(asyncio.wrap_future(future), limit)
            except TimeoutError:
                self._abandon()
                response = Response.failure(
                    kind,
                    ErrorCode.TIMEOUT,
                    f"the call did not answer within its time limit of {limit:g} s, so it was abandoned; "
                    "later calls run on a fresh engine. Narrow the request (a more specific query or path, "
                    f"a smaller limit), or raise the limit ({CALL_TIMEOUT_ENV} / {INDEX_TIMEOUT_ENV}, or "
                    "trifecta mcp --call-timeout / --index-timeout)",
                    error_data={"timeout_seconds": limit},
                )
            except CodedError as exc:
                response = Response.failure(kind, exc.code, str(exc), error_data=exc.data)
            except Exception as exc:
                response = Response.failure(kind, ErrorCode.INTERNAL_ERROR, f"{type(exc).__name__}: {exc}")
        return to_result(response, self.profile, plan=plan)

    async def _after_warm_up(self) -> None:
        """A call waits for the index build started with the server, for at most the index limit from the
        start; a build past it is abandoned like any stuck call."""
        warming = self._warming
        if warming is None or warming.done():
            return
        left = max(0.0, self._warm_deadline - time.monotonic())
        try:
            await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(warming)), left)
        except TimeoutError:
            sys.stderr.write(f"trifecta mcp: indexing at start passed {self.index_timeout:g} s; abandoned\n")
            self._abandon()
        except Exception:
            pass  # _warm_up reports its own failures
        finally:
            self._warming = None

    def _abandon(self) -> None:
        """Leave the stuck worker to finish on its own (it closes its Engine then) and start a fresh one."""
        stuck = self._worker
        stuck.stop()
        self._abandoned.append(stuck)
        self._generation += 1
        self._worker = _Worker(None, self._reopen, f"trifecta-engine-{self._generation}")

    def _register(self) -> None:
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
            lang: Annotated[
                str | None,
                Field(
                    description="Only this language's hits (go, rust, typescript, ...); an ast-grep pattern "
                    "(code with $X / $$$) is parsed in it alone. null: each file's own language."
                ),
            ] = None,
            explain: Annotated[
                bool, Field(description="Include the plan: how the query was classified, routed and ranked.")
            ] = False,
            expand: Annotated[
                int | None,
                Field(
                    description="Inline the source of the first N definition hits (0-5), inside the snippet "
                    "budget (data.expanded reports it). null: the top hit's, when its lead over the second is "
                    "clear; 0: none."
                ),
            ] = None,
        ) -> Result:
            how: int | Literal["auto"] = "auto" if expand is None else expand
            return await self._run(
                "search",
                lambda e: e.search(
                    query, limit=limit, mode=mode, lint=lint, rewrite=rewrite, lang=lang, expand=how
                ),
                plan=explain,
            )

        @tool(name="get", title="Raw source (L3)", description=GET, annotations=READ_ONLY)
        async def get(
            id: Annotated[str | None, Field(description="A hit id from search.")] = None,
            path: Annotated[str | None, Field(description='"pkg/mod.py" or "pkg/mod.py:10-40".')] = None,
        ) -> Result:
            return await self._run("source", lambda e: e.get(id=id, path=path))

        @tool(name="symbols", title="Skeleton (L1)", description=SYMBOLS, annotations=READ_ONLY)
        async def symbols(uri: Uri) -> Result:
            return await self._run("skeleton", lambda e: e.symbols(uri))

        @tool(name="snippet", title="Snippet (L2)", description=SNIPPET, annotations=READ_ONLY)
        async def snippet(uri: Uri) -> Result:
            return await self._run("snippet", lambda e: e.snippet(uri))

        @tool(name="hover", title="Hover", description=HOVER, annotations=READ_ONLY)
        async def hover(uri: Uri) -> Result:
            return await self._run("hover", lambda e: e.hover(uri))

        @tool(name="refs", title="References", description=REFS, annotations=READ_ONLY)
        async def refs(
            uri: Uri, limit: Annotated[int, Field(description="At most this many references.")] = 50
        ) -> Result:
            return await self._run("refs", lambda e: e.refs(uri, limit=limit))

        @tool(name="definition", title="Definition", description=DEFINITION, annotations=READ_ONLY)
        async def definition(
            path: Annotated[str, Field(description="A file of the segment, e.g. pkg/mod.py.")],
            line: Annotated[int, Field(description="1-based line.")],
            column: Annotated[
                int | None, Field(description="1-based column; null: the line's first call.")
            ] = None,
            engine: DefinitionEngine = "auto",
        ) -> Result:
            return await self._run("definition", lambda e: e.definition(path, line, column, engine=engine))

        @tool(name="callers", title="Callers", description=CALLERS, annotations=READ_ONLY)
        async def callers(
            uri: Target,
            limit: Annotated[int, Field(description="At most this many call sites.")] = 50,
            offset: Annotated[int, Field(description=OFFSET)] = 0,
        ) -> Result:
            return await self._run("callers", lambda e: e.callers(uri, limit=limit, offset=offset))

        @tool(name="callees", title="Callees", description=CALLEES, annotations=READ_ONLY)
        async def callees(uri: Target) -> Result:
            return await self._run("callees", lambda e: e.callees(uri))

        @tool(name="impact", title="Impact", description=IMPACT, annotations=READ_ONLY)
        async def impact(
            uri: Target, depth: Annotated[int, Field(description="Calls away, 1-5 (larger is capped).")] = 3
        ) -> Result:
            return await self._run("impact", lambda e: e.impact(uri, depth=depth))

        @tool(name="lint", title="Lint a query", description=LINT, annotations=READ_ONLY)
        async def lint(query: Query) -> Result:
            return to_result(_lint(query), self.profile)

        @tool(name="classify", title="Classify a query", description=CLASSIFY, annotations=READ_ONLY)
        async def classify(query: Query) -> Result:
            return to_result(_classify(query), self.profile)

        @tool(name="index_status", title="Index status", description=INDEX_STATUS, annotations=READ_ONLY)
        async def index_status() -> Result:
            return await self._run("status", lambda e: e.status())

        @tool(name="reindex", title="Rebuild the index", description=REINDEX, annotations=WRITES_INDEX)
        async def reindex(
            full: Annotated[bool, Field(description="Re-parse every file, not only changed ones.")] = False,
        ) -> Result:
            return await self._run("index", lambda e: _reindex(e, full), timeout=self.index_timeout)

    def _register_shared(self) -> None:
        """The tools over several segments of a shared index (`trifecta mcp --segment A --segment B` or
        `--all` with a db_url): each takes a `segment`; search without one searches them all as one ranking
        and every hit names its segment; `segments` lists them. Nothing is indexed from here."""
        tool = self.server.tool

        @tool(name="search", title="Search (L0)", description=SEARCH + SHARED_SEARCH, annotations=READ_ONLY)
        async def search(
            query: Query,
            limit: Annotated[int, Field(description="How many hits, 1-200.")] = 10,
            mode: Annotated[
                str, Field(description="auto | lexical | pattern | structural | semantic | hybrid")
            ] = "auto",
            lint: Annotated[
                bool | None, Field(description="Expand vague queries; null uses the segment's setting.")
            ] = None,
            lang: Annotated[str | None, Field(description="Only this language's hits.")] = None,
            explain: Annotated[bool, Field(description="Include each segment's plan.")] = False,
            segment: Annotated[
                str | list[str] | None,
                Field(description="One segment or a list of them; null: every segment served."),
            ] = None,
        ) -> Result:
            return await self._run(
                "search",
                _any(
                    lambda e: e.search(query, limit=limit, mode=mode, lint=lint, lang=lang, segment=segment)
                ),
                plan=explain,
            )

        @tool(name="get", title="Raw source (L3)", description=GET, annotations=READ_ONLY)
        async def get(
            id: Annotated[str | None, Field(description="A hit id from search.")] = None,
            path: Annotated[str | None, Field(description='"pkg/mod.py" or "pkg/mod.py:10-40".')] = None,
            segment: OneSegment = None,
        ) -> Result:
            return await self._run("source", _any(lambda e: e.get(id=id, path=path, segment=segment)))

        @tool(name="symbols", title="Skeleton (L1)", description=SYMBOLS, annotations=READ_ONLY)
        async def symbols(uri: Uri, segment: OneSegment = None) -> Result:
            return await self._run("skeleton", _any(lambda e: e.symbols(uri, segment=segment)))

        @tool(name="snippet", title="Snippet (L2)", description=SNIPPET, annotations=READ_ONLY)
        async def snippet(uri: Uri, segment: OneSegment = None) -> Result:
            return await self._run("snippet", _any(lambda e: e.snippet(uri, segment=segment)))

        @tool(name="hover", title="Hover", description=HOVER, annotations=READ_ONLY)
        async def hover(uri: Uri, segment: OneSegment = None) -> Result:
            return await self._run("hover", _any(lambda e: e.hover(uri, segment=segment)))

        @tool(name="refs", title="References", description=REFS, annotations=READ_ONLY)
        async def refs(
            uri: Uri,
            limit: Annotated[int, Field(description="At most this many references.")] = 50,
            segment: OneSegment = None,
        ) -> Result:
            return await self._run("refs", _any(lambda e: e.refs(uri, limit=limit, segment=segment)))

        @tool(name="definition", title="Definition", description=DEFINITION, annotations=READ_ONLY)
        async def definition(
            path: Annotated[str, Field(description="A file of the segment, e.g. pkg/mod.py.")],
            line: Annotated[int, Field(description="1-based line.")],
            column: Annotated[
                int | None, Field(description="1-based column; null: the line's first call.")
            ] = None,
            engine: DefinitionEngine = "auto",
            segment: OneSegment = None,
        ) -> Result:
            return await self._run(
                "definition",
                _any(lambda e: e.definition(path, line, column, engine=engine, segment=segment)),
            )

        @tool(name="callers", title="Callers", description=CALLERS, annotations=READ_ONLY)
        async def callers(
            uri: Target,
            limit: Annotated[int, Field(description="At most this many call sites.")] = 50,
            offset: Annotated[int, Field(description=OFFSET)] = 0,
            segment: OneSegment = None,
        ) -> Result:
            return await self._run(
                "callers", _any(lambda e: e.callers(uri, limit=limit, offset=offset, segment=segment))
            )

        @tool(name="callees", title="Callees", description=CALLEES, annotations=READ_ONLY)
        async def callees(uri: Target, segment: OneSegment = None) -> Result:
            return await self._run("callees", _any(lambda e: e.callees(uri, segment=segment)))

        @tool(name="impact", title="Impact", description=IMPACT, annotations=READ_ONLY)
        async def impact(
            uri: Target,
            depth: Annotated[int, Field(description="Calls away, 1-5 (larger is capped).")] = 3,
            segment: OneSegment = None,
        ) -> Result:
            return await self._run("impact", _any(lambda e: e.impact(uri, depth=depth, segment=segment)))

        @tool(name="lint", title="Lint a query", description=LINT, annotations=READ_ONLY)
        async def lint_tool(query: Query) -> Result:
            return to_result(_lint(query), self.profile)

        @tool(name="classify", title="Classify a query", description=CLASSIFY, annotations=READ_ONLY)
        async def classify(query: Query) -> Result:
            return to_result(_classify(query), self.profile)

        @tool(name="segments", title="Segments", description=SEGMENTS, annotations=READ_ONLY)
        async def segments() -> Result:
            return await self._run("segments", _any(lambda e: e.list()))

        @tool(name="index_status", title="Index status", description=INDEX_STATUS, annotations=READ_ONLY)
        async def index_status(segment: OneSegment = None) -> Result:
            return await self._run("status", _any(lambda e: e.status(segment)))

    def run(self) -> None:
        # Build or refresh the index while the client is still shaking hands and its model is thinking: the
        # worker is first in line, so the first call waits for the index instead of starting it.
        self._warm_deadline = time.monotonic() + self.index_timeout
        if not self.shared:  # segments of a shared index are indexed by their own CI jobs
            self._warming = self._worker.submit(self._warm_up)
        self.server.run("stdio")

    @staticmethod
    def _warm_up(engine: Engine) -> Response:
        from ..infrastructure.sqlite_store import IndexLocked

        try:
            engine.index(progress=engine.progress)
        except IndexLocked:
            pass  # another process is indexing; searches use what it commits
        except Exception as exc:  # the first call will report it as an envelope
            sys.stderr.write(f"trifecta mcp: indexing at start failed: {type(exc).__name__}: {exc}\n")
        return Response.success("index", {})

    def close(self) -> None:
        """Close the current Engine (waiting up to 30 s for a call still running); abandoned workers close
        theirs when their stuck call returns, or die with the process (daemon threads)."""
        self._worker.stop()
        self._worker.thread.join(timeout=30)


def _reopen_like(engine: Engine) -> Engine:
    """The same segment opened again, for a fresh worker: same progress sink and telemetry origin."""
    from .facade import open_engine

    fresh = open_engine(engine.segment)
    fresh.progress = engine.progress
    fresh.origin = engine.origin
    return fresh


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
    try:
        report = engine.index(progress=None, full=full)
    except CodedError as exc:  # INDEX_LOCKED, INDEX_UNWRITABLE, INVALID_ARGUMENT: named, never internal
        return Response.failure("index", exc.code, str(exc), error_data=exc.data)
    status = engine.status()  # its warnings: rebuilt, replaced, read-only
    data = {**report.to_data(), "index": dict(status.data)}
    return Response.success("index", data).with_warnings(status.warnings)


def serve(
    engine: Engine,
    *,
    call_timeout: float | None = None,
    index_timeout: float | None = None,
    reopen: Callable[[], Engine] | None = None,
    profile: str = "brief",
    shared: bool = False,
) -> None:
    """Serve MCP over stdio with this Engine until the client hangs up, then close the Engine. Progress of
    a first index build may go to stderr (the Engine's progress sink); stdout carries only the protocol.
    Time limits not given come from TRIFECTA_MCP_CALL_TIMEOUT / TRIFECTA_MCP_INDEX_TIMEOUT, else the
    defaults (30 s, 600 s)."""
    try:
        call_timeout = call_timeout or timeout_from_env(CALL_TIMEOUT_ENV, DEFAULT_CALL_TIMEOUT)
        index_timeout = index_timeout or timeout_from_env(INDEX_TIMEOUT_ENV, DEFAULT_INDEX_TIMEOUT)
    except ValueError as exc:
        engine.close()
        raise SystemExit(f"trifecta mcp: {exc}") from None
    app = TrifectaMCP(
        engine,
        call_timeout=call_timeout,
        index_timeout=index_timeout,
        reopen=reopen,
        profile=profile,
        shared=shared,
    )
    try:
        app.run()
    finally:
        app.close()
