"""The index-side splitting in `terms` is tuned for speed (memos, bytes.translate, a piece at a time); what it
returns must stay exactly what these plain reference versions return: one regex scan of the whole text, no
memo. Checked over the text of real standard-library modules and over generated identifiers and texts
(Unicode letters, digits, ALLCAPS runs, underscores, line breaks)."""

from __future__ import annotations

import re
import sysconfig
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trifecta.domain import terms
from trifecta.domain.terms import expand_identifiers, identifier_parts, split_identifier

# ---------------------------------------------------------------------------------------------- references
_REF_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_REF_COMPOUND = re.compile(
    r"\b(?=[A-Za-z_])[A-Za-z0-9_]*?(?:[a-z0-9][A-Z]|[A-Z][A-Z][a-z]|[A-Za-z0-9]_[A-Za-z0-9])[A-Za-z0-9_]*"
)
_REF_WORD = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*", re.ASCII)


def ref_split(word: str) -> list[str]:
    """`_` separates; an ASCII piece splits on case steps and digit runs; another by its letters' own case."""
    parts: list[str] = []
    for piece in word.split("_"):
        if not piece:
            continue
        if piece.isascii():
            found = _REF_CAMEL.findall(piece)
        else:
            found, start = [], 0
            for i in range(1, len(piece)):
                prev, ch, nxt = piece[i - 1], piece[i], piece[i + 1 : i + 2]
                if (
                    prev.isdigit() != ch.isdigit()
                    or (prev.islower() and ch.isupper())
                    or (prev.isupper() and ch.isupper() and nxt.islower())
                ):
                    found.append(piece[start:i])
                    start = i
            found = [p for p in [*found, piece[start:]] if p]
        parts.extend(found or [piece])
    return parts


def ref_expand(text: str) -> str:
    def expanded(match: re.Match[str]) -> str:
        parts = ref_split(match.group(0))
        return match.group(0) + " " + " ".join(parts) if len(parts) > 1 else match.group(0)

    return _REF_COMPOUND.sub(expanded, text)


def ref_identifier_parts(text: str) -> str:
    out = []
    for word in dict.fromkeys(_REF_WORD.findall(text)):
        parts = ref_split(word)
        if len(parts) > 1:
            out.append(" ".join(parts))
    return " ".join(out)


def check(text: str) -> None:
    assert expand_identifiers(text) == ref_expand(text)
    assert identifier_parts(text) == ref_identifier_parts(text)


# ---------------------------------------------------------------------------------------------- real text
_STDLIB = Path(sysconfig.get_paths()["stdlib"])
_MODULES = ("typing.py", "argparse.py", "email/_header_value_parser.py", "http/client.py", "unicodedata.py",
            "tarfile.py", "asyncio/base_events.py", "idlelib/editor.py", "encodings/cp1252.py", "locale.py")  # fmt: skip


def _stdlib_texts() -> list[str]:
    found = [(_STDLIB / m).read_text("utf-8", "replace") for m in _MODULES if (_STDLIB / m).is_file()]
    if len(found) < 5:
        pytest.skip("the standard library's sources are not installed")
    return found


def test_real_module_text_and_its_identifiers_split_as_the_reference_does() -> None:
    texts = _stdlib_texts()
    for text in texts:
        check(text)  # the whole module as one chunk
        for block in text.split("\n\n"):  # and as many small ones, which meet the memos warm
            check(block)
    words = {w for text in texts for w in re.findall(r"\w+", text)}
    assert len(words) > 3000
    for word in words:
        assert split_identifier(word) == ref_split(word), word
    assert identifier_parts("parseHTTPHeader(a_b) a_b 9fooBar éfooBar") == "parse HTTP Header a b foo Bar"


def test_the_memos_give_the_same_after_they_are_cleared(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(terms, "PARTS_LIMIT", 3)
    monkeypatch.setattr(terms, "EXPAND_MEMO_PIECES", 3)
    terms._PARTS.clear()
    terms._EXPANDED_PIECES.clear()
    text = _stdlib_texts()[0][:20_000]
    for _ in range(2):
        check(text)
    assert len(terms._PARTS) <= 3 and len(terms._EXPANDED_PIECES) <= 3


# ---------------------------------------------------------------------------------------------- generated
_PIECES = st.sampled_from(
    ["foo", "Bar", "HTTP", "Header", "x", "X", "a1", "9", "42", "_", "__", "é", "É", "Ü", "ß", "İ", "ǅ", "ﬁ",
     "XMLHttp", "v2", "ID", "getURL", "café", "ÀLaCarte", "日本", "٣", "²"]
)  # fmt: skip
_IDENTIFIERS = st.lists(_PIECES, min_size=1, max_size=6).map("".join)
_SEPARATORS = st.sampled_from(
    [" ", "  ", "\n", " \n", ".", "(", ")", "\t", ",", "-", "é", "\u00a0", "\r\n", ""]
)
_TEXTS = st.lists(st.tuples(_IDENTIFIERS, _SEPARATORS), max_size=12).map(
    lambda pairs: "".join(a + b for a, b in pairs)
)


@settings(max_examples=300, deadline=None)
@given(_IDENTIFIERS)
def test_generated_identifiers_split_as_the_reference_does(word: str) -> None:
    assert split_identifier(word) == ref_split(word)
    check(word)


@settings(max_examples=300, deadline=None)
@given(_TEXTS)
def test_generated_code_like_texts_expand_as_the_reference_does(text: str) -> None:
    check(text)
    check(text)  # again, from the memos


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(), max_size=60))
def test_any_text_expands_as_the_reference_does(text: str) -> None:
    check(text)
