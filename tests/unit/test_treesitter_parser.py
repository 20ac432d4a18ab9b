"""The tree-sitter parser: symbols, ranges, docs and chunks for the languages of data/languages.toml."""

from __future__ import annotations

from pathlib import Path

import pytest

from trifecta.domain.code import ChunkKind, ParsedFile, Symbol, SymbolKind
from trifecta.infrastructure import treesitter_parser
from trifecta.infrastructure.code_parser import parse_source

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "polyglot"


def parse_fixture(relative: str) -> ParsedFile:
    return parse_source(relative, (FIXTURES / relative).read_text(encoding="utf-8"))


def by_qualname(parsed: ParsedFile) -> dict[str, list[Symbol]]:
    out: dict[str, list[Symbol]] = {}
    for s in parsed.symbols:
        out.setdefault(s.qualname, []).append(s)
    return out


def only(parsed: ParsedFile, qualname: str) -> Symbol:
    found = by_qualname(parsed)[qualname]
    assert len(found) == 1, found
    return found[0]


def test_go_methods_are_receiver_dot_name_with_doc_and_export() -> None:
    parsed = parse_fixture("go/server/handler.go")
    assert parsed.language == "go" and not parsed.error
    serve = only(parsed, "Router.Serve")
    assert (serve.kind, serve.start_line, serve.end_line) == (SymbolKind.METHOD, 21, 27)
    assert serve.docstring == "Serve dispatches req to the handler registered for it."
    assert serve.signature == "func (r *Router) Serve(req string) error"
    assert serve.params == ("req",) and serve.parent == "Router" and serve.exported
    count = only(parsed, "Router.count")  # a value receiver, unexported
    assert count.kind is SymbolKind.METHOD and not count.exported
    router = only(parsed, "Router")
    assert router.kind is SymbolKind.STRUCT and router.bases == ("Logger",)
    assert only(parsed, "Handler").kind is SymbolKind.INTERFACE
    assert only(parsed, "Handler.Serve").kind is SymbolKind.METHOD
    assert only(parsed, "MaxRoutes").kind is SymbolKind.CONST
    assert only(parsed, "NewRouter").kind is SymbolKind.FUNCTION


def test_rust_impl_blocks_qualify_their_functions_and_attributes_start_the_range() -> None:
    parsed = parse_fixture("rust/src/de/mod.rs")
    new = only(parsed, "Deserializer.new")
    assert new.kind is SymbolKind.METHOD and new.exported and new.docstring == "Starts reading `input`."
    assert not only(parsed, "Deserializer.peek").exported
    assert only(parsed, "Deserializer.fmt").parent == "Deserializer"
    display = only(parsed, "impl Display for Deserializer")
    assert display.kind is SymbolKind.IMPL and display.bases == ("Display",)
    assert only(parsed, "impl Deserializer").kind is SymbolKind.IMPL
    struct = only(parsed, "Deserializer")
    assert struct.start_line == 6  # the #[derive] line, not the doc comment above it
    assert struct.decorators == ("#[derive(Debug, Clone)]",)
    assert struct.docstring == "Reads values out of bytes."
    trait = only(parsed, "Deserialize")
    assert trait.kind is SymbolKind.TRAIT and trait.bases == ("Sized",)
    assert only(parsed, "Deserialize.deserialize").kind is SymbolKind.METHOD
    assert only(parsed, "read_all").is_async
    assert only(parsed, "tri").kind is SymbolKind.MACRO
    assert only(parsed, "Error").kind is SymbolKind.ENUM


def test_typescript_classes_decorators_jsdoc_overloads_and_arrow_constants() -> None:
    parsed = parse_fixture("ts/src/core/emitter.ts")
    emitter = only(parsed, "Emitter")
    assert (emitter.start_line, emitter.end_line) == (12, 30)  # from @sealed, above `export class`
    assert emitter.decorators == ("sealed",) and emitter.docstring == "Sends events to listeners."
    assert emitter.bases == ("EventEmitter", "Observer") and emitter.exported
    assert only(parsed, "Emitter.notify").docstring == "Calls every listener."
    assert only(parsed, "Emitter.flush").is_async
    assert only(parsed, "Emitter.handle").kind is SymbolKind.METHOD  # an arrow-valued class field
    assert only(parsed, "Observer.name").kind is SymbolKind.FIELD
    assert [(s.start_line, s.end_line) for s in by_qualname(parsed)["parse"]] == [
        (39, 39),
        (40, 40),
        (41, 43),
    ]
    create = only(parsed, "createEmitter")
    assert create.kind is SymbolKind.FUNCTION and (create.start_line, create.end_line) == (45, 47)
    defaults = only(parsed, "DEFAULTS")
    assert defaults.kind is SymbolKind.CONST and not defaults.exported
    assert only(parsed, "Level").kind is SymbolKind.ENUM
    assert only(parsed, "Listener2").kind is SymbolKind.TYPE


