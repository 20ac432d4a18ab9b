"""The trigram accelerator is dropped for bulk loads and rebuilt once; look-ups give the same answers
whether it is built or not, and a refresh that writes nothing leaves the database untouched."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

import trifecta
from trifecta.application.index_segment import BULK_FILES


@pytest.fixture()
def bulk_repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    pkg = root / "pkg"
    pkg.mkdir(parents=True)
    for i in range(BULK_FILES + 10):
        (pkg / f"mod_{i:03d}.py").write_text(
            f"def handler_{i}(request):\n    return request.headers.get('X-Token-{i}')\n\n\n"
            f"class Widget{i}:\n    def render(self):\n        return '<div id=w{i}>'\n"
        )
    return root


def _state(db: Path) -> str:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT value FROM meta WHERE key='substring_index'").fetchone()[0]


def _trigram_rows(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        # detail=none trigram: the index's own size table counts indexed rows
        return conn.execute("SELECT count(*) FROM chunks_tri WHERE chunks_tri MATCH 'ret'").fetchone()[0]


def _pattern_hits(engine: trifecta.Engine, query: str) -> list[tuple[str, int]]:
    data = engine.search(query, limit=50, mode="pattern").to_dict()["data"]
    return sorted((h["path"], h["line"]) for h in data["hits"])


def test_explicit_bulk_index_builds_the_accelerator_once(bulk_repo: Path) -> None:
    with trifecta.open(bulk_repo) as engine:
        report = engine.index()
        db = Path(engine.db_path)
        assert report.files_indexed == BULK_FILES + 10
        assert report.substring_index_seconds > 0
        assert report.searchable_seconds <= report.seconds
        assert _state(db) == "ready"
        assert _trigram_rows(db) > 0
        assert _pattern_hits(engine, "X-Token-17'") == [("pkg/mod_017.py", 2)]


def test_implicit_build_defers_the_accelerator_and_answers_the_same(bulk_repo: Path) -> None:
    with trifecta.open(bulk_repo) as engine:
        db = Path(engine.db_path)
        scanned = _pattern_hits(engine, "<div id=w20>")  # first search builds the index implicitly
        assert _state(db) == "suspended"
        assert scanned == [("pkg/mod_020.py", 7)]
        plain_scan = _pattern_hits(engine, "X-Token-2")
        assert len(plain_scan) == 21  # mod_002, mod_020-029, mod_200-209

        # a small change while suspended is written without the trigram table
        (bulk_repo / "pkg" / "mod_002.py").write_text("MOVED = 'X-Token-2 moved'\n")
        expected = [("pkg/mod_002.py", 1), *plain_scan[1:]]
        assert _pattern_hits(engine, "X-Token-2") == expected

        report = engine.index()  # explicit: builds it
        assert report.files_indexed == 0
        assert _state(db) == "ready"
        assert _pattern_hits(engine, "X-Token-2") == expected
        assert _pattern_hits(engine, "<div id=w20>") == scanned


def test_small_changes_keep_a_built_accelerator_current(bulk_repo: Path) -> None:
    with trifecta.open(bulk_repo) as engine:
        engine.index()
        db = Path(engine.db_path)
        (bulk_repo / "pkg" / "extra.py").write_text("MARKER = 'zebra_crossing_42'\n")
        (bulk_repo / "pkg" / "mod_001.py").unlink()
        report = engine.index()
        assert report.files_indexed == 1 and report.files_deleted == 1
        assert report.substring_index_seconds == 0
        assert _state(db) == "ready"
        assert _pattern_hits(engine, "zebra_crossing_4") == [("pkg/extra.py", 1)]
        assert _pattern_hits(engine, "X-Token-1'") == []


def test_a_refresh_with_no_change_writes_nothing(bulk_repo: Path) -> None:
    with trifecta.open(bulk_repo) as engine:
        engine.index()
        db = Path(engine.db_path)
        with sqlite3.connect(db) as conn:
            before = conn.execute("SELECT value FROM meta WHERE key='built_at'").fetchone()[0]
            changes_before = conn.execute("PRAGMA data_version").fetchone()[0]
            report = engine.index()
            assert report.changed == 0
            # data_version moves when another connection commits to the database
            assert conn.execute("PRAGMA data_version").fetchone()[0] == changes_before
            assert conn.execute("SELECT value FROM meta WHERE key='built_at'").fetchone()[0] == before


def test_progress_reports_the_files_then_the_accelerator(bulk_repo: Path) -> None:
    calls: list[tuple[int, int, str]] = []
    with trifecta.open(bulk_repo) as engine:
        engine.index(progress=lambda done, total, message: calls.append((done, total, message)))
    files = BULK_FILES + 10
    assert calls[0] == (0, files, f"indexing {files} files")
    messages = [m for _, _, m in calls]
    done_at = messages.index("done")
    assert calls[done_at][:2] == (files, files)
    assert messages[done_at + 1 :] == [
        "substring index: building the trigram accelerator",
        "substring index: built",
    ]
