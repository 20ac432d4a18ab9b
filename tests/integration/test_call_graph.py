"""Callers, callees, impact and definition from the index's edges, over tests/fixtures/callgraph (Python, Go,
TypeScript) indexed into a real SQLite file, through the facade, the CLI and the official MCP client."""

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

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "callgraph"
_SCRIPT = Path(sys.executable).parent / "trifecta"
CLI = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "trifecta"]
pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dest = tmp_path_factory.mktemp("callgraph") / "repo"
    shutil.copytree(FIXTURE, dest, ignore=shutil.ignore_patterns(".trifecta"))
    return dest


@pytest.fixture(scope="module")
def engine(repo: Path) -> Iterator[trifecta.Engine]:
    with trifecta.open(repo) as e:
        e.index()
        yield e


def hits(response: Response) -> list[tuple[Any, ...]]:
    data = response.to_dict()
    assert data["status"] == "ok", data["errors"]
    return [(h["path"], h["line"], h["symbol"], h["resolution"], h["callee"]) for h in data["data"]["hits"]]


def test_python_callers_through_imports_aliases_self_bases_and_receiver_types(
    engine: trifecta.Engine,
) -> None:
    assert hits(engine.callers("sym://python/type/py/app/store/normalize")) == [
        ("py/app/store.py", 15, "Store.load", "exact", "normalize"),
        ("py/app/service.py", 13, "Service.fetch", "import", "norm"),  # from .store import normalize as norm
    ]
    assert hits(engine.callers("sym://python/type/py/app/store/Base#save")) == [
        ("py/app/store.py", 14, "Store.load", "exact", "self.save"),  # inherited: Store(Base)
        ("py/app/service.py", 17, "Service.refresh", "exact", "local.save"),  # local = Store()
    ]
    [hit] = engine.callers("sym://python/type/py/app/store/Store#load").to_dict()["data"]["hits"]
    assert (
        hit["callee"] == "self.backend.load" and hit["resolution"] == "exact"
    )  # backend: Store, kept on self
    assert hit["uri"] == "sym://python/type/py/app/service/Service#fetch"
    assert hit["preview"] == "self.backend.load(key)" and hit["column"] == 22


def test_go_and_typescript_callers_through_package_and_module_imports(engine: trifecta.Engine) -> None:
    assert hits(engine.callers("sym://go/type/go/util/Do")) == [
        ("go/util/util.go", 10, "Counter.Add", "exact", "Do"),
        ("go/main.go", 10, "main", "import", "u.Do"),  # u "example.com/shop/util"
    ]
    assert hits(engine.callers("sym://typescript/type/ts/src/util/helper")) == [
        ("ts/src/util.ts", 11, "Greeter.format", "exact", "helper"),
        ("ts/src/main.ts", 6, "main", "import", "h"),  # import { helper as h }
        ("ts/src/main.ts", 6, "main", "import", "util.helper"),  # import * as util
    ]
    assert hits(engine.callers("sym://typescript/type/ts/src/util/Greeter#format")) == [
        ("ts/src/util.ts", 7, "Greeter.greet", "exact", "this.format")
    ]


def test_callees_list_resolved_and_unresolved_calls(engine: trifecta.Engine) -> None:
    data = engine.callees("sym://python/type/py/app/service/Service#refresh").to_dict()["data"]
    assert [(h["symbol"], h["resolution"]) for h in data["hits"]] == [
        ("Store", "import"),  # from .store import Store
        ("Base.save", "exact"),
        ("ping", "import"),
    ]
    [unknown] = engine.callees("sym://python/type/py/app/service/unknown").to_dict()["data"]["hits"]
    assert unknown["resolution"] == "unresolved" and unknown["callee"] == "thing.frobnicate"


