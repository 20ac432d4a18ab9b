"""Several repositories in one search: how to merge per-segment rankings, and ranking parity per segment.

    python bench/bench_segments.py SEG_DIR:QUESTIONS [SEG_DIR:QUESTIONS ...] [--db-url URL] [--parity]

Each SEG_DIR (a copy: it is indexed) goes into one shared PostgreSQL database (a throw-away server unless
--db-url), as the segment named after its folder. Then every question of every set is asked of all the
segments together (`trifecta.open_segments`), merged by score and by rank; a question scores when a hit of
its own segment matches its gold (../shared/eval/score.py's rule). Printed: symbol MRR@10 per set alone and
merged each way. With --parity, ../shared/eval/score.py runs first on each folder with and without
TRIFECTA_DB_URL (SQLite and PostgreSQL, same run).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "tests")]
EVAL = HERE.parent.parent / "shared" / "eval" / "score.py"
K = 10


def _score_module() -> Any:
    spec = importlib.util.spec_from_file_location("score", EVAL)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _mrr(score: Any, questions: list[dict[str, Any]], runs: list[list[dict[str, Any]]]) -> float:
    return float(score.score(runs, questions, K)["symbol"]["mrr"])


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("sets", nargs="+", help="SEG_DIR:QUESTIONS.jsonl")
    parser.add_argument("--db-url")
    parser.add_argument("--parity", action="store_true")
    args = parser.parse_args()
    import trifecta

    score = _score_module()
    sets = [(Path(a.split(":")[0]).resolve(), Path(a.split(":")[1]).resolve()) for a in args.sets]
    with ExitStack() as stack:
        url = args.db_url
        if not url:
            from postgres_server import new_database, running_server

            url = new_database(stack.enter_context(running_server()), "segments")
        env = {**os.environ, "TRIFECTA_NO_TELEMETRY": "1"}
        for seg, questions in sets:
            if args.parity:
                for label, extra in (("sqlite", {}), ("postgres", {"TRIFECTA_DB_URL": url})):
                    shutil.rmtree(seg / ".trifecta", ignore_errors=True)
                    done = subprocess.run(
                        [sys.executable, str(EVAL), str(seg), str(questions), "--no-baseline"],
                        env={**env, **extra},
                        capture_output=True,
                        text=True,
                    )
                    lines = [ln for ln in done.stdout.splitlines() if "mrr" in ln.lower() or "MRR" in ln]
                    print(f"parity {seg.name} {label}: " + " | ".join(lines[:4]), flush=True)
            else:
                with trifecta.open(seg, db_url=url) as engine:
                    engine.index()
        loaded = {seg.name: score.load(q) for seg, q in sets}
        for seg, _ in sets:
            score.gold_ranges(seg, loaded[seg.name])
        with trifecta.open_segments([seg.name for seg, _ in sets], db_url=url) as shared:
            alone: dict[str, list[list[dict[str, Any]]]] = {}
            merged: dict[str, dict[str, list[list[dict[str, Any]]]]] = {"score": {}, "rank": {}}
            for name, questions in loaded.items():
                alone[name] = []
                for how in merged:
                    merged[how][name] = []
                for q in questions:
                    one = shared.search(q["query"], limit=K, segment=name).to_dict()["data"].get("hits", [])
                    alone[name].append(one)
                    for how in merged:
                        hits = shared.search(q["query"], limit=K, merge=how).to_dict()["data"].get("hits", [])
                        # a hit of another segment never matches: it is noise between the right ones
                        merged[how][name].append(
                            [h if h["segment"] == name else {**h, "path": "\0other"} for h in hits]
                        )
            for name, questions in loaded.items():
                row = [f"alone {_mrr(score, questions, alone[name]):.3f}"]
                row += [f"merged by {how} {_mrr(score, questions, merged[how][name]):.3f}" for how in merged]
                print(f"{name} ({len(questions)} questions): " + ", ".join(row), flush=True)


if __name__ == "__main__":
    main()
