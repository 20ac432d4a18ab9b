"""bench/callers_two_oracles.py: a Trifecta hit is wrong only when neither oracle lists it, a place is missed
only when both list it, and rows the two files do not share the Trifecta side of are left out."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))
two = importlib.import_module("callers_two_oracles")


def row(
    uri: str, trifecta: int, only_trifecta: list[Any], only_oracle: list[Any], oracle_key: str
) -> dict[str, Any]:
    return {"uri": uri, "trifecta": trifecta, "only_trifecta": only_trifecta, oracle_key: only_oracle}


def test_hits_and_misses_count_only_where_both_oracles_disagree_with_trifecta() -> None:
    # Trifecta: 4 hits of f. jedi lacks a.py:1 and a.py:2, the server lacks a.py:2 only: a.py:2 is extra.
    # jedi lists b.py:9 and c.py:3 beyond Trifecta, the server c.py:3 only: c.py:3 is missed.
    jedi = {"1": {"rows": [row("f", 4, [["a.py", 1], ["a.py", 2]], [["b.py", 9], ["c.py", 3]], "only_jedi")]}}
    server = {"1": {"rows": [row("f", 4, [["a.py", 2]], [["c.py", 3]], "only_server")]}}
    table, wrong = two.score(jedi, server)
    assert table == [
        {
            "seed": 1,
            "trifecta": 4,
            "extra": 1,
            "both_oracles": 3,  # the 2 hits neither lacks, and c.py:3
            "missed": 1,
            "precision": 0.75,
            "recall": 0.667,
            "rows_left_out": 0,
            "met": False,
        }
    ]
    assert wrong == [("1", "f", "extra", "a.py", 2), ("1", "f", "missed", "c.py", 3)]


def test_a_row_of_another_trifecta_side_or_an_oracles_error_is_left_out() -> None:
    jedi = {
        "2": {
            "rows": [
                row("f", 2, [], [], "only_jedi"),
                row("g", 5, [], [], "only_jedi"),
                {"uri": "h", "error": "timeout"},
            ]
        }
    }
    server = {
        "2": {
            "rows": [
                row("f", 2, [], [], "only_server"),
                row("g", 6, [], [], "only_server"),  # another commit's answer
                row("h", 1, [], [], "only_server"),
            ]
        }
    }
    table, wrong = two.score(jedi, server)
    assert (table[0]["trifecta"], table[0]["rows_left_out"], table[0]["met"]) == (2, 2, True)
    assert wrong == []
