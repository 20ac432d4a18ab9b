"""The AST engine (application/zoom_ast.py) over in-memory fakes of the index and the file source.

The parser is the real one: what a definition's lines are is its business, not the fakes'.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.unit.fakes import FakeIndex, FakeSource

from trifecta.application.zoom_ast import (
    Resolved,
    SnippetRequest,
    SnippetUseCase,
    SymbolResolver,
    SymbolsRequest,
    SymbolsUseCase,
    Unresolved,
    uri_for_hit,
)
from trifecta.domain.budget import BudgetPolicy, utf8_size
from trifecta.domain.code import ParsedFile
from trifecta.domain.contract import ErrorCode, Response
from trifecta.infrastructure.code_parser import SourceParser

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
PARSER = SourceParser(workers=1)


# --- fakes -----------------------------------------------------------------------------------------------


class CountingParser:
    """The real parser, counting the files it is asked to parse."""

    def __init__(self) -> None:
        self.parsed: list[str] = []

    def language_of(self, path: str) -> str | None:
        return PARSER.language_of(path)

    def parse(self, path: str, text: str) -> ParsedFile:
        self.parsed.append(path)
        return PARSER.parse(path, text)

    def parse_many(self, items: Sequence[tuple[str, str]]) -> Iterator[tuple[str, ParsedFile]]:
        return PARSER.parse_many(items)


class Engine:
    """A segment: files on "disk", the ones in `indexed` also in the index (as given, or as `stale`)."""

    def __init__(
        self,
        files: Mapping[str, str],
        *,
        indexed: Sequence[str] | None = None,
        stale: Mapping[str, str] | None = None,
        outside: Sequence[str] = (),
        policy: BudgetPolicy | None = None,
        admit: Callable[[str], bool] | None = None,
        cache_size: int = 64,
    ) -> None:
        self.index = FakeIndex()
        for path in files if indexed is None else indexed:
            self.index.add(path, files[path])
        for path, old_text in (stale or {}).items():
            self.index.add(path, old_text)
        self.source = FakeSource(files, outside)
        self.parser = CountingParser()
        self.resolver = SymbolResolver(
            reader=self.index, source=self.source, parser=self.parser, admit=admit, cache_size=cache_size
        )
        self.symbols_uc = SymbolsUseCase(self.resolver, policy)
        self.snippet_uc = SnippetUseCase(self.resolver, policy)

    def symbols(self, uri: str) -> Response:
        return _round_trip(self.symbols_uc.execute(SymbolsRequest(uri=uri)))

    def snippet(self, uri: str) -> Response:
        return _round_trip(self.snippet_uc.execute(SnippetRequest(uri=uri)))

    def resolve(self, uri: str) -> Resolved:
        resolved = self.resolver.resolve(uri)
        assert isinstance(resolved, Resolved), resolved
        return resolved


def _round_trip(response: Response) -> Response:
    """Every answer survives the JSON contract: encode, decode, same envelope."""
    encoded = json.loads(json.dumps(response.to_dict()))
    assert Response.from_dict(encoded).to_dict() == encoded
    return response


def _error(response: Response, code: ErrorCode) -> dict[str, Any]:
    assert response.status == "error", response
    assert [e.code for e in response.errors] == [code], response.errors
    return dict(response.errors[0].data)


USER_MODEL = '''\
"""Users."""
import functools


class User:
    """A person with an account.

    Longer text.
    """

    def __init__(self, email: str) -> None:
        self.email = email

    @functools.cache
    def get_email(self) -> str:
        """The address."""

        def normalise(text):
            return text.lower()

        return normalise(self.email)


def make_user(email):
    return User(email)
'''


@pytest.fixture
def engine() -> Engine:
    return Engine({"user_model.py": USER_MODEL})


# --- §3.3 end to end -------------------------------------------------------------------------------------


def test_mod_selector_is_the_file_skeleton(engine: Engine) -> None:
    response = engine.symbols("sym://python/mod/user_model")
    assert response.ok and response.kind == "skeleton"
    data = response.data
    assert (data["uri"], data["path"], data["omitted"]) == ("sym://python/mod/user_model", "user_model.py", 0)
    user, make_user = data["symbols"]
    assert user == {
        "name": "User",
        "kind": "class",
        "signature": "class User",
        "doc": "A person with an account.",
        "range": {"start_line": 5, "end_line": 21},
        "uri": "sym://python/type/user_model/User",
        "children": [
            {
                "name": "__init__",
                "kind": "method",
                "signature": "def __init__(self, email: str) -> None",
                "doc": "",
                "range": {"start_line": 11, "end_line": 12},
                "uri": "sym://python/type/user_model/User#__init__",
                "children": [],
            },
            {
                "name": "get_email",
                "kind": "method",
                "signature": "def get_email(self) -> str",
                "doc": "The address.",
                "range": {"start_line": 14, "end_line": 21},
                "uri": "sym://python/type/user_model/User#get_email",
                "children": [
                    {
                        "name": "normalise",
                        "kind": "function",
                        "signature": "def normalise(text)",
                        "doc": "",
                        "range": {"start_line": 18, "end_line": 19},
                        "uri": "sym://python/type/user_model/User#get_email.normalise",
                        "children": [],
                    }
                ],
            },
        ],
    }
    assert make_user["uri"] == "sym://python/type/user_model/make_user"
    assert response.next_actions == (
        "ast snippet sym://python/type/user_model/User",
        "ast snippet sym://python/type/user_model/make_user",
        "ctx get --path user_model.py",
    )
    assert response.refs == ()


def test_type_selector_is_the_class_skeleton(engine: Engine) -> None:
    response = engine.symbols("sym://python/type/user_model/User")
    assert response.ok
    data = response.data
    assert data["uri"] == "sym://python/type/user_model/User"
    assert (data["name"], data["kind"], data["doc"]) == ("User", "class", "A person with an account.")
    assert data["range"] == {"start_line": 5, "end_line": 21}
    assert [child["name"] for child in data["symbols"]] == ["__init__", "get_email"]
    assert [(r.kind, r.uri) for r in response.refs] == [("definition", "sym://python/mod/user_model")]
    assert response.next_actions[0] == "ast snippet 'sym://python/type/user_model/User#__init__'"


def test_function_skeleton_lists_its_nested_definitions(engine: Engine) -> None:
    data = engine.symbols("sym://python/type/user_model/User#get_email").data
    assert data["signature"] == "def get_email(self) -> str"
    assert [child["name"] for child in data["symbols"]] == ["normalise"]


def test_method_snippet_includes_its_decorators(engine: Engine) -> None:
    response = engine.snippet("sym://python/type/user_model/User#get_email")
    assert response.ok and response.kind == "snippet"
    content = "\n".join(USER_MODEL.splitlines()[13:21])
    assert response.data == {
        "uri": "sym://python/type/user_model/User#get_email",
        "path": "user_model.py",
        "range": {"start_line": 14, "end_line": 21},
        "content": content,
        "signature": "def get_email(self) -> str",
        "children": ["normalise"],
        "truncated": False,
        "hidden_lines": 0,
        "bytes": utf8_size(content),
    }
    assert response.data["content"].startswith("    @functools.cache\n    def get_email")
    assert [(r.kind, r.uri) for r in response.refs] == [("definition", "sym://python/mod/user_model")]
    assert response.next_actions == ("ast snippet 'sym://python/type/user_model/User#get_email.normalise'",)


def test_nested_function_is_reached_by_its_qualified_name(engine: Engine) -> None:
    data = engine.snippet("sym://python/type/user_model/User#get_email.normalise").data
    assert data["range"] == {"start_line": 18, "end_line": 19}
    assert data["content"] == "        def normalise(text):\n            return text.lower()"


def test_selector_without_kind_is_a_syntax_error_with_its_position(engine: Engine) -> None:
    for response in (engine.symbols("sym://python/User"), engine.snippet("sym://python/User")):
        data = _error(response, ErrorCode.INVALID_SELECTOR_SYNTAX)
        assert data == {"position": 13, "selector": "sym://python/User"}
        assert response.data == {}


def test_unsupported_language_is_reported_at_the_language(engine: Engine) -> None:
    data = _error(engine.symbols("sym://rust/mod/user_model"), ErrorCode.LANGUAGE_NOT_SUPPORTED)
    assert data["position"] == 6


def test_mod_user_looks_for_the_file_user_py_case_sensitively() -> None:
    both = Engine({"User.py": "class User:\n    pass\n", "user_model.py": USER_MODEL})
    assert both.symbols("sym://python/mod/User").data["path"] == "User.py"
    only_model = Engine({"user_model.py": USER_MODEL, "user.py": "x = 1\n"})
    data = _error(only_model.symbols("sym://python/mod/User"), ErrorCode.SYMBOL_NOT_FOUND)
    assert data["reason"] == "no_file"


# --- file matching and ambiguity ---------------------------------------------------------------------------

UTILS = "def helper():\n    return 1\n"


def test_ambiguous_file_matches_the_golden_contract() -> None:
    engine = Engine({"root/utils.py": UTILS, "pkg/utils.py": UTILS})
    response = engine.symbols("sym://python/mod/utils")
    golden = json.loads((GOLDEN / "ambiguous_symbol.json").read_text())
    assert response.to_dict() == golden
    assert Response.from_dict(golden) == response
    # exactly the §3.4 candidate format, sorted by file_rel
    assert response.errors[0].data == {
        "sym": "sym://python/mod/utils",
        "candidates": [
            {"sym": "sym://python/mod/pkg/utils", "file_rel": "pkg/utils.py", "kind": "mod"},
            {"sym": "sym://python/mod/root/utils", "file_rel": "root/utils.py", "kind": "mod"},
        ],
    }


def test_every_candidate_resolves_to_its_own_file() -> None:
    files = {
        "root/utils.py": UTILS,
        "pkg/utils.py": UTILS,
        "a/b/utils.py": UTILS,
        "utils_extra.py": UTILS,
        "a/pkg.py": UTILS,
        "b/pkg/__init__.py": UTILS,
    }
    engine = Engine(files)
    for uri in ("sym://python/mod/utils", "sym://python/mod/pkg"):
        data = _error(engine.symbols(uri), ErrorCode.AMBIGUOUS_SYMBOL)
        for candidate in data["candidates"]:
            assert engine.resolve(candidate["sym"]).path == candidate["file_rel"]
    pkg = _error(engine.symbols("sym://python/mod/pkg"), ErrorCode.AMBIGUOUS_SYMBOL)
    assert [c["sym"] for c in pkg["candidates"]] == [
        "sym://python/mod/a/pkg",
        "sym://python/mod/b/pkg/__init__",
    ]


def test_longer_path_and_full_path_pick_one_file() -> None:
    engine = Engine(
        {"utils.py": UTILS, "pkg/utils.py": UTILS, "a/pkg/utils.py": UTILS, "b/pkg/utils.py": UTILS}
    )
    assert engine.resolve("sym://python/mod/utils").path == "utils.py"  # the full path wins
    assert engine.resolve("sym://python/mod/pkg/utils").path == "pkg/utils.py"
    assert engine.resolve("sym://python/mod/a/pkg/utils").path == "a/pkg/utils.py"
    deeper = Engine({"a/pkg/utils.py": UTILS, "b/pkg/utils.py": UTILS, "c/other/utils.py": UTILS})
    data = _error(deeper.symbols("sym://python/mod/pkg/utils"), ErrorCode.AMBIGUOUS_SYMBOL)
    assert [c["file_rel"] for c in data["candidates"]] == ["a/pkg/utils.py", "b/pkg/utils.py"]


def test_matching_is_by_whole_trailing_components() -> None:
    engine = Engine({"pkg/my_utils.py": UTILS})
    data = _error(engine.symbols("sym://python/mod/utils"), ErrorCode.SYMBOL_NOT_FOUND)
    assert data == {"sym": "sym://python/mod/utils", "path": "utils", "reason": "no_file"}


def test_package_name_matches_its_init() -> None:
    engine = Engine({"pkg/__init__.py": '"""The package."""\n\ndef api():\n    pass\n', "pkg/core.py": UTILS})
    response = engine.symbols("sym://python/mod/pkg")
    assert response.data["path"] == "pkg/__init__.py"
    assert response.data["uri"] == "sym://python/mod/pkg/__init__"
    assert engine.resolve("sym://python/type/pkg/api").path == "pkg/__init__.py"
    assert engine.resolve("sym://python/mod/pkg/__init__").path == "pkg/__init__.py"


def test_module_file_and_package_of_one_name() -> None:
    engine = Engine({"pkg.py": UTILS, "pkg/__init__.py": UTILS})
    assert engine.resolve("sym://python/mod/pkg").path == "pkg.py"  # §3.3: mod/User looks for User.py
    assert engine.resolve("sym://python/mod/pkg/__init__").path == "pkg/__init__.py"
    nested = Engine({"a/pkg.py": UTILS, "b/pkg/__init__.py": UTILS})
    data = _error(nested.symbols("sym://python/mod/pkg"), ErrorCode.AMBIGUOUS_SYMBOL)
    assert [c["file_rel"] for c in data["candidates"]] == ["a/pkg.py", "b/pkg/__init__.py"]


def test_stubs_are_not_matched() -> None:
    engine = Engine({"mod.pyi": "def f() -> int: ...\n", "mod.py": UTILS})
    assert engine.resolve("sym://python/mod/mod").path == "mod.py"
    assert uri_for_hit("mod.pyi", "f", "python") is None


def test_type_selector_narrows_ambiguous_files_to_those_defining_the_symbol() -> None:
    files = {
        "root/utils.py": "class Only:\n    pass\n\nclass Both:\n    pass\n",
        "pkg/utils.py": "class Both:\n    pass\n",
    }
    engine = Engine(files)
    assert engine.resolve("sym://python/type/utils/Only").path == "root/utils.py"
    data = _error(engine.snippet("sym://python/type/utils/Both"), ErrorCode.AMBIGUOUS_SYMBOL)
    assert data == {
        "sym": "sym://python/type/utils/Both",
        "candidates": [
            {"sym": "sym://python/type/pkg/utils/Both", "file_rel": "pkg/utils.py", "kind": "type"},
            {"sym": "sym://python/type/root/utils/Both", "file_rel": "root/utils.py", "kind": "type"},
        ],
    }
    response = engine.snippet("sym://python/type/utils/Both")
    assert response.next_actions == (
        "ast snippet sym://python/type/pkg/utils/Both",
        "ast snippet sym://python/type/root/utils/Both",
    )
    missing = engine.snippet("sym://python/type/utils/Neither")
    data = _error(missing, ErrorCode.SYMBOL_NOT_FOUND)
    assert data["files"] == ["pkg/utils.py", "root/utils.py"]
    assert "Neither is not defined in any of the 2 files" in missing.errors[0].message


def test_a_file_gone_from_disk_is_not_a_candidate() -> None:
    engine = Engine({"pkg/utils.py": UTILS}, stale={"old/utils.py": UTILS})
    assert engine.resolve("sym://python/mod/utils").path == "pkg/utils.py"


def test_a_directory_that_is_not_a_selector_component_is_reached_by_the_hint() -> None:
    engine = Engine({"my tools/helpers.py": UTILS})
    response = engine.symbols("sym://python/mod/helpers")
    assert response.data["path"] == "my tools/helpers.py"
    assert response.data["uri"] == "sym://python/mod/helpers"
    assert response.data["symbols"][0]["uri"] == "sym://python/type/helpers/helper"
    assert engine.snippet("sym://python/type/helpers/helper").ok


def test_ambiguity_lists_at_most_fifty_candidates_and_counts_the_rest() -> None:
    engine = Engine({f"p{i:02d}/utils.py": UTILS for i in range(60)})
    response = engine.symbols("sym://python/mod/utils")
    data = _error(response, ErrorCode.AMBIGUOUS_SYMBOL)
    assert (len(data["candidates"]), data["omitted"]) == (50, 10)
    assert len(response.next_actions) == 3


# --- missing files and symbols ------------------------------------------------------------------------------


def test_missing_file_says_where_it_looked(engine: Engine) -> None:
    response = engine.snippet("sym://python/type/accounts/User")
    data = _error(response, ErrorCode.SYMBOL_NOT_FOUND)
    assert data == {"sym": "sym://python/type/accounts/User", "path": "accounts", "reason": "no_file"}
    assert "accounts.py" in response.errors[0].message
    assert "accounts/__init__.py" in response.errors[0].message
    assert response.next_actions == ("ctx search --query accounts", "index")


def test_missing_symbol_is_never_the_nearest_match(engine: Engine) -> None:
    for uri in ("sym://python/type/user_model/user", "sym://python/type/user_model/Use"):
        response = engine.snippet(uri)
        data = _error(response, ErrorCode.SYMBOL_NOT_FOUND)
        assert data["reason"] == "no_symbol" and data["file_rel"] == "user_model.py"
        assert response.next_actions == ("ast symbols sym://python/mod/user_model",)


def test_missing_member_points_at_its_class_skeleton(engine: Engine) -> None:
    response = engine.snippet("sym://python/type/user_model/User#get_mail")
    data = _error(response, ErrorCode.SYMBOL_NOT_FOUND)
    assert data == {
        "sym": "sym://python/type/user_model/User#get_mail",
        "file_rel": "user_model.py",
        "qualname": "User.get_mail",
        "reason": "no_symbol",
    }
    assert "User.get_mail is not defined in user_model.py" in response.errors[0].message
    assert response.next_actions == (
        "ast symbols sym://python/type/user_model/User",
        "ast symbols sym://python/mod/user_model",
    )


def test_a_member_is_not_found_as_a_top_level_symbol(engine: Engine) -> None:
    _error(engine.snippet("sym://python/type/user_model/get_email"), ErrorCode.SYMBOL_NOT_FOUND)
    _error(engine.snippet("sym://python/type/user_model/normalise"), ErrorCode.SYMBOL_NOT_FOUND)


def test_mod_selector_has_no_snippet(engine: Engine) -> None:
    response = engine.snippet("sym://python/mod/user_model")
    assert _error(response, ErrorCode.INVALID_ARGUMENT) == {"sym": "sym://python/mod/user_model"}
    assert response.next_actions == ("ast symbols sym://python/mod/user_model",)


def test_path_outside_the_segment() -> None:
    engine = Engine({}, outside=["escape.py"])
    data = _error(engine.symbols("sym://python/mod/escape"), ErrorCode.PATH_OUTSIDE_SEGMENT)
    assert data == {"sym": "sym://python/mod/escape"}


# --- duplicate qualified names in one file -------------------------------------------------------------------

DUPLICATES = """\
import sys
from typing import overload

