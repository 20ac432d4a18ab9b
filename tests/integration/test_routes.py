"""Regex look-ups through the facade: trigram-narrowed, decided by the regex per line, smart case, clear
errors for patterns that do not compile, and the whole-index scan when no literal can narrow."""

from __future__ import annotations

from pathlib import Path

import pytest

import trifecta


@pytest.fixture()
def engine(sample_repo: Path):  # type: ignore[no-untyped-def]
    with trifecta.open(sample_repo) as eng:
        eng.index()
        yield eng


def _lines(response: trifecta.Response) -> list[tuple[str, int]]:
    data = response.to_dict()["data"]
    return [(h["path"], h["line"]) for h in data["hits"]]


def test_regex_with_special_characters_finds_exact_lines(engine: trifecta.Engine) -> None:
    response = engine.search(r"raise \w+Error\(", regex=True)
    assert response.ok
    assert sorted(_lines(response)) == [
        ("shop/checkout.py", 40),
        ("shop/inventory.py", 28),
        ("shop/inventory.py", 49),
    ]
    plan = response.to_dict()["data"]["plan"]
    assert plan["route"] == "pattern" and plan["regex"]["literals"] == ["Error("]
    assert response.to_dict()["data"]["hits"][0]["match_type"] == "regex"


def test_slash_delimited_query_is_a_regex_in_auto_mode(engine: trifecta.Engine) -> None:
    response = engine.search(r"/def \w+_http_\w+\(line: str\)/")
    assert _lines(response) == [("shop/checkout.py", 18)]


def test_smart_case(engine: trifecta.Engine) -> None:
    insensitive = _lines(engine.search("payment ?error", regex=True, limit=50))
    sensitive = _lines(engine.search("Payment ?Error", regex=True, limit=50))
    lowercase_only = _lines(engine.search("paymenterror", regex=True, limit=50))
    assert sensitive and set(sensitive) <= set(insensitive)
    assert lowercase_only == insensitive  # no upper-case letter: case-insensitive


def test_no_literal_scans_every_chunk(engine: trifecta.Engine) -> None:
    response = engine.search(r"\d{2}\.\d", regex=True)
    data = response.to_dict()["data"]
    assert data["plan"]["regex"]["scan"] is True
    assert ("shop/checkout.py", 32) in _lines(response)  # timeout: float = 10.0


@pytest.mark.parametrize("bad", ["[", "(unclosed", "a{2,1}", "*oops", "(?P<x)"])
def test_invalid_regex_is_a_clear_input_error(engine: trifecta.Engine, bad: str) -> None:
    response = engine.search(bad, regex=True)
    assert not response.ok
    error = response.to_dict()["errors"][0]
    assert error["code"] == "INVALID_ARGUMENT" and "invalid regular expression" in error["message"]


def test_a_lone_slash_is_not_a_regex(engine: trifecta.Engine) -> None:
    for query in ("/", "//"):
        response = engine.search(query)
        assert response.ok and "regex" not in response.to_dict()["data"]["plan"]


def test_compound_question_is_split_routed_and_fused(engine: trifecta.Engine) -> None:
    response = engine.search("find place_order() and its reservation of stock")
    data = response.to_dict()["data"]
    plan = data["plan"]
    assert [p["query"] for p in plan["subqueries"]] == [
        "find place_order()",
        "place_order() reservation of stock",
    ]
    assert plan["subqueries"][0]["route"] == "pattern"
    assert {"part1", "part2"} <= set(plan["weights"]) and {"part1", "part2"} <= set(plan["engines"])
    assert data["hits"][0]["symbol"] == "Checkout.place_order"


def test_a_single_question_is_not_split(engine: trifecta.Engine) -> None:
    plan = engine.search("how is stock reserved for a cart").to_dict()["data"]["plan"]
    assert "subqueries" not in plan


