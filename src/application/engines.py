"""Retrieval engines beside the lexical one: pattern (literal text) here, structural (symbol table) in
structural_engine.py, re-exported."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

import attrs
import re2

from ..domain.code import Chunk, ChunkKind, Hit
from ..domain.regex_literals import required_literals
from .ports import CodePatternMatcher, FileSource, IndexReader, InvalidCodePattern
from .structural_engine import StructuralEngine as StructuralEngine  # search.py imports it from here

_QUOTED = re.compile(r"``([^`]+)``|`([^`]+)`|\"([^\"]+)\"|'([^']+)'")  # ``reST`` first, then `markdown`
_CODEISH = re.compile(
    r"[A-Za-z_][\w]*(?:[.(\[][\w.()\[\]'\"=,\s]*)+|[A-Z][A-Z0-9_]{2,}|\w*_\w+|\w*[a-z][A-Z]\w*"
)
_CODE_PUNCT = re.compile(r"[()\[\]{}.=:_]")
_SUMMARY = re.compile(r"\s*(?:async\s+def|def|class)\s")
_ODD_BREAKS = re.compile("[\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")  # line breaks of splitlines() but \n


_CONSTANTS = frozenset(
    {"True", "False", "None", "true", "false", "null", "nil", "undefined", "NaN", "self", "this"}
)


def literals(query: str, *, code_words: bool = True) -> list[str]:
    """What a pattern question asks to find verbatim: quoted text, else the whole query when it reads as
    code (`raise FrozenInstanceError`, `os.environ[`), else its code-like words."""
    quoted = [next(g for g in m.groups() if g) for m in _QUOTED.finditer(query)]
    if quoted:
        # a language's constants (`True`, ``None``, `nil`) and one-letter names are everywhere in code: quoted
        # in a description ("`True` for 5xx status codes"), they find nothing the question is about
        return [q for q in quoted if len(q.strip()) > 1 and q.strip() not in _CONSTANTS]
    words = query.split()
    if (
        1 <= len(words) <= 4
        and _CODE_PUNCT.search(query)
        or (len(words) == 2 and words[0] in ("raise", "import", "def", "class", "from", "return", "await"))
    ):
        return [query.strip()]
    if not code_words:
        return []
    return [m.group(0).strip() for m in _CODEISH.finditer(query) if len(m.group(0).strip()) >= 3][:4]


_ASKING = re.compile(
    r"\W*(?:how|where|what|which|why|when|who|whose|cómo|como|dónde|donde|qué|cuál|cuáles|por\s+qué)\b",
    re.IGNORECASE,
)


def verbatim_phrase(query: str) -> str | None:
    """A description that may be the code's own words, pasted: an error message or a log line
    ("This Session's transaction has been rolled back"). Four words or more, not a question; the caller
    looks it up verbatim and treats it as a pattern only when the segment holds it."""
    text = query.strip().strip("\"'`.,;:!")
    words = text.split()
    if not 4 <= len(words) <= 24 or "?" in text or "¿" in text or _ASKING.match(text):
        return None
    return text


class PatternEngine:
    def __init__(self, reader: IndexReader, source: FileSource | None = None) -> None:
        self._reader = reader
        self._source = source

    def search(self, needles: list[str], limit: int) -> list[Hit]:
        needles = [n for n in needles if n]
        if not needles:
            return []
        found: list[tuple[Hit, str]] = []
        for needle in needles[:4]:
            found += self._matches(self._reader.substring_candidates([needle], limit=400), needle)
        best: dict[str, tuple[Hit, str]] = {}
        for h, line in found:
            if h.chunk.id not in best or h.score > best[h.chunk.id][0].score:
                best[h.chunk.id] = (h, line)
        ranked = sorted(best.values(), key=lambda m: (-m[0].score, m[0].chunk.path, m[0].chunk.start_line))
        # only the hits shown are placed at their file's exact line (a module or class chunk's match is found
        # in its file, read once: reading the files of every candidate cost a search 8 ms on webpack)
        lines = LineLocator(self._source)
        return [attrs.evolve(h, line=lines.locate(h.chunk, h.line, line)) for h, line in ranked[:limit]]

    def search_in(self, chunks: Iterable[Chunk], needle: str) -> list[Hit]:
        """The chunks that hold the needle, each at its first matching line; a line that defines it
        counts double, a text window or module-level chunk less."""
        lines = LineLocator(self._source)
        return [
            attrs.evolve(h, line=lines.locate(h.chunk, h.line, line))
            for h, line in self._matches(chunks, needle)
        ]

    def _matches(self, chunks: Iterable[Chunk], needle: str) -> list[tuple[Hit, str]]:
        """`search_in`'s hits at the chunk's own guess of the line, each with the matching line's text."""
        smart_case = needle != needle.lower()  # like ripgrep: an upper-case letter makes it case-sensitive
        hits = []
        for chunk in chunks:
            line_no, line = _first_line(chunk, needle, smart_case)
            if not line_no:
                continue
            defines = line.lstrip().startswith(("def ", "class ", "async def ")) and needle in line
            score = 2.0 if defines else 1.0
            if chunk.kind in (ChunkKind.MODULE, ChunkKind.TEXT):
                score *= 0.8
            hits.append(
                (
                    Hit(
                        chunk=chunk,
                        score=score,
                        match_type="pattern",
                        line=line_no,
                        preview=line.strip()[:300],
                    ),
                    line,
                )
            )
        return hits


