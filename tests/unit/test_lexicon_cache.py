"""The lexicon's cache file: what it loads is the lexicon built from scratch, table by table, and a cache
file that is truncated, corrupt, foreign or hostile is ignored (and replaced), never trusted."""

from __future__ import annotations

import hashlib
import marshal
import os
from pathlib import Path

import pytest

from trifecta.domain.lexicon import Lexicon
from trifecta.infrastructure import lexicon_data
from trifecta.infrastructure.lexicon_data import (
    ES_EN_FILE,
    SYNONYMS_FILE,
    cache_dir,
    cache_key,
    cached_lexicon,
    dump_tables,
    load_tables,
    read_data_json,
    read_lemmas,
)


@pytest.fixture(scope="module")
def fresh() -> Lexicon:
    return Lexicon.from_mappings(read_data_json(ES_EN_FILE), read_data_json(SYNONYMS_FILE), read_lemmas())


def _same(a: Lexicon, b: Lexicon) -> None:
    """Every table and derived field, in the same order (a dict's order is part of what is cached)."""
    assert list(a.translations.items()) == list(b.translations.items())
    assert list(a.synonyms.items()) == list(b.synonyms.items())
    assert a.listed == b.listed
    assert a.english == b.english
    assert a.longest_key == b.longest_key
    assert a == b


def _cache_file(folder: Path) -> Path:
    (found,) = folder.glob("lexicon-*.marshal")
    return found


def _no_build(*_: object) -> Lexicon:
    raise AssertionError("built again: the cache was not used")


def test_the_cached_lexicon_is_the_fresh_one(
    tmp_path: Path, fresh: Lexicon, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = {"TRIFECTA_CACHE_HOME": str(tmp_path)}
    _same(cached_lexicon(env), fresh)  # built and written
    assert _cache_file(tmp_path).stat().st_mode & 0o077 == 0
    monkeypatch.setattr(lexicon_data, "build_lexicon", _no_build)
    _same(cached_lexicon(env), fresh)  # read back


def test_load_tables_round_trip(fresh: Lexicon) -> None:
    loaded = load_tables(dump_tables(fresh))
    assert loaded is not None
    _same(loaded, fresh)


def _hostile(payload: object) -> bytes:
    """A cache file with a valid header and digest around a payload of the wrong shape."""
    blob = marshal.dumps(payload)
    return b"trifecta-lexicon\n" + hashlib.sha256(blob).digest() + blob


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda blob: blob[: len(blob) // 2], id="truncated"),
        pytest.param(lambda blob: blob[:-1] + bytes([blob[-1] ^ 0xFF]), id="flipped-byte"),
        pytest.param(lambda blob: b"", id="empty"),
        pytest.param(lambda blob: b"\x00" * 4096, id="garbage"),
        pytest.param(lambda blob: _hostile(compile("raise SystemExit(3)", "x", "exec")), id="code-object"),
        pytest.param(lambda blob: _hostile(({"a": 1}, {}, frozenset())), id="wrong-values"),
        pytest.param(lambda blob: _hostile(({"a": ("b",)}, {}, frozenset({1}))), id="wrong-listed"),
        pytest.param(lambda blob: _hostile([{}, {}, frozenset()]), id="a-list"),
        pytest.param(lambda blob: _hostile(({}, {})), id="two-tables"),
    ],
)
def test_a_damaged_cache_is_ignored_and_replaced(
    tmp_path: Path, fresh: Lexicon, damage: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = {"TRIFECTA_CACHE_HOME": str(tmp_path)}
    cached_lexicon(env)
    path = _cache_file(tmp_path)
    good = path.read_bytes()
    path.write_bytes(damage(good))  # type: ignore[operator]
    assert load_tables(path.read_bytes()) is None
    _same(cached_lexicon(env), fresh)  # rebuilt, not read
    assert path.read_bytes() == good  # and the cache written again
    monkeypatch.setattr(lexicon_data, "build_lexicon", _no_build)
    _same(cached_lexicon(env), fresh)


def test_a_cache_file_others_can_write_is_not_read(
    tmp_path: Path, fresh: Lexicon, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = {"TRIFECTA_CACHE_HOME": str(tmp_path)}
    cached_lexicon(env)
    path = _cache_file(tmp_path)
    path.chmod(0o666)
    built: list[bool] = []
    real = lexicon_data.build_lexicon

    def counting(*args: bytes) -> Lexicon:
        built.append(True)
        return real(*args)

    monkeypatch.setattr(lexicon_data, "build_lexicon", counting)
    _same(cached_lexicon(env), fresh)
    assert built == [True]
    assert path.stat().st_mode & 0o077 == 0  # replaced by a private one


@pytest.mark.timeout(30)
def test_a_fifo_in_place_of_the_cache_is_not_read(tmp_path: Path, fresh: Lexicon) -> None:
    env = {"TRIFECTA_CACHE_HOME": str(tmp_path)}
    cached_lexicon(env)
    path = _cache_file(tmp_path)
    path.unlink()
    os.mkfifo(path)
    _same(cached_lexicon(env), fresh)  # neither blocks on the FIFO nor reads it
    assert path.is_file()


def test_an_unwritable_cache_folder_still_gives_the_lexicon(tmp_path: Path, fresh: Lexicon) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    _same(cached_lexicon({"TRIFECTA_CACHE_HOME": str(blocker / "cache")}), fresh)
    _same(cached_lexicon({}), fresh)  # no cache folder at all


def test_the_key_follows_the_data_and_the_builder() -> None:
    data, builder = (b"{}", b"{}", b"{}"), (b"code",)
    key = cache_key(data, builder)
    assert cache_key(data, builder) == key
    assert cache_key((b"{} ", b"{}", b"{}"), builder) != key
    assert cache_key(data, (b"code2",)) != key
    assert cache_key((b"{}{", b"}", b"{}"), builder) != key  # the parts' boundaries count


def test_cache_dir_follows_the_environment(tmp_path: Path) -> None:
    assert cache_dir({"TRIFECTA_CACHE_HOME": str(tmp_path)}) == tmp_path
    assert cache_dir({"XDG_CACHE_HOME": str(tmp_path)}) == tmp_path / "trifecta"
    assert cache_dir({"HOME": str(tmp_path)}) == tmp_path / ".cache" / "trifecta"
    assert cache_dir({}) is None


def test_the_newest_cache_files_are_kept(tmp_path: Path) -> None:
    """Another version's cache file stays (two installs do not rebuild in turn); past a few, the oldest go."""
    others = [tmp_path / f"lexicon-{n}.marshal" for n in range(lexicon_data.KEPT_CACHE_FILES + 2)]
    for age, path in enumerate(others):
        path.write_bytes(b"another version")
        os.utime(path, (1000 + age, 1000 + age))
    cached_lexicon({"TRIFECTA_CACHE_HOME": str(tmp_path)})
    left = set(tmp_path.glob("lexicon-*.marshal"))
    assert len(left) == lexicon_data.KEPT_CACHE_FILES
    assert others[-1] in left and others[0] not in left  # the newest other stays, the oldest went
