"""bench/callers_latency.py and bench/edges_cost.py --parts, run as the README runs them (real subprocesses,
a real SQLite index) on the call-graph fixture's Python files."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "callgraph"
pytestmark = pytest.mark.timeout(180)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    dest = tmp_path / "tree"
    shutil.copytree(FIXTURE / "py", dest, ignore=shutil.ignore_patterns(".trifecta"))
    return dest


def run(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=150, cwd=ROOT, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_callers_latency_times_every_sampled_symbol_and_keeps_the_answers(tree: Path, tmp_path: Path) -> None:
    answers = tmp_path / "answers.json"
    out = run(
        "bench/callers_latency.py", "--tree", str(tree), "--work", str(tmp_path / "work"), "--seeds", "1,2",
        "--n", "3", "--asks", "2", "--answers", str(answers),
    )  # fmt: skip
    sampled = json.loads(answers.read_text())
    assert 3 <= len(sampled) <= 6  # two seeds' 3 symbols, a symbol both pick asked once
    assert all(a["status"] == "ok" and a["data"]["kind"] in ("function", "method") for a in sampled.values())
    assert f"{len(sampled)} symbols (seeds 1,2, 3 each), limit 50" in out
    for measure in ("cpu", "wall", "first_cpu", "first_wall"):
        assert re.search(rf"\| checkout \| {measure} \| [\d.]+ \| [\d.]+ \| [\d.]+ \|", out), out
    # the index in --work is reused, and --fresh-graph answers the same
    again = tmp_path / "again.json"
    run(
        "bench/callers_latency.py", "--work", str(tmp_path / "work"), "--seeds", "1,2", "--n", "3",
        "--asks", "1", "--fresh-graph", "--answers", str(again),
    )  # fmt: skip
    assert json.loads(again.read_text()) == sampled


def test_edges_cost_parts_measures_the_walk_and_the_writes(tree: Path) -> None:
    out = run("bench/edges_cost.py", "--tree", str(tree), "--parts", "2", "--runs", "0")
    found = re.search(
        r"(\d+) Python files, (\d+) edges, edges_digest ([0-9a-f]{16}); (\d+) tree-sitter files, (\d+) edges, "
        r"tree-sitter edges_digest ([0-9a-f]{16}); 2 repetitions",
        out,
    )
    assert found is not None, out
    assert int(found.group(1)) == len(list(tree.rglob("*.py"))) and int(found.group(2)) > 10
    for row in ("edge walk", "edge walk, as parse_python runs it", "edges' writes", "all"):
        assert re.search(rf"\| {row} \| [\d.]+ \| [\d.]+ \|", out), out
    # the same tree, the same edges
    assert f"edges_digest {found.group(3)}" in run(
        "bench/edges_cost.py", "--tree", str(tree), "--parts", "1", "--runs", "0"
    )
