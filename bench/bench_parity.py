"""Ranking parity, question by question: SQLite against PostgreSQL on the same folder, in the same run.

    python bench/bench_parity.py SEG_COPY:QUESTIONS.jsonl [SEG_COPY:QUESTIONS.jsonl ...] [--db-url URL] [-v]

Each SEG_COPY (a copy: it is indexed, its .trifecta folder is removed first) is indexed into SQLite and into
PostgreSQL (a throw-away server unless --db-url), then every question is asked of both through
`trifecta.open`. Printed per question: the rank of the first hit matching its gold at the symbol level
(../shared/eval/score.py's rule) in each store, and with -v the top 3 of each; then symbol MRR@10 of each
store and the difference.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "tests"), str(HERE.parent.parent / "shared" / "eval")]
K = 10


def _rank(score: Any, hits: list[dict[str, Any]], gold: list[dict[str, Any]]) -> int | None:
    return next(
        (i + 1 for i, h in enumerate(hits[:K]) if any(score.match(h, g, "symbol") for g in gold)), None
    )


def _label(hit: dict[str, Any]) -> str:
    return f"{hit.get('symbol') or hit['path'].rsplit('/', 1)[-1]}:{hit.get('start_line')}"


def _ask(folder: Path, questions: list[dict[str, Any]], **options: Any) -> list[list[dict[str, Any]]]:
    import trifecta

    with trifecta.open(folder, **options) as engine:
        engine.index()
        return [engine.search(q["query"], limit=K).to_dict()["data"].get("hits", []) or [] for q in questions]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("sets", nargs="+", help="SEG_COPY:QUESTIONS.jsonl")
    parser.add_argument("--db-url")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    os.environ["TRIFECTA_NO_TELEMETRY"] = "1"
    os.environ.pop("TRIFECTA_DB_URL", None)
    import score as S  # ../shared/eval/score.py

    with ExitStack() as stack:
        url = args.db_url
        if not url:
            from postgres_server import new_database, running_server

            url = new_database(stack.enter_context(running_server()), "parity")
        for spec in args.sets:
            folder, questions_file = (Path(p).resolve() for p in spec.split(":"))
            questions = S.load(questions_file)
            S.gold_ranges(folder, [g for q in questions for g in q["gold"]])
            shutil.rmtree(folder / ".trifecta", ignore_errors=True)
            lite = _ask(folder, questions)
            pg = _ask(folder, questions, db_url=url)
            total = [0.0, 0.0]
            for q, a, b in zip(questions, lite, pg, strict=True):
                ranks = (_rank(S, a, q["gold"]), _rank(S, b, q["gold"]))
                for i, r in enumerate(ranks):
                    total[i] += 1 / r if r else 0.0
                mark = " " if ranks[0] == ranks[1] else "*"
                print(
                    f"{mark} {q['id']:>8}  sqlite {ranks[0] or '-':>2}  postgres {ranks[1] or '-':>2}  {q['query'][:70]}"
                )
                if args.verbose and (mark == "*" or [_label(h) for h in a[:3]] != [_label(h) for h in b[:3]]):
                    print("      sqlite:   " + ", ".join(map(_label, a[:3])))
                    print("      postgres: " + ", ".join(map(_label, b[:3])))
            n = max(len(questions), 1)
            print(
                f"{folder.name} ({len(questions)} questions): symbol MRR@{K} SQLite {total[0] / n:.3f}, "
                f"PostgreSQL {total[1] / n:.3f}, difference {(total[1] - total[0]) / n:+.3f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
