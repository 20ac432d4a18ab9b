"""The composition root: the one place that builds adapters and wires them into use cases."""

from __future__ import annotations

import datetime
import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import attrs

from ..application.embedding import Embedder, EmbedSegment, SemanticEngine
from ..application.engines import AstPatternEngine
from ..application.get_source import GetSource
from ..application.index_segment import IndexSegment
from ..application.ports import TelemetrySink
from ..application.rewrite import RewriteFlow
from ..application.search import SearchSegment
from ..application.zoom_ast import (
    PathRules,
    SnippetUseCase,
    SymbolResolver,
    SymbolsUseCase,
    path_rules,
    uri_for_hit,
)
from ..domain.budget import BudgetPolicy
from ..infrastructure.astgrep_matcher import AstGrepMatcher
from ..infrastructure.code_parser import SourceParser
from ..infrastructure.config import Settings, load_settings
from ..infrastructure.file_source import LocalFileSource
from ..infrastructure.lexicon_data import load_lexicon
from ..infrastructure.sqlite_store import SqliteIndex
from ..infrastructure.telemetry import JsonlTelemetry, NullTelemetry, telemetry_dir
from ..infrastructure.treesitter_parser import language_specs

if TYPE_CHECKING:  # imported where they are built: a search never needs them (CLI start-up)
    from ..application.call_graph import CalleesUseCase, CallersUseCase, DefinitionUseCase, ImpactUseCase
    from ..application.navigation import HoverUseCase, LanguageServer, RefsUseCase
    from ..application.stats import StatsUseCase
    from ..infrastructure.postgres_store import PostgresIndex, PostgresRewriteCache, StoredTextSource


def utc_now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


@attrs.define(kw_only=True)
class App:
    settings: Settings
    store: SqliteIndex | PostgresIndex
    source: LocalFileSource | StoredTextSource
    parser: SourceParser
    policy: BudgetPolicy
    index: IndexSegment
    get: GetSource
    symbols: SymbolsUseCase
    snippet: SnippetUseCase
    segment_label: str
    embed: EmbedSegment | None = None  # set when [embedding] names a provider
    semantic: SemanticEngine | None = None
    closers: tuple[Callable[[], None], ...] = ()
    telemetry: TelemetrySink = attrs.field(factory=NullTelemetry)  # one event per Engine call
    rewrite: RewriteFlow | None = None  # LLM query rewriting ([query_rewrite]; --rewrite forces it)
    resolver: SymbolResolver | None = None  # sym:// selectors, for a search whose query is one
    # hover/refs, the call graph's use cases and stats: built (and their modules imported) on first use,
    # so a one-shot search never pays for them
    tools: Callable[[], Tools] | None = None
    _built: Tools | None = attrs.field(default=None, init=False)
    _building: threading.Lock = attrs.field(factory=threading.Lock, init=False)

    def _tools(self) -> Tools | None:
        with self._building:  # once, even from two threads: one language server, closed by close()
            if self._built is None and self.tools is not None:
                self._built = self.tools()
        return self._built

    @property
    def stats(self) -> StatsUseCase | None:
        tools = self._tools()
        return None if tools is None else tools.stats

    @property
    def hover(self) -> HoverUseCase | None:  # ast hover / ast refs through the [lsp] server
        tools = self._tools()
        return None if tools is None else tools.hover

    @property
    def refs(self) -> RefsUseCase | None:
        tools = self._tools()
        return None if tools is None else tools.refs

    @property
    def language_server(self) -> LanguageServer | None:  # started on the first hover/refs
        tools = self._tools()
        return None if tools is None else tools.language_server

    @property
    def definition(self) -> DefinitionUseCase | None:  # ast def / callers / callees / impact, from edges
        tools = self._tools()
        return None if tools is None else tools.definition

    @property
    def callers(self) -> CallersUseCase | None:
        tools = self._tools()
        return None if tools is None else tools.callers

    @property
    def callees(self) -> CalleesUseCase | None:
        tools = self._tools()
        return None if tools is None else tools.callees

    @property
    def impact(self) -> ImpactUseCase | None:
        tools = self._tools()
        return None if tools is None else tools.impact

    def close(self) -> None:
        for close in self.closers:
            close()
        if self._built is not None and self._built.language_server is not None:
            self._built.language_server.close()  # only a server that was built can have started
        self.store.close()


@attrs.frozen(kw_only=True)
class Tools:
    """What an App builds on first use: the language server and the use cases that need it or the call
    graph, and telemetry stats."""

    stats: StatsUseCase | None = None
    hover: HoverUseCase | None = None
    refs: RefsUseCase | None = None
    language_server: LanguageServer | None = None  # started on the first hover/refs, closed by App.close()
    definition: DefinitionUseCase | None = None
    callers: CallersUseCase | None = None
    callees: CalleesUseCase | None = None
    impact: ImpactUseCase | None = None


