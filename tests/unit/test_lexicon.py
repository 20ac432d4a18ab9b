"""Query expansion lexicon: Spanish -> English, code synonyms, phrases, accents, and the shipped data."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trifecta.domain.lexicon import SPANISH_FUNCTION_WORDS, Lexicon, fold
from trifecta.domain.spanish_forms import (
    LEMMA_KINDS,
    STEM_CHANGES,
    adjective_forms,
    inflections,
    noun_forms,
    verb_forms,
)
from trifecta.infrastructure.lexicon_data import (
    ES_EN_FILE,
    SYNONYMS_FILE,
    load_lexicon,
    read_data_json,
    read_lemmas,
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
    ("word", "abbreviation"),
    [
        ("estimate", "eta"),
        ("message", "msg"),
        ("context", "ctx"),
        ("temporary", "tmp"),
        ("previous", "prev"),
        ("parallel", "par"),  # Rust's rayon: `par_iter`, `ParIter`
        ("mutable", "mut"),
        ("iterator", "iter"),
        ("equal", "eq"),
        ("capacity", "cap"),
        ("reverse", "rev"),
        ("comparison", "cmp"),  # `dedup_by(cmp)`, `sort_by(cmp)`
        ("indices", "idx"),  # a plural whose stem is no word of its own ("indic")
        ("asynchronous", "async"),
        ("separator", "sep"),
        ("average", "avg"),
    ],
)
def test_a_word_is_also_searched_as_the_abbreviation_code_writes(word: str, abbreviation: str) -> None:
    assert abbreviation in LEX.expand(word)
    assert "calc" not in LEX.expand("calculate")  # `_calc_mode` is no answer to "where is X calculated"


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("¿Cómo se cierra la conexión?", {"cierra": "close", "conexión": "connection"}),
        ("quién genera los archivos temporales", {"genera": "generate", "temporales": "temp"}),
        ("donde se borran los directorios", {"borran": "delete", "directorios": "directory"}),
        ("cómo se expanden las variables de entorno", {"expanden": "expand"}),
        ("qué función libera la memoria", {"libera": "release"}),
        ("dónde se escapan las llaves", {"llaves": "brace"}),  # curly braces, as well as keys
        ("cómo se recorren los nodos hermanos", {"hermanos": "sibling"}),
    ],
)
def test_spanish_questions(query: str, expected: dict[str, str]) -> None:
    assert LEX.is_spanish(query)
    alts = alternatives(query)
    for word, english in expected.items():
        assert english in alts[word], (word, alts[word])


def test_an_english_idiom_is_also_searched_as_the_word_code_uses() -> None:
    # "Returns true if the map contains no elements." describes `is_empty`, "the number of elements" `len`
    assert "empty" in LEX.expand("no elements")
    assert "unique" in LEX.expand("remove duplicates")  # "filter out duplicates": unique, dedup, distinct
    assert "interleave" in LEX.expand("alternating")  # "alternate elements from two iterators"
    assert "empty" in LEX.expand("no items")
    assert "len" in LEX.expand("number of elements")
    assert "entry" in LEX.expand("key-value pair")
    assert LEX.english_phrases("Returns true if the set contains no elements") == [
        ("no elements", ("empty",))
    ]
    assert dict(LEX.english_phrases("Get a key-value pair by index"))["key value pair"] == ("entry", "item")


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
        # a key translated only to itself, or to itself less an English ending (bytes -> byte), may not
        english_endings = {
            word,
            *(word[: -len(e)] for e in ("s", "es", "d", "ed", "ing") if word.endswith(e)),
        }
        assert LEX.expand(word) or set(LEX.translations[word]) <= english_endings, word


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
    lemmas = read_lemmas()
    assert len(lemmas["verbs"]) >= 600
    assert len(lemmas["nouns"]) + len(lemmas["adjectives"]) >= 600
    assert len(LEX.translations) >= 20_000
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


# ---------------------------------------------------------------- Spanish inflection


@pytest.mark.parametrize(
    ("infinitive", "change", "forms"),
    [
        # regular -ar, -er, -ir: present, subjunctive, preterite, participles, gerund, infinitive + pronoun
        (
            "validar",
            None,
            "valida validan validamos valide validen valido validaron validado validadas validando validarlo validarse",
        ),
        (
            "comprender",
            None,
            "comprende comprenden comprenda comprendan comprendio comprendido comprendiendo",
        ),
        ("escribir", None, "escribe escriben escriba escriban escribimos escribiendo escrito escritas"),
        # stem changes in the stressed forms, and e>i / o>u in an -ir verb's gerund and preterite
        ("sugerir", "ie", "sugiere sugieren sugiera sugieran sugiriendo sugirio sugerido"),
        ("cerrar", "ie", "cierra cierran cierre cerramos cerrado"),
        ("contar", "ue", "cuenta cuentan cuente contamos contado"),
        ("resolver", "ue", "resuelve resuelven resuelva resuelto resueltas"),
        ("pedir", "i", "pide piden pida pidiendo pidio pedido"),
        ("dormir", "ue", "duerme duerman durmiendo"),
        # spelling changes
        ("buscar", None, "busca busque busquen"),
        ("agregar", None, "agrega agregue"),
        ("utilizar", None, "utiliza utilice"),
        ("proteger", None, "protege proteja"),
        ("elegir", "i", "elige elija eligiendo"),
        ("seguir", "i", "sigue siga siguiendo"),
        ("conocer", None, "conoce conozca"),
        ("vencer", None, "vence venza"),
        ("construir", None, "construye construyen construya construyendo construyo construido"),
        ("leer", None, "lee leyendo leyo leido"),
        # irregular roots and their compounds
        ("componer", None, "compone componga compuesto compuestas"),
        ("obtener", None, "obtiene obtienen obtenga obtenido"),
        ("producir", None, "produce produzca produjo producido"),
        ("extraer", None, "extrae extraiga extrayendo extraido"),
        ("deshacer", None, "deshace deshaga deshecho"),
        ("describir", None, "describe descrito"),
        ("imprimir", None, "imprime impreso"),
    ],
)
def test_verb_forms(infinitive: str, change: str | None, forms: str) -> None:
    made = set(verb_forms(infinitive, change))
    assert set(forms.split()) <= made, set(forms.split()) - made


def test_verb_forms_only_for_infinitives() -> None:
    assert list(verb_forms("casa")) == []
    assert list(verb_forms("ir")) == []


def test_every_shipped_verb_yields_its_main_forms() -> None:
    for lemma in sorted(read_lemmas()["verbs"]):  # every one, not a sample: a bad row fails every run
        infinitive, _, change = lemma.partition(":")
        assert change in STEM_CHANGES | {""}, lemma
        forms = set(inflections("verbs", lemma))
        stem = infinitive[:-2]
        assert infinitive in forms, lemma
        assert stem + ("ado" if infinitive.endswith("ar") else "ido") in forms, lemma
        assert all(f.isascii() and f.isalpha() and f.islower() and len(f) >= 3 for f in forms), lemma


def test_noun_and_adjective_forms() -> None:
    assert set(noun_forms("comilla")) == {"comilla", "comillas"}
    assert {"caracter", "caracteres"} <= set(noun_forms("caracter"))
    assert set(noun_forms("vez")) == {"vez", "veces"}
    assert {"socket", "sockets"} <= set(noun_forms("socket"))
    assert set(noun_forms("par")) == {"par", "pares"}
    assert set(adjective_forms("parecido")) == {"parecido", "parecida", "parecidos", "parecidas"}
    assert {"comun", "comunes"} <= set(adjective_forms("comun"))
    assert {"lectora", "lectores"} <= set(adjective_forms("lector"))
    assert {"barra invertida", "barras invertidas"} <= set(inflections("nouns", "barra invertida"))
    assert "fines de linea" in set(inflections("nouns", "fin de linea"))
    with pytest.raises(ValueError):
        list(inflections("adverbs", "bien"))


def test_lemmas_are_inflected_into_the_lexicon() -> None:
    lexicon = Lexicon.from_mappings(
        {"parte": ["part"]},
        {},
        {
            "verbs": {"sugerir:ie": ["suggest"], "partir": ["split"]},
            "nouns": {"celda": ["cell"]},
            "adjectives": {"parecido": ["similar"]},
        },
    )
    assert lexicon.expand("sugieren") == ("suggest",)
    assert lexicon.expand("Sugiriendo") == ("suggest",)
    assert lexicon.expand("celdas") == ("cell",)
    assert lexicon.expand("parecidas") == ("similar",)
    assert lexicon.expand("parte") == ("part",)  # a listed form wins over the verb's
    assert lexicon.expand("parten") == ("split",)


def test_a_form_of_two_lemmas_keeps_the_nouns_words_first() -> None:
    lexicon = Lexicon.from_mappings({}, {}, {"verbs": {"cambiar": ["change"]}, "nouns": {"cambio": ["diff"]}})
    assert lexicon.expand("cambio") == ("diff", "change")


@pytest.mark.parametrize(
    ("word", "english"),
    [
        ("sugieren", "suggest"),
        ("ejecuten", "run"),
        ("existe", "exist"),
        ("compruebe", "check"),
        ("devuelve", "return"),
        ("obtiene", "get"),
        ("ordenando", "sort"),
        ("agrupadas", "group"),
        ("comillas", "quote"),
        ("barras", "slash"),
        ("secuencias", "sequence"),
        ("pares", "pair"),
        ("celdas", "cell"),
        ("parecidos", "similar"),
        ("computado", "computed"),
        ("anidadas", "nested"),
        ("sustitutos", "surrogate"),
        ("profundidad", "depth"),
        ("pila", "stack"),
        ("desbordamiento", "overflow"),
        ("paginas", "page"),
    ],
)
def test_everyday_developer_words(word: str, english: str) -> None:
    assert english in LEX.expand(word), LEX.expand(word)


# ---------------------------------------------------------------- morphology fallbacks


def test_prefix_on_a_known_word() -> None:
    lexicon = Lexicon.from_mappings(
        {"comando": ["command"]},
        {},
        {
            "verbs": {"registrar": ["register"], "calcular": ["calculate"], "computar": ["compute"]},
            "nouns": {"arbol": ["tree"]},
        },
    )
    assert lexicon.expand("subcomando")[0] == "subcommand"
    assert "subcommand" in lexicon.expand("subcomandos")  # the prefix on a plural
    assert "subtree" in lexicon.expand("subárboles")
    assert {"unregister", "deregister"} <= set(lexicon.expand("desregistrar"))
    assert "recalculate" in lexicon.expand("recalcula")
    assert "precalculate" in lexicon.expand("precalculado")
    assert lexicon.expand("recompute") == ()  # English already: its rest is no Spanish word
    assert lexicon.expand("subzzzz") == ()


def test_plural_and_gender_of_a_listed_word() -> None:
    lexicon = Lexicon.from_mappings({"tupla": ["tuple"], "anidado": ["nested"], "lapiz": ["pencil"]}, {})
    assert lexicon.expand("tuplas") == ("tuple",)
    assert lexicon.expand("anidadas") == ("nested",)
    assert lexicon.expand("anidada") == ("nested",)
    assert lexicon.expand("lapices") == ("pencil",)


def test_no_garbage_stems() -> None:
    empty = Lexicon.from_mappings({}, {})
    for word in ["parecidos", "miembros", "sustitutos", "huerfanos", "comillas"]:
        assert empty.expand(word) == (), word
    for word in ["parecidos", "miembros", "sustitutos", "huérfanos"]:
        stem = fold(word)[:-2]
        assert stem not in LEX.expand(word), (word, LEX.expand(word))
    assert LEX.expand("zzzqqqos") == ()


def test_an_english_word_gets_no_second_spelling_of_itself() -> None:
    lexicon = Lexicon.from_mappings({}, {}, {"nouns": {"byte": ["byte"], "token": ["token"]}})
    assert lexicon.expand("bytes") == ()
    assert lexicon.expand("tokens") == ()


# ---------------------------------------------------------------- function words


def test_function_words_are_not_content_words() -> None:
    query = "¿Cómo se ejecuta, de forma recursiva y según el modo, mientras varias tareas esperan a un mismo valor?"
    words = LEX.content_words(query)
    assert words == ["ejecuta", "recursiva", "modo", "tareas", "esperan", "valor"]
    for word in "un una no sola vez mismo mientras según varias forma mediante".split():
        assert LEX.expand(word) == (), word
        assert fold(word) in SPANISH_FUNCTION_WORDS


def test_function_phrases_are_skipped() -> None:
    words = [w for w, _ in LEX.expand_query("a partir de la cola, por ejemplo, en lugar de partir la cadena")]
    assert words == ["cola", "partir", "cadena"]


def test_words_meaning_an_english_stop_word_are_not_content_words() -> None:
    # as "used" and "get" in an English question; a file or a function is what code is made of
    assert LEX.content_words("¿dónde se usaron los archivos para obtener la función?") == [
        "archivos",
        "función",
    ]
    assert LEX.content_words("¿dónde se calcula el hash de un archivo?") == ["calcula", "hash", "archivo"]
    assert "use" in LEX.expand("usaron")
    assert "function" in LEX.expand("función")


def test_phrase_keys_still_win() -> None:
    alts = dict(LEX.expand_query("¿cómo se ejecuta una sola vez?"))
    assert "once" in alts["una sola vez"]
    assert LEX.content_words("¿cómo se ejecuta una sola vez la memoria compartida?") == [
        "ejecuta",
        "memoria",
        "compartida",
    ]


def test_english_words_that_are_spanish_function_words_do_not_make_a_query_spanish() -> None:
    for query in ["no way to set me up", "a solo run with sin and con", "he has no via"]:
        assert not LEX.is_spanish(query), query
    assert LEX.is_spanish("cuando el valor mientras tanto")


@pytest.mark.parametrize("kind", LEMMA_KINDS)
def test_shipped_lemmas_are_well_formed(kind: str) -> None:
    for lemma, english in read_lemmas()[kind].items():
        word, _, change = lemma.partition(":")
        assert word == fold(word).strip() and word.isascii(), lemma
        assert word not in SPANISH_FUNCTION_WORDS, lemma
        assert kind == "verbs" or not change, lemma
        assert not change or change in STEM_CHANGES, lemma
        assert kind != "verbs" or word.endswith(("ar", "er", "ir")), lemma
        assert 1 <= len(english) <= 3, lemma
        for w in english:
            assert _WORD.fullmatch(w), (lemma, w)


def test_adverbs_and_verbal_adjectives_come_from_their_known_word() -> None:
    lexicon = Lexicon.from_mappings(
        {},
        {},
        {"verbs": {"bloquear": ["block"], "depender": ["depend"]}, "adjectives": {"perezoso": ["lazy"]}},
    )
    assert lexicon.expand("perezosamente") == ("lazy",)  # perezosa -> perezoso
    assert lexicon.expand("bloqueante") == ("block",)  # bloque-ante -> bloquear
    assert lexicon.expand("bloqueantes") == ("block",)
    assert lexicon.expand("dependiente") == ("depend",)  # depend-iente -> depender
    assert lexicon.expand("completamente") == ()  # not the guess "completament"
    assert "complete" in LEX.expand("completamente") and "partial" in LEX.expand("parcialmente")


def test_what_happens_is_a_function_phrase() -> None:
    words = [w for w, _ in LEX.expand_query("¿Qué pasa con los suscriptores cuando se cierra el flujo?")]
    assert "pasa" not in words and "suscriptores" in words
    assert LEX.expand("suscriptores") == ("subscriber",)
    assert [w for w, _ in LEX.expand_query("palabras reservadas")] == ["palabras reservadas"]


def test_everyday_developer_phrases_translate_as_one_term() -> None:
    # where the word-by-word translation misleads ("espacio de nombres" is no space of names)
    assert (
        dict(LEX.expand_query("¿dónde se crea el espacio de nombres?"))["espacio de nombres"][0]
        == "namespace"
    )
    assert "eof" in dict(LEX.expand_query("lee hasta el fin de archivo"))["fin de archivo"]
    assert "check" in LEX.expand("comprobación")


def test_glob_patterns_are_wildcards() -> None:
    assert "wildcard" in LEX.expand("glob") and "glob" in LEX.expand("wildcard")


def test_code_names_platforms_as_the_standard_library_does() -> None:
    assert "posix" in LEX.expand("unix")
    assert "win32" in LEX.expand("windows")


def test_english_phrases_code_spells_as_one_word() -> None:
    assert LEX.english_phrases("how are command-line arguments read from standard input?") == [
        ("command line", LEX.synonyms["command line"]),
        ("standard input", ("stdin",)),
    ]
    assert "cli" in LEX.synonyms["command line"]
    assert LEX.english_phrases("a line of the command") == []


def test_phrasal_verbs_are_the_one_word_names_code_gives_them() -> None:
    said = dict(LEX.english_phrases("where is a checked-out connection rolled back and then shut down?"))
    assert said == {"checked out": ("checkout",), "rolled back": ("rollback",), "shut down": ("shutdown",)}
    assert "lookup" in dict(LEX.english_phrases("how does a group look up a subcommand"))["look up"]
    assert "parse" in dict(LEX.english_phrases("how is a URL broken into its parts"))["broken into"]
    assert dict(LEX.english_phrases("single-letter flags bundled as -xvf"))["single letter"] == ("short",)
    said = dict(LEX.english_phrases("when does the handler roll over, or turn off"))
    assert said == {"roll over": ("rollover",), "turn off": ("disable",)}
