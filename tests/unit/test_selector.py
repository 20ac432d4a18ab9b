from __future__ import annotations

from collections.abc import Callable
from typing import cast

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trifecta.domain.contract import ErrorCode
from trifecta.domain.selector import (
    MAX_ERROR_TEXT,
    Selector,
    SelectorError,
    SelectorKind,
    is_identifier,
    parse,
)

SYNTAX = ErrorCode.INVALID_SELECTOR_SYNTAX
UNSUPPORTED = ErrorCode.LANGUAGE_NOT_SUPPORTED


def _error(text: object, languages: frozenset[str] = frozenset({"python"})) -> SelectorError:
    result = parse(cast(str, text), languages)  # non-str on purpose: parse must cope
    assert isinstance(result, SelectorError), result
    return result


# --- §3.3 examples ---------------------------------------------------------------------------------------


def test_mod_selector_names_a_file() -> None:
    assert parse("sym://python/mod/user_model") == Selector(
        language="python", kind=SelectorKind.MOD, path=("user_model",)
    )


def test_type_selector_splits_file_from_symbol() -> None:
    assert parse("sym://python/type/user_model/User") == Selector(
        language="python", kind=SelectorKind.TYPE, path=("user_model",), symbol="User"
    )


def test_type_selector_with_member() -> None:
    selector = parse("sym://python/type/user_model/User#get_email")
    assert selector == Selector(
        language="python", kind=SelectorKind.TYPE, path=("user_model",), symbol="User", member=("get_email",)
    )


def test_missing_kind_is_invalid() -> None:
    error = _error("sym://python/User")
    assert error.code is SYNTAX
    assert error.position == 13
    assert "expected 'mod' or 'type' at position 13" in error.message


def test_capitalised_mod_path_is_still_a_file() -> None:
    assert parse("sym://python/mod/User") == Selector(
        language="python", kind=SelectorKind.MOD, path=("User",)
    )


# --- valid shapes ----------------------------------------------------------------------------------------


def test_nested_path_and_dotted_member() -> None:
    selector = parse("sym://python/type/pkg/sub/mod/Outer#Inner.method")
    assert isinstance(selector, Selector)
    assert selector.path == ("pkg", "sub", "mod")
    assert selector.symbol == "Outer"
    assert selector.member == ("Inner", "method")
    assert selector.qualname == "Outer.Inner.method"
    assert selector.file_hint == "pkg/sub/mod"


def test_mod_qualname_is_empty() -> None:
    selector = parse("sym://python/mod/pkg/__init__")
    assert isinstance(selector, Selector)
    assert selector.qualname == ""
    assert selector.file_hint == "pkg/__init__"


def test_surrounding_whitespace_is_stripped() -> None:
    assert parse("  sym://python/mod/a\n") == parse("sym://python/mod/a")


def test_other_language_when_supported() -> None:
    assert parse("sym://rust/mod/a", frozenset({"python", "rust"})) == Selector(
        language="rust", kind=SelectorKind.MOD, path=("a",)
    )


