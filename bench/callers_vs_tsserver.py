"""Callers from the index compared with typescript-language-server's references, on a TypeScript project.

    npm install --prefix /tmp/tsls typescript-language-server@6.0.2 typescript@5
    npm pack rxjs@7.8.1 && tar -xzf rxjs-7.8.1.tgz            # rxjs ships its .ts sources in package/src
    mkdir rxjs && cp -r package/src package/tsconfig.json rxjs/  # the sources and the project's tsconfig
    python bench/callers_vs_tsserver.py --tree rxjs --server-bin /tmp/tsls/node_modules/.bin --n 50

The tree is copied to a temp dir and indexed there. For N random functions and methods (constructors left
out) of the .ts files (declaration files left out), it asks `engine.callers(uri, limit=500)` twice (the first
ask and the second, as in callers_vs_jedi.py; an answer the byte budget cut is read on through its next
action's `--offset`, as an agent reads on, unless `--no-pages`) and the server's `textDocument/references` at the definition's
name (declaration excluded), through Trifecta's own LSP adapter, and compares the (path, line) sets inside the
tree:

- trifecta: the hits resolved `exact` or `import`, with the calls that reach a method of the asked one's
  class family (`"related"`: a base's method it overrides, an override, a sibling implementation), which
  the server's references follow too; `precision_direct` / `recall_direct` leave those out;
- the server: every reference but import/export lines (all the lines of a list written over several) and
  the definition's own line, asked at the definition the URI selects (several may share a URI: a function
  nested in many of a file's functions, `const loop = ...`; `uri_selects_another` counts them).

Precision = shared / trifecta's, recall = shared / the server's (micro-averaged); a second recall counts only
the server's references that are calls (the name followed by `(` or a type argument list, not a method
declaration: the server also lists overrides in subclasses, and `{@link name}` in comments); a third leaves
out the server's places that declare the name (`recall_without_declarations`: another object literal's method
typed by the same interface member, the member's own signature; jedi's measure leaves such places out by its
`is_definition()`: they are declarations, not uses). The server's
own latency is listed for comparison (warm: one references request made first).
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import os
import random
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import trifecta

sys.path.insert(0, str(Path(__file__).resolve().parent))
from callers_vs_jedi import add_pages_option, every_hit  # noqa: E402 - the bench folder is no package

_IMPORT_OR_EXPORT = re.compile(r"\s*(import\b|export\s*(\*|\{[^}]*\}\s*from|\{))")
# an import or export list written over several lines (`import {\n  a,\n  b\n} from "./x"`): its lines
_LISTS = re.compile(
    r"^[ \t]*(?:import|export)\s+(?:type\s+)?(?:[\w$]+\s*,\s*)?\{[^}]*\}(?:\s*from\s*['\"][^'\"]*['\"])?",
    re.MULTILINE,
)


@functools.cache
def list_lines(path: Path) -> frozenset[int]:
    """The 1-based lines of a file's import and export lists."""
    text = path.read_text(errors="replace")
    return frozenset(
        line
        for m in _LISTS.finditer(text)
        for line in range(text.count("\n", 0, m.start()) + 1, text.count("\n", 0, m.end()) + 2)
    )


# what may stand before a method's name where it is declared (an override in a subclass: not a call)
_DECLARATION = re.compile(r"^\s*((public|protected|private|static|async|override|abstract|readonly)\s+)*$")


# the nodes whose name field (a pair's key) declares what the server's reference names: another object literal's
# method of the same interface member (`{ next() {} }`, `{ next: (v) => {} }`), the member's own signature
_DECLARES = {
    "method_definition": "name",
    "method_signature": "name",
    "abstract_method_signature": "name",
    "property_signature": "name",
    "public_field_definition": "name",
    "function_declaration": "name",
    "function_signature": "name",
    "pair": "key",
}


@functools.cache
def syntax_tree(path: Path) -> Any:
    """The file's tree, by Trifecta's own tree-sitter grammar of its language."""
    from trifecta.infrastructure.treesitter_parser import _compiled, spec_for

    spec = spec_for(str(path))
    if spec is None:
        return None
    return _compiled(spec.key)[0].parse(path.read_bytes()).root_node