def test_a_selector_query_goes_straight_to_the_ast_engine(engine: trifecta.Engine) -> None:
    response = engine.search("sym://python/type/shop/inventory/Inventory#reserveStock")
    data = response.to_dict()["data"]
    assert response.ok and data["plan"]["route"] == "ast"
    (hit,) = data["hits"]
    assert (hit["path"], hit["symbol"], hit["start_line"]) == (
        "shop/inventory.py",
        "Inventory.reserveStock",
        35,
    )
    assert hit["match_type"] == "selector" and hit["preview"].lstrip().startswith("def reserveStock")

    missing = engine.search("sym://python/type/shop/inventory/Inventory#nope").to_dict()
    assert missing["status"] == "error" and missing["errors"][0]["code"] == "SYMBOL_NOT_FOUND"
    assert missing["data"]["hits"] == []

    malformed = engine.search("sym://python/bogus").to_dict()
    assert malformed["errors"][0]["code"] == "INVALID_SELECTOR_SYNTAX"


def test_code_pattern_matches_on_the_syntax_tree(engine: trifecta.Engine) -> None:
    response = engine.search("$ITEMS.append($X)")  # metavariables: an ast-grep pattern in auto mode
    data = response.to_dict()["data"]
    assert response.ok and data["plan"]["route"] == "structural"
    assert data["plan"]["code_pattern"]["prefilter"] == ["append"]
    assert [(h["path"], h["line"], h["symbol"]) for h in data["hits"]] == [
        ("shop/checkout.py", 28, "validate_input")
    ]
    assert data["hits"][0]["preview"] == 'problems.append("missing cart")'
    assert data["hits"][0]["match_type"] == "code_pattern"


def test_code_pattern_flag_and_bad_patterns(engine: trifecta.Engine) -> None:
    raised = engine.search("raise $E($$$)", code_pattern=True, limit=20).to_dict()["data"]["hits"]
    assert sorted((h["path"], h["line"]) for h in raised) == [
        ("shop/checkout.py", 40),
        ("shop/inventory.py", 28),
        ("shop/inventory.py", 49),
    ]
    for bad in ("$X", "$$$("):
        error = engine.search(bad, code_pattern=True).to_dict()["errors"][0]
        assert error["code"] == "INVALID_ARGUMENT" and "metavariables" in error["message"]


def test_linter_takes_anchors_from_the_segment(engine: trifecta.Engine) -> None:
    lint = engine.search("how does the inventory reserve stock in checkout.py", lint=True).to_dict()["data"][
        "plan"
    ]["lint"]
    assert lint["query_class"] == "guided"
    assert lint["anchors_detected"]["strong"] == ["checkout.py"]  # a file of the segment
    assert "Inventory" in lint["anchors_detected"]["weak"]  # a symbol of the segment
    folder = engine.search("where is Inventory used in shop/", lint=True).to_dict()["data"]["plan"]["lint"]
    assert folder["anchors_detected"]["strong"] == ["shop/"]
    off = engine.search("how does the inventory reserve stock", lint=False).to_dict()["data"]["plan"]["lint"]
    assert off == {"query_class": "disabled"}


@pytest.mark.parametrize("nested", ["(a+)+$", r"(\w*)*x", r"(\d{2,})+"])
def test_nested_quantifiers_run_since_re2_never_backtracks(engine: trifecta.Engine, nested: str) -> None:
    assert engine.search(nested, regex=True).ok  # tests/integration/test_regex_safety.py times the worst


def test_bounded_repetition_inside_a_group_is_fine(engine: trifecta.Engine) -> None:
    assert engine.search(r"(\d{2})+", regex=True).ok


@pytest.mark.parametrize(
    ("query", "mode", "expected"),
    [
        (r"def \w+_input\(", "pattern", [("shop/checkout.py", 24)]),
        (r"def \w+_input\(", "auto", [("shop/checkout.py", 24)]),
        (r"self\.inventory\.\w+\(sku", "auto", [("shop/checkout.py", 50)]),
    ],
)
def test_a_query_written_as_a_regex_is_searched_as_one(
    engine: trifecta.Engine, query: str, mode: str, expected: list[tuple[str, int]]
) -> None:
    response = engine.search(query, mode=mode)
    data = response.to_dict()["data"]
    assert data["plan"]["regex"]["pattern"] == query
    assert _lines(response) == expected


def test_literal_code_with_brackets_stays_literal(engine: trifecta.Engine) -> None:
    plan = engine.search("self._items[product.sku]", mode="pattern").to_dict()["data"]["plan"]
    assert "regex" not in plan


