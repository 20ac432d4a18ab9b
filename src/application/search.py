"""`ctx search`: normalize -> (lint) -> classify -> lexical retrieval -> rescoring -> focus -> budget.

Lexical retrieval runs an AND query over the meaningful words first and tops it up with an OR query, both
BM25-ranked with field weights in the store. Rescoring then rewards chunks whose symbol names carry the
question's words, and focus ranks test files lower unless the question is about tests.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from ..domain import query_classifier, query_linter
from ..domain.code import Chunk, ChunkKind, Hit
from ..domain.contract import ErrorCode, Response
from ..domain.lexicon import Lexicon
from ..domain.ranking import reciprocal_rank_fusion
from ..domain.rewrite_policy import Focus, focus_multiplier, infer_focus
from ..domain.structural_query import parse_structural
from ..domain.terms import fold, query_terms, split_identifier
from .engines import PatternEngine, StructuralEngine, literals
from .ports import IndexReader

MAX_QUERY_CHARS = 1000
PREVIEW_LINES = 6
PREVIEW_CHARS = 400
MODES = ("auto", "lexical", "pattern", "structural", "semantic", "hybrid")


@attrs.frozen(kw_only=True)
class SearchRequest:
    query: str
    limit: int = 10
    mode: str = "auto"
    lint: bool = False


@attrs.frozen(kw_only=True)
class Freshness:
    files: int
    symbols: int
    built_at: str
    refreshed: int

    def to_data(self) -> dict[str, Any]:
        return attrs.asdict(self)


def _preview(chunk: Chunk, line: int = 0) -> str:
    lines = chunk.body.splitlines()
    if line and chunk.start_line <= line <= chunk.end_line and chunk.kind is not ChunkKind.MODULE:
        lines = lines[line - chunk.start_line :]
    # start at the definition line rather than at decorators or blank lines
    while lines and not lines[0].strip():
        lines = lines[1:]
    text = "\n".join(lines[:PREVIEW_LINES])
    return text[:PREVIEW_CHARS]


def hit_to_data(hit: Hit, uri: str | None) -> dict[str, Any]:
    ch = hit.chunk
    data: dict[str, Any] = {
        "id": ch.id,
        "path": ch.path,
        "start_line": ch.start_line,
        "end_line": ch.end_line,
        "symbol": ch.symbol,
        "kind": ch.kind.value,
        "language": ch.language,
        "score": round(hit.score, 4),
        "match_type": hit.match_type,
        "preview": hit.preview or _preview(ch, hit.line),
    }
    if hit.line:
        data["line"] = hit.line
    if uri:
        data["uri"] = uri
    return data


class SearchSegment:
    def __init__(
        self,
        *,
        reader: IndexReader,
        refresh: Callable[[], int] | None = None,
        uri_for: Callable[[str, str, str], str | None] = lambda path, symbol, language: None,
        linter_config: query_linter.LinterConfig | None = None,
        lexicon: Lexicon | None = None,
        segment_label: str = ".",
    ) -> None:
        self._reader = reader
        self._refresh = refresh
        self._uri_for = uri_for
        self._linter_config = linter_config or query_linter.DEFAULT_LINTER_CONFIG
        self._segment = segment_label
        self._lexicon = lexicon
        self._pattern = PatternEngine(reader)
        self._structural = StructuralEngine(reader)

    def execute(self, request: SearchRequest) -> Response:
        started = time.perf_counter()
        query = " ".join(request.query.split())[:MAX_QUERY_CHARS]
        if not query:
            return Response.failure(
                "search",
                ErrorCode.EMPTY_QUERY,
                "the query is empty: say what to look for, e.g. --query 'where is the config loaded'",
            )
        if request.mode not in MODES:
            return Response.failure(
                "search",
                ErrorCode.INVALID_ARGUMENT,
                f"unknown mode {request.mode!r}; expected one of {', '.join(MODES)}",
            )
        if not 1 <= request.limit <= 200:
            return Response.failure("search", ErrorCode.INVALID_ARGUMENT, "limit must be between 1 and 200")
        refreshed = self._refresh() if self._refresh else 0

        plan: dict[str, Any] = {}
        classification = query_classifier.classify(query)
        plan["classification"] = classification.to_data()
        search_text = query
        if request.lint:
            lint_plan = query_linter.lint(query, self._linter_config)
            plan["lint"] = lint_plan.to_data()
            search_text = lint_plan.expanded_query
        else:
            plan["lint"] = {"query_class": "disabled"}
        focus = infer_focus(query)
        plan["focus"] = focus.value

        category = classification.category.value
        route = category if request.mode == "auto" else request.mode
        if route == "semantic" and request.mode == "semantic":
            return Response.failure(
                "search",
                ErrorCode.EMBEDDER_UNAVAILABLE,
                "no embedder is configured for this segment, so --mode semantic cannot run",
                next_actions=[f"ctx search --segment {self._segment} --mode auto --query '...'"],
            )
        structural_query = parse_structural(query)
        needles = literals(query, code_words=route == "pattern")
        weights = _route_weights(route, request.mode, structural_query.has_filter, bool(needles))
        plan["route"] = route
        plan["weights"] = weights
        if route == "semantic":
            plan["semantic"] = "no embedder configured: lexical search with query expansion instead"
        if "structural" in weights:
            plan["structural_query"] = attrs.asdict(structural_query)
        if "pattern" in weights:
            plan["literals"] = needles

        timings: dict[str, float] = {}
        results: dict[str, list[Hit]] = {}
        pool = max(request.limit * 3, 30)
        for engine in weights:
            t = time.perf_counter()
            if engine == "lexical":
                results[engine] = self._lexical(search_text, pool, focus)
            elif engine == "pattern":
                results[engine] = self._pattern.search(needles, pool)
            elif engine == "structural":
                results[engine] = self._structural.search(structural_query, pool)
            timings[engine] = round((time.perf_counter() - t) * 1000, 3)
        plan["engines"] = timings
        hits = _fuse(results, weights, focus, request.limit)

        stats = self._reader.stats()
        fresh = Freshness(
            files=stats.files, symbols=stats.symbols, built_at=stats.built_at, refreshed=refreshed
        )
        hit_rows: list[dict[str, Any]] = [
            hit_to_data(h, self._uri_for(h.chunk.path, h.chunk.symbol, h.chunk.language)) for h in hits
        ]
        data = {
            "query": query,
            "hits": hit_rows,
            "total": len(hits),
            "plan": plan,
            "index": fresh.to_data(),
            "took_ms": round((time.perf_counter() - started) * 1000, 3),
        }
        next_actions = []
        for hit in hit_rows[:3]:
            if hit.get("uri") and hit["symbol"]:
                next_actions.append(f"ast snippet {hit['uri']} --segment {self._segment}")
            else:
                next_actions.append(f"ctx get --segment {self._segment} --id {hit['id']}")
        if not hits:
            next_actions = [
                "rephrase with identifiers or words that appear in the code",
                "ctx search --mode pattern",
            ]
        return Response.success("search", data, next_actions=next_actions)

    # ------------------------------------------------------------------ lexical engine
    def _lexical(self, query: str, limit: int, focus: Focus) -> list[Hit]:
        terms = query_terms(query)
        if not terms:  # only stop words or punctuation: search what there is
            terms = query_terms(query, keep_stop_words=True)
        if not terms:
            return []
        groups = [self._alternatives(t) for t in terms[:32]]
        pool = max(limit * 5, 50)
        scored: dict[str, tuple[Chunk, float]] = {}
        if len(groups) > 1:
            for sc in self._reader.search_terms(groups, require_all=True, limit=pool):
                scored[sc.chunk.id] = (sc.chunk, sc.score * 1.5)
        if len(scored) < pool:
            for sc in self._reader.search_terms(groups, require_all=False, limit=pool):
                if sc.chunk.id not in scored:
                    scored[sc.chunk.id] = (sc.chunk, sc.score)
        words = {fold(w) for t in terms for w in [t, *split_identifier(t)]}
        hits = [
            Hit(chunk=ch, score=self._rescore(ch, score, words, focus), match_type="lexical")
            for ch, score in scored.values()
        ]
        hits.sort(key=lambda h: (-h.score, h.chunk.path, h.chunk.start_line))
        return hits[:limit]

    def _alternatives(self, term: str) -> list[str]:
        alts = [term.lower()]
        parts = split_identifier(term)
        if len(parts) > 1:  # a phrase of the parts: parse_http_header ~ "parse http header"
            alts.append(" ".join(parts).lower())
        elif self._lexicon is not None:  # translations (Spanish) and code synonyms, offline
            alts.extend(self._lexicon.expand(term)[:5])
        return alts

    @staticmethod
    def _rescore(chunk: Chunk, score: float, words: set[str], focus: Focus) -> float:
        name_words = {fold(p) for p in split_identifier(chunk.name)} | {fold(chunk.name)}
        overlap = len(words & name_words)
        if overlap:
            score *= 1.0 + 0.25 * overlap
        if chunk.kind in (ChunkKind.MODULE, ChunkKind.TEXT):
            score *= 0.85
        return score * focus_multiplier(chunk.path, focus)


def _route_weights(route: str, mode: str, structural: bool, literal: bool) -> dict[str, float]:
    """Which engines answer, and how much each counts in the fusion (query-classifier.md, Integration 2)."""
    if mode in ("lexical", "pattern", "structural"):
        return {mode: 1.0}
    if route == "pattern":
        weights = {"pattern": 0.7, "lexical": 0.3}
    elif route == "structural":
        weights = {"structural": 0.7, "lexical": 0.3}
    elif route == "hybrid":
        weights = {"lexical": 0.7}
        if literal:
            weights["pattern"] = 0.3
    else:  # semantic without an embedder: lexical with expansion
        weights = {"lexical": 1.0}
    if structural and "structural" not in weights:
        weights["structural"] = 0.6
    return weights


def _fuse(
    results: Mapping[str, list[Hit]], weights: Mapping[str, float], focus: Focus, limit: int
) -> list[Hit]:
    if len(results) == 1:
        return next(iter(results.values()))[:limit]
    rankings = {
        name: [h.chunk.path + "\0" + h.chunk.symbol + "\0" + str(h.chunk.start_line) for h in hits]
        for name, hits in results.items()
    }
    best: dict[str, Hit] = {}
    for name in sorted(results, key=lambda n: -weights.get(n, 0.0)):  # the heaviest engine's hit is shown
        for key, hit in zip(rankings[name], results[name], strict=True):
            best.setdefault(key, hit)
    fused = reciprocal_rank_fusion(rankings, weights)
    out = []
    for key, score in fused:
        hit = best[key]
        out.append(
            attrs.evolve(
                hit, score=score * 100 * focus_multiplier(hit.chunk.path, focus), match_type=hit.match_type
            )
        )
    out.sort(key=lambda h: -h.score)
    return out[:limit]
