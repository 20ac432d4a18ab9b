"""Benchmark Trifecta's indexer and search on a large real tree per language (Go, Rust, TypeScript, JavaScript).

For each tree, in one run and on one copy of it:

  1. parse-only: a single process that reads every file the indexer would index and calls the parser Trifecta
     uses on it (`SourceParser(workers=1).parse`): no hashing, no storage, no parallelism
  2. full index: `engine.index(full=True)` on a fresh database, in a child process, with `--workers` parser
     processes (default 2: the target is set on a 2-core machine); its peak RSS and its largest worker's
  3. the ratio full index / parse-only (target: at most 1.5)
  4. files, symbols, chunks and parse errors
  5. search p50/p95 over ~20 realistic questions and identifiers about that project (target: p95 < 20 ms),
     with the library's default freshness check on every call and with auto_refresh off
  6. `ctags -R --languages=L` on the same tree, when Universal Ctags is installed (a reference, not a target)
  7. refresh: `engine.index()` in a new process on the built index (its first run checks the file), then p50
     of a refresh with nothing changed and of one after a comment line is appended to one file

The trees are fetched once, pinned by version, from npm (`npm pack`) and Debian (`apt-get download`, after
`apt-get update` if the package is not found) into --corpora, keeping only each language's source files:

    python bench/bench_polyglot.py                       # fetch what is missing, measure every tree
    python bench/bench_polyglot.py --only go-x-tools     # one tree
    python bench/bench_polyglot.py --fetch-only          # fill the cache, measure nothing
    python bench/bench_polyglot.py --profile rust-tokio  # also cProfile the parse-only pass and the index

Writes bench/results/polyglot.json (raw numbers) and bench/results/polyglot.md (the table and notes), prints the
table on stdout and progress on stderr. Helpers and the search phase come from bench_index.py.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import io
import json
import os
import platform
import pstats
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))
from bench_index import (  # noqa: E402 - bench/ is not a package
    MB,
    TARGET_SEARCH_P95_MS,
    attempt,
    bench_full_index,
    copy_tree,
    fmt_s,
    indexed_files,
    log,
    run_json,
    timed,
    verdict,
)

RESULTS = BENCH_DIR / "results"
DEFAULT_CORPORA = Path("/tmp/trifecta-polyglot-bench")
TARGET_RATIO = 1.5  # full index / parse-only, on 2 cores
REFRESH_RUNS = 5
DEFAULT_WORKERS = 2


@dataclass(frozen=True)
class Source:
    """One pinned archive: `kind` npm (`npm pack SPEC`) or deb (`apt-get download SPEC`); `subdir` is the folder
    inside it that is kept (npm: below `package/`), copied to `dest` under the tree."""

    kind: str
    spec: str
    subdir: str
    dest: str = ""


@dataclass(frozen=True)
class TreeSpec:
    name: str
    language: str  # Trifecta's language name, and ctags's after capitalisation (see CTAGS_LANGUAGES)
    project: str
    sources: tuple[Source, ...]
    extensions: tuple[str, ...]
    queries: tuple[str, ...]


CTAGS_LANGUAGES = {"go": "Go", "rust": "Rust", "typescript": "TypeScript", "javascript": "JavaScript"}

TREES: tuple[TreeSpec, ...] = (
    TreeSpec(
        name="go-x-tools",
        language="go",
        project="golang.org/x/tools 0.5.0",
        sources=(
            Source(
                "deb", "golang-golang-x-tools-dev=1:0.5.0+ds-1", "usr/share/gocode/src/golang.org/x/tools"
            ),
        ),
        extensions=(".go",),
        queries=(
            "how are packages loaded with their type information",
            "where does the ssa builder translate a function body",
            "how does an analysis pass report a diagnostic",
            "how are missing imports added to a file",
            "where is the call graph built from pointer analysis",
            "how does the inspector walk the syntax tree in preorder",
            "how is export data read for a compiled package",
            "where does goimports sort the import groups",
            "how does the txtar archive format parse files",
            "¿dónde se cargan los paquetes de go?",
            "packages.Load",
            "Analyzer",
            "Inspector.Preorder",
            "astutil.Apply",
            "typeutil.Map",
            "gcexportdata.Read",
            "imports.Process",
            "ssa.Builder",
            "callgraph.Graph",
            "Pass.Reportf",
        ),
    ),
    TreeSpec(
        name="rust-tokio-syn",
        language="rust",
        project="tokio 1.24.2 + syn 1.0.107",
        sources=(
            Source("deb", "librust-tokio-dev=1.24.2-1", "usr/share/cargo/registry/tokio-1.24.2", "tokio"),
            Source("deb", "librust-syn-dev=1.0.107-1", "usr/share/cargo/registry/syn-1.0.107", "syn"),
        ),
        extensions=(".rs",),
        queries=(
            "how does the runtime schedule a spawned task",
            "where is the timer wheel advanced",
            "how does a bounded mpsc channel wait for capacity",
            "how does a semaphore hand out permits fairly",
            "what happens when a JoinHandle is aborted",
            "how does the select macro pick a ready branch",
            "how does syn parse an expression with precedence",
            "where are outer attributes parsed",
            "how does a parse stream peek at the next token",
            "¿cómo se cancela una tarea en tokio?",
            "spawn_blocking",
            "block_on",
            "JoinHandle::abort",
            "Semaphore::acquire",
            "Notify::notify_waiters",
            "TcpListener accept",
            "AsyncRead poll_read",
            "DeriveInput",
            "Punctuated",
            "ParseStream",
        ),
    ),
    TreeSpec(
        name="ts-rxjs",
        language="typescript",
        project="rxjs 7.8.1 (src/)",
        sources=(Source("npm", "rxjs@7.8.1", "src"),),
        extensions=(".ts", ".tsx"),
        queries=(
            "how does mergeMap limit concurrency",
            "where is a subscription torn down when unsubscribed",
            "how does shareReplay count references",
            "where are unhandled errors reported",
            "how does the async scheduler schedule delayed work",
            "how does debounceTime drop values",
            "how does retry wait before resubscribing",
            "how are marble diagrams parsed in the test scheduler",
            "how does an Observable pipe operators together",
            "¿cómo se cancela una suscripción?",
            "switchMap",
            "BehaviorSubject getValue",
            "Subject.next",
            "combineLatest",
            "firstValueFrom",
            "fromEvent",
            "TestScheduler.run",
            "Subscriber",
            "AsyncAction",
            "operate",
        ),
    ),
    TreeSpec(
        name="ts-effect",
        language="typescript",
        project="effect 3.10.0 (src/)",
        sources=(Source("npm", "effect@3.10.0", "src"),),
        extensions=(".ts", ".tsx"),
        queries=(
            "how does retry follow a schedule",
            "how does a layer provide a service to an effect",
            "what happens when a fiber is interrupted",
            "how are finalizers run when a scope closes",
            "how does a bounded queue apply back pressure",
            "how does a stream map effects with concurrency",
            "how is a cause rendered as a pretty string",
            "how does a software transactional memory transaction retry",
            "how does a schema decode unknown input",
            "¿cómo se reintenta un efecto?",
            "Effect.gen",
            "Layer.provide",
            "Context.Tag",
            "Fiber.interrupt",
            "Ref.update",
            "Option.getOrElse",
            "Either.match",
            "Duration.millis",
            "HashMap.set",
            "Deferred.await",
        ),
    ),
    TreeSpec(
        name="js-webpack",
        language="javascript",
        project="webpack 5.88.2 (lib/)",
        sources=(Source("npm", "webpack@5.88.2", "lib"),),
        extensions=(".js", ".mjs", ".cjs", ".jsx"),
        queries=(
            "how does webpack resolve a module request",
            "where are chunk content hashes computed",
            "how does split chunks choose cache groups",
            "how is the runtime bootstrap code generated",
            "where are unused exports removed by tree shaking",
            "how does the persistent file system cache store packs",
            "how are asset modules emitted",
            "how does watch mode invalidate a compilation",
            "how does the javascript parser walk statements",
            "¿cómo se resuelve un módulo?",
            "Compiler.run",
            "Compilation.seal",
            "NormalModuleFactory",
            "ModuleGraph getModule",
            "HotModuleReplacementPlugin",
            "SplitChunksPlugin",
            "JavascriptParser walkStatement",
            "DefinePlugin",
            "Template.asString",
            "Stats toJson",
        ),
    ),
)
TREES_BY_NAME = {spec.name: spec for spec in TREES}

# The parse-only child: one process, the indexer's own listing, the parser Trifecta uses, nothing stored.
# argv: tree root, listing file, optional cProfile output path.
PARSE_CHILD = r"""
import json, resource, sys, time
from trifecta.infrastructure.code_parser import SourceParser
root, listing = sys.argv[1], sys.argv[2]
profile = sys.argv[3] if len(sys.argv) > 3 else None
paths = open(listing, encoding="utf-8").read().splitlines()
parser = SourceParser(workers=1)
per_file, errors, languages = [], [], {}
cpu0 = resource.getrusage(resource.RUSAGE_SELF)
nbytes = symbols = chunks = binary = 0
if profile:
    import cProfile
    prof = cProfile.Profile()
    prof.enable()
