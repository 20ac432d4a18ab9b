"""The parser fills each chunk's search fields itself (in its worker processes): they must be exactly what
`Chunk.with_search_fields()` computes, on real files of every language. (The memo of space-separated pieces
behind them is tested in test_terms_expand_memo.py.)"""

from __future__ import annotations

from pathlib import Path

from trifecta.infrastructure.code_parser import language_of, parse_item, parse_source

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
