"""Query expansion lexicon: Spanish -> English, code synonyms, phrases, accents, and the shipped data."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trifecta.domain.lexicon import SPANISH_FUNCTION_WORDS, Lexicon, fold
from trifecta.infrastructure.lexicon_data import (
    ES_EN_FILE,
    SYNONYMS_FILE,
    load_lexicon,
    read_data_json,
)

LEX = load_lexicon()
_WORD = re.compile(r"[a-z0-9]+")


def alternatives(query: str) -> dict[str, tuple[str, ...]]:
    return dict(LEX.expand_query(query))


def test_spanish_question_finds_english_code_words() -> None:
    query = "¿dónde se valida la entrada?"
    assert LEX.is_spanish(query)
    alts = alternatives(query)
    assert "validate" in alts["valida"]
    assert "input" in alts["entrada"]
    # function words and one-letter tokens are not query words
    assert set(alts) == {"valida", "entrada"}


def test_english_question_gets_code_synonyms() -> None:
    query = "how is the config loaded"
    assert not LEX.is_spanish(query)
    alts = alternatives(query)
    assert "settings" in alts["config"]
    assert "load" in alts["loaded"]  # stemming fallback
    assert "settings" in LEX.expand("config")
    assert "remove" in LEX.expand("delete")


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("¿Cómo se cierra la conexión?", {"cierra": "close", "conexión": "connection"}),
        ("quién genera los archivos temporales", {"genera": "generate", "archivos": "file"}),
        ("donde se borran los directorios", {"borran": "delete", "directorios": "directory"}),
        ("cómo se expanden las variables de entorno", {"expanden": "expand"}),
        ("qué función libera la memoria", {"función": "function", "libera": "release"}),
    ],
)
def test_spanish_questions(query: str, expected: dict[str, str]) -> None:
    assert LEX.is_spanish(query)
    alts = alternatives(query)
    for word, english in expected.items():
        assert english in alts[word], (word, alts[word])


def test_multi_word_phrases_are_taken_greedily() -> None:
    pairs = LEX.expand_query("el tiempo límite del enlace simbólico y memoria compartida")
    words = [w for w, _ in pairs]
    assert words == ["tiempo límite", "enlace simbólico", "memoria compartida"]
    alts = dict(pairs)
    assert "timeout" in alts["tiempo límite"]
    assert "symlink" in alts["enlace simbólico"]
    assert "shared" in alts["memoria compartida"]
    assert "exclusive" in LEX.expand("mutuamente excluyentes")
    # a phrase key also answers expand() with any spacing
    assert "timeout" in LEX.expand("  Tiempo   LÍMITE ")


def test_accents_and_case_are_folded() -> None:
    assert fold("Función") == "funcion"
    assert LEX.expand("FUNCIÓN") == LEX.expand("funcion")
    assert "password" in LEX.expand("contraseña")
    assert "function" in LEX.expand("Función")


def test_expand_never_returns_the_word_and_has_no_duplicates() -> None:
    for word in ["error", "test", "config", "remove", "valida", "entrada", "loading"]:
        alts = LEX.expand(word)
        assert word not in alts
        assert len(alts) == len(set(alts))
    assert LEX.expand("zzzqqq") == ()
    assert LEX.expand("") == ()


def test_english_stemming_fallback() -> None:
    assert "load" in LEX.expand("loading")
    assert "parse" in LEX.expand("parses")
    assert "stop" in LEX.expand("stopped")
    assert "delete" in LEX.expand("removes")


def test_is_spanish_on_english_queries() -> None:
    for query in ["where is the error raised", "find the test for parse_args", "variable timeout", ""]:
        assert not LEX.is_spanish(query), query
    assert LEX.is_spanish("valida entrada")


def test_small_lexicon_from_mappings() -> None:
    lex = Lexicon.from_mappings({"Búsqueda": ["Search"], "tiempo limite": ["timeout"]}, {"search": ["find"]})
    assert lex.translations == {"busqueda": ("search",), "tiempo limite": ("timeout",)}
    assert lex.expand("búsqueda") == ("search", "find")
    assert lex.expand("searching") == ("search", "find")
    assert lex.expand_query("la búsqueda con tiempo límite") == [
        ("búsqueda", ("search", "find")),
        ("tiempo límite", ("timeout",)),
    ]


@settings(max_examples=300)
@given(st.text())
def test_total_and_deterministic(text: str) -> None:
    first = (LEX.expand(text), LEX.expand_query(text), LEX.is_spanish(text))
    assert first == (LEX.expand(text), LEX.expand_query(text), LEX.is_spanish(text))
    alts = LEX.expand(text)
    assert fold(text).strip() not in alts or not text.strip()
    for word, words in first[1]:
        assert len(word) >= 2
        assert fold(word) not in words


@given(st.lists(st.sampled_from(sorted(LEX.translations)), min_size=1, max_size=4))
def test_every_key_expands(words: list[str]) -> None:
    for word in words:
        assert LEX.expand(word) or LEX.translations[word] == (word,)


@pytest.mark.parametrize("name", [ES_EN_FILE, SYNONYMS_FILE])
def test_shipped_json_is_well_formed(name: str) -> None:
    data = read_data_json(name)
    for key, values in data.items():
        assert key == fold(key).strip() and key.isascii(), key
        assert key not in SPANISH_FUNCTION_WORDS, key
        assert isinstance(values, list) and values, key
        assert len(values) <= (3 if name == ES_EN_FILE else 5), key
        for word in values:
            assert _WORD.fullmatch(word), (key, word)


def test_shipped_sizes() -> None:
    assert len(LEX.translations) >= 400
    assert len(LEX.synonyms) >= 80
    assert load_lexicon() is LEX


@pytest.mark.parametrize(
    ("word", "cognate"),
    [
        ("configuración", "configuration"),
        ("segmentos", "segment"),
        ("referencias", "reference"),
        ("memoria", "memory"),
        ("exclusivo", "exclusive"),
        ("automático", "automatic"),
    ],
)
def test_untranslated_spanish_words_get_their_english_cognate(word: str, cognate: str) -> None:
    empty = Lexicon.from_mappings({}, {})
    assert cognate in empty.expand(word)


def test_cognates_never_replace_a_translation() -> None:
    lexicon = Lexicon.from_mappings({"memoria": ["memory", "ram"]}, {})
    assert lexicon.expand("memoria") == ("memory", "ram")
