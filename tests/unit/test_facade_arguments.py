"""Every public Engine method answers a wrong type or an out-of-range value with INVALID_ARGUMENT naming the
argument (never INTERNAL_ERROR, never an exception); `index()`, which answers an IndexReport, raises
InvalidArgument (a ValueError) before anything runs; a CodedError raised inside a method keeps its code."""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import trifecta
from trifecta.application.ports import CodedError
from trifecta.domain.contract import ErrorCode
from trifecta.interfaces.arguments import EXPECTED, InvalidArgument, problem
from trifecta.interfaces.facade import Engine

# a valid call of each method; the argument under test is replaced by a wrong value
VALID: dict[str, dict[str, Any]] = {
    "search": {"query": "parse"},
    "get": {"path": "mod.py"},
    "symbols": {"uri": "sym://python/mod/mod"},
    "snippet": {"uri": "sym://python/type/mod/parse"},
    "hover": {"uri": "sym://python/type/mod/parse"},
    "refs": {"uri": "sym://python/type/mod/parse"},
    "evaluate": {"queries": "questions.jsonl"},
    "stats": {},
    "status": {},
}

ANYTHING = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**12), max_value=10**12),
    st.floats(allow_nan=True),
    st.text(max_size=8),
    st.binary(max_size=8),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
    st.tuples(st.text(max_size=2)),
    st.just(object()),
)

CASES = [(method, name) for method, params in EXPECTED.items() for name in params if method in VALID]


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    segment = tmp_path_factory.mktemp("segment")
    (segment / "mod.py").write_text("def parse(line):\n    return line.split(':')\n", encoding="utf-8")
    with trifecta.open(str(segment)) as opened:
        yield opened


def test_every_public_method_has_its_arguments_described() -> None:
    for method in [*VALID, "index"]:
        params = [p for p in inspect.signature(getattr(Engine, method)).parameters if p != "self"]
        assert sorted(EXPECTED[method]) == sorted(params), method


@pytest.mark.timeout(120)
@pytest.mark.parametrize(("method", "name"), CASES)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_wrong_value_is_invalid_argument_naming_it(
    engine: Engine, method: str, name: str, data: Any
) -> None:
    expect = EXPECTED[method][name]
    wrong = data.draw(ANYTHING.filter(lambda v: not expect.test(v)))
    response = getattr(engine, method)(**{**VALID[method], name: wrong})
    assert [e.code for e in response.errors] == [ErrorCode.INVALID_ARGUMENT], response.to_dict()
    error = response.errors[0]
    assert error.data["argument"] == name and error.message.startswith(f"{name} must be {expect.phrase}")


@pytest.mark.parametrize(
    ("method", "kwargs", "argument"),
    [
        ("search", {"query": 123}, "query"),
        ("search", {"query": "x", "limit": "5"}, "limit"),
        ("search", {"query": "x", "limit": True}, "limit"),
        ("search", {"query": "x", "limit": 0}, "limit"),
        ("search", {"query": "x", "limit": -1}, "limit"),
        ("search", {"query": "x", "limit": 10**9}, "limit"),
        ("search", {"query": "x", "mode": "nope"}, "mode"),
        ("search", {"query": "x", "regex": "no"}, "regex"),
        ("search", {"query": "x", "lint": "no"}, "lint"),
        ("get", {"id": []}, "id"),
        ("get", {"path": b"x"}, "path"),
        ("symbols", {"uri": None}, "uri"),
        ("snippet", {"uri": 1}, "uri"),
        ("hover", {"uri": None}, "uri"),
        ("refs", {"uri": "sym://python/type/mod/parse", "limit": 10**9}, "limit"),
        ("evaluate", {"queries": None}, "queries"),
        ("evaluate", {"queries": "q.jsonl", "k": "10"}, "k"),
        ("stats", {"top": 0}, "top"),
    ],
)
def test_the_audits_wrong_calls_name_their_argument(
    engine: Engine, method: str, kwargs: dict[str, Any], argument: str
) -> None:
    response = getattr(engine, method)(**kwargs)
    assert response.errors[0].code is ErrorCode.INVALID_ARGUMENT
    assert response.errors[0].data["argument"] == argument
    assert response.errors[0].message.startswith(f"{argument} must be ")


def test_a_missing_or_unknown_argument_is_invalid_argument(engine: Engine) -> None:
    unknown = engine.search("x", limt=5)  # type: ignore[call-arg]
    missing = engine.symbols()  # type: ignore[call-arg]
    assert unknown.errors[0].code is ErrorCode.INVALID_ARGUMENT and "limt" in unknown.errors[0].message
    assert missing.errors[0].code is ErrorCode.INVALID_ARGUMENT and "uri" in missing.errors[0].message


def test_index_with_a_wrong_flag_raises_before_building_anything(tmp_path: Path) -> None:
    (tmp_path / "mod.py").write_text("def parse():\n    pass\n", encoding="utf-8")
    with trifecta.open(str(tmp_path)) as engine:
        for kwargs in ({"full": "no"}, {"full": 1}, {"progress": "bar"}, {"fulll": True}):
            with pytest.raises(InvalidArgument) as raised:
                engine.index(**kwargs)
            assert isinstance(raised.value, ValueError) and raised.value.code is ErrorCode.INVALID_ARGUMENT
        with pytest.raises(ValueError, match="full must be True or False, got 'no'"):
            engine.index(full="no")
        assert not engine.status().data["built_at"]  # full="no" did not run a (full) build
        assert engine.index(full=False).files_indexed == 1


def test_open_with_a_path_of_the_wrong_type_raises_invalid_argument() -> None:
    for path in (123, None, b"/tmp", ["."]):
        with pytest.raises(InvalidArgument, match="path must be a folder path"):
            trifecta.open(path)  # type: ignore[arg-type]


def test_a_coded_error_inside_a_method_keeps_its_code_and_data(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    class Refused(CodedError):
        code = ErrorCode.SECRET_FILE

    def refuse(request: object) -> None:
        raise Refused("mod.py looks like a secret", data={"reason": "private key"})

    monkeypatch.setattr(engine._app.get, "execute", refuse)
    response = engine.get(path="mod.py")
    assert response.to_dict()["errors"] == [
        {"code": "SECRET_FILE", "message": "mod.py looks like a secret", "data": {"reason": "private key"}}
    ]


def test_an_unexpected_exception_is_still_internal_error(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    def boom(request: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(engine._app.get, "execute", boom)
    response = engine.get(path="mod.py")
    assert (
        response.errors[0].code is ErrorCode.INTERNAL_ERROR
        and "RuntimeError: boom" in response.errors[0].message
    )


def test_problem_accepts_every_valid_call() -> None:
    def search(self: object, query: str, limit: int = 10, mode: str = "auto") -> None: ...

    signature = inspect.signature(search)
    assert problem("search", signature, (None, "q"), {"limit": 200, "mode": "hybrid"}) is None
    wrong = problem("search", signature, (None, "q"), {"limit": 201})
    assert wrong is not None and wrong.data == {
        "argument": "limit",
        "expected": "an integer from 1 to 200",
        "got": "int",
    }


@pytest.mark.timeout(120)
@pytest.mark.parametrize("name", ["progress", "full"])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_index_raises_invalid_argument_for_any_wrong_value(engine: Engine, name: str, data: Any) -> None:
    expect = EXPECTED["index"][name]
    wrong = data.draw(ANYTHING.filter(lambda v: not expect.test(v)))
    with pytest.raises(InvalidArgument, match=f"^{name} must be "):
        engine.index(**{name: wrong})
