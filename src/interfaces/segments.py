"""Several segments of one shared index, searched as one: `trifecta.open_segments(["flask", "click"])`.

    with trifecta.open_segments(["flask", "click"], db_url="postgresql://...") as shared:
        shared.search("where is the request context pushed")   # hits carry their `segment`
        shared.snippet("sym://python/type/...", segment="flask")
    trifecta.open_segments(None)                                  # every segment in the database

Segments are the ids stored in PostgreSQL (`[index] segment_id`, default the indexed folder's name). The
URL comes from `db_url=`, TRIFECTA_DB_URL or the user's config (`[index] db_url`). Searching needs no
checkout: each segment is opened by id over an empty folder, read-only, and every file's text comes from the
server. A SQLite index holds one segment per file, so naming several without a shared index is an error.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Callable, Sequence
from typing import Any, Literal

import attrs

from ..application.multi_search import SearchSegments, SegmentsRequest
from ..application.ports import CodedError
from ..domain import actions
from ..domain.actions import NotAnAction
from ..domain.contract import ErrorCode, Response
from ..infrastructure.config import load_settings
from ..infrastructure.postgres_store import redact, segment_names
from .bootstrap import bootstrap_searcher
from .facade import Engine


class NeedsSharedIndex(CodedError):
    """Several segments, or a segment by id, without a shared index (db_url): INVALID_ARGUMENT, exit 2."""

    code = ErrorCode.INVALID_ARGUMENT


class UnknownSegment(CodedError):
    code = ErrorCode.SEGMENT_NOT_FOUND


NO_SHARED_INDEX = (
    "searching several segments, or a segment by id, needs a shared index: set TRIFECTA_DB_URL or "
    '[index] db_url = "postgresql://..." in your user config (a SQLite index holds one segment per file; '
    "search its folder with --segment PATH)"
)


def shared_url(options: dict[str, Any] | None = None, env: dict[str, str] | None = None) -> str:
    """The shared index's URL from `options`, TRIFECTA_DB_URL or the user's config; "" when none is set."""
    empty = tempfile.mkdtemp(prefix="trifecta-search-")
    try:
        return load_settings(empty, options or {}, env).db_url
    finally:
        shutil.rmtree(empty, ignore_errors=True)


class SegmentSet:
    """Segments of one shared index, each an Engine opened by id (lazily), searched alone or together."""

    def __init__(self, url: str, names: Sequence[str], options: dict[str, Any] | None = None) -> None:
        self.url = url
        self.names = tuple(dict.fromkeys(names))
        self._options = {**(options or {}), "db_url": url}
        self._root = tempfile.mkdtemp(prefix="trifecta-search-")  # empty: no checkout, files from the server
        self._engines: dict[str, Engine] = {}
        self.origin = "library"
        self.progress: Any = None

    def engine(self, segment: str | None = None) -> Engine:
        """The Engine of one segment (the only one when there is one); UnknownSegment otherwise."""
        if segment is None:
            if len(self.names) != 1:
                raise UnknownSegment(
                    f"name the segment: one of {', '.join(self.names)}",
                    data={"segments": list(self.names), "argument": "segment"},
                )
            segment = self.names[0]
        if segment not in self.names:
            raise UnknownSegment(
                f"segment {segment!r} is not served here; segments: {', '.join(self.names)}",
                data={"segments": list(self.names), "segment": segment},
            )
        if segment not in self._engines:
            engine = Engine(bootstrap_searcher(segment, self._root, self._options))
            engine.origin = self.origin
            self._engines[segment] = engine
        return self._engines[segment]

    @property
    def segment(self) -> str:
        return self.names[0] if self.names else ""

    def _one(self, segment: str | None, call: Callable[[Engine], Response], kind: str) -> Response:
        """One segment's answer, its next actions naming that segment."""
        try:
            engine = self.engine(segment)
        except CodedError as exc:
            return Response.failure(kind, exc.code, str(exc), error_data=exc.data)
        response = call(engine)
        name = segment or self.names[0]
        named = []
        for action in response.next_actions:
            with contextlib.suppress(NotAnAction):  # `index` cannot run by id: left out
                named.append(actions.on_segment(action, name))
        return attrs.evolve(response, next_actions=tuple(named))

    # ------------------------------------------------------------------ the Engine's questions
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
        segment: str | Sequence[str] | None = None,
        merge: str = "score",
    ) -> Response:
        """Search these segments (or `segment`: one or some of them) as one ranking; every hit carries its
        `segment`. `expand` is not used across segments (zoom with snippet(uri, segment=...))."""
        chosen = self.names if segment is None else (segment,) if isinstance(segment, str) else tuple(segment)
        try:
            for name in chosen:
                self.engine(name)
        except CodedError as exc:
            return Response.failure("search", exc.code, str(exc), error_data=exc.data)

        def one(name: str, count: int) -> Response:
            return self._engines[name].search(
                query,
                limit=count,
                mode=mode,
                lint=lint,
                rewrite=rewrite,
                regex=regex,
                code_pattern=code_pattern,
                lang=lang,
            )

        request = SegmentsRequest(query=query, segments=tuple(chosen), limit=limit, merge=merge)
        return SearchSegments(one).execute(request)

    def get(self, id: str | None = None, path: str | None = None, *, segment: str | None = None) -> Response:
        return self._one(segment, lambda e: e.get(id=id, path=path), "source")

    def symbols(self, uri: str, *, segment: str | None = None) -> Response:
        return self._one(segment, lambda e: e.symbols(uri), "skeleton")

    def snippet(self, uri: str, *, segment: str | None = None) -> Response:
        return self._one(segment, lambda e: e.snippet(uri), "snippet")

    def hover(self, uri: str, *, segment: str | None = None) -> Response:
        return self._one(segment, lambda e: e.hover(uri), "hover")

    def refs(self, uri: str, limit: int = 50, *, segment: str | None = None) -> Response:
        return self._one(segment, lambda e: e.refs(uri, limit=limit), "refs")

    def definition(
        self,
        path: str,
        line: int,
        column: int | None = None,
        engine: str = "auto",
        *,
        segment: str | None = None,
    ) -> Response:
        return self._one(segment, lambda e: e.definition(path, line, column, engine=engine), "definition")

    def callers(self, uri: str, limit: int = 50, offset: int = 0, *, segment: str | None = None) -> Response:
        return self._one(segment, lambda e: e.callers(uri, limit=limit, offset=offset), "callers")

    def callees(self, uri: str, *, segment: str | None = None) -> Response:
        return self._one(segment, lambda e: e.callees(uri), "callees")

    def impact(self, uri: str, depth: int = 3, *, segment: str | None = None) -> Response:
        return self._one(segment, lambda e: e.impact(uri, depth=depth), "impact")

    def status(self, segment: str | None = None) -> Response:
        """One segment's status, or (segment None and several served) every segment's."""
        if segment is not None or len(self.names) == 1:
            return self._one(segment, lambda e: e.status(), "status")
        return self.list()

    def list(self) -> Response:
        """The segments served: each one's files, symbols, chunks, when it was built, fallbacks."""
        rows = []
        for name in self.names:
            answer = self._one(name, lambda e: e.status(), "status")
            if not answer.ok:
                return answer
            data = dict(answer.data)
            rows.append({"segment": name, **{k: v for k, v in data.items() if k not in ("segment",)}})
        return Response.success("segments", {"db_url": redact(self.url), "segments": rows})

    def close(self) -> None:
        for engine in self._engines.values():
            engine.close()
        self._engines.clear()
        shutil.rmtree(self._root, ignore_errors=True)

    def __enter__(self) -> SegmentSet:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def open_segments(
    segments: Sequence[str] | None = None, *, env: dict[str, str] | None = None, **options: Any
) -> SegmentSet:
    """Segments of the shared index by id (None: every segment that finished a run). Raises
    NeedsSharedIndex without a db_url, UnknownSegment for an id the database does not hold, IndexUnavailable
    when the server cannot be reached."""
    url = shared_url(options, env)
    if not url:
        raise NeedsSharedIndex(NO_SHARED_INDEX, data={"argument": "segment"})
    known = segment_names(url)
    if segments is None:
        if not known:
            raise UnknownSegment(
                "the shared index holds no segment yet: index one with trifecta index --db-url"
            )
        chosen = known
    else:
        chosen = list(segments)
        missing = [s for s in chosen if s not in known]
        if missing:
            raise UnknownSegment(
                f"no segment {', '.join(map(repr, missing))} in the shared index; segments: "
                + (", ".join(known) or "none yet"),
                data={"segments": known, "missing": missing},
            )
    return SegmentSet(url, chosen, options)
