"""Hover and references (application/navigation.py) over in-memory fakes: the AST engine decides first, the
language server only adds, and a server that cannot answer leaves the AST data and LSP_UNAVAILABLE.

The parser is the real one; the index, the files and the language server are fakes that implement the ports.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tests.unit.fakes import FakeIndex, FakeSource

from trifecta.application.navigation import (
    HoverInfo,
    HoverRequest,
    HoverUseCase,
    LanguageServerUnavailable,
    Location,
    RefsRequest,
    RefsUseCase,
    name_position,
)
from trifecta.application.zoom_ast import SymbolResolver
from trifecta.domain.budget import BudgetPolicy, utf8_size
from trifecta.domain.code import Symbol
from trifecta.domain.contract import ErrorCode, Response
from trifecta.infrastructure.code_parser import SourceParser
from trifecta.infrastructure.config import ConfigError, load_settings
from trifecta.infrastructure.lazy_language_server import LazyLanguageServer

PARSER = SourceParser(workers=1)

# --- fakes -----------------------------------------------------------------------------------------------


class FakeServer:
    """A LanguageServer that answers from a script and remembers what it was asked."""

    def __init__(
        self,
        hover: HoverInfo | None = None,
        references: Sequence[Location] = (),
        error: LanguageServerUnavailable | None = None,
    ) -> None:
        self.hover_answer = hover
        self.references_answer = list(references)
        self.error = error
        self.calls: list[tuple[str, str, int, int, str]] = []
        self.closed = False

    def hover(self, path: str, text: str, line: int, column: int) -> HoverInfo | None:
        self.calls.append(("hover", path, line, column, text))
        if self.error:
            raise self.error
        return self.hover_answer

    def references(self, path: str, text: str, line: int, column: int) -> list[Location]:
        self.calls.append(("references", path, line, column, text))
        if self.error:
            raise self.error
        return list(self.references_answer)

    def close(self) -> None:
        self.closed = True


INVENTORY = '''"""Stock."""


class Inventory:
    """Keeps the stock level of every product."""

    def __init__(self) -> None:
        self.items = {}

    @staticmethod
    @some.decorator
    def reserve(sku: str, quantity: int) -> bool:
        """Reserve units for a cart."""
        return True


def twice():
    pass


def twice():
    pass
'''

CHECKOUT = """from shop.inventory import Inventory


class Checkout:
    def __init__(self, inventory: Inventory) -> None:
        self.inventory = inventory

    def place(self, sku):
        return self.inventory.reserve(sku, 1)