t0 = time.perf_counter()
for rel in paths:
    with open(root + "/" + rel, "rb") as fh:
        data = fh.read()
    if b"\x00" in data[:8192]:  # the indexer skips these as binary
        binary += 1
        continue
    nbytes += len(data)
    t = time.perf_counter()
    parsed = parser.parse(rel, data.decode("utf-8", errors="replace"))
    per_file.append((time.perf_counter() - t, rel, len(data)))
    symbols += len(parsed.symbols)
    chunks += len(parsed.chunks)
    languages[parsed.language] = languages.get(parsed.language, 0) + 1
    if parsed.error:
        errors.append([rel, str(parsed.error)[:200]])
seconds = time.perf_counter() - t0
cpu1 = resource.getrusage(resource.RUSAGE_SELF)
if profile:
    prof.disable()
    prof.dump_stats(profile)
per_file.sort(reverse=True)
print(json.dumps({
    "seconds": seconds, "cpu_s": cpu1.ru_utime + cpu1.ru_stime - cpu0.ru_utime - cpu0.ru_stime,
    "files": len(per_file), "binary": binary, "bytes": nbytes, "symbols": symbols,
    "chunks": chunks, "errors": len(errors), "error_files": errors[:20], "languages": languages,
    "slowest": [{"path": p, "ms": s * 1000, "bytes": b} for s, p, b in per_file[:10]],
    "maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
}))
"""

# The search child: argv: bench/ (for bench_index), a JSON object of arguments.
SEARCH_CHILD = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import trifecta
from bench_index import bench_search
args = json.loads(sys.argv[2])
engine = trifecta.open(args["tree"], db_path=args["db"], auto_refresh=args["auto_refresh"])
try:
    print(json.dumps(bench_search(engine, args["queries"], args["runs"])))
finally:
    engine.close()
"""

