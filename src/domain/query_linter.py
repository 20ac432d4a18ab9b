"""Query linter: is a search query vague, semi-guided or guided, and how to expand a vague one.

Spec: query-linter.md. Pure and deterministic: the same query and config always give the same plan.

Tokens are the whitespace-separated words of the normalized query with edge punctuation stripped
(`"agent.md."` -> `agent.md`, `¿sesión?` -> `sesión`); a token with no letter or digit is dropped.
Anchors are matched on accent-folded, case-folded tokens, longest phrase first, without overlap:

    anchor  = alias | strong | weak | path-like token
    alias   = phrase ("persistencia de sesión") that implies strong anchors ("session.md", ...)
    strong  = names a place: file names, components ("agent.md", "telemetry", "docs/")
    weak    = hints at an area ("config", "template")

Classes, in this order (total_anchors = distinct strong + distinct weak):

    GUIDED  tokens >= 5 and (strong >= 1 or total_anchors >= 2)
    VAGUE   tokens < 3 or total_anchors == 0
    SEMI    otherwise

Only a VAGUE query is expanded, by appending strong anchors to the normalized query:
doc intent (docs, guía, manual, ...) adds `docs/` and `readme.md` ("doc_intent_boost"); otherwise a query of
at most 2 tokens adds the entry points `agent.md` and `prime.md` ("vague_default_boost"). At most 2 strong
anchors are added and never one already present. An empty query is VAGUE and left as it is.
"""

from __future__ import annotations

import enum
import re
import unicodedata
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any

import attrs

GUIDED_MIN_TOKENS = 5
VAGUE_MAX_TOKENS_EXCLUSIVE = 3
DEFAULT_BOOST_MAX_TOKENS = 2
MAX_ADDED_STRONG = 2

REASON_DOC_INTENT = "doc_intent_boost"
REASON_DEFAULT_BOOST = "vague_default_boost"


class QueryClass(enum.StrEnum):
    VAGUE = "vague"
    SEMI = "semi"
    GUIDED = "guided"


# --- text helpers -------------------------------------------------------------------------------------

_LEADING_PUNCT = "\"'`“”‘’«»([{<¿¡,;:!?*"
_TRAILING_PUNCT = "\"'`“”‘’«»)]}>,;:!?.…*"
# A token that names a place: has a directory part (`src/app.py`, `docs/`) or a short extension
# (`agent.md`, `pyproject.toml`); a stem of 2+ characters keeps "e.g" and "i.e" out.
_PATH_LIKE = re.compile(
    r"^(?:[\w.-]*/)+(?:[\w-]*\.[a-z][a-z0-9]{0,5})?$"  # src/app.py, docs/, ./x/
    r"|^[\w-]{2,}(?:\.[\w-]+)*\.[a-z][a-z0-9]{0,5}$"  # agent.md, pyproject.toml
)


def fold(text: str) -> str:
    """Case-fold and drop accents, so "Sesión", "sesion" and "SESIÓN" compare equal."""
    if text.isascii():
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def normalize_query(query: str) -> str:
    """NFC-normalize and collapse runs of whitespace; the expanded query always starts with this."""
    return " ".join(unicodedata.normalize("NFC", query).split())


def tokenize(query: str) -> tuple[str, ...]:
    """Lower-cased tokens of the query, edge punctuation stripped (accents kept)."""
    tokens: list[str] = []
    for piece in normalize_query(query).split(" "):
        token = piece.lstrip(_LEADING_PUNCT).rstrip(_TRAILING_PUNCT)
        if any(ch.isalnum() for ch in token):
            tokens.append(token.lower())
    return tuple(tokens)


def _phrase_key(phrase: str) -> tuple[str, ...]:
    return tuple(fold(word) for word in tokenize(phrase))


# --- configuration ------------------------------------------------------------------------------------


def _as_frozenset(values: Iterable[str]) -> frozenset[str]:
    return frozenset(values)


