"""The index is derived data, but it is thrown away only when SQLite says it is damaged.

Every test is one of the audit's reproductions, on a real SQLite file with real concurrent processes: another
process holding the write lock, a full disk (RLIMIT_FSIZE), a read-only mount, garbage written into the file,
the file deleted under a running indexer, a symlink in its place. Each asserts that no file was deleted, the
wait was bounded, and the answer (JSON from the CLI) names what happened.
"""

from __future__ import annotations

import json
import os
import random
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import trifecta
from trifecta.infrastructure import sqlite_store
from trifecta.infrastructure.sqlite_store import FIELD_WEIGHTS, IndexUnwritable, SqliteIndex

_SCRIPT = Path(sys.executable).parent / "trifecta"
CLI = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "trifecta"]
BUSY = "1"  # TRIFECTA_BUSY_TIMEOUT for the processes under test: bounded waits stay short here

HOLD_WRITE_LOCK = textwrap.dedent(
    """
    import sqlite3, sys, time
    conn = sqlite3.connect(sys.argv[1], isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    print("held", flush=True)
    sys.stdin.readline()  # until the test closes our stdin
    """
)
HOLD_WRITER_FLOCK = textwrap.dedent(
    """
    import sys
    from trifecta.infrastructure.sqlite_store import SqliteIndex
    with SqliteIndex(sys.argv[1]).writing():
        print("held", flush=True)
        sys.stdin.readline()
    """
)


def make_tree(root: Path, files: int = 12, lines: int = 20) -> None:
    for i in range(files):
        pkg = root / f"pkg{i % 4}"
        pkg.mkdir(parents=True, exist_ok=True)
        body = "\n".join(f"    value_{j} = x * {j}" for j in range(lines))
        (pkg / f"mod_{i}.py").write_text(
            f'def compute_total_{i}(x):\n    """Add up the order lines."""\n{body}\n    return x\n\n'
            f"class Ledger{i}:\n    def balance(self):\n        return {i}\n"
        )


def cli(
    *args: str, env: dict[str, str] | None = None, timeout: float = 60, **kw: object
) -> tuple[dict, float]:
    """Run the CLI with --json; the envelope and the wall time. Anything but JSON on stdout fails the test."""
    started = time.monotonic()
    proc = subprocess.run(
        [*CLI, *args, "--json"],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "TRIFECTA_BUSY_TIMEOUT": BUSY, **(env or {})},
        **kw,  # type: ignore[arg-type]
    )
    took = time.monotonic() - started
    try:
        return json.loads(proc.stdout), took
    except ValueError:
        pytest.fail(
            f"no JSON from {args}: rc {proc.returncode}\nstdout {proc.stdout!r}\nstderr {proc.stderr}"
        )


def warnings_of(envelope: dict) -> dict[str, dict]:
    return {w["code"]: w for w in envelope.get("warnings", [])}


def error_of(envelope: dict) -> dict:
    assert envelope["status"] == "error", envelope
    return envelope["errors"][0]


def inode(path: Path) -> int:
    return os.stat(path).st_ino


def stored_files(db: Path) -> dict[str, str]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return dict(conn.execute("SELECT path, sha256 FROM files").fetchall())
    finally:
        conn.close()


@pytest.fixture
def segment(tmp_path: Path) -> Path:
    seg = tmp_path / "seg"
    make_tree(seg)
    out, _ = cli("index", str(seg))
    assert out["status"] == "ok", out
    return seg


