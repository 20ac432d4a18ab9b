"""The spine end to end over a real SQLite file: index, refresh, search, get."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest

import trifecta
from trifecta.domain.contract import Response


@pytest.fixture
def engine(sample_repo: Path):
    eng = trifecta.open(str(sample_repo), workers=1)
    yield eng
    eng.close()


def hits_of(response: Response) -> list[dict]:
    data = response.to_dict()
    assert data["status"] == "ok", data["errors"]
    return data["data"]["hits"]


def test_index_counts_what_it_skipped(engine, sample_repo: Path) -> None:
    report = engine.index()
    assert report.files_indexed >= 8
    assert report.skipped["ignored"] == 2  # ignored_dir/ and app.log
    assert report.skipped["secret"] == 2  # .env and id_rsa
    assert report.skipped["binary"] == 1
    assert report.skipped["excluded"] >= 2  # node_modules, build
    assert report.parse_errors == 1  # shop/broken.py
    assert (sample_repo / ".trifecta" / "index.db").is_file()
    status = engine.status().to_dict()["data"]
    indexed = {row[0] for row in sqlite3.connect(status["db_path"]).execute("SELECT path FROM files")}
    assert "shop/inventory.py" in indexed and "docs/guide.md" in indexed
    assert not indexed & {"ignored_dir/hidden.py", "app.log", ".env", "id_rsa", "blob.py", "build/out.py"}


def test_symbols_have_exact_ranges(engine) -> None:
    engine.index()
    app = engine._app
    symbols = {s.qualname: s for s in app.store.symbols("shop/inventory.py")}
    product = symbols["Product"]
    assert (product.start_line, product.def_line) == (10, 11)  # decorator included
    assert symbols["Inventory.reserveStock"].kind == "method"
    assert symbols["Inventory.add_product"].params == ("self", "product")
    checkout = {s.qualname: s for s in app.store.symbols("shop/checkout.py")}
    assert checkout["charge_card"].is_async
    assert checkout["CardDeclined"].bases == ("PaymentError",)
    assert checkout["Checkout.Receipt.render.line"].depth == 3


def test_search_finds_split_identifiers(engine) -> None:
    engine.index()
    for query in ("parse header", "parse_http_header", "parseHttpHeader"):
        hits = hits_of(engine.search(query))
        assert hits and hits[0]["symbol"] == "parse_http_header", query
    hits = hits_of(engine.search("reserve stock"))
    assert hits[0]["symbol"] == "Inventory.reserveStock"


def test_hit_fields_and_get_round_trip(engine) -> None:
    hits = hits_of(engine.search("charge a card through the payment provider"))
    top = hits[0]
    assert set(top) >= {
        "id",
        "path",
        "start_line",
        "end_line",
        "symbol",
        "kind",
        "language",
        "score",
        "match_type",
        "preview",
    }
    assert (
        top["symbol"] == "charge_card" and top["path"] == "shop/checkout.py" and top["language"] == "python"
    )
    got = engine.get(id=top["id"]).to_dict()
    assert got["status"] == "ok"
    assert got["data"]["content"].splitlines()[0].startswith("async def charge_card")
    assert got["data"]["range"] == {"start_line": top["start_line"], "end_line": top["end_line"]}


def test_docs_and_config_are_searchable(engine) -> None:
    paths = [h["path"] for h in hits_of(engine.search("warehouse name"))]
    assert "shop.toml" in paths[:3] or "docs/guide.md" in paths[:3]


def test_tests_rank_below_implementation(engine) -> None:
    hits = hits_of(engine.search("add product"))
    assert hits[0]["path"] == "shop/inventory.py"
    test_hits = hits_of(engine.search("tests for add product"))
    assert test_hits[0]["path"] == "tests/test_inventory.py"


def test_search_builds_and_refreshes_incrementally(engine, sample_repo: Path) -> None:
    first = engine.search("slugify").to_dict()["data"]["index"]
    assert first["files"] >= 8 and first["built_at"]
    again = engine.search("slugify").to_dict()["data"]["index"]
    assert again["refreshed"] == 0
    (sample_repo / "shop" / "new_module.py").write_text("def brand_new_helper():\n    return 42\n")
    (sample_repo / "shop" / "utils.py").unlink()
    fresh = engine.search("brand new helper").to_dict()["data"]
    assert fresh["index"]["refreshed"] == 2
    assert fresh["hits"][0]["path"] == "shop/new_module.py"
    assert all(h["path"] != "shop/utils.py" for h in hits_of(engine.search("slugify")))


def test_touch_without_content_change_is_not_reparsed(engine, sample_repo: Path) -> None:
    engine.index()
    target = sample_repo / "shop" / "checkout.py"
    os.utime(target, ns=(target.stat().st_atime_ns, target.stat().st_mtime_ns + 10**9))
    report = engine.index()
    assert report.files_indexed == 0 and report.files_unchanged >= 8


@pytest.mark.parametrize(
    "query",
    [
        '"unbalanced',
        "AND OR NOT",
        "NEAR(a b)",
        "* ^ : ( ) { }",
        "col:value",
        "-",
        "'",
        "\\",
        "a" * 10_000,
        "🙂 emoji",
        "\x00nul",
        "config \x00 values read from the ' file",  # a NUL in a phrase looked up verbatim ended the FTS5 string
        "\x01\x02\x1f control \x7f characters in a sentence",
        "select * from chunks; drop table files",
        "title:* OR body:*",
    ],
)
def test_hostile_queries_never_crash(engine, query: str) -> None:
    data = engine.search(query).to_dict()
    assert data["status"] == "ok", data["errors"]
    assert isinstance(data["data"]["hits"], list)


@pytest.mark.parametrize("query", ["", "   ", "\n\t"])
def test_empty_query_is_a_clear_error(engine, query: str) -> None:
    data = engine.search(query).to_dict()
    assert data["status"] == "error" and data["errors"][0]["code"] == "EMPTY_QUERY"


@pytest.mark.parametrize("path", ["../outside.py", "/etc/passwd", "shop/../../outside.py", "link_out.py"])
def test_get_refuses_paths_outside_the_segment(engine, sample_repo: Path, path: str) -> None:
    (sample_repo.parent / "outside.py").write_text("SECRET = 1\n")
    (sample_repo / "link_out.py").symlink_to(sample_repo.parent / "outside.py")
    data = engine.get(path=path).to_dict()
    assert data["status"] == "error"
    assert data["errors"][0]["code"] == "PATH_OUTSIDE_SEGMENT"
    assert "SECRET" not in json.dumps(data)


def test_get_by_path_and_range(engine) -> None:
    data = engine.get(path="shop/inventory.py:25-29").to_dict()["data"]
    assert data["content"].splitlines()[0].strip().startswith("def add_product")
    assert data["range"] == {"start_line": 25, "end_line": 29}
    whole = engine.get(path="shop/utils.py").to_dict()["data"]
    assert whole["content"].startswith("def slugify")
    missing = engine.get(path="shop/nope.py").to_dict()
    assert missing["errors"][0]["code"] == "FILE_NOT_FOUND"
    bad_id = engine.get(id="feedface").to_dict()
    assert bad_id["errors"][0]["code"] == "CHUNK_NOT_FOUND"


def test_get_cuts_to_budget_with_marker(sample_repo: Path) -> None:
    big = "\n".join(f"x_{i} = {i}" for i in range(5000))
    (sample_repo / "big.py").write_text(big)
    with trifecta.open(str(sample_repo), workers=1, max_bytes_total=2000) as eng:
        data = eng.get(path="big.py").to_dict()["data"]
    assert data["truncated"] and len(data["content"].encode()) <= 2000
    assert data["content"].endswith("lines hidden")


def test_schema_mismatch_rebuilds(sample_repo: Path) -> None:
    with trifecta.open(str(sample_repo), workers=1) as eng:
        eng.index()
        db = eng.db_path
    conn = sqlite3.connect(db)
    conn.execute("UPDATE meta SET value='0' WHERE key='schema_version'")
    conn.commit()
    conn.close()
    with trifecta.open(str(sample_repo), workers=1) as eng:
        assert eng.status().to_dict()["data"]["files"] == 0  # rebuilt empty, never misread
        assert hits_of(eng.search("slugify"))  # and the search rebuilt it


def test_corrupt_database_is_rebuilt(sample_repo: Path) -> None:
    db = sample_repo / ".trifecta" / "index.db"
    db.parent.mkdir()
    db.write_bytes(b"this is not a database" * 100)
    with trifecta.open(str(sample_repo), workers=1) as eng:
        assert hits_of(eng.search("slugify"))


@pytest.mark.timeout(120)
def test_non_utf8_and_unreadable_files(sample_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from trifecta.infrastructure.file_source import LocalFileSource

    (sample_repo / "latin.py").write_bytes("def café():\n    return 'olé'\n".encode("latin-1"))
    locked = sample_repo / "locked.py"
    locked.write_text("def locked(): pass\n")
    locked.chmod(0)  # unreadable, except to root
    # Unreadable to root too: listed as a file, then replaced by a directory before it is read.
    vanished = sample_repo / "vanished.py"
    vanished.write_text("def vanished(): pass\n")
    listed = LocalFileSource.scan

    def scan_then_replace(self: LocalFileSource) -> Any:
        scan = listed(self)
        if vanished.is_file():
            vanished.unlink()
            vanished.mkdir()
        return scan

    monkeypatch.setattr(LocalFileSource, "scan", scan_then_replace)
    loop = sample_repo / "loop"
    loop.symlink_to(sample_repo)
    try:
        with trifecta.open(str(sample_repo), workers=1) as eng:
            report = eng.index()
            assert report.files_indexed >= 9
            root = os.geteuid() == 0  # root reads anything: only the replaced file fails there
            assert report.skipped.get("unreadable", 0) == (1 if root else 2)
            assert report.skipped.get("symlink_dir", 0) == 1
            assert eng.status().ok and not hits_of(eng.search("vanished"))
    finally:
        locked.chmod(0o644)


def test_nothing_is_written_outside_dot_trifecta(sample_repo: Path) -> None:
    before = {p for p in sample_repo.rglob("*") if ".trifecta" not in p.parts}
    with trifecta.open(str(sample_repo), workers=1) as eng:
        eng.index()
        eng.search("checkout")
    after = {p for p in sample_repo.rglob("*") if ".trifecta" not in p.parts}
    assert before == after


def test_parallel_parsing_matches_serial(sample_repo: Path, tmp_path: Path) -> None:
    padding = "# padding\n" * 1500  # enough text to use the worker pool
    for i in range(80):
        (sample_repo / f"gen_{i}.py").write_text(f"def generated_{i}(x):\n    return x + {i}\n{padding}")
    with trifecta.open(str(sample_repo), workers=2, db_path=str(tmp_path / "a.db")) as a:
        a.index()
        sa = a.status().to_dict()["data"]
    with trifecta.open(str(sample_repo), workers=1, db_path=str(tmp_path / "b.db")) as b:
        b.index()
        sb = b.status().to_dict()["data"]
    assert (sa["files"], sa["symbols"], sa["chunks"]) == (sb["files"], sb["symbols"], sb["chunks"])


def test_refresh_interval_reuses_a_recent_freshness_check(sample_repo: Path) -> None:
    target = sample_repo / "shop" / "utils.py"

    def found(engine: trifecta.Engine, word: str) -> bool:
        return any(h["path"] == "shop/utils.py" for h in engine.search(word).to_dict()["data"]["hits"])

    with trifecta.open(sample_repo) as engine:  # library default: every search checks
        engine.search("slugify")
        target.write_text("def zanzibar_quokka():\n    return 1\n")
        assert found(engine, "zanzibar_quokka")

    with trifecta.open(sample_repo, refresh_interval=60) as engine:
        engine.search("slugify")
        target.write_text("def quetzal_marmot():\n    return 2\n")
        assert not found(engine, "quetzal_marmot")  # checked less than 60 s ago: not looked at again
        engine.index()  # an explicit index always looks
        assert found(engine, "quetzal_marmot")

    with trifecta.open(sample_repo) as engine:
        engine.origin = "mcp"  # the long-lived server's default interval is one second
        engine.search("slugify")
        target.write_text("def okapi_narwhal():\n    return 3\n")
        assert not found(engine, "okapi_narwhal")


def test_refresh_interval_is_validated(sample_repo: Path) -> None:
    from trifecta.infrastructure.config import ConfigError

    for bad in ("soon", -1, 7200):
        with pytest.raises(ConfigError, match="refresh_interval"):
            trifecta.open(sample_repo, refresh_interval=bad)
