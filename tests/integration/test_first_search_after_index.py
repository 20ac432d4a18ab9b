"""The first search after an explicit `index()` in the same process: it does not list the tree again (the
index run's listing is watched), yet it never answers from a stale index when a file changed in between."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

import trifecta
from trifecta.infrastructure.file_source import LocalFileSource

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux only"),
    pytest.mark.timeout(120),
]


def paths_for(engine: trifecta.Engine, query: str) -> list[str]:
    data = engine.search(query).to_dict()
    assert data["status"] == "ok", data["errors"]
    return [h["path"] for h in data["data"]["hits"]]


@pytest.fixture
def listings(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many times a real LocalFileSource listed the tree (the stat scan a freshness check costs)."""
    calls: list[int] = []
    real = LocalFileSource.scan

    def counted(self: LocalFileSource) -> Any:
        calls.append(1)
        return real(self)

    monkeypatch.setattr(LocalFileSource, "scan", counted)
    return calls


def test_the_first_search_after_index_does_not_list_the_tree_again(
    sample_repo: Path, listings: list[int]
) -> None:
    with trifecta.open(sample_repo, workers=1) as engine:
        engine.index()
        assert len(listings) == 1
        assert engine._app.index.freshness() is True  # the index run's own listing is watched
        data = engine.search("slugify").to_dict()
        assert data["status"] == "ok" and data["data"]["index"]["refreshed"] == 0
        assert "shop/utils.py" in [h["path"] for h in data["data"]["hits"]]
        assert len(listings) == 1  # the search trusted the watch: no second stat scan


def test_a_file_changed_between_index_and_search_is_searched_as_it_is_now(
    sample_repo: Path, listings: list[int]
) -> None:
    shop = sample_repo / "shop"
    with trifecta.open(sample_repo, workers=1) as engine:
        engine.index()
        (shop / "utils.py").write_text("def zanzibar_quokka():\n    return 1\n")  # modified in place
        assert "shop/utils.py" in paths_for(engine, "zanzibar_quokka")
        assert "shop/utils.py" not in paths_for(engine, "slugify")  # its old content is gone
        assert len(listings) == 2  # the watch saw the change: the search refreshed first

        engine.index()
        (shop / "added.py").write_text("def okapi_narwhal():\n    return 2\n")  # a new file
        assert "shop/added.py" in paths_for(engine, "okapi_narwhal")

        engine.index()
        (shop / "added.py").unlink()  # a deleted file
        assert "shop/added.py" not in paths_for(engine, "okapi_narwhal")


def test_without_a_watch_the_first_search_after_index_still_checks(sample_repo: Path) -> None:
    with trifecta.open(sample_repo, workers=1, watch_files=False) as engine:
        engine.index()
        assert engine._app.index.freshness() is None  # nothing can vouch: the search stats every file
        (sample_repo / "shop" / "utils.py").write_text("def tapir_gecko():\n    return 6\n")
        assert "shop/utils.py" in paths_for(engine, "tapir_gecko")


def test_a_one_shot_cli_index_does_not_start_a_watch(sample_repo: Path) -> None:
    """`trifecta ctx index` lists once and exits: the watch would be set up for nothing."""
    with trifecta.open(sample_repo, workers=1) as engine:
        engine.origin = "cli"
        engine.index()
        assert engine._app.index.freshness() is None
        (sample_repo / "shop" / "utils.py").write_text("def quetzal_marmot():\n    return 3\n")
        assert "shop/utils.py" in paths_for(engine, "quetzal_marmot")
