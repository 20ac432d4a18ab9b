from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trifecta.domain.budget import (
    BudgetOutcome,
    BudgetPolicy,
    Cut,
    apply,
    cut_raw,
    cut_snippet,
    hidden_marker,
    truncated_marker,
    utf8_size,
)
from trifecta.domain.contract import ErrorCode


def _lines(count: int, width: int = 3) -> str:
    return "".join(f"{i:0{width}d}\n" for i in range(count))


# --- policy ----------------------------------------------------------------------------------------------


def test_defaults_are_the_design_limits() -> None:
    policy = BudgetPolicy()
    assert (policy.max_bytes_total, policy.max_snippet_bytes) == (32_000, 2_000)
    assert (policy.max_snippets, policy.max_lines_per_snippet) == (5, 50)


@pytest.mark.parametrize(
    "field", ["max_bytes_total", "max_snippet_bytes", "max_snippets", "max_lines_per_snippet"]
)
@pytest.mark.parametrize("value", [0, -1])
def test_limits_must_be_positive(field: str, value: int) -> None:
    with pytest.raises(ValueError):
        BudgetPolicy(**{field: value})


# --- markers ---------------------------------------------------------------------------------------------


def test_marker_texts() -> None:
    assert truncated_marker() == "# ... truncated"
    assert truncated_marker("//") == "// ... truncated"
    assert hidden_marker(7) == "# ... 7 lines hidden"
    assert hidden_marker(1, "//") == "// ... 1 lines hidden"


# --- one snippet -----------------------------------------------------------------------------------------


def test_snippet_within_limits_is_unchanged() -> None:
    text = "def f():\n    return 1\n"
    cut = cut_snippet(BudgetPolicy(), text)
    assert cut == Cut(
        text=text, truncated=False, hidden_lines=0, original_bytes=len(text), original_lines=2, kept_lines=2
    )


def test_empty_snippet() -> None:
    cut = cut_snippet(BudgetPolicy(), "")
    assert (cut.text, cut.truncated, cut.original_lines, cut.kept_lines) == ("", False, 0, 0)


def test_exactly_the_line_limit_is_unchanged() -> None:
    text = _lines(50)
    assert cut_snippet(BudgetPolicy(), text).text == text


def test_lines_beyond_the_limit_are_hidden() -> None:
    text = _lines(60)
    cut = cut_snippet(BudgetPolicy(), text)
    assert cut.text == _lines(50) + "# ... 10 lines hidden"
    assert cut.truncated
    assert (cut.kept_lines, cut.hidden_lines, cut.original_lines) == (50, 10, 60)
    assert cut.original_bytes == len(text)


def test_hidden_lines_marker_uses_the_comment_prefix() -> None:
    cut = cut_snippet(BudgetPolicy(max_lines_per_snippet=2), "a\nb\nc", comment="//")
    assert cut.text == "a\nb\n// ... 1 lines hidden"


def test_trailing_newline_does_not_count_as_a_line() -> None:
    policy = BudgetPolicy(max_lines_per_snippet=2)
    assert cut_snippet(policy, "a\nb\n").text == "a\nb\n"
    assert cut_snippet(policy, "a\nb\n").original_lines == 2
    assert cut_snippet(policy, "a\nb\n\n").text == "a\nb\n# ... 1 lines hidden"


def test_bytes_beyond_the_limit_are_cut_at_a_line_boundary() -> None:
    text = "".join(f"line {i:02d} xxxxxxxxxx\n" for i in range(10))  # 10 lines of 19 bytes + newline
    cut = cut_snippet(BudgetPolicy(max_snippet_bytes=100), text)
    # 4 lines (80 bytes) + the 15-byte marker fit in 100; a fifth line would not.
    assert cut.text == "".join(f"line {i:02d} xxxxxxxxxx\n" for i in range(4)) + "# ... truncated"
    assert (cut.kept_lines, cut.hidden_lines, cut.truncated) == (4, 6, True)
    assert utf8_size(cut.text) <= 100


