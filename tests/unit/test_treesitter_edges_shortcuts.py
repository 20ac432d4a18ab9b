"""The tree-sitter edges' shortcuts (session 32's cost cuts) find what the longer ways found: Go's `:=` names,
its doc links, the named type a declared type gives, and each query pattern's kind."""

from __future__ import annotations

import re

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
