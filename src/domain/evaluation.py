"""Retrieval quality, measured the way `../shared/eval` measures it (its README has the matching rule).

A hit matches a gold entry when the paths agree and either the symbols agree, or the hit's line range lies
inside the gold definition's range, or the gold entry names the whole file (symbol ""). At file level only
the paths must agree. Per question the first matching rank counts: reciprocal rank for MRR@k, and
"found within 1 / 5 / k" for recall@1/5/k (any gold entry found counts the question as answered).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

LEVELS = ("symbol", "file")


@attrs.frozen(kw_only=True)
class Gold:
    path: str
    symbol: str = ""  # qualified name; "" when the file is the answer
    start_line: int = 0  # the definition's range, 0 when unknown
    end_line: int = 0


@attrs.frozen(kw_only=True)
class Question:
    id: str
    query: str
    category: str  # pattern | structural | semantic | hybrid
    gold: tuple[Gold, ...]
    language: str = "en"


@attrs.frozen(kw_only=True)
class Ranked:
    """One hit as the scorer sees it."""

    path: str
    symbol: str
    start_line: int
    end_line: int


def norm_path(path: str) -> str:
    path = str(path).replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path.lstrip("/")


def matches(hit: Ranked, gold: Gold, level: str) -> bool:
    if norm_path(hit.path) != norm_path(gold.path):
        return False
    if level == "file" or not gold.symbol:
        return True
    if hit.symbol and hit.symbol == gold.symbol:
        return True
    return bool(gold.end_line) and gold.start_line <= hit.start_line and hit.end_line <= gold.end_line


def first_rank(hits: Sequence[Ranked], gold: Iterable[Gold], level: str, k: int) -> int | None:
    golds = tuple(gold)
    for rank, hit in enumerate(hits[:k], 1):
        if any(matches(hit, g, level) for g in golds):
            return rank
    return None


@attrs.frozen(kw_only=True)
class Metrics:
    questions: int
    mrr: float
    recall_1: float
    recall_5: float
    recall_k: float

    def to_data(self, k: int) -> dict[str, Any]:
        return {
            "questions": self.questions,
            f"mrr@{k}": round(self.mrr, 4),
            "r@1": round(self.recall_1, 4),
            "r@5": round(self.recall_5, 4),
            f"r@{k}": round(self.recall_k, 4),
        }


def metrics(ranks: Sequence[int | None]) -> Metrics:
    n = len(ranks)
    if not n:
        return Metrics(questions=0, mrr=0.0, recall_1=0.0, recall_5=0.0, recall_k=0.0)
    return Metrics(
        questions=n,
        mrr=sum(1.0 / r for r in ranks if r) / n,
        recall_1=sum(1 for r in ranks if r and r <= 1) / n,
        recall_5=sum(1 for r in ranks if r and r <= 5) / n,
        recall_k=sum(1 for r in ranks if r) / n,
    )


def summarize(
    questions: Sequence[Question], ranks: Mapping[str, Sequence[int | None]], k: int
) -> dict[str, Any]:
    """Overall, by class and by language, at both levels. `ranks[level][i]` belongs to `questions[i]`."""
    out: dict[str, Any] = {"k": k, "questions": len(questions)}
    for level in LEVELS:
        level_ranks = ranks[level]
        block: dict[str, Any] = {"all": metrics(level_ranks).to_data(k)}
        for key in ("category", "language"):
            groups: dict[str, list[int | None]] = {}
            for q, r in zip(questions, level_ranks, strict=True):
                groups.setdefault(getattr(q, key), []).append(r)
            block["by_" + ("class" if key == "category" else key)] = {
                name: metrics(rs).to_data(k) for name, rs in sorted(groups.items())
            }
        out[level] = block
    return out
