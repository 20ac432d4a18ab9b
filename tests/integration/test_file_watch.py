"""The inotify watch that lets a freshness check skip the stat scan: it must never hide a change."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

import trifecta
from trifecta.infrastructure.dir_watch import DirectoryWatch
from trifecta.infrastructure.file_source import LocalFileSource

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux only")


def paths_for(engine: trifecta.Engine, query: str) -> list[str]:
    data = engine.search(query).to_dict()
    assert data["status"] == "ok", data["errors"]
    return [h["path"] for h in data["data"]["hits"]]


def refreshed(engine: trifecta.Engine, query: str = "slugify") -> int:
    return engine.search(query).to_dict()["data"]["index"]["refreshed"]


def test_watch_reports_changes_and_nothing_else(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    watch = DirectoryWatch(lambda name: name != "__pycache__")
    watch.begin()
    watch.add(str(tmp_path))
    watch.add(str(tmp_path / "pkg"))
    assert watch.changed()  # not armed yet: cannot vouch
    watch.arm()
    assert not watch.changed()
    (tmp_path / "pkg" / "__pycache__").mkdir()  # a name the listing skips
    assert not watch.changed()
    (tmp_path / "pkg" / "mod.py").write_text("x = 1\n")
    assert watch.changed()
    assert watch.changed()  # stays "changed" until the next complete listing arms it again
    watch.close()


def test_watch_that_cannot_cover_every_directory_never_vouches(tmp_path: Path) -> None:
    watch = DirectoryWatch()
    watch.begin()
    watch.add(str(tmp_path))
    watch.add(str(tmp_path / "vanished"))  # cannot be watched
    watch.arm()
    assert watch.changed()


@pytest.mark.parametrize("watch", [True, False])
def test_every_kind_of_change_is_seen_by_the_next_search(sample_repo: Path, watch: bool) -> None:
    shop = sample_repo / "shop"
    with trifecta.open(sample_repo, workers=1, watch_files=watch) as engine:
        assert refreshed(engine) > 0  # first search builds
        assert refreshed(engine) == 0
        assert engine._app.index.freshness() is (True if watch else None)  # no scan only with a watch

        (shop / "utils.py").write_text("def zanzibar_quokka():\n    return 1\n")  # modified in place
        assert "shop/utils.py" in paths_for(engine, "zanzibar_quokka")

        (shop / "deep" / "deeper").mkdir(parents=True)  # a new folder, then a file in it
        assert refreshed(engine) == 0
        (shop / "deep" / "deeper" / "fresh.py").write_text("def okapi_narwhal():\n    return 2\n")
        assert "shop/deep/deeper/fresh.py" in paths_for(engine, "okapi_narwhal")
        (shop / "deep" / "deeper" / "fresh.py").write_text("def quetzal_marmot():\n    return 3\n")
        assert "shop/deep/deeper/fresh.py" in paths_for(engine, "quetzal_marmot")

        os.rename(shop / "utils.py", shop / "renamed.py")  # a move within the segment
        assert "shop/renamed.py" in paths_for(engine, "zanzibar_quokka")
        assert "shop/utils.py" not in paths_for(engine, "zanzibar_quokka")

        shutil.rmtree(shop / "deep")  # a folder removed with its files
        assert "shop/deep/deeper/fresh.py" not in paths_for(engine, "quetzal_marmot")

        (sample_repo / ".gitignore").write_text("shop/renamed.py\n")  # an ignore rule changes
        assert "shop/renamed.py" not in paths_for(engine, "zanzibar_quokka")


def test_a_change_while_the_index_runs_is_not_lost(sample_repo: Path) -> None:
    """A file written after its folder was listed but before the run commits is seen by the next search."""
    target = sample_repo / "shop" / "utils.py"
    with trifecta.open(sample_repo, workers=1) as engine:

        def edit_mid_run(done: int, total: int, message: str) -> None:
            if message == "done" and "capybara" not in target.read_text():
                target.write_text("def capybara_axolotl():\n    return 4\n")

        engine.index(progress=edit_mid_run)
        assert "shop/utils.py" in paths_for(engine, "capybara_axolotl")


def test_other_processes_writing_caches_do_not_force_a_scan(sample_repo: Path) -> None:
    with trifecta.open(sample_repo, workers=1) as engine:
        engine.search("slugify")
        engine.search("slugify")  # the second listing is watched
        (sample_repo / "shop" / "__pycache__").mkdir(exist_ok=True)
        (sample_repo / "shop" / "__pycache__" / "utils.cpython-311.pyc").write_bytes(b"\0" * 16)
        assert engine._app.index.freshness() is True


def test_closing_the_engine_releases_the_watch(sample_repo: Path) -> None:
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(3):
        with trifecta.open(sample_repo, workers=1) as engine:
            engine.search("slugify")
            engine.search("slugify")  # watched from here on
            assert engine._app.index.freshness() is True
    assert len(os.listdir("/proc/self/fd")) <= before + 1


def test_no_watch_when_turned_off(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    source = LocalFileSource(tmp_path, watch=False)
    source.scan()
    assert source.changed_since_scan()
    watched = LocalFileSource(tmp_path)
    watched.scan()
    assert watched.changed_since_scan()  # a source that lists once (a CLI process) never starts a watch
    watched.scan()
    assert not watched.changed_since_scan()
    watched.close()
    assert watched.changed_since_scan()


def test_no_inotify_instance_left_means_stat_scans(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The per-user instance limit (EMFILE) or any failure to start a watch: never "unchanged"."""
    import trifecta.infrastructure.dir_watch as dir_watch

    class NoInstances:
        def inotify_init1(self, flags: int) -> int:
            return -1

    monkeypatch.setattr(dir_watch, "_load_libc", NoInstances)
    watch = DirectoryWatch()
    watch.begin()
    watch.add(str(tmp_path))
    watch.arm()
    assert watch.changed()


