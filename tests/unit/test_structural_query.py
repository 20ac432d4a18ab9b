"""Structural questions read into symbol-table filters (domain/structural_query.py)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trifecta.domain.structural_query import base_matches, decorator_matches, parse_structural


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        (
            "subclasses of argparse.Action",
            {"base": "Action", "base_qualifier": "argparse", "scope": ("argparse",)},
        ),
        (
            "classes in multiprocessing that extend popen_fork.Popen",
            {"base": "Popen", "scope": ("multiprocessing", "popen_fork")},
        ),
        ("@classmethod alternative constructors of tarfile.TarFile", {"decorator": "classmethod"}),
        ("properties that define a @<name>.setter", {"decorator": "*.setter"}),
        ("all async functions", {"is_async": True, "kinds": ("function",)}),
        ("all classmethods in dataclasses", {"decorator": "classmethod", "scope": ("dataclasses",)}),
        ("static methods of Path", {"decorator": "staticmethod", "scope": ("Path",)}),
        ("abstract methods of the Action class", {"decorator": "abstractmethod", "scope": ("Action",)}),
        (
            "métodos de clase de TarFile",
            {"decorator": "classmethod", "scope": ("TarFile",), "members_of": "TarFile"},
        ),
        (
            "subclasses of the Exception class in configparser",
            {"base": "Exception", "scope": ("configparser",)},
        ),
        ("which methods are decorated with @property in subprocess", {"decorator": "property"}),
        ("Action subclasses", {"base": "Action"}),
        ("where is the config loaded", {"base": "", "decorator": "", "is_async": False, "members_of": ""}),
        ("methods of the Thread class", {"members_of": "Thread", "kinds": ("class", "method")}),
        ("methods of threading.Thread", {"members_of": "Thread", "scope": ("threading", "Thread")}),
        ("Thread's methods", {"members_of": "Thread"}),
        ("métodos de la clase Thread", {"members_of": "Thread"}),
        ("methods of the deque class", {"members_of": "deque"}),
        ("all methods in json", {"members_of": "", "scope": ("json",)}),
        ("classmethods of tarfile.TarFile", {"decorator": "classmethod", "members_of": "TarFile"}),
        ("subclasses of the class Action", {"base": "Action", "members_of": ""}),
        ("pool classes that inherit directly from the base Pool class", {"base": "Pool"}),
        ("classes extending the abstract Handler", {"base": "Handler"}),
        ("subclasses of Base", {"base": "Base"}),  # a class named Base is not the word "base"
        ("classes that inherit from the base class", {"base": ""}),  # names no class
    ],
)
def test_reads_the_question(query: str, expected: dict[str, object]) -> None:
    parsed = parse_structural(query)
    for field, value in expected.items():
        assert getattr(parsed, field) == value, (field, parsed)


def test_matching_rules() -> None:
    assert base_matches("Action", ("argparse.Action",)) and base_matches("Action", ("_base.Action",))
    assert base_matches("Generic", ("Generic[T]",)) and not base_matches("Action", ("Actions",))
    assert decorator_matches("property", ("property",))
    assert decorator_matches("contextmanager", ("contextlib.contextmanager",))
    assert decorator_matches("*.setter", ("value.setter",)) and not decorator_matches(
        "*.setter", ("setter_x",)
    )
    assert decorator_matches("lru_cache", ("functools.lru_cache(maxsize=None)",))


@given(st.text(max_size=600))
def test_any_text_parses(query: str) -> None:
    parsed = parse_structural(query)
    assert parsed.has_filter == bool(
        parsed.base
        or parsed.decorator
        or parsed.is_async
        or parsed.members_of
        or parsed.returns
        or parsed.listing
    )
    assert not parsed.implements or parsed.base  # an implementation needs its interface or trait


def test_builtin_subclasses_come_from_the_interpreter() -> None:
    from trifecta.domain.structural_query import builtin_subclasses

    errors = builtin_subclasses("Exception")
    assert {"ValueError", "KeyError", "UnicodeDecodeError", "OSError"} <= errors
    assert "Exception" not in errors and "KeyboardInterrupt" not in errors  # not below Exception
    assert builtin_subclasses("ValueError") >= {"UnicodeError", "UnicodeDecodeError"}
    assert builtin_subclasses("Action") == frozenset() == builtin_subclasses("len")


def test_a_name_ending_in_an_underscore_is_not_the_verb_extend() -> None:
    sq = parse_structural("functions that set make_ and extend_ handlers")
    assert sq.base == ""


@pytest.mark.parametrize(
    ("query", "returns"),
    [
        ("Factory functions that create the Annotation objects", "Annotation"),
        ("methods that build a new Request", "Request"),
        ("funciones que crean un Thread", "Thread"),
    ],
)
def test_a_callable_that_creates_a_named_type_returns_it(query: str, returns: str) -> None:
    assert parse_structural(query).returns == returns


def test_creating_prose_or_without_a_callable_kind_is_no_result_type() -> None:
    assert parse_structural("methods that build the database tables").returns == ""
    assert parse_structural("how do we create the Request").returns == ""


def test_a_lowercase_word_before_the_named_trait_still_names_it() -> None:
    sq = parse_structural("Which schedulers implement the task Schedule trait?")
    assert (sq.base, sq.implements) == ("Schedule", True)
    assert parse_structural("how do we implement caching").base == ""


@pytest.mark.parametrize(
    ("query", "base", "implements", "scope"),
    [
        ("Which types implement godoc's vfs FileSystem interface?", "FileSystem", True, ("godoc", "vfs")),
        ("structs implementing net/http's Handler interface", "Handler", True, ("http", "net")),
        ("classes that extend the node EventEmitter class", "EventEmitter", False, ("node",)),
        ("classes that derive from json's JSONDecoder", "JSONDecoder", False, ("json",)),
        ("subclasses of dict", "dict", False, ()),
    ],
)
def test_words_before_the_named_base_say_where_it_is(
    query: str, base: str, implements: bool, scope: tuple[str, ...]
) -> None:
    sq = parse_structural(query)
    assert (sq.base, sq.implements, sq.scope) == (base, implements, scope)


@pytest.mark.parametrize(
    ("query", "described"),
    [
        ("subclasses of Field", False),
        ("which classes inherit from Field?", False),
        ("clases que heredan de Field", False),
        ("types implementing io.Reader in server", False),
        ("methods decorated with @functools.cache", False),
        ("exception classes that inherit directly from UsageError", True),
        ("built-in shell-specific subclasses of ShellComplete", True),
        ("structs that embed Logger and log requests", True),
    ],
)
def test_a_question_is_described_when_it_says_more_than_its_filters(query: str, described: bool) -> None:
    assert parse_structural(query).described is described


@pytest.mark.parametrize(
    ("query", "exceptions"),
    [
        ("properties that also define a @<name>.setter in subprocess's exception classes", True),
        ("error types in json", True),
        ("clases de excepción de subprocess", True),
        ("methods of the Thread class", False),
        ("subclasses of Exception in json", False),  # the base says it: no refinement needed
    ],
)
def test_a_question_may_ask_for_exception_classes(query: str, exceptions: bool) -> None:
    assert parse_structural(query).exceptions is exceptions


@pytest.mark.parametrize(
    "query",
    [
        "A property which is `True` for 1xx status codes, `False` otherwise.",
        "Returns True if the current name is defined in a stub file.",
        "Mixin class providing context manager functionality via a generator.",
        "Return None when the static method is missing",
        "Return the set of additional properties for the given ``instance``.",
        "Create an error message for extra items or properties.",
    ],
)
def test_a_description_of_one_definition_is_no_set(query: str) -> None:
    # a docstring's first sentence names one property or context manager, and "returns True" no result type
    sq = parse_structural(query)
    assert (sq.decorator, sq.returns) == ("", "")


def test_constructs_named_in_the_plural_are_a_set() -> None:
    assert parse_structural("which properties of Response are cached").decorator == "property"
    assert parse_structural("context managers in contextlib").decorator == "contextmanager"
    assert parse_structural("métodos de clase de TarFile").decorator == "classmethod"
    assert parse_structural("methods that return a *flag.FlagSet").returns == "FlagSet"


def test_async_is_a_set_only_when_named_in_the_plural() -> None:
    for query in ("async functions in the router", "async handlers", "coroutines in asyncio.tasks"):
        assert parse_structural(query).is_async, query
    assert parse_structural("funciones asíncronas del router").is_async
    for query in (
        "Create a new task from a coroutine object",
        "an async iterator over the lines",
        "Returns the async handlers registered for an event",
    ):
        assert not parse_structural(query).is_async, query


def test_a_participle_before_a_prose_word_is_an_adjective_not_a_relation() -> None:
    for query in (
        "How does a derived value decide whether it needs to recompute",
        "how are templates with embedded code highlighted",
        "where are inherited defaults merged",
    ):
        assert parse_structural(query).base == "", query
    assert parse_structural("classes derived from Exception").base == "Exception"
    assert parse_structural("structs with an embedded Mutex").base == "Mutex"  # a name: the Go embedding
    assert parse_structural("classes that inherit from dict").base == "dict"
