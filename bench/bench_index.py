"""Benchmark Trifecta's indexer and search over the CPython standard library (or any --tree).

One run, one copy of the tree, every figure measured on that same copy:

  1. full index (fresh database in a temp dir, in a subprocess: time, peak RSS, database size, counts)
  2. no-change refresh and one-file-change refresh (in process, and `trifecta index` wall time)
  3. baselines: a single process that only reads + `ast.parse`s every Python file the indexer would
     index (the target: the full index must take no longer), `ctags -R`, and `rg` look-ups
  4. in-process search latency, p50/p95 over ~60 varied queries (3 timed runs each after a warm-up)
  5. CLI wall time of `trifecta ctx search --json` (a new process per query)

    python bench/bench_index.py                    # the stdlib of this interpreter, a few minutes
    python bench/bench_index.py --quick            # email/, json/, asyncio/ only: a smoke run
    python bench/bench_index.py --tree ~/src/repo --json bench/results/repo.json

Prints a markdown table (figure | Trifecta | baseline / target) on stdout, progress on stderr.
Nothing is written into the measured tree: the copy and the database live in a temp dir, removed at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

QUICK_SUBDIRS = ("email", "json", "asyncio")
TOUCH_CANDIDATES = ("json/decoder.py", "csv.py", "email/utils.py")
MB = 1024 * 1024

# Targets on a 2-core machine.
TARGET_REFRESH_S = 0.5
TARGET_SEARCH_P95_MS = 20.0
TARGET_CLI_P50_MS = 300.0
TARGET_RSS_MB = 400.0

SEARCH_QUERIES: tuple[str, ...] = (
    # natural-language questions
    "how does the csv sniffer detect the delimiter",
    "where are HTTP headers parsed",
    "how is a subprocess command line quoted on windows",
    "how does json decode a string with escapes",
    "where does the logging module rotate files",
    "how are email messages serialized to bytes",
    "how does asyncio schedule a callback",
    "where is the tls certificate verified",
    "how does shutil copy a directory tree",
    "how is the central directory of a zip file read",
    "where does argparse format the help message",
    "how does pickle handle recursive objects",
    "how does the decimal module round numbers",
    "where is the temporary directory chosen from environment variables",
    "how does unittest discover test modules",
    "how is a url split into its components",
    "how does gzip write the file header",
    "what happens when a thread pool executor shuts down",
    "how are dataclass fields ordered",
    "which tests cover the json encoder",
    # identifiers and dotted names
    "list2cmdline",
    "HTTPConnection request",
    "parse_header",
    "Sniffer",
    "JSONDecoder",
    "scanstring",
    "ThreadPoolExecutor",
    "urlsplit",
    "copytree",
    "RotatingFileHandler",
    "getaddrinfo",
    "namedtuple",
    "lru_cache",
    "SSLContext.wrap_socket",
    "ArgumentParser.add_argument",
    "_make_iterencode",
    "TemporaryDirectory cleanup",
    "asyncio.gather",
    "ZipFile.extractall",
    "message_from_bytes",
    # other languages
    "¿dónde se valida la entrada?",
    "¿cómo se analiza la cabecera http?",
    "cómo se comprime un archivo con gzip",
    "dónde se leen las variables de entorno",
    "wie wird json dekodiert",
    "如何解析 URL",
    # punctuation and hostile strings
    "",
    "   \t  ",
    "'; DROP TABLE chunks; --",
    '"unbalanced quote',
    "a AND OR NOT",
    "NEAR(foo bar",
    "*",
    "foo* OR bar^2",
    "(((",
    "\x00null\x00byte",
    "x" * 2000,
    "🐍🐍🐍 python",
    "body:secret path:/etc",
    "def f(x): return x**2 if x else -1  # {}[]<>|&;$`\\",
    "../../../etc/passwd",
    "%s %d {0} {name} $HOME",
)

CLI_QUERIES: tuple[str, ...] = (
    "how does the csv sniffer detect the delimiter",
    "list2cmdline",
    "HTTPConnection request",
    "where does the logging module rotate files",
    "urlsplit",
)

RG_QUERIES: tuple[str, ...] = (
    "def parse_header",
    "list2cmdline",
    "HTTPConnection",
    "class Sniffer",
    "lru_cache",
)

# Child processes: each prints one JSON line with its own figures, so its peak RSS is its own.
PARSE_ONLY_CHILD = r"""
import ast, json, resource, sys, time, warnings
warnings.simplefilter("ignore")
paths = open(sys.argv[1], encoding="utf-8").read().splitlines()
t0 = time.perf_counter()
parsed = errors = nbytes = 0
for p in paths:
    data = open(p, "rb").read()
    nbytes += len(data)
    try:
        ast.parse(data, filename=p)
        parsed += 1
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        errors += 1
seconds = time.perf_counter() - t0
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"seconds": seconds, "files": len(paths), "parsed": parsed, "errors": errors,
                  "bytes": nbytes, "maxrss_kb": rss}))