# The refresh child: argv: a JSON object of arguments. A new process checks the file once (its first run);
# then, per round, a refresh with nothing changed and one after a comment line is appended to one file.
REFRESH_CHILD = r"""
import json, os, statistics, sys, time
import trifecta
args = json.loads(sys.argv[1])
target = os.path.join(args["tree"], args["touch"])
engine = trifecta.open(args["tree"], db_path=args["db"], workers=args["workers"])
try:
    t = time.perf_counter()
    engine.index()
    first = time.perf_counter() - t
    nochange, onefile, indexed = [], [], []
    for i in range(args["runs"]):
        t = time.perf_counter()
        engine.index()
        nochange.append(time.perf_counter() - t)
        with open(target, "a", encoding="utf-8") as fh:
            fh.write(f"\n// trifecta bench touch {i}\n")
        t = time.perf_counter()
        indexed.append(engine.index().files_indexed)
        onefile.append(time.perf_counter() - t)
finally:
    engine.close()
print(json.dumps({
    "path": args["touch"], "first_s": first, "nochange_p50_s": statistics.median(nochange),
    "onefile_p50_s": statistics.median(onefile), "onefile_walls_s": onefile, "files_indexed": indexed,
}))
"""

INDEX_PROFILE_CHILD = r"""
import cProfile, json, sys, time
import trifecta
args = json.loads(sys.argv[1])
engine = trifecta.open(args["tree"], db_path=args["db"], workers=args["workers"])
prof = cProfile.Profile()
t = time.perf_counter()
prof.enable()
engine.index(full=True)
prof.disable()
seconds = time.perf_counter() - t
engine.close()
prof.dump_stats(args["stats"])
print(json.dumps({"seconds": seconds}))
"""


# ---------------------------------------------------------------------------------------------- fetch
def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def run_checked(cmd: Sequence[str], cwd: Path) -> str:
    proc = subprocess.run(list(cmd), cwd=cwd, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr[-1500:]}")
    return proc.stdout


def download(source: Source, downloads: Path) -> Path:
    """The archive for one source in `downloads`, fetched with the registry's own client if it is not there."""
    downloads.mkdir(parents=True, exist_ok=True)
    if source.kind == "npm":
        name, _, version = source.spec.rpartition("@")
        cached = downloads / f"{name.lstrip('@').replace('/', '-')}-{version}.tgz"
        if not cached.exists():
            out = run_checked(["npm", "pack", "--silent", "--json", source.spec], downloads)
            cached = downloads / json.loads(out)[0]["filename"].replace("/", "-").lstrip("@")
        return cached
    if source.kind == "deb":
        package, _, version = source.spec.partition("=")
        pattern = f"{package}_{version.replace(':', '%3a')}_*.deb"
        found = sorted(downloads.glob(pattern))
        if found:
            return found[0]
        downloads.chmod(0o777)  # apt drops to its _apt user to write the .deb
        try:
            run_checked(["apt-get", "download", "-q", source.spec], downloads)
        except RuntimeError:  # an empty or stale package list: refresh it once and try again
            log("apt-get download failed; running apt-get update once")
            run_checked(["apt-get", "update", "-q"], downloads)
            run_checked(["apt-get", "download", "-q", source.spec], downloads)
        found = sorted(downloads.glob(pattern))
        if not found:
            raise RuntimeError(f"apt-get download {source.spec} left no {pattern} in {downloads}")
        return found[0]
    raise ValueError(f"unknown source kind {source.kind!r}")


