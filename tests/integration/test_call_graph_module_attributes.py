"""Python calls through a module's attribute that is another module (`os.path.normcase` where os.py binds
`path` by `import posixpath as path`), and a module's function read as a value (`map(os.path.normcase, ...)`,
`@functools.lru_cache`): a small tree written to a tmp folder, indexed into a real SQLite file through the
facade."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import trifecta

pytestmark = pytest.mark.timeout(120)

SOURCES = {
    "myos.py": """\
import sys

if sys.platform == "win32":
    import winpath as path
else:
    import unixpath as path


def lazy():
    import other as helpers  # inside a function: binds nothing of the module
    return helpers
""",
    "unixpath.py": """\
def normcase(s):
    return s
""",
    "winpath.py": """\
def normcase(s):
    return s.lower()
""",
    "other.py": """\
def normcase(s):
    return s
""",
    "tools.py": """\
def memo(function):
    return function
""",
    "accel.py": """\
def fast(x):
    return x


try:
    from _accel import fast
except ImportError:
    pass


class Worker:
    def run(self):
        return fast(1)


_py_fast = fast
""",
    "user.py": """\
import myos
import tools
from myos import path


def by_module(p):
    return myos.path.normcase(p)


def by_from_import(p):
    return path.normcase(p)


def as_value(names):
    return list(map(myos.path.normcase, names))


@tools.memo
def decorated():
    return myos.helpers.normcase("x")  # `helpers` is bound inside a function of myos: nothing sure


def shadowed(myos):
    return map(myos.path.normcase, [])  # a parameter, not the module
""",
}


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[trifecta.Engine]:
    repo = tmp_path_factory.mktemp("modattr")
    for path, text in SOURCES.items():
        (repo / path).write_text(text)
    with trifecta.open(repo) as e:
        e.index()
        yield e


def callers(engine: trifecta.Engine, uri: str) -> list[tuple[Any, ...]]:
    data = engine.callers(uri).to_dict()
    assert data["status"] == "ok", data["errors"]
    return sorted(
        (h["path"], h["line"], h["symbol"], h["resolution"], h["use"])
        for h in data["data"]["hits"]
        if h["resolution"] in ("exact", "import")
    )


def test_a_modules_attribute_bound_by_an_import_in_either_branch_reaches_each_modules_function(
    engine: trifecta.Engine,
) -> None:
    expected = [
        ("user.py", 7, "by_module", "import", "call"),
        ("user.py", 11, "by_from_import", "import", "call"),
        ("user.py", 15, "as_value", "import", "reference"),
    ]
    assert callers(engine, "sym://python/type/unixpath/normcase") == expected
    assert callers(engine, "sym://python/type/winpath/normcase") == expected
    # an import inside a function binds no attribute of the module
    assert callers(engine, "sym://python/type/other/normcase") == []


def test_a_decorator_read_from_a_module_is_a_use_of_the_function(engine: trifecta.Engine) -> None:
    assert callers(engine, "sym://python/type/tools/memo") == [
        ("user.py", 18, "decorated", "import", "reference")
    ]


def test_a_function_an_import_from_outside_may_replace_is_still_reached_by_the_modules_calls(
    engine: trifecta.Engine,
) -> None:
    assert callers(engine, "sym://python/type/accel/fast") == [
        ("accel.py", 13, "Worker.run", "exact", "call"),
        ("accel.py", 16, "", "exact", "reference"),
    ]
