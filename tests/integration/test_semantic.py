"""The semantic tier with real parts: an OpenAI-compatible /v1/embeddings server on 127.0.0.1 started here,
a tiny ONNX model and a WordLevel tokenizer built here (nothing downloads), the SQLite vector store in the
index file, and the facade and CLI on top.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest

import trifecta
from trifecta.application.embedding import EmbedderUnavailable
from trifecta.domain.contract import Response
from trifecta.infrastructure.http_embedder import HttpEmbedder
from trifecta.infrastructure.onnx_embedder import OnnxEmbedder
from trifecta.infrastructure.vector_store import SqliteVectorStore

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "unit"))
from test_embedding import check_vector_store_contract  # noqa: E402

DIM = 64
WORD = re.compile(r"[a-z]+")

# A repository whose answers share no word with the questions: only meaning connects them.
REPO = {
    "app/records.py": "def expunge_record(store, key):\n    store.pop(key)\n",
    "app/prefs.py": "def load_preferences(path):\n    return parse(read(path))\n",
    "app/net.py": "def open_socket(host, port):\n    return connect(host, port)\n",
}
# word -> concept: the tiny model maps the words of one concept to one direction
CONCEPTS = {
    "purge": 0, "expunge": 0, "obliterate": 0, "erase": 0,
    "preferences": 1, "settings": 1, "configuration": 1,
    "socket": 2, "connect": 2, "network": 2, "host": 2,
}  # fmt: skip


def bag_of_words(text: str) -> list[float]:
    vec = [0.0] * DIM
    for word in WORD.findall(text.lower()):
        vec[int(hashlib.md5(word.encode()).hexdigest(), 16) % DIM] += 1.0
    return vec


# --- a real /v1/embeddings server ---------------------------------------------------------------------------


class EmbeddingServer:
    """OpenAI-compatible POST /v1/embeddings on 127.0.0.1; hashed bag-of-words vectors; counts texts."""

    def __init__(self, delay: float = 0.0) -> None:
        self.texts: list[str] = []
        self.delay = delay
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if self.path != "/v1/embeddings" or body.get("model") != "bow":
                    self.send_response(404)
                    self.end_headers()
                    self.wfile.write(b'{"error": "model not found"}')
                    return
                time.sleep(server.delay)
                server.texts.extend(body["input"])
                payload = {
                    "object": "list",
                    "data": [
                        {"object": "embedding", "index": i, "embedding": bag_of_words(t)}
                        for i, t in enumerate(body["input"])
                    ],
                }
                raw = json.dumps(payload).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, *args: object) -> None:
                return None

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server() -> Iterator[EmbeddingServer]:
    srv = EmbeddingServer()
    yield srv
    srv.close()


def closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"  # nothing listens there once the socket is closed


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    for rel, text in REPO.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def open_http(repo: Path, url: str, **options: object) -> trifecta.Engine:
    return trifecta.open(
        str(repo), workers=1, embed_provider="openai", embed_api_url=url, embed_model="bow", **options
    )


# --- a tiny ONNX model built here ---------------------------------------------------------------------------


def build_onnx_model(folder: Path, dim: int = 8) -> Path:
    """model.onnx = Gather(table, input_ids) * attention_mask: per-token states the adapter mean-pools;
    tokenizer.json = WordLevel over CONCEPTS' words, lower-cased, '_' split."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    folder.mkdir(parents=True, exist_ok=True)
    words = ["[PAD]", "[UNK]", *CONCEPTS]
    table = np.zeros((len(words), dim), dtype=np.float32)
    for i, word in enumerate(words[2:], 2):
        table[i, CONCEPTS[word]] = 1.0
        table[i, 3 + i % (dim - 3)] = 0.1  # a little of each word's own
    graph = helper.make_graph(
        [
            helper.make_node("Gather", ["table", "input_ids"], ["states"]),
            helper.make_node("Cast", ["attention_mask"], ["maskf"], to=TensorProto.FLOAT),
            helper.make_node("Unsqueeze", ["maskf", "axis"], ["mask3"]),
            helper.make_node("Mul", ["states", "mask3"], ["last_hidden_state"]),
        ],
        "tiny",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "tokens"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "tokens"]),
        ],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "tokens", dim])],
        initializer=[
            numpy_helper.from_array(table, "table"),
            numpy_helper.from_array(np.array([-1]), "axis"),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(folder / "model.onnx"))
    tokenizer = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.Sequence([normalizers.Lowercase(), normalizers.Replace("_", " ")])
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.save(str(folder / "tokenizer.json"))
    return folder


# --- the SQLite vector store --------------------------------------------------------------------------------


def test_sqlite_vector_store_meets_the_contract(tmp_path: Path) -> None:
    store = SqliteVectorStore(tmp_path / "index.db")
    try:
        check_vector_store_contract(store)
    finally:
        store.close()


