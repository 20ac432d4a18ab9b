"""LLM query rewriting against a real chat-completions server on 127.0.0.1 (started here, in a thread), over
a real index file: forced, gated, fallback and cached rewrites, and a server that is down, slow, failing,
malformed or streaming forever. Every search is timed against its bound: the rewrite timeout plus the
search itself."""

from __future__ import annotations

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
from typing import Any

import pytest

import trifecta
from trifecta.application.rewrite import RewriteKey
from trifecta.domain.rewrite_policy import Focus, RewrittenQuery
from trifecta.infrastructure.rewrite_cache import SqliteRewriteCache
from trifecta.infrastructure.sqlite_store import SqliteIndex

TIMEOUT = 1.0  # the rewrite timeout used here: long enough for loopback, short enough for a fast suite
SEARCH_ALLOWANCE = 1.5  # what the search itself may take on a busy 2-core machine, beyond the timeout
QUESTION = "how do we take money from the customer at the end?"
FOCUS_TERMS = ["add_product", "Product", "Inventory"]
GOOD_REPLY = {"terms": ["charge_card", "Checkout", "PaymentError"], "focus": "implementation"}


class QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client hanging up on an endless stream is expected here, not worth a traceback


class ChatServer:
    """A stand-in for Ollama's /v1/chat/completions; the first path component picks the behaviour."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.stop = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def setup(self) -> None:
                super().setup()  # headers and body go out as separate writes: no Nagle wait between them
                self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def log_message(self, *args: Any) -> None:  # keep the test output clean
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                server.requests.append(
                    {"path": self.path, "body": json.loads(body), "auth": self.headers.get("Authorization")}
                )
                behaviour = self.path.strip("/").split("/")[0]
                getattr(self, f"reply_{behaviour}")()

            def send(self, status: int, payload: bytes, content_type: str = "application/json") -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def completion(self, content: str) -> None:
                doc = {"id": "x", "object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]}  # fmt: skip
                self.send(200, json.dumps(doc).encode())

            def reply_good(self) -> None:
                self.completion(json.dumps(GOOD_REPLY))

            def reply_tests(self) -> None:
                self.completion(json.dumps({"terms": FOCUS_TERMS, "focus": "tests"}))

            def reply_implementation(self) -> None:
                self.completion(json.dumps({"terms": FOCUS_TERMS, "focus": "implementation"}))

            def reply_fenced(self) -> None:
                self.completion("```json\n" + json.dumps(GOOD_REPLY) + "\n```")

            def reply_slow(self) -> None:
                server.stop.wait(TIMEOUT * 3)  # answers, but long after the timeout
                if not server.stop.is_set():
                    self.completion(json.dumps(GOOD_REPLY))

            def reply_failing(self) -> None:
                self.send(500, b'{"error": "model failed to load"}')

            def reply_garbage(self) -> None:
                self.send(200, b"<html>502 Bad Gateway</html>", "text/html")

            def reply_prose(self) -> None:
                self.completion("You should look for the function that charges cards.")

            def reply_endless(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                deadline = time.monotonic() + 20  # bounded: stops by itself even if nobody hangs up
                event = b'data: {"choices": []}\n\n'  # server-sent events that never finish
                try:
                    while not server.stop.is_set() and time.monotonic() < deadline:
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(event), event))
                        self.wfile.flush()
                        time.sleep(0.05)
                except OSError:
                    pass  # the client hung up at its deadline

        self.httpd = QuietServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)

    def url(self, behaviour: str) -> str:
        return f"http://127.0.0.1:{self.port}/{behaviour}/v1/chat/completions"

    def __enter__(self) -> ChatServer:
        self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer() as running:
        yield running


@pytest.fixture
def repo(sample_repo: Path) -> Path:
    engine = trifecta.open(str(sample_repo), workers=1)
    engine.index()
    engine.close()
    return sample_repo


def open_engine(repo: Path, url: str, **options: Any) -> trifecta.Engine:
    return trifecta.open(str(repo), workers=1, rewrite_api_url=url, rewrite_timeout=TIMEOUT, **options)


def timed_search(engine: trifecta.Engine, query: str, **kwargs: Any) -> tuple[dict[str, Any], float]:
    started = time.monotonic()
    response = engine.search(query, **kwargs).to_dict()
    elapsed = time.monotonic() - started
    assert response["status"] == "ok", response["errors"]
    return response["data"], elapsed


def symbols(data: dict[str, Any]) -> list[str]:
    return [hit["symbol"] for hit in data["hits"]]


def test_forced_rewrite_adds_the_models_terms_and_keeps_the_original(repo: Path, server: ChatServer) -> None:
    with open_engine(repo, server.url("good"), rewrite_enabled=False) as engine:
        plain, _ = timed_search(engine, QUESTION, rewrite=False)
        data, elapsed = timed_search(engine, QUESTION, rewrite=True)
    rewrite = data["plan"]["rewrite"]
    assert rewrite["status"] == "tried" and rewrite["trigger"] == "forced" and not rewrite["cached"]
    assert rewrite["terms"] == GOOD_REPLY["terms"] and rewrite["focus"] == "implementation"
    assert 0 < rewrite["latency_ms"] < TIMEOUT * 1000 and rewrite["model"] == "qwen2.5:3b"
    assert "charge_card" in symbols(data)[:3] and "charge_card" not in symbols(plain)[:3]
    assert symbols(plain)[0] in symbols(data)  # fused, not replaced
    assert plain["plan"]["rewrite"]["status"] == "skipped"
    assert elapsed < TIMEOUT + SEARCH_ALLOWANCE
    request = server.requests[-1]["body"]
    assert request["model"] == "qwen2.5:3b" and request["temperature"] == 0
    assert "charge_card" in request["messages"][1]["content"]  # the segment vocabulary went along
    assert len(server.requests) == 1


def test_gate_rewrites_questions_only_and_a_repeat_is_cached(repo: Path, server: ChatServer) -> None:
    with open_engine(repo, server.url("fenced"), rewrite_enabled=True) as engine:
        for query in ("reserveStock", "shop.inventory", "charge card"):
            data, _ = timed_search(engine, query)
            assert data["plan"]["rewrite"]["status"] == "skipped", query
        assert server.requests == []  # identifier-like and keyword queries never reach the model
        first, _ = timed_search(engine, QUESTION)
        second, elapsed = timed_search(engine, QUESTION)
    assert first["plan"]["rewrite"]["trigger"] == "gate" and not first["plan"]["rewrite"]["cached"]
    assert second["plan"]["rewrite"]["cached"] and second["plan"]["rewrite"]["terms"] == GOOD_REPLY["terms"]
    assert symbols(second) == symbols(first)
    assert len(server.requests) == 1
    # another process (a new engine) finds the cached rewrite in the index file
    with open_engine(repo, server.url("fenced"), rewrite_enabled=True) as engine:
        third, _ = timed_search(engine, QUESTION)
    assert third["plan"]["rewrite"]["cached"] and len(server.requests) == 1


def test_zero_results_fall_back_to_a_rewrite(repo: Path, server: ChatServer) -> None:
    with open_engine(repo, server.url("good"), rewrite_enabled=True) as engine:
        data, _ = timed_search(engine, "xyzzy plugh", mode="lexical")
        off, _ = timed_search(engine, "xyzzy plugh", mode="lexical", rewrite=False)
    assert data["plan"]["rewrite"]["trigger"] == "zero_results"
    assert "charge_card" in symbols(data) and off["hits"] == []


def test_the_models_focus_moves_tests_up_or_down(repo: Path, server: ChatServer) -> None:
    ranked = {}
    for focus in ("tests", "implementation"):
        # a model name per focus, so the second search is no cache hit of the first
        with open_engine(repo, server.url(focus), rewrite_model=f"stand-in-{focus}") as engine:
            data, _ = timed_search(engine, "how do we keep items aside for a buyer", rewrite=True, limit=50)
        assert data["plan"]["focus"] == focus and data["plan"]["rewrite"]["focus"] == focus
        ranked[focus] = symbols(data)
    tests_first, implementation_first = ranked["tests"], ranked["implementation"]
    assert tests_first.index("test_add_product") < tests_first.index("Inventory.add_product")
    assert implementation_first.index("test_add_product") > implementation_first.index(
        "Inventory.add_product"
    )


def test_a_new_segment_vocabulary_invalidates_the_cache(repo: Path, server: ChatServer) -> None:
    with open_engine(repo, server.url("good")) as engine:
        timed_search(engine, QUESTION, rewrite=True)
        timed_search(engine, QUESTION, rewrite=True)
        assert len(server.requests) == 1
        (repo / "shop" / "refunds.py").write_text("def issue_refund(order):\n    return order\n")
        data, _ = timed_search(engine, QUESTION, rewrite=True)  # the search refreshes the index first
    assert not data["plan"]["rewrite"]["cached"] and len(server.requests) == 2
    assert "issue_refund" in server.requests[-1]["body"]["messages"][1]["content"]


@pytest.mark.parametrize(
    ("behaviour", "reason"),
    [
        ("slow", "no complete reply within the 1 s timeout"),
        ("endless", "no complete reply within the 1 s timeout"),
        ("failing", "HTTP 500 .*model failed to load"),
        ("garbage", "API reply is not JSON"),
        ("prose", "unusable model reply"),
        ("refused", "cannot connect"),
    ],
)
def test_failures_leave_a_normal_result_within_the_bound(
    repo: Path, server: ChatServer, behaviour: str, reason: str
) -> None:
    url = (
        f"http://127.0.0.1:{closed_port()}/v1/chat/completions"
        if behaviour == "refused"
        else server.url(behaviour)
    )
    with open_engine(repo, url, rewrite_enabled=True) as engine:
        plain, plain_elapsed = timed_search(engine, QUESTION, rewrite=False)
        data, elapsed = timed_search(engine, QUESTION)
    rewrite = data["plan"]["rewrite"]
    assert rewrite["status"] == "failed" and rewrite["trigger"] == "gate" and rewrite["terms"] == []
    assert re.search(reason, rewrite["reason"]), rewrite["reason"]
    assert data["hits"] == plain["hits"]  # the answer is the plain search's
    assert elapsed < TIMEOUT + plain_elapsed + SEARCH_ALLOWANCE
    if behaviour in ("slow", "endless"):
        assert rewrite["latency_ms"] >= TIMEOUT * 1000 * 0.95
    else:
        assert rewrite["latency_ms"] < TIMEOUT * 1000


def test_a_hosted_api_gets_the_bearer_key_from_the_named_variable(repo: Path, server: ChatServer) -> None:
    options = {"rewrite_api_url": server.url("good"), "rewrite_api_key_env": "TEST_LLM_KEY", "workers": 1}
    from trifecta.interfaces.bootstrap import bootstrap
    from trifecta.interfaces.facade import Engine

    engine = Engine(bootstrap(str(repo), options, env={"TEST_LLM_KEY": "sk-loopback"}))
    try:
        data, _ = timed_search(engine, QUESTION, rewrite=True)
    finally:
        engine.close()
    assert data["plan"]["rewrite"]["status"] == "tried"
    assert server.requests[-1]["auth"] == "Bearer sk-loopback"
    with open_engine(repo, server.url("good"), rewrite_api_key_env="TEST_LLM_KEY_UNSET") as engine:
        data, _ = timed_search(engine, QUESTION + " now", rewrite=True)
    assert "TEST_LLM_KEY_UNSET is not set" in data["plan"]["rewrite"]["reason"]
    assert len(server.requests) == 1


def test_bad_rewrite_argument_is_an_input_error(repo: Path) -> None:
    with trifecta.open(str(repo), workers=1) as engine:
        response = engine.search(QUESTION, rewrite="yes").to_dict()  # type: ignore[arg-type]
    assert response["errors"][0]["code"] == "INVALID_ARGUMENT"


# --- the cache adapter over the real index file ---------------------------------------------------------


def test_cache_lives_in_the_index_file_and_follows_a_rebuild(repo: Path) -> None:
    db = repo / ".trifecta" / "index.db"
    cache = SqliteRewriteCache(db, max_rows=2)
    key = RewriteKey(query="q", model="m", vocabulary_version="v1")
    rewrite = RewrittenQuery(terms=("a b", "c"), focus=Focus.TESTS)
    assert cache.get(key) is None
    cache.put(key, rewrite)
    assert cache.get(key) == rewrite
    assert cache.get(RewriteKey(query="q", model="other", vocabulary_version="v1")) is None
    assert cache.get(RewriteKey(query="q", model="m", vocabulary_version="v2")) is None
    tables = {r[0] for r in sqlite3.connect(db).execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"rewrite_cache", "chunks", "meta"} <= tables
    for i in range(3):  # the table keeps the newest max_rows
        time.sleep(0.01)
        cache.put(RewriteKey(query=f"q{i}", model="m", vocabulary_version="v1"), rewrite)
    assert cache.get(key) is None and cache.get(RewriteKey(query="q2", model="m", vocabulary_version="v1"))
    # another version of the store finds an old schema and rebuilds the file: the cache follows it
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE meta SET value = 'old' WHERE key = 'schema_version'")
    rebuilt = SqliteIndex(db)
    assert rebuilt.rebuild_needed()
    assert cache.get(RewriteKey(query="q2", model="m", vocabulary_version="v1")) is None
    cache.put(key, rewrite)
    assert cache.get(key) == rewrite
    assert rebuilt.stats().files == 0  # the index tables are the store's, untouched by the cache
    rebuilt.close()
    cache.close()


# --- the command line ---------------------------------------------------------------------------------


def test_cli_rewrite_flag(repo: Path, server: ChatServer) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRIFECTA_")}
    env.update(TRIFECTA_REWRITE_API_URL=server.url("good"), TRIFECTA_WORKERS="1")
    base = [sys.executable, "-m", "trifecta.interfaces.cli.main", "ctx", "search", "--segment", str(repo)]
    run = subprocess.run(
        [*base, "-q", QUESTION, "-r", "--json"], capture_output=True, text=True, env=env, timeout=60
    )
    assert run.returncode == 0, run.stderr
    rewrite = json.loads(run.stdout)["data"]["plan"]["rewrite"]
    assert rewrite["status"] == "tried" and rewrite["terms"] == GOOD_REPLY["terms"]
    run = subprocess.run(
        [*base, "-q", QUESTION, "--no-rewrite", "--json"], capture_output=True, text=True, env=env, timeout=60
    )
    assert json.loads(run.stdout)["data"]["plan"]["rewrite"]["status"] == "skipped"
    assert len(server.requests) == 1