"""

INDEX_CHILD = r"""
import json, resource, sys, threading, time
t0 = time.perf_counter()
import trifecta
import trifecta.interfaces.facade  # trifecta.open imports lazily: time the imports apart from open
t1 = time.perf_counter()
args = json.loads(sys.argv[1])
options = {"db_path": args["db"]}
if args["workers"]:
    options["workers"] = args["workers"]
engine = trifecta.open(args["tree"], **options)
t2 = time.perf_counter()
cpu0 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
report = engine.index(full=True)
t3 = time.perf_counter()
for thread in threading.enumerate():  # the parser workers exit while the index finishes: count their CPU
    if thread.name == "trifecta-parse-exit":
        thread.join()
cpu1 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = [b.ru_utime + b.ru_stime - a.ru_utime - a.ru_stime for a, b in zip(cpu0, cpu1)]
status = engine.status().to_dict()["data"]
engine.close()
self_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
kids_rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({
    "child_s": time.perf_counter() - t0,
    "import_s": t1 - t0, "open_s": t2 - t1, "index_s": t3 - t2, "report_seconds": report.seconds,
    "searchable_s": report.searchable_seconds, "substring_index_s": report.substring_index_seconds,
    "files_seen": report.files_seen, "files_indexed": report.files_indexed,
    "symbols_added": report.symbols_added, "parse_errors": report.parse_errors, "skipped": report.skipped,
    "status": status, "maxrss_kb": self_rss, "workers_maxrss_kb": kids_rss,
    "index_cpu_s": cpu[0], "workers_cpu_s": cpu[1],  # CPU seconds of engine.index: its process, its workers
}))
"""


def log(message: str) -> None:
    print(f"[bench] {message}", file=sys.stderr, flush=True)


def pct(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100), linear interpolation between closest ranks."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    pos = (len(ordered) - 1) * q / 100.0
    low = int(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    t = time.perf_counter()
    result = fn()
    return time.perf_counter() - t, result


def run_json(cmd: Sequence[str], env: dict[str, str] | None = None) -> tuple[float, dict[str, Any]]:
    """Run a child that prints one JSON line; returns (wall seconds, parsed JSON)."""
    t = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t
    if proc.returncode != 0:
        raise RuntimeError(f"{cmd[:3]} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return wall, json.loads(proc.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------------------------------------- setup
def default_tree() -> Path:
    return Path(sysconfig.get_paths()["stdlib"])


def copy_tree(src: Path, dest: Path, quick: bool) -> None:
    ignore = shutil.ignore_patterns("site-packages", "__pycache__")
    if not quick:
        shutil.copytree(src, dest, ignore=ignore, symlinks=True)
        return
    dest.mkdir(parents=True)
    found = [name for name in QUICK_SUBDIRS if (src / name).is_dir()]
    if not found:
        log(f"--quick: none of {QUICK_SUBDIRS} under {src}; copying the whole tree")
        shutil.rmtree(dest)
        shutil.copytree(src, dest, ignore=ignore, symlinks=True)
        return
    for name in found:
        shutil.copytree(src / name, dest / name, ignore=ignore, symlinks=True)


def indexed_files(tree: Path) -> tuple[list[tuple[str, int]], list[str]]:
    """(every file the indexer would index with its size, the Python ones) using the indexer's own listing."""
    from trifecta.infrastructure.code_parser import language_of
    from trifecta.infrastructure.file_source import LocalFileSource

    scan = LocalFileSource(tree).scan()
    files = [(f.path, f.size) for f in scan.files if language_of(f.path) is not None]
    python = [path for path, _ in files if language_of(path) == "python"]
    return files, python


