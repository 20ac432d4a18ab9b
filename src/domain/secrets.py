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
    # Literal texts every match holds, `back` characters after its start. The pattern is tried only where
    # one occurs (found with `str.find`, a fast C scan), anchored there: no regex scans a whole file. Few,
    # short anchors keep the scan count low (`gh` for every GitHub prefix: a few thousand hits per 30 MB).
    anchors: tuple[str, ...]
    pattern: re.Pattern[str]
    back: int = 0
    group: int | str = 0  # the group that is the secret value
    check: str = ""  # an extra test of the value: "mixed" (digits, both cases), "cased" (both cases)
    word_start: bool = True  # the match must not continue a word (`ghp_` in `xghp_` is no token)


# Known formats. Each value is random by construction, so a match is a credential (or a deliberate fake
# shaped exactly like one, which is worth keeping out of an index too).
_TOKEN_RULES = (
    _Rule(
        "private_key",
        ("-----BEGIN",),
        # the header, then within a few header lines (Proc-Type, DEK-Info) a run of base64 before any other
        # `-----`: a mention of the header in code or docs has no body. `\n` escapes (a service-account JSON)
        # are just characters here. The span runs to the END line (or the end of the text).
        re.compile(
            r"-----BEGIN[A-Z0-9 ]{0,30} PRIVATE KEY(?: BLOCK)?-----"
            r"(?:(?!-----)[\s\S]){0,300}?[A-Za-z0-9+/]{40}"
            r"(?:(?!-----END)[\s\S])*(?:-----END[A-Z0-9 ]{0,30} PRIVATE KEY(?: BLOCK)?-----)?"
        ),
        word_start=False,
    ),
    _Rule("aws_access_key", ("IA",), re.compile(r"A[KSB]IA[A-Z2-7]{16}(?![A-Za-z0-9])"), back=2),
    _Rule(
        "github_token",
        ("gh", "github_pat_"),
        re.compile(r"(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})(?!\w)"),
    ),
    _Rule("gitlab_token", ("gl",), re.compile(r"gl(?:pat|dt|ptt|rt|soat)-[A-Za-z0-9_-]{20,}")),
    _Rule("slack_token", ("xox",), re.compile(r"xox[abposr]-[0-9]{6,}-[A-Za-z0-9-]{10,}")),
    _Rule(
        "slack_webhook",
        ("hooks.slack.com/",),
        re.compile(
            r"hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9]{8,}/[A-Za-z0-9]{8,}/[A-Za-z0-9]{16,}"
        ),
        word_start=False,
    ),
    _Rule(
        "stripe_key",
        ("k_live_", "k_test_"),
        re.compile(r"[sr]k_[a-z]{4}_[A-Za-z0-9]{20,}"),
        back=1,
        check="mixed",
    ),
    _Rule("pypi_token", ("pypi-AgE",), re.compile(r"pypi-AgE[A-Za-z0-9_-]{50,}")),
    _Rule("huggingface_token", ("hf_",), re.compile(r"hf_[A-Za-z]{30,}(?!\w)"), check="cased"),
    # `sk-ant-...` is Anthropic's, other `sk-...` OpenAI's (or compatible): one scan for both
    _Rule("openai_key", ("sk-",), re.compile(r"sk-[A-Za-z0-9_-]{20,}"), check="mixed"),
    _Rule("google_api_key", ("AIza",), re.compile(r"AIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])")),
    _Rule("npm_token", ("npm_",), re.compile(r"npm_[A-Za-z0-9]{36}(?!\w)"), check="mixed"),
    _Rule("sendgrid_key", ("SG.",), re.compile(r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![\w-])")),
    _Rule("jwt", ("eyJ",), re.compile(r"eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}")),
    _Rule(
        "bearer_token",
        ("uthorization", "UTHORIZATION"),
        re.compile(r"(?i)authorization[\"']?\s*[:=]\s*[\"']?bearer\s+([A-Za-z0-9._~+/-]{16,}=*)"),
        back=1,
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
# where in lower-cased text a secret name can start
_NAME_STEMS: tuple[str, ...] = ("passw", "passphrase", "secret", "token", "api", "access", "private", "auth")
_NAME_STEMS += ("credential", "signing", "encryption")
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
    "...",
    "<",
    "${",
    "{{",
    "%(",
    "%s",
    "{",
)
_CODE_CHARS = frozenset("()[]{}<>$%")
_IDENTIFIER = re.compile(r"[A-Za-z_][\w.]*")
_SNAKE = re.compile(r"[a-z][a-z0-9]*(?:[_-][a-z0-9]+)+")
_CAMEL_WORD = re.compile(r"[A-Z][a-z]{2,}")
_REGEX_CLASS = re.compile(r"0-9|a-z|A-Z|\\[dws]")
_ENV_KEY = re.compile(r"[A-Z][A-Z0-9_]*")
MIN_SECRET_CHARS = 10
MIN_ENTROPY = 3.0  # bits per character
MIN_DISTINCT = 10  # characters in a token: `glpat-xxxxxxxxxxxxxxxxxxxx` is a placeholder


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


_WORD_PART = re.compile(r"[a-z]{3,}|[A-Z][a-z]+")


def _reads_as_words(value: str) -> bool:
    """A camelCase name (`defaultToConfig2`): two or more word parts covering most of it. A random token's
    letters rarely fall into such runs."""
    parts = _WORD_PART.findall(value)
    return len(parts) >= 2 and sum(map(len, parts)) >= 0.6 * len(value)


def looks_like_secret(value: str, *, quoted: bool, env_style: bool = False) -> bool:
    """Could this assigned value be a real credential rather than code, a placeholder or prose?"""
    if len(value) < MIN_SECRET_CHARS or any(c.isspace() for c in value) or is_placeholder(value):
        return False
    if not any(c.isdigit() for c in value) or not any(c.isalpha() for c in value) or _SNAKE.fullmatch(value):
        return False  # `password_confirmation`, `geheim$parole`, `test_schema_2`, `-2146893773`: not keys
    if _REGEX_CLASS.search(value):
        return False  # `r"[-!#$%&'*+.^_`|~0-9a-zA-Z]+"`: a pattern
    if not quoted and not env_style:
        # in code an unquoted value is an expression: a call, an index, a dotted or snake_case name
        if any(c in _CODE_CHARS for c in value):
            return False
        if _IDENTIFIER.fullmatch(value) and (
            "." in value or "_" in value or len(_CAMEL_WORD.findall(value)) >= 2 or _reads_as_words(value)
        ):
            return (
                False  # `self.token`, `next_token`, `Ed25519PrivateKey` (an annotation), `defaultToConfig2`
            )
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


def _occurrences(text: str, prefix: str) -> Iterator[int]:
    at = text.find(prefix)
    while at >= 0:
        yield at
        at = text.find(prefix, at + 1)


def _continues_word(text: str, at: int) -> bool:
    return at > 0 and (text[at - 1].isalnum() or text[at - 1] == "_")


def _token_matches(text: str, *, strict: bool = True) -> Iterator[SecretMatch]:
    for rule in _TOKEN_RULES:
        for anchor in rule.anchors:
            for found in _occurrences(text, anchor):
                at = found - rule.back
                if at < 0 or (rule.word_start and _continues_word(text, at)):
                    continue
                match = rule.pattern.match(text, at)
                if match is None:
                    continue
                start, end = match.span(rule.group)
                value = text[start:end]
                if not strict or (
                    _passes(rule.check, value) and len(set(value)) >= MIN_DISTINCT and "EXAMPLE" not in value
                ):
                    kind = "anthropic_key" if value.startswith("sk-ant-") else rule.kind
                    yield SecretMatch(kind, start, end)


def _assignment_candidates(text: str) -> Iterator[re.Match[str]]:
    lowered = text.lower()
    if len(lowered) != len(text):  # a few non-ASCII letters lower-case to two characters: positions shift
        yield from _ASSIGNMENT.finditer(text)
        return
    for stem in _NAME_STEMS:
        for at in _occurrences(lowered, stem):
            match = _ASSIGNMENT.match(text, at)
            if match is not None:
                yield match


def _whole_name(text: str, start: int, end: int) -> str:
    """The key with the prefix the match left out (`DB_` of DB_PASSWORD), up to 64 characters."""
    at = start
    while at > max(0, start - 64) and (text[at - 1].isalnum() or text[at - 1] in "_-"):
        at -= 1
    return text[at:end]


def _assignment_matches(text: str, *, strict: bool) -> Iterator[SecretMatch]:
    seen: set[int] = set()  # `secret_token = x` is found from both names
    for match in _assignment_candidates(text):
        start = match.start("value")
        if start in seen:
            continue
        seen.add(start)
        raw = match.group("value")
        value, quoted = _unquote(raw)
        if strict:
            name = _whole_name(text, match.start(), match.end("key"))
            if "public" in name.lower():
                continue  # publicKeyToken: a key's name, but of a public one
            env_style = match.group("sep") == "=" and bool(_ENV_KEY.fullmatch(name))
            if not looks_like_secret(value, quoted=quoted, env_style=env_style):
                continue
        elif not value.strip() or value.startswith(REDACTED) or value.lower() in ("bearer", "basic", "token"):
            continue
        yield SecretMatch("secret_assignment", start, start + len(raw))


def find_secrets(text: str, *, strict: bool = True) -> Iterator[SecretMatch]:
    """Every credential in `text`: known formats first, then assignments to secret-named keys (all of
    them when `strict` is false, only believable values when it is true)."""
    yield from _token_matches(text, strict=strict)
    yield from _assignment_matches(text, strict=strict)
    if not strict:
        yield from _loose_matches(text)


# Documentation shows example configuration (`SECRET_KEY = '192b9bdd...'` in a quickstart): there a value
# assigned to a secret-named key is an example far more often than a credential, and keeping a whole page of
# docs out of the index costs the context an agent came for. Known formats (keys, tokens) still count there.
PROSE_SUFFIXES = (".md", ".markdown", ".rst", ".adoc", ".asciidoc", ".html", ".htm")


def secret_kind(text: str, *, path: str = "") -> str | None:
    """Why `text` (a file's content) holds a credential, or None: the first finding's kind. With the file's
    `path`, an assignment in documentation (PROSE_SUFFIXES) does not count; a known format does."""
    prose = path.lower().endswith(PROSE_SUFFIXES)
    for found in find_secrets(text):
        if prose and found.kind == "secret_assignment":
            continue
        return found.kind
    return None


# Only for `redact`: forms too loose to decide that a file holds a secret, but never worth keeping in text
# people read. An auth scheme's credential anywhere (not only after `Authorization:`), and a URL's password.
_SCHEME_CREDENTIAL = re.compile(r"(?i)\b(?:bearer|basic)\s+([A-Za-z0-9._~+/-]{8,}=*)")
_URL_PASSWORD = re.compile(r"://[^/\s:@]+:([^/\s@]+)@")


def _loose_matches(text: str) -> Iterator[SecretMatch]:
    for match in _SCHEME_CREDENTIAL.finditer(text):
        if not match.group(1).isalpha():  # `bearer authentication` is words
            yield SecretMatch("bearer_token", *match.span(1))
    for match in _URL_PASSWORD.finditer(text):
        yield SecretMatch("url_password", *match.span(1))


def redact(text: str, placeholder: str = REDACTED) -> str:
    """`text` with every credential value replaced by `placeholder` (keys and surrounding text kept).
    Known formats go first, so a PEM body or `Authorization: Bearer <token>` goes whole; then the loose
    forms and every value of a secret-named key, whatever it looks like."""
    spans = sorted((m.start, m.end) for m in _token_matches(text, strict=False))
    if spans:
        text = _replace(text, spans, placeholder)
    found = [*_loose_matches(text), *_assignment_matches(text, strict=False)]
    spans = sorted((m.start, m.end) for m in found)
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