def test_tsx_and_javascript_assignment_forms() -> None:
    view = parse_fixture("ts/src/core/view.tsx")
    assert view.language == "typescript" and {"Badge", "List"} <= set(by_qualname(view))
    js = parse_fixture("js/lib/axiosish.js")
    assert js.language == "javascript"
    assert only(js, "Axios.request").kind is SymbolKind.METHOD  # Axios.prototype.request = function
    assert only(js, "Axios.helper").start_line == 18
    assert only(js, "isCancel").exported  # exports.isCancel = function
    assert only(js, "InterceptorManager.use").parent == "InterceptorManager"
    assert only(js, "mergeConfig").kind is SymbolKind.FUNCTION
    assert only(js, "Axios").docstring == "Create a new instance."


def test_chunks_one_per_function_a_header_per_type_and_module_windows() -> None:
    parsed = parse_fixture("ts/src/core/emitter.ts")
    chunks = {(c.kind, c.symbol): c for c in parsed.chunks}
    header = chunks[(ChunkKind.CLASS, "Emitter")]
    assert (header.start_line, header.end_line) == (12, 15)
    assert "notify(event: string): void {" in header.body  # a member's first line stays as a summary
    assert "for (const l of this.listeners)" not in header.body
    assert chunks[(ChunkKind.METHOD, "Emitter.notify")].doc.startswith("Calls every listener.")
    assert (ChunkKind.DECLARATION, "DEFAULTS") in chunks
    assert (ChunkKind.FUNCTION, "createEmitter") in chunks
    module = [c for c in parsed.chunks if c.kind is ChunkKind.MODULE]
    assert module and 'import { Listener } from "./types"' in module[0].body
    assert all(c.language == "typescript" for c in parsed.chunks)
    ids = [c.id for c in parsed.chunks]
    assert len(ids) == len(set(ids))  # the three `parse` chunks get distinct ids


def test_a_file_the_grammar_gives_up_on_keeps_the_definitions_of_each_block() -> None:
    source = (  # (shrunk from mobx's api/action.ts: tree-sitter-typescript 0.23 makes the root an ERROR)
        "export const A = 1\n"
        "export interface F {\n"
        "    <T extends Function | undefined | null>(fn: T): T\n"
        "    <T extends Function | undefined | null>(name: string, fn: T): T\n"
        "}\n"
        "function g() {\n"
        "        if (isStringish(arg1)) {\n"
        "                createActionAnnotation(autoAction ? AUTOACTION : ACTION, {\n"
        "}\n"
        "action.bound = createDecoratorAnnotation(actionBoundAnnotation)\n"
        "export function after(x: number): number {\n"
        "    return x\n"
        "}\n"
    )
    parsed = parse_source("src/f.ts", source)
    assert {"A", "after"} <= {s.qualname for s in parsed.symbols}
    assert only(parsed, "after").start_line == 11
    assert parsed.error  # counted as a parse error all the same


@pytest.mark.timeout(60)
def test_bad_input_stays_searchable_as_text_and_is_counted() -> None:
    minified = "var a=" + "1+" * 20_000 + "1;\n"
    parsed = parse_source("dist/app.min.js", minified)
    assert parsed.error and parsed.chunks and all(c.kind is ChunkKind.TEXT for c in parsed.chunks)
    deep = "let x = " + "[" * 100_000 + "]" * 100_000 + ";\n"
    parsed = parse_source("deep.ts", deep)  # many nesting levels: no crash, no hang
    assert parsed.language == "typescript"
    binary = "\x00\x01\x02fn main() {}\x00" * 100
    assert parse_source("weird.rs", binary).language == "rust"


def test_a_parse_over_the_time_limit_is_text_and_the_parser_is_reset(monkeypatch: pytest.MonkeyPatch) -> None:
    treesitter_parser._compiled.cache_clear()
    monkeypatch.setattr(treesitter_parser, "PARSE_SECONDS", 0.000_001)
    big = "".join(f"export function f{i}(a: number): number {{ return a + {i} }}\n" for i in range(20_000))
    parsed = parse_source("big.ts", big)
    assert "parse took over" in parsed.error and all(c.kind is ChunkKind.TEXT for c in parsed.chunks)
    treesitter_parser._compiled.cache_clear()
    monkeypatch.setattr(treesitter_parser, "PARSE_SECONDS", 2.0)
    after = parse_source(
        "small.ts", "export function ok(): void {}\n"
    )  # a fresh parse, not the old one resumed
    assert [s.qualname for s in after.symbols] == ["ok"]


