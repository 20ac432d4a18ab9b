"""A shared index whose server goes away: a restart in the middle of indexing loses or half-writes no file
(the run fails clearly, the previous index stays whole, the next run completes); a stopped server is
INDEX_UNAVAILABLE (exit 1) naming the URL without its password; a server where pg_trgm cannot be created
still works and says what falls back."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))
import trifecta  # noqa: E402
from postgres_server import Server, bindir, controlled_server, new_database  # noqa: E402

pytestmark = [
    pytest.mark.timeout(240),
    pytest.mark.skipif(bindir() is None, reason="PostgreSQL is not installed (scripts/test installs it)"),
]
RUN = [sys.executable, "-m", "trifecta"]
FILES = 400


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    with controlled_server() as started:
        yield started


def _env(url: str | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "TRIFECTA_DB_URL"}
    env.update({"TRIFECTA_NO_TELEMETRY": "1", "TRIFECTA_CONFIG_HOME": "/nonexistent-trifecta-config"})
    if url:
        env["TRIFECTA_DB_URL"] = url
    return env


def _write_version(repo: Path, version: int) -> None:
    for i in range(FILES):
        (repo / f"mod_{i:03d}.py").write_text(
            "".join(
                f"def handler_{i}_{j}_v{version}(value):\n"
                f'    """Version {version} of handler {j} in module {i}."""\n'
                f"    return value * {version} + {j}\n\n\n"
                for j in range(6)
            )
        )


def _rows(url: str, segment: str) -> tuple[dict[str, str], dict[str, set[str]], int, int]:
    """path -> stored sha256; path -> the versions its chunks and content say; orphan chunks; orphan symbols."""
    with psycopg.connect(url) as conn:
        sid = conn.execute("SELECT id FROM trifecta_segments WHERE name=%s", (segment,)).fetchone()[0]
        files = {
            path: (sha, content)
            for path, sha, content in conn.execute(
                "SELECT path, sha256, content FROM trifecta_files WHERE segment_id=%s", (sid,)
            )
        }
        versions: dict[str, set[str]] = {}
        for path, body in conn.execute(
            "SELECT c.path, c.body FROM trifecta_chunks c WHERE c.segment_id=%s AND c.kind != 'module'",
            (sid,),
        ):
            versions.setdefault(path, set()).add(body.split("_v", 1)[1].split("(", 1)[0])
        orphans = [
            conn.execute(
                f"SELECT count(*) FROM {table} t WHERE t.segment_id=%s AND NOT EXISTS (SELECT 1 FROM "
                "trifecta_files f WHERE f.segment_id = t.segment_id AND f.id = t.file_id)",
                (sid,),
            ).fetchone()[0]
            for table in ("trifecta_chunks", "trifecta_symbols")
        ]
    for path, (sha, content) in files.items():
        assert hashlib.sha256(content.encode()).hexdigest() == sha, path  # stored text is the indexed text
        versions.setdefault(path, set()).add(content.split("_v", 1)[1].split("(", 1)[0])
    return {p: s for p, (s, _) in files.items()}, versions, orphans[0], orphans[1]


def test_a_restart_in_the_middle_of_indexing_leaves_every_file_whole_and_the_next_run_completes(
    server: Server, tmp_path: Path
) -> None:
    url = new_database(server.url, "restart")
    repo = tmp_path / "repo"
    repo.mkdir()
    _write_version(repo, 1)
    first = subprocess.run(
        [*RUN, "index", "--db-url", url, str(repo)], env=_env(), capture_output=True, timeout=180
    )
    assert first.returncode == 0, first.stderr
    _write_version(repo, 2)
    with psycopg.connect(url) as conn:
        generation = conn.execute("SELECT generation FROM trifecta_segments WHERE name='repo'").fetchone()[0]
    run = subprocess.Popen(
        [*RUN, "index", "--db-url", url, "--json", str(repo)],
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:  # the first batch of version 2 is committed: restart now
            with psycopg.connect(url) as conn:
                now = conn.execute("SELECT generation FROM trifecta_segments WHERE name='repo'").fetchone()[0]
            if now > generation:
                break
            time.sleep(0.02)
        server.stop("immediate")
        server.start()
        out, err = run.communicate(timeout=120)
    finally:
        run.kill()
    assert run.returncode == 1, (out, err)
    error = json.loads(out)["errors"][0]
    assert error["code"] == "INDEX_UNAVAILABLE" and "nothing half-written" in error["message"]
    shas, versions, orphan_chunks, orphan_symbols = _rows(url, "repo")
    assert (orphan_chunks, orphan_symbols) == (0, 0)
    assert len(shas) == FILES  # no file lost
    assert all(len(v) == 1 for v in versions.values()), "a file's rows mix two versions"
    mixed = {next(iter(v)) for v in versions.values()}
    assert mixed == {"1", "2"}, "the restart came after the first batch and before the last"
    again = subprocess.run(
        [*RUN, "index", "--db-url", url, str(repo)], env=_env(), capture_output=True, timeout=180
    )
    assert again.returncode == 0, again.stderr
    _, versions, *_ = _rows(url, "repo")
    assert all(v == {"2"} for v in versions.values()) and len(versions) == FILES


def test_a_stopped_server_is_index_unavailable_and_exit_1(server: Server, tmp_path: Path) -> None:
    url = new_database(server.url, "stopped")
    repo = tmp_path / "small"
    repo.mkdir()
    (repo / "a.py").write_text("def alpha():\n    return 1\n")
    with trifecta.open(repo, db_url=url) as engine:
        engine.index()
    secret = url.replace("trifecta@", "trifecta:s3cret@")
    server.stop("fast")
    try:
        for args in (
            ["ctx", "search", "-q", "alpha", "-s", "small", "--json"],
            ["status", "-s", str(repo), "--json"],
        ):
            done = subprocess.run([*RUN, *args], env=_env(secret), capture_output=True, text=True, timeout=60)
            error = json.loads(done.stdout)["errors"][0]
            assert done.returncode == 1 and error["code"] == "INDEX_UNAVAILABLE", done.stdout
            assert "s3cret" not in done.stdout + done.stderr and "trifecta:***@127.0.0.1" in error["message"]
    finally:
        server.start()


def test_without_the_right_to_create_pg_trgm_search_works_and_says_what_falls_back(
    server: Server, tmp_path: Path
) -> None:
    admin = new_database(server.url, "notrgm")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute("DROP ROLE IF EXISTS plain")
        conn.execute("CREATE ROLE plain LOGIN")
        conn.execute("REVOKE CREATE ON DATABASE notrgm FROM PUBLIC")
        conn.execute("GRANT CREATE, USAGE ON SCHEMA public TO plain")
    url = admin.replace("trifecta@", "plain@")
    repo = tmp_path / "plain"
    repo.mkdir()
    (repo / "a.py").write_text("def alpha_beta():\n    return 'needle in here'\n")
    with trifecta.open(repo, db_url=url) as engine:
        engine.index()
        status = engine.status().to_dict()["data"]
        assert any(f.startswith("pg_trgm") for f in status["fallbacks"]), status
        found = engine.search("needle in here", mode="pattern").to_dict()["data"]
        assert [h["symbol"] for h in found["hits"]] == ["alpha_beta"]
        assert any(f.startswith("pg_trgm") for f in found["plan"]["fallbacks"])