_PATTERN_WORD = re.compile(r"(?<![$\w])[A-Za-z_]\w{2,}")
_METAVARIABLE = re.compile(r"\$\$\$[A-Z_]*|\$[A-Z_][A-Z0-9_]*")


def looks_like_code_pattern(query: str) -> bool:
    """An ast-grep pattern: code with `$NAME` / `$$$` metavariables (`$X.append($Y)`)."""
    return bool(_METAVARIABLE.search(query)) and bool(re.search(r"[().:=\[]", query))


class AstPatternEngine:
    """ast-grep patterns over the segment's code files, each file in its own language (or only in the
    language asked for): the trigram index narrows to files holding the pattern's longest plain word,
    ast-grep decides on the syntax tree. Hits are the enclosing chunks, at the matched line, with that line as
    the preview. A pattern that does not parse in a language skips that language's files (the plan says so);
    one that parses in none of the languages searched is an error."""

    MAX_FILES = 5000

    def __init__(self, reader: IndexReader, source: FileSource, matcher: CodePatternMatcher) -> None:
        self._reader = reader
        self.source = source
        self._matcher = matcher
        self._grammars_cache: tuple[str, frozenset[tuple[str, str]]] | None = None

    def language(self, name: str) -> str:
        """The index language `--lang NAME` means, or InvalidCodePattern listing the accepted names."""
        language = self._matcher.language(name)
        if language is None:
            raise InvalidCodePattern(
                f"unknown language {name!r} for lang; expected one of {', '.join(self._matcher.languages())}"
            )
        return language

    def validate(self, pattern: str, language: str | None = None) -> None:
        """Raises InvalidCodePattern when the pattern parses in none of the grammars searched: the segment's
        code files' (Python when it has none), or `language`'s."""
        pairs = {(lang, g) for lang, g in self._segment_grammars() if language in (None, lang)}
        if not pairs:
            fallback = language or "python"
            pairs = {(fallback, self._matcher.grammar(fallback, "") or fallback)}
        self._usable(pattern, {g for _, g in pairs})

    def _usable(self, pattern: str, grammars: set[str]) -> dict[str, str]:
        """The grammars the pattern parses in, with why it does not parse in the others (`skipped`)."""
        skipped: dict[str, str] = {}
        for grammar in sorted(grammars):
            try:
                self._matcher.validate(pattern, grammar)
            except InvalidCodePattern as exc:
                skipped[grammar] = str(exc)
        if grammars and len(skipped) == len(grammars):
            reasons = sorted(set(skipped.values()))
            if len(reasons) == 1:
                raise InvalidCodePattern(reasons[0])
            raise InvalidCodePattern(
                f"invalid code pattern {pattern!r}: it does not parse as code of any language searched "
                f"({', '.join(sorted(grammars))}); --lang LANG parses it in one"
            )
        return skipped

    def _segment_grammars(self) -> frozenset[tuple[str, str]]:
        """(language, grammar) of every file of the segment a pattern can run on; rebuilt when the index
        changes."""
        built_at = self._reader.stats().built_at
        if self._grammars_cache is None or self._grammars_cache[0] != built_at:
            found = set()
            for stored in self._reader.files():
                grammar = self._matcher.grammar(stored.language, stored.path)
                if grammar is not None:
                    found.add((stored.language, grammar))
            self._grammars_cache = (built_at, frozenset(found))
        return self._grammars_cache[1]

    def _candidates(self, pattern: str, language: str | None) -> tuple[list[tuple[str, str]], list[str]]:
        """(path, grammar) of the files to run the pattern on, and the word that narrowed them."""
        words = sorted(
            set(_PATTERN_WORD.findall(_METAVARIABLE.sub(" ", pattern))), key=lambda w: (-len(w), w)
        )
        if words:
            found = {(c.path, c.language) for c in self._reader.substring_candidates(words[:1], limit=20000)}
        else:
            found = {(f.path, f.language) for f in self._reader.files()}
        out = []
        for path, lang in sorted(found):
            grammar = self._matcher.grammar(lang, path) if language in (None, lang) else None
            if grammar is not None:
                out.append((path, grammar))
        return out[: self.MAX_FILES], words[:1]

    def search(
        self, pattern: str, limit: int, plan: dict[str, object], language: str | None = None
    ) -> list[Hit]:
        files, prefilter = self._candidates(pattern, language)
        skipped = self._usable(pattern, {g for _, g in files}) if files else {}
        files = [(path, g) for path, g in files if g not in skipped]
        plan["code_pattern"] = {
            "pattern": pattern,
            "prefilter": prefilter,
            "files": len(files),
            "languages": sorted({g for _, g in files}),
        }
        if language:
            plan["code_pattern"]["lang"] = language  # type: ignore[index]
        if skipped:
            plan["code_pattern"]["skipped"] = skipped  # type: ignore[index]
        hits: list[Hit] = []
        for path, grammar in files:
            try:
                text = self.source.read_bytes(path).decode("utf-8", errors="replace")
            except Exception:  # deleted or unreadable since indexing: the next refresh catches up
                continue
            lines = text.split("\n")  # ast-grep counts lines by \n only
            for match in self._matcher.find(pattern, grammar, text, limit):
                chunk = self._reader.containing_chunk(path, match.start_line) or next(
                    iter(self._reader.iter_chunks([path])), None
                )
                if chunk is None:
                    continue
                line = lines[match.start_line - 1] if match.start_line <= len(lines) else match.text
                hits.append(
                    Hit(
                        chunk=chunk,
                        score=1.0,
                        match_type="code_pattern",
                        line=match.start_line,
                        preview=line.strip()[:300],
                    )
                )
            if len(hits) >= limit * 4:
                break
        best: dict[tuple[str, int], Hit] = {}
        for h in hits:  # one hit per enclosing chunk: its first match
            best.setdefault((h.chunk.id, 0), h)
        return sorted(best.values(), key=lambda h: (h.chunk.path, h.line))[:limit]


