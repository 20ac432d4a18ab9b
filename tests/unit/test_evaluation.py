"""The scoring rule of ../shared/eval, as pure functions: matching, first rank, metrics, summaries."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trifecta.application.evaluate import BadQuestions, parse_questions
from trifecta.domain.evaluation import Gold, Question, Ranked, first_rank, matches, metrics, summarize

GOLD = Gold(path="pkg/mod.py", symbol="Widget.render", start_line=10, end_line=30)


@pytest.mark.parametrize(
    ("hit", "level", "expected"),
    [
        (Ranked(path="pkg/mod.py", symbol="Widget.render", start_line=99, end_line=120), "symbol", True),
        (Ranked(path="./pkg/mod.py", symbol="", start_line=12, end_line=20), "symbol", True),  # inside
        (Ranked(path="pkg/mod.py", symbol="", start_line=5, end_line=20), "symbol", False),  # starts before
        (Ranked(path="pkg/mod.py", symbol="Widget", start_line=1, end_line=40), "symbol", False),
        (Ranked(path="pkg/mod.py", symbol="Widget", start_line=1, end_line=40), "file", True),
        (Ranked(path="pkg/other.py", symbol="Widget.render", start_line=10, end_line=30), "file", False),
    ],
)
def test_matching_rule(hit: Ranked, level: str, expected: bool) -> None:
    assert matches(hit, GOLD, level) is expected


def test_a_whole_file_gold_matches_any_hit_in_the_file() -> None:
    gold = Gold(path="pkg/mod.py")
    assert matches(Ranked(path="pkg/mod.py", symbol="x", start_line=1, end_line=2), gold, "symbol")


def test_first_rank_and_metrics() -> None:
    miss = Ranked(path="a.py", symbol="f", start_line=1, end_line=2)
    hit = Ranked(path="pkg/mod.py", symbol="Widget.render", start_line=10, end_line=30)
    assert first_rank([miss, miss, hit], [GOLD], "symbol", k=10) == 3
    assert first_rank([miss, miss, hit], [GOLD], "symbol", k=2) is None
    m = metrics([1, 3, None, 6])
    assert m.questions == 4
    assert m.mrr == pytest.approx((1 + 1 / 3 + 1 / 6) / 4)
    assert (m.recall_1, m.recall_5, m.recall_k) == (0.25, 0.5, 0.75)


@given(st.lists(st.one_of(st.none(), st.integers(min_value=1, max_value=10)), min_size=1))
def test_metrics_are_ordered_and_bounded(ranks: list[int | None]) -> None:
    m = metrics(ranks)
    assert 0.0 <= m.recall_1 <= m.recall_5 <= m.recall_k <= 1.0
    assert m.recall_1 <= m.mrr <= m.recall_k


def test_summary_splits_by_class_and_language() -> None:
    qs = [
        Question(id="1", query="a", category="pattern", gold=(GOLD,), language="en"),
        Question(id="2", query="b", category="semantic", gold=(GOLD,), language="es"),
    ]
    out = summarize(qs, {"symbol": [1, None], "file": [1, 2]}, k=10)
    assert out["symbol"]["all"]["mrr@10"] == 0.5
    assert out["symbol"]["by_class"]["semantic"]["r@10"] == 0.0
    assert out["file"]["by_language"]["es"]["mrr@10"] == 0.5


def test_parse_questions_reads_the_shared_format_and_rejects_bad_lines() -> None:
    lines = [
        '{"id": "p1", "query": "where is x", "class": "semantic", "gold": [{"path": "a.py", "symbol": "f"}]}',
        "",
        '{"id": "p2", "query": "¿dónde se valida?", "class": "semantic", "gold": [{"path": "a.py"}]}',
    ]
    qs = parse_questions(lines, is_spanish=lambda q: q.startswith("¿"))
    assert [q.id for q in qs] == ["p1", "p2"]
    assert [q.language for q in qs] == ["en", "es"]
    assert qs[1].gold[0].symbol == ""
    for bad, why in [
        ("not json", "line 1: not JSON"),
        ('{"query": "", "gold": [{"path": "a"}]}', "'query'"),
        ('{"query": "q", "gold": []}', "'gold'"),
        ('{"query": "q", "gold": [{"symbol": "f"}]}', "'path'"),
        ("[1, 2]", "JSON object"),
    ]:
        with pytest.raises(BadQuestions, match=why):
            parse_questions([bad], is_spanish=lambda q: False)
    with pytest.raises(BadQuestions, match="no questions"):
        parse_questions(["", "  "], is_spanish=lambda q: False)