def pick_touch_file(tree: Path, python: list[str]) -> str:
    for rel in TOUCH_CANDIDATES:
        if rel in python:
            return rel
    return python[len(python) // 2]


# ---------------------------------------------------------------------------------------------- phases
def bench_parse_only(tree: Path, python: list[str], workdir: Path) -> dict[str, Any]:
    listing = workdir / "python-files.txt"
    listing.write_text("\n".join(str(tree / p) for p in python), encoding="utf-8")
    wall, out = run_json([sys.executable, "-c", PARSE_ONLY_CHILD, str(listing)])
    out["wall_s"] = wall
    return out


def bench_full_index(tree: Path, db: Path, workers: int | None) -> dict[str, Any]:
    args = json.dumps({"tree": str(tree), "db": str(db), "workers": workers})
    wall, out = run_json([sys.executable, "-c", INDEX_CHILD, args])
    out["wall_s"] = wall
    out["db_bytes_after_close"] = sum(
        os.path.getsize(f"{db}{s}") for s in ("", "-wal") if os.path.exists(f"{db}{s}")
    )
    return out


def bench_nochange(engine: Any, repeats: int) -> dict[str, Any]:
    walls: list[float] = []
    indexed: list[int] = []
    for _ in range(repeats):
        seconds, report = timed(engine.index)
        walls.append(seconds)
        indexed.append(report.files_indexed)
    return {"walls_s": walls, "p50_s": statistics.median(walls), "files_indexed": indexed}


def bench_onefile(engine: Any, tree: Path, touch: str, repeats: int) -> dict[str, Any]:
    """Append a comment line to one file, refresh; on a failed refresh put the file back as the index has it,
    so later searches (which refresh first) are not measured against a failing refresh."""
    walls: list[float] = []
    indexed: list[int] = []
    target = tree / touch
    for i in range(repeats):
        before, st = target.read_bytes(), target.stat()
        target.write_bytes(before + f"\n# trifecta bench touch {i}\n".encode())
        try:
            seconds, report = timed(engine.index)
        except BaseException:
            target.write_bytes(before)
            os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))
            raise
        walls.append(seconds)
        indexed.append(report.files_indexed)
    return {"path": touch, "walls_s": walls, "p50_s": statistics.median(walls), "files_indexed": indexed}


def attempt(results: dict[str, Any], key: str, fn: Callable[[], dict[str, Any]]) -> None:
    """Run one phase; a failure is recorded (and shown in the table) instead of ending the benchmark."""
    log(f"phase: {key}")
    try:
        results[key] = fn()
    except Exception as exc:
        message = f"{type(exc).__name__}: {exc}"
        log(f"  {key} FAILED: {message}")
        results[key] = {"error": message}


def bench_cli_index(trifecta_cmd: list[str], tree: Path, db: Path, repeats: int) -> dict[str, Any]:
    env = dict(os.environ, TRIFECTA_DB=str(db))
    walls = []
    for _ in range(repeats):
        t = time.perf_counter()
        proc = subprocess.run([*trifecta_cmd, "index", str(tree)], capture_output=True, text=True, env=env)
        walls.append(time.perf_counter() - t)
        if proc.returncode != 0:
            raise RuntimeError(f"trifecta index failed ({proc.returncode}): {proc.stderr[-1000:]}")
    return {"walls_s": walls, "p50_s": statistics.median(walls)}


