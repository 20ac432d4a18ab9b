"""Search answers "who calls X" from the call graph recorded at index time (issue 17, item 4): the calling
definitions first, each at the line of its call, with the plan saying how the calls were resolved."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import trifecta

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "callgraph"


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory):
    dest = tmp_path_factory.mktemp("graph") / "repo"
    shutil.copytree(FIXTURE, dest, ignore=shutil.ignore_patterns(".trifecta"))
    opened = trifecta.open(str(dest))
    opened.index()
    yield opened
    opened.close()


def search(engine, query: str) -> dict:
    response = engine.search(query, limit=5).to_dict()
    assert response["status"] == "ok", response
    return response["data"]


def test_who_calls_a_method_lists_its_callers_first_at_the_call_line(engine) -> None:
    data = search(engine, "who calls Store.load")
    first = data["hits"][0]
    assert (first["path"], first["symbol"], first["match_type"]) == (
        "py/app/service.py",
        "Service.fetch",
        "call",
    )
    source = (Path(engine.segment) / first["path"]).read_text().splitlines()
    assert "self.backend.load(key)" in source[first["line"] - 1]
    assert data["plan"]["graph"] == {
        "target": "Store.load",
        "tests_only": False,
        "call_sites": 1,
        "resolutions": {"exact": 1},
    }


def test_tests_that_cover_a_function_are_the_tests_calling_it(engine) -> None:
    data = search(engine, "tests that cover run")
    assert data["hits"][0]["path"] == "py/tests/test_service.py"
    assert data["plan"]["graph"]["tests_only"] is True


def test_functions_that_call_a_name_follow_aliases(engine) -> None:
    data = search(engine, "functions that call normalize")
    callers = [h["symbol"] for h in data["hits"] if h["match_type"] == "call"]
    assert sorted(callers) == ["Service.fetch", "Store.load"]  # Service.fetch calls it as `norm(key)`


def test_go_callers_come_from_the_same_graph(engine) -> None:
    data = search(engine, "who calls local")
    assert data["hits"][0]["path"] == "go/main.go"
    assert data["hits"][0]["symbol"] == "main"
    assert data["hits"][0]["match_type"] == "call"


def test_other_questions_do_not_ask_the_graph(engine) -> None:
    data = search(engine, "how does the service fetch a key")
    assert "graph" not in data["plan"]
    assert all(h["match_type"] != "call" for h in data["hits"])


def test_a_function_named_with_its_module_is_found_with_its_callers_in_that_module(engine) -> None:
    # `store.normalize`: Store.load calls it by its bare name in store.py (no import says so), Service.fetch
    # through `from .store import normalize as norm`
    data = search(engine, "who calls store.normalize")
    callers = sorted(h["symbol"] for h in data["hits"] if h["match_type"] == "call")
    assert callers == ["Service.fetch", "Store.load"]
    assert data["plan"]["graph"]["resolutions"] == {"exact": 1, "import": 1}


def test_a_graph_question_searches_its_target_not_the_word_calls(tmp_path: Path) -> None:
    # the rest of the page is about the target; a target named nowhere gets no hits about "calls"
    dest = tmp_path / "repo"
    shutil.copytree(FIXTURE, dest, ignore=shutil.ignore_patterns(".trifecta"))
    (dest / "py" / "app" / "journal.py").write_text(
        'def record(worker):\n    """Counts the calls each worker makes and who calls it."""\n    return worker\n'
    )
    with trifecta.open(str(dest)) as opened:
        opened.index()
        missing = search(opened, "who calls defragment")
        assert missing["hits"] == []
        assert missing["plan"]["graph"]["call_sites"] == 0
        assert missing["plan"]["unmatched"] == ["defragment"]
        found = search(opened, "who calls Store.load")
        assert found["hits"][0]["symbol"] == "Service.fetch"
        assert "record" not in [h["symbol"] for h in found["hits"]]
