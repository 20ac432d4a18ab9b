from __future__ import annotations

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from trifecta.domain.rewrite_policy import (
    FOCUS_MULTIPLIER,
    Focus,
    apply_focus,
    focus_multiplier,
    infer_focus,
    is_test_file,
    parse_focus,
    should_rewrite,
)

# --- should_rewrite (llm-query-rewriting.md, TestShouldRewrite) ------------------------------------------


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("how are edges inserted into the graph?", True),
        ("what function handles authentication", True),
        ("where does the config file get loaded", True),
        ("how does the system handle errors in the pipeline", True),
        ("insert_call", False),
        ("insertCall", False),
        ("store.insert_call", False),
        ("graph edges", False),
        ("search", False),
        ("", False),
    ],
)
def test_document_examples(query: str, expected: bool) -> None:
    assert should_rewrite(query) is expected


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("   ", False),
        ("?!", False),
        ("How Are Edges Inserted Into The Graph", True),  # question words match in any case
        ("how is insert_call used by the indexer", False),  # a snake_case token makes it code-like
        ("why does getUser return none", False),  # camelCase anywhere
        ("where is config.toml read from disk", False),  # dotted path anywhere
        ("the cache store", False),  # two meaningful words
        ("the cache of the store in the index", True),  # three meaningful words, stop-word ratio > 0.4
        ("parse the file and store it in the index", True),  # no question word, stop-word ratio > 0.4
        ("parse file store index rows quickly", False),  # no question word, no stop words
        ("how to", False),
    ],
)
def test_more_queries(query: str, expected: bool) -> None:
    assert should_rewrite(query) is expected


# --- is_test_file (TestIsTestFile) -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("tests/test_store.py", True),
        ("src/test_helper.py", True),
        ("src/store_test.py", True),
        ("src/codelibrarian/store.py", False),
        ("project/tests/unit/test_foo.py", True),
        ("tests/fixtures/sample.py", True),
        ("cmd/server_test.go", True),
        ("go/analysis/testdata/src/a/a.go", True),
        ("src/__tests__/store.ts", True),
        ("src/store.test.ts", True),
        ("lib/router.spec.js", True),
        ("spec/models/user_spec.rb", True),
        ("src/main/java/StoreTest.java", True),
        ("Store.Tests/CartTests.cs", True),
        ("src/latest.py", False),
        ("lib/Attest.java", False),
        ("src/spec/openapi.py", False),
        ("src/Test.java", False),
    ],
)
def test_document_test_file_examples(path: str, expected: bool) -> None:
    assert is_test_file(path) is expected


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("test/helpers.py", True),
        ("pkg/test/data/sample.json", True),
        ("web/__tests__/app.js", True),
        ("conftest.py", True),
        ("tests/conftest.py", True),
        ("pkg/server_test.go", True),
        ("tests\\windows\\path.py", True),
        ("src\\test_helper.py", True),
        ("numpy/testing/utils.py", False),
        ("src/contest.py", False),
        ("src/latest.py", False),
        ("src/attestation.py", False),
        ("src/testament/test", False),
        ("src/test", False),
        ("src/tests", True),  # the document's rule: a "tests" component anywhere
        ("Tests/x.py", False),  # case-sensitive, as in the document
        ("", False),
        ("/", False),
    ],
)
def test_test_file_extensions(path: str, expected: bool) -> None:
    assert is_test_file(path) is expected


# --- focus -----------------------------------------------------------------------------------------------


def test_focus_multiplier_is_the_documented_decision() -> None:
    assert FOCUS_MULTIPLIER == 0.7


@pytest.mark.parametrize(
    ("path", "focus", "expected"),
    [
        ("src/store.py", Focus.IMPLEMENTATION, 1.0),
        ("tests/test_store.py", Focus.IMPLEMENTATION, 0.7),
        ("src/store.py", Focus.TESTS, 0.7),
        ("tests/test_store.py", Focus.TESTS, 1.0),
        ("src/store.py", Focus.ALL, 1.0),
        ("tests/test_store.py", Focus.ALL, 1.0),
    ],
)
def test_focus_multiplier(path: str, focus: Focus, expected: float) -> None:
    assert focus_multiplier(path, focus) == expected


@attrs.frozen
class Hit:
    path: str
    score: float


def _apply(hits: list[Hit], focus: Focus) -> list[tuple[Hit, float]]:
    return apply_focus(hits, focus, path=lambda h: h.path, score=lambda h: h.score)


def test_implementation_focus_demotes_tests_and_resorts() -> None:
    test_hit = Hit("tests/test_store.py", 1.0)
    impl_hit = Hit("src/store.py", 0.8)
    result = _apply([test_hit, impl_hit], Focus.IMPLEMENTATION)
    assert result == [(impl_hit, 0.8), (test_hit, pytest.approx(0.7))]


def test_tests_focus_demotes_implementation_and_resorts() -> None:
    impl_hit = Hit("src/store.py", 1.0)
    test_hit = Hit("tests/test_store.py", 0.75)
    result = _apply([impl_hit, test_hit], Focus.TESTS)
    assert [hit for hit, _ in result] == [test_hit, impl_hit]
    assert result[1][1] == pytest.approx(0.7)


