"""`trifecta init` as a user runs it: a real subprocess on a copy of the fixture, real files, `git status`,
and the MCP entry it writes started by the official MCP client."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

import anyio
import attrs
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from trifecta.domain.contract import Response
from trifecta.infrastructure.config import Settings, load_settings

_SCRIPT = Path(sys.executable).parent / "trifecta"  # this interpreter's install, not another on PATH
EXE = str(_SCRIPT) if _SCRIPT.exists() else None
FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "sample_repo"


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    cmd = [EXE, *args] if EXE else [sys.executable, "-m", "trifecta", *args]
    env = {**os.environ, "TRIFECTA_WORKERS": "1"}
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=cwd, env=env)


def envelope(proc: subprocess.CompletedProcess[str]) -> dict:
    data = json.loads(proc.stdout)
    Response.from_dict(data)  # decodes back into the typed model
    return data


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A copy of the fixture as a fresh git repository with everything committed."""
    dest = tmp_path / "repo"
    shutil.copytree(FIXTURE, dest, ignore=shutil.ignore_patterns(".trifecta"))
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", "init", "-q", str(dest)], check=True, timeout=30)
    subprocess.run([*git, "-C", str(dest), "add", "-A"], check=True, timeout=30)
    subprocess.run([*git, "-C", str(dest), "commit", "-qm", "start"], check=True, timeout=30)
    return dest


def git_status(repo: Path) -> list[str]:
    out = subprocess.run(
        ["git", "-C", str(repo), "status", "--porcelain", "--untracked-files=all"],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    )
    return out.stdout.splitlines()


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }


@pytest.mark.timeout(120)
def test_the_first_index_keeps_trifecta_out_of_git_status(repo: Path) -> None:
    proc = run("index", str(repo))
    assert proc.returncode == 0, proc.stderr
    assert (repo / ".trifecta" / ".gitignore").read_text().splitlines()[-1] == "*"
    assert git_status(repo) == []  # 87 MB of index on django no longer shows


@pytest.mark.timeout(120)
def test_init_is_idempotent_and_says_so(repo: Path) -> None:
    first = run("init", str(repo), "--write", "--config")
    assert first.returncode == 0, first.stderr
    assert "created    .trifecta/.gitignore" in first.stdout
    written = snapshot(repo)
    assert {
        ".trifecta/.gitignore",
        ".trifecta/config.toml",
        ".mcp.json",
        ".cursor/mcp.json",
        "AGENTS.md",
    } <= set(written)
    # the only new entries git sees are the ones meant for the repository: not .trifecta/
    assert sorted(git_status(repo)) == ["?? .cursor/mcp.json", "?? .mcp.json", "?? AGENTS.md"]

    second = run("init", str(repo), "--write", "--config")
    assert second.returncode == 0, second.stderr
    assert "nothing to change: already set up" in second.stdout
    assert "created" not in second.stdout and "updated" not in second.stdout
    assert snapshot(repo) == written

    again = envelope(run("init", str(repo), "--write", "--config", "--json"))
    assert again["status"] == "ok" and again["kind"] == "init"
    assert again["data"]["changed"] is False
    assert {f["action"] for f in again["data"]["files"]} == {"unchanged"}
    assert snapshot(repo) == written


@pytest.mark.timeout(120)
def test_init_without_write_prints_and_writes_only_the_gitignore(repo: Path) -> None:
    proc = run("init", str(repo), "--json")
    assert proc.returncode == 0, proc.stderr
    data = envelope(proc)["data"]
    assert [f["path"] for f in data["files"]] == [".trifecta/.gitignore"]
    assert not (repo / ".mcp.json").exists() and not (repo / "AGENTS.md").exists()
    entry = data["clients"]["claude_desktop"]["config"]["mcpServers"]["trifecta"]
    assert entry["args"][-2:] == ["--segment", str(repo.resolve())]
    assert git_status(repo) == []
    human = run("init", str(repo))
    assert "Claude Code (.mcp.json)" in human.stdout and "Claude Desktop" in human.stdout
    assert "<!-- trifecta -->" in human.stdout and "nothing to change" in human.stdout


@pytest.mark.timeout(120)
def test_init_merges_json_and_never_clobbers(repo: Path) -> None:
    other = {"mcpServers": {"other": {"command": "x", "args": ["y"]}}, "theme": "dark"}
    (repo / ".mcp.json").write_text(json.dumps(other))
    (repo / ".cursor").mkdir()
    mine = {"mcpServers": {"trifecta": {"command": "/my/own/trifecta", "args": ["mcp", "--profile", "full"]}}}
    (repo / ".cursor" / "mcp.json").write_text(json.dumps(mine))
    (repo / ".trifecta").mkdir()
    (repo / ".trifecta" / "config.toml").write_text("[search]\nlint = true\n")
    (repo / "AGENTS.md").write_text("# Agents\n\nRun the tests with make test.")

    data = envelope(run("init", str(repo), "--write", "--config", "--json"))["data"]
    actions = {f["path"]: f["action"] for f in data["files"]}
    assert actions == {
        ".trifecta/.gitignore": "create",
        ".trifecta/config.toml": "kept",
        ".mcp.json": "update",
        ".cursor/mcp.json": "kept",
        "AGENTS.md": "update",
    }
    merged = json.loads((repo / ".mcp.json").read_text())
    assert merged["theme"] == "dark" and merged["mcpServers"]["other"] == other["mcpServers"]["other"]
    assert merged["mcpServers"]["trifecta"]["args"] == ["mcp", "--segment", str(repo.resolve())]
    assert json.loads((repo / ".cursor" / "mcp.json").read_text()) == mine  # the user's own entry stays
    assert (repo / ".trifecta" / "config.toml").read_text() == "[search]\nlint = true\n"
    agents = (repo / "AGENTS.md").read_text()
    assert agents.startswith("# Agents\n\nRun the tests with make test.\n\n<!-- trifecta -->")
    assert agents.count("<!-- trifecta -->") == 1
    run("init", str(repo), "--write")
    assert (repo / "AGENTS.md").read_text() == agents  # appended once


