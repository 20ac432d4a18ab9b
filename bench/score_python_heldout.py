"""Score the held-out Python questions (bench/heldout_python/*.jsonl) beside BM25.

Forty-five questions over three installed packages nobody tuned on: pygments, fsspec and huggingface_hub
(see bench/heldout_python/README.md). Each package tree is copied, without `tests` folders and caches, to a
scratch folder and scored with the functions of `../shared/eval/score.py` (the same BM25 baseline, the same
facade call, the same matching rule), so a package's figures equal
`score.py <copy> bench/heldout_python/<package>.jsonl`.

    python bench/score_python_heldout.py                      # copy to a temp dir, verify, score, print tables
    python bench/score_python_heldout.py --corpora /tmp/heldpy  # keep the copies (and their indexes) there
    python bench/score_python_heldout.py --verify             # only check every gold entry resolves
    python bench/score_python_heldout.py --only fsspec --json /tmp/heldpy.json

A package that is not installed is skipped with a message; with none installed the script exits 0. The gold
was written against the versions in PINNED; another version is scored anyway, with a warning, and gold that
no longer resolves is listed.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import json
import re
import shutil
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

# the helpers both held-out scorers share (run as a script, bench/ is on sys.path)
from score_heldout import group_tables, load_module, load_questions, rr, score_segment

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
QUESTIONS_DIR = BENCH_DIR / "heldout_python"
DEFAULT_EVAL = REPO.parent / "shared" / "eval"
# package -> (version the gold was written against, places looked at before the running interpreter's own)
PINNED: dict[str, tuple[str, list[Path]]] = {
    "pygments": ("2.14.0", [Path("/usr/lib/python3/dist-packages/pygments")]),
    "fsspec": ("2026.9.0", []),
    "huggingface_hub": ("2.4.0", []),
}
KEYS = ["id", "query", "class", "lang", "gold", "note"]
CLASSES = ("semantic", "identifier", "structural")
IGNORE = shutil.ignore_patterns("tests", "__pycache__", "*.pyc", ".trifecta")


def installed_version(pkg_dir: Path, name: str) -> str | None:
    """The version in the `<name>-<version>.dist-info` / `.egg-info` folder next to the package, if any."""
    for meta in sorted(pkg_dir.parent.iterdir()):
        m = re.fullmatch(
            rf"{re.escape(name)}-([^-]+?)(?:\.dist-info|\.egg-info|-py.*\.egg-info)", meta.name, re.I
        )
        if m:
            return m.group(1)
    return None


def locate(name: str) -> Path | None:
    for candidate in PINNED[name][1]:
        if (candidate / "__init__.py").is_file():
            return candidate
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def copy_tree(src: Path, dest: Path) -> None:
    if dest.exists():
        print(f"{dest} exists, kept", file=sys.stderr)
        return
    shutil.copytree(src, dest, ignore=IGNORE)
    print(f"copied {src} -> {dest}", file=sys.stderr)


def resolve(tree: ast.AST, symbol: str) -> list[ast.AST]:
    """Definitions named by a dotted symbol (ClassDef/FunctionDef chain), as score.py's gold_ranges walks it."""
    nodes: list[ast.AST] = [tree]
    for part in symbol.split("."):
        nodes = [
            c
            for n in nodes[:1]
            for c in ast.iter_child_nodes(n)
            if isinstance(c, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and c.name == part
        ]
        if not nodes:
            break
    return nodes


def verify(name: str, questions: list[dict[str, Any]], seg: Path) -> list[str]:
    """Schema, unique ids, 1-4 gold entries (more only for structural), every gold resolves to one definition."""
    errors: list[str] = []
    seen: set[str] = set()
    trees: dict[Path, ast.AST] = {}
    for q in questions:
        where = f"{name}:{q.get('id', '?')}"
        if list(q) != KEYS:
            errors.append(f"{where}: keys {list(q)} != {KEYS}")
            continue
        if q["id"] in seen:
            errors.append(f"{where}: duplicate id")
        seen.add(q["id"])
        if q["class"] not in CLASSES or q["lang"] not in ("en", "es"):
            errors.append(f"{where}: class {q['class']!r} / lang {q['lang']!r}")
        if q["class"] != "structural" and not 1 <= len(q["gold"]) <= 4:
            errors.append(f"{where}: {len(q['gold'])} gold entries")
        for g in q["gold"]:
            fp = seg / g["path"]
            if not fp.is_file():
                errors.append(f"{where}: {g['path']} missing")
                continue
            if fp not in trees:
                trees[fp] = ast.parse(fp.read_text(encoding="utf-8", errors="replace"))
            found = resolve(trees[fp], g["symbol"])
            if len(found) != 1:
                errors.append(f"{where}: {g['path']}::{g['symbol']} resolves to {len(found)} definitions")
    return errors


def score_package(seg: Path, qs: list[dict[str, Any]], score_mod: ModuleType, k: int) -> dict[str, Any]:
    for q in qs:
        score_mod.gold_ranges(seg, q["gold"])
    return score_segment(seg, qs, score_mod, k)


def kind(row: dict[str, Any]) -> str:
    return "Spanish (semantic)" if row["lang"] == "es" else f"{row['class']} (en)"


def report(results: dict[str, dict[str, Any]]) -> str:
    tables, every = group_tables(results, "package", lambda row: [kind(row)])
    out = ["Symbol level (a hit counts when it is one of the gold definitions).", "", *tables]
    out += ["", "| package | Trifecta index s | Trifecta p95 ms | errors |", "|---|--:|--:|--:|"]
    out += [
        f"| {n} | {r['trifecta_index_s']:.1f} | {r['trifecta_p95_ms']:.1f} | {r['trifecta_errors']} |"
        for n, r in results.items()
    ]
    out += ["", "Trifecta misses (no gold in the top 5; rank `-` = not in the top 10):", ""]
    for row in sorted(every, key=lambda r: (rr(r["trifecta_rank"]) - rr(r["bm25_rank"]), r["id"])):
        if row["trifecta_rank"] and row["trifecta_rank"] <= 5:
            continue
        t, b = row["trifecta_rank"] or "-", row["bm25_rank"] or "-"
        out.append(f"- **{row['id']}** ({kind(row)}) Trifecta {t}, BM25 {b}: {row['query']}")
        out.append(f"  - gold: {', '.join(row['gold'])}")
        out.append(f"  - Trifecta top 3: {', '.join(row['trifecta_top3'])}")
        out.append(f"  - BM25 top 3: {', '.join(row['bm25_top3'])}")
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpora", type=Path, help="copy the packages here and keep them (default: a temp dir)")
    ap.add_argument("--eval-dir", type=Path, default=DEFAULT_EVAL, help="the shared eval folder (score.py)")
    ap.add_argument("--only", choices=sorted(PINNED), help="one package")
    ap.add_argument("--verify", action="store_true", help="check the gold entries and stop")
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()

    found: dict[str, Path] = {}
    for name in PINNED:
        if args.only and name != args.only:
            continue
        src = locate(name)
        if src is None:
            print(f"{name} is not installed: skipped", file=sys.stderr)
            continue
        version, want = installed_version(src, name), PINNED[name][0]
        if version != want:
            print(f"warning: {name} {version} at {src}; the gold was written for {want}", file=sys.stderr)
        found[name] = src
    if not found:
        print("none of the held-out packages is installed: nothing to score")
        return 0

    scratch = args.corpora or Path(tempfile.mkdtemp(prefix="heldout-python-"))
    scratch.mkdir(parents=True, exist_ok=True)
    try:
        questions = {name: load_questions(QUESTIONS_DIR / f"{name}.jsonl") for name in found}
        problems: list[str] = []
        for name, src in found.items():
            copy_tree(src, scratch / name)
            problems += verify(name, questions[name], scratch / name)
        for p in problems:
            print(p)
        n_gold = sum(len(q["gold"]) for qs in questions.values() for q in qs)
        print(f"{sum(map(len, questions.values()))} questions, {n_gold} gold entries, {len(problems)} errors")
        if args.verify:
            return 1 if problems else 0
        score_mod = load_module(args.eval_dir / "score.py", "shared_score")
        results = {}
        for name in found:
            print(f"scoring {name} ({len(questions[name])} questions)", file=sys.stderr)
            results[name] = score_package(scratch / name, questions[name], score_mod, args.k)
        print(report(results))
        if args.json:
            args.json.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    finally:
        if args.corpora is None:
            shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
