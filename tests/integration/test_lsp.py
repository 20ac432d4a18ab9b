"""Hover and references through real language server processes: jedi-language-server on real files, and
small fake servers this test writes (one that never answers, one that hangs on requests, one that crashes,
one that fills stdout and stderr with noise), configured through the `lsp_command` setting.

Each answer is timed: a hung server must cost about the configured timeout, a killed one much less.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import trifecta
from trifecta.application.navigation import LanguageServerUnavailable
from trifecta.domain.contract import Response
from trifecta.infrastructure.lazy_language_server import LazyLanguageServer
from trifecta.interfaces.facade import Engine

REAL_SERVER = "real jedi-language-server: start-up ~0.7 s plus jedi's first inference per test"

FAKE_SERVER = r"""
import json, sys, time

mode = sys.argv[1]
sys.stderr.write("fake server: noise on stderr\n" * 50)
sys.stderr.flush()
if mode == "crash":
    sys.stderr.write("fatal: cannot start\n")
    sys.exit(3)
if mode == "stdout_noise":
    sys.stdout.write("GARBAGE NOT JSON-RPC\r\n\r\n")
    sys.stdout.flush()


def read():
    length = 0
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            sys.exit(0)
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    return json.loads(sys.stdin.buffer.read(length))


def send(message):
    body = json.dumps(message).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    sys.stdout.buffer.flush()


while True:
    message = read()
    method, ident = message.get("method"), message.get("id")
    if mode == "silent":
        continue  # never answers anything, initialize included
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": ident, "result": {"capabilities": {"hoverProvider": True, "referencesProvider": True}}})
    elif method == "shutdown":
        send({"jsonrpc": "2.0", "id": ident, "result": None})
    elif method == "exit":
        sys.exit(0)
    elif ident is None:
        continue  # notifications: didOpen, didClose, initialized
    elif mode == "hang":
        continue
    elif mode == "die_on_request":
        sys.stderr.write("segfault-ish: dying on " + method + "\n")
        sys.stderr.flush()
        sys.exit(7)
    elif mode == "error":
        send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32603, "message": "internal failure in fake"}})
    elif method == "textDocument/hover":
        send({"jsonrpc": "2.0", "id": ident, "result": {"contents": {"kind": "plaintext", "value": "def fake()\n---\nfrom the fake"}}})
    else:
        send({"jsonrpc": "2.0", "id": ident, "result": []})
"""

RESERVE = "sym://python/type/shop/inventory/Inventory#reserveStock"
INVENTORY = "sym://python/type/shop/inventory/Inventory"


@pytest.fixture
def fake_server(tmp_path: Path) -> Path:
    script = tmp_path / "fake_ls.py"
    script.write_text(FAKE_SERVER)
    return script


def open_engine(repo: Path, **options: Any) -> Engine:
    engine = trifecta.open(str(repo), **options)
    engine.index()
    return engine


def fake_engine(repo: Path, script: Path, mode: str, timeout: float = 1.0) -> Engine:
    return open_engine(repo, lsp_command=[sys.executable, str(script), mode], lsp_timeout=timeout)


def adapter(engine: Engine) -> Any:
    """The real adapter behind the engine's lazy proxy (its pid and start count)."""
    return engine._app.language_server.inner  # type: ignore[union-attr]


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie still answers kill(0): look at its state
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ")[1][0] != "Z"
    except OSError:
        return True


def wait_gone(pid: int, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.05)
    return False


def lsp_error(response: Response) -> dict[str, Any]:
    raw = response.to_dict()
    Response.from_dict(json.loads(json.dumps(raw)))
    assert raw["status"] == "error"
    (error,) = raw["errors"]
    assert error["code"] == "LSP_UNAVAILABLE", error
    return error


def timed(call: Any) -> tuple[Response, float]:
    started = time.monotonic()
    response = call()
    return response, time.monotonic() - started


# --- the real server --------------------------------------------------------------------------------------


@pytest.fixture
def jedi(sample_repo: Path) -> Iterator[Engine]:
    engine = open_engine(sample_repo, lsp_timeout=30)
    yield engine
    engine.close()


@pytest.mark.slow  # REAL_SERVER
def test_hover_and_refs_from_jedi_reuse_one_server_and_close_stops_it(jedi: Engine) -> None:
    hover = jedi.hover(RESERVE)
    assert hover.ok, hover.errors
    data = hover.data
    assert data["signature"] == "def reserveStock(self, sku: str, quantity: int) -> bool"
    assert data["hover"]["signature"] == "def reserveStock(self, sku: str, quantity: int) -> bool"
    assert "shop.inventory.Inventory.reserveStock" in data["content"]
    pid = adapter(jedi).pid
    assert pid is not None and alive(pid)

    refs = jedi.refs(RESERVE)
    assert refs.ok, refs.errors
    assert [(h["path"], h["symbol"]) for h in refs.data["hits"]] == [
        ("shop/checkout.py", "Checkout.place_order")
    ]
    hit = refs.data["hits"][0]
    assert hit["preview"] == "if not self.inventory.reserveStock(sku, quantity):"
    assert hit["uri"] == "sym://python/type/shop/checkout/Checkout#place_order"

    classes = jedi.refs(INVENTORY)
    places = {(h["path"], h["symbol"]) for h in classes.data["hits"]}
    assert ("shop/checkout.py", "Checkout.__init__") in places
    assert ("tests/test_inventory.py", "test_add_product") in places
    assert all(h["path"] != "shop/inventory.py" or h["line"] != 19 for h in classes.data["hits"])

    assert adapter(jedi).pid == pid and adapter(jedi).starts == 1  # one server for every request
    jedi.close()
    assert wait_gone(pid), "close() must stop the server"