def declares_name(path: Path, line: int, source: str, character: int) -> bool:
    """Whether the server's reference at (1-based line, character) is the name a declaration declares (the
    jedi measure leaves such places out: `is_definition()`)."""
    root = syntax_tree(path)
    if root is None:
        return False
    column = len(source[:character].encode("utf-8"))
    node = root.descendant_for_point_range((line - 1, column), (line - 1, column))
    parent = node.parent if node is not None else None
    if (
        parent is not None
        and parent.type == "member_expression"
        and parent.child_by_field_name("property") == node
    ):
        # `arrIncludes.autoRemove = (val) => ...`: the assignment defines the property (jedi's `a.b = 1` too)
        assigned = parent.parent
        return (
            assigned is not None
            and assigned.type == "assignment_expression"
            and (assigned.child_by_field_name("left") == parent)
        )
    field = _DECLARES.get(parent.type) if parent is not None else None
    return field is not None and parent.child_by_field_name(field) == node


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))] if values else 0.0


@dataclasses.dataclass
class Tally:
    """Callers against a server's references, summed over the symbols: ours, theirs, the server's
    references that are call sites, and the calls reaching the symbol itself (without its class family's
    `"related"` hits)."""

    shared: int = 0
    ours: int = 0
    theirs: int = 0
    calls: int = 0
    shared_calls: int = 0
    direct: int = 0
    shared_direct: int = 0
    declarations: int = 0
    shared_used: int = 0

    def add(
        self,
        ours: set[Any],
        theirs: set[Any],
        calls: set[Any],
        direct: set[Any],
        declarations: set[Any] | frozenset[Any] = frozenset(),
    ) -> set[Any]:
        """Count one symbol's places; the places both list. ``declarations``: the server's places that
        declare the name (another object literal's method of the same interface member, the member's own
        signature), which the jedi measure leaves out (jedi's `is_definition()`)."""
        both = ours & theirs
        self.declarations += len(theirs & declarations)
        self.shared_used += len(both - declarations)
        self.shared += len(both)
        self.ours += len(ours)
        self.theirs += len(theirs)
        self.calls += len(calls)
        self.shared_calls += len(ours & calls)
        self.direct += len(direct)
        self.shared_direct += len(direct & theirs)
        return both

    def counts(self) -> dict[str, Any]:
        return {
            "trifecta_callers": self.ours,
            "server_references": self.theirs,
            "shared": self.shared,
            "precision": round(self.shared / self.ours, 3) if self.ours else 1.0,
            "recall": round(self.shared / self.theirs, 3) if self.theirs else 1.0,
            "recall_call_sites": round(self.shared_calls / self.calls, 3) if self.calls else 1.0,
            "trifecta_direct": self.direct,
            "precision_direct": round(self.shared_direct / self.direct, 3) if self.direct else 1.0,
            "recall_direct": round(self.shared_direct / self.theirs, 3) if self.theirs else 1.0,
            "server_declarations": self.declarations,
            "recall_without_declarations": (
                round(self.shared_used / used, 3) if (used := self.theirs - self.declarations) else 1.0
            ),
        }


def warm_references(
    server: Any, path: str, text: str, line: int, column: int
) -> tuple[list[Any], float] | str:
    """The server's references at a definition's name inside the tree, but the definition's own line, and
    the ms the ask took; or what went wrong (a row's error: never fatal). Asked twice: the first ask loads
    what the server needs (the project, the packages, the files holding the name), the second is timed."""
    try:
        server.references(path, text, line, column)
        started = time.perf_counter()
        refs = server.references(path, text, line, column)
    except Exception as exc:  # noqa: BLE001 - counted, never fatal
        return f"server: {type(exc).__name__}: {exc}"[:200]
    ms = (time.perf_counter() - started) * 1000
    return [r for r in refs if r.in_segment and not (r.path == path and r.line == line)], ms


def timings(second: list[float], first: list[float], server_ms: list[float]) -> dict[str, float]:
    """Callers p50/p95 (a second ask), the first ask's p95, and the server's own references latency."""
    return {
        "callers_p50_ms": round(statistics.median(second), 2) if second else 0,
        "callers_p95_ms": round(pct(second, 0.95), 2),
        "callers_first_p95_ms": round(pct(first, 0.95), 2),
        "server_references_p50_ms": round(statistics.median(server_ms), 1) if server_ms else 0,
        "server_references_p95_ms": round(pct(server_ms, 0.95), 1),
    }


