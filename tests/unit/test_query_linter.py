"""The query linter: the spec's examples, the expansion limits, aliases, handed-in anchors, properties."""

from __future__ import annotations

from typing import Any, cast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trifecta.domain.query_linter import (
    DEFAULT_LINTER_CONFIG,
    MAX_ADDED_STRONG,
    LintChanges,
    LinterConfig,
    QueryClass,
    lint,
    normalize_query,
    tokenize,
)

# query-linter.md, "Examples (Input -> Plan)": each plan as the document shows it (a subset of the keys).
SPEC_EXAMPLES: list[tuple[str, dict[str, Any]]] = [
    (
        "config",
        {
            "query_class": "vague",
            "changed": True,
            "expanded_query": "config agent.md prime.md",
            "changes": {"added_strong": ["agent.md", "prime.md"], "reasons": ["vague_default_boost"]},
        },
    ),
    (
        "docs",
        {
            "query_class": "vague",
            "changed": True,
            "expanded_query": "docs docs/ readme.md",
            "changes": {"added_strong": ["docs/", "readme.md"], "reasons": ["doc_intent_boost"]},
        },
    ),
    (
        "check agent.md template creation code",
        {
            "query_class": "guided",
            "changed": False,
            "expanded_query": "check agent.md template creation code",
            "changes": {},
        },
    ),
    (
        "Muéstrame documentación sobre la persistencia de sesión",
        {
            "query_class": "guided",
            "changed": False,
            "anchors_detected": {
                "aliases_matched": ["persistencia de sesión"],
                "strong": ["session.md", "session append"],
            },
        },
    ),
    (
        "update telemetry logic",
        {
            "query_class": "semi",
            "changed": False,
            "anchors_detected": {"strong": ["telemetry"], "weak": []},
        },
    ),
]


def _subset(expected: dict[str, Any], actual: dict[str, Any]) -> None:
    for key, value in expected.items():
        if key == "anchors_detected":
            for sub_key, sub_value in value.items():
                assert actual[key][sub_key] == sub_value, (key, sub_key)
        else:
            assert actual[key] == value, key


@pytest.mark.parametrize(("query", "plan"), SPEC_EXAMPLES, ids=[q for q, _ in SPEC_EXAMPLES])
def test_spec_example(query: str, plan: dict[str, Any]) -> None:
    _subset(plan, lint(query).to_data())


def test_plan_shape() -> None:
    data = lint("config").to_data()
    assert list(data) == ["query_class", "changed", "expanded_query", "changes", "anchors_detected"]
    assert list(data["changes"]) == ["added_strong", "reasons"]  # no added_weak when there is none
    assert data["anchors_detected"] == {"strong": [], "weak": ["config"], "aliases_matched": []}
    unchanged = lint("update telemetry logic").to_data()
    assert unchanged["changes"] == {}
    both = LintChanges(added_strong=("a.md",), added_weak=("b",), reasons=("r",)).to_data()
    assert both == {"added_strong": ["a.md"], "added_weak": ["b"], "reasons": ["r"]}


def test_plan_fields_for_telemetry() -> None:
    plan = lint("config")
    assert plan.query_class is QueryClass.VAGUE
    assert plan.original_query == "config"
    assert plan.tokens == ("config",)
    assert (plan.token_count, plan.added_strong_count, plan.added_weak_count) == (1, 2, 0)
    assert plan.reasons == ("vague_default_boost",)


# --- classes --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("telemetry agent.md", QueryClass.VAGUE),  # fewer than 3 tokens, whatever the anchors
        ("where does this come from", QueryClass.VAGUE),  # no anchor at all
        ("fix the telemetry", QueryClass.SEMI),  # 3 tokens, one anchor
        ("please fix the telemetry now", QueryClass.GUIDED),  # 5 tokens and a strong anchor
        ("please fix the config template", QueryClass.GUIDED),  # 5 tokens and two weak anchors
        ("please fix the config now", QueryClass.SEMI),  # 5 tokens, one weak anchor only
        ("fix telemetry in the exporter", QueryClass.GUIDED),
        ("a b c d", QueryClass.VAGUE),
    ],
)
def test_classes(query: str, expected: QueryClass) -> None:
    assert lint(query).query_class is expected


def test_only_vague_queries_are_expanded() -> None:
    for query in ("fix the telemetry", "please fix the telemetry now", "read the docs about telemetry"):
        plan = lint(query)
        assert plan.query_class is not QueryClass.VAGUE
        assert (plan.changed, plan.expanded_query, plan.changes) == (False, query, LintChanges())


