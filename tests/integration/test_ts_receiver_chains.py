"""TypeScript receivers read through a chain of fields (`this.view.docView.nearestDesc()`,
`view.domObserver.currentSelection.eq()`) and through a cast (`(desc as NodeViewDesc).selectNode()`), over
tests/fixtures/callgraph_ts_chains indexed into a real SQLite file through the facade."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import trifecta

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "callgraph_ts_chains"
pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[trifecta.Engine]:
    repo = tmp_path_factory.mktemp("ts_chains") / "repo"
    shutil.copytree(FIXTURE, repo)
    with trifecta.open(repo) as e:
        e.index()
        yield e


def callers(engine: trifecta.Engine, uri: str) -> list[tuple[Any, ...]]:
    data = engine.callers(uri).to_dict()
    assert data["status"] == "ok", data["errors"]
    return [(h["path"], h["line"], h["symbol"], h["resolution"]) for h in data["data"]["hits"]]


def test_a_field_of_a_field_types_the_receiver(engine: trifecta.Engine) -> None:
    # `this.domObserver.currentSelection.eq()` (the fields declared in this file and another),
    # `view.domObserver!.currentSelection.eq()` (a parameter's field's field)
    assert callers(engine, "sym://typescript/type/view/selection/SelectionState#eq") == [
        ("view/editor.ts", 10, "EditorView.focused", "exact"),
        ("view/editor.ts", 23, "sameSelection", "exact"),
        ("view/generic.ts", 9, "Holder.same", "exact"),
        ("view/generic.ts", 18, "check", "exact"),
        ("view/generic.ts", 22, "unbound", "name"),
    ]
    # `this.view.docView.nearestDesc()`: `view` a constructor's parameter property, `docView: NodeViewDesc`,
    # whose base declares the method
    assert callers(engine, "sym://typescript/type/view/desc/ViewDesc#nearestDesc") == [
        ("view/editor.ts", 18, "InputState.find", "exact"),
    ]


def test_a_cast_types_the_receiver(engine: trifecta.Engine) -> None:
    assert callers(engine, "sym://typescript/type/view/desc/NodeViewDesc#selectNode") == [
        ("view/editor.ts", 27, "select", "exact"),
    ]


def test_a_getter_read_through_a_chain_of_this_fields(engine: trifecta.Engine) -> None:
    # `this.input.view.domObserver.currentSelection.empty`: no call on that receiver types it, the class's
    # fields do, one after the other
    assert callers(engine, "sym://typescript/type/view/selection/SelectionState#empty") == [
        ("view/editor.ts", 34, "Tooltip.hidden", "exact"),
        ("view/generic.ts", 13, "Holder.idle", "exact"),
    ]


def test_a_type_parameter_is_read_as_its_constraint(engine: trifecta.Engine) -> None:
    # `Holder<V extends EditorView>` with `view: V`; `check<S extends SelectionState>(state: S)`; the
    # unconstrained `unbound<S>(state: S)` is matched by the name only
    found = {h[:3]: h[3] for h in callers(engine, "sym://typescript/type/view/selection/SelectionState#eq")}
    assert found[("view/generic.ts", 9, "Holder.same")] == "exact"
    assert found[("view/generic.ts", 18, "check")] == "exact"
    assert found[("view/generic.ts", 22, "unbound")] == "name"


def test_a_field_of_an_element_types_the_receiver(engine: trifecta.Engine) -> None:
    # `local[i].type.valid()` with `local: Decoration[]`; `prev.type.valid()` with `let prev = i ?
    # this.children[i - 1] : null` (the ternary's branch that holds a value) and `children: Decoration[]`
    assert callers(engine, "sym://typescript/type/view/decoration/DecorationType#valid") == [
        ("view/decoration.ts", 13, "validAll", "exact"),
        ("view/decoration.ts", 22, "Children.before", "exact"),
    ]