def test_demotion_is_not_enough_to_pass_a_much_weaker_result() -> None:
    test_hit = Hit("tests/test_store.py", 1.0)
    impl_hit = Hit("src/store.py", 0.5)
    assert [hit for hit, _ in _apply([test_hit, impl_hit], Focus.IMPLEMENTATION)] == [test_hit, impl_hit]


def test_all_focus_keeps_scores_and_sorts() -> None:
    low, high = Hit("tests/test_a.py", 0.2), Hit("src/a.py", 0.9)
    assert _apply([low, high], Focus.ALL) == [(high, 0.9), (low, 0.2)]


def test_ties_keep_input_order() -> None:
    hits = [Hit(f"src/m{i}.py", 0.5) for i in range(5)]
    assert [hit for hit, _ in _apply(hits, Focus.IMPLEMENTATION)] == hits
    demoted = [Hit("src/a.py", 0.7), Hit("tests/test_b.py", 1.0), Hit("src/c.py", 0.7)]
    # 1.0 * 0.7 ties with 0.7 only up to float rounding, so compare orders among exact ties.
    ordered = [hit for hit, _ in _apply(demoted, Focus.IMPLEMENTATION)]
    assert ordered.index(demoted[0]) < ordered.index(demoted[2])


def test_empty_items() -> None:
    assert _apply([], Focus.TESTS) == []


@given(
    st.lists(
        st.builds(
            Hit,
            path=st.sampled_from(["src/a.py", "tests/test_a.py", "b_test.py", "lib/c.py"]),
            score=st.floats(0, 100, allow_nan=False),
        ),
        max_size=20,
    ),
    st.sampled_from(list(Focus)),
)
def test_apply_focus_properties(hits: list[Hit], focus: Focus) -> None:
    result = _apply(hits, focus)
    assert sorted(id(hit) for hit, _ in result) == sorted(id(hit) for hit in hits)
    scores = [score for _, score in result]
    assert scores == sorted(scores, reverse=True)
    for hit, score in result:
        assert score == hit.score * focus_multiplier(hit.path, focus)


# --- infer_focus and parse_focus -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("where are the tests for the store", Focus.TESTS),
        ("which test covers insert_call", Focus.TESTS),
        ("pytest fixture for the database", Focus.TESTS),
        ("unittest of the parser", Focus.TESTS),
        ("how is the indexer testing done", Focus.TESTS),
        ("test_store failures", Focus.TESTS),
        ("dónde están las pruebas del parser", Focus.TESTS),
        ("prueba de integración", Focus.TESTS),
        ("how are edges inserted into the graph", Focus.IMPLEMENTATION),
        ("latest attestation contest", Focus.IMPLEMENTATION),
        ("where is a checked-out connection tested and replaced", Focus.ALL),
        ("which tests check that a tested connection is replaced", Focus.TESTS),
        ("", Focus.IMPLEMENTATION),
    ],
)
def test_infer_focus(query: str, expected: Focus) -> None:
    assert infer_focus(query) is expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("implementation", Focus.IMPLEMENTATION),
        (" Tests\n", Focus.TESTS),
        ("all", Focus.ALL),
        ("both", Focus.ALL),
        ("", Focus.ALL),
        (None, Focus.ALL),
        (3, Focus.ALL),
    ],
)
def test_parse_focus(value: object, expected: Focus) -> None:
    assert parse_focus(value) is expected


# --- totality --------------------------------------------------------------------------------------------


@given(st.text())
def test_should_rewrite_is_total_and_deterministic(query: str) -> None:
    result = should_rewrite(query)
    assert isinstance(result, bool)
    assert should_rewrite(query) is result


@given(st.text())
def test_is_test_file_is_total(path: str) -> None:
    assert isinstance(is_test_file(path), bool)


@given(st.text())
def test_infer_focus_is_total(query: str) -> None:
    assert infer_focus(query) in (Focus.TESTS, Focus.IMPLEMENTATION, Focus.ALL)


words = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8)
sentences = st.lists(
    st.sampled_from(["how", "does", "the", "graph", "store", "edges", "in", "a"]) | words, max_size=8
)


@given(st.lists(words, max_size=2), st.sampled_from([" ", "  ", "? ", ", "]))
def test_fewer_than_three_words_are_never_rewritten(parts: list[str], separator: str) -> None:
    assert should_rewrite(separator.join(parts)) is False


@given(
    sentences, sentences, st.sampled_from(["store.insert_call", "insertCall", "graph.edges", "insert_call"])
)
def test_a_code_token_anywhere_prevents_a_rewrite(before: list[str], after: list[str], code: str) -> None:
    assert should_rewrite(" ".join([*before, code, *after])) is False


def test_is_test_file_remembers_each_path() -> None:
    assert is_test_file("pkg/tests/test_cache_probe.py") and not is_test_file("pkg/cache_probe.py")
    hits = is_test_file.cache_info().hits
    assert is_test_file("pkg/tests/test_cache_probe.py") and not is_test_file("pkg/cache_probe.py")
    assert is_test_file.cache_info().hits == hits + 2  # asked for every ranked hit: answered from memory