def test_exactly_the_byte_limit_is_unchanged() -> None:
    text = "x" * 99 + "\n"
    assert cut_snippet(BudgetPolicy(max_snippet_bytes=100), text).text == text
    assert cut_snippet(BudgetPolicy(max_snippet_bytes=99), text).truncated


def test_line_rule_then_byte_rule_shows_one_marker() -> None:
    text = "".join(f"{'y' * 30}\n" for _ in range(80))
    cut = cut_snippet(BudgetPolicy(max_snippet_bytes=200, max_lines_per_snippet=50), text)
    assert cut.text == f"{'y' * 30}\n" * 5 + "# ... truncated"
    assert "lines hidden" not in cut.text
    assert (cut.kept_lines, cut.hidden_lines) == (5, 75)


def test_a_single_long_line_is_cut_inside_the_line() -> None:
    cut = cut_snippet(BudgetPolicy(max_snippet_bytes=50), "z" * 500)
    assert cut.text == "z" * 34 + "\n# ... truncated"
    assert utf8_size(cut.text) == 50
    assert (cut.kept_lines, cut.hidden_lines) == (1, 0)


@pytest.mark.parametrize("char", ["é", "€", "𝔘", "字"])
@pytest.mark.parametrize("limit", range(16, 40))
def test_multibyte_characters_are_never_split(char: str, limit: int) -> None:
    cut = cut_snippet(BudgetPolicy(max_snippet_bytes=limit), char * 100)
    assert utf8_size(cut.text) <= limit
    head = cut.text.removesuffix("# ... truncated").removesuffix("\n")
    assert set(head) <= {char}
    # As many whole characters as fit: the unused room is less than one character (and its newline).
    assert limit - utf8_size(cut.text) < len(char.encode()) + 1
    cut.text.encode("utf-8")  # a split sequence would have left a lone surrogate or raised earlier


def test_multibyte_lines_are_measured_in_bytes_not_characters() -> None:
    text = "ééééé\n" * 10  # 11 bytes per line, 6 characters
    cut = cut_snippet(BudgetPolicy(max_snippet_bytes=60), text)
    assert cut.text == "ééééé\n" * 4 + "# ... truncated"


def test_budget_smaller_than_the_marker_yields_empty_text() -> None:
    cut = cut_snippet(BudgetPolicy(max_snippet_bytes=10), "a long line that does not fit")
    assert cut.text == ""
    assert cut.truncated
    assert (cut.kept_lines, cut.hidden_lines) == (0, 1)


def test_budget_with_room_only_for_the_marker() -> None:
    cut = cut_snippet(BudgetPolicy(max_snippet_bytes=16), "a long line that does not fit")
    assert cut.text == "# ... truncated"
    assert (cut.kept_lines, cut.hidden_lines) == (0, 1)


def test_lone_surrogates_are_counted_and_never_raise() -> None:
    text = "\udcff" * 40
    cut = cut_snippet(BudgetPolicy(max_snippet_bytes=30), text)
    assert cut.original_bytes == 120
    assert utf8_size(cut.text) <= 30


# --- many snippets ---------------------------------------------------------------------------------------


def test_snippets_past_the_count_are_dropped_without_an_error() -> None:
    outcome = apply(BudgetPolicy(max_snippets=2), ["a", "b", "c", "d"])
    assert [cut.text for cut in outcome.kept] == ["a", "b"]
    assert outcome.kept_indices == (0, 1)
    assert outcome.dropped_indices == (2, 3)
    assert (outcome.kept_count, outcome.dropped_count) == (2, 2)
    assert not outcome.exceeded
    assert outcome.error_code is None


def test_crossing_the_total_drops_the_rest_and_reports_budget_exceeded() -> None:
    policy = BudgetPolicy(max_bytes_total=25, max_snippet_bytes=20)
    outcome = apply(policy, ["x" * 10, "y" * 10, "z" * 10, "w"])
    assert [cut.text for cut in outcome.kept] == ["x" * 10, "y" * 10]
    assert outcome.dropped_indices == (2, 3)
    assert outcome.total_bytes == 20
    assert outcome.exceeded
    assert outcome.error_code is ErrorCode.BUDGET_EXCEEDED


