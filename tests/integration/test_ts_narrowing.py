"""TypeScript receivers' types narrowed and worked out from other values: type predicates and `instanceof`
in an `if`, over tests/fixtures/callgraph_ts_narrow indexed into a real SQLite file through the facade."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import trifecta

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "callgraph_ts_narrow"
pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[trifecta.Engine]:
    repo = tmp_path_factory.mktemp("ts_narrow") / "repo"
    shutil.copytree(FIXTURE, repo)
    with trifecta.open(repo) as e:
        e.index()
        yield e


def sure(engine: trifecta.Engine, uri: str) -> list[tuple[Any, ...]]:
    """The callers resolved `exact` or `import`: (path, line, caller)."""
    data = engine.callers(uri).to_dict()
    assert data["status"] == "ok", data["errors"]
    return [
        (h["path"], h["line"], h["symbol"])
        for h in data["data"]["hits"]
        if h["resolution"] in ("exact", "import") and h["use"] != "declaration"
    ]


def test_a_type_predicate_or_instanceof_narrows_a_variable_in_the_if_branch(engine: trifecta.Engine) -> None:
    # `if (isObservableMap(obj)) obj.has(k)`: `isObservableMap` a constant cast to `(thing: any) => thing is
    # ObservableMap<any, any>`; `isObservableSet(thing: any): thing is ObservableSet<any>` a function; `obj:
    # any` after the branches is neither; `thing: A | B` narrowed by `instanceof` is only the set
    assert sure(engine, "sym://typescript/type/types/map/ObservableMap#has") == [
        ("api/object.ts", 6, "has"),
        ("api/object.ts", 25, "either"),  # `isStale(thing)` is no predicate: `thing: A | B` stands
    ]
    assert sure(engine, "sym://typescript/type/types/set/ObservableSet#has") == [
        ("api/object.ts", 8, "has"),
        ("api/object.ts", 22, "either"),
        ("api/object.ts", 25, "either"),
    ]
    # `isObservableMap(obj) || obj instanceof ObservableMap`, read in a callback inside the branch; not after
    assert sure(engine, "sym://typescript/type/types/map/ObservableMap#get") == [("api/object.ts", 15, "get")]


def test_a_variable_holding_a_member_or_an_element_is_typed(engine: trifecta.Engine) -> None:
    # `const prevObserving = derivation.observing_` then `const dep = prevObserving[l]`; `const observing =
    # (derivation.observing_ = derivation.newObserving_!)` then `observing[i]`; `const list =
    # globalState.pending` with `globalState` another module's variable (re-exported), then `list[i]`
    assert sorted(sure(engine, "sym://typescript/type/core/derivation/Atom#onBecomeStale")) == [
        ("core/batch.ts", 7, "endBatch"),
        ("core/derivation.ts", 18, "bindDependencies"),
        ("core/derivation.ts", 23, "bindDependencies"),
    ]


def test_this_and_what_its_methods_return_are_the_class_in_an_object_literals_method(
    engine: trifecta.Engine,
) -> None:
    # `const self = this` and `const keys = this.keys()` in a method, read in the `next()` of the literal it
    # returns (where `this` is the literal): `self.get(v)` reaches the class's `get`, `keys.next()` is an
    # Iterator's (`keys(): MapIterator<string>`), as the server relates a class implementing Iterator
    assert sure(engine, "sym://typescript/type/types/store/Store#get") == [("types/store.ts", 24, "next")]
    assert ("types/store.ts", 23, "next") in sure(engine, "sym://typescript/type/types/store/Cursor#next")


def test_what_a_built_in_maps_keys_return_is_an_iterator(engine: trifecta.Engine) -> None:
    # `this.data_.keys()` with `data_ = new Map<string, V>()`, `other.keys()` with `other: Map<string, V>`:
    # a MapIterator, whose `next()` is Iterator's (a class implementing Iterator relates to it)
    assert ("types/store.ts", 15, "Store.sameKeys") in sure(
        engine, "sym://typescript/type/types/store/Cursor#next"
    )
