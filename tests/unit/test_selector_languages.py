"""Selectors in every language with symbols: the grammar's path components and the resolver's path rules.

The resolver runs over in-memory fakes of the index and the file source; the parser is the real one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.unit.fakes import FakeIndex, FakeSource

from trifecta.application.zoom_ast import (
    Resolved,
    SnippetRequest,
    SnippetUseCase,
    SymbolResolver,
    SymbolsRequest,
    SymbolsUseCase,
    Unresolved,
    path_rules,
)
from trifecta.domain.contract import ErrorCode, Response
from trifecta.domain.selector import Selector, SelectorError, SelectorKind, parse
from trifecta.infrastructure.code_parser import SourceParser
from trifecta.infrastructure.treesitter_parser import symbol_languages
from trifecta.interfaces.bootstrap import selector_rules

RULES = path_rules(
    {
        "go": (".go",),
        "rust": (".rs",),
        "typescript": (".ts", ".mts", ".cts", ".tsx"),
        "javascript": (".js", ".jsx", ".mjs", ".cjs"),
    }
)
LANGUAGES = frozenset(RULES)

GO_HANDLER = """package server

type Handler interface {
\tServe(req string) error
}

type Router struct {
\troutes map[string]Handler
}

func (r *Router) Serve(req string) error {
\treturn nil
}

func NewRouter() *Router {
\treturn &Router{}
}
"""
GO_LOGGER = """package server

type Logger struct{}

func (l Logger) Serve(req string) error {
\treturn nil
}
"""
RUST = """pub struct Error {
    code: u8,
}

impl Error {
    pub fn new(code: u8) -> Self {
        Error { code }
    }
}

impl Display for Error {
    fn fmt(&self, f: &mut Formatter) -> Result {
        write!(f, "{}", self.code)
    }
}

impl Debug for Error {
    fn fmt(&self, f: &mut Formatter) -> Result {
        write!(f, "E{}", self.code)
    }
}
"""
TS_OVERLOADS = """export function parse(text: string): number;
export function parse(text: string, radix: number): number;
export function parse(text: string, radix = 10): number {
    return parseInt(text, radix)
}