# --- malformed input -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "position", "expected"),
    [
        ("", 0, "empty selector"),
        ("   ", 0, "empty selector"),
        ("sym:/", 5, "expected 'sym://' at position 5"),
        ("sym://", 6, "expected a language"),
        ("http://python/mod/a", 0, "expected 'sym://' at position 0"),
        ("SYM://python/mod/a", 0, "expected 'sym://'"),
        ("sym://python", 12, "expected '/' after the language at position 12"),
        ("sym://python/", 13, "expected 'mod' or 'type' at position 13, found end of selector"),
        ("sym://python/modx/a", 13, "found 'modx'"),
        ("sym://python/Mod/a", 13, "expected 'mod' or 'type'"),
        ("sym://python/mod", 16, "expected '/' after 'mod' at position 16"),
        ("sym://python/mod/", 17, "expected a path component"),
        ("sym://python/mod/a//b", 19, "found '/'"),
        ("sym://python/mod/a/", 19, "expected a path component"),
        ("sym://python/mod/.hidden", 17, "found '.'"),
        ("sym://python/mod/a/../b", 19, "found '.'"),
        ("sym://python/mod/a/./b", 19, "found '.'"),
        ("sym://python/mod/-a", 17, "found '-'"),
        ("sym://python/type/a/foo-bar", 23, "expected the symbol"),
        ("sym://python/type/a/1abc", 20, "expected the symbol"),
        ("sym://python/type/a/B#c-d", 23, "expected '.' or end of selector"),
        ("sym://python/mod/a b", 18, "found ' '"),
        ("sym://python/mod/a#b", 18, "a mod selector takes no '#member'"),
        ("sym://python/type/a/B#", 22, "expected a member name after '#'"),
        ("sym://python/type/a/B#c.", 24, "expected a member name after '.'"),
        ("sym://python/type/a/B#c..d", 24, "expected a member name after '.'"),
        ("sym://python/type/a/B#c/d", 23, "expected '.' or end of selector"),
        ("sym://python/type/a/B#c#d", 23, "expected '.' or end of selector"),
        ("sym://python/type/User", 22, "a type selector names the file and then the symbol"),
        ("sym://python/type/User#get", 22, "expected '/<Symbol>' at position 22, found '#'"),
        ("sym://python/type/", 18, "expected a path component"),
        ("sym://1python/mod/a", 6, "expected a language"),
        ("sym:///mod/a", 6, "expected a language"),
        ("  sym://python/mod/", 19, "at position 19"),
    ],
)
def test_malformed_selector(text: str, position: int, expected: str) -> None:
    error = _error(text)
    assert error.code is SYNTAX
    assert error.position == position
    assert expected in error.message
    assert error.text == text


@pytest.mark.parametrize(
    ("text", "position"),
    [
        ("sym://python/mod/café", 20),
        ("sym://python/mod/ñandu", 17),
        ("sym://pythön/mod/a", 10),
        ("sym://python/type/a/Ünïcode", 20),
        ("sym://python/type/a/B#métho", 23),
        ("sym://python/mod/a\u200bb", 18),  # zero-width space
        ("sym://python/mod/\uff41", 17),  # full-width 'a'
    ],
)
def test_non_ascii_identifiers_are_rejected(text: str, position: int) -> None:
    error = _error(text)
    assert error.code is SYNTAX
    assert error.position == position


def test_unsupported_language_is_its_own_code() -> None:
    error = _error("sym://rust/mod/a")
    assert error.code is UNSUPPORTED
    assert error.position == 6
    assert "'rust'" in error.message
    assert "supported: python" in error.message


def test_language_case_matters_with_a_hint() -> None:
    error = _error("sym://Python/mod/a")
    assert error.code is UNSUPPORTED
    assert "lower-case" in error.message


def test_syntax_is_checked_before_language() -> None:
    assert _error("sym://rust/User").code is SYNTAX


def test_no_supported_languages() -> None:
    error = _error("sym://python/mod/a", frozenset())
    assert error.code is UNSUPPORTED
    assert "supported: none" in error.message


@pytest.mark.parametrize("value", [None, 42, b"sym://python/mod/a", ["sym://python/mod/a"]])
def test_non_string_input_is_an_error_value(value: object) -> None:
    error = _error(value)
    assert error.code is SYNTAX
    assert error.position == 0
    assert error.text == ""
    assert "string" in error.message


def test_very_long_input_is_clipped_in_the_error() -> None:
    text = "sym://python/mod/" + "a/" * 50_000 + "-"
    error = _error(text)
    assert error.code is SYNTAX
    assert error.position == len(text) - 1
    assert len(error.text) == MAX_ERROR_TEXT
    assert text.startswith(error.text)


def test_very_long_valid_input_parses() -> None:
    text = "sym://python/type/" + "/".join(["pkg"] * 10_000) + "/A#" + ".".join(["m"] * 10_000)
    selector = parse(text)
    assert isinstance(selector, Selector)
    assert len(selector.path) == 10_000
    assert len(selector.member) == 10_000
    assert selector.render() == text


def test_position_counts_leading_whitespace() -> None:
    error = _error("\t sym://python/User")
    assert error.position == 15
    assert error.text[error.position :].startswith("User")


def test_error_becomes_an_envelope_error() -> None:
    error = _error("sym://python/User").to_error()
    assert error.code is SYNTAX
    assert error.data == {"position": 13, "selector": "sym://python/User"}


# --- constructors and invariants -------------------------------------------------------------------------


