"""Go callers the index resolves the way gopls' references do, over tests/fixtures/callgraph_go indexed into
a real SQLite file through the facade: receivers typed by the method's receiver, parameters, variables,
struct fields, what functions return and package-level variables of other files; a type's methods declared
in any file of its package; calls through an interface the type implements."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import trifecta

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "callgraph_go"
pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[trifecta.Engine]:
    repo = tmp_path_factory.mktemp("callgraph_go") / "repo"
    shutil.copytree(FIXTURE, repo)
    with trifecta.open(repo) as e:
        e.index()
        yield e


def hits(engine: trifecta.Engine, uri: str) -> list[dict[str, Any]]:
    data = engine.callers(uri).to_dict()
    assert data["status"] == "ok", data["errors"]
    return list(data["data"]["hits"])


def callers(engine: trifecta.Engine, uri: str) -> list[tuple[Any, ...]]:
    return [
        (h["path"], h["line"], h["symbol"], h["resolution"], h["callee"])
        for h in hits(engine, uri)
        if "related" not in h
    ]


def test_receivers_are_typed_by_receivers_parameters_variables_fields_and_returns(
    engine: trifecta.Engine,
) -> None:
    # shapes/use.go and main.go call `Area` on receivers typed every way; Circle's `Area` is another's
    assert callers(engine, "sym://go/type/shapes/shape/Square#Area") == [
        ("main.go", 7, "main", "exact", "s.Area"),  # s := sh.NewSquare(3), through the import's alias
        ("shapes/use.go", 10, "Square.Double", "exact", "s.Scale(2).Area"),  # what Scale returns
        ("shapes/use.go", 17, "Board.Fill", "exact", "b.main.Area"),  # a struct's field
        ("shapes/use.go", 23, "useDefault", "exact", "Default.Area"),  # a package variable of shape.go
    ]
    assert callers(engine, "sym://go/type/shapes/shape/Circle#Area") == [
        ("shapes/use.go", 29, "local", "exact", "c.Area"),  # var c Circle
        ("shapes/use.go", 31, "local", "exact", "y.Area"),  # y := &Circle{}
    ]


def test_a_types_methods_may_be_declared_in_any_file_of_its_package(engine: trifecta.Engine) -> None:
    # Square is declared in shape.go, Scale in use.go; `a, sq *Square` types both names
    assert callers(engine, "sym://go/type/shapes/use/Square#Scale") == [
        ("shapes/use.go", 10, "Square.Double", "exact", "s.Scale"),  # the method's receiver
        ("shapes/use.go", 21, "grow", "exact", "sq.Scale"),
    ]


def test_calls_through_an_interface_reach_the_types_that_implement_it(engine: trifecta.Engine) -> None:
    # `describe(sh Shape)` calls sh.Name() and sh.Area(): Square implements Shape, Circle (no Name) does not
    related = [
        (h["path"], h["line"], h["related"], h["reaches"], h["use"])
        for h in hits(engine, "sym://go/type/shapes/shape/Square#Name")
        if "related" in h
    ]
    assert related == [
        ("shapes/use.go", 19, "base", "Shape.Name", "call"),
        ("shapes/shape.go", 6, "base", "Shape.Name", "declaration"),
    ]
    assert ("shapes/use.go", 27, "local", "exact", "x.Name") in callers(
        engine, "sym://go/type/shapes/shape/Square#Name"
    )
    assert all("related" not in h for h in hits(engine, "sym://go/type/shapes/shape/Circle#Area"))


def test_functions_read_as_values_are_listed_with_the_calls(engine: trifecta.Engine) -> None:
    # `apply(areaOf)` and `{"area": areaOf}` in use.go; `grow := 2; _ = grow` is a variable, not `grow`
    assert [
        (h["path"], h["line"], h["symbol"], h["use"]) for h in hits(engine, "sym://go/type/shapes/use/areaOf")
    ] == [("shapes/use.go", 41, "table", "reference"), ("shapes/use.go", 44, "measure", "reference")]
    assert callers(engine, "sym://go/type/shapes/use/grow") == []


def test_the_modules_own_root_package_is_reached_through_its_import_path(engine: trifecta.Engine) -> None:
    # tool/go.mod declares `module example.com/geotool`: tool/cmd/run.go imports its root package by that
    # path, whose last part names no folder (the package is in tool/)
    assert callers(engine, "sym://go/type/tool/plot/New") == [
        ("tool/cmd/run.go", 6, "Run", "import", "geotool.New"),
    ]
    assert callers(engine, "sym://go/type/tool/plot/Plot#Draw") == [
        ("tool/cmd/run.go", 7, "Run", "exact", "p.Draw"),  # p *geotool.Plot
        ("tool/cmd/run.go", 7, "Run", "exact", "q.Draw"),  # q := geotool.New()
    ]


def test_range_values_elements_and_type_assertions_are_typed(engine: trifecta.Engine) -> None:
    # shapes/gallery.go: slices and maps typed by their elements (fields, parameters, results), a range's
    # value over each, an index's element, a type assertion's value
    assert callers(engine, "sym://go/type/shapes/gallery/Tile#Size") == [
        ("shapes/gallery.go", 17, "Gallery.Total", "exact", "t.Size"),  # range g.tiles (a field)
        ("shapes/gallery.go", 20, "Gallery.Total", "exact", "t.Size"),  # range g.byName (a map's values)
        ("shapes/gallery.go", 23, "Gallery.Total", "exact", "t.Size"),  # range g.Tiles() (a result)
        ("shapes/gallery.go", 26, "Gallery.Total", "exact", "t.Size"),  # range extra (a parameter)
        ("shapes/gallery.go", 28, "Gallery.Total", "exact", 'g.byName["unit"].Size'),
        ("shapes/gallery.go", 28, "Gallery.Total", "exact", "g.tiles[0].Size"),
        ("shapes/gallery.go", 33, "sizeOf", "exact", "t.Size"),  # t, ok := v.(*Tile)
    ]


def test_an_imported_named_type_of_any_kind_types_its_receivers(engine: trifecta.Engine) -> None:
    # `type Path []Square` in shapes/path.go, `p sh.Path` in walk/walk.go: a named slice has methods
    assert callers(engine, "sym://go/type/shapes/path/Path#First") == [
        ("walk/walk.go", 6, "Walk", "exact", "p.First"),
    ]
