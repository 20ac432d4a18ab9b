"""What recording call edges costs a full index: the same source with and without the edges.

    python bench/edges_cost.py --tree /usr/lib/python3.11 --runs 7
    python bench/edges_cost.py --tree /usr/lib/python3.11 --runs 7 --base b49f4e0   # and a revision, interleaved
    python bench/edges_cost.py --tree /usr/lib/python3.11 --parts 15 [--runs 3]   # the edges' own work only
    python bench/edges_cost.py --tree cobra --parts 7 --runs 7    # Go (any tree-sitter language) the same way

The package is copied twice into a temp dir (`with`: as it is; `without`: `parse_python` returns no edges,
and tree-sitter's languages neither: their query keeps only the patterns that capture a definition or a
class's bases, and `_edges`, the doc links and Go's method sets are not run; the symbols and chunks are the
same), and so is `--base`'s (from `git archive`, this checkout untouched);
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
tree-sitter's files' parse with the edges and without them (as the `without` package parses them; and
`_edges` alone, as the parse runs it) and the edges' writes (every file's rows inserted into the edges table
of a new SQLite file in one transaction, then its indexes made, as a first full run does), alternating;
``edges_digest`` (Python's) and the tree-sitter ``edges_digest`` are hashes of the sorted rows, to check that
a change keeps every edge. With
``--runs`` too, the edges' share of the fastest full index without them. The writes go to a table of their
own here: a real run writes the edges in the transaction that also fills ``chunks_fts``, where a statement
can cost more (see ``sqlite_store.insert_edges``); check a change to the writes with ``--runs`` as well.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

SWITCH = "    edges = _edges(tree, symbols, len(lines))\n"
# tree-sitter languages (Go, TypeScript, Rust, ...): the `without` package's languages.toml points each
# language at one query file of its definitions' patterns only (written beforehand: the package compiles no
# more than that), and everything made of the edges is not run
TS_EDGES = re.compile(r"    docs = .*?\n    parsed = attrs\.evolve\(parsed, edge(?:s|_rows)=edges\)\n", re.S)
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
    tree_sitter = parser.with_name("treesitter_parser.py")
    if tree_sitter.exists():  # (a --base from before tree-sitter edges has none to switch off)
        text = tree_sitter.read_text()
        if len(TS_EDGES.findall(text)) != 1:
            raise SystemExit("tree-sitter's edges are not where this script looks for them")
        tree_sitter.write_text(TS_EDGES.sub(lambda _: "    # bench/edges_cost.py: no edges\n", text))
        definitions_queries(tree_sitter.parents[1] / "data")
    return paths


def definitions_queries(data: Path) -> None:
    """Each language of a package's `data/languages.toml` pointed at a query file of its own holding only
    its definitions' patterns (`definitions_only`)."""
    import importlib
    import tomllib

    import tree_sitter as ts

    table = data / "languages.toml"
    text = table.read_text("utf-8")
    for key, row in tomllib.loads(text).items():
        names = [row["query"]] if isinstance(row["query"], str) else row["query"]
        source = "\n".join((data / "languages" / name).read_text("utf-8") for name in names)
        module, function = row["grammar"].split(":")
        language = ts.Language(getattr(importlib.import_module(module), function)())
        (data / "languages" / f"{key}.definitions.scm").write_text(
            definitions_only(language, source), "utf-8"
        )
        section = re.search(rf"(?ms)^\[{re.escape(key)}\]\n.*?(?=^\[|\Z)", text)
        assert section is not None
        row_text = re.sub(r"(?m)^query = .*$", f'query = "{key}.definitions.scm"', section.group(0), count=1)
        text = text[: section.start()] + row_text + text[section.end() :]
    table.write_text(text, "utf-8")


def definitions_only(language: object, source: str) -> str:
    """What the `without` package's tree-sitter query keeps: the patterns that capture a definition or a
    class's bases, in their order."""
    import tree_sitter as ts

    whole, data = ts.Query(language, source), source.encode("utf-8")  # type: ignore[arg-type]
    count: int = whole.pattern_count  # type: ignore[assignment]  # a property (the stub says a method)
    patterns = (data[whole.start_byte_for_pattern(i) : whole.end_byte_for_pattern(i)] for i in range(count))
    kept = [p for p in patterns if re.search(rb"@definition\.|@bases\.of", re.sub(rb";[^\n]*", b"", p))]
    return b"\n".join(kept).decode("utf-8")  # (a pattern's bytes run on to the next one's: comments left out)