def bench_search(engine: Any, queries: Sequence[str], runs: int) -> dict[str, Any]:
    timings: list[float] = []
    per_query: list[dict[str, Any]] = []
    internal_errors: list[str] = []
    for query in queries:
        warm = engine.search(query, limit=10).to_dict()
        mine = []
        for _ in range(runs):
            seconds, response = timed(lambda q=query: engine.search(q, limit=10).to_dict())
            mine.append(seconds)
        timings.extend(mine)
        ok = warm.get("status") == "ok"
        errors = warm.get("errors") or []
        code = errors[0].get("code") if errors else None
        if code == "INTERNAL_ERROR":
            internal_errors.append(query[:60])
        hits = (warm.get("data") or {}).get("hits") or []
        per_query.append(
            {
                "query": query[:80],
                "p50_ms": statistics.median(mine) * 1000,
                "max_ms": max(mine) * 1000,
                "ok": ok,
                "error_code": code,
                "hits": len(hits),
                "top": f"{hits[0]['path']}:{hits[0]['start_line']}" if hits else None,
            }
        )
    ms = [t * 1000 for t in timings]
    return {
        "queries": len(queries),
        "calls": len(ms),
        "p50_ms": pct(ms, 50),
        "p95_ms": pct(ms, 95),
        "max_ms": max(ms),
        "per_query": per_query,
        "internal_errors": internal_errors,
        "zero_hit_queries": sum(1 for q in per_query if q["ok"] and q["hits"] == 0),
        "error_envelopes": sum(1 for q in per_query if q["error_code"]),
    }


def bench_cli_search(trifecta_cmd: list[str], tree: Path, db: Path, runs: int) -> dict[str, Any]:
    env = dict(os.environ, TRIFECTA_DB=str(db))
    walls: list[float] = []
    failures: list[str] = []
    zero_hits = 0
    for i in range(runs + 1):
        query = CLI_QUERIES[i % len(CLI_QUERIES)]
        cmd = [*trifecta_cmd, "ctx", "search", "--segment", str(tree), "--query", query, "--json"]
        t = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
        wall = time.perf_counter() - t
        try:
            envelope = json.loads(proc.stdout)
            good = proc.returncode == 0 and envelope.get("status") == "ok"
            zero_hits += good and not envelope.get("data", {}).get("hits")
        except (json.JSONDecodeError, AttributeError):
            good = False
        if not good:
            failures.append(f"{query!r}: rc={proc.returncode} {proc.stderr[-300:]}")
        if i > 0:  # the first run warms the page cache and Python's bytecode cache
            walls.append(wall)
    return {
        "runs": len(walls),
        "walls_s": walls,
        "p50_s": statistics.median(walls),
        "failures": failures,
        "zero_hit_runs": zero_hits,
    }


def bench_ctags(tree: Path, workdir: Path) -> dict[str, Any]:
    ctags = shutil.which("ctags")
    if ctags is None:
        return {"available": False, "install": "apt-get install universal-ctags"}
    version = subprocess.run([ctags, "--version"], capture_output=True, text=True).stdout.splitlines()[:1]
    if not version or "Universal" not in version[0]:
        return {"available": False, "install": "apt-get install universal-ctags", "found": version}
    tags = workdir / "tags"
    cmd = [ctags, "-R", "--languages=Python", "-f", str(tags), str(tree)]
    seconds, proc = timed(lambda: subprocess.run(cmd, capture_output=True, text=True))
    if proc.returncode != 0:
        return {"available": True, "error": proc.stderr[-1000:]}
    with open(tags, encoding="utf-8", errors="replace") as fh:
        n_tags = sum(1 for line in fh if not line.startswith("!_"))
    return {"available": True, "version": version[0], "seconds": seconds, "tags": n_tags}


