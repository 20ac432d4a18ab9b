"""A file skipped for its content (binary, with a text extension) is remembered by its stat in the index: a
refresh, in this process or the next, does not read it again until it changes (issue 16: django's
`tests/mail/attachments/file_png.txt` read on every search, "indexing: 0/1 files")."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

import trifecta

PNG_AS_TEXT = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01"


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "attachments").mkdir(parents=True)
    (root / "attachments" / "file_png.txt").write_bytes(PNG_AS_TEXT)
    (root / "mail.py").write_text("def send_mail(to):\n    return to\n")
    return root


def _run(engine: trifecta.Engine) -> tuple[trifecta.IndexReport, list[tuple[int, int, str]]]:
    calls: list[tuple[int, int, str]] = []
    report = engine.index(progress=lambda done, total, message: calls.append((done, total, message)))
    return report, calls


def _stored_paths(db: str) -> set[str]:
    with sqlite3.connect(db) as conn:
        return {row[0] for row in conn.execute("SELECT path FROM files")}


def _hits(engine: trifecta.Engine, query: str) -> list[str]:
    return [h["path"] for h in engine.search(query, mode="pattern").to_dict()["data"]["hits"]]


@pytest.mark.timeout(60)
def test_a_binary_file_is_read_once_then_skipped_unread_until_it_changes(repo: Path) -> None:
    with trifecta.open(repo, workers=1) as engine:
        first, _ = _run(engine)
        assert first.skipped["binary"] == 1 and first.files_indexed == 1
        again, calls = _run(engine)
        assert calls[0] == (0, 0, "index up to date")  # nothing to read: the binary file is remembered
        assert again.skipped["binary"] == 1 and again.files_indexed == 0 and again.files_unchanged == 1
        db = engine.db_path
    assert _stored_paths(db) == {"mail.py"}  # remembered apart: not an indexed file, no chunk, not listed
    with trifecta.open(repo, workers=1) as engine:  # another process: remembered in the index, not in memory
        report, calls = _run(engine)
        assert calls[0] == (0, 0, "index up to date") and report.skipped["binary"] == 1

        target = repo / "attachments" / "file_png.txt"
        target.write_text("now plain text: zebra_crossing_42\n")
        report, calls = _run(engine)
        assert calls[0][1] == 1 and report.files_indexed == 1 and "binary" not in report.skipped
        assert _hits(engine, "zebra_crossing_42") == ["attachments/file_png.txt"]

        target.write_bytes(PNG_AS_TEXT + b"zebra_crossing_42")  # binary again: its text leaves the index
        report, _ = _run(engine)
        assert report.skipped["binary"] == 1 and _hits(engine, "zebra_crossing_42") == []
        assert _stored_paths(db) == {"mail.py"}

        st = os.stat(target)  # the same size, another mtime: read again (and still binary)
        os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
        report, calls = _run(engine)
        assert calls[0][1] == 1 and report.skipped["binary"] == 1

        target.unlink()  # forgotten: it was never an indexed file, so not a deleted one either
        report, calls = _run(engine)
        assert report.files_deleted == 0 and "binary" not in report.skipped
        assert _run(engine)[1][0] == (0, 0, "index up to date")


@pytest.mark.timeout(60)
def test_an_index_made_before_the_skipped_table_gets_it_when_first_needed(repo: Path) -> None:
    with trifecta.open(repo, workers=1) as engine:
        engine.index()
        db = engine.db_path
    with sqlite3.connect(db) as conn:  # as an index built by the previous release has it
        conn.execute("DROP TABLE skipped_files")
    with trifecta.open(repo, workers=1) as engine:
        report, calls = _run(engine)  # nothing remembered: read once more, then remembered
        assert calls[0][1] == 1 and report.skipped["binary"] == 1
        assert _run(engine)[1][0] == (0, 0, "index up to date")
        assert _hits(engine, "send_mail") == ["mail.py"]
