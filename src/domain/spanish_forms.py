"""Spanish inflection: every written form of a verb, noun or adjective from its dictionary form.

Forms are accent-folded ("construyó" is "construyo"), as the lexicon looks words up folded. A verb yields the
forms a question about code uses: the present (1st and 3rd person, singular and plural, and the 2nd singular),
the present subjunctive, the preterite and imperfect 3rd person, the future and conditional, the infinitive
with an object or reflexive pronoun ("validarlo", "ejecutarse"), the gerund ("calculando") and the participle
in both genders and numbers ("anidadas"). Spelling changes are regular (busca/busque, protege/proteja,
conoce/conozca, construye/construya, lee/leyendo); stem changes are given (e>ie, o>ue, e>i, u>ue), and the
common irregular roots are listed with every compound built on them (poner: compone, expuesto; tener:
obtiene, mantenga; ducir: produce, traduzca). A few forms that no one writes ("hacio") come out too; they
never match a question's word, so they cost nothing but memory.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

STEM_CHANGES = frozenset({"ie", "ue", "i"})

# -ar endings: after the stressed stem (present), before e (subjunctive), after the plain stem (the rest)
_AR_STRESSED = ("o", "as", "a", "an")
_AR_SUBJUNCTIVE = ("e", "en")
_AR_PLAIN = ("amos", "aron", "aba", "aban", "abamos", "ado", "ada", "ados", "adas", "o")
# -er/-ir: present after the stressed stem, subjunctive after it with its spelling change, the rest plain
_ER_PRESENT = ("es", "e", "en")
_ER_SUBJUNCTIVE = ("o", "a", "an")
_ER_PLAIN = ("ia", "ian", "iamos", "ido", "ida", "idos", "idas")
_CLITICS = ("", "lo", "la", "los", "las", "le", "les", "se")

# irregular roots, each also the tail of its compounds (componer, obtener, producir, extraer, deshacer, ...)
_IRREGULAR: dict[str, str] = {
    "hacer": "hace hacen haga hagan hago hecho hecha hechos hechas hizo hicieron haciendo hara haran haria",
    "facer": "face facen faga fagan fecho fecha fechos fechas fizo",
    "poner": "pone ponen ponga pongan pongo puesto puesta puestos puestas puso pusieron poniendo pondra pondria",
    "tener": "tiene tienen tenga tengan tengo tenido tenida tuvo tuvieron teniendo tendra tendran tendria",
    "venir": "viene vienen venga vengan vengo venido vino vinieron viniendo vendra vendria",
    "decir": "dice dicen diga digan digo dicho dicha dichos dichas dijo dijeron diciendo dira diria",
    "ducir": "duce ducen duzca duzcan duzco dujo dujeron duciendo ducido ducida ducidos ducidas",
    "traer": "trae traen traiga traigan traigo trajo trajeron trayendo traido traida traidos traidas",
    "salir": "sale salen salga salgan salgo salio salieron saliendo saldra saldria",
    "valer": "vale valen valga valgan valgo valdra valdria",
    "caer": "cae caen caiga caigan caigo cayo cayeron cayendo caido caida caidos caidas",
    "oir": "oye oyen oiga oigan oigo oido oyendo oyo",
    "saber": "sabe saben sepa sepan se supo sabido",
    "querer": "quiere quieren quiera quieran quiso querido querra querria",
    "prever": "preve preven prevea prevean previsto prevista previo",
    "abrir": "abierto abierta abiertos abiertas",
    "cubrir": "cubierto cubierta cubiertos cubiertas",
    "scribir": "scrito scrita scritos scritas",
    "romper": "roto rota rotos rotas",
    "volver": "vuelto vuelta vueltos vueltas",
    "solver": "suelto suelta sueltos sueltas",
    "imprimir": "impreso impresa impresos impresas",
    "morir": "muerto muerta muertos muertas",
}


def _stressed(stem: str, change: str | None) -> str:
    """The stem with its last e (or o) changed, as in the stressed forms: cerr -> cierr, cont -> cuent."""
    if change is None:
        return stem
    vowel = "o" if change == "ue" else "e"
    at = stem.rfind(vowel)
    if at < 0 and change == "ue":  # jugar
        at = stem.rfind("u")
    return stem if at < 0 else stem[:at] + change + stem[at + 1 :]


def _weak(stem: str, change: str | None) -> str:
    """An -ir verb's stem before a stressed i-less ending: sugir-iendo, pid-io, durm-iendo."""
    if change in ("ie", "i"):
        at = stem.rfind("e")
        return stem if at < 0 else stem[:at] + "i" + stem[at + 1 :]
    if change == "ue":
        at = stem.rfind("o")
        return stem if at < 0 else stem[:at] + "u" + stem[at + 1 :]
    return stem


def _before_e(stem: str) -> str:
    """An -ar stem before e: busc -> busqu, agreg -> agregu, utiliz -> utilic, averigu -> averigu."""
    if stem.endswith("c"):
        return stem[:-1] + "qu"
    if stem.endswith("g"):
        return stem + "u"
    if stem.endswith("z"):
        return stem[:-1] + "c"
    return stem


