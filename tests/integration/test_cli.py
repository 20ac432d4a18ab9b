"""The `trifecta` command as a user runs it: a real subprocess, real files, exit codes, JSON on stdout."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from trifecta.domain.contract import Response

# The console script of the interpreter running the tests (a `trifecta` elsewhere on PATH may be another install).
_SCRIPT = Path(sys.executable).parent / "trifecta"
EXE = str(_SCRIPT) if _SCRIPT.exists() else None


def run(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    cmd = [EXE, *args] if EXE else [sys.executable, "-m", "trifecta", *args]
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=cwd, env=full_env)


def envelope(proc: subprocess.CompletedProcess[str]) -> dict:
    data = json.loads(proc.stdout)
    Response.from_dict(data)  # decodes back into the typed model
    return data


def test_version() -> None:
    proc = run("--version")
    assert proc.returncode == 0 and proc.stdout.startswith("trifecta ")


def test_search_json_builds_the_index_with_progress_on_stderr(sample_repo: Path) -> None:
    proc = run(
        "ctx", "search", "--segment", str(sample_repo), "--query", "parse an HTTP header line", "--json"
    )
    assert proc.returncode == 0, proc.stderr
    data = envelope(proc)
    assert data["status"] == "ok" and data["kind"] == "search"
    assert data["data"]["hits"][0]["symbol"] == "parse_http_header"
    assert "indexing" in proc.stderr
    assert data["next_actions"][0] == (
        f"trifecta ast snippet sym://python/type/shop/checkout/parse_http_header --segment {sample_repo.resolve()}"
    )


def test_search_human_output(sample_repo: Path) -> None:
    proc = run("ctx", "search", "-s", str(sample_repo), "-q", "reserve stock")
    assert proc.returncode == 0
    assert "shop/inventory.py:" in proc.stdout and "Inventory.reserveStock" in proc.stdout
    assert "\x1b[" not in proc.stdout  # no colour when stdout is not a terminal


def test_the_query_may_be_the_argument_but_is_given_once(sample_repo: Path) -> None:
    proc = run("ctx", "search", "-s", str(sample_repo), "parse an HTTP header line", "--json")
    assert proc.returncode == 0, proc.stderr
    assert envelope(proc)["data"]["hits"][0]["symbol"] == "parse_http_header"
    neither = run("ctx", "search", "-s", str(sample_repo))
    assert neither.returncode == 2 and "what to look for" in neither.stderr
    both = run("ctx", "search", "-s", str(sample_repo), "parse", "-q", "header")
    assert both.returncode == 2 and "not both" in both.stderr


def test_zero_hits_is_success(sample_repo: Path) -> None:
    proc = run("ctx", "search", "-s", str(sample_repo), "-q", "zzqxv_nothing_like_this", "--json")
    assert proc.returncode == 0
    assert envelope(proc)["data"]["hits"] == []


def test_bad_input_exits_2_with_message_on_stderr(sample_repo: Path) -> None:
    proc = run("ctx", "search", "-s", str(sample_repo), "-q", "   ", "--json")
    assert proc.returncode == 2
    assert envelope(proc)["errors"][0]["code"] == "EMPTY_QUERY"
    assert "EMPTY_QUERY" in proc.stderr
    missing = run("ctx", "search", "-s", str(sample_repo / "nope"), "-q", "x")
    assert missing.returncode == 2 and "not a directory" in missing.stderr
    outside = run("ctx", "get", "-s", str(sample_repo), "--path", "../../etc/passwd", "--json")
    assert outside.returncode == 2 and envelope(outside)["errors"][0]["code"] == "PATH_OUTSIDE_SEGMENT"


def test_get_by_id_from_a_search_hit(sample_repo: Path) -> None:
    hit = envelope(run("ctx", "search", "-s", str(sample_repo), "-q", "validate input", "--json"))["data"][
        "hits"
    ][0]
    proc = run("ctx", "get", "-s", str(sample_repo), "--id", hit["id"], "--json")
    assert proc.returncode == 0
    assert envelope(proc)["data"]["content"].startswith("def validate_input")


def test_index_command_reports(sample_repo: Path) -> None:
    proc = run("index", str(sample_repo), "--json")
    assert proc.returncode == 0, proc.stderr
    data = envelope(proc)["data"]
    assert data["files_indexed"] >= 8 and data["skipped"]["secret"] == 2
    again = envelope(run("index", str(sample_repo), "--json"))["data"]
    assert again["files_indexed"] == 0


def test_config_file_and_environment(sample_repo: Path, tmp_path: Path) -> None:
    (sample_repo / ".trifecta").mkdir()
    (sample_repo / ".trifecta" / "config.toml").write_text('[index]\nexclude = ["docs/"]\n')
    db = tmp_path / "elsewhere.db"
    proc = run("index", str(sample_repo), "--json", env={"TRIFECTA_DB": str(db)})
    assert proc.returncode == 0 and db.is_file()
    assert envelope(proc)["data"]["skipped"]["ignored"] == 3  # docs/ joins ignored_dir/ and app.log
    bad = run("index", str(sample_repo), env={"TRIFECTA_MAX_FILE_BYTES": "lots"})
    assert bad.returncode == 2 and "max_file_bytes must be an integer" in bad.stderr


@pytest.mark.parametrize(
    ("command", "query", "field", "value"),
    [
        ("lint", "config", "query_class", "vague"),
        ("lint", "update telemetry logic", "query_class", "semi"),
        ("classify", "Find class definitions", "category", "structural"),
        ("classify", 'Find "authenticate()"', "category", "pattern"),
    ],
)
def test_lint_and_classify_json(command: str, query: str, field: str, value: str) -> None:
    proc = run("ctx", command, "--query", query, "--json")
    assert proc.returncode == 0
    assert envelope(proc)["data"][field] == value


@pytest.mark.parametrize("query", ['"', "sym://", "\\x00", "((((", "--", "🙂" * 500])
def test_hostile_strings_through_the_cli(query: str) -> None:
    for command in ("lint", "classify"):
        proc = run("ctx", command, "--query", query, "--json")
        assert proc.returncode == 0, proc.stderr
        envelope(proc)


def test_ast_zoom_from_search_hit(sample_repo: Path) -> None:
    hit = envelope(run("ctx", "search", "-s", str(sample_repo), "-q", "reserve stock", "--json"))["data"][
        "hits"
    ][0]
    assert hit["uri"] == "sym://python/type/shop/inventory/Inventory#reserveStock"
    snippet = envelope(run("ast", "snippet", hit["uri"], "-s", str(sample_repo), "--json"))
    assert snippet["kind"] == "snippet"
    assert snippet["data"]["range"] == {"start_line": hit["start_line"], "end_line": hit["end_line"]}
    skeleton = envelope(
        run("ast", "symbols", "sym://python/mod/shop/inventory", "-s", str(sample_repo), "--json")
    )
    assert [s["name"] for s in skeleton["data"]["symbols"]][:3] == [
        "MAX_STOCK",
        "Product",
        "Inventory",
    ] or any(s["name"] == "Inventory" for s in skeleton["data"]["symbols"])


@pytest.mark.parametrize(
    ("uri", "code"),
    [
        ("sym://python/User", "INVALID_SELECTOR_SYNTAX"),
        ("sym://cobol/mod/x", "LANGUAGE_NOT_SUPPORTED"),
        ("sym://python/type/utils/slugify", "AMBIGUOUS_SYMBOL"),
        ("sym://python/type/shop/inventory/Nope", "SYMBOL_NOT_FOUND"),
        ("sym://python/type/shop/broken/ok", "SYMBOL_NOT_FOUND"),
        ("not a selector at all", "INVALID_SELECTOR_SYNTAX"),
    ],
)
def test_ast_fails_closed(sample_repo: Path, uri: str, code: str) -> None:
    proc = run("ast", "snippet", uri, "-s", str(sample_repo), "--json")
    assert proc.returncode == 2, proc.stderr
    assert envelope(proc)["errors"][0]["code"] == code


def test_human_output_never_sends_a_repositorys_control_characters_to_the_terminal(tmp_path: Path) -> None:
    seg = tmp_path / "seg"
    seg.mkdir()
    name = "esc_\x1b[31mred.py"  # a file name and a body with colour, title and clear-screen sequences
    (seg / name).write_text('def esc_fn():\n    return "\x1b]0;pwned\x07\x1b[2J \u202e"\n')
    search = run("ctx", "search", "-s", str(seg), "-q", "esc_fn")
    source = run("ctx", "get", "-s", str(seg), "--path", name)
    assert search.returncode == 0 and source.returncode == 0, (search.stderr, source.stderr)
    for out in (search.stdout, search.stderr, source.stdout, source.stderr):
        assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    assert "esc_\\x1b[31mred.py" in search.stdout and "\\x1b]0;pwned\\x07" in source.stdout
    as_json = envelope(run("ctx", "get", "-s", str(seg), "--path", name, "--json"))
    assert "\x1b]0;pwned" in as_json["data"]["content"]  # JSON carries the text as it is, escaped by JSON
