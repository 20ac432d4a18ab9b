"""`--pattern` in every language, as a user runs it on a tmp copy of tests/fixtures/patterns: the real CLI in a
subprocess, the library facade and the MCP server through the official client. Each file is searched in its
own language, `--lang` restricts to one, a pattern that parses nowhere is INVALID_ARGUMENT, and every hit
shows its matching line."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

import trifecta

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "patterns"
_SCRIPT = Path(sys.executable).parent / "trifecta"
EXE = str(_SCRIPT) if _SCRIPT.exists() else None
THROWS = [
    ("lib/legacy.js", 6, 'if (!this.name) { throw new Error("no name"); }'),
    ("src/server.ts", 16, 'const reason = "port not set"; throw new Error(reason);'),
    ("src/view.tsx", 7, 'throw new Error("too many items");'),
]


@pytest.fixture(scope="module")
def segment(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dest = tmp_path_factory.mktemp("patterns") / "repo"
    shutil.copytree(FIXTURE, dest, ignore=shutil.ignore_patterns(".trifecta"))
    return dest


@pytest.fixture(scope="module")
def engine(segment: Path) -> Iterator[trifecta.Engine]:
    with trifecta.open(segment) as eng:
        eng.index()
        yield eng


def cli(segment: Path, *args: str) -> dict[str, Any]:
    cmd = [EXE] if EXE else [sys.executable, "-m", "trifecta"]
    proc = subprocess.run(
        [*cmd, "ctx", "search", "--segment", str(segment), *args, "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "TRIFECTA_WORKERS": "1"},
    )
    return json.loads(proc.stdout)


def sites(answer: dict[str, Any]) -> list[tuple[str, int, str]]:
    return sorted((h["path"], h["line"], h["preview"]) for h in answer["data"]["hits"])


@pytest.mark.timeout(180)
def test_cli_pattern_runs_in_each_files_language(segment: Path) -> None:
    answer = cli(segment, "--query", "throw new Error($$$)", "--pattern")
    assert answer["status"] == "ok", answer
    assert sites(answer) == THROWS  # TypeScript, TSX and JavaScript; invalid as Python or Go: skipped
    plan = answer["data"]["plan"]["code_pattern"]
    assert plan["languages"] == ["javascript", "tsx", "typescript"]
    assert all(h["match_type"] == "code_pattern" for h in answer["data"]["hits"])

    # written as the issue and a user write it: the pattern right after --pattern, as the query argument
    assert sites(cli(segment, "--pattern", "throw new Error($$$)")) == THROWS

    go = cli(segment, "--query", "fmt.Errorf($$$)", "--pattern")
    assert sites(go) == [
        ("cmd/config.go", 12, 'return "", fmt.Errorf("missing key %q", key)'),
        ("cmd/validate.go", 13, 'return fmt.Errorf("empty name")'),
    ]
    assert {h["language"] for h in go["data"]["hits"]} == {"go"}


@pytest.mark.timeout(180)
def test_cli_lang_restricts_and_unknown_lang_is_invalid(segment: Path) -> None:
    # valid Java and TypeScript: --lang java keeps the Java site only
    java = cli(segment, "--query", "throw new $E($$$)", "--pattern", "--lang", "java")
    assert sites(java) == [("java/App.java", 8, 'throw new IllegalArgumentException("name");')]
    assert java["data"]["plan"]["lang"] == "java"

    # parsed as Go only, where it is no code: the same error as a pattern that parses nowhere
    refused = cli(segment, "--query", "throw new Error($$$)", "--pattern", "--lang", "go")
    assert refused["status"] == "error"
    assert refused["errors"][0]["code"] == "INVALID_ARGUMENT"
    assert "does not parse as go code" in refused["errors"][0]["message"]

    unknown = cli(segment, "--query", "throw new Error($$$)", "--pattern", "--lang", "cobol")
    assert unknown["errors"][0]["code"] == "INVALID_ARGUMENT"
    message = unknown["errors"][0]["message"]
    assert "cobol" in message and all(name in message for name in ("go", "rust", "typescript", "python"))


def test_facade_pattern_in_rust_with_auto_detection(engine: trifecta.Engine) -> None:
    answer = engine.search("panic!($$$)").to_dict()  # metavariables: a code pattern in auto mode
    assert answer["data"]["plan"]["route"] == "structural"
    assert sites(answer) == [
        ("core/errors.rs", 8, 'let message = "too deep"; panic!("{}", message);'),
        ("core/must.rs", 4, 'None => panic!("no value"),'),
    ]


def test_facade_invalid_everywhere_is_invalid_argument(engine: trifecta.Engine) -> None:
    error = engine.search("foo(", code_pattern=True).to_dict()["errors"][0]
    assert error["code"] == "INVALID_ARGUMENT"
    assert "does not parse as code of any language searched" in error["message"]
    assert "typescript" in error["message"] and "go" in error["message"]


def test_facade_lang_aliases_and_bad_type(engine: trifecta.Engine) -> None:
    tsx = engine.search("throw new Error($$$)", code_pattern=True, lang="ts").to_dict()
    assert sites(tsx) == THROWS[1:]  # .ts and .tsx; not the JavaScript file
    wrong = engine.search("throw new Error($$$)", lang=7).to_dict()  # type: ignore[arg-type]
    assert wrong["errors"][0]["code"] == "INVALID_ARGUMENT" and "lang" in wrong["errors"][0]["message"]


def test_regex_and_lang_on_other_routes(engine: trifecta.Engine) -> None:
    regex = engine.search(r"throw new \w+\(", regex=True, lang="javascript").to_dict()
    assert sites(regex) == [THROWS[0]]
    # a module-level line after a function: its own line number, not the module chunk's first line
    module = engine.search(r"^HANDLER_LIMIT = \d+", regex=True).to_dict()
    assert sites(module) == [("tools/registry.py", 15, "HANDLER_LIMIT = 64")]
    # a lexical question keeps only the language asked for
    words = engine.search("name", mode="lexical", lang="java", limit=20).to_dict()
    assert words["data"]["hits"] and {h["language"] for h in words["data"]["hits"]} == {"java"}


@pytest.mark.timeout(120)
def test_mcp_search_takes_lang(segment: Path) -> None:
    from mcp import ClientSession, StdioServerParameters, stdio_client

    command, args = (EXE, []) if EXE else (sys.executable, ["-m", "trifecta"])
    params = StdioServerParameters(
        command=command,
        args=[*args, "mcp", "--segment", str(segment)],
        env={**os.environ, "TRIFECTA_WORKERS": "1"},
    )

    async def call() -> tuple[Any, Any]:
        async with (
            stdio_client(params) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            found = await session.call_tool(
                "search", {"query": "fmt.Errorf($$$)", "lang": "golang", "explain": True}
            )
            bad = await session.call_tool("search", {"query": "fmt.Errorf($$$)", "lang": "klingon"})
            return found.structured_content, bad.structured_content

    found, bad = anyio.run(call)
    # the brief profile (MCP's default): `loc` is path:start-end
    assert [(h["loc"].split(":")[0], h["line"]) for h in found["data"]["hits"]] == [
        ("cmd/config.go", 12),
        ("cmd/validate.go", 13),
    ]
    assert found["data"]["plan"]["lang"] == "go"
    assert bad["errors"][0]["code"] == "INVALID_ARGUMENT" and "klingon" in bad["errors"][0]["message"]
