"""The public library surface: `trifecta.open(path) -> Engine`.

    engine = trifecta.open("path/to/repo")
    engine.index()                                   # build or refresh; returns an IndexReport
    response = engine.search("where is the config loaded", limit=10)
    response.to_dict()["data"]["hits"]               # [{id, path, start_line, end_line, symbol, ...}]
    engine.get(id=hit_id); engine.get(path="pkg/mod.py:10-40")

Every method but `index()` answers with a `Response` (the JSON envelope of `to_dict()`); bad input (a
wrong type, a value out of range) is an INVALID_ARGUMENT envelope naming the argument, never an exception.
`index()` answers an IndexReport, so it raises instead: `InvalidArgument` (a ValueError, `.code`
INVALID_ARGUMENT) for bad input, before anything is written. An Engine holds one SQLite connection: use it
from one thread at a time, and `close()` it (or use `with trifecta.open(...) as engine:`).
"""

from __future__ import annotations

import functools
import gc
import inspect
import os
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any, Literal, TypeVar

import attrs

from ..application.embedding import EmbedRequest
from ..application.expand import clear_lead, invalid_expand
from ..application.expand import expand as expand_hits
from ..application.get_source import GetRequest
from ..application.index_segment import IndexReport, IndexRequest
from ..application.ports import CodedError, ProgressSink
from ..application.search import SearchRequest
from ..application.telemetry import build_event
from ..application.zoom_ast import SnippetRequest, SymbolsRequest
from ..domain.contract import ErrorCode, Notice, Response, WarningCode
from ..infrastructure.sqlite_store import IndexCorrupt, IndexLocked, IndexReplaced, IndexUnwritable
from ..infrastructure.telemetry import timestamp
from .arguments import problem
from .bootstrap import App, bootstrap, search_use_case

F = TypeVar("F", bound=Callable[..., Response])
INDEX_LOCK_WAIT_SECONDS = 120.0
MCP_REFRESH_INTERVAL = 1.0  # seconds a freshness check stays good in `trifecta mcp` (refresh_interval unset)
EMBED_RETRY_SECONDS = 30.0


def _guarded(kind: str, *, record: bool = True) -> Callable[[F], F]:
    """The arguments are checked first (a wrong type or range is INVALID_ARGUMENT naming the argument); a
    named failure (a CodedError) becomes an envelope with its code, and an unexpected one INTERNAL_ERROR,
    rather than an exception for the agent. Every guarded call also leaves one telemetry event (named after
    the method) unless `record` is off, so the CLI, the MCP server and library callers are all measured in
    this one place."""

    def wrap(method: F) -> F:
        signature = inspect.signature(method)

        @functools.wraps(method)
        def inner(self: Engine, *args: Any, **kwargs: Any) -> Response:
            started = time.perf_counter()
            try:
                wrong = problem(method.__name__, signature, (self, *args), kwargs)
                if wrong:
                    response = _coded(kind, wrong)
                else:
                    try:
                        response = method(self, *args, **kwargs)
                    except IndexCorrupt:  # the damaged file was set aside: once more, on a rebuilt index
                        response = method(self, *args, **kwargs)
            except CodedError as exc:  # INDEX_LOCKED, INDEX_UNWRITABLE, a refused read, ...
                response = _coded(kind, exc)
            except Exception as exc:
                response = Response.failure(
                    kind,
                    ErrorCode.INTERNAL_ERROR,
                    f"{type(exc).__name__}: {exc}",
                    error_data={"traceback": traceback.format_exc(limit=6)},
                )
            response = response.with_warnings(self._notices())
            if record:
                self._record(method.__name__, _bound(signature, self, args, kwargs), response, started)
            return response

        return inner  # type: ignore[return-value]

    return wrap


def _coded(kind: str, exc: CodedError) -> Response:
    return Response.failure(kind, exc.code, str(exc), error_data=exc.data)