export class Box {
    open(): void {}
}
"""
TS_DECLARATIONS = """export function parse(text: string): number;
export function parse(text: string, radix: number): number;
"""


class Segment:
    def __init__(self, files: Mapping[str, str], indexed: bool = True) -> None:
        index = FakeIndex(files if indexed else {})
        self.resolver = SymbolResolver(
            reader=index, source=FakeSource(files), parser=SourceParser(workers=1), rules=RULES
        )
        self.symbols_uc = SymbolsUseCase(self.resolver)
        self.snippet_uc = SnippetUseCase(self.resolver)

    def resolve(self, uri: str) -> Resolved:
        resolved = self.resolver.resolve(uri)
        assert isinstance(resolved, Resolved), resolved
        return resolved

    def error(self, uri: str) -> tuple[ErrorCode, dict[str, Any], Unresolved]:
        resolved = self.resolver.resolve(uri)
        assert isinstance(resolved, Unresolved), resolved
        return resolved.error.code, dict(resolved.error.data), resolved

    def symbols(self, uri: str) -> Response:
        return self.symbols_uc.execute(SymbolsRequest(uri=uri))

    def snippet(self, uri: str) -> Response:
        return self.snippet_uc.execute(SnippetRequest(uri=uri))


def lines(resolved: Resolved) -> tuple[int, int]:
    return resolved.start_line, resolved.end_line


# --- grammar ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "path", "symbol"),
    [
        ("sym://typescript/mod/src/api/become-observed", ("src", "api", "become-observed"), ""),
        ("sym://typescript/mod/app/foo.service", ("app", "foo.service"), ""),
        ("sym://go/mod/cmd/v2", ("cmd", "v2"), ""),
        ("sym://javascript/mod/pages/404", ("pages", "404"), ""),
        (
            "sym://javascript/type/lib/core/AxiosHeaders/$internals",
            ("lib", "core", "AxiosHeaders"),
            "$internals",
        ),
    ],
)
def test_file_names_of_other_languages_are_path_components(
    text: str, path: tuple[str, ...], symbol: str
) -> None:
    selector = parse(text, LANGUAGES)
    assert isinstance(selector, Selector), selector
    assert (selector.path, selector.symbol) == (path, symbol)
    assert selector.render() == text


@pytest.mark.parametrize(
    "text", ["sym://typescript/mod/../x", "sym://typescript/mod/a/./b", "sym://typescript/type/a/foo-bar"]
)
def test_dot_folders_and_non_identifier_symbols_are_syntax_errors(text: str) -> None:
    error = parse(text, LANGUAGES)
    assert isinstance(error, SelectorError) and error.code is ErrorCode.INVALID_SELECTOR_SYNTAX


components = st.from_regex(r"[A-Za-z0-9_$][A-Za-z0-9_$.-]{0,8}", fullmatch=True)
names = st.from_regex(r"[A-Za-z_$][A-Za-z0-9_$]{0,8}", fullmatch=True)


@given(st.lists(components, min_size=1, max_size=4), names, st.lists(names, max_size=2))
def test_parse_inverts_render_with_any_file_name(path: list[str], symbol: str, member: list[str]) -> None:
    selector = Selector(
        language="typescript", kind=SelectorKind.TYPE, path=tuple(path), symbol=symbol, member=tuple(member)
    )
    assert parse(selector.render(), LANGUAGES) == selector


@pytest.mark.parametrize("language", ["haskell", "markdown"])
def test_a_language_without_symbols_names_the_supported_ones(language: str) -> None:
    code, data, resolved = Segment({"a.hs": "main = pure ()"}).error(f"sym://{language}/mod/a")
    assert code is ErrorCode.LANGUAGE_NOT_SUPPORTED
    assert "supported: go, javascript, python, rust, typescript" in resolved.error.message
    assert data["position"] == len("sym://")


def test_the_composition_root_reads_every_language_of_the_parser_table() -> None:
    rules = selector_rules()
    assert set(rules) == {"python"} | symbol_languages()
    assert {".ts", ".tsx"} <= set(rules["typescript"].extensions)
    assert {".js", ".jsx", ".mjs", ".cjs"} <= set(rules["javascript"].extensions)


# --- which file a path names ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("files", "uri", "path"),
    [
        ({"src/core/index.ts": "export const a = 1\n"}, "sym://typescript/mod/src/core", "src/core/index.ts"),
        ({"src/core/index.tsx": "export const a = 1\n"}, "sym://typescript/mod/core", "src/core/index.tsx"),
        ({"lib/util/index.js": "function a() {}\n"}, "sym://javascript/mod/util", "lib/util/index.js"),
        ({"lib/util/index.mjs": "function a() {}\n"}, "sym://javascript/mod/lib/util", "lib/util/index.mjs"),
        ({"src/de/mod.rs": "fn a() {}\n"}, "sym://rust/mod/de", "src/de/mod.rs"),
        ({"src/de/mod.rs": "fn a() {}\n"}, "sym://rust/mod/src/de/mod", "src/de/mod.rs"),
        ({"crate/src/lib.rs": "fn a() {}\n"}, "sym://rust/mod/src", "crate/src/lib.rs"),
        ({"cli/src/main.rs": "fn main() {}\n"}, "sym://rust/mod/cli/src", "cli/src/main.rs"),
        ({"src/api/become-observed.ts": "function a() {}\n"}, "sym://typescript/mod/become-observed",
         "src/api/become-observed.ts"),
    ],
)  # fmt: skip
def test_a_folder_name_matches_its_own_file(files: dict[str, str], uri: str, path: str) -> None:
    assert Segment(files).resolve(uri).path == path


def test_a_ts_and_a_tsx_file_of_one_name_are_ambiguous() -> None:
    segment = Segment({"ui/view.ts": "function a() {}\n", "ui/view.tsx": "function b() {}\n"})
    code, data, _ = segment.error("sym://typescript/mod/ui/view")
    assert code is ErrorCode.AMBIGUOUS_SYMBOL
    assert [c["file_rel"] for c in data["candidates"]] == ["ui/view.ts", "ui/view.tsx"]


def test_declaration_files_are_not_matched() -> None:
    segment = Segment({"types/index.d.ts": "export function f(): void;\n"})
    code, _data, _ = segment.error("sym://typescript/mod/types")
    assert code is ErrorCode.SYMBOL_NOT_FOUND


def test_a_go_folder_is_its_package_skeleton_over_every_file() -> None:
    segment = Segment({"pkg/server/handler.go": GO_HANDLER, "pkg/server/logger.go": GO_LOGGER})
    response = segment.symbols("sym://go/mod/server")
    assert response.ok, response.errors
    assert response.data["path"] == "pkg/server"
    assert response.data["uri"] == "sym://go/mod/pkg/server"
    assert response.data["files"] == ["pkg/server/handler.go", "pkg/server/logger.go"]
    top = [(e["name"], e["path"], e["uri"]) for e in response.data["symbols"]]
    assert ("Logger", "pkg/server/logger.go", "sym://go/type/pkg/server/logger/Logger") in top
    assert ("Serve", "pkg/server/handler.go", "sym://go/type/pkg/server/handler/Router#Serve") in top
    assert segment.resolve("sym://go/mod/pkg/server/logger").path == "pkg/server/logger.go"


def test_two_go_packages_of_one_name_are_ambiguous() -> None:
    segment = Segment({"a/server/x.go": GO_LOGGER, "b/server/y.go": GO_LOGGER})
    code, data, _ = segment.error("sym://go/mod/server")
    assert code is ErrorCode.AMBIGUOUS_SYMBOL
    assert [c["sym"] for c in data["candidates"]] == ["sym://go/mod/a/server", "sym://go/mod/b/server"]


# --- which definition -------------------------------------------------------------------------------------


def test_a_go_type_selector_may_name_the_package_folder() -> None:
    segment = Segment({"server/handler.go": GO_HANDLER, "server/logger.go": GO_LOGGER})
    resolved = segment.resolve("sym://go/type/server/Logger#Serve")
    assert (resolved.path, lines(resolved)) == ("server/logger.go", (5, 7))
    assert resolved.uri == "sym://go/type/server/logger/Logger#Serve"
    assert lines(segment.resolve("sym://go/type/server/handler/Router#Serve")) == (11, 13)


def test_go_methods_of_one_name_on_several_receivers_are_candidates() -> None:
    segment = Segment({"server/handler.go": GO_HANDLER, "server/logger.go": GO_LOGGER})
    code, data, unresolved = segment.error("sym://go/type/server/Serve")
    assert code is ErrorCode.AMBIGUOUS_SYMBOL
    assert {c["sym"] for c in data["candidates"]} == {
        "sym://go/type/server/handler/Handler#Serve",
        "sym://go/type/server/handler/Router#Serve",
        "sym://go/type/server/logger/Logger#Serve",
    }
    for candidate in unresolved.candidates:  # every candidate resolves, to its own range
        resolved = segment.resolve(candidate)
        assert [c["range"] for c in data["candidates"] if c["sym"] == candidate] == [
            {"start_line": resolved.start_line, "end_line": resolved.end_line}
        ]


def test_one_member_of_the_bare_name_is_pointed_at_not_guessed() -> None:
    code, data, unresolved = Segment({"server/logger.go": GO_LOGGER}).error(
        "sym://go/type/server/logger/Serve"
    )
    assert code is ErrorCode.SYMBOL_NOT_FOUND
    assert data["reason"] == "member"
    assert unresolved.next_actions == ("ast snippet 'sym://go/type/server/logger/Logger#Serve'",)


def test_a_typescript_overload_set_resolves_to_its_implementation() -> None:
    segment = Segment({"src/parse.ts": TS_OVERLOADS})
    response = segment.snippet("sym://typescript/type/src/parse/parse")
    assert response.ok, response.errors
    assert response.data["range"] == {"start_line": 3, "end_line": 5}
    assert response.data["overloads"] == [{"start_line": 1, "end_line": 1}, {"start_line": 2, "end_line": 2}]
    assert response.data["content"].startswith("export function parse(text: string, radix = 10)")


TS_OBJECT_RETURNS = """export function debounce(fn: () => void): Promise<void> & { cancel(): void }
export function debounce(fn: () => void, ms: number): Promise<void> & { cancel(): void }
export function debounce(fn: () => void, ms = 0): any {
    return null
}
"""

TS_ACCESSORS = """export class Box {
    private v = 0
    get value(): number {
        return this.v
    }
    set value(v: number) {
        this.v = v
    }
}
"""


def test_an_overload_signature_returning_an_object_type_is_no_implementation() -> None:
    response = Segment({"src/time.ts": TS_OBJECT_RETURNS}).snippet("sym://typescript/type/src/time/debounce")
    assert response.ok, response.errors
    assert response.data["range"] == {"start_line": 3, "end_line": 5}
    assert response.data["overloads"] == [{"start_line": 1, "end_line": 1}, {"start_line": 2, "end_line": 2}]


def test_a_typescript_get_and_set_accessor_pair_resolves_to_the_group() -> None:
    response = Segment({"src/box.ts": TS_ACCESSORS}).snippet("sym://typescript/type/src/box/Box#value")
    assert response.ok, response.errors
    assert response.data["range"] == {"start_line": 3, "end_line": 8}
    assert response.data["definitions"] == [
        {"start_line": 3, "end_line": 5},
        {"start_line": 6, "end_line": 8},
    ]


def test_a_javascript_get_and_set_accessor_pair_resolves_to_the_group() -> None:
    js = TS_ACCESSORS.replace("private v = 0", "v = 0").replace("(): number", "()").replace(": number", "")
    resolved = Segment({"lib/box.js": js}).resolve("sym://javascript/type/lib/box/Box#value")
    assert lines(resolved) == (3, 8)
    assert len(resolved.definitions) == 2


def test_two_getters_of_one_name_stay_ambiguous() -> None:
    twice = TS_ACCESSORS.replace("set value(v: number)", "get value(v: number)")
    code, _, _ = Segment({"src/box.ts": twice}).error("sym://typescript/type/src/box/Box#value")
    assert code is ErrorCode.AMBIGUOUS_SYMBOL


def test_overload_signatures_without_an_implementation_are_one_group() -> None:
    resolved = Segment({"src/parse.ts": TS_DECLARATIONS}).resolve("sym://typescript/type/src/parse/parse")
    assert lines(resolved) == (1, 2)
    assert len(resolved.definitions) == 2


def test_rust_methods_of_impl_blocks_are_type_members() -> None:
    segment = Segment({"src/error.rs": RUST})
    assert lines(segment.resolve("sym://rust/type/src/error/Error#new")) == (6, 8)
    response = segment.symbols("sym://rust/type/src/error/Error")
    assert [e["name"] for e in response.data["symbols"]] == ["new", "fmt", "fmt"]


def test_a_rust_method_in_two_trait_impls_is_ambiguous_with_trait_selectors() -> None:
    segment = Segment({"src/error.rs": RUST})
    code, data, unresolved = segment.error("sym://rust/type/src/error/Error#fmt")
    assert code is ErrorCode.AMBIGUOUS_SYMBOL
    assert unresolved.candidates == (
        "sym://rust/type/src/error/Error#Display.fmt",
        "sym://rust/type/src/error/Error#Debug.fmt",
    )
    assert lines(segment.resolve("sym://rust/type/src/error/Error#Display.fmt")) == (12, 14)
    assert lines(segment.resolve("sym://rust/type/src/error/Error#Debug.fmt")) == (18, 20)
    assert segment.resolve("sym://rust/type/src/error/Error#Debug.fmt").uri.endswith("Error#Debug.fmt")
    impl = segment.resolve("sym://rust/type/src/error/Error#Display")
    assert (impl.definitions[0].qualname, lines(impl)) == ("impl Display for Error", (11, 15))


def test_the_rust_file_skeleton_nests_methods_in_their_impl_block() -> None:
    response = Segment({"src/error.rs": RUST}).symbols("sym://rust/mod/src/error")
    tree = {e["name"]: [(c["name"], c["uri"]) for c in e["children"]] for e in response.data["symbols"]}
    assert tree["impl Error"] == [("new", "sym://rust/type/src/error/Error#new")]
    assert tree["impl Debug for Error"] == [("fmt", "sym://rust/type/src/error/Error#Debug.fmt")]
    impl = next(e for e in response.data["symbols"] if e["name"] == "impl Error")
    assert impl["uri"] is None  # an inherent impl block is reached through its methods


@pytest.mark.parametrize(
    ("path", "symbol", "language", "uri"),
    [
        ("server/handler.go", "Router.Serve", "go", "sym://go/type/server/handler/Router#Serve"),
        ("src/de/mod.rs", "Deserializer.new", "rust", "sym://rust/type/src/de/mod/Deserializer#new"),
        ("src/de/mod.rs", "impl Display for Deserializer", "rust", None),
        ("src/view.tsx", "List", "typescript", "sym://typescript/type/src/view/List"),
        ("lib/a.cjs", "", "javascript", "sym://javascript/mod/lib/a"),
        ("types/index.d.ts", "f", "typescript", "sym://typescript/type/types/index.d/f"),
        ("README.md", "", "markdown", None),
    ],
)
def test_hit_uris_in_every_language(path: str, symbol: str, language: str, uri: str | None) -> None:
    assert Segment({}).resolver.uri_for_hit(path, symbol, language) == uri


def test_a_file_with_syntax_errors_keeps_its_recovered_definitions() -> None:
    text = "export function ok(): number {\n    return 1\n}\n\nexport function broken( {\n"
    for indexed in (True, False):
        resolved = Segment({"src/a.ts": text}, indexed=indexed).resolve("sym://typescript/type/src/a/ok")
        assert lines(resolved) == (1, 3)
