"""Check and score the held-out polyglot questions (bench/polyglot_heldout_questions.jsonl) beside BM25.

The questions are asked over the large trees that bench_polyglot.py fetches (go-x-tools, rust-tokio-syn,
ts-rxjs, js-webpack). Every figure comes from the functions of `../shared/eval/score.py` (the same BM25
baseline, the same facade call, the same matching rule) and the gold is checked with the `definitions()`
of `../shared/eval/polyglot/verify.py`, so a run here equals `score.py <tree> <that tree's questions>`.

    python bench/bench_polyglot.py --fetch-only                      # once: the trees, pinned by hash
    python bench/score_heldout.py --copy-to /tmp/heldout             # copy them (never index the originals)
    python bench/score_heldout.py --corpora /tmp/heldout --verify    # check every gold entry: "0 errors"
    python bench/score_heldout.py --corpora /tmp/heldout             # score: per tree, overall, and losses

Scoring indexes each tree copy in place (its `.trifecta/` folder); remove those folders for a cold run.
`--json OUT` writes per-question ranks and top hits; `--only TREE` scores one tree.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import shutil
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
QUESTIONS = BENCH_DIR / "polyglot_heldout_questions.jsonl"
DEFAULT_EVAL = REPO.parent / "shared" / "eval"
FETCHED = Path("/tmp/trifecta-polyglot-bench")
KEYS = ["id", "query", "class", "language", "lang", "corpus", "gold", "note"]
GOLD_KEYS = ["path", "symbol", "start_line", "end_line"]


def load_module(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        sys.exit(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_questions(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def copy_trees(questions: list[dict[str, Any]], dest: Path) -> None:
    for corpus in sorted({q["corpus"] for q in questions}):
        src, out = FETCHED / corpus, dest / corpus
        if not src.is_dir():
            sys.exit(f"{src} is missing: run python bench/bench_polyglot.py --fetch-only")
        if out.exists():
            print(f"{out} exists, kept", file=sys.stderr)
            continue
        shutil.copytree(src, out, ignore=shutil.ignore_patterns(".trifecta"))
        print(f"copied {src} -> {out}", file=sys.stderr)


def verify(questions: list[dict[str, Any]], corpora: Path, verify_mod: ModuleType) -> int:
    """Each gold entry is exactly one definition that verify.py's definitions() finds; prints errors."""
    errors: list[str] = []
    cache: dict[Path, tuple[list[str], list[Any]]] = {}
    seen_ids: set[str] = set()
    for q in questions:
        where = q.get("id", "?")
        if list(q) != KEYS:
            errors.append(f"{where}: keys {list(q)} != {KEYS}")
        if where in seen_ids:
            errors.append(f"{where}: duplicate id")
        seen_ids.add(where)
        if q["lang"] == "es" and q["class"] != "semantic":
            errors.append(f"{where}: Spanish questions are meant to be semantic")
        if q["class"] != "structural" and len(q["gold"]) > 3:
            errors.append(f"{where}: {len(q['gold'])} gold entries for a {q['class']} question")
        texts = []
        for g in q["gold"]:
            if list(g) != GOLD_KEYS:
                errors.append(f"{where}: gold keys {list(g)}")
                continue
            fp = corpora / q["corpus"] / g["path"]
            if not fp.is_file():
                errors.append(f"{where}: {fp} missing")
                continue
            if fp not in cache:
                src = fp.read_text(encoding="utf-8")
                cache[fp] = (src.splitlines(), verify_mod.definitions(src, q["language"]))
            lines, defs = cache[fp]
            cands = [d for d in defs if d[0] == g["symbol"]]
            if not any((g["start_line"], g["end_line"]) in d[4] for d in cands):
                found = sorted({sp for d in cands for sp in d[4]})
                errors.append(
                    f"{where}: {g['path']} {g['symbol']} {g['start_line']}-{g['end_line']}: found {found}"
                )
                continue
            texts.append("\n".join(lines[g["start_line"] - 1 : g["end_line"]]))
        if q["class"] == "pattern":
            for lit in re.findall(r"`([^`]+)`", q["query"]):
                if not any(lit in t for t in texts):
                    errors.append(f"{where}: literal {lit!r} not in the gold lines")
    for e in errors:
        print(e)
    print(
        f"{len(questions)} questions, {sum(len(q['gold']) for q in questions)} gold entries, {len(errors)} errors"
    )
    return len(errors)


def rank_of(hits: list[dict[str, Any]], q: dict[str, Any], score_mod: ModuleType, k: int) -> int | None:
    return next(
        (i + 1 for i, h in enumerate(hits[:k]) if any(score_mod.match(h, g, "symbol") for g in q["gold"])),
        None,
    )


def short(hit: dict[str, Any]) -> str:
    sym = hit.get("symbol") or f"L{hit.get('start_line')}-{hit.get('end_line')}"
    return f"{hit.get('path')}::{sym}"


def score_tree(
    corpora: Path, corpus: str, qs: list[dict[str, Any]], score_mod: ModuleType, k: int
) -> dict[str, Any]:
    print(f"scoring {corpus} ({len(qs)} questions)", file=sys.stderr)
    return score_segment(corpora / corpus, qs, score_mod, k)


