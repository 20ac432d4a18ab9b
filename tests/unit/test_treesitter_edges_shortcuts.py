"""The tree-sitter edges' shortcuts (session 32's cost cuts) find what the longer ways found: Go's `:=` names,
its doc links, the named type a declared type gives, and each query pattern's kind."""

from __future__ import annotations

import re
from typing import Any

import pytest

from trifecta.infrastructure import treesitter_parser as tp

# the Go doc-link expression before b6bf478: it starts with a look-behind, tried at every byte
OLD_GO_DOC_LINK = re.compile(rb"(?<![\w\]])\[\*?([A-Za-z_]\w*(?:\.[A-Za-z_]\w*){0,2})\](?![(\[:])")


@pytest.mark.parametrize(
    "body",
    [
        b"a, b := f()",
        b"a,\n  b   :=  c",  # a list across lines
        b"x.y, z := 1",  # `y` is one, `x` is not
        b"0x1f, a := 1",  # a digit-led word: the name after its digits
        b"a, 2b, c := 1",  # `2b` is no name of the list: `a` is not declared
        b"a::=b",
        b":= x",
        b"x:=",
        b"a := b, c := d",
        b" " * 300 + b"a" + b" " * 300 + b":=",  # a run longer than the first window looked at
        b",".join(b"v%d" % i for i in range(200)) + b" := f()",
        b"func f() {\n\tcmd, err := run()\n\tif x := g(); x {\n\t\tfor k, v := range m {}\n\t}\n}",
    ],
)
def test_go_declared_names_are_those_the_whole_scan_finds(body: bytes) -> None:
    assert sorted(tp._go_declared(body)) == sorted(tp._GO_DECLARED.findall(body))  # noqa: SLF001


@pytest.mark.parametrize(
    "text",
    [
        b"// See [Command] and [*pkg.Flag.Set], not a[i], f()[x], []T or [x](y) or [k]: v\n[Start] m[k]",
        b"[a] [b][c] x[d] [e.f.g.h] ([i]) [j]:",
    ],
)
def test_go_doc_links_are_those_the_former_expression_found(text: bytes) -> None:
    spec = tp.spec_for("x.go")
    assert spec is not None
    new = tp._doc_link(spec.doc_link)  # noqa: SLF001
    assert [m.span(1) for m in new.finditer(text)] == [m.span(1) for m in OLD_GO_DOC_LINK.finditer(text)]
    assert [m.group(1) for m in new.finditer(text)]  # the samples hold links


GO_TYPES = """package p

func f(a T, b *T, c pkg.T, d *pkg.T, e G[T], g *G[pkg.T], h []T, i []*T, j [4]T, k map[string]*pkg.T,
	l func(), m [][]T, n chan T, o **T, q []G[T], r string) {}

func r1() *T { return nil }
func r2() (x []*pkg.T, err error) { return }
func r3() G[T] { return nil }
func r4() (func(), T) { return nil, T{} }
"""


def test_a_go_declared_type_gives_the_named_type_the_old_patterns_captured() -> None:
    parser, _ = tp._compiled("go")  # noqa: SLF001
    tree = parser.parse(GO_TYPES.encode())
    parameters, results = {}, []
    todo = [tree.root_node]
    while todo:
        node = todo.pop()
        todo.extend(reversed(node.children))
        function = node.parent.parent if node.parent else None
        if (
            node.type == "parameter_declaration"
            and function
            and node.parent == function.child_by_field_name("parameters")
        ):
            named = tp._go_named(node.child_by_field_name("type"), generic=True)  # noqa: SLF001
            parameters[tp._text(node.child_by_field_name("name"))] = tp._text(named)  # noqa: SLF001
        if node.type == "function_declaration" and node.child_by_field_name("result") is not None:
            named = tp._go_named(node.child_by_field_name("result"), generic=False)  # noqa: SLF001
            results.append(tp._text(named))  # noqa: SLF001
    assert parameters == {
        **{name: "T" for name in "abhij"},
        **{name: "pkg.T" for name in "cdk"},
        **{name: "G" for name in "eg"},  # a generic's own name (`G[T]`, `*G[pkg.T]`)
        **{name: "" for name in "lmnoq"},  # no named type (a slice's generic element neither)
        "r": "string",  # a built-in: kept here, its RETURN edges are dropped later
    }
    assert results == ["T", "pkg.T", "", ""]  # no result's generic is read, nor a list led by a func


@pytest.mark.parametrize("key", [spec.key for spec in tp.language_specs()])
def test_each_query_pattern_is_read_by_the_part_its_captures_feed(key: str) -> None:
    definitions, references, calls = tp._pattern_kinds(key)  # noqa: SLF001
    _, query = tp._compiled(key)  # noqa: SLF001
    assert definitions and not definitions & references
    assert calls <= references
    # every pattern feeds one of them (the comments between patterns counted in neither)
    assert definitions | references == set(range(query.pattern_count))


