"""Structural questions in every language with symbols: how they are read (domain/structural_query.py) and
what the structural engine answers over a fake index of Go, Rust, TypeScript and JavaScript files."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from tests.unit.fakes import FakeIndex

from trifecta.application.structural_engine import StructuralEngine
from trifecta.domain.code import Chunk, Symbol
from trifecta.domain.structural_query import (
    TYPE_KINDS,
    derived,
    parse_structural,
    returns_matches,
)

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "polyglot"


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        (
            "structs that implement the Handler interface",
            {"base": "Handler", "implements": True, "kinds": ("struct",)},
        ),
        (
            "estructuras que implementan la interfaz Handler",
            {"base": "Handler", "implements": True, "kinds": ("struct",)},
        ),
        (
            "classes extending EventEmitter",
            {"base": "EventEmitter", "implements": False, "kinds": ("class",)},
        ),
        ("classes implementing Observer", {"base": "Observer", "implements": True, "kinds": ("class",)}),
        (
            "types implementing the Serialize trait",
            {"base": "Serialize", "implements": True, "kinds": TYPE_KINDS},
        ),
        ("implementations of the Formatter trait", {"base": "Formatter", "implements": True}),
        ("types that satisfy io.Reader", {"base": "Reader", "base_qualifier": "io", "implements": True}),
        ("Which classes extend Node's stream.Transform?", {"base": "Transform", "base_qualifier": "stream"}),
        ("structs embedding Logger", {"base": "Logger", "kinds": ("struct",)}),
        ("types that derive Debug", {"base": "Debug"}),
        ("classes that implement caching", {"base": "", "implements": False}),  # prose, not a name
        ("async functions in the router", {"is_async": True, "kinds": ("function",), "scope": ("router",)}),
        (
            "exported functions of package server",
            {"visibility": "exported", "kinds": ("function",), "listing": True, "scope": ("server",)},
        ),
        ("funciones exportadas del paquete server", {"visibility": "exported", "scope": ("server",)}),
        ("public functions of the de module", {"visibility": "exported", "listing": True, "scope": ("de",)}),
        ("private methods of Router", {"visibility": "private", "members_of": "Router"}),
        ("pub fns in the de module", {"visibility": "exported", "kinds": ("function",), "listing": True}),
        ("interfaces in server", {"kinds": ("interface",), "listing": True, "scope": ("server",)}),
        ("traits in the de module", {"kinds": ("trait",), "listing": True, "scope": ("de",)}),
        ("all enums", {"kinds": ("enum",), "listing": True}),
        ("type aliases in core", {"kinds": ("type",), "listing": True, "scope": ("core",)}),
        ("impl blocks for Deserializer", {"kinds": ("impl",), "listing": True, "scope": ("Deserializer",)}),
        ("macros", {"kinds": ("macro",), "listing": True}),
        ("interfaces that describe observable values", {"kinds": ("interface",), "listing": False}),
        ("functions in json", {"kinds": ("function",), "listing": False}),  # a Python question, as before
        ("methods of the Router struct", {"members_of": "Router", "kinds": ("method", "struct")}),
        (
            "List the Command methods that return a *flag.FlagSet.",
            {"returns": "FlagSet", "members_of": "Command", "kinds": ("method",)},
        ),
        ("functions returning Result<Value>", {"returns": "Result"}),
        ("functions that return a dict", {"returns": ""}),  # a plain word, not a named type
    ],
)
def test_reads_each_languages_constructs(query: str, expected: dict[str, object]) -> None:
    parsed = parse_structural(query)
    for field, value in expected.items():
        assert getattr(parsed, field) == value, (field, parsed)


def test_every_question_above_is_a_filter_but_prose() -> None:
    assert parse_structural("structs that implement the Handler interface").has_filter
    assert parse_structural("interfaces in server").has_filter
    assert parse_structural("exported functions of package server").has_filter
    assert not parse_structural("interfaces that describe observable values").has_filter
    assert not parse_structural("which function returns the router's state").has_filter
    assert not parse_structural("how is the public key loaded").has_filter


def test_answer_kinds() -> None:
    assert parse_structural("structs that implement Handler").answer_kinds == ("struct",)
    assert parse_structural("subclasses of Action").answer_kinds == TYPE_KINDS
    assert parse_structural("async functions").answer_kinds == ("function", "method")
    assert parse_structural("async methods").answer_kinds == ("method",)
    assert parse_structural("exported functions of package server").answer_kinds == ("function",)
    assert parse_structural("methods of the Router struct").answer_kinds == ("method",)
    # a decorator's kind is its own: the properties (methods) "in subprocess's exception classes"
    assert parse_structural("properties that define a @<name>.setter in exception classes").answer_kinds == ()


def test_derive_and_result_rules() -> None:
    assert derived(("#[derive(Debug, Clone)]", "#[serde(rename_all = 'x')]")) == ("Debug", "Clone")
    assert derived(("#[derive(serde::Serialize)]",)) == ("Serialize",)
    assert derived(("property",)) == ()
    flags = "func (c *Command) Flags() *flag.FlagSet"
    assert returns_matches("FlagSet", flags, "Flags")
    assert not returns_matches("FlagSet", "func (c *Command) AddFlags(f *flag.FlagSet) error", "AddFlags")
    callback = "func (c *Command) Normalize() func(f *flag.FlagSet, name string) flag.NormalizedName"
    assert not returns_matches("FlagSet", callback, "Normalize")
    assert returns_matches("NormalizedName", callback, "Normalize")
    assert returns_matches("Value", "pub fn to_value<T>(value: T) -> Result<Value, Error>", "to_value")
    assert returns_matches("Foo", "async load(id: string): Promise<Foo>", "load")
    assert not returns_matches("Foo", "load(id: Foo): void", "load")


class StructuralFake(FakeIndex):
    """FakeIndex plus the reads the structural engine makes, with the port's documented superset rules."""

    def all_pairs(self) -> list[tuple[str, Symbol]]:
        return [(path, sym) for path, (_stored, symbols) in sorted(self.entries.items()) for sym in symbols]

    def find_symbols(
        self, *, name: str | None = None, qualname: str | None = None
    ) -> list[tuple[str, Symbol]]:
        if qualname is not None:
            return [(p, s) for p, s in self.all_pairs() if s.qualname == qualname]
        return [(p, s) for p, s in self.all_pairs() if s.name == name]

    def structural_candidates(
        self,
        *,
        bases: Sequence[str] = (),
        decorator: str = "",
        is_async: bool = False,
        parent: str = "",
        path_words: Sequence[str] = (),
        kinds: Sequence[str] = (),
        exported: bool | None = None,
        signature: str = "",
        limit: int = 2000,
    ) -> list[tuple[str, Symbol]]:
        if not (bases or decorator or is_async or parent or path_words or kinds or signature):
            return []
        return [
            (path, sym)
            for path, sym in self.all_pairs()
            if (not bases or any(b in " ".join(sym.bases) for b in bases))
            and (not decorator or decorator.lstrip("*") in " ".join(sym.decorators))
            and (not is_async or sym.is_async)
            and (not parent or sym.qualname.startswith(parent + "."))
            and (not path_words or any(w.lower() in path.lower() for w in path_words))
            and (not kinds or sym.kind.value in kinds)
            and (exported is None or sym.exported == exported)
            and (not signature or signature in sym.signature)
        ][:limit]

    def containing_chunk(self, path: str, line: int) -> Chunk | None:
        return None

    def name_uses(self, names: Sequence[str]) -> dict[str, int]:
        return {}


