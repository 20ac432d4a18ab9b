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
    assert callers(engine, "sym://typescript/type/lib/util/helper") == [
        ("app/main.ts", 5, "run", "import", "helper"),
        ("app/main.ts", 8, "run", "import", "lib.helper"),
    ]
    assert ("app/main.ts", 6, "run", "exact", "store.save") in callers(  # store: Store, passed on
        engine, "sym://typescript/type/lib/util/Store#save"
    )
    assert callers(engine, "sym://typescript/type/lib/other/plain") == [
        ("app/main.ts", 7, "run", "import", "plain"),
        ("app/main.ts", 9, "run", "import", "lib.others.plain"),
    ]


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
