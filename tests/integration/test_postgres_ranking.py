"""Ranking parity: the PostgreSQL store's full-text search returns what the SQLite store returns, in the same
order, with the same scores (to float4's precision), on the same chunks: all words, any word in each of its
tiers (two words: the chunks naming one first; three or more: the chunks holding two, scored (m - 1) x the
sum), alternatives that stem alike, and the common-word filter. A real server, started here."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))
from postgres_server import bindir, new_database, running_server  # noqa: E402
from trifecta.application.index_segment import IndexRequest, IndexSegment  # noqa: E402
from trifecta.application.ports import FileUpdate  # noqa: E402
from trifecta.domain.code import FileState  # noqa: E402
from trifecta.infrastructure.code_parser import SourceParser, parse_item  # noqa: E402
from trifecta.infrastructure.file_source import LocalFileSource  # noqa: E402
from trifecta.infrastructure.postgres_store import STEMMER, PostgresIndex, connect, migrate  # noqa: E402
from trifecta.infrastructure.sqlite_store import SqliteIndex  # noqa: E402

pytestmark = [
    pytest.mark.timeout(120),
    pytest.mark.skipif(bindir() is None, reason="PostgreSQL is not installed (scripts/test installs it)"),
]

WORDS = ["alpha", "beta", "gamma", "delta", "omega", "sigma", "kappa", "theta", "zeta", "iota", "rho"]


def _updates() -> list[FileUpdate]:
    """240 functions, each holding a few of WORDS (some in plural) in its name, docstring or body, some
    words many times, and 240 that hold none; every function's body says `value`: past
    COMMON_WORDS_FROM_CHUNKS chunks, so the common-word filter leaves `value` out of any-word queries."""
    updates = []
    for n in range(480):
        if n % 2:
            name, doc, body = f"filler_{n}", "", "value"
        else:
            name = "_".join(WORDS[(n * k) % len(WORDS)] for k in (1, 3)) + f"_{n}"
            doc = " ".join(WORDS[(n + k) % len(WORDS)] + "s" * (n % 4 // 2) for k in range(n % 3))
            body = " + ".join(["value", *(WORDS[(n * 7 + k) % len(WORDS)] for k in range(n % 5))])
        text = f'def {name}():\n    """{doc}"""\n    return {body}\n'
        _, parsed = parse_item((f"m{n}.py", text))
        updates.append(
            FileUpdate(
                state=FileState(path=f"m{n}.py", size=len(text), mtime_ns=0, sha256=str(n)),
                parsed=parsed,
                n_lines=3,
            )
        )
    return updates


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[SqliteIndex, PostgresIndex]]:
    with running_server() as server:
        lite = SqliteIndex(tmp_path_factory.mktemp("lite") / "index.db")
        pg = PostgresIndex(new_database(server, "ranking"), "words")
        try:
            for store in (lite, pg):
                store.apply(_updates(), [], [])
                store.finish_run("now")
            yield lite, pg
        finally:
            lite.close()
            pg.close()


def _ranked(store: SqliteIndex | PostgresIndex, groups: list[list[str]], require_all: bool, limit: int):
    return [
        (sc.chunk.id, sc.score) for sc in store.search_terms(groups, require_all=require_all, limit=limit)
    ]


GROUPS = [
    [["alpha"], ["beta"]],  # two words: the chunks naming one, then the rest
    [["alpha"], ["beta"], ["gamma"]],
    [["alpha", "alphas"], ["beta"], ["gamma", "kappa", "zeta"], ["rho"]],  # alternatives that stem alike
    [[w] for w in WORDS[:5]],
    [[w] for w in WORDS[:9]],  # more than MAX_PAIR_CLAUSES: the ninth word counts in the second tier
    [[w] for w in WORDS],
    [["delta"]],
    [["omega sigma"], ["theta"]],  # a phrase
    [["value"], ["kappa"], ["theta"], ["rho"]],  # a word in every chunk: left out of any-word queries
]


@pytest.mark.parametrize("groups", GROUPS, ids=lambda g: "-".join(a[0].replace(" ", "_") for a in g))
@pytest.mark.parametrize("require_all", [False, True])
@pytest.mark.parametrize("limit", [3, 25, 400])
def test_both_stores_rank_alike(
    stores: tuple[SqliteIndex, PostgresIndex], groups: list[list[str]], require_all: bool, limit: int
) -> None:
    lite, pg = (_ranked(s, groups, require_all, limit) for s in stores)
    assert [cid for cid, _ in pg] == [cid for cid, _ in lite]
    assert [round(s, 3) for _, s in pg] == pytest.approx([round(s, 3) for _, s in lite], rel=1e-4, abs=2e-3)


WEIGHTED = [
    ([["alpha", "iota"], ["beta"], ["gamma"], ["delta"]], [0.7, 1.0, 0.5, 0.5]),
    ([["alpha", "alphas"], ["beta", "theta"], ["gamma"], ["omega sigma", "rho"]], [0.3, 0.7, 0.7, 0.7]),
]


@pytest.mark.parametrize("groups, weights", WEIGHTED, ids=["three", "four"])
@pytest.mark.parametrize("limit", [3, 400])
def test_both_stores_weigh_alternatives_alike(
    stores: tuple[SqliteIndex, PostgresIndex], groups: list[list[str]], weights: list[float], limit: int
) -> None:
    lite, pg = (
        [
            (sc.chunk.id, sc.score)
            for sc in s.search_terms(groups, require_all=False, limit=limit, alternative_weights=weights)
        ]
        for s in stores
    )
    if limit > len(lite):  # every chunk holding a word: the weights changed the scores
        assert lite != _ranked(stores[0], groups, False, limit)
    assert [cid for cid, _ in pg] == [cid for cid, _ in lite]
    assert [round(s, 3) for _, s in pg] == pytest.approx([round(s, 3) for _, s in lite], rel=1e-4, abs=2e-3)


# ---------------------------------------------------------------- the stemmer of segments written before it
def _index_folder(store: PostgresIndex, folder: Path) -> int:
    """An index run as the facade runs it: under the segment's writer lock."""
    source = LocalFileSource(folder)
    try:
        with store.writing():
            done = IndexSegment(
                source=source, parser=SourceParser(workers=1), writer=store, clock=lambda: "t"
            ).execute(IndexRequest())
    finally:
        source.close()
    return done.files_indexed


