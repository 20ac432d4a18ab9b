"""Callers from the index compared with jedi's references, on a copy of the CPython standard library.

    python bench/callers_vs_jedi.py                      # 50 random functions and methods, seed 17
    python bench/callers_vs_jedi.py --n 100 --seed 3 --tree /some/python/tree --json bench/results/callers.json
    python bench/callers_vs_jedi.py --tree /path/to/sqlalchemy --n 100 --latency-only   # a larger repository
    python bench/callers_vs_jedi.py --n 50 --seeds 1,2,3,4 --jedi-cache /tmp/jedi.json   # a table per seed,
                                                 # one index; jedi's answers kept for the next run

The tree (default: this interpreter's stdlib) is copied to a temp dir without site-packages and
__pycache__, and indexed there (nothing is written into the real tree). Then, for N random functions and
methods (dunder methods and properties left out: their "callers" are operators, constructor calls and
attribute reads), it asks
`engine.callers(uri, limit=500)` and jedi's `Script.get_references()` on the definition's name, and compares
the (path, line) sets inside the tree:

- trifecta: the hits resolved `exact` or `import` (name-only matches are not counted);
- jedi: every reference but the definition itself and import statements. jedi's sys.path is the copied tree
  alone, so the tree's own imports (`import threading`) reach the tree's files, as they would for a project;
  with the interpreter's sys.path they reach the installed stdlib (and its typeshed stubs), a different copy,
  and jedi would miss every caller in another module.

Precision = shared / trifecta's, recall = shared / jedi's, summed over all symbols (micro-averaged); a
definition trifecta answers with an error (an ambiguous uri) counts its jedi references as missed. A second
recall counts only jedi references that are calls (the name followed by `(`): callers are call sites, and
jedi also lists reads such as `callback=self.method`. A third recall counts only the jedi references that
jedi's own `goto` at the reference takes back to the definition: `get_references` also merges in names that
only share the definition's name (every `.copy()` on a dict for `UserDict.copy`). The same check the other way: a
second precision counts as right a caller jedi's references leave out when jedi's own `goto` at that call
site reaches the definition (`context = getcontext(); context._raise_error()`: jedi infers the receiver at
the call, but its references search does not list it). Callers latency p50/p95 is `engine.callers` in
process, no language server, asked twice per definition: `first` is the first ask (the files of the
previews read and checked), the main figure the second. Targets: precision >= 0.9, recall >= 0.85, p95 < 30 ms.

`--seeds` measures several samples on one index and ends with the seeds that meet both targets (the issue's
check draws its own random functions: the pass rate over seeds is the figure). `--jedi-cache FILE` keeps
jedi's references and goto answers (they do not depend on trifecta), so a run after a change to trifecta
asks jedi only about callers it has not checked. jedi's own limits, which the raw figures inherit:
`--jedi-executions` (see below) and `--jedi-parse-limit`: its references search parses at most 30 files
that contain the name, in folder order, so the calls of a common name (`re.search`) in the other files are
never listed (raised to 100000: `re.search`'s references 7 -> 23).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import statistics
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from typing import Any

import trifecta


def copy_tree(src: Path, dst: Path) -> None:
    shutil.copytree(
        src,
        dst,
        ignore=shutil.ignore_patterns("site-packages", "dist-packages", "__pycache__"),
        symlinks=True,
    )


def indexed_copy(src: Path, prefix: str) -> tuple[Path, Path, Any]:
    """A temp dir, the tree copied into it (`copy_tree`) and an engine on it, fully indexed (its own
    database beside the copy, nothing written into the real tree)."""
    work = Path(tempfile.mkdtemp(prefix=prefix))
    tree = work / "tree"
    copy_tree(src, tree)
    engine = trifecta.open(tree, db_path=str(work / "index.db"))
    started = time.perf_counter()
    engine.index(full=True)
    print(f"indexed in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return work, tree, engine


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))] if values else 0.0


def pick_symbols(
    engine: Any, n: int, seed: int, *, every: bool = False
) -> tuple[list[tuple[str, Any]], dict[tuple[str, str], set[int]], Any]:
    """N random functions and methods of the index (dunders and properties left out unless ``every``), the
    definition lines of every (path, qualified name), and the Python path rules: the sample a seed names."""
    from trifecta.interfaces.bootstrap import selector_rules

    rules = selector_rules()["python"]
    pool = []
    def_lines: dict[tuple[str, str], set[int]] = {}  # a name one file defines twice: each definition
    for path, symbol in engine._app.store.all_symbols():  # noqa: SLF001 - a benchmark reads the index directly
        def_lines.setdefault((path, symbol.qualname), set()).add(symbol.def_line)
        if symbol.kind.value not in ("function", "method"):
            continue
        if not every and symbol.name.startswith("__"):
            continue
        if not every and any(
            d.endswith(("property", ".setter", ".getter", ".deleter")) for d in symbol.decorators
        ):
            continue  # read as attributes, never called
        stem = rules.stem(path)
        if stem is None or not all(part.isidentifier() for part in stem):
            continue
        pool.append((path, symbol))
    pool.sort(key=lambda ps: (ps[0], ps[1].start_line))
    return random.Random(seed).sample(pool, min(n, len(pool))), def_lines, rules


def add_pages_option(ap: argparse.ArgumentParser) -> None:
    """``--no-pages`` (``args.pages`` False): count the first answer only, not the pages ``every_hit`` reads."""
    ap.add_argument(
        "--no-pages",
        dest="pages",
        action="store_false",
        help="count the first answer's hits only (by default the pages after an answer the byte budget cut "
        "are read too, through its next action's --offset, as an agent reads on)",
    )


def every_hit(engine: Any, uri: str, limit: int, first: dict[str, Any]) -> list[dict[str, Any]]:
    """The hits of ``first`` (an answer of ``engine.callers(uri, limit=limit)``) and of the pages after it
    that its next action asks for (``--offset``: the answer the byte budget cut), as an agent reads on."""
    hits = list((first.get("data") or {}).get("hits", []))
    data = first.get("data") or {}
    while first["status"] == "ok" and data.get("omitted") and len(hits) < limit:
        first = engine.callers(uri, limit=limit - len(hits), offset=data.get("offset", 0) + len(data["hits"]))
        first = first.to_dict()
        data = first.get("data") or {}
        if not data.get("hits"):
            break
        hits += data["hits"]
    return hits


def python_uri(rules: Any, path: str, symbol: Any) -> str:
    stem = rules.stem(path)
    qual = symbol.qualname.split(".")
    return f"sym://python/type/{'/'.join(stem)}/{qual[0]}" + (f"#{'.'.join(qual[1:])}" if qual[1:] else "")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", default=sysconfig.get_paths()["stdlib"])
    ap.add_argument("--n", type=int, default=50)
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument(
        "--seeds", default="", help="several seeds in one run (comma-separated), one index: a table per seed"
    )
    ap.add_argument("--json", default="")
    ap.add_argument(
        "--every",
        action="store_true",
        help="sample dunder methods (`__init__`: constructor calls) and properties (attribute reads) too",
    )
    ap.add_argument(
        "--count-related",
        action="store_true",
        help="count the class family's calls too (hits marked `related`: a base's, an override's or a "
        "sibling's method), as a reader counting every `exact` or `import` hit would",
    )
    ap.add_argument(
        "--limit",
        type=int,
        default=500,
        help="the callers asked per definition (engine.callers' own default is 50: a symbol with more sure "
        "callers than that is answered in part, with data['omitted'])",
    )
    add_pages_option(ap)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--latency-only", action="store_true", help="callers latency only, no jedi (any tree)")
    ap.add_argument(
        "--jedi-cache",
        default="",
        help="a JSON file keeping jedi's answers (references, goto checks) between runs on the same tree: "
        "a re-run after a change to trifecta asks jedi only about callers it has not checked yet",
    )
    ap.add_argument(
        "--jedi-executions",
        type=int,
        default=0,
        help="raise jedi's per-function execution budget (6 by default) to this: its references stop "
        "inferring a function's value after 6 executions in one search (`context = getcontext()` in 80 "
        "functions of _pydecimal), where its goto at each place still does",
    )
    ap.add_argument(
        "--jedi-parse-limit",
        type=int,
        default=0,
        help="raise the number of files jedi's references search parses (30 by default) to this: with "
        "30, a name found in more files than that (`search`, `count`) is searched in the first 30 only, "
        "in folder order, and the calls in the others are missing from its references (its goto at each "
        "still reaches the definition)",
    )
    args = ap.parse_args()
    import jedi

    if args.jedi_executions:
        from jedi.inference import recursion

        recursion.per_function_execution_limit = args.jedi_executions
    if args.jedi_parse_limit:
        from jedi.inference import references

        references._PARSED_FILE_LIMIT = args.jedi_parse_limit  # noqa: SLF001 - jedi has no setting for it

    work, tree, engine = indexed_copy(Path(args.tree), "callers-jedi-")
    project = jedi.Project(
        str(tree), sys_path=[str(tree)], smart_sys_path=False, load_unsafe_extensions=False
    )
    cache_path = Path(args.jedi_cache) if args.jedi_cache else None
    cache: dict[str, Any] = {"refs": {}, "goto": {}}
    if cache_path and cache_path.exists():
        cache = json.loads(cache_path.read_text())
    cache_key = f"{args.tree}|{args.jedi_executions or 6}" + (
        f"|{args.jedi_parse_limit}" if args.jedi_parse_limit else ""
    )
    cache = cache if cache.get("key") == cache_key else {"key": cache_key, "refs": {}, "goto": {}}
    seeds = [int(s) for s in args.seeds.split(",") if s.strip()] or [args.seed]
    results = {}
    for seed in seeds:
        summary, rows = compare(engine, tree, project, args, seed, cache)
        results[seed] = {"summary": summary, "rows": rows}
        if len(seeds) > 1:
            print(f"\nseed {seed}:")
        print("| measure | value | target |\n|---|---|---|")
        targets = {"precision": ">= 0.9", "recall": ">= 0.85", "callers_p95_ms": "< 30"}
        for key, value in summary.items():
            print(f"| {key} | {value} | {targets.get(key, '')} |")
        sys.stdout.flush()
        if cache_path:
            cache_path.write_text(json.dumps(cache))
    engine.close()
    if len(seeds) > 1 and not args.latency_only:
        passed = [
            s
            for s in seeds
            if results[s]["summary"]["precision"] >= 0.9 and results[s]["summary"]["recall"] >= 0.85
        ]
        print(
            "\n| seed | precision | recall | precision goto-checked | recall goto-confirmed | both targets |"
        )
        print("|---|---|---|---|---|---|")
        for s in seeds:
            m = results[s]["summary"]
            print(
                f"| {s} | {m['precision']} | {m['recall']} | {m['precision_goto_checked']} | "
                f"{m['recall_goto_confirmed']} | {'yes' if s in passed else 'no'} |"
            )
        print(f"\nboth targets met on {len(passed)} of {len(seeds)} seeds")
    if args.json:
        out = results[seeds[0]] if len(seeds) == 1 else {str(s): r for s, r in results.items()}
        Path(args.json).write_text(json.dumps(out, indent=1))
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print(f"kept {work}", file=sys.stderr)
    return 0


def compare(
    engine: Any, tree: Path, project: Any, args: Any, seed: int, cache: dict[str, Any]
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """One seed's sample: trifecta's callers and jedi's references of each symbol, and the summary."""
    import jedi

    picked, def_lines, rules = pick_symbols(engine, args.n, seed, every=args.every)
    goto_cache: dict[str, bool] = cache["goto"]
    rows = []
    latencies: list[float] = []
    cold: list[float] = []
    shared = trifecta_n = jedi_n = jedi_calls_n = shared_calls = confirmed_n = shared_confirmed = 0
    shared_or_confirmed = 0
    for path, symbol in picked:
        uri = python_uri(rules, path, symbol)
        t = time.perf_counter()
        engine.callers(uri, limit=args.limit)  # the first ask: files read for their previews
        cold.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()  # the second ask, as an agent's next call on the same code would be
        response = engine.callers(uri, limit=args.limit).to_dict()
        latencies.append((time.perf_counter() - t) * 1000)
        error = response["errors"][0]["code"] if response["status"] != "ok" else ""
        columns = {
            (h["path"], h["line"]): h["column"] - 1
            for h in (
                every_hit(engine, uri, args.limit, response)
                if args.pages
                else (response["data"] or {}).get("hits", [])
            )
            if h["resolution"] in ("exact", "import")
            and ("related" not in h or (args.count_related and h.get("use") != "declaration"))
            # jedi follows no class family
        }
        ours = set(columns)
        if args.latency_only:
            rows.append({"uri": uri, "trifecta": len(ours), "callers_ms": round(latencies[-1], 2)})
            continue
        lines = (tree / path).read_text(errors="replace").split("\n")
        def_line = symbol.def_line
        column = lines[def_line - 1].find(symbol.name, lines[def_line - 1].find("def ") + 4)
        wanted = {(path, line) for line in def_lines.get((path, symbol.qualname), {def_line})}

        def reaches(rel: str, line: int, column: int, wanted: set[tuple[str, int]] = wanted) -> bool:
            key = f"{rel}:{line}:{column}|{'|'.join(f'{p}:{n}' for p, n in sorted(wanted))}"
            if key in goto_cache:
                return goto_cache[key]
            goto_cache[key] = False
            try:
                names = jedi.Script(path=str(tree / rel), project=project).goto(
                    line, column, follow_imports=True
                )
            except Exception:  # noqa: BLE001 - counted as not confirmed
                return False
            for name in names:
                if name.module_path is None or name.line is None:
                    continue
                try:
                    where = Path(name.module_path).resolve().relative_to(tree.resolve()).as_posix()
                except ValueError:
                    continue
                if (where, name.line) in wanted:
                    goto_cache[key] = True
                    return True
            return False

        ref_key = f"{path}:{def_line}:{max(column, 0)}"
        if ref_key not in cache["refs"]:
            t = time.perf_counter()
            try:
                refs = jedi.Script(path=str(tree / path), project=project).get_references(
                    def_line, max(column, 0)
                )
                found = []
                for ref in refs:
                    if ref.module_path is None or ref.is_definition():
                        continue
                    try:
                        rel = Path(ref.module_path).resolve().relative_to(tree.resolve()).as_posix()
                    except ValueError:
                        continue
                    found.append([rel, ref.line, ref.column])
                cache["refs"][ref_key] = {"refs": found, "ms": (time.perf_counter() - t) * 1000}
            except Exception as exc:  # jedi fails on a few files: counted, never fatal
                cache["refs"][ref_key] = {"error": f"jedi: {type(exc).__name__}"}
        answer = cache["refs"][ref_key]
        if "error" in answer:
            rows.append({"uri": uri, "error": answer["error"]})
            continue
        jedi_ms = answer["ms"]
        theirs: set[tuple[str, int]] = set()
        calls: set[tuple[str, int]] = set()
        confirmed: set[tuple[str, int]] = set()
        for rel, ref_line, ref_column in answer["refs"]:
            text = (tree / rel).read_text(errors="replace").split("\n")[ref_line - 1]
            if re.match(r"\s*(from\s+\S+\s+)?import\b", text):
                continue
            theirs.add((rel, ref_line))
            if re.match(r"\s*\(", text[ref_column + len(symbol.name) :]):
                calls.add((rel, ref_line))
            if reaches(rel, ref_line, ref_column):
                confirmed.add((rel, ref_line))
        both = ours & theirs
        extra_confirmed = {
            (rel, line) for rel, line in ours - theirs if reaches(rel, line, columns[(rel, line)])
        }
        shared_or_confirmed += len(both) + len(extra_confirmed)
        shared += len(both)
        trifecta_n += len(ours)
        jedi_n += len(theirs)
        jedi_calls_n += len(calls)
        shared_calls += len(ours & calls)
        confirmed_n += len(confirmed)
        shared_confirmed += len(ours & confirmed)
        rows.append(
            {"uri": uri, "trifecta": len(ours), "jedi": len(theirs), "jedi_calls": len(calls), "shared": len(both),
             "only_trifecta": sorted(ours - theirs), "only_trifecta_goto_confirmed": sorted(extra_confirmed),
             "only_jedi": sorted(theirs - ours),
             "jedi_not_confirmed": sorted(theirs - confirmed),
             "callers_ms": round(latencies[-1], 2), "jedi_ms": round(jedi_ms, 1), **({"error": error} if error else {})}
        )  # fmt: skip
    precision = shared / trifecta_n if trifecta_n else 1.0
    recall = shared / jedi_n if jedi_n else 1.0
    recall_calls = shared_calls / jedi_calls_n if jedi_calls_n else 1.0
    recall_confirmed = shared_confirmed / confirmed_n if confirmed_n else 1.0
    summary = {
        "symbols": len(picked),
        "errors_trifecta": sum(1 for r in rows if "error" in r and not r["error"].startswith("jedi")),
        "errors_jedi": sum(1 for r in rows if r.get("error", "").startswith("jedi")),
        "trifecta_callers": trifecta_n,
        "jedi_references": jedi_n,
        "shared": shared,
        "precision": round(precision, 3),
        "precision_goto_checked": round(shared_or_confirmed / trifecta_n if trifecta_n else 1.0, 3),
        "recall": round(recall, 3),
        "recall_call_sites": round(recall_calls, 3),
        "jedi_references_goto_confirms": confirmed_n,
        "recall_goto_confirmed": round(recall_confirmed, 3),
        "callers_p50_ms": round(statistics.median(latencies), 2) if latencies else 0,
        "callers_p95_ms": round(pct(latencies, 0.95), 2),
        "callers_first_p50_ms": round(statistics.median(cold), 2) if cold else 0,
        "callers_first_p95_ms": round(pct(cold, 0.95), 2),
        "jedi_p50_ms": round(statistics.median([r["jedi_ms"] for r in rows if "jedi_ms" in r] or [0]), 1),
        "jedi_per_function_executions": args.jedi_executions or 6,
        "jedi_parsed_file_limit": args.jedi_parse_limit or 30,
    }
    if args.latency_only:
        summary = {
            k: v for k, v in summary.items() if k == "symbols" or k.startswith(("callers_", "errors_t"))
        }
    return summary, rows


if __name__ == "__main__":
    raise SystemExit(main())
