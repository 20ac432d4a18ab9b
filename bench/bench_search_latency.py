"""Search latency per evaluation set, as a new process sees it: each set's questions asked once right after
`index()` in a fresh process (the "first pass": a CLI call, a new MCP session), then once more in the same
process (the "warm" pass: the per-process caches filled), as ../shared/eval/score.py times them.

    python bench/bench_search_latency.py                       # every set, 3 fresh processes each
    python bench/bench_search_latency.py --sets sqlalchemy stdlib --runs 5
    python bench/bench_search_latency.py --root /tmp/copies    # copies: sqlalchemy-2.0.58/, stdlibseg/, polyglot/go-cobra/
    python bench/bench_search_latency.py --src /tmp/old/src    # time another checkout's package

Sets (segment: questions): sqlalchemy, flask, click (../shared/eval/realrepo), stdlib (/tmp/stdlibseg: this
repository's bench/stdlib_questions.jsonl), pub (/tmp/pubseg: ../shared/eval/public_queries.jsonl) and one
set per polyglot corpus (/tmp/polyglot/<corpus>: ../shared/eval/polyglot/public_queries.jsonl). A segment
is indexed in place (its .trifecta folder), untimed; the indexing of a set whose index exists is a refresh.

Reported per set: the questions, first-pass p50/p95 and warm p50/p95 in ms. Each question's time is its
median over the runs (each run a fresh process), so one busy moment of a shared machine does not stand for
the question; p95 is the nearest-rank value of ../shared/eval/score.py's timing (index round(0.95 (n - 1))).
Writes bench/results/search_latency.json. Target (issues 14, 15, 18): first-pass p95 < 20 ms on every set.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SHARED = REPO.parent / "shared" / "eval"
REALREPO = Path("/tmp/sec_corpora/realrepo")
SETS = {
    "sqlalchemy": (REALREPO / "sqlalchemy-2.0.58", SHARED / "realrepo" / "questions_sqlalchemy.jsonl", None),
    "flask": (REALREPO / "flask-3.1.3", SHARED / "realrepo" / "questions_flask.jsonl", None),
    "click": (REALREPO / "click-8.5.1", SHARED / "realrepo" / "questions_click.jsonl", None),
    "stdlib": (Path("/tmp/stdlibseg"), HERE / "stdlib_questions.jsonl", None),
    "pub": (Path("/tmp/pubseg"), SHARED / "public_queries.jsonl", None),
    **{
        corpus: (Path("/tmp/polyglot") / corpus, SHARED / "polyglot" / "public_queries.jsonl", corpus)
        for corpus in ("go-cobra", "js-axios", "rust-serde_json", "ts-mobx")
    },
}

# One run, in its own process: index, then every question twice; prints one JSON line.
CHILD = r"""
import json, sys, time
sys.path.insert(0, sys.argv[4])
import trifecta
segment, questions, corpus = sys.argv[1], sys.argv[2], sys.argv[3]
qs = [json.loads(line) for line in open(questions) if line.strip()]
qs = [q["query"] for q in qs if corpus == "-" or q.get("corpus") == corpus]
engine = trifecta.open(segment)
t = time.perf_counter()
engine.index()
index_s = time.perf_counter() - t
passes = []
for _ in range(2):
    times = []
    for q in qs:
        t = time.perf_counter()
        engine.search(q, limit=10)
        times.append((time.perf_counter() - t) * 1000)
    passes.append(times)
print(json.dumps({"index_s": index_s, "first": passes[0], "warm": passes[1]}))
"""


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def run_set(
    name: str, segment: Path, questions: Path, corpus: str | None, runs: int, package: Path
) -> dict[str, object]:
    results = []
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-c", CHILD, str(segment), str(questions), corpus or "-", str(package)],
            check=True,
            capture_output=True,
            text=True,
            timeout=1800,
        )
        results.append(json.loads(out.stdout.strip().splitlines()[-1]))
    row: dict[str, object] = {"segment": str(segment), "questions": len(results[0]["first"]), "runs": runs}
    for key in ("first", "warm"):
        per_question = [statistics.median(r[key][i] for r in results) for i in range(len(results[0][key]))]
        row[f"{key}_p50_ms"] = round(percentile(per_question, 50), 1)
        row[f"{key}_p95_ms"] = round(percentile(per_question, 95), 1)
        row[f"{key}_max_ms"] = round(max(per_question), 1)
    print(
        f"{name:16} n={row['questions']:<3} first pass p50 {row['first_p50_ms']:6.1f} p95 {row['first_p95_ms']:6.1f}"
        f" | warm p50 {row['warm_p50_ms']:6.1f} p95 {row['warm_p95_ms']:6.1f}",
        flush=True,
    )
    return row


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sets", nargs="*", default=list(SETS), choices=list(SETS))
    parser.add_argument("--runs", type=int, default=3, help="fresh processes per set (default 3)")
    parser.add_argument("--root", type=Path, help="find each segment under this folder, by its basename")
    parser.add_argument(
        "--src", type=Path, default=REPO / "src", help="the trifecta package to time (a checkout's src/)"
    )
    parser.add_argument("--out", type=Path, default=HERE / "results" / "search_latency.json")
    args = parser.parse_args()
    package = Path(tempfile.mkdtemp(prefix="trifecta-bench-"))  # `import trifecta` from --src
    (package / "trifecta").symlink_to(args.src.resolve())
    rows = {}
    for name in args.sets:
        segment, questions, corpus = SETS[name]
        if args.root is not None:  # the same folder layout under another root
            base = REALREPO if segment.is_relative_to(REALREPO) else Path("/tmp")
            segment = args.root / segment.relative_to(base)
        if not segment.is_dir():
            print(f"{name:16} skipped: no segment at {segment}")
            continue
        rows[name] = run_set(name, segment, questions, corpus, args.runs, package)
    commit = subprocess.run(
        ["git", "-C", str(args.src), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    report = {
        "commit": commit.stdout.strip(),
        "when": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "load_average": os.getloadavg(),
        "src": str(args.src),
        "sets": rows,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