def test_module_constructor_accepts_a_path_string_or_components() -> None:
    assert Selector.module("python", "pkg/utils") == Selector.module("python", ("pkg", "utils"))
    assert Selector.module("python", "pkg/utils").render() == "sym://python/mod/pkg/utils"


def test_definition_constructor_splits_the_qualname() -> None:
    selector = Selector.definition("python", "pkg/models", "User.Meta.ordering")
    assert selector.symbol == "User"
    assert selector.member == ("Meta", "ordering")
    assert selector.render() == "sym://python/type/pkg/models/User#Meta.ordering"


def test_definition_of_a_top_level_symbol_has_no_member() -> None:
    assert Selector.definition("python", "m", "f").render() == "sym://python/type/m/f"


@pytest.mark.parametrize(
    "build",
    [
        lambda: Selector.module("python", "my file"),
        lambda: Selector.module("python", ".."),
        lambda: Selector.definition("python", "a", "foo-bar"),
        lambda: Selector.module("python", ""),
        lambda: Selector.module("python", ()),
        lambda: Selector.module("py thon", "a"),
        lambda: Selector.definition("python", "a", ""),
        lambda: Selector.definition("python", "a", "A..b"),
        lambda: Selector(language="python", kind=SelectorKind.MOD, path=("a",), symbol="A"),
        lambda: Selector(language="python", kind=SelectorKind.MOD, path=("a",), member=("b",)),
        lambda: Selector(language="python", kind=SelectorKind.TYPE, path=("a",)),
    ],
)
def test_invalid_selectors_cannot_be_built(build: Callable[[], object]) -> None:
    with pytest.raises(ValueError):
        build()


def test_is_identifier() -> None:
    assert is_identifier("_a1")
    assert not is_identifier("1a")
    assert not is_identifier("é")
    assert not is_identifier("")
    assert not is_identifier("a\n")


# --- properties ------------------------------------------------------------------------------------------

identifiers = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,11}", fullmatch=True)
components = st.lists(identifiers, min_size=1, max_size=5).map(tuple)


@st.composite
def selectors(draw: st.DrawFn) -> Selector:
    language = draw(st.sampled_from(["python", "rust", "typescript"]))
    if draw(st.booleans()):
        return Selector.module(language, draw(components))
    members = draw(st.lists(identifiers, max_size=4))
    qualname = ".".join([draw(identifiers), *members])
    return Selector.definition(language, draw(components), qualname)


ALL_LANGUAGES = frozenset({"python", "rust", "typescript"})


@given(selectors())
def test_parse_inverts_render(selector: Selector) -> None:
    assert parse(selector.render(), ALL_LANGUAGES) == selector


@given(st.text())
def test_parse_is_total_on_text(text: str) -> None:
    result = parse(text)
    assert isinstance(result, Selector | SelectorError)
    if isinstance(result, SelectorError):
        assert 0 <= result.position <= len(text)
        assert result.code in (SYNTAX, UNSUPPORTED)


@given(st.text(alphabet="sym:/#._aAzZ09 é\n-python", max_size=40))
def test_parse_is_total_on_selector_like_text(text: str) -> None:
    result = parse(text)
    assert isinstance(result, Selector | SelectorError)
    if isinstance(result, Selector):
        assert result.render() == text.strip()


@given(
    selectors(),
    st.text(alphabet=" \t\n", max_size=3),
    st.text(alphabet=" \t\n", max_size=3),
)
def test_render_of_a_parsed_uri_is_the_stripped_input(selector: Selector, before: str, after: str) -> None:
    text = before + selector.render() + after
    result = parse(text, ALL_LANGUAGES)
    assert isinstance(result, Selector)
    assert result.render() == text.strip()


@given(selectors(), st.data())
def test_one_character_edits_never_raise(selector: Selector, data: st.DataObject) -> None:
    uri = selector.render()
    index = data.draw(st.integers(0, len(uri) - 1))
    replacement = data.draw(st.characters())
    mutated = uri[:index] + replacement + uri[index + 1 :]
    result = parse(mutated, ALL_LANGUAGES)
    assert isinstance(result, Selector | SelectorError)
    if isinstance(result, Selector):
        assert result.render() == mutated.strip()
    else:
        assert result.position <= len(mutated)