DEFAULT = Inventory()
"""

UNICODE = """from shop.inventory import Inventory
x = "\U0001f600"; y = Inventory()
"""

FILES = {
    "shop/inventory.py": INVENTORY,
    "shop/checkout.py": CHECKOUT,
    "shop/emoji.py": UNICODE,
    "my-dir/odd.py": "from shop.inventory import Inventory\n\n\ndef use():\n    return Inventory\n",
    "shop/utils.py": "def helper():\n    pass\n",
    "legacy/utils.py": "def helper():\n    pass\n",
}
HOVER_TEXT = "def reserve(sku: str, quantity: int) -> bool\n---\nReserve units for a cart.\nFull name: shop.inventory.Inventory.reserve"


def make(
    server: FakeServer, policy: BudgetPolicy | None = None, admit: Any = None
) -> tuple[HoverUseCase, RefsUseCase]:
    source = FakeSource(FILES)
    resolver = SymbolResolver(reader=FakeIndex(FILES), source=source, parser=PARSER)  # type: ignore[arg-type]
    hover = HoverUseCase(resolver, server, policy)
    refs = RefsUseCase(resolver, server, policy, source=source, parser=PARSER, admit=admit)  # type: ignore[arg-type]
    return hover, refs


def round_trip(response: Response) -> dict[str, Any]:
    raw = json.loads(json.dumps(response.to_dict()))
    assert Response.from_dict(raw).to_dict() == raw
    return raw


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.split("\n"), 1) if needle in line)


# --- hover -----------------------------------------------------------------------------------------------


def test_hover_asks_the_server_at_the_name_of_the_resolved_definition() -> None:
    server = FakeServer(hover=HoverInfo(text=HOVER_TEXT))
    hover, _ = make(server)
    raw = round_trip(hover.execute(HoverRequest(uri="sym://python/type/shop/inventory/Inventory#reserve")))

    assert raw["status"] == "ok" and raw["kind"] == "hover"
    kind, path, line, column, text = server.calls[0]
    def_line = line_of(INVENTORY, "def reserve")
    assert (kind, path, line, column) == (
        "hover",
        "shop/inventory.py",
        def_line,
        INVENTORY.split("\n")[def_line - 1].index("reserve"),
    )
    assert text.split("\n")[:3] == INVENTORY.split("\n")[:3]
    data = raw["data"]
    assert data["uri"] == "sym://python/type/shop/inventory/Inventory#reserve"
    assert data["range"] == {
        "start_line": line_of(INVENTORY, "@staticmethod"),
        "end_line": line_of(INVENTORY, "return True"),
    }
    assert data["signature"] == "def reserve(sku: str, quantity: int) -> bool"
    assert data["position"] == {"line": def_line, "column": 9}
    assert data["content"] == HOVER_TEXT
    assert data["hover"]["signature"] == "def reserve(sku: str, quantity: int) -> bool"
    assert raw["next_actions"][0] == "ast snippet 'sym://python/type/shop/inventory/Inventory#reserve'"


@pytest.mark.parametrize(
    ("uri", "code"),
    [
        ("sym://python/type/shop/inventory/Nope", ErrorCode.SYMBOL_NOT_FOUND),
        ("sym://python/type/nowhere/Inventory", ErrorCode.SYMBOL_NOT_FOUND),
        ("sym://python/type/utils/helper", ErrorCode.AMBIGUOUS_SYMBOL),
        ("sym://python/type/shop/inventory/twice", ErrorCode.AMBIGUOUS_SYMBOL),
        ("sym://python/Inventory", ErrorCode.INVALID_SELECTOR_SYNTAX),
        ("sym://python/mod/shop/inventory", ErrorCode.INVALID_ARGUMENT),
        ("sym://rust/type/a/B", ErrorCode.LANGUAGE_NOT_SUPPORTED),
    ],
)
def test_what_the_ast_engine_refuses_never_reaches_the_server(uri: str, code: ErrorCode) -> None:
    server = FakeServer(hover=HoverInfo(text="x"), references=[Location(path="shop/checkout.py", line=1)])
    hover, refs = make(server)
    for response in (hover.execute(HoverRequest(uri=uri)), refs.execute(RefsRequest(uri=uri))):
        raw = round_trip(response)
        assert raw["status"] == "error"
        assert [e["code"] for e in raw["errors"]] == [code.value]
    assert server.calls == []


def test_an_unavailable_server_keeps_the_ast_data_and_says_why() -> None:
    error = LanguageServerUnavailable("timeout", "no answer to hover within 1 s", {"timeout_s": 1.0})
    server = FakeServer(error=error)
    hover, refs = make(server)
    uri = "sym://python/type/shop/inventory/Inventory"
    for response in (hover.execute(HoverRequest(uri=uri)), refs.execute(RefsRequest(uri=uri))):
        raw = round_trip(response)
        assert raw["status"] == "error"
        (err,) = raw["errors"]
        assert err["code"] == "LSP_UNAVAILABLE"
        assert err["data"]["reason"] == "timeout" and err["data"]["timeout_s"] == 1.0
        assert "no answer to hover within 1 s" in err["message"]
        assert raw["data"]["signature"] == "class Inventory"
        assert raw["data"]["range"]["start_line"] == line_of(INVENTORY, "class Inventory")
        assert raw["next_actions"] == [f"ast snippet {uri}"]
    assert len(server.calls) == 2


def test_a_server_with_nothing_to_say_is_an_empty_answer_not_an_error() -> None:
    hover, _ = make(FakeServer(hover=None))
    raw = round_trip(hover.execute(HoverRequest(uri="sym://python/type/shop/inventory/Inventory")))
    assert raw["status"] == "ok"
    assert raw["data"]["hover"] is None and raw["data"]["content"] == ""


def test_a_long_hover_is_cut_to_the_snippet_budget() -> None:
    long_text = "def f()\n---\n" + "\n".join(f"line {i} " + "x" * 60 for i in range(200))
    policy = BudgetPolicy(max_snippet_bytes=500, max_lines_per_snippet=50)
    hover, _ = make(FakeServer(hover=HoverInfo(text=long_text)), policy)
    data = hover.execute(HoverRequest(uri="sym://python/type/shop/inventory/Inventory")).data
    assert utf8_size(data["content"]) <= 500
    assert data["content"].endswith("# ... truncated")
    assert data["hover"]["truncated"] is True and data["hover"]["signature"] == "def f()"


@pytest.mark.parametrize(
    ("text", "markup", "signature"),
    [
        ("def f(a: int) -> str\n---\nDoc.", "plaintext", "def f(a: int) -> str"),
        ("```python\nclass A(B)\n```\n---\nDoc.", "markdown", "class A(B)"),
        ("Just prose, no signature.", "plaintext", ""),
    ],
)
def test_the_hover_signature_is_the_servers_rendering(text: str, markup: str, signature: str) -> None:
    hover, _ = make(FakeServer(hover=HoverInfo(text=text, markup=markup)))
    data = hover.execute(HoverRequest(uri="sym://python/type/shop/inventory/Inventory")).data
    assert data["hover"]["signature"] == signature and data["hover"]["markup"] == markup


# --- references ------------------------------------------------------------------------------------------


def test_refs_are_hits_with_the_enclosing_definition_and_its_selector() -> None:
    class_line = line_of(INVENTORY, "class Inventory")
    locations = [
        Location(path="shop/checkout.py", line=line_of(CHECKOUT, "DEFAULT ="), character=10),
        Location(path="shop/checkout.py", line=1, character=27),
        Location(path="shop/checkout.py", line=line_of(CHECKOUT, "def __init__"), character=35),
        Location(path="shop/checkout.py", line=1, character=27),  # a duplicate
        Location(path="shop/inventory.py", line=class_line, character=6),  # the definition itself
        Location(path="/usr/lib/python3.11/typing.py", line=10, in_segment=False),
        Location(path="vendor/ignored.py", line=3),
    ]
    server = FakeServer(references=locations)
    _, refs = make(server, admit=lambda path: not path.startswith("vendor/"))
    raw = round_trip(refs.execute(RefsRequest(uri="sym://python/type/shop/inventory/Inventory")))

    assert raw["status"] == "ok" and raw["kind"] == "refs"
    assert server.calls[0][1:4] == ("shop/inventory.py", class_line, 6)
    hits = raw["data"]["hits"]
    assert [(h["path"], h["line"], h["symbol"]) for h in hits] == [
        ("shop/checkout.py", 1, ""),
        ("shop/checkout.py", line_of(CHECKOUT, "def __init__"), "Checkout.__init__"),
        ("shop/checkout.py", line_of(CHECKOUT, "DEFAULT ="), ""),
    ]
    init = hits[1]
    assert init["uri"] == "sym://python/type/shop/checkout/Checkout#__init__"
    assert init["preview"] == "def __init__(self, inventory: Inventory) -> None:"
    assert (init["start_line"], init["end_line"]) == (
        line_of(CHECKOUT, "def __init__"),
        line_of(CHECKOUT, "self.inventory = inventory"),
    )
    assert init["column"] == 36
    assert hits[0]["uri"] == "sym://python/mod/shop/checkout"
    assert hits[0]["start_line"] == hits[0]["end_line"] == 1
    assert raw["data"]["total"] == 3 and raw["data"]["omitted"] == 0
    assert raw["data"]["excluded"] == {"outside_segment": 1, "ignored": 1, "unreadable": 0}
    assert raw["next_actions"] == ["ast snippet 'sym://python/type/shop/checkout/Checkout#__init__'"]


def test_refs_in_the_definitions_file_come_first_and_dashed_paths_get_symbols_and_uris() -> None:
    locations = [
        Location(path="my-dir/odd.py", line=5, character=11),
        Location(path="shop/inventory.py", line=line_of(INVENTORY, "self.items"), character=8),
        Location(path="shop/missing.py", line=1),
    ]
    _, refs = make(FakeServer(references=locations))
    data = refs.execute(RefsRequest(uri="sym://python/type/shop/inventory/Inventory")).data
    assert [(h["path"], h["symbol"], h["uri"]) for h in data["hits"]] == [
        ("shop/inventory.py", "Inventory.__init__", "sym://python/type/shop/inventory/Inventory#__init__"),
        ("my-dir/odd.py", "use", "sym://python/type/my-dir/odd/use"),  # `-` is a selector path character
    ]
    assert data["excluded"]["unreadable"] == 1


def test_a_utf16_column_from_the_server_is_a_character_column_in_the_hit() -> None:
    line = UNICODE.split("\n")[1]
    utf16 = len(line[: line.index("Inventory")].encode("utf-16-le")) // 2
    assert utf16 == line.index("Inventory") + 1  # the emoji is two UTF-16 units
    _, refs = make(FakeServer(references=[Location(path="shop/emoji.py", line=2, character=utf16)]))
    (hit,) = refs.execute(RefsRequest(uri="sym://python/type/shop/inventory/Inventory")).data["hits"]
    assert hit["column"] == line.index("Inventory") + 1


def test_refs_are_a_prefix_within_the_limit_and_the_byte_budget() -> None:
    many = [Location(path="shop/checkout.py", line=n, character=0) for n in range(1, 12)]
    _, refs = make(FakeServer(references=many))
    data = refs.execute(RefsRequest(uri="sym://python/type/shop/inventory/Inventory", limit=4)).data
    assert len(data["hits"]) == 4 and data["omitted"] == data["total"] - 4
    assert [h["line"] for h in data["hits"]] == [1, 2, 3, 4]

    policy = BudgetPolicy(max_bytes_total=1200)
    _, tight = make(FakeServer(references=many), policy)
    response = tight.execute(RefsRequest(uri="sym://python/type/shop/inventory/Inventory", limit=50))
    data = response.data
    assert 0 < len(data["hits"]) < data["total"]
    assert data["omitted"] == data["total"] - len(data["hits"])
    assert utf8_size(json.dumps(data, ensure_ascii=False, separators=(",", ":"))) <= 1200


@pytest.mark.parametrize("limit", [0, -1, 201, "5", True, None])
def test_a_bad_limit_is_invalid_argument_before_anything_runs(limit: Any) -> None:
    server = FakeServer()
    _, refs = make(server)
    raw = round_trip(refs.execute(RefsRequest(uri="sym://python/type/shop/inventory/Inventory", limit=limit)))
    assert raw["errors"][0]["code"] == "INVALID_ARGUMENT"
    assert server.calls == []


def test_a_non_string_uri_is_invalid_argument() -> None:
    server = FakeServer()
    hover, _ = make(server)
    raw = round_trip(hover.execute(HoverRequest(uri=None)))  # type: ignore[arg-type]
    assert raw["errors"][0]["code"] == "INVALID_ARGUMENT" and server.calls == []


# --- the name's position ---------------------------------------------------------------------------------


@given(
    name=st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,12}", fullmatch=True),
    indent=st.integers(0, 8),
    keyword=st.sampled_from(["def", "async def", "class"]),
    decorators=st.integers(0, 3),
)
def test_the_position_is_the_name_after_its_keyword(
    name: str, indent: int, keyword: str, decorators: int
) -> None:
    pad = " " * indent
    lines = [f"{pad}@dec_{name}" for _ in range(decorators)] + [f"{pad}{keyword} {name}(x): pass"]
    symbol = Symbol(
        name=name,
        qualname=name,
        kind="class" if keyword == "class" else "function",  # type: ignore[arg-type]
        start_line=1,
        end_line=len(lines),
        def_line=decorators + 1,
    )
    line, column = name_position(lines, symbol)
    assert line == decorators + 1
    assert lines[line - 1][column : column + len(name)] == name
    assert column == indent + len(keyword) + 1


# --- configuration and the lazy adapter ------------------------------------------------------------------


def test_lsp_settings_come_from_config_env_and_options(tmp_path: Path) -> None:
    assert load_settings(tmp_path, env={}).lsp_command == ("jedi-language-server",)
    (tmp_path / ".trifecta").mkdir()
    (tmp_path / ".trifecta" / "config.toml").write_text('[lsp]\ncommand = ["pylsp", "-v"]\ntimeout = 3\n')
    assert load_settings(tmp_path, env={}).lsp_command == ("jedi-language-server",)  # a segment runs nothing
    settings = load_settings(tmp_path, env={"TRIFECTA_TRUST": "1"})  # ... unless the user trusts it
    assert (settings.lsp_command, settings.lsp_timeout) == (("pylsp", "-v"), 3.0)
    env = {"TRIFECTA_LSP_COMMAND": "'/opt/my server/ls' --stdio", "TRIFECTA_LSP_TIMEOUT": "0.5"}
    settings = load_settings(tmp_path, env=env)
    assert (settings.lsp_command, settings.lsp_timeout) == (("/opt/my server/ls", "--stdio"), 0.5)
    assert load_settings(tmp_path, {"lsp_timeout": 7}, env=env).lsp_timeout == 7.0


@pytest.mark.parametrize(
    "env",
    [
        {"TRIFECTA_LSP_TIMEOUT": "soon"},
        {"TRIFECTA_LSP_TIMEOUT": "0"},
        {"TRIFECTA_LSP_TIMEOUT": "nan"},
        {"TRIFECTA_LSP_COMMAND": "   "},
        {"TRIFECTA_LSP_COMMAND": "'unclosed"},
    ],
)
def test_bad_lsp_settings_are_config_errors(tmp_path: Path, env: dict[str, str]) -> None:
    with pytest.raises(ConfigError, match="lsp_"):
        load_settings(tmp_path, env=env)


def test_without_the_lsp_extra_the_answer_is_not_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "trifecta.infrastructure.lsp_client", None)  # import fails
    server = LazyLanguageServer(tmp_path, ("jedi-language-server",), 1.0)
    with pytest.raises(LanguageServerUnavailable) as info:
        server.hover("a.py", "x = 1\n", 1, 0)
    assert info.value.reason == "not_installed" and "trifecta[lsp]" in info.value.message
    server.close()
    with pytest.raises(LanguageServerUnavailable) as closed:
        server.references("a.py", "x = 1\n", 1, 0)
    assert closed.value.reason == "closed"


def test_the_command_is_found_beside_the_interpreter_first(tmp_path: Path) -> None:
    from trifecta.infrastructure.lsp_client import resolve_command

    found = resolve_command(("python", "-V"))
    assert found is not None and Path(found[0]).parent == Path(sys.executable).parent and found[1:] == ["-V"]
    assert resolve_command(("no-such-language-server-here",)) is None
    script = tmp_path / "ls.sh"
    script.write_text("#!/bin/sh\n")
    assert resolve_command((str(script),)) is None  # not executable
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    assert resolve_command((str(script), "--x")) == [str(script), "--x"]
    assert os.access(script, os.X_OK)


# --- the JSON contract -----------------------------------------------------------------------------------

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "navigation.json"


def _envelopes() -> dict[str, Any]:
    """A hover, a references answer and a degraded answer from fakes, without the timing field."""
    uri = "sym://python/type/shop/inventory/Inventory#reserve"
    locations = [
        Location(path="shop/checkout.py", line=line_of(CHECKOUT, "reserve(sku"), character=30),
        Location(path="/usr/lib/python3.11/x.py", line=1, in_segment=False),
    ]
    hover, refs = make(FakeServer(hover=HoverInfo(text=HOVER_TEXT), references=locations))
    broken, _ = make(
        FakeServer(error=LanguageServerUnavailable("exited", "the server was killed by signal 9"))
    )
    out = {}
    for name, response in (
        ("hover", hover.execute(HoverRequest(uri=uri))),
        ("refs", refs.execute(RefsRequest(uri=uri))),
        ("unavailable", broken.execute(HoverRequest(uri=uri))),
    ):
        raw = round_trip(response)
        raw["data"].pop("lsp_ms", None)
        out[name] = raw
    return out


def test_hover_and_refs_envelopes_match_the_golden_file() -> None:
    assert _envelopes() == json.loads(GOLDEN.read_text())
