"""The call graph kept between requests (real SQLite index): the next question on the same code reads less of
the index, answers exactly as a new graph would, and is dropped as soon as the index changes (this
engine's own index run, or another process's)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import trifecta
from trifecta.application import call_graph
from trifecta.interfaces.bootstrap import selector_rules

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "callgraph"
pytestmark = pytest.mark.timeout(120)
KINDS = {"function", "method", "class"}

CALLED = "def helper(x):\n    return x\n\n\nclass Base:\n    def run(self):\n        return helper(1)\n"
CALLING = (
    "from .lib import helper, Base\n\n\nclass Child(Base):\n    def go(self):\n        return self.run()\n"
)


@pytest.fixture
def small(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "__init__.py").write_text("")
    (repo / "pkg" / "lib.py").write_text(CALLED)
    (repo / "pkg" / "use.py").write_text(CALLING)
    (repo / "pkg" / "other.py").write_text("class Base:\n    def run(self):\n        return 2\n")
    return repo


def callers(engine: trifecta.Engine, uri: str) -> list[tuple[Any, ...]]:
    data = engine.callers(uri, limit=500).to_dict()
    assert data["status"] == "ok", data["errors"]
    return [(h["path"], h["line"], h["symbol"], h["resolution"]) for h in data["data"]["hits"]]


def test_the_next_ask_reads_no_definition_again(small: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with trifecta.open(small) as engine:
        engine.index()
        store = engine._app.store  # noqa: SLF001 - counting what the request reads of the real index
        asked: list[str] = []
        find = store.find_symbols

        def counted(**kwargs: Any) -> Any:
            asked.append(str(kwargs))
            return find(**kwargs)

        monkeypatch.setattr(store, "find_symbols", counted)
        first = callers(engine, "sym://python/type/pkg/lib/Base#run")
        assert first == [("pkg/use.py", 6, "Child.go", "exact")]
        assert asked, "the first ask looks the definitions up"
        asked.clear()
        assert callers(engine, "sym://python/type/pkg/lib/Base#run") == first
        assert asked == []  # all kept from the first ask


def rebase(repo: Path) -> None:
    """use.py's Child now derives from other.py's Base: `self.run()` reaches other.Base.run instead; what a
    kept graph worked out of use.py (its imports, Child's bases) no longer holds."""
    (repo / "pkg" / "use.py").write_text(CALLING.replace("from .lib import", "from .other import"))


def test_the_kept_graph_is_dropped_when_this_engine_indexes_a_change(small: Path) -> None:
    with trifecta.open(small) as engine:
        engine.index()
        assert callers(engine, "sym://python/type/pkg/lib/Base#run") == [
            ("pkg/use.py", 6, "Child.go", "exact")
        ]
        assert callers(engine, "sym://python/type/pkg/other/Base#run") == []
        rebase(small)
        engine.index()  # within the same second: the data's generation tells, not built_at
        assert callers(engine, "sym://python/type/pkg/lib/Base#run") == []
        assert callers(engine, "sym://python/type/pkg/other/Base#run") == [
            ("pkg/use.py", 6, "Child.go", "exact")
        ]


def test_the_kept_graph_is_dropped_when_another_process_indexes_a_change(small: Path) -> None:
    with trifecta.open(small) as engine:
        engine.index()
        assert callers(engine, "sym://python/type/pkg/lib/Base#run") == [
            ("pkg/use.py", 6, "Child.go", "exact")
        ]
        rebase(small)
        done = subprocess.run(
            [sys.executable, "-c", "import sys, trifecta; trifecta.open(sys.argv[1]).index()", str(small)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        assert callers(engine, "sym://python/type/pkg/lib/Base#run") == []
        assert callers(engine, "sym://python/type/pkg/other/Base#run") == [
            ("pkg/use.py", 6, "Child.go", "exact")
        ]


@pytest.fixture(scope="module")
def fixture_engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[trifecta.Engine]:
    dest = tmp_path_factory.mktemp("kept") / "repo"
    shutil.copytree(FIXTURE, dest, ignore=shutil.ignore_patterns(".trifecta"))
    with trifecta.open(dest) as e:
        e.index()
        yield e


def test_kept_graph_answers_are_a_new_graphs(
    fixture_engine: trifecta.Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every definition of the call-graph fixture (Python, Go, TypeScript): callers, callees and impact asked
    one after another on the kept graph, then each on a new graph: the same answers."""
    store = fixture_engine._app.store  # noqa: SLF001 - every definition of the index
    graph = call_graph.CallGraph(store, selector_rules())
    uris = [graph.uri(path, s.qualname) for path, s in store.all_symbols() if s.kind.value in KINDS]
    uris = sorted({u for u in uris if u})
    assert len(uris) > 20

    def answers() -> list[Any]:
        out = []
        for uri in uris:
            for ask in (fixture_engine.callers, fixture_engine.callees, fixture_engine.impact):
                out.append((uri, ask.__name__, ask(uri).to_dict()["data"]))
        return out

    kept = answers()
    monkeypatch.setattr(call_graph, "KEPT_GRAPH_ENTRIES", -1)  # every request on a new graph
    assert answers() == kept
