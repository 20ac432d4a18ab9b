"""Python receivers typed through class-body fields, fields annotated in a method, a variable's field, a local
that shadows an import (one a function makes, or another function's import), and bare calls that never reach
the class: a small package written to a tmp folder, indexed into a real SQLite file through the facade."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import trifecta

pytestmark = pytest.mark.timeout(120)

SOURCES = {
    "pkg/__init__.py": "",
    "pkg/model.py": """\
from typing import NamedTuple


class Flags:
    def unset_all(self, key):
        return key


class Impl:
    def create(self):
        return 1


class Output(NamedTuple):
    data: dict
    flags: Flags


class Document:
    implementation = Impl()
    flags: Flags

    def clone(self):
        return self.implementation.create()

    def clear(self):
        self.flags.unset_all("k")


def parse(out: Output):
    out.flags.unset_all("x")
    return out


def wrong(out: Output):
    out.data.unset_all("x")  # a field of no known class: reaches nothing for sure
""",
    "pkg/tool.py": """\
class Tool:
    def interaction(self):
        return 1

    def dup(self):
        return dup(self)  # the module's (a star import's) dup, never the method


def main():
    tool = Tool()
    tool.interaction()


if __name__ == "__main__":
    import tool
    tool.main()
""",
    "pkg/runner.py": """\
from typing import Optional


class Task:
    def uncancel(self):
        return 0


class Timeout:
    def __init__(self):
        self._task: Optional[Task] = None

    def start(self, make):
        self._task = make()

    def stop(self):
        return self._task.uncancel()
""",
    "pkg/shapes.py": """\
class Shape:
    def area(self):
        return 0


class Square(Shape):
    def side(self):
        return 1


class Circle(Shape):
    def radius(self):
        return 1


def describe(shape):
    if isinstance(shape, Square):
        return shape.side()
    elif isinstance(shape, (Circle, Square)):
        return shape.area()
    return shape.radius()


def checked(shape):
    assert isinstance(shape, Circle)
    return shape.radius()


def guarded(shape):
    if not isinstance(shape, Square):
        raise TypeError(shape)
    return shape.side()


class Box(Shape):
    def grown(self, k):
        return self

    def volume(self):
        return 1


def chained(shape):
    if isinstance(shape, Box):
        return shape.grown(2).volume()
""",
    "pkg/paths.py": """\
class PurePath:
    @classmethod
    def _make(cls, parts):
        self = object.__new__(cls)
        return self

    @property
    def parent(self):
        if not self:
            return self
        return self._make(1)


class Path(PurePath):
    def stat(self):
        return 1

    def is_mount(self):
        return self.parent.stat()
""",
    "pkg/loading.py": """\
class Loader:
    def load_names(self, names):
        return names


default_loader = Loader()
""",
    "pkg/program.py": """\
from pkg import loading


class Program:
    def __init__(self, loader=loading.default_loader):
        self.loader = loader

    def run(self):
        return self.loader.load_names(["a"])
""",
    "pkg/dom.py": """\
class Implementation:
    def create_document(self):
        return 1


class Document:
    implementation = Implementation()


def get_implementation():
    return Document.implementation


theImplementation = get_implementation()


def build():
    return theImplementation.create_document()
""",
    "pkg/debug.py": """\
class Debugger:
    def set_trace(self):
        return 1


def set_trace():
    debug = Debugger()
    debug.set_trace()


def main():
    from pkg import debug
    debug.set_trace()


if __name__ == "__main__":
    from pkg import debug
    debug.main()
