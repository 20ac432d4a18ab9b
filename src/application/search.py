"""`ctx search`: normalize -> (lint) -> classify -> lexical retrieval -> rescoring -> focus -> budget.

Lexical retrieval runs an AND query over the meaningful words first and tops it up with an OR query, both
BM25-ranked with field weights in the store. Rescoring then rewards chunks whose symbol names carry the
question's words, and focus ranks test files lower unless the question is about tests.
"""

from __future__ import annotations

import functools
import re
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from ..domain import actions, query_classifier, query_linter
from ..domain.calls import GraphQuestion, graph_question
from ..domain.code import Chunk, ChunkKind, Hit, Symbol
from ..domain.contract import ErrorCode, Response
from ..domain.lexicon import Lexicon
from ..domain.ranking import (
    SECONDARY_MULTIPLIER,
    asks_for_secondary_files,
    is_secondary_file,
    name_stem,
    reciprocal_rank_fusion,
)
from ..domain.rewrite_policy import Focus, focus_multiplier, infer_focus, is_test_file
from ..domain.structural_query import StructuralQuery, parse_structural
from ..domain.subqueries import split_subqueries
from ..domain.terms import fold, named_identifiers, query_terms, split_identifier
from ..domain.terms import words as words_of
from .embedding import EmbedderUnavailable, SemanticEngine
from .engines import (
    AstPatternEngine,
    InvalidRegex,
    PatternEngine,
    RegexEngine,
    StructuralEngine,
    compile_smart_case,
    literals,
    looks_like_code_pattern,
    looks_like_regex,
    verbatim_phrase,
)
from .ports import IndexReader, InvalidCodePattern
from .rewrite import RewriteFlow, skipped
from .zoom_ast import Resolved, SymbolResolver

MAX_QUERY_CHARS = 1000
_CONTROL_AS_SPACE = dict.fromkeys([*range(32), 127], " ")
PLACE_BOOST = 1.3  # a lexical hit in a file or folder the question names
# a lexical hit gains this share of the best other hit in its file (symbol MRR@10, all sets in one run, 0 -> 0.3:
# stdlib 0.801 -> 0.801, stdlib held-out 0.589 -> 0.598, click 0.646 -> 0.688, flask 0.778 -> 0.792, sqlalchemy
# 0.466 -> 0.490, polyglot 0.815 -> 0.828 (r@5 0.84 -> 0.94), polyglot held-out 0.577 -> 0.589)
FILE_EVIDENCE = 0.3
# and this share of the best hit it calls or that calls it (its call graph, by name; see _with_call_evidence); all sets,
# one run, 0 -> 0.5: stdlib 0.801 -> 0.796, held-out 0.598 -> 0.669, click 0.688 -> 0.646, flask 0.792 -> 0.847,
# sqlalchemy 0.490 -> 0.562, polyglot 0.828 -> 0.862, polyglot held-out 0.589 -> 0.648 (0.4 and 0.55 alike, 0.75 worse)
CALL_EVIDENCE = 0.5
# what a synonym of an English question's word counts beside the word itself, in a question of three words or
# more (weighted query expansion: alternatives at full weight lifted whatever named a synonym, `create` for
# "produce"; held-out Python descriptions 0.316 -> 0.333, the description check 0.410 -> 0.419)
ALTERNATIVE_WEIGHT = 0.7
# a Spanish word's other translations and their synonyms, beside its first translation at 1.0: closer to what
# it says than an English synonym is to its word. All sets, one run, 1.0 (all alike) -> 0.85: sqlalchemy recall@5
# 0.81 -> 0.88, Spanish questions of the three public sets MRR 0.569 -> 0.570 and recall@5 0.71 -> 0.75, held-out
# Python's Spanish recall@5 0.44 -> 0.56, held-out stdlib 0.731 -> 0.713 (s07: 1 -> 2), others unchanged; at 0.7
# polyglot 0.860 -> 0.845 and the Spanish MRR 0.549; at 0.95 as 0.85 less the held-out loss (a coin flip)
SPANISH_ALTERNATIVE_WEIGHT = 0.85
# a member gains this share of its owner's score when the owner is a hit (_with_owner_evidence); all sets, one run,
# 0 -> 0.3: stdlib 0.808 = , held-out 0.669 -> 0.681, click 0.646 -> 0.694, flask 0.847 -> 0.833, sqlalchemy
# 0.562 -> 0.620, polyglot 0.862 -> 0.874, polyglot held-out 0.681 -> 0.743 (0.15, 0.2, 0.4, 0.6 and the owner's
# gain capped at the member's own score all lower in sum; tests' members gaining too: held-out 0.655)
OWNER_EVIDENCE = 0.3
CALL_NAME_MAX_DEFINITIONS = 3
DEPRECATED_MULTIPLIER = 0.5  # a deprecated definition, module or package, unless the question asks for one
# a type (class, struct, interface, type alias) found for a docstring's sentence that opens with what its
# definition does ("Returns...", "reports whether..."): description checks, Python 0.422 -> 0.425, Go/Rust/TS/JS
# 0.416 -> 0.440 (0.7: 0.419 / 0.435, 0.3: 0.426 / 0.440)
ACTION_TYPE_MULTIPLIER = 0.5
# a predicate's name (`is_empty`, `IsNil`) for a sentence describing one ("Returns true if...", "reports
# whether..."): description checks, Python 0.433 -> 0.439, other languages 0.446 -> 0.453 (2.0: 0.442 / 0.453)
PREDICATE_NAME_BOOST = 1.5
# and a function or method found for one that says what its definition is ("A wrapper that...", Go's "is a
# comma-separated list..."): six in ten describe a type. Python 0.425 -> 0.433, others 0.440 -> 0.446 (0.5:
# 0.433 / 0.448 with r@5 0.62 -> 0.60; 0.85: 0.426 / 0.442)
THING_CALLABLE_MULTIPLIER = 0.7
NAMED_SYMBOL_BOOST = 3.0  # a definition the question names in full, as code (`ObservableMap.set`)
NAMED_NAME_BOOST = 1.6  # one whose own name the question writes as code (`AxiosHeaders`, `parse_args`)
VERBATIM_MAX_PLACES = 25  # a pasted message found in more places than this is common prose, not a pointer
NAMED_DEFINITIONS_MAX = 3  # a name with more definitions than this does not say which one is meant
SEGMENT_STRONG_ANCHORS = 5000  # file and folder names taken as linter anchors
SEGMENT_WEAK_ANCHORS = 500  # symbol names
PREVIEW_LINES = 6
PREVIEW_CHARS = 400
MODES = ("auto", "lexical", "pattern", "structural", "semantic", "hybrid")
NO_EMBEDDER = (
    "no embedder configured ([embedding] provider in .trifecta/config.toml or TRIFECTA_EMBED_PROVIDER)"
)
FALLBACK = "lexical search with query expansion instead"


