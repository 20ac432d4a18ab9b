"""Safety figures of issue 19: kill -9 during indexing, and concurrent writers and readers.

    python bench/bench_safety.py kill --tries 40        # SIGKILL `trifecta index` at a random moment, 40 times
    python bench/bench_safety.py stress --seconds 60    # the concurrent stress test, run longer

`kill`: a generated tree of --files Python files is indexed once; then, each try, a random tenth of the files
is rewritten with a new function `edit_<try>_<n>`, `trifecta index` starts as a child process and is killed
with SIGKILL after a random delay within the time a whole run takes. After each kill the database must pass
`PRAGMA integrity_check`, hold no chunk of a file it does not list, and a new `trifecta index` must finish
without rebuilding (no INDEX_REBUILT warning) and then find every edited function. A try that fails any of
these counts as lost. Target: 0 lost in 40 tries.

`stress`: runs tests/integration/test_stress.py with TRIFECTA_STRESS_SECONDS set. Target: 0 errors.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def cli() -> list[str]:
    exe = Path(sys.executable).parent / "trifecta"
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "trifecta"]


def write_tree(root: Path, files: int) -> None:
    for i in range(files):
        pkg = root / f"pkg{i % 30}"
        pkg.mkdir(parents=True, exist_ok=True)
        body = "\n".join(f"    value_{j} = x * {j}" for j in range(40))
        (pkg / f"mod_{i}.py").write_text(f"def function_{i}(x):\n{body}\n    return x\n")


def consistent(db: Path) -> str:
    """'' when the file is a sound index, else what is wrong."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        check = conn.execute("PRAGMA integrity_check").fetchone()[0]
        if check != "ok":
            return f"integrity_check: {check}"
        orphans = conn.execute(
            "SELECT count(*) FROM chunks WHERE file_id NOT IN (SELECT id FROM files)"
        ).fetchone()[0]
        return f"{orphans} orphan chunks" if orphans else ""
    except sqlite3.DatabaseError as exc:
        return f"{type(exc).__name__}: {exc}"
    finally:
        conn.close()


def kill(args: argparse.Namespace) -> int:
    rng = random.Random(args.seed)
    env = {**os.environ, "TRIFECTA_NO_TELEMETRY": "1"}
    with tempfile.TemporaryDirectory() as tmp:
        seg = Path(tmp) / "seg"
        write_tree(seg, args.files)
        started = time.monotonic()
        subprocess.run([*cli(), "index", str(seg), "--json"], check=True, capture_output=True, env=env)
        full = time.monotonic() - started
        db = seg / ".trifecta" / "index.db"
        lost: list[str] = []
        for attempt in range(args.tries):
            edited = rng.sample(range(args.files), max(1, args.files // 10))
            for n in edited:
                path = seg / f"pkg{n % 30}" / f"mod_{n}.py"
                path.write_text(f"def edit_{attempt}_{n}(x):\n    return x + {attempt}\n")
            full_run = rng.random() < 0.25
            command = [*cli(), "index", str(seg), "--json", *(["--full"] if full_run else [])]
            proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
            time.sleep(rng.uniform(0.15, full * 1.1 if full_run else max(0.3, full * 0.4)))
            killed = proc.poll() is None
            if killed:
                os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
            problem = consistent(db)
            if not problem:
                done = subprocess.run(
                    [*cli(), "index", str(seg), "--json"],
                    capture_output=True,
                    text=True,
                    env=env,
                    timeout=600,
                )
                answer = json.loads(done.stdout)
                codes = [w["code"] for w in answer.get("warnings", [])] + [
                    e["code"] for e in answer["errors"]
                ]
                if codes:
                    problem = f"after the kill, index answered {codes}"
                else:
                    probe = rng.choice(edited)
                    found = subprocess.run(
                        [*cli(), "ctx", "search", "--segment", str(seg), "--query", f"edit_{attempt}_{probe}",
                         "--json", "--limit", "1"],
                        capture_output=True, text=True, env=env, timeout=120,
                    )  # fmt: skip
                    hits = json.loads(found.stdout)["data"]["hits"]
                    if not hits or hits[0]["symbol"] != f"edit_{attempt}_{probe}":
                        problem = f"edit_{attempt}_{probe} not found after re-indexing"
            state = "killed" if killed else "finished first"
            print(f"try {attempt + 1:2d}: {'full' if full_run else 'incremental'} run {state}: "
                  f"{problem or 'ok'}", file=sys.stderr)  # fmt: skip
            if problem:
                lost.append(problem)
        print(f"| kill -9 during `trifecta index` ({args.files} files, full run {full:.1f} s) | "
              f"{len(lost)} lost of {args.tries} tries |")  # fmt: skip
        return 1 if lost else 0


def stress(args: argparse.Namespace) -> int:
    env = {**os.environ, "TRIFECTA_STRESS_SECONDS": str(args.seconds)}
    test = ROOT / "tests" / "integration" / "test_stress.py"
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test)], env=env
    ).returncode


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    k = sub.add_parser("kill", help="SIGKILL indexing runs and check nothing is lost")
    k.add_argument("--tries", type=int, default=40)
    k.add_argument("--files", type=int, default=3000)
    k.add_argument("--seed", type=int, default=19)
    s = sub.add_parser("stress", help="the concurrent stress test, for longer")
    s.add_argument("--seconds", type=float, default=60.0)
    args = parser.parse_args()
    return kill(args) if args.command == "kill" else stress(args)


if __name__ == "__main__":
    sys.exit(main())
