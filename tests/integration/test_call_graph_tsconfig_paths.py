"""TypeScript callers through the project's own names for its files: tsconfig.json's ``compilerOptions.paths``
and ``baseUrl`` (with comments, trailing commas, ``extends``), the nearest tsconfig governing a folder's
files, over tests/fixtures/callgraph_ts_paths indexed into a real SQLite file through the facade."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import trifecta

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "callgraph_ts_paths"
pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[trifecta.Engine]:
    repo = tmp_path_factory.mktemp("callgraph_ts_paths") / "repo"
    shutil.copytree(FIXTURE, repo)
    with trifecta.open(repo) as e:
        e.index()
        yield e


def callers(engine: trifecta.Engine, uri: str) -> list[tuple[Any, ...]]:
    data = engine.callers(uri).to_dict()
    assert data["status"] == "ok", data["errors"]
    return [(h["path"], h["line"], h["symbol"], h["resolution"], h["callee"]) for h in data["data"]["hits"]]


def test_a_package_name_the_tsconfig_maps_to_an_index_file_reaches_what_it_passes_on(
    engine: trifecta.Engine,
) -> None:
    # `"@app/core": ["src/core/index.ts"]`: not packages/other/core, whose folder the name also ends in
    assert callers(engine, "sym://typescript/type/src/core/start/start") == [
        ("src/page.ts", 8, "page", "import", "start"),
    ]
    assert callers(engine, "sym://typescript/type/packages/other/core/index/start") == []
    # `"app-kit": ["src/index.ts"]`, which passes format on (`export *`); `src/util/format` from baseUrl
    assert callers(engine, "sym://typescript/type/src/util/format/format") == [
        ("src/page.ts", 11, "page", "import", "fmt"),
        ("src/page.ts", 12, "page", "import", "format"),
    ]
    assert callers(engine, "sym://typescript/type/packages/other/src/util/format/format") == []


def test_a_wildcard_alias_reads_from_the_nearest_tsconfig(engine: trifecta.Engine) -> None:
    # `"@/*": ["src/*"]` at the root (`.js` naming its `.ts` source); `"@/*": ["./lib/*"]` in packages/other;
    # packages/broken's tsconfig.json does not parse, so the root's governs its files
    assert callers(engine, "sym://typescript/type/src/util/format/helper") == [
        ("packages/broken/use.ts", 4, "use", "import", "helper"),
        ("src/page.ts", 9, "page", "import", "helper"),
        ("src/page.ts", 10, "page", "import", "again"),
    ]
    assert callers(engine, "sym://typescript/type/packages/other/lib/util/format/helper") == [
        ("packages/other/app.ts", 4, "app", "import", "helper"),
    ]


def test_a_package_s_subpath_is_no_folder_of_the_project_that_ends_in_its_last_part(
    engine: trifecta.Engine,
) -> None:
    # `import { selectAll as originalSelectAll } from "@scope/pm/commands"`: a package no tsconfig.json maps,
    # whose `selectAll` is not src/commands' own (which the language server leaves unresolved too)
    assert callers(engine, "sym://typescript/type/src/commands/selectAll/selectAll") == [
        ("src/commands/selectAll.ts", 8, "selectTwice", "import", "own"),
    ]
