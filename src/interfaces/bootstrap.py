"""The composition root: the one place that builds adapters and wires them into use cases."""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any

import attrs

from ..application.get_source import GetSource
from ..application.index_segment import IndexSegment
from ..application.search import SearchSegment
from ..application.zoom_ast import SnippetUseCase, SymbolResolver, SymbolsUseCase, uri_for_hit
from ..domain.budget import BudgetPolicy
from ..infrastructure.code_parser import SourceParser
from ..infrastructure.config import Settings, load_settings
from ..infrastructure.file_source import LocalFileSource
from ..infrastructure.lexicon_data import load_lexicon
from ..infrastructure.sqlite_store import SqliteIndex


def utc_now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


@attrs.define(kw_only=True)
class App:
    settings: Settings
    store: SqliteIndex
    source: LocalFileSource
    parser: SourceParser
    policy: BudgetPolicy
    index: IndexSegment
    get: GetSource
    symbols: SymbolsUseCase
    snippet: SnippetUseCase
    segment_label: str

    def close(self) -> None:
        self.store.close()


def bootstrap(
    segment: str, options: Mapping[str, Any] | None = None, env: Mapping[str, str] | None = None
) -> App:
    settings = load_settings(segment, options, env)
    source = LocalFileSource(
        settings.segment,
        max_file_bytes=settings.max_file_bytes,
        exclude=settings.exclude,
        secret_patterns=settings.secret_patterns,
    )
    parser = SourceParser(workers=settings.workers)
    store = SqliteIndex(settings.db_path)
    policy = BudgetPolicy(
        max_bytes_total=settings.max_bytes_total,
        max_snippet_bytes=settings.max_snippet_bytes,
        max_snippets=settings.max_snippets,
        max_lines_per_snippet=settings.max_lines_per_snippet,
    )
    label = str(segment)
    resolver = SymbolResolver(reader=store, source=source, parser=parser, admit=source.admits)
    return App(
        symbols=SymbolsUseCase(resolver, policy),
        snippet=SnippetUseCase(resolver, policy),
        settings=settings,
        store=store,
        source=source,
        parser=parser,
        policy=policy,
        index=IndexSegment(source=source, parser=parser, writer=store, clock=utc_now),
        get=GetSource(reader=store, source=source, policy=policy, segment_label=label),
        segment_label=label,
    )


def search_use_case(app: App, refresh: Any) -> SearchSegment:
    return SearchSegment(
        reader=app.store,
        refresh=refresh,
        uri_for=uri_for_hit,
        lexicon=load_lexicon(),
        segment_label=app.segment_label,
    )