def _before_a(stem: str) -> str:
    """An -er/-ir stem before a or o: proteg -> protej, segu -> sig, conoc -> conozc, venc -> venz."""
    if stem.endswith("gu"):
        return stem[:-1]
    if stem.endswith("qu"):
        return stem[:-2] + "c"
    if stem.endswith("g"):
        return stem[:-1] + "j"
    if stem.endswith("c"):
        return stem[:-1] + ("zc" if len(stem) >= 2 and stem[-2] in "aeiou" else "z")
    return stem


def verb_forms(infinitive: str, change: str | None = None) -> Iterator[str]:
    """Every form of a verb given folded: `verb_forms("sugerir", "ie")` yields sugiere, sugieren, sugiera,
    sugiriendo, sugerido, ... The infinitive must end in -ar, -er or -ir; `change` is one of STEM_CHANGES."""
    if len(infinitive) < 4 or infinitive[-2:] not in ("ar", "er", "ir"):
        return
    conj, stem = infinitive[-2:], infinitive[:-2]
    strong, weak = _stressed(stem, change), (_weak(stem, change) if conj == "ir" else stem)
    for clitic in _CLITICS:
        yield infinitive + clitic
    yield from (infinitive + ending for ending in ("a", "an", "emos", "ia", "ian"))  # future, conditional
    if conj == "ar":
        yield from (strong + e for e in _AR_STRESSED)
        yield from (_before_e(strong) + e for e in _AR_SUBJUNCTIVE)
        yield _before_e(stem) + "emos"
        yield from (stem + e for e in _AR_PLAIN)  # "o": the preterite (validó), folded
        yield from (stem + "ando" + c for c in _CLITICS)
        return
    # a stem ending in a vowel turns the i of some endings to y: lee -> leyendo, construir -> construye
    glide = stem.endswith(("a", "e", "o")) or (stem.endswith("u") and not stem.endswith(("gu", "qu")))
    present = strong + "y" if stem.endswith("u") and glide else strong
    yield from (present + e for e in _ER_PRESENT)
    yield from (_before_a(present) + e for e in _ER_SUBJUNCTIVE)
    yield _before_a(weak) + "amos"
    yield stem + ("imos" if conj == "ir" else "emos")
    yield from (stem + e for e in _ER_PLAIN)
    i = "y" if glide else "i"
    yield from (weak + i + e for e in ("o", "eron"))  # preterite 3rd person
    yield from (weak + i + "endo" + c for c in _CLITICS)
    for root, forms in _IRREGULAR.items():
        if infinitive.endswith(root):
            prefix = infinitive[: -len(root)]  # compounds keep their root's irregular forms: com-puesto
            yield from (prefix + form for form in forms.split())
            break


def noun_forms(singular: str) -> Iterator[str]:
    """A noun and its plural, folded: comilla -> comillas, caracter -> caracteres, vez -> veces. A noun ending
    in a consonant Spanish words do not end in also gets the plural English loans take (sockets, hashs)."""
    yield singular
    last = singular[-1:]
    if last in "aeiou":
        yield singular + "s"
    elif last == "z":
        yield singular[:-1] + "ces"
    elif last == "s":
        yield singular + "es"  # mes -> meses; analisis stays as it is
    else:
        yield singular + "es"
        if last not in "lnrdj":  # an English loan: bits, bytes, sockets, hashes
            yield singular + "s"


def adjective_forms(masculine: str) -> Iterator[str]:
    """An adjective in both genders and numbers: anidado -> anidada, anidados, anidadas; comun -> comunes;
    lector -> lectora, lectores, lectoras."""
    if masculine.endswith("o"):
        stem = masculine[:-1]
        yield from (stem + e for e in ("o", "a", "os", "as"))
        return
    yield from noun_forms(masculine)
    if masculine.endswith(("or", "on", "an", "in")):
        yield masculine + "a"
        yield masculine + "as"


LEMMA_KINDS = ("nouns", "adjectives", "verbs")  # in this order a form shared by two lemmas lists their words
_UNINFLECTED = frozenset({"de", "del", "y", "en", "a", "con", "sin", "para", "por", "al"})


def inflections(kind: str, lemma: str) -> Iterator[str]:
    """Every form of a lemma of `kind` (one of LEMMA_KINDS), at least 3 letters long. A verb may carry its
    stem change ("sugerir:ie"); a noun or adjective of several words inflects each but its function words
    ("barra invertida" -> "barras invertidas", "fin de linea" -> "fines de linea")."""
    if kind == "verbs":
        infinitive, _, change = lemma.partition(":")
        forms: Iterator[str] = verb_forms(infinitive, change or None)
    elif kind in ("nouns", "adjectives"):
        inflect = noun_forms if kind == "nouns" else adjective_forms
        parts = lemma.split()
        if len(parts) == 1:
            forms = inflect(lemma)
        else:
            variants = [[p] if p in _UNINFLECTED else list(adjective_forms(p)) for p in parts]
            forms = (" ".join(words) for words in itertools.product(*variants))
    else:
        raise ValueError(f"unknown lemma kind {kind!r}")
    for form in dict.fromkeys(forms):
        if len(form) >= 3:
            yield form
