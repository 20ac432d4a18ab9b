"""Credentials found by content: known token formats, private-key blocks and high-entropy values assigned
to secret-named keys, in the spirit of detect-secrets and gitleaks (our own, smaller rule set).

Two uses, one set of patterns:

- `secret_kind(text)` decides whether a file holds a credential (the indexer skips it). It must not flag
  ordinary code, so an assignment counts only when its value looks like a real secret: long enough, high
  Shannon entropy, not a placeholder (`changeme`, `<your-token>`, `${VAR}`) and not code
  (`password = get_password()`, `secret_key = os.environ["SECRET_KEY"]`).
- `redact(text)` hides credentials in text people will read (telemetry). It may hide too much, never too
  little: every value assigned to a secret-named key goes, whatever it looks like.

Speed matters (every indexed file is checked): each rule names the literal markers it needs, and a rule's
regex runs only when one of its markers occurs in the text (`str.__contains__` is a fast C scan).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator

import attrs

REDACTED = "[REDACTED]"


@attrs.frozen
class SecretMatch:
    kind: str  # a short reason: "private_key", "github_token", "secret_assignment", ...
    start: int  # the span of the secret value (what `redact` replaces)
    end: int


@attrs.frozen
class _Rule:
    kind: str
    markers: tuple[str, ...]  # the rule can match only if one of these occurs in the text
    pattern: re.Pattern[str]
    group: int | str = 0  # the group that is the secret value
    check: str = ""  # an extra test of the value: "mixed" (letters of both cases and a digit)


# Known formats. Each value is random by construction, so a match is a credential (or a deliberate fake
# shaped exactly like one, which is worth keeping out of an index too).
_TOKEN_RULES = (
    _Rule(
        "private_key",
        ("PRIVATE KEY",),
        # the header, then within a few header lines (Proc-Type, DEK-Info) a run of base64: a mention of the
        # header in code or docs has no body. `\n` escapes (a service-account JSON) are just characters here.
        re.compile(
            r"-----BEGIN[A-Z0-9 ]{0,30} PRIVATE KEY(?: BLOCK)?-----"
            r"(?:[\s\S]{0,300}?[A-Za-z0-9+/]{40,}[\s\S]*?(?:-----END[A-Z0-9 ]{0,30} PRIVATE KEY(?: BLOCK)?-----|\Z))"
        ),
    ),
    _Rule(
        "aws_access_key",
        ("AKIA", "ASIA", "ABIA", "ACCA"),
        re.compile(r"(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}(?![A-Z0-9])"),
    ),
    _Rule(
        "github_token",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
        re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})\b"),
    ),
    _Rule(
        "gitlab_token",
        ("glpat-", "gldt-", "glptt-", "glrt-", "glsoat-"),
        re.compile(r"\bgl(?:pat|dt|ptt|rt|soat)-[A-Za-z0-9_-]{20,}"),
    ),
    _Rule("slack_token", ("xox",), re.compile(r"\bxox[abposr]-[0-9]{6,}-[A-Za-z0-9-]{10,}")),
    _Rule(
        "slack_webhook",
        ("hooks.slack.com",),
        re.compile(
            r"hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9]{8,}/[A-Za-z0-9]{8,}/[A-Za-z0-9]{16,}"
        ),
    ),
    _Rule(
        "stripe_key",
        ("_live_", "_test_"),
        re.compile(r"\b[sr]k_(?:live|test)_[A-Za-z0-9]{20,}"),
        check="mixed",
    ),
    _Rule("pypi_token", ("pypi-AgE",), re.compile(r"\bpypi-AgE[A-Za-z0-9_-]{50,}")),
    _Rule("huggingface_token", ("hf_",), re.compile(r"\bhf_[A-Za-z]{30,}\b"), check="cased"),
    _Rule("anthropic_key", ("sk-ant-",), re.compile(r"\bsk-ant-[A-Za-z0-9_-]{30,}")),
    _Rule(
        "openai_key",
        ("sk-",),
        re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"),
        check="mixed",
    ),
    _Rule("google_api_key", ("AIza",), re.compile(r"\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])")),
    _Rule("npm_token", ("npm_",), re.compile(r"\bnpm_[A-Za-z0-9]{36}\b"), check="mixed"),
    _Rule("sendgrid_key", ("SG.",), re.compile(r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b")),
    _Rule("jwt", ("eyJ",), re.compile(r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}")),
    _Rule(
        "bearer_token",
        ("earer", "EARER"),
        re.compile(r"(?i)\bauthorization[\"']?\s*[:=]\s*[\"']?bearer\s+([A-Za-z0-9._~+/-]{16,}=*)"),
        group=1,
        check="mixed",
    ),
)

# Key names that say "credential". A prefix is allowed (DB_PASSWORD, MY_APP_TOKEN: no word boundary before
# the name), a suffix only after a separator (SECRET_ACCESS_KEY, token_value; not `tokenizer`).
_SECRET_NAMES = (
    r"passw(?:or)?d|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|auth[_-]?key"
    r"|credentials?|signing[_-]?key|encryption[_-]?key"
)
_NAME_MARKERS = (
    "passw",
    "passphrase",
    "secret",
    "token",
    "apikey",
    "api_key",
    "api-key",
    "access_key",
    "access-key",
    "accesskey",
    "private_key",
    "private-key",
    "privatekey",
    "auth_key",
    "authkey",
    "credential",
    "signing",
    "encryption",
)
_ASSIGNMENT = re.compile(
    rf"(?i)(?P<key>(?:{_SECRET_NAMES})(?:[_-][\w-]*)?)[\"']?"
    # `=`, `:`, `:=`, `=>`, or a Python annotation before `=`; never `==`
    r"(?P<sep>\s*(?::\s*[A-Za-z_][\w\[\], .|]{0,40}?\s*=(?!=)|:=|=>|=(?!=)|:(?!:)))[ \t]*"
    r"(?P<value>[bBrRuU]{0,2}(?:\"[^\"\n]*\"|'[^'\n]*'|`[^`\n]*`)|[^\s\"'`,;]+)"
)

_PLACEHOLDER_WORDS = (
    "changeme",
    "change_me",
    "change-me",
    "example",
    "placeholder",
    "dummy",
    "sample",
    "your",
    "redacted",
    "xxxx",
    "****",
    "....",
    "<",
    "${",
    "{{",
    "%(",
    "%s",
    "{",
)
_CODE_CHARS = frozenset("()[]{}<>$%")
_IDENTIFIER = re.compile(r"[A-Za-z_][\w.]*")
_WORDS = re.compile(r"[A-Za-z_.:/-]+")
_ENV_KEY = re.compile(r"[A-Z][A-Z0-9_]*")
MIN_SECRET_CHARS = 10
MIN_ENTROPY = 3.0  # bits per character


def shannon_entropy(text: str) -> float:
    """Bits per character of `text` taken as a sample of its own characters (0.0 for empty text)."""
    n = len(text)
    if n == 0:
        return 0.0
    return -sum(c / n * math.log2(c / n) for c in Counter(text).values())


def _unquote(value: str) -> tuple[str, bool]:
    stripped = value.lstrip("bBrRuU") if value[:3].lstrip("bBrRuU")[:1] in "\"'`" else value
    if len(stripped) >= 2 and stripped[0] in "\"'`" and stripped[-1] == stripped[0]:
        return stripped[1:-1], True
    return value.rstrip(")]},."), False


def is_placeholder(value: str) -> bool:
    """Empty, a template, an obvious stand-in (`changeme`, `<your-token>`, `${VAR}`, `xxxx`)."""
    lowered = value.lower()
    return not value.strip() or any(word in lowered for word in _PLACEHOLDER_WORDS) or len(set(value)) <= 3


def looks_like_secret(value: str, *, quoted: bool, env_style: bool = False) -> bool:
    """Could this assigned value be a real credential rather than code, a placeholder or prose?"""
    if len(value) < MIN_SECRET_CHARS or any(c.isspace() for c in value) or is_placeholder(value):
        return False
    if _WORDS.fullmatch(value):  # `password_confirmation`, `Authorization`: names, not secrets
        return False
    if not quoted and not env_style:
        # in code an unquoted value is an expression: a call, an index, a dotted or snake_case name
        if any(c in _CODE_CHARS for c in value):
            return False
        if _IDENTIFIER.fullmatch(value) and (
            "." in value or "_" in value or not any(c.isdigit() for c in value)
        ):
            return False
    classes = sum(
        (
            any(c.islower() for c in value),
            any(c.isupper() for c in value),
            any(c.isdigit() for c in value),
            any(not c.isalnum() for c in value),
        )
    )
    return classes >= 2 and shannon_entropy(value) >= MIN_ENTROPY


def _passes(check: str, value: str) -> bool:
    if check == "mixed":  # random base62: digits and letters of both cases
        return (
            any(c.isdigit() for c in value)
            and any(c.islower() for c in value)
            and any(c.isupper() for c in value)
        )
    if check == "cased":
        return any(c.islower() for c in value) and any(c.isupper() for c in value)
    return True


def _token_matches(text: str) -> Iterator[SecretMatch]:
    for rule in _TOKEN_RULES:
        if not any(marker in text for marker in rule.markers):
            continue
        for match in rule.pattern.finditer(text):
            start, end = match.span(rule.group)
            if _passes(rule.check, text[start:end]) and "EXAMPLE" not in text[start:end]:
                yield SecretMatch(rule.kind, start, end)


def _has_name_marker(text: str) -> bool:
    lowered = text.lower()
    return any(marker in lowered for marker in _NAME_MARKERS)


def _assignment_matches(text: str, *, strict: bool) -> Iterator[SecretMatch]:
    if not _has_name_marker(text):
        return
    for match in _ASSIGNMENT.finditer(text):
        raw = match.group("value")
        value, quoted = _unquote(raw)
        start = match.start("value")
        if strict:
            env_style = match.group("sep") == "=" and bool(_ENV_KEY.fullmatch(match.group("key")))
            if not looks_like_secret(value, quoted=quoted, env_style=env_style):
                continue
        elif not value.strip() or value == REDACTED or value.lower() in ("bearer", "basic", "token"):
            continue
        yield SecretMatch("secret_assignment", start, start + len(raw))


def find_secrets(text: str, *, strict: bool = True) -> Iterator[SecretMatch]:
    """Every credential in `text`: known formats first, then assignments to secret-named keys (all of
    them when `strict` is false, only believable values when it is true)."""
    yield from _token_matches(text)
    yield from _assignment_matches(text, strict=strict)


def secret_kind(text: str) -> str | None:
    """Why `text` (a file's content) holds a credential, or None: the first finding's kind."""
    for found in find_secrets(text):
        return found.kind
    return None


def redact(text: str, placeholder: str = REDACTED) -> str:
    """`text` with every credential value replaced by `placeholder` (keys and surrounding text kept)."""
    spans = sorted((m.start, m.end) for m in _token_matches(text))
    if spans:
        text = _replace(text, spans, placeholder)
    spans = sorted((m.start, m.end) for m in _assignment_matches(text, strict=False))
    return _replace(text, spans, placeholder) if spans else text


def _replace(text: str, spans: list[tuple[int, int]], placeholder: str) -> str:
    out: list[str] = []
    at = 0
    for start, end in spans:
        if end <= at:
            continue  # inside a span already replaced
        out.append(text[at : max(start, at)])
        out.append(placeholder)
        at = end
    out.append(text[at:])
    return "".join(out)