@pytest.fixture
def holder() -> Iterator[list[subprocess.Popen[str]]]:
    """Processes that hold a lock until the test ends (their stdin closes)."""
    procs: list[subprocess.Popen[str]] = []
    yield procs
    for proc in procs:
        if proc.stdin:
            proc.stdin.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def hold(procs: list[subprocess.Popen[str]], script: str, db: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", script, str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    procs.append(proc)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"


def touch_a_file(seg: Path) -> None:
    path = seg / "pkg0" / "mod_0.py"
    path.write_text(path.read_text() + "\ndef added_later():\n    return 1\n")


# ------------------------------------------------------------------------------------------------ busy
@pytest.mark.timeout(60)
def test_a_search_while_another_process_holds_the_write_lock_answers_stale_and_keeps_the_index(
    segment: Path, holder: list[subprocess.Popen[str]]
) -> None:
    db = segment / ".trifecta" / "index.db"
    before, files = inode(db), stored_files(db)
    hold(holder, HOLD_WRITE_LOCK, db)
    touch_a_file(segment)  # the search's refresh has something to write, and cannot
    out, took = cli("ctx", "search", "--segment", str(segment), "-q", "compute total order lines")
    assert out["status"] == "ok" and out["data"]["hits"], out
    assert "INDEX_STALE" in warnings_of(out)
    assert took < 15  # bounded: one busy wait (1 s here), not 30 s, and no rebuild
    assert inode(db) == before and stored_files(db) == files


@pytest.mark.timeout(60)
def test_an_index_run_while_another_process_holds_the_write_lock_is_index_locked(
    segment: Path, holder: list[subprocess.Popen[str]]
) -> None:
    db = segment / ".trifecta" / "index.db"
    before, files = inode(db), stored_files(db)
    hold(holder, HOLD_WRITE_LOCK, db)
    touch_a_file(segment)
    out, took = cli("index", str(segment))
    assert error_of(out)["code"] == "INDEX_LOCKED"
    assert took < 15
    assert inode(db) == before and stored_files(db) == files


@pytest.mark.timeout(60)
def test_a_search_while_another_indexer_holds_the_writer_lock_says_the_answer_may_be_stale(
    segment: Path, holder: list[subprocess.Popen[str]]
) -> None:
    hold(holder, HOLD_WRITER_FLOCK, segment / ".trifecta" / "index.db")
    touch_a_file(segment)
    out, took = cli("ctx", "search", "--segment", str(segment), "-q", "ledger balance")
    assert out["status"] == "ok" and out["data"]["hits"]
    assert warnings_of(out)["INDEX_STALE"]["data"]["reason"] == "locked"
    assert took < 15


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_searches_during_a_long_index_run_neither_fail_nor_discard_its_work(tmp_path: Path) -> None:
    """The audit: 18 of 1,656 searches failed with "SQL logic error" (every open wrote the FTS rank setting),
    and a search that timed out on the lock deleted the index the indexer was writing."""
    seg = tmp_path / "seg"
    make_tree(seg, files=900, lines=40)
    (seg / "seed.py").write_text("def seed_function():\n    return 1\n")
    with trifecta.open(str(seg)) as engine:  # something to search from the start
        engine.index()
    db = seg / ".trifecta" / "index.db"
    first = inode(db)
    (seg / "seed.py").write_text("def seed_function():\n    return 2\n")
    indexer = subprocess.Popen(
        [*CLI, "index", str(seg), "--full", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "TRIFECTA_BUSY_TIMEOUT": BUSY},
    )
    failures: list[dict] = []
    searches = 0
    try:
        while indexer.poll() is None and searches < 400:
            with trifecta.open(str(seg)) as engine:  # a new connection each time, as a CLI process opens
                out = engine.search("seed function", limit=5).to_dict()
            searches += 1
            if out["status"] != "ok":
                failures.append(out)
        stdout, _ = indexer.communicate(timeout=120)
    finally:
        if indexer.poll() is None:
            indexer.kill()
            indexer.wait()
    assert searches > 0 and failures == []
    report = json.loads(stdout)
    assert report["status"] == "ok" and "INDEX_REPLACED" not in warnings_of(report)
    assert inode(db) == first  # the same file all along: nobody rebuilt it
    assert len(stored_files(db)) == 901


# ------------------------------------------------------------------------------------------------ disk full
def _limit_file_size(limit: int) -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG instead
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


@pytest.mark.timeout(90)
def test_a_full_disk_is_a_clear_error_and_the_previous_index_stays(segment: Path) -> None:
    db = segment / ".trifecta" / "index.db"
    before, files = inode(db), stored_files(db)
    size = os.path.getsize(db)
    make_tree(segment / "more", files=40, lines=400)  # far more than the file size limit lets through
    limited = {"preexec_fn": lambda: _limit_file_size(size)}
    out, _ = cli("index", str(segment), **limited)
    error = error_of(out)
    assert error["code"] == "INDEX_UNWRITABLE" and error["data"]["reason"] in ("disk_full", "io_error")
    assert "cannot rollback" not in error["message"] and "index is as it was" in error["message"]
    # a plain search on the same full disk answers from the index as it was, and says so
    search, _ = cli("ctx", "search", "--segment", str(segment), "-q", "compute total", **limited)
    assert search["status"] == "ok" and search["data"]["hits"]
    assert warnings_of(search)["INDEX_STALE"]["data"]["reason"] in ("disk_full", "io_error")
    assert inode(db) == before and stored_files(db) == files
    assert sqlite3.connect(db).execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    out, _ = cli("index", str(segment))  # space again: the run completes
    assert out["status"] == "ok" and out["data"]["files_indexed"] == 40


@pytest.mark.timeout(60)
def test_a_full_disk_in_process_rolls_back_and_names_the_failure(tmp_path: Path) -> None:
    seg = tmp_path / "seg"
    make_tree(seg)
    with trifecta.open(str(seg)) as engine:
        engine.index()
        db = Path(engine.db_path)
        files = stored_files(db)
        make_tree(seg / "more", files=40, lines=400)
        store = engine._app.store
        pages = store._conn.execute("PRAGMA page_count").fetchone()[0]
        store._conn.execute(f"PRAGMA max_page_count = {pages}")  # SQLITE_FULL at the next page
        with pytest.raises(IndexUnwritable) as caught:
            engine.index()
        assert caught.value.reason == "disk_full"
        assert not store._conn.in_transaction
        assert stored_files(db) == files
        assert engine.search("ledger balance").to_dict()["data"]["hits"]


# ------------------------------------------------------------------------------------------------ read-only
def _read_only_mount(folder: Path, *command: str) -> subprocess.CompletedProcess[str]:
    """Run COMMAND with FOLDER bind-mounted read-only (a user and mount namespace: works as root, where
    permissions would not stop a write)."""
    script = 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"'
    env = {**os.environ, "TRIFECTA_BUSY_TIMEOUT": BUSY}
    return subprocess.run(
        ["unshare", "-rm", "sh", "-c", script, "sh", str(folder), *command],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )


def _can_mount_read_only(tmp_path: Path) -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = tmp_path / "probe"
    probe.mkdir()
    return _read_only_mount(probe, "true").returncode == 0


@pytest.mark.timeout(90)
def test_a_read_only_index_is_searched_as_it_is_with_a_note(segment: Path, tmp_path: Path) -> None:
    if not _can_mount_read_only(tmp_path):
        pytest.skip("no user namespaces here: cannot mount a folder read-only")
    folder = segment / ".trifecta"
    files = stored_files(folder / "index.db")
    touch_a_file(segment)
    proc = _read_only_mount(
        folder, *CLI, "ctx", "search", "--segment", str(segment), "-q", "ledger", "--json"
    )
    out = json.loads(proc.stdout)
    assert out["status"] == "ok" and out["data"]["hits"], proc.stderr
    assert "INDEX_READ_ONLY" in warnings_of(out)
    proc = _read_only_mount(folder, *CLI, "index", str(segment), "--json")
    error = error_of(json.loads(proc.stdout))
    assert error["code"] == "INDEX_UNWRITABLE" and error["data"]["reason"] == "read_only"
    assert stored_files(folder / "index.db") == files


@pytest.mark.timeout(60)
def test_no_index_in_a_read_only_segment_is_a_clear_error(tmp_path: Path) -> None:
    if not _can_mount_read_only(tmp_path):
        pytest.skip("no user namespaces here: cannot mount a folder read-only")
    seg = tmp_path / "seg"
    make_tree(seg)
    proc = _read_only_mount(seg, *CLI, "ctx", "search", "--segment", str(seg), "-q", "ledger", "--json")
    error = error_of(json.loads(proc.stdout))
    assert error["code"] == "INDEX_UNWRITABLE" and error["data"]["reason"] == "read_only"
    assert "Traceback" not in proc.stderr


# ------------------------------------------------------------------------------------------------ corrupt
@pytest.mark.timeout(60)
def test_a_file_that_is_not_a_database_is_rebuilt_kept_aside_and_reported(segment: Path) -> None:
    db = segment / ".trifecta" / "index.db"
    garbage = os.urandom(64 * 1024)
    db.write_bytes(garbage)
    for sibling in ("-wal", "-shm"):
        Path(f"{db}{sibling}").unlink(missing_ok=True)
    out, _ = cli("ctx", "search", "--segment", str(segment), "-q", "ledger balance")
    assert out["status"] == "ok" and out["data"]["hits"]
    rebuilt = warnings_of(out)["INDEX_REBUILT"]
    assert rebuilt["data"]["reason"] == "corrupt" and rebuilt["data"]["kept"] == f"{db}.corrupt"
    assert Path(f"{db}.corrupt").read_bytes() == garbage
    again, _ = cli("ctx", "search", "--segment", str(segment), "-q", "ledger balance")
    assert "INDEX_REBUILT" not in warnings_of(again)  # told once


def _scribble(db: Path, offset: int, data: bytes) -> None:
    with open(db, "r+b") as fh:
        fh.seek(offset)
        fh.write(data)


def _big_segment(tmp_path: Path) -> Path:
    seg = tmp_path / "seg"
    make_tree(seg, files=60, lines=200)
    out, _ = cli("index", str(seg))
    assert out["status"] == "ok"
    conn = sqlite3.connect(seg / ".trifecta" / "index.db")  # everything in the main file, none in the -wal
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return seg


@pytest.mark.timeout(90)
def test_garbage_mid_file_is_found_by_index_and_rebuilt(tmp_path: Path) -> None:
    seg = _big_segment(tmp_path)
    db = seg / ".trifecta" / "index.db"
    _scribble(db, os.path.getsize(db) // 2 // 4096 * 4096, os.urandom(64 * 1024))
    out, _ = cli("index", str(seg))  # the audit: "ok", and every search failed with "malformed"
    assert out["status"] == "ok", out
    assert warnings_of(out)["INDEX_REBUILT"]["data"]["reason"] == "corrupt"
    assert out["data"]["index"]["files"] == 60
    assert sqlite3.connect(db).execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    search, _ = cli("ctx", "search", "--segment", str(seg), "-q", "compute total order lines")
    assert search["status"] == "ok" and search["data"]["hits"]


@pytest.mark.timeout(90)
def test_index_full_on_a_damaged_file_rebuilds_and_answers_json(tmp_path: Path) -> None:
    seg = _big_segment(tmp_path)
    db = seg / ".trifecta" / "index.db"
    _scribble(db, os.path.getsize(db) // 2 // 4096 * 4096, os.urandom(64 * 1024))
    out, _ = cli("index", str(seg), "--full")  # the audit: a traceback, no JSON
    assert out["status"] == "ok" and out["data"]["index"]["files"] == 60
    assert "INDEX_REBUILT" in warnings_of(out)
    assert Path(f"{db}.corrupt").exists()


@pytest.mark.timeout(90)
def test_a_search_that_meets_a_malformed_page_sets_the_file_aside_rebuilds_and_answers(
    tmp_path: Path,
) -> None:
    seg = _big_segment(tmp_path)
    db = seg / ".trifecta" / "index.db"
    conn = sqlite3.connect(db)  # damage the pages of the chunks table, which every search with hits reads
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name='chunks'").fetchone()[0]
    conn.close()
    _scribble(db, (root - 1) * 4096, os.urandom(4096))
    first, _ = cli("ctx", "search", "--segment", str(seg), "-q", "compute total order lines")
    # the call that met the damage set the file aside, rebuilt the index and answered from it
    assert first["status"] == "ok" and first["data"]["hits"]
    assert "INDEX_REBUILT" in warnings_of(first)
    assert Path(f"{db}.corrupt").exists()
    second, _ = cli("ctx", "search", "--segment", str(seg), "-q", "compute total order lines")
    assert second["status"] == "ok" and second["data"]["hits"]


@pytest.mark.timeout(90)
def test_a_stored_file_row_of_the_wrong_type_is_damage_the_index_run_rebuilds(tmp_path: Path) -> None:
    # what a flipped byte in a record header does: a value of another type (or NULL) that SQLite reads back
    # without complaint; the run that reads it sets the file aside and rebuilds, it does not crash
    seg = _big_segment(tmp_path)
    db = seg / ".trifecta" / "index.db"
    conn = sqlite3.connect(db)
    with conn:
        conn.execute("UPDATE files SET size = 'garbled' WHERE rowid = (SELECT min(rowid) FROM files)")
    conn.close()
    out, _ = cli("index", str(seg))
    assert out["status"] == "ok" and "INDEX_REBUILT" in warnings_of(out), out
    assert out["data"]["index"]["files"] == 60
    assert Path(f"{db}.corrupt").exists()


@pytest.mark.timeout(90)
def test_flipped_bytes_are_found_by_the_index_run(tmp_path: Path) -> None:
    seg = _big_segment(tmp_path)
    db = seg / ".trifecta" / "index.db"
    size = os.path.getsize(db)
    rng = random.Random(19)
    with open(db, "r+b") as fh:  # 50 bytes in b-tree page headers, where SQLite's own checks look
        for page in rng.sample(range(2, size // 4096), 50):
            fh.seek((page - 1) * 4096 + rng.randrange(0, 8))
            fh.write(bytes([rng.randrange(256)]))
    out, _ = cli("index", str(seg))  # the audit: "After 50 flipped bytes, nothing reports anything"
    assert out["status"] == "ok" and "INDEX_REBUILT" in warnings_of(out)
    assert out["data"]["index"]["files"] == 60


def test_an_index_of_another_schema_version_is_rebuilt_with_reason_schema(segment: Path) -> None:
    db = segment / ".trifecta" / "index.db"
    conn = sqlite3.connect(db)
    conn.execute("UPDATE meta SET value='1' WHERE key='schema_version'")
    conn.commit()
    conn.close()
    out, _ = cli("ctx", "search", "--segment", str(segment), "-q", "ledger balance")
    assert out["status"] == "ok" and out["data"]["hits"]
    assert warnings_of(out)["INDEX_REBUILT"]["data"]["reason"] == "schema"


def test_a_rebuilt_index_ranks_with_the_field_weights(segment: Path) -> None:
    """Readers never write the FTS rank setting, and a rebuilt index has none: the weights are in the query."""
    (segment / "pkg0" / "weights.py").write_text(
        "def unrelated():\n    # reconcile reconcile reconcile\n    return 'reconcile'\n\n"
        "def reconcile():\n    return 1\n"
    )
    db = segment / ".trifecta" / "index.db"
    db.write_bytes(b"not a database" * 100)
    for sibling in ("-wal", "-shm"):
        Path(f"{db}{sibling}").unlink(missing_ok=True)
    out, _ = cli("ctx", "search", "--segment", str(segment), "-q", "reconcile", "--no-lint")
    assert "INDEX_REBUILT" in warnings_of(out)
    assert out["data"]["hits"][0]["symbol"] == "reconcile"
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT count(*) FROM chunks_fts_config WHERE k='rank'").fetchone()[0] == 0
    weights = ", ".join(map(str, FIELD_WEIGHTS))
    expected = {
        body: (-weighted, -plain)
        for body, weighted, plain in conn.execute(
            f"SELECT c.body, bm25(chunks_fts, {weights}), bm25(chunks_fts) FROM chunks_fts f "
            "JOIN chunks c ON c.rowid = f.rowid WHERE chunks_fts MATCH 'reconcile'"
        )
    }
    conn.close()
    store = SqliteIndex(db)
    found = store.search_terms([["reconcile"]], require_all=True, limit=5)
    store.close()
    assert found and all(sc.score == pytest.approx(expected[sc.chunk.body][0]) for sc in found)
    assert any(sc.score != pytest.approx(expected[sc.chunk.body][1]) for sc in found)  # not unweighted


# ------------------------------------------------------------------------------------------------ replaced
REPLACEABLE_RUN = textwrap.dedent(
    """
    import json, sys, trifecta
    engine = trifecta.open(sys.argv[1], workers=1)
    report = engine.index(progress=lambda done, total, msg: print("progress", done, flush=True))
    print(json.dumps({"files_indexed": report.files_indexed, "status": engine.status().to_dict()}), flush=True)
    """
)


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_an_indexer_whose_file_is_deleted_under_it_notices_and_redoes_the_work(tmp_path: Path) -> None:
    seg = tmp_path / "seg"
    make_tree(seg, files=700, lines=40)
    proc = subprocess.Popen(
        [sys.executable, "-c", REPLACEABLE_RUN, str(seg)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    try:
        db = seg / ".trifecta" / "index.db"
        for line in proc.stdout:
            if line.startswith("progress") and int(line.split()[1]) > 0:
                break  # the first batch is committed to the file
        for sibling in ("", "-wal", "-shm"):  # what another process's rebuild (or `rm -rf .trifecta`) does
            Path(f"{db}{sibling}").unlink(missing_ok=True)
        last = ""
        for line in proc.stdout:
            last = line
        assert proc.wait(timeout=120) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    result = json.loads(last)
    assert "INDEX_REPLACED" in warnings_of(result["status"])
    assert len(stored_files(db)) == 700  # the work is in the file at the path, not in the deleted one


# ------------------------------------------------------------------------------------------------ symlink
@pytest.mark.parametrize("inside", [True, False], ids=["link-inside-.trifecta", "link-outside"])
def test_an_index_path_that_is_a_symlink_is_never_written_through(
    segment: Path, tmp_path: Path, inside: bool
) -> None:
    db = segment / ".trifecta" / "index.db"
    precious = (db.parent if inside else tmp_path) / "notes.txt"
    precious.write_text("my notes\n")
    for sibling in ("", "-wal", "-shm"):
        Path(f"{db}{sibling}").unlink(missing_ok=True)
    db.symlink_to(precious)
    out, _ = cli("ctx", "search", "--segment", str(segment), "-q", "ledger")
    error = error_of(out)
    if inside:  # the store's own refusal (the config refuses a path that resolves outside .trifecta first)
        assert error["code"] == "INDEX_UNWRITABLE" and error["data"]["reason"] == "symlink"
    assert precious.read_text() == "my notes\n" and db.is_symlink()
    with pytest.raises(IndexUnwritable), SqliteIndex(db).writing():
        pass
    assert precious.read_text() == "my notes\n"


def test_the_index_run_checks_the_file_again_only_after_a_change(
    segment: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """quick_check reads the whole file (90 ms on the stdlib's 110 MB): a run skips it when nothing but this
    connection's own small commits changed the file since this process last found it sound; a commit by
    another connection, a change to the database or -wal file behind SQLite's back, an interrupted write or
    a large run makes the next run check again."""
    with trifecta.open(str(segment), workers=1) as engine:
        engine.index()  # checked: the first run of this process
        store = engine._app.store
        checks: list[str] = []
        store._conn.set_trace_callback(lambda sql: checks.append(sql) if "quick_check" in sql else None)
        engine.index()
        engine.index()
        assert checks == []
        (segment / "pkg0" / "fresh.py").write_text("def fresh_function():\n    return 1\n")
        assert engine.index().files_indexed == 1  # this connection wrote one file: no check
        assert checks == []
        assert engine.search("fresh_function").to_dict()["data"]["hits"]
        other = sqlite3.connect(store.path)
        other.execute("UPDATE meta SET value = '2000-01-01T00:00:00' WHERE key = 'built_at'")
        other.commit()
        other.close()
        engine.index()  # another connection committed
        assert len(checks) == 1
        engine.index()
        assert len(checks) == 1
        (segment / "pkg0" / "fresh.py").write_text("def fresher_function():\n    return 2\n")
        st = os.stat(store.path)
        os.utime(store.path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))  # written behind SQLite's back
        assert engine.index().files_indexed == 1  # and this connection's write after it does not hide it
        assert len(checks) == 2
        monkeypatch.setattr(sqlite_store, "VERIFY_AFTER_CHANGES", 5)  # a large run checks
        (segment / "pkg0" / "fresh.py").write_text("def freshest_function():\n    return 3\n")
        assert engine.index().files_indexed == 1
        assert len(checks) == 3


def test_an_interrupted_write_makes_the_next_run_check_the_file(segment: Path) -> None:
    with trifecta.open(str(segment), workers=1) as engine:
        engine.index()
        store = engine._app.store
        checks: list[str] = []
        store._conn.set_trace_callback(lambda sql: checks.append(sql) if "quick_check" in sql else None)
        with pytest.raises(KeyboardInterrupt), store._transaction() as conn:
            conn.execute("UPDATE meta SET value = 'x' WHERE key = 'built_at'")
            raise KeyboardInterrupt
        engine.index()
        assert len(checks) == 1
