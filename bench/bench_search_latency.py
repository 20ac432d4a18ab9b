"""Search latency per evaluation set, as a new process sees it: each set's questions asked once right after
`index()` in a fresh process (the "first pass": a CLI call, a new MCP session), then once more in the same
process (the "warm" pass: the per-process caches filled), as ../shared/eval/score.py times them.

    python bench/bench_search_latency.py                       # every set, 3 fresh processes each
    python bench/bench_search_latency.py --sets sqlalchemy stdlib --runs 5
    python bench/bench_search_latency.py --root /tmp/copies    # copies: sqlalchemy-2.0.58/, stdlibseg/, polyglot/go-cobra/
    python bench/bench_search_latency.py --src new=src:/tmp/new --src old=/tmp/old/src:/tmp/old-copies
                                                               # two packages in turn, each on its own copies
    python bench/bench_search_latency.py --sets stdlib --cli   # also one `trifecta ctx search` per process

Sets (segment: questions): sqlalchemy, flask, click (../shared/eval/realrepo), stdlib (/tmp/stdlibseg: this
repository's bench/stdlib_questions.jsonl), pub (/tmp/pubseg: ../shared/eval/public_queries.jsonl) and one
set per polyglot corpus (/tmp/polyglot/<corpus>: ../shared/eval/polyglot/public_queries.jsonl). A segment
is indexed in place (its .trifecta folder), untimed; the indexing of a set whose index exists is a refresh.
Two packages need their own copies of the segments: an index is written by the version that refreshes it.

Reported per set and package: the questions, first-pass and warm p50/p95 in ms of wall time, and the
first pass's CPU time (what a busy machine's wait for a core leaves out). Each question's time is its median
over the runs (each run a fresh process; packages take turns run by run), so one busy moment of a shared
machine does not stand for the question; p95 is the nearest-rank value of ../shared/eval/score.py's timing
(index round(0.95 (n - 1))): with 8 questions, the slowest. The first question also pays what a process
pays once (the first freshness check, imports such as numpy's, per-process caches): its CPU time is reported
alone ("q1 CPU"). `--cli` also times what an agent's shell call costs: `trifecta ctx search -s SEGMENT
"<the set's first question>" --json` as a new process (wall and CPU, interpreter start and imports included;
its freshness check is a stat scan of the tree: a new process has no watch to trust). Writes
bench/results/search_latency.json. Target (issues 14, 15, 18): first-pass p95 < 20 ms on every set.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

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

# One run, in its own process: index, then every question twice; prints one JSON line. Each search's wall
# time and its CPU time (process_time: what a busy machine's waiting for a core leaves out).
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
out = {"index_s": index_s}
for name in ("first", "warm"):
    wall, cpu = [], []
    for q in qs:
        c, t = time.process_time(), time.perf_counter()
        engine.search(q, limit=10)
        wall.append((time.perf_counter() - t) * 1000)
        cpu.append((time.process_time() - c) * 1000)
    out[name], out[name + "_cpu"] = wall, cpu
print(json.dumps(out))
"""