GO_EXTRA = """package server

// Half has one of Handler's two methods.
type Half struct{}

func (h Half) Serve(req string) error { return nil }

type Closer interface {
	Handler
	Close() error
}

// Full closes and serves through the Logger it embeds.
type Full struct {
	Logger
}

func (f *Full) Close() error { return nil }
"""


@pytest.fixture
def index() -> StructuralFake:
    files = {
        str(p.relative_to(FIXTURES)): p.read_text(encoding="utf-8")
        for p in sorted(FIXTURES.rglob("*"))
        if p.is_file() and p.suffix in (".go", ".rs", ".ts", ".js")
    }
    files["go/server/extra.go"] = GO_EXTRA
    return StructuralFake(files)


def _ask(index: StructuralFake, query: str) -> list[str]:
    return [h.chunk.symbol for h in StructuralEngine(index).search(parse_structural(query), 30)]


def test_go_structs_implement_an_interface_by_their_method_set(index: StructuralFake) -> None:
    # Logger has Serve; Router has its own Serve and embeds Logger; Full has Serve only through Logger;
    # Half's method set lacks nothing Handler asks for either
    assert set(_ask(index, "structs that implement the Handler interface")) == {
        "Logger",
        "Router",
        "Half",
        "Full",
    }
    # Closer asks for Close and, through the Handler it embeds, Serve: only Full has both
    assert _ask(index, "structs that implement the Closer interface") == ["Full"]
    assert _ask(index, "types that implement Unknown") == []


def test_a_go_hit_carries_the_files_language(index: StructuralFake) -> None:
    hits = StructuralEngine(index).search(parse_structural("structs that implement Closer"), 10)
    assert [(h.chunk.language, h.chunk.kind.value, h.chunk.path) for h in hits] == [
        ("go", "class", "go/server/extra.go")
    ]


def test_typescript_and_javascript_bases(index: StructuralFake) -> None:
    assert _ask(index, "classes extending EventEmitter") == ["Emitter"]
    assert _ask(index, "classes implementing Observer") == ["Emitter"]
    assert _ask(index, "interfaces extending EventEmitter") == []  # the kind asked for counts


def test_rust_impl_blocks_and_derives(index: StructuralFake) -> None:
    assert _ask(index, "types implementing the Display trait") == ["impl Display for Deserializer"]
    assert _ask(index, "types that derive Debug") == ["Deserializer", "Error"]
    assert _ask(index, "structs deriving Clone") == ["Deserializer"]
    assert _ask(index, "traits extending Sized") == ["Deserialize"]


def test_async_exported_and_listings(index: StructuralFake) -> None:
    assert _ask(index, "async functions") == ["read_all", "Emitter.flush"]
    assert _ask(index, "exported functions of package server") == ["NewRouter"]
    assert _ask(index, "private methods of Router") == ["Router.count"]
    assert _ask(index, "interfaces in server") == ["Closer", "Handler"]
    assert _ask(index, "all enums") == ["Error", "Level"]
    assert _ask(index, "macros") == ["tri"]
    assert _ask(index, "impl blocks for Deserializer") == [
        "impl Deserializer",
        "impl Display for Deserializer",
    ]


def test_members_and_result_types(index: StructuralFake) -> None:
    assert _ask(index, "methods of the Router struct") == ["Router.Serve", "Router.count"]
    assert _ask(index, "functions that return an int") == []  # `int`: a plain word, no filter
    assert _ask(index, "which function returns the Router struct") == ["NewRouter"]
    assert _ask(index, "functions that return a *Router") == ["NewRouter"]
    assert _ask(index, "methods returning Option<u8>") == ["Deserializer.peek"]
