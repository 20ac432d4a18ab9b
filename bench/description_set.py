"""A description-to-code check: docstrings' first sentences asked against the code with every docstring removed.

Issue 15 is checked "on a description-to-code set with docstrings removed": a question that describes what a
definition does, asked where no docstring says it in those words, so only names and code can answer. This
builds such a set from installed packages nobody on the team tuned on (default: httpx, anyio, hypothesis,
jedi, jsonschema, markdown_it: 40 questions each), offline and deterministic:

1. every function, method and class of the package (tests and vendored code left out) with a docstring whose
   first sentence has 6 to 40 words, no doctest, and does not spell its own definition's name, is a candidate
   question; the gold answer is that definition;
2. the package is copied with every docstring removed (`ast.unparse`: comments go too, so only names and code
   remain; line numbers change, the gold names the definition, not its lines);
3. `--n` questions per package are drawn with `--seed`.

    python bench/description_set.py --out /tmp/desc                  # build the sets
    python bench/description_set.py --out /tmp/desc --score          # build, then score beside BM25

Scoring uses `../shared/eval/score.py` (the same BM25 baseline over definition chunks, the same facade call,
the same matching rule); without it, run `trifecta eval --segment DIR/PKG --queries DIR/PKG.jsonl`.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import json
import random
import re
import shutil
import sys
from pathlib import Path
from typing import Any

DEFAULT_PACKAGES = ("httpx", "anyio", "hypothesis", "jedi", "jsonschema", "markdown_it")
SKIPPED_PARTS = frozenset({"tests", "test", "vendor", "_vendor", "vendored"})
MIN_WORDS, MAX_WORDS = 6, 40
SCORER = Path(__file__).resolve().parents[2] / "shared" / "eval" / "score.py"


def package_dir(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        sys.exit(f"{name} is not an installed package (pip install {name})")
    return Path(next(iter(spec.submodule_search_locations)))


def first_sentence(doc: str) -> str:
    return re.split(r"(?<=[.!?])\s|\n\n", doc.strip(), maxsplit=1)[0].replace("\n", " ").strip()


def is_question(sentence: str, name: str) -> bool:
    """A first sentence that makes a description question: 6 to 40 words, no doctest, and it does not spell
    the definition's own name (case-insensitive)."""
    words = re.findall(r"[A-Za-z]+", sentence)
    own_name = name.lower() in sentence.lower()
    return MIN_WORDS <= len(words) <= MAX_WORDS and ">>>" not in sentence and not own_name


def draw(pool: list[dict[str, Any]], n: int, seed: int) -> list[tuple[str, list[dict[str, Any]]]]:
    """`n` questions drawn with `seed` from candidates (`query` plus the gold fields): one question per
    distinct sentence, every definition that has that sentence is its gold."""
    by_sentence: dict[str, list[dict[str, Any]]] = {}
    for c in pool:
        by_sentence.setdefault(c["query"], []).append({k: v for k, v in c.items() if k != "query"})
    sentences = sorted(by_sentence)
    picked = random.Random(seed).sample(sentences, min(n, len(sentences)))
    return [(q, by_sentence[q]) for q in picked]


def load_scorer() -> Any:
    """`../shared/eval/score.py` as a module (its BM25 baseline, facade call and matching rule)."""
    if not SCORER.exists():
        sys.exit(f"{SCORER} is missing: score with trifecta eval --segment DIR/PKG --queries DIR/PKG.jsonl")
    spec = importlib.util.spec_from_file_location("score", SCORER)
    assert spec is not None and spec.loader is not None
    scorer = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(scorer)
    return scorer


class _WithoutDocstrings(ast.NodeTransformer):
    """Drops the docstring of every module, class and function (a body left empty gets `pass`)."""

    def _strip(self, node: Any) -> Any:
        self.generic_visit(node)
        body = node.body
        first = body[0] if body else None
        if (
            isinstance(first, ast.Expr)
            and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)
        ):
            node.body = body[1:] or [ast.Pass()]
        return node

    visit_Module = visit_ClassDef = visit_FunctionDef = visit_AsyncFunctionDef = _strip


def candidates(tree: ast.Module, rel: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                qualname = f"{prefix}.{child.name}" if prefix else child.name
                doc = ast.get_docstring(child)
                if doc and not child.name.startswith("__"):
                    sentence = first_sentence(doc)
                    if is_question(sentence, child.name):
                        out.append({"path": rel, "symbol": qualname, "query": sentence})
                if isinstance(child, ast.ClassDef):
                    walk(child, qualname)

    walk(tree, "")
    return out


def build(package: str, out: Path, n: int, seed: int) -> int:
    source, tree_out = package_dir(package), out / package
    if tree_out.exists():
        shutil.rmtree(tree_out)
    pool: list[dict[str, Any]] = []
    for path in sorted(source.rglob("*.py")):
        rel = path.relative_to(source)
        if SKIPPED_PARTS & set(rel.parts):
            continue
        try:
            tree = ast.parse(path.read_text("utf-8", errors="replace"))
        except (SyntaxError, ValueError):
            continue
        pool += candidates(tree, rel.as_posix())
        dest = tree_out / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(ast.unparse(_WithoutDocstrings().visit(tree)) + "\n", encoding="utf-8")
    picked = draw(pool, n, seed)
    lines = [
        json.dumps({"id": f"d{i:02d}", "query": q, "class": "semantic", "gold": gold})
        for i, (q, gold) in enumerate(picked, 1)
    ]
    (out / f"{package}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(picked)


def score(out: Path, packages: list[str]) -> None:
    scorer = load_scorer()
    print("| package | questions | Trifecta symbol MRR@10 / r@5 | BM25 MRR@10 / r@5 |")
    print("|---|--:|--:|--:|")
    totals = [0.0, 0.0]
    for package in packages:
        segment, queries = out / package, scorer.load(str(out / f"{package}.jsonl"))
        shutil.rmtree(segment / ".trifecta", ignore_errors=True)
        for q in queries:
            scorer.gold_ranges(segment, q["gold"])
        bm25 = scorer.score(scorer.run_baseline(segment, queries, 10)[0], queries, 10)["symbol"]
        ours = scorer.score(scorer.run_project(segment, queries, 10)[0], queries, 10)["symbol"]
        totals[0] += ours["mrr"]
        totals[1] += bm25["mrr"]
        print(
            f"| {package} | {len(queries)} | {ours['mrr']:.3f} / {ours['r@5']:.2f} "
            f"| {bm25['mrr']:.3f} / {bm25['r@5']:.2f} |"
        )
    print(f"| **mean** | | **{totals[0] / len(packages):.3f}** | {totals[1] / len(packages):.3f} |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True, help="where the stripped trees and questions go")
    ap.add_argument("--packages", nargs="+", default=list(DEFAULT_PACKAGES))
    ap.add_argument("--n", type=int, default=40, help="questions per package")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument(
        "--score", action="store_true", help="score each set beside BM25 (../shared/eval/score.py)"
    )
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for package in args.packages:
        print(f"{package}: {build(package, args.out, args.n, args.seed)} questions", file=sys.stderr)
    if args.score:
        score(args.out, args.packages)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
