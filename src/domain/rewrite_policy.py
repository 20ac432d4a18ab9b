"""When to ask the LLM to rewrite a query, and how its focus re-weights results (llm-query-rewriting.md
Tasks 4 and 5).

* ``should_rewrite`` is the document's heuristic unchanged: code-like queries (dotted paths, camelCase,
  snake_case) and short keyword queries go straight to search; natural-language questions with at least three
  meaningful words are rewritten.
* ``apply_focus`` multiplies by ``FOCUS_MULTIPLIER`` (0.7, the document's decision) the score of every
  result on the side the focus is not about, then re-sorts.
* ``parse_rewrite_reply`` reads a model's reply into a ``RewrittenQuery`` (terms + focus) or a ``BadReply``
  with the reason, whatever the adapter that fetched it.

Decisions where the document is silent:

* ``_STOP_WORDS`` is not given there; it is a small English list of articles, pronouns, auxiliaries,
  prepositions, conjunctions and question words. Words that name code ("get", "set", "new", "file") are not
  stop words.
* ``is_test_file`` keeps the document's rules (a ``tests`` path component, ``test_*`` or ``*_test.py``) and
  adds a ``test`` or ``__tests__`` directory, ``conftest.py``, and ``*_test`` with any extension
  (``store_test.go``). A ``testing`` directory is not a test (``numpy/testing`` is library code).
  Backslashes count as separators, and matching is case-sensitive, as in the document.
* ``apply_focus`` always returns the items sorted by score, highest first and stable for ties, also for
  ``Focus.ALL`` (where the document returned the input order untouched).
* ``infer_focus`` is the fallback when no LLM supplied a focus: "tests" when the query mentions tests (English
  or Spanish), "all" when it only says something is "tested" (a check in the code as often as a test),
  otherwise "implementation".
* ``parse_focus`` maps anything that is not a known focus (an LLM's free text, ``None``) to ``Focus.ALL``,
  the choice that changes no score.
"""

from __future__ import annotations

import enum
import functools
import json
import re
from collections.abc import Callable, Sequence
from typing import TypeVar

import attrs

T = TypeVar("T")

FOCUS_MULTIPLIER = 0.7

_QUESTION_WORDS = frozenset({"how", "what", "where", "why", "when", "which", "does", "do"})

_STOP_WORDS = frozenset(
    {
        # articles, determiners, pronouns
        "a", "an", "the", "this", "that", "these", "those", "some", "any", "each", "every", "all", "both",
        "i", "me", "my", "we", "us", "our", "you", "your", "he", "him", "his", "she", "her", "it", "its",
        "they", "them", "their", "there", "here",
        # auxiliaries and modals
        "is", "are", "was", "were", "be", "been", "being", "am", "do", "does", "did", "doing", "done",
        "have", "has", "had", "having", "can", "could", "should", "would", "will", "shall", "may", "might",
        "must",
        # question words
        "how", "what", "where", "why", "when", "which", "who", "whom", "whose",
        # prepositions
        "of", "in", "on", "at", "by", "for", "with", "about", "into", "onto", "from", "to", "up", "down",
        "out", "over", "under", "between", "through", "during", "before", "after", "above", "below",
        "within", "without", "across", "via", "per",
        # conjunctions and adverbs
        "and", "or", "but", "if", "then", "else", "so", "than", "too", "very", "not", "no", "nor", "as",
        "just", "also", "only", "again", "once", "such", "own", "same", "other", "more", "most", "while",
        "until", "because",
    }
)  # fmt: skip

_CAMEL_CASE_RE = re.compile(r"[a-z][A-Z]")
_SNAKE_CASE_RE = re.compile(r"\w+_\w+")
_DOTTED_PATH_RE = re.compile(r"\w+\.\w+")

# each ecosystem's places for tests and their data: Go testdata/, JS __tests__/ and __mocks__/
_TEST_DIRECTORIES = frozenset({"tests", "test", "__tests__", "__mocks__", "testdata"})
# file names: Python test_x.py, Go x_test.go, JS/TS x.test.ts and x.spec.js, Ruby x_spec.rb, Java/C# XTest(s)
_TEST_STEM = re.compile(r"(?:_test|\.test|\.spec|_spec|[a-z0-9]Tests?)$")
_TEST_WORDS = frozenset(
    {"test", "tests", "testing", "pytest", "unittest", "unittests", "fixture", "fixtures",
     "conftest", "prueba", "pruebas"}
)  # fmt: skip
# "where is a checked-out connection tested": a check the code makes as often as a test that covers it, so
# neither side is preferred
_EITHER_WORDS = frozenset({"tested", "probado", "probada"})
_WORD_RE = re.compile(r"[^\W_]+")  # words without underscores, so "test_store" mentions "test"


class Focus(enum.StrEnum):
    IMPLEMENTATION = "implementation"
    TESTS = "tests"
    ALL = "all"


def should_rewrite(query: str) -> bool:
    """True for a natural-language query worth an LLM rewrite, False for code-like or keyword queries."""
    query = query.strip()
    if not query:
        return False
    if _DOTTED_PATH_RE.search(query) or _CAMEL_CASE_RE.search(query):
        return False
    tokens = [token for token in re.split(r"[^\w]+", query) if token]
    if not tokens:
        return False
    if len(tokens) == 1 and _SNAKE_CASE_RE.match(tokens[0]):
        return False
    non_stop = [token for token in tokens if token.lower() not in _STOP_WORDS]
    # Fewer than three meaningful words is a keyword search, whatever else it looks like.
    if len(non_stop) < 3:
        return False
    if any(_SNAKE_CASE_RE.match(token) for token in tokens):
        return False
    if {token.lower() for token in tokens} & _QUESTION_WORDS:
        return True
    stop_count = len(tokens) - len(non_stop)
    return stop_count / len(tokens) > 0.4


