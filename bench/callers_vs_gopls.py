"""Callers from the index compared with gopls' references, on a Go module.

    apt-get install -y golang-go gopls                       # Debian bookworm: Go 1.19, gopls 0.5
    apt-get install -y golang-github-spf13-pflag-dev golang-github-google-go-cmp-dev
    cp -r /usr/share/gocode/src/github.com/spf13/pflag pflag
    python bench/callers_vs_gopls.py --tree pflag --n 100 --seed 17

The tree must hold a go.mod that `go list` loads offline (the bench runs gopls with GOPROXY=off and
GOFLAGS=-mod=mod): a module without dependencies, or one whose go.mod `replace`s each of them with a folder
(Debian's golang-*-dev packages ship sources under /usr/share/gocode/src).

The tree is copied to a temp dir and indexed there. For N random functions and methods (of non-test files;
`init`, `main` and `Test*`/`Benchmark*`/`Example*`/`Fuzz*` functions left out: nothing calls them) it asks
`engine.callers(uri, limit=500)` twice (the first ask and the second, timed) and gopls'
`textDocument/references` at the definition's name (declaration excluded), through Trifecta's own LSP
adapter, and compares the (path, line) sets inside the tree:

- trifecta: the hits resolved `exact` or `import` (with the `"related"` ones, calls through an interface
  the method's type implements; `precision_direct` / `recall_direct` leave those out), less the
  declarations of those interfaces' methods (`"use": "declaration"`, counted apart: gopls' references list
  no declarations);
- gopls: every reference but the definition's own line (Go imports packages, never names, so no import
  line names a function).

Precision = shared / trifecta's, recall = shared / the server's (micro-averaged); a second recall counts only
the server's references that are calls (the name followed by `(`; the others are method values and
functions passed as values, `RunE: run`, `sort.Slice(xs, less)`). The server's own latency is listed for
comparison (warm: one references request made first).
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

import trifecta

sys.path.insert(0, str(Path(__file__).resolve().parent))
from callers_vs_tsserver import Tally, report, timings, warm_references  # noqa: E402 - the bench folder is no package

# functions nothing in the tree calls: the runtime's and `go test`'s entry points
_UNCALLED = re.compile(r"^(init|main|(Test|Benchmark|Example|Fuzz)([A-Z_].*)?)$")


def _name_column(line: str, name: str) -> int:
    """The column of a definition's name on its line: `func (c *Command) Name() string` has `Name` after
    the receiver, which may hold the same word (`func (Name) Name()`)."""
    after = line.index(")") + 1 if line.startswith("func (") and ")" in line else 0
    found = re.compile(rf"\b{re.escape(name)}\s*[(\[]").search(line, after) or re.search(
        rf"\b{re.escape(name)}\b", line
    )
    return found.start() if found else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", required=True)
    ap.add_argument("--server-bin", default="", help="a folder holding gopls (PATH first)")
    ap.add_argument("--n", type=int, default=50)
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--json", default="")
    args = ap.parse_args()
    if args.server_bin:
        os.environ["PATH"] = f"{Path(args.server_bin).resolve()}{os.pathsep}{os.environ['PATH']}"
    os.environ.setdefault("GOPROXY", "off")  # no module download: the tree's go.mod must load offline
    os.environ.setdefault("GOFLAGS", "-mod=mod")

    from trifecta.application.zoom_ast import uri_of
    from trifecta.infrastructure.language_servers import SERVERS
    from trifecta.infrastructure.lsp_client import StdioLanguageServer
    from trifecta.interfaces.bootstrap import selector_rules

    work = Path(tempfile.mkdtemp(prefix="callers-gopls-"))
    tree = work / "tree"
    shutil.copytree(args.tree, tree, ignore=shutil.ignore_patterns(".trifecta", ".git"))
    engine = trifecta.open(tree, db_path=str(work / "index.db"))
    started = time.perf_counter()
    engine.index(full=True)
    print(f"indexed in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    rules = selector_rules()["go"]
    pool = []
    for path, symbol in engine._app.store.all_symbols():  # noqa: SLF001 - a benchmark reads the index directly
        if not path.endswith(".go") or path.endswith("_test.go") or "testdata/" in path:
            continue
        if symbol.kind.value not in ("function", "method") or _UNCALLED.match(symbol.name):
            continue
        stem = rules.stem(path)
        uri = uri_of(stem, symbol.qualname, "go") if stem is not None else None
        if uri is None:
            continue
        text = (tree / path).read_text(errors="replace").split("\n")[symbol.def_line - 1]
        if not text.startswith("func"):  # an interface's method: gopls lists its implementations' calls too
            continue
        pool.append((path, symbol, uri))
    pool.sort(key=lambda p: (p[0], p[1].start_line))
    picked = random.Random(args.seed).sample(pool, min(args.n, len(pool)))

    spec = next(s for s in SERVERS if s.name == "go")
    server = StdioLanguageServer(tree, spec=spec, timeout=args.timeout)
    rows = []
    second: list[float] = []
    first: list[float] = []
    server_ms: list[float] = []
    tally, declarations = Tally(), 0
    try:
        for path, symbol, uri in picked:
            t = time.perf_counter()
            engine.callers(str(uri), limit=500)
            first.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            response = engine.callers(str(uri), limit=500).to_dict()
            second.append((time.perf_counter() - t) * 1000)
            hits = (response["data"] or {}).get("hits", [])
            # gopls' references list no declarations (its "implementation" request does): the interfaces'
            # methods a method implements are counted apart
            declarations += sum(1 for h in hits if h["use"] == "declaration")
            sure = [h for h in hits if h["resolution"] in ("exact", "import") and h["use"] != "declaration"]
            ours = {(h["path"], h["line"]) for h in sure}
            direct = {(h["path"], h["line"]) for h in sure if "related" not in h}
            text = (tree / path).read_text(errors="replace")
            column = _name_column(text.split("\n")[symbol.def_line - 1], symbol.name)
            asked = warm_references(server, path, text, symbol.def_line, column)
            if isinstance(asked, str):
                rows.append({"uri": uri, "error": asked})
                continue
            refs, ms = asked
            server_ms.append(ms)
            theirs: set[tuple[str, int]] = set()
            calls: set[tuple[str, int]] = set()
            for ref in refs:
                theirs.add((ref.path, ref.line))
                source = (tree / ref.path).read_text(errors="replace").split("\n")[ref.line - 1]
                if re.match(r"\s*(\[[^()]*\])?\s*\(", source[ref.character + len(symbol.name) :]):
                    calls.add((ref.path, ref.line))
            both = tally.add(ours, theirs, calls, direct)
            rows.append(
                {"uri": uri, "trifecta": len(ours), "server": len(theirs), "server_calls": len(calls),
                 "shared": len(both), "only_trifecta": sorted(ours - theirs), "only_server": sorted(theirs - ours),
                 "callers_ms": round(second[-1], 2), "server_ms": round(server_ms[-1], 1)}
            )  # fmt: skip
    finally:
        server.close()
        engine.close()
        shutil.rmtree(work, ignore_errors=True)
    summary = {
        "symbols": len(picked),
        "errors_server": sum(1 for r in rows if "error" in r),
        **tally.counts(),
        "trifecta_declarations": declarations,
        **timings(second, first, server_ms),
    }
    report(summary, rows, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
