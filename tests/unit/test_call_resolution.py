"""The call resolution rules (domain.calls) over an in-memory symbol table."""

from __future__ import annotations

from collections.abc import Sequence

from trifecta.domain.calls import (
    Candidate,
    Edge,
    EdgeKind,
    FileContext,
    GraphQuestion,
    Resolution,
    bound_imports,
    callee_parts,
    calls_target,
    graph_question,
    module_spec,
    names_reaching,
    resolve_call,
)
from trifecta.domain.code import SymbolKind as K

TABLE = [
    Candidate(path="pkg/store.py", qualname="Base", kind=K.CLASS, module=("pkg", "store")),
    Candidate(path="pkg/store.py", qualname="Base.save", kind=K.METHOD, module=("pkg", "store")),
    Candidate(path="pkg/store.py", qualname="Store", kind=K.CLASS, module=("pkg", "store"), bases=("Base",)),
    Candidate(path="pkg/store.py", qualname="Store.load", kind=K.METHOD, module=("pkg", "store")),
    Candidate(path="pkg/store.py", qualname="normalize", kind=K.FUNCTION, module=("pkg", "store")),
    Candidate(path="other/x.py", qualname="normalize", kind=K.FUNCTION, module=("other", "x")),
    Candidate(path="other/x.py", qualname="Thing.load", kind=K.METHOD, module=("other", "x")),
    Candidate(path="pkg/svc.py", qualname="Svc", kind=K.CLASS, module=("pkg", "svc"), bases=("Store",)),
    Candidate(path="pkg/svc.py", qualname="Svc.run", kind=K.METHOD, module=("pkg", "svc")),
    Candidate(path="pkg/svc.py", qualname="Svc.run.inner", kind=K.FUNCTION, module=("pkg", "svc")),
    Candidate(path="util/util.go", qualname="Do", kind=K.FUNCTION, module=("util",)),
]


def lookup(name: str) -> Sequence[Candidate]:
    return [c for c in TABLE if c.qualname.rsplit(".", 1)[-1] == name]


def imp(name: str, text: str, alias: str) -> Edge:
    return Edge(kind=EdgeKind.IMPORT, caller="", line=1, column=0, name=name, text=text, alias=alias)


def call(text: str, caller: str = "Svc.run", alias: str = "") -> Edge:
    name = callee_parts(text)[-1]
    return Edge(kind=EdgeKind.CALL, caller=caller, line=9, column=4, name=name, text=text, alias=alias)


SVC = FileContext(
    path="pkg/svc.py",
    module=("pkg", "svc"),
    package=("pkg",),
    imports=bound_imports(
        [
            imp("normalize", ".store", "norm"),
            imp("", "os", "os"),
            imp("store", ".", "st"),
            imp("", "json", "json"),
        ]
    ),
)


def targets(edge: Edge, ctx: FileContext = SVC) -> tuple[Resolution, list[str]]:
    resolved = resolve_call(edge, ctx, lookup)
    return resolved.resolution, [f"{t.path}:{t.qualname}" for t in resolved.targets]


def test_an_aliased_import_reaches_the_imported_definition_only() -> None:
    assert targets(call("norm")) == (Resolution.IMPORT, ["pkg/store.py:normalize"])
    assert targets(call("st.normalize")) == (Resolution.IMPORT, ["pkg/store.py:normalize"])


def test_an_import_of_something_outside_the_segment_is_unresolved_not_matched_by_name() -> None:
    resolved = resolve_call(call("json.load"), SVC, lookup)
    assert resolved.resolution is Resolution.UNRESOLVED and resolved.reason == "external"


def test_self_reaches_the_enclosing_class_then_its_bases_depth_first() -> None:
    assert targets(call("self.run")) == (Resolution.EXACT, ["pkg/svc.py:Svc.run"])
    assert targets(call("self.load")) == (Resolution.EXACT, ["pkg/store.py:Store.load"])
    assert targets(call("self.save")) == (Resolution.EXACT, ["pkg/store.py:Base.save"])
    assert targets(call("super().run")) == (Resolution.NAME, ["pkg/svc.py:Svc.run"])  # no base defines run


def test_a_known_receiver_type_picks_the_method_of_that_class() -> None:
    assert targets(call("store.load", alias="Store")) == (Resolution.EXACT, ["pkg/store.py:Store.load"])


def test_bare_names_reach_nested_functions_then_the_module_then_everything_by_name() -> None:
    assert targets(call("inner")) == (Resolution.EXACT, ["pkg/svc.py:Svc.run.inner"])
    local = FileContext(path="other/x.py", module=("other", "x"), package=("other",), imports={})
    assert targets(call("normalize", caller=""), local) == (Resolution.EXACT, ["other/x.py:normalize"])
    assert targets(call("thing.load")) == (
        Resolution.NAME,
        ["pkg/store.py:Store.load", "other/x.py:Thing.load"],
    )


def test_what_nothing_defines_is_reported_unresolved() -> None:
    resolved = resolve_call(call("frobnicate"), SVC, lookup)
    assert resolved.resolution is Resolution.UNRESOLVED and resolved.reason == "unknown"


def test_module_specs_relative_and_absolute_in_each_spelling() -> None:
    ts = FileContext(path="src/a/main.ts", module=("src", "a", "main"), package=("src", "a"), imports={})
    assert module_spec("./util", ts) == (("src", "a", "util"), True)
    assert module_spec("../lib/x.js", ts) == (("src", "lib", "x"), True)
    assert module_spec("..store", SVC) == (("store",), True)
    assert module_spec(".store", SVC) == (("pkg", "store"), True)
    assert module_spec("example.com/m/util", SVC) == (("example", "com", "m", "util"), False)


def test_a_go_package_import_matches_the_folder_by_its_last_parts() -> None:
    main = FileContext(
        path="main.go", module=(), package=(), imports=bound_imports([imp("", "example.com/m/util", "u")])
    )
    assert targets(call("u.Do", caller="main"), main) == (Resolution.IMPORT, ["util/util.go:Do"])


def test_aliases_are_names_a_call_may_be_written_with() -> None:
    assert names_reaching("normalize", list(SVC.imports.values())) == {"normalize", "norm"}
    assert callee_parts("this.a?.b") == ["this", "a", "b"] and callee_parts("new Foo") == ["Foo"]


def test_graph_questions_are_recognised_and_other_queries_left_alone() -> None:
    assert graph_question("who calls normalize?") == GraphQuestion(target="normalize")
    assert graph_question("functions that call subprocess.run") == GraphQuestion(target="subprocess.run")
    assert graph_question("tests that cover Store.load") == GraphQuestion(
        target="Store.load", tests_only=True
    )
    assert graph_question("where is ping called") == GraphQuestion(target="ping")
    assert graph_question("where is ping") is None and graph_question("fix the login bug") is None


def test_a_call_names_an_outside_target_through_the_files_imports() -> None:
    ctx = FileContext(
        path="a.py",
        module=("a",),
        package=(),
        imports=bound_imports([imp("", "subprocess", "subprocess"), imp("run", "subprocess", "r")]),
    )
    assert calls_target(call("subprocess.run", caller="f"), ctx, "subprocess.run")
    assert calls_target(call("r", caller="f"), ctx, "subprocess.run")
    assert not calls_target(call("loop.run", caller="f"), ctx, "subprocess.run")