def bench_rg(tree: Path, repeats: int) -> dict[str, Any]:
    rg = shutil.which("rg")
    if rg is None:
        return {"available": False, "install": "pip install ripgrep==14.1.0"}
    per_query: dict[str, float] = {}
    matches: dict[str, int] = {}
    for query in RG_QUERIES:
        walls = []
        for i in range(repeats + 1):
            seconds, proc = timed(
                lambda q=query: subprocess.run([rg, "-n", "-i", q, str(tree)], capture_output=True)
            )
            if i > 0:
                walls.append(seconds)
        per_query[query] = statistics.median(walls)
        matches[query] = proc.stdout.count(b"\n")
    return {
        "available": True,
        "per_query_p50_s": per_query,
        "matches": matches,
        "p50_s": statistics.median(per_query.values()),
    }


# ---------------------------------------------------------------------------------------------- report
def fmt_s(seconds: float | None) -> str:
    if seconds is None:
        return "n/a"
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.2f} s"


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def table(r: dict[str, Any]) -> str:
    rows: list[tuple[str, str, str]] = []

    def failed(*keys: str) -> str | None:
        for key in keys:
            phase = r.get(key)
            if phase is None:
                return f"{key}: not run"
            if "error" in phase:
                return f"{key}: {phase['error'].splitlines()[0][:160]}"
        return None

    def row(label: str, keys: Sequence[str], cells: Callable[[], tuple[str, str]]) -> None:
        problem = failed(*keys)
        rows.append((label, "FAILED", problem) if problem else (label, *cells()))

    def parse_cell(fmt: Callable[[dict[str, Any]], str]) -> str:
        return fmt(r["parse_only"]) if not failed("parse_only") else "parse-only: failed"

    def target_cell(value: float, target: float, text: str) -> str:
        return f"{text}: {verdict(value < target)}"

    full = r.get("full_index", {})
    ctags, rg = r.get("ctags", {}), r.get("rg", {})
    if ctags.get("seconds") is not None:
        ctags_time, ctags_tags = (
            f"ctags -R --languages=Python: {fmt_s(ctags['seconds'])}",
            f"{ctags['tags']:,}",
        )
    else:
        reason = ctags.get("install") or ctags.get("error", "failed")
        ctags_time, ctags_tags = f"ctags: n/a ({reason})", "n/a"
    if rg.get("available"):
        rg_cell = f"rg -n -i, p50 over {len(RG_QUERIES)} patterns: {fmt_s(rg['p50_s'])}"
    else:
        rg_cell = f"rg: n/a ({rg.get('install') or rg.get('error', 'failed')})"

    row(
        "Files indexed (all languages)",
        ["full_index"],
        lambda: (
            f"{full['files_indexed']:,} ({r['tree_files_python']:,} Python, {r['tree_bytes'] / MB:.1f} MB)",
            parse_cell(lambda p: f"parse-only: {p['files']:,} Python files ({p['errors']} syntax errors)"),
        ),
    )
    row(
        "Symbols / chunks",
        ["full_index"],
        lambda: (
            f"{full['status']['symbols']:,} / {full['status']['chunks']:,} "
            f"({full['parse_errors']} Python files indexed as text)",
            f"ctags tags: {ctags_tags}",
        ),
    )
    row(
        "Full index, `engine.index()`",
        ["full_index"],
        lambda: (
            f"{fmt_s(full['index_s'])} ({r['workers_label']})",
            parse_cell(
                lambda p: (
                    f"<= parse-only {fmt_s(p['seconds'])} (1 process, read + ast.parse): "
                    f"{verdict(full['index_s'] <= p['seconds'])}"
                )
            ),
        ),
    )
    row(
        "  of which: searchable (every file committed, all modes answer)",
        ["full_index"],
        lambda: (
            fmt_s(full["searchable_s"]),
            parse_cell(
                lambda p: (
                    f"<= parse-only {fmt_s(p['seconds'])}: {verdict(full['searchable_s'] <= p['seconds'])}"
                )
            ),
        ),
    )
    row(
        "  of which: trigram accelerator built after that",
        ["full_index"],
        lambda: (fmt_s(full["substring_index_s"]), "pattern look-ups scan until it is built"),
    )
    row(
        "Full index, process wall (start + import + index + close)",
        ["full_index"],
        lambda: (fmt_s(full["wall_s"]), ctags_time),
    )
    row(
        "Database size (db + wal after close)",
        ["full_index"],
        lambda: (
            f"{full['db_bytes_after_close'] / MB:.1f} MB",
            f"{full['db_bytes_after_close'] / max(r['tree_bytes'], 1):.2f}x the indexed source bytes",
        ),
    )
    row(
        "No-change refresh, `engine.index()` p50",
        ["refresh_nochange"],
        lambda: (
            fmt_s(r["refresh_nochange"]["p50_s"]),
            target_cell(r["refresh_nochange"]["p50_s"], TARGET_REFRESH_S, f"< {fmt_s(TARGET_REFRESH_S)}"),
        ),
    )
    row(
        "No-change refresh, `trifecta index` wall p50",
        ["cli_index"],
        lambda: (fmt_s(r["cli_index"]["p50_s"]), "- (new process: start-up + imports + scan)"),
    )
    touched = r.get("touch_file", "?")
    row(
        f"One-file-change refresh p50 (`{touched}`)",
        ["refresh_onefile"],
        lambda: (
            fmt_s(r["refresh_onefile"]["p50_s"]),
            target_cell(
                r["refresh_onefile"]["p50_s"], TARGET_REFRESH_S, f"< {fmt_s(TARGET_REFRESH_S)} (same)"
            ),
        ),
    )
    search = r.get("search", {})
    row(
        f"Search in process p50 / p95 ({len(SEARCH_QUERIES)} queries x {r['search_runs']}), "
        "freshness checked on every call (library default)",
        ["search"],
        lambda: (
            f"{search['p50_ms']:.1f} / {search['p95_ms']:.1f} ms",
            target_cell(search["p95_ms"], TARGET_SEARCH_P95_MS, f"p95 < {TARGET_SEARCH_P95_MS:.0f} ms")
            + f"; {rg_cell}",
        ),
    )
    search_iv = r.get("search_interval", {})
    row(
        "Search in process p50 / p95, freshness checked at most once a second (MCP server default)",
        ["search_interval"],
        lambda: (
            f"{search_iv['p50_ms']:.1f} / {search_iv['p95_ms']:.1f} ms",
            target_cell(search_iv["p95_ms"], TARGET_SEARCH_P95_MS, f"p95 < {TARGET_SEARCH_P95_MS:.0f} ms"),
        ),
    )
    search_nr = r.get("search_no_autorefresh", {})
    row(
        "Search in process p50 / p95, auto_refresh off",
        ["search_no_autorefresh"],
        lambda: (
            f"{search_nr['p50_ms']:.1f} / {search_nr['p95_ms']:.1f} ms",
            target_cell(search_nr["p95_ms"], TARGET_SEARCH_P95_MS, f"p95 < {TARGET_SEARCH_P95_MS:.0f} ms"),
        ),
    )
    cli = r.get("cli_search", {})
    row(
        f"CLI `trifecta ctx search --json` wall p50 ({cli.get('runs', 0)} runs)",
        ["cli_search"],
        lambda: (
            fmt_s(cli["p50_s"]),
            target_cell(cli["p50_s"] * 1000, TARGET_CLI_P50_MS, f"< {TARGET_CLI_P50_MS:.0f} ms"),
        ),
    )
    row(
        "Peak RSS, indexing process",
        ["full_index"],
        lambda: (
            f"{full['maxrss_kb'] / 1024:.0f} MB",
            target_cell(full["maxrss_kb"] / 1024, TARGET_RSS_MB, f"< {TARGET_RSS_MB:.0f} MB")
            + parse_cell(lambda p: f"; parse-only process: {p['maxrss_kb'] / 1024:.0f} MB"),
        ),
    )
    row(
        "Peak RSS, largest parser worker",
        ["full_index"],
        lambda: (f"{full['workers_maxrss_kb'] / 1024:.0f} MB", "-"),
    )

    lines = ["| figure | Trifecta | baseline / target |", "| --- | --- | --- |"]
    lines += [f"| {a} | {b} | {c.replace('|', '/')} |" for a, b, c in rows]
    return "\n".join(lines)