@pytest.mark.slow  # REAL_SERVER
def test_a_server_killed_mid_request_answers_fast_and_the_next_call_gets_a_fresh_one(jedi: Engine) -> None:
    assert jedi.hover(INVENTORY).ok
    server = adapter(jedi)
    pid = server.pid
    os.kill(pid, signal.SIGSTOP)  # it can no longer answer: the next request is surely in flight when killed
    result: dict[str, Any] = {}
    worker = threading.Thread(target=lambda: result.update(answer=timed(lambda: jedi.hover(RESERVE))))
    worker.start()
    time.sleep(0.5)
    os.kill(pid, signal.SIGKILL)
    worker.join(20)
    response, seconds = result["answer"]

    error = lsp_error(response)
    assert error["data"]["reason"] == "exited" and "signal 9" in error["message"]
    assert response.data["signature"] == "def reserveStock(self, sku: str, quantity: int) -> bool"
    assert seconds < 5, f"a killed server must not cost the 30 s timeout ({seconds:.1f} s)"

    again = jedi.hover(RESERVE)
    assert again.ok, again.errors
    assert server.starts == 2 and server.pid not in (None, pid)


@pytest.mark.slow  # REAL_SERVER
def test_an_engine_nobody_closes_stops_its_server_at_exit(sample_repo: Path, tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    script = textwrap.dedent(
        f"""
        import trifecta
        engine = trifecta.open({str(sample_repo)!r})
        assert engine.hover({INVENTORY!r}).ok
        open({str(pid_file)!r}, "w").write(str(engine._app.language_server.inner.pid))
        print("done")
        """
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "done\n"  # nothing from the server on stdout
    assert wait_gone(int(pid_file.read_text()))


# --- fake servers: hung, crashing, erroring, noisy, missing --------------------------------------------------


def test_a_server_that_never_answers_initialize_costs_the_timeout_then_starts_fresh(
    sample_repo: Path, fake_server: Path
) -> None:
    engine = fake_engine(sample_repo, fake_server, "silent", timeout=1.0)
    try:
        for attempt in (1, 2):
            response, seconds = timed(lambda: engine.hover(RESERVE))
            error = lsp_error(response)
            assert error["data"]["reason"] == "timeout" and "initialize" in error["message"]
            assert 0.9 <= seconds < 4, seconds
            assert response.data["range"] == {"start_line": 35, "end_line": 41}
            assert adapter(engine).starts == attempt
    finally:
        engine.close()


def test_a_server_that_hangs_on_a_request_is_killed_after_the_timeout(
    sample_repo: Path, fake_server: Path
) -> None:
    engine = fake_engine(sample_repo, fake_server, "hang", timeout=1.0)
    try:
        response, seconds = timed(lambda: engine.refs(INVENTORY))
        error = lsp_error(response)
        assert error["data"]["reason"] == "timeout" and "references" in error["message"]
        assert "fake server: noise on stderr" in error["data"]["stderr_tail"]
        assert 0.9 <= seconds < 4, seconds
        assert response.data["hits"] == [] and response.data["signature"] == "class Inventory"
        pid = error["data"]["pid"]
        assert wait_gone(pid), "a hung server is killed"
    finally:
        engine.close()


def test_a_crashing_server_says_why_with_its_stderr(sample_repo: Path, fake_server: Path) -> None:
    engine = fake_engine(sample_repo, fake_server, "crash", timeout=5.0)
    try:
        response, seconds = timed(lambda: engine.hover(RESERVE))
        error = lsp_error(response)
        assert error["data"]["reason"] == "exited" and error["data"]["exit_code"] == 3
        assert "fatal: cannot start" in error["data"]["stderr_tail"]
        assert seconds < 4
    finally:
        engine.close()


def test_a_server_dying_on_a_request_is_replaced_by_the_next_call(
    sample_repo: Path, fake_server: Path
) -> None:
    engine = fake_engine(sample_repo, fake_server, "die_on_request", timeout=5.0)
    try:
        first = lsp_error(engine.hover(RESERVE))
        assert first["data"]["reason"] == "exited" and first["data"]["exit_code"] == 7
        assert "dying on textDocument/hover" in first["data"]["stderr_tail"]
        second = lsp_error(engine.refs(RESERVE))
        assert second["data"]["pid"] != first["data"]["pid"] and adapter(engine).starts == 2
    finally:
        engine.close()


def test_an_error_answer_keeps_the_server(sample_repo: Path, fake_server: Path) -> None:
    engine = fake_engine(sample_repo, fake_server, "error", timeout=5.0)
    try:
        error = lsp_error(engine.hover(RESERVE))
        assert error["data"]["reason"] == "request_failed" and "internal failure in fake" in error["message"]
        lsp_error(engine.hover(RESERVE))
        assert adapter(engine).starts == 1
    finally:
        engine.close()


def test_a_fake_that_answers_is_used_as_is(sample_repo: Path, fake_server: Path) -> None:
    engine = fake_engine(sample_repo, fake_server, "ok", timeout=5.0)
    try:
        response = engine.hover(RESERVE)
        assert response.ok and response.data["content"] == "def fake()\n---\nfrom the fake"
        refs = engine.refs(RESERVE)
        assert refs.ok and refs.data["hits"] == [] and refs.data["total"] == 0
    finally:
        engine.close()


def test_a_missing_server_is_lsp_unavailable_at_once(sample_repo: Path) -> None:
    engine = open_engine(sample_repo, lsp_command="/nonexistent/bin/language-server --stdio")
    try:
        response, seconds = timed(lambda: engine.refs(RESERVE))
        error = lsp_error(response)
        assert error["data"]["reason"] == "not_installed" and seconds < 1
        assert error["data"]["install"] == "pip install 'trifecta[lsp]'"
        assert "[lsp] command" in error["message"]
        assert response.data["uri"] == RESERVE
    finally:
        engine.close()


def test_a_stub_that_says_the_server_is_missing_is_not_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """rustup puts a rust-analyzer proxy on PATH that only fails until the component is added."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    stub = bin_dir / "rust-analyzer"
    stub.write_text(
        "#!/bin/sh\necho \"error: Unknown binary 'rust-analyzer' in official toolchain 'stable'.\" >&2\nexit 1\n"
    )
    stub.chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    router = LazyLanguageServer(tmp_path, None, 5.0)
    try:
        with pytest.raises(LanguageServerUnavailable) as info:
            router.hover("src/lib.rs", "fn main() {}\n", 1, 3)
        assert info.value.reason == "not_installed"
        assert info.value.details["install"] == "rustup component add rust-analyzer"
        assert info.value.details["exit_code"] == 1 and "Unknown binary" in info.value.details["stderr_tail"]
    finally:
        router.close()


@pytest.mark.slow  # REAL_SERVER
def test_a_segments_own_config_cannot_choose_the_server(sample_repo: Path, fake_server: Path) -> None:
    """[lsp] command runs a program: only the user's config, the environment or an option may set it."""
    config = sample_repo / ".trifecta" / "config.toml"
    config.parent.mkdir(exist_ok=True)
    config.write_text(f"[lsp]\ncommand = [{sys.executable!r}, {str(fake_server)!r}, 'ok']\n")
    engine = open_engine(sample_repo, lsp_timeout=30)
    try:
        hover = engine.hover(RESERVE)
        assert hover.ok, hover.errors
        assert "from the fake" not in hover.data["content"]
        assert "shop.inventory.Inventory.reserveStock" in hover.data["content"]  # jedi answered
        assert adapter(engine).command == ("jedi-language-server",)
    finally:
        engine.close()


@pytest.mark.slow  # three CLI processes, each importing Trifecta and indexing the sample repo
def test_the_cli_keeps_stdout_to_the_envelope_whatever_the_server_prints(
    sample_repo: Path, fake_server: Path
) -> None:
    env = {
        **os.environ,
        "TRIFECTA_LSP_COMMAND": f"{sys.executable} {fake_server} stdout_noise",
        "TRIFECTA_LSP_TIMEOUT": "5",
    }
    cmd = [
        sys.executable,
        "-m",
        "trifecta.interfaces.cli.main",
        "ast",
        "hover",
        RESERVE,
        "-s",
        str(sample_repo),
        "--json",
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=env)
    envelope = json.loads(proc.stdout)  # stdout is the envelope and nothing else
    Response.from_dict(envelope)
    assert proc.returncode == 0, proc.stderr
    assert envelope["data"]["content"] == "def fake()\n---\nfrom the fake"
    assert "GARBAGE" not in proc.stdout and "noise on stderr" not in proc.stdout + proc.stderr

    env["TRIFECTA_LSP_COMMAND"] = f"{sys.executable} {fake_server} hang"
    env["TRIFECTA_LSP_TIMEOUT"] = "1"
    human = subprocess.run([*cmd[:-1]], capture_output=True, text=True, timeout=60, env=env)
    assert human.returncode == 1
    assert "error [LSP_UNAVAILABLE]" in human.stderr and "(timeout)" in human.stderr
    assert human.stdout.startswith("# shop/inventory.py:35-41")  # the AST data still shown

    bad = subprocess.run(
        [
            sys.executable,
            "-m",
            "trifecta.interfaces.cli.main",
            "ast",
            "refs",
            "sym://python/type/shop/inventory/Nope",
            "-s",
            str(sample_repo),
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert bad.returncode == 2 and json.loads(bad.stdout)["errors"][0]["code"] == "SYMBOL_NOT_FOUND"
