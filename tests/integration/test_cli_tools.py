"""`trifecta eval` as a user runs it: a question file, the real index, JSON and human output."""

from __future__ import annotations

import json
from pathlib import Path

from tests.integration.test_cli import envelope, run


def _questions(path: Path) -> Path:
    rows = [
        {"id": "q1", "query": "parse an HTTP header line", "class": "semantic",
         "gold": [{"path": "shop/checkout.py", "symbol": "parse_http_header"}]},
        {"id": "q2", "query": "reserveStock", "class": "pattern",
         "gold": [{"path": "shop/inventory.py", "symbol": "Inventory.reserveStock"}]},
        {"id": "q3", "query": "zzqx nothing matches this", "class": "semantic",
         "gold": [{"path": "shop/utils.py", "symbol": "slugify"}]},
    ]  # fmt: skip
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def test_eval_scores_a_question_set(sample_repo: Path, tmp_path: Path) -> None:
    queries = _questions(tmp_path / "q.jsonl")
    proc = run("eval", "--segment", str(sample_repo), "--queries", str(queries), "--k", "5", "--json")
    assert proc.returncode == 0, proc.stderr
    data = envelope(proc)["data"]
    ranks = {q["id"]: q["symbol_rank"] for q in data["questions_detail"]}
    assert ranks["q1"] == 1 and ranks["q2"] == 1 and ranks["q3"] is None
    assert data["symbol"]["all"]["mrr@5"] == round(2 / 3, 4)
    assert data["symbol"]["by_class"]["pattern"]["r@1"] == 1.0

    human = run("eval", "--segment", str(sample_repo), "--queries", str(queries), "--k", "5")
    assert human.returncode == 0
    assert "MRR@5" in human.stdout and "missed at symbol level (1)" in human.stdout


def test_eval_rejects_a_bad_question_file(sample_repo: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"query": "x"}\n')
    proc = run("eval", "--segment", str(sample_repo), "--queries", str(bad), "--json")
    assert proc.returncode == 2
    assert envelope(proc)["errors"][0]["code"] == "INVALID_ARGUMENT"
    missing = run("eval", "--segment", str(sample_repo), "--queries", str(tmp_path / "nope.jsonl"))
    assert missing.returncode != 0 and "cannot read" in missing.stderr


def test_explain_prints_the_plan_before_the_hits(sample_repo: Path) -> None:
    proc = run(
        "ctx", "search", "--segment", str(sample_repo), "--query", "subclasses of PaymentError", "--explain"
    )
    assert proc.returncode == 0, proc.stderr
    head, _, hits = proc.stdout.partition("\n\n")
    assert head.startswith("class      structural")
    assert "route      structural" in head and "structural x0.7" in head
    assert '"base": "PaymentError"' in head
    assert hits.startswith("shop/checkout.py:14  CardDeclined")


def test_regex_flag_on_the_command_line(sample_repo: Path) -> None:
    ok = run(
        "ctx", "search", "--segment", str(sample_repo), "--query", r"def \w+_input\(", "--regex", "--json"
    )
    assert ok.returncode == 0, ok.stderr
    hits = envelope(ok)["data"]["hits"]
    assert [(h["path"], h["line"]) for h in hits] == [("shop/checkout.py", 24)]
    bad = run("ctx", "search", "--segment", str(sample_repo), "--query", "(", "--regex")
    assert bad.returncode == 2 and "invalid regular expression" in bad.stderr