# --- expansion limits -----------------------------------------------------------------------------------


def test_never_adds_an_anchor_already_present() -> None:
    plan = lint("agent.md")
    assert plan.changes.added_strong == ("prime.md",)
    assert plan.expanded_query == "agent.md prime.md"
    assert lint("docs readme.md").changes.added_strong == ("docs/",)
    assert lint("PRIME.md Agent.MD").changed is False


def test_nothing_to_add_means_unchanged_and_no_reason() -> None:
    plan = lint("docs/ readme.md")
    assert plan.query_class is QueryClass.VAGUE
    assert (plan.changed, plan.changes.to_data(), plan.expanded_query) == (False, {}, "docs/ readme.md")


def test_reason_is_given_once() -> None:
    assert lint("help").reasons == ("vague_default_boost",)
    assert lint("guía").reasons == ("doc_intent_boost",)


def test_doc_intent_wins_over_default_boost_and_works_on_longer_queries() -> None:
    assert lint("manual").changes.added_strong == ("docs/", "readme.md")
    # 4 tokens, no anchor: vague; doc intent still applies although the query is not short.
    plan = lint("¿dónde está la guía?")
    assert plan.tokens == ("dónde", "está", "la", "guía")
    assert plan.changes.added_strong == ("docs/", "readme.md")
    assert plan.expanded_query == "¿dónde está la guía? docs/ readme.md"


def test_long_vague_query_without_doc_intent_is_left_alone() -> None:
    plan = lint("how does this thing work")
    assert plan.query_class is QueryClass.VAGUE
    assert plan.changed is False


def test_at_most_two_strong_anchors_are_added() -> None:
    config = DEFAULT_LINTER_CONFIG.with_anchors()
    many = LinterConfig(
        strong_anchors=config.strong_anchors,
        weak_anchors=config.weak_anchors,
        default_boost_anchors=("a.md", "b.md", "c.md", "a.md"),
    )
    assert lint("x", many).changes.added_strong == ("a.md", "b.md")
    assert MAX_ADDED_STRONG == 2


def test_empty_and_blank_queries() -> None:
    for query in ("", "   \n\t", "?!¿¡ ..."):
        plan = lint(query)
        assert plan.query_class is QueryClass.VAGUE
        assert plan.tokens == ()
        assert plan.changed is False
        assert plan.expanded_query == normalize_query(query)


def test_whitespace_is_normalized() -> None:
    assert lint("  config \n").expanded_query == "config agent.md prime.md"


# --- aliases --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "query",
    [
        "muestrame documentacion sobre la persistencia de sesion",
        "MUÉSTRAME DOCUMENTACIÓN SOBRE LA PERSISTENCIA DE SESIÓN",
        "Muéstrame documentación sobre la Persistencia de Sesion.",
    ],
)
def test_alias_matching_ignores_accents_and_case(query: str) -> None:
    plan = lint(query)
    assert plan.anchors_detected.aliases_matched == ("persistencia de sesión",)
    assert plan.anchors_detected.strong == ("session.md", "session append")
    assert plan.query_class is QueryClass.GUIDED


def test_english_and_spanish_aliases() -> None:
    assert lint("where is the session persistence done").anchors_detected.strong == (
        "session.md",
        "session append",
    )
    spanish = lint("¿dónde está el manejo de errores?")  # 6 tokens
    assert spanish.anchors_detected.aliases_matched == ("manejo de errores",)
    assert spanish.anchors_detected.strong == ("exception", "error")
    assert spanish.query_class is QueryClass.GUIDED
    assert lint("manejo de errores").query_class is QueryClass.SEMI  # 3 tokens, 2 strong


def test_longest_phrase_wins_and_tokens_are_not_reused() -> None:
    config = LinterConfig(
        strong_anchors=frozenset(),
        weak_anchors=frozenset({"sesión"}),
        aliases={"sesión": ("session.md",), "persistencia de sesión": ("session append",)},
    )
    plan = lint("la persistencia de sesión", config)
    assert plan.anchors_detected.aliases_matched == ("persistencia de sesión",)
    assert plan.anchors_detected.strong == ("session append",)
    assert plan.anchors_detected.weak == ()


# --- anchors handed in ----------------------------------------------------------------------------------


