"""Parser worker subprocesses: results in order, a dead worker's share parsed in the parent, and a caller's
script without a __main__ guard is never run again by the workers."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import trifecta
from trifecta.infrastructure import code_parser, parse_pool
from trifecta.infrastructure.code_parser import SourceParser, parse_item


def _items(n: int) -> list[tuple[str, str]]:
    return [(f"pkg/m{i}.py", f"def fn_{i}(x):\n    return x + {i}\n") for i in range(n)]


def test_parallel_parse_keeps_order_and_matches_in_process_parsing(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(code_parser, "PARALLEL_MIN_CHARS", 1000)
    items = _items(150)
    parallel = list(SourceParser(workers=2).parse_many(items))
    assert [path for path, _ in parallel] == [path for path, _ in items]
    assert parallel == [parse_item(item) for item in items]


def test_a_worker_that_dies_leaves_its_work_to_the_parent(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    class DeadWorker(parse_pool._Worker):
        def __init__(self, fork: bool = False) -> None:
            super().__init__(fork)
            self.process.kill()
            self.process.wait()

    monkeypatch.setattr(parse_pool, "_Worker", DeadWorker)
    items = _items(100)
    out = list(parse_pool.parallel_map(parse_item, items, workers=2))
    assert [path for path, _ in out] == [path for path, _ in items]
    assert all(parsed.symbols[0].name == f"fn_{i}" for i, (_, parsed) in enumerate(out))


def test_a_script_without_a_main_guard_runs_once(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    padding = "# padding\n" * 1500  # 80 files of 15 KB: over the parallel threshold
    assert 80 * len(padding) > code_parser.PARALLEL_MIN_CHARS
    for i in range(80):
        (repo / "pkg" / f"m{i}.py").write_text(f"def fn_{i}():\n    return {i}\n{padding}")
    script = tmp_path / "script.py"
    marker = tmp_path / "runs.txt"
    script.write_text(
        "import trifecta\n"
        f"open({str(marker)!r}, 'a').write('run\\n')\n"
        f"report = trifecta.open({str(repo)!r}, workers=2).index()\n"
        "print(report.files_indexed)\n"
    )
    proc = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, env=dict(os.environ)
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "80"
    assert marker.read_text() == "run\n"


def test_items_are_drawn_lazily_while_results_are_consumed() -> None:
    drawn: list[int] = []

    def produce():  # type: ignore[no-untyped-def]
        for i, item in enumerate(_items(600)):
            drawn.append(i)
            yield item

    out = parse_pool.parallel_map(parse_item, produce(), workers=2, chunksize=16)
    first = next(out)
    assert first[0] == "pkg/m0.py"
    # bounded run-ahead: far from all 600 items were read to hand out the first result
    assert len(drawn) <= (parse_pool.RUN_AHEAD_CHUNKS + 2) * 16
    rest = list(out)
    assert [p for p, _ in [first, *rest]] == [p for p, _ in _items(600)] and len(drawn) == 600


def test_a_failure_while_producing_items_is_raised_not_hung() -> None:
    def produce():  # type: ignore[no-untyped-def]
        yield from _items(100)
        raise OSError("disk went away")

    with pytest.raises(OSError, match="disk went away"):
        list(parse_pool.parallel_map(parse_item, produce(), workers=2))


def test_a_caller_that_stops_early_releases_the_workers() -> None:
    out = parse_pool.parallel_map(parse_item, iter(_items(2000)), workers=2)
    assert next(out)[0] == "pkg/m0.py"
    out.close()  # runs the pool's cleanup: threads joined, workers closed


def test_a_small_tree_is_parsed_in_process_and_a_large_one_by_workers(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    pools: list[int] = []
    real = parse_pool.parallel_map

    def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
        pools.append(kwargs["workers"])
        return real(*args, **kwargs)

    monkeypatch.setattr(parse_pool, "parallel_map", counting)
    small = _items(300)  # ~10 KB: starting workers would cost more than parsing it here
    assert [p for p, _ in SourceParser(workers=2).parse_many(small)] == [p for p, _ in small]
    assert pools == []
    padding = "#" * 20_000 + "\n"
    large = [(path, text + padding) for path, text in _items(60)]  # 1.2 MB
    out = list(SourceParser(workers=2).parse_many(large))
    assert pools == [2]
    assert [p for p, _ in out] == [p for p, _ in large]
    assert out == [parse_item(item) for item in large]


def test_the_last_result_does_not_wait_for_the_workers_to_exit(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    closed: list[int] = []

    class SlowToExit(parse_pool._Worker):  # a worker whose interpreter takes long to tear down
        def close(self) -> None:
            time.sleep(2.0)
            super().close()
            closed.append(self.process.returncode)

    monkeypatch.setattr(parse_pool, "_Worker", SlowToExit)
    items = _items(100)
    start = time.monotonic()
    out = list(parse_pool.parallel_map(parse_item, items, workers=2))
    assert time.monotonic() - start < 2.0  # the caller writes its index while the workers exit
    assert [path for path, _ in out] == [path for path, _ in items]
    exits = [t for t in threading.enumerate() if t.name == parse_pool.EXIT_THREAD]
    assert exits and not any(t.daemon for t in exits)  # never left running when this process ends
    for thread in exits:
        thread.join(timeout=30)
    assert closed == [0, 0]  # both exited on their own once their input ended


def _ts_go_items(n: int) -> list[tuple[str, str]]:
    ts = "export class Box{i} {{\n  /** the value */\n  get(): number {{ return {i}; }}\n}}\n"
    go = "package p\n\n// Run{i} runs.\nfunc (s *Server) Run{i}() error {{ return nil }}\n"
    return [(f"src/m{i}.ts", ts.format(i=i)) if i % 2 else (f"p/m{i}.go", go.format(i=i)) for i in range(n)]


@pytest.mark.skipif(not parse_pool.can_fork(), reason="workers are forked on Linux only")
def test_forked_workers_parse_as_the_parent_does_with_the_grammars_it_loaded(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    forked: list[bool] = []

    class Recording(parse_pool._Worker):
        def __init__(self, fork: bool = False) -> None:
            forked.append(fork)
            super().__init__(fork)

    monkeypatch.setattr(parse_pool, "_Worker", Recording)
    monkeypatch.setattr(code_parser, "FORKED_MIN_CHARS", 1000)
    monkeypatch.setattr(os, "getloadavg", lambda: (0.0, 0.0, 0.0))  # whatever else runs on this machine
    items = _ts_go_items(120)
    out = list(SourceParser(workers=2).parse_many(items))
    assert forked == [True, True]
    assert out == [parse_item(item) for item in items]
    assert {p.language for _, p in out} == {"typescript", "go"} and all(p.symbols for _, p in out)


@pytest.mark.skipif(not parse_pool.can_fork(), reason="workers are forked on Linux only")
def test_a_mid_sized_tree_gets_forked_workers_unless_the_machine_is_busy(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    pools: list[int] = []
    real = parse_pool.parallel_map

    def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
        pools.append(kwargs["workers"])
        return real(*args, **kwargs)

    monkeypatch.setattr(parse_pool, "parallel_map", counting)
    padding = "#" * 10_000 + "\n"
    mid = [(path, text + padding) for path, text in _items(60)]  # 0.6 MB: between the two thresholds
    assert code_parser.FORKED_MIN_CHARS < 60 * len(padding) < code_parser.PARALLEL_MIN_CHARS
    cpus = os.cpu_count() or 1
    # the thread an earlier pool left to reap its workers would make forking unsafe (can_fork): let it end
    for thread in threading.enumerate():
        if thread.name == parse_pool.EXIT_THREAD:
            thread.join(timeout=30)
    assert parse_pool.can_fork(), [t.name for t in threading.enumerate()]
    monkeypatch.setattr(os, "getloadavg", lambda: (0.5 * cpus, 0.0, 0.0))
    quiet = list(SourceParser(workers=2).parse_many(mid))
    assert pools == [2]
    monkeypatch.setattr(os, "getloadavg", lambda: (3.0 * cpus, 0.0, 0.0))  # no core to spare: one process
    busy = list(SourceParser(workers=2).parse_many(mid))
    assert pools == [2]
    assert quiet == busy == [parse_item(item) for item in mid]


def test_beside_another_thread_workers_are_fresh_interpreters(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    forked: list[bool] = []

    class Recording(parse_pool._Worker):
        def __init__(self, fork: bool = False) -> None:
            forked.append(fork)
            super().__init__(fork)

    monkeypatch.setattr(parse_pool, "_Worker", Recording)
    stop = threading.Event()
    other = threading.Thread(target=stop.wait, args=(30,), name="someone-else")
    other.start()
    try:
        assert not parse_pool.can_fork()  # a thread could hold a lock a forked child would wait on forever
        items = _items(100)
        out = list(parse_pool.parallel_map(parse_item, items, workers=2))
    finally:
        stop.set()
        other.join()
    assert forked == [False, False]
    assert out == [parse_item(item) for item in items]


@pytest.mark.skipif(not parse_pool.can_fork(), reason="workers are forked on Linux only")
def test_when_fork_fails_workers_are_fresh_interpreters(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    def no_fork() -> int:
        raise OSError(12, "Cannot allocate memory")

    monkeypatch.setattr(os, "fork", no_fork)
    for thread in threading.enumerate():  # earlier tests' workers, still being closed
        if thread.name == parse_pool.EXIT_THREAD:
            thread.join(timeout=30)
    before = set(os.listdir("/proc/self/fd"))
    worker = parse_pool._Worker(fork=True)
    try:
        assert isinstance(worker.process, subprocess.Popen)
        assert worker.run([("a.py", "def f():\n    return 1\n")]) == [
            parse_item(("a.py", "def f():\n    return 1\n"))
        ]
    finally:
        worker.close()
    assert set(os.listdir("/proc/self/fd")) == before  # the pipes made for the fork were closed


@pytest.mark.skipif(not parse_pool.can_fork(), reason="workers are forked on Linux only")
def test_a_forked_worker_keeps_only_its_pipes(tmp_path: Path) -> None:
    held = open(tmp_path / "index.db.lock", "w")  # noqa: SIM115 - like the index's lock, held by the parent
    worker = parse_pool._Worker(fork=True)
    try:
        assert worker.run([("a.py", "def f():\n    return 1\n")]) is not None
        fds = {
            int(fd): os.readlink(f"/proc/{worker.process.pid}/fd/{fd}")
            for fd in os.listdir(f"/proc/{worker.process.pid}/fd")
        }
        assert set(fds) == {0, 1, 2}
        assert fds[0].startswith("pipe:") and fds[1].startswith("pipe:") and fds[2] == os.devnull
    finally:
        worker.close()
        held.close()
    assert worker.process.returncode == 0


FORK_SCRIPT = """
import atexit, os, signal, sqlite3, sys, time
from trifecta.infrastructure import parse_pool
from trifecta.infrastructure.code_parser import parse_item
marker, db = sys.argv[1], sys.argv[2]
def note(what):
    with open(marker, "a") as fh:
        fh.write(f"{what} {os.getpid()}\\n")
