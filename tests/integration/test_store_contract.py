"""One contract for the index ports, run against the SQLite file and a real PostgreSQL server (started here,
once for the module); then what only the shared index does: segments side by side, one writer per segment,
a schema that migrates, errors that name the URL without its password, the CLI and the facade on db_url."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))
import trifecta  # noqa: E402
from postgres_server import bindir, new_database, running_server  # noqa: E402
from trifecta.application.index_segment import IndexRequest, IndexSegment  # noqa: E402
from trifecta.application.rewrite import RewriteKey  # noqa: E402
from trifecta.domain.calls import EdgeKind  # noqa: E402
from trifecta.domain.rewrite_policy import Focus, RewrittenQuery  # noqa: E402
from trifecta.infrastructure.code_parser import SourceParser  # noqa: E402
from trifecta.infrastructure.config import load_settings  # noqa: E402
from trifecta.infrastructure.file_source import LocalFileSource  # noqa: E402
from trifecta.infrastructure.postgres_store import (  # noqa: E402
    SCHEMA_VERSION,
    IndexUnavailable,
    PostgresIndex,
    PostgresRewriteCache,
    connect,
    migrate,
    redact,
)
from trifecta.infrastructure.sqlite_store import IndexLocked, SqliteIndex  # noqa: E402

pytestmark = [
    pytest.mark.timeout(120),
    pytest.mark.skipif(bindir() is None, reason="PostgreSQL is not installed (scripts/test installs it)"),
]


@pytest.fixture(scope="module")
def pg_server() -> Iterator[str]:
    with running_server() as url:
        yield url


_counter = iter(range(10_000))


@pytest.fixture
def pg_url(pg_server: str) -> str:
    """A fresh database on the module's server."""
    return new_database(pg_server, f"t{next(_counter)}")


def _index(store: SqliteIndex | PostgresIndex, repo: Path) -> None:
    source = LocalFileSource(repo)
    try:
        IndexSegment(source=source, parser=SourceParser(workers=1), writer=store, clock=lambda: "t").execute(
            IndexRequest()
        )
    finally:
        source.close()


@pytest.fixture(params=["sqlite", "postgres"])
def store(
    request: pytest.FixtureRequest, sample_repo: Path, tmp_path: Path
) -> Iterator[SqliteIndex | PostgresIndex]:
    """The sample repository indexed into one backend."""
    if request.param == "sqlite":
        built: SqliteIndex | PostgresIndex = SqliteIndex(tmp_path / "index.db")
    else:
        built = PostgresIndex(
            new_database(request.getfixturevalue("pg_server"), f"c{next(_counter)}"), "repo"
        )
    _index(built, sample_repo)
    yield built
    built.close()


# ---------------------------------------------------------------- the contract, on both backends
def test_a_run_is_recorded_with_its_files_symbols_and_chunks(store: SqliteIndex | PostgresIndex) -> None:
    stats = store.stats()
    assert store.has_completed_run() and stats.built_at == "t"
    assert (stats.files, stats.parse_errors) == (9, 1)
    assert stats.symbols > 10 and stats.chunks > stats.files
    assert [f.path for f in store.files()] == sorted(f.path for f in store.files())
    assert store.file("shop/broken.py").parse_error  # type: ignore[union-attr]
    assert store.file("missing.py") is None
    assert set(store.file_states()) >= {f.path for f in store.files()}


def test_symbols_are_found_by_name_qualname_and_structure(store: SqliteIndex | PostgresIndex) -> None:
    [(path, symbol)] = store.find_symbols(name="parse_http_header")
    assert path == "shop/checkout.py" and symbol.kind.value == "function"
    assert store.find_symbols(qualname=symbol.qualname) == [(path, symbol)]
    assert [s.name for s in store.symbols(path)][0]
    assert (path, symbol) in list(store.all_symbols())
    assert all(p.startswith("shop/") for p, _ in store.structural_candidates(path_words=["shop"]))
    assert store.structural_candidates() == []
    classes = store.structural_candidates(kinds=["class"])
    assert classes and all(s.kind.value == "class" for _, s in classes)
    assert set(store.vocabulary(5)) <= {s.name for _, s in store.all_symbols()}


