"""What recording call edges costs a full index: the same source with and without the Python edge walk.

    python bench/edges_cost.py --tree /usr/lib/python3.11 --runs 7
    python bench/edges_cost.py --tree /usr/lib/python3.11 --runs 7 --base b49f4e0   # and a revision, interleaved
    python bench/edges_cost.py --tree /usr/lib/python3.11 --parts 15 [--runs 3]   # the edges' own work only

The package is copied twice into a temp dir (`with`: as it is; `without`: `parse_python` returns no edges),
and so is `--base`'s (from `git archive`, this checkout untouched);
the tree is copied once (no site-packages, no __pycache__). Then `engine.index(full=True)` runs in a fresh
subprocess per run, alternating the variants, each on a new database. Reported per variant, as medians
(and the growth between each variant's fastest run, which other work on the machine disturbs least):
wall time, the indexing process's CPU and the parser workers' CPU (and their sum: with the workers and the
indexing process sharing 2 cores, the wall time follows it), the edges and the database size. Run it on a
quiet machine and give `uptime` with the figures: a 2-core machine shared with other work moves the wall
time by 20% from run to run.

``--parts N`` measures only the edges' own work, in this process, N times (``time.process_time``, garbage
collection off; the load of other work on the machine can only add to a repetition, so the fastest is the
steadiest figure and the median says how noisy it was): the Python edge walk (``_edges`` over every file's
parsed tree, the trees parsed beforehand; and again as a real index runs it: inside ``parse_python``, right
after that file's parse, whose tree is then still in the processor's caches, so the walk costs less) and
the edges' writes (every file's rows inserted into the edges table of a new SQLite file in one transaction,
then its indexes made, as a first full run does), the two alternating; ``edges_digest`` is a hash of the sorted rows, to check that a change keeps every edge. With
``--runs`` too, the edges' share of the fastest full index without them. The writes go to a table of their
own here: a real run writes the edges in the transaction that also fills ``chunks_fts``, where a statement
can cost more (see ``sqlite_store.insert_edges``); check a change to the writes with ``--runs`` as well.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

SWITCH = "    edges = _edges(tree, symbols, len(lines))\n"
CHILD = r"""
import os, resource, shutil, sys, tempfile, threading, time
import trifecta
def cpu(who):
    r = resource.getrusage(who); return r.ru_utime + r.ru_stime
work = tempfile.mkdtemp(prefix="edges-cost-")
db = os.path.join(work, "index.db")
engine = trifecta.open(sys.argv[1], db_path=db)
self0, kids0 = cpu(resource.RUSAGE_SELF), cpu(resource.RUSAGE_CHILDREN)
started = time.perf_counter()
engine.index(full=True)
wall = time.perf_counter() - started
self1 = cpu(resource.RUSAGE_SELF)
edges = engine._app.store._conn.execute("SELECT count(*) FROM edges").fetchone()[0]
engine.close()
for t in threading.enumerate():
    if t.name == "trifecta-parse-exit":
        t.join(30)