def test_impact_walks_callers_to_the_tests_and_cycles_end(engine: trifecta.Engine) -> None:
    data = engine.impact("sym://python/type/py/app/store/Store#load").to_dict()["data"]
    assert [(f["path"], f["count"], f["test"]) for f in data["files"]] == [
        ("py/app/service.py", 2, False),
        ("py/tests/test_service.py", 1, True),
    ]
    assert data["tests"] == ["sym://python/type/py/tests/test_service/test_run"]
    cyclic = engine.impact("sym://python/type/py/app/store/ping", depth=50).to_dict()["data"]
    assert cyclic["depth"] == cyclic["max_depth"] == 5 and cyclic["depth_capped"] is True
    assert sorted(s["symbol"] for f in cyclic["files"] for s in f["symbols"]) == ["Service.refresh", "pong"]


def test_definition_from_a_use_site(engine: trifecta.Engine) -> None:
    data = engine.definition("py/app/service.py", 13, 16).to_dict()["data"]
    assert data["expression"] == "norm" and data["resolution"] == "import"
    assert [(d["path"], d["symbol"], d["line"]) for d in data["definitions"]] == [
        ("py/app/store.py", "normalize", 18)
    ]
    go = engine.definition("go/main.go", 10).to_dict()["data"]  # no column: the line's first call
    assert go["name"] == "Println" and go["resolution"] == "unresolved" and go["reason"] == "external"
    own = engine.definition("ts/src/util.ts", 1, 17).to_dict()["data"]
    assert own["resolution"] == "exact" and own["definitions"][0]["symbol"] == "helper"


def test_bad_input_gets_invalid_argument_or_the_selectors_own_error(engine: trifecta.Engine) -> None:
    def code(response: Response) -> str:
        return response.to_dict()["errors"][0]["code"]

    assert code(engine.definition("py/app/service.py", 2, 1)) == "INVALID_ARGUMENT"  # an empty line
    assert code(engine.definition("py/app/service.py", 999)) == "INVALID_ARGUMENT"
    assert code(engine.definition("no/such.py", 1)) == "FILE_NOT_FOUND"
    assert code(engine.callers("sym://python/type/py/app/store/nope")) == "SYMBOL_NOT_FOUND"
    assert code(engine.callers("sym://python/mod/py/app/store")) == "INVALID_ARGUMENT"
    assert code(engine.callers("not a uri")) == "INVALID_SELECTOR_SYNTAX"
    assert code(engine.callers("sym://python/type/py/app/store/ping", limit=0)) == "INVALID_ARGUMENT"
    assert code(engine.impact("sym://python/type/py/app/store/ping", depth=0)) == "INVALID_ARGUMENT"


def test_a_changed_file_replaces_its_edges(repo: Path, engine: trifecta.Engine) -> None:
    target = repo / "py" / "app" / "extra.py"
    target.write_text("from .store import ping\n\n\ndef again():\n    return ping(1)\n")
    try:
        engine.index()
        assert ("py/app/extra.py", 5, "again", "import", "ping") in hits(
            engine.callers("sym://python/type/py/app/store/ping")
        )
    finally:
        target.unlink()
        engine.index()
    assert all(h[0] != "py/app/extra.py" for h in hits(engine.callers("sym://python/type/py/app/store/ping")))


def run_cli(*args: str) -> tuple[int, dict[str, Any]]:
    proc = subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=120, env={**os.environ})
    data = json.loads(proc.stdout)
    Response.from_dict(data)
    return proc.returncode, data


def test_the_cli_answers_def_callers_callees_and_impact(repo: Path, engine: trifecta.Engine) -> None:
    seg = ["--segment", str(repo), "--json"]
    code, data = run_cli("ast", "callers", "sym://go/type/go/util/Do", *seg)
    assert code == 0 and [h["symbol"] for h in data["data"]["hits"]] == ["Counter.Add", "main"]
    code, data = run_cli("ast", "def", "py/app/service.py:12:22", *seg)
    assert code == 0 and data["data"]["definitions"][0]["symbol"] == "Store.load"
    code, data = run_cli("ast", "callees", "sym://typescript/type/ts/src/util/Greeter#greet", *seg)
    assert code == 0 and [h["symbol"] for h in data["data"]["hits"]] == ["Greeter.format"]
    code, data = run_cli("ast", "impact", "sym://python/type/py/app/store/Store#load", "--depth", "2", *seg)
    assert code == 0 and data["data"]["depth"] == 2 and data["data"]["tests"] == []
    code, data = run_cli("ast", "def", "py/app/service.py:2:1", *seg)
    assert code == 2 and data["errors"][0]["code"] == "INVALID_ARGUMENT"