def test_full_text_ranks_the_defining_chunk_first(store: SqliteIndex | PostgresIndex) -> None:
    [best, *_] = store.search_terms([["parse"], ["header"]], require_all=True, limit=5)
    assert best.chunk.symbol == "parse_http_header" and best.score > 0
    alternatives = store.search_terms([["nothing_like_this", "charge"]], require_all=True, limit=5)
    assert any(sc.chunk.symbol == "charge_card" for sc in alternatives)
    assert store.search_terms([["zzzqqq"]], require_all=True, limit=5) == []
    assert store.search_terms([["'); DROP TABLE files; --"]], require_all=False, limit=5) == []
    assert store.files()  # the text above was a query, never SQL


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_a_word_no_chunk_holds_leaves_the_common_ones_searched(
    backend: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    # 240 functions all say "instance" (a common word, left out of any-word queries); "appropriate" is nowhere:
    # it must not be the only word left, or the question finds nothing
    repo = tmp_path / "repo"
    repo.mkdir()
    for f in range(8):
        (repo / f"mod{f}.py").write_text(
            "".join(f"def check_{f}_{i}(instance):\n    return instance.kind == {i}\n\n\n" for i in range(30))
        )
    if backend == "sqlite":
        built: SqliteIndex | PostgresIndex = SqliteIndex(tmp_path / "index.db")
    else:
        built = PostgresIndex(
            new_database(request.getfixturevalue("pg_server"), f"w{next(_counter)}"), "repo"
        )
    try:
        _index(built, repo)
        found = built.search_terms([["instance"], ["appropriate"]], require_all=False, limit=5)
        assert len(found) == 5 and all("instance" in sc.chunk.body for sc in found)
    finally:
        built.close()


def test_substring_lookups_and_chunk_reads(store: SqliteIndex | PostgresIndex) -> None:
    found = store.substring_candidates(["def parse_http", "HEADER"], limit=10)
    assert [c.symbol for c in found] == ["parse_http_header"]
    assert store.substring_candidates(["100%_sure\\"], limit=10) == []
    chunk = found[0]
    assert store.chunk(chunk.id) == chunk
    assert store.containing_chunk(chunk.path, chunk.start_line + 1) == chunk
    assert chunk in list(store.iter_chunks([chunk.path]))
    assert len(list(store.iter_chunks())) == store.stats().chunks


def test_call_sites_and_imports_are_found_by_file_and_by_name(store: SqliteIndex | PostgresIndex) -> None:
    edges = store.edges(paths=["shop/checkout.py"])
    imports = [e for _, e in edges if e.kind.value == "import"]
    assert ("Inventory", ".inventory", "Inventory") in [(e.name, e.text, e.alias) for e in imports]
    [(path, call)] = store.edges(names=["reserveStock"], kinds=["call"])
    assert path == "shop/checkout.py" and call.caller.endswith("place_order")
    assert call.text == "self.inventory.reserveStock" and call.alias == "Inventory"  # typed in __init__
    assert store.edges(paths=["shop/checkout.py"], names=["sleep"])[0][1].text == "asyncio.sleep"
    assert store.edges(names=["'); DROP TABLE edges; --"]) == []
    with pytest.raises(ValueError):
        store.edges()


def test_calls_are_listed_by_file_and_name_for_search(store: SqliteIndex | PostgresIndex) -> None:
    found = store.call_names(["shop/checkout.py", "shop/inventory.py"], ["reserveStock", "sleep"])
    assert sorted(found) == sorted(
        (path, edge.caller, edge.name)
        for path, edge in store.edges(paths=["shop/checkout.py", "shop/inventory.py"], kinds=["call"])
        if edge.name in ("reserveStock", "sleep")
    )
    assert {name for _, _, name in found} == {"reserveStock", "sleep"}
    assert store.call_names(["shop/checkout.py"], []) == store.call_names([], ["sleep"]) == []
    assert store.call_names(["shop/checkout.py"], ["'); DROP TABLE edges; --"]) == []


def test_name_uses_count_the_files_that_call_import_or_reference_a_name(
    store: SqliteIndex | PostgresIndex,
) -> None:
    edges = store.edges(paths=[f.path for f in store.files()])
    names = sorted({edge.name for _, edge in edges})
    expected: dict[str, set[str]] = {}
    for path, edge in edges:
        if edge.kind not in ("return", "doc"):
            expected.setdefault(edge.name, set()).add(path)
    assert any(len(paths) > 1 for paths in expected.values())  # the sample has names several files use
    assert store.name_uses([*names, "no_such_name_anywhere"]) == {n: len(p) for n, p in expected.items()}
    assert store.name_uses([]) == {}
    assert store.name_uses(["'); DROP TABLE edges; --"]) == {}


def test_a_doc_comments_link_is_no_use_of_the_name(
    store: SqliteIndex | PostgresIndex, sample_repo: Path
) -> None:
    (sample_repo / "shop" / "linked.ts").write_text(
        "/** See {@link onlyLinkedHere}. */\nexport function f() {}\n"
    )
    _index(store, sample_repo)
    assert [e.name for _, e in store.edges(paths=["shop/linked.ts"], kinds=[EdgeKind.DOC])] == [
        "onlyLinkedHere"
    ]
    assert store.name_uses(["onlyLinkedHere"]) == {}


def test_a_second_run_writes_only_what_changed(store: SqliteIndex | PostgresIndex, sample_repo: Path) -> None:
    (sample_repo / "shop" / "utils.py").unlink()
    (sample_repo / "shop" / "new.py").write_text("def brand_new_helper():\n    return 1\n")
    _index(store, sample_repo)
    assert store.file("shop/utils.py") is None and store.file("shop/new.py") is not None
    assert store.find_symbols(name="brand_new_helper")
    assert store.edges(paths=["shop/utils.py"]) == []  # a deleted file's edges go with it
    assert (
        store.search_terms([["brand_new_helper"]], require_all=True, limit=3)[0].chunk.path == "shop/new.py"
    )


def test_both_backends_answer_alike(pg_server: str, sample_repo: Path, tmp_path: Path) -> None:
    lite = SqliteIndex(tmp_path / "index.db")
    pg = PostgresIndex(new_database(pg_server, "alike"), "repo")
    try:
        for s in (lite, pg):
            _index(s, sample_repo)
        assert lite.files() == pg.files()
        assert list(lite.all_symbols()) == list(pg.all_symbols())
        assert sorted(lite.iter_chunks(), key=lambda c: c.id) == sorted(pg.iter_chunks(), key=lambda c: c.id)
        for groups in ([["parse"], ["header"]], [["inventory"]], [["card"], ["charge"], ["total"]]):
            for require_all in (True, False):
                top = [
                    [sc.chunk.id for sc in s.search_terms(groups, require_all=require_all, limit=3)]
                    for s in (lite, pg)
                ]
                assert top[0][:1] == top[1][:1], groups
    finally:
        lite.close()
        pg.close()


# ---------------------------------------------------------------- the shared index only
def test_segments_share_a_database_without_seeing_each_other(
    pg_url: str, sample_repo: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    (other / "shop").mkdir(parents=True)
    (other / "shop" / "checkout.py").write_text("def only_in_other():\n    pass\n")
    a, b = PostgresIndex(pg_url, "a"), PostgresIndex(pg_url, "b")
    try:
        _index(a, sample_repo)
        _index(b, other)
        assert b.find_symbols(name="parse_http_header") == []
        assert a.find_symbols(name="only_in_other") == []
        assert [f.path for f in b.files()] == ["shop/checkout.py"]
        assert a.stats().files == 9 and a.segments() == ["a", "b"]
    finally:
        a.close()
        b.close()


def test_one_writer_per_segment_and_other_segments_go_on(pg_url: str) -> None:
    first, second, elsewhere = (
        PostgresIndex(pg_url, "a"),
        PostgresIndex(pg_url, "a"),
        PostgresIndex(pg_url, "b"),
    )
    try:
        with first.writing():
            with pytest.raises(IndexLocked) as raised, second.writing(wait_seconds=0.2):
                pass
            assert raised.value.code.value == "INDEX_LOCKED"
            with elsewhere.writing():  # another segment never waits
                pass
        with second.writing():  # released with the first writer
            pass
    finally:
        for s in (first, second, elsewhere):
            s.close()


def test_a_writer_that_dies_releases_its_segment(pg_url: str) -> None:
    first, second = PostgresIndex(pg_url, "a"), PostgresIndex(pg_url, "a")
    try:
        entered = threading.Event()

        def hold() -> None:
            with first.writing():
                entered.set()
                first._conn.close()  # the connection goes, as when a process is killed

        hold_thread = threading.Thread(target=hold)
        hold_thread.start()
        hold_thread.join(10)
        assert entered.is_set()
        with second.writing(wait_seconds=5):
            pass
    finally:
        first.close()
        second.close()


def test_an_older_schema_is_migrated_and_a_newer_one_refused(pg_url: str) -> None:
    conn = connect(pg_url)
    try:
        assert migrate(conn, target=1)[0] == 0
        assert conn.execute("SELECT to_regclass('trifecta_rewrite_cache')").fetchone()[0] is None
    finally:
        conn.close()
    store = PostgresIndex(pg_url, "a")
    assert store.stats().files == 0
    version, tables = store._conn.execute(
        "SELECT (SELECT value FROM trifecta_meta WHERE key='schema_version'), to_regclass('trifecta_rewrite_cache')"
    ).fetchone()
    assert (version, str(tables)) == (str(SCHEMA_VERSION), "trifecta_rewrite_cache")
    store._conn.execute("UPDATE trifecta_meta SET value='99' WHERE key='schema_version'")
    store.close()
    with pytest.raises(IndexUnavailable, match="newer trifecta"):
        PostgresIndex(pg_url, "a").stats()


def test_a_read_only_server_is_searched_as_a_replica(pg_url: str, sample_repo: Path) -> None:
    writer = PostgresIndex(pg_url, "a")
    _index(writer, sample_repo)
    writer.close()
    replica_url = pg_url + "?options=-c%20default_transaction_read_only%3Don"
    replica = PostgresIndex(replica_url, "a")
    try:
        assert replica.find_symbols(name="parse_http_header") and replica.read_only
        with pytest.raises(IndexUnavailable, match="read-only"), replica.writing():
            pass
        with pytest.raises(IndexUnavailable, match="no segment 'b'"):
            PostgresIndex(replica_url, "b").stats()
    finally:
        replica.close()


def test_the_rewrite_cache_lives_in_the_segment(pg_url: str) -> None:
    a, b = PostgresIndex(pg_url, "a"), PostgresIndex(pg_url, "b")
    try:
        key = RewriteKey(query="where is retry", model="m", vocabulary_version="v1")
        PostgresRewriteCache(a).put(
            key, RewrittenQuery(terms=("retry", "backoff"), focus=Focus.IMPLEMENTATION)
        )
        assert PostgresRewriteCache(a).get(key) == RewrittenQuery(
            terms=("retry", "backoff"), focus=Focus.IMPLEMENTATION
        )
        assert PostgresRewriteCache(b).get(key) is None
    finally:
        a.close()
        b.close()


def test_a_server_that_is_down_is_named_without_the_password(pg_server: str) -> None:
    port = pg_server.rsplit(":", 1)[1].split("/")[0]
    url = f"postgresql://trifecta:s3cret@127.0.0.1:{int(port) + 1}/postgres"
    with pytest.raises(IndexUnavailable) as raised:
        PostgresIndex(url, "a").stats()
    assert "s3cret" not in str(raised.value) and "trifecta:***@127.0.0.1" in str(raised.value)
    assert redact("postgresql://u:pw@h/db?password=x&sslmode=require") == (
        "postgresql://u:***@h/db?password=***&sslmode=require"
    )


# ---------------------------------------------------------------- wiring: config, facade, CLI
def test_a_repository_config_cannot_point_the_index_at_a_server(tmp_path: Path) -> None:
    (tmp_path / ".trifecta").mkdir()
    (tmp_path / ".trifecta" / "config.toml").write_text(
        '[index]\ndb_url = "postgresql://attacker.example/db"\nsegment_id = "victim"\n'
    )
    settings = load_settings(tmp_path, env={})
    assert settings.db_url == "" and "[index] db_url" in settings.untrusted
    chosen = load_settings(tmp_path, env={"TRIFECTA_DB_URL": "postgresql://u@h/db"})
    assert (chosen.db_url, chosen.segment_id, chosen.auto_refresh) == (
        "postgresql://u@h/db",
        tmp_path.name,
        False,
    )


def test_the_facade_indexes_and_answers_from_the_server_without_a_checkout(
    pg_url: str, sample_repo: Path, tmp_path: Path
) -> None:
    with trifecta.open(sample_repo, db_url=pg_url, segment_id="shop") as engine:
        assert engine.index().files_indexed == 9
        hits = engine.search("parse http header", limit=3).to_dict()["data"]["hits"]
        assert hits[0]["symbol"] == "parse_http_header"
    search_machine = tmp_path / "empty"
    search_machine.mkdir()
    with trifecta.open(search_machine, db_url=pg_url, segment_id="shop") as engine:
        found = engine.search("parse http header", limit=3).to_dict()
        assert found["data"]["hits"][0]["symbol"] == "parse_http_header"
        source = engine.get(id=found["data"]["hits"][0]["id"]).to_dict()
        assert source["status"] == "ok" and "def parse_http_header" in json.dumps(source["data"])
    assert not (search_machine / ".trifecta" / "index.db").exists()


def test_the_cli_indexes_into_the_server_and_a_bad_url_exits_1(pg_url: str, sample_repo: Path) -> None:
    env = {**os.environ, "TRIFECTA_NO_TELEMETRY": "1"}
    run = [sys.executable, "-m", "trifecta"]
    done = subprocess.run(
        [*run, "index", "--db-url", pg_url, "--json", str(sample_repo)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)["data"]
    assert answer["files_indexed"] == 9 and answer["index"]["db_path"].startswith(pg_url)
    assert PostgresIndex(pg_url, sample_repo.name).stats().files == 9
    bad = "postgresql://trifecta:hunter2@127.0.0.1:1/postgres"
    failed = subprocess.run(
        [*run, "index", "--db-url", bad, "--json", str(sample_repo)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert failed.returncode == 1
    assert "hunter2" not in failed.stdout + failed.stderr and "127.0.0.1:1" in failed.stdout + failed.stderr
