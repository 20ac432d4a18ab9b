"""Python calls through what a module-level variable, a class attribute, `a or b()` and a returned tuple
hold: `from loaders import cdll; cdll.load()` (`cdll = Loader(Lib)` in loaders.py), `class Task(futures.
_PyFuture)` (`_PyFuture = Future`), `self.response_class(...)` (`response_class = Response`), `d = self._d
or self._make()`, `p, u = getparser()`: a small tree written to a tmp folder, indexed into a real SQLite
file through the facade."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import trifecta

pytestmark = pytest.mark.timeout(120)

SOURCES = {
    "loaders.py": """\
class Lib:
    pass


class Loader:
    def load(self, name):
        return name


def make_loader():
    return Loader()


cdll = Loader(Lib)
made = make_loader()
maybe = None or Loader()
count = len([])
""",
    "futures.py": """\
class Future:
    def cancel(self):
        return True


_PyFuture = Future
""",
    "tasks.py": """\
import futures
import loaders
from loaders import cdll


class Task(futures._PyFuture):
    def cancel(self):
        return super().cancel()


def by_from_import():
    return cdll.load("m")


def by_module():
    return loaders.cdll.load("m")


def through_a_call():
    return loaders.made.load("m")


def through_either_side():
    return loaders.maybe.load("m")


def not_a_loader():
    return loaders.count.load("m")  # an int: nothing sure


def by_late_import():
    from loaders import cdll as lib

    return lib.load("m")
""",
    "local.py": """\
class _Base:
    def run(self):
        return 1


Base = _Base


class Worker(Base):
    def go(self):
        return super().run()
""",
    "http.py": """\
class Response:
    def close(self):
        pass


class Other:
    def close(self):
        pass


class Connection:
    response_class = Response

    def get(self):
        response = self.response_class()
        response.close()


class Quiet(Connection):
    def get(self):
        response = self.response_class()
        response.close()


class Runner:
    result_class = Response

    def __init__(self, result_class=None):
        if result_class is not None:
            self.result_class = result_class  # may replace the class attribute: nothing sure

    def run(self):
        result = self.result_class()
        result.close()
""",
    "pyio.py": """\
class Decoder:
    def getstate(self):
        return 0


class Wrapper:
    def __init__(self):
        self._decoder = None

    def _get_decoder(self):
        return Decoder()

    def tell(self):
        decoder = self._decoder or self._get_decoder()
        return decoder.getstate()

    def seek(self, flag):
        decoder = self._get_decoder() if flag else None
        return decoder.getstate()
""",
    "rpc.py": """\
class Parser:
    def feed(self, data):
        pass


class Unmarshaller:
    def close(self):
        pass


class Annotated:
    def feed(self, data):
        pass


def getparser():
    target = Unmarshaller()
    parser = Parser()
    return parser, target


def annotated() -> tuple[Annotated, Unmarshaller]:
    return make()


class Transport:
    def getparser(self):
        return getparser()

    def parse(self, data):
        p, u = self.getparser()
        p.feed(data)
        u.close()


def loads(data):
    p, u = getparser()
    p.feed(data)
    a, b = annotated()
    a.feed(data)
    x, y = Parser(), Unmarshaller()
    x.feed(data)
    y.close()
""",
    "aio/__init__.py": "",
    "aio/base_futures.py": """\
class Future:
    def cancel(self):
        return True


_PyFuture = Future
""",
    "aio/tasks.py": """\
from . import base_futures


class Task(base_futures._PyFuture):
    def cancel(self):
        return super().cancel()
""",
    "sel.py": """\
import os


class Epoll:
    def select(self):
        pass


class Kqueue:
    def select(self):
        pass


class Poll:
    def select(self):
        pass


class Select:
    def select(self):
        pass


if hasattr(os, "kqueue"):
    Default = Kqueue
elif hasattr(os, "epoll"):
    Default = Epoll
elif hasattr(os, "poll"):
    Default = Poll
else:
    Default = Select
""",
    "serve.py": """\
from sel import Default


def serve():
    Default().select()
""",
    "tel.py": """\
import sel

if hasattr(sel, "poll"):
    _Selector = sel.Poll
else:
    _Selector = sel.Select


def wait():
    _Selector().select()
""",
    "tar.py": """\