def unpack(source: Source, archive: Path, into: Path) -> Path:
    """Unpack `archive` into `into`; returns the folder that `source.subdir` names inside it."""
    if source.kind == "npm":
        with tarfile.open(archive, "r:gz") as tar:
            tar.extractall(into, filter="data")
        return into / "package" / source.subdir
    into.mkdir(parents=True, exist_ok=True)
    run_checked(["dpkg-deb", "-x", str(archive), str(into)], into)
    return into / source.subdir


def keep_sources(src: Path, dest: Path, extensions: tuple[str, ...]) -> int:
    """Copy the files under `src` whose name ends with one of `extensions` (links are not followed)."""
    kept = 0
    for path in sorted(src.rglob("*")):
        if path.is_file() and not path.is_symlink() and path.name.endswith(extensions):
            target = dest / path.relative_to(src)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
            kept += 1
    return kept


def tree_stats(tree: Path) -> dict[str, Any]:
    """Files, lines, bytes and a content hash of a fetched tree (sha256 over sorted `path\\0sha256` lines)."""
    digest = hashlib.sha256()
    files = lines = nbytes = 0
    for path in sorted(p for p in tree.rglob("*") if p.is_file()):
        data = path.read_bytes()
        files += 1
        lines += data.count(b"\n")
        nbytes += len(data)
        digest.update(f"{path.relative_to(tree).as_posix()}\0{hashlib.sha256(data).hexdigest()}\n".encode())
    return {"files": files, "lines": lines, "bytes": nbytes, "tree_sha256": digest.hexdigest()}


def fetch_tree(spec: TreeSpec, corpora: Path) -> dict[str, Any]:
    """The tree of `spec` under `corpora`, fetched and pruned once; returns its manifest (what was fetched)."""
    tree, manifest_path = corpora / spec.name, corpora / f"{spec.name}.manifest.json"
    wanted = [asdict(s) for s in spec.sources]
    if tree.is_dir() and manifest_path.is_file():
        manifest: dict[str, Any] = json.loads(manifest_path.read_text(encoding="utf-8"))
        if manifest.get("sources") == wanted and manifest.get("extensions") == list(spec.extensions):
            return manifest
    log(f"fetching {spec.name}: {', '.join(s.spec for s in spec.sources)}")
    partial = corpora / f"{spec.name}.partial"
    shutil.rmtree(partial, ignore_errors=True)
    archives = []
    with tempfile.TemporaryDirectory(prefix="polyglot-unpack-") as scratch:
        for i, source in enumerate(spec.sources):
            archive = download(source, corpora / "downloads")
            root = unpack(source, archive, Path(scratch) / str(i))
            if not root.is_dir():
                raise RuntimeError(f"{source.spec}: no {source.subdir} inside {archive.name}")
            kept = keep_sources(root, partial / source.dest, spec.extensions)
            archives.append({"archive": archive.name, "sha256": sha256_file(archive), "files_kept": kept})
    shutil.rmtree(tree, ignore_errors=True)
    partial.rename(tree)
    manifest = {
        "tree": spec.name,
        "language": spec.language,
        "project": spec.project,
        "sources": wanted,
        "extensions": list(spec.extensions),
        "archives": archives,
        **tree_stats(tree),
    }
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return manifest


# ---------------------------------------------------------------------------------------------- measure
def child_script(workdir: Path, name: str, code: str) -> str:
    """A child's code as a file: a failure's message then names the file, not the whole script."""
    path = workdir / name
    path.write_text(code, encoding="utf-8")
    return str(path)


def bench_parse_tree(tree: Path, paths: Sequence[str], workdir: Path, profile: Path | None) -> dict[str, Any]:
    listing = workdir / "listing.txt"
    listing.write_text("\n".join(paths), encoding="utf-8")
    cmd = [sys.executable, child_script(workdir, "parse_only.py", PARSE_CHILD), str(tree), str(listing)]
    wall, out = run_json([*cmd, str(profile)] if profile else cmd)
    out["wall_s"] = wall
    return out


