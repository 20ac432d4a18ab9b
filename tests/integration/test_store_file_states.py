"""After its own writes the store keeps its file-state cache up to date from what it wrote (re-reading every
file's row costs ~6 ms on the stdlib's 2k files, on every refresh that changed something): the cache then
equals what a fresh connection reads."""

from __future__ import annotations

import os
from pathlib import Path

from trifecta.application.index_segment import IndexRequest, IndexSegment
from trifecta.infrastructure.code_parser import SourceParser
from trifecta.infrastructure.file_source import LocalFileSource
from trifecta.infrastructure.sqlite_store import SqliteIndex


def _run(store: SqliteIndex, repo: Path) -> None:
    source = LocalFileSource(repo)
    try:
        IndexSegment(source=source, parser=SourceParser(workers=1), writer=store, clock=lambda: "t").execute(
            IndexRequest()
        )
    finally:
        source.close()


def test_the_file_states_after_a_refresh_are_what_a_new_connection_reads(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    for i in range(6):
        (repo / f"m{i}.py").write_text(f"def f{i}():\n    return {i}\n")
    store = SqliteIndex(tmp_path / "index.db")
    _run(store, repo)
    assert set(store.file_states()) == {f"m{i}.py" for i in range(6)}  # cached from here on

    (repo / "m0.py").write_text("def changed():\n    return 0\n")  # written again
    (repo / "m1.py").unlink()  # deleted
    st = os.stat(repo / "m2.py")  # the same content, another mtime: its stat data is refreshed
    os.utime(repo / "m2.py", ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000))
    (repo / "new.py").write_text("NEW = 1\n")  # added
    (repo / "blob.txt").write_bytes(b"\x00binary")  # remembered as skipped
    _run(store, repo)

    reads: list[str] = []
    store._conn.set_trace_callback(lambda sql: reads.append(sql) if "FROM files" in sql else None)
    cached = store.file_states()
    assert reads == []  # served from the updated cache
    fresh = SqliteIndex(tmp_path / "index.db")
    try:
        assert cached == fresh.file_states()
    finally:
        fresh.close()
    assert cached["m2.py"].mtime_ns == os.stat(repo / "m2.py").st_mtime_ns
    assert "m1.py" not in cached and cached["blob.txt"].sha256 == "skipped:binary"
    store.close()
