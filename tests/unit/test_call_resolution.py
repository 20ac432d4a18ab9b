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
    Segment,
    bound_imports,
    callee_parts,
    calls_target,
    graph_question,
    module_spec,
    names_reaching,
    resolve_call,
    star_imports,
)
from trifecta.domain.code import SymbolKind as K
from trifecta.infrastructure.python_parser import parse_python

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


def test_a_bare_dot_import_starts_from_the_package_of_an_init_or_index_file() -> None:
    init = FileContext(path="re/__init__.py", module=("re",), package=("re",), imports={})
    assert module_spec(".", init) == (("re",), True)  # `from . import _compiler`: re/_compiler.py
    assert module_spec("..", init) == ((), True)
    index = FileContext(path="src/index.ts", module=("src",), package=("src",), imports={})
    assert module_spec("./util", index) == (("src", "util"), True)  # beside the index file, not above


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


# ---------------------------------------------------------------- re-exports, bases in their own file, scopes

LIB = [
    Candidate(path="asyncio/futures.py", qualname="Future", kind=K.CLASS, module=("asyncio", "futures")),
    Candidate(path="asyncio/futures.py", qualname="Future.result", kind=K.METHOD, module=("asyncio", "futures")),
    Candidate(path="concurrent/futures/_base.py", qualname="Future", kind=K.CLASS,
              module=("concurrent", "futures", "_base")),
    Candidate(path="concurrent/futures/_base.py", qualname="Future.result", kind=K.METHOD,
              module=("concurrent", "futures", "_base")),
    Candidate(path="_pyio.py", qualname="IOBase", kind=K.CLASS, module=("_pyio",)),
    Candidate(path="_pyio.py", qualname="IOBase.close", kind=K.METHOD, module=("_pyio",)),
    Candidate(path="_pyio.py", qualname="BufferedIOBase", kind=K.CLASS, module=("_pyio",), bases=("IOBase",)),
    Candidate(path="io.py", qualname="IOBase", kind=K.CLASS, module=("io",), bases=("_io._IOBase",)),
    Candidate(path="io.py", qualname="BufferedIOBase", kind=K.CLASS, module=("io",),
              bases=("_io._BufferedIOBase", "IOBase")),
    Candidate(path="zipfile.py", qualname="ZipExtFile", kind=K.CLASS, module=("zipfile",),
              bases=("io.BufferedIOBase",)),
    Candidate(path="zipfile.py", qualname="ZipExtFile.close", kind=K.METHOD, module=("zipfile",)),
    Candidate(path="enum.py", qualname="EnumType", kind=K.CLASS, module=("enum",)),
    Candidate(path="enum.py", qualname="EnumType._find_new_", kind=K.METHOD, module=("enum",)),
    Candidate(path="enum.py", qualname="EnumType.__new__", kind=K.METHOD, module=("enum",)),
]  # fmt: skip

CONTEXTS = {
    "concurrent/futures/__init__.py": FileContext(
        path="concurrent/futures/__init__.py",
        module=("concurrent", "futures"),
        package=("concurrent", "futures"),
        imports=bound_imports([imp("Future", "concurrent.futures._base", "Future")]),
    ),
    "asyncio/__init__.py": FileContext(
        path="asyncio/__init__.py",
        module=("asyncio",),
        package=("asyncio",),
        imports={},
        stars=star_imports([imp("*", ".futures", "")]),
    ),
    "zipfile.py": FileContext(
        path="zipfile.py", module=("zipfile",), package=(), imports=bound_imports([imp("", "io", "io")])
    ),
    "io.py": FileContext(path="io.py", module=("io",), package=(), imports=bound_imports([imp("", "_io", "_io")])),
}  # fmt: skip


def lib_lookup(name: str) -> Sequence[Candidate]:
    return [c for c in LIB if c.qualname.rsplit(".", 1)[-1] == name]


def importers(name: str) -> list[tuple[tuple[str, ...], str, Edge]]:
    return [
        (ctx.module, ctx.path, e)
        for ctx in CONTEXTS.values()
        for e in [*ctx.imports.values(), *ctx.stars]
        if e.alias == name or e.name == "*"
    ]


SEGMENT = Segment(lookup=lib_lookup, context_of=CONTEXTS.get, importers=importers)