def notes(r: dict[str, Any]) -> str:
    out = [""]
    full = r.get("full_index", {})
    if "index_s" in full:
        out.append(
            f"- Full index process: interpreter start-up {fmt_s(full['wall_s'] - full['child_s'])}, "
            f"imports {fmt_s(full['import_s'])}, open {fmt_s(full['open_s'])}, index {fmt_s(full['index_s'])}, "
            f"status + close {fmt_s(full['child_s'] - full['import_s'] - full['open_s'] - full['index_s'])}; "
            f"files skipped by kind: {full['skipped']}"
        )
    for key in ("refresh_nochange", "refresh_onefile"):
        if "files_indexed" in r.get(key, {}):
            out.append(f"- {key}: files re-indexed per run {r[key]['files_indexed']}")
    for key in ("search", "search_interval", "search_no_autorefresh"):
        search = r.get(key, {})
        if "per_query" not in search:
            continue
        slow = sorted(search["per_query"], key=lambda q: -q["p50_ms"])[:4]
        out.append(
            f"- {key}: {search['error_envelopes']} error envelopes (expected for the 2 empty queries), "
            f"{len(search['internal_errors'])} INTERNAL_ERROR, {search['zero_hit_queries']} ok queries with 0 hits; "
            "slowest p50: " + ", ".join(f"{q['query'][:32]!r} {q['p50_ms']:.1f} ms" for q in slow)
        )
        if search["internal_errors"]:
            out.append(f"  - INTERNAL_ERROR on: {search['internal_errors'][:5]}")
    if r.get("cli_search", {}).get("failures"):
        out.append(f"- CLI search failures: {r['cli_search']['failures'][:3]}")
    for key, phase in r.items():
        if isinstance(phase, dict) and "error" in phase:
            out.append(f"- FAILED {key}: {phase['error'][:600]}")
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------- main
def trifecta_command() -> list[str]:
    """The console script installed beside this interpreter (not a version-manager shim found on PATH,
    which can add 100 ms to each call), else the one on PATH, else `python -m`."""
    beside = Path(sys.executable).parent / "trifecta"
    if beside.is_file() and os.access(beside, os.X_OK):
        return [str(beside)]
    exe = shutil.which("trifecta")
    return [exe] if exe else [sys.executable, "-m", "trifecta.interfaces.cli.main"]


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", type=Path, default=None, help="the folder to benchmark (default: the stdlib)")
    ap.add_argument("--quick", action="store_true", help=f"only {', '.join(QUICK_SUBDIRS)} of the tree")
    ap.add_argument("--json", dest="json_path", type=Path, default=None, help="write the raw numbers here")
    ap.add_argument("--workers", type=int, default=None, help="parser processes (default: Trifecta's)")
    ap.add_argument("--search-runs", type=int, default=3, help="timed runs per query after one warm-up")
    ap.add_argument("--cli-runs", type=int, default=10, help="CLI search runs (after one warm-up)")
    ap.add_argument("--refresh-runs", type=int, default=3, help="repeats of each refresh measurement")
    ap.add_argument("--keep", action="store_true", help="keep the temp dir (its path goes to stderr)")
    args = ap.parse_args(argv)

    src = (args.tree or default_tree()).expanduser().resolve()
    if not src.is_dir():
        ap.error(f"--tree {src} is not a directory")
    workdir = Path(tempfile.mkdtemp(prefix="trifecta-bench-"))
    tree, db = workdir / "tree", workdir / "db" / "index.db"
    db.parent.mkdir()
    workers = args.workers or max(1, min(4, os.cpu_count() or 1))
    results: dict[str, Any] = {
        "source_tree": str(src),
        "quick": args.quick,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "workers_label": f"{workers} worker{'s' if workers != 1 else ''}",
        "search_runs": args.search_runs,
        "loadavg_start": os.getloadavg(),
    }
    options: dict[str, Any] = {"db_path": str(db)}
    if args.workers:
        options["workers"] = args.workers
    try:
        import trifecta

        log(f"copying {src} -> {tree}{' (quick subset)' if args.quick else ''}")
        results["copy_s"], _ = timed(lambda: copy_tree(src, tree, args.quick))
        files, python = indexed_files(tree)
        if not python:
            raise SystemExit(f"no Python file to index under {src}")
        results["tree_files"] = len(files)
        results["tree_files_python"] = len(python)
        results["tree_bytes"] = sum(size for _, size in files)
        results["touch_file"] = pick_touch_file(tree, python)
        log(f"{len(files)} files the indexer would index, {len(python)} Python")

        attempt(results, "parse_only", lambda: bench_parse_only(tree, python, workdir))
        attempt(results, "full_index", lambda: bench_full_index(tree, db, args.workers))
        attempt(results, "ctags", lambda: bench_ctags(tree, workdir))
        attempt(results, "rg", lambda: bench_rg(tree, repeats=5))

        engine = trifecta.open(str(tree), **options)
        try:
            attempt(results, "refresh_nochange", lambda: bench_nochange(engine, args.refresh_runs))
            attempt(
                results,
                "refresh_onefile",
                lambda: bench_onefile(engine, tree, results["touch_file"], args.refresh_runs),
            )
            attempt(results, "search", lambda: bench_search(engine, SEARCH_QUERIES, args.search_runs))
        finally:
            engine.close()
        engine = trifecta.open(str(tree), refresh_interval=1.0, **options)  # as `trifecta mcp` runs
        try:
            attempt(
                results,
                "search_interval",
                lambda: bench_search(engine, SEARCH_QUERIES, args.search_runs),
            )
        finally:
            engine.close()
        engine = trifecta.open(str(tree), auto_refresh=False, **options)
        try:
            attempt(
                results,
                "search_no_autorefresh",
                lambda: bench_search(engine, SEARCH_QUERIES, args.search_runs),
            )
        finally:
            engine.close()

        cmd = trifecta_command()
        results["cli_command"] = cmd
        attempt(results, "cli_index", lambda: bench_cli_index(cmd, tree, db, args.refresh_runs))
        attempt(results, "cli_search", lambda: bench_cli_search(cmd, tree, db, args.cli_runs))
    finally:
        if args.keep:
            log(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)

    results["loadavg_end"] = os.getloadavg()
    label = "quick subset of " if args.quick else ""
    load = "/".join(f"{x:.1f}" for x in results["loadavg_start"][:1] + results["loadavg_end"][:1])
    print(
        f"Trifecta index benchmark: {label}`{src}` (copy), Python {results['python']}, "
        f"{results['cpus']} CPUs, load average at start/end {load}, {results['platform']}\n"
    )
    print(table(results))
    print(notes(results))
    if args.json_path:
        args.json_path.parent.mkdir(parents=True, exist_ok=True)
        args.json_path.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        log(f"raw numbers -> {args.json_path}")
    failures = [k for k, v in results.items() if isinstance(v, dict) and "error" in v]
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