def selector_rules() -> dict[str, PathRules]:
    """The ``sym://`` path rules of Python and of every language in the parser's table (languages.toml):
    the languages a selector may name are exactly the ones whose files have symbols."""
    endings: dict[str, list[str]] = {}
    for spec in language_specs():
        endings.setdefault(spec.name, []).extend(spec.extensions)
    return path_rules(endings)


def build_embedder(settings: Settings, env: Mapping[str, str] | None = None) -> Embedder | None:
    """The configured embedder, or None for provider "none". Adapters import their libraries lazily.
    The token is read only through `settings`, whose api_url and api_key_env passed the trust rule of
    load_settings: a repository's own config cannot name either, so a token goes only where the user said."""
    if settings.embed_provider == "openai":
        import os

        from ..infrastructure.http_embedder import HttpEmbedder

        env = os.environ if env is None else env
        key = env.get(settings.embed_api_key_env, "") if settings.embed_api_key_env else ""
        return HttpEmbedder(
            api_url=settings.embed_api_url,
            model=settings.embed_model,
            batch_size=settings.embed_batch_size,
            timeout=settings.embed_timeout,
            api_key=key,
        )
    if settings.embed_provider == "onnx" and settings.embed_model_path is not None:
        from ..infrastructure.onnx_embedder import OnnxEmbedder

        return OnnxEmbedder(settings.embed_model_path, batch_size=settings.embed_batch_size)
    return None


def build_rewrite_flow(
    settings: Settings, reader: SqliteIndex | PostgresIndex, env: Mapping[str, str] | None = None
) -> tuple[RewriteFlow, list[Callable[[], None]]]:
    """The query-rewrite flow over the configured chat API, with its cache in the index file, and what
    closes them. Built even when [query_rewrite] is disabled, so `--rewrite` can force one; nothing
    connects (and httpx is not imported) until a rewrite is attempted. As for the embedder, the URL and the
    key's variable come from `settings`, which a repository's own config cannot set unless trusted."""
    import os

    from ..infrastructure.chat_rewriter import ChatRewriter
    from ..infrastructure.rewrite_cache import SqliteRewriteCache

    env = os.environ if env is None else env
    key_env = settings.rewrite_api_key_env
    rewriter = ChatRewriter(
        api_url=settings.rewrite_api_url,
        model=settings.rewrite_model,
        timeout=settings.rewrite_timeout,
        api_key=env.get(key_env, "") if key_env else "",
        api_key_env=key_env,
    )
    cache: SqliteRewriteCache | PostgresRewriteCache
    if isinstance(reader, SqliteIndex):
        cache = SqliteRewriteCache(settings.db_path)
    else:
        from ..infrastructure.postgres_store import PostgresRewriteCache

        cache = PostgresRewriteCache(reader)
    flow = RewriteFlow(rewriter=rewriter, reader=reader, cache=cache, auto=settings.rewrite_enabled)
    return flow, [rewriter.close, cache.close]


def open_store(
    settings: Settings, source: LocalFileSource, *, searcher: bool = False
) -> tuple[SqliteIndex | PostgresIndex, LocalFileSource | StoredTextSource]:
    """The index and the files as use cases read them: the segment's SQLite file and its folder, or its
    segment of the shared PostgreSQL index (db_url), which keeps each file's text for readers without a
    checkout (`searcher`: an existing segment, opened to search it and never written)."""
    if settings.db_url:
        from ..infrastructure.postgres_store import PostgresIndex, StoredTextSource

        store = PostgresIndex(settings.db_url, settings.segment_id, source=source, searcher=searcher)
        return store, StoredTextSource(source, store)
    return SqliteIndex(settings.db_path), source


def bootstrap_searcher(
    segment_id: str, root: str, options: Mapping[str, Any] | None = None, env: Mapping[str, str] | None = None
) -> App:
    """One segment of a shared index (db_url from `options`, TRIFECTA_DB_URL or the user's config), opened
    by id to search it on a machine with no checkout: `root` is an empty folder, so every file's text comes
    from the server; nothing is refreshed, written or recorded locally."""
    fixed = {"segment_id": segment_id, "auto_refresh": False, "watch_files": False, "telemetry": False}
    return bootstrap(root, {**(options or {}), **fixed}, env, label=segment_id, searcher=True)


