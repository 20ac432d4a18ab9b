"""LLM query rewriting inside a search (llm-query-rewriting.md Task 5, adapted): decide, ask, cache, report.

A natural-language question ("how are edges inserted into the graph?") is turned by a chat model into code
search terms and a focus. The search runs those terms as one more lexical ranking and fuses it with the
original one, so a poor rewrite can add noise but never take the original answer away.

When a rewrite is attempted, in this order:

* ``requested is False`` (``--no-rewrite``, ``rewrite=False``): never;
* an explicit ``--mode pattern`` or ``--mode structural`` (or a regex): never, those search the text as
  written, whatever else was asked;
* ``requested is True`` (``--rewrite``, ``rewrite=True``): always, even with ``[query_rewrite] enabled =
  false``: the caller asked for it by name;
* otherwise only when rewriting is enabled, and then when ``should_rewrite`` says the query is natural
  language, or as the document's fallback when the original search found nothing at all. Identifier-like
  and keyword queries with hits pass through untouched.

Every outcome (tried, skipped, failed) is reported with its reason for ``data["plan"]["rewrite"]``. Failure
never fails the search: the port bounds its own time, and any exception from it or from the cache becomes
a ``failed`` outcome. Rewrites are cached under (query, model, vocabulary version), the version being a hash
of the segment vocabulary that went into the prompt, so a repeated question costs no model call until the
segment's names change.
"""

from __future__ import annotations

import enum
import hashlib
import time
from collections.abc import Callable, Sequence
from pathlib import PurePosixPath
from typing import Any, Protocol

import attrs

from ..domain.code import Hit
from ..domain.rewrite_policy import RewrittenQuery, should_rewrite
from .ports import IndexReader

VOCABULARY_SIZE = 60  # segment names in the prompt: enough to anchor terms, small enough for a 3b model
HINT_NAMES = 15  # names from the original hits, the ones most likely to matter for this question
LITERAL_MODES = frozenset({"pattern", "structural"})


class RewriteFailed(Exception):
    """The model gave no usable rewrite; the message says why (timeout, HTTP 500, invalid JSON, ...)."""


class QueryRewriter(Protocol):
    """A chat model that turns a question into code search terms."""

    model: str

    def rewrite(self, query: str, vocabulary: Sequence[str]) -> RewrittenQuery:
        """The rewrite of ``query``; ``vocabulary`` holds names that exist in the segment. Returns or raises
        ``RewriteFailed`` within the adapter's own timeout, whatever the server does."""
        ...


@attrs.frozen(kw_only=True)
class RewriteKey:
    query: str
    model: str
    vocabulary_version: str


class RewriteCache(Protocol):
    """Rewrites kept between processes. Errors may be raised: the flow treats them as a miss."""

    def get(self, key: RewriteKey) -> RewrittenQuery | None: ...

    def put(self, key: RewriteKey, rewrite: RewrittenQuery) -> None: ...


class Trigger(enum.StrEnum):
    FORCED = "forced"
    GATE = "gate"
    ZERO_RESULTS = "zero_results"


class Status(enum.StrEnum):
    TRIED = "tried"
    SKIPPED = "skipped"
    FAILED = "failed"


@attrs.frozen(kw_only=True)
class RewriteOutcome:
    status: Status
    reason: str = ""
    trigger: Trigger | None = None
    rewrite: RewrittenQuery | None = None
    latency_ms: float = 0.0
    cached: bool = False
    model: str = ""

    def to_data(self) -> dict[str, Any]:
        return {
            "status": self.status.value,
            "reason": self.reason,
            "trigger": self.trigger.value if self.trigger else None,
            "terms": list(self.rewrite.terms) if self.rewrite else [],
            "focus": self.rewrite.focus.value if self.rewrite else None,
            "latency_ms": self.latency_ms,
            "cached": self.cached,
            "model": self.model,
        }


def skipped(reason: str) -> RewriteOutcome:
    return RewriteOutcome(status=Status.SKIPPED, reason=reason)


