"""Words of code and of questions: identifier splitting and query terms.

The same splitting runs when text is indexed and when a query is read, so `parseHTTPHeader`,
`parse_http_header` and the words `parse header` meet in the middle.
"""

from __future__ import annotations

import functools
import re
import unicodedata

_IDENT = re.compile(r"[^\W\d][\w]*|\d+", re.UNICODE)
# identifiers with an inner '_' or a lower->upper step: the only words that need splitting
_COMPOUND = re.compile(
    r"\b(?=[A-Za-z_])[A-Za-z0-9_]*?(?:[a-z0-9][A-Z]|[A-Z][A-Z][a-z]|[A-Za-z0-9]_[A-Za-z0-9])[A-Za-z0-9_]*"
)
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")

STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "to",
        "in",
        "on",
        "for",
        "and",
        "or",
        "is",
        "are",
        "be",
        "by",
        "with",
        "from",
        "as",
        "at",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "what",
        "how",
        "where",
        "which",
        "does",
        "do",
        "did",
        "done",
        "when",
        "why",
        "who",
        "whom",
        "into",
        "return",
        "returns",
        "get",
        "gets",
        "there",
        "here",
        "can",
        "could",
        "should",
        "would",
        "will",
        "shall",
        "may",
        "might",
        "must",
        "i",
        "me",
        "my",
        "we",
        "our",
        "you",
        "your",
        "their",
        "theirs",
        "them",
        "they",
        "itself",
        "themselves",
        "he",
        "she",
        "his",
        "her",
        "us",
        "along",
        "also",
        "just",
        "very",
        "really",
        "somehow",
        "ever",
        "find",
        "show",
        "give",
        "list",
        "tell",
        "please",
        "code",
        "file",
        "files",
        "function",
        "functions",
        "method",
        "methods",
        "class",
        "classes",
        "implemented",
        "implementation",
        "handled",
        "used",
        "using",
        "use",
        "uses",
        "work",
        "works",
        "happen",
        "happens",
        "made",
        "make",
        "makes",
        "way",
        "any",
        "all",
        "some",
        "each",
        "every",
        "other",
        "than",
        "then",
        "so",
        "if",
        "not",
        "no",
        "yes",
        "via",
        "about",
        "over",
        "under",
        "up",
        "down",
        "out",
        "de",
        "la",
        "el",
        "los",
        "las",
        "un",
        "una",
        "unos",
        "unas",
        "y",
        "o",
        "en",
        "del",
        "al",
        "se",
        "que",
        "como",
        "cómo",
        "donde",
        "dónde",
        "cual",
        "cuál",
        "cuales",
        "por",
        "para",
        "con",
        "sin",
        "su",
        "sus",
        "es",
        "son",
        "lo",
        "le",
        "les",
        "esta",
        "este",
        "estos",
        "estas",
        "eso",
        "esa",
        "ese",
        "qué",
        "muestra",
        "muéstrame",
        "dame",
        "busca",
        "buscar",
        "encuentra",
        "encontrar",
    ]
)


def split_identifier(word: str) -> list[str]:
    """`parseHTTPHeader` -> [parse, HTTP, Header]; `parse_http_header` -> [parse, http, header]."""
    parts: list[str] = []
    for piece in word.split("_"):
        if piece:
            parts.extend((_CAMEL.findall(piece) if piece.isascii() else _camel_parts(piece)) or [piece])
    return parts


def _camel_parts(piece: str) -> list[str]:
    """`_CAMEL` for a piece with non-ASCII letters (`páginas`, `leerÍndice`), by the letters' own case."""
    parts: list[str] = []
    start = 0
    for i in range(1, len(piece)):
        prev, ch = piece[i - 1], piece[i]
        nxt = piece[i + 1] if i + 1 < len(piece) else ""
        if (
            (prev.isdigit() != ch.isdigit())
            or (prev.islower() and ch.isupper())
            or (prev.isupper() and ch.isupper() and nxt.islower())  # HTTPHeader: HTTP | Header
        ):
            parts.append(piece[start:i])
            start = i
    parts.append(piece[start:])
    return [p for p in parts if p]


def words(text: str) -> list[str]:
    return _IDENT.findall(text)


def expand_identifiers(text: str) -> str:
    """Index-side text: every compound identifier followed by its parts (`parseHTTPHeader parse HTTP Header`).

    Plain words pass through untouched (the full-text tokenizer folds case), so the scan stays in C.
    A space-separated piece at a time, through a memo: doc comments, signatures and paths repeat their
    pieces, so most are looked up instead of scanned (Python's re runs at ~70 ns a character). The same
    result as one scan of the whole text: an identifier never spans a space, and a piece after a space
    starts at a word boundary as it does in the text.
    """
    return " ".join(map(_EXPANDED_PIECES.__getitem__, text.split(" "))) if text else text


def _expand_text(text: str) -> str:
    """`expand_identifiers` in one scan, without the memo."""
    return _COMPOUND.sub(_expand_match, text)


