"""The semantic tier over in-memory fakes: EmbedSegment keeps one vector per chunk in step with the index,
SemanticEngine answers by similarity, and the search pipeline routes to it or falls back to lexical search.

The HTTP and ONNX adapters and the SQLite vector store are tested with real parts in
tests/integration/test_semantic.py; the vector-store contract below runs against the fake here and against
the SQLite store there.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Iterable, Iterator, Sequence

import httpx
import pytest

from trifecta.application.embedding import (
    EmbedderUnavailable,
    EmbedRequest,
    EmbedSegment,
    SemanticEngine,
    StoredVector,
    SyncedFile,
    embed_text,
    text_sha,
)
from trifecta.application.ports import IndexStats, ScoredChunk, StoredFile
from trifecta.application.search import SearchRequest, SearchSegment
from trifecta.domain.code import Chunk, ChunkKind
from trifecta.domain.contract import ErrorCode
from trifecta.infrastructure.config import ConfigError, load_settings
from trifecta.infrastructure.http_embedder import HttpEmbedder, embeddings_url

DIM = 32
WORD = re.compile(r"[a-z]+")


def bag_of_words(text: str, dim: int = DIM) -> list[float]:
    """A deterministic embedding: hashed word counts, so texts sharing words are near."""
    vec = [0.0] * dim
    for word in WORD.findall(text.lower()):
        vec[int(hashlib.md5(word.encode()).hexdigest(), 16) % dim] += 1.0
    return vec


# --- fakes -----------------------------------------------------------------------------------------------


class FakeEmbedder:
    def __init__(self, name: str = "fake:bow", fail_after: int | None = None) -> None:
        self._name = name
        self.calls: list[list[str]] = []
        self.fail_after = fail_after  # batches answered before it becomes unreachable

    @property
    def name(self) -> str:
        return self._name

    @property
    def dim(self) -> int:
        return DIM

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if self.fail_after is not None and len(self.calls) >= self.fail_after:
            raise EmbedderUnavailable("cannot reach the fake embedder")
        self.calls.append(list(texts))
        return [bag_of_words(t) for t in texts]

    @property
    def embedded(self) -> int:
        return sum(len(c) for c in self.calls)


class FakeVectorStore:
    def __init__(self) -> None:
        self.rows: dict[str, tuple[str, str, list[float]]] = {}  # chunk id -> (sha, model, vector)

        self.files: dict[str, SyncedFile] = {}

    def stored(self, chunk_ids: Iterable[str] | None = None) -> dict[str, StoredVector]:
        wanted = None if chunk_ids is None else set(chunk_ids)
        return {
            cid: StoredVector(chunk_id=cid, text_sha=sha, model=m)
            for cid, (sha, m, _) in self.rows.items()
            if wanted is None or cid in wanted
        }

    def synced_files(self) -> dict[str, SyncedFile]:
        return dict(self.files)

    def mark_synced(self, files: Sequence[SyncedFile]) -> None:
        self.files.update({f.path: f for f in files})

    def forget_files(self, paths: Sequence[str]) -> None:
        for p in paths:
            self.files.pop(p, None)

    def put(self, model: str, items: Sequence[tuple[str, str, Sequence[float]]]) -> None:
        for cid, sha, vec in items:
            norm = math.sqrt(sum(x * x for x in vec)) or 1.0
            self.rows[cid] = (sha, model, [x / norm for x in vec])

    def delete(self, chunk_ids: Sequence[str]) -> None:
        for cid in chunk_ids:
            self.rows.pop(cid, None)

    def count(self, model: str) -> int:
        return sum(1 for _, m, _ in self.rows.values() if m == model)

    def top_k(self, model: str, vector: Sequence[float], k: int) -> list[tuple[str, float]]:
        norm = math.sqrt(sum(x * x for x in vector))
        if not norm:
            return []
        scored = [
            (cid, sum(a * b for a, b in zip(vec, vector, strict=True)) / norm)
            for cid, (_, m, vec) in self.rows.items()
            if m == model
        ]
        scored.sort(key=lambda r: (-r[1], r[0]))
        return scored[:k]


class FakeIndex:
    """The reading half of the index: chunks, with a word-count stand-in for BM25."""

    def __init__(self, chunks: Iterable[Chunk] = ()) -> None:
        self.chunks: dict[str, Chunk] = {c.id: c for c in chunks}
        self.chunk_reads: list[list[str] | None] = []  # the paths of each iter_chunks call

    def files(self) -> list[StoredFile]:
        out = []
        for path in sorted({c.path for c in self.chunks.values()}):
            text = "".join(c.body for c in self.chunks.values() if c.path == path)
            sha = hashlib.sha256(text.encode()).hexdigest()
            out.append(StoredFile(path=path, language="python", n_lines=1, parse_error="", sha256=sha))
        return out

    def stats(self) -> IndexStats:
        return IndexStats(
            files=len({c.path for c in self.chunks.values()}),
            symbols=len(self.chunks),
            chunks=len(self.chunks),
            built_at="2026-01-01T00:00:00+00:00",
            parse_errors=0,
            db_bytes=0,
        )

    def iter_chunks(self, paths: Iterable[str] | None = None) -> Iterator[Chunk]:
        self.chunk_reads.append(None if paths is None else list(paths))
        wanted = set(paths) if paths is not None else None
        yield from (c for c in self.chunks.values() if wanted is None or c.path in wanted)

    def chunk(self, chunk_id: str) -> Chunk | None:
        return self.chunks.get(chunk_id)

    def search_terms(
        self,
        groups: Sequence[Sequence[str]],
        *,
        require_all: bool,
        limit: int,
        alternative_weights: Sequence[float] = (),
    ) -> list[ScoredChunk]:
        out = []
        for c in self.chunks.values():
            words = set(WORD.findall((c.name + " " + c.body).lower().replace("_", " ")))
            matched = [any(alt in words for alt in g) for g in groups]
            if (all(matched) if require_all else any(matched)) and any(matched):
                out.append(ScoredChunk(chunk=c, score=float(sum(matched))))
        out.sort(key=lambda s: (-s.score, s.chunk.id))
        return out[:limit]

    def call_names(
        self, paths: Sequence[str], names: Sequence[str], callers: Sequence[str] = ()
    ) -> list[tuple[str, str, str]]:
        return []  # no call graph: no hit lifts another

    def substring_candidates(self, needles: Sequence[str], *, limit: int) -> list[Chunk]:
        return []

    def structural_candidates(self, **_: object) -> list:
        return []


def chunk(cid: str, name: str, body: str, path: str = "pkg/mod.py") -> Chunk:
    return Chunk(
        id=cid, path=path, start_line=1, end_line=body.count("\n") + 1, kind=ChunkKind.FUNCTION,
        language="python", symbol=name, name=name, body=body,
    )  # fmt: skip


CHUNKS = [
    chunk("a", "expunge_record", "def expunge_record(store, key):\n    store.pop(key)\n"),
    chunk("b", "load_settings", "def load_settings(path):\n    return parse(open(path).read())\n"),
    chunk("c", "open_socket", "def open_socket(host, port):\n    return connect(host, port)\n", "pkg/net.py"),
]


# --- EmbedSegment ------------------------------------------------------------------------------------------


def test_first_run_embeds_every_chunk_in_batches_with_progress() -> None:
    index, store, embedder = FakeIndex(CHUNKS), FakeVectorStore(), FakeEmbedder()
    progress: list[tuple[int, int, str]] = []
    report = EmbedSegment(reader=index, store=store, embedder=embedder, batch_size=2).execute(
        EmbedRequest(), lambda d, t, m: progress.append((d, t, m))
    )
    assert (report.embedded, report.unchanged, report.removed, report.chunks) == (3, 0, 0, 3)
    assert report.complete and report.model == "fake:bow"
    assert [len(c) for c in embedder.calls] == [2, 1]
    assert progress[0][:2] == (0, 3) and progress[-1][:2] == (3, 3)
    assert [d for d, _, _ in progress] == sorted(d for d, _, _ in progress)
    assert store.stored()["a"].text_sha == text_sha(embed_text(CHUNKS[0]))


def test_second_run_embeds_nothing_and_a_changed_chunk_alone() -> None:
    index, store, embedder = FakeIndex(CHUNKS), FakeVectorStore(), FakeEmbedder()
    use_case = EmbedSegment(reader=index, store=store, embedder=embedder)
    use_case.execute(EmbedRequest())
    index.chunk_reads.clear()
    assert use_case.execute(EmbedRequest()).embedded == 0
    assert index.chunk_reads == [[]]  # no file changed: no chunk text read at all
    before = embedder.embedded
    index.chunks["b"] = chunk("b", "load_settings", "def load_settings(path):\n    return {}\n")
    report = use_case.execute(EmbedRequest())
    assert (report.embedded, report.unchanged) == (1, 2)
    assert embedder.embedded - before == 1 and "return {}" in embedder.calls[-1][0]
    assert index.chunk_reads[-1] == ["pkg/mod.py"]  # only the changed file's chunks were read


def test_vectors_of_deleted_chunks_are_removed() -> None:
    index, store = FakeIndex(CHUNKS), FakeVectorStore()
    use_case = EmbedSegment(reader=index, store=store, embedder=FakeEmbedder())
    use_case.execute(EmbedRequest())
    del index.chunks["c"]
    report = use_case.execute(EmbedRequest())
    assert report.removed == 1 and set(store.rows) == {"a", "b"}


def test_another_model_or_full_recomputes_everything() -> None:
    index, store = FakeIndex(CHUNKS), FakeVectorStore()
    EmbedSegment(reader=index, store=store, embedder=FakeEmbedder()).execute(EmbedRequest())
    other = FakeEmbedder(name="fake:other")
    assert EmbedSegment(reader=index, store=store, embedder=other).execute(EmbedRequest()).embedded == 3
    assert {m for _, m, _ in store.rows.values()} == {"fake:other"}
    assert (
        EmbedSegment(reader=index, store=store, embedder=other).execute(EmbedRequest(full=True)).embedded == 3
    )


def test_unreachable_embedder_keeps_finished_batches_and_says_why() -> None:
    index, store = FakeIndex(CHUNKS), FakeVectorStore()
    use_case = EmbedSegment(reader=index, store=store, embedder=FakeEmbedder(fail_after=1), batch_size=2)
    report = use_case.execute(EmbedRequest())
    assert report.embedded == 2 and not report.complete
    assert "cannot reach" in report.error
    assert len(store.rows) == 2 and use_case.behind()
    # the next run, with the embedder back, computes only what is missing
    again = EmbedSegment(reader=index, store=store, embedder=FakeEmbedder(), batch_size=2)
    assert again.execute(EmbedRequest()).embedded == 1 and not again.behind()


def test_a_stopped_run_marks_only_the_files_it_finished() -> None:
    chunks = [chunk(f"x{i}", f"f{i}", f"def f{i}(): pass\n", path=f"pkg/m{i}.py") for i in range(4)]
    index, store = FakeIndex(chunks), FakeVectorStore()
    EmbedSegment(reader=index, store=store, embedder=FakeEmbedder(fail_after=1), batch_size=2).execute(
        EmbedRequest()
    )
    assert len(store.files) == 2 and all(len(f.chunk_ids) == 1 for f in store.files.values())
    embedder = FakeEmbedder()
    report = EmbedSegment(reader=index, store=store, embedder=embedder).execute(EmbedRequest())
    assert report.embedded == 2 and len(store.files) == 4


def test_batch_size_must_be_positive() -> None:
    with pytest.raises(ValueError):
        EmbedSegment(reader=FakeIndex(), store=FakeVectorStore(), embedder=FakeEmbedder(), batch_size=0)


def test_embed_text_is_bounded_and_names_the_chunk() -> None:
    big = chunk("z", "huge", "x = 1\n" * 5000)
    text = embed_text(big)
    assert text.startswith("pkg/mod.py huge\n") and len(text) <= 2000


# --- the vector-store contract (also run against SqliteVectorStore in tests/integration) -------------------


def check_vector_store_contract(store) -> None:
    assert store.count("m") == 0 and store.top_k("m", [1.0, 0.0, 0.0], 5) == []
    store.put("m", [("x", "s1", [1.0, 0.0, 0.0]), ("y", "s2", [0.0, 2.0, 0.0]), ("z", "s3", [1.0, 1.0, 0.0])])
    store.put("other", [("w", "s4", [0.0, 0.0, 1.0])])
    assert store.count("m") == 3 and store.count("other") == 1
    top = store.top_k("m", [1.0, 0.1, 0.0], 2)
    assert [cid for cid, _ in top] == ["x", "z"]
    assert top[0][1] == pytest.approx(1 / math.sqrt(1.01), abs=1e-5)  # cosine, stored vectors normalized
    assert [cid for cid, _ in store.top_k("m", [0.0, 1.0, 0.0], 10)] == ["y", "z", "x"]
    store.put("m", [("x", "s9", [0.0, 1.0, 0.0])])  # replace: one row per chunk
    assert store.stored()["x"] == StoredVector(chunk_id="x", text_sha="s9", model="m")
    assert store.top_k("m", [0.0, 1.0, 0.0], 1)[0][1] == pytest.approx(1.0, abs=1e-5)
    store.delete(["x", "w", "absent"])
    assert set(store.stored()) == {"y", "z"} and store.count("other") == 0
    assert store.top_k("m", [0.0, 0.0, 0.0], 3) == []  # a zero query matches nothing rather than everything
    assert set(store.stored(["z", "absent"])) == {"z"} and store.stored([]) == {}
    assert set(store.stored(f"id{i}" for i in range(6000))) == set()  # a long id list is fine too
    one = SyncedFile(path="a.py", sha256="h1", model="m", chunk_ids=("y", "z"))
    store.mark_synced([one, SyncedFile(path="b.py", sha256="h2", model="m", chunk_ids=())])
    store.mark_synced([SyncedFile(path="b.py", sha256="h3", model="m", chunk_ids=("q",))])
    assert store.synced_files()["a.py"] == one and store.synced_files()["b.py"].chunk_ids == ("q",)
    store.forget_files(["b.py", "never.py"])
    assert set(store.synced_files()) == {"a.py"}


def test_fake_vector_store_meets_the_contract() -> None:
    check_vector_store_contract(FakeVectorStore())


# --- SemanticEngine and the search route -------------------------------------------------------------------


def semantic_search(
    store: FakeVectorStore | None = None, embedder: FakeEmbedder | None = None
) -> SearchSegment:
    index = FakeIndex(CHUNKS)
    store = store or FakeVectorStore()
    embedder = embedder or FakeEmbedder()
    EmbedSegment(reader=index, store=store, embedder=FakeEmbedder(name=embedder.name)).execute(EmbedRequest())
    engine = SemanticEngine(embedder=embedder, store=store, reader=index)
    return SearchSegment(reader=index, semantic=engine)


def test_semantic_engine_returns_the_nearest_chunks() -> None:
    index, store = FakeIndex(CHUNKS), FakeVectorStore()
    EmbedSegment(reader=index, store=store, embedder=FakeEmbedder()).execute(EmbedRequest())
    hits = SemanticEngine(embedder=FakeEmbedder(), store=store, reader=index).search("connect host port", 2)
    assert hits[0].chunk.id == "c" and hits[0].match_type == "semantic"
    assert len(hits) == 2 and hits[0].score >= hits[1].score


def test_semantic_engine_with_no_vectors_yet_is_unavailable() -> None:
    engine = SemanticEngine(embedder=FakeEmbedder(), store=FakeVectorStore(), reader=FakeIndex(CHUNKS))
    with pytest.raises(EmbedderUnavailable, match="trifecta index"):
        engine.search("anything", 5)


def test_semantic_mode_uses_the_engine_and_the_plan_says_so() -> None:
    response = semantic_search().execute(SearchRequest(query="connect to a host port", mode="semantic"))
    data = response.to_dict()["data"]
    assert response.ok and data["hits"][0]["symbol"] == "open_socket"
    plan = data["plan"]
    assert plan["route"] == "semantic" and plan["weights"] == {"semantic": 0.3, "lexical": 0.7}
    assert plan["semantic"] == {"status": "used", "model": "fake:bow", "vectors": 3}
    assert "semantic" in plan["engines"]


def test_hybrid_route_adds_the_semantic_engine() -> None:
    response = semantic_search().execute(SearchRequest(query="open a socket", mode="hybrid"))
    weights = response.to_dict()["data"]["plan"]["weights"]
    assert weights["semantic"] == 0.2 and weights["lexical"] == 0.7


def test_lexical_mode_never_asks_the_embedder() -> None:
    embedder = FakeEmbedder()
    search = semantic_search(embedder=embedder)
    response = search.execute(SearchRequest(query="open socket", mode="lexical"))
    assert response.ok and embedder.calls == []


def test_unreachable_embedder_falls_back_to_lexical_in_auto_mode() -> None:
    search = semantic_search(embedder=FakeEmbedder(fail_after=0))
    response = search.execute(SearchRequest(query="how do we connect to a host", mode="auto"))
    data = response.to_dict()["data"]
    assert response.ok and data["plan"]["route"] == "semantic"
    assert data["plan"]["semantic"]["status"] == "unavailable"
    assert "cannot reach" in data["plan"]["semantic"]["message"]
    assert "semantic" not in data["plan"]["weights"] and "semantic" not in data["plan"]["engines"]
    assert data["hits"][0]["symbol"] == "open_socket"  # lexical found it on 'connect' and 'host'


def test_unreachable_embedder_fails_semantic_mode_with_next_actions() -> None:
    search = semantic_search(embedder=FakeEmbedder(fail_after=0))
    response = search.execute(SearchRequest(query="how do we connect to a host", mode="semantic"))
    assert not response.ok and response.errors[0].code is ErrorCode.EMBEDDER_UNAVAILABLE
    assert "cannot reach" in response.errors[0].message
    assert any("[embedding]" in h for h in response.errors[0].data["hints"])
    assert response.next_actions == ("index",)  # advice in the error data, commands in next_actions


def test_no_embedder_semantic_mode_names_the_configuration() -> None:
    search = SearchSegment(reader=FakeIndex(CHUNKS))
    response = search.execute(SearchRequest(query="how do we connect to a host", mode="semantic"))
    assert response.errors[0].code is ErrorCode.EMBEDDER_UNAVAILABLE
    hints = " ".join(response.errors[0].data["hints"])
    assert 'provider = "onnx"' in hints and "model_path" in hints and "TRIFECTA_EMBED_PROVIDER" in hints
    auto = search.execute(SearchRequest(query="how do we connect to a host", mode="auto")).to_dict()["data"]
    assert auto["plan"]["semantic"]["status"] == "not_configured"
    assert auto["plan"]["weights"] == {"lexical": 1.0}


# --- configuration -----------------------------------------------------------------------------------------


def test_embedding_settings_from_toml_env_and_options(tmp_path) -> None:
    (tmp_path / ".trifecta").mkdir()
    (tmp_path / ".trifecta" / "config.toml").write_text(
        '[embedding]\nprovider = "onnx"\nmodel_path = "models/mini"\nbatch_size = 8\ntimeout = 2.5\n'
    )
    s = load_settings(tmp_path, env={})
    assert (s.embed_provider, s.embed_batch_size, s.embed_timeout) == ("onnx", 8, 2.5)
    assert s.embed_model_path == tmp_path.resolve() / "models" / "mini"
    s = load_settings(tmp_path, env={"TRIFECTA_EMBED_PROVIDER": "openai", "TRIFECTA_EMBED_MODEL": "bge-m3"})
    assert (s.embed_provider, s.embed_model, s.embed_api_url) == (
        "openai",
        "bge-m3",
        "http://localhost:11434/v1",
    )
    s = load_settings(tmp_path, {"embed_provider": "none"}, env={"TRIFECTA_EMBED_PROVIDER": "openai"})
    assert s.embed_provider == "none"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"embed_provider": "bert"}, "provider must be one of"),
        ({"embed_provider": "onnx"}, "needs model_path"),
        ({"embed_api_url": "localhost:11434"}, "must start with http"),
        ({"embed_timeout": "soon"}, "number of seconds"),
        ({"embed_timeout": 0}, "from more than 0 to 3600"),
        ({"embed_batch_size": 0}, "must be positive"),
    ],
)
def test_bad_embedding_settings_are_config_errors(tmp_path, options, message) -> None:
    with pytest.raises(ConfigError, match=message):
        load_settings(tmp_path, options, env={})


# --- the HTTP adapter's parsing, over httpx.MockTransport (a real server is in tests/integration) ----------


def mock_embedder(handler, **kwargs) -> HttpEmbedder:
    return HttpEmbedder(api_url="http://embed.test/v1", transport=httpx.MockTransport(handler), **kwargs)


def test_http_embedder_batches_and_orders_by_index() -> None:
    sizes = []

    def handler(request: httpx.Request) -> httpx.Response:
        import json

        texts = json.loads(request.content)["input"]
        sizes.append(len(texts))
        data = [{"index": i, "embedding": [float(len(t)), 1.0]} for i, t in enumerate(texts)]
        return httpx.Response(200, json={"data": list(reversed(data))})

    vectors = mock_embedder(handler, batch_size=2).embed(["a", "bb", "ccc"])
    assert sizes == [2, 1] and vectors == [[1.0, 1.0], [2.0, 1.0], [3.0, 1.0]]


@pytest.mark.parametrize(
    ("response", "message"),
    [
        (httpx.Response(404, text="model not found"), "ollama pull"),
        (httpx.Response(401, text="no"), "api_key_env"),
        (httpx.Response(200, text="<html>"), "not JSON"),
        (httpx.Response(200, json={"embeddings": []}), "'data' list"),
        (httpx.Response(200, json={"data": [{"embedding": ["x"]}]}), "not numbers"),
        (httpx.Response(200, json={"data": []}), "0 vectors for 1 texts"),
    ],
)
def test_http_embedder_bad_answers_are_clear_errors(response, message) -> None:
    with pytest.raises(EmbedderUnavailable, match=message):
        mock_embedder(lambda request: response).embed(["text"])


def test_embeddings_url() -> None:
    assert embeddings_url("http://localhost:11434/v1/") == "http://localhost:11434/v1/embeddings"
    assert embeddings_url("https://api.example/v1/embeddings") == "https://api.example/v1/embeddings"


def test_http_embedder_sends_the_api_key_only_when_given() -> None:
    seen = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers.get("authorization"))
        return httpx.Response(200, json={"data": [{"index": 0, "embedding": [1.0]}]})

    mock_embedder(handler, api_key="sk-test").embed(["x"])
    mock_embedder(handler).embed(["x"])
    assert seen == ["Bearer sk-test", None]