def test_exactly_the_total_is_not_exceeded() -> None:
    outcome = apply(BudgetPolicy(max_bytes_total=20, max_snippet_bytes=20), ["x" * 10, "y" * 10])
    assert outcome.kept_count == 2
    assert not outcome.exceeded


def test_truncated_count_counts_cut_snippets() -> None:
    policy = BudgetPolicy(max_lines_per_snippet=2)
    outcome = apply(policy, ["a\nb\nc", "a", "a\nb\nc\nd"])
    assert outcome.truncated_count == 2
    assert outcome.kept[0].text == "a\nb\n# ... 1 lines hidden"


def test_apply_passes_the_comment_prefix() -> None:
    outcome = apply(BudgetPolicy(max_lines_per_snippet=1), ["a\nb"], comment="//")
    assert outcome.kept[0].text == "a\n// ... 1 lines hidden"


def test_default_policy_with_realistic_results() -> None:
    snippets = ["def f():\n" + "    x = 1\n" * 200] * 8
    outcome = apply(BudgetPolicy(), snippets)
    assert outcome.kept_count == 5
    assert outcome.dropped_indices == (5, 6, 7)
    assert all(cut.truncated for cut in outcome.kept)
    assert all(cut.text.endswith("# ... 151 lines hidden") for cut in outcome.kept)
    assert not outcome.exceeded


def test_empty_input() -> None:
    outcome = apply(BudgetPolicy(), [])
    assert outcome == BudgetOutcome(kept=(), kept_indices=(), dropped_indices=(), exceeded=False)
    assert outcome.total_bytes == 0


def test_outcome_rejects_indices_that_do_not_partition_the_input() -> None:
    cut = cut_snippet(BudgetPolicy(), "a")
    with pytest.raises(ValueError):
        BudgetOutcome(kept=(cut,), kept_indices=(0,), dropped_indices=(0,), exceeded=False)
    with pytest.raises(ValueError):
        BudgetOutcome(kept=(cut,), kept_indices=(), dropped_indices=(0,), exceeded=False)


def test_cut_rejects_line_counts_that_do_not_add_up() -> None:
    with pytest.raises(ValueError):
        Cut(text="", truncated=True, hidden_lines=1, original_bytes=3, original_lines=3, kept_lines=1)


# --- raw source (L3) -------------------------------------------------------------------------------------


def test_raw_within_the_total_is_unchanged() -> None:
    text = _lines(5000)  # 20,000 bytes, far more lines than a snippet may have
    cut = cut_raw(BudgetPolicy(), text)
    assert cut.text == text
    assert not cut.truncated


def test_raw_keeps_whole_lines_and_says_how_many_are_hidden() -> None:
    text = _lines(100)  # 4 bytes per line
    cut = cut_raw(BudgetPolicy(max_bytes_total=100), text)
    # k lines cost 4k bytes; "# ... N lines hidden" costs 21 bytes for two-digit N: 4*19 + 21 = 97.
    assert cut.text == _lines(19) + "# ... 81 lines hidden"
    assert (cut.kept_lines, cut.hidden_lines) == (19, 81)


def test_raw_marker_length_depends_on_the_hidden_count() -> None:
    text = _lines(1000)
    for limit in range(20, 140):
        cut = cut_raw(BudgetPolicy(max_bytes_total=limit), text)
        assert utf8_size(cut.text) <= limit
        if limit < utf8_size(hidden_marker(1000)):
            assert cut.text == ""
            continue
        assert cut.text.endswith(f"# ... {cut.hidden_lines} lines hidden")
        # Maximal: one more line would not fit with its marker.
        one_more = _lines(cut.kept_lines + 1) + hidden_marker(cut.hidden_lines - 1)
        assert utf8_size(one_more) > limit