def test_every_table_row_loads_its_grammar_and_compiles_its_query() -> None:
    for spec in treesitter_parser.language_specs():
        parser, query = treesitter_parser._compiled(spec.key)
        assert query.pattern_count > 0, spec.key
    assert {"go", "rust", "typescript", "javascript"} <= treesitter_parser.symbol_languages()


@pytest.mark.parametrize(
    ("relative", "language", "expected"),
    [
        ("more/Shapes.java", "java", {"Shape", "Shape.area", "Circle", "Circle.Circle", "Circle.area"}),
        ("more/Store.cs", "csharp", {"Shop", "Store", "Store.Count", "IStore", "IStore.Count"}),
        ("more/buffer.c", "c", {"buffer", "buffer_t", "buffer_append", "buffer_take"}),
        ("more/widget.cpp", "cpp", {"ui", "Widget", "Widget.draw", "Widget.resize"}),
        ("more/cart.rb", "ruby", {"Cart", "Cart.add", "Cart.empty"}),
        ("more/Router.php", "php", {"App", "Router", "Router.dispatch", "helper"}),
        (
            "more/Player.swift",
            "swift",
            {"Player", "Player.play", "Track", "impl Player", "Player.stop", "Playable"},
        ),
    ],
)
def test_more_languages_from_the_same_table(relative: str, language: str, expected: set[str]) -> None:
    parsed = parse_fixture(relative)
    assert parsed.language == language and not parsed.error
    assert expected <= {s.qualname for s in parsed.symbols}


def test_java_annotations_start_the_range_and_bases_are_read() -> None:
    parsed = parse_fixture("more/Shapes.java")
    circle = only(parsed, "Circle")
    assert (circle.start_line, circle.kind) == (9, SymbolKind.CLASS)  # @Immutable
    assert circle.bases == ("Base", "Shape") and circle.exported
    assert only(parsed, "Circle.area").start_line == 17  # @Override


@pytest.mark.parametrize(
    ("path", "source", "expected"),
    [
        (
            "a.ts",
            "/**\n * Like {@link map}, see {@link Foo#bar}.\n */\nexport function f() { /* {@linkcode baz} */ }\n",
            [("", 2, 15, "map", "map"), ("", 2, 36, "bar", "Foo.bar"), ("f", 4, 36, "baz", "baz")],
        ),
        (
            "a.go",
            "package p\n\n// Do calls [Run] and [*pkg.Other], not a[i] or [RFC 1] or [text](url).\nfunc Do() {}\n",
            [("", 3, 13, "Run", "Run"), ("", 3, 28, "Other", "pkg.Other")],
        ),
        (
            "a.rs",
            "/// Calls [`run`] and [`Foo::bar()`], not [link](x) or [`x`](y).\nfn f() {}\n",
            [("", 1, 12, "run", "run"), ("", 1, 29, "bar", "Foo.bar")],
        ),
    ],
)
def test_doc_comment_links_are_doc_edges_at_the_linked_name(
    path: str, source: str, expected: list[tuple[str, int, int, str, str]]
) -> None:
    edges = parse_source(path, source).edge_list()
    assert [(e.caller, e.line, e.column, e.name, e.text) for e in edges if e.kind.value == "doc"] == expected


TS_FORMS = """export class Box {
  get value(): number { return 1 }
  set value(v: number) { }
  static get size(): number { return 1 }
  get(key: string): string { return key }
  run(a: string): Promise<void> & { cancel(): void }
  run(a: any): any { return null }
  abstract stop(): void;
}
export const twice = (x: number) => x * 2
"""


def test_the_tree_tells_bodiless_signatures_and_accessors_not_the_text() -> None:
    forms = {(q, line): f for q, line, f in parse_source("src/box.ts", TS_FORMS).forms}
    assert forms[("Box.value", 2)] == "get" and forms[("Box.value", 3)] == "set"
    assert forms[("Box.size", 4)] == "get"
    # a signature whose return type is an object type ends with a brace all the same
    assert forms[("Box.run", 6)] == "signature" and forms[("Box.stop", 8)] == "signature"
    # with a body: a method named `get`, the implementation, an arrow constant
    assert ("Box.get", 5) not in forms and ("Box.run", 7) not in forms and ("twice", 10) not in forms


def test_javascript_assignment_functions_have_their_body() -> None:
    text = "function A() {}\nA.prototype.m = function (x) { return x }\nexports.k = async () => {}\n"
    assert parse_source("lib/a.js", text).forms == ()