class _ExpandedPieces(dict[str, str]):
    """`_expand_text` of a piece of text without spaces, memoized (bounded: EXPAND_MEMO_PIECES pieces of at
    most EXPAND_MEMO_PIECE_CHARS characters; a longer one is expanded every time). A piece that spans
    lines (`end.\nThe` of a doc comment: seldom met twice) is expanded a line at a time, each line through
    the memo, and not kept itself: the same result, since a line break is no word character either."""

    def __missing__(self, piece: str) -> str:
        if "\n" in piece:
            return "\n".join(map(self.__getitem__, piece.split("\n")))
        expanded = _COMPOUND.sub(_expand_match, piece)
        if len(piece) <= EXPAND_MEMO_PIECE_CHARS:
            if len(self) >= EXPAND_MEMO_PIECES:
                self.clear()
            self[piece] = expanded
        return expanded


EXPAND_MEMO_PIECES = 100_000  # ~8 MB: go-x-tools's docs and signatures hold 53k distinct pieces
EXPAND_MEMO_PIECE_CHARS = 80
_EXPANDED_PIECES = _ExpandedPieces()


def identifier_parts(text: str) -> str:
    """The parts of each distinct compound identifier of `text`, once (`parseHTTPHeader(a_b) a_b` ->
    `parse HTTP Header a b`): indexed beside a body so `parse header` finds it, at a fraction of the cost of
    splitting every occurrence in place. Runs once per chunk of a full index, so it stays in C where it
    can: the words are the runs of ASCII letters, digits and `_` (every other byte of the UTF-8 text made
    a space by one `bytes.translate`, then `split`), each looked up in a memo of their parts. A run that
    starts with a digit has none (`\\b[A-Za-z_]` never matches inside it), as a plain word."""
    words = dict.fromkeys(text.encode("utf-8", "surrogatepass").translate(_WORD_BYTES).split())
    return " ".join(filter(None, map(_PARTS.__getitem__, words)))


# every byte that is no ASCII letter, digit or `_` (non-ASCII characters' UTF-8 bytes included) -> a space
_WORD_BYTES = bytes(b if chr(b).isascii() and (chr(b).isalnum() or b == 0x5F) else 0x20 for b in range(256))


class _WordParts(dict[bytes, str]):
    """A word (ASCII bytes) -> its parts joined by spaces, "" for a plain word or one that starts with a
    digit; memoized, bounded to PARTS_LIMIT words."""

    def __missing__(self, word: bytes) -> str:
        parts = "" if word[0] <= 0x39 else _joined_parts(word.decode("ascii"))  # 0-9 sort below A-Z, _, a-z
        if len(self) >= PARTS_LIMIT:
            self.clear()
        self[word] = parts
        return parts


def _joined_parts(word: str) -> str:
    split = split_identifier(word)
    return " ".join(split) if len(split) > 1 else ""


PARTS_LIMIT = 200_000
_PARTS = _WordParts()


@functools.lru_cache(maxsize=65536)
def _expand_word(word: str) -> str:
    parts = split_identifier(word)
    return word + " " + " ".join(parts) if len(parts) > 1 else word


def _expand_match(match: re.Match[str]) -> str:
    return _expand_word(match.group(0))


def fold(text: str) -> str:
    """Lower case without accents: `Sesión` -> `sesion`."""
    if text.isascii():  # nothing to decompose (the common case, and this runs per ranked chunk)
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def query_terms(query: str, *, keep_stop_words: bool = False) -> list[str]:
    """Distinct meaningful words of a query, in order, case kept (so identifiers can still be split)."""
    seen: set[str] = set()
    out: list[str] = []
    for word in _IDENT.findall(query):
        low = word.lower()
        if not keep_stop_words and (low in STOP_WORDS or len(low) < 2):
            continue
        if low not in seen:
            seen.add(low)
            out.append(word)
    return out


_DOTTED = re.compile(r"[A-Za-z_]\w*(?:(?:\.|::|#)[A-Za-z_]\w*)+")
_PATH_SEPARATOR = re.compile(r"::|#")
_NAMED = re.compile(r"\b(?:\w*_\w+|[a-z]+[A-Z]\w*|[A-Z][a-z0-9]+[A-Z]\w*|[A-Z][A-Z0-9]{2,}[a-z]\w*)\b")


def named_identifiers(query: str) -> frozenset[str]:
    """The words of a question that can only be code names, as written: dotted names (`ObservableMap.set`,
    `http.client`, Rust's and C++'s `Type::method` and Ruby's `Class#method` written with dots), snake_case,
    camelCase and PascalCase with two capitals (`AxiosHeaders`). A plain word (`Which`, `set`, `JSON`) is
    not one: prose uses those too."""
    dotted = " ".join(m.group(0) for m in _DOTTED.finditer(query))
    found = {
        name
        for m in _DOTTED.finditer(query)
        if min(map(len, (name := _PATH_SEPARATOR.sub(".", m.group(0))).split("."))) > 1
    }
    found |= {
        m.group(0)
        for m in _NAMED.finditer(query)
        if not m.group(0).startswith("_") and m.group(0) not in dotted
    }  # `ObservableMap` of `ObservableMap.set` names the method, not the class
    return frozenset(found)
