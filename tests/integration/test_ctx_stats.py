"""Telemetry end to end: real CLI subprocesses and a real Engine write JSONL events under
<segment>/.trifecta/telemetry/, and `trifecta ctx stats` reads them back."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import trifecta
from trifecta.domain.contract import Response

_SCRIPT = Path(sys.executable).parent / "trifecta"  # this interpreter's install, not another on PATH
EXE = str(_SCRIPT) if _SCRIPT.exists() else None


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    cmd = [EXE, *args] if EXE else [sys.executable, "-m", "trifecta", *args]
    inherited = {k: v for k, v in os.environ.items() if k != "TRIFECTA_NO_TELEMETRY"}
    full_env = {**inherited, "TRIFECTA_WORKERS": "1", **(env or {})}
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=full_env)


def events_of(segment: Path) -> list[dict]:
    path = segment / ".trifecta" / "telemetry" / "events.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_a_cli_session_adds_up_in_ctx_stats(sample_repo: Path) -> None:
    seg = str(sample_repo)
    for query in ("parse an HTTP header line", "zzqxv_nothing_like_this", "ZZQXV_nothing_like_this"):
        assert run("ctx", "search", "-s", seg, "-q", query, "--json").returncode == 0
    assert run("ctx", "search", "-s", seg, "-q", "config", "--lint", "--json").returncode == 0
    assert run("ctx", "search", "-s", seg, "-q", "   ", "--json").returncode == 2
    assert run("ctx", "get", "-s", seg, "--path", "shop/utils.py", "--json").returncode == 0
    assert run("ast", "snippet", "sym://python/type/shop/checkout/nope", "-s", seg, "--json").returncode == 2

    events = events_of(sample_repo)
    assert [e["command"] for e in events] == ["ctx.search"] * 5 + ["ctx.get", "ast.snippet"]
    assert {e["origin"] for e in events} == {"cli"}
    assert all(isinstance(e["took_ms"], float) and e["ts"].endswith("+00:00") for e in events)

    proc = run("ctx", "stats", "-s", seg, "--json")
    assert proc.returncode == 0, proc.stderr
    envelope = json.loads(proc.stdout)
    Response.from_dict(envelope)
    data = envelope["data"]
    assert data["events"] == 7 and data["by_origin"] == {"cli": 7}
    search = data["search"]
    assert search["searches"] == 4 and search["zero_hit"] == 2 and search["hit_rate"] == 0.5
    assert search["top_zero_hit_queries"] == [{"query": "zzqxv_nothing_like_this", "count": 2}]
    assert search["by_linter_class"] == {"disabled": 3, "vague": 1}
    assert sum(search["by_route"].values()) == 4
    assert data["commands"]["ctx.search"]["count"] == 5 and data["commands"]["ctx.search"]["errors"] == 1
    assert 0 < data["commands"]["ctx.search"]["p50_ms"] <= data["commands"]["ctx.search"]["p95_ms"]
    assert data["errors_by_code"] == {"EMPTY_QUERY": 1, "SYMBOL_NOT_FOUND": 1}
    assert data["counters"]["ctx_search_linter_class_disabled_count"] == 3
    assert data["counters"]["ctx_search_linter_class_vague_count"] == 1
    assert data["counters"]["ctx_search_linter_expansion_count"] == 1
    assert len(events_of(sample_repo)) == 7  # reading stats is not itself an event

    human = run("ctx", "stats", "-s", seg)
    assert human.returncode == 0
    assert "hit rate 50.0%" in human.stdout and "zzqxv_nothing_like_this" in human.stdout
    assert "ctx.search" in human.stdout and "p95 ms" in human.stdout


def test_no_telemetry_env_writes_nothing(sample_repo: Path) -> None:
    off = {"TRIFECTA_NO_TELEMETRY": "1"}
    assert (
        run("ctx", "search", "-s", str(sample_repo), "-q", "reserve stock", "--json", env=off).returncode == 0
    )
    assert not (sample_repo / ".trifecta" / "telemetry" / "events.jsonl").exists()
    proc = run("ctx", "stats", "-s", str(sample_repo), "--json", env=off)
    assert proc.returncode == 0
    data = json.loads(proc.stdout)["data"]
    assert data["events"] == 0 and data["telemetry"]["enabled"] is False


def test_stats_on_a_missing_segment_is_bad_input(tmp_path: Path) -> None:
    proc = run("ctx", "stats", "-s", str(tmp_path / "nope"), "--json")
    assert proc.returncode == 2 and "not a directory" in proc.stderr
    assert json.loads(proc.stdout)["errors"][0]["code"] == "SEGMENT_NOT_FOUND"  # --json: always an envelope


def test_each_public_engine_call_leaves_one_event(sample_repo: Path) -> None:
    with trifecta.open(str(sample_repo), workers=1) as engine:
        engine.index()
        engine.search("reserve stock", limit=3)
        engine.get(path="shop/utils.py")
        engine.symbols("sym://python/mod/shop/checkout")
        engine.snippet("sym://python/type/shop/checkout/parse_http_header")
        engine.snippet("not a selector")
        engine.status()
        stats = engine.stats()
    events = events_of(sample_repo)
    assert [e["command"] for e in events] == [
        "index",
        "ctx.search",
        "ctx.get",
        "ast.symbols",
        "ast.snippet",
        "ast.snippet",
        "status",
    ]
    assert events[0]["counts"]["files_indexed"] > 0 and events[0]["args"] == {"full": False}
    expected_args = {"query": "reserve stock", "limit": 3, "mode": "auto", "lint": None, "rewrite": None}
    assert expected_args.items() <= events[1]["args"].items()  # defaults included
    assert events[1]["zero_hit"] is False
    assert events[5]["error"] == "INVALID_SELECTOR_SYNTAX"
    assert {e["origin"] for e in events} == {"library"}
    assert stats.ok and stats.data["events"] == 7