# Regex syntax that is (almost) never meant literally: escapes like \w \d \s \b or \( \. \[, `.*`/`.+`,
# classes with a range or negation, non-capturing groups, anchors at the ends.
_REGEX_SYNTAX = re.compile(r"\\[wdsbWDSB.()\[\]{}|+*?^$]|\.[*+]\??|\[\^|\[[^\]]*\w-\w[^\]]*\]|\(\?[:=!]|^\^")


def looks_like_regex(query: str) -> bool:
    """A pattern question written as a regex (`def \\w+_header\\(`, `^class .*Error`): searched as one.
    Only a pattern RE2 can run counts: a query with a lookahead stays a literal question."""
    if not _REGEX_SYNTAX.search(query):
        return False
    try:
        compile_smart_case(query)
    except InvalidRegex:
        return False
    return True


class InvalidRegex(ValueError):
    """The pattern does not compile, or uses what RE2 cannot run; the message says what to write instead."""


# Python's regex features RE2 leaves out (it never backtracks, so it runs in time linear in the text), each
# with what to write instead. Matched against RE2's own error message.
_UNSUPPORTED = (
    (
        re.compile(r"invalid escape sequence: \\[1-9]|invalid perl operator: \(\?P$"),
        "backreferences (\\1, (?P=name)) are not supported: write the repeated text out ((ab)\\1 -> abab), "
        "or drop the backreference and read the hits",
    ),
    (
        re.compile(r"invalid perl operator: \(\?(?:=|!|<=|<!)"),
        "lookahead and lookbehind ((?=...), (?!...), (?<=...), (?<!...)) are not supported: match the "
        "surrounding text itself (foo(?=bar) -> foobar), or search without it and read the hits",
    ),
    (
        re.compile(r"invalid perl operator: \(\?>|bad repetition operator: (?:\+\+|\*\+|\?\+|\}\+)"),
        "atomic groups and possessive quantifiers ((?>...), a++) are not needed: RE2 never backtracks, "
        "write (...) and a+",
    ),
    (
        re.compile(r"invalid escape sequence: \\Z"),
        "write \\z for the end of the text (RE2 spells Python's \\Z that way)",
    ),
)


