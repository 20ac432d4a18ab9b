"""The semantic tier: an Embedder port, a VectorStore port, the EmbedSegment use case that keeps one vector
per chunk in step with the index, and the SemanticEngine that answers a question by vector similarity.

Embeddings are a tier on top of lexical search (FACTS.md "Embeddings"): nothing here is required for a
search to work. Every embedder failure is an `EmbedderUnavailable` with a message a person can act on, so
the search pipeline can fall back to lexical search and say why.

Incremental at two levels: the store remembers, per file, the file's sha256, the model and the chunk ids it
synced, so a run reads only the chunks of files that changed (a no-change run reads no chunk text); inside
those files a chunk is re-embedded only when the text it is embedded from changed (its `text_sha`). Vectors
of chunks that left the index are removed. Vectors are written batch by batch and a file is marked synced
once all its chunks have vectors, so a run stopped half way keeps what it computed.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterable, Mapping, Sequence
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


@attrs.frozen(kw_only=True)
class SyncedFile:
    """What a completed sync of one file recorded."""

    path: str
    sha256: str  # the file's content hash in the index at the time
    model: str
    chunk_ids: tuple[str, ...]


class VectorStore(Protocol):
    """Vectors keyed by chunk id, one model per chunk, searched by cosine similarity; plus the per-file
    record of what was synced."""

    def stored(self, chunk_ids: Iterable[str] | None = None) -> dict[str, StoredVector]:
        """chunk id -> what is stored for it (without the vector), for these ids or all."""
        ...

    def synced_files(self) -> dict[str, SyncedFile]: ...

    def mark_synced(self, files: Sequence[SyncedFile]) -> None: ...

    def forget_files(self, paths: Sequence[str]) -> None: ...

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
        files = {f.path: f.sha256 for f in self._reader.files()}
        synced = self._store.synced_files()
        changed = sorted(
            path
            for path, sha in files.items()
            if request.full or path not in synced or synced[path].sha256 != sha or synced[path].model != model
        )
        removed_files = sorted(set(synced) - set(files))

        by_path: dict[str, list[Chunk]] = {path: [] for path in changed}
        everything = len(changed) == len(files)  # one pass over the table rather than a query per file
        for chunk in self._reader.iter_chunks(None if everything else changed):
            by_path.setdefault(chunk.path, []).append(chunk)
        current = {c.id for chunks in by_path.values() for c in chunks}
        before = {cid for p in (*changed, *removed_files) if p in synced for cid in synced[p].chunk_ids}
        stored = self._store.stored(current)
        todo: list[tuple[str, str, str, str]] = []  # (path, chunk id, sha, text)
        for path, chunks in by_path.items():
            for chunk in chunks:
                text = embed_text(chunk)
                sha = text_sha(text)
                old = stored.get(chunk.id)
                if request.full or old is None or old.text_sha != sha or old.model != model:
                    todo.append((path, chunk.id, sha, text))
        # with full every file is in `changed`: also drop vectors no file record knows of
        gone = sorted((set(self._store.stored()) if request.full else before) - current)
        if gone:
            self._store.delete(gone)
        if removed_files:
            self._store.forget_files(removed_files)

        total = len(todo)
        report(0, total, f"embedding {total} chunks with {model}" if total else "embeddings up to date")
        pending = {path: 0 for path in by_path}
        for path, *_ in todo:
            pending[path] += 1
        self._mark([p for p, n in pending.items() if n == 0], files, by_path, model)
        done = 0
        error = ""
        # similar lengths in one batch waste less padding in a local model
        todo.sort(key=lambda item: len(item[3]))
        for start in range(0, total, self._batch_size):
            batch = todo[start : start + self._batch_size]
            try:
                vectors = self._embedder.embed([text for *_, text in batch])
            except EmbedderUnavailable as exc:
                error = str(exc)
                break
            if len(vectors) != len(batch):
                error = f"the embedder returned {len(vectors)} vectors for {len(batch)} texts"
                break
            self._store.put(
                model, [(cid, sha, vec) for (_, cid, sha, _), vec in zip(batch, vectors, strict=True)]
            )
            finished = []
            for path, *_ in batch:
                pending[path] -= 1
                if pending[path] == 0:
                    finished.append(path)
            self._mark(finished, files, by_path, model)
            done += len(batch)
            report(done, total, "embedding")
        if not error:
            report(total, total, "embedding done")
        n_chunks = self._reader.stats().chunks
        return EmbedReport(
            model=model,
            chunks=n_chunks,
            embedded=done,
            unchanged=max(0, n_chunks - total),
            removed=len(gone),
            seconds=time.perf_counter() - started,
            error=error,
        )

    def _mark(
        self, paths: Sequence[str], files: Mapping[str, str], by_path: Mapping[str, list[Chunk]], model: str
    ) -> None:
        if paths:
            self._store.mark_synced(
                [
                    SyncedFile(
                        path=p, sha256=files[p], model=model, chunk_ids=tuple(c.id for c in by_path[p])
                    )
                    for p in paths
                ]
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
