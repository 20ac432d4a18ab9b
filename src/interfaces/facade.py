"""The public library surface: `trifecta.open(path) -> Engine`.

    engine = trifecta.open("path/to/repo")
    engine.index()                                   # build or refresh; returns an IndexReport
    response = engine.search("where is the config loaded", limit=10)
    response.to_dict()["data"]["hits"]               # [{id, path, start_line, end_line, symbol, ...}]
    engine.get(id=hit_id); engine.get(path="pkg/mod.py:10-40")

Every method answers with a `Response` (the JSON envelope of `to_dict()`); bad input is an error
envelope, never an exception. An Engine holds one SQLite connection: use it from one thread at a time,
and `close()` it (or use `with trifecta.open(...) as engine:`).
"""

from __future__ import annotations

import functools
import traceback
from collections.abc import Callable
from typing import Any, TypeVar

from ..application.get_source import GetRequest
from ..application.index_segment import IndexReport, IndexRequest
from ..application.ports import ProgressSink
from ..application.search import SearchRequest
from ..application.zoom_ast import SnippetRequest, SymbolsRequest
from ..domain.contract import ErrorCode, Response
from ..infrastructure.sqlite_store import IndexLocked
from .bootstrap import App, bootstrap, search_use_case

F = TypeVar("F", bound=Callable[..., Response])
INDEX_LOCK_WAIT_SECONDS = 120.0


def _guarded(kind: str) -> Callable[[F], F]:
    """An unexpected failure becomes an INTERNAL_ERROR envelope rather than an exception for the agent."""

    def wrap(method: F) -> F:
        @functools.wraps(method)
        def inner(self: Engine, *args: Any, **kwargs: Any) -> Response:
            try:
                return method(self, *args, **kwargs)
            except IndexLocked as exc:
                return Response.failure(kind, ErrorCode.INDEX_LOCKED, str(exc))
            except Exception as exc:
                return Response.failure(
                    kind,
                    ErrorCode.INTERNAL_ERROR,
                    f"{type(exc).__name__}: {exc}",
                    error_data={"traceback": traceback.format_exc(limit=6)},
                )

        return inner  # type: ignore[return-value]

    return wrap


class Engine:
    def __init__(self, app: App) -> None:
        self._app = app
        self._search = search_use_case(app, self._refresh)
        self.progress: ProgressSink | None = None  # used by implicit (re)builds before a search

    @property
    def segment(self) -> str:
        return str(self._app.settings.segment)

    @property
    def db_path(self) -> str:
        return str(self._app.settings.db_path)

    # ------------------------------------------------------------------ index
    def index(self, progress: ProgressSink | None = None, *, full: bool = False) -> IndexReport:
        """Build or refresh the index. Waits for another indexer of the same segment, then raises IndexLocked."""
        with self._app.store.writing(wait_seconds=INDEX_LOCK_WAIT_SECONDS):
            return self._app.index.execute(IndexRequest(full=full), progress)

    def _refresh(self) -> int:
        stats = self._app.store.stats()
        if stats.built_at and not self._app.settings.auto_refresh:
            return 0
        wait = 0.0 if stats.built_at else INDEX_LOCK_WAIT_SECONDS  # no index yet: wait for the other builder
        try:
            with self._app.store.writing(wait_seconds=wait):
                return self._app.index.execute(IndexRequest(), self.progress).changed
        except IndexLocked:
            return 0  # another process is refreshing; search what is committed

    # ------------------------------------------------------------------ queries
    @_guarded("search")
    def search(
        self, query: str, limit: int = 10, mode: str = "auto", *, lint: bool | None = None
    ) -> Response:
        if not isinstance(query, str):
            return Response.failure("search", ErrorCode.INVALID_ARGUMENT, "query must be a string")
        use_lint = self._app.settings.lint if lint is None else lint
        return self._search.execute(SearchRequest(query=query, limit=limit, mode=mode, lint=use_lint))

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
            },
        )

    # ------------------------------------------------------------------ lifecycle
    def close(self) -> None:
        self._app.close()

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def open_engine(path: str = ".", **options: Any) -> Engine:
    """Open the segment at `path`. Options override config.toml and TRIFECTA_* variables: db_path,
    max_file_bytes, exclude, secret_patterns, workers, lint, auto_refresh, max_bytes_total, ..."""
    return Engine(bootstrap(str(path), options))