def test_the_mcp_tools_answer_in_the_envelope(repo: Path, engine: trifecta.Engine) -> None:
    params = StdioServerParameters(
        command=CLI[0],
        args=[*CLI[1:], "mcp", "--segment", str(repo)],
        env={**os.environ, "TRIFECTA_WORKERS": "1"},
    )

    async def session() -> list[dict[str, Any]]:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            calls = [
                ("callers", {"uri": "sym://python/type/py/app/store/normalize"}),
                ("callees", {"uri": "sym://python/type/py/app/service/unknown"}),
                ("impact", {"uri": "sym://python/type/py/app/store/ping", "depth": 9}),
                ("definition", {"path": "ts/src/main.ts", "line": 6, "column": 40}),
                ("definition", {"path": "ts/src/main.ts", "line": 2, "column": 7}),
            ]
            return [(await s.call_tool(name, args)).structured_content for name, args in calls]

    callers, callees, impact, definition, keyword = anyio.run(session)  # util.helper(2), then a space
    assert [h["symbol"] for h in callers["data"]["hits"]] == ["Store.load", "Service.fetch"]
    assert callees["data"]["unresolved"] == 1
    assert impact["data"]["depth_capped"] is True
    assert definition["data"]["definitions"][0]["symbol"] == "helper"
    assert keyword["errors"][0]["code"] == "INVALID_ARGUMENT"  # `import * as util`: column 7 is a space


def test_callers_of_a_name_one_file_defines_twice_answer_for_the_name(engine: trifecta.Engine) -> None:
    # the selector cannot pick one definition (snippet says AMBIGUOUS_SYMBOL), but a call reaches the name
    # whichever runs
    assert engine.snippet("sym://python/type/py/app/compat/to_bytes").to_dict()["errors"][0]["code"] == (
        "AMBIGUOUS_SYMBOL"
    )
    assert hits(engine.callers("sym://python/type/py/app/compat/to_bytes")) == [
        ("py/app/compat.py", 15, "send", "exact", "to_bytes")
    ]
    impact = engine.impact("sym://python/type/py/app/compat/to_bytes").to_dict()
    assert impact["status"] == "ok" and impact["data"]["total"] == 1


