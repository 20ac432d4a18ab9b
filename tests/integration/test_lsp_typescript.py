"""Hover and references through a real typescript-language-server (npm, with `typescript` beside it) on the
TypeScript/JavaScript fixture in tests/fixtures/lsp_ts (a tsconfig project: .ts, .tsx, .js, .jsx).

Nothing is installed here: the server is taken from PATH, else from the folder `.ci/run` installs it into
(`npm install --prefix ~/.cache/trifecta-ci/lsp typescript-language-server@6 typescript@5`). Without node the
tests are skipped; with node but no server they fail, saying how to install it.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import trifecta
from trifecta.application.navigation import LanguageServerUnavailable
from trifecta.infrastructure.lazy_language_server import LazyLanguageServer

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "lsp_ts"
REPO = Path(__file__).resolve().parents[2]
PROGRAM = "typescript-language-server"
LOCAL_BINS = (
    Path.home() / ".cache" / "trifecta-ci" / "lsp" / "node_modules" / ".bin",  # where .ci/run installs it
    REPO / "node_modules" / ".bin",
)
INSTALL = 'npm install --prefix "$HOME/.cache/trifecta-ci/lsp" typescript-language-server@6 typescript@5'

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def ts_path(monkeypatch: pytest.MonkeyPatch) -> str:
    """PATH with the TypeScript server on it (set for the test), or a skip when node is absent."""
    if shutil.which("node") is None:
        pytest.skip("node is not installed: the TypeScript language server cannot run here")
    path = os.environ.get("PATH", "")
    if shutil.which(PROGRAM) is None:
        local = next((d for d in LOCAL_BINS if (d / PROGRAM).is_file()), None)
        if local is None:
            pytest.fail(f"node is installed but {PROGRAM} is not on PATH nor in {LOCAL_BINS}: run {INSTALL}")
        path = f"{local}{os.pathsep}{path}"
        monkeypatch.setenv("PATH", path)
    return path


@pytest.fixture
def ts_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "lsp_ts"
    shutil.copytree(FIXTURE, repo)
    return repo


@pytest.fixture
def router(ts_path: str, ts_repo: Path) -> Iterator[LazyLanguageServer]:
    server = LazyLanguageServer(ts_repo, None, 30.0)
    yield server
    server.close()


def at(repo: Path, path: str, line: int, name: str) -> tuple[str, str, int, int]:
    """The request arguments for the first `name` on a 1-based line of a fixture file."""
    text = (repo / path).read_text()
    return path, text, line, text.split("\n")[line - 1].index(name)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ")[1][0] != "Z"
    except OSError:
        return True


def wait_gone(pid: int, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.05)
    return False


def test_hover_gives_the_resolved_type_and_the_doc_comment(router: LazyLanguageServer, ts_repo: Path) -> None:
    info = router.hover(*at(ts_repo, "src/cart.ts", 8, "addItem"))
    assert info is not None and info.markup == "markdown"
    assert "```typescript\n(method) Cart.addItem(item: Item, quantity: number): number\n```" in info.text
    assert "Add `quantity` of `item`" in info.text

    arrow = router.hover(*at(ts_repo, "src/cart.ts", 19, "emptyCart"))
    assert arrow is not None and "const emptyCart: () => Cart" in arrow.text


def test_references_are_the_uses_across_files_without_the_definition(
    router: LazyLanguageServer, ts_repo: Path
) -> None:
    places = router.references(*at(ts_repo, "src/cart.ts", 8, "addItem"))
    assert [(p.path, p.line, p.character, p.in_segment) for p in places] == [
        ("src/checkout.ts", 7, 9, True),
        ("src/checkout.ts", 13, 14, True),
    ]
    uses = router.references(*at(ts_repo, "src/cart.ts", 4, "Cart"))
    files = {p.path for p in uses}
    assert {"src/checkout.ts", "src/badge.tsx"} <= files  # .tsx opened as typescriptreact by the project


def test_javascript_and_jsx_share_the_one_typescript_server(
    router: LazyLanguageServer, ts_repo: Path
) -> None:
    info = router.hover(*at(ts_repo, "src/legacy.js", 2, "total"))
    assert info is not None and "function total(items: any): any" in info.text
    places = router.references(*at(ts_repo, "src/legacy.js", 2, "total"))
    assert [(p.path, p.line) for p in places] == [
        ("src/legacy.js", 6),
        ("src/view.jsx", 1),
        ("src/view.jsx", 4),
    ]
    badge = router.hover(*at(ts_repo, "src/badge.tsx", 3, "Badge"))
    assert badge is not None and "function Badge(props: {" in badge.text

    server = router.adapter("typescript")
    assert server is not None and server.starts == 1 and server.pid is not None  # type: ignore[attr-defined]
    assert router.adapter("python") is None  # nothing started for a language nobody asked about


def test_one_process_per_language_and_a_killed_one_leaves_the_other_working(
    router: LazyLanguageServer, ts_repo: Path
) -> None:
    (ts_repo / "util.py").write_text("def helper(x: int) -> int:\n    return x\n\n\nvalue = helper(1)\n")
    python = router.hover("util.py", (ts_repo / "util.py").read_text(), 1, 4)
    assert python is not None and "helper(x: int) -> int" in python.text
    assert router.hover(*at(ts_repo, "src/cart.ts", 8, "addItem")) is not None
    ts_pid = router.adapter("typescript").pid  # type: ignore[union-attr]
    py_pid = router.adapter("python").pid  # type: ignore[union-attr]
    assert ts_pid and py_pid and ts_pid != py_pid

    os.kill(ts_pid, signal.SIGKILL)
    assert wait_gone(ts_pid)
    assert router.hover("util.py", (ts_repo / "util.py").read_text(), 1, 4) is not None
    assert router.adapter("python").pid == py_pid  # type: ignore[union-attr]
    again = router.hover(*at(ts_repo, "src/cart.ts", 8, "addItem"))  # a fresh server replaces the dead one
    assert again is not None and "Cart.addItem" in again.text
    fresh = router.adapter("typescript").pid  # type: ignore[union-attr]
    assert fresh not in (None, ts_pid)

    router.close()
    assert wait_gone(py_pid) and wait_gone(fresh), "close() stops every server"


def test_the_repositorys_own_typescript_is_never_run(router: LazyLanguageServer, ts_repo: Path) -> None:
    """typescript-language-server prefers the workspace's node_modules/typescript/lib/tsserver.js; a cloned
    repository could ship one. Trifecta points tsserver.path at the typescript installed beside the server."""
    marker = ts_repo.parent / "ran"
    lib = ts_repo / "node_modules" / "typescript" / "lib"
    lib.mkdir(parents=True)
    (lib.parent / "package.json").write_text('{"name": "typescript", "version": "5.4.0"}')
    (lib / "tsserver.js").write_text(f"require('fs').writeFileSync({str(marker)!r}, 'x'); process.exit(1);\n")
    info = router.hover(*at(ts_repo, "src/cart.ts", 8, "addItem"))
    assert info is not None and "Cart.addItem" in info.text
    assert not marker.exists()


def test_without_the_server_the_answer_is_not_installed_with_the_install_command(
    ts_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(ts_repo / "no-bin"))
    router = LazyLanguageServer(ts_repo, None, 5.0)
    try:
        started = time.monotonic()
        with pytest.raises(LanguageServerUnavailable) as info:
            router.hover(*at(ts_repo, "src/cart.ts", 8, "addItem"))
        assert time.monotonic() - started < 1
        assert info.value.reason == "not_installed"
        assert info.value.details["install"] == "npm install -g typescript-language-server typescript"
        assert "npm install -g typescript-language-server typescript" in info.value.message
    finally:
        router.close()


# --- through the engine: selector -> AST -> the server -------------------------------------------------------

ADD_ITEM = "sym://typescript/type/src/cart/Cart#addItem"


def test_ast_hover_and_refs_on_a_typescript_selector(ts_path: str, ts_repo: Path) -> None:
    engine = trifecta.open(str(ts_repo), lsp_timeout=30)
    try:
        engine.index()
        hover = engine.hover(ADD_ITEM)
        assert hover.ok, hover.errors
        assert (
            hover.data["hover"]["signature"] == "(method) Cart.addItem(item: Item, quantity: number): number"
        )
        refs = engine.refs(ADD_ITEM)
        assert refs.ok, refs.errors
        assert [(h["path"], h["line"], h["symbol"]) for h in refs.data["hits"]] == [
            ("src/checkout.ts", 7, "fill"),
            ("src/checkout.ts", 13, "double"),
        ]
    finally:
        engine.close()


def test_ast_hover_without_the_server_keeps_the_ast_data(
    ts_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", f"{ts_repo / 'no-bin'}{os.pathsep}{Path(sys.executable).parent}")
    engine = trifecta.open(str(ts_repo))
    try:
        engine.index()
        response = engine.hover(ADD_ITEM)
        raw = response.to_dict()
        (error,) = raw["errors"]
        assert error["code"] == "LSP_UNAVAILABLE" and error["data"]["reason"] == "not_installed"
        assert error["data"]["install"] == "npm install -g typescript-language-server typescript"
        assert response.data["uri"] == ADD_ITEM and response.data["range"]["start_line"] == 8
    finally:
        engine.close()