def parts(tree: Path, reps: int) -> dict[str, float]:
    """The edges' own CPU over the tree (the edge walk, tree-sitter's edges, the writes), each the fastest
    and the median of reps."""
    import ast
    import gc
    import hashlib
    import sqlite3
    import time
    from importlib import resources

    import tree_sitter as ts

    from trifecta.infrastructure import python_parser as pp
    from trifecta.infrastructure import sqlite_store as ss
    from trifecta.infrastructure import treesitter_parser as tsp

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
    # tree-sitter's files (Go, TypeScript, Rust, ...): their parse with the edges and without them (the
    # `without` package's switch, made here by swapping the module's functions)
    ts_files = []
    for path in sorted(p for p in tree.rglob("*") if p.is_file()):
        spec = tsp.spec_for(path.name)
        if spec is not None:
            ts_files.append((str(path.relative_to(tree)), path.read_text("utf-8", "replace"), spec))
    ts_parsed = [tsp.parse_tree_sitter(*f) for f in ts_files]
    ts_rows = [parsed.edge_table() for parsed in ts_parsed]
    ts_digest = hashlib.sha256(
        repr(
            sorted((name, *r) for (name, *_), file in zip(ts_files, ts_rows, strict=True) for r in file)
        ).encode()
    ).hexdigest()[:16]
    rows += ts_rows
    folder = resources.files("trifecta.data").joinpath("languages")
    without_query = {}
    for spec in {spec.key: spec for *_, spec in ts_files}.values():
        parser, query = tsp._compiled(spec.key)  # noqa: SLF001
        source = "\n".join(folder.joinpath(name).read_text("utf-8") for name in spec.query)
        without_query[spec.key] = (
            parser,
            ts.Query(parser.language, definitions_only(parser.language, source)),
        )
    switched: dict[str, Callable[..., object]] = {
        "_compiled": without_query.__getitem__,
        "_edges": lambda *args, **kwargs: (),
        "_doc_links": lambda *args: [],
        "_go_method_sets": lambda defs: (),
    }
    if hasattr(tsp, "_pattern_kinds"):  # (since dd20345) every pattern of that query is a definition's
        count: dict[str, int] = {k: q.pattern_count for k, (_, q) in without_query.items()}  # type: ignore[misc]
        switched["_pattern_kinds"] = lambda key: (frozenset(range(count[key])), frozenset(), frozenset())
    real = {name: getattr(tsp, name) for name in switched}
    for name, function in switched.items():
        setattr(tsp, name, function)
    try:  # the switch must leave the symbols and chunks as they are
        if [(p.symbols, p.chunks) for p in ts_parsed] != [
            (p.symbols, p.chunks) for p in (tsp.parse_tree_sitter(*f) for f in ts_files)
        ]:
            raise SystemExit("tree-sitter's symbols or chunks differ without the edges: the switch is wrong")
    finally:
        for name, function in real.items():
            setattr(tsp, name, function)
    work = Path(tempfile.mkdtemp(prefix="edges-parts-"))
    walk: list[float] = []
    walk_in_parse: list[float] = []
    ts_with: list[float] = []
    ts_without: list[float] = []
    ts_edges_in_parse: list[float] = []
    write: list[float] = []
    real_edges = pp._edges  # noqa: SLF001
    spent = [0.0]

    def timed(function: Callable[..., object]) -> Callable[..., object]:
        def run(*args: object, **kwargs: object) -> object:
            started = time.process_time()
            out = function(*args, **kwargs)
            spent[0] += time.process_time() - started
            return out

        return run

    gc.collect()
    gc.disable()
    try:
        for rep in range(reps):
            if files:
                started = time.process_time()
                for parsed, symbols, n, _, _ in files:
                    pp._edges(parsed, symbols, n)  # noqa: SLF001
                walk.append(time.process_time() - started)
                spent[0] = 0.0
                pp._edges = timed(real_edges)  # noqa: SLF001
                try:
                    for *_, name, text in files:
                        pp.parse_python(name, text)
                finally:
                    pp._edges = real_edges  # noqa: SLF001
                walk_in_parse.append(spent[0])
            if ts_files:
                spent[0] = 0.0
                tsp._edges = timed(real["_edges"])  # noqa: SLF001
                started = time.process_time()
                try:
                    for ts_file in ts_files:
                        tsp.parse_tree_sitter(*ts_file)
                finally:
                    tsp._edges = real["_edges"]  # noqa: SLF001
                ts_with.append(time.process_time() - started)
                ts_edges_in_parse.append(spent[0])
                for name, function in switched.items():
                    setattr(tsp, name, function)
                started = time.process_time()
                try:
                    for ts_file in ts_files:
                        tsp.parse_tree_sitter(*ts_file)
                finally:
                    for name, function in real.items():
                        setattr(tsp, name, function)
                ts_without.append(time.process_time() - started)
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
    ts_own = [a - b for a, b in zip(ts_with, ts_without, strict=True)]
    walk = walk or [0.0] * reps
    walk_in_parse = walk_in_parse or [0.0] * reps
    both = [a + b + c for a, b, c in zip(walk, ts_own or [0.0] * reps, write, strict=True)]
    both_in_parse = [a + b + c for a, b, c in zip(walk_in_parse, ts_own or [0.0] * reps, write, strict=True)]
    print(f"\n{len(files)} Python files, {sum(len(r) for r in rows[: len(files)])} edges, edges_digest {digest}; "
          f"{len(ts_files)} tree-sitter files, {sum(map(len, ts_rows))} edges, tree-sitter edges_digest "
          f"{ts_digest}; {reps} repetitions, load {os.getloadavg()[0]:.1f}\n\n"
          "| edges' own CPU s | fastest | median |\n|---|---|---|")  # fmt: skip
    table = [
        ("edge walk", walk),
        ("edge walk, as parse_python runs it", walk_in_parse),
    ] if files else []  # fmt: skip
    if ts_files:
        table += [
            ("tree-sitter parse with edges", ts_with),
            ("tree-sitter parse without edges (their query patterns, `_edges`, doc links)", ts_without),
            ("tree-sitter edges (the difference)", ts_own),
            ("tree-sitter `_edges`, as the parse runs it", ts_edges_in_parse),
        ]
    table += [
        ("edges' writes", write),
        ("all", both),
        ("all, the walk as parse_python runs it", both_in_parse),
    ]
    for name, values in table:
        print(f"| {name} | {min(values):.3f} | {statistics.median(values):.3f} |")
    return {
        "walk": min(walk),
        "walk_in_parse": min(walk_in_parse),
        "tree_sitter": min(ts_own or [0.0]),
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
                      f"tree-sitter's edges {own['tree_sitter'] / low:+.1%}, "
                      f"writes {own['write'] / low:+.1%}, all {own['both'] / low:+.1%} "
                      f"(the walk as parse_python runs it: {own['both_in_parse'] / low:+.1%})")  # fmt: skip
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
