"""Selectors, skeletons, snippets, hits and `ctx get` in Go, Rust, TypeScript and JavaScript, through the real
facade (a real SQLite index of a tmp copy of tests/fixtures/polyglot), the `trifecta` command as a subprocess
and the official MCP client over stdio."""

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
from mcp import ClientSession, StdioServerParameters, stdio_client

import trifecta
from trifecta.domain.contract import Response
from trifecta.infrastructure.treesitter_parser import symbol_languages

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "polyglot"
_SCRIPT = Path(sys.executable).parent / "trifecta"
COMMAND = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "trifecta"]


@pytest.fixture(scope="module")
def segment(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dest = tmp_path_factory.mktemp("polyglot") / "repo"
    shutil.copytree(FIXTURE, dest, ignore=shutil.ignore_patterns(".trifecta"))
    return dest


@pytest.fixture(scope="module")
def engine(segment: Path) -> Iterator[Any]:
    with trifecta.open(segment, workers=1) as opened:
        opened.index()
        yield opened


def _range(response: Response) -> tuple[int, int]:
    assert response.status == "ok", response.errors
    return response.data["range"]["start_line"], response.data["range"]["end_line"]


@pytest.mark.parametrize(
    ("uri", "path", "lines"),
    [
        ("sym://go/type/server/handler/Router#Serve", "go/server/handler.go", (21, 27)),
        ("sym://go/type/server/Router#Serve", "go/server/handler.go", (21, 27)),  # the package folder
        ("sym://go/type/go/server/Logger#Serve", "go/server/logger.go", (7, 9)),
        ("sym://go/type/server/handler/Handler#Serve", "go/server/handler.go", (8, 8)),
        ("sym://go/type/server/NewRouter", "go/server/handler.go", (34, 36)),
        ("sym://rust/type/src/de/mod/Deserializer#new", "rust/src/de/mod.rs", (19, 21)),
        ("sym://rust/type/de/Deserializer", "rust/src/de/mod.rs", (6, 9)),  # mod.rs is its folder's
        ("sym://rust/type/de/Deserializer#fmt", "rust/src/de/mod.rs", (29, 31)),
        ("sym://rust/type/de/Deserializer#Display", "rust/src/de/mod.rs", (28, 32)),
        ("sym://rust/type/de/Deserialize#deserialize", "rust/src/de/mod.rs", (14, 14)),
        ("sym://rust/type/de/tri", "rust/src/de/mod.rs", (47, 54)),
        ("sym://typescript/type/src/core/emitter/Emitter#flush", "ts/src/core/emitter.ts", (25, 27)),
        ("sym://typescript/type/core/emitter/Emitter", "ts/src/core/emitter.ts", (12, 30)),
        ("sym://typescript/type/src/core/emitter/parse", "ts/src/core/emitter.ts", (41, 43)),
        ("sym://typescript/type/core/version", "ts/src/core/index.ts", (3, 5)),  # index.ts is its folder's
        ("sym://typescript/type/core/view/List", "ts/src/core/view.tsx", (7, 13)),
        ("sym://javascript/type/lib/axiosish/Axios#request", "js/lib/axiosish.js", (11, 16)),
        ("sym://javascript/type/axiosish/InterceptorManager#use", "js/lib/axiosish.js", (23, 25)),
    ],
)
def test_selectors_resolve_to_exact_line_ranges(
    engine: Any, uri: str, path: str, lines: tuple[int, int]
) -> None:
    response = engine.snippet(uri)
    assert _range(response) == lines
    assert response.data["path"] == path
    # The canonical uri it answers with resolves to the same definition.
    assert _range(engine.snippet(response.data["uri"])) == lines


def test_go_methods_of_one_name_are_candidates(engine: Any) -> None:
    response = engine.snippet("sym://go/type/server/Serve")
    assert [e.code for e in response.errors] == ["AMBIGUOUS_SYMBOL"]
    candidates = response.errors[0].data["candidates"]
    assert [c["qualname"] for c in candidates] == ["Handler.Serve", "Router.Serve", "Logger.Serve"]
    assert response.next_actions[0] == "ast snippet 'sym://go/type/go/server/handler/Handler#Serve'"
    for candidate in candidates:
        got = engine.snippet(candidate["sym"]).data["range"]
        assert got == candidate["range"]


def test_the_typescript_overload_set_answers_with_its_signatures(engine: Any) -> None:
    response = engine.snippet("sym://typescript/type/core/emitter/parse")
    assert response.data["overloads"] == [
        {"start_line": 39, "end_line": 39},
        {"start_line": 40, "end_line": 40},
    ]


def test_the_go_package_skeleton_spans_its_files(engine: Any) -> None:
    response = engine.symbols("sym://go/mod/server")
    assert response.status == "ok", response.errors
    assert response.data["files"] == ["go/server/handler.go", "go/server/logger.go"]
    assert {(e["name"], e["path"]) for e in response.data["symbols"]} >= {
        ("Router", "go/server/handler.go"),
        ("Logger", "go/server/logger.go"),
    }


def test_ast_symbols_on_a_rust_file(segment: Path, engine: Any) -> None:
    proc = subprocess.run(
        [*COMMAND, "ast", "symbols", "sym://rust/mod/src/de/mod", "--segment", str(segment), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "TRIFECTA_WORKERS": "1"},
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    Response.from_dict(data)
    top = {e["name"]: e for e in data["data"]["symbols"]}
    assert list(top) == [
        "Deserializer",
        "Deserialize",
        "impl Deserializer",
        "impl Display for Deserializer",
        "Error",
        "read_all",
        "tri",
    ]
    assert [c["uri"] for c in top["impl Deserializer"]["children"]] == [
        "sym://rust/type/rust/src/de/mod/Deserializer#new",
        "sym://rust/type/rust/src/de/mod/Deserializer#peek",
    ]
    assert (
        top["impl Display for Deserializer"]["uri"] == "sym://rust/type/rust/src/de/mod/Deserializer#Display"
    )


def test_search_hits_carry_a_uri_and_ctx_get_reads_a_typescript_hit(engine: Any) -> None:
    response = engine.search("emitter flush")
    hit = next(h for h in response.data["hits"] if h["symbol"] == "Emitter.flush")
    assert hit["language"] == "typescript"
    assert hit["uri"] == "sym://typescript/type/ts/src/core/emitter/Emitter#flush"
    assert f"ast snippet '{hit['uri']}'" in response.next_actions
    got = engine.get(id=hit["id"])
    assert got.status == "ok", got.errors
    assert (got.data["range"]["start_line"], got.data["range"]["end_line"]) == (25, 27)
    assert got.data["content"].lstrip().startswith("async flush()")


@pytest.mark.parametrize("query", ["Router Serve", "Deserializer peek", "InterceptorManager use"])
def test_hits_in_every_language_have_uris_that_resolve(engine: Any, query: str) -> None:
    hits = [h for h in engine.search(query).data["hits"] if h["symbol"] and h.get("uri")]
    assert hits, query
    for hit in hits[:3]:
        response = engine.snippet(hit["uri"])
        assert response.data["uri"] == hit["uri"]
        # A hit is a chunk (a type's header, a method): inside the definition, give or take its doc comment.
        start, end = _range(response)
        assert start <= hit["end_line"] and hit["start_line"] <= end


def test_a_selector_query_is_a_hit_in_its_language(engine: Any) -> None:
    response = engine.search("sym://rust/type/de/Deserializer#peek")
    [hit] = response.data["hits"]
    assert (hit["language"], hit["start_line"], hit["end_line"]) == ("rust", 23, 25)


@pytest.mark.parametrize("language", ["haskell", "markdown"])
def test_a_language_without_symbols_is_not_supported(engine: Any, language: str) -> None:
    response = engine.symbols(f"sym://{language}/mod/README")
    assert [e.code for e in response.errors] == ["LANGUAGE_NOT_SUPPORTED"]
    supported = ", ".join(sorted({"python"} | symbol_languages()))  # the parser's table, not a second list
    assert response.errors[0].message.endswith(f"supported: {supported}")


async def _mcp_snippet(segment: Path, uri: str) -> Any:
    params = StdioServerParameters(
        command=COMMAND[0],
        args=[*COMMAND[1:], "mcp", "--segment", str(segment)],
        env={**os.environ, "TRIFECTA_WORKERS": "1"},
    )
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        return await session.call_tool("snippet", {"uri": uri})


@pytest.mark.timeout(120)
def test_mcp_snippet_of_a_go_method(segment: Path, engine: Any) -> None:
    result = anyio.run(_mcp_snippet, segment, "sym://go/type/server/Router#Serve")
    content = result.structured_content
    assert content["status"] == "ok", content
    assert content["data"]["range"] == {"start_line": 21, "end_line": 27}
