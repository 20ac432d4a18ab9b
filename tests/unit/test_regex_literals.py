"""Required literals of a regex: a prefilter that may narrow the candidates but never drops a match."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trifecta.domain.regex_literals import required_literals


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (r"def parse_\w+\(", ["def parse_"]),
        (r"raise ValueError\(f?\"", ["raise ValueError("]),
        (r"os\.environ\[", ["os.environ["]),
        (r"colou?r_map", ["r_map", "colo"]),
        (r"foo|barbaz", []),
        (r"(?i)hello", []),
        (r"import (os|sys)", ["import "]),
        (r"x{2,3}yz_abc", ["yz_abc"]),
        (r"ab", []),
        (r"[abc]def[^x]ghi", ["def", "ghi"]),
        (r"self\._lock\.acquire\(\)", ["self._lock.acquire()"]),
        (r"a{0,2}bcd", ["bcd"]),
        (r"\d+ items", [" items"]),
    ],
)
def test_examples(pattern: str, expected: list[str]) -> None:
    assert required_literals(pattern) == expected


PIECES = st.sampled_from(
    [
        "ab", "cde", "_x", "\\.", "\\(", "\\d", "\\w+", "[a-c]", "[^z]", "(fo|ba)", "?", "*", "+", "{2}",
        "{0,3}", "x", "yz", ".", "\\s*", "(?:qq)", "|", "def ", "class ",
    ]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(PIECES, min_size=1, max_size=8).map("".join), st.data())
def test_every_match_contains_every_required_literal(pattern: str, data: st.DataObject) -> None:
    try:
        compiled = re.compile(pattern)
    except re.error:
        return
    text = data.draw(st.from_regex(compiled, fullmatch=False))
    match = compiled.search(text)
    if match is None:
        return
    for literal in required_literals(pattern):
        assert literal in match.group(0), (pattern, text, literal)
