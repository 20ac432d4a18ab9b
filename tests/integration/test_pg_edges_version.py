"""The shared index records the version of the call edges each segment holds (schema 9), on a real
PostgreSQL server started here: a plain `index` after an edges-version change re-parses every file once and
writes fresh edges, as the SQLite store does; a database of schema 8 is migrated and re-parsed once; a client
of another edges version never leaves its edges under a stamp that is not theirs (an older client stamps
its own version, a run killed midway leaves none)."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))
import trifecta  # noqa: E402
from postgres_server import bindir, new_database, running_server  # noqa: E402
from trifecta.infrastructure import postgres_store  # noqa: E402
from trifecta.infrastructure.postgres_store import SCHEMA_VERSION, IndexUnavailable, PostgresIndex  # noqa: E402
from trifecta.infrastructure.sqlite_store import EDGES_VERSION  # noqa: E402

pytestmark = [
    pytest.mark.timeout(120),
    pytest.mark.skipif(bindir() is None, reason="PostgreSQL is not installed (scripts/test installs it)"),
]

FIXTURE = Path(__file__).parents[1] / "fixtures" / "callgraph" / "py"
OLDER, NEWER = str(int(EDGES_VERSION) - 1), str(int(EDGES_VERSION) + 1)
NORMALIZE = "sym://python/type/app/store/normalize"
EDGES = (
    "SELECT f.path, e.kind, e.caller, e.line, e.col, e.name, e.text, e.alias FROM trifecta_edges e "
    "JOIN trifecta_files f ON f.segment_id = e.segment_id AND f.id = e.file_id ORDER BY 1, 2, 3, 4, 5, 6, 7, 8"
)


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with running_server() as url:
        yield url


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    dest = tmp_path / "nav"
    shutil.copytree(FIXTURE, dest)
    return dest


def _index(repo: Path, url: str) -> trifecta.IndexReport:
    """A plain run by a fresh client (a process of its own would start so)."""
    with trifecta.open(repo, db_url=url, segment_id="nav", telemetry=False, workers=1) as engine:
        return engine.index()


def _sql(url: str, sql: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(url, autocommit=True) as conn:
        cur = conn.execute(sql)
        return cur.fetchall() if cur.description else []


def _stamp(url: str) -> str:
    return str(_sql(url, "SELECT edges_version FROM trifecta_segments WHERE name='nav'")[0][0])


def _callers(repo: Path, url: str) -> list[tuple[str, int, str]]:
    with trifecta.open(repo, db_url=url, segment_id="nav", telemetry=False) as engine:
        data = engine.callers(NORMALIZE).to_dict()
    assert data["status"] == "ok", data["errors"]
    return [(h["path"], h["line"], h["callee"]) for h in data["data"]["hits"]]


def _older_edges(url: str, version: str) -> None:
    """The segment as a trifecta of another edges version left it: its stamp, and edges unlike ours."""
    _sql(url, f"UPDATE trifecta_segments SET edges_version='{version}'")
    _sql(url, "UPDATE trifecta_edges SET name = name || '_stale'")


def test_a_plain_run_after_an_edges_version_change_rewrites_the_edges_once(server: str, repo: Path) -> None:
    url = new_database(server, "edges_changed")
    first = _index(repo, url)
    assert first.files_indexed == first.files_seen > 0
    assert _stamp(url) == EDGES_VERSION
    edges, callers = _sql(url, EDGES), _callers(repo, url)
    assert edges and callers
    _older_edges(url, OLDER)
    assert _callers(repo, url) == []  # navigation answers from the stale edges
    again = _index(repo, url)  # plain, not --full
    assert again.files_indexed == first.files_seen and again.files_unchanged == 0  # every file re-parsed
    assert _sql(url, EDGES) == edges and _callers(repo, url) == callers
    assert _stamp(url) == EDGES_VERSION
    assert _index(repo, url).files_indexed == 0  # once


def test_a_schema_8_database_is_migrated_and_its_segments_reparsed_once(server: str, repo: Path) -> None:
    url = new_database(server, "schema8")
    seen = _index(repo, url).files_seen
    edges, callers = _sql(url, EDGES), _callers(repo, url)
    # as schema 8 left it: no edges version, the edges of whichever trifecta wrote them
    _sql(url, "ALTER TABLE trifecta_segments DROP COLUMN edges_version")
    _sql(url, "UPDATE trifecta_meta SET value='8' WHERE key='schema_version'")
    _sql(url, "UPDATE trifecta_edges SET name = name || '_stale'")
    report = _index(repo, url)
    assert _sql(url, "SELECT value FROM trifecta_meta WHERE key='schema_version'") == [(str(SCHEMA_VERSION),)]
    assert report.files_indexed == seen  # of no known version: re-parsed
    assert _sql(url, EDGES) == edges and _callers(repo, url) == callers
    assert _stamp(url) == EDGES_VERSION
    assert _index(repo, url).files_indexed == 0


def test_an_older_client_stamps_its_own_edges_version_never_a_newer_one(
    server: str, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = new_database(server, "two_clients")
    with monkeypatch.context() as newer:
        newer.setattr(postgres_store, "EDGES_VERSION", NEWER)
        seen = _index(repo, url).files_seen
        assert _stamp(url) == NEWER
    with trifecta.open(repo, db_url=url, segment_id="nav", telemetry=False, workers=1) as engine:
        older = engine.index()
        warnings = {w["code"]: w for w in engine.status().to_dict()["warnings"]}
    assert older.files_indexed == seen  # the newer edges are not what it writes: rewritten with its own
    assert _stamp(url) == EDGES_VERSION
    assert warnings["INDEX_REBUILT"]["data"]["reason"] == "edges"
    with monkeypatch.context() as newer:
        newer.setattr(postgres_store, "EDGES_VERSION", NEWER)
        assert _index(repo, url).files_indexed == seen  # the newer client re-parses them back
        assert _stamp(url) == NEWER
        assert _index(repo, url).files_indexed == 0


def test_a_run_killed_before_its_end_leaves_no_edges_version(
    server: str, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A client whose edges version is not the segment's re-parses it; killed after its batches committed
    and before the run's end, the segment holds its edges under no stamp: any client's next run re-parses
    every file, the stamp's own version's too (else it would keep edges it does not write)."""
    url = new_database(server, "killed")
    with monkeypatch.context() as newer:
        newer.setattr(postgres_store, "EDGES_VERSION", NEWER)
        seen = _index(repo, url).files_seen
    with monkeypatch.context() as killed:

        def die(self: postgres_store.PostgresIndex, built_at: str) -> None:
            raise RuntimeError("killed")

        killed.setattr(postgres_store.PostgresIndex, "finish_run", die)
        with pytest.raises(RuntimeError, match="killed"):
            _index(repo, url)
    assert _stamp(url) == ""  # its edges, committed, are of no one version now
    with monkeypatch.context() as newer:
        newer.setattr(postgres_store, "EDGES_VERSION", NEWER)
        assert _index(repo, url).files_indexed == seen
        assert _stamp(url) == NEWER