def report(summary: dict[str, Any], rows: list[dict[str, Any]], json_path: str | None) -> None:
    """The summary as a table against the issue's targets, and everything as JSON when asked."""
    print("| measure | value | target |\n|---|---|---|")
    targets = {"precision": ">= 0.9", "recall": ">= 0.85", "callers_p95_ms": "< 30"}
    for key, value in summary.items():
        print(f"| {key} | {value} | {targets.get(key, '')} |")
    if json_path:
        Path(json_path).write_text(json.dumps({"summary": summary, "rows": rows}, indent=1))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", required=True)
    ap.add_argument(
        "--server-bin", default="", help="a folder holding typescript-language-server (PATH first)"
    )
    ap.add_argument("--n", type=int, default=50)
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--json", default="")
    add_pages_option(ap)
    args = ap.parse_args()
    if args.server_bin:
        os.environ["PATH"] = f"{Path(args.server_bin).resolve()}{os.pathsep}{os.environ['PATH']}"

    from trifecta.application.zoom_ast import uri_of
    from trifecta.infrastructure.language_servers import SERVERS
    from trifecta.infrastructure.lsp_client import StdioLanguageServer
    from trifecta.interfaces.bootstrap import selector_rules

    work = Path(tempfile.mkdtemp(prefix="callers-tsserver-"))
    tree = work / "tree"
    shutil.copytree(args.tree, tree, ignore=shutil.ignore_patterns("node_modules", ".trifecta"))
    engine = trifecta.open(tree, db_path=str(work / "index.db"))
    started = time.perf_counter()
    engine.index(full=True)
    print(f"indexed in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    rules = selector_rules()["typescript"]
    pool = []
    for path, symbol in engine._app.store.all_symbols():  # noqa: SLF001 - a benchmark reads the index directly
        if not path.endswith(".ts") or path.endswith(".d.ts"):
            continue
        if symbol.kind.value not in ("function", "method") or symbol.name == "constructor":
            continue
        stem = rules.stem(path)
        if stem is None or uri_of(stem, symbol.qualname, "typescript") is None:
            continue
        pool.append((path, symbol, uri_of(stem, symbol.qualname, "typescript")))
    pool.sort(key=lambda p: (p[0], p[1].start_line))
    picked = random.Random(args.seed).sample(pool, min(args.n, len(pool)))

    spec = next(s for s in SERVERS if s.name == "typescript")
    server = StdioLanguageServer(tree, spec=spec, timeout=args.timeout)
    rows = []
    second: list[float] = []
    first: list[float] = []
    server_ms: list[float] = []
    tally, elsewhere = Tally(), 0
    try:
        for path, symbol, uri in picked:
            t = time.perf_counter()
            engine.callers(str(uri), limit=500)
            first.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            response = engine.callers(str(uri), limit=500).to_dict()
            second.append((time.perf_counter() - t) * 1000)
            hits = (
                every_hit(engine, str(uri), 500, response)
                if args.pages
                else (response["data"] or {}).get("hits", [])
            )
            sure = [h for h in hits if h["resolution"] in ("exact", "import")]
            # a URI several definitions share (a nested `const loop = ...` in many functions of a file, a
            # class expression's member) selects one: the server is asked about that one
            selected = (response["data"] or {}).get("range", {}).get("start_line")
            if selected is not None and selected != symbol.start_line:
                symbol = next(
                    (s for s in engine._app.store.symbols(path)  # noqa: SLF001
                     if s.qualname == symbol.qualname and s.start_line == selected),
                    symbol,
                )  # fmt: skip
                elsewhere += 1
            ours = {(h["path"], h["line"]) for h in sure}
            direct = {(h["path"], h["line"]) for h in sure if "related" not in h}
            text = (tree / path).read_text(errors="replace")
            found = re.search(rf"\b{re.escape(symbol.name)}\b", text.split("\n")[symbol.def_line - 1])
            column = found.start() if found else 0
            asked = warm_references(server, path, text, symbol.def_line, column)
            if isinstance(asked, str):
                rows.append({"uri": uri, "error": asked})
                continue
            refs, ms = asked
            server_ms.append(ms)
            theirs: set[tuple[str, int]] = set()
            calls: set[tuple[str, int]] = set()
            declared: set[tuple[str, int]] = set()
            for ref in refs:
                source = (tree / ref.path).read_text(errors="replace").split("\n")[ref.line - 1]
                if _IMPORT_OR_EXPORT.match(source) or ref.line in list_lines(tree / ref.path):
                    continue
                theirs.add((ref.path, ref.line))
                if declares_name(tree / ref.path, ref.line, source, ref.character):
                    declared.add((ref.path, ref.line))
                after = source[ref.character + len(symbol.name) :]  # UTF-16 = str index for ASCII sources
                declares = _DECLARATION.match(source[: ref.character]) and re.search(
                    r"\)\s*(:[^=]*)?\{\s*$", after
                )
                if re.match(r"\s*(<[^()]*>)?\s*\(", after) and not declares:
                    calls.add((ref.path, ref.line))
            both = tally.add(ours, theirs, calls, direct, declared - calls)
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
        "uri_selects_another": elsewhere,
        **tally.counts(),
        **timings(second, first, server_ms),
    }
    report(summary, rows, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
