"""The shared index's per-word postings (schema 7), on a real PostgreSQL server started here: they hold
exactly what the chunks' tsvectors hold after files are added, changed and deleted; a database of schema 6
gets them when it is migrated; a run that wrote many files vacuums and analyzes the tables it wrote; GIN
pending lists stay short."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))
import trifecta  # noqa: E402
from postgres_server import bindir, new_database, running_server  # noqa: E402
from trifecta.infrastructure.postgres_store import ANALYZE_AFTER_FILES, GIN_PENDING_KB  # noqa: E402

pytestmark = [
    pytest.mark.timeout(120),
    pytest.mark.skipif(bindir() is None, reason="PostgreSQL is not installed (scripts/test installs it)"),
]

# Every posting recomputed from the tsvectors: (segment, chunk, lexeme, weighted frequency, named frequency)
EXPECTED = """
    SELECT c.segment_id, c.id, u.lexeme,
        (SELECT sum(CASE w WHEN 'A' THEN 10 WHEN 'B' THEN 6 WHEN 'C' THEN 3 ELSE 1 END) FROM unnest(u.weights) w),
        (SELECT coalesce(sum(CASE w WHEN 'A' THEN 10 WHEN 'B' THEN 6 WHEN 'C' THEN 3 ELSE 0 END), 0)
         FROM unnest(u.weights) w),
        c.n_tokens
    FROM trifecta_chunks c CROSS JOIN LATERAL unnest(c.tsv) u
"""
STORED = "SELECT segment_id, chunk, lexeme, tf, named, n_tokens FROM trifecta_postings"


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with running_server() as url:
        yield url


def _differences(url: str) -> tuple[int, int, int]:
    """(postings missing, postings extra, postings stored)."""
    with psycopg.connect(url) as conn:
        missing = conn.execute(f"SELECT count(*) FROM ({EXPECTED} EXCEPT ALL {STORED}) AS d").fetchone()[0]
        extra = conn.execute(f"SELECT count(*) FROM ({STORED} EXCEPT ALL {EXPECTED}) AS d").fetchone()[0]
        stored = conn.execute("SELECT count(*) FROM trifecta_postings").fetchone()[0]
    return missing, extra, stored


def _paths(engine: trifecta.Engine, query: str) -> set[str]:
    return {hit["path"] for hit in engine.search(query, limit=20).to_dict()["data"]["hits"]}


def test_postings_follow_added_changed_and_deleted_files(server: str, tmp_path: Path) -> None:
    url = new_database(server, "postings")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "weather.py").write_text(
        'def barometer_reading():\n    """Pressure in hectopascal."""\n    return 1013\n'
    )
    (repo / "ocean.py").write_text("def tide_table():\n    return 'spring tide'\n")
    with trifecta.open(repo, db_url=url, segment_id="repo", telemetry=False) as engine:
        engine.index()
        assert _differences(url)[:2] == (0, 0) and _differences(url)[2] > 0
        assert _paths(engine, "hectopascal") == {"weather.py"}
        (repo / "weather.py").write_text("def anemometer():\n    return 'gale'\n")
        (repo / "ocean.py").unlink()
        (repo / "river.py").write_text("def tide_table():\n    return 'neap tide'\n")
        engine.index()
        assert _differences(url)[:2] == (0, 0)
        assert _paths(engine, "hectopascal") == set()  # the changed file's old words are gone
        assert _paths(engine, "tide_table") == {"river.py"}  # the deleted file's too
        assert _paths(engine, "anemometer") == {"weather.py"}


def test_a_schema_6_database_gets_its_postings_when_migrated(server: str, sample_repo: Path) -> None:
    url = new_database(server, "migrated")
    with trifecta.open(sample_repo, db_url=url, segment_id="sample", telemetry=False) as engine:
        engine.index()
        before = _paths(engine, "validate email address")
    assert before
    with psycopg.connect(url, autocommit=True) as conn:  # as schema 6 left it: no postings table
        conn.execute("DROP TABLE trifecta_postings")
        conn.execute("UPDATE trifecta_meta SET value='6' WHERE key='schema_version'")
    with trifecta.open(sample_repo, db_url=url, segment_id="sample", telemetry=False) as engine:
        assert _paths(engine, "validate email address") == before
    assert _differences(url)[:2] == (0, 0)


def test_a_run_that_wrote_many_files_vacuums_and_analyzes(server: str, tmp_path: Path) -> None:
    url = new_database(server, "analyzed")
    repo = tmp_path / "many"
    repo.mkdir()
    for n in range(ANALYZE_AFTER_FILES + 5):
        (repo / f"m{n}.py").write_text(f"def function_{n}(value):\n    return value + {n}\n")
    with trifecta.open(repo, db_url=url, segment_id="many", telemetry=False, workers=1) as engine:
        engine.index()
    with psycopg.connect(url) as conn:
        analyzed = dict(
            conn.execute(
                "SELECT relname, last_analyze IS NOT NULL AND last_vacuum IS NOT NULL FROM pg_stat_user_tables "
                "WHERE relname IN ('trifecta_chunks', 'trifecta_postings')"
            ).fetchall()
        )
    assert analyzed == {"trifecta_chunks": True, "trifecta_postings": True}


def test_gin_pending_lists_stay_short(server: str, sample_repo: Path, tmp_path: Path) -> None:
    """Every search that asks a GIN index reads its pending list whole: both keep it to GIN_PENDING_KB (not
    PostgreSQL's 4 MB, which a writer of another segment would keep full), schema 8."""
    url = new_database(server, "pending")
    other = tmp_path / "other"
    other.mkdir()
    for n in range(30):
        (other / f"o{n}.py").write_text(f"def other_{n}(value):\n    return 'other text {n}' + value\n")
    for path, segment in ((sample_repo, "sample"), (other, "other")):
        with trifecta.open(path, db_url=url, segment_id=segment, telemetry=False, workers=1) as engine:
            engine.index()
    names = ("trifecta_chunks_tsv", "trifecta_chunks_trgm")
    with psycopg.connect(url, autocommit=True) as conn:
        options = dict(
            conn.execute(
                "SELECT relname, reloptions FROM pg_class WHERE relname = ANY(%s)", (list(names),)
            ).fetchall()
        )
        conn.execute("CREATE EXTENSION IF NOT EXISTS pageinspect")
        pages = [
            conn.execute(
                "SELECT n_pending_pages FROM gin_metapage_info(get_raw_page(%s, 0))", (name,)
            ).fetchone()[0]
            for name in names
        ]
    assert options == {name: [f"gin_pending_list_limit={GIN_PENDING_KB}"] for name in names}
    assert all(p <= GIN_PENDING_KB // 8 + 1 for p in pages)  # 8 kB pages