@attrs.frozen(kw_only=True)
class SearchRequest:
    query: str
    limit: int = 10
    mode: str = "auto"
    lint: bool = False
    rewrite: bool | None = None  # None: the should_rewrite gate decides; True: force; False: never
    regex: bool = False  # the query is a regular expression (also: a query written as /regex/)
    code_pattern: bool = False  # the query is an ast-grep pattern (also: code with $X / $$$ metavariables)
    lang: str | None = None  # only this language's hits; a code pattern is parsed in it alone


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
        semantic: SemanticEngine | None = None,
        rewriter: RewriteFlow | None = None,
        selectors: SymbolResolver | None = None,
        code_patterns: AstPatternEngine | None = None,
        call_sites: Callable[[GraphQuestion, int], list[tuple[str, str, int, str]]] | None = None,
    ) -> None:
        self._selectors = selectors
        self._call_sites = call_sites
        self._linter_cache: tuple[str, query_linter.LinterConfig] | None = None
        self._places_cache: tuple[str, frozenset[str]] | None = None
        self._deprecated_cache: tuple[str, frozenset[str]] | None = None
        self._code_patterns = code_patterns
        self._semantic = semantic
        self._rewriter = rewriter
        self._reader = reader
        self._refresh = refresh
        self._uri_for = uri_for
        self._linter_config = linter_config or query_linter.DEFAULT_LINTER_CONFIG
        self._segment = segment_label
        self._lexicon = lexicon
        source = code_patterns.source if code_patterns else None  # exact lines of module-chunk matches
        self._pattern = PatternEngine(reader, source)
        self._regex = RegexEngine(reader, source)
        self._structural = StructuralEngine(reader)

    def execute(self, request: SearchRequest) -> Response:
        started = time.perf_counter()
        # control characters are no text (a NUL ends an SQLite FTS5 or PostgreSQL string): spaces, like the rest
        query = " ".join(request.query.translate(_CONTROL_AS_SPACE).split())[:MAX_QUERY_CHARS]
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
        if query.startswith("sym://") and self._selectors is not None and not request.regex:
            return self._selector(query, started)
        lang = request.lang
        if lang is not None and self._code_patterns is not None:
            try:
                lang = self._code_patterns.language(lang)
            except InvalidCodePattern as exc:
                return Response.failure("search", ErrorCode.INVALID_ARGUMENT, str(exc))
        regex = None
        regex_text = _regex_text(request)
        if regex_text is not None:
            try:
                regex = compile_smart_case(regex_text)
            except InvalidRegex as exc:
                return Response.failure("search", ErrorCode.INVALID_ARGUMENT, str(exc))
        refreshed = self._refresh() if self._refresh else 0  # a pattern is checked in the indexed languages
        code_pattern = None
        if (
            regex is None
            and self._code_patterns is not None
            and (
                request.code_pattern
                or (request.mode in ("auto", "structural") and looks_like_code_pattern(query))
            )
        ):
            code_pattern = request.query.strip()
            try:
                self._code_patterns.validate(code_pattern, lang)
            except InvalidCodePattern as exc:
                return Response.failure("search", ErrorCode.INVALID_ARGUMENT, str(exc))

        plan: dict[str, Any] = {}
        classification = query_classifier.classify(query)
        plan["classification"] = classification.to_data()
        search_text = query
        if request.lint:
            lint_plan = query_linter.lint(query, self._segment_linter_config())
            plan["lint"] = lint_plan.to_data()
            search_text = lint_plan.expanded_query
        else:
            plan["lint"] = {"query_class": "disabled"}
        asked_of_graph = graph_question(query) if self._call_sites is not None else None
        if asked_of_graph is not None:
            # "who calls X": the call sites come from the graph; the other engines look for X, not for "calls"
            search_text = asked_of_graph.target
        focus = infer_focus(query)
        plan["focus"] = focus.value
        if lang:
            plan["lang"] = lang

        category = classification.category.value
        route = category if request.mode == "auto" else request.mode
        if regex is not None:
            route = "pattern"
            request = attrs.evolve(request, mode="pattern")  # searched as written: no rewrite, no fusion
        if code_pattern is not None:
            route = "structural"
            request = attrs.evolve(request, mode="structural")
        if route == "semantic" and request.mode == "semantic" and self._semantic is None:
            return self._no_embedder(
                "no embedder is configured for this segment, so --mode semantic cannot run"
            )
        structural_query = parse_structural(query)
        if (
            request.mode == "auto"
            and route in ("structural", "pattern")
            and regex is None
            and code_pattern is None
            and not structural_query.has_filter
            and describes_a_definition(query)
        ):
            # a docstring's sentence ("Replace rule by name with new function & options.") says what one
            # definition does: its words, not a set of functions or a text to find verbatim
            route = "hybrid"
        pool = max(request.limit * 3, 30)
        needles = literals(without_doc_roles(query), code_words=route == "pattern")
        if route != "pattern" and describes_a_definition(query):
            # the names a docstring quotes (`GroupingMap`, `.next()`) are what its definition works with, not
            # text to find; a quoted value (".." segments, 'http://example.com') is
            needles = [n for n in needles if not _NAME_LIKE.fullmatch(n.strip())]
        verbatim = (
            self._verbatim(query, pool, plan)
            if not needles and request.mode == "auto" and route in ("semantic", "hybrid")
            else []
        )
        if verbatim:
            needles, route = [plan["verbatim"]], "pattern"
        if request.mode == "pattern" and not needles:  # asked for verbatim text: the query as written
            needles = [query]
        as_set = _asks_for_a_set(route, structural_query)
        weights = _route_weights(route, request.mode, as_set, bool(needles))
        if code_pattern is not None:
            weights = {"code_pattern": 1.0}
        if self._semantic is not None and route in ("semantic", "hybrid"):
            weights = _with_semantic(route, weights)
        plan["route"] = route
        plan["weights"] = weights
        if route == "semantic" and self._semantic is None:
            plan["semantic"] = {"status": "not_configured", "message": NO_EMBEDDER, "fallback": FALLBACK}
        if "structural" in weights:
            plan["structural_query"] = attrs.asdict(structural_query)
        if "pattern" in weights:
            plan["literals"] = needles

        timings: dict[str, float] = {}
        results: dict[str, list[Hit]] = {"pattern": verbatim} if verbatim else {}
        for engine in list(weights):
            if engine in results:
                continue
            t = time.perf_counter()
            if engine == "semantic":
                found = self._semantic_hits(query, pool, plan)
                if found is None and request.mode == "semantic":
                    return self._no_embedder(plan["semantic"]["message"])
                if found is None:  # unreachable: the other engines answer alone, as the plan says
                    weights = {k: v for k, v in weights.items() if k != "semantic"} or {"lexical": 1.0}
                    plan["weights"] = weights
                    continue
                results[engine] = found
            elif engine == "code_pattern" and code_pattern is not None and self._code_patterns is not None:
                results[engine] = self._code_patterns.search(code_pattern, pool, plan, lang)
            elif engine == "pattern" and regex is not None:
                results[engine] = self._regex.search(regex, pool, plan, lang)
            else:
                results[engine] = self._basic(engine, search_text, needles, structural_query, pool, focus)
            timings[engine] = round((time.perf_counter() - t) * 1000, 3)
        if request.mode == "auto" and regex is None and code_pattern is None:  # compound: parts routed too
            self._subqueries(query, results, weights, timings, plan, pool, focus)
        focus = self._rewrite(request, query, results, weights, timings, plan, pool, focus)
        plan["engines"] = timings
        hits = _fuse(results, weights, focus, pool)
        if as_set and results.get("structural"):
            members = results["structural"]
            # an outline keeps file order; a bare relation ("subclasses of Field") the structural engine's
            # order (what the repository uses most first): the other engines only know the base's name there
            if structural_query.described and not (structural_query.listing or structural_query.members_of):
                others = {k: v for k, v in results.items() if k != "structural"}
                members = _by_relevance(members, _fuse(others, weights, focus, pool) if others else [])
            hits = _set_first(hits, members)
        elif (
            regex is None
            and code_pattern is None
            and not _USE_STATEMENT.match(query)
            and not describes_a_definition(query)
        ):
            hits = _set_first(hits, self._named_definitions(query, focus, plan))
        if request.mode in ("auto", "structural") and regex is None and code_pattern is None:
            callers = self._callers(query, pool, plan)  # at their call's line, whatever else found them
            called = {_key(c) for c in callers}
            hits = callers + [h for h in hits if _key(h) not in called]
        if route in ("semantic", "hybrid") and not as_set and asks_a_question(query):
            # a question about behaviour ("how does X decide Y"), not a description of one definition ("A
            # type checker was asked to check a type it did not have registered": the exception class)
            hits = _members_before_their_type(hits, named_identifiers(query))
        hits = _unique(
            self._named_files(query, plan) + _types_before_their_impls(_definitions_before_their_module(hits))
        )
        hits = [h for h in hits if lang in (None, h.chunk.language)][: request.limit]
        hits = _at_matching_lines(hits, query)
        if len(hits) < request.limit and regex is None and code_pattern is None:
            unmatched = self._unmatched_words(search_text)
            if unmatched:  # "frobnicate" is nowhere in this segment: say so, rank what the rest finds
                plan["unmatched"] = unmatched

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
        next_actions = actions.after_search(hit_rows, query, route=str(plan.get("route", "")))
        return Response.success("search", data, next_actions=next_actions)

    def _callers(self, query: str, limit: int, plan: dict[str, Any]) -> list[Hit]:
        """ "who calls X", "functions that call subprocess.run", "tests that cover X": the call sites the
        index recorded, one hit per calling definition at the line of its first call, sure resolutions
        (`exact`, `import`) before calls matched by name only (`plan.graph` says how many of each)."""
        question = graph_question(query) if self._call_sites is not None else None
        if question is None or self._call_sites is None:
            return []
        sites = self._call_sites(question, limit)
        resolutions: dict[str, int] = {}
        hits: dict[str, Hit] = {}
        for path, _caller, line, resolution in sites:
            resolutions[resolution] = resolutions.get(resolution, 0) + 1
            chunk = self._reader.containing_chunk(path, line)
            if chunk is not None and chunk.id not in hits:
                score = 1.0 if resolution in ("exact", "import") else 0.5
                hits[chunk.id] = Hit(chunk=chunk, score=score, match_type="call", line=line)
        plan["graph"] = {
            "target": question.target,
            "tests_only": question.tests_only,
            "call_sites": len(sites),
            "resolutions": resolutions,
        }
        return sorted(hits.values(), key=lambda h: -h.score)  # stable: the graph's own order within a kind

    # ------------------------------------------------------------------ linter anchors
    def _segment_linter_config(self) -> query_linter.LinterConfig:
        """The configured anchors plus the segment's own: file names and folders (strong: they name a
        place), the most frequent top-level symbol names (weak). Rebuilt when the index changes."""
        built_at = self._reader.stats().built_at
        cached = self._linter_cache
        if cached is not None and cached[0] == built_at:
            return cached[1]
        strong: set[str] = set()
        for stored in self._reader.files():
            parts = stored.path.split("/")
            strong.add(parts[-1].lower())
            strong.update(p.lower() + "/" for p in parts[:-1])
        stems = {name.rsplit(".", 1)[0] for name in strong if not name.endswith("/")}
        weak = [
            name
            for name in [*self._reader.vocabulary(SEGMENT_WEAK_ANCHORS), *sorted(stems)]
            if len(name) >= 4 and not name.startswith("__")
        ]
        config = self._linter_config.with_anchors(strong=sorted(strong)[:SEGMENT_STRONG_ANCHORS], weak=weak)
        self._linter_cache = (built_at, config)
        return config

    # ------------------------------------------------------------------ sym:// selectors
    def _selector(self, uri: str, started: float) -> Response:
        """A query that is a selector goes straight to the AST engine: one exact hit, or its error
        (SYMBOL_NOT_FOUND, AMBIGUOUS_SYMBOL with the candidates that do resolve), never a guess."""
        assert self._selectors is not None
        if self._refresh:
            self._refresh()
        found = self._selectors.resolve(uri)
        plan = {"route": "ast", "weights": {"ast": 1.0}}
        if not isinstance(found, Resolved):
            return Response(
                kind="search",
                data={"query": uri, "hits": [], "total": 0, "plan": plan},
                errors=(found.error,),
                next_actions=(*(actions.search(c) for c in found.candidates), *found.next_actions),
            )
        definition = found.definitions[0] if found.definitions else None
        text = found.text()
        hit = {
            "id": "",
            "path": found.path,
            "start_line": found.start_line,
            "end_line": found.end_line,
            "symbol": definition.qualname if definition else "",
            "kind": definition.kind.value if definition else "module",
            "language": found.selector.language,
            "score": 1.0,
            "match_type": "selector",
            "preview": "\n".join(text.splitlines()[:PREVIEW_LINES])[:PREVIEW_CHARS],
            "uri": found.uri,
        }
        data = {
            "query": uri,
            "hits": [hit],
            "total": 1,
            "plan": plan,
            "took_ms": round((time.perf_counter() - started) * 1000, 3),
        }
        return Response.success("search", data, next_actions=[actions.snippet(found.uri)])

    def _basic(
        self,
        engine: str,
        text: str,
        needles: list[str],
        structural_query: StructuralQuery,
        pool: int,
        focus: Focus,
    ) -> list[Hit]:
        """The engines every question can use: lexical, literal pattern, structural (symbol table)."""
        if engine == "pattern":
            return self._pattern.search(needles, pool)
        if engine == "structural":
            return self._structural.search(structural_query, pool)
        return self._lexical(text, pool, focus)

    def _verbatim(self, query: str, pool: int, plan: dict[str, Any]) -> list[Hit]:
        """The places that hold the question verbatim (a pasted error message or log line), when it is
        written in so few places that it points at them: then it is a pattern question, whatever its words."""
        phrase = verbatim_phrase(query)
        if phrase is None:
            return []
        # the full-text index finds the words in sequence quickly (a trigram scan of a long phrase costs
        # 5-15 ms on a big segment); the text then says whether it is there verbatim
        near = self._reader.search_terms([[phrase]], require_all=True, limit=VERBATIM_MAX_PLACES + 1)
        if len(near) > VERBATIM_MAX_PLACES:
            return []
        found = [
            attrs.evolve(h, match_type="verbatim")
            for h in self._pattern.search_in((sc.chunk for sc in near), phrase)
        ]
        if found:
            plan["verbatim"] = phrase
        return sorted(found, key=lambda h: (-h.score, h.chunk.path, h.chunk.start_line))[:pool]

    def _named_files(self, query: str, plan: dict[str, Any]) -> list[Hit]:
        """A query that is a file's path (`pkg/mod.py`, or its tail `mod.py`) is answered by that file first:
        its first chunk, as match_type "path"."""
        if not _PATH_LIKE.fullmatch(query):
            return []
        tail = "/" + query.lstrip("./")
        named = [
            f.path for f in self._reader.files() if f.path == query.lstrip("./") or f.path.endswith(tail)
        ]
        out = []
        for path in named[:5]:
            first = next(iter(self._reader.iter_chunks([path])), None)
            if first is not None:
                out.append(Hit(chunk=first, score=100.0, match_type="path"))
        if out:
            plan["files_named"] = [h.chunk.path for h in out]
        return out

    def _named_definitions(self, query: str, focus: Focus, plan: dict[str, Any]) -> list[Hit]:
        """The definitions a question names as code (`ObservableMap.set`, `json.dumps`, `parse_args`), resolved
        against the symbol table, to be listed first: exact qualified name, then a qualified suffix whose
        dropped parts name the file or folder (`json.dumps` -> `dumps` in json/), then the bare name. A name
        with more than NAMED_DEFINITIONS_MAX definitions names none of them. Test, `.d.ts`, generated and
        vendored files only when the question asks for them or nothing else defines the name."""
        found: list[tuple[str, Symbol]] = []
        query = without_doc_roles(query)
        for ident in sorted(named_identifiers(query), key=query.find):
            for path, symbol in self._definitions_named(ident):
                if (path, symbol) not in found:
                    found.append((path, symbol))
        wants_secondary = asks_for_secondary_files(query)
        preferred = [
            (p, s)
            for p, s in found
            if focus_multiplier(p, focus) == 1.0 and is_secondary_file(p) == wants_secondary
        ]
        out = []
        for path, symbol in preferred or found:
            chunk = self._reader.containing_chunk(path, symbol.start_line)
            if chunk is None or chunk.symbol != symbol.qualname:
                chunk = next(
                    (c for c in self._reader.iter_chunks([path]) if c.symbol == symbol.qualname), None
                )
            if chunk is not None:
                out.append(Hit(chunk=chunk, score=100.0, match_type="symbol"))
        if out:
            plan["symbols_named"] = [f"{h.chunk.path}:{h.chunk.symbol}" for h in out]
        return out

    def _definitions_named(self, ident: str) -> list[tuple[str, Symbol]]:
        parts = ident.split(".")
        for i in range(len(parts)):
            qualname, dropped = ".".join(parts[i:]), {fold(w) for w in parts[:i]}
            if i == len(parts) - 1:  # the bare name
                rows = self._reader.find_symbols(name=qualname)
            else:
                rows = self._reader.find_symbols(qualname=qualname)
            if dropped:  # `json.dumps`: the dropped parts name where it lives
                rows = [(p, s) for p, s in rows if dropped <= _path_words(p)]
            # an overload set (`@overload`, TypeScript signatures) is one definition: its implementation, last
            rows = list({(p, s.qualname): (p, s) for p, s in rows}.values())
            if rows:
                return rows if len(rows) <= NAMED_DEFINITIONS_MAX else []
        return []

    # ------------------------------------------------------------------ compound questions
    def _subqueries(
        self,
        query: str,
        results: dict[str, list[Hit]],
        weights: dict[str, float],
        timings: dict[str, float],
        plan: dict[str, Any],
        pool: int,
        focus: Focus,
    ) -> None:
        """Each part of a compound question, classified and routed on its own, is one more ranking in the
        fusion (half the weight of the whole question's engines): places that answer several parts rise."""
        parts = split_subqueries(query)
        if not parts:
            return
        plan["subqueries"] = []
        for number, part in enumerate(parts, 1):
            t = time.perf_counter()
            route = query_classifier.classify(part).category.value
            structural_query = parse_structural(part)
            needles = literals(part, code_words=route == "pattern")
            part_weights = _route_weights(
                route, "auto", _asks_for_a_set(route, structural_query), bool(needles)
            )
            part_results = {
                engine: self._basic(engine, part, needles, structural_query, pool, focus)
                for engine in part_weights
            }
            name = f"part{number}"
            results[name] = _fuse(part_results, part_weights, focus, pool)
            weights[name] = 0.5 * max(weights.values(), default=1.0)
            timings[name] = round((time.perf_counter() - t) * 1000, 3)
            plan["subqueries"].append({"query": part, "route": route, "weights": part_weights})
        plan["weights"] = weights

    # ------------------------------------------------------------------ semantic engine
    def _semantic_hits(self, query: str, limit: int, plan: dict[str, Any]) -> list[Hit] | None:
        """The semantic engine's hits, or None when the embedder cannot answer (the plan says why)."""
        assert self._semantic is not None
        try:
            hits = self._semantic.search(query, limit)
            plan["semantic"] = {"status": "used", **self._semantic.describe()}
            return hits
        except EmbedderUnavailable as exc:
            plan["semantic"] = {"status": "unavailable", "message": str(exc), "fallback": FALLBACK}
            return None

    def _no_embedder(self, message: str) -> Response:
        return Response.failure(
            "search",
            ErrorCode.EMBEDDER_UNAVAILABLE,
            message,
            error_data={"hints": actions.EMBEDDER_HINTS},
            next_actions=[actions.index()],
        )

    # ------------------------------------------------------------------ LLM query rewriting
    def _rewrite(
        self,
        request: SearchRequest,
        query: str,
        results: dict[str, list[Hit]],
        weights: dict[str, float],
        timings: dict[str, float],
        plan: dict[str, Any],
        pool: int,
        focus: Focus,
    ) -> Focus:
        """Add the rewritten terms as one more lexical ranking, fused with the original (never replacing it);
        a definite focus from the model replaces the inferred one. Returns the focus to fuse with."""
        if self._rewriter is None:
            plan["rewrite"] = skipped("no query rewriter is configured").to_data()
            return focus
        ranked = [
            hit for name in sorted(results, key=lambda n: -weights.get(n, 0.0)) for hit in results[name]
        ]
        outcome = self._rewriter.run(query, requested=request.rewrite, mode=request.mode, hits=ranked)
        plan["rewrite"] = outcome.to_data()
        if outcome.rewrite is None:
            return focus
        if outcome.rewrite.focus is not Focus.ALL:
            focus = outcome.rewrite.focus
            plan["focus"] = focus.value
        t = time.perf_counter()
        results["rewrite"] = self._lexical(" ".join(outcome.rewrite.terms), pool, focus)
        timings["rewrite"] = round((time.perf_counter() - t) * 1000, 3)
        weights["rewrite"] = max(weights.values(), default=1.0)  # counts as much as the main engine
        return focus

    # ------------------------------------------------------------------ lexical engine
    def _lexical(self, query: str, limit: int, focus: Focus) -> list[Hit]:
        query = without_doc_roles(query)
        terms = query_terms(query)
        # a Spanish phrase's English words are one term: "tiempo de espera" -> timeout | deadline | timer
        phrases: list[list[str]] = []
        spanish = self._lexicon is not None and self._lexicon.is_spanish(query)
        if self._lexicon is not None and spanish:
            # Spanish function words match no English code: left in, they fail the all-words search
            expanded = self._lexicon.expand_query(query)
            content = {fold(w) for w in self._lexicon.content_words(query)}
            in_phrase = {fold(w) for word, alts in expanded if " " in word and alts for w in word.split()}
            phrases = [list(alts[:5]) for word, alts in expanded if " " in word and alts]
            terms = [t for t in terms if fold(t) in content and fold(t) not in in_phrase] or (
                [] if phrases else terms
            )
        said: set[str] = set()  # what an English phrase says in code's words: "command line" -> cli
        if self._lexicon is not None and not spanish:
            for phrase, alts in self._lexicon.english_phrases(query):
                words_of = phrase.split()
                terms = [t for t in terms if fold(t) not in words_of]
                phrases.append([phrase, *alts[:4]])
                said.update(alts)
        if not terms and not phrases:  # only stop words or punctuation: search what there is
            terms = query_terms(query, keep_stop_words=True)
        if not terms and not phrases:
            return []
        translations = self._lexicon.translations if self._lexicon is not None and spanish else {}
        groups, weights = _weighted_groups(
            terms[:32], [self._alternatives(t) for t in terms[:32]], translations
        )
        groups += phrases
        pool = max(limit * 5, 50)
        scored: dict[str, tuple[Chunk, float]] = {}
        if len(groups) > 1:
            for sc in self._reader.search_terms(groups, require_all=True, limit=pool):
                scored[sc.chunk.id] = (sc.chunk, sc.score * 1.5)
        if len(scored) < pool:
            found = self._reader.search_terms(
                groups, require_all=False, limit=pool, alternative_weights=weights
            )
            for sc in found:
                if sc.chunk.id not in scored:
                    scored[sc.chunk.id] = (sc.chunk, sc.score)
        words = {fold(w) for t in terms for w in [t, *split_identifier(t)]} | said
        # a word naming a file or folder says where the answer lives ("how does textwrap wrap lines")
        places = words & self._place_words()
        if self._lexicon is not None and spanish:
            # a Spanish word names code by its translation: "¿cómo se comprime...?" is about `compress`
            words |= {w for t in terms for w in self._lexicon.translations.get(fold(t), ())}
            words |= {w for alts in phrases for w in alts}
        named = frozenset() if describes_a_definition(query) else named_identifiers(query)
        secondary = not asks_for_secondary_files(query)  # .d.ts, generated, vendored: last unless asked for
        words |= stop_words_naming_code(query)
        # "suggested" names `SuggestionsFor` as "suggest" would
        stems = frozenset(name_stem(w) for w in words)
        hits = [
            Hit(
                chunk=ch,
                score=self._rescore(ch, score, stems, focus, places, named)
                * (SECONDARY_MULTIPLIER if secondary and is_secondary_file(ch.path) else 1.0),
                match_type="lexical",
            )
            for ch, score in scored.values()
        ]
        if not _ASKS_DEPRECATED.search(query):  # legacy code: what an agent should not copy or extend
            deprecated = self._deprecated_places()
            hits = [
                attrs.evolve(h, score=h.score * DEPRECATED_MULTIPLIER)
                if _is_deprecated(h.chunk, deprecated)
                else h
                for h in hits
            ]
        if describes_a_predicate(query):  # "Returns True if the map is empty.": `is_empty`
            hits = [
                attrs.evolve(h, score=h.score * PREDICATE_NAME_BOOST)
                if _PREDICATE_NAME.match(h.chunk.name)
                else h
                for h in hits
            ]
        lowered, multiplier = described_kinds(query)  # "Returns the URL...": a function, seldom a type
        if lowered:
            hits = [
                attrs.evolve(h, score=h.score * multiplier) if h.chunk.kind in lowered else h for h in hits
            ]
        hits = _with_file_evidence(_with_owner_evidence(hits, focus))
        if not describes_a_definition(query):
            hits = self._with_call_evidence(hits)
        elif _RAISED.match(query):
            # an exception's docstring ("Raised when a stream was closed."): exception classes first, in their order
            hits = hits + self._exception_owners(hits)
            top = max((h.score for h in hits), default=0.0)
            hits = [
                attrs.evolve(h, score=h.score + top) if _looks_like_exception(h.chunk) and h.score > 0 else h
                for h in hits
            ]
        hits.sort(key=lambda h: (-h.score, h.chunk.path, h.chunk.start_line))
        return hits[:limit]

    def _exception_owners(self, hits: list[Hit]) -> list[Hit]:
        """The exception classes whose members were found but not themselves (`DeadlineExceeded.__init__`
        holds the words of "Raised when an input takes too long to run", its class header none), each at its
        best member's score: what "Raised when..." describes is the class."""
        found = {(h.chunk.path, h.chunk.symbol) for h in hits}
        best: dict[tuple[str, str], float] = {}
        for h in hits:
            owner = h.chunk.symbol.rpartition(".")[0]
            if h.chunk.kind is ChunkKind.METHOD and owner and (h.chunk.path, owner) not in found:
                best[h.chunk.path, owner] = max(best.get((h.chunk.path, owner), 0.0), h.score)
        owners: list[Hit] = []
        for path in sorted({p for p, _ in best}):
            for chunk in self._reader.iter_chunks([path]):
                score = best.get((path, chunk.symbol))
                if score is not None and _looks_like_exception(chunk):
                    owners.append(Hit(chunk=chunk, score=score, match_type="lexical"))
        return owners

    def _with_call_evidence(self, hits: list[Hit]) -> list[Hit]:
        """Each hit's score plus CALL_EVIDENCE times the best score of a hit it calls or that calls it (a call
        to the other's name, recorded at index time): code that answers a question tends to call, or be called
        by, more code that answers it, where a lone match of the same words is a coincidence. A name more than
        CALL_NAME_MAX_DEFINITIONS hits define (`get`, `close`) links nothing."""
        defined: dict[str, list[int]] = {}
        at: dict[tuple[str, str], int] = {}
        for i, hit in enumerate(hits):
            if hit.chunk.name:
                defined.setdefault(hit.chunk.name, []).append(i)
            if hit.chunk.symbol:
                at[hit.chunk.path, hit.chunk.symbol] = i
        names = sorted(n for n, where in defined.items() if len(where) <= CALL_NAME_MAX_DEFINITIONS)
        if not names or not at:
            return hits
        best = [0.0] * len(hits)
        paths, callers = sorted({h.chunk.path for h in hits}), sorted({c for _, c in at})  # others link none
        for path, caller, name in self._reader.call_names(paths, names, callers):
            a = at.get((path, caller))
            if a is None:
                continue
            for b in defined[name]:
                if b != a:
                    best[a] = max(best[a], hits[b].score)
                    best[b] = max(best[b], hits[a].score)
        return [
            hit.rescored(hit.score + CALL_EVIDENCE * link) if link else hit
            for hit, link in zip(hits, best, strict=True)
        ]

    def _unmatched_words(self, query: str) -> list[str]:
        """The question's words that no chunk holds, in any of their alternatives (asked only when a search
        came back short, so the look-ups are few and their words rare)."""
        terms = query_terms(query)[:32]
        return [
            t
            for t in terms
            if not self._reader.search_terms([self._alternatives(t)], require_all=True, limit=1)
        ]

    def _alternatives(self, term: str) -> list[str]:
        alts = [term.lower()]
        parts = split_identifier(term)
        if len(parts) > 1:  # a phrase of the parts: parse_http_header ~ "parse http header"
            alts.append(" ".join(parts).lower())
        elif self._lexicon is not None:  # translations (Spanish) and code synonyms, offline
            alts.extend(self._lexicon.expand(term)[:5])
        return alts

    def _place_words(self) -> frozenset[str]:
        """The segment's file stems and folder names, lower case: a query word that names one says where
        the answer lives. Rebuilt when the index changes."""
        built_at = self._reader.stats().built_at
        if self._places_cache is None or self._places_cache[0] != built_at:
            parts: set[str] = set()  # each distinct folder name and file stem, folded once
            for stored in self._reader.files():
                *folders, name = stored.path.split("/")
                parts.update(folders)
                parts.add(name.rsplit(".", 1)[0])
            names = frozenset(fold(p) for p in parts if p and not p.startswith("__"))
            self._places_cache = (built_at, names)
        return self._places_cache[1]

    def _deprecated_places(self) -> frozenset[str]:
        """The modules and packages that warn they are deprecated when imported (a module-level
        `warnings.warn(..., DeprecationWarning)` or `warnings._deprecated(__name__, ...)`): a package's folder
        (`distutils/`) or a module's path. Rebuilt when the index changes."""
        built_at = self._reader.stats().built_at
        if self._deprecated_cache is None or self._deprecated_cache[0] != built_at:
            places: set[str] = set()
            for word in ("deprecationwarning", "_deprecated"):
                for sc in self._reader.search_terms([[word]], require_all=True, limit=500):
                    chunk = sc.chunk
                    if chunk.kind is ChunkKind.MODULE and _WARNS_DEPRECATED.search(chunk.body):
                        folder, _, name = chunk.path.rpartition("/")
                        places.add(f"{folder}/" if name == "__init__.py" and folder else chunk.path)
            self._deprecated_cache = (built_at, frozenset(places))
        return self._deprecated_cache[1]

    @staticmethod
    def _rescore(
        chunk: Chunk,
        score: float,
        stems: frozenset[str],
        focus: Focus,
        places: set[str] | frozenset[str] = frozenset(),
        named: frozenset[str] = frozenset(),
    ) -> float:
        overlap = len(stems & _name_stems(chunk.name))
        if overlap:
            score *= 1.0 + 0.25 * overlap
        if named and chunk.symbol:  # the question names this definition as code: `ObservableMap.set`
            if chunk.symbol in named:
                score *= NAMED_SYMBOL_BOOST
            elif chunk.name in named:
                score *= NAMED_NAME_BOOST
        if places and places & _path_words(chunk.path):
            score *= PLACE_BOOST
        if chunk.kind in (ChunkKind.MODULE, ChunkKind.TEXT):
            score *= 0.85
        return score * focus_multiplier(chunk.path, focus)