# One `trifecta ctx search` as a shell would run it (the package first on the path).
CLI_CHILD = r"""
import sys
sys.path.insert(0, sys.argv.pop(1))
from trifecta.interfaces.cli.main import main
sys.argv[0] = "trifecta"
sys.exit(main())
"""


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def one_run(segment: Path, questions: Path, corpus: str | None, package: Path) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(segment), str(questions), corpus or "-", str(package)],
        check=True,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def cli_run(segment: Path, question: str, package: Path) -> dict[str, float]:
    """One CLI search in a new process: its wall time and CPU time (user + system, from the child's rusage)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-c",
            CLI_CHILD,
            str(package),
            "ctx",
            "search",
            "-s",
            str(segment),
            question,
            "--json",
        ],
        check=True,
        capture_output=True,
        timeout=600,
    )
    wall = (time.perf_counter() - started) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return {"cli": wall, "cli_cpu": cpu}


def first_question(questions: Path, corpus: str | None) -> str:
    for line in questions.read_text(encoding="utf-8").splitlines():
        if line.strip() and (corpus is None or json.loads(line).get("corpus") == corpus):
            return str(json.loads(line)["query"])
    raise ValueError(f"{questions}: no question" + (f" for {corpus}" if corpus else ""))


def summary(segment: Path, results: list[dict[str, Any]]) -> dict[str, object]:
    row: dict[str, object] = {
        "segment": str(segment),
        "questions": len(results[0]["first"]),
        "runs": len(results),
    }
    for key in ("first", "warm", "first_cpu", "warm_cpu"):
        per_question = [statistics.median(r[key][i] for r in results) for i in range(len(results[0][key]))]
        row[f"{key}_p50_ms"] = round(percentile(per_question, 50), 1)
        row[f"{key}_p95_ms"] = round(percentile(per_question, 95), 1)
        row[f"{key}_max_ms"] = round(max(per_question), 1)
        row[f"{key}_per_question_ms"] = [round(v, 1) for v in per_question]  # in the questions' order
    row["first_question_cpu_ms"] = round(statistics.median(r["first_cpu"][0] for r in results), 1)
    for key in ("cli", "cli_cpu"):
        if key in results[0]:
            row[f"{key}_median_ms"] = round(statistics.median(r[key] for r in results), 1)
    return row


def segment_of(name: str, root: Path | None) -> Path:
    segment = SETS[name][0]
    if root is None:
        return segment
    base = REALREPO if segment.is_relative_to(REALREPO) else Path("/tmp")  # the same layout under root
    return root / segment.relative_to(base)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sets", nargs="*", default=list(SETS), choices=list(SETS))
    parser.add_argument("--runs", type=int, default=3, help="fresh processes per set and package (default 3)")
    parser.add_argument("--root", type=Path, help="the segments under this folder, in the same layout")
    parser.add_argument(
        "--src",
        action="append",
        metavar="LABEL=SRC[:ROOT]",
        help="a trifecta package to time (a checkout's src/), with its own copies of the segments (ROOT); "
        "several are run in turn, run by run (default: this checkout's, labelled 'this')",
    )
    parser.add_argument(
        "--cli", action="store_true", help="also time `trifecta ctx search` (the first question) per process"
    )
    parser.add_argument("--out", type=Path, default=HERE / "results" / "search_latency.json")
    args = parser.parse_args()
    packages: dict[str, tuple[Path, Path | None]] = {}
    for spec in args.src or [f"this={REPO / 'src'}"]:
        label, _, rest = spec.partition("=")
        src, _, root = rest.partition(":")
        package = Path(tempfile.mkdtemp(prefix="trifecta-bench-"))  # `import trifecta` from src
        (package / "trifecta").symlink_to(Path(src).resolve())
        packages[label] = (package, Path(root) if root else args.root)
    rows: dict[str, dict[str, object]] = {}
    for name in args.sets:
        _, questions, corpus = SETS[name]
        missing = [
            str(segment_of(name, root))
            for _, root in packages.values()
            if not segment_of(name, root).is_dir()
        ]
        if missing:
            print(f"{name:16} skipped: no segment at {', '.join(missing)}")
            continue
        results: dict[str, list[dict[str, Any]]] = {label: [] for label in packages}
        for _ in range(args.runs):  # in turn, so that a busy moment falls on every package alike
            for label, (package, root) in packages.items():
                run = one_run(segment_of(name, root), questions, corpus, package)
                if args.cli:  # after the run: the index is current, so the CLI call searches, not builds
                    run.update(cli_run(segment_of(name, root), first_question(questions, corpus), package))
                results[label].append(run)
        rows[name] = {}
        for label, (_, root) in packages.items():
            row = summary(segment_of(name, root), results[label])
            rows[name][label] = row
            print(
                f"{name:16} {label:8} n={row['questions']:<3} first p50 {row['first_p50_ms']:6.1f} "
                f"p95 {row['first_p95_ms']:6.1f} | warm p50 {row['warm_p50_ms']:6.1f} p95 {row['warm_p95_ms']:6.1f} "
                f"| CPU first p50 {row['first_cpu_p50_ms']:6.1f} p95 {row['first_cpu_p95_ms']:6.1f} "
                f"q1 {row['first_question_cpu_ms']:6.1f}"
                + (
                    f" | CLI {row['cli_median_ms']:6.1f} (CPU {row['cli_cpu_median_ms']:6.1f})"
                    if args.cli
                    else ""
                ),
                flush=True,
            )
    report = {
        "commit": subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
        ).stdout.strip(),
        "when": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "load_average": os.getloadavg(),
        "packages": {
            label: str((package / "trifecta").resolve()) for label, (package, _) in packages.items()
        },
        "sets": rows,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
