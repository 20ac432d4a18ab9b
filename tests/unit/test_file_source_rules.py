"""The local file source reads by the indexer's rules: bounded, never blocking, refusing with a reason.

Each test names the check it guards, so removing that check (a mutation) fails it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from trifecta.application.ports import (
    BinaryFile,
    FileTooLarge,
    IgnoredFile,
    OutsideSegment,
    SecretFile,
    SpecialFile,
)
from trifecta.infrastructure import file_source
from trifecta.infrastructure.file_source import MAX_IGNORE_FILE_BYTES, LocalFileSource

pytestmark = pytest.mark.timeout(30)  # a read that blocks on a FIFO fails here instead of hanging


def write(root: Path, rel: str, data: str | bytes = "x = 1\n") -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data)
    return path


def source(root: Path, **kwargs: object) -> LocalFileSource:
    return LocalFileSource(root, watch=False, **kwargs)  # type: ignore[arg-type]


# --- secret names ---------------------------------------------------------------------------------------------


def test_secret_patterns_match_the_file_name_at_any_depth(tmp_path: Path) -> None:
    # A matcher given the relative path instead of the name would let `deploy/id_rsa` through.
    for rel in ("id_rsa", "deploy/id_rsa", "a/b/key.pem", "conf/.env", "ops/secrets.yaml"):
        write(tmp_path, rel, "not really\n")
    write(tmp_path, "deploy/run.py")
    src = source(tmp_path)
    scan = src.scan()
    assert {f.path for f in scan.files} == {"deploy/run.py"}
    assert scan.skipped["secret"] == 5
    for rel in ("id_rsa", "deploy/id_rsa", "a/b/key.pem", "conf/.env", "ops/secrets.yaml"):
        assert not src.admits(rel), rel
        with pytest.raises(SecretFile) as caught:
            src.read_admitted(rel)
        assert caught.value.data["reason"] == "secret_name"


def test_secret_patterns_with_a_slash_still_match_names_deeper_down(tmp_path: Path) -> None:
    write(tmp_path, "deploy/id_rsa", "k\n")
    write(tmp_path, "config/prod.yaml", "k: v\n")
    src = source(tmp_path, secret_patterns=("id_rsa", "config/*.yaml"))
    assert src.scan().files == ()
    assert not src.admits("deploy/id_rsa") and not src.admits("config/prod.yaml")


def test_code_named_secrets_is_not_a_secret_by_name(tmp_path: Path) -> None:
    write(tmp_path, "lib/secrets.py", "import os\n\ndef token_hex(n):\n    return os.urandom(n).hex()\n")
    write(tmp_path, "secrets.json", '{"a": 1}\n')
    src = source(tmp_path)
    assert {f.path for f in src.scan().files} == {"lib/secrets.py"}
    assert src.read_admitted("lib/secrets.py").startswith(b"import os")


def test_a_secret_by_content_is_refused(tmp_path: Path) -> None:
    key = "-----BEGIN RSA PRIVATE KEY-----\n" + "MIIEowIBAAKCAQEA7" * 4 + "\n-----END RSA PRIVATE KEY-----\n"
    write(tmp_path, "service.json", '{"private_key": "' + key.replace("\n", "\\n") + '"}\n')
    with pytest.raises(SecretFile) as caught:
        source(tmp_path).read_admitted("service.json")
    assert caught.value.data["reason"] == "private_key"


# --- ignore rules ---------------------------------------------------------------------------------------------


def test_admits_follows_ignore_files_and_excludes(tmp_path: Path) -> None:
    write(tmp_path, ".gitignore", "generated/\n*.gen.py\n")
    write(tmp_path, "pkg/.trifectaignore", "local.py\n")
    for rel in ("generated/a.py", "b.gen.py", "pkg/local.py", "node_modules/x/y.py", "keep.py", "extra/z.py"):
        write(tmp_path, rel)
    write(tmp_path, "env1/pyvenv.cfg", "home = /usr\n")
    write(tmp_path, "env1/lib/mod.py")
    src = source(tmp_path, exclude=("extra/",))
    assert src.admits("keep.py")
    refused = {
        "generated/a.py": ".gitignore",
        "b.gen.py": ".gitignore",
        "pkg/local.py": "pkg/.trifectaignore",
        "extra/z.py": "[index] exclude",
    }
    for rel, origin in refused.items():
        assert not src.admits(rel), rel
        with pytest.raises(IgnoredFile) as caught:
            src.read_admitted(rel)
        assert caught.value.data["by"] == origin
    for rel in ("node_modules/x/y.py", "env1/lib/mod.py"):
        assert not src.admits(rel), rel
        with pytest.raises(IgnoredFile):
            src.read_admitted(rel)


def test_ignore_file_that_is_a_fifo_is_skipped_not_waited_on(tmp_path: Path) -> None:
    write(tmp_path, "a.py")
    os.mkfifo(tmp_path / ".gitignore")
    src = source(tmp_path)
    scan = src.scan()
    assert [f.path for f in scan.files] == ["a.py"]
    assert scan.skipped["ignore_file_refused"] == 1
    assert src.admits("a.py")


def test_ignore_file_linked_to_dev_zero_or_too_big_is_skipped(tmp_path: Path) -> None:
    write(tmp_path, "a.py")
    (tmp_path / ".gitignore").symlink_to("/dev/zero")
    write(tmp_path, ".trifectaignore", "a.py\n" + "#" * MAX_IGNORE_FILE_BYTES)
    scan = source(tmp_path).scan()
    assert [f.path for f in scan.files] == ["a.py"]  # the over-size .trifectaignore is not applied
    assert scan.skipped["ignore_file_refused"] == 2


# --- bounded, non-blocking reads ------------------------------------------------------------------------------


def test_a_fifo_is_refused_without_being_opened(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.py")
    src = source(tmp_path)
    assert src.scan().skipped["not_regular"] == 1
    for read in (src.read_bytes, src.read_admitted):
        with pytest.raises(SpecialFile) as caught:
            read("pipe.py")
        assert caught.value.data["reason"] == "fifo"
    assert not src.admits("pipe.py")


def test_a_file_swapped_for_a_fifo_after_listing_raises(tmp_path: Path) -> None:
    target = write(tmp_path, "swap.py")
    src = source(tmp_path)
    assert [f.path for f in src.scan().files] == ["swap.py"]
    target.unlink()
    os.mkfifo(target)
    with pytest.raises(SpecialFile):
        src.read_bytes("swap.py")


def test_a_fifo_swapped_in_between_the_check_and_the_open_is_refused_not_waited_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The race the lstat check cannot close: the open must not block (O_NONBLOCK) and what was opened is
    # checked again (fstat).
    os.mkfifo(tmp_path / "late.py")
    monkeypatch.setattr(file_source, "_check_regular", lambda real, limit, rel: None)
    with pytest.raises(SpecialFile):
        source(tmp_path).read_bytes("late.py")


def test_a_large_sparse_file_is_refused_by_its_size(tmp_path: Path) -> None:
    big = tmp_path / "big.py"
    big.touch()
    os.truncate(big, 2 << 30)
    src = source(tmp_path)
    for read in (src.read_bytes, src.read_admitted):
        with pytest.raises(FileTooLarge) as caught:
            read("big.py")
        assert caught.value.data["size"] == 2 << 30


def test_reads_stop_at_the_limit(tmp_path: Path) -> None:
    write(tmp_path, "ok.py", "x" * 100)
    write(tmp_path, "big.py", "x" * 101)
    src = source(tmp_path, max_file_bytes=100)
    assert len(src.read_bytes("ok.py")) == 100
    with pytest.raises(FileTooLarge):
        src.read_bytes("big.py")


def test_a_link_inside_the_segment_is_read_one_out_is_not(tmp_path: Path) -> None:
    seg = tmp_path / "seg"
    write(seg, "real.py", "y = 2\n")
    (seg / "alias.py").symlink_to(seg / "real.py")
    (seg / "zero.py").symlink_to("/dev/zero")
    src = source(seg)
    assert src.read_admitted("alias.py") == b"y = 2\n"
    with pytest.raises(OutsideSegment):
        src.read_bytes("zero.py")


def test_binary_files_are_refused_for_agents(tmp_path: Path) -> None:
    write(tmp_path, "blob.py", b"\x00\x01\x02" * 10)
    src = source(tmp_path)
    assert src.read_bytes("blob.py").startswith(b"\x00")  # the indexer sniffs it itself
    with pytest.raises(BinaryFile):
        src.read_admitted("blob.py")


def test_a_name_that_is_not_utf8_is_skipped_and_counted(tmp_path: Path) -> None:
    write(tmp_path, "good.py")
    with open(os.path.join(os.fsencode(tmp_path), b"bad_\xff.py"), "wb") as fh:
        fh.write(b"x = 1\n")
    os.mkdir(os.path.join(os.fsencode(tmp_path), b"dir_\xfe"))
    scan = source(tmp_path).scan()
    assert [f.path for f in scan.files] == ["good.py"]
    assert scan.skipped["undecodable_name"] == 2