# the stop words that never name code (articles, pronouns, question words); "get", "all", "would", "list" may
_GRAMMAR_WORDS = frozenset(
    "a an the of to in on at by for from with as and or but if is are was be been it its this that these those "
    "what which who whom whose when where why how do does did so than then there their they we you i me my our "
    "your he she his her us them".split()
)


# a documentation cross-reference (Sphinx roles: ":meth:`~anyio.to_process.run_sync`", ":class:`.Future`")
_DOC_ROLE = re.compile(r":(?:[a-z]+:)?[a-z]+:`[~.!]*([^`<]+?)(?:\s*<[^`>]*>)?`")


_NAME_LIKE = re.compile(r"[\w.:]*\w[\w.:]*(?:\(\))?")  # `GroupingMap`, `Result::Ok`, `.next()`, ``instance``
# a statement that uses a name, not its definition: `raise FrozenInstanceError`, `throw new Error(`, `import x`
_USE_STATEMENT = re.compile(
    r"^\s*(?:raise|throw(?:\s+new)?|new|await|yield|return|import|from|panic!?)\s+[\w.$]+[\s(;]*(?:\(.*)?$"
)


def without_doc_roles(query: str) -> str:
    """A question pasted from documentation names what it refers to in roles (":meth:`~pkg.run_sync`"): the
    target's words stay, but not as the code the question asks for ("Raised by :meth:`run_sync` if the
    worker dies" is about an exception, not about `run_sync`)."""
    if ":`" not in query:
        return query
    return _DOC_ROLE.sub(lambda m: " ".join(p for p in re.split(r"[._]+", m.group(1)) if p), query)