def test_a_structural_question_lists_its_whole_set_first(engine: trifecta.Engine) -> None:
    hits = engine.search("classes that inherit from Exception or PaymentError", limit=10).to_dict()["data"][
        "hits"
    ]
    leading = [h for h in hits if h["match_type"] == "structural"]
    assert hits[: len(leading)] == leading  # every member before any lexical neighbour
    assert [h["symbol"] for h in leading] == ["PaymentError"]
    properties = engine.search("which methods are properties", limit=10).to_dict()["data"]["hits"]
    assert properties[0]["symbol"] == "Inventory.total_value" and properties[0]["match_type"] == "structural"


@pytest.mark.parametrize("query", ["shop/checkout.py", "checkout.py", "./shop/checkout.py"])
def test_a_file_path_query_answers_with_that_file_first(engine: trifecta.Engine, query: str) -> None:
    data = engine.search(query).to_dict()["data"]
    first = data["hits"][0]
    assert (first["path"], first["match_type"]) == ("shop/checkout.py", "path")
    assert data["plan"]["files_named"] == ["shop/checkout.py"]
    keys = [(h["path"], h["symbol"], h["start_line"]) for h in data["hits"]]
    assert len(keys) == len(set(keys))


def test_a_module_chunk_follows_the_definition_of_its_file(engine: trifecta.Engine) -> None:
    hits = engine.search("turn a cart into an order and charge the customer", limit=10).to_dict()["data"][
        "hits"
    ]
    kinds = [(h["path"], h["kind"]) for h in hits if h["path"] == "shop/checkout.py"]
    assert kinds and kinds[0][1] != "module"
    assert ("shop/checkout.py", "module") in kinds  # still listed, after a definition of its file


def _symbols(response: trifecta.Response) -> list[str]:
    return [h["symbol"] for h in response.to_dict()["data"]["hits"]]


@pytest.mark.parametrize(
    "query", ["methods of the Inventory class", "Inventory's methods", "métodos de la clase Inventory"]
)
def test_methods_of_a_class_are_its_own_methods_in_file_order(engine: trifecta.Engine, query: str) -> None:
    response = engine.search(query)
    assert response.to_dict()["data"]["plan"]["structural_query"]["members_of"] == "Inventory"
    assert _symbols(response)[:6] == [
        "Inventory.__init__",
        "Inventory.add_product",
        "Inventory.remove_product",
        "Inventory.reserveStock",
        "Inventory.total_value",
        "Inventory.total_value",
    ]


def test_subclasses_of_a_builtin_include_its_builtin_descendants_where_asked(
    engine: trifecta.Engine, sample_repo: Path
) -> None:
    (sample_repo / "shop" / "stock.py").write_text("class OutOfStock(LookupError):\n    pass\n")
    assert _symbols(engine.search("subclasses of Exception in stock"))[0] == "OutOfStock"
    direct = _symbols(engine.search("subclasses of Exception in checkout"))
    assert direct[0] == "PaymentError"  # a direct subclass is in scope: no widening


def test_a_word_naming_a_file_or_folder_lifts_the_hits_there(tmp_path: Path) -> None:
    (tmp_path / "textwrap.py").write_text(
        "class TextWrapper:\n    def wrap(self, text):\n"
        '        """Wrap a paragraph of text into a list of lines; long words are broken."""\n'
        "        return self._split(text)\n"
    )
    (tmp_path / "squeezer.py").write_text(
        "import textwrap\n\n\ndef count_lines(s, linewidth):\n"
        "    # how many lines does a long text wrap to?\n"
        "    return len(textwrap.wrap(s, linewidth))\n"
    )
    for i in range(30):  # unrelated code, so the words of the question are rare as in a real tree
        (tmp_path / f"mod{i}.py").write_text(f"def handler_{i}(request):\n    return request.body[{i}]\n")
    with trifecta.open(tmp_path) as engine:
        top = engine.search("how does textwrap wrap long lines").to_dict()["data"]["hits"][0]
    assert (top["path"], top["symbol"]) == ("textwrap.py", "TextWrapper.wrap")