def _bound(
    signature: inspect.Signature, instance: object, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> dict[str, Any]:
    """The call's arguments by parameter name, defaults included (for telemetry, which scrubs them)."""
    try:
        bound = signature.bind(instance, *args, **kwargs)
    except TypeError:
        return dict(kwargs)
    bound.apply_defaults()
    return dict(bound.arguments)


def _recorded(method: Callable[..., Any]) -> Callable[..., Any]:
    """The argument check and telemetry of `_guarded` for a method that answers something other than a
    Response (index): a bad argument raises InvalidArgument (a ValueError) before anything runs, the event
    is recorded with the failure's code, and the result or exception passes through unchanged."""
    signature = inspect.signature(method)

    @functools.wraps(method)
    def inner(self: Engine, *args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        arguments = _bound(signature, self, args, kwargs)
        try:
            wrong = problem(method.__name__, signature, (self, *args), kwargs)
            if wrong:
                raise wrong
            result = method(self, *args, **kwargs)
        except Exception as exc:
            if isinstance(exc, CodedError):
                failure = _coded("index", exc)
            else:
                failure = Response.failure("index", ErrorCode.INTERNAL_ERROR, f"{type(exc).__name__}: {exc}")
            self._record(method.__name__, arguments, failure, started)
            raise
        counts = {
            key: getattr(result, key)
            for key in ("files_indexed", "files_unchanged", "files_deleted", "parse_errors")
            if isinstance(getattr(result, key, None), int)
        }
        self._record(method.__name__, arguments, Response.success("index", counts), started)
        return result

    return inner


class Engine:
    def __init__(self, app: App) -> None:
        self._app = app
        self._search = search_use_case(app, self._refresh)
        self.progress: ProgressSink | None = None  # used by implicit (re)builds before a search
        self.origin = "library"  # who is calling, for telemetry: "cli", "mcp" or "library"
        self._checked_at = float("-inf")  # when the last freshness check ran (time.monotonic)
        self._embed_retry_at = 0.0
        self._embeddings_checked = False
        self._stale: Notice | None = None  # the last refresh could not run: answers come from the last commit
        self._events: list[Notice] = []  # what happened to the index since the last answer (told once)
        self._told_rebuild: dict[str, str] | None = None  # the store's rebuild already told

    def _notices(self) -> list[Notice]:
        """What every answer of this Engine should carry as envelope warnings right now (the index was
        rebuilt, is read-only or may be stale; the segment's config set what only the user may set)."""
        from ..infrastructure.config import untrusted_notice

        return [n for n in (untrusted_notice(self._app.settings),) if n is not None] + self._index_notices()

    def _index_notices(self) -> list[Notice]:
        """The index was rebuilt or replaced (told once), is read-only, or the last refresh could not run."""
        store = self._app.store
        notices, self._events = self._events, []
        if store.rebuilt is not None and store.rebuilt is not self._told_rebuild:
            self._told_rebuild = store.rebuilt
            kept = store.rebuilt["kept"]
            notices.append(
                Notice(
                    code=WarningCode.INDEX_REBUILT,
                    message=f"the index was rebuilt ({store.rebuilt['detail']})"
                    + (f"; the damaged file was kept as {kept}" if kept else ""),
                    data=dict(store.rebuilt),
                )
            )
        if store.read_only:
            notices.append(
                Notice(
                    code=WarningCode.INDEX_READ_ONLY,
                    message=f"the index {store.path} cannot be written: searched as it is, not refreshed",
                    data={"path": str(store.path)},
                )
            )
        if self._stale is not None:
            notices.append(self._stale)
        return notices

    @property
    def segment(self) -> str:
        return str(self._app.settings.segment)

    @property
    def db_path(self) -> str:
        """The index file, or the shared index's URL (without its password) and segment."""
        return str(self._app.store.path)

    # ------------------------------------------------------------------ index
    @_recorded
    def index(self, progress: ProgressSink | None = None, *, full: bool = False) -> IndexReport:
        """Build or refresh the index, then check the file (`PRAGMA quick_check`). Waits for another indexer
        of the same segment, then raises IndexLocked; IndexUnwritable when it cannot be written. A file found
        damaged, or replaced by another process during the run, is indexed again from scratch once (the
        next answer carries INDEX_REBUILT or INDEX_REPLACED)."""
        store = self._app.store
        if self.origin != "cli":  # searches follow in this process: their first need not list the tree again
            self._app.source.watch_next_scan()
        with store.writing(wait_seconds=INDEX_LOCK_WAIT_SECONDS):
            try:
                report = self._index_checked(progress, full=full)
            except (IndexCorrupt, IndexReplaced) as exc:
                self._note_replaced(exc)
                report = self._index_checked(progress, full=True)
        self._stale = None
        # What the process holds once indexed (modules, parser, file states) lives on: frozen, it is out of the
        # garbage collector's walk, whose full collections cost a search 15-20 ms (sqlalchemy, every ~8th
        # search; first-pass CPU p95 39 -> 20 ms). Garbage is collected first, so none is kept, and what an
        # earlier index() froze is thawed for that collection: in a long-lived process (the MCP server indexes
        # again and again) what it froze and has since dropped is collected, never kept for good.
        # A run that changed nothing left nothing new to freeze: it skips the collection (~9 ms on go-x-tools).
        if report.files_indexed or report.files_deleted or not gc.get_freeze_count():
            gc.unfreeze()
            gc.collect()
            gc.freeze()
        return report

    def _index_checked(self, progress: ProgressSink | None, *, full: bool) -> IndexReport:
        report = self._app.index.execute(IndexRequest(full=full), progress)
        if self._app.embed is not None:  # vectors follow the chunks; a failed embedder is reported
            embedded = self._app.embed.execute(EmbedRequest(full=full), progress)
            report = attrs.evolve(report, embeddings=embedded)
        self._app.store.verify()  # silent damage (flipped bytes) is found here, not by a later search
        if self._app.store.replaced():
            raise IndexReplaced(self._app.store.path)
        return report

    def _note_replaced(self, exc: Exception) -> None:
        """After IndexReplaced: tell the next answer, and open the file now at the path."""
        if isinstance(exc, IndexReplaced):
            self._events.append(
                Notice(
                    code=WarningCode.INDEX_REPLACED,
                    message="another process replaced or deleted the index file during this run; the run "
                    "was repeated into the file now in place",
                    data={"path": str(self._app.store.path)},
                )
            )
            self._app.store.reopen()

    def _refresh(self) -> int:
        store = self._app.store
        if store.replaced():  # another process rebuilt the file: read the new one
            store.reopen()
        stats = store.stats()
        if store.read_only:
            return 0  # searched as it is; every answer says INDEX_READ_ONLY
        if stats.built_at and not self._app.settings.auto_refresh:
            return 0
        fresh = self._app.index.freshness() if stats.built_at else None
        if fresh:
            self._stale = None
            return 0  # the file watch saw no change since this process's last run: no scan needed
        interval = self._app.settings.refresh_interval
        if interval is None:  # a long-lived server answers bursts of searches; others check every time
            interval = MCP_REFRESH_INTERVAL if self.origin == "mcp" else 0.0
        now = time.monotonic()
        if fresh is None and stats.built_at and now - self._checked_at < interval:
            return 0  # no watch, and a stat scan ran moments ago (a change the watch saw is never put off)
        self._checked_at = now
        wait = 0.0 if stats.built_at else INDEX_LOCK_WAIT_SECONDS  # no index yet: wait for the other builder
        try:
            with store.writing(wait_seconds=wait):
                try:
                    changed = self._refresh_once()
                except (IndexCorrupt, IndexReplaced) as exc:  # set aside / reopened: build it again
                    self._note_replaced(exc)
                    changed = self._refresh_once()
        except IndexLocked:  # another process is refreshing: search what is committed, and say so
            self._stale = self._stale_notice("another process is refreshing the index", "locked")
            return 0
        except IndexUnwritable as exc:
            if not stats.built_at:
                raise
            self._stale = self._stale_notice(f"the index could not be refreshed: {exc}", exc.reason)
            return 0
        self._stale = None
        return changed

    def _refresh_once(self) -> int:
        changed = self._app.index.execute(IndexRequest(defer_substring_index=True), self.progress).changed
        self._sync_embeddings(changed)
        return changed

    def _stale_notice(self, why: str, reason: str) -> Notice:
        return Notice(
            code=WarningCode.INDEX_STALE,
            message=f"{why}; this answer is from the last committed index and may miss recent edits",
            data={"reason": reason},
        )

    def _sync_embeddings(self, changed: int) -> None:
        """Vectors for what the refresh changed, and once per Engine for what an earlier run left out (a
        check that counts rows, so not on every search). An embedder that cannot answer is not asked again
        for a while: the semantic route meanwhile falls back to lexical search and says so in the plan."""
        embed = self._app.embed
        if embed is None or time.monotonic() < self._embed_retry_at:
            return
        if not changed and self._embeddings_checked:
            return
        self._embeddings_checked = True
        if (changed or embed.behind()) and embed.execute(EmbedRequest(), self.progress).error:
            self._embed_retry_at = time.monotonic() + EMBED_RETRY_SECONDS
            self._embeddings_checked = False

    # ------------------------------------------------------------------ queries
    @_guarded("search")
    def search(
        self,
        query: str,
        limit: int = 10,
        mode: str = "auto",
        *,
        lint: bool | None = None,
        rewrite: bool | None = None,
        regex: bool = False,
        code_pattern: bool = False,
        lang: str | None = None,
        expand: int | Literal["auto"] = 0,
    ) -> Response:
        """`rewrite`: None lets the should_rewrite gate decide (when [query_rewrite] is enabled), True forces
        an LLM rewrite, False never asks; `data["plan"]["rewrite"]` says what happened. `lang` ("go",
        "typescript", ...) keeps only that language's hits and parses a code pattern in it alone; without
        it a code pattern runs in each file's own language. `expand` (0 to the budget's max_snippets) inlines
        the source of the first `expand` definition hits, inside the snippet budget (`data["expanded"]`);
        "auto" inlines the top hit when its lead over the second is clear."""
        invalid = None if expand == "auto" else invalid_expand(expand, self._app.policy)
        if invalid is not None:
            return invalid
        use_lint = self._app.settings.lint if lint is None else lint
        response = self._search.execute(
            SearchRequest(
                query=query,
                limit=limit,
                mode=mode,
                lint=use_lint,
                rewrite=rewrite,
                regex=regex,
                code_pattern=code_pattern,
                lang=lang,
            )
        )
        fallbacks = self._fallbacks()
        if fallbacks.get("fallbacks") and response.ok and isinstance(response.data.get("plan"), dict):
            plan = {**response.data["plan"], **fallbacks}  # the plan says which look-ups ran slower
            response = attrs.evolve(response, data={**response.data, "plan": plan})
        auto = expand == "auto"
        if auto:
            expand = 1 if response.ok and clear_lead(response.data.get("hits", [])) else 0
        snippet = self._app.snippet.execute
        return expand_hits(
            response,
            int(expand),
            lambda uri: snippet(SnippetRequest(uri=uri)),
            self._app.policy,
            whole_only=auto,
        )

    @_guarded("source")
    def get(self, id: str | None = None, path: str | None = None) -> Response:
        self._ensure_index()
        return self._app.get.execute(GetRequest(id=id, path=path))

    @_guarded("skeleton")
    def symbols(self, uri: str) -> Response:
        """L1: the skeleton of a file (`sym://python/mod/...`) or of a class (`sym://python/type/...`)."""
        self._ensure_index()
        return self._app.symbols.execute(SymbolsRequest(uri=str(uri)))

    @_guarded("snippet")
    def snippet(self, uri: str) -> Response:
        """L2: one definition's source, inside the snippet budget."""
        self._ensure_index()
        return self._app.snippet.execute(SnippetRequest(uri=str(uri)))

    @_guarded("hover")
    def hover(self, uri: str) -> Response:
        """The language server's hover (resolved signature, docstring) for one definition, with the AST
        data. The selector is resolved by the AST engine first; a server that is missing, crashed or hung
        leaves the AST data and an LSP_UNAVAILABLE error. The server starts on the first call and stays up
        until close()."""
        if self._app.hover is None:
            return Response.failure("hover", ErrorCode.LSP_UNAVAILABLE, "no language server is wired")
        from ..application.navigation import HoverRequest  # here: a search never imports navigation

        self._ensure_index()
        return self._app.hover.execute(HoverRequest(uri=uri))

    @_guarded("refs")
    def refs(self, uri: str, limit: int = 50) -> Response:
        """Where one definition is used, from the language server: hits with path, lines, the enclosing
        symbol and its `uri`, and a one-line preview, inside the byte budget (AST first, as hover)."""
        if self._app.refs is None:
            return Response.failure("refs", ErrorCode.LSP_UNAVAILABLE, "no language server is wired")
        from ..application.navigation import RefsRequest

        self._ensure_index()
        return self._app.refs.execute(RefsRequest(uri=uri, limit=limit))

    @_guarded("definition")
    def definition(self, path: str, line: int, column: int | None = None, engine: str = "auto") -> Response:
        """What the name at `path:line[:column]` (1-based) is: its definitions through the language server
        when one is running (`engine="lsp"` starts it; `"index"` never asks it), else from the index's call
        graph, with how they were found (exact, import, name with every candidate, or unresolved and why);
        `data["engine"]` says which answered. Without a column, the first call on the line. A position
        that is not on a name is INVALID_ARGUMENT."""
        from ..application.call_graph import DefinitionRequest  # here: a search never imports the graph

        self._ensure_index()
        assert self._app.definition is not None
        return self._app.definition.execute(
            DefinitionRequest(path=path, line=line, column=column, engine=engine)
        )

    @_guarded("callers")
    def callers(self, uri: str, limit: int = 50, offset: int = 0) -> Response:
        """The call sites that reach one definition, from the index (no language server): each hit's path,
        line, column, calling symbol and its `uri`, `resolution` (exact, import, or name) and a preview.
        `uri`: a sym:// selector, or `"path:line"` for the innermost definition declared on that line, else
        around it: the one way to ask about the second of two definitions a file gives one name (a local in
        each test's callback); `data["range"]` says which was chosen. `offset`: the hits from there on (an
        answer the byte budget cut says where it stopped)."""
        from ..application.call_graph import CallersRequest

        self._ensure_index()
        assert self._app.callers is not None
        return self._app.callers.execute(CallersRequest(uri=uri, limit=limit, offset=offset))

    @_guarded("callees")
    def callees(self, uri: str, limit: int = 200) -> Response:
        """The calls one definition makes, each resolved to its definitions or reported unresolved. `uri`: a
        sym:// selector or `"path:line"`, as for `callers`."""
        from ..application.call_graph import CalleesRequest

        self._ensure_index()
        assert self._app.callees is not None
        return self._app.callees.execute(CalleesRequest(uri=uri, limit=limit))

    @_guarded("impact")
    def impact(self, uri: str, depth: int = 3) -> Response:
        """What reaches one definition through calls, transitively up to `depth` (capped, the cap
        reported), grouped by file with counts; the tests that reach it are listed. `uri`: a sym://
        selector or `"path:line"`, as for `callers`."""
        from ..application.call_graph import ImpactRequest

        self._ensure_index()
        assert self._app.impact is not None
        return self._app.impact.execute(ImpactRequest(uri=uri, depth=depth))

    @_guarded("eval")
    def evaluate(self, queries: str, k: int = 10, mode: str = "auto") -> Response:
        """Score this segment's search on a JSONL question set (the format of `../shared/eval`): MRR@k and
        recall@1/5/k at symbol and file level, overall, by class and by language."""
        from ..application.evaluate import BadQuestions, EvalRequest, EvaluateSegment, parse_questions
        from ..infrastructure.lexicon_data import load_lexicon

        try:
            with open(queries, encoding="utf-8") as fh:
                questions = parse_questions(fh, load_lexicon().is_spanish)
        except OSError as exc:
            return Response.failure(
                "eval", ErrorCode.FILE_NOT_FOUND, f"cannot read {queries}: {exc.strerror}"
            )
        except BadQuestions as exc:
            return Response.failure("eval", ErrorCode.INVALID_ARGUMENT, f"{queries}: {exc}")
        self._ensure_index()
        use_case = EvaluateSegment(
            reader=self._app.store,
            search=lambda query, limit, mode: self._search.execute(
                SearchRequest(query=query, limit=limit, mode=mode, lint=self._app.settings.lint)
            ),
        )
        return use_case.execute(EvalRequest(questions=tuple(questions), k=k, mode=mode))

    def _ensure_index(self) -> None:
        if not self._app.store.stats().built_at:
            self._refresh()

    @_guarded("status")
    def status(self) -> Response:
        stats = self._app.store.stats()
        return Response.success(
            "status",
            {
                "segment": self.segment,
                "db_path": self.db_path,
                "files": stats.files,
                "symbols": stats.symbols,
                "chunks": stats.chunks,
                "built_at": stats.built_at,
                "parse_errors": stats.parse_errors,
                "db_bytes": stats.db_bytes,
                **self._fallbacks(),
            },
        )

    def _fallbacks(self) -> dict[str, list[str]]:
        """A shared index's features that fall back on this server (no pg_trgm, no pgvector), as
        `fallbacks`; nothing for the SQLite file, whose features are all built in."""
        found = getattr(self._app.store, "fallbacks", None)
        return {} if found is None else {"fallbacks": list(found)}

    @_guarded("stats", record=False)
    def stats(self, top: int = 10) -> Response:
        """What the telemetry of this segment adds up to (`ctx stats`); not itself recorded."""
        if self._app.stats is None:
            return Response.failure(
                "stats", ErrorCode.INVALID_ARGUMENT, "telemetry is not wired in this engine"
            )
        from ..application.stats import StatsRequest

        return self._app.stats.execute(StatsRequest(top=top))

    def _record(self, method: str, arguments: dict[str, Any], response: Response, started: float) -> None:
        """One telemetry event; whatever goes wrong here stays here."""
        try:
            event = build_event(
                method=method,
                arguments=arguments,
                response=response,
                took_ms=(time.perf_counter() - started) * 1000,
                timestamp=timestamp(),
                origin=self.origin,
            )
            self._app.telemetry.record(event)
        except Exception:  # telemetry must never fail the call it describes
            pass

    # ------------------------------------------------------------------ lifecycle
    def close(self) -> None:
        self._app.close()

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def open_engine(path: str | os.PathLike[str] = ".", **options: Any) -> Engine:
    """Open the segment at `path`. Options override config.toml and TRIFECTA_* variables: db_path,
    max_file_bytes, exclude, secret_patterns, workers, lint, auto_refresh, max_bytes_total, ...
    A `path` that is not a str or os.PathLike raises InvalidArgument; a folder that does not exist or a
    setting that cannot be used raises ConfigError (both are ValueErrors)."""
    wrong = problem("open", _OPEN, (path,), {})
    if wrong:
        raise wrong
    one_blas_thread()
    return Engine(bootstrap(str(path), options))


def one_blas_thread() -> None:
    """One OpenBLAS thread for the numpy a search imports (stored postings), unless numpy is loaded already or
    the user chose a number, as the CLI does: its import starts a thread per core, and each spins for a while
    (sqlalchemy, library use: the first question 85 -> 47 ms of CPU, the next two 18 -> 9 and 32 -> 11 ms),
    for matrix products no search makes (embeddings are searched with an einsum, which BLAS does not run)."""
    if "numpy" not in sys.modules:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


_OPEN = inspect.signature(open_engine)
