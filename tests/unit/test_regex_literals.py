"""Required literals of a regex: a prefilter that may narrow the candidates but never drops a match. The
regex engine runs RE2, so RE2's syntax is what the extractor must read right."""

from __future__ import annotations

import re

import pytest
import re2
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
        # RE2 syntax: an escape's arguments are not literals, nor is text whose case a flag may fold
        (r"\p{Greek}abc", ["abc"]),
        (r"\pLabcd", ["abcd"]),
        (r"\x{263a}wxyz", ["wxyz"]),
        (r"\x41bcd", ["bcd"]),
        (r"[[:alpha:]]xyz", ["xyz"]),
        (r"[[:^space:]_]abc", ["abc"]),
        (r"\Qa.b\Edefg", ["defg"]),
        (r"abc(?i)defg", []),
        (r"x(?s:.)yzw", []),
        (r"(?P<name>x)hello", ["hello"]),
        (r"a(?:b)cde", ["cde"]),
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
        python = re.compile(pattern)  # to draw texts the pattern matches
        compiled = re2.compile(pattern)  # what decides, as in the regex engine
    except (re.error, re2.error):
        return
    text = data.draw(st.from_regex(python, fullmatch=False))
    match = compiled.search(text)
    if match is None:
        return
    for literal in required_literals(pattern):
        assert literal in match.group(0), (pattern, text, literal)


RE2_PIECES = st.sampled_from(
    [
        "ab", "cde", "\\p{L}", "\\pN", "\\x{41}", "\\x41", "[[:alpha:]]", "[[:digit:]x]", "\\Qa.b\\E",
        "(?i)", "(?i:xy)", "(?P<n>q)", "\\z", "\\A", "?", "*", "+", "{2}", "|", "def ", "Z",
    ]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(
    st.lists(RE2_PIECES, min_size=1, max_size=8).map("".join),
    st.text(alphabet="abcdefxyzqAZ.1 ", max_size=30),
)
def test_re2_only_syntax_never_makes_a_literal_required_that_a_match_lacks(pattern: str, text: str) -> None:
    try:
        compiled = re2.compile(pattern)
    except re2.error:
        return
    for candidate in (text, pattern, "def abcdeZ" + text):
        match = compiled.search(candidate)
        if match is not None:
            for literal in required_literals(pattern):
                assert literal in match.group(0), (pattern, candidate, literal)


@given(st.text(max_size=40))
def test_never_raises_on_any_text(pattern: str) -> None:
    assert all(isinstance(r, str) and len(r) >= 3 for r in required_literals(pattern))
