"""A hostile `.trifecta/config.toml` against the real `trifecta` command: a subprocess, a real SQLite file,
a real HTTP server on 127.0.0.1. The user's config folder is always a temp dir (TRIFECTA_CONFIG_HOME)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

import trifecta
from trifecta.domain.contract import Response

_SCRIPT = Path(sys.executable).parent / "trifecta"
EXE = str(_SCRIPT) if _SCRIPT.exists() else None
TOKEN = "ghp_" + "s3cret" * 6
SYMBOL = "sym://python/type/shop/checkout/parse_http_header"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "config-home"
    folder.mkdir()
    return folder


def run(home: Path, *args: str, timeout: float = 120, **env: str) -> subprocess.CompletedProcess[str]:
    cmd = [EXE, *args] if EXE else [sys.executable, "-m", "trifecta", *args]
    full_env = {**os.environ, "TRIFECTA_CONFIG_HOME": str(home), **env}
    full_env.pop("TRIFECTA_TRUST", None)
    full_env.update(env)
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=full_env)


def envelope(proc: subprocess.CompletedProcess[str]) -> dict:
    data = json.loads(proc.stdout)
    Response.from_dict(data)
    return data


def warning_codes(data: dict) -> list[str]:
    return [w["code"] for w in data.get("warnings", [])]


def write_config(segment: Path, text: str) -> None:
    (segment / ".trifecta").mkdir(exist_ok=True)
    (segment / ".trifecta" / "config.toml").write_text(text)


def search(home: Path, segment: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return run(home, "ctx", "search", "-s", str(segment), "-q", "parse an HTTP header line", "--json", **env)


# --- [index] db_path -----------------------------------------------------------------------------------------


@pytest.mark.timeout(180)
@pytest.mark.parametrize("where", ["absolute", "home", "dotdot"])
def test_a_segment_db_path_never_touches_a_file_outside(
    sample_repo: Path, home: Path, tmp_path: Path, where: str
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes, not a database\n")
    value = {"absolute": str(notes), "home": "~/notes.txt", "dotdot": "../notes.txt"}[where]
    write_config(sample_repo, f'[index]\ndb_path = "{value}"\n')
    proc = search(home, sample_repo, HOME=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    data = envelope(proc)
    assert data["data"]["hits"], "the search still works on a cloned repository"
    assert notes.read_text() == "my notes, not a database\n"
    assert not Path(f"{notes}-wal").exists() and not Path(f"{notes}-shm").exists()
    assert (sample_repo / ".trifecta" / "index.db").is_file()  # the default place instead
    assert "CONFIG_UNTRUSTED" in warning_codes(data)
    assert "[index] db_path" in proc.stderr and "trifecta trust" in proc.stderr


@pytest.mark.timeout(180)
def test_an_index_db_symlinked_to_a_file_outside_is_refused(
    sample_repo: Path, home: Path, tmp_path: Path
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    (sample_repo / ".trifecta").mkdir()
    (sample_repo / ".trifecta" / "index.db").symlink_to(notes)
    proc = search(home, sample_repo)
    assert proc.returncode == 2 and "outside" in proc.stderr
    assert notes.read_text() == "my notes\n" and not Path(f"{notes}-wal").exists()


@pytest.mark.timeout(60)
def test_a_symlinked_trifecta_folder_is_refused(sample_repo: Path, home: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (sample_repo / ".trifecta").symlink_to(outside)
    proc = search(home, sample_repo)
    assert proc.returncode == 2 and "symlink" in proc.stderr
    assert list(outside.iterdir()) == []


@pytest.mark.timeout(30)
def test_a_fifo_config_does_not_hang(sample_repo: Path, home: Path) -> None:
    (sample_repo / ".trifecta").mkdir()
    os.mkfifo(sample_repo / ".trifecta" / "config.toml")
    proc = search(home, sample_repo, timeout=20)
    assert proc.returncode == 2 and "not a regular file" in proc.stderr


# --- the embedder's token --------------------------------------------------------------------------------------


class TokenServer:
    """OpenAI-compatible POST /v1/embeddings on 127.0.0.1 that records every request's Authorization."""

    def __init__(self) -> None:
        self.auth: list[str] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the http.server API
                server.auth.append(self.headers.get("Authorization", ""))
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                data = [{"index": i, "embedding": vector(t)} for i, t in enumerate(body["input"])]
                raw = json.dumps({"object": "list", "data": data}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, *args: object) -> None:
                return None

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def vector(text: str) -> list[float]:
    digest = hashlib.sha256(text.encode()).digest()
    return [b / 255 + 0.01 for b in digest[:16]]


@pytest.fixture
def token_server() -> Iterator[TokenServer]:
    server = TokenServer()
    yield server
    server.close()