# a question, as against a description of a definition ("Raised when the call would block"): a question mark,
# or a question word opening the question or one of its clauses ("pool_pre_ping: where is ...")
_QUESTION = re.compile(
    r"[?¿]|(?:^|[:;,.]\s*)(?:how|why|where|which|what|when|who|c[oó]mo|d[oó]nde|cu[aá]ndo|qu[eé]|cu[aá]l(?:es)?)\b",
    re.IGNORECASE,
)


def asks_a_question(query: str) -> bool:
    """A question (a question word or mark, English or Spanish), as against a description of a definition."""
    return bool(_QUESTION.search(query))


_REQUEST = re.compile(
    r"^\W*(?:find|list|show|locate|search|give|explain|point|tell|get\s+me)\b", re.IGNORECASE
)


def describes_a_definition(query: str) -> bool:
    """A sentence that says what one definition does or is, as its docstring would ("Raised when a stream
    was closed.", "Return the names of all active rules."): neither a question nor a request."""
    text = query.strip()
    if asks_a_question(text) or _REQUEST.match(text):
        return False
    # a sentence, or the way a docstring opens: a capitalised verb of what the code does, or "A ..."/"The ..."
    return text.endswith(".") or (
        len(text.split()) >= 4 and bool(_DOCSTRING_OPENING.match(text) or _PREDICATE_OPENING.match(text))
    )


