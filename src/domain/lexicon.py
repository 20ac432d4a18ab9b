"""Offline query expansion: Spanish words to English code vocabulary, and code-aware English synonyms.

The data is handed in (see `trifecta.infrastructure.lexicon_data`); this module only reads it. Lookups
are accent-folded and case-folded, so "Función", "funcion" and "FUNCIÓN" meet at the same key.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence

import attrs

# Spanish function words: never keys of the lexicon, strong evidence that a query is Spanish.
SPANISH_FUNCTION_WORDS = frozenset(
    {
        "que",
        "como",
        "donde",
        "cuando",
        "cual",
        "cuales",
        "quien",
        "quienes",
        "cuanto",
        "cuantos",
        "cuanta",
        "cuantas",
        "porque",
        "se",
        "los",
        "las",
        "del",
        "una",
        "uno",
        "unos",
        "unas",
        "para",
        "por",
        "con",
        "sin",
        "el",
        "la",
        "lo",
        "le",
        "les",
        "de",
        "en",
        "es",
        "son",
        "esta",
        "estan",
        "este",
        "esto",
        "estos",
        "estas",
        "ese",
        "esa",
        "eso",
        "esos",
        "esas",
        "hay",
        "al",
        "su",
        "sus",
        "pero",
        "si",
        "mas",
        "muy",
        "entre",
        "sobre",
        "desde",
        "hasta",
        "tambien",
        "cada",
        "todo",
        "todos",
        "toda",
        "todas",
        "otro",
        "otra",
        "algun",
        "alguna",
        "ningun",
        "ninguna",
        "puedo",
        "puede",
        "pueden",
        "debe",
        "deben",
        "hace",
        "hacen",
    }
)

_SPANISH_MARKS = frozenset("¿¡ñÑáéíóúüÁÉÍÓÚÜ")
_WORD = re.compile(r"\w+", re.UNICODE)
# light English stemming fallback, longest suffix first
_SUFFIXES = ("ing", "ed", "es", "s")
_MIN_WORD = 2


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


def _cognates(word: str) -> list[str]:
    """English look-alikes of a Spanish word by its ending (guesses: a guess absent from the code
    simply matches nothing), plus the bare stem of a plural (segmentos -> segment)."""
    for ending, english in _COGNATES:
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            return [word[: -len(ending)] + english]
    if word.endswith("os") and len(word) >= 6:
        return [word[:-2]]
    return []


@attrs.frozen
class Lexicon:
    """Spanish -> English translations and English -> English synonyms, both keyed by folded words."""

    translations: Mapping[str, tuple[str, ...]]
    synonyms: Mapping[str, tuple[str, ...]]

    @classmethod
    def from_mappings(
        cls, es_en: Mapping[str, Sequence[str]], synonyms: Mapping[str, Sequence[str]]
    ) -> Lexicon:
        return cls(
            translations={fold(k): tuple(fold(w) for w in v) for k, v in es_en.items()},
            synonyms={fold(k): tuple(fold(w) for w in v) for k, v in synonyms.items()},
        )

    def _expand_folded(self, key: str) -> tuple[str, ...]:
        english = self.translations.get(key, ())
        found: list[str] = [*english, *self.synonyms.get(key, ())]
        for w in english:
            found.extend(self.synonyms.get(w, ()))
        if not found and " " not in key:
            for stem in _stems(key):
                if stem in self.synonyms or stem in self.translations:
                    found.append(stem)
                    found.extend(self._expand_folded(stem))
                    break
        if not found and " " not in key:
            found.extend(_cognates(key))
        return _unique(found, key)

    def expand(self, word: str) -> tuple[str, ...]:
        """Extra English words to search as alternatives for `word` (never `word` itself)."""
        return self._expand_folded(" ".join(fold(word).split()))

    def is_spanish(self, query: str) -> bool:
        """Heuristic: Spanish punctuation/letters, or at least half the words clearly Spanish."""
        if any(c in _SPANISH_MARKS for c in query):
            return True
        words = [fold(w) for w in _WORD.findall(query) if not w.isdigit()]
        if not words:
            return False
        function_hits = sum(w in SPANISH_FUNCTION_WORDS for w in words)
        # a key whose translation contains itself ("error", "variable", "test") says nothing about language
        lexical_hits = sum(w in self.translations and w not in self.translations[w] for w in words)
        return function_hits >= 2 or (function_hits + lexical_hits) * 2 >= len(words)

    def expand_query(self, query: str) -> list[tuple[str, tuple[str, ...]]]:
        """(word, alternatives) for each meaningful query word; multi-word lexicon keys are taken greedily.

        Tokens under two characters and Spanish function words are skipped; a phrase's word is its tokens
        joined by one space.
        """
        tokens = _WORD.findall(query)
        folded = [fold(t) for t in tokens]
        longest = max((k.count(" ") + 1 for k in self.translations), default=1)
        out: list[tuple[str, tuple[str, ...]]] = []
        i = 0
        while i < len(tokens):
            for n in range(min(longest, len(tokens) - i), 1, -1):
                key = " ".join(folded[i : i + n])
                if key in self.translations:
                    out.append((" ".join(tokens[i : i + n]), self._expand_folded(key)))
                    i += n
                    break
            else:
                if len(tokens[i]) >= _MIN_WORD and folded[i] not in SPANISH_FUNCTION_WORDS:
                    out.append((tokens[i], self._expand_folded(folded[i])))
                i += 1
        return out
