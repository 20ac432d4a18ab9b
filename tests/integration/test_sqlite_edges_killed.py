"""A local index's edges version (meta.edges_version) never vouches for edges it does not describe: a run by
a trifecta of another edges version re-parses the index, and when it is killed after some batches committed
and before its end, the index holds its edges under no stamp, so the next run by the old stamp's version
re-parses every file too (else it would keep the other version's edges as its own). On a real SQLite file."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

import trifecta
from trifecta.infrastructure import sqlite_store

pytestmark = pytest.mark.timeout(120)

FIXTURE = Path(__file__).parents[1] / "fixtures" / "callgraph" / "py"
NORMALIZE = "sym://python/type/app/store/normalize"
OTHER = str(int(sqlite_store.EDGES_VERSION) + 1)


def _index(repo: Path, db: Path) -> trifecta.IndexReport:
    with trifecta.open(repo, db_path=str(db), telemetry=False, workers=1) as engine:
        return engine.index()


def _stamp(db: Path) -> str | None:
    with sqlite3.connect(db) as conn:
        row = conn.execute("SELECT value FROM meta WHERE key='edges_version'").fetchone()
    return row[0] if row else None


def _callers(repo: Path, db: Path) -> list[tuple[str, int, str]]:
    with trifecta.open(repo, db_path=str(db), telemetry=False) as engine:
        data = engine.callers(NORMALIZE).to_dict()
    assert data["status"] == "ok", data["errors"]
    return [(h["path"], h["line"], h["callee"]) for h in data["data"]["hits"]]


def test_a_run_of_another_edges_version_killed_midway_leaves_no_stamp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, db = tmp_path / "nav", tmp_path / "index.db"
    shutil.copytree(FIXTURE, repo)
    seen = _index(repo, db).files_seen
    callers = _callers(repo, db)
    assert seen > 0 and callers and _stamp(db) == sqlite_store.EDGES_VERSION
    with monkeypatch.context() as other:  # a client of another edges version, killed before its run's end
        other.setattr(sqlite_store, "EDGES_VERSION", OTHER)

        def die(self: Any, built_at: str) -> None:
            raise RuntimeError("killed")

        other.setattr(sqlite_store.SqliteIndex, "finish_run", die)
        with pytest.raises(RuntimeError, match="killed"):
            _index(repo, db)
    assert _stamp(db) == ""  # its batches committed: the index's edges are of no one version
    with sqlite3.connect(db) as conn:  # what the other version recorded, unlike ours
        conn.execute("UPDATE edges SET name = name || '_other'")
    assert _callers(repo, db) == []
    report = _index(repo, db)  # the old stamp's version
    assert report.files_indexed == seen and report.files_unchanged == 0  # every file re-parsed
    assert _stamp(db) == sqlite_store.EDGES_VERSION
    assert _callers(repo, db) == callers
    assert _index(repo, db).files_indexed == 0


def test_a_run_of_the_stamped_version_killed_midway_keeps_its_stamp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A killed run of the stamp's own version wrote edges of that version: the next run carries on."""
    repo, db = tmp_path / "nav", tmp_path / "index.db"
    shutil.copytree(FIXTURE, repo)
    _index(repo, db)
    (repo / "app" / "extra.py").write_text(
        "from .store import normalize\n\n\ndef shout(k):\n    return normalize(k)\n"
    )
    with monkeypatch.context() as killed:

        def die(self: Any, built_at: str) -> None:
            raise RuntimeError("killed")

        killed.setattr(sqlite_store.SqliteIndex, "finish_run", die)
        with pytest.raises(RuntimeError, match="killed"):
            _index(repo, db)
    assert _stamp(db) == sqlite_store.EDGES_VERSION
    report = _index(repo, db)
    assert report.files_indexed == 0 and report.files_unchanged == report.files_seen
