"""The shipped query-expansion data, in `trifecta/data/`:

- `es_en.json`: Spanish written forms -> English code words (irregular forms, phrases, and forms whose
  meaning differs from their lemma's); these win over inflected forms.
- `es_lemmas.json`: Spanish dictionary forms by kind, `{"verbs": {"sugerir:ie": ["suggest"]}, "nouns":
  {...}, "adjectives": {...}}`, every form of which is generated on load (`domain.spanish_forms`). A verb
  may carry its stem change after a colon (ie, ue, i); keys are folded, at most 3 English words each.
- `synonyms.json`: English -> English code synonyms.

Inflecting every lemma costs a new process ~20 ms, so the built tables are kept in the user's cache folder
(`$TRIFECTA_CACHE_HOME`, else `$XDG_CACHE_HOME/trifecta`, else `~/.cache/trifecta`) as one `marshal` file
of plain dicts, strings and tuples (never pickle: nothing in it can run). Its name is a digest of what
builds the tables (the three data files, the builder's source, the Python version), so a change to any of
them builds and writes a new one (the 4 newest are kept). A cache file is read only when it is a regular
file of the user's that no one else may write, its payload matches the digest in its header, and its
tables have the shapes a Lexicon holds; anything else (truncated, corrupt, foreign, hostile) is ignored
and rebuilt.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import marshal
import os
import stat
import sys
from collections.abc import Mapping
from importlib.resources import files
from pathlib import Path
from typing import Any

from ..domain.lexicon import Lexicon
from ..domain.spanish_forms import LEMMA_KINDS
from .trust import user_dir

ES_EN_FILE = "es_en.json"
ES_LEMMAS_FILE = "es_lemmas.json"
SYNONYMS_FILE = "synonyms.json"

CACHE_FORMAT = 1  # bump when the cached tables change shape
KEPT_CACHE_FILES = 4  # cache files kept in the folder, the newest (one per data and code version)
_MAGIC = b"trifecta-lexicon\n"
_DIGEST = 32  # sha256 of the payload, after the magic
_PREFIX = "lexicon-"
_SUFFIX = ".marshal"
# what builds the tables besides the data: a change to one of these makes a new cache key
_BUILDER_SOURCES = (
    ("domain", "lexicon.py"),
    ("domain", "spanish_forms.py"),
    ("infrastructure", "lexicon_data.py"),
)


def _read_json(name: str) -> Any:
    return json.loads((files("trifecta") / "data" / name).read_text(encoding="utf-8"))


def _data_json(raw: Any, name: str) -> dict[str, list[str]]:
    if not isinstance(raw, dict):
        raise ValueError(f"{name}: expected a JSON object")
    return {str(k): [str(w) for w in v] for k, v in raw.items()}


def _lemmas(raw: Any, name: str) -> dict[str, dict[str, list[str]]]:
    if not isinstance(raw, dict) or not set(raw) <= set(LEMMA_KINDS):
        raise ValueError(f"{name}: expected an object of {', '.join(LEMMA_KINDS)}")
    return {kind: {str(k): [str(w) for w in v] for k, v in raw[kind].items()} for kind in raw}


def read_data_json(name: str) -> dict[str, list[str]]:
    """One JSON object of word -> list of words from the package data directory."""
    return _data_json(_read_json(name), name)


def read_lemmas(name: str = ES_LEMMAS_FILE) -> dict[str, dict[str, list[str]]]:
    """The lemma table: kind -> lemma -> English words."""
    return _lemmas(_read_json(name), name)


def build_lexicon(es_en: bytes, synonyms: bytes, lemmas: bytes) -> Lexicon:
    """The lexicon of the three data files' bytes, built from scratch."""
    return Lexicon.from_mappings(
        _data_json(json.loads(es_en), ES_EN_FILE),
        _data_json(json.loads(synonyms), SYNONYMS_FILE),
        _lemmas(json.loads(lemmas), ES_LEMMAS_FILE),
    )


def cache_dir(env: Mapping[str, str]) -> Path | None:
    """`$TRIFECTA_CACHE_HOME`, else `$XDG_CACHE_HOME/trifecta`, else `$HOME/.cache/trifecta`; None when `env`
    names none of them (then nothing is cached)."""
    return user_dir(env, "TRIFECTA_CACHE_HOME", "XDG_CACHE_HOME", ".cache")


