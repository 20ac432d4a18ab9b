"""Offline query expansion: Spanish words to English code vocabulary, and code-aware English synonyms.

The data is handed in (see `trifecta.infrastructure.lexicon_data`); this module only reads it. Lookups
are accent-folded and case-folded, so "Función", "funcion" and "FUNCIÓN" meet at the same key.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence

import attrs

from .spanish_forms import LEMMA_KINDS, inflections
from .terms import STOP_WORDS


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Spanish function words (articles, pronouns, prepositions, conjunctions, adverbs, quantifiers, the forms of
# ser/estar/haber/poder/deber/soler, question words): never content words of a question, never lexicon keys.
SPANISH_FUNCTION_WORDS = _words(
    """
    el la lo los las un una uno unos unas al del
    yo tu vos usted ustedes nosotros nosotras vosotros ella ellas ellos ello me te se nos os le les
    mi mis tus su sus nuestro nuestra nuestros nuestras vuestro vuestra suyo suya suyos suyas si
    este esta esto estos estas ese esa eso esos esas aquel aquella aquello aquellos aquellas
    a ante bajo cabe con contra de desde durante en entre hacia hasta mediante para por segun sin so
    sobre tras versus via excepto salvo incluso acerca respecto traves
    y e o u ni pero sino aunque mientras pues porque que como cuando donde adonde cual cuales quien quienes
    cuanto cuanta cuantos cuantas cuyo cuya cuyos cuyas
    no tambien tampoco ya aun todavia siempre nunca jamas solo sola solos solas solamente unicamente
    muy mas menos tan tanto tanta tantos tantas bien mal asi aqui ahi alli alla aca antes despues luego
    entonces ahora casi quiza quizas acaso apenas bastante demasiado ademas encima debajo delante detras
    dentro fuera cerca lejos mismo misma mismos mismas propio propia vez veces forma formas manera maneras
    algo nada alguien nadie algun alguna algunos algunas ningun ninguna ninguno cualquier cualquiera
    cada todo toda todos todas otro otra otros otras varios varias mucho mucha muchos muchas poco poca
    pocos pocas ambos ambas demas cierto cierta ciertos ciertas tal tales dos tres
    ser es son era eran fue fueron sea sean sido siendo seria serian sera seran
    estar esta estan estaba estaban estuvo este esten estando estara estaria
    haber ha han he hemos habia habian hubo haya hayan habra habria hay
    poder puede pueden podemos puedo podria podrian pudo podra
    deber debe deben debo debemos deberia deberian
    soler suele suelen suelo
    tener tiene tienen hace hacen hacer hago
    """
)
# Function words that are also common English words ("a", "no", "me", "he", "solo", "sin"): a question
# holding them is no sign of Spanish.
_ENGLISH_TOO = _words("a e o u y no me he ha so sin con solo mas tan tu mi ya dos via versus era son te os")
# Phrases that say how, not what: "de forma recursiva", "a partir de", "por ejemplo", "en lugar de".
SPANISH_FUNCTION_PHRASES = frozenset(
    tuple(p.split())
    for p in (
        "a partir de", "de forma", "forma de", "de manera", "de modo", "por ejemplo", "es decir",
        "en lugar de", "en vez de", "sin embargo", "por lo tanto", "en cuenta", "en caso de", "por medio de",
        "por parte de", "al mismo tiempo", "en general", "de nuevo", "otra vez", "lo que", "ya que",
        "dado que", "puesto que", "a su vez", "tener en cuenta", "sirve para", "se encarga de",
        "encargado de", "encargada de", "se ocupa de", "tiene que", "tienen que", "hay que",
        "que pasa", "que ocurre", "que sucede",
    )
)  # fmt: skip
# Spanish prefixes that English writes the same way (subcomando -> subcommand, desregistrar -> unregister).
_PREFIXES = (
    ("sub", ("sub",)), ("super", ("super",)), ("re", ("re",)), ("pre", ("pre",)), ("des", ("un", "de")),
    ("auto", ("auto",)), ("multi", ("multi",)), ("inter", ("inter",)), ("post", ("post",)),
    ("meta", ("meta",)), ("micro", ("micro",)), ("pseudo", ("pseudo",)), ("semi", ("semi",)),
    ("anti", ("anti",)), ("co", ("co",)), ("sobre", ("over",)), ("in", ("in", "un")),
)  # fmt: skip
_MIN_PREFIXED_REST = 4

_SPANISH_MARKS = frozenset("¿¡ñÑáéíóúüÁÉÍÓÚÜ")
_WORD = re.compile(r"\w+", re.UNICODE)
# light English stemming fallback, longest suffix first
_SUFFIXES = ("ing", "ed", "es", "s")
_MIN_WORD = 2
_MAX_MERGED = 4  # words a form shared by several lemmas keeps


def fold(word: str) -> str:
    """Lower case without accents: NFKD, then drop the combining marks."""
    decomposed = unicodedata.normalize("NFKD", word.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _unique(words: Iterable[str], exclude: str) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for w in words:
        if w and w != exclude:
            seen.setdefault(w, None)
    return tuple(seen)


def _stems(word: str) -> list[str]:
    """Candidate stems of an English (or Spanish plural) word: loaded -> load/loade, parses -> pars/parse."""
    out: list[str] = []
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            stem = word[: -len(suffix)]
            out.extend([stem, stem + "e"])
            if suffix in ("ing", "ed") and len(stem) >= 4 and stem[-1] == stem[-2]:
                out.append(stem[:-1])  # stopped -> stop, running -> run
    return out


# Spanish endings with a regular English cognate: configuración -> configuration, segmento -> segment,
# referencia -> reference, memoria -> memory, automático -> automatic, exclusivo -> exclusive.
_COGNATES = (
    ("aciones", "ation"), ("acion", "ation"), ("iciones", "ition"), ("icion", "ition"), ("ciones", "tion"),
    ("cion", "tion"), ("siones", "sion"), ("sion", "sion"), ("mentos", "ment"), ("mento", "ment"),
    ("encias", "ence"), ("encia", "ence"), ("ancias", "ance"), ("ancia", "ance"), ("orios", "ory"),
    ("orio", "ory"), ("orias", "ory"), ("oria", "ory"), ("icos", "ic"), ("icas", "ic"), ("ico", "ic"),
    ("ica", "ic"), ("ivos", "ive"), ("ivas", "ive"), ("ivo", "ive"), ("iva", "ive"), ("idades", "ity"),
    ("idad", "ity"), ("ables", "able"), ("ibles", "ible"), ("istas", "ist"), ("ista", "ist"),
    ("entes", "ent"), ("ente", "ent"), ("antes", "ant"), ("ante", "ant"), ("ismo", "ism"),
)  # fmt: skip


# Adjectives made from a verb's stem, and the infinitive endings that stem may take: bloque-ante -> bloquear
_PARTICIPLE_ADJECTIVES = (("iente", ("er", "ir")), ("ante", ("ar",)), ("ente", ("er", "ir")))


def _is_adverb(word: str) -> bool:
    """An adverb made from an adjective (its feminine form when it has one): perezosamente, parcialmente,
    concurrentemente; not "mente" or "demente"."""
    return word.endswith("mente") and len(word) >= len("mente") + 5


def _cognates(word: str) -> list[str]:
    """English look-alikes of a Spanish word by its ending (guesses: a guess absent from the code
    simply matches nothing). A word no ending rule covers gets none: no bare stems ("parecid")."""
    for ending, english in _COGNATES:
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            return [word[: -len(ending)] + english]
    return []


def _singulars(word: str) -> list[str]:
    """The singular masculine a Spanish plural or feminine may come from, most likely first:
    anidadas -> anidado, caracteres -> caracter, veces -> vez, miembros -> miembro."""
    out: list[str] = []
    if word.endswith("ces"):
        out.append(word[:-3] + "z")
    if word.endswith("es"):
        out.append(word[:-2])
    if word.endswith("as"):
        out.append(word[:-2] + "o")
    if word.endswith("s"):
        out.append(word[:-1])
    if word.endswith("a"):
        out.append(word[:-1] + "o")
    return [w for w in out if len(w) >= 3]


def _same_stem(word: str, english: str) -> bool:
    """Whether `word` is `english` with an English ending (bytes, controls, parsed): the index's stemmer
    matches the two already, and a second spelling would only count the word twice."""
    return word.startswith(english) and word[len(english) :] in ("s", "es", "d", "ed", "ing")


# English stop words that name code, not grammar: "el hash de un archivo" is about a file
_CODE_NOUNS = frozenset(
    {"file", "files", "function", "functions", "method", "methods", "class", "classes", "code"}
)


@attrs.frozen
class Lexicon:
    """Spanish -> English translations and English -> English synonyms, both keyed by folded words.

    `translations` holds every Spanish form the lexicon knows: the listed ones and those inflected from
    lemmas (see `from_mappings`)."""

    translations: Mapping[str, tuple[str, ...]]
    synonyms: Mapping[str, tuple[str, ...]]
    # forms listed one by one (not inflected from a lemma): an English word's stem may land on one ("defined")
    listed: frozenset[str] = frozenset()
    longest_key: int = attrs.field(init=False)  # words in the longest translation key
    english: frozenset[str] = attrs.field(init=False)  # the English words the lexicon knows

    def __attrs_post_init__(self) -> None:
        longest = max((k.count(" ") + 1 for k in self.translations if " " in k), default=1)
        object.__setattr__(self, "longest_key", longest)
        known = {w for words in self.translations.values() for w in words}
        known.update(self.synonyms, *self.synonyms.values())
        object.__setattr__(self, "english", frozenset(known))

    @classmethod
    def from_mappings(
        cls,
        es_en: Mapping[str, Sequence[str]],
        synonyms: Mapping[str, Sequence[str]],
        lemmas: Mapping[str, Mapping[str, Sequence[str]]] | None = None,
    ) -> Lexicon:
        """`es_en` maps written forms, `lemmas` maps dictionary forms by kind ("verbs": "sugerir:ie",
        "nouns", "adjectives"; see `spanish_forms.inflections`) whose every form is added. A listed form
        wins over an inflected one; forms of several lemmas share their words (nouns first). Function
        words are never keys."""
        translations: dict[str, tuple[str, ...]] = {}
        for kind in LEMMA_KINDS:
            for lemma, english in (lemmas or {}).get(kind, {}).items():
                words = tuple(english)
                for form in inflections(kind, lemma):
                    known = translations.get(form)
                    if known is None:
                        translations[form] = words
                    elif known is not words:
                        translations[form] = (*known, *(w for w in words if w not in known))[:_MAX_MERGED]
        for key, values in es_en.items():
            translations[fold(key)] = tuple(fold(w) for w in values)
        for word in SPANISH_FUNCTION_WORDS:
            translations.pop(word, None)
        return cls(
            translations=translations,
            synonyms={fold(k): tuple(fold(w) for w in v) for k, v in synonyms.items()},
            listed=frozenset(fold(k) for k in es_en),
        )

    def _known(self, key: str) -> tuple[str, ...]:
        """A listed or inflected Spanish form's words, or those of the singular masculine it comes from."""
        found = self.translations.get(key)
        if found is not None:
            return found
        for singular in _singulars(key):
            found = self.translations.get(singular)
            if found is not None:
                return found
        return ()

    def _prefixed(self, key: str) -> list[str]:
        """subcomandos -> subcommand, command; desregistrar -> unregister, deregister, register."""
        for prefix, english in _PREFIXES:
            rest = key[len(prefix) :]
            if (
                key.startswith(prefix)
                and len(rest) >= _MIN_PREFIXED_REST
                and rest not in SPANISH_FUNCTION_WORDS
            ):
                words = self._known(rest)
                if words and rest not in words:  # "recompute" is English: "compute" is no translation
                    return [e + w for w in words if " " not in w for e in english] + list(words)
        return []

    def _expand_folded(self, key: str) -> tuple[str, ...]:
        if key in SPANISH_FUNCTION_WORDS:
            return ()
        english = self.translations.get(key, ())
        if key not in self.listed:  # an inflected loan: bytes -> byte adds nothing (see _same_stem)
            english = tuple(w for w in english if not _same_stem(key, w))
        found: list[str] = [*english, *self.synonyms.get(key, ())]
        for w in english:
            found.extend(self.synonyms.get(w, ()))
        if not found and " " not in key:
            for stem in _stems(key):  # lands on a word with synonyms or a listed form: loading, defined
                if stem in self.synonyms or stem in self.listed:
                    if stem in self.english:  # not a Spanish stem: "tuplas" gets "tuple", not "tupla"
                        found.append(stem)
                    found.extend(self._expand_folded(stem))
                    break
        if not found and " " not in key:  # a Spanish plural, feminine or prefixed form of a known word
            english = tuple(w for w in self._known(key) or self._prefixed(key) if not _same_stem(key, w))
            found.extend(english)
            for w in english:
                found.extend(self.synonyms.get(w, ()))
        if not found and " " not in key:
            found.extend(self._derived(key))
        if not found and " " not in key and not _is_adverb(key):  # "completament" is no English word
            found.extend(_cognates(key))
        return _unique(found, key)

    def _derived(self, key: str) -> tuple[str, ...]:
        """A word made from a known one by a regular ending: an adverb from its adjective (perezosamente ->
        perezosa -> lazy; completamente -> complete), an adjective in -ante/-ente/-iente from its verb
        (bloqueante -> bloquear -> block, dependiente -> depender -> depend)."""
        if _is_adverb(key):
            return self._expand_folded(key[: -len("mente")])
        singular = key[:-1] if key.endswith("s") else key
        for ending, verbs in _PARTICIPLE_ADJECTIVES:
            if singular.endswith(ending) and len(singular) - len(ending) >= 3:
                for verb in verbs:
                    found = self.translations.get(singular[: -len(ending)] + verb)
                    if found:
                        return found
        return ()

    def expand(self, word: str) -> tuple[str, ...]:
        """Extra English words to search as alternatives for `word` (never `word` itself); nothing for a
        Spanish function word."""
        return self._expand_folded(" ".join(fold(word).split()))

    def is_spanish(self, query: str) -> bool:
        """Heuristic: Spanish punctuation/letters, or at least half the words clearly Spanish."""
        if any(c in _SPANISH_MARKS for c in query):
            return True
        words = [fold(w) for w in _WORD.findall(query) if not w.isdigit()]
        if not words:
            return False
        function_hits = sum(w in SPANISH_FUNCTION_WORDS and w not in _ENGLISH_TOO for w in words)
        # a key whose translation contains itself ("error", "variable", "test") says nothing about language
        # and nor does one translated to itself less an English ending ("tokens", "bytes")
        lexical_hits = sum(
            w in self.translations and not any(t == w or _same_stem(w, t) for t in self.translations[w])
            for w in words
        )
        return function_hits >= 2 or (function_hits + lexical_hits) * 2 >= len(words)

    def _is_content(self, key: str) -> bool:
        """Not a function word, nor a word meaning first what an English question's stop word does
        ("usaron": use, "obtener": get, "archivo": file): a Spanish question reads as its translation would."""
        if key in SPANISH_FUNCTION_WORDS:
            return False
        english = self.translations.get(key)
        return not english or english[0] not in STOP_WORDS or english[0] in _CODE_NOUNS

    def content_words(self, query: str) -> list[str]:
        """The query's words as written, less Spanish function words and function phrases: what a Spanish
        question is about ("¿Cómo se genera, de forma recursiva, un subcomando?" -> genera, recursiva,
        subcomando). A phrase key gives its content words ("una sola vez": none; "memoria compartida": both)."""
        return [w for word, _ in self.expand_query(query) for w in word.split() if self._is_content(fold(w))]

    def english_phrases(self, query: str) -> list[tuple[str, tuple[str, ...]]]:
        """The multi-word synonym keys a query says ("command line" -> cli, "file descriptor" -> fd), each with
        its alternatives, in the order they occur; a word belongs to one phrase at most."""
        folded = [fold(t) for t in _WORD.findall(query)]
        out: list[tuple[str, tuple[str, ...]]] = []
        i = 0
        while i < len(folded):
            for n in (4, 3, 2):
                key = " ".join(folded[i : i + n])
                if i + n <= len(folded) and key in self.synonyms:
                    out.append((key, self.synonyms[key]))
                    i += n
                    break
            else:
                i += 1
        return out

    def expand_query(self, query: str) -> list[tuple[str, tuple[str, ...]]]:
        """(word, alternatives) for each content word of a query; multi-word lexicon keys are taken greedily.

        Tokens under two characters, Spanish function words, words that first mean an English stop word
        and function phrases ("a partir de", "de forma") are skipped; a phrase's word is its tokens joined
        by one space.
        """
        tokens = _WORD.findall(query)
        folded = [fold(t) for t in tokens]
        out: list[tuple[str, tuple[str, ...]]] = []
        i = 0
        while i < len(tokens):
            skip = max(
                (len(p) for p in SPANISH_FUNCTION_PHRASES if tuple(folded[i : i + len(p)]) == p), default=0
            )
            if skip:
                i += skip
                continue
            for n in range(min(self.longest_key, len(tokens) - i), 1, -1):
                key = " ".join(folded[i : i + n])
                if key in self.translations:
                    out.append((" ".join(tokens[i : i + n]), self._expand_folded(key)))
                    i += n
                    break
            else:
                if len(tokens[i]) >= _MIN_WORD and self._is_content(folded[i]):
                    out.append((tokens[i], self._expand_folded(folded[i])))
                i += 1
        return out