def bench_search_child(
    tree: Path, db: Path, queries: Sequence[str], runs: int, auto_refresh: bool, workdir: Path
) -> dict[str, Any]:
    """bench_index's search phase in a child process, so a crash in it is one failed phase, not the run."""
    args = {
        "tree": str(tree),
        "db": str(db),
        "queries": list(queries),
        "runs": runs,
        "auto_refresh": auto_refresh,
    }
    cmd = [sys.executable, child_script(workdir, "search.py", SEARCH_CHILD), str(BENCH_DIR), json.dumps(args)]
    return run_json(cmd)[1]


def bench_refresh(
    tree: Path, db: Path, paths: Sequence[str], workers: int, runs: int, workdir: Path
) -> dict[str, Any]:
    """engine.index() in a new process on the built index: the first run (which checks the file), then
    p50 of a no-change refresh and of a refresh after one file (the median-sized one) changed."""
    sizes = sorted((os.path.getsize(tree / p), p) for p in paths)
    touch = sizes[len(sizes) // 2][1]
    args = {"tree": str(tree), "db": str(db), "touch": touch, "workers": workers, "runs": runs}
    cmd = [sys.executable, child_script(workdir, "refresh.py", REFRESH_CHILD), json.dumps(args)]
    return run_json(cmd)[1]


def bench_ctags_language(tree: Path, language: str, workdir: Path) -> dict[str, Any]:
    """`ctags -R --languages=L` over the tree: a compiled tagger's time, for reference."""
    ctags, name = shutil.which("ctags"), CTAGS_LANGUAGES.get(language)
    if ctags is None or name is None:
        return {"available": False, "install": "apt-get install universal-ctags"}
    tags = workdir / "tags"
    seconds, proc = timed(
        lambda: subprocess.run(
            [ctags, "-R", f"--languages={name}", "-f", str(tags), str(tree)], capture_output=True
        )
    )
    if proc.returncode != 0:
        return {"available": True, "error": proc.stderr.decode(errors="replace")[-500:]}
    with tags.open(encoding="utf-8", errors="replace") as fh:
        return {
            "available": True,
            "seconds": seconds,
            "tags": sum(1 for line in fh if not line.startswith("!_")),
        }


def profile_top(stats_file: Path, limit: int) -> dict[str, list[str]]:
    """The `limit` costliest functions of a cProfile dump, by own time and by cumulative time."""
    out: dict[str, list[str]] = {}
    for key in ("tottime", "cumulative"):
        buffer = io.StringIO()
        stats = pstats.Stats(str(stats_file), stream=buffer)
        stats.strip_dirs().sort_stats(key).print_stats(limit)
        lines = buffer.getvalue().splitlines()
        start = next((i for i, line in enumerate(lines) if line.lstrip().startswith("ncalls")), 0)
        out[key] = [line.rstrip() for line in lines[start:] if line.strip()]
    return out


def profile_parse(tree: Path, paths: Sequence[str], workdir: Path) -> dict[str, Any]:
    """The parse-only pass again, under cProfile: where the parser spends its time."""
    stats_file = workdir / "parse.prof"
    out = bench_parse_tree(tree, paths, workdir, stats_file)
    return {"seconds_profiled": out["seconds"], **profile_top(stats_file, 25)}


def profile_index(tree: Path, workdir: Path, workers: int) -> dict[str, Any]:
    """A full index on a fresh database under cProfile (the indexing process only, not its parser workers):
    what the index adds to parsing (storage, waiting on the workers)."""
    stats_file, db = workdir / "index.prof", workdir / "profile-db" / "index.db"
    db.parent.mkdir(exist_ok=True)
    args = json.dumps({"tree": str(tree), "db": str(db), "workers": workers, "stats": str(stats_file)})
    _, out = run_json([sys.executable, child_script(workdir, "index_profile.py", INDEX_PROFILE_CHILD), args])
    return {"seconds_profiled": out["seconds"], **profile_top(stats_file, 25)}


def measure_tree(
    spec: TreeSpec, source: Path, workdir: Path, workers: int, search_runs: int, profile: bool
) -> dict[str, Any]:
    tree, db = workdir / "tree", workdir / "db" / "index.db"
    db.parent.mkdir(parents=True)
    copy_tree(source, tree, quick=False)
    files, _ = indexed_files(tree)
    result: dict[str, Any] = {
        "tree": spec.name,
        "language": spec.language,
        "project": spec.project,
        "workers": workers,
        "tree_files": len(files),
        "tree_bytes": sum(size for _, size in files),
        "loadavg_start": os.getloadavg(),
    }
    log(f"{spec.name}: {len(files)} files the indexer would index, {result['tree_bytes'] / MB:.1f} MB")
    paths = [path for path, _ in files]
    attempt(result, "parse_only", lambda: bench_parse_tree(tree, paths, workdir, None))
    attempt(result, "full_index", lambda: bench_full_index(tree, db, workers))
    attempt(result, "ctags", lambda: bench_ctags_language(tree, spec.language, workdir))
    for key, auto_refresh in (("search", True), ("search_no_autorefresh", False)):
        search = functools.partial(
            bench_search_child, tree, db, spec.queries, search_runs, auto_refresh, workdir
        )
        attempt(result, key, search)
    # last: it changes a file of the tree
    attempt(result, "refresh", lambda: bench_refresh(tree, db, paths, workers, REFRESH_RUNS, workdir))
    if profile:
        attempt(result, "profile", lambda: profile_parse(tree, paths, workdir))
        attempt(result, "profile_index", lambda: profile_index(tree, workdir, workers))
    result["loadavg_end"] = os.getloadavg()
    return result


# ---------------------------------------------------------------------------------------------- report
def ratio(result: dict[str, Any]) -> float | None:
    full, parse = result.get("full_index", {}), result.get("parse_only", {})
    if "index_s" not in full or not parse.get("seconds"):
        return None
    return float(full["index_s"]) / float(parse["seconds"])


def render_table(results: Sequence[dict[str, Any]]) -> str:
    """One row per tree: counts, parse-only vs full index, the ratio, search p50/p95 and peak RSS."""
    head = (
        "| tree | files (MB) | symbols / chunks | parse errors | parse-only, 1 process | full index "
        f"| ratio (target <= {TARGET_RATIO}) | search p50 / p95 (target p95 < {TARGET_SEARCH_P95_MS:.0f} ms) "
        "| same, auto_refresh off | refresh p50: no change / one file | peak RSS index / worker | ctags -R "
        "| CPU s: parse-only / index (process + workers) |"
    )
    lines = [head, "|" + " --- |" * (head.count("|") - 1)]
    for r in results:
        parse, full, ctags = r.get("parse_only", {}), r.get("full_index", {}), r.get("ctags", {})
        search, quiet = r.get("search", {}), r.get("search_no_autorefresh", {})
        value = ratio(r)
        status = full.get("status", {})
        cells = [
            f"{r['tree']} ({r['language']}, {r['project']})",
            f"{r.get('tree_files', 0):,} ({r.get('tree_bytes', 0) / MB:.1f})",
            f"{status['symbols']:,} / {status['chunks']:,}" if "symbols" in status else _failed(full),
            f"{full['parse_errors']} (parse-only: {parse.get('errors', 'n/a')})"
            if "parse_errors" in full
            else _failed(full),
            fmt_s(parse["seconds"]) if "seconds" in parse else _failed(parse),
            f"{fmt_s(full['index_s'])} ({_workers_label(r)})" if "index_s" in full else _failed(full),
            f"{value:.2f}x {verdict(value <= TARGET_RATIO)}" if value is not None else "n/a",
            _search_cell(search),
            _search_cell(quiet),
            _refresh_cell(r.get("refresh", {})),
            f"{full['maxrss_kb'] / 1024:.0f} / {full['workers_maxrss_kb'] / 1024:.0f} MB"
            if "maxrss_kb" in full
            else _failed(full),
            f"{fmt_s(ctags['seconds'])}, {ctags['tags']:,} tags" if "seconds" in ctags else "n/a",
            _cpu_cell(parse, full),
        ]
        lines.append("| " + " | ".join(c.replace("|", "/") for c in cells) + " |")
    return "\n".join(lines)


def _workers_label(result: dict[str, Any]) -> str:
    """The index's parser processes: none started when the tree is too small to pay for them (below 1 MB,
    or 0.5 MB for forked workers while the load average is below 2 per CPU: see code_parser)."""
    if result.get("full_index", {}).get("workers_cpu_s") == 0:
        return "1 process: too small for workers at this load"
    return f"{result['workers']} workers"


def _cpu_cell(parse: dict[str, Any], full: dict[str, Any]) -> str:
    """CPU seconds, which other processes on the machine disturb far less than wall time."""
    if "cpu_s" not in parse or "index_cpu_s" not in full:
        return "n/a"
    total = full["index_cpu_s"] + full["workers_cpu_s"]
    return (
        f"{parse['cpu_s']:.2f} / {total:.2f} ({full['index_cpu_s']:.2f} + {full['workers_cpu_s']:.2f}), "
        f"{total / parse['cpu_s']:.2f}x"
    )


def _refresh_cell(refresh: dict[str, Any]) -> str:
    if "onefile_p50_s" not in refresh:
        return _failed(refresh)
    return f"{fmt_s(refresh['nochange_p50_s'])} / {fmt_s(refresh['onefile_p50_s'])}"


def _failed(phase: dict[str, Any]) -> str:
    return "FAILED" if "error" in phase else "n/a"


def _search_cell(search: dict[str, Any]) -> str:
    if "p95_ms" not in search:
        return _failed(search)
    return f"{search['p50_ms']:.1f} / {search['p95_ms']:.1f} ms {verdict(search['p95_ms'] < TARGET_SEARCH_P95_MS)}"


def render_notes(results: Sequence[dict[str, Any]]) -> str:
    out = []
    for r in results:
        parse, full, search = r.get("parse_only", {}), r.get("full_index", {}), r.get("search", {})
        if "slowest" in parse:
            slow = ", ".join(
                f"`{s['path']}` {s['ms']:.1f} ms ({s['bytes'] / 1024:.0f} KB)" for s in parse["slowest"][:3]
            )
            out.append(f"- {r['tree']}: slowest files to parse: {slow}; languages seen: {parse['languages']}")
        if parse.get("error_files"):
            shown = "; ".join(f"`{p}`: {e[:80]}" for p, e in parse["error_files"][:3])
            out.append(f"  - parse errors ({parse['errors']}): {shown}")
        if "index_s" in full:
            trigram = (
                f"trigram accelerator built after that in {fmt_s(full['substring_index_s'])}"
                if full["substring_index_s"]
                else "trigram accelerator written with the batches"
            )
            load = r.get("loadavg_start", (0.0,))[0], r.get("loadavg_end", (0.0,))[0]
            out.append(
                f"  - full index: searchable after {fmt_s(full['searchable_s'])}, {trigram}, process wall "
                f"{fmt_s(full['wall_s'])}, skipped {full['skipped']}; load average at this tree's start/end "
                f"{load[0]:.1f}/{load[1]:.1f}"
            )
        refresh = r.get("refresh", {})
        if "onefile_p50_s" in refresh:
            out.append(
                f"  - refresh (engine.index() in a new process): first run {fmt_s(refresh['first_s'])} (checks "
                f"the file), then p50 no change {fmt_s(refresh['nochange_p50_s'])}, one file changed "
                f"(`{refresh['path']}`) {fmt_s(refresh['onefile_p50_s'])}"
            )
        if "per_query" in search:
            slowest = sorted(search["per_query"], key=lambda q: -q["p50_ms"])[:3]
            out.append(
                f"  - search: {search['zero_hit_queries']} queries with no hit, {len(search['internal_errors'])} "
                "INTERNAL_ERROR; slowest p50: "
                + ", ".join(f"{q['query'][:40]!r} {q['p50_ms']:.1f} ms" for q in slowest)
            )
        for key, phase in r.items():
            if isinstance(phase, dict) and "error" in phase:
                out.append(f"  - FAILED {key}: {phase['error'].strip()[-300:]}")
        for key, what in (
            ("profile", "the parse-only pass"),
            ("profile_index", "the full index's own process"),
        ):
            profile = r.get(key, {})
            if "tottime" in profile:
                out.append(
                    f"  - cProfile of {what} ({fmt_s(profile['seconds_profiled'])} under the profiler):"
                )
                out.append("\n```\n" + "\n".join(profile["tottime"][:20]) + "\n```")
    return "\n".join(out)


def render_sources(manifests: Sequence[dict[str, Any]]) -> str:
    lines = [
        "| tree | language | fetched (pinned) | files | lines | tree sha256 |",
        "| --- | --- | --- | --: | --: | --- |",
    ]
    for m in manifests:
        fetched = ", ".join(f"{s['kind']} `{s['spec']}` {s['subdir']}" for s in m["sources"])
        lines.append(
            f"| {m['tree']} | {m['language']} | {fetched} | {m['files']:,} | {m['lines']:,} | `{m['tree_sha256'][:12]}` |"
        )
    return "\n".join(lines)


def render_markdown(run: dict[str, Any]) -> str:
    load = "/".join(f"{x:.1f}" for x in (run["loadavg_start"][0], run["loadavg_end"][0]))
    source = run.get("trifecta", {})
    at = f", Trifecta at {source['commit']}" if source.get("commit") else ""
    if source.get("uncommitted_src_files"):
        at += f" + {source['uncommitted_src_files']} uncommitted src/ files"
    if run.get("label"):
        at += f" ({run['label']})"
    return "\n\n".join(
        [
            f"Trifecta polyglot benchmark ({run['date']}): Python {run['python']}, {run['cpus']} CPUs, "
            f"load average at start/end {load}, {run['platform']}, parser: {run['parser']}{at}",
            render_table(run["trees"]),
            render_notes(run["trees"]),
            "Trees (pruned to each language's source files):\n\n" + render_sources(run["manifests"]),
        ]
    )


# ---------------------------------------------------------------------------------------------- main
def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA, help="cache of fetched trees")
    ap.add_argument(
        "--only", action="append", choices=sorted(TREES_BY_NAME), help="measure this tree (repeatable)"
    )
    ap.add_argument("--fetch-only", action="store_true", help="fetch the trees, measure nothing")
    ap.add_argument("--workers", type=int, default=DEFAULT_WORKERS, help="parser processes of the full index")
    ap.add_argument("--search-runs", type=int, default=3, help="timed runs per query after one warm-up")
    ap.add_argument("--profile", action="append", default=[], metavar="TREE", choices=sorted(TREES_BY_NAME),
                    help="also run the parse-only pass and a full index of TREE under cProfile: their top functions")  # fmt: skip
    ap.add_argument("--json", dest="json_path", type=Path, default=RESULTS / "polyglot.json")
    ap.add_argument("--md", dest="md_path", type=Path, default=RESULTS / "polyglot.md")
    ap.add_argument("--label", default="", help="a note for the header, e.g. what was measured")
    ap.add_argument("--no-save", action="store_true", help="print the table, write no result file")
    ap.add_argument("--keep", action="store_true", help="keep the temp dirs (their paths go to stderr)")
    args = ap.parse_args(argv)
    if args.workers < 1 or args.search_runs < 1:
        ap.error("--workers and --search-runs must be at least 1")
    return args


