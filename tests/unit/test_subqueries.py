"""Compound questions split into parts; plain noun phrases joined by "and" stay whole."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trifecta.domain.subqueries import MAX_PARTS, split_subqueries


@pytest.mark.parametrize(
    ("query", "parts"),
    [
        (
            "find parse_header() and its error handling",
            ["find parse_header()", "parse_header() error handling"],
        ),
        ("find Sniffer.sniff; also its tests", ["find Sniffer.sniff", "Sniffer.sniff tests"]),
        (
            "where is the token parsed, then where is it validated",
            ["where is the token parsed", "where is it validated"],
        ),
        (
            "encuentra load_config y su manejo de errores",
            ["encuentra load_config", "load_config manejo de errores"],
        ),
        ("parse and validate input", []),
        ("copy files with shutil and preserve metadata", []),
        ("how does the CSV module infer the separator and quoting style", []),
        ("properties that also define a setter", []),
        ("where is the config loaded", []),
        ("a; b", []),
    ],
)
def test_split(query: str, parts: list[str]) -> None:
    assert split_subqueries(query) == parts


@given(st.text(max_size=300))
def test_any_text_splits_into_a_few_non_empty_parts_or_none(query: str) -> None:
    parts = split_subqueries(query)
    assert parts == [] or 2 <= len(parts) <= MAX_PARTS
    assert all(p.strip() for p in parts)
