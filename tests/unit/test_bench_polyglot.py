"""bench/bench_polyglot.py's pure parts: arguments, the tree table, the result table. Nothing is downloaded."""

from __future__ import annotations

import importlib
import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))
bp = importlib.import_module("bench_polyglot")


def fake_tree(**overrides: Any) -> dict[str, Any]:
    result: dict[str, Any] = {
        "tree": "go-fake",
        "language": "go",
        "project": "fake 1.0",
        "workers": 2,
        "tree_files": 1200,
        "tree_bytes": 5 * bp.MB,
        "parse_only": {
            "seconds": 10.0,
            "cpu_s": 9.5,
            "errors": 3,
            "languages": {"go": 1200},
            "slowest": [],
            "error_files": [],
        },
        "full_index": {
            "index_s": 12.0,
            "parse_errors": 3,
            "status": {"symbols": 34567, "chunks": 45678},
            "maxrss_kb": 200 * 1024,
            "workers_maxrss_kb": 90 * 1024,
            "searchable_s": 11.0,
            "substring_index_s": 1.0,
            "wall_s": 13.0,
            "skipped": {},
            "index_cpu_s": 6.0,
            "workers_cpu_s": 13.0,
        },
        "ctags": {"available": True, "seconds": 0.5, "tags": 9000},
        "search": {
            "p50_ms": 4.0,
            "p95_ms": 19.5,
            "per_query": [],
            "zero_hit_queries": 0,
            "internal_errors": [],
        },
        "search_no_autorefresh": {"p50_ms": 3.0, "p95_ms": 25.0},
        "refresh": {
            "path": "pkg/a.go",
            "first_s": 0.2,
            "nochange_p50_s": 0.012,
            "onefile_p50_s": 0.045,
            "onefile_walls_s": [0.045],
            "files_indexed": [1],
        },
    }
    result.update(overrides)
    return result


def table_row(table: str) -> list[str]:
    return [cell.strip() for cell in table.splitlines()[2].strip("|").split("|")]


def test_defaults_are_two_workers_and_the_tmp_cache() -> None:
    args = bp.parse_args([])
    assert args.workers == 2
    assert args.corpora == Path("/tmp/trifecta-polyglot-bench")
    assert args.json_path.name == "polyglot.json" and args.md_path.name == "polyglot.md"
    assert args.only is None and args.profile == []


def test_only_and_profile_take_known_trees(capsys: pytest.CaptureFixture[str]) -> None:
    args = bp.parse_args(["--only", "go-x-tools", "--only", "ts-rxjs", "--profile", "rust-tokio-syn"])
    assert args.only == ["go-x-tools", "ts-rxjs"] and args.profile == ["rust-tokio-syn"]
    for bad in (["--only", "cobol-nope"], ["--workers", "0"], ["--search-runs", "0"]):
        with pytest.raises(SystemExit):
            bp.parse_args(bad)
    capsys.readouterr()


def test_trees_are_pinned_with_about_twenty_queries_each() -> None:
    assert {spec.language for spec in bp.TREES} == {"go", "rust", "typescript", "javascript"}
    assert len(bp.TREES_BY_NAME) == len(bp.TREES)
    for spec in bp.TREES:
        assert 18 <= len(spec.queries) <= 24 and len(set(spec.queries)) == len(spec.queries), spec.name
        for source in spec.sources:
            version = (
                source.spec.rpartition("@")[2] if source.kind == "npm" else source.spec.partition("=")[2]
            )
            assert source.kind in ("npm", "deb") and version[:1].isdigit(), source.spec


def test_table_shows_ratio_search_and_rss_against_the_targets() -> None:
    row = table_row(bp.render_table([fake_tree()]))
    assert row[1] == "1,200 (5.0)"
    assert row[2] == "34,567 / 45,678"
    assert row[3] == "3 (parse-only: 3)"
    assert row[6] == "1.20x PASS"
    assert row[7] == "4.0 / 19.5 ms PASS"
    assert row[8] == "3.0 / 25.0 ms MISS"
    assert row[9] == "12 ms / 45 ms"
    assert row[10] == "200 / 90 MB"
    assert row[11] == "500 ms, 9,000 tags"
    assert row[12] == "9.50 / 19.00 (6.00 + 13.00), 2.00x"
    assert row[5] == "12.00 s (2 workers)"


def test_an_index_that_started_no_worker_says_so() -> None:
    small = fake_tree()
    small["full_index"]["workers_cpu_s"] = 0.0
    row = table_row(bp.render_table([small]))
    assert row[5] == "12.00 s (1 process: too small for workers at this load)"
    assert row[12] == "9.50 / 6.00 (6.00 + 0.00), 0.63x"