_PREDICATE_OPENING = re.compile(
    r"\W*(?:returns?\s+`*(?:true|false)`*\s+(?:if|when|for)|returns?\s+whether|(?:checks?|tests?|determines?)\s+"
    r"(?:if|whether)|reports\s+whether|whether\s)",
    re.IGNORECASE,
)
# a predicate's name: is_valid, isEmpty, IsNil, has_key, can_cast, _isValidUTF8, EqualFunc
_PREDICATE_NAME = re.compile(
    r"_*(?i:is|has|can|should|are|was|does|needs|contains|matches|equals?)(?:_|[A-Z]|$)"
)


def describes_a_predicate(query: str) -> bool:
    """A docstring's sentence of a predicate: "Returns True if...", "Check if...", Go's "reports whether..."
    (30 of the 39 such sentences of the description checks belong to an is_/has_/can_... name)."""
    return bool(_PREDICATE_OPENING.match(query)) and describes_a_definition(query)


_TYPE_KINDS = frozenset({ChunkKind.CLASS, ChunkKind.DECLARATION})
_CALLABLE_KINDS = frozenset({ChunkKind.FUNCTION, ChunkKind.METHOD})
# "A higher-order function that...", "A helper to...", "An internal method which...": a callable says so
_A_CALLABLE = re.compile(
    r"(?:an?|the)\s+(?:[\w-]+\s+){0,2}(?:function|method|helper|callback|decorator|hook|coroutine)s?\b",
    re.IGNORECASE,
)
_DESCRIBES_A_THING = re.compile(r"(?:an?|is|represents)\s", re.IGNORECASE)
# how a docstring of a type opens: "A ...", "Represents ...", "Raised when ..." (an exception), "Base class ..."
_NOT_AN_ACTION = frozenset(
    {"a", "an", "the", "raised", "represents", "base", "abstract", "helper", "is", "this"}
)