@pytest.mark.timeout(180)
def test_mcp_all_serves_the_graph_tools_per_segment_from_a_shared_index_with_no_checkout(
    tmp_path: Path,
) -> None:
    sys.path.insert(0, str(Path(__file__).parents[1]))
    from postgres_server import bindir, new_database, running_server

    if bindir() is None:
        pytest.skip("PostgreSQL is not installed (scripts/test installs it)")
    checkout = tmp_path / "graph"
    shutil.copytree(FIXTURE, checkout)
    machine = tmp_path / "search_machine"
    machine.mkdir()
    with running_server() as server:
        url = new_database(server, "graph")
        with trifecta.open(checkout, db_url=url) as e:
            assert e.index().files_indexed >= 1
        shutil.rmtree(checkout)  # the search machine reads every file's text from the server
        env = {k: v for k, v in os.environ.items() if k != "TRIFECTA_DB_URL"}
        env.update({"TRIFECTA_DB_URL": url, "TRIFECTA_NO_TELEMETRY": "1",
                    "TRIFECTA_CONFIG_HOME": "/nonexistent-trifecta-config"})  # fmt: skip
        params = StdioServerParameters(
            command=CLI[0], args=[*CLI[1:], "mcp", "--all"], env=env, cwd=str(machine)
        )

        async def session() -> tuple[dict[str, Any], list[dict[str, Any]]]:
            async with (
                stdio_client(params) as (read, write),
                ClientSession(read, write, read_timeout_seconds=60) as s,
            ):
                await s.initialize()
                tools = {t.name: t.input_schema for t in (await s.list_tools()).tools}
                calls = [
                    ("callers", {"uri": "sym://python/type/py/app/store/normalize", "segment": "graph"}),
                    ("callees", {"uri": "sym://python/type/py/app/store/Store#load", "segment": "graph"}),
                    ("impact", {"uri": "sym://python/type/py/app/store/ping", "segment": "graph"}),
                    ("definition", {"path": "ts/src/main.ts", "line": 6, "column": 40, "segment": "graph"}),
                    ("callers", {"uri": "sym://python/type/py/app/store/normalize", "segment": "nope"}),
                ]
                return tools, [(await s.call_tool(name, args)).structured_content for name, args in calls]

        tools, (callers, callees, impact, definition, unknown) = anyio.run(session)
    for name in ("callers", "callees", "impact", "definition"):
        assert "segment" in tools[name]["properties"], name
    assert [(h["symbol"], h["preview"]) for h in callers["data"]["hits"]] == [
        ("Store.load", "return normalize(key)"),
        ("Service.fetch", "return norm(key)"),
    ]  # previews from the stored text
    assert callees["status"] == "ok" and any(h["symbol"] == "normalize" for h in callees["data"]["hits"])
    assert impact["status"] == "ok" and impact["data"]["total"] >= 1
    assert definition["data"]["definitions"][0]["symbol"] == "helper"
    assert unknown["errors"][0]["code"] == "SEGMENT_NOT_FOUND"


def test_typescript_receivers_typed_by_annotations_fields_and_new_reach_the_method(
    engine: trifecta.Engine,
) -> None:
    assert hits(engine.callers("sym://typescript/type/ts/src/util/Greeter#greet")) == [
        ("ts/src/main.ts", 6, "main", "exact", "g.greet"),  # const g = new Greeter()
        ("ts/src/shop.ts", 11, "Shop.welcome", "exact", "guest.greet"),  # guest: Greeter
        ("ts/src/shop.ts", 11, "Shop.welcome", "exact", "this.greeter.greet"),  # private greeter: Greeter
    ]


def test_the_store_reads_the_imports_that_bind_given_names(engine: trifecta.Engine) -> None:
    store = engine._app.store  # noqa: SLF001 - the reader port's aliases filter, on the real SQLite file
    found = store.edges(paths=["py/app/service.py"], kinds=["import"], aliases=["norm", "nothing"])
    assert [(e.name, e.text, e.alias) for _, e in found] == [("normalize", ".store", "norm")]
    assert store.edges(paths=["py/app/service.py"], kinds=["import"], aliases=["nothing"]) == []


def test_an_index_written_before_the_current_edges_is_reparsed_by_its_next_run(tmp_path: Path) -> None:
    """An index from a version whose parsers recorded fewer edges (no edges version in meta, its edges
    missing) gets them back from a plain `index` run, which re-parses every file once; the run after
    that reads nothing."""
    import sqlite3

    repo = tmp_path / "repo"
    shutil.copytree(FIXTURE, repo)
    db = tmp_path / "index.db"
    uri = "sym://python/type/py/app/store/ping"
    with trifecta.open(str(repo), db_path=str(db)) as engine:
        engine.index()
        before = hits(engine.callers(uri))
    assert before
    with sqlite3.connect(db) as conn:  # as an older version left it
        conn.execute("DELETE FROM edges")
        conn.execute("DELETE FROM meta WHERE key='edges_version'")
    with trifecta.open(str(repo), db_path=str(db)) as engine:
        assert engine.index().files_indexed > 0
        assert hits(engine.callers(uri)) == before
        assert engine.index().files_indexed == 0
