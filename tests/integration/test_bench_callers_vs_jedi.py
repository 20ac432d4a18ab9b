"""bench/callers_vs_jedi.py with several seeds on one index and jedi's answers kept between runs (a real
subprocess, a real SQLite index, real jedi) on the call-graph fixture's Python files."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "callgraph" / "py"
pytestmark = pytest.mark.timeout(240)


def run(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, "bench/callers_vs_jedi.py", "--tree", str(FIXTURE), "--n", "3", *args],
        capture_output=True, text=True, timeout=200, cwd=ROOT, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_several_seeds_give_a_table_each_and_the_pass_count_and_jedis_answers_are_kept(
    tmp_path: Path,
) -> None:
    pytest.importorskip("jedi")
    cache, out_json = tmp_path / "jedi.json", tmp_path / "out.json"
    out = run("--seeds", "1,2", "--jedi-cache", str(cache), "--json", str(out_json))
    assert "seed 1:" in out and "seed 2:" in out
    assert re.search(r"both targets met on [0-2] of 2 seeds", out), out
    for seed in (1, 2):
        assert re.search(rf"^\| {seed} \| [\d.]+ \| [\d.]+ \| [\d.]+ \| [\d.]+ \| (yes|no) \|$", out, re.M), (
            out
        )
    first = json.loads(out_json.read_text())
    assert sorted(first) == ["1", "2"] and all(len(first[s]["rows"]) == 3 for s in first)
    kept = json.loads(cache.read_text())
    assert kept["refs"] and kept["key"].endswith("|6")
    # a second run reads jedi's answers from the cache: the same comparison
    again = tmp_path / "again.json"
    run("--seeds", "1,2", "--jedi-cache", str(cache), "--json", str(again))
    assert {s: r["summary"]["shared"] for s, r in json.loads(again.read_text()).items()} == {
        s: r["summary"]["shared"] for s, r in first.items()
    }
