"""Settings: defaults < `<segment>/.trifecta/config.toml` < `TRIFECTA_*` environment < explicit options.

[index]                      TRIFECTA_DB, TRIFECTA_MAX_FILE_BYTES, TRIFECTA_WORKERS
db_path = ".trifecta/index.db"   # relative to the segment, or absolute
max_file_bytes = 1048576
exclude = ["*.min.js"]           # gitignore syntax, on top of .gitignore/.trifectaignore
secret_patterns = [...]          # files never indexed (default: .env*, *.pem, *.key, id_rsa*, ...)
workers = 2                      # parser processes (default: CPU count, at most 4)

[search]                     TRIFECTA_LINT (1/true/0/false), TRIFECTA_AUTO_REFRESH
lint = false                     # query linter expansion (query-linter.md, off by default)
auto_refresh = true              # refresh the index incrementally before each search

[budget]                     TRIFECTA_MAX_BYTES
max_bytes_total = 32000
max_snippet_bytes = 2000
max_snippets = 5
max_lines_per_snippet = 50
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from .file_source import DEFAULT_MAX_FILE_BYTES, DEFAULT_SECRET_PATTERNS

CONFIG_DIR = ".trifecta"
CONFIG_FILE = "config.toml"


class ConfigError(ValueError):
    """A setting that cannot be used, with the reason."""


@attrs.frozen(kw_only=True)
class Settings:
    segment: Path
    db_path: Path
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    exclude: tuple[str, ...] = ()
    secret_patterns: tuple[str, ...] = DEFAULT_SECRET_PATTERNS
    workers: int | None = None
    lint: bool = False
    auto_refresh: bool = True
    max_bytes_total: int = 32_000
    max_snippet_bytes: int = 2_000
    max_snippets: int = 5
    max_lines_per_snippet: int = 50


def _bool(value: object, name: str) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off", ""):
        return False
    raise ConfigError(f"{name} must be true or false, got {value!r}")


def _int(value: object, name: str) -> int:
    try:
        number = int(str(value))
    except ValueError:
        raise ConfigError(f"{name} must be an integer, got {value!r}") from None
    if number <= 0:
        raise ConfigError(f"{name} must be positive, got {number}")
    return number


def load_settings(
    segment: str | os.PathLike[str],
    options: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
) -> Settings:
    env = os.environ if env is None else env
    root = Path(segment).expanduser().resolve()
    if not root.is_dir():
        raise ConfigError(f"segment {str(segment)!r} is not a directory")
    raw: dict[str, Any] = {}
    config_file = root / CONFIG_DIR / CONFIG_FILE
    if config_file.is_file():
        try:
            doc = tomllib.loads(config_file.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{config_file}: {exc}") from None
        for section in ("index", "search", "budget"):
            table = doc.get(section, {})
            if isinstance(table, dict):
                raw.update(table)
    env_map = {
        "TRIFECTA_DB": "db_path",
        "TRIFECTA_MAX_FILE_BYTES": "max_file_bytes",
        "TRIFECTA_WORKERS": "workers",
        "TRIFECTA_LINT": "lint",
        "TRIFECTA_AUTO_REFRESH": "auto_refresh",
        "TRIFECTA_MAX_BYTES": "max_bytes_total",
    }
    for var, key in env_map.items():
        if env.get(var, "") != "":
            raw[key] = env[var]
    for key, value in (options or {}).items():
        if value is not None:
            raw[key] = value

    known = {f.name for f in attrs.fields(Settings)} - {"segment"}
    unknown = sorted(set(raw) - known)
    if unknown:
        raise ConfigError(f"unknown setting(s): {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    db = Path(str(raw.pop("db_path", f"{CONFIG_DIR}/index.db"))).expanduser()
    values: dict[str, Any] = {"segment": root, "db_path": db if db.is_absolute() else root / db}
    for key in (
        "max_file_bytes",
        "max_bytes_total",
        "max_snippet_bytes",
        "max_snippets",
        "max_lines_per_snippet",
    ):
        if key in raw:
            values[key] = _int(raw[key], key)
    if "workers" in raw:
        values["workers"] = _int(raw["workers"], "workers")
    for key in ("lint", "auto_refresh"):
        if key in raw:
            values[key] = _bool(raw[key], key)
    for key in ("exclude", "secret_patterns"):
        if key in raw:
            value = raw[key]
            if isinstance(value, str):
                value = [v for v in value.split(",") if v.strip()]
            values[key] = tuple(str(v) for v in value)
    return Settings(**values)