def lib_targets(edge: Edge, ctx: FileContext) -> tuple[Resolution, list[str]]:
    resolved = resolve_call(edge, ctx, SEGMENT)
    return resolved.resolution, [f"{t.path}:{t.qualname}" for t in resolved.targets]


def test_a_dotted_module_must_end_the_definitions_module_and_a_reexport_is_followed() -> None:
    main = FileContext(
        path="asyncio/__main__.py",
        module=("asyncio", "__main__"),
        package=("asyncio",),
        imports=bound_imports([imp("", "concurrent", "concurrent")]),
    )
    # `asyncio/futures.py` shares only `futures` with `concurrent.futures`: never a match; the package's
    # __init__ imports Future from _base, so that is where the call goes
    edge = call("future.result", caller="REPL.run", alias="concurrent.futures.Future")
    assert lib_targets(edge, main) == (Resolution.EXACT, ["concurrent/futures/_base.py:Future.result"])
    assert lib_targets(call("concurrent.futures.Future", caller="f"), main) == (
        Resolution.IMPORT,
        ["concurrent/futures/_base.py:Future"],
    )


def test_a_star_import_passes_names_on_and_provides_bare_names() -> None:
    user = FileContext(
        path="app.py",
        module=("app",),
        package=(),
        imports=bound_imports([imp("Future", "asyncio", "Future")]),
    )
    assert lib_targets(call("Future", caller="f"), user) == (Resolution.IMPORT, ["asyncio/futures.py:Future"])
    starred = FileContext(
        path="b.py", module=("b",), package=(), imports={}, stars=(imp("*", "asyncio", ""),)
    )
    assert lib_targets(call("Future", caller="f"), starred) == (
        Resolution.IMPORT,
        ["asyncio/futures.py:Future"],
    )


def test_a_base_is_the_class_its_name_reaches_in_the_declaring_file_never_one_by_name() -> None:
    # zipfile's `io.BufferedIOBase` is io.py's class, whose bases are C types: `super().close()` reaches no
    # base in the segment, so it is a name match, not an exact call of _pyio's IOBase.close (same class
    # names, another module)
    edge = call("super().close", caller="ZipExtFile.close")
    assert lib_targets(edge, CONTEXTS["zipfile.py"]) == (
        Resolution.NAME,
        ["_pyio.py:IOBase.close", "zipfile.py:ZipExtFile.close"],
    )
    # by name alone (no other file's context at hand) the base is guessed: what the rule above replaces
    assert resolve_call(edge, CONTEXTS["zipfile.py"], lib_lookup).resolution is Resolution.EXACT


def test_a_metaclass_method_calls_its_class_through_metacls() -> None:
    ctx = FileContext(path="enum.py", module=("enum",), package=(), imports={})
    assert lib_targets(call("metacls._find_new_", caller="EnumType.__new__"), ctx) == (
        Resolution.EXACT,
        ["enum.py:EnumType._find_new_"],
    )


def test_several_receiver_types_each_resolve() -> None:
    assert targets(call("x.load", alias="Thing|Store")) == (Resolution.EXACT, ["pkg/store.py:Store.load"])
    assert targets(call("x.save", alias="Svc|Store")) == (Resolution.EXACT, ["pkg/store.py:Base.save"])


SCOPES = """
import concurrent.futures
from .helpers import *

M = IMAP4(host)
if stream:
    M = IMAP4_stream(cmd)


def run(cmd):
    M.mesg(cmd)


def shadowed(M):
    M.mesg("x")


def outer():
    future = concurrent.futures.Future()

    def callback():
        future.set_result(1)

    return callback
"""


def test_the_parser_types_variables_as_python_reads_them_and_records_star_imports() -> None:
    edges = parse_python("pkg/mod.py", SCOPES).edge_list()
    receivers = {(e.caller, e.text): e.alias for e in edges if e.kind is EdgeKind.CALL and "." in e.text}
    assert set(receivers[("run", "M.mesg")].split("|")) == {"IMAP4", "IMAP4_stream"}  # the module's, both
    # a parameter of its own hides the module's M: typed, when asked, by what the calls of `shadowed` pass
    assert receivers[("shadowed", "M.mesg")] == "(param)shadowed:M@0"
    assert receivers[("outer.callback", "future.set_result")] == "concurrent.futures.Future"  # a closure's
    [star] = [e for e in edges if e.kind is EdgeKind.IMPORT and e.name == "*"]
    assert (star.text, star.alias) == (".helpers", "") and star_imports(edges) == (star,)