class Info:
    def isdir(self):
        return False

    @classmethod
    def frombuf(cls, buf):
        obj = cls()
        if obj.isdir():
            pass
        return obj

    @classmethod
    def fromfile(cls, f):
        obj = cls.frombuf(f)
        return obj.isdir()


class Meta(type):
    def isdir(cls):
        return True

    def make(cls):
        obj = cls()
        return obj.isdir()  # an instance of the class Meta makes, not a Meta: nothing sure
""",
    "server.py": """\
def start():
    class DocServer:
        def serve(self):
            pass

    class Thread:
        def run(self):
            docsvr = DocServer()
            docsvr.serve()

    return Thread
""",
    "pkg/__init__.py": "",
    "pkg/support.py": """\
def check(x):
    return x
""",
    "suite.py": """\
from pkg import support


def test(case):
    case.assertRaises(ValueError, support.check, 1)


class Saver:
    def save(self):
        self.saved = support.check
""",
    "stack.py": """\
class Summary:
    def format(self):
        return []

    @classmethod
    def extract(klass, frames):
        result = klass()
        return result


def extract_tb(tb):
    return Summary.extract(tb)


def format_tb(tb):
    return extract_tb(tb).format()
""",
    "selfret.py": """\
class Base:
    def __enter__(self):
        return self

    def select(self):
        pass

    def copy(self) -> "Self":
        return self


class Poll(Base):
    def select(self):
        pass


def run():
    with Poll() as s:
        s.select()


def run_base():
    with Base() as s:
        s.select()


def copied():
    p = Poll()
    p.copy().select()
""",
    "walker.py": """\
class Selector:
    def select_from(self, path):
        return path


class Wild:
    def __init__(self):
        self.successor = Selector()

    def select_from(self, path):
        successor_select = self.successor.select_from
        return successor_select(path)
