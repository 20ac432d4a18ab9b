from __future__ import annotations

from pathlib import Path

import pytest

from trifecta.application.ports import OutsideSegment
from trifecta.infrastructure.config import ConfigError, load_settings
from trifecta.infrastructure.file_source import LocalFileSource


def write(root: Path, rel: str, text: str = "x = 1\n") -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_nested_gitignore_with_negation(tmp_path: Path) -> None:
    write(tmp_path, ".gitignore", "*.gen.py\nlogs/\n")
    write(tmp_path, "a.py")
    write(tmp_path, "a.gen.py")
    write(tmp_path, "logs/x.py")
    write(tmp_path, "pkg/.gitignore", "!keep.gen.py\nlocal.py\n")
    write(tmp_path, "pkg/keep.gen.py")
    write(tmp_path, "pkg/drop.gen.py")
    write(tmp_path, "pkg/local.py")
    write(tmp_path, "other/local.py")
    write(tmp_path, ".trifectaignore", "other/\n")
    scan = LocalFileSource(tmp_path).scan()
    paths = {f.path for f in scan.files}
    assert {"a.py", "pkg/keep.gen.py"} <= paths
    assert not paths & {"a.gen.py", "logs/x.py", "pkg/drop.gen.py", "pkg/local.py", "other/local.py"}
    assert scan.skipped["ignored"] == 5


def test_limits_secrets_and_venvs(tmp_path: Path) -> None:
    write(tmp_path, "big.py", "x" * 2000)
    write(tmp_path, "keys/server.pem")
    write(tmp_path, "env1/pyvenv.cfg")
    write(tmp_path, "env1/lib/mod.py")
    scan = LocalFileSource(tmp_path, max_file_bytes=1000).scan()
    assert scan.files == ()
    assert scan.skipped == {"too_large": 1, "secret": 1, "excluded": 1}


def test_read_refuses_to_leave_the_segment(tmp_path: Path) -> None:
    seg = tmp_path / "seg"
    write(seg, "in.py")
    write(tmp_path, "out.py")
    (seg / "link.py").symlink_to(tmp_path / "out.py")
    src = LocalFileSource(seg)
    assert src.read_bytes("in.py") == b"x = 1\n"
    for bad in ("../out.py", str(tmp_path / "out.py"), "link.py", "", "a\x00b"):
        with pytest.raises(OutsideSegment):
            src.read_bytes(bad)
    assert "link.py" not in {f.path for f in src.scan().files}


def test_settings_precedence(tmp_path: Path) -> None:
    (tmp_path / ".trifecta").mkdir()
    (tmp_path / ".trifecta" / "config.toml").write_text("[search]\nlint = true\n[budget]\nmax_snippets = 3\n")
    s = load_settings(tmp_path, env={})
    assert (
        s.lint is True and s.max_snippets == 3 and s.db_path == tmp_path.resolve() / ".trifecta" / "index.db"
    )
    assert load_settings(tmp_path, env={"TRIFECTA_LINT": "0"}).lint is False
    assert load_settings(tmp_path, {"lint": True}, env={"TRIFECTA_LINT": "0"}).lint is True
    with pytest.raises(ConfigError, match="unknown setting"):
        load_settings(tmp_path, {"nonsense": 1}, env={})
    with pytest.raises(ConfigError, match="not a directory"):
        load_settings(tmp_path / "missing", env={})
    (tmp_path / ".trifecta" / "config.toml").write_text("[index\n")
    with pytest.raises(ConfigError):
        load_settings(tmp_path, env={})
