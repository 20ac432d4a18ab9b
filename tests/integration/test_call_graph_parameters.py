"""Python receivers that are untyped parameters, typed by what the calls of their function pass (one level),
a field set from one in ``__init__``, and a property or getter returning such a field: a small package
written to a tmp folder, indexed into a real SQLite file through the facade."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import trifecta
from trifecta.domain.calls import EdgeKind
from trifecta.infrastructure.python_parser import parse_python

pytestmark = pytest.mark.timeout(120)

SOURCES = {
    "pkg/__init__.py": "",
    "pkg/opts.py": """\
class Parser:
    def set_table(self, table):
        return table


class Other:
    def set_table(self, table):
        return table


class A:
    def go(self):
        return 1


class B(A):
    pass


class C(A):
    pass


class D(A):
    pass


class E(A):
    pass


default_parser = Parser()
""",
    "pkg/dist.py": """\
from .opts import Parser, B, C, D, E, default_parser


class Dist:
    def parse(self):
        parser = Parser()
        self._parse_opts(parser, [])
        show(table=[], parser=parser)

    def _parse_opts(self, parser, args):
        parser.set_table(args)  # 11: typed by parse()'s call, by position


def show(parser, table):
    parser.set_table(table)  # 15: typed by the keyword


class Wrapper:
    def __init__(self, buffer):
        self._buffer = buffer

    @property
    def buffer(self):
        return self._buffer

    def get_buffer(self):
        return self._buffer

    def write(self):
        self._buffer.set_table(1)  # 30: the field set from `__init__`'s parameter
        self.buffer.set_table(2)  # 31: the property returning it
        self.get_buffer().set_table(3)  # 32: a method returning it


def make():
    return Wrapper(Parser())


def unknown(thing):
    thing.set_table(0)  # 40: its only call passes an argument of no known class


def many(x):
    x.go()  # 44: its calls pass four classes: too many to be sure


def outer(p):
    inner(p)  # passes its own parameter: not followed (one level)


def inner(q):
    q.set_table(4)  # 52


def run(data):
    unknown(data)
    many(B())
    many(C())
    many(D())
    many(E())
    outer(Parser())


class Message:
    def __init__(self, policy=default_parser):
        self.policy = policy

    def store(self):
        self.policy.set_table(5)  # 69: the default, a variable another module types


def fold(policy=Parser()):
    policy.set_table(6)  # 73: the default, a constructor call
""",
    "pkg/made.py": """\
class Lookup:
    @classmethod
    def make(cls, source):
        return cls(source)

    def __init__(self, source):
        self.source = source

    def names(self):
        return []


class FastLookup(Lookup):
    def names(self):
        return [1]


def run(root):
    return FastLookup.make(root).names()  # 19: the class `make` is called on, not the one defining it
""",
    "pkg/use.py": """\
from .dist import show
from .opts import Other


def elsewhere():
    show(Other(), [])  # another module's call: `show`'s parameter may be an Other too
""",
}


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[trifecta.Engine]:
    repo = tmp_path_factory.mktemp("parameters") / "repo"
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
        (h["path"], h["line"], h["symbol"])
        for h in data["data"]["hits"]
        if h["use"] == "call" and h["resolution"] in ("exact", "import") and "related" not in h
    ]


def test_a_parameter_is_typed_by_what_its_calls_pass_by_position_or_keyword(engine: trifecta.Engine) -> None:
    found = callers(engine, "sym://python/type/pkg/opts/Parser#set_table")
    assert ("pkg/dist.py", 11, "Dist._parse_opts") in found  # `self._parse_opts(parser, [])`
    assert ("pkg/dist.py", 15, "show") in found  # `show(table=[], parser=parser)`
    # `show(Other(), [])` in another module: both classes (a small union)
    assert ("pkg/dist.py", 15, "show") in callers(engine, "sym://python/type/pkg/opts/Other#set_table")
    assert ("pkg/dist.py", 11, "Dist._parse_opts") not in callers(
        engine, "sym://python/type/pkg/opts/Other#set_table"
    )


def test_a_field_set_from_a_parameter_in_init_and_a_property_returning_it(engine: trifecta.Engine) -> None:
    found = callers(engine, "sym://python/type/pkg/opts/Parser#set_table")
    assert ("pkg/dist.py", 30, "Wrapper.write") in found  # `Wrapper(Parser())`
    assert ("pkg/dist.py", 31, "Wrapper.write") in found  # `@property def buffer`
    assert ("pkg/dist.py", 32, "Wrapper.write") in found  # `def get_buffer(self): return self._buffer`
    assert ("pkg/dist.py", 30, "Wrapper.write") not in callers(
        engine, "sym://python/type/pkg/opts/Other#set_table"
    )


def test_a_parameters_default_value_types_it_too(engine: trifecta.Engine) -> None:
    found = callers(engine, "sym://python/type/pkg/opts/Parser#set_table")
    assert ("pkg/dist.py", 69, "Message.store") in found  # `policy=default_parser`, `Parser()` in opts
    assert ("pkg/dist.py", 73, "fold") in found  # `policy=Parser()`


def test_a_classmethod_returning_cls_gives_the_class_it_is_called_on(engine: trifecta.Engine) -> None:
    assert callers(engine, "sym://python/type/pkg/made/FastLookup#names") == [("pkg/made.py", 19, "run")]
    assert callers(engine, "sym://python/type/pkg/made/Lookup#names") == []


def test_unknown_arguments_too_many_classes_and_a_second_level_stay_unsure(engine: trifecta.Engine) -> None:
    lines = {line for _, line, _ in callers(engine, "sym://python/type/pkg/opts/Parser#set_table")}
    assert 40 not in lines  # `unknown(data)`: nothing known is passed
    assert 52 not in lines  # `inner(p)` passes outer's parameter: one level only
    assert callers(engine, "sym://python/type/pkg/opts/A#go") == []  # B, C, D, E: more than 3 classes
    hit = next(
        h
        for h in engine.callers("sym://python/type/pkg/opts/A#go").to_dict()["data"]["hits"]
        if h["line"] == 44
    )
    assert hit["resolution"] == "name"


def test_the_walk_records_typed_arguments_and_untyped_parameters_as_receivers() -> None:
    edges = parse_python("pkg/dist.py", SOURCES["pkg/dist.py"]).edge_list()
    passed = {(e.line, e.name, e.alias, e.text) for e in edges if e.kind is EdgeKind.ARGUMENT}
    assert (7, "_parse_opts", "0", "Parser") in passed  # a typed variable, by position
    assert (8, "show", "=parser", "Parser") in passed  # by keyword
    assert (36, "Wrapper", "0", "Parser") in passed  # a constructor call
    assert not any(line in (48, 56) for line, *_ in passed)  # a parameter, an argument of no known class
    receivers = {e.line: e.alias for e in edges if e.kind is EdgeKind.CALL and e.name == "set_table"}
    other = parse_python(
        "pkg/x.py", "def f(p=1, q=None, *, r=len([])):\n    p.m(); q.m(); r.m()\n"
    ).edge_list()
    assert [e.alias for e in other if e.kind is EdgeKind.CALL and e.name == "m"] == [
        "(param)f:p@0",
        "(param)f:q@1",
        "(param)f:r",
    ]
    assert receivers[11] == "(param)Dist._parse_opts:parser@0"
    assert receivers[30] == "(param)Wrapper.__init__:buffer@0"  # the field set from it
