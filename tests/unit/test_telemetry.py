"""Telemetry: scrubbing, the event an Engine call leaves, the JSONL sink (rotation, counters, never failing),
the settings that turn it off, and the pure aggregation behind `ctx stats`."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trifecta.application.stats import StatsRequest, StatsUseCase, percentile, summarize
from trifecta.application.telemetry import (
    COUNTER_NAMES,
    REDACTED,
    LinterFacts,
    TelemetryEvent,
    build_event,
    scrub_arguments,
    scrub_text,
)
from trifecta.domain.contract import ErrorCode, Response
from trifecta.infrastructure.config import ConfigError, load_settings
from trifecta.infrastructure.telemetry import JsonlTelemetry, NullTelemetry, telemetry_dir


def search_response(hits: int, lint: dict[str, Any] | None = None, route: str = "semantic") -> Response:
    plan = {
        "route": route,
        "lint": lint or {"query_class": "disabled"},
        "rewrite": {"status": "skipped", "reason": "no query rewriter is configured"},
    }
    rows = [{"id": f"h{i}"} for i in range(hits)]
    return Response.success("search", {"query": "q", "hits": rows, "total": hits, "plan": plan})


VAGUE_EXPANDED = {
    "query_class": "vague",
    "changed": True,
    "expanded_query": "config agent.md prime.md",
    "changes": {"added_strong": ["agent.md", "prime.md"], "reasons": ["vague_default_boost"]},
}


# ------------------------------------------------------------------ scrubbing
# Fake credentials are assembled from pieces, so this file does not itself look like it holds any.
B64 = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj"
PEM = "-----" + "BEGIN RSA PRIVATE KEY-----\n" + f"{B64}\n" * 3 + "-----" + "END RSA PRIVATE KEY-----"
PEM_JSON = PEM.replace("\n", "\\n")
GH = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"

# (a form a credential takes in a query or argument, the secret value that must not survive scrubbing):
# the audit found 11 of its 21 forms kept in clear; every one is here, and more.
SECRET_FORMS = [
    ("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ7Rk2Lm9a", "wJalrXUtnFEMI/K7MDENG"),
    ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ7Rk2Lm9a", "bPxRfiCYzQ7Rk2Lm9a"),
    ("DB_PASSWORD=hunter2", "hunter2"),
    ("MY_APP_TOKEN=abc123def456", "abc123def456"),
    ("password=hunter2", "hunter2"),
    ("api_key: 'abc def'", "abc def"),
    ('client_secret = "Zq8Xw7Vu6Ts5Rq4Po3"', "Zq8Xw7Vu6Ts5Rq4Po3"),
    ('{"db_password": "Tr0ub4dor&3"}', "Tr0ub4dor&3"),
    ("token: s3cr3tValue123", "s3cr3tValue123"),
    ("--password=Xk9mP2qL7vRt", "Xk9mP2qL7vRt"),
    ("sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc", "4eC39HqLyjWDarjtT1zdp7dc"),
    ("rk_live_" + "4eC39HqLyjWDarjtT1zdp7dc", "4eC39HqLyjWDarjtT1zdp7dc"),
    ("glpat-" + "xY3zA5bC7dE9fG1hJ3kL", "xY3zA5bC7dE9fG1hJ3kL"),
    (
        "pypi-AgEIcHlwaS5vcmc" + "CJDU3ZmMzNWRhLTU2YzctNGI1Yy1hNWYzLTk1ZGI5NjQ1ZDFiNgACKlsz",
        "CJDU3ZmMzNWRhLTU2",
    ),
    ("hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh", "AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh"),
    (PEM, B64[:24]),
    (f'"private_key": "{PEM_JSON}"', B64[:24]),
    ("Authorization: Bearer " + "Ab3De5Gh7Jk9Mn1Pq3St", "Ab3De5Gh7Jk9Mn1Pq3St"),
    ("-H 'Authorization: Bearer " + "abcdefghijklmnopqrst.uvwxyz'", "abcdefghijklmnopqrst"),
    ("Bearer abcdefgh1234", "abcdefgh1234"),
    ("Authorization: Basic " + "dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA"),
    (GH, GH),
    ("gho_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5", "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"),
    ("github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEF", "11ABCDEFG0123456789"),
    ("AKIA" + "IOSFODNN7EXAMPLE", "IOSFODNN7EXAMPLE"),
    ("xoxb-" + "123456789012-abcdefghij", "123456789012-abcdefghij"),
    ("sk-proj-" + "ABCDEFGHIJKLMNOPqrstuvwx", "ABCDEFGHIJKLMNOPqrstuvwx"),
    ("sk-ant-api03-" + "Ab3De5Gh7Jk9Mn1Pq3St5Vw7Yz9Bc1Ef3Gh5Jk7", "Ab3De5Gh7Jk9Mn1Pq3St5Vw7"),
    ("AIza" + "SyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW", "SyA1b2C3d4E5f6G7h8I9j0"),
    (
        "eyJhbGciOiJIUzI1NiJ9" + ".eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "dozjgNryP4J3jV",
    ),
    ("npm_" + "Ab3De5Gh7Jk9Mn1Pq3St5Vw7Yz9Bc1Ef3Gh5", "Ab3De5Gh7Jk9Mn1Pq3St5Vw7Yz9Bc1Ef3Gh5"),
    ("SG." + "Ab3De5Gh7Jk9Mn1Pq3St5V.w7Yz9Bc1Ef3Gh5Jk7Lm9Np1Qr3St5Vw7Yz9Bc1Ef3Gh", "w7Yz9Bc1Ef3Gh5Jk7Lm9"),
    ("https://bob:s3cret@example.com/x", "s3cret"),
    ("9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", "9f86d081884c7d659a2f"),
]


@pytest.mark.parametrize(("form", "secret"), SECRET_FORMS, ids=[f[:24] for f, _ in SECRET_FORMS])
def test_every_secret_form_is_redacted_in_a_query(form: str, secret: str) -> None:
    scrubbed = scrub_text(f"why does {form} fail in login()", limit=10_000)
    assert secret not in scrubbed and REDACTED in scrubbed
    assert scrubbed.startswith("why does ") and scrubbed.endswith(" fail in login()")
    args = scrub_arguments({"query": f"why does {form} fail", "path": form})
    assert secret not in json.dumps(args)  # the query's 200-character cut comes after redaction


def test_a_secret_at_the_cut_is_redacted_whole() -> None:
    query = "x" * 190 + " " + GH
    scrubbed = scrub_text(query, limit=200)
    assert GH[:8] not in scrubbed and len(scrubbed) <= 200


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=2000), st.integers(min_value=1, max_value=500))
def test_scrubbing_never_raises_and_never_exceeds_its_limit(text: str, limit: int) -> None:
    assert len(scrub_text(text, limit)) <= limit
    scrub_arguments({"query": text, "path": text, "n": limit})


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from([f for f, _ in SECRET_FORMS] + ["=", ":", " ", "\n", "password", "x"]), max_size=30
    )
)
def test_scrubbing_mixed_secret_forms_never_raises(parts: list[str]) -> None:
    text = "".join(parts)
    assert len(scrub_text(text, 100_000)) <= len(text) + 20 * len(REDACTED) * (len(parts) + 1)


def test_credential_values_are_redacted_but_keys_kept() -> None:
    text = "password=hunter2 api_key: 'abc def' Bearer abcdefgh1234 https://bob:s3cret@example.com/x"
    scrubbed = scrub_text(text)
    for secret in ("hunter2", "abc def", "abcdefgh1234", "s3cret"):
        assert secret not in scrubbed
    assert "password=" in scrubbed and "api_key: " in scrubbed and "https://" in scrubbed
    assert "@example.com/x" in scrubbed


def test_code_words_paths_and_hit_ids_survive_scrubbing() -> None:
    text = (
        "test_parse_http_header_with_a_long_name_2 src/infrastructure/sqlite_store.py 60a89a45fd50663b token"
    )
    assert scrub_text(text) == text


def test_queries_are_truncated_and_other_arguments_named_by_type() -> None:
    args = scrub_arguments(
        {
            "self": object(),
            "query": "x" * 500,
            "limit": 5,
            "lint": None,
            "progress": print,
            "full": True,
            "thing": object(),
        }
    )
    assert len(args["query"]) == 200 and args["query"].endswith("…")
    assert args["limit"] == 5 and args["lint"] is None and args["full"] is True
    assert args["thing"] == "<object>"
    assert "self" not in args and "progress" not in args


# ------------------------------------------------------------------ events
def test_search_event_carries_route_linter_and_zero_hit() -> None:
    event = build_event(
        method="search",
        arguments={"query": "config", "limit": 10},
        response=search_response(0, VAGUE_EXPANDED, route="hybrid"),
        took_ms=12.34567,
        timestamp="2026-11-22T10:00:00.000+00:00",
        origin="mcp",
    )
    data = event.to_dict()
    assert data["command"] == "ctx.search" and data["origin"] == "mcp" and data["status"] == "ok"
    assert data["zero_hit"] is True and data["counts"]["hits"] == 0
    assert data["route"] == "hybrid" and data["took_ms"] == 12.346
    assert data["linter"] == {
        "query_class": "vague",
        "expanded": True,
        "added_strong_count": 2,
        "added_weak_count": 0,
        "reasons": ["vague_default_boost"],
    }
    assert data["rewrite"] == "skipped"
    assert event.counters() == {
        "ctx_search_linter_class_vague_count": 1,
        "ctx_search_linter_expansion_count": 1,
    }
    json.dumps(data)  # JSON-ready


def test_error_events_name_the_code_and_are_not_zero_hits() -> None:
    response = Response.failure("search", ErrorCode.EMPTY_QUERY, "the query is empty")
    event = build_event(
        method="search", arguments={"query": " "}, response=response, took_ms=0.1, timestamp="t"
    )
    assert event.status == "error" and event.error == "EMPTY_QUERY"
    assert event.zero_hit is None and event.linter is None and event.counters() == {}


def test_other_commands_count_what_came_back() -> None:
    get = Response.success("source", {"content": "héllo\n", "path": "a.py"})
    symbols = Response.success("skeleton", {"symbols": [{}, {}, {}]})
    assert build_event(method="get", arguments={}, response=get, took_ms=1, timestamp="t").counts == {
        "bytes": 7
    }
    event = build_event(method="symbols", arguments={}, response=symbols, took_ms=1, timestamp="t")
    assert event.command == "ast.symbols" and event.counts == {"symbols": 3} and event.zero_hit is None


# ------------------------------------------------------------------ the JSONL sink
def event(i: int, **overrides: Any) -> TelemetryEvent:
    fields: dict[str, Any] = {
        "timestamp": f"2026-11-22T10:00:{i % 60:02d}.000+00:00",
        "command": "ctx.get",
        "took_ms": float(i),
    }
    fields.update(overrides)
    return TelemetryEvent(**fields)


def test_events_are_written_and_read_back(tmp_path: Path) -> None:
    sink = JsonlTelemetry(tmp_path / "telemetry")
    linter = build_event(
        method="search",
        arguments={"query": "config"},
        response=search_response(1, VAGUE_EXPANDED),
        took_ms=3.0,
        timestamp="2026-11-22T10:00:00.000+00:00",
    ).linter
    sink.record(event(1))
    sink.record(event(2, command="ctx.search", linter=linter, zero_hit=False))
    events = list(sink.events())
    assert [e["took_ms"] for e in events] == [1.0, 2.0]
    assert events[1]["linter"]["query_class"] == "vague"
    assert sink.counters() == {
        "ctx_search_linter_class_vague_count": 1,
        "ctx_search_linter_expansion_count": 1,
    }
    assert (tmp_path / "telemetry" / "events.jsonl").read_text().count("\n") == 2


def test_counters_are_rewritten_in_place_and_read_under_the_lock(tmp_path: Path) -> None:
    """Not a new file renamed over the old: ext4 writes a file renamed over another out first (~2 ms a search)."""
    import fcntl
    import threading

    sink = JsonlTelemetry(tmp_path / "t")
    linter = LinterFacts(query_class="vague", expanded=True)
    sink.record(event(0, command="ctx.search", linter=linter))
    counters = tmp_path / "t" / "counters.json"
    inode = counters.stat().st_ino
    for i in range(1, 12):
        sink.record(event(i, command="ctx.search", linter=linter))
    assert counters.stat().st_ino == inode
    assert sink.counters() == {
        "ctx_search_linter_class_vague_count": 12,
        "ctx_search_linter_expansion_count": 12,
    }
    assert json.loads(counters.read_text()) == sink.counters()
    counters.write_text('{"ctx_search_linter_class_vague_count": 100000, "other": 7}')  # longer, then shorter
    sink.record(event(13, command="ctx.search", linter=LinterFacts(query_class="semi", expanded=False)))
    counters.write_text('{"a": 1}')
    sink.record(event(14, command="ctx.search", linter=linter))
    assert sink.counters() == {
        "a": 1,
        "ctx_search_linter_class_vague_count": 1,
        "ctx_search_linter_expansion_count": 1,
    }
    # a reader waits for a writer holding the lock (up to LOCK_WAIT_SECONDS), rather than read a file half
    # rewritten
    fd = os.open(tmp_path / "t" / ".lock", os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX)
    read: list[dict[str, int]] = []
    reader = threading.Thread(target=lambda: read.append(sink.counters()))
    reader.start()
    reader.join(0.1)
    assert reader.is_alive() and not read
    os.close(fd)
    reader.join(10)
    assert read == [sink.counters()]


def test_rotation_bounds_the_size_and_keeps_the_newest(tmp_path: Path) -> None:
    sink = JsonlTelemetry(tmp_path / "t", max_bytes=2_000, backups=2)
    for i in range(300):
        sink.record(event(i))
    files = {p.name for p in (tmp_path / "t").glob("events*.jsonl")}
    assert (
        {"events.1.jsonl", "events.2.jsonl"} <= files <= {"events.1.jsonl", "events.2.jsonl", "events.jsonl"}
    )
    line = len(json.dumps(event(299).to_dict(), separators=(",", ":"))) + 10
    assert all(p.stat().st_size <= 2_000 + line for p in (tmp_path / "t").glob("events*.jsonl"))
    took = [e["took_ms"] for e in sink.events()]
    assert took == sorted(took) and took[-1] == 299.0  # oldest first, newest kept
    assert len(took) < 300  # the oldest were dropped


def test_disabled_sink_writes_nothing_but_still_reads(tmp_path: Path) -> None:
    JsonlTelemetry(tmp_path / "t").record(event(1))
    disabled = JsonlTelemetry(tmp_path / "t", enabled=False)
    disabled.record(event(2))
    assert [e["took_ms"] for e in disabled.events()] == [1.0]


def test_a_sink_that_cannot_write_never_raises(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "telemetry"
    blocker.write_text("a file where the directory should be")
    sink = JsonlTelemetry(blocker)
    sink.record(event(1))
    sink.record(event(2))
    assert list(sink.events()) == [] and sink.counters() == {}
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("telemetry event dropped") == 1


def test_malformed_lines_and_counters_are_ignored(tmp_path: Path) -> None:
    directory = tmp_path / "t"
    directory.mkdir()
    (directory / "events.jsonl").write_text(
        '{"command": "ctx.get", "took_ms": 1}\nnot json\n[1, 2]\n{"torn": \n'
    )
    (directory / "counters.json").write_text('{"a": 1, "b": "x", "c": true}')
    sink = JsonlTelemetry(directory)
    assert list(sink.events()) == [{"command": "ctx.get", "took_ms": 1}]
    assert sink.counters() == {"a": 1}
    assert list(NullTelemetry().events()) == [] and NullTelemetry().counters() == {}


# ------------------------------------------------------------------ a hostile repository's links
def record_all(sink: JsonlTelemetry) -> None:
    linter = LinterFacts(query_class="vague", expanded=True)
    for i in range(5):
        sink.record(event(i, command="ctx.search", linter=linter))  # counters too


def segment_sink(tmp_path: Path) -> tuple[Path, JsonlTelemetry]:
    segment = tmp_path / "repo"
    (segment / ".trifecta").mkdir(parents=True)
    return segment, JsonlTelemetry(telemetry_dir(segment), max_bytes=300, backups=1)


def test_a_telemetry_folder_that_is_a_symlink_is_not_written_through(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    segment, sink = segment_sink(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (segment / ".trifecta" / "telemetry").symlink_to(elsewhere)
    record_all(sink)
    assert list(elsewhere.iterdir()) == []
    assert list(sink.events()) == [] and sink.counters() == {} and sink.files() == []
    assert capsys.readouterr().err.count("symbolic link") == 1  # said once, then quiet


def test_a_trifecta_folder_that_is_a_symlink_is_not_written_through(tmp_path: Path) -> None:
    segment = tmp_path / "repo"
    segment.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (segment / ".trifecta").symlink_to(elsewhere)
    record_all(JsonlTelemetry(telemetry_dir(segment)))
    assert list(elsewhere.iterdir()) == []


@pytest.mark.parametrize(
    "name", ["events.jsonl", "events.1.jsonl", "counters.json", "counters.json.tmp", ".lock"]
)
def test_telemetry_files_that_are_symlinks_to_user_files_are_never_written(tmp_path: Path, name: str) -> None:
    segment, sink = segment_sink(tmp_path)
    folder = telemetry_dir(segment)
    folder.mkdir()
    user_file = tmp_path / "notes.txt"
    user_file.write_text("my own notes\n")
    (folder / name).symlink_to(user_file)
    record_all(sink)
    assert user_file.read_text() == "my own notes\n"
    assert "my own notes" not in json.dumps(list(sink.events()))


def test_a_telemetry_file_hard_linked_to_a_user_file_is_not_written(tmp_path: Path) -> None:
    segment, sink = segment_sink(tmp_path)
    folder = telemetry_dir(segment)
    folder.mkdir()
    user_file = tmp_path / "notes.txt"
    user_file.write_text("my own notes\n")
    os.link(user_file, folder / "events.jsonl")
    record_all(sink)
    assert user_file.read_text() == "my own notes\n"


@pytest.mark.timeout(20)
def test_events_linked_to_dev_zero_or_a_fifo_neither_hang_nor_fill_memory(tmp_path: Path) -> None:
    segment, sink = segment_sink(tmp_path)
    folder = telemetry_dir(segment)
    folder.mkdir()
    (folder / "events.jsonl").symlink_to("/dev/zero")
    os.mkfifo(folder / "events.1.jsonl")
    os.mkfifo(folder / "counters.json")
    assert list(sink.events()) == [] and sink.counters() == {}
    record_all(sink)  # no hang: the FIFO is never opened for a blocking read or write
    assert (folder / "events.jsonl").is_symlink()


# ------------------------------------------------------------------ settings
def test_telemetry_settings(tmp_path: Path) -> None:
    assert load_settings(tmp_path, env={}).telemetry is True
    assert load_settings(tmp_path, env={"TRIFECTA_NO_TELEMETRY": "1"}).telemetry is False
    assert load_settings(tmp_path, env={"TRIFECTA_NO_TELEMETRY": "0"}).telemetry is True
    (tmp_path / ".trifecta").mkdir()
    (tmp_path / ".trifecta" / "config.toml").write_text("[telemetry]\nenabled = false\nmax_bytes = 5000\n")
    settings = load_settings(tmp_path, env={})
    assert settings.telemetry is False and settings.telemetry_max_bytes == 5000
    assert load_settings(tmp_path, {"telemetry": True}, env={}).telemetry is True
    with pytest.raises(ConfigError, match="TRIFECTA_NO_TELEMETRY"):
        load_settings(tmp_path, env={"TRIFECTA_NO_TELEMETRY": "maybe"})


# ------------------------------------------------------------------ aggregation
def test_percentile_is_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 50) == 50.0 and percentile(values, 95) == 95.0
    assert percentile([7.0], 95) == 7.0 and percentile([], 50) == 0.0


def search_event(
    query: str,
    hits: int,
    cls: str = "disabled",
    route: str = "semantic",
    took: float = 1.0,
    origin: str = "cli",
) -> dict[str, Any]:
    return {
        "command": "ctx.search",
        "ts": "2026-11-22T10:00:00.000+00:00",
        "status": "ok",
        "took_ms": took,
        "origin": origin,
        "args": {"query": query},
        "zero_hit": hits == 0,
        "route": route,
        "linter": {"query_class": cls, "expanded": cls == "vague"},
        "rewrite": "skipped",
    }


def test_summary_of_a_session() -> None:
    events = [
        search_event("where is config", 3, took=10.0),
        search_event("Frobnicate  widget", 0, cls="vague", route="hybrid", took=20.0),
        search_event("frobnicate widget", 0, cls="vague", route="hybrid", took=30.0, origin="mcp"),
        search_event("zzz", 0, cls="semi", route="pattern", took=40.0),
        {
            "command": "ctx.search",
            "status": "error",
            "error": "EMPTY_QUERY",
            "took_ms": 0.1,
            "args": {"query": ""},
        },
        {"command": "ast.snippet", "status": "error", "error": "SYMBOL_NOT_FOUND", "took_ms": 2.0},
        {"command": "ast.snippet", "status": "ok", "took_ms": 4.0, "ts": "2026-11-22T09:00:00.000+00:00"},
        {"no": "command"},
        {"command": "x", "took_ms": "slow"},
        "not even a mapping",  # type: ignore[list-item]
    ]
    report = summarize(events, {"ctx_search_linter_expansion_count": 2})
    assert report.events == 7 and report.skipped == 3
    assert report.searches == 4 and report.hit_rate == 0.25 and report.zero_hit_searches == 3
    assert report.top_zero_hit_queries == (("frobnicate widget", 2), ("zzz", 1))
    assert report.commands["ctx.search"].count == 5 and report.commands["ctx.search"].errors == 1
    assert report.commands["ctx.search"].p50_ms == 20.0 and report.commands["ctx.search"].p95_ms == 40.0
    assert report.commands["ast.snippet"].p95_ms == 4.0
    assert report.by_linter_class == {"vague": 2, "disabled": 1, "semi": 1}
    assert report.by_route == {"hybrid": 2, "pattern": 1, "semantic": 1}
    assert report.errors_by_code == {"EMPTY_QUERY": 1, "SYMBOL_NOT_FOUND": 1}
    assert report.first == "2026-11-22T09:00:00.000+00:00"
    assert (
        set(report.counters) == set(COUNTER_NAMES)
        and report.counters["ctx_search_linter_expansion_count"] == 2
    )
    data = report.to_data()
    assert data["search"]["top_zero_hit_queries"][0] == {"query": "frobnicate widget", "count": 2}
    json.dumps(data)


def test_stats_use_case_over_an_empty_sink_and_bad_top() -> None:
    use_case = StatsUseCase(NullTelemetry(), where="nowhere", enabled=False)
    response = use_case.execute(StatsRequest())
    assert response.ok and response.data["events"] == 0 and response.data["search"]["hit_rate"] is None
    assert response.data["telemetry"] == {"enabled": False, "dir": "nowhere"}
    assert any("TRIFECTA_NO_TELEMETRY" in hint for hint in response.data["hints"])
    assert response.next_actions == ()  # advice is not a command: next_actions only hold runnable ones
    bad = use_case.execute(StatsRequest(top=0))
    assert bad.errors[0].code is ErrorCode.INVALID_ARGUMENT


def test_a_query_with_a_lone_surrogate_is_recorded_not_dropped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sink = JsonlTelemetry(tmp_path / "telemetry")
    recorded = build_event(
        method="search",
        arguments={"query": "bad_\udcff name"},  # what os.fsdecode makes of a non-UTF-8 file name
        response=search_response(1, VAGUE_EXPANDED),
        took_ms=1.0,
        timestamp="2026-11-22T10:00:00.000+00:00",
    )
    sink.record(recorded)
    events = list(sink.events())
    assert len(events) == 1 and events[0]["args"]["query"].startswith("bad_")
    assert "dropped" not in capsys.readouterr().err
