"""TypeScript callers the index resolves the way a language server's references do, over
tests/fixtures/callgraph_ts indexed into a real SQLite file through the facade: re-exports through a barrel
file, ..."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import trifecta

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "callgraph_ts"
pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[trifecta.Engine]:
    repo = tmp_path_factory.mktemp("callgraph_ts") / "repo"
    shutil.copytree(FIXTURE, repo)
    with trifecta.open(repo) as e:
        e.index()
        yield e


def callers(engine: trifecta.Engine, uri: str) -> list[tuple[Any, ...]]:
    data = engine.callers(uri).to_dict()
    assert data["status"] == "ok", data["errors"]
    return [(h["path"], h["line"], h["symbol"], h["resolution"], h["callee"]) for h in data["data"]["hits"]]


def test_names_a_barrel_file_passes_on_reach_their_definitions(engine: trifecta.Engine) -> None:
    # lib/index.ts: `export * from "./util"`, `export { plain } from "./other"`,
    # `export * as others from "./other"`; app/main.ts imports from "../lib"
    assert callers(engine, "sym://typescript/type/lib/util/helper") == [
        ("app/main.ts", 5, "run", "import", "helper"),
        ("app/main.ts", 8, "run", "import", "lib.helper"),
    ]
    assert callers(engine, "sym://typescript/type/lib/util/Store#save") == [
        ("app/main.ts", 6, "run", "exact", "store.save"),  # store: Store, a class the barrel passes on
    ]
    assert callers(engine, "sym://typescript/type/lib/other/plain") == [
        ("app/main.ts", 7, "run", "import", "plain"),
        ("app/main.ts", 9, "run", "import", "lib.others.plain"),
    ]
