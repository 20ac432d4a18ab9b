"""TypeScript callers the index resolves the way a language server's references do, over
tests/fixtures/callgraph_ts indexed into a real SQLite file through the facade: re-exports through a barrel
file, ..."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import trifecta

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "callgraph_ts"
pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[trifecta.Engine]:
    repo = tmp_path_factory.mktemp("callgraph_ts") / "repo"
    shutil.copytree(FIXTURE, repo)
    with trifecta.open(repo) as e:
        e.index()
        yield e


def callers(engine: trifecta.Engine, uri: str) -> list[tuple[Any, ...]]:
    data = engine.callers(uri).to_dict()
    assert data["status"] == "ok", data["errors"]
    return [(h["path"], h["line"], h["symbol"], h["resolution"], h["callee"]) for h in data["data"]["hits"]]


def test_names_a_barrel_file_passes_on_reach_their_definitions(engine: trifecta.Engine) -> None:
    # lib/index.ts: `export * from "./util"`, `export { plain } from "./other"`,
    # `export * as others from "./other"`; app/main.ts imports from "../lib"
    assert callers(engine, "sym://typescript/type/lib/util/helper")[:2] == [
        ("app/main.ts", 5, "run", "import", "helper"),
        ("app/main.ts", 8, "run", "import", "lib.helper"),
    ]
    assert ("app/main.ts", 6, "run", "exact", "store.save") in callers(  # store: Store, passed on
        engine, "sym://typescript/type/lib/util/Store#save"
    )
    assert callers(engine, "sym://typescript/type/lib/other/plain") == [
        ("app/main.ts", 7, "run", "import", "plain"),
        ("app/main.ts", 9, "run", "import", "lib.others.plain"),
        ("app/named.ts", 4, "named", "import", "plain"),  # `from "../lib/index"`: the folder's module
    ]
    assert ("app/named.ts", 5, "named", "import", "helper") in callers(
        engine, "sym://typescript/type/lib/util/helper"
    )


def test_an_object_literals_methods_are_the_members_of_the_variable_that_holds_it(
    engine: trifecta.Engine,
) -> None:
    # lib/traps.ts: `const traps: Handler = { get() {...}, size() {...} }` next to a function `get`
    assert callers(engine, "sym://typescript/type/lib/traps/traps#get") == [
        ("lib/traps.ts", 15, "get", "exact", "traps.get"),  # the object's own method, not Handler's
        ("app/wire.ts", 6, "wire", "import", "traps.get"),
        ("lib/traps.ts", 2, "Handler.get", "exact", "Handler.get"),  # the member it implements (declared)
    ]
    assert callers(engine, "sym://typescript/type/lib/traps/traps#size") == [
        ("lib/traps.ts", 7, "traps.get", "exact", "this.size"),  # `this` in a method: the object
    ]
    assert callers(engine, "sym://typescript/type/lib/traps/get") == [  # never `traps.get(...)`
        ("app/wire.ts", 4, "wire", "import", "get"),  # `{ get }`: a shorthand property reads it
        ("app/wire.ts", 5, "wire", "import", "get"),
    ]


def test_receivers_typed_in_callbacks_private_fields_and_module_variables_passed_on(
    engine: trifecta.Engine,
) -> None:
    # app/spec.ts: `const thing = new Store()` in one test's callback, `= new Online()` in another's;
    # lib/client.ts: `#store: Store`; lib/online.ts: `export const online = new Online()`, passed on by
    # lib/index.ts's `export * from "./online"`
    assert callers(engine, "sym://typescript/type/lib/util/Store#save") == [
        ("app/main.ts", 6, "run", "exact", "store.save"),
        ("app/spec.ts", 7, "", "exact", "thing.save"),
        ("lib/client.ts", 13, "Client.flush", "exact", "this.#store.save"),
        ("lib/client.ts", 21, "Client.sync", "exact", "this.#peer.cache().save"),  # what cache() returns
        ("lib/client.ts", 30, "Keeper.keep", "exact", "store.save"),  # `const store = this.#store`
        ("lib/client.ts", 38, "Keeper.swap", "exact", "spare.save"),  # `const { spare } = this`
        ("lib/client.ts", 39, "Keeper.swap", "exact", "other.save"),  # `const { spare: other } = holder`
    ]
    assert callers(engine, "sym://typescript/type/lib/online/Online#setOnline") == [
        ("app/spec.ts", 11, "", "exact", "thing.setOnline"),
        ("app/spec.ts", 13, "", "import", "online.setOnline"),
    ]


def test_array_elements_are_typed_by_the_arrays_element_type(engine: trifecta.Engine) -> None:
    # lib/cache.ts: `#entries: Entry[]`, `items: Array<Entry>`, `getAll(): Array<Entry>`; app/use.ts:
    # `list: ReadonlyArray<Entry>`, `more: readonly Entry[]`, `names: string[]`
    assert sorted(callers(engine, "sym://typescript/type/lib/cache/Entry#reset")) == [
        ("app/use.ts", 4, "useIt", "exact", "e.reset"),  # cache.getAll().slice(1).forEach((e) => e.reset())
        ("app/use.ts", 7, "useIt", "exact", "list.find((e) => e.isIdle()).reset"),  # what find() returns
        ("app/use.ts", 12, "useIt", "name", "n.reset"),  # an element of `string[]`: no class
        ("lib/cache.ts", 25, "Cache.resetAll", "exact", "entry.reset"),  # this.getAll().forEach((entry) =>
        ("lib/cache.ts", 27, "Cache.resetAll", "exact", "e.reset"),  # for (const e of this.items)
        ("lib/cache.ts", 28, "Cache.resetAll", "exact", "this.#entries[0].reset"),
    ]
    assert sorted(callers(engine, "sym://typescript/type/lib/cache/Entry#fetch")) == [
        ("app/use.ts", 6, "useIt", "exact", "found.fetch"),  # `= cache.find("k")!`: `Entry | undefined`
        ("app/use.ts", 9, "useIt", "exact", "item.fetch"),  # for (const item of more)
        ("lib/cache.ts", 29, "Cache.resetAll", "exact", "y.fetch"),  # this.items.filter(...).map((y) =>
    ]
    assert ("lib/cache.ts", 20, "Cache.find", "exact", "e.isIdle") in callers(
        engine, "sym://typescript/type/lib/cache/Entry#isIdle"
    )


def test_a_method_overriding_a_built_in_bases_is_reached_by_calls_on_that_base(
    engine: trifecta.Engine,
) -> None:
    # lib/draft.ts: `class DraftMap extends Map { set() }`; `type AnyMap = Map<any, any>`; `interface MapState
    # { copy_: AnyMap | undefined; seen_: Map<string, boolean> }`; `touch(state: MapState, plain: AnyMap,
    # other: Other)`: `other.set()` is Other's, never Map's
    hits = engine.callers("sym://typescript/type/lib/draft/DraftMap#set").to_dict()["data"]["hits"]
    assert [(h["line"], h["resolution"], h["callee"], h.get("related"), h.get("reaches")) for h in hits] == [
        (16, "exact", "state.copy_!.set", "base", "Map.set"),  # a field of an interface, a type alias of Map
        (17, "exact", "state.seen_.set", "base", "Map.set"),
        (18, "exact", "plain.set", "base", "Map.set"),
        (28, "exact", "copy_!.set", "base", "Map.set"),  # `const { copy_, seen_: seen } = state`
        (29, "exact", "seen.set", "base", "Map.set"),
    ]
    assert ("lib/draft.ts", 19, "touch", "exact", "other.set") in callers(
        engine, "sym://typescript/type/lib/draft/Other#set"
    )


def related(engine: trifecta.Engine, uri: str) -> list[tuple[Any, ...]]:
    data = engine.callers(uri).to_dict()
    assert data["status"] == "ok", data["errors"]
    return [
        (h["path"], h["line"], h["callee"], h["use"], h.get("related"), h.get("reaches"))
        for h in data["data"]["hits"]
    ]


def test_an_object_literals_methods_implement_the_interface_that_types_it(engine: trifecta.Engine) -> None:
    # lib/proto.ts: `interface Chunk extends P.Pipeable` (a namespace import's interface);
    # `const ChunkProto: Omit<Chunk, "length"> = { pipe() {...} }`, `{ pipe() {...} } satisfies P.Pipeable`,
    # `const local: P.Pipeable = { pipe() {...} }` (ChunkProto's literal is `{...} as const`), `make(): P.Inspectable { return { toJSON() {...} } }`,
    # `class Impl implements P.Pipeable`; `const plain = { pipe() {...} }` is typed by nothing
    assert related(engine, "sym://typescript/type/lib/pipe/Pipeable#pipe") == [
        ("lib/proto.ts", 42, "chunk.pipe", "call", None, None),  # Chunk's base, named `P.Pipeable`
        ("lib/proto.ts", 42, "pipeable.pipe", "call", None, None),
        ("lib/proto.ts", 42, "local.pipe", "call", "override", "local.pipe"),
        ("lib/proto.ts", 42, "ChunkProto.pipe", "call", "override", "ChunkProto.pipe"),
        ("lib/proto.ts", 8, "ChunkProto.pipe", "declaration", "override", "ChunkProto.pipe"),
        ("lib/proto.ts", 31, "Impl.pipe", "declaration", "override", "Impl.pipe"),
        ("lib/proto.ts", 38, "local.pipe", "declaration", "override", "local.pipe"),
        ("lib/proto.ts", 17, "pipe", "declaration", "override", "pipe"),  # `satisfies P.Pipeable`
    ]
    assert related(engine, "sym://typescript/type/lib/proto/ChunkProto#pipe") == [
        ("lib/proto.ts", 42, "ChunkProto.pipe", "call", None, None),
        ("lib/proto.ts", 42, "chunk.pipe", "call", "base", "Pipeable.pipe"),
        ("lib/proto.ts", 42, "pipeable.pipe", "call", "base", "Pipeable.pipe"),
        ("lib/proto.ts", 42, "local.pipe", "call", "sibling", "local.pipe"),
        ("lib/pipe.ts", 6, "Pipeable.pipe", "declaration", "base", "Pipeable.pipe"),
        ("lib/proto.ts", 31, "Impl.pipe", "declaration", "sibling", "Impl.pipe"),
        ("lib/proto.ts", 38, "local.pipe", "declaration", "sibling", "local.pipe"),
        ("lib/proto.ts", 17, "pipe", "declaration", "sibling", "pipe"),
    ]
    assert related(engine, "sym://typescript/type/lib/pipe/Inspectable#toJSON") == [
        ("lib/proto.ts", 11, "ChunkProto.toJSON", "declaration", "override", "ChunkProto.toJSON"),
        ("lib/proto.ts", 24, "toJSON", "declaration", "override", "toJSON"),  # what make() returns
    ]
    assert related(engine, "sym://typescript/type/lib/proto/plain#pipe") == [
        ("lib/proto.ts", 42, "plain.pipe", "call", None, None),
    ]


def test_destructured_variables_hold_the_fields_they_take(engine: trifecta.Engine) -> None:
    # lib/client.ts: `const { spare } = this`, `const { spare: other } = holder` (`holder: Keeper`, `spare:
    # Store`); lib/draft.ts: `const { copy_, seen_: seen } = state` (`state: MapState`)
    save = callers(engine, "sym://typescript/type/lib/util/Store#save")
    assert ("lib/client.ts", 38, "Keeper.swap", "exact", "spare.save") in save
    assert ("lib/client.ts", 39, "Keeper.swap", "exact", "other.save") in save
    hits = engine.callers("sym://typescript/type/lib/draft/DraftMap#set").to_dict()["data"]["hits"]
    assert {(h["line"], h["callee"], h.get("related")) for h in hits if h["path"] == "lib/draft.ts"} >= {
        (28, "copy_!.set", "base"),
        (29, "seen.set", "base"),
    }


def test_a_union_typed_receiver_reaches_the_method_of_each_of_its_types(engine: trifecta.Engine) -> None:
    # lib/shape.ts: `a: Circle | Square`, `b: Shape` with `type Shape = Circle | Square`, `c: Circle | Line |
    # undefined` (Line has no area); app/shapes.ts: `s: S.Shape` (a namespace import), `t: Shape` (named)
    union = [
        ("app/shapes.ts", 5, "sum", "exact", "s.area"),
        ("app/shapes.ts", 5, "sum", "exact", "t.area"),
        ("lib/shape.ts", 22, "total", "exact", "a.area"),
        ("lib/shape.ts", 22, "total", "exact", "b.area"),
    ]
    assert sorted(callers(engine, "sym://typescript/type/lib/shape/Square#area")) == union
    assert sorted(callers(engine, "sym://typescript/type/lib/shape/Circle#area")) == sorted(
        [*union, ("lib/shape.ts", 23, "total", "exact", "c.area")]
    )


def hits(engine: trifecta.Engine, uri: str) -> list[tuple[Any, ...]]:
    data = engine.callers(uri).to_dict()
    assert data["status"] == "ok", data["errors"]
    return [
        (h["path"], h["line"], h["resolution"], h["callee"], h.get("related")) for h in data["data"]["hits"]
    ]


def test_typescript_the_grammar_misreads_keeps_its_definitions(engine: trifecta.Engine) -> None:
    # lib/flow.ts: `class Stream<in out A>` (variance annotations), and `interface Folder` whose signature
    # `<A>(s: Stream<A>, a: A): Stream<A>` is on a line of its own after `fold<A>(a: A): (s) => Stream<A>`:
    # tree-sitter-typescript reads neither, so both definitions were dropped with their members
    assert hits(engine, "sym://typescript/type/lib/flow/Folder#unfold") == [
        ("app/flows.ts", 5, "exact", "folder.unfold", None),
    ]
    assert ("lib/flow.ts", 10, "exact", "Stream.flow", "override") in hits(  # Stream's method, in its class
        engine, "sym://typescript/type/lib/flow/Flowable#flow"
    )


def test_an_arrow_functions_annotated_return_types_the_calls_on_its_value(engine: trifecta.Engine) -> None:
    # `export const streamOf = <A>(item: A): Stream<A> => ...`; app/flows.ts: `streamOf(1).flow()`
    assert ("app/flows.ts", 4, "exact", "streamOf(1).flow", None) in hits(
        engine, "sym://typescript/type/lib/flow/Stream#flow"
    )


def test_a_variables_annotation_types_it_over_the_call_that_makes_it(engine: trifecta.Engine) -> None:
    # `export const chosen: Left | Right = makeSide()` (makeSide returns a Right): `chosen.side()` may run
    # either, as the annotation says
    for cls in ("Left", "Right"):
        assert hits(engine, f"sym://typescript/type/lib/flow/{cls}#side") == [
            ("app/flows.ts", 5, "import", "chosen.side", None),
        ]


def test_overloads_and_sure_hits_before_the_calls_matched_by_name(engine: trifecta.Engine) -> None:
    # `interface Flowable { flow(): number; flow(times: number): number }`: each signature of a related
    # method is a declaration of its own (the server lists each; not the asked method's own); `thing.flow()`
    # on `thing: any` is matched by name only: listed after every sure hit, so a budget cuts those first
    assert hits(engine, "sym://typescript/type/lib/flow/Flowable#flow") == [
        ("app/flows.ts", 4, "exact", "streamOf(1).flow", "override"),
        ("lib/flow.ts", 10, "exact", "Stream.flow", "override"),
        ("app/flows.ts", 9, "name", "thing.flow", None),
    ]
    assert hits(engine, "sym://typescript/type/lib/flow/Stream#flow") == [
        ("app/flows.ts", 4, "exact", "streamOf(1).flow", None),
        ("lib/flow.ts", 4, "exact", "Flowable.flow", "base"),
        ("lib/flow.ts", 5, "exact", "Flowable.flow", "base"),
        ("app/flows.ts", 9, "name", "thing.flow", None),
    ]
    # a function's overloads are its own declarations, not references (`export function pick(a: A): A`)
    assert hits(engine, "sym://typescript/type/lib/flow/pick") == [
        ("app/flows.ts", 17, "import", "pick", None)
    ]


def test_every_classs_own_object_method_is_related_through_object(engine: trifecta.Engine) -> None:
    # `class Left extends Object { toString() }`, `class Right extends Object { toString() { ...
    # this.toString() } }`: no shared base in the code, both override Object's toString; lib/effects.ts's
    # `class Bare { toString() }` has no base at all: the server relates it to nothing (typescript 5)
    assert hits(engine, "sym://typescript/type/lib/flow/Left#toString") == [
        ("lib/flow.ts", 37, "exact", "this.toString", "sibling"),
        ("lib/flow.ts", 36, "exact", "Right.toString", "sibling"),
    ]
    assert hits(engine, "sym://typescript/type/lib/effects/Bare#toString") == []
    assert hits(engine, "sym://typescript/type/lib/flow/Left#side") == [  # no Object method: no relation
        ("app/flows.ts", 5, "import", "chosen.side", None),
    ]


def test_a_nested_functions_calls_are_those_in_its_own_scope(engine: trifecta.Engine) -> None:
    # `const step = ...` in `first` and another in `second`: both are `step` in lib/flow.ts; the URI selects
    # the first, reached by `first`'s call only
    assert hits(engine, "sym://typescript/type/lib/flow/step") == [("lib/flow.ts", 49, "exact", "step", None)]


def test_assignments_to_the_globals_define_nothing() -> None:
    # ecmascript.scm's `X.f = function` defines `X.f` but not on `window`, `self`, `global`, `exports`,
    # `module` (py-tree-sitter 0.25 ignores the query's `#not-any-of?`: the parser checks them)
    from trifecta.infrastructure.treesitter_parser import parse_tree_sitter, spec_for

    text = "window.onload = function () {}\nconst api = {}\napi.start = function () {}\nself.onmessage = () => 1\n"
    spec = spec_for("page.js")
    assert spec is not None
    parsed = parse_tree_sitter("page.js", text, spec)
    assert [(s.qualname, s.kind.value) for s in parsed.symbols] == [
        ("api", "const"),
        ("api.start", "function"),
    ]


def test_an_iterators_next_is_reached_by_calls_on_iterators(engine: trifecta.Engine) -> None:
    # lib/flow.ts: `[Symbol.iterator]() { return { next() {...} } }` returns an Iterator (the protocol says
    # so, no annotation does); app/flows.ts: `const it = items[Symbol.iterator]()`, `more: Iterator<number>`
    assert hits(engine, "sym://typescript/type/lib/flow/next")[1:3] == [
        ("app/flows.ts", 14, "exact", "it.next", "base"),
        ("app/flows.ts", 14, "exact", "more.next", "base"),
    ]


def test_constants_typed_by_function_types_and_classes_extending_a_call(engine: trifecta.Engine) -> None:
    # lib/effects.ts (effect's shapes): `const sleep: (millis: number) => Effect<void> = internalSleep`, a
    # `dual` API `const map: { <A, B>(f): ...; <A, B>(self: Effect<A>, f): Effect<B> } = dual(...)`,
    # `const clockWith: <A>(f: (clock: Clock) => Effect<A>) => Effect<A>`, `class Str extends
    # classOf<string>("s")` (classOf returns a SchemaClass), and `namespace Effect` next to `interface Effect`
    assert hits(engine, "sym://typescript/type/lib/effects/Pipeable#pipe")[:3] == [
        ("app/effects.ts", 4, "exact", "E.sleep(10).pipe", None),
        ("app/effects.ts", 5, "exact", "E.map(E.sleep(1), (n) => n).pipe", None),
        ("app/effects.ts", 7, "import", "E.Str.pipe", None),
    ]
    assert hits(engine, "sym://typescript/type/lib/effects/Clock#now") == [
        ("app/effects.ts", 6, "exact", "clock.now", None),
    ]


def test_a_namespaces_members_and_a_type_alias_beside_a_namespace_of_its_name(
    engine: trifecta.Engine,
) -> None:
    # lib/effects.ts: `namespace Metric { interface Counter extends Pipeable }` (its members are named
    # without it: `Counter`), `namespace Option` beside `type Option<A> = None | Some<A>`; app/effects.ts:
    # `class CounterState implements E.Metric.Counter`, `option(): E.Option<number>`, `option().pipe()`
    found = hits(engine, "sym://typescript/type/lib/effects/Pipeable#pipe")
    assert ("app/effects.ts", 12, "exact", "option().pipe", None) in found
    assert ("app/effects.ts", 15, "exact", "CounterState.pipe", "override") in found


def test_a_readonly_parameter_property_typed_by_a_long_union_alias(engine: trifecta.Engine) -> None:
    # lib/effects.ts: `type Kind = KindA | KindB | KindC | KindD` (an alias keeps every type of its union,
    # as effect's `type AST` of 24 classes), `constructor(readonly kind: Kind)`, `this.kind.toJSON()`
    assert hits(engine, "sym://typescript/type/lib/effects/KindD#toJSON") == [
        ("lib/effects.ts", 75, "exact", "this.kind.toJSON", None),
    ]


def test_implementations_of_a_built_in_interface_are_siblings(engine: trifecta.Engine) -> None:
    # lib/effects.ts: `class Countdown implements IterableIterator<number> { next() }`, an Iterator as
    # lib/flow.ts's object a `[Symbol.iterator]()` returns is; app/effects.ts: `gen: Generator<number>`,
    # `gen.next()` (a Generator is an Iterator)
    assert hits(engine, "sym://typescript/type/lib/effects/Countdown#next") == [
        ("app/effects.ts", 21, "exact", "gen.next", "base"),
        ("app/flows.ts", 14, "exact", "it.next", "base"),
        ("app/flows.ts", 14, "exact", "more.next", "base"),
        ("lib/effects.ts", 109, "exact", "next", "sibling"),
        ("lib/effects.ts", 118, "exact", "next", "sibling"),
        ("lib/flow.ts", 61, "exact", "next", "sibling"),
        # lib/iter.ts: the object's `next() {...}`, not `let next = 0` read there, nor `function next()`
        ("lib/iter.ts", 6, "exact", "next", "sibling"),
    ]
    assert ("lib/effects.ts", 80, "exact", "Countdown.next", "sibling") in hits(
        engine, "sym://typescript/type/lib/flow/next"
    )


def test_a_this_parameter_types_this(engine: trifecta.Engine) -> None:
    # lib/effects.ts: `const HandleProto = { toString(this: Handle) { this.toJSON() }, toJSON() {...} }`
    # (effect's prototypes): `this` is a Handle, an Inspectable, whose toJSON Printed implements
    assert hits(engine, "sym://typescript/type/lib/effects/Printed#toJSON") == [
        ("lib/effects.ts", 94, "exact", "this.toJSON", "base"),
        ("lib/effects.ts", 89, "exact", "Inspectable.toJSON", "base"),
    ]
    assert hits(engine, "sym://typescript/type/lib/effects/HandleProto#toJSON") == []


def test_object_literals_methods_sharing_a_qualified_name_are_siblings(engine: trifecta.Engine) -> None:
    # lib/effects.ts: `ones` and `twos` each return `{ [Symbol.iterator]() { return { next() {...} } } }`:
    # both are `next` of lib/effects.ts (the URI selects the first), two Iterators the server relates
    assert ("lib/effects.ts", 118, "exact", "next", "sibling") in hits(
        engine, "sym://typescript/type/lib/effects/next"
    )


def test_an_escaped_backtick_in_a_template_literal_type_leaves_the_rest_readable() -> None:
    # effect's Schema.ts: `type MissingSelfGeneric = \`Missing \\`Self\\` generic ...\``: the grammar ends the
    # type at the escaped backtick, and every template after it was misread (a `${format(value)}` became a
    # method `format`, 2,000 lines parsed block by block); the repair blanks the escape, at the same offsets
    from trifecta.infrastructure.treesitter_parser import parse_tree_sitter, spec_for

    text = (
        "type Missing = `Missing \\`Self\\` generic`\n"
        "export const describe = (value: string) =>\n"
        "  declare({ description: `HashSet<${format(value)}>` })\n"
        "export function format(v: string): string {\n  return v\n}\n"
    )
    spec = spec_for("schema.ts")
    assert spec is not None
    parsed = parse_tree_sitter("schema.ts", text, spec)
    assert parsed.error == ""
    assert [(s.qualname, s.kind.value, s.start_line) for s in parsed.symbols] == [
        ("Missing", "type", 1),
        ("describe", "function", 2),
        ("format", "function", 4),
    ]
    assert [(e.caller, e.line, e.text) for e in parsed.edge_list() if e.kind.value == "call"] == [
        ("describe", 3, "declare"),
        ("describe", 3, "format"),
    ]


def test_an_interface_property_typed_by_a_function_type_is_a_member_classes_implement(
    engine: trifecta.Engine,
) -> None:
    # lib/effects.ts: `interface MemoMap { readonly getOrElse: (key: string) => number }` (effect's
    # `readonly getOrElseMemoize: <RIn, E, ROut>(...) => ...`), `class MemoMapImpl implements MemoMap`,
    # `memoMap.getOrElse("k")` on `memoMap: MemoMap`: the call and the property's declaration are the family's
    assert hits(engine, "sym://typescript/type/lib/effects/MemoMapImpl#getOrElse") == [
        ("lib/effects.ts", 140, "exact", "memoMap.getOrElse", "base"),
        ("lib/effects.ts", 132, "exact", "MemoMap.getOrElse", "base"),
    ]


def test_functions_read_as_values_where_no_call_is(engine: trifecta.Engine) -> None:
    # lib/reads.ts: `flag ? pickA : pickB`, `choice: typeof pickA`, `creator.type = type`, `creator as
    # unknown`, `{ choose = pickB }`: the server's references list each
    assert callers(engine, "sym://typescript/type/lib/reads/pickA") == [
        ("lib/reads.ts", 13, "chooser", "exact", "pickA"),
        ("lib/reads.ts", 17, "Options.choice", "exact", "pickA"),
    ]
    assert callers(engine, "sym://typescript/type/lib/reads/pickB") == [
        ("lib/reads.ts", 13, "chooser", "exact", "pickB"),
        ("lib/reads.ts", 28, "withDefault", "exact", "pickB"),
    ]
    assert callers(engine, "sym://typescript/type/lib/reads/creator") == [
        ("lib/reads.ts", 24, "tagged", "exact", "creator"),
        ("lib/reads.ts", 25, "tagged", "exact", "creator"),
    ]


def test_a_local_function_a_file_defines_again_is_called_in_its_own_block_only(
    engine: trifecta.Engine,
) -> None:
    # app/locals.test.ts: a module-level `reducer`, and another in each `describe` callback's block; a call
    # reaches the innermost block's, else the module's (a language server's references agree)
    assert callers(engine, "sym://typescript/type/app/locals.test/reducer") == [
        ("app/locals.test.ts", 21, "", "exact", "reducer"),
        ("app/locals.test.ts", 24, "outer", "exact", "reducer"),
    ]
    # app/steps.ts: `const step` in two functions; the URI selects the first, which only its function calls
    assert callers(engine, "sym://typescript/type/app/steps/step") == [
        ("app/steps.ts", 3, "first", "exact", "step"),
    ]
    callees = engine.callees("sym://typescript/type/app/steps/first").to_dict()["data"]["hits"]
    assert [(h["call_line"], h["symbol"]) for h in callees] == [(3, "step")]
    impact = engine.impact("sym://typescript/type/app/steps/step").to_dict()["data"]["files"]
    assert [(f["path"], [s["symbol"] for s in f["symbols"]]) for f in impact] == [("app/steps.ts", ["first"])]


def test_a_method_of_an_object_literal_no_variable_holds_is_never_called_by_its_bare_name(
    engine: trifecta.Engine,
) -> None:
    # app/literal.ts: `make({reducers: {increment(n) {...}}})`, then `const {increment} = made.actions` and
    # `increment()`: the destructured variable's call, not the literal's method
    assert callers(engine, "sym://typescript/type/app/literal/increment") == [
        ("app/literal.ts", 16, "bump", "name", "increment"),  # by its name only: kept, never sure
    ]
    data = engine.callees("sym://typescript/type/app/literal/bump").to_dict()["data"]
    assert [h["symbol"] for h in data["hits"] if h["resolution"] in ("exact", "import")] == []


def test_two_interfaces_extending_a_library_type_relate_only_through_its_own_members(
    engine: trifecta.Engine,
) -> None:
    # lib/deferred/one.ts and two.ts: each `interface Deferred<T> extends Promise<T> { resolve(...) }`;
    # Promise declares `then` but no `resolve`, so each `resolve` is its own (a language server agrees)
    assert callers(engine, "sym://typescript/type/lib/deferred/one/Deferred#resolve") == [
        ("lib/deferred/one.ts", 6, "settle", "exact", "d.resolve"),
    ]


def test_the_keys_of_an_object_literal_a_type_types_reference_its_members(engine: trifecta.Engine) -> None:
    # app/ops.ts: `function makeOps(): Ops { return { addOne: double, reset } }`, `const fixedOps:
    # Partial<Ops> = { addOne: ... }`, `(): Ops => ({ addOne: double, ... })`; `const untyped = { addOne }`
    # is typed by nothing
    assert callers(engine, "sym://typescript/type/lib/ops/Ops#addOne") == [
        ("app/ops.ts", 12, "makeOps", "import", "Ops.addOne"),
        ("app/ops.ts", 18, "fixedOps", "import", "Ops.addOne"),
        ("app/ops.ts", 25, "arrowOps", "import", "Ops.addOne"),
    ]
    assert callers(engine, "sym://typescript/type/lib/ops/Ops#reset") == [
        ("app/ops.ts", 13, "makeOps", "import", "Ops.reset"),  # a shorthand property: and the local `reset`
        ("app/ops.ts", 25, "arrowOps", "import", "Ops.reset"),
    ]
    assert ("app/ops.ts", 13, "makeOps", "exact", "reset") in callers(
        engine, "sym://typescript/type/app/ops/reset"
    )


def test_an_object_literal_passed_to_a_call_implements_the_type_of_the_parameter_it_is_passed_as(
    engine: trifecta.Engine,
) -> None:
    # lib/sink.ts: `interface Source<T> { subscribe(sink: Partial<Sink<T>>): void }`, `function watch(label:
    # string, sink?: Readonly<Sink<number>> | undefined)`; app/listen.ts: `source.subscribe({ next(value) {} })`
    # with `source: Source<number>`; app/tell.ts: `watch(label, { next(value) {}, done() {} })` (imported)
    calls = [
        ("lib/sink.ts", 13, "sink.next", "call", "base", "Sink.next"),  # `sink: Sink<T>`
        ("lib/sink.ts", 19, "sink.next", "call", "base", "Sink.next"),  # `sink?: Readonly<Sink<number>>`
    ]
    assert related(engine, "sym://typescript/type/app/listen/next")[:4] == [  # (then the calls of any `next`)
        *calls,
        ("lib/sink.ts", 3, "Sink.next", "declaration", "base", "Sink.next"),
        ("app/tell.ts", 5, "next", "declaration", "sibling", "next"),
    ]
    assert related(engine, "sym://typescript/type/app/tell/next")[:2] == calls
    assert related(engine, "sym://typescript/type/app/tell/done") == [  # a property typed by a function type
        ("lib/sink.ts", 15, "sink.done", "call", "base", "Sink.done"),
        ("lib/sink.ts", 4, "Sink.done", "declaration", "base", "Sink.done"),
    ]
    # `anything.subscribe({ done() {} })` with `anything: any`: the call reaches nothing sure, nor its literal
    assert related(engine, "sym://typescript/type/app/listen/done") == []