def decide(query: str, *, requested: bool | None, auto: bool, mode: str, zero_hits: bool) -> Trigger | str:
    """Why a rewrite is attempted (a Trigger), or why not (a reason): the rules of the module docstring."""
    if requested is False:
        return "rewrite=False for this search"
    if mode in LITERAL_MODES:
        return f"--mode {mode} searches the query as written"
    if requested:
        return Trigger.FORCED
    if not auto:
        return "[query_rewrite] enabled is false; pass --rewrite (rewrite=True) to force one"
    if should_rewrite(query):
        return Trigger.GATE
    if zero_hits:
        return Trigger.ZERO_RESULTS
    return "identifier-like or keyword query: searched as written"


def hint_names(hits: Sequence[Hit], limit: int = HINT_NAMES) -> list[str]:
    """Symbol names and file stems of the original hits, best first, without repeats."""
    names: list[str] = []
    for hit in hits:
        for name in (hit.chunk.name, PurePosixPath(hit.chunk.path).stem):
            if name and name not in names and name != "__init__":
                names.append(name)
        if len(names) >= limit:
            break
    return names[:limit]


class RewriteFlow:
    """Decides, asks the rewriter (or the cache), and reports; never raises."""

    def __init__(
        self,
        *,
        rewriter: QueryRewriter,
        reader: IndexReader,
        cache: RewriteCache | None = None,
        auto: bool = False,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self._rewriter = rewriter
        self._reader = reader
        self._cache = cache
        self.auto = auto
        self._clock = clock
        self._vocabulary: tuple[tuple[object, ...], list[str], str] | None = (
            None  # (index state, names, version)
        )

    def run(self, query: str, *, requested: bool | None, mode: str, hits: Sequence[Hit]) -> RewriteOutcome:
        decision = decide(query, requested=requested, auto=self.auto, mode=mode, zero_hits=not hits)
        if not isinstance(decision, Trigger):
            return skipped(decision)
        started = self._clock()
        model = self._rewriter.model

        def outcome(status: Status, reason: str = "", **more: Any) -> RewriteOutcome:
            latency = round((self._clock() - started) * 1000, 3)
            return RewriteOutcome(
                status=status, reason=reason, trigger=decision, latency_ms=latency, model=model, **more
            )

        try:
            names, version = self._segment_vocabulary()
        except Exception as exc:  # a damaged index must not cost the search its answer
            return outcome(Status.FAILED, f"cannot read the segment vocabulary: {type(exc).__name__}: {exc}")
        key = RewriteKey(query=query, model=model, vocabulary_version=version)
        note = ""
        if self._cache is not None:
            try:
                cached = self._cache.get(key)
            except Exception as exc:
                cached, note = None, f"cache unavailable ({type(exc).__name__}: {exc})"
            if cached is not None:
                return outcome(Status.TRIED, "cached rewrite", rewrite=cached, cached=True)
        vocabulary = list(dict.fromkeys([*hint_names(hits), *names]))[:VOCABULARY_SIZE]
        try:
            rewrite = self._rewriter.rewrite(query, vocabulary)
        except RewriteFailed as exc:
            return outcome(Status.FAILED, _join(str(exc), note))
        except Exception as exc:  # an adapter bug is still no reason to fail the search
            return outcome(Status.FAILED, _join(f"{type(exc).__name__}: {exc}", note))
        if self._cache is not None and not note:
            try:
                self._cache.put(key, rewrite)
            except Exception as exc:
                note = f"not cached ({type(exc).__name__}: {exc})"
        return outcome(Status.TRIED, _join(f"{decision.value} rewrite by the model", note), rewrite=rewrite)

    def _segment_vocabulary(self) -> tuple[list[str], str]:
        """The segment's names and their version, read again only when the index was rebuilt."""
        # built_at has one-second resolution, so the counts and the file size join it in the memo key
        stats = self._reader.stats()
        state = (stats.built_at, stats.files, stats.symbols, stats.chunks, stats.db_bytes)
        if self._vocabulary is None or self._vocabulary[0] != state:
            names = self._reader.vocabulary(VOCABULARY_SIZE)
            digest = hashlib.sha256("\n".join(names).encode("utf-8")).hexdigest()[:16]
            self._vocabulary = (state, names, digest)
        return self._vocabulary[1], self._vocabulary[2]


def _join(reason: str, note: str) -> str:
    return f"{reason}; {note}" if note else reason
