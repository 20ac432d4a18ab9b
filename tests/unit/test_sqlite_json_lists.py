"""The symbol table's JSON lists (bases, decorators, parameters) decoded once per distinct text: a structural
set of hundreds of classes repeats `["Exception"]`."""

from __future__ import annotations

from trifecta.infrastructure.sqlite_store import _json_tuple


def test_a_stored_json_list_is_decoded_once_per_text() -> None:
    first = _json_tuple('["Exception", "Mixin"]')
    assert first == ("Exception", "Mixin")
    assert _json_tuple('["Exception", "Mixin"]') is first  # the same text: the decoded tuple again
    assert _json_tuple("[]") == () and _json_tuple('["a\\"b"]') == ('a"b',)