def _as_tuple(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(values)


def _as_aliases(values: Mapping[str, Iterable[str]]) -> Mapping[str, tuple[str, ...]]:
    # Read-only: the anchor index is built once from it.
    return MappingProxyType({str(phrase): tuple(anchors) for phrase, anchors in values.items()})


def _spec_doc_terms() -> frozenset[str]:
    return frozenset({"docs", "guía", "manual"})  # the spec's own list


class _Kind(enum.IntEnum):
    # Lower wins when two entries have the same phrase.
    ALIAS = 0
    STRONG = 1
    WEAK = 2


@attrs.frozen(kw_only=True)
class _Entry:
    words: tuple[str, ...]
    kind: _Kind
    label: str  # the anchor or alias phrase as the config spells it
    implies: tuple[str, ...] = ()


def _build_index(config: LinterConfig) -> Mapping[str, tuple[_Entry, ...]]:
    """First folded word -> entries starting with it, longest phrase first (ties: alias, strong, weak)."""
    entries: dict[tuple[str, ...], _Entry] = {}

    def add(entry: _Entry) -> None:
        if not entry.words:
            return
        current = entries.get(entry.words)
        if current is None or (entry.kind, entry.label) < (current.kind, current.label):
            entries[entry.words] = entry

    for phrase, implied in config.aliases.items():
        add(_Entry(words=_phrase_key(phrase), kind=_Kind.ALIAS, label=phrase, implies=implied))
    for anchor in config.strong_anchors:
        add(_Entry(words=_phrase_key(anchor), kind=_Kind.STRONG, label=anchor))
    for anchor in config.weak_anchors:
        add(_Entry(words=_phrase_key(anchor), kind=_Kind.WEAK, label=anchor))

    by_first: dict[str, list[_Entry]] = {}
    for entry in entries.values():
        by_first.setdefault(entry.words[0], []).append(entry)
    return {
        first: tuple(sorted(group, key=lambda e: (-len(e.words), e.kind, e.label)))
        for first, group in by_first.items()
    }


@attrs.frozen(kw_only=True)
class LinterConfig:
    """The data the linter decides with; anchors and aliases are handed in, never read here."""

    strong_anchors: frozenset[str] = attrs.field(converter=_as_frozenset)
    weak_anchors: frozenset[str] = attrs.field(converter=_as_frozenset)
    aliases: Mapping[str, tuple[str, ...]] = attrs.field(converter=_as_aliases, factory=dict)
    doc_intent_terms: frozenset[str] = attrs.field(converter=_as_frozenset, factory=_spec_doc_terms)
    doc_boost_anchors: tuple[str, ...] = attrs.field(converter=_as_tuple, default=("docs/", "readme.md"))
    default_boost_anchors: tuple[str, ...] = attrs.field(
        converter=_as_tuple, default=("agent.md", "prime.md")
    )
    # Path-like tokens (`src/app.py`, `docs/`, `agent.md`) name a place, so they count as strong anchors.
    path_tokens_are_strong: bool = True
    _index: Mapping[str, tuple[_Entry, ...]] = attrs.field(init=False, repr=False, eq=False)
    _doc_terms: frozenset[str] = attrs.field(init=False, repr=False, eq=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "_index", _build_index(self))
        object.__setattr__(self, "_doc_terms", frozenset(fold(t).rstrip("/") for t in self.doc_intent_terms))

    def with_anchors(self, *, strong: Iterable[str] = (), weak: Iterable[str] = ()) -> LinterConfig:
        """A copy that also knows these anchors (e.g. file and symbol names of the indexed segment)."""
        return attrs.evolve(
            self,
            strong_anchors=self.strong_anchors | frozenset(strong),
            weak_anchors=self.weak_anchors | frozenset(weak),
        )

    def with_aliases(self, aliases: Mapping[str, Iterable[str]]) -> LinterConfig:
        """A copy with these aliases added (a phrase already present is replaced)."""
        merged: dict[str, tuple[str, ...]] = dict(self.aliases)
        merged.update({phrase: tuple(anchors) for phrase, anchors in aliases.items()})
        return attrs.evolve(self, aliases=merged)


# --- the plan -----------------------------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class LintChanges:
    added_strong: tuple[str, ...] = ()
    added_weak: tuple[str, ...] = ()
    reasons: tuple[str, ...] = ()

    def to_data(self) -> dict[str, Any]:
        if not (self.added_strong or self.added_weak):
            return {}
        data: dict[str, Any] = {"added_strong": list(self.added_strong)}
        if self.added_weak:
            data["added_weak"] = list(self.added_weak)
        data["reasons"] = list(self.reasons)
        return data


@attrs.frozen(kw_only=True)
class AnchorsDetected:
    strong: tuple[str, ...] = ()
    weak: tuple[str, ...] = ()
    aliases_matched: tuple[str, ...] = ()

    @property
    def total(self) -> int:
        return len(self.strong) + len(self.weak)

    def to_data(self) -> dict[str, Any]:
        return {
            "strong": list(self.strong),
            "weak": list(self.weak),
            "aliases_matched": list(self.aliases_matched),
        }


@attrs.frozen(kw_only=True)
class LintPlan:
    query_class: QueryClass
    changed: bool
    original_query: str
    expanded_query: str
    tokens: tuple[str, ...]
    changes: LintChanges
    anchors_detected: AnchorsDetected

    @property
    def token_count(self) -> int:
        return len(self.tokens)

    @property
    def added_strong_count(self) -> int:
        return len(self.changes.added_strong)

    @property
    def added_weak_count(self) -> int:
        return len(self.changes.added_weak)

    @property
    def reasons(self) -> tuple[str, ...]:
        return self.changes.reasons

    def to_data(self) -> dict[str, Any]:
        """The plan exactly as query-linter.md shows it."""
        return {
            "query_class": self.query_class.value,
            "changed": self.changed,
            "expanded_query": self.expanded_query,
            "changes": self.changes.to_data(),
            "anchors_detected": self.anchors_detected.to_data(),
        }


# --- default data -------------------------------------------------------------------------------------

_SESSION_PERSISTENCE = ("session.md", "session append")

DEFAULT_LINTER_CONFIG = LinterConfig(
    strong_anchors=frozenset(
        {
            # files a segment carries
            "agent.md",
            "prime.md",
            "session.md",
            "skill.md",
            "readme.md",
            "docs/",
            "pyproject.toml",
            "context_pack.json",
            # named components
            "telemetry",
            "context pack",
            "session append",
            "ctx search",
            "ctx get",
            "ctx build",
            "query linter",
            "query classifier",
        }
    ),
    weak_anchors=frozenset(
        {
            "config",
            "configuration",
            "configuración",
            "settings",
            "template",
            "plantilla",
            "schema",
            "index",
            "índice",
            "search",
            "búsqueda",
            "cli",
            "test",
            "tests",
            "pruebas",
            "budget",
            "presupuesto",
            "selector",
            "symbol",
            "symbols",
            "parser",
            "ranking",
            "embedding",
            "embeddings",
            "segment",
            "segmento",
            "chunk",
            "chunks",
            "snippet",
            "hover",
            "lsp",
            "mcp",
            "linter",
            "classifier",
            "session",
            "agent",
            "prime",
            "skill",
            "contract",
            "envelope",
            "cache",
            "error",
            "errors",
        }
    ),
    aliases={
        # Trifecta's own places, English and Spanish
        "persistencia de sesión": _SESSION_PERSISTENCE,
        "persistir la sesión": _SESSION_PERSISTENCE,
        "session persistence": _SESSION_PERSISTENCE,
        "persist session": _SESSION_PERSISTENCE,
        "historial de sesión": ("session.md",),
        "registro de sesión": ("session.md",),
        "session history": ("session.md",),
        "session log": ("session.md",),
        "instrucciones del agente": ("agent.md",),
        "configuración del agente": ("agent.md",),
        "agent instructions": ("agent.md",),
        "agent setup": ("agent.md",),
        "punto de entrada": ("prime.md",),
        "puntos de entrada": ("prime.md",),
        "lista de lectura": ("prime.md",),
        "entry point": ("prime.md",),
        "entry points": ("prime.md",),
        "reading list": ("prime.md",),
        "telemetría": ("telemetry",),
        "métricas": ("telemetry",),
        "metrics": ("telemetry",),
        "paquete de contexto": ("context pack", "context_pack.json"),
        "búsqueda de contexto": ("ctx search",),
        "buscar contexto": ("ctx search",),
        "context search": ("ctx search",),
        "linter de consultas": ("query linter",),
        "query linting": ("query linter",),
        "clasificador de consultas": ("query classifier",),
        "query classification": ("query classifier",),
        "definición de habilidad": ("skill.md",),
        "skill definition": ("skill.md",),
        "documentación del proyecto": ("docs/", "readme.md"),
        "project documentation": ("docs/", "readme.md"),
        # general programming vocabulary, Spanish -> the English words code is written in
        "manejo de errores": ("exception", "error"),
        "gestión de errores": ("exception", "error"),
        "error handling": ("exception", "error"),
        "inicio de sesión": ("login", "auth"),
        "iniciar sesión": ("login", "auth"),
        "autenticación": ("auth", "login"),
        "authentication": ("auth", "login"),
        "base de datos": ("database", "db"),
        "línea de comandos": ("cli", "argparse"),
        "command line": ("cli", "argparse"),
        "pruebas unitarias": ("tests/unit",),
        "unit tests": ("tests/unit",),
        "pruebas de integración": ("tests/integration",),
        "integration tests": ("tests/integration",),
        "variables de entorno": ("os.environ", ".env"),
        "environment variables": ("os.environ", ".env"),
        "registro de eventos": ("logging", "logger"),
        "bitácora": ("logging", "logger"),
        "almacenamiento en caché": ("cache",),
        "caché": ("cache",),
        "reintentos": ("retry",),
        "lógica de reintentos": ("retry",),
        "retry logic": ("retry",),
        "expresión regular": ("regex", "re"),
        "expresiones regulares": ("regex", "re"),
        "regular expression": ("regex", "re"),
        "hilo de ejecución": ("thread", "threading"),
        "hilos": ("thread", "threading"),
        "subproceso": ("subprocess",),
        "subprocesos": ("subprocess",),
    },
    doc_intent_terms=frozenset(
        {
            "doc",
            "docs",
            "documentation",
            "documentación",
            "documentos",
            "guide",
            "guides",
            "guía",
            "guías",
            "manual",
            "manuals",
            "manuales",
            "readme",
            "tutorial",
            "tutorials",
            "tutoriales",
            "handbook",
        }
    ),
)


# --- linting ------------------------------------------------------------------------------------------


class _Collector:
    """Ordered, de-duplicated (by folded form) list of anchors."""

    def __init__(self) -> None:
        self.items: list[str] = []
        self.seen: set[str] = set()

    def add(self, item: str) -> None:
        key = fold(item)
        if key not in self.seen:
            self.seen.add(key)
            self.items.append(item)


def _detect(tokens: tuple[str, ...], config: LinterConfig) -> AnchorsDetected:
    folded = [fold(token) for token in tokens]
    index = config._index
    strong, weak, aliases = _Collector(), _Collector(), _Collector()
    i = 0
    while i < len(folded):
        match: _Entry | None = None
        for entry in index.get(folded[i], ()):
            n = len(entry.words)
            if n == 1 or tuple(folded[i : i + n]) == entry.words:
                match = entry
                break
        if match is not None:
            if match.kind is _Kind.ALIAS:
                aliases.add(match.label)
                for anchor in match.implies:
                    strong.add(anchor)
            elif match.kind is _Kind.STRONG:
                strong.add(match.label)
            else:
                weak.add(match.label)
            i += len(match.words)
            continue
        if config.path_tokens_are_strong and _PATH_LIKE.match(folded[i]):
            strong.add(tokens[i])
        i += 1
    # A strong anchor is not also reported as weak.
    weak_only = tuple(w for w in weak.items if fold(w) not in strong.seen)
    return AnchorsDetected(strong=tuple(strong.items), weak=weak_only, aliases_matched=tuple(aliases.items))


def _classify(token_count: int, anchors: AnchorsDetected) -> QueryClass:
    if token_count >= GUIDED_MIN_TOKENS and (len(anchors.strong) >= 1 or anchors.total >= 2):
        return QueryClass.GUIDED
    if token_count < VAGUE_MAX_TOKENS_EXCLUSIVE or anchors.total == 0:
        return QueryClass.VAGUE
    return QueryClass.SEMI


def _expand(tokens: tuple[str, ...], anchors: AnchorsDetected, config: LinterConfig) -> LintChanges:
    if not tokens:
        return LintChanges()
    if any(fold(token).rstrip("/") in config._doc_terms for token in tokens):
        candidates, reason = config.doc_boost_anchors, REASON_DOC_INTENT
    elif len(tokens) <= DEFAULT_BOOST_MAX_TOKENS:
        candidates, reason = config.default_boost_anchors, REASON_DEFAULT_BOOST
    else:
        return LintChanges()
    present = {fold(token) for token in tokens} | {fold(a) for a in anchors.strong + anchors.weak}
    added: list[str] = []
    for anchor in candidates:
        key = fold(anchor)
        if key in present:
            continue
        present.add(key)
        added.append(anchor)
        if len(added) == MAX_ADDED_STRONG:
            break
    if not added:
        return LintChanges()
    return LintChanges(added_strong=tuple(added), reasons=(reason,))


def lint(query: str, config: LinterConfig = DEFAULT_LINTER_CONFIG) -> LintPlan:
    """Classify a query and, when it is vague, propose a deterministic expansion. Never raises."""
    normalized = normalize_query(query)
    tokens = tokenize(normalized)
    anchors = _detect(tokens, config)
    query_class = _classify(len(tokens), anchors)
    changes = _expand(tokens, anchors, config) if query_class is QueryClass.VAGUE else LintChanges()
    added = changes.added_strong + changes.added_weak
    expanded = " ".join((normalized, *added)) if added else normalized
    return LintPlan(
        query_class=query_class,
        changed=bool(added),
        original_query=query,
        expanded_query=expanded,
        tokens=tokens,
        changes=changes,
        anchors_detected=anchors,
    )
