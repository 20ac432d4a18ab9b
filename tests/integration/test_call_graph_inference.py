"""Receivers typed by what functions return, classes named as receivers, and functions read as values,
over tests/fixtures/callgraph_inference indexed into a real SQLite file through the facade."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import trifecta

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "callgraph_inference"
pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[trifecta.Engine]:
    repo = tmp_path_factory.mktemp("inference") / "repo"
    shutil.copytree(FIXTURE, repo)
    with trifecta.open(repo) as e:
        e.index()
        yield e


def callers(engine: trifecta.Engine, uri: str) -> list[tuple[Any, ...]]:
    data = engine.callers(uri).to_dict()
    assert data["status"] == "ok", data["errors"]
    return [(h["path"], h["line"], h["symbol"], h["resolution"], h["use"]) for h in data["data"]["hits"]]


def test_receivers_typed_by_return_values_reach_the_method(engine: trifecta.Engine) -> None:
    assert callers(engine, "sym://python/type/shop/models/Widget#render") == [
        ("shop/use.py", 13, "from_a_function", "exact", "call"),  # w = make_widget(); return Widget()
        ("shop/use.py", 18, "through_two_returns", "exact", "call"),  # make_indirect() returns make_widget()
        ("shop/use.py", 22, "chained", "exact", "call"),  # build() -> "Widget"
        ("shop/use.py", 27, "optional", "exact", "call"),  # maybe() -> Optional[Widget]
        ("shop/use.py", 33, "self_and_cls_returns", "exact", "call"),  # create: cls(); copy: self
        ("shop/use.py", 54, "returned_local", "exact", "call"),  # made = Widget(); return made
        ("shop/use.py", 63, "Holder.show", "exact", "call"),  # shown = self.widget
    ]
    # `with open_session() as session`: what Session.__enter__ returns (self)
    assert callers(engine, "sym://python/type/shop/models/Session#commit") == [
        ("shop/use.py", 68, "in_a_session", "exact", "call")
    ]


def test_a_class_named_as_the_receiver_reaches_the_inherited_method(engine: trifecta.Engine) -> None:
    assert callers(engine, "sym://python/type/shop/models/Base#helper") == [
        ("shop/models.py", 39, "Child.run", "exact", "call"),  # Base.helper(self), a class of the file
        ("shop/use.py", 37, "inherited_through_a_class_name", "import", "call"),  # imported Child(Base)
    ]


def test_functions_read_as_values_are_references_and_a_local_of_that_name_is_not(
    engine: trifecta.Engine,
) -> None:
    assert callers(engine, "sym://python/type/shop/use/on_event") == [
        ("shop/use.py", 8, "", "exact", "reference"),  # HANDLERS = [on_event]; line 42 is a local
    ]
    assert callers(engine, "sym://python/type/shop/use/Panel#refresh") == [
        ("shop/use.py", 47, "Panel.__init__", "exact", "reference"),  # [self.refresh]
        ("shop/use.py", 71, "", "exact", "reference"),  # {"panel": Panel.refresh}
    ]
    # impact follows references too: what reads a function as a value breaks when it changes
    impact = engine.impact("sym://python/type/shop/use/Panel#refresh").to_dict()["data"]
    assert [s["symbol"] for f in impact["files"] for s in f["symbols"]] == ["Panel.__init__", ""]


def test_typescript_receivers_typed_by_annotated_returns_and_fields_set_in_the_constructor(
    engine: trifecta.Engine,
) -> None:
    assert callers(engine, "sym://typescript/type/web/a/Widget#render") == [
        ("web/b.ts", 13, "Panel.draw", "exact", "call"),  # w = b.build(), b = makeBuilder(): Builder
        ("web/b.ts", 14, "Panel.draw", "exact", "call"),  # this.widget: Widget
        ("web/b.ts", 19, "quick", "exact", "call"),  # maybe: Widget | undefined
    ]
    assert callers(engine, "sym://typescript/type/web/a/Builder#build") == [
        ("web/b.ts", 8, "Panel.constructor", "exact", "call"),  # this.builder = makeBuilder()
        ("web/b.ts", 12, "Panel.draw", "exact", "call"),  # const b = makeBuilder()
        ("web/b.ts", 20, "quick", "exact", "call"),  # makeBuilder().build()
    ]


def test_a_method_read_from_a_typed_variable_or_a_new_object_is_a_reference(engine: trifecta.Engine) -> None:
    # encodings' `encode=Codec().encode`, random's and calendar's `seed = _inst.seed`
    assert callers(engine, "sym://python/type/shop/registry/Codec#encode") == [
        ("shop/registry.py", 7, "getregentry", "exact", "reference")
    ]
    assert callers(engine, "sym://python/type/shop/registry/Tracker#ensure_running") == [
        ("shop/registry.py", 16, "", "exact", "reference")  # not line 20: `thing` has no known class
    ]


def test_a_receiver_made_by_a_class_the_parser_took_for_a_function_reaches_its_method(
    engine: trifecta.Engine,
) -> None:
    # pydoc's `html = _HTMLDoc()` inside `_url_handler`: a lower-case-looking class, recorded as `_Doc()`
    assert callers(engine, "sym://python/type/shop/registry/Formatter#markup") == [
        ("shop/registry.py", 35, "url_handler.page", "exact", "call")
    ]


def related(engine: trifecta.Engine, uri: str) -> list[tuple[Any, ...]]:
    data = engine.callers(uri).to_dict()
    assert data["status"] == "ok", data["errors"]
    return [(h["line"], h["symbol"], h.get("related"), h.get("reaches")) for h in data["data"]["hits"]]


def test_typescript_super_calls_reach_the_base_and_the_class_family_follows_the_direct_callers(
    engine: trifecta.Engine,
) -> None:
    # web/family.ts: Closable (an interface) <- Resource <- Pipe, and Socket implements Closable
    assert related(engine, "sym://typescript/type/web/family/Resource#close") == [
        (11, "Pipe.close", None, None),  # super.close()
        (21, "shut", None, None),  # r: Resource
        (45, "Child.run", None, None),  # this.resource: a field Child inherits, typed in Holder
        (20, "shut", "base", "Closable.close"),  # c: Closable may be a Resource
        (22, "shut", "override", "Pipe.close"),
        (53, "Owner.shutPipe", "override", "Pipe.close"),
        (23, "shut", "sibling", "Socket.close"),  # both implement Closable.close
        (46, "Child.run", "sibling", "Socket.close"),
        # then the family's declarations: what a changed signature must change too
        (2, "Closable.close", "base", "Closable.close"),
        (10, "Pipe.close", "override", "Pipe.close"),
        (16, "Socket.close", "sibling", "Socket.close"),
    ]
    # a function has no family; impact follows only the calls that reach the method itself
    assert related(engine, "sym://typescript/type/web/family/Pipe#close") == [
        (22, "shut", None, None),
        (53, "Owner.shutPipe", None, None),  # constructor(private pipe: Pipe) types this.pipe
        (11, "Pipe.close", "base", "Resource.close"),
        (20, "shut", "base", "Closable.close"),
        (21, "shut", "base", "Resource.close"),
        (45, "Child.run", "base", "Resource.close"),
        (23, "shut", "sibling", "Socket.close"),
        (46, "Child.run", "sibling", "Socket.close"),
        (2, "Closable.close", "base", "Closable.close"),
        (6, "Resource.close", "base", "Resource.close"),
        (16, "Socket.close", "sibling", "Socket.close"),
    ]
    impact = engine.impact("sym://typescript/type/web/family/Pipe#close").to_dict()["data"]
    assert [s["symbol"] for f in impact["files"] for s in f["symbols"]] == ["shut", "Owner.shutPipe"]
    # a field the class inherits is typed where its base declares it (`made = new Socket()` in Holder)
    assert (46, "Child.run", None, None) in related(engine, "sym://typescript/type/web/family/Socket#close")
    # static members have no family: `Factory.make()` is no call of SubFactory.make
    assert related(engine, "sym://typescript/type/web/family/SubFactory#make") == []
    assert related(engine, "sym://typescript/type/web/family/Factory#make") == [(35, "build", None, None)]


def test_typescript_callback_parameters_are_typed_by_what_the_callee_hands_them(
    engine: trifecta.Engine,
) -> None:
    # web/callbacks.ts: `operate(init: (source: Sink, count: number) => void)`, a constructor's callback
    # after its erased `this:` parameter; `[1].forEach((item) => ...)` reaches nothing it could type
    assert callers(engine, "sym://typescript/type/web/callbacks/Sink#write") == [
        ("web/callbacks.ts", 13, "useIt", "exact", "call"),
        ("web/callbacks.ts", 15, "useIt", "exact", "call"),
        ("web/callbacks.ts", 16, "useIt", "exact", "call"),
        ("web/callbacks.ts", 17, "useIt", "name", "call"),
    ]


def test_typescript_functions_nested_in_a_method_see_its_variables_and_its_this(
    engine: trifecta.Engine,
) -> None:
    # web/nested.ts: `const flush = () => {...}` is a definition of its own, named `flush` only
    assert callers(engine, "sym://typescript/type/web/nested/Job#done") == [
        ("web/nested.ts", 10, "flush", "exact", "call"),  # pending: Job | null, declared in Runner.run
    ]
    assert callers(engine, "sym://typescript/type/web/nested/Runner#go") == [
        ("web/nested.ts", 11, "flush", "exact", "call"),  # an arrow function's `this` is the method's
    ]
    # `socket.onopen = () => {...}` in a method is a definition named `socket.onopen`: `socket` is no class
    assert callers(engine, "sym://typescript/type/web/nested/Wire#reset") == [
        ("web/nested.ts", 21, "socket.onopen", "exact", "call"),
    ]


def test_doc_comment_links_are_listed_by_callers_but_never_followed_by_impact(
    engine: trifecta.Engine,
) -> None:
    # web/docs.ts: `{@link Doc#render}` (a class's member), `{@link operate}` (an imported function)
    assert callers(engine, "sym://typescript/type/web/docs/Doc#render") == [
        ("web/docs.ts", 4, "Doc", "exact", "doc"),
    ]
    assert ("web/docs.ts", 4, "Doc", "import", "doc") in callers(
        engine, "sym://typescript/type/web/callbacks/operate"
    )
    impact = engine.impact("sym://typescript/type/web/docs/Doc#render").to_dict()["data"]
    assert impact["total"] == 0


def test_typescript_functions_read_as_values_are_references_and_a_parameter_of_that_name_is_not(
    engine: trifecta.Engine,
) -> None:
    # web/values.ts: `register(helper, operate)` where `operate` is a parameter, `this.onClick.bind(this)`,
    # `helper2 ?? helper`, `{ run: helper, start: operate }` (the imported function); not line 19, where
    # `shadow` declares its own `helper`
    assert callers(engine, "sym://typescript/type/web/values/helper") == [
        ("web/values.ts", 8, "Panel2.wire", "exact", "reference"),
        ("web/values.ts", 10, "Panel2.wire", "exact", "reference"),
        ("web/values.ts", 15, "table", "exact", "reference"),
    ]
    assert callers(engine, "sym://typescript/type/web/values/Panel2#onClick") == [
        ("web/values.ts", 9, "Panel2.wire", "exact", "reference"),
    ]
    assert [
        h for h in callers(engine, "sym://typescript/type/web/callbacks/operate") if h[0] == "web/values.ts"
    ] == [("web/values.ts", 15, "table", "import", "reference")]


def test_the_definition_of_a_doc_comments_link(engine: trifecta.Engine) -> None:
    # web/docs.ts line 4: `/** Calls {@link Doc#render} through {@link operate}. */`
    line = (FIXTURE / "web" / "docs.ts").read_text().split("\n")[3]
    data = engine.definition("web/docs.ts", 4, line.index("render") + 1, engine="index").to_dict()["data"]
    assert (data["expression"], data["resolution"], [d["symbol"] for d in data["definitions"]]) == (
        "Doc.render",  # the link as written, `#` read as `.`
        "exact",
        ["Doc.render"],
    )
    data = engine.definition("web/docs.ts", 4, line.index("operate") + 1, engine="index").to_dict()["data"]
    assert (data["resolution"], [d["path"] for d in data["definitions"]]) == ("import", ["web/callbacks.ts"])


def test_fields_a_base_class_types_reach_the_method_in_its_subclasses(engine: trifecta.Engine) -> None:
    # `self.successor.select_from()` in a subclass, where the base's __init__ assigns `Terminal()`
    assert callers(engine, "sym://python/type/fields/selectors/Terminal#select_from") == [
        ("fields/selectors.py", 20, "Wildcard.select", "exact", "call"),
        ("fields/selectors.py", 49, "Step.walk", "exact", "call"),  # make_selector() returns a Terminal()
    ]
    # ... or `cls(pattern)` of `cls = Precise`
    assert callers(engine, "sym://python/type/fields/selectors/Precise#select_from") == [
        ("fields/selectors.py", 49, "Step.walk", "exact", "call")
    ]
    # `canvas = self.canvas` copies a field the base types; `self.canvas = self.root = Canvas()` types both
    assert callers(engine, "sym://python/type/fields/selectors/Canvas#draw") == [
        ("fields/selectors.py", 26, "Painter.paint", "exact", "call"),
        ("fields/selectors.py", 27, "Painter.paint", "exact", "call"),
    ]


def test_a_class_attribute_hides_the_base_method_and_defaults_and_rebinds_read_the_function(
    engine: trifecta.Engine,
) -> None:
    # `encode_text = str.upper` in AsciiCodec's body: AsciiCodec.encode_text is no use of the base's method
    assert callers(engine, "sym://python/type/fields/values/TextCodec#encode_text") == [
        ("fields/values.py", 11, "codecs", "exact", "reference")
    ]
    # `convert_value = staticmethod(convert_value)`: the class body reads the method it defined
    assert callers(engine, "sym://python/type/fields/values/Registry#convert_value") == [
        ("fields/values.py", 21, "Registry", "exact", "reference")
    ]
    # `def run_logged(log=debug_note)`: the default is read by the module, not by the parameter's function;
    # `debug_note = debug_note` in a class body reads the module's function
    assert callers(engine, "sym://python/type/fields/values/debug_note") == [
        ("fields/values.py", 28, "", "exact", "reference"),
        ("fields/values.py", 32, "", "exact", "reference"),
        ("fields/values.py", 37, "", "exact", "reference"),
    ]


def test_a_bare_call_of_a_parameter_or_a_local_is_no_call_of_the_function_of_that_name(
    engine: trifecta.Engine,
) -> None:
    data = engine.callees("sym://python/type/fields/values/run_shadowed").to_dict()["data"]
    assert [(h["line"], h["resolution"], h.get("reason")) for h in data["hits"]] == [
        (33, "unresolved", "local")
    ]


def test_a_class_read_as_a_value_is_a_reference_and_a_use_of_its_name(engine: trifecta.Engine) -> None:
    # registered, annotated, `isinstance`d and caught classes: what a changed class must check
    assert callers(engine, "sym://python/type/fields/actions/StoreAction") == [
        ("fields/actions.py", 14, "setup_actions", "exact", "reference"),  # register_action(..., StoreAction)
        ("fields/actions.py", 17, "check_action", "exact", "reference"),  # value: StoreAction
        ("fields/actions.py", 19, "check_action", "exact", "reference"),  # isinstance(value, StoreAction)
        ("fields/uses.py", 7, "is_store", "import", "reference"),
        ("fields/uses.py", 11, "make_store", "import", "call"),
        ("fields/uses.py", 14, "is_annotated_store", "import", "reference"),  # acts.StoreAction
    ]
    assert callers(engine, "sym://python/type/fields/actions/ParseFailure") == [
        ("fields/actions.py", 20, "check_action", "exact", "reference")  # except ParseFailure
    ]
    # search orders structural sets by the files that use a name
    uses = engine._app.store.name_uses(["StoreAction", "ParseFailure"])  # noqa: SLF001 - the index's count
    assert uses == {"StoreAction": 2, "ParseFailure": 1}


def test_an_untyped_parameter_takes_the_type_the_files_functions_agree_on_for_its_name(
    engine: trifecta.Engine,
) -> None:
    # `ctx = get_ctx()` in three functions types `def fix(value, ctx)`'s ctx, as jedi infers it from the calls
    assert callers(engine, "sym://python/type/fields/consensus/Ctx#raise_error") == [
        ("fields/consensus.py", 27, "fix", "exact", "call"),
        ("fields/consensus.py", 32, "other", "name", "call"),  # its own `ctx = str(value)`: by name only
    ]


def test_a_python_methods_callers_are_its_own_calls_and_not_its_class_familys(
    engine: trifecta.Engine,
) -> None:
    # shop/streams.py: Stream <- FileStream, Stream <- SocketStream. jedi and pyright keep each override its
    # own symbol, so a call on a Stream is no caller of FileStream.close, nor one on a SocketStream
    assert related(engine, "sym://python/type/shop/streams/FileStream#close") == [(21, "shut", None, None)]
    assert related(engine, "sym://python/type/shop/streams/Stream#close") == [
        (11, "FileStream.close", None, None),  # super().close()
        (20, "shut", None, None),
    ]


def test_an_answer_the_limit_cut_offers_the_same_question_with_room_for_the_rest(
    engine: trifecta.Engine,
) -> None:
    uri = "sym://python/type/shop/models/Widget#render"
    cut = engine.callers(uri, limit=2).to_dict()
    assert (len(cut["data"]["hits"]), cut["data"]["total"], cut["data"]["omitted"]) == (2, 7, 5)
    assert cut["next_actions"][0] == f"ast callers '{uri}' --limit 7"
    whole = engine.callers(uri, limit=7).to_dict()
    assert whole["data"]["omitted"] == 0
    assert not any(a.startswith("ast callers") for a in whole["next_actions"])


def test_an_answer_the_byte_budget_cut_goes_on_from_where_it_stopped(tmp_path: Path) -> None:
    # a budget that fits two of Widget#render's seven callers: each next answer starts where the last stopped
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURE, repo)
    uri = "sym://python/type/shop/models/Widget#render"
    with trifecta.open(repo, max_bytes_total=800) as small:
        small.index()
        pages: list[list[tuple[Any, ...]]] = []
        answer = small.callers(uri).to_dict()
        while True:
            data = answer["data"]
            pages.append([(h["path"], h["line"], h["column"]) for h in data["hits"]])
            assert len(pages) < 8 and data["hits"], data
            if not data["omitted"]:
                break
            offset = data.get("offset", 0) + len(data["hits"])
            assert data["total"] == offset + data["omitted"]
            assert answer["next_actions"][0] == f"ast callers '{uri}' --limit 50 --offset {offset}"
            answer = small.callers(uri, offset=offset).to_dict()
        assert not any(a.startswith("ast callers") for a in answer["next_actions"])
    with trifecta.open(repo) as whole:
        every = [(h["path"], h["line"], h["column"]) for h in whole.callers(uri).to_dict()["data"]["hits"]]
        bad = whole.callers(uri, offset=-1).to_dict()
    assert len(pages) > 2 and [hit for page in pages for hit in page] == every
    assert bad["errors"][0]["code"] == "INVALID_ARGUMENT" and "offset" in bad["errors"][0]["message"]


def uses(engine: trifecta.Engine, uri: str) -> list[tuple[Any, ...]]:
    data = engine.callers(uri).to_dict()
    assert data["status"] == "ok", data["errors"]
    return [(h["line"], h["column"], h["symbol"], h["resolution"], h["use"]) for h in data["data"]["hits"]]


def test_a_propertys_callers_are_its_reads_and_writes_on_receivers_of_its_class(
    engine: trifecta.Engine,
) -> None:
    # shop/props.py: `self.balance`, a parameter annotated `Account`, a local the index types by its calls;
    # `thing.balance` on an untyped parameter is no use of it (a common name would list every `.balance`)
    assert uses(engine, "sym://python/type/shop/props/Account#balance") == [
        (17, 14, "Account.deposit", "exact", "reference"),  # self.balance = ...
        (17, 29, "Account.deposit", "exact", "reference"),  # ... self.balance + amount
        (21, 23, "report", "exact", "reference"),  # f"{account.balance}"
        (27, 16, "audit", "exact", "reference"),  # acc = Account(3); acc.deposit(1)
        (43, 30, "total", "exact", "reference"),  # default_account().balance
    ]
    impact = engine.impact("sym://python/type/shop/props/Account#balance").to_dict()["data"]
    assert {s["symbol"] for f in impact["files"] for s in f["symbols"]} >= {"report", "audit"}


def test_search_asked_who_uses_a_property_answers_with_its_reads_and_writes(engine: trifecta.Engine) -> None:
    # search's graph question reads the files as `ast callers` does: a property has no call edge to list
    data = engine.search("who calls Account.balance", limit=10).to_dict()
    assert data["status"] == "ok", data["errors"]
    sites = sorted(
        (h["path"], h["line"], h["symbol"]) for h in data["data"]["hits"] if h["match_type"] == "call"
    )
    assert sites == [
        ("shop/props.py", 17, "Account.deposit"),
        ("shop/props.py", 21, "report"),
        ("shop/props.py", 27, "audit"),
        ("shop/props.py", 43, "total"),
    ]
    assert data["data"]["plan"]["graph"]["resolutions"] == {"exact": 5}  # the write `self.balance = ...` too
    # a TypeScript getter's uses are in no edge of the index: only the files say where they are
    data = engine.search("who calls Gauge.level", limit=10).to_dict()
    sites = sorted(
        (h["path"], h["line"], h["symbol"]) for h in data["data"]["hits"] if h["match_type"] == "call"
    )
    assert sites == [
        ("web/accessors.ts", 10, "Gauge.bump"),
        ("web/accessors.ts", 15, "read"),
        ("web/accessors.ts", 19, "reset"),
    ]


def test_a_typescript_accessors_callers_are_its_reads_and_writes(engine: trifecta.Engine) -> None:
    assert uses(engine, "sym://typescript/type/web/accessors/Gauge#level") == [
        (10, 10, "Gauge.bump", "exact", "reference"),  # this.level = this.level + 1
        (10, 23, "Gauge.bump", "exact", "reference"),
        (15, 16, "read", "exact", "reference"),  # gauge: Gauge
        (19, 6, "reset", "exact", "reference"),  # g?: Gauge, g!.level = 0
    ]


def test_a_function_returning_a_module_variable_types_the_calls_on_its_value(engine: trifecta.Engine) -> None:
    # `def default_account(): return _default` with `_default = Account(0)` at module level (a singleton)
    assert callers(engine, "sym://python/type/shop/props/Account#deposit") == [
        ("shop/props.py", 26, "audit", "exact", "call"),
        ("shop/props.py", 42, "total", "exact", "call"),  # default_account().deposit(2)
    ]
