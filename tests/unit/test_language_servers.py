"""The table of language servers and the router that picks one per file: no server process runs here (a
missing command or a missing companion package is found before anything starts)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import attrs
import pytest

from trifecta.application.navigation import LanguageServerUnavailable
from trifecta.infrastructure.code_parser import LANGUAGES, language_of
from trifecta.infrastructure.language_servers import SERVERS, server_for
from trifecta.infrastructure.lazy_language_server import LazyLanguageServer
from trifecta.infrastructure.lsp_client import StdioLanguageServer, _with_option, resolve_beside


def executable(path: Path, text: str = "#!/bin/sh\nexit 0\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


# --- the table ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "server", "language_id"),
    [
        ("src/a.ts", "typescript", "typescript"),
        ("src/a.tsx", "typescript", "typescriptreact"),
        ("src/a.js", "typescript", "javascript"),
        ("src/a.jsx", "typescript", "javascriptreact"),
        ("src/a.mjs", "typescript", "javascript"),
        ("pkg/a.go", "go", "go"),
        ("src/lib.rs", "rust", "rust"),
        ("a.c", "c", "c"),
        ("a.h", "c", "c"),
        ("a.cpp", "c", "cpp"),
        ("a.HPP", "c", "cpp"),
        ("a.py", "python", "python"),
    ],
)
def test_a_file_goes_to_its_languages_server_with_the_right_language_id(
    path: str, server: str, language_id: str
) -> None:
    row = server_for(language_of(path))
    assert row is not None and row.name == server
    assert row.language_id(path) == language_id


def test_the_rows_name_the_commands_and_install_commands_of_the_issue() -> None:
    rows = {row.name: row for row in SERVERS}
    assert rows["typescript"].command == ("typescript-language-server", "--stdio")
    assert rows["go"].command == ("gopls",)
    assert rows["rust"].command == ("rust-analyzer",)
    assert rows["c"].command == ("clangd",)
    assert rows["python"].command == ("jedi-language-server",)
    assert "typescript-language-server typescript" in rows["typescript"].install
    assert all(row.install and row.command for row in SERVERS)


def test_every_row_serves_languages_the_parser_knows_and_no_language_twice() -> None:
    known = set(LANGUAGES.values())
    served = [language for row in SERVERS for language in row.languages]
    assert len(served) == len(set(served))
    assert set(served) <= known
    for row in SERVERS:
        for extension, language_id in row.language_ids.items():
            assert extension == extension.lower() and extension.startswith(".")
            assert language_of(f"f{extension}") in (None, *row.languages), extension
            assert language_id


def test_no_row_for_other_languages() -> None:
    assert server_for("ruby") is None and server_for(None) is None and server_for("markdown") is None


# --- the router ---------------------------------------------------------------------------------------------


def test_a_language_without_a_server_is_no_server_and_names_the_served_ones(tmp_path: Path) -> None:
    router = LazyLanguageServer(tmp_path, None, 1.0)
    with pytest.raises(LanguageServerUnavailable) as info:
        router.hover("lib/a.rb", "x = 1\n", 1, 0)
    assert info.value.reason == "no_server" and "ruby" in info.value.message
    assert "typescript" in info.value.details["served"]
    router.close()


def test_a_missing_server_is_not_installed_with_its_install_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    rows = [attrs.evolve(row, command=(f"no-such-{row.name}-server",)) for row in SERVERS]
    router = LazyLanguageServer(tmp_path, None, 1.0, servers=rows)
    for path in ("a.ts", "a.go", "a.rs", "a.cpp"):
        with pytest.raises(LanguageServerUnavailable) as info:
            router.references(path, "x\n", 1, 0)
        row = server_for(language_of(path))
        assert row is not None
        assert info.value.reason == "not_installed"
        assert info.value.details["install"] == row.install and row.install in info.value.message
        assert "TRIFECTA_LSP_COMMAND" not in info.value.message  # that setting is the Python server's
    router.close()


def test_the_lsp_command_setting_replaces_the_python_server_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    router = LazyLanguageServer(tmp_path, ("/nonexistent/my-ls", "--stdio"), 1.0)
    with pytest.raises(LanguageServerUnavailable) as python:
        router.hover("a.py", "x = 1\n", 1, 0)
    assert python.value.details["command"] == ["/nonexistent/my-ls", "--stdio"]
    assert "[lsp] command" in python.value.message
    with pytest.raises(LanguageServerUnavailable) as ts:
        router.hover("a.ts", "x\n", 1, 0)
    assert ts.value.details["command"] == ["typescript-language-server", "--stdio"]
    assert router.inner is not None and router.adapter("typescript") is not router.inner
    router.close()
    with pytest.raises(LanguageServerUnavailable) as closed:
        router.hover("a.ts", "x\n", 1, 0)
    assert closed.value.reason == "closed"


# --- the companion package (tsserver beside typescript-language-server) ---------------------------------


def npm_layout(prefix: Path, *, with_typescript: bool) -> Path:
    """What `npm install --prefix PREFIX typescript-language-server typescript` leaves, as far as it matters."""
    modules = prefix / "node_modules"
    cli = executable(modules / "typescript-language-server" / "lib" / "cli.mjs")
    (modules / ".bin").mkdir(parents=True)
    link = modules / ".bin" / "typescript-language-server"
    link.symlink_to(os.path.relpath(cli, link.parent))
    if with_typescript:
        (modules / "typescript" / "lib").mkdir(parents=True)
        (modules / "typescript" / "lib" / "tsserver.js").write_text("")
    return link


def test_tsserver_is_taken_from_the_package_beside_the_server(tmp_path: Path) -> None:
    (row,) = [r for r in SERVERS if r.name == "typescript"]
    link = npm_layout(tmp_path / "tools", with_typescript=True)
    found = resolve_beside(row, str(link))
    assert found == str((tmp_path / "tools/node_modules/typescript/lib/tsserver.js").resolve())
    bare = npm_layout(tmp_path / "bare", with_typescript=False)
    assert resolve_beside(attrs.evolve(row, beside=attrs.evolve(row.beside, program=None)), str(bare)) is None


def test_tsserver_on_path_counts_as_beside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (row,) = [r for r in SERVERS if r.name == "typescript"]
    bare = npm_layout(tmp_path / "bare", with_typescript=False)
    modules = tmp_path / "global" / "lib" / "node_modules"
    real = executable(modules / "typescript" / "bin" / "tsserver")
    (modules / "typescript" / "lib").mkdir()
    (modules / "typescript" / "lib" / "tsserver.js").write_text("")
    bin_dir = tmp_path / "global" / "bin"
    bin_dir.mkdir()
    (bin_dir / "tsserver").symlink_to(real)
    monkeypatch.setenv("PATH", str(bin_dir))
    assert resolve_beside(row, str(bare)) == str((modules / "typescript/lib/tsserver.js").resolve())


def test_without_typescript_beside_it_the_segments_own_copy_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """typescript-language-server would run the workspace's node_modules/typescript; Trifecta refuses to
    start it rather than let a repository choose the program."""
    segment = tmp_path / "segment"
    (segment / "node_modules" / "typescript" / "lib").mkdir(parents=True)
    (segment / "node_modules" / "typescript" / "lib" / "tsserver.js").write_text("")
    tools = npm_layout(tmp_path / "tools", with_typescript=False)
    monkeypatch.setenv("PATH", str(tools.parent))
    (row,) = [r for r in SERVERS if r.name == "typescript"]
    server = StdioLanguageServer(segment, row, 1.0)
    with pytest.raises(LanguageServerUnavailable) as info:
        server.hover("a.ts", "x\n", 1, 0)
    assert info.value.reason == "not_installed" and "'typescript'" in info.value.message
    assert info.value.details["install"] == row.install
    assert server.starts == 0 and server.pid is None
    server.close()


def test_an_option_lands_at_its_nested_key_without_touching_the_others() -> None:
    options = {"hostInfo": "trifecta", "tsserver": {"logVerbosity": "off"}}
    merged = _with_option(options, ("tsserver", "path"), "/x/tsserver.js")
    assert merged == {"hostInfo": "trifecta", "tsserver": {"logVerbosity": "off", "path": "/x/tsserver.js"}}
    assert options == {"hostInfo": "trifecta", "tsserver": {"logVerbosity": "off"}}
    assert _with_option({}, ("a",), 1) == {"a": 1}
