"""Regexes run in linear time (RE2): patterns that make a backtracking engine spin for ever answer at once
through the real CLI on a real index, and what RE2 cannot run is INVALID_ARGUMENT saying what to write.

The segment holds long runs of `a` (5,000 on one line, 200 on many): Python's `re` needs longer than the
age of the universe for `(a|aa)+$` on such a line; each subprocess here has a few seconds."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import trifecta

CATASTROPHIC = [
    "(.*a){25}",
    "(a|aa)+$",
    "^(([a-z])+.)+[A-Z]([a-z])+$",
    '(?:[^"]|"")*"x',
    "(a+)+$",
]
BUDGET_SECONDS = 10.0  # a subprocess, cold imports included, on 2 busy cores; a hang is unbounded


@pytest.fixture(scope="module")
def segment(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("regex") / "repo"
    root.mkdir()
    for i in range(3):
        lines = [f"def build_{i}():", f'    s = "{"a" * 5000}"', f'    t = "{"ab" * 2000}x"', "    return s"]
        lines += [f'ROW_{n} = "{"a" * 200}"' for n in range(50)]
        (root / f"mod{i}.py").write_text("\n".join(lines) + "\n")
    (root / "notes.txt").write_text('"' + "a" * 3000 + "\n")
    (root / "names.py").write_text(
        'def greet():\n    return "HelloWorld"\n\n\ndef métodoÚtil():\n    return "año"\n'
    )
    built = _cli("index", str(root))
    assert built.returncode == 0, built.stderr
    return root


def _cli(*args: str, timeout: float = 60.0) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "trifecta", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def _search(segment: Path, pattern: str) -> tuple[dict[str, Any], float]:
    started = time.monotonic()
    proc = _cli(
        "ctx", "search", "--segment", str(segment), "-e", "-q", pattern, "--json", timeout=BUDGET_SECONDS
    )
    return json.loads(proc.stdout), time.monotonic() - started


@pytest.mark.timeout(120)
@pytest.mark.parametrize("pattern", CATASTROPHIC)
def test_patterns_that_backtrack_for_ever_answer_at_once(segment: Path, pattern: str) -> None:
    envelope, seconds = _search(segment, pattern)
    assert envelope["status"] == "ok", envelope["errors"]
    assert seconds < BUDGET_SECONDS
    assert envelope["data"]["plan"]["regex"]["pattern"] == pattern


@pytest.mark.timeout(60)
def test_a_catastrophic_pattern_still_finds_its_matches(segment: Path) -> None:
    envelope, _ = _search(segment, "(.*a){25}")
    paths = {hit["path"] for hit in envelope["data"]["hits"]}
    assert {"mod0.py", "mod1.py", "mod2.py", "notes.txt"} <= paths


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    ("pattern", "says"),
    [
        (r"(a)\1", "backreferences"),
        (r"(?P<x>a)(?P=x)", "backreferences"),
        (r"build(?=_1)", "lookahead"),
        (r"(?<!x)build", "lookbehind"),
        (r"a++", "possessive"),
    ],
)
def test_what_re2_cannot_run_is_an_invalid_argument_saying_what_to_write(
    segment: Path, pattern: str, says: str
) -> None:
    envelope, _ = _search(segment, pattern)
    error = envelope["errors"][0]
    assert envelope["status"] == "error" and error["code"] == "INVALID_ARGUMENT"
    assert says in error["message"] and "cannot run" in error["message"] and pattern in error["message"]


@pytest.fixture(scope="module")
def engine(segment: Path):  # type: ignore[no-untyped-def]
    with trifecta.open(segment) as eng:
        yield eng


def _lines(response: trifecta.Response) -> list[tuple[str, int]]:
    assert response.ok, response.to_dict()["errors"]
    return [(h["path"], h["line"]) for h in response.to_dict()["data"]["hits"]]


def test_smart_case_lowercase_folds_and_an_upper_case_letter_does_not(engine: trifecta.Engine) -> None:
    assert _lines(engine.search("hello?world", regex=True)) == [("names.py", 2)]
    assert _lines(engine.search("Hello?World", regex=True)) == [("names.py", 2)]
    assert _lines(engine.search("HELLO?WORLD", regex=True)) == []
    assert _lines(engine.search("(?i)HELLO?WORLD", regex=True)) == [("names.py", 2)]


def test_anchors_hold_at_every_line(engine: trifecta.Engine) -> None:
    assert _lines(engine.search(r"^\s+return .HelloWorld.$", regex=True)) == [("names.py", 2)]
    assert _lines(engine.search(r"^def greet\(\)", regex=True)) == [("names.py", 1)]


def test_word_and_digit_classes_are_unicode_as_in_python(engine: trifecta.Engine) -> None:
    assert _lines(engine.search(r"def \w+\(\):", regex=True, limit=20)).count(("names.py", 5)) == 1
    assert _lines(engine.search(r"def m\w+Útil\(", regex=True)) == [("names.py", 5)]
    assert _lines(engine.search(r"return .a\wo.$", regex=True)) == [("names.py", 6)]


def test_a_query_with_a_lookahead_is_not_taken_for_a_regex(engine: trifecta.Engine) -> None:
    response = engine.search(r"def \w+(?=_1)", mode="pattern")
    assert response.ok and "regex" not in response.to_dict()["data"]["plan"]


def test_a_lone_surrogate_is_an_invalid_argument_not_a_crash(engine: trifecta.Engine) -> None:
    error = engine.search("def \ud800", regex=True).to_dict()["errors"][0]
    assert error["code"] == "INVALID_ARGUMENT" and "surrogate" in error["message"]
    assert engine.search(r"def \w+\(\ud800", mode="pattern").ok  # not taken for a regex: searched as text
