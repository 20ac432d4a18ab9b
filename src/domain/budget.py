"""The byte/line budget that protects an agent's context window (ast-lsp-dual-engine.md §5).

Sizes are UTF-8 bytes and lines, never tokens. The policy (defaults from §5):

==========================  =======  ==================================================================
limit                       default  when exceeded
==========================  =======  ==================================================================
``max_bytes_total``          32,000  the snippet that would cross it is dropped, verdict BUDGET_EXCEEDED
``max_snippet_bytes``         2,000  cut at a line boundary, last line ``# ... truncated``
``max_snippets``                  5  later snippets are dropped
``max_lines_per_snippet``        50  later lines are removed, last line ``# ... N lines hidden``
==========================  =======  ==================================================================

Decisions where the design document is silent:

* Lines are separated by ``"\\n"`` only (a ``"\\r"`` stays part of its line); one trailing ``"\\n"`` ends the
  last line rather than starting an empty one, so ``"a\\nb\\n"`` has two lines and ``""`` has none.
* A snippet within both limits comes back unchanged, byte for byte. A cut snippet is its kept lines, each
  followed by ``"\\n"``, and then exactly one marker line with no newline after it.
* The line limit is applied first: ``max_lines_per_snippet`` lines are kept and ``# ... N lines hidden``
  follows them (so the result has one line more than the limit). If that text is still over
  ``max_snippet_bytes``, the byte rule replaces it: as many whole lines as fit together with
  ``# ... truncated``. Only one marker is ever shown; ``Cut.hidden_lines`` always carries the count.
* When not even the first line fits, the byte rule cuts inside that line at a character boundary (never inside
  a UTF-8 sequence) and counts it as kept. When not even the marker fits (a budget smaller than the marker),
  the text is empty: the limit wins over the marker, and ``Cut.truncated`` still says what happened.
* ``# ... N lines hidden`` always says "lines", even for one, so the marker is one pattern to recognise.
* The comment prefix is a parameter (``"#"`` for Python, ``"//"`` for JavaScript), as is the language.
* Lone surrogates (text decoded with ``surrogateescape``) are measured as three bytes, their size as WTF-8
  and as the replacement character an encoder writes for them, so a size is never under-counted.
* ``apply`` keeps a prefix of the ranked input: once a snippet would cross ``max_bytes_total`` it and
  everything after it are dropped, so a kept list never has holes that would misstate the ranking. A snippet
  past ``max_snippets`` is dropped without an error (§5 "drop subsequent results"); only crossing the total is
  ``BUDGET_EXCEEDED``. ``total_bytes`` counts the kept texts, not separators the caller may add.
* ``cut_raw`` (L3, ``ctx get``) keeps whole lines only, with no line limit and no cut inside a line: a file
  whose first line alone is over the budget comes back as just the marker.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from .contract import ErrorCode

_positive = attrs.validators.gt(0)
_non_negative = attrs.validators.ge(0)


@attrs.frozen(kw_only=True)
class BudgetPolicy:
    max_bytes_total: int = attrs.field(default=32_000, validator=_positive)
    max_snippet_bytes: int = attrs.field(default=2_000, validator=_positive)
    max_snippets: int = attrs.field(default=5, validator=_positive)
    max_lines_per_snippet: int = attrs.field(default=50, validator=_positive)


@attrs.frozen(kw_only=True)
class Cut:
    """One text after the budget: what is shown and what was left out."""

    text: str
    truncated: bool
    hidden_lines: int = attrs.field(validator=_non_negative)
    original_bytes: int = attrs.field(validator=_non_negative)
    original_lines: int = attrs.field(validator=_non_negative)
    kept_lines: int = attrs.field(validator=_non_negative)

    @hidden_lines.validator
    def _lines_add_up(self, _attribute: attrs.Attribute[int], value: int) -> None:
        if self.kept_lines + value != self.original_lines:
            raise ValueError("kept_lines + hidden_lines must equal original_lines")

    @property
    def size_bytes(self) -> int:
        return utf8_size(self.text)


@attrs.frozen(kw_only=True)
class BudgetOutcome:
    """The snippets that made it, in input order, and the positions of those that did not."""

    kept: tuple[Cut, ...]
    kept_indices: tuple[int, ...] = attrs.field()
    dropped_indices: tuple[int, ...] = attrs.field()
    exceeded: bool

    @kept_indices.validator
    def _one_index_per_cut(
        self, _attribute: attrs.Attribute[tuple[int, ...]], value: tuple[int, ...]
    ) -> None:
        if len(value) != len(self.kept):
            raise ValueError("kept_indices must have one index per kept snippet")

    @dropped_indices.validator
    def _partition(self, _attribute: attrs.Attribute[tuple[int, ...]], value: tuple[int, ...]) -> None:
        if sorted((*self.kept_indices, *value)) != list(range(len(self.kept_indices) + len(value))):
            raise ValueError("kept and dropped indices must partition the input positions")

    @property
    def kept_count(self) -> int:
        return len(self.kept)

    @property
    def dropped_count(self) -> int:
        return len(self.dropped_indices)

    @property
    def truncated_count(self) -> int:
        return sum(1 for cut in self.kept if cut.truncated)

    @property
    def total_bytes(self) -> int:
        return sum(cut.size_bytes for cut in self.kept)

    @property
    def error_code(self) -> ErrorCode | None:
        return ErrorCode.BUDGET_EXCEEDED if self.exceeded else None


def utf8_size(text: str) -> int:
    """Size of ``text`` in UTF-8 bytes (a lone surrogate counts three)."""
    return len(text.encode("utf-8", "surrogatepass"))


def truncated_marker(comment: str = "#") -> str:
    return f"{comment} ... truncated"


def hidden_marker(hidden: int, comment: str = "#") -> str:
    return f"{comment} ... {hidden} lines hidden"


def _split_lines(text: str) -> list[str]:
    if not text:
        return []
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    return lines


def _join(lines: list[str], marker: str) -> str:
    return "".join(line + "\n" for line in lines) + marker


def _whole_lines_fitting(sizes: Iterable[int], room: int) -> int:
    """How many leading lines (each with its newline) fit in ``room`` bytes."""
    count = 0
    for size in sizes:
        room -= size + 1
        if room < 0:
            break
        count += 1
    return count


def _utf8_prefix(text: str, limit: int) -> str:
    """The longest prefix of ``text`` within ``limit`` bytes, never ending inside a UTF-8 sequence."""
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= limit:
        return text
    end = max(limit, 0)
    while end > 0 and data[end] & 0xC0 == 0x80:  # a continuation byte: the character started earlier
        end -= 1
    return data[:end].decode("utf-8", "surrogatepass")


def _shown(text: str, original: str, lines: list[str], kept: int) -> Cut:
    return Cut(
        text=text,
        truncated=text != original,
        hidden_lines=len(lines) - kept,
        original_bytes=utf8_size(original),
        original_lines=len(lines),
        kept_lines=kept,
    )


def cut_snippet(policy: BudgetPolicy, text: str, comment: str = "#") -> Cut:
    """Fit one snippet (L2) to ``max_lines_per_snippet`` and ``max_snippet_bytes``, markers included."""
    lines = _split_lines(text)
    limit = policy.max_snippet_bytes
    candidate_lines = lines[: policy.max_lines_per_snippet]
    if len(lines) > policy.max_lines_per_snippet:
        candidate = _join(candidate_lines, hidden_marker(len(lines) - len(candidate_lines), comment))
    else:
        candidate = text
    if utf8_size(candidate) <= limit:
        return _shown(candidate, text, lines, len(candidate_lines))

    marker = truncated_marker(comment)
    room = limit - utf8_size(marker)
    if room < 0:
        return _shown("", text, lines, 0)
    kept = _whole_lines_fitting((utf8_size(line) for line in candidate_lines), room)
    if kept:
        return _shown(_join(candidate_lines[:kept], marker), text, lines, kept)
    # Not even one whole line fits: show the start of the first one rather than nothing.
    head = _utf8_prefix(candidate_lines[0], room - 1)
    if head:
        return _shown(_join([head], marker), text, lines, 1)
    return _shown(marker, text, lines, 0)


def cut_raw(policy: BudgetPolicy, text: str, comment: str = "#") -> Cut:
    """Fit raw source (L3, ``ctx get``) to ``max_bytes_total``: whole lines, then ``# ... N lines hidden``."""
    limit = policy.max_bytes_total
    if utf8_size(text) <= limit:
        lines = _split_lines(text)
        return _shown(text, text, lines, len(lines))
    lines = _split_lines(text)
    # used(k) = bytes of k lines + the marker for the rest; it never decreases as k grows (a line costs at
    # least its newline, the marker shrinks by at most one digit), so the first k that overflows ends the scan.
    used = 0
    kept = 0
    while kept < len(lines):
        after = used + utf8_size(lines[kept]) + 1
        if after + utf8_size(hidden_marker(len(lines) - kept - 1, comment)) > limit:
            break
        used = after
        kept += 1
    marker = hidden_marker(len(lines) - kept, comment)
    if used + utf8_size(marker) > limit:
        return _shown("", text, lines, 0)
    return _shown(_join(lines[:kept], marker), text, lines, kept)


def apply(policy: BudgetPolicy, texts: Iterable[str], comment: str = "#") -> BudgetOutcome:
    """Cut each snippet and keep a ranked prefix within ``max_snippets`` and ``max_bytes_total``."""
    kept: list[Cut] = []
    kept_indices: list[int] = []
    dropped: list[int] = []
    total = 0
    exceeded = False
    for index, text in enumerate(texts):
        if exceeded or index >= policy.max_snippets:
            dropped.append(index)
            continue
        cut = cut_snippet(policy, text, comment)
        if total + cut.size_bytes > policy.max_bytes_total:
            exceeded = True
            dropped.append(index)
            continue
        total += cut.size_bytes
        kept.append(cut)
        kept_indices.append(index)
    return BudgetOutcome(
        kept=tuple(kept), kept_indices=tuple(kept_indices), dropped_indices=tuple(dropped), exceeded=exceeded
    )
