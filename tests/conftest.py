from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def sample_repo(tmp_path: Path) -> Path:
    """tests/fixtures/sample_repo in a fresh temp dir, plus the files the indexer must skip (made here,
    because git would not keep them in the fixture: ignored, generated, secret, binary)."""
    dest = tmp_path / "repo"
    # never a .trifecta/ a stray run may have left in the fixture: every test starts without an index
    shutil.copytree(FIXTURES / "sample_repo", dest, ignore=shutil.ignore_patterns(".trifecta"))
    (dest / ".gitignore").write_text("ignored_dir/\n*.log\n")
    (dest / "ignored_dir").mkdir()
    (dest / "ignored_dir" / "hidden.py").write_text("def hidden_function():\n    pass\n")
    (dest / "app.log").write_text("log line\n")
    (dest / "node_modules" / "dep").mkdir(parents=True)
    (dest / "node_modules" / "dep" / "index.js").write_text("module.exports = {};\n")
    (dest / "build").mkdir()
    (dest / "build" / "out.py").write_text("generated = True\n")
    (dest / ".env").write_text("API_KEY=123\n")
    (dest / "id_rsa").write_text("-----BEGIN KEY-----\n")
    (dest / "blob.py").write_bytes(b"\x00\x01\x02binary")
    return dest


# the rest of a package: words such as "stream", "tree" or "line" stay rare in it, as in a real one
FILLER = "".join(f"def helper_{i}(value):\n    return value + {i}\n\n\n" for i in range(20))


@pytest.fixture
def index_files(tmp_path: Path) -> Iterator[Callable[..., Any]]:
    """Writes {relative path: text} (and FILLER at each of `fillers`) under a temp dir, opens and indexes it,
    and returns the Engine (closed at teardown): for search tests that need a few files of their own."""
    import trifecta

    engines: list[Any] = []

    def make(files: dict[str, str], fillers: tuple[str, ...] = ()) -> Any:
        root = tmp_path / f"segment{len(engines)}"
        for rel, text in {**files, **dict.fromkeys(fillers, FILLER)}.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)
        engine = trifecta.open(str(root))
        engine.index()
        engines.append(engine)
        return engine

    yield make
    for engine in engines:
        engine.close()
