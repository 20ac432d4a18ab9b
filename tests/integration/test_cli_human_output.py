"""Human output that reads, from the real `trifecta` command: `ast symbols` prints an indented outline,
`status` an aligned table (with `--json` both keep the envelope), and what a repository names is shown
escaped, never sent to the terminal as control characters."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from trifecta.domain.contract import Response

_SCRIPT = Path(sys.executable).parent / "trifecta"  # this interpreter's install, not another on PATH
EXE = str(_SCRIPT) if _SCRIPT.exists() else None
FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "sample_repo"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    cmd = [EXE, *args] if EXE else [sys.executable, "-m", "trifecta", *args]
    env = {**os.environ, "TRIFECTA_WORKERS": "1"}
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    dest = tmp_path / "repo"
    shutil.copytree(FIXTURE, dest, ignore=shutil.ignore_patterns(".trifecta"))
    return dest


@pytest.mark.timeout(120)
def test_ast_symbols_prints_an_indented_outline(repo: Path) -> None:
    proc = run("ast", "symbols", "sym://python/mod/shop/checkout", "-s", str(repo))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert not proc.stdout.lstrip().startswith("{")
    assert lines[0] == "shop/checkout.py  sym://python/mod/shop/checkout"
    # kind, name, line range, signature and the first doc line, one symbol a line, nested by indentation
    assert (
        "function parse_http_header  18-21  def parse_http_header(line: str) -> tuple[str, str]"
        "  # Split one HTTP header line into its name and value."
    ) in lines
    assert "class Checkout  43-59" in lines  # a signature that only restates kind and name is left out
    assert "  method place_order  47-52  def place_order(self, cart: dict[str, int]) -> bool" in "\n".join(
        lines
    )
    assert "    method render  55-59  def render(self) -> str" in lines
    assert "      function line  56-57  def line(text: str) -> str" in lines
    assert "-- 11 symbols" in lines
    assert any(line.startswith("# next: trifecta ast snippet") for line in lines)

    member = run("ast", "symbols", "sym://python/type/shop/checkout/Checkout", "-s", str(repo))
    assert member.stdout.splitlines()[0] == (
        "shop/checkout.py:43-59  class Checkout  sym://python/type/shop/checkout/Checkout"
    )
    assert "  method __init__  44-45  def __init__(self, inventory: Inventory) -> None" in member.stdout


@pytest.mark.timeout(120)
def test_ast_symbols_json_keeps_the_envelope(repo: Path) -> None:
    proc = run("ast", "symbols", "sym://python/mod/shop/checkout", "-s", str(repo), "--json")
    data = json.loads(proc.stdout)
    Response.from_dict(data)
    assert data["kind"] == "skeleton" and data["data"]["symbols"][0]["name"] == "PaymentError"


@pytest.mark.timeout(120)
def test_status_prints_an_aligned_table(repo: Path) -> None:
    assert run("index", str(repo)).returncode == 0
    proc = run("status", "-s", str(repo))
    assert proc.returncode == 0, proc.stderr
    rows = proc.stdout.splitlines()
    assert not proc.stdout.startswith("{")
    table = dict(re.split(r"\s{2,}", row, maxsplit=1) for row in rows)
    assert table["segment"] == str(repo.resolve())
    assert table["index"] == str(repo.resolve() / ".trifecta" / "index.db")
    assert table["files"] == "9" and table["symbols"].isdigit() and table["parse errors"] == "1"
    assert re.fullmatch(r"[\d,]+ bytes", table["index size"])
    assert len({row.index(value) for row, value in zip(rows, table.values(), strict=True)}) == 1  # aligned

    as_json = json.loads(run("status", "-s", str(repo), "--json").stdout)
    assert as_json["kind"] == "status" and as_json["data"]["files"] == 9


@pytest.mark.timeout(120)
def test_names_from_the_repository_are_shown_escaped(tmp_path: Path) -> None:
    segment = tmp_path / "re\x1b[31mpo"  # a folder name that would colour the terminal
    segment.mkdir()
    (segment / "evil.py").write_text(
        'def f():\n    """Clears \x1b[2J the screen and flips \u202e text."""\n', encoding="utf-8"
    )
    outline = run("ast", "symbols", "sym://python/mod/evil", "-s", str(segment))
    table = run("status", "-s", str(segment))
    for proc in (outline, table):
        assert proc.returncode == 0, proc.stderr
        assert "\x1b" not in proc.stdout and "\u202e" not in proc.stdout
    assert "Clears \\x1b[2J the screen and flips \\u202e text." in outline.stdout
    assert "re\\x1b[31mpo" in table.stdout