def _count(store: PostgresIndex, lexeme: str) -> int:
    return int(
        store._conn.execute(
            "SELECT count(*) FROM trifecta_chunks WHERE segment_id=%s AND tsv @@ to_tsquery('simple', %s)",
            (store._sid, lexeme),
        ).fetchone()[0]
    )


def test_a_segment_stemmed_before_porter_is_searched_as_written_then_rewritten_whole(
    stores: tuple[SqliteIndex, PostgresIndex], sample_repo: Path
) -> None:
    url = new_database(stores[1].url.rsplit("/", 1)[0] + "/postgres", "restem")
    conn = connect(url)
    try:
        migrate(conn, target=4)  # a database from before the Porter stemmer, with a segment in it
        conn.execute("INSERT INTO trifecta_segments(name) VALUES ('old')")
        migrate(conn)
        stemmers = dict(conn.execute("SELECT name, stemmer FROM trifecta_segments").fetchall())
        assert stemmers == {"old": "english_stem"}
    finally:
        conn.close()
    old = PostgresIndex(url, "old")
    try:
        old._restem = lambda sid: None  # type: ignore[method-assign]  # written as an older trifecta did
        files = _index_folder(old, sample_repo)
        assert _count(old, "tri") > 0 and _count(old, "try") == 0  # english_stem's lexemes ("try" -> "tri")
    finally:
        old.close()
    searcher = PostgresIndex(url, "old", searcher=True)
    writer = PostgresIndex(url, "old")
    try:
        before = [sc.chunk.id for sc in searcher.search_terms([["try"]], require_all=True, limit=3)]
        assert before  # queries are stemmed as the segment was
        assert _index_folder(writer, sample_repo) == files  # the next run rewrites every file
        assert writer.rebuilt is not None and writer.rebuilt["reason"] == "stemmer"
        row = writer._conn.execute("SELECT stemmer FROM trifecta_segments WHERE name='old'").fetchone()
        assert row[0] == STEMMER
        searcher._fresh_at = float("-inf")  # past FRESH_SECONDS: it sees the new stemmer and data
        assert _count(writer, "try") > 0 and _count(writer, "tri") == 0  # Porter's, as FTS5's
        assert [sc.chunk.id for sc in searcher.search_terms([["try"]], require_all=True, limit=3)] == before
        assert _index_folder(writer, sample_repo) == 0  # and only once
    finally:
        searcher.close()
        writer.close()