@attrs.frozen
class SmartCaseRegex:
    """A user's regular expression compiled by RE2: matching time is linear in the text whatever the
    pattern, so `(.*a){25}` or `(a|aa)+$` cannot hang a search. `pattern` is the text as written."""

    pattern: str
    ignore_case: bool
    _compiled: Any = attrs.field(repr=False, eq=False)

    def search(self, text: str) -> bool:
        try:
            return self._compiled.search(text) is not None
        except UnicodeEncodeError:  # a lone surrogate: RE2 reads UTF-8 only
            return self._compiled.search(text.encode("utf-8", "replace").decode("utf-8")) is not None


def compile_smart_case(pattern: str) -> SmartCaseRegex:
    """Compile like ripgrep's smart case: case-insensitive unless the pattern has an upper-case letter
    (escapes such as \\W or \\S do not count). `^` and `$` match at line ends (MULTILINE)."""
    unescaped = re.sub(r"\\[pP](?:\{[^}]*\}|.)|\\.", "", pattern)
    ignore_case = not any(ch.isupper() for ch in unescaped)
    options = re2.Options()
    options.case_sensitive = not ignore_case
    options.log_errors = False  # the error comes back as INVALID_ARGUMENT, not as a line on stderr
    try:
        compiled = re2.compile("(?m)" + _unicode_classes(pattern), options)
    except re2.error as exc:
        reason = (
            exc.args[0].decode("utf-8", "replace")
            if exc.args and isinstance(exc.args[0], bytes)
            else str(exc)
        )
        advice = next((say for when, say in _UNSUPPORTED if when.search(reason)), None)
        if advice:
            raise InvalidRegex(f"the regular expression `{pattern}` cannot run: {advice}") from None
        raise InvalidRegex(f"invalid regular expression `{pattern}`: {reason}") from None
    except UnicodeEncodeError:
        raise InvalidRegex(
            f"invalid regular expression {pattern!r}: it holds a lone surrogate, which is not a character"
        ) from None
    return SmartCaseRegex(pattern=pattern, ignore_case=ignore_case, compiled=compiled)


# RE2's \w, \d and \W are ASCII; Python's (and ripgrep's) are Unicode: `\w+` must match `método` whole.
_CLASS_ESCAPES = {"w": r"\p{L}\p{N}_", "d": r"\p{Nd}"}
_BARE_ESCAPES = {"w": r"[\p{L}\p{N}_]", "d": r"\p{Nd}", "W": r"[^\p{L}\p{N}_]", "D": r"\P{Nd}"}


def _unicode_classes(pattern: str) -> str:
    """The pattern with Python's Unicode meaning of \\w \\d \\W \\D spelt in RE2's \\p{...} classes (inside a
    bracket class only \\w and \\d: a negated class cannot be spelt there; \\b stays ASCII)."""
    out: list[str] = []
    in_class = False
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            if nxt == "Q":  # \Q...\E is literal text: copied as is
                end = pattern.find("\\E", i + 2)
                end = len(pattern) if end < 0 else end + 2
                out.append(pattern[i:end])
                i = end
                continue
            table = _CLASS_ESCAPES if in_class else _BARE_ESCAPES
            out.append(table.get(nxt, pattern[i : i + 2]))
            i += 2
            continue
        if in_class:
            if ch == "[" and pattern[i + 1 : i + 2] == ":":  # [:alpha:] inside a class
                end = pattern.find(":]", i + 2)
                if end > 0:
                    out.append(pattern[i : end + 2])
                    i = end + 2
                    continue
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
            out.append(ch)
            i += 1
            if pattern[i : i + 1] == "^":
                out.append("^")
                i += 1
            if pattern[i : i + 1] == "]":  # `[]...]`: a leading ] is literal
                out.append("]")
                i += 1
            continue
        out.append(ch)
        i += 1
    return "".join(out)