# session 33: JavaScript's and TypeScript's callees and members read as values are captured whole
# (`@call.function`, `@reference.member`) and their shapes read in Python; these were the patterns before
OLD_ECMASCRIPT = """
(call_expression function: (identifier) @call.name) @reference.call
(call_expression function: (member_expression object: (_) @call.receiver property: (_) @call.name)) @reference.call
(new_expression constructor: (identifier) @call.name) @reference.call
(new_expression constructor: (member_expression object: (_) @call.receiver property: (_) @call.name)) @reference.call
(arguments (member_expression object: [(this) (identifier)] @value.receiver property: (property_identifier) @value.name) @reference.value)
(pair value: (member_expression object: [(this) (identifier)] @value.receiver property: (property_identifier) @value.name) @reference.value)
(variable_declarator value: (member_expression object: [(this) (identifier)] @value.receiver property: (property_identifier) @value.name) @reference.value)
(assignment_expression right: (member_expression object: [(this) (identifier)] @value.receiver property: (property_identifier) @value.name) @reference.value)
(call_expression
  function: (member_expression
    object: (member_expression object: [(this) (identifier)] @value.receiver property: (property_identifier) @value.name) @reference.value
    property: (property_identifier) @_bind (#eq? @_bind "bind")))
"""
NEW_ECMASCRIPT = """
(call_expression function: (_) @call.function) @reference.call
(new_expression constructor: (_) @call.function) @reference.call
(arguments (member_expression) @reference.member)
(pair value: (member_expression) @reference.member)
(variable_declarator value: (member_expression) @reference.member)
(assignment_expression right: (member_expression) @reference.member)
(call_expression
  function: (member_expression
    object: (member_expression) @reference.member
    property: (property_identifier) @_bind (#eq? @_bind "bind")))
"""
ECMASCRIPT_SHAPES = """
f(); a.b(); this.#m(); a?.b(); a.b.c(); f()(); xs[0](); (a || b)(); super.m(); import("x"); f<T>(); a.b<T>();
new X(); new a.B(); new (f())(); new X<T>; g(this.m, a.b, a.b.c, f().m, super.m, this.#p, a?.b, xs[0]);
const o = { k: x.m, l: this.n, p: a.b.c }; const v = this.m; const w = a.b; x = super.m; y = this.m; z = a.b.c;
this.m.bind(this); a.b.bind(a); a.b.c.bind(a); class C extends B { m() { return super.m.bind(this) } }
"""


@pytest.mark.parametrize("key", ["typescript", "tsx", "javascript"])
def test_ecmascript_callees_and_members_read_whole_give_what_the_spelled_out_patterns_captured(
    key: str,
) -> None:
    import tree_sitter as ts

    parser, _ = tp._compiled(key)  # noqa: SLF001
    tree = parser.parse(ECMASCRIPT_SHAPES.encode())

    def spans(captures: dict[str, list[ts.Node]]) -> tuple[tuple[str, int, int], ...]:
        return tuple(
            sorted((k, n.start_byte, n.end_byte) for k, ns in captures.items() for n in ns if k[0] != "_")
        )

    old = ts.QueryCursor(ts.Query(parser.language, OLD_ECMASCRIPT)).matches(tree.root_node)
    new = ts.QueryCursor(ts.Query(parser.language, NEW_ECMASCRIPT)).matches(tree.root_node)
    read = []
    for _, captures in new:
        if "call.function" in captures:
            whole = _callee_captures(captures)
        else:
            whole = tp._member(captures["reference.member"][0]) or {}  # noqa: SLF001
        if whole:
            read.append(spans(whole))
    expected = sorted(spans(c) for _, c in old)
    assert sorted(read) == expected
    assert len(expected) > 25  # every shape above parsed (a call, a member of each kind)


def _callee_captures(captures: dict[str, list[Any]]) -> dict[str, list[Any]]:
    """A call's captures with its callee read whole (``@call.function``: `_callee`) as a pattern that spells
    out its shape gives them; none for a callee of any other shape."""
    name, held = tp._callee(captures["call.function"][0])  # noqa: SLF001
    if name is None:
        return {}
    return {"reference.call": captures["reference.call"], "call.name": [name]} | (
        {"call.receiver": [held]} if held is not None else {}
    )