@pytest.mark.timeout(120)
def test_init_that_cannot_write_one_file_changes_nothing(repo: Path) -> None:
    (repo / ".cursor").write_text("not a folder\n")  # .cursor/mcp.json cannot be written
    before = snapshot(repo)
    proc = run("init", str(repo), "--write", "--config", "--json")
    assert proc.returncode == 1
    error = envelope(proc)["errors"][0]
    assert error["data"]["path"] == ".cursor/mcp.json" and "nothing was changed" in error["message"]
    assert "cannot write .cursor/mcp.json" in proc.stderr
    assert snapshot(repo) == before and not (repo / ".trifecta").exists()

    (repo / ".cursor").unlink()
    (repo / ".mcp.json").write_text("{not json")  # a file that does not parse is not rewritten
    proc = run("init", str(repo), "--write")
    assert proc.returncode == 1 and "not valid JSON" in proc.stderr
    assert (repo / ".mcp.json").read_text() == "{not json" and not (repo / "AGENTS.md").exists()


@pytest.mark.timeout(60)
def test_init_refuses_to_write_through_a_link(repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.md"
    outside.write_text("mine\n")
    (repo / "AGENTS.md").symlink_to(outside)
    proc = run("init", str(repo), "--write")
    assert proc.returncode == 1 and "symbolic link" in proc.stderr
    assert outside.read_text() == "mine\n"


@pytest.mark.timeout(60)
def test_init_of_a_missing_folder_is_segment_not_found(tmp_path: Path) -> None:
    proc = run("init", str(tmp_path / "nope"), "--json")
    assert proc.returncode == 2
    assert envelope(proc)["errors"][0]["code"] == "SEGMENT_NOT_FOUND"


def test_the_config_template_holds_every_setting_at_its_default(repo: Path) -> None:
    proc = run("init", str(repo), "--config")
    assert proc.returncode == 0, proc.stderr
    text = (repo / ".trifecta" / "config.toml").read_text()
    assert all(table == {} for table in tomllib.loads(text).values())  # all commented out
    body = text[text.index("\n[") :]
    uncommented = "\n".join(line.removeprefix("# ") for line in body.splitlines())
    (repo / ".trifecta" / "config.toml").write_text(uncommented)
    loaded = load_settings(repo, {"trust_segment_config": True}, env={})
    default = Settings(segment=repo.resolve(), db_path=repo.resolve() / ".trifecta" / "index.db")
    examples = {"db_url", "segment_id", "workers", "refresh_interval", "embed_model_path"}
    for field in attrs.fields(Settings):
        if field.name not in examples | {"untrusted", "trust_outdated"}:
            assert getattr(loaded, field.name) == getattr(default, field.name), field.name
    written = {key.split("=")[0].strip() for key in uncommented.splitlines() if "=" in key}
    assert {"db_path", "max_bytes_total", "provider", "command", "enabled", "max_bytes"} <= written


async def _index_status(command: str, args: list[str]) -> dict:
    params = StdioServerParameters(command=command, args=args, env={**os.environ, "TRIFECTA_WORKERS": "1"})
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write, read_timeout_seconds=60) as session,
    ):
        await session.initialize()
        result = await session.call_tool("index_status", {})
        return dict(result.structured_content or {})


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_the_written_mcp_entry_starts_our_server(repo: Path) -> None:
    proc = run("init", str(repo), "--write")
    assert proc.returncode == 0, proc.stderr
    entry = json.loads((repo / ".mcp.json").read_text())["mcpServers"]["trifecta"]
    answer = anyio.run(_index_status, entry["command"], entry["args"])
    assert answer["status"] == "ok" and answer["data"]["segment"] == str(repo.resolve())


@pytest.mark.timeout(60)
def test_init_on_a_read_only_folder_says_what_it_could_not_write() -> None:
    with tempfile.TemporaryDirectory() as top:  # not under pytest's tmp_path: that is private to root
        _read_only_case(Path(top))


def _read_only_case(tmp_path: Path) -> None:
    segment = tmp_path / "ro"
    segment.mkdir()
    (segment / "a.py").write_text("def f():\n    pass\n")
    prefix: list[str] = []
    if os.geteuid() == 0:  # root writes anywhere: run as nobody
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv")
        prefix = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]
        tmp_path.chmod(0o755)
    segment.chmod(0o555)
    try:
        cmd = [EXE] if EXE else [sys.executable, "-m", "trifecta"]
        proc = subprocess.run(
            [*prefix, *cmd, "init", str(segment), "--write", "--json"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        segment.chmod(0o755)
    assert proc.returncode == 1, proc.stderr
    error = envelope(proc)["errors"][0]
    assert error["data"]["path"] == ".trifecta/.gitignore" and "read-only" in error["message"]
    assert sorted(p.name for p in segment.iterdir()) == ["a.py"]