GLOBALS = """
import xmlrpc.client

_state = None


def input(files=None):
    global _state
    _state = FileInput(files)
    return _state


def filename():
    return _state.filename()


def lazy():
    global client
    import xmlrpc.client as client


def dumps(obj):
    return client.dumps(obj)


def reads():
    global _state
    return _state.lineno()
"""


def test_a_function_assigning_a_name_it_declares_global_types_the_module_variable() -> None:
    edges = parse_python("fileinput.py", GLOBALS).edge_list()
    receivers = {(e.caller, e.text): e.alias for e in edges if e.kind is EdgeKind.CALL and "." in e.text}
    assert receivers[("filename", "_state.filename")] == "FileInput"  # `global _state` in input()
    assert receivers[("reads", "_state.lineno")] == "FileInput"  # declared only: the module's
    assert receivers[("dumps", "client.dumps")] == ""  # bound by an import there: left to the import edge
    assert ("input", "FileInput") in {(e.caller, e.text) for e in edges if e.kind is EdgeKind.RETURN}


def test_parsed_edges_cross_the_worker_pipe_as_plain_rows_and_read_back_the_same() -> None:
    import pickle

    from trifecta.domain.calls import edge_from_row
    from trifecta.infrastructure.code_parser import parse_item

    direct = parse_python("pkg/mod.py", SCOPES)
    _, sent = pickle.loads(pickle.dumps(parse_item(("pkg/mod.py", SCOPES)), protocol=pickle.HIGHEST_PROTOCOL))
    assert sent.edges == () and all(type(row) is tuple for row in sent.edge_rows)
    assert sent.edge_table() == direct.edge_table() and len(direct.edge_table()) == len(direct.edge_list())
    assert tuple(edge_from_row(row) for row in sent.edge_rows) == direct.edge_list()
    assert pickle.loads(pickle.dumps(direct.edge_list())) == direct.edge_list()
    # the Python parser makes rows (no Edge objects to build in the parser's worker); edge_list reads them
    assert direct.edges == () and direct.edge_list() and all(type(row) is tuple for row in direct.edge_rows)


def test_a_segment_that_is_the_packages_own_folder_still_matches_its_absolute_imports() -> None:
    # the segment is `pkg/` itself: `pkg/store.py` is the module `store`, imported as `pkg.store`
    inside = [Candidate(path="store.py", qualname="normalize", kind=K.FUNCTION, module=("store",))]
    ctx = FileContext(
        path="svc.py",
        module=("svc",),
        package=(),
        imports=bound_imports([imp("normalize", "pkg.store", "n")]),
    )
    resolved = resolve_call(
        call("n", caller="f"), ctx, lambda name: [c for c in inside if c.qualname == name]
    )
    assert resolved.resolution is Resolution.IMPORT and [t.path for t in resolved.targets] == ["store.py"]


def test_a_bare_name_in_a_method_is_the_module_function_not_the_sibling_method() -> None:
    table = [
        Candidate(path="enc.py", qualname="encode", kind=K.FUNCTION, module=("enc",)),
        Candidate(path="enc.py", qualname="Writer", kind=K.CLASS, module=("enc",)),
        Candidate(path="enc.py", qualname="Writer.encode", kind=K.METHOD, module=("enc",)),
        Candidate(path="enc.py", qualname="Writer.flush", kind=K.METHOD, module=("enc",)),
    ]
    ctx = FileContext(path="enc.py", module=("enc",), package=(), imports={})

    def look(name: str) -> Sequence[Candidate]:
        return [c for c in table if c.qualname.rsplit(".", 1)[-1] == name]

    found = resolve_call(call("encode", caller="Writer.encode"), ctx, look)
    assert [t.qualname for t in found.targets] == ["encode"]  # `return encode(input)` inside Writer.encode
    # no module-level name: the class's member (a Java or C# method calling a sibling as `flush()`)
    assert [t.qualname for t in resolve_call(call("flush", caller="Writer.encode"), ctx, look).targets] == [
        "Writer.flush"
    ]