ARCHIVE = '''"""Archive helpers."""


def compress(data, level, window, strategy, memory, dictionary, header, trailer, checksum, buffer):
    """Shrink a payload with the given level, window, strategy, memory, dictionary, header and trailer."""
    table = build_table(window, strategy, memory, dictionary)
    state = start_state(level, table, header, trailer, checksum, buffer)
    return finish_state(state, data)


def store_payload(path, data):
    """Compress the payload, compress the index, compress the footer: everything stored is compressed."""
    compressed = compress(data)
    with open(path, "wb") as fh:
        fh.write(compressed)
'''


@pytest.mark.parametrize("query", ["¿cómo se comprime?", "¿dónde se comprime?", "comprimir"])
def test_a_spanish_word_counts_as_its_translation_in_a_name(tmp_path: Path, query: str) -> None:
    # BM25 alone puts store_payload first (it says "compress" five times); the function *named* by the
    # translation of the question's verb must come first, as `compress` would for an English question
    (tmp_path / "archive.py").write_text(ARCHIVE)
    with trifecta.open(tmp_path) as eng:
        eng.index()
        hits = eng.search(query).to_dict()["data"]["hits"]
    assert [h["symbol"] for h in hits[:2]] == ["compress", "store_payload"]


PARSER = '''
def accept_as_ident(name):
    """False for keyword names: a reserved word is no identifier."""
    return name not in KEYWORDS


def parse_ident(stream):
    """Read the next identifier from the stream."""
    token = stream.next()
    return token if accept_as_ident(token) else None


def split_words(text):
    """Words of a text, to allocate a buffer for each word."""
    return text.split()
'''


def test_a_spanish_phrase_is_searched_by_its_translation(tmp_path: Path) -> None:
    # "palabras reservadas" is "keyword"/"reserved", not "word" + "allocate" (split_words says both)
    (tmp_path / "ident.py").write_text(PARSER)
    with trifecta.open(tmp_path) as eng:
        eng.index()
        hits = eng.search("¿cómo se rechazan las palabras reservadas?").to_dict()["data"]["hits"]
    assert hits[0]["symbol"] == "accept_as_ident"
    assert "split_words" not in [h["symbol"] for h in hits]


def test_a_pasted_message_is_found_where_it_is_written(tmp_path: Path) -> None:
    """A description that is the code's own words (an error message pasted without quotes) is searched as a
    pattern when the segment holds it verbatim in a few places; the neighbours that share its words follow."""
    (tmp_path / "ledger.py").write_text(
        "def reconcile(ledger):\n"
        '    """Reconcile the ledger: every transfer, pending transfer and ledger entry is checked."""\n'
        "    for transfer in ledger.transfers:\n"
        "        transfer.check(ledger)\n"
        "\n\n"
        "def close_books(ledger):\n"
        "    if ledger.pending:\n"
        '        raise RuntimeError("The ledger cannot be reconciled while a transfer is pending")\n'
    )
    with trifecta.open(tmp_path) as eng:
        eng.index()
        data = eng.search("The ledger cannot be reconciled while a transfer is pending").to_dict()["data"]
        assert data["plan"]["route"] == "pattern"
        assert data["plan"]["verbatim"] == "The ledger cannot be reconciled while a transfer is pending"
        assert [h["symbol"] for h in data["hits"]][:2] == ["close_books", "reconcile"]
        assert data["hits"][0]["line"] == 9
        # a question in the same words is not a pasted message
        asked = eng.search("how is the ledger reconciled while a transfer is pending?").to_dict()["data"]
        assert "verbatim" not in asked["plan"] and asked["plan"]["route"] != "pattern"


def test_a_question_naming_nothing_in_the_segment_says_so(engine: trifecta.Engine) -> None:
    nothing = engine.search("frobnicate the wibbles").to_dict()
    assert nothing["status"] == "ok" and nothing["data"]["hits"] == []
    assert nothing["data"]["plan"]["unmatched"] == ["frobnicate", "wibbles"]
    partly = engine.search("frobnicate the inventory", limit=50).to_dict()["data"]
    assert partly["hits"]  # what the rest of the question finds is still ranked
    assert partly["plan"]["unmatched"] == ["frobnicate"]
    found = engine.search("inventory", limit=50).to_dict()["data"]
    assert "unmatched" not in found["plan"]
