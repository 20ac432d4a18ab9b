"""AST engine benchmark over the running interpreter's standard library (ast-lsp-dual-engine.md §7.1).

1. Parse time per file (``SourceParser().parse``: ``ast.parse`` plus symbol and chunk extraction), bucketed by
   size: small < 5 KB, medium 5-50 KB, large 50-200 KB (files over 200 KB are reported apart). Targets p95:
   10 / 50 / 200 ms.
2. Resolve + snippet latency (``SnippetUseCase.execute``) on random definitions of an index of the whole
   standard library: cold (a resolver with an empty cache, so the file is read, hashed and its symbols
   loaded from the index), cached (the same call again), and on demand (an empty index, so the file is
   parsed). Target: cached p95 < 5 ms.

    python bench/bench_ast.py [--sample 500] [--seed 7] [--max-files N] [--json]

Everything runs in process; times are wall clock (``time.perf_counter``).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import sysconfig
import tempfile
import time
from collections import Counter
from pathlib import Path

from trifecta.application.index_segment import IndexRequest, IndexSegment
from trifecta.application.zoom_ast import SnippetRequest, SnippetUseCase, SymbolResolver, uri_for_hit
from trifecta.infrastructure.code_parser import SourceParser
from trifecta.infrastructure.file_source import LocalFileSource
from trifecta.infrastructure.sqlite_store import SqliteIndex

KB = 1024
BUCKETS = (("small", 0, 5 * KB, 10.0), ("medium", 5 * KB, 50 * KB, 50.0), ("large", 50 * KB, 200 * KB, 200.0))
OVER = ("over_200KB", 200 * KB, None, None)
CACHED_TARGET_MS = 5.0


def stdlib_files(root: Path, max_files: int | None) -> list[Path]:
    files = sorted(
        p
        for p in root.rglob("*.py")
        if "site-packages" not in p.parts and "__pycache__" not in p.parts and p.is_file()
    )
    return files[:max_files] if max_files else files


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def summary(values: list[float], target: float | None = None) -> dict[str, object]:
    p95 = percentile(values, 95)
    return {
        "n": len(values),
        "p50_ms": round(percentile(values, 50), 3),
        "p95_ms": round(p95, 3),
        "max_ms": round(max(values), 3) if values else float("nan"),
        "mean_ms": round(statistics.fmean(values), 3) if values else float("nan"),
        "target_p95_ms": target,
        "meets_target": None if target is None or not values else p95 < target,
    }


def bench_parse(root: Path, files: list[Path]) -> dict[str, dict[str, object]]:
    parser = SourceParser(workers=1)
    times: dict[str, list[float]] = {name: [] for name, *_ in (*BUCKETS, OVER)}
    errors = 0
    for path in files:
        data = path.read_bytes()
        text = data.decode("utf-8", errors="replace")
        rel = path.relative_to(root).as_posix()
        started = time.perf_counter()
        parsed = parser.parse(rel, text)
        elapsed = (time.perf_counter() - started) * 1000
        errors += bool(parsed.error)
        size = len(data)
        for name, low, high, _target in (*BUCKETS, OVER):
            if size >= low and (high is None or size < high):
                times[name].append(elapsed)
                break
    out = {name: summary(times[name], target) for name, _low, _high, target in (*BUCKETS, OVER)}
    out["_all"] = {"files": len(files), "parse_errors": errors}
    return out


def pick_definitions(store: SqliteIndex, sample: int, seed: int) -> list[str]:
    per_file: dict[str, Counter[str]] = {}
    rows = list(store.all_symbols())
    for path, symbol in rows:
        per_file.setdefault(path, Counter())[symbol.qualname] += 1
    uris = []
    for path, symbol in rows:
        if per_file[path][symbol.qualname] != 1:
            continue
        uri = uri_for_hit(path, symbol.qualname, "python")
        if uri is not None:
            uris.append(uri)
    random.Random(seed).shuffle(uris)
    return uris[:sample]


def bench_snippets(root: Path, sample: int, seed: int) -> dict[str, object]:
    source = LocalFileSource(root)
    with tempfile.TemporaryDirectory() as tmp:
        store = SqliteIndex(Path(tmp) / "index.db")
        empty = SqliteIndex(Path(tmp) / "empty.db")
        started = time.perf_counter()
        report = IndexSegment(
            source=source, parser=SourceParser(), writer=store, clock=lambda: "bench"
        ).execute(IndexRequest())
        index_seconds = time.perf_counter() - started
        uris = pick_definitions(store, sample, seed)
        parser = SourceParser(workers=1)

        cold: list[float] = []
        cached: list[float] = []
        on_demand: list[float] = []
        failures: Counter[str] = Counter()
        truncated = 0
        shared = SnippetUseCase(SymbolResolver(reader=store, source=source, parser=parser))
        for uri in uris:
            fresh = SnippetUseCase(SymbolResolver(reader=store, source=source, parser=parser))
            t0 = time.perf_counter()
            response = fresh.execute(SnippetRequest(uri=uri))
            cold.append((time.perf_counter() - t0) * 1000)
            if not response.ok:
                failures[response.errors[0].code.value] += 1
                continue
            truncated += bool(response.data["truncated"])
            shared.execute(SnippetRequest(uri=uri))  # warm the shared cache for this file
            t0 = time.perf_counter()
            shared.execute(SnippetRequest(uri=uri))
            cached.append((time.perf_counter() - t0) * 1000)
            unindexed = SnippetUseCase(SymbolResolver(reader=empty, source=source, parser=parser))
            t0 = time.perf_counter()
            unindexed.execute(SnippetRequest(uri=uri))
            on_demand.append((time.perf_counter() - t0) * 1000)
        store.close()
        empty.close()
    return {
        "index": {
            "files": report.files_seen,
            "symbols": report.symbols_added,
            "parse_errors": report.parse_errors,
            "seconds": round(index_seconds, 2),
        },
        "definitions": len(uris),
        "failures": dict(failures),
        "truncated": truncated,
        "cold": summary(cold),
        "cached": summary(cached, CACHED_TARGET_MS),
        "on_demand": summary(on_demand),
    }


def render(result: dict[str, object]) -> str:
    out = [f"standard library: {result['stdlib']}  (Python {result['python']})", ""]
    parse = result["parse"]
    assert isinstance(parse, dict)
    out.append(f"parse ({parse['_all']['files']} files, {parse['_all']['parse_errors']} with errors)")
    out.append(f"  {'bucket':<12}{'files':>7}{'p50 ms':>10}{'p95 ms':>10}{'max ms':>10}{'target':>10}  ok")
    for name, *_rest in (*BUCKETS, OVER):
        row = parse[name]
        target = f"< {row['target_p95_ms']:g}" if row["target_p95_ms"] else "-"
        ok = {True: "yes", False: "NO", None: "-"}[row["meets_target"]]
        out.append(
            f"  {name:<12}{row['n']:>7}{row['p50_ms']:>10.2f}{row['p95_ms']:>10.2f}{row['max_ms']:>10.2f}"
            f"{target:>10}  {ok}"
        )
    snip = result["snippet"]
    assert isinstance(snip, dict)
    idx = snip["index"]
    out += [
        "",
        f"index: {idx['files']} files, {idx['symbols']} symbols, {idx['parse_errors']} parse errors, "
        f"{idx['seconds']} s",
        f"resolve + snippet ({snip['definitions']} definitions, failures {snip['failures'] or 'none'}, "
        f"{snip['truncated']} truncated)",
        f"  {'mode':<12}{'n':>7}{'p50 ms':>10}{'p95 ms':>10}{'max ms':>10}{'target':>10}  ok",
    ]
    for mode in ("cold", "cached", "on_demand"):
        row = snip[mode]
        target = f"< {row['target_p95_ms']:g}" if row["target_p95_ms"] else "-"
        ok = {True: "yes", False: "NO", None: "-"}[row["meets_target"]]
        out.append(
            f"  {mode:<12}{row['n']:>7}{row['p50_ms']:>10.2f}{row['p95_ms']:>10.2f}{row['max_ms']:>10.2f}"
            f"{target:>10}  {ok}"
        )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sample", type=int, default=500, help="definitions to resolve (default 500)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--max-files", type=int, default=None, help="parse only the first N files (quick runs)")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    args = ap.parse_args(argv)

    root = Path(sysconfig.get_paths()["stdlib"])
    result: dict[str, object] = {
        "stdlib": str(root),
        "python": sys.version.split()[0],
        "parse": bench_parse(root, stdlib_files(root, args.max_files)),
        "snippet": bench_snippets(root, args.sample, args.seed),
    }
    print(json.dumps(result, indent=2) if args.json else render(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
