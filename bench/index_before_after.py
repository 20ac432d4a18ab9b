"""Full index time of two versions of Trifecta on the same trees, runs interleaved: for speed work on a shared
machine, where one run follows the load of the minute it ran in.

Per round and tree: the parse-only pass (bench_polyglot's, with this checkout's code), then a full index with
the code at --base and one with this checkout's code, in fresh processes, the order swapped every round.
Prints per tree the medians (and ranges) of the parse-only pass and of each version's full index, the ratio
of the medians, the CPU seconds of the index (its process + its parser workers, far less disturbed by other
processes than wall time) and the load average seen. --keep-dbs copies each version's last index beside
the other so that `compare_indexes.py` can check they hold the same things.

    python bench/index_before_after.py --base HEAD~1 ts-rxjs go-x-tools --rounds 5
    python bench/index_before_after.py --base ad02eb6 --rounds 5          # every tree of bench_polyglot
    python bench/index_before_after.py --base ad02eb6 --new HEAD          # two commits, this checkout aside
    python bench/compare_indexes.py /tmp/ts-rxjs-base.db /tmp/ts-rxjs-new.db   # after --keep-dbs /tmp
    python bench/index_before_after.py --base HEAD~3 --new HEAD --tree "$(python -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')" --rounds 3
                                                         # any folder (the stdlib, /tmp/polyglot/go-cobra): copied first

The trees come from bench_polyglot's cache (--corpora; fetch them first with
`python bench/bench_polyglot.py --fetch-only`) and are copied to a temp folder. The base version is a git
worktree of --base (and of --new, when given), imported through PYTHONPATH ahead of this checkout's editable
install.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))
from bench_index import INDEX_CHILD, copy_tree, indexed_files  # noqa: E402 - bench/ is not a package
from bench_polyglot import DEFAULT_CORPORA, PARSE_CHILD, TREES_BY_NAME  # noqa: E402


def run_child(code: str, args: Sequence[str], env: dict[str, str]) -> dict[str, float]:
    proc = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, timeout=600
    )
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-2000:])
    result: dict[str, float] = json.loads(proc.stdout)
    return result


def measure(tree: Path, rounds: int, workers: int, envs: dict[str, dict[str, str]], keep: Path | None) -> str:
    listing = tree.parent / "listing.txt"
    listing.write_text("\n".join(path for path, _ in indexed_files(tree)[0]), encoding="utf-8")
    parse: list[float] = []
    walls: dict[str, list[float]] = {name: [] for name in envs}
    cpus: dict[str, list[float]] = {name: [] for name in envs}
    loads = [os.getloadavg()[0]]
    names = list(envs)
    for r in range(rounds):
        parse.append(run_child(PARSE_CHILD, [str(tree), str(listing)], envs["new"])["seconds"])
        for name in names if r % 2 == 0 else names[::-1]:
            db = tree.parent / f"{name}.db"
            for suffix in ("", "-wal", "-shm"):
                Path(f"{db}{suffix}").unlink(missing_ok=True)
            out = run_child(
                INDEX_CHILD, [json.dumps({"tree": str(tree), "db": str(db), "workers": workers})], envs[name]
            )
            walls[name].append(out["index_s"])
            cpus[name].append(out["index_cpu_s"] + out["workers_cpu_s"])
            if keep is not None:
                shutil.copy(db, keep / f"{tree.name}-{name}.db")
        loads.append(os.getloadavg()[0])
    p = statistics.median(parse)
    lines = [f"{tree.name}: parse-only {p * 1000:.0f} ms ({min(parse) * 1000:.0f}-{max(parse) * 1000:.0f}), "
             f"load average {min(loads):.1f}-{max(loads):.1f}, {rounds} rounds"]  # fmt: skip
    for name in names:
        m = statistics.median(walls[name])
        lines.append(
            f"  {name:4s} full index {m * 1000:.0f} ms ({min(walls[name]) * 1000:.0f}-{max(walls[name]) * 1000:.0f}) "
            f"ratio {m / p:.2f}x, CPU {statistics.median(cpus[name]):.2f} s"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("trees", nargs="*", help=f"some of {', '.join(sorted(TREES_BY_NAME))} (default: all)")
    ap.add_argument("--base", required=True, help="the git revision to compare this checkout with")
    ap.add_argument("--new", help="a git revision instead of this checkout (its uncommitted changes aside)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA)
    ap.add_argument("--keep-dbs", type=Path, help="copy each version's last index here")
    ap.add_argument("--tree", type=Path, action="append", default=[], metavar="PATH",
                    help="also (or instead of the named trees) a folder of your own; copied to a temp folder first")  # fmt: skip
    args = ap.parse_args(argv)
    unknown = sorted(set(args.trees) - set(TREES_BY_NAME))
    if unknown:
        ap.error(f"unknown trees: {', '.join(unknown)}")
    repo = BENCH_DIR.parent
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # a stopped run still removes its worktree
    scratch = Path(tempfile.mkdtemp(prefix="trifecta-before-after-"))
    versions = {"base": args.base, "new": args.new}
    try:
        envs = {}
        for name, rev in versions.items():
            env = dict(os.environ)
            env.pop("PYTHONPATH", None)
            if rev is not None:  # a worktree of rev, imported ahead of this checkout's editable install
                worktree = scratch / f"{name}-worktree"
                subprocess.run(["git", "worktree", "add", "--detach", str(worktree), rev], cwd=repo, check=True,
                               capture_output=True)  # fmt: skip
                (scratch / f"{name}-pkg").mkdir()
                (scratch / f"{name}-pkg" / "trifecta").symlink_to(worktree / "src")
                env["PYTHONPATH"] = str(scratch / f"{name}-pkg")
            envs[name] = env
        named = args.trees or ([] if args.tree else sorted(TREES_BY_NAME))
        sources = [(name, args.corpora / name) for name in named] + [(p.resolve().name, p) for p in args.tree]
        for name, source in sources:
            tree = scratch / name / name
            tree.parent.mkdir()
            copy_tree(source, tree, quick=False)
            print(measure(tree, args.rounds, args.workers, envs, args.keep_dbs), flush=True)
            shutil.rmtree(tree.parent)
    finally:
        for name in versions:
            worktree = scratch / f"{name}-worktree"
            if worktree.exists():
                subprocess.run(
                    ["git", "worktree", "remove", "--force", str(worktree)], cwd=repo, capture_output=True
                )
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