def test_sqlite_vector_store_sees_commits_of_another_connection(tmp_path: Path) -> None:
    reader, writer = SqliteVectorStore(tmp_path / "i.db"), SqliteVectorStore(tmp_path / "i.db")
    try:
        writer.put("m", [("a", "s", [1.0, 0.0])])
        assert [c for c, _ in reader.top_k("m", [1.0, 0.0], 5)] == ["a"]  # cached from here on
        writer.put("m", [("b", "s", [0.0, 1.0])])
        assert [c for c, _ in reader.top_k("m", [0.0, 1.0], 5)] == ["b", "a"]  # the cache was invalidated
        columns = [r[1] for r in sqlite3.connect(tmp_path / "i.db").execute("PRAGMA table_info(embeddings)")]
        assert columns == ["chunk_id", "text_sha", "model", "dim", "vec"]
    finally:
        reader.close()
        writer.close()


# --- the HTTP adapter against a real server -----------------------------------------------------------------


def test_index_embeds_incrementally_over_http(repo: Path, server: EmbeddingServer) -> None:
    with open_http(repo, server.url, embed_batch_size=2) as engine:
        report = engine.index()
        assert report.embeddings is not None and report.embeddings.complete
        assert report.embeddings.embedded == report.embeddings.chunks == len(server.texts) >= 3
        first = len(server.texts)
        assert engine.index().embeddings.embedded == 0 and len(server.texts) == first  # nothing changed
        (repo / "app" / "net.py").write_text("def open_socket(host, port):\n    return dial(host, port)\n")
        again = engine.index().embeddings
        assert again.embedded == 1 and "dial(host, port)" in server.texts[-1]
        (repo / "app" / "prefs.py").unlink()
        assert engine.index().embeddings.removed >= 1
    db = repo / ".trifecta" / "index.db"
    rows = sqlite3.connect(db).execute("SELECT model, dim, length(vec) FROM embeddings").fetchall()
    assert rows and all(r == ("openai:bow", DIM, DIM * 4) for r in rows)


def test_search_refresh_embeds_changed_chunks_and_semantic_mode_answers(
    repo: Path, server: EmbeddingServer
) -> None:
    with open_http(repo, server.url) as engine:
        response = engine.search("dial host port", mode="semantic").to_dict()  # builds index + vectors
        assert response["status"] == "ok"
        assert response["data"]["plan"]["semantic"]["status"] == "used"
        (repo / "app" / "extra.py").write_text("def dial_remote(host, port):\n    return dial(host, port)\n")
        before = len(server.texts)
        response = engine.search("dial remote host port", mode="semantic").to_dict()
        assert response["data"]["hits"][0]["symbol"] == "dial_remote"
        assert len(server.texts) - before == 2  # the new chunk, then the question


def test_embedder_configured_after_indexing_is_caught_up_by_the_first_search(
    repo: Path, server: EmbeddingServer
) -> None:
    with trifecta.open(str(repo), workers=1) as engine:
        assert engine.index().embeddings is None  # no embedder: nothing to sync
    with open_http(repo, server.url) as engine:
        response = engine.search("connect host port", mode="semantic").to_dict()
        assert response["data"]["plan"]["semantic"] == {"status": "used", "model": "openai:bow", "vectors": 3}
        asked = len(server.texts)
        engine.search("connect host port", mode="semantic")
        assert len(server.texts) == asked + 1  # only the question: no recount, no re-embedding


def test_unreachable_server_index_reports_and_search_falls_back(repo: Path) -> None:
    url = closed_port_url()
    with open_http(repo, url) as engine:
        report = engine.index()
        assert report.files_indexed == 3  # the index itself is fine
        assert report.embeddings.embedded == 0 and "cannot reach the embedder" in report.embeddings.error
        auto = engine.search("how do we connect to a host").to_dict()
        assert auto["status"] == "ok" and auto["data"]["hits"][0]["symbol"] == "open_socket"
        assert auto["data"]["plan"]["semantic"]["status"] == "unavailable"
        assert url.removesuffix("/v1") in auto["data"]["plan"]["semantic"]["message"]
        semantic = engine.search("how do we connect to a host", mode="semantic").to_dict()
        assert semantic["status"] == "error" and semantic["errors"][0]["code"] == "EMBEDDER_UNAVAILABLE"
        assert any("[embedding]" in h for h in semantic["errors"][0]["data"]["hints"])


def test_http_embedder_timeout_and_wrong_model_are_clear(server: EmbeddingServer) -> None:
    slow = EmbeddingServer(delay=1.0)
    try:
        embedder = HttpEmbedder(api_url=slow.url, model="bow", timeout=0.2)
        started = time.monotonic()
        with pytest.raises(EmbedderUnavailable, match="did not answer within 0.2 s"):
            embedder.embed(["x"])
        with pytest.raises(EmbedderUnavailable, match="did not answer"):  # not waited for again
            embedder.embed(["x"])
        assert time.monotonic() - started < 0.9
    finally:
        slow.close()
    with pytest.raises(EmbedderUnavailable, match="HTTP 404.*ollama pull nomic"):
        HttpEmbedder(api_url=server.url, model="nomic").embed(["x"])
    vectors = HttpEmbedder(api_url=server.url, model="bow", batch_size=3).embed([f"w{i}" for i in range(7)])
    assert len(vectors) == 7 and len(server.texts) == 7