atexit.register(note, "atexit")
signal.signal(signal.SIGTERM, lambda *_: note("sigterm"))
conn = sqlite3.connect(db)
conn.execute("PRAGMA journal_mode=WAL")
conn.execute("CREATE TABLE t(x)")
conn.execute("INSERT INTO t VALUES (1)")
conn.commit()
print("forked" if parse_pool.can_fork() else "spawned", os.getpid(), flush=True)
done = parse_pool._Worker(fork=True)
assert done.run([("a.py", "x = 1\\n")]) is not None
done.close()
killed = parse_pool._Worker(fork=True)
os.kill(killed.process.pid, signal.SIGTERM)
print(killed.process.wait(timeout=10), os.path.exists(db + "-wal"), flush=True)
"""


@pytest.mark.skipif(not parse_pool.can_fork(), reason="workers are forked on Linux only")
def test_a_forked_worker_runs_none_of_its_parents_handlers(tmp_path: Path) -> None:
    marker, db = tmp_path / "marker.txt", tmp_path / "index.db"
    proc = subprocess.run(
        [sys.executable, "-c", FORK_SCRIPT, str(marker), str(db)], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    forked, parent, code, wal = proc.stdout.split()
    # the second worker died of SIGTERM (the default action, not the parent's handler), and the WAL file was
    # still there after both workers ended: neither closed (checkpointed) the parent's SQLite connection
    assert (forked, code, wal) == ("forked", str(-signal.SIGTERM), "True")
    assert marker.read_text() == f"atexit {parent}\n"  # only the parent's exit handler ran, once


KILLED_SCRIPT = """
import sys, trifecta
engine = trifecta.open(sys.argv[1], workers=2)
engine.index(progress=lambda done, total, msg: print(done, flush=True))
"""


def _children(pid: int) -> set[int]:
    kids = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                kids.add(int(entry))
    return kids


@pytest.mark.skipif(not parse_pool.can_fork(), reason="workers are forked on Linux only")
@pytest.mark.timeout(120)
def test_an_indexer_killed_mid_run_leaves_no_worker_and_a_whole_index(tmp_path: Path) -> None:
    seg = tmp_path / "seg"
    body = "\n".join(f"    value_{j} = x * {j}" for j in range(60))
    for i in range(1200):  # 1.8 MB: parsed by workers
        (seg / f"pkg{i % 20}").mkdir(parents=True, exist_ok=True)
        (seg / f"pkg{i % 20}" / f"mod_{i}.py").write_text(f"def function_{i}(x):\n{body}\n    return x\n")
    proc = subprocess.Popen(
        [sys.executable, "-c", KILLED_SCRIPT, str(seg)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    proc.stdout.readline()  # "0": the run has started
    proc.stdout.readline()  # the first batch is committed: the workers are parsing
    workers = _children(proc.pid)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert len(workers) == 2
    deadline = time.monotonic() + 30
    while any(Path(f"/proc/{pid}").exists() for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.05)  # each sees the end of its input and leaves
    assert not any(Path(f"/proc/{pid}").exists() for pid in workers)
    with trifecta.open(str(seg), workers=2) as engine:  # the lock is free, the committed batches kept
        report = engine.index()
        assert 0 < report.files_unchanged < 1200
        assert report.files_unchanged + report.files_indexed == 1200
        assert engine.status().to_dict()["data"]["files"] == 1200