def test_custom_config_from_scratch() -> None:
    config = LinterConfig(
        strong_anchors=frozenset({"Widget.py"}),
        weak_anchors=frozenset({"layout", "theme"}),
        aliases={"caja de herramientas": ("toolbox.py",)},
        doc_intent_terms=frozenset({"ayuda"}),
        default_boost_anchors=("main.py",),
        path_tokens_are_strong=False,
    )
    assert lint("fix widget.py layout and theme", config).query_class is QueryClass.GUIDED
    assert lint("la caja de herramientas", config).anchors_detected.strong == ("toolbox.py",)
    assert lint("theme", config).changes.added_strong == ("main.py",)
    assert lint("ayuda", config).changes.added_strong == ("docs/", "readme.md")
    with pytest.raises(TypeError):
        cast(Any, config.aliases)["otra"] = ("x.py",)  # read-only mapping
    # Not in this config's lists: the defaults do not leak in.
    assert lint("update telemetry logic", config).query_class is QueryClass.VAGUE
    assert lint("see src/app.py now", config).anchors_detected.strong == ()


def test_spec_doc_terms_are_the_default() -> None:
    config = LinterConfig(strong_anchors=frozenset(), weak_anchors=frozenset())
    for query in ("docs", "guia", "MANUAL"):
        assert lint(query, config).reasons == ("doc_intent_boost",)
    assert lint("help", config).reasons == ("vague_default_boost",)


def test_with_anchors_adds_segment_names() -> None:
    query = "update the fusion code"
    assert lint(query).query_class is QueryClass.VAGUE
    config = DEFAULT_LINTER_CONFIG.with_anchors(strong=["fusion"], weak=["code"])
    plan = lint(query, config)
    assert plan.query_class is QueryClass.SEMI
    assert (plan.anchors_detected.strong, plan.anchors_detected.weak) == (("fusion",), ("code",))
    assert DEFAULT_LINTER_CONFIG.strong_anchors < config.strong_anchors  # the original is untouched
    assert "fusion" not in DEFAULT_LINTER_CONFIG.strong_anchors


def test_with_aliases() -> None:
    config = DEFAULT_LINTER_CONFIG.with_aliases({"fusión de rankings": ["ranking.py"]})
    plan = lint("revisar la fusion de rankings ahora mismo", config)
    assert plan.anchors_detected.aliases_matched == ("fusión de rankings",)
    assert plan.query_class is QueryClass.GUIDED


def test_path_like_tokens_are_strong_but_prose_with_dots_is_not() -> None:
    plan = lint("look at src/app/cli.py, e.g. and/or i.e.")
    assert plan.anchors_detected.strong == ("src/app/cli.py",)


def test_multiword_strong_anchor() -> None:
    assert lint("where is ctx search").anchors_detected.strong == ("ctx search",)


# --- properties -----------------------------------------------------------------------------------------


@settings(max_examples=400)
@given(st.text())
def test_total_deterministic_and_bounded_on_any_text(query: str) -> None:
    plan = lint(query)
    assert plan == lint(query)
    assert plan.expanded_query.startswith(normalize_query(query))
    assert len(plan.changes.added_strong) <= MAX_ADDED_STRONG
    assert plan.changed == bool(plan.changes.added_strong or plan.changes.added_weak)
    assert plan.changed == (plan.expanded_query != normalize_query(query))
    if plan.changed:
        assert plan.query_class is QueryClass.VAGUE
        assert len(plan.changes.reasons) == 1
        present = set(plan.tokens) | {a.lower() for a in plan.anchors_detected.strong}
        assert not present & set(plan.changes.added_strong)
    assert plan.tokens == tokenize(query)
    plan.to_data()


_words = st.sampled_from(
    ["config", "docs", "guía", "telemetry", "agent.md", "persistencia", "de", "sesión", "the", "x", "¿", "."]
)


@settings(max_examples=300)
@given(st.lists(_words, max_size=8).map(" ".join))
def test_expansion_rules_on_vocabulary_queries(query: str) -> None:
    plan = lint(query)
    added = plan.changes.added_strong
    assert len(added) == len(set(added)) <= MAX_ADDED_STRONG
    assert plan.expanded_query == " ".join([normalize_query(query), *added]).strip()


@settings(max_examples=200)
@given(
    st.frozensets(st.text(max_size=12), max_size=5),
    st.frozensets(st.text(max_size=12), max_size=5),
    st.dictionaries(st.text(max_size=20), st.lists(st.text(max_size=8), max_size=3), max_size=4),
    st.text(max_size=40),
)
def test_any_config_data_is_accepted(
    strong: frozenset[str], weak: frozenset[str], aliases: dict[str, list[str]], query: str
) -> None:
    config = LinterConfig(strong_anchors=strong, weak_anchors=weak, aliases=aliases)
    plan = lint(query, config)
    assert plan == lint(query, config)
    assert len(plan.changes.added_strong) <= MAX_ADDED_STRONG