def test_a_queue_overflow_reads_as_changed(tmp_path: Path) -> None:
    import struct

    from trifecta.infrastructure.dir_watch import IN_Q_OVERFLOW

    watch = DirectoryWatch(lambda name: name != "__pycache__")
    skipped = b"__pycache__".ljust(16, b"\0")
    assert not watch._relevant_events(struct.pack("iIII", 1, 0x100, 0, len(skipped)) + skipped)
    assert watch._relevant_events(struct.pack("iIII", -1, IN_Q_OVERFLOW, 0, 0))  # events were lost
    assert watch._relevant_events(struct.pack("iIII", 1, 0x4, 0, 0))  # the folder itself changed


def test_one_instance_serves_every_listing_and_drops_folders_no_longer_listed(tmp_path: Path) -> None:
    (tmp_path / "gen").mkdir()
    (tmp_path / "a.py").write_text("x = 1\n")
    source = LocalFileSource(tmp_path)
    source.scan()
    source.scan()
    assert not source.changed_since_scan()
    (tmp_path / ".gitignore").write_text("gen/\n")  # the folder leaves the listing
    assert source.changed_since_scan()
    before = set(os.listdir("/proc/self/fd"))
    source.scan()
    assert set(os.listdir("/proc/self/fd")) == before  # the same inotify instance, not a new one
    (tmp_path / "gen" / "out.py").write_text("generated = True\n")
    assert not source.changed_since_scan()  # its watch was removed with it
    (tmp_path / "a.py").write_text("x = 2\n")
    assert source.changed_since_scan()
    source.close()


def test_a_watched_change_is_never_put_off_by_the_refresh_interval(sample_repo: Path) -> None:
    """`trifecta mcp` reuses a stat scan for 1 s; a change the watch saw is searched at once anyway."""
    with trifecta.open(sample_repo, workers=1, refresh_interval=60) as engine:
        engine.search("slugify")
        engine.index()  # the second listing: watched from here on
        (sample_repo / "shop" / "utils.py").write_text("def wombat_lemur():\n    return 5\n")
        assert "shop/utils.py" in paths_for(engine, "wombat_lemur")
    with trifecta.open(sample_repo, workers=1, refresh_interval=60, watch_files=False) as engine:
        engine.search("slugify")
        engine.index()
        (sample_repo / "shop" / "utils.py").write_text("def tapir_gecko():\n    return 6\n")
        assert "shop/utils.py" not in paths_for(engine, "tapir_gecko")  # no watch: the interval holds
