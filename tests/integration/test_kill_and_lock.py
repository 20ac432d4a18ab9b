"""A run killed with SIGKILL leaves the last consistent index; a second indexer waits or fails clearly."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import trifecta
from trifecta.infrastructure.sqlite_store import IndexLocked, SqliteIndex

INDEX_SCRIPT = textwrap.dedent(
    """
    import sys, trifecta
    engine = trifecta.open(sys.argv[1], workers=1)
    engine.index(progress=lambda done, total, msg: print(done, flush=True))
    """
)


def make_tree(root: Path, files: int) -> None:
    for i in range(files):
        pkg = root / f"pkg{i % 20}"
        pkg.mkdir(parents=True, exist_ok=True)
        body = "\n".join(f"    value_{j} = x * {j}" for j in range(40))
        (pkg / f"mod_{i}.py").write_text(
            f"def function_{i}(x):\n{body}\n    return x\n\nclass Class{i}:\n    pass\n"
        )


def consistent(db: Path) -> tuple[int, int]:
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        files = conn.execute("SELECT count(*) FROM files").fetchone()[0]
        orphans = conn.execute(
            "SELECT count(*) FROM chunks WHERE file_id NOT IN (SELECT id FROM files)"
        ).fetchone()[0]
        empty = conn.execute(
            "SELECT count(*) FROM files WHERE id NOT IN (SELECT file_id FROM chunks)"
        ).fetchone()[0]
        fts = conn.execute("SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH 'function'").fetchone()[0]
        assert orphans == 0 and empty == 0
        return files, fts
    finally:
        conn.close()


@pytest.mark.slow
def test_sigkill_mid_index_leaves_a_consistent_index(tmp_path: Path) -> None:
    seg = tmp_path / "seg"
    make_tree(seg, 1500)
    proc = subprocess.Popen([sys.executable, "-c", INDEX_SCRIPT, str(seg)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    proc.stdout.readline()  # "0": the run has started
    proc.stdout.readline()  # the first batch is committed
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    db = seg / ".trifecta" / "index.db"
    files, fts = consistent(db)
    assert 0 < files < 1500
    assert fts == files  # every committed file is fully searchable, none half-written
    with trifecta.open(str(seg), workers=1) as engine:
        report = engine.index()
        assert report.files_unchanged == files  # the killed run's work is kept
    assert consistent(db) == (1500, 1500)


def test_second_writer_fails_with_a_clear_message(tmp_path: Path) -> None:
    store = SqliteIndex(tmp_path / "index.db")
    other = SqliteIndex(tmp_path / "index.db")
    with store.writing():
        start = time.monotonic()
        with (
            pytest.raises(IndexLocked, match="another trifecta process is indexing"),
            other.writing(wait_seconds=0.3),
        ):
            pass
        assert time.monotonic() - start >= 0.3
    with other.writing():  # released: the next writer gets it
        pass
