"""`trifecta eval`: run a question set through the segment's own search and score it (domain/evaluation.py).

Questions come as JSONL in the format of `../shared/eval`:
    {"id", "query", "class": pattern|structural|semantic|hybrid, "gold": [{"path", "symbol"}], "note"}
Gold definitions get their line ranges from the index's symbol table, so a hit inside the definition (a
nested function, a method of the gold class) counts as the scorer counts it.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable, Iterable
from typing import Any

import attrs

from ..domain.contract import ErrorCode, Response
from ..domain.evaluation import LEVELS, Gold, Question, Ranked, first_rank, summarize
from .ports import IndexReader

CATEGORIES = ("pattern", "structural", "semantic", "hybrid")


class BadQuestions(ValueError):
    """The question file cannot be used; the message says which line and why."""


def parse_questions(lines: Iterable[str], is_spanish: Callable[[str], bool]) -> list[Question]:
    questions: list[Question] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise BadQuestions(f"line {number}: not JSON ({exc.msg})") from None
        if not isinstance(obj, dict):
            raise BadQuestions(f"line {number}: expected a JSON object")
        query = obj.get("query")
        gold = obj.get("gold")
        if not isinstance(query, str) or not query.strip():
            raise BadQuestions(f"line {number}: 'query' must be a non-empty string")
        if not isinstance(gold, list) or not gold:
            raise BadQuestions(f"line {number}: 'gold' must be a non-empty list of {{path, symbol}}")
        golds = []
        for g in gold:
            if not isinstance(g, dict) or not isinstance(g.get("path"), str):
                raise BadQuestions(f"line {number}: every gold entry needs a 'path'")
            golds.append(
                Gold(
                    path=g["path"],
                    symbol=str(g.get("symbol") or ""),
                    start_line=int(g.get("start_line") or 0),
                    end_line=int(g.get("end_line") or 0),
                )
            )
        category = str(obj.get("class") or "unknown")
        language = str(obj.get("language") or ("es" if is_spanish(query) else "en"))
        questions.append(
            Question(
                id=str(obj.get("id") or f"q{number}"),
                query=query,
                category=category,
                gold=tuple(golds),
                language=language,
            )
        )
    if not questions:
        raise BadQuestions("the question file holds no questions")
    return questions


@attrs.frozen(kw_only=True)
class EvalRequest:
    questions: tuple[Question, ...]
    k: int = 10
    mode: str = "auto"


class EvaluateSegment:
    def __init__(self, *, reader: IndexReader, search: Callable[[str, int, str], Response]) -> None:
        self._reader = reader
        self._search = search

    def execute(self, request: EvalRequest) -> Response:
        if not 1 <= request.k <= 200:
            return Response.failure("eval", ErrorCode.INVALID_ARGUMENT, "k must be between 1 and 200")
        ranks: dict[str, list[int | None]] = {level: [] for level in LEVELS}
        rows: list[dict[str, Any]] = []
        latencies: list[float] = []
        for question in request.questions:
            golds = tuple(self._with_range(g) for g in question.gold)
            started = time.perf_counter()
            response = self._search(question.query, request.k, request.mode)
            latencies.append((time.perf_counter() - started) * 1000)
            data = response.data if response.ok else {}
            hits = [
                Ranked(
                    path=str(h.get("path", "")),
                    symbol=str(h.get("symbol", "")),
                    start_line=int(h.get("start_line", 0)),
                    end_line=int(h.get("end_line", 0)),
                )
                for h in data.get("hits", [])
            ]
            row: dict[str, Any] = {"id": question.id, "class": question.category, "query": question.query}
            for level in LEVELS:
                rank = first_rank(hits, golds, level, request.k)
                ranks[level].append(rank)
                row[f"{level}_rank"] = rank
            row["top"] = f"{hits[0].path}:{hits[0].start_line} {hits[0].symbol}".strip() if hits else ""
            row["route"] = data.get("plan", {}).get("route", "")
            if not response.ok:
                row["error"] = response.errors[0].code.value
            rows.append(row)
        summary = summarize(request.questions, ranks, request.k)
        summary["latency_ms"] = {
            "p50": round(statistics.median(latencies), 2),
            "p95": round(_percentile(latencies, 95), 2),
        }
        summary["questions_detail"] = rows
        return Response.success("eval", summary)

    def _with_range(self, gold: Gold) -> Gold:
        if not gold.symbol or gold.end_line:
            return gold
        for path, symbol in self._reader.find_symbols(qualname=gold.symbol):
            if path == gold.path:
                return attrs.evolve(gold, start_line=symbol.start_line, end_line=symbol.end_line)
        return gold


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]
