"""The parser fills each chunk's search fields itself (through a memo of space-separated pieces, for speed):
they must be exactly what `Chunk.with_search_fields()` computes, on real files of every language and on any
text."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from trifecta.domain.terms import expand_identifiers
from trifecta.infrastructure import code_parser
from trifecta.infrastructure.code_parser import _expand, language_of, parse_item, parse_source

FIXTURES = Path(__file__).parents[1] / "fixtures"


def _sources() -> list[tuple[str, str]]:
    out = []
    for folder in ("polyglot", "sample_repo", "patterns"):
        for path in sorted((FIXTURES / folder).rglob("*")):
            rel = path.relative_to(FIXTURES).as_posix()
            if path.is_file() and language_of(rel) is not None:
                out.append((rel, path.read_text("utf-8", errors="replace")))
    return out


def test_the_parsers_search_fields_are_the_chunks_own_on_every_fixture_file() -> None:
    sources = _sources()
    languages = {parse_source(path, text).language for path, text in sources}
    assert {"python", "go", "rust", "typescript", "javascript"} <= languages
    chunks = 0
    for path, text in sources:
        _, parsed = parse_item((path, text))
        for chunk, plain in zip(parsed.chunks, parse_source(path, text).chunks, strict=True):
            expected = plain.with_search_fields()
            assert chunk == expected and chunk.search_fields == expected.search_fields
            chunks += 1
    assert chunks > 100


def test_the_memo_does_not_change_a_text_met_twice_or_after_it_is_cleared(monkeypatch) -> None:
    text = "parseHTTPHeader reads  the\theader_line;\nsee fooBar.bazQux(x_y)  "
    assert _expand(text) == _expand(text) == expand_identifiers(text)
    monkeypatch.setattr(code_parser, "EXPAND_MEMO_PIECES", 1)
    assert _expand(text) == expand_identifiers(text)


_TEXT = st.text(
    alphabet=st.sampled_from(list("aAbZz09_ \t\n.,(é\u00c9\u0130\u01c5-")) | st.characters(), max_size=80
)


@settings(max_examples=400, deadline=None)
@given(_TEXT)
def test_expanding_a_piece_at_a_time_is_expanding_the_whole_text(text: str) -> None:
    assert _expand(text) == expand_identifiers(text)
