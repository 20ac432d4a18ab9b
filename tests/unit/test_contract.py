from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from trifecta.domain.contract import SCHEMA_VERSION, Error, ErrorCode, Notice, Ref, Response, WarningCode


def test_ok_envelope_shape() -> None:
    r = Response.success(
        "snippet", {"uri": "sym://python/mod/a", "n": (1, 2)}, next_actions=["ast symbols x"]
    )
    assert r.to_dict() == {
        "schema_version": SCHEMA_VERSION,
        "status": "ok",
        "kind": "snippet",
        "data": {"uri": "sym://python/mod/a", "n": [1, 2]},
        "refs": [],
        "errors": [],
        "next_actions": ["ast symbols x"],
    }


def test_error_envelope_and_round_trip() -> None:
    r = Response.failure(
        "snippet", ErrorCode.AMBIGUOUS_SYMBOL, "2 files match", error_data={"candidates": [{"sym": "s"}]}
    )
    d = r.to_dict()
    assert d["status"] == "error" and d["errors"][0] == {
        "code": "AMBIGUOUS_SYMBOL",
        "message": "2 files match",
        "data": {"candidates": [{"sym": "s"}]},
    }
    assert Response.from_dict(json.loads(json.dumps(d))) == r


codes = st.sampled_from(list(ErrorCode))
errors = st.builds(Error, code=codes, message=st.text(max_size=20))
refs = st.builds(Ref, kind=st.text(max_size=5), uri=st.text(max_size=20))


@given(st.lists(errors, max_size=3), st.lists(refs, max_size=3), st.lists(st.text(max_size=10), max_size=3))
def test_status_is_error_iff_errors(errs: list[Error], rs: list[Ref], actions: list[str]) -> None:
    r = Response(kind="k", data={"x": 1}, refs=rs, errors=errs, next_actions=actions)
    d = r.to_dict()
    assert (d["status"] == "error") == bool(errs)
    assert Response.from_dict(json.loads(json.dumps(d))) == r


def test_warnings_appear_only_when_present_and_round_trip() -> None:
    plain = Response.success("search", {"hits": []})
    assert "warnings" not in plain.to_dict()
    assert plain.with_warnings([]) is plain
    note = Notice(code=WarningCode.INDEX_READ_ONLY, message="searched read-only", data={"path": "x.db"})
    warned = plain.with_warnings([note])
    raw = json.loads(json.dumps(warned.to_dict()))
    assert raw["status"] == "ok"
    assert raw["warnings"] == [
        {"code": "INDEX_READ_ONLY", "message": "searched read-only", "data": {"path": "x.db"}}
    ]
    assert Response.from_dict(raw) == warned