def described_kinds(query: str) -> tuple[frozenset[ChunkKind], float]:
    """The chunk kinds a docstring's sentence seldom describes, and their multiplier: types for "Returns the
    URL..." (what a definition does) or "A higher-order function that..." (other languages' check 0.453 ->
    0.456), functions and methods for "A wrapper that..." (what one is)."""
    if describes_an_action(query) or _A_CALLABLE.match(query) and describes_a_definition(query):
        return _TYPE_KINDS, ACTION_TYPE_MULTIPLIER
    if _DESCRIBES_A_THING.match(query) and describes_a_definition(query):
        return _CALLABLE_KINDS, THING_CALLABLE_MULTIPLIER
    return frozenset(), 1.0


def describes_an_action(query: str) -> bool:
    """A docstring's sentence that opens with what its definition does ("Returns the URL for...", "reports
    whether the pointer is nil."): nine in ten describe a function or method, where "A ..." describes a type
    as often as not (the description checks, Python and four other languages)."""
    first = query.split(maxsplit=1)[0].lower() if query.strip() else ""
    return first.isalpha() and first not in _NOT_AN_ACTION and describes_a_definition(query)


_DOCSTRING_OPENING = re.compile(
    r"(?:A|An|The|Return|Returns|Get|Gets|Create|Creates|Make|Makes|Build|Builds|Produce|Produces|Compute|"
    r"Computes|Convert|Converts|Check|Checks|Wrap|Wraps|Handle|Handles|Parse|Parses|Load|Loads|Register|"
    r"Registers|Replace|Replaces|Remove|Removes|Add|Adds|Set|Sets|Send|Sends|Read|Reads|Write|Writes|Run|Runs|"
    r"Start|Starts|Raised|Raise|Raises|Base|Abstract|Helper|Represents?|Generate|Generates|Determine|"
    r"Determines|Ensure|Ensures|Skip|Skips|Enable|Enables|Disable|Disables|Apply|Applies|Resolve|Resolves)\s"
)
_ASKS_DEPRECATED = re.compile(
    r"\b(?:deprecat\w*|legacy|obsolete|obsoleto|obsoleta|heredad\w*)\b", re.IGNORECASE
)
# a module that warns on import; a definition marked deprecated: a Python decorator, JSDoc's tag, Go's
# "Deprecated:" paragraph, Rust's attribute (not Sphinx's ".. deprecated::", which often deprecates one parameter
# or a public alias of a class still used inside: click's _OptionParser)
_WARNS_DEPRECATED = re.compile(
    r"^warnings\.(?:warn\([^)]*DeprecationWarning|_deprecated\(__name__)", re.MULTILINE
)
_DEPRECATED_DOC = re.compile(r"^\s*(?:Deprecated:|\*?\s*@deprecated\b)", re.MULTILINE)
_DEPRECATED_MARK = re.compile(r"^\s*(?:@(?:\w+\.)*deprecated\b(?![_\w])|#\[deprecated\b)", re.MULTILINE)