def bootstrap(
    segment: str,
    options: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    *,
    label: str | None = None,
    searcher: bool = False,
) -> App:
    settings = load_settings(segment, options, env)
    local = LocalFileSource(
        settings.segment,
        max_file_bytes=settings.max_file_bytes,
        exclude=settings.exclude,
        secret_patterns=settings.secret_patterns,
        watch=settings.watch_files,
    )
    parser = SourceParser(workers=settings.workers)
    store, source = open_store(settings, local, searcher=searcher)
    policy = BudgetPolicy(
        max_bytes_total=settings.max_bytes_total,
        max_snippet_bytes=settings.max_snippet_bytes,
        max_snippets=settings.max_snippets,
        max_lines_per_snippet=settings.max_lines_per_snippet,
    )
    label = str(segment) if label is None else label
    resolver = SymbolResolver(
        reader=store, source=source, parser=parser, rules=selector_rules(), admit=source.admits
    )
    embed: EmbedSegment | None = None
    semantic: SemanticEngine | None = None
    closers: list[Callable[[], None]] = [local.close]
    embedder = build_embedder(settings, env)
    telemetry = JsonlTelemetry(
        telemetry_dir(settings.segment), enabled=settings.telemetry, max_bytes=settings.telemetry_max_bytes
    )
    if embedder is not None:
        from ..infrastructure.pg_vector_store import PostgresVectorStore
        from ..infrastructure.vector_store import SqliteVectorStore

        vectors: SqliteVectorStore | PostgresVectorStore = (
            SqliteVectorStore(settings.db_path)
            if isinstance(store, SqliteIndex)
            else PostgresVectorStore(store)
        )
        closers.append(vectors.close)
        if hasattr(embedder, "close"):
            closers.append(embedder.close)
        embed = EmbedSegment(
            reader=store, store=vectors, embedder=embedder, batch_size=settings.embed_batch_size
        )
        semantic = SemanticEngine(embedder=embedder, store=vectors, reader=store)
    rewrite, rewrite_closers = build_rewrite_flow(settings, store, env)
    closers.extend(rewrite_closers)

    def tools() -> Tools:
        from ..application.call_graph import CalleesUseCase, CallersUseCase, DefinitionUseCase, ImpactUseCase
        from ..application.navigation import HoverUseCase, RefsUseCase
        from ..application.stats import StatsUseCase
        from ..infrastructure.lazy_language_server import LazyLanguageServer

        # Nothing is imported or started until the first hover/refs; App.close() shuts the server down.
        server = LazyLanguageServer(settings.segment, settings.lsp_command, settings.lsp_timeout)
        graph: dict[str, Any] = {
            "reader": store, "resolver": resolver, "source": source, "rules": selector_rules(), "policy": policy
        }  # fmt: skip
        return Tools(
            definition=DefinitionUseCase(**graph, server=server),
            callers=CallersUseCase(**graph),
            callees=CalleesUseCase(**graph),
            impact=ImpactUseCase(**graph),
            hover=HoverUseCase(resolver, server, policy),
            refs=RefsUseCase(resolver, server, policy, source=source, parser=parser, admit=source.admits),
            language_server=server,
            stats=StatsUseCase(telemetry, where=str(telemetry.directory), enabled=settings.telemetry),
        )

    return App(
        tools=tools,
        resolver=resolver,
        rewrite=rewrite,
        embed=embed,
        semantic=semantic,
        closers=tuple(closers),
        symbols=SymbolsUseCase(resolver, policy),
        snippet=SnippetUseCase(resolver, policy),
        settings=settings,
        store=store,
        source=source,
        parser=parser,
        policy=policy,
        index=IndexSegment(source=local, parser=parser, writer=store, clock=utc_now),
        get=GetSource(reader=store, source=source, policy=policy, segment_label=label),
        segment_label=label,
        telemetry=telemetry,
    )


def search_use_case(app: App, refresh: Any) -> SearchSegment:
    return SearchSegment(
        reader=app.store,
        refresh=refresh,
        uri_for=app.resolver.uri_for_hit if app.resolver is not None else uri_for_hit,
        lexicon=load_lexicon(),
        segment_label=app.segment_label,
        semantic=app.semantic,
        rewriter=app.rewrite,
        selectors=app.resolver,
        code_patterns=AstPatternEngine(app.store, app.source, AstGrepMatcher()),
        call_sites=lambda question, limit: _graph_answer(app, question, limit),
    )


def _graph_answer(app: App, question: Any, limit: int) -> Any:
    """A search that asks who calls what, answered from the call graph (imported only then)."""
    from ..application.call_graph import answer_graph_question

    return answer_graph_question(app.store, selector_rules(), question, limit, app.source.read_admitted)
