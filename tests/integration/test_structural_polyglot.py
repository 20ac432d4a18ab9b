"""Structural questions over Go, Rust, TypeScript and JavaScript files: a real index (SQLite) of the polyglot
fixture, asked through the structural engine on the real store and through the public facade."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import trifecta
from trifecta.application.structural_engine import StructuralEngine
from trifecta.domain.structural_query import parse_structural
from trifecta.infrastructure.sqlite_store import SqliteIndex

POLYGLOT = Path(__file__).resolve().parents[1] / "fixtures" / "polyglot"
GO_EXTRA = """package server

type Closer interface {
	Handler
	Close() error
}

// Full serves through the Logger it embeds, and closes.
type Full struct {
	Logger
}

func (f *Full) Close() error { return nil }
"""


@pytest.fixture(scope="module")
def segment(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dest = tmp_path_factory.mktemp("structural") / "polyglot"
    shutil.copytree(POLYGLOT, dest, ignore=shutil.ignore_patterns(".trifecta"))
    (dest / "go" / "server" / "extra.go").write_text(GO_EXTRA)
    report = trifecta.open(dest).index().to_data()
    assert report["parse_errors"] == 0
    return dest


@pytest.fixture(scope="module")
def store(segment: Path) -> SqliteIndex:
    return SqliteIndex(segment / ".trifecta" / "index.db")


def ask(store: SqliteIndex, query: str) -> list[tuple[str, str]]:
    hits = StructuralEngine(store).search(parse_structural(query), 30)
    return [(h.chunk.language, h.chunk.symbol) for h in hits]


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("query", "expected"),
    [
        (
            "structs that implement the Handler interface",
            {("go", "Logger"), ("go", "Router"), ("go", "Full")},
        ),
        ("structs that implement the Closer interface", {("go", "Full")}),
        ("classes extending EventEmitter", {("typescript", "Emitter")}),
        ("classes implementing Observer", {("typescript", "Emitter")}),
        ("types implementing the Display trait", {("rust", "impl Display for Deserializer")}),
        ("types that derive Debug", {("rust", "Deserializer"), ("rust", "Error")}),
        ("async functions in the de module", {("rust", "read_all"), ("typescript", "Emitter.flush")}),
        ("exported functions of package server", {("go", "NewRouter")}),
        ("interfaces in server", {("go", "Handler"), ("go", "Closer")}),
        ("traits in the de module", {("rust", "Deserialize")}),
        (
            "impl blocks for Deserializer",
            {("rust", "impl Deserializer"), ("rust", "impl Display for Deserializer")},
        ),
        (
            "methods of the Router struct",
            {("go", "Router.Serve"), ("go", "Router.count"), ("php", "Router.dispatch")},
        ),
        ("functions that return a *Router", {("go", "NewRouter")}),
    ],
)
def test_the_sqlite_store_answers_each_languages_questions(
    store: SqliteIndex, query: str, expected: set[tuple[str, str]]
) -> None:
    assert set(ask(store, query)) == expected


@pytest.mark.timeout(120)
def test_a_listing_keeps_to_its_scope_and_orders_it_first(store: SqliteIndex) -> None:
    # "async functions in the de module": the Rust one is in scope (rust/src/de/), so it leads
    assert ask(store, "async functions in the de module")[0] == ("rust", "read_all")
    enums = ask(store, "all enums")
    assert set(enums) >= {("rust", "Error"), ("typescript", "Level")}
    assert all(
        kind in ("rust", "typescript", "java", "csharp", "swift", "php", "cpp", "c") for kind, _ in enums
    )


@pytest.mark.timeout(120)
def test_the_store_filters_by_kind_visibility_and_signature(store: SqliteIndex) -> None:
    structs = {s.qualname for _, s in store.structural_candidates(kinds=("struct",), path_words=("server",))}
    assert structs == {"Router", "Logger", "Full"}
    private = store.structural_candidates(kinds=("method",), exported=False, path_words=("go/server",))
    assert {s.qualname for _, s in private} == {"Router.count"}
    # a superset: the receiver mentions *Router too; the engine keeps the result (NewRouter, above)
    assert {s.qualname for _, s in store.structural_candidates(signature="*Router")} == {
        "NewRouter",
        "Router.Serve",
    }
    assert store.structural_candidates(exported=True) == []  # visibility alone is not a question


@pytest.mark.timeout(120)
def test_search_puts_the_set_first_with_language_and_uri(segment: Path) -> None:
    response = (
        trifecta.open(segment).search("structs that implement the Handler interface", limit=10).to_dict()
    )
    assert response["status"] == "ok"
    data = response["data"]
    assert data["plan"]["route"] == "structural"
    assert data["plan"]["structural_query"]["implements"] is True
    leading = data["hits"][:3]
    assert {h["symbol"] for h in leading} == {"Logger", "Router", "Full"}
    assert all(h["language"] == "go" and h["uri"].startswith("sym://go/") for h in leading)
