"""The load bench in small (bench/bench_pg_load.py): three client processes search a segment of a real
PostgreSQL server (started here) for two seconds while another process re-indexes another segment of the
same database, over and over: every search answers, none is an error, and the re-index runs go through."""

from __future__ import annotations

import shutil
import sys
import sysconfig
from pathlib import Path

import pytest

sys.path[:0] = [str(Path(__file__).parents[1]), str(Path(__file__).parents[2] / "bench")]
from bench_pg_load import copy_other, run  # noqa: E402

import trifecta  # noqa: E402
from postgres_server import bindir, controlled_server, new_database  # noqa: E402

pytestmark = [
    pytest.mark.timeout(180),
    pytest.mark.skipif(bindir() is None, reason="PostgreSQL is not installed (scripts/test installs it)"),
]
STDLIB = Path(sysconfig.get_paths()["stdlib"])


def test_clients_search_while_another_segment_is_reindexed(tmp_path: Path) -> None:
    tree, other = tmp_path / "stdlib", copy_other(STDLIB, tmp_path / "other")
    for sub in ("json", "email"):
        shutil.copytree(STDLIB / sub, tree / sub, ignore=shutil.ignore_patterns("__pycache__"))
    with controlled_server() as server:
        url = new_database(server.url, "load")
        for path, segment_id in ((tree, "stdlib"), (other, "other")):
            with trifecta.open(path, db_url=url, segment_id=segment_id, telemetry=False, workers=1) as engine:
                assert engine.index(full=True).files_indexed > 0
        backend = {
            "name": "postgres", "url": url, "tree": str(tree), "other": str(other), "db_path": None,
            "other_db_path": None, "data_dir": server.data, "seconds": 2.0,
        }  # fmt: skip
        figures = run(backend, clients=3)
    assert figures["errors"] == 0, figures["error_samples"]
    assert figures["searches"] >= 3
    assert figures["reindex_runs"] >= 1 and figures["reindex_errors"] == 0
    assert figures["server_cpu_ms_per_search"] is not None and figures["server_cpu_ms_per_search"] > 0
