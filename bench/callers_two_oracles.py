"""Callers judged by two oracles at once: jedi's references and a type checker's (basedpyright's).

    python bench/callers_vs_jedi.py --tree /usr/lib/python3.11 --n 50 --seeds 1,...,23 --json J.json
    python bench/callers_vs_pyright.py --tree /usr/lib/python3.11 --server-bin B --n 50 --seeds 1,...,23 --json P.json
    python bench/callers_two_oracles.py J.json P.json [--list]

Each oracle has its own errors: jedi merges names and stops at its budgets, the type checker reads typeshed
where the tree has no source and does not narrow `os.path`. Run on the same tree, seeds and Trifecta commit,
the two benches draw the same functions, so each Trifecta hit and each miss can be put to both:
- **precision against either**: a hit is wrong when neither oracle lists it;
- **recall against both**: a place is missed when both oracles list it and Trifecta does not.
A disagreement the two oracles share is one a reader of the answer would also call wrong, so this is the
stricter test of Trifecta's own errors, and the looser of the oracles'. `--list` prints every such place:
they are what is left to fix. Rows whose Trifecta side differs between the two files (another commit) or
that an oracle failed on are left out and counted.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

PRECISION_TARGET, RECALL_TARGET = 0.9, 0.85


def places(row: dict[str, Any], key: str) -> set[tuple[str, int]]:
    return {(p, int(line)) for p, line in row.get(key, ())}


def score(jedi: dict[str, Any], server: dict[str, Any]) -> tuple[list[dict[str, Any]], list[tuple[Any, ...]]]:
    """Per seed both measures, and every place both oracles disagree with Trifecta on."""
    table: list[dict[str, Any]] = []
    wrong: list[tuple[Any, ...]] = []
    for seed in sorted(set(jedi) & set(server), key=int):
        by_uri = {r["uri"]: r for r in jedi[seed]["rows"]}
        hits = false_hits = both = missed = skipped = 0
        for row in server[seed]["rows"]:
            other = by_uri.get(row["uri"])
            usable = (
                other is not None
                and "only_trifecta" in row
                and "only_trifecta" in other
                and row["trifecta"] == other["trifecta"]
            )
            if not usable:
                skipped += 1
                continue
            assert other is not None
            not_jedi, not_server = places(other, "only_trifecta"), places(row, "only_trifecta")
            # (a place a Trifecta hit lists twice is one place: the counts are of hits, as the benches')
            false = not_jedi & not_server
            miss = places(other, "only_jedi") & places(row, "only_server")
            hits += row["trifecta"]
            false_hits += len(false)
            # both oracles list: the hits neither rejects, and the places both list that Trifecta misses
            both += row["trifecta"] - len(not_jedi | not_server) + len(miss)
            missed += len(miss)
            wrong += [(seed, row["uri"], "extra", p, line) for p, line in sorted(false)]
            wrong += [(seed, row["uri"], "missed", p, line) for p, line in sorted(miss)]
        precision = 1 - false_hits / hits if hits else 1.0
        recall = 1 - missed / both if both else 1.0
        table.append(
            {
                "seed": int(seed),
                "trifecta": hits,
                "extra": false_hits,
                "both_oracles": both,
                "missed": missed,
                "precision": round(precision, 3),
                "recall": round(recall, 3),
                "rows_left_out": skipped,
                "met": precision >= PRECISION_TARGET and recall >= RECALL_TARGET,
            }
        )
    return table, wrong


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("jedi", type=Path, help="callers_vs_jedi.py --json output")
    parser.add_argument("server", type=Path, help="callers_vs_pyright.py --json output")
    parser.add_argument("--list", action="store_true", help="print every place both oracles disagree on")
    args = parser.parse_args()
    table, wrong = score(json.loads(args.jedi.read_text()), json.loads(args.server.read_text()))
    if not table:
        print("no seed in both files", file=sys.stderr)
        return 1
    print(
        "| seed | Trifecta hits | extra (neither lists) | both list | missed | precision | recall | both targets |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for t in table:
        left = f" ({t['rows_left_out']} rows left out)" if t["rows_left_out"] else ""
        print(
            f"| {t['seed']} | {t['trifecta']} | {t['extra']} | {t['both_oracles']} | {t['missed']} | "
            f"{t['precision']} | {t['recall']} | {'yes' if t['met'] else 'no'}{left} |"
        )
    hits = sum(t["trifecta"] for t in table)
    both = sum(t["both_oracles"] for t in table)
    pooled_p = 1 - sum(t["extra"] for t in table) / hits if hits else 1.0
    pooled_r = 1 - sum(t["missed"] for t in table) / both if both else 1.0
    print(
        f"\nboth targets met on {sum(t['met'] for t in table)} of {len(table)} seeds; "
        f"pooled precision {pooled_p:.3f}, recall {pooled_r:.3f}"
    )
    if args.list:
        for seed, uri, what, path, line in wrong:
            print(f"seed {seed}\t{what}\t{uri}\t{path}:{line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
