"""Selectors over the polyglot corpora: does the selector of a true definition resolve to exactly its lines?

For every corpus of ``$POLYGLOT_CORPORA`` (default /tmp/polyglot: ``go-cobra``, ``rust-serde_json``, ``ts-mobx``,
``js-axios``, as fetched by ``../shared/eval/polyglot/fetch_corpora.sh``), a copy is indexed through the public
facade, every definition that ``verify.py``'s ``definitions()`` finds in the corpus' files is turned into its
selector (``sym://<language>/type/<file without ending>/<Symbol>[#member]``), and ``Engine.snippet`` must return
exactly the definition's range (or one of the alternative spans verify accepts: a type declaration or
export statement holding the definition). ``--sample`` random definitions per language (seeded) are the
headline figure, as in issue 14's check; the whole population is reported too.

An outcome is one of:

* ``exact``: the snippet's range is the definition's;
* ``candidate``: ``AMBIGUOUS_SYMBOL`` whose candidate for the definition has its own selector, which
  resolves exactly (Rust ``Error#Display.fmt`` among ``Error#fmt``'s candidates);
* ``ambiguous``: ``AMBIGUOUS_SYMBOL`` whose candidates include the definition (one qualified name defined
  twice in a file, e.g. a Rust method in two impl blocks: the selector fails closed, by design);
* ``overload``: a TypeScript overload signature; its selector resolves to the implementation (by design),
  whose ``data.overloads`` lists the signature's range;
* ``group``: one of a group that resolves as a whole (a TypeScript ``get``/``set`` accessor pair, as a Python
  property's accessors): the range spans the group, whose ``data.definitions`` lists the definition's range;
* ``inexpressible``: the qualified name or path is not made of identifiers (Rust impl blocks such as
  ``impl Display for Value``, which are reached through their methods; files named ``my-file.ts``);
* ``wrong`` / ``error``: anything else (a wrong range, or another error code): these are the defects.

    python bench/selectors_polyglot.py [--corpora /tmp/polyglot] [--sample 40] [--seed 14] [--verify PATH]

The corpora are not in the repository; without them the script says so and exits 0.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import re
import shutil
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import trifecta
from trifecta.domain.selector import Selector

VERIFY = Path("/work/shared/eval/polyglot/verify.py")
LANGUAGE_OF_CORPUS = {"go": "go", "rust": "rust", "ts": "typescript", "js": "javascript"}


def load_verify(path: Path) -> Any:
    spec = importlib.util.spec_from_file_location("polyglot_verify", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def selector_for(language: str, path: str, qualname: str, extensions: tuple[str, ...]) -> str | None:
    trait_impl = re.fullmatch(r"impl (\w+) for (\w+)", qualname)
    if trait_impl:  # an impl block is named by its type and trait: Error#Display
        qualname = f"{trait_impl[2]}.{trait_impl[1]}"
    stem = next(
        (path[: -len(e)] for e in sorted(extensions, key=len, reverse=True) if path.endswith(e)), None
    )
    if stem is None:
        return None
    try:
        return Selector.definition(language, stem.split("/"), qualname).render()
    except ValueError:
        return None


EXTENSIONS = {
    "go": (".go",),
    "rust": (".rs",),
    "typescript": (".ts", ".tsx", ".mts", ".cts"),
    "javascript": (".js", ".jsx", ".mjs", ".cjs"),
}


def outcome(engine: Any, uri: str | None, spans: set[tuple[int, int]]) -> tuple[str, str]:
    if uri is None:
        return "inexpressible", ""
    response = engine.snippet(uri).to_dict()
    if response["status"] == "ok":
        data = response["data"]
        got = (data["range"]["start_line"], data["range"]["end_line"])
        if got in spans:
            return "exact", ""
        if {(o["start_line"], o["end_line"]) for o in data.get("overloads", [])} & spans:
            return "overload", ""
        if {(d["start_line"], d["end_line"]) for d in data.get("definitions", [])} & spans:
            return "group", ""
        return "wrong", f"got {got[0]}-{got[1]}"
    error = response["errors"][0]
    if error["code"] == "AMBIGUOUS_SYMBOL":
        mine = [
            c
            for c in error["data"].get("candidates", [])
            if "range" in c and (c["range"]["start_line"], c["range"]["end_line"]) in spans
        ]
        for candidate in mine:
            if candidate["sym"] != uri and outcome(engine, candidate["sym"], spans)[0] == "exact":
                return "candidate", ""
        if mine:
            return "ambiguous", ""
    return "error", f"{error['code']}: {error['message'][:160]}"


def corpus_definitions(verify: Any, root: Path, language: str) -> list[tuple[str, str, set[tuple[int, int]]]]:
    listing = root.parent / f"{root.name}.files"
    files = listing.read_text().split() if listing.exists() else []
    out = []
    for rel in files:
        source = (root / rel).read_text("utf-8", errors="replace")
        for name, _kind, start, end, spans in verify.definitions(source, language):
            out.append((rel, name, {(start, end), *spans}))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpora", default=os.environ.get("POLYGLOT_CORPORA", "/tmp/polyglot"))
    ap.add_argument("--sample", type=int, default=40)
    ap.add_argument("--seed", type=int, default=14)
    ap.add_argument("--verify", type=Path, default=VERIFY)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    corpora = Path(args.corpora)
    roots = sorted(p for p in corpora.iterdir() if p.is_dir()) if corpora.is_dir() else []
    roots = [p for p in roots if p.name.split("-", 1)[0] in LANGUAGE_OF_CORPUS]
    if not roots or not args.verify.exists():
        print(f"no corpora under {corpora} (or no {args.verify}): nothing to measure")
        return 0
    verify = load_verify(args.verify)
    rng = random.Random(args.seed)
    report: dict[str, Any] = {}
    failures: dict[str, list[str]] = defaultdict(list)
    with tempfile.TemporaryDirectory() as tmp:
        for root in roots:
            language = LANGUAGE_OF_CORPUS[root.name.split("-", 1)[0]]
            copy = Path(tmp) / root.name
            shutil.copytree(root, copy)
            definitions = corpus_definitions(verify, root, language)
            sample = rng.sample(definitions, min(args.sample, len(definitions)))
            with trifecta.open(copy) as engine:
                engine.index()
                every: Counter[str] = Counter()
                sampled: Counter[str] = Counter()
                for item in definitions:
                    rel, name, spans = item
                    uri = selector_for(language, rel, name, EXTENSIONS[language])
                    result, detail = outcome(engine, uri, spans)
                    every[result] += 1
                    if item in sample:
                        sampled[result] += 1
                    if result in ("wrong", "error", "inexpressible"):
                        failures[root.name].append(f"{result}: {rel} {name} {sorted(spans)} {uri} {detail}")
            report[root.name] = {
                "language": language,
                "sample": dict(sampled),
                "sample_size": len(sample),
                "all": dict(every),
                "all_size": len(definitions),
            }
    if args.json:
        print(json.dumps({"report": report, "failures": failures}, indent=2))
        return 0
    print("resolved = exact, or through the selector of its AMBIGUOUS_SYMBOL candidate")
    print(f"{'corpus':18} {'sample resolved':>16} {'all resolved':>13}  all outcomes")
    for name, row in report.items():
        sample = row["sample"].get("exact", 0) + row["sample"].get("candidate", 0)
        every = row["all"].get("exact", 0) + row["all"].get("candidate", 0)
        print(f"{name:18} {sample:>9}/{row['sample_size']:<6} {every:>6}/{row['all_size']:<6}  {row['all']}")
    for name, lines in failures.items():
        print(f"\n{name}: {len(lines)} not exact")
        for line in lines[:25]:
            print("  " + line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