""",
}


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[trifecta.Engine]:
    repo = tmp_path_factory.mktemp("modvars")
    for path, text in SOURCES.items():
        (repo / path).parent.mkdir(exist_ok=True)
        (repo / path).write_text(text)
    with trifecta.open(repo) as e:
        e.index()
        yield e


def callers(engine: trifecta.Engine, uri: str) -> list[tuple[Any, ...]]:
    data = engine.callers(uri).to_dict()
    assert data["status"] == "ok", data["errors"]
    return sorted(
        (h["path"], h["line"], h["symbol"], h["resolution"])
        for h in data["data"]["hits"]
        if h["resolution"] in ("exact", "import") and "related" not in h
    )


def test_a_method_called_on_another_modules_variable_is_reached_through_the_variables_class(
    engine: trifecta.Engine,
) -> None:
    assert callers(engine, "sym://python/type/loaders/Loader#load") == [
        ("tasks.py", 12, "by_from_import", "import"),
        ("tasks.py", 16, "by_module", "import"),
        ("tasks.py", 20, "through_a_call", "import"),
        ("tasks.py", 24, "through_either_side", "import"),
        ("tasks.py", 34, "by_late_import", "import"),
    ]


def test_a_call_on_a_variable_of_no_known_class_stays_unsure(engine: trifecta.Engine) -> None:
    data = engine.callers("sym://python/type/loaders/Loader#load").to_dict()
    lines = {(h["line"], h["resolution"]) for h in data["data"]["hits"] if h["path"] == "tasks.py"}
    assert (28, "exact") not in lines and (28, "import") not in lines


def test_a_class_alias_of_another_module_is_a_base(engine: trifecta.Engine) -> None:
    assert callers(engine, "sym://python/type/futures/Future#cancel") == [
        ("tasks.py", 8, "Task.cancel", "exact")
    ]


def test_a_class_alias_of_a_module_of_the_package_is_a_base(engine: trifecta.Engine) -> None:
    assert callers(engine, "sym://python/type/aio/base_futures/Future#cancel") == [
        ("aio/tasks.py", 6, "Task.cancel", "exact")
    ]  # `from . import base_futures; class Task(base_futures._PyFuture)`


def test_a_class_alias_bound_in_many_branches_is_each_class(engine: trifecta.Engine) -> None:
    for cls in ("Epoll", "Kqueue"):
        assert callers(engine, f"sym://python/type/sel/{cls}#select") == [("serve.py", 5, "serve", "exact")]
    for cls in ("Poll", "Select"):  # `_Selector = sel.Poll` / `sel.Select`: another module's class
        assert callers(engine, f"sym://python/type/sel/{cls}#select") == [
            ("serve.py", 5, "serve", "exact"),
            ("tel.py", 10, "wait", "exact"),
        ]


def test_a_class_alias_of_the_same_module_is_a_base(engine: trifecta.Engine) -> None:
    assert callers(engine, "sym://python/type/local/_Base#run") == [("local.py", 11, "Worker.go", "exact")]


def test_a_class_held_in_a_class_attribute_types_what_calling_it_makes(engine: trifecta.Engine) -> None:
    assert callers(engine, "sym://python/type/http/Response#close") == [
        ("http.py", 16, "Connection.get", "exact"),
        ("http.py", 22, "Quiet.get", "exact"),  # the attribute a base class assigns
    ]  # not Runner.run's: its __init__ may set `self.result_class` to another class
    assert callers(engine, "sym://python/type/http/Other#close") == []


def test_either_side_of_or_and_of_a_conditional_types_the_variable(engine: trifecta.Engine) -> None:
    assert callers(engine, "sym://python/type/pyio/Decoder#getstate") == [
        ("pyio.py", 15, "Wrapper.tell", "exact"),
        ("pyio.py", 19, "Wrapper.seek", "exact"),
    ]


def test_names_unpacked_from_a_returned_tuple_take_each_items_class(engine: trifecta.Engine) -> None:
    assert callers(engine, "sym://python/type/rpc/Parser#feed") == [
        ("rpc.py", 32, "Transport.parse", "exact"),  # through a method that returns getparser()
        ("rpc.py", 38, "loads", "exact"),
        ("rpc.py", 42, "loads", "exact"),  # x, y = Parser(), Unmarshaller()
    ]
    assert callers(engine, "sym://python/type/rpc/Unmarshaller#close") == [
        ("rpc.py", 33, "Transport.parse", "exact"),
        ("rpc.py", 43, "loads", "exact"),
    ]
    assert callers(engine, "sym://python/type/rpc/Annotated#feed") == [("rpc.py", 40, "loads", "exact")]


def test_what_cls_makes_in_a_classmethod_is_the_class(engine: trifecta.Engine) -> None:
    assert callers(engine, "sym://python/type/tar/Info#isdir") == [
        ("tar.py", 8, "Info.frombuf", "exact"),
        ("tar.py", 15, "Info.fromfile", "exact"),  # frombuf returns what cls() made
    ]
    # a metaclass's cls() makes an instance of the class, not of the metaclass
    assert callers(engine, "sym://python/type/tar/Meta#isdir") == []


def test_a_class_of_an_enclosing_function_types_a_variable_of_a_method_inside_it(
    engine: trifecta.Engine,
) -> None:
    assert callers(engine, "sym://python/type/server/start#DocServer.serve") == [
        ("server.py", 9, "start.Thread.run", "exact")
    ]


def test_a_function_passed_from_a_module_a_from_import_binds_is_a_reference(engine: trifecta.Engine) -> None:
    data = engine.callers("sym://python/type/pkg/support/check").to_dict()
    assert [(h["path"], h["line"], h["resolution"], h["use"]) for h in data["data"]["hits"]] == [
        ("suite.py", 5, "import", "reference"),
        ("suite.py", 10, "import", "reference"),  # `self.saved = support.check`
    ]


def test_what_a_classmethods_first_parameter_makes_is_the_class(engine: trifecta.Engine) -> None:
    assert callers(engine, "sym://python/type/stack/Summary#format") == [
        ("stack.py", 16, "format_tb", "exact")
    ]


def test_a_method_read_from_a_field_typed_in_the_class_is_a_reference(engine: trifecta.Engine) -> None:
    data = engine.callers("sym://python/type/walker/Selector#select_from").to_dict()
    assert [(h["path"], h["line"], h["symbol"], h["resolution"], h["use"]) for h in data["data"]["hits"]] == [
        ("walker.py", 11, "Wild.select_from", "exact", "reference")
    ]


def test_what_return_self_gives_is_the_class_the_method_is_called_on(engine: trifecta.Engine) -> None:
    assert callers(engine, "sym://python/type/selfret/Poll#select") == [
        ("selfret.py", 19, "run", "exact"),  # `with Poll() as s`: Base.__enter__ returns the Poll
        ("selfret.py", 29, "copied", "exact"),  # `-> Self`
    ]
    assert callers(engine, "sym://python/type/selfret/Base#select") == [
        ("selfret.py", 24, "run_base", "exact")
    ]