OLD_THIS_ASSIGNED = """
(assignment_expression
  left: (member_expression object: (this) property: [(property_identifier) (private_property_identifier)] @typed.this)
  right: (new_expression constructor: [(identifier) (member_expression)] @typed.type)) @reference.typed
(assignment_expression
  left: (member_expression object: (this) property: [(property_identifier) (private_property_identifier)] @typed.this)
  right: (call_expression function: [(identifier) (member_expression)] @typed.call)) @reference.typed
"""
NEW_THIS_ASSIGNED = """
(assignment_expression
  left: (member_expression) @typed.left
  right: [(new_expression) (call_expression)] @typed.right) @reference.typed
"""
THIS_ASSIGNED_SHAPES = """
class C { m() {
  this.a = new A(); this.#b = new x.B<T>(); this.c = f(); this.d = this.make(1); this.e = a.b.c();
  this.f = f()(); this.g = new (g())(); this.h = xs[0](); this.i = new A; this['j'] = f(); this.k.l = f();
  a.m = new A(); a.n = f(); super.o = f(); this.p = g; this.q = await f(); this.r ??= f();
} }
"""


@pytest.mark.parametrize("key", ["typescript", "tsx"])
def test_this_assigned_read_whole_gives_what_the_spelled_out_patterns_captured(key: str) -> None:
    import tree_sitter as ts

    parser, _ = tp._compiled(key)  # noqa: SLF001
    tree = parser.parse(THIS_ASSIGNED_SHAPES.encode())

    def spans(captures: dict[str, list[ts.Node]]) -> tuple[tuple[str, int, int], ...]:
        return tuple(sorted((k, n.start_byte, n.end_byte) for k, ns in captures.items() for n in ns))

    old = ts.QueryCursor(ts.Query(parser.language, OLD_THIS_ASSIGNED)).matches(tree.root_node)
    new = ts.QueryCursor(ts.Query(parser.language, NEW_THIS_ASSIGNED)).matches(tree.root_node)
    read = [spans(whole) for _, c in new if (whole := tp._this_assigned(c))]  # noqa: SLF001
    expected = [spans(c) for _, c in old]
    assert read == expected  # in the same order (a later match of a variable overrides an earlier one)
    assert len(expected) == 6  # this.a, #b, c, d, e and i (`new A`): not f()(), a.m, super.o, await f()


# session 34's shortcuts in `_edges`: each is switched off in turn and the rows must stay the same
GO_RECEIVERS = """package p

import (
	"fmt"
	"os"
)

type T struct{ f *U }
type U struct{ items []*T }

func (c *T) A(x int, h Handler) error {
	c.B()
	c.B()
	fmt.Println(x, h, A, B, NewT)
	os.Exit(1)
	go func() {
		c := NewT()
		c.B()
		c.f.Run(h)
	}()
	c.B()
	c := &T{}
	c.B()
	for _, sub := range c.f.items {
		sub.A(x, h)
	}
	run(x, h, A, count)
	return nil
}

func (c *T) B() error {
	var c2 T
	c2.A(1, nil)
	c.A(2, nil)
	if c := NewT(); c != nil {
		c.B()
	}
	c.B()
	return nil
}

func (u *U) Run(h Handler) { u.items[0].B(); fmt.Sprint(h, u) }

func NewT() *T { return nil }
func count() int { return 0 }
func name() (string, error) { return "", nil }
func other() error { return nil }
"""


def _fixture_sources() -> list[tuple[str, str]]:
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "fixtures"
    out = [("p.go", GO_RECEIVERS)]
    for folder in ("callgraph_go", "callgraph_ts", "callgraph_ts_fields", "callgraph_ts_narrow", "polyglot"):
        for path in sorted((root / folder).rglob("*")):
            if path.is_file() and tp.spec_for(path.name) is not None:
                out.append((str(path.relative_to(root)), path.read_text("utf-8")))
    return out


def _rows(sources: list[tuple[str, str]]) -> list[tuple[object, ...]]:
    out = []
    for path, text in sources:
        spec = tp.spec_for(path)
        assert spec is not None
        out.append(tp.parse_tree_sitter(path, text, spec).edge_table())
    return out


def _counted(monkeypatch: pytest.MonkeyPatch, name: str, fired: list[str]) -> None:
    real = getattr(tp, name)

    def counting(*args: object, **kwargs: object) -> object:
        out = real(*args, **kwargs)
        if out:
            fired.append(name)
        return out

    monkeypatch.setattr(tp, name, counting)


