"""Callers from the index compared with basedpyright's references, on a copy of the CPython standard library.

    python -m venv /tmp/bpr && /tmp/bpr/bin/pip install basedpyright==1.40.*     # bundles its own node
    python bench/callers_vs_pyright.py --server-bin /tmp/bpr/bin --n 50 --seeds 1,2,3

A second Python oracle beside bench/callers_vs_jedi.py: a type checker's references, which resolve each use
through the types it infers (typeshed's stubs for what the tree does not define) rather than by name. The
tree (default: this interpreter's stdlib) is copied to a temp dir without site-packages and __pycache__ and
indexed there, with a `pyrightconfig.json` that makes the copy the project. pyright resolves a stdlib
module's name to typeshed's stub before any file of the project, so `import unittest` in the copy would
never reach the copy's unittest/case.py (and no caller in another module would be listed): the bench gives
the server a typeshed of its own, the bundled one less the stubs of every top-level module the tree holds
(but `--keep-stubs`: builtins, typing and the few whose source pyright cannot read as their stub says). The same random functions and methods as callers_vs_jedi.py draws for a
seed (dunders and properties left out), then `engine.callers(uri, limit=500)` twice (the first ask and the
second, timed) and the server's `textDocument/references` at the definition's name (declaration excluded),
through Trifecta's own LSP adapter, and the (path, line) sets inside the tree compared:

- trifecta: the hits resolved `exact` or `import` (with the pages after an answer the byte budget cut,
  through its next action's `--offset`, as an agent reads on);
- the server: every reference but import lines (`from m import f`, `import m.f`), the name in a string
  (`__all__ = ["join", ...]`: an export list, as an import is) and the definition's own line.

Precision = shared / trifecta's, recall = shared / the server's (micro-averaged); a second recall counts only
the server's references that are calls (the name followed by `(`). The server's own latency is listed for
comparison (warm: one references request made first). With `--seeds`, one index and one server, a table per
seed, and the seeds that meet both targets (precision >= 0.9, recall >= 0.85) at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import sysconfig
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from callers_vs_jedi import every_hit, indexed_copy, pick_symbols, python_uri  # noqa: E402 - the bench folder is no package
from callers_vs_tsserver import Tally, report, timings, warm_references  # noqa: E402

_IMPORT = re.compile(r"\s*(from\s+\S+\s+)?import\b")
# what a project config says: the copy is the code, checked loosely (references need no diagnostics)
_CONFIG = {"typeCheckingMode": "off", "pythonVersion": "3.11", "exclude": ["**/.trifecta"]}
# stubs kept though the tree has the module: special forms and C-level types that its source only imitates
_KEEP_STUBS = "typing,typing_extensions,types,abc,enum,dataclasses,builtins,_typeshed,sys,collections"


def typeshed_without(tree: Path, command: str, dest: Path, keep: set[str]) -> Path | None:
    """A copy of the server's bundled typeshed without the stdlib stubs of the tree's top-level modules."""
    found = shutil.which(command)
    if found is None:
        return None
    bundled = next(
        Path(found).resolve().parent.parent.glob("lib/python3*/site-packages/basedpyright/dist"), None
    )
    source = bundled / "typeshed-fallback" if bundled else None
    if source is None or not (source / "stdlib" / "VERSIONS").is_file():
        return None
    shutil.copytree(source / "stdlib", dest / "stdlib")
    own = {p.stem for p in tree.glob("*.py")} | {p.parent.name for p in tree.glob("*/__init__.py")}
    gone = own - keep
    for name in gone:
        (dest / "stdlib" / f"{name}.pyi").unlink(missing_ok=True)
        shutil.rmtree(dest / "stdlib" / name, ignore_errors=True)
    versions = dest / "stdlib" / "VERSIONS"
    lines = versions.read_text().splitlines()
    versions.write_text(
        "\n".join(line for line in lines if line.split(":", 1)[0].split(".", 1)[0].strip() not in gone) + "\n"
    )
    print(f"typeshed: {len(gone)} stdlib stubs left out (the tree's own modules)", file=sys.stderr)
    return dest


def server_spec(command: str) -> Any:
    from trifecta.infrastructure.language_servers import SERVERS

    python = next(s for s in SERVERS if s.name == "python")
    return type(python)(
        name="python",
        languages=python.languages,
        command=(command, "--stdio"),
        language_ids=python.language_ids,
        install="pip install basedpyright",
    )


def seed_rows(
    engine: Any, server: Any, tree: Path, picked: list[tuple[str, Any]], rules: Any
) -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    second: list[float] = []
    first: list[float] = []
    server_ms: list[float] = []
    tally = Tally()
    for path, symbol in picked:
        uri = python_uri(rules, path, symbol)
        t = time.perf_counter()
        engine.callers(uri, limit=500)
        first.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        response = engine.callers(uri, limit=500).to_dict()
        second.append((time.perf_counter() - t) * 1000)
        hits = every_hit(engine, uri, 500, response) if response["status"] == "ok" else []
        ours = {(h["path"], h["line"]) for h in hits if h["resolution"] in ("exact", "import")}
        text = (tree / path).read_text(errors="replace")
        line_text = text.split("\n")[symbol.def_line - 1]
        column = line_text.find(symbol.name, line_text.find("def ") + 4)
        asked = warm_references(server, path, text, symbol.def_line, column)
        if isinstance(asked, str):
            rows.append({"uri": uri, "error": asked})
            continue
        refs, ms = asked
        server_ms.append(ms)
        theirs: set[tuple[str, int]] = set()
        calls: set[tuple[str, int]] = set()
        for ref in refs:
            source = (tree / ref.path).read_text(errors="replace").split("\n")[ref.line - 1]
            if _IMPORT.match(source) or source[ref.character - 1 : ref.character] in ("'", '"'):
                continue  # an import, or the name as a string: `__all__ = ["join", ...]` exports it
            theirs.add((ref.path, ref.line))
            if re.match(r"\s*\(", source[ref.character + len(symbol.name) :]):
                calls.add((ref.path, ref.line))
        both = tally.add(ours, theirs, calls, ours)
        rows.append(
            {"uri": uri, "trifecta": len(ours), "server": len(theirs), "server_calls": len(calls),
             "shared": len(both), "only_trifecta": sorted(ours - theirs), "only_server": sorted(theirs - ours),
             "callers_ms": round(second[-1], 2), "server_ms": round(server_ms[-1], 1)}
        )  # fmt: skip
    counts = tally.counts()
    for key in ("trifecta_direct", "precision_direct", "recall_direct"):  # Python lists no class family
        counts.pop(key)
    summary = {
        "symbols": len(picked),
        "errors_server": sum(1 for r in rows if "error" in r),
        **counts,
        **timings(second, first, server_ms),
    }
    return {"summary": summary, "rows": rows}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", default=sysconfig.get_paths()["stdlib"])
    ap.add_argument("--server-bin", default="", help="a folder holding basedpyright-langserver (PATH first)")
    ap.add_argument("--command", default="basedpyright-langserver")
    ap.add_argument("--n", type=int, default=50)
    ap.add_argument("--seeds", default="17", help="comma-separated seeds, one index and one server")
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--json", default="")
    ap.add_argument(
        "--keep-stubs", default=_KEEP_STUBS, help="stdlib stubs kept though the tree has the module"
    )
    ap.add_argument(
        "--stdlib-stubs", action="store_true", help="leave typeshed as bundled (stdlib names reach the stubs)"
    )
    args = ap.parse_args()
    if args.server_bin:
        os.environ["PATH"] = f"{Path(args.server_bin).resolve()}{os.pathsep}{os.environ['PATH']}"
    if shutil.which(args.command) is None:
        print(f"{args.command} not found: pip install basedpyright (see the doc above)", file=sys.stderr)
        return 2

    from trifecta.infrastructure.lsp_client import StdioLanguageServer

    work, tree, engine = indexed_copy(Path(args.tree), "callers-pyright-")
    config = dict(_CONFIG)
    if not args.stdlib_stubs:
        keep = {k.strip() for k in args.keep_stubs.split(",") if k.strip()}
        typeshed = typeshed_without(tree, args.command, work / "typeshed", keep)
        if typeshed is None:
            print(
                "no bundled typeshed found next to the server: --stdlib-stubs to run without", file=sys.stderr
            )
            return 2
        config["typeshedPath"] = str(typeshed)
    (tree / "pyrightconfig.json").write_text(json.dumps(config))
    server = StdioLanguageServer(tree, spec=server_spec(args.command), timeout=args.timeout)
    seeds = [int(s) for s in args.seeds.split(",") if s.strip()]
    results: dict[str, Any] = {}
    passed = []
    try:
        for seed in seeds:
            picked, _, rules = pick_symbols(engine, args.n, seed)
            started = time.perf_counter()
            result = seed_rows(engine, server, tree, picked, rules)
            print(f"seed {seed}: {time.perf_counter() - started:.0f} s", file=sys.stderr)
            results[str(seed)] = result
            summary = result["summary"]
            print(f"\nseed {seed}:")
            report(summary, result["rows"], None)
            if summary["precision"] >= 0.9 and summary["recall"] >= 0.85:
                passed.append(seed)
    finally:
        server.close()
        engine.close()
        shutil.rmtree(work, ignore_errors=True)
    if len(seeds) > 1:
        print("\n| seed | precision | recall | recall (calls) | both targets |\n|---|---|---|---|---|")
        for seed in seeds:
            s = results[str(seed)]["summary"]
            ok = "yes" if seed in passed else "no"
            print(f"| {seed} | {s['precision']} | {s['recall']} | {s['recall_call_sites']} | {ok} |")
        print(f"\nboth targets met on {len(passed)} of {len(seeds)} seeds")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