@pytest.mark.timeout(240)
def test_the_token_goes_nowhere_until_the_segment_is_trusted(
    sample_repo: Path, home: Path, token_server: TokenServer
) -> None:
    write_config(
        sample_repo,
        f'[embedding]\nprovider = "openai"\napi_url = "{token_server.url}"\nmodel = "bow"\n'
        'api_key_env = "TRIFECTA_TEST_TOKEN"\n'
        f'[query_rewrite]\nenabled = true\napi_url = "{token_server.url}/chat/completions"\n'
        'api_key_env = "TRIFECTA_TEST_TOKEN"\n',
    )
    proc = search(home, sample_repo, TRIFECTA_TEST_TOKEN=TOKEN)
    assert proc.returncode == 0, proc.stderr
    data = envelope(proc)
    assert token_server.auth == []  # not one request reached the repository's URL
    assert "CONFIG_UNTRUSTED" in warning_codes(data)
    ignored = next(w for w in data["warnings"] if w["code"] == "CONFIG_UNTRUSTED")["data"]["ignored"]
    assert {"[embedding] api_url", "[embedding] api_key_env", "[embedding] provider"} <= set(ignored)
    assert {"[query_rewrite] api_url", "[query_rewrite] api_key_env"} <= set(ignored)

    trusted = run(home, "trust", str(sample_repo))
    assert trusted.returncode == 0, trusted.stderr
    assert "[embedding] api_url" in trusted.stdout and str(home / "trusted.toml") in trusted.stdout
    proc = search(home, sample_repo, TRIFECTA_TEST_TOKEN=TOKEN)
    assert proc.returncode == 0, proc.stderr
    assert "CONFIG_UNTRUSTED" not in warning_codes(envelope(proc))
    assert token_server.auth and set(token_server.auth) == {f"Bearer {TOKEN}"}  # now the user chose it


# --- [lsp] command -------------------------------------------------------------------------------------------------


@pytest.mark.timeout(180)
def test_a_segment_lsp_command_does_not_run(sample_repo: Path, home: Path, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    write_config(sample_repo, f'[lsp]\ncommand = ["touch", "{marker}"]\ntimeout = 2\n')
    proc = run(home, "ast", "hover", SYMBOL, "-s", str(sample_repo), "--json")
    assert not marker.exists()
    assert "CONFIG_UNTRUSTED" in warning_codes(envelope(proc)) and "[lsp] command" in proc.stderr
    # the same config, trusted for one call: the command runs (so the check above could fail)
    run(home, "ast", "hover", SYMBOL, "-s", str(sample_repo), "--json", TRIFECTA_TRUST="1")
    assert marker.exists()


# --- the user's own config, and `trifecta trust` -------------------------------------------------------------------


@pytest.mark.timeout(180)
def test_the_user_config_is_honoured(sample_repo: Path, home: Path, tmp_path: Path) -> None:
    db = tmp_path / "my-indexes" / "repo.db"
    db.parent.mkdir()
    (home / "config.toml").write_text(f'[index]\ndb_path = "{db}"\nexclude = ["shop/"]\n')
    proc = search(home, sample_repo)
    assert proc.returncode == 0, proc.stderr
    data = envelope(proc)
    assert db.is_file() and not (sample_repo / ".trifecta" / "index.db").exists()
    assert not any(h["path"].startswith("shop/") for h in data["data"]["hits"]) and "warnings" not in data


@pytest.mark.timeout(60)
def test_trust_list_and_remove(sample_repo: Path, home: Path) -> None:
    write_config(sample_repo, '[lsp]\ncommand = ["pylsp"]\n')
    assert run(home, "trust", "--list").stdout.startswith("no trusted segments")
    assert run(home, "trust", str(sample_repo)).returncode == 0
    listed = run(home, "trust", "--list").stdout
    assert f"{sample_repo.resolve()}\tok" in listed
    write_config(sample_repo, '[lsp]\ncommand = ["touch", "/tmp/x"]\n')
    assert "config changed" in run(home, "trust", "--list").stdout
    assert run(home, "trust", "--remove", str(sample_repo)).returncode == 0
    assert str(sample_repo.resolve()) not in run(home, "trust", "--list").stdout
    again = run(home, "trust", "--remove", str(sample_repo))
    assert again.returncode == 1 and "not trusted" in again.stderr


def test_the_facade_option_trusts_for_one_engine(
    sample_repo: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRIFECTA_CONFIG_HOME", str(home))
    monkeypatch.delenv("TRIFECTA_TRUST", raising=False)
    write_config(sample_repo, '[lsp]\ncommand = ["pylsp", "--check"]\n')
    with trifecta.open(str(sample_repo)) as engine:
        warnings = engine.stats().to_dict().get("warnings", [])
        assert [w["code"] for w in warnings] == ["CONFIG_UNTRUSTED"]
        assert "trifecta trust" in warnings[0]["message"]
    with trifecta.open(str(sample_repo), trust_segment_config=True) as engine:
        assert "warnings" not in engine.stats().to_dict()
