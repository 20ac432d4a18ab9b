"""The semantic tier: an Embedder port, a VectorStore port, the EmbedSegment use case that keeps one vector
per chunk in step with the index, and the SemanticEngine that answers a question by vector similarity.

Embeddings are a tier on top of lexical search (FACTS.md "Embeddings"): nothing here is required for a
search to work. Every embedder failure is an `EmbedderUnavailable` with a message a person can act on, so
the search pipeline can fall back to lexical search and say why.

A chunk is re-embedded only when the text it would be embedded from changed (its `text_sha`) or the model
changed; vectors of chunks that left the index are removed. Vectors are written batch by batch, so a run that
is stopped half way keeps what it computed.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Mapping, Sequence
from typing import Protocol

import attrs

from ..domain.code import Chunk, Hit
from .ports import IndexReader, ProgressSink

MAX_EMBED_CHARS = 2000  # models read 256-512 tokens; more text only costs time
DEFAULT_BATCH_SIZE = 32


class EmbedderUnavailable(Exception):
    """The embedder cannot answer: not installed, not reachable, timed out, or answered nonsense."""


class Embedder(Protocol):
    """Texts -> vectors of one fixed dimension, from one model."""

    @property
    def name(self) -> str:
        """The model's identity (provider and model); vectors of another name are recomputed."""
        ...

    @property
    def dim(self) -> int:
        """The vector dimension; 0 until the model has been loaded or has answered once."""
        ...

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text, in order. Raises EmbedderUnavailable."""
        ...


@attrs.frozen(kw_only=True)
class StoredVector:
    chunk_id: str
    text_sha: str
    model: str


class VectorStore(Protocol):
    """Vectors keyed by chunk id, one model per chunk, searched by cosine similarity."""

    def stored(self) -> dict[str, StoredVector]:
        """chunk id -> what is stored for it (without the vector)."""
        ...

    def put(self, model: str, items: Sequence[tuple[str, str, Sequence[float]]]) -> None:
        """(chunk id, text sha, vector) rows of one model, written in one transaction."""
        ...

    def delete(self, chunk_ids: Sequence[str]) -> None: ...

    def count(self, model: str) -> int: ...

    def top_k(self, model: str, vector: Sequence[float], k: int) -> list[tuple[str, float]]:
        """(chunk id, cosine similarity) of the k nearest vectors of this model, best first."""
        ...


def embed_text(chunk: Chunk) -> str:
    """What a chunk is embedded from: where it is, what it is called, then its source."""
    head = f"{chunk.path} {chunk.symbol}".strip()
    return f"{head}\n{chunk.body}"[:MAX_EMBED_CHARS]


def text_sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", errors="replace")).hexdigest()[:24]


@attrs.frozen(kw_only=True)
class EmbedRequest:
    full: bool = False  # recompute every vector, even unchanged ones


@attrs.frozen(kw_only=True)
class EmbedReport:
    model: str
    chunks: int  # chunks in the index
    embedded: int  # vectors computed in this run
    unchanged: int
    removed: int
    seconds: float
    error: str = ""  # why the run stopped early ("" when it completed)

    @property
    def complete(self) -> bool:
        return not self.error

    def to_data(self) -> dict[str, object]:
        return attrs.asdict(self)


def _noop_progress(done: int, total: int, message: str) -> None:
    return None


class EmbedSegment:
    """Bring the stored vectors in step with the index's chunks."""

    def __init__(
        self,
        *,
        reader: IndexReader,
        store: VectorStore,
        embedder: Embedder,
        batch_size: int = DEFAULT_BATCH_SIZE,
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self._reader = reader
        self._store = store
        self._embedder = embedder
        self._batch_size = batch_size

    @property
    def model(self) -> str:
        return self._embedder.name

    def behind(self) -> bool:
        """A cheap check (two counts) for "some chunk may lack a vector of the current model"."""
        try:
            model = self._embedder.name
        except EmbedderUnavailable:
            return False
        return self._store.count(model) != self._reader.stats().chunks

    def execute(self, request: EmbedRequest, progress: ProgressSink | None = None) -> EmbedReport:
        started = time.perf_counter()
        report = progress or _noop_progress
        try:
            model = self._embedder.name
        except EmbedderUnavailable as exc:
            return EmbedReport(
                model="", chunks=0, embedded=0, unchanged=0, removed=0, seconds=0.0, error=str(exc)
            )
        stored = self._store.stored()
        todo: list[tuple[str, str, str]] = []  # (chunk id, sha, text)
        present: set[str] = set()
        for chunk in self._reader.iter_chunks():
            present.add(chunk.id)
            text = embed_text(chunk)
            sha = text_sha(text)
            old = stored.get(chunk.id)
            if request.full or old is None or old.text_sha != sha or old.model != model:
                todo.append((chunk.id, sha, text))
        gone = sorted(set(stored) - present)
        if gone:
            self._store.delete(gone)
        total = len(todo)
        report(0, total, f"embedding {total} chunks with {model}" if total else "embeddings up to date")
        done = 0
        error = ""
        # similar lengths in one batch waste less padding in a local model
        todo.sort(key=lambda item: len(item[2]))
        for start in range(0, total, self._batch_size):
            batch = todo[start : start + self._batch_size]
            try:
                vectors = self._embedder.embed([text for _, _, text in batch])
            except EmbedderUnavailable as exc:
                error = str(exc)
                break
            if len(vectors) != len(batch):
                error = f"the embedder returned {len(vectors)} vectors for {len(batch)} texts"
                break
            self._store.put(
                model, [(cid, sha, vec) for (cid, sha, _), vec in zip(batch, vectors, strict=True)]
            )
            done += len(batch)
            report(done, total, "embedding")
        if not error:
            report(total, total, "embedding done")
        return EmbedReport(
            model=model,
            chunks=len(present),
            embedded=done,
            unchanged=len(present) - total,
            removed=len(gone),
            seconds=time.perf_counter() - started,
            error=error,
        )


class SemanticEngine:
    """Embed the question, return the chunks whose vectors are nearest."""

    def __init__(self, *, embedder: Embedder, store: VectorStore, reader: IndexReader) -> None:
        self._embedder = embedder
        self._store = store
        self._reader = reader

    @property
    def model(self) -> str:
        return self._embedder.name

    def describe(self) -> Mapping[str, object]:
        """What the plan shows: the model and how many chunks it covers."""
        model = self._embedder.name
        return {"model": model, "vectors": self._store.count(model)}

    def search(self, query: str, limit: int) -> list[Hit]:
        """Raises EmbedderUnavailable when the question cannot be embedded or nothing is embedded yet."""
        model = self._embedder.name
        vectors = self._embedder.embed([query])
        if len(vectors) != 1:
            raise EmbedderUnavailable(f"the embedder returned {len(vectors)} vectors for one query")
        if self._store.count(model) == 0:
            raise EmbedderUnavailable(
                f"no chunk has a vector of {model} yet: run `trifecta index` to compute them"
            )
        hits: list[Hit] = []
        for chunk_id, score in self._store.top_k(model, vectors[0], limit):
            chunk = self._reader.chunk(chunk_id)
            if chunk is not None:  # a vector of a chunk that left the index since: skip it
                hits.append(Hit(chunk=chunk, score=score, match_type="semantic"))
        return hits