def test_refresh_is_a_column_and_a_note() -> None:
    notes = bp.render_notes([fake_tree()])
    assert (
        "first run 200 ms (checks the file), then p50 no change 12 ms, one file changed (`pkg/a.go`) 45 ms"
        in notes
    )
    assert table_row(bp.render_table([fake_tree(refresh={"error": "x"})]))[9] == "FAILED"


def test_notes_say_how_the_trigram_accelerator_was_built() -> None:
    built = fake_tree(loadavg_start=(1.25, 0, 0), loadavg_end=(2.0, 0, 0))
    assert "trigram accelerator built after that in 1.00 s" in bp.render_notes([built])
    assert "load average at this tree's start/end 1.2/2.0" in bp.render_notes([built])
    along = fake_tree()
    along["full_index"]["substring_index_s"] = 0.0
    assert "trigram accelerator written with the batches" in bp.render_notes([along])


def test_table_marks_a_slow_index_and_failed_phases() -> None:
    slow = fake_tree()
    slow["full_index"]["index_s"] = 20.0
    assert table_row(bp.render_table([slow]))[6] == "2.00x MISS"
    broken = fake_tree(full_index={"error": "RuntimeError: boom"}, search={"error": "x"})
    row = table_row(bp.render_table([broken]))
    assert row[2] == "FAILED" and row[5] == "FAILED" and row[6] == "n/a" and row[7] == "FAILED"
    assert "FAILED full_index: RuntimeError: boom" in bp.render_notes([broken])


def test_keep_sources_and_tree_stats(tmp_path: Path) -> None:
    src = tmp_path / "src"
    (src / "pkg").mkdir(parents=True)
    (src / "pkg" / "a.go").write_text("package pkg\n\nfunc A() {}\n")
    (src / "README.md").write_text("# no\n")
    (src / "b.go").write_text("package main\n")
    assert bp.keep_sources(src, tmp_path / "out", (".go",)) == 2
    assert sorted(p.name for p in (tmp_path / "out").rglob("*") if p.is_file()) == ["a.go", "b.go"]
    stats = bp.tree_stats(tmp_path / "out")
    assert (stats["files"], stats["lines"]) == (2, 4)
    assert stats == bp.tree_stats(tmp_path / "out")
    (tmp_path / "out" / "b.go").write_text("package other\n")
    assert bp.tree_stats(tmp_path / "out")["tree_sha256"] != stats["tree_sha256"]


def test_a_cached_archive_or_tree_is_not_fetched_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_network(cmd: Any, cwd: Any) -> str:
        raise AssertionError(f"ran {cmd}")

    monkeypatch.setattr(bp, "run_checked", no_network)
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    (downloads / "rxjs-7.8.1.tgz").write_bytes(b"x")
    (downloads / "librust-syn-dev_1.0.107-1_amd64.deb").write_bytes(b"x")
    assert bp.download(bp.Source("npm", "rxjs@7.8.1", "src"), downloads).name == "rxjs-7.8.1.tgz"
    deb = bp.download(bp.Source("deb", "librust-syn-dev=1.0.107-1", "usr"), downloads)
    assert deb.name == "librust-syn-dev_1.0.107-1_amd64.deb"

    spec = bp.TREES_BY_NAME["ts-rxjs"]
    (tmp_path / spec.name).mkdir()
    manifest = {"sources": [asdict(s) for s in spec.sources], "extensions": list(spec.extensions), "files": 7}
    (tmp_path / f"{spec.name}.manifest.json").write_text(json.dumps(manifest))
    assert bp.fetch_tree(spec, tmp_path)["files"] == 7


def test_markdown_has_the_header_table_and_sources() -> None:
    manifest = {
        "tree": "go-fake",
        "language": "go",
        "sources": [{"kind": "deb", "spec": "golang-fake-dev=1.0-1", "subdir": "usr/share/gocode/src/fake"}],
        "files": 1200,
        "lines": 200000,
        "tree_sha256": "ab" * 32,
    }
    run = {
        "date": "2026-11-23",
        "python": "3.11.7",
        "platform": "Linux",
        "cpus": 2,
        "parser": "tree-sitter",
        "trifecta": {"commit": "abc1234", "uncommitted_src_files": 2},
        "loadavg_start": (0.5, 0, 0),
        "loadavg_end": (1.5, 0, 0),
        "trees": [fake_tree()],
        "manifests": [manifest],
    }
    text = bp.render_markdown(run)
    assert "2 CPUs, load average at start/end 0.5/1.5" in text
    assert "parser: tree-sitter, Trifecta at abc1234 + 2 uncommitted src/ files" in text
    assert (
        "| go-fake | go | deb `golang-fake-dev=1.0-1` usr/share/gocode/src/fake | 1,200 | 200,000 |" in text
    )
    assert "1.20x PASS" in text