# --- the ONNX adapter with a model built here ---------------------------------------------------------------


def test_onnx_embedder_mean_pools_and_normalizes(tmp_path: Path) -> None:
    embedder = OnnxEmbedder(build_onnx_model(tmp_path / "tiny"), batch_size=2)
    vectors = np.asarray(embedder.embed(["purge", "purge expunge zzz", "open_socket", "", "settings"]))
    assert vectors.shape == (5, 8) and embedder.dim == 8
    assert np.allclose(np.linalg.norm(vectors[[0, 1, 2, 4]], axis=1), 1.0, atol=1e-5)
    assert vectors[1] @ vectors[0] > 0.9  # same concept, padding and unknown words do not pull it away
    assert abs(vectors[2] @ vectors[0]) < 0.1 and abs(vectors[4] @ vectors[0]) < 0.1
    assert embedder.name.startswith("onnx:tiny@")


def test_onnx_embedder_missing_folder_or_files_is_unavailable(tmp_path: Path) -> None:
    with pytest.raises(EmbedderUnavailable, match="no ONNX model in"):
        OnnxEmbedder(tmp_path / "nowhere").embed(["x"])
    folder = build_onnx_model(tmp_path / "tiny")
    (folder / "tokenizer.json").unlink()
    with pytest.raises(EmbedderUnavailable, match="no tokenizer.json"):
        OnnxEmbedder(folder).embed(["x"])


def test_semantic_search_with_a_local_onnx_model(repo: Path, tmp_path: Path) -> None:
    model = build_onnx_model(tmp_path / "tiny")
    with trifecta.open(str(repo), workers=1, embed_provider="onnx", embed_model_path=str(model)) as engine:
        report = engine.index()
        assert report.embeddings.complete and report.embeddings.embedded >= 3
        # no word of the question is in the code: lexical search finds nothing, the model does
        assert engine.search("obliterate", mode="lexical").to_dict()["data"]["hits"] == []
        hits = engine.search("obliterate", mode="semantic").to_dict()["data"]["hits"]
        assert hits[0]["symbol"] == "expunge_record" and hits[0]["match_type"] == "semantic"
        hits = engine.search("where is the configuration read", mode="semantic").to_dict()["data"]["hits"]
        assert hits[0]["symbol"] == "load_preferences"


def test_full_index_recomputes_vectors(repo: Path, tmp_path: Path) -> None:
    model = build_onnx_model(tmp_path / "tiny")
    with trifecta.open(str(repo), workers=1, embed_provider="onnx", embed_model_path=str(model)) as engine:
        n = engine.index().embeddings.embedded
        assert engine.index().embeddings.embedded == 0
        assert engine.index(full=True).embeddings.embedded == n


# --- the CLI ------------------------------------------------------------------------------------------------


def run_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    # this interpreter's package, not whatever `trifecta` is first on PATH (it may lack the onnx extra)
    cmd = [sys.executable, "-m", "trifecta.interfaces.cli.main", *args]
    clean = {k: v for k, v in os.environ.items() if not k.startswith("TRIFECTA_")}
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, env={**clean, **(env or {})})


def test_cli_semantic_mode_without_embedder_exits_1_with_next_actions(repo: Path) -> None:
    proc = run_cli(
        "ctx", "search", "-s", str(repo), "-q", "connect to a host", "--mode", "semantic", "--json"
    )
    assert proc.returncode == 1
    data = json.loads(proc.stdout)
    Response.from_dict(data)
    assert data["errors"][0]["code"] == "EMBEDDER_UNAVAILABLE"
    assert any("TRIFECTA_EMBED_PROVIDER" in h for h in data["errors"][0]["data"]["hints"])
    assert data["next_actions"] == [f"trifecta index {repo.resolve()}"]


def test_cli_index_embeds_with_env_config_and_shows_progress(repo: Path, tmp_path: Path) -> None:
    model = build_onnx_model(tmp_path / "tiny")
    env = {"TRIFECTA_EMBED_PROVIDER": "onnx", "TRIFECTA_EMBED_MODEL_PATH": str(model)}
    proc = run_cli("index", str(repo), "--json", env=env)
    assert proc.returncode == 0, proc.stderr
    embeddings = json.loads(proc.stdout)["data"]["embeddings"]
    assert embeddings["embedded"] >= 3 and embeddings["error"] == ""
    assert "embedding: " in proc.stderr and "chunks" in proc.stderr
    proc = run_cli("index", str(repo), env={**env, "TRIFECTA_EMBED_PROVIDER": "word2vec"})
    assert proc.returncode == 2 and "provider must be one of" in proc.stderr
