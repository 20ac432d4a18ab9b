"""TypeScript class families through properties: an interface's property a class's getter implements, the
built-in types a class implements, over tests/fixtures/callgraph_ts_fields indexed into a real SQLite file
through the facade."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import trifecta

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "callgraph_ts_fields"
pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[trifecta.Engine]:
    repo = tmp_path_factory.mktemp("ts_fields") / "repo"
    shutil.copytree(FIXTURE, repo)
    with trifecta.open(repo) as e:
        e.index()
        yield e


def hits(engine: trifecta.Engine, uri: str) -> list[tuple[Any, ...]]:
    data = engine.callers(uri).to_dict()
    assert data["status"] == "ok", data["errors"]
    return [
        (h["path"], h["line"], h["symbol"], h["use"], h.get("related", ""), h.get("reaches", ""))
        for h in data["data"]["hits"]
    ]


def test_a_getters_uses_through_the_interface_property_it_implements(engine: trifecta.Engine) -> None:
    # `observable: IObservable` declares `isBeingObserved: boolean`, which Atom's getter implements: its
    # reads and writes are the getter's family's, as the server's references count them
    assert hits(engine, "sym://typescript/type/core/atom/Atom#isBeingObserved") == [
        ("core/observable.ts", 11, "reportObserved", "reference", "base", "IObservable.isBeingObserved"),
        ("core/observable.ts", 12, "reportObserved", "reference", "base", "IObservable.isBeingObserved"),
        ("core/observable.ts", 14, "reportObserved", "reference", "base", "IObservable.isBeingObserved"),
        ("core/observable.ts", 6, "IObservable.isBeingObserved", "declaration", "base",
         "IObservable.isBeingObserved"),
    ]  # fmt: skip
    # a getter of that name in a class that implements nothing is not the family's (nor `thing: any`)
    assert hits(engine, "sym://typescript/type/core/atom/Other#isBeingObserved") == [
        ("core/atom.ts", 21, "other", "reference", "", ""),
    ]


def test_an_object_literal_passed_as_a_typed_parameter_implements_its_type(engine: trifecta.Engine) -> None:
    # `makeIterableForSet({ next() {...} })`, the function's parameter `iterator: Iterator<T>`: the literal
    # is an Iterator, so its `next` and the one a function returning `Iterator<string>` returns are siblings
    assert hits(engine, "sym://typescript/type/types/iterable/next") == [
        ("types/iterable.ts", 22, "next", "declaration", "sibling", "next"),
    ]  # (not the `next` of the literal passed to `f: (x: object) => void`, a parameter of no declared type)


def test_an_element_of_an_interfaces_array_or_set_field_is_typed(engine: trifecta.Engine) -> None:
    # `observable.observers_.forEach((d) => d.onBecomeStale_())`, `observers_: Set<IDerivation>`
    assert hits(engine, "sym://typescript/type/core/derivation/Reaction#onBecomeStale_") == [
        ("core/observable.ts", 22, "propagate", "call", "base", "IDerivation.onBecomeStale_"),
        ("core/observable.ts", 2, "IDerivation.onBecomeStale_", "declaration", "base",
         "IDerivation.onBecomeStale_"),
    ]  # fmt: skip


def test_a_getter_of_a_class_implementing_set_is_reached_through_sets(engine: trifecta.Engine) -> None:
    # `size` on a field typed `Set<IDerivation>` and on `data_: Set<T>`, as the server relates them through
    # the built-in Set; `counts.size` on a Map is not
    assert hits(engine, "sym://typescript/type/types/set/ObservableSet#size") == [
        ("types/set.ts", 4, "ObservableSet.size", "reference", "base", "Set.size"),
        ("core/observable.ts", 26, "hasObservers", "reference", "base", "Set.size"),
    ]
    # a class implementing nothing: none of them
    assert hits(engine, "sym://typescript/type/types/set/Sized#size") == []


def test_a_maps_values_are_typed_by_its_value_type(engine: trifecta.Engine) -> None:
    # `boxes_: Map<string, Box> = new Map()` (the annotation over the value's `Map`), `constructor(public
    # extra_ = new Map<string, Box>())`: what their `get(key)` returns is a Box; the map's own `get` is matched
    # by its name only
    data = engine.callers("sym://typescript/type/types/map/Box#get").to_dict()
    assert [(h["line"], h["callee"], h["resolution"]) for h in data["data"]["hits"]] == [
        (11, "this.boxes_.get(key)!.get", "exact"),
        (15, "box.get", "exact"),
        (11, "this.boxes_.get", "name"),
        (14, "this.extra_.get", "name"),
    ]
