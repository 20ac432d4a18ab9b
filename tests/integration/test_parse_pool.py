"""Parser worker subprocesses: results in order, a dead worker's share parsed in the parent, and a caller's
script without a __main__ guard is never run again by the workers."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from trifecta.infrastructure import parse_pool
from trifecta.infrastructure.code_parser import SourceParser, parse_item


def _items(n: int) -> list[tuple[str, str]]:
    return [(f"pkg/m{i}.py", f"def fn_{i}(x):\n    return x + {i}\n") for i in range(n)]


def test_parallel_parse_keeps_order_and_matches_in_process_parsing() -> None:
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
    for i in range(80):  # over the parallel threshold
        (repo / "pkg" / f"m{i}.py").write_text(f"def fn_{i}():\n    return {i}\n")
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
