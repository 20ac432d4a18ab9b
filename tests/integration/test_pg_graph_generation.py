"""A long-lived engine on a shared index (an MCP server) keeps its call graph between callers requests while
the segment's data stays the same, as on SQLite, and builds it anew once another client (another machine:
its own checkout, store and engine) has indexed a change into the segment, answering from the change. On a
real PostgreSQL server started here."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))
import trifecta  # noqa: E402
from postgres_server import bindir, new_database, running_server  # noqa: E402
from trifecta.application import call_graph  # noqa: E402
from trifecta.infrastructure import postgres_store  # noqa: E402

pytestmark = [
    pytest.mark.timeout(120),
    pytest.mark.skipif(bindir() is None, reason="PostgreSQL is not installed (scripts/test installs it)"),
]

FIXTURE = Path(__file__).parents[1] / "fixtures" / "callgraph" / "py"
NORMALIZE = "sym://python/type/app/store/normalize"
EXTRA = "from .store import normalize\n\n\ndef shout(key):\n    return normalize(key).upper()\n"


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with running_server() as url:
        yield url


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every call graph an engine builds."""
    built: list[object] = []

    class Counted(call_graph.CallGraph):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            built.append(self)

    monkeypatch.setattr(call_graph, "CallGraph", Counted)
    return built


def _callers(engine: Any) -> list[tuple[str, int]]:
    data = engine.callers(NORMALIZE).to_dict()
    assert data["status"] == "ok", data["errors"]
    return sorted((h["path"], h["line"]) for h in data["data"]["hits"])


def test_the_call_graph_is_kept_until_another_client_indexes_a_change(
    server: str, tmp_path: Path, builds: list[object], monkeypatch: pytest.MonkeyPatch
) -> None:
    # however long the store trusts its other caches: the graph asks the server at every request
    monkeypatch.setattr(postgres_store, "FRESH_SECONDS", 3600.0)
    url = new_database(server, "graph_kept")
    here, there = tmp_path / "here", tmp_path / "there"
    shutil.copytree(FIXTURE, here)
    shutil.copytree(FIXTURE, there)
    with trifecta.open(here, db_url=url, segment_id="nav", telemetry=False, workers=1) as indexer:
        indexer.index()
    with trifecta.open(here, db_url=url, segment_id="nav", telemetry=False) as server_engine:
        before = _callers(server_engine)
        assert before and len(builds) == 1
        assert _callers(server_engine) == before
        assert len(builds) == 1  # nothing changed: the same graph answered both
        (there / "app" / "extra.py").write_text(EXTRA)
        with trifecta.open(there, db_url=url, segment_id="nav", telemetry=False, workers=1) as other:
            assert other.index().files_indexed == 1
        after = _callers(server_engine)
        assert len(builds) == 2  # rebuilt once the other client's run committed
        assert after == sorted([*before, ("app/extra.py", 5)])
        assert _callers(server_engine) == after and len(builds) == 2