def test_a_new_segment_killed_midway_keeps_what_it_committed(
    server: str, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new segment holds no edges, of this version: a first run killed after its batches committed is
    carried on by the next run, not re-parsed whole."""
    url = new_database(server, "new_killed")
    with monkeypatch.context() as killed:

        def die(self: postgres_store.PostgresIndex, built_at: str) -> None:
            raise RuntimeError("killed")

        killed.setattr(postgres_store.PostgresIndex, "finish_run", die)
        with pytest.raises(RuntimeError, match="killed"):
            _index(repo, url)
    assert _stamp(url) == EDGES_VERSION
    report = _index(repo, url)
    assert report.files_indexed == 0 and report.files_unchanged == report.files_seen


def test_a_search_machine_reads_a_schema_8_database_before_the_indexer_migrates_it(
    server: str, repo: Path
) -> None:
    """Schema 9 adds what writers need: a searcher upgraded first keeps searching (and migrates nothing);
    a database of a newer schema than its own is refused, saying to upgrade."""
    url = new_database(server, "searched8")
    _index(repo, url)
    _sql(url, "ALTER TABLE trifecta_segments DROP COLUMN edges_version")
    _sql(url, "UPDATE trifecta_meta SET value='8' WHERE key='schema_version'")
    searcher = PostgresIndex(url, "nav", searcher=True)
    try:
        assert [sc.chunk.path for sc in searcher.search_terms([["normalize"]], require_all=True, limit=5)]
        assert searcher.edges(names=["normalize"])
    finally:
        searcher.close()
    assert _sql(url, "SELECT value FROM trifecta_meta WHERE key='schema_version'") == [("8",)]
    _sql(url, f"UPDATE trifecta_meta SET value='{SCHEMA_VERSION + 1}' WHERE key='schema_version'")
    newer = PostgresIndex(url, "nav", searcher=True)
    try:
        with pytest.raises(IndexUnavailable, match="upgrade trifecta") as refused:
            newer.stats()
        assert refused.value.reason == "schema"
    finally:
        newer.close()