def score_segment(seg: Path, qs: list[dict[str, Any]], score_mod: ModuleType, k: int) -> dict[str, Any]:
    """Trifecta beside score.py's BM25 baseline over one segment: the two scores and each question's ranks
    and top three (bench/score_python_heldout.py scores its packages with it too)."""
    base_runs, base_index_s, _ = score_mod.run_baseline(seg, qs, k)
    tri_runs, index_s, lat, errors = score_mod.run_project(seg, qs, k)
    per_q = [
        {
            "id": q["id"],
            "class": q["class"],
            "lang": q["lang"],
            "query": q["query"],
            "gold": [f"{g['path']}::{g['symbol']}" for g in q["gold"]],
            "trifecta_rank": rank_of(t, q, score_mod, k),
            "bm25_rank": rank_of(b, q, score_mod, k),
            "trifecta_top3": [short(h) for h in t[:3]],
            "bm25_top3": [short(h) for h in b[:3]],
        }
        for q, b, t in zip(qs, base_runs, tri_runs, strict=True)
    ]
    return {
        "queries": len(qs),
        "trifecta": score_mod.score(tri_runs, qs, k),
        "bm25": score_mod.score(base_runs, qs, k),
        "trifecta_index_s": index_s,
        "bm25_index_s": base_index_s,
        "trifecta_p95_ms": 1e3 * score_mod.pct(lat, 95),
        "trifecta_errors": errors,
        "questions": per_q,
    }


def rr(rank: int | None) -> float:
    return 1 / rank if rank else 0.0


def group_row(name: str, rows: list[dict[str, Any]]) -> str:
    n = len(rows)
    t_mrr = sum(rr(r["trifecta_rank"]) for r in rows) / n
    b_mrr = sum(rr(r["bm25_rank"]) for r in rows) / n
    t_r5 = sum(1 for r in rows if r["trifecta_rank"] and r["trifecta_rank"] <= 5) / n
    b_r5 = sum(1 for r in rows if r["bm25_rank"] and r["bm25_rank"] <= 5) / n
    return f"| {name} | {n} | {t_mrr:.3f} | {t_r5:.2f} | {b_mrr:.3f} | {b_r5:.2f} |"


def group_tables(
    results: dict[str, dict[str, Any]], label: str, kinds: Callable[[dict[str, Any]], list[str]]
) -> tuple[list[str], list[dict[str, Any]]]:
    """The per-`label` table (each result, then overall) and the per-kind table (a question counts in each of
    `kinds(row)`), with every question's row."""
    head = "| {} | q | Trifecta MRR@10 | Trifecta r@5 | BM25 MRR@10 | BM25 r@5 |\n|---|--:|--:|--:|--:|--:|"
    out = [head.format(label)]
    every: list[dict[str, Any]] = []
    for name, r in results.items():
        out.append(group_row(name, r["questions"]))
        every += r["questions"]
    out.append(group_row("**overall**", every))
    out += ["", head.format("kind")]
    by: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in every:
        for kind in kinds(row):
            by[kind].append(row)
    out += [group_row(name, rows) for name, rows in sorted(by.items())]
    return out, every


def report(results: dict[str, dict[str, Any]]) -> str:
    out, every = group_tables(
        results, "tree", lambda row: [row["class"], *(["Spanish (semantic)"] if row["lang"] == "es" else [])]
    )
    out += ["", "Questions where Trifecta ranks the gold lower than BM25 (rank `-` = not in the top 10):", ""]
    for row in every:
        if rr(row["trifecta_rank"]) < rr(row["bm25_rank"]):
            t, b = row["trifecta_rank"] or "-", row["bm25_rank"] or "-"
            out.append(
                f"- **{row['id']}** ({row['class']}, {row['lang']}) Trifecta {t}, BM25 {b}: {row['query']}"
            )
            out.append(f"  - gold: {', '.join(row['gold'])}")
            out.append(f"  - Trifecta top 3: {', '.join(row['trifecta_top3'])}")
            out.append(f"  - BM25 top 3: {', '.join(row['bm25_top3'])}")
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpora", type=Path, default=Path("/tmp/heldout"))
    ap.add_argument("--questions", type=Path, default=QUESTIONS)
    ap.add_argument("--eval-dir", type=Path, default=DEFAULT_EVAL, help="the shared eval folder (score.py)")
    ap.add_argument("--copy-to", type=Path, help="copy the fetched trees here and stop")
    ap.add_argument("--verify", action="store_true", help="check the gold entries and stop")
    ap.add_argument("--only", help="score one tree")
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    questions = load_questions(args.questions)
    if args.copy_to:
        copy_trees(questions, args.copy_to)
        return 0
    if args.verify:
        verify_mod = load_module(args.eval_dir / "polyglot" / "verify.py", "polyglot_verify")
        return 1 if verify(questions, args.corpora, verify_mod) else 0
    score_mod = load_module(args.eval_dir / "score.py", "shared_score")
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for q in questions:
        if not args.only or q["corpus"] == args.only:
            groups[q["corpus"]].append(q)
    results = {c: score_tree(args.corpora, c, qs, score_mod, args.k) for c, qs in groups.items()}
    print(report(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