if sys.platform == "win32":
    def home():
        return "C:"
else:
    def home():
        return "/"


class Config:
    @property
    def path(self):
        return self._path

    @path.setter
    def path(self, value):
        self._path = value

    @overload
    def get(self, key: int) -> int: ...
    @overload
    def get(self, key: str) -> str: ...
    def get(self, key):
        return key


def helper():
    return 1


def helper():
    return 2
"""


def test_conditional_definitions_are_ambiguous_with_their_ranges() -> None:
    engine = Engine({"dup.py": DUPLICATES})
    response = engine.snippet("sym://python/type/dup/home")
    data = _error(response, ErrorCode.AMBIGUOUS_SYMBOL)
    assert data == {
        "sym": "sym://python/type/dup/home",
        "candidates": [
            {
                "sym": "sym://python/type/dup/home",
                "file_rel": "dup.py",
                "kind": "type",
                "range": {"start_line": 5, "end_line": 6},
            },
            {
                "sym": "sym://python/type/dup/home",
                "file_rel": "dup.py",
                "kind": "type",
                "range": {"start_line": 8, "end_line": 9},
            },
        ],
    }
    assert response.next_actions == ("ctx get --path dup.py:5-6", "ctx get --path dup.py:8-9")
    message = response.errors[0].message
    assert "home is defined 2 times in dup.py (dup.py:5-6, dup.py:8-9)" in message
    # both candidates have one selector: the message points at their lines, not at "the candidates' selectors"
    assert "no selector tells them apart" in message and "candidates' selectors" not in message


def test_redefinition_is_ambiguous() -> None:
    engine = Engine({"dup.py": DUPLICATES})
    data = _error(engine.symbols("sym://python/type/dup/helper"), ErrorCode.AMBIGUOUS_SYMBOL)
    assert [c["range"] for c in data["candidates"]] == [
        {"start_line": 29, "end_line": 30},
        {"start_line": 33, "end_line": 34},
    ]


def test_property_accessors_resolve_to_the_whole_group() -> None:
    engine = Engine({"dup.py": DUPLICATES})
    data = engine.snippet("sym://python/type/dup/Config#path").data
    assert data["range"] == {"start_line": 13, "end_line": 19}
    assert data["definitions"] == [{"start_line": 13, "end_line": 15}, {"start_line": 17, "end_line": 19}]
    assert data["content"].startswith("    @property\n") and data["content"].endswith("self._path = value")
    skeleton = engine.symbols("sym://python/type/dup/Config#path").data
    assert skeleton["definitions"] == data["definitions"]


def test_overloads_resolve_to_the_whole_group() -> None:
    engine = Engine({"dup.py": DUPLICATES})
    data = engine.snippet("sym://python/type/dup/Config#get").data
    assert data["range"] == {"start_line": 21, "end_line": 26}
    assert len(data["definitions"]) == 3


def test_skeleton_shows_every_definition_of_a_duplicated_name() -> None:
    engine = Engine({"dup.py": DUPLICATES})
    names = [entry["name"] for entry in engine.symbols("sym://python/mod/dup").data["symbols"]]
    assert names == ["home", "home", "Config", "helper", "helper"]


# --- files that do not parse -----------------------------------------------------------------------------------


@pytest.mark.parametrize("indexed", [True, False])
def test_syntax_error_file_is_symbol_not_found_with_the_reason(indexed: bool) -> None:
    files = {"broken.py": "def ok():\n    pass\n\ndef broken(:\n    pass\n"}
    engine = Engine(files, indexed=None if indexed else [])
    for response in (
        engine.symbols("sym://python/mod/broken"),
        engine.snippet("sym://python/type/broken/ok"),
    ):
        data = _error(response, ErrorCode.SYMBOL_NOT_FOUND)
        assert data["reason"] == "parse_error" and data["file_rel"] == "broken.py"
        assert data["parse_error"].startswith("syntax error at line 4")
        assert "could not be parsed" in response.errors[0].message
        assert response.next_actions == ("ctx get --path broken.py",)


DEEP = {
    "parens": "x = " + "(" * 1000 + "1" + ")" * 1000 + "\n",
    "ifs": "".join("    " * i + "if x:\n" for i in range(200)) + "    " * 200 + "pass\n",
    "sums": "x = " + "+".join(["1"] * 200_000) + "\n",
}


@pytest.mark.parametrize("name", sorted(DEEP))
def test_deep_nesting_is_an_error_envelope_not_an_exception(name: str) -> None:
    engine = Engine({"deep.py": DEEP[name]}, indexed=[])
    for response in (engine.symbols("sym://python/mod/deep"), engine.snippet("sym://python/type/deep/f")):
        data = _error(response, ErrorCode.SYMBOL_NOT_FOUND)
        assert data["reason"] == "parse_error" and data["parse_error"]


def test_a_parser_that_raises_is_contained() -> None:
    class Exploding(CountingParser):
        def parse(self, path: str, text: str) -> ParsedFile:
            raise RecursionError("maximum recursion depth exceeded")

    engine = Engine({"m.py": UTILS}, indexed=[])
    resolver = SymbolResolver(reader=engine.index, source=engine.source, parser=Exploding())
    response = SymbolsUseCase(resolver).execute(SymbolsRequest(uri="sym://python/mod/m"))
    assert "RecursionError" in _error(response, ErrorCode.SYMBOL_NOT_FOUND)["parse_error"]


def test_deeply_nested_definitions_are_shown() -> None:
    text = "".join("  " * i + f"def f{i}():\n" for i in range(99)) + "  " * 99 + "pass\n"
    engine = Engine({"nest.py": text})
    deepest = "#".join(["sym://python/type/nest/f0", ".".join(f"f{i}" for i in range(1, 99))])
    data = engine.snippet(deepest).data
    assert data["range"] == {"start_line": 99, "end_line": 100}
    skeleton = engine.symbols("sym://python/mod/nest").data
    depth, entry = 1, skeleton["symbols"][0]
    while entry["children"]:
        depth, entry = depth + 1, entry["children"][0]
    assert depth + skeleton["omitted"] == 99 and depth > 80  # the deepest ones are over the 32 KB total


# --- freshness: the index versus the disk ------------------------------------------------------------------------


def test_a_file_changed_since_the_index_is_parsed_again() -> None:
    old = "def old_name():\n    return 1\n"
    new = "# moved down\n\ndef new_name():\n    return 2\n"
    engine = Engine({"m.py": new}, indexed=[], stale={"m.py": old})
    assert engine.snippet("sym://python/type/m/new_name").data["range"] == {"start_line": 3, "end_line": 4}
    _error(engine.snippet("sym://python/type/m/old_name"), ErrorCode.SYMBOL_NOT_FOUND)
    assert engine.parser.parsed == ["m.py"]  # once: the second look-up hit the cache


def test_an_unchanged_indexed_file_is_not_parsed(engine: Engine) -> None:
    assert engine.snippet("sym://python/type/user_model/User").ok
    assert engine.parser.parsed == []


def test_a_file_not_in_the_index_is_found_by_its_full_path_only() -> None:
    engine = Engine({"new/feature.py": UTILS}, indexed=[])
    assert engine.resolve("sym://python/type/new/feature/helper").path == "new/feature.py"
    _error(engine.symbols("sym://python/mod/feature"), ErrorCode.SYMBOL_NOT_FOUND)


def test_admit_keeps_unindexed_files_the_indexer_would_skip() -> None:
    engine = Engine({"secrets.py": "TOKEN = 'x'\n"}, indexed=[], admit=lambda path: path != "secrets.py")
    _error(engine.symbols("sym://python/mod/secrets"), ErrorCode.SYMBOL_NOT_FOUND)


def test_parse_cache_is_bounded() -> None:
    files = {f"m{i}.py": f"def f{i}():\n    pass\n" for i in range(5)}
    engine = Engine(files, indexed=[], cache_size=2)
    for _round in range(2):
        for i in range(5):
            assert engine.snippet(f"sym://python/type/m{i}/f{i}").ok
    assert len(engine.parser.parsed) == 10  # 5 files through a 2-entry cache: every look-up misses
    engine.parser.parsed.clear()
    assert engine.snippet("sym://python/type/m4/f4").ok
    assert engine.parser.parsed == []  # the most recent one is still there


def test_lines_are_counted_as_python_counts_them() -> None:
    text = "\x0c\ndef a():\r\n    return '\x0c'\r\n\rdef b():\n    pass\n"
    engine = Engine({"m.py": text})
    assert engine.snippet("sym://python/type/m/a").data["content"] == "def a():\n    return '\x0c'"
    assert engine.snippet("sym://python/type/m/b").data["range"] == {"start_line": 5, "end_line": 6}


# --- budget ------------------------------------------------------------------------------------------------------

LONG = "def long():\n" + "".join(f"    x{i} = {i}\n" for i in range(79))


def test_long_function_keeps_fifty_lines_and_says_how_many_are_hidden() -> None:
    engine = Engine({"m.py": LONG})
    response = engine.snippet("sym://python/type/m/long")
    data = response.data
    lines = data["content"].split("\n")
    assert len(lines) == 51 and lines[:50] == LONG.splitlines()[:50]
    assert lines[-1] == "# ... 30 lines hidden"
    assert (data["truncated"], data["hidden_lines"], data["range"]) == (
        True,
        30,
        {"start_line": 1, "end_line": 80},
    )
    assert data["bytes"] == utf8_size(data["content"])
    assert response.next_actions == ("ctx get --path m.py:1-80",)


def test_wide_function_is_cut_at_the_byte_limit() -> None:
    wide = "def wide():\n" + "".join(f"    s{i} = '{'y' * 300}'\n" for i in range(10))
    engine = Engine({"m.py": wide})
    data = engine.snippet("sym://python/type/m/wide").data
    assert data["content"].endswith("\n# ... truncated")
    assert data["bytes"] <= 2_000 and data["truncated"]
    assert data["hidden_lines"] == 11 - data["content"].count("\n")


def test_snippet_over_the_command_total_is_budget_exceeded() -> None:
    policy = BudgetPolicy(max_bytes_total=300, max_snippet_bytes=2_000)
    engine = Engine({"m.py": LONG}, policy=policy)
    response = engine.snippet("sym://python/type/m/long")
    data = _error(response, ErrorCode.BUDGET_EXCEEDED)
    assert data["limit"] == 300 and data["bytes"] > 300
    assert data["range"] == {"start_line": 1, "end_line": 80}
    assert response.next_actions == ("ctx get --path m.py:1-80",)
    assert response.data == {}


def _many_classes(n_classes: int, n_methods: int) -> str:
    out = []
    for c in range(n_classes):
        out.append(f"class C{c}:\n")
        out.extend(f"    def m{m}(self):\n        pass\n" for m in range(n_methods))
    return "".join(out)


@settings(max_examples=40, deadline=None)
@given(limit=st.integers(min_value=1, max_value=6_000))
def test_skeleton_never_exceeds_the_total_and_counts_what_it_drops(limit: int) -> None:
    engine = Engine({"big.py": _many_classes(6, 5)}, policy=BudgetPolicy(max_bytes_total=limit))
    response = engine.symbols("sym://python/mod/big")
    data = response.data
    size = utf8_size(json.dumps(data, ensure_ascii=False, separators=(",", ":")))
    assert size <= limit or data["symbols"] == []

    shown: list[tuple[int, str]] = []  # (depth, name) in breadth-first order
    level = [(0, e) for e in data["symbols"]]
    while level:
        shown.extend((d, e["name"]) for d, e in level)
        level = [(d + 1, c) for d, e in level for c in e["children"]]
    assert len(shown) + data["omitted"] == 36
    # a breadth-first prefix: no member is shown while a class is missing, members fill in order
    classes = [name for depth, name in shown if depth == 0]
    assert classes == [f"C{c}" for c in range(len(classes))]
    if any(depth == 1 for depth, _name in shown):
        assert len(classes) == 6


def test_skeleton_cut_points_at_the_classes_it_shortened() -> None:
    engine = Engine({"big.py": _many_classes(6, 5)}, policy=BudgetPolicy(max_bytes_total=3_000))
    response = engine.symbols("sym://python/mod/big")
    assert response.ok and response.data["omitted"] > 0
    assert any(a.startswith("ast symbols sym://python/type/big/C") for a in response.next_actions)


# --- search hits and robustness ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "symbol", "language", "uri"),
    [
        ("pkg/utils.py", "", "python", "sym://python/mod/pkg/utils"),
        ("pkg/utils.py", "User", "python", "sym://python/type/pkg/utils/User"),
        ("pkg/utils.py", "User.get.inner", "python", "sym://python/type/pkg/utils/User#get.inner"),
        ("pkg/__init__.py", "", "python", "sym://python/mod/pkg/__init__"),
        ("my-file.py", "", "python", "sym://python/mod/my-file"),
        ("my dir/utils.py", "f", "python", None),
        ("pkg/utils.py", "café", "python", None),
        ("README.md", "", "markdown", None),
        ("pkg/mod.pyi", "", "python", None),
    ],
)
def test_uri_for_hit(path: str, symbol: str, language: str, uri: str | None) -> None:
    assert uri_for_hit(path, symbol, language) == uri


def test_hit_uris_resolve_back_to_their_definitions(engine: Engine) -> None:
    for symbol in engine.index.symbols("user_model.py"):
        uri = uri_for_hit("user_model.py", symbol.qualname, "python")
        assert uri is not None
        resolved = engine.resolve(uri)
        assert (resolved.start_line, resolved.end_line) == (symbol.start_line, symbol.end_line)


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.text(), st.from_regex(r"sym://python/(mod|type)/[a-z_/#.]{0,20}", fullmatch=True)))
def test_resolve_never_raises(text: str) -> None:
    engine = Engine({"user_model.py": USER_MODEL, "pkg/utils.py": UTILS, "root/utils.py": UTILS})
    assert isinstance(engine.resolver.resolve(text), Resolved | Unresolved)
    assert engine.symbols_uc.execute(SymbolsRequest(uri=text)).kind == "skeleton"
    assert engine.snippet_uc.execute(SnippetRequest(uri=text)).kind == "snippet"
