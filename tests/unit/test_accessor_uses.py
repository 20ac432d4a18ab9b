"""Accessors (Python properties, TypeScript get/set) and the receivers of their uses, read from source text."""

from __future__ import annotations

import pytest

from trifecta.domain.calls import accessor_receiver, accessor_uses, is_accessor
from trifecta.domain.code import Symbol, SymbolKind


def method(signature: str, decorators: tuple[str, ...] = ()) -> Symbol:
    return Symbol(
        name="size", qualname="Box.size", kind=SymbolKind.METHOD, start_line=1, end_line=2, def_line=1,
        signature=signature, decorators=decorators,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("signature", "decorators", "expected"),
    [
        ("def size(self)", ("property",), True),
        ("def size(self, v)", ("size.setter",), True),
        ("def size(self)", ("functools.cached_property",), True),
        ("def size(self)", ("staticmethod",), False),
        ("get size(): number", (), True),
        ("public static set size(v: number)", (), True),
        ("get(key: K): V", (), False),  # a method named get
        ("getSize(): number", (), False),
    ],
)
def test_an_accessor_is_a_property_or_a_get_set_method(
    signature: str, decorators: tuple, expected: bool
) -> None:
    assert is_accessor(method(signature, decorators)) is expected


@pytest.mark.parametrize(
    ("line", "receivers"),
    [
        ("if self.size > 3:", ["self"]),
        ("n = this.box!.size + other?.size", ["this.box", "other"]),
        ("x = process.current_process().size", ["process.current_process()"]),
        ("x = make(a).size; y = xs[0].size", [None, None]),  # a call with arguments, an item: no receiver
        ("box.size()", []),  # a call is an edge of the index already
        ("box.sizes + box.size_", []),  # another name
    ],
)
def test_the_receiver_of_each_use_is_read_before_it(line: str, receivers: list) -> None:
    found = [accessor_receiver(line, m.start()) for m in accessor_uses("size").finditer(line)]
    assert found == receivers
