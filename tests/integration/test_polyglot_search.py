"""Go, Rust, TypeScript and JavaScript files indexed with symbols and searched, through the real facade."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import trifecta

POLYGLOT = Path(__file__).resolve().parents[1] / "fixtures" / "polyglot"


@pytest.fixture
def polyglot(tmp_path: Path) -> Path:
    dest = tmp_path / "polyglot"
    shutil.copytree(POLYGLOT, dest, ignore=shutil.ignore_patterns(".trifecta"))
    return dest


def hits(segment: Path, query: str, **options: object) -> list[dict[str, object]]:
    response = trifecta.open(segment).search(query, limit=10, **options).to_dict()
    assert response["status"] == "ok", response
    return response["data"]["hits"]


def test_index_counts_symbols_of_every_language(polyglot: Path) -> None:
    engine = trifecta.open(polyglot)
    report = engine.index().to_data()
    assert report["parse_errors"] == 0
    assert report["symbols_added"] >= 40
    languages = {h["language"] for h in hits(polyglot, "Serve deserialize notify request")}
    assert {"go", "rust", "typescript", "javascript"} & languages


@pytest.mark.parametrize(
    ("query", "path", "symbol"),
    [
        ("Router.Serve dispatches a request", "go/server/handler.go", "Router.Serve"),
        ("which function starts reading the input", "rust/src/de/mod.rs", "Deserializer.new"),
        ("call every listener with the event", "ts/src/core/emitter.ts", "Emitter.notify"),
        ("dispatch a request with a config", "js/lib/axiosish.js", "Axios.request"),
    ],
)
def test_a_question_finds_the_definition_by_its_qualified_name(
    polyglot: Path, query: str, path: str, symbol: str
) -> None:
    top = hits(polyglot, query)[0]
    assert (top["path"], top["symbol"]) == (path, symbol)
    assert top["start_line"] <= top["end_line"]


def test_declaration_files_rank_below_the_source_unless_asked_for(polyglot: Path) -> None:
    (polyglot / "ts" / "types").mkdir()
    (polyglot / "ts" / "types" / "emitter.d.ts").write_text(
        "/** Calls every listener. */\nexport declare function notifyAllListeners(event: string): void\n"
    )
    (polyglot / "ts" / "src" / "core" / "notify.ts").write_text(
        "/** Calls every listener. */\nexport function notifyAllListeners(event: string): void {\n"
        "    for (const l of listeners) l(event)\n}\n"
    )
    found = hits(polyglot, "notifyAllListeners")
    assert found[0]["path"] == "ts/src/core/notify.ts"
    asked = hits(polyglot, "the type declarations of notifyAllListeners")
    assert asked[0]["path"] == "ts/types/emitter.d.ts"


@pytest.mark.parametrize(
    ("query", "path", "symbol"),
    [
        # the prose matches `read_all` (empty input, bytes, len) better than the method it names
        (
            "Deserializer::peek: what happens with empty input bytes when read_all reads everything?",
            "rust/src/de/mod.rs",
            "Deserializer.peek",
        ),
        (
            "how does Deserializer.new store the input bytes it reads?",
            "rust/src/de/mod.rs",
            "Deserializer.new",
        ),
    ],
)
def test_a_definition_named_as_code_comes_first(polyglot: Path, query: str, path: str, symbol: str) -> None:
    response = trifecta.open(polyglot).search(query, limit=10).to_dict()
    top = response["data"]["hits"][0]
    assert (top["path"], top["symbol"]) == (path, symbol)
    assert f"{path}:{symbol}" in response["data"]["plan"]["symbols_named"]


def test_a_name_with_many_definitions_names_none_of_them(polyglot: Path) -> None:
    for n in range(4):
        (polyglot / "ts" / "src" / "core" / f"part{n}.ts").write_text(
            f"export function handle_event(x: number): number {{\n    return x + {n}\n}}\n"
        )
    response = trifecta.open(polyglot).search("where is handle_event used", limit=10).to_dict()
    assert "symbols_named" not in response["data"]["plan"]
    assert response["data"]["hits"]


def test_a_structural_set_is_ordered_by_the_question_words_not_by_path(polyglot: Path) -> None:
    for name, body in [
        ("a_plain", "keeps a value"),
        ("b_plain", "keeps a count"),
        ("z_json", "parses json text"),
    ]:
        (polyglot / "ts" / "src" / "core" / f"{name}.ts").write_text(
            f"/** {body} */\nexport class {name.title().replace('_', '')} extends BaseReader {{\n"
            f"    read(): string {{\n        return '{body}'\n    }}\n}}\n"
        )
    found = hits(polyglot, "classes that extend BaseReader and parse json text")
    assert [h["symbol"] for h in found[:3]][0] == "ZJson"
    assert {h["symbol"] for h in found[:3]} == {"APlain", "BPlain", "ZJson"}


def test_an_overload_set_named_as_code_is_its_implementation(polyglot: Path) -> None:
    (polyglot / "ts" / "src" / "core" / "values.ts").write_text(
        "export function parseValue(x: string): number\n"
        "export function parseValue(x: number): number\n"
        "export function parseValue(x: string | number): number {\n"
        "    return typeof x === 'string' ? Number(x) : x\n}\n"
    )
    response = trifecta.open(polyglot).search("how does parseValue treat a string", limit=5).to_dict()
    assert response["data"]["plan"]["symbols_named"] == ["ts/src/core/values.ts:parseValue"]
    top = response["data"]["hits"][0]
    assert (top["symbol"], top["start_line"], top["end_line"]) == ("parseValue", 3, 5)


def test_a_long_declaration_is_shown_from_its_matching_line(polyglot: Path) -> None:
    rows = "".join(f"    {n}: 'message number {n}',\n" for n in range(30))
    (polyglot / "ts" / "src" / "core" / "messages.ts").write_text(
        "export const messages = {\n" + rows + "    cycle: 'Cycle detected in computation',\n}\n"
    )
    top = hits(polyglot, "where is the cycle detected in a computation message")[0]
    assert (top["symbol"], top["line"]) == ("messages", 32)
    assert top["preview"].lstrip().startswith("cycle: 'Cycle detected")
