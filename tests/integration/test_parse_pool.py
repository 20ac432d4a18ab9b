"""Parser worker subprocesses: results in order, a dead worker's share parsed in the parent, and a caller's
script without a __main__ guard is never run again by the workers."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

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
        def __init__(self) -> None:
            super().__init__()
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