class RegexEngine:
    """Regex look-ups: the trigram index narrows to chunks holding the regex's required literals, the
    regex decides on each line. With no usable literal every chunk is scanned (the plan says so)."""

    SCAN_CAP = 200_000  # chunks; a bigger index answers from the first ones and says it stopped

    def __init__(self, reader: IndexReader, source: FileSource | None = None) -> None:
        self._reader = reader
        self._source = source

    def search(
        self, compiled: SmartCaseRegex, limit: int, plan: dict[str, object], language: str | None = None
    ) -> list[Hit]:
        """`language`: only chunks of that language (`--lang`)."""
        needles = required_literals(compiled.pattern)
        if compiled.ignore_case:  # LIKE folds ASCII only
            needles = [n for n in needles if n.isascii()]
        plan["regex"] = {"pattern": compiled.pattern, "literals": needles[:1], "scan": not needles}
        if language:
            plan["regex"]["lang"] = language  # type: ignore[index]
        if needles:
            chunks = iter(self._reader.substring_candidates(needles[:1], limit=2000))
        else:
            chunks = self._reader.iter_chunks()
        # One RE2 call over a whole chunk first: most chunks of a scan do not match, and a call per line
        # costs more than the matching. \A and \z mean the ends of a line here, so those go line by line.
        whole_first = "\\A" not in compiled.pattern and "\\z" not in compiled.pattern
        lines = LineLocator(self._source)
        hits: list[Hit] = []
        for n, chunk in enumerate(chunks):
            if n >= self.SCAN_CAP:
                plan["regex"]["stopped_after"] = n  # type: ignore[index]
                break
            if language and chunk.language != language:
                continue
            if whole_first and not compiled.search(chunk.body) and not _ODD_BREAKS.search(chunk.body):
                continue
            found = _first_matching_line(chunk, compiled.search)
            if found[0]:
                line_no, line = found
                defines = _SUMMARY.match(line) is not None
                score = (2.0 if defines else 1.0) * (
                    0.8 if chunk.kind in (ChunkKind.MODULE, ChunkKind.TEXT) else 1
                )
                hits.append(
                    Hit(
                        chunk=chunk,
                        score=score,
                        match_type="regex",
                        line=lines.locate(chunk, line_no, line),
                        preview=line.strip()[:300],
                    )
                )
        hits.sort(key=lambda h: (-h.score, h.chunk.path, h.chunk.start_line))
        return hits[:limit]


class LineLocator:
    """The exact line of a match in a chunk whose body is not the file's lines in a row (a module chunk is
    the lines no definition covers, a class chunk its header plus class-level lines): found in the file by
    the line's text. Without a file source, or when the file changed, the chunk's own guess stands. One
    locator serves one search (files are read once, never kept past it)."""

    def __init__(self, source: FileSource | None) -> None:
        self._source = source
        self._files: dict[str, list[str]] = {}

    def locate(self, chunk: Chunk, guess: int, line: str) -> int:
        if self._source is None or chunk.kind not in (ChunkKind.MODULE, ChunkKind.CLASS):
            return guess
        lines = self._files.get(chunk.path)
        if lines is None:
            try:
                text = self._source.read_bytes(chunk.path).decode("utf-8", errors="replace")
            except Exception:  # deleted or unreadable since indexing
                return guess
            lines = self._files[chunk.path] = text.removeprefix("\ufeff").split("\n")
        want = line.rstrip("\r")
        for number in range(max(chunk.start_line, 1), min(chunk.end_line, len(lines)) + 1):
            if lines[number - 1].rstrip("\r") == want:
                return number
        return guess


# what str.splitlines breaks lines at besides "\n"
_OTHER_BREAKS = ("\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")


def _first_line(chunk: Chunk, needle: str, case_sensitive: bool) -> tuple[int, str]:
    want = needle if case_sensitive else needle.lower()
    body = chunk.body
    folded = body if case_sensitive else body.lower()
    pos = folded.find(want)
    if pos < 0:
        return 0, ""
    if chunk.kind is ChunkKind.CLASS or len(folded) != len(body) or any(b in body for b in _OTHER_BREAKS):
        # a class chunk's summary lines, a lower case of another length, other line breaks: line by line
        if case_sensitive:
            return _first_matching_line(chunk, lambda line: want in line)
        return _first_matching_line(chunk, lambda line: want in line.lower())
    # the first match's line from its offset: what walking the lines finds, without splitting every line
    start = body.rfind("\n", 0, pos) + 1
    end = body.find("\n", pos)
    line = body[start : end if end >= 0 else len(body)]
    if chunk.kind is ChunkKind.MODULE:
        return chunk.start_line, line
    return chunk.start_line + body.count("\n", 0, start), line


def _first_matching_line(chunk: Chunk, test: Callable[[str], bool]) -> tuple[int, str]:
    """The first line of the chunk holding the needle, with its line number in the file.

    Module and class chunks are not contiguous: a class chunk is its header (start..end_line) followed by
    the class-level lines between its methods, each method kept as its `def` line only. A match on such a
    summary line belongs to the method's own chunk, so it is skipped here; other lines past the header
    have no exact number and report the chunk's first line (as module chunks do)."""
    header = chunk.end_line - chunk.start_line
    for offset, line in enumerate(chunk.body.splitlines()):
        if not test(line):
            continue
        if chunk.kind is ChunkKind.MODULE:
            return chunk.start_line, line
        if chunk.kind is ChunkKind.CLASS and offset > header:
            if _SUMMARY.match(line):
                continue
            return chunk.start_line, line
        return chunk.start_line + offset, line
    return 0, ""