print(wall, self1 - self0, cpu(resource.RUSAGE_CHILDREN) - kids0, edges, os.path.getsize(db))
shutil.rmtree(work, ignore_errors=True)
"""


def packages(work: Path, rev: str | None) -> dict[str, str]:
    """Two copies of the package (this checkout's, or `git archive` of REV), with and without edges:
    variant name -> the folder to put on PYTHONPATH."""
    label = rev or "checkout"
    source = Path(__file__).resolve().parents[1] / "src"
    if rev:
        source = work / f"src-{rev}"
        source.mkdir()
        archive = subprocess.run(
            ["git", "archive", rev, "src"],
            cwd=Path(__file__).resolve().parents[1],
            capture_output=True,
            check=True,
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(source), "--strip-components=1"], input=archive, check=True)
    paths = {}
    for edges in ("with", "without"):
        dest = work / f"{label}-{edges}"
        shutil.copytree(source, dest / "trifecta", ignore=shutil.ignore_patterns("__pycache__"))
        paths[f"{label} {edges}"] = str(dest)
    parser = work / f"{label}-without" / "trifecta" / "infrastructure" / "python_parser.py"
    text = parser.read_text()
    if SWITCH not in text:
        raise SystemExit(f"the edge walk's call is not where this script looks for it: {SWITCH.strip()!r}")
    parser.write_text(text.replace(SWITCH, "    edges = ()  # bench/edges_cost.py: no edges\n"))
    return paths


def parts(tree: Path, reps: int) -> dict[str, float]:
    """The edge walk's and the edges' writes' CPU over the tree, each the fastest and the median of reps."""
    import ast
    import gc
    import hashlib
    import sqlite3
    import time

    from trifecta.infrastructure import python_parser as pp
    from trifecta.infrastructure import sqlite_store as ss

    files = []
    for path in sorted(tree.rglob("*.py")):
        try:
            text = path.read_text(encoding="utf-8").removeprefix("\ufeff")
            parsed = ast.parse(text)
        except (SyntaxError, UnicodeDecodeError, ValueError, RecursionError):
            continue
        symbols = list(pp.parse_python(str(path.relative_to(tree)), text).symbols)
        files.append((parsed, symbols, len(text.splitlines()), str(path.relative_to(tree)), text))
    rows = [pp._edges(parsed, symbols, n) for parsed, symbols, n, _, _ in files]  # noqa: SLF001
    digest = hashlib.sha256(repr(sorted(r for file in rows for r in file)).encode()).hexdigest()[:16]
    work = Path(tempfile.mkdtemp(prefix="edges-parts-"))
    walk: list[float] = []
    walk_in_parse: list[float] = []
    write: list[float] = []
    real_edges = pp._edges  # noqa: SLF001
    spent = [0.0]

    def timed_edges(*args: object) -> object:
        started = time.process_time()
        out = real_edges(*args)
        spent[0] += time.process_time() - started
        return out

    gc.collect()
    gc.disable()
    try:
        for rep in range(reps):
            started = time.process_time()
            for parsed, symbols, n, _, _ in files:
                pp._edges(parsed, symbols, n)  # noqa: SLF001
            walk.append(time.process_time() - started)
            spent[0] = 0.0
            pp._edges = timed_edges  # noqa: SLF001
            try:
                for *_, name, text in files:
                    pp.parse_python(name, text)
            finally:
                pp._edges = real_edges  # noqa: SLF001
            walk_in_parse.append(spent[0])
            conn = sqlite3.connect(work / f"edges-{rep}.db", isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute(
                "CREATE TABLE edges(file_id INTEGER NOT NULL, kind TEXT NOT NULL, caller TEXT NOT NULL, "
                "line INTEGER NOT NULL, col INTEGER NOT NULL, name TEXT NOT NULL, text TEXT NOT NULL, "
                "alias TEXT NOT NULL)"
            )
            started = time.process_time()
            conn.execute("BEGIN")
            for file_id, file_rows in enumerate(rows, 1):
                if hasattr(ss, "insert_edges"):  # as the store writes them (a --base before it: as it did)
                    ss.insert_edges(conn, file_id, file_rows)
                else:
                    conn.executemany(
                        "INSERT INTO edges(file_id, kind, caller, line, col, name, text, alias) "
                        "VALUES (?,?,?,?,?,?,?,?)",
                        [(file_id, *row) for row in file_rows],
                    )
            conn.execute("COMMIT")
            for sql in [*ss._EDGE_INDEXES.values(), ss._CALLS_INDEX]:  # noqa: SLF001
                conn.execute(sql)
            write.append(time.process_time() - started)
            conn.close()
    finally:
        gc.enable()
        shutil.rmtree(work, ignore_errors=True)
    both = [a + b for a, b in zip(walk, write, strict=True)]
    both_in_parse = [a + b for a, b in zip(walk_in_parse, write, strict=True)]
    print(f"\n{len(files)} files, {sum(map(len, rows))} edges, edges_digest {digest}, {reps} repetitions, "
          f"load {os.getloadavg()[0]:.1f}\n\n| edges' own CPU s | fastest | median |\n|---|---|---|")  # fmt: skip
    for name, values in (
        ("edge walk", walk),
        ("edge walk, as parse_python runs it", walk_in_parse),
        ("edges' writes", write),
        ("both", both),
        ("both, the walk as parse_python runs it", both_in_parse),
    ):
        print(f"| {name} | {min(values):.3f} | {statistics.median(values):.3f} |")
    return {
        "walk": min(walk),
        "walk_in_parse": min(walk_in_parse),
        "write": min(write),
        "both": min(both),
        "both_in_parse": min(both_in_parse),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", required=True)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--parts", type=int, default=0, help="repetitions of the edges' own work (see above)")
    ap.add_argument(
        "--base", help="also measure this git revision, its runs interleaved with this checkout's"
    )
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="edges-cost-"))
    try:
        tree = work / "tree"
        shutil.copytree(
            args.tree, tree, ignore=shutil.ignore_patterns("site-packages", "dist-packages", "__pycache__")
        )
        own = parts(tree, args.parts) if args.parts else None
        if not args.runs:
            return 0
        paths = {**(packages(work, args.base) if args.base else {}), **packages(work, None)}
        results: dict[str, list[list[float]]] = {variant: [] for variant in paths}
        for run in range(args.runs):
            for variant, path in paths.items():
                env = {**os.environ, "PYTHONPATH": path, "TRIFECTA_NO_TELEMETRY": "1"}
                out = subprocess.run(
                    [sys.executable, "-c", CHILD, str(tree)],
                    env=env,
                    capture_output=True,
                    text=True,
                    timeout=900,
                )
                if out.returncode != 0:
                    raise SystemExit(out.stderr[-2000:])
                values = [float(x) for x in out.stdout.split()]
                results[variant].append([*values, values[1] + values[2]])
                print(f"run {run + 1} {variant}: {out.stdout.strip()}", file=sys.stderr)
        # on a busy 2-core machine the wall time follows the CPU total (indexing process + workers)
        names = ["wall s", "CPU main s", "CPU workers s", "edges", "database bytes", "CPU total s"]
        for label in dict.fromkeys(v.rsplit(" ", 1)[0] for v in paths):
            print(
                f"\n{label}\n\n| full index | without edges | with edges | growth (median) | growth (best) |"
                "\n|---|---|---|---|---|"
            )
            for i, name in enumerate(names):
                before = statistics.median(r[i] for r in results[f"{label} without"])
                after = statistics.median(r[i] for r in results[f"{label} with"])
                growth = f"{(after / before - 1) * 100:+.1f}%" if before else "-"
                # CPU time is only ever inflated by other work on the machine: the fastest run of each
                # variant is the steadier comparison on a shared machine
                low = min(r[i] for r in results[f"{label} without"])
                best = (
                    f"{(min(r[i] for r in results[f'{label} with']) / low - 1) * 100:+.1f}%" if low else "-"
                )
                print(f"| {name} | {before:.3f} | {after:.3f} | {growth} | {best} |")
            if own is not None and label == "checkout":  # `parts` measured the package this process imports
                low = min(r[5] for r in results[f"{label} without"])
                print(f"\nthe edges' own work (fastest) over the fastest full index without them ({low:.3f} s): "
                      f"walk {own['walk'] / low:+.1%} (as parse_python runs it {own['walk_in_parse'] / low:+.1%}), "
                      f"writes {own['write'] / low:+.1%}, both {own['both'] / low:+.1%} "
                      f"(the walk as parse_python runs it: {own['both_in_parse'] / low:+.1%})")  # fmt: skip
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