def cache_key(data: tuple[bytes, ...], builder: tuple[bytes, ...]) -> str:
    """The digest naming a cache file: the data, the builder's source (which stands for the package's
    version: what else changes between versions does not change the tables), Python's and marshal's."""
    digest = hashlib.sha256(f"{CACHE_FORMAT}|{sys.version}|{marshal.version}".encode())
    for part in (*data, *builder):
        digest.update(len(part).to_bytes(8, "little"))
        digest.update(part)
    return digest.hexdigest()[:40]


def dump_tables(lexicon: Lexicon) -> bytes:
    """The cache file's bytes: magic, the payload's sha256, the payload (the tables as plain values)."""
    payload = marshal.dumps((dict(lexicon.translations), dict(lexicon.synonyms), lexicon.listed))
    return _MAGIC + hashlib.sha256(payload).digest() + payload


def _words_table(value: object) -> bool:
    """A dict of str -> tuple of str (type by type, in C: a few ms for ~30,000 keys)."""
    return (
        type(value) is dict
        and set(map(type, value)) <= {str}
        and set(map(type, value.values())) <= {tuple}
        and set(map(type, itertools.chain.from_iterable(value.values()))) <= {str}
    )


def load_tables(blob: bytes) -> Lexicon | None:
    """The lexicon in a cache file's bytes, or None when they are not one this module wrote intact."""
    head = len(_MAGIC) + _DIGEST
    if len(blob) <= head or not blob.startswith(_MAGIC):
        return None
    payload = blob[head:]
    if hashlib.sha256(payload).digest() != blob[len(_MAGIC) : head]:
        return None
    try:
        tables = marshal.loads(payload)
    except (ValueError, EOFError, TypeError):
        return None
    if not (isinstance(tables, tuple) and len(tables) == 3):
        return None
    translations, synonyms, listed = tables
    if not (_words_table(translations) and _words_table(synonyms)):
        return None
    if not (type(listed) is frozenset and set(map(type, listed)) <= {str}):
        return None
    return Lexicon(translations=translations, synonyms=synonyms, listed=listed)


def _read_cache(path: Path) -> Lexicon | None:
    """The cached lexicon at `path` when the file is the user's own, a regular file nobody else can write."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            return None
        if hasattr(os, "getuid") and info.st_uid != os.getuid():
            return None
        with os.fdopen(fd, "rb", closefd=False) as fh:
            blob = fh.read()
    except OSError:
        return None
    finally:
        os.close(fd)
    return load_tables(blob)


def _write_cache(folder: Path, path: Path, lexicon: Lexicon) -> None:
    """Write the cache file atomically (a temporary file renamed over it) and drop all but the newest few;
    a folder that cannot be written only means the next process builds the lexicon again."""
    import tempfile

    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(prefix=".lexicon-", dir=folder)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(dump_tables(lexicon))
            os.replace(temp, path)
        except BaseException:
            os.unlink(temp)
            raise
        # the newest few stay: two installed versions (or a checkout beside an install) each keep theirs
        kept = sorted(folder.glob(f"{_PREFIX}*{_SUFFIX}"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in kept[KEPT_CACHE_FILES:]:
            if old != path:
                old.unlink(missing_ok=True)
    except OSError:
        pass


def cached_lexicon(env: Mapping[str, str]) -> Lexicon:
    """The lexicon from the cache when a valid one is there for the shipped data and code, else built
    (and cached when the cache folder can be written)."""
    package = files("trifecta")
    data = tuple(
        (package / "data" / name).read_bytes() for name in (ES_EN_FILE, SYNONYMS_FILE, ES_LEMMAS_FILE)
    )
    folder = cache_dir(env)
    if folder is None:
        return build_lexicon(*data)
    try:
        builder = tuple((package / part / name).read_bytes() for part, name in _BUILDER_SOURCES)
    except OSError:  # a package without its sources (zipped, frozen): no key to trust, build
        return build_lexicon(*data)
    path = folder / f"{_PREFIX}{cache_key(data, builder)}{_SUFFIX}"
    cached = _read_cache(path)
    if cached is not None:
        return cached
    lexicon = build_lexicon(*data)
    _write_cache(folder, path, lexicon)
    return lexicon


@functools.lru_cache(maxsize=1)
def load_lexicon() -> Lexicon:
    """The lexicon built from the shipped data, read once per process (from the user's cache when valid)."""
    return cached_lexicon(os.environ)