def _is_deprecated(chunk: Chunk, places: frozenset[str]) -> bool:
    # a module by its path, a package by its folder ("distutils/")
    if places and (chunk.path in places or chunk.path.startswith(_folders(places))):
        return True
    if chunk.kind not in (ChunkKind.FUNCTION, ChunkKind.METHOD, ChunkKind.CLASS, ChunkKind.DECLARATION):
        return False
    # both marks hold "eprecated": a substring test first (asked for every ranked chunk: ~0.8 ms a search)
    head, doc = chunk.body[:400], chunk.doc[:2000]
    return ("eprecated" in doc and bool(_DEPRECATED_DOC.search(doc))) or (
        "eprecated" in head and bool(_DEPRECATED_MARK.search(head))
    )


@functools.lru_cache(maxsize=8)
def _folders(places: frozenset[str]) -> tuple[str, ...]:
    return tuple(p for p in places if p.endswith("/"))


_RAISED = re.compile(r"^\W*(?:raised|thrown|issued|emitted)\b", re.IGNORECASE)
_EXCEPTION_NAME = re.compile(
    r"(?:Error|Exception|Warning|Exit|Interrupt|Fault|Failure|Failed|Cancelled|Exceeded)\b"
)
_EXCEPTION_FILES = frozenset({"exceptions", "errors", "exc", "_exceptions", "_errors", "warnings"})


def _looks_like_exception(chunk: Chunk) -> bool:
    """A class named or based like an exception (`EndOfStream(Exception)`, `TaskCancelled(TaskFailed)`), or any
    class of an exceptions module."""
    if chunk.kind is not ChunkKind.CLASS:
        return False
    stem = chunk.path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return stem in _EXCEPTION_FILES or bool(_EXCEPTION_NAME.search(chunk.signature or chunk.name))


def stop_words_naming_code(query: str) -> set[str]:
    """The question's stop words that may be words of a name (WouldBlock, get_all_backends, is_closed): never
    searched for, as prose says them everywhere, but a name holding one matches the question better."""
    return {fold(w) for w in query_terms(query, keep_stop_words=True)} - _GRAMMAR_WORDS


def _weighted_groups(
    terms: Sequence[str], groups: Sequence[Sequence[str]], translations: Mapping[str, Sequence[str]]
) -> tuple[list[list[str]], list[float]]:
    """Each term's alternatives, the word it says in code first, and the weight of the others. An English
    word's synonyms count less than the word written ("produce" ~ create, make: ALTERNATIVE_WEIGHT). A Spanish
    word says its first translation in code ("genera": generate); its other translations and their synonyms
    (create, make, build, new) count less (SPANISH_ALTERNATIVE_WEIGHT), the Spanish word itself last. An
    identifier's parts and a word with no translation are the same word (1.0). `translations` is empty for an
    English question."""
    out: list[list[str]] = []
    weights: list[float] = []
    for term, alts in zip(terms, groups, strict=True):
        said_as = translations.get(fold(term), ())
        if len(split_identifier(term)) > 1:
            out.append(list(alts))
            weights.append(1.0)
        elif said_as and said_as[0] in alts:
            out.append([said_as[0], *(a for a in alts if a != said_as[0])])
            weights.append(SPANISH_ALTERNATIVE_WEIGHT)
        else:
            out.append(list(alts))
            weights.append(1.0 if translations else ALTERNATIVE_WEIGHT)
    return out, weights


def _with_owner_evidence(hits: list[Hit], focus: Focus = Focus.ALL) -> list[Hit]:
    """Each member's score plus OWNER_EVIDENCE times its owner's (the class, impl or function it is defined
    in), when the owner is a hit too: a method of a class whose header and docstring answer the question is
    likelier the answer than a method alone in an unrelated class (`Promise.Get` of a memoizing `Promise`,
    `BasicInterpolation.before_get` of the class whose docstring explains %(name)s references). The owner's
    own score is left as it is. A test's members gain nothing unless the question asks for tests: a test
    class named after the feature (`HashLibTestCase`) would lift every test it holds."""
    by_symbol = {(h.chunk.path, h.chunk.symbol): h.score for h in hits if h.chunk.symbol}
    out = []
    for hit in hits:
        owner = hit.chunk.symbol.rpartition(".")[0] if hit.chunk.symbol else ""
        gain = by_symbol.get((hit.chunk.path, owner), 0.0) if owner else 0.0
        if gain and focus is not Focus.TESTS and is_test_file(hit.chunk.path):
            gain = 0.0
        out.append(hit.rescored(hit.score + OWNER_EVIDENCE * gain) if gain else hit)
    return out


def _with_file_evidence(hits: list[Hit]) -> list[Hit]:
    """Each hit's score plus FILE_EVIDENCE times the best score of another hit in the same file: a definition
    whose neighbours also answer the question is likelier the answer than one alone in a file about something
    else (the question's words spread over a module's functions, each holding some)."""
    best: dict[str, tuple[float, float]] = {}  # path -> the two best scores of its hits
    for hit in hits:
        first, second = best.get(hit.chunk.path, (0.0, 0.0))
        if hit.score > first:
            first, second = hit.score, first
        elif hit.score > second:
            second = hit.score
        best[hit.chunk.path] = (first, second)

    def other(hit: Hit) -> float:
        first, second = best[hit.chunk.path]
        return second if hit.score == first else first

    return [hit.rescored(hit.score + FILE_EVIDENCE * other(hit)) for hit in hits]


@functools.lru_cache(maxsize=16384)
def _path_words(path: str) -> frozenset[str]:
    """A path's folder names and file stem, folded: `json/decoder.py` -> {json, decoder}."""
    *folders, name = path.split("/")
    return frozenset(fold(p) for p in [*folders, name.rsplit(".", 1)[0]] if p and not p.startswith("__"))


@functools.lru_cache(maxsize=16384)
def _name_stems(name: str) -> frozenset[str]:
    """The stems of a chunk name's words: `SuggestionsFor` matches a question that says "suggested"."""
    return frozenset(name_stem(w) for w in _name_words(name))


def _name_words(name: str) -> frozenset[str]:
    """A chunk name and its identifier parts, folded (asked for every ranked chunk of every search)."""
    return frozenset({fold(p) for p in split_identifier(name)} | {fold(name)})


def _regex_text(request: SearchRequest) -> str | None:
    """The regular expression a request asks for: `regex=True`; a query written as /.../ in the auto and
    pattern modes (a lone `/` or `//` is not one); or, in pattern mode or a question classified as a pattern,
    a query with regex syntax that is never meant literally (`\\w`, `\\(`, `.*`, `[^...]`)."""
    raw = request.query.strip()
    if request.regex:
        return raw or None
    if request.mode in ("auto", "pattern") and len(raw) > 2 and raw.startswith("/") and raw.endswith("/"):
        return raw[1:-1]
    if looks_like_regex(raw) and (
        request.mode == "pattern"
        or (request.mode == "auto" and query_classifier.classify(raw).category.value == "pattern")
    ):
        return raw  # written as a regex (`def \w+_header\(`): searched as one, as ripgrep would
    return None


def _asks_for_a_set(route: str, structural_query: StructuralQuery) -> bool:
    """The structural engine's set answers the question: it has a filter, and it is not a question about how
    code behaves whose construct words only describe ("how do the coroutine-based backends get blocking
    versions of their methods": not every async method), unless code names the set: a base ("which types
    implement the Formatter trait") or a result type ("Return the URL for the redirect to follow.")."""
    named = bool(structural_query.base or structural_query.returns)
    return structural_query.has_filter and (route != "semantic" or named)


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