def test_raw_never_cuts_inside_a_line() -> None:
    cut = cut_raw(BudgetPolicy(max_bytes_total=50), "q" * 100 + "\nshort\n")
    assert cut.text == "# ... 2 lines hidden"
    assert cut.kept_lines == 0


def test_raw_with_no_room_for_the_marker() -> None:
    cut = cut_raw(BudgetPolicy(max_bytes_total=5), "a much longer line\n")
    assert cut.text == ""
    assert cut.truncated


def test_raw_uses_the_comment_prefix() -> None:
    cut = cut_raw(BudgetPolicy(max_bytes_total=30), "a\n" * 20, comment="//")
    # 4 lines (8 bytes) + "// ... 16 lines hidden" (22 bytes) = 30.
    assert cut.text == "a\n" * 4 + "// ... 16 lines hidden"


# --- properties ------------------------------------------------------------------------------------------

policies = st.builds(
    BudgetPolicy,
    max_bytes_total=st.integers(1, 3_000),
    max_snippet_bytes=st.integers(1, 600),
    max_snippets=st.integers(1, 8),
    max_lines_per_snippet=st.integers(1, 30),
)
texts = st.text(alphabet=st.characters(codec="utf-8") | st.sampled_from("\n\r\t é€𝔘"), max_size=800)
comments = st.sampled_from(["#", "//", "--"])


@given(policies, st.lists(texts, max_size=12), comments)
def test_apply_never_lets_more_than_the_limits_through(
    policy: BudgetPolicy, inputs: list[str], comment: str
) -> None:
    outcome = apply(policy, inputs, comment)
    assert all(cut.size_bytes <= policy.max_snippet_bytes for cut in outcome.kept)
    assert outcome.kept_count <= policy.max_snippets
    assert outcome.total_bytes <= policy.max_bytes_total
    assert outcome.kept_count + outcome.dropped_count == len(inputs)
    assert sorted(outcome.kept_indices + outcome.dropped_indices) == list(range(len(inputs)))
    assert outcome.truncated_count == sum(
        cut.text != inputs[i] for cut, i in zip(outcome.kept, outcome.kept_indices, strict=True)
    )
    assert outcome.exceeded == (outcome.error_code is ErrorCode.BUDGET_EXCEEDED)


@given(policies, texts, comments)
def test_cut_snippet_respects_its_limits(policy: BudgetPolicy, text: str, comment: str) -> None:
    cut = cut_snippet(policy, text, comment)
    assert cut.size_bytes <= policy.max_snippet_bytes
    assert cut.kept_lines <= policy.max_lines_per_snippet
    assert cut.kept_lines + cut.hidden_lines == cut.original_lines
    assert cut.original_bytes == utf8_size(text)
    if not cut.truncated:
        assert cut.text == text
    else:
        # What is shown is the start of the text, then one marker.
        body, _, marker = cut.text.rpartition("\n")
        assert marker in ("", truncated_marker(comment), hidden_marker(cut.hidden_lines, comment))
        assert text.startswith(body)


@given(policies, texts, comments)
def test_cut_raw_respects_the_total(policy: BudgetPolicy, text: str, comment: str) -> None:
    cut = cut_raw(policy, text, comment)
    assert cut.size_bytes <= policy.max_bytes_total
    assert cut.kept_lines + cut.hidden_lines == cut.original_lines
    if cut.truncated and cut.text:
        body, _, marker = cut.text.rpartition("\n")
        assert marker == hidden_marker(cut.hidden_lines, comment)
        assert text.startswith(body + "\n" if body else "")
    elif not cut.truncated:
        assert cut.text == text


@given(policies, texts)
def test_cut_is_idempotent(policy: BudgetPolicy, text: str) -> None:
    once = cut_snippet(policy, text)
    assert cut_snippet(policy, once.text).size_bytes <= policy.max_snippet_bytes
    raw = cut_raw(policy, text)
    assert cut_raw(policy, raw.text).text == raw.text
