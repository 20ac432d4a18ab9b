"""Split a compound question into the parts an engine can answer one by one.

"find parse_header() and its error handling" asks two things: where `parse_header()` is, and how errors
are handled around it. Each part is classified and routed on its own, then the rankings are fused with the
whole question's (query-classifier.md, "Integration Points" 1: the complex indicators). A part that starts
with a pronoun ("its", "their", "su") refers to the first part's subject, so it gets that subject's
identifiers in front: "parse_header() error handling".
"""

from __future__ import annotations

import re

MAX_PARTS = 4
# Plain "and"/"y" usually joins nouns ("separator and quoting style"): it only separates questions
# when a pronoun or a question word follows ("X() and its error handling", "... and where it is read").
_SEPARATORS = re.compile(
    r"\s*(?:(?:[,;]|\band)\s*also\b|;|,?\s*\band\s+then\b|,?\s*\bthen\b|\bas well as\b|\bplus\b"
    r"|\band\s+(?=(?:its|their|it|them|how|where|what|which|who|when|why)\b)"
    r"|\by\s+(?=(?:su|sus|c[oó]mo|d[oó]nde|qu[eé]|cu[aá]ndo)\b)|\by\s+luego\b|\by\s+tambi[eé]n\b"
    r"|\badem[aá]s\b)\s*",
    re.IGNORECASE,
)
_PRONOUNS = frozenset(
    {"its", "it", "their", "them", "they", "this", "that", "su", "sus", "esa", "ese", "esto"}
)
_IDENTIFIER = re.compile(r"[A-Za-z_][\w.]*(?:\(\))?")
_LEADING = frozenset(
    {"find", "show", "where", "is", "are", "the", "how", "does", "do", "me", "busca", "donde"}
)
_FILLER = frozenset({"the", "a", "an", "to", "of", "in", "for", "how", "where", "what", "is", "are", "do"})


def _is_code(word: str) -> bool:
    return (
        "_" in word or "(" in word or "." in word.strip(".") or (word[:1].islower() and word != word.lower())
    )


def _subject(part: str) -> str:
    """The identifiers of a part (what a later pronoun refers to), or its last content word."""
    words = [w for w in _IDENTIFIER.findall(part) if w.lower() not in _LEADING]
    code = [w for w in words if _is_code(w)]
    if code:
        return " ".join(code)
    return words[-1] if words else ""


def _content_words(part: str) -> list[str]:
    return [w for w in re.findall(r"\w+", part) if w.lower() not in _FILLER]


def split_subqueries(query: str) -> list[str]:
    """The parts of a compound question, or [] when it is one question (or would split into noise)."""
    parts = [p.strip(" ,.;?¿!¡") for p in _SEPARATORS.split(query)]
    parts = [p for p in parts if p]
    if len(parts) < 2 or len(parts) > MAX_PARTS:
        return []
    if any(len(_content_words(p)) == 0 for p in parts):
        return []
    # "parse and validate input": one verb alone is not a question of its own
    if sum(len(_content_words(p)) >= 2 or any(_is_code(w) for w in p.split()) for p in parts) < 2:
        return []
    subject = _subject(parts[0])
    out = [parts[0]]
    for part in parts[1:]:
        first, _, rest = part.partition(" ")
        if first.lower() in _PRONOUNS and subject:
            part = f"{subject} {rest}".strip()
        out.append(part)
    return out