def source_label() -> dict[str, Any]:
    """Which Trifecta was measured: where it is imported from, that checkout's commit and uncommitted src/ files
    (none known when it is not a git checkout)."""
    import trifecta

    package = Path(trifecta.__file__).resolve().parent

    def git(*cmd: str) -> str:
        proc = subprocess.run(["git", *cmd], cwd=package, capture_output=True, text=True)
        return proc.stdout.strip() if proc.returncode == 0 else ""

    changed = git("status", "--porcelain", "--", ".")
    return {
        "imported_from": str(package),
        "commit": git("rev-parse", "--short", "HEAD"),
        "uncommitted_src_files": len(changed.splitlines()) if changed else 0,
    }


def parser_label() -> str:
    """Which parser handles the measured languages now: the tree-sitter adapter once it exists."""
    try:
        from trifecta.infrastructure import treesitter_parser  # noqa: F401
    except ImportError:
        return "text windows (no tree-sitter adapter yet)"
    return "tree-sitter"


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    specs = [TREES_BY_NAME[name] for name in args.only] if args.only else list(TREES)
    specs += [TREES_BY_NAME[n] for n in args.profile if TREES_BY_NAME[n] not in specs]
    corpora = args.corpora.expanduser().resolve()
    corpora.mkdir(parents=True, exist_ok=True)
    manifests = [fetch_tree(spec, corpora) for spec in specs]
    for m in manifests:
        log(f"{m['tree']}: {m['files']:,} files, {m['lines']:,} lines, {m['bytes'] / MB:.1f} MB")
    if args.fetch_only:
        return 0
    run: dict[str, Any] = {
        "date": time.strftime("%Y-%m-%d"),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "parser": parser_label(),
        "trifecta": source_label(),
        "label": args.label,
        "loadavg_start": os.getloadavg(),
        "manifests": manifests,
        "trees": [],
    }
    for spec in specs:
        workdir = Path(tempfile.mkdtemp(prefix=f"trifecta-polyglot-{spec.name}-"))
        try:
            run["trees"].append(
                measure_tree(
                    spec,
                    corpora / spec.name,
                    workdir,
                    args.workers,
                    args.search_runs,
                    spec.name in args.profile,
                )
            )
        finally:
            if args.keep:
                log(f"kept {workdir}")
            else:
                shutil.rmtree(workdir, ignore_errors=True)
    run["loadavg_end"] = os.getloadavg()
    markdown = render_markdown(run)
    print(markdown)
    if not args.no_save:
        for path, text in (
            (args.json_path, json.dumps(run, indent=2, ensure_ascii=False)),
            (args.md_path, markdown),
        ):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text + "\n", encoding="utf-8")
            log(f"-> {path}")
    failures = [k for r in run["trees"] for k, v in r.items() if isinstance(v, dict) and "error" in v]
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