@pytest.mark.parametrize("shortcut", ["_untyped", "_alone"])
def test_a_receiver_typed_by_a_shortcut_gets_the_type_the_long_way_gives(
    shortcut: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`_untyped` (a bare name no declaration types: a package's) and `_alone` (the one declaration around
    it in its function: the type worked out once per caller) give each row the alias the whole receiver
    typing gives."""
    sources = _fixture_sources()
    fired: list[str] = []
    _counted(monkeypatch, shortcut, fired)
    rows = _rows(sources)
    assert fired.count(shortcut) >= 3  # it took part (in the Go sample at least)
    monkeypatch.setattr(tp, shortcut, lambda *args: False if shortcut == "_untyped" else None)
    assert _rows(sources) == rows


def test_go_names_read_as_values_dropped_early_are_those_taken_drops_later(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Go's bare names read as values that a parameter or variable around takes are left out in `_values`,
    before their point is read; without `taken` there, `_edges` leaves the same ones out later."""
    sources = _fixture_sources()
    rows = _rows(sources)
    real = tp._values  # noqa: SLF001
    monkeypatch.setattr(
        tp, "_values", lambda pending, found, defs, typed, taken=None: real(pending, found, defs, typed)
    )
    assert _rows(sources) == rows
    go = dict(zip((p for p, _ in sources), rows, strict=True))["p.go"]
    kept = {row[4] for row in go if row[0] == "ref"}
    assert {"A", "B", "NewT", "count"} <= kept  # functions read as values
    assert not kept & {"x", "h"}  # parameters passed on (a method's receiver, `u`, is no parameter here)


def test_go_return_rows_of_built_in_types_are_dropped_as_from_every_row(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Go's RETURN rows of a built-in type (`string`, `error`) are dropped from the RETURN rows only: the
    same rows as the filter over every row (an interface's method set, added after, is kept as before)."""
    sources = [(p, t) for p, t in _fixture_sources() if p.endswith(".go")]
    rows = _rows(sources)
    builtin = tp._GO_BUILTIN_TYPES  # noqa: SLF001
    monkeypatch.setattr(tp, "_GO_BUILTIN_TYPES", frozenset())
    every = _rows(sources)
    assert [
        tuple(r for r in file if r[0] != "return" or r[5] not in builtin or r[6] == "methods")
        for file in every
    ] == rows
    assert any(r[0] == "return" and r[5] in builtin for file in every for r in file)  # some were dropped


@pytest.mark.parametrize("key", ["go", "typescript", "javascript", "rust"])
def test_a_call_pattern_match_gives_the_row_call_edge_gives(key: str) -> None:
    """The call patterns' branch of `_edges` reads a call's name, receiver and point as `_call_edge` does."""
    sources = [
        (p, t) for p, t in _fixture_sources() if (spec := tp.spec_for(p)) is not None and spec.key == key
    ]
    assert sources
    _, query = tp._compiled(key)  # noqa: SLF001
    _, _, calls = tp._pattern_kinds(key)  # noqa: SLF001
    for (path, text), rows in zip(sources, _rows(sources), strict=True):
        parser, _ = tp._compiled(key)  # noqa: SLF001
        tree = parser.parse(text.encode())
        expected = set()
        for pattern, captures in tp.ts.QueryCursor(query).matches(tree.root_node):
            if pattern in calls:
                captures = captures if "call.name" in captures else _callee_captures(captures)
                if "call.name" in captures:
                    _, (_, line, column, name, written, _) = tp._call_edge(captures)  # noqa: SLF001
                    expected.add((line, column, name, written))
        assert expected <= {(r[2], r[3], r[4], r[5]) for r in rows if r[0] == "call"}, path


def _defs_of(sources: list[tuple[str, str]]) -> list[list[tp._Def]]:
    out = []
    for path, text in sources:
        spec = tp.spec_for(path)
        assert spec is not None
        parser, query = tp._compiled(spec.key)  # noqa: SLF001
        definitions, _, _ = tp._pattern_kinds(spec.key)  # noqa: SLF001
        matches = tp.ts.QueryCursor(query).matches(parser.parse(text.encode()).root_node)
        out.append(tp._definitions([m for m in matches if m[0] in definitions], spec))  # noqa: SLF001
    return out


def test_the_definitions_inside_one_bisected_are_those_the_whole_scan_finds() -> None:
    """`_defined_inside` (the definitions by start, bisected) finds the names the scan over every
    definition found (start after the outer one's, end inside it, no object literal's method)."""
    checked = 0
    for defs in _defs_of(_fixture_sources()):
        spans = tp._def_spans(defs)  # noqa: SLF001
        for outer in defs:
            low, high = outer.node.start_byte, outer.node.end_byte
            whole = {
                d.name
                for d in defs
                if low < d.node.start_byte and d.node.end_byte <= high and d.node.type != "method_definition"
            }
            assert tp._defined_inside(spans, low, high) == whole  # noqa: SLF001
            checked += bool(whole)
    assert checked >= 5  # definitions inside others were looked at


def test_a_definitions_parameters_are_read_once_as_params_reads_them() -> None:
    """`_def_params` keeps what `_params` reads (the symbol's parameters, then the names `_edges` takes)."""
    for defs in _defs_of(_fixture_sources()):
        for d in defs:
            first = tp._def_params(d)  # noqa: SLF001
            assert first == tp._params(d)  # noqa: SLF001
            assert tp._def_params(d) is first  # noqa: SLF001