def _with_semantic(route: str, weights: dict[str, float]) -> dict[str, float]:
    """With an embedder, the semantic route fuses semantic 0.3 with lexical 0.7 (plus structural filters the
    question names) and hybrid questions add it at 0.2. Lexical search leads because it measured better: on
    ../shared/eval every step of weight moved to the embedder lowered symbol MRR@10 (0.6/0.4: 0.678, 0.3/0.7:
    0.745, lexical alone 0.782, README "Semantic search"); the embedder adds what shares no word with the
    question. Semantic runs first so a failure is known before the others run."""
    if route == "semantic":
        return {"semantic": 0.3, "lexical": 0.7, **{k: v for k, v in weights.items() if k != "lexical"}}
    return {"semantic": 0.2, **weights}


# found by what the question says, not by its exact code: a module chunk found so waits for its file's
# definitions (a pasted module docstring is a description of what they do)
_WORDY_MATCHES = frozenset({"lexical", "semantic", "rewrite", "verbatim"})
_PATH_LIKE = re.compile(r"(?:\./)?(?:[\w.-]+/)*[\w-]+\.[A-Za-z0-9]{1,8}|(?:\./)?(?:[\w.-]+/)+[\w.-]+")


def _definitions_before_their_module(hits: list[Hit]) -> list[Hit]:
    """A file's module-level chunk (imports, constants, free code) ranked above a definition of the same file
    moves just below that file's best definition: "how does X work" is answered by the function, and the
    module chunk stays in the list, one step later. A module chunk found by its exact text (a pattern
    question: a constant, an import) keeps its place."""
    out: list[Hit] = []
    waiting: dict[str, list[Hit]] = {}  # path -> module chunks held back until the file's first definition
    with_definitions = {h.chunk.path for h in hits if h.chunk.kind is not ChunkKind.MODULE}
    for hit in hits:
        path = hit.chunk.path
        if (
            hit.chunk.kind is ChunkKind.MODULE
            and path in with_definitions
            and hit.match_type in _WORDY_MATCHES
        ):
            waiting.setdefault(path, []).append(hit)
            continue
        out.append(hit)
        out.extend(waiting.pop(path, []))
    return out


# a Rust impl block's symbol: `impl Iterator for FlattenOk`, `impl GroupingMap`
_IMPL_OF = re.compile(r"impl (?:\S+ for )?(\w+)$")


def _types_before_their_impls(hits: list[Hit]) -> list[Hit]:
    """A type found below one of its impl blocks (`impl Iterator for FlattenOk` above `FlattenOk`) moves up
    to just before it: the block's header says what the type does, and the type is what the words describe;
    the block stays, one step later. Structural hits (the impl blocks a question asks for) keep their order."""
    types: dict[tuple[str, str], Hit] = {}
    for hit in hits:
        if hit.chunk.symbol and not hit.chunk.symbol.startswith("impl ") and hit.match_type in _WORDY_MATCHES:
            types.setdefault((hit.chunk.path, hit.chunk.symbol), hit)
    if not types:
        return hits
    out: list[Hit] = []
    placed: set[int] = set()
    for hit in hits:
        if id(hit) in placed:
            continue
        m = _IMPL_OF.match(hit.chunk.symbol) if hit.match_type in _WORDY_MATCHES else None
        typ = types.get((hit.chunk.path, m.group(1))) if m else None
        for h in (typ, hit) if typ is not None and id(typ) not in placed else (hit,):
            placed.add(id(h))
            out.append(h)
    return out


# chunks whose body lines are the file's lines, in order (a module chunk skips its definitions)
_WINDOW_KINDS = frozenset({ChunkKind.TEXT, ChunkKind.DECLARATION})
MATCHING_LINE_SCAN = 400  # lines of a long declaration looked through for the matching one


def _at_matching_lines(hits: list[Hit], query: str) -> list[Hit]:
    """A hit on a text window or a long declaration (a big table or object literal) is shown
    from the line that holds most of the question's words, and says which (`line`): its first lines are
    rarely why it was found. A definition keeps its signature first; a pattern hit has its line already."""
    words = {fold(w) for t in query_terms(query) for w in [t, *split_identifier(t)] if len(w) >= 3}
    if not words:
        return hits
    out = []
    for hit in hits:
        ch = hit.chunk
        if hit.line or hit.match_type not in _WORDY_MATCHES or ch.kind not in _WINDOW_KINDS:
            out.append(hit)
            continue
        line = _matching_line(ch, words)
        out.append(attrs.evolve(hit, line=line) if line else hit)
    return out


def _matching_line(chunk: Chunk, words: set[str]) -> int:
    """The chunk's line holding the most distinct question words (a word also matches its longer forms:
    `detect` ~ `detected`), earliest on ties; 0 when that is within the preview's first lines anyway."""
    best, best_count = 0, 0
    for offset, text in enumerate(chunk.body.splitlines()[:MATCHING_LINE_SCAN]):
        folded = fold(text)  # every match below is a substring of it: an upper bound, cheap to count
        if sum(1 for w in words if w in folded) <= best_count:
            continue
        tokens = {fold(p) for w in words_of(text) for p in [w, *split_identifier(w)]}
        count = sum(1 for w in words if w in tokens or any(t.startswith(w) for t in tokens if len(w) >= 4))
        if count > best_count:
            best, best_count = offset, count
    return chunk.start_line + best if best_count and best >= PREVIEW_LINES else 0


def _members_before_their_type(hits: list[Hit], named: frozenset[str]) -> list[Hit]:
    """A type's header chunk ranked above one of its own methods moves just below the first of them: a
    question about behaviour ("how does X decide Y") is answered by the method that holds the logic, and the
    header (the type's doc and member list) stays one step later. A type the question names keeps its place."""
    out: list[Hit] = []
    waiting: dict[tuple[str, str], Hit] = {}  # (path, type) -> its header, held back until its first member
    members = {
        (h.chunk.path, h.chunk.symbol.rsplit(".", 1)[0]) for h in hits if h.chunk.kind is ChunkKind.METHOD
    }
    for hit in hits:
        ch = hit.chunk
        key = (ch.path, ch.symbol)
        if (
            ch.kind is ChunkKind.CLASS
            and key in members
            and hit.match_type in _WORDY_MATCHES
            and ch.symbol not in named
            and ch.name not in named
        ):
            waiting[key] = hit
            continue
        out.append(hit)
        if ch.kind is ChunkKind.METHOD:
            owner = waiting.pop((ch.path, ch.symbol.rsplit(".", 1)[0]), None)
            if owner is not None:
                out.append(owner)
    return out + list(waiting.values())


def _unique(hits: list[Hit]) -> list[Hit]:
    """The first hit for each place, in order."""
    seen: set[tuple[str, str, int]] = set()
    out = []
    for hit in hits:
        if _key(hit) not in seen:
            seen.add(_key(hit))
            out.append(hit)
    return out


def _key(hit: Hit) -> tuple[str, str, int]:
    return hit.chunk.path, hit.chunk.symbol, hit.chunk.start_line


def _by_relevance(members: list[Hit], fused: list[Hit]) -> list[Hit]:
    """A structural set ordered by where the question points (its scope tier), then by the fused ranking of
    other engines (the words of the question), then in the structural engine's order: never by path alone."""
    position = {_key(h): i for i, h in enumerate(fused)}
    order = {_key(h): i for i, h in enumerate(members)}
    return sorted(
        members,
        key=lambda h: (
            -StructuralEngine.scope_tier(h),
            position.get(_key(h), len(fused)),
            order[_key(h)],
        ),
    )


def _set_first(fused: list[Hit], members: list[Hit]) -> list[Hit]:
    """A structural question ("subclasses of X in Y") asks for a set: every definition that passes the filter
    comes first, in the structural engine's order (in scope first), then whatever else the fusion found."""
    by_key = {_key(h): h for h in fused}
    first = [by_key.get(_key(m), m) for m in members]
    seen = {_key(h) for h in first}
    return first + [h for h in fused if _key(h) not in seen]


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