@functools.lru_cache(maxsize=16384)
def is_test_file(path: str) -> bool:
    """True when ``path`` looks like a test, a test helper or a test fixture (asked several times for every
    ranked hit of a search: remembered per path)."""
    parts = [part for part in path.replace("\\", "/").split("/") if part]
    if not parts:
        return False
    basename = parts[-1]
    if "tests" in parts or _TEST_DIRECTORIES.intersection(parts[:-1]):
        return True
    stem = basename.rsplit(".", 1)[0] if "." in basename else basename
    return basename.startswith("test_") or bool(_TEST_STEM.search(stem)) or basename == "conftest.py"


def focus_multiplier(path: str, focus: Focus) -> float:
    """1.0 when ``path`` is on the side ``focus`` asks for (or focus is ALL), else ``FOCUS_MULTIPLIER``."""
    if focus is Focus.ALL:
        return 1.0
    wants_tests = focus is Focus.TESTS
    return 1.0 if is_test_file(path) == wants_tests else FOCUS_MULTIPLIER


def apply_focus(
    items: Sequence[T],
    focus: Focus,
    *,
    path: Callable[[T], str],
    score: Callable[[T], float],
) -> list[tuple[T, float]]:
    """Each item with its focus-adjusted score, highest first; ties keep their input order."""
    adjusted = [(item, score(item) * focus_multiplier(path(item), focus)) for item in items]
    # sorted() is stable, also with reverse=True.
    return sorted(adjusted, key=lambda pair: pair[1], reverse=True)


def infer_focus(query: str) -> Focus:
    """TESTS when the query is about tests, ALL when it only says something is "tested", else
    IMPLEMENTATION; for when no LLM gave a focus."""
    words = set(_WORD_RE.findall(query.lower()))
    if words & _TEST_WORDS:
        return Focus.TESTS
    return Focus.ALL if words & _EITHER_WORDS else Focus.IMPLEMENTATION


def parse_focus(value: object) -> Focus:
    """A known focus from free text (``"Tests "`` -> TESTS); anything else is ALL, which changes no score."""
    if isinstance(value, str):
        try:
            return Focus(value.strip().lower())
        except ValueError:
            return Focus.ALL
    return Focus.ALL


# --- the model's reply (llm-query-rewriting.md Task 3, ``_parse_response``) ------------------------------

MAX_TERMS = 8
MAX_TERM_CHARS = 80
# A fenced block anywhere in the reply: small models often wrap the JSON in ```json ... ``` and add prose.
_FENCE_RE = re.compile(r"```[\w+-]*[ \t]*\n?(.*?)```", re.DOTALL)


@attrs.frozen(kw_only=True)
class RewrittenQuery:
    """An LLM's reading of a question: code search terms, and which side of the code it is about."""

    terms: tuple[str, ...] = attrs.field(validator=attrs.validators.min_len(1))
    focus: Focus = Focus.ALL


class BadReply(ValueError):
    """A model reply that cannot be used; the message says why, for the search plan."""


def parse_rewrite_reply(content: object) -> RewrittenQuery:
    """The rewrite in a model's reply, or ``BadReply``; never another exception.

    Accepted, beyond the document's bare JSON object: a markdown fence around it, prose around the object
    (the outermost ``{...}`` is read), and ``terms`` given as one comma-separated string. Terms are
    stripped, de-duplicated case-insensitively, cut to ``MAX_TERM_CHARS`` and at most ``MAX_TERMS`` are
    kept, so a runaway reply cannot flood the search. A missing or unknown focus is ``Focus.ALL``.
    """
    if not isinstance(content, str):
        raise BadReply("the reply has no text content")
    text = content.strip()
    fenced = _FENCE_RE.search(text)
    if fenced:
        text = fenced.group(1).strip()
    doc = _json_object(text)
    raw_terms = doc.get("terms")
    if isinstance(raw_terms, str):
        raw_terms = raw_terms.split(",")
    if not isinstance(raw_terms, list):
        raise BadReply('the reply has no "terms" list')
    terms: list[str] = []
    seen: set[str] = set()
    for raw in raw_terms:
        if not isinstance(raw, str):
            continue
        term = " ".join(raw.split())[:MAX_TERM_CHARS].strip()
        if term and term.casefold() not in seen:
            seen.add(term.casefold())
            terms.append(term)
        if len(terms) == MAX_TERMS:
            break
    if not terms:
        raise BadReply('the reply\'s "terms" hold no text')
    return RewrittenQuery(terms=tuple(terms), focus=parse_focus(doc.get("focus")))


def _json_object(text: str) -> dict[str, object]:
    candidates = [text]
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end and (start, end) != (0, len(text) - 1):
        candidates.append(text[start : end + 1])
    for candidate in candidates:
        try:
            doc = json.loads(candidate)
        except (ValueError, RecursionError):
            continue
        if isinstance(doc, dict):
            return doc
    excerpt = " ".join(text.split())[:60]
    raise BadReply(f"the reply is not a JSON object: {excerpt!r}")