""",
}


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[trifecta.Engine]:
    repo = tmp_path_factory.mktemp("fields") / "repo"
    for path, text in SOURCES.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
    with trifecta.open(repo) as e:
        e.index()
        yield e


def callers(engine: trifecta.Engine, uri: str) -> list[tuple[Any, ...]]:
    data = engine.callers(uri).to_dict()
    assert data["status"] == "ok", data["errors"]
    return [
        (h["path"], h["line"], h["symbol"], h["resolution"])
        for h in data["data"]["hits"]
        if h["use"] == "call" and h["resolution"] in ("exact", "import")
    ]


def test_fields_typed_in_the_class_body_and_a_typed_variables_field_reach_the_method(
    engine: trifecta.Engine,
) -> None:
    assert callers(engine, "sym://python/type/pkg/model/Flags#unset_all") == [
        ("pkg/model.py", 27, "Document.clear", "exact"),  # `flags: Flags` in the class body
        ("pkg/model.py", 31, "parse", "exact"),  # out: Output, Output's `flags: Flags`
    ]
    assert callers(engine, "sym://python/type/pkg/model/Impl#create") == [
        ("pkg/model.py", 24, "Document.clone", "exact"),  # `implementation = Impl()` in the class body
    ]


def test_a_local_that_shadows_an_import_is_typed_and_a_bare_call_never_reaches_the_method(
    engine: trifecta.Engine,
) -> None:
    assert callers(engine, "sym://python/type/pkg/tool/Tool#interaction") == [
        ("pkg/tool.py", 11, "main", "exact"),  # `import tool` binds the name too: it has no `interaction`
    ]
    assert callers(engine, "sym://python/type/pkg/tool/Tool#dup") == []
    assert engine.definition("pkg/tool.py", 6).to_dict()["data"]["resolution"] != "exact"


def test_a_field_annotated_in_a_method_is_typed_by_its_annotation(engine: trifecta.Engine) -> None:
    # `self._task: Optional[Task] = None` in `__init__`, then `self._task = make()` of no known class
    assert callers(engine, "sym://python/type/pkg/runner/Task#uncancel") == [
        ("pkg/runner.py", 17, "Timeout.stop", "exact"),
    ]


def test_a_typed_local_shadows_an_import_of_its_name(engine: trifecta.Engine) -> None:
    # neither `main()`'s `from pkg import debug` nor the module's (under `if __name__ == "__main__":`) is the
    # `debug` that `set_trace()` makes: a `Debugger`
    assert callers(engine, "sym://python/type/pkg/debug/Debugger#set_trace") == [
        ("pkg/debug.py", 8, "set_trace", "exact"),
    ]
    assert callers(engine, "sym://python/type/pkg/debug/set_trace") == [
        ("pkg/debug.py", 13, "main", "import"),
    ]


def test_an_isinstance_test_types_the_name_where_it_holds(engine: trifecta.Engine) -> None:
    # the `if` body, an `assert isinstance`, and what follows `if not isinstance(...): raise`
    assert callers(engine, "sym://python/type/pkg/shapes/Square#side") == [
        ("pkg/shapes.py", 18, "describe", "exact"),
        ("pkg/shapes.py", 32, "guarded", "exact"),
    ]
    assert callers(engine, "sym://python/type/pkg/shapes/Shape#area") == [
        ("pkg/shapes.py", 20, "describe", "exact"),  # `(Circle, Square)`: both inherit it
    ]
    assert callers(engine, "sym://python/type/pkg/shapes/Box#volume") == [
        ("pkg/shapes.py", 45, "chained", "exact"),  # what a method of the narrowed name returns
    ]
    # line 21 is outside every test: `shape` is of no known class there
    assert callers(engine, "sym://python/type/pkg/shapes/Circle#radius") == [
        ("pkg/shapes.py", 26, "checked", "exact"),
    ]


def test_a_property_that_returns_self_is_of_the_class_it_is_read_on(engine: trifecta.Engine) -> None:
    # `parent` returns `self` or `self._make()` (a classmethod's `return self`): on a Path, a Path
    assert callers(engine, "sym://python/type/pkg/paths/Path#stat") == [
        ("pkg/paths.py", 19, "Path.is_mount", "exact"),
    ]


def test_a_parameter_defaulting_to_another_modules_variable_is_typed_by_it(engine: trifecta.Engine) -> None:
    # `loader=loading.default_loader`, with `default_loader = Loader()` in pkg/loading.py
    assert callers(engine, "sym://python/type/pkg/loading/Loader#load_names") == [
        ("pkg/program.py", 9, "Program.run", "exact"),
    ]


def test_a_function_returning_a_class_attribute_returns_what_the_attribute_holds(
    engine: trifecta.Engine,
) -> None:
    # `return Document.implementation`, with `implementation = Implementation()` in Document's body
    assert callers(engine, "sym://python/type/pkg/dom/Implementation#create_document") == [
        ("pkg/dom.py", 18, "build", "exact"),
    ]
