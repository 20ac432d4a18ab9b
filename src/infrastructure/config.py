"""Settings: defaults < `<segment>/.trifecta/config.toml` < `TRIFECTA_*` environment < explicit options.

[index]                      TRIFECTA_DB, TRIFECTA_MAX_FILE_BYTES, TRIFECTA_WORKERS
db_path = ".trifecta/index.db"   # relative to the segment, or absolute
max_file_bytes = 1048576
exclude = ["*.min.js"]           # gitignore syntax, on top of .gitignore/.trifectaignore
secret_patterns = [...]          # files never indexed (default: .env*, *.pem, *.key, id_rsa*, ...)
workers = 2                      # parser processes (default: CPU count, at most 4)

[search]                     TRIFECTA_LINT (1/true/0/false), TRIFECTA_AUTO_REFRESH, TRIFECTA_REFRESH_INTERVAL,
                             TRIFECTA_WATCH_FILES
lint = false                     # query linter expansion (query-linter.md, off by default)
auto_refresh = true              # refresh the index incrementally before each search
refresh_interval = 0             # seconds a stat scan stays good within one process (0: check on every search;
                                 # a change the file watch saw is never put off); unset: 0 for the library and
                                 # CLI, 1.0 in the long-lived MCP server
watch_files = true               # Linux: an inotify watch on the listed folders lets a freshness check skip
                                 # the stat scan while nothing changed (false: always scan, e.g. on NFS)

[budget]                     TRIFECTA_MAX_BYTES
max_bytes_total = 32000
max_snippet_bytes = 2000
max_snippets = 5
max_lines_per_snippet = 50

[embedding]                  TRIFECTA_EMBED_PROVIDER, TRIFECTA_EMBED_API_URL, TRIFECTA_EMBED_MODEL,
                             TRIFECTA_EMBED_MODEL_PATH, TRIFECTA_EMBED_BATCH_SIZE, TRIFECTA_EMBED_TIMEOUT,
                             TRIFECTA_EMBED_API_KEY_ENV (options: embed_provider, embed_api_url, ...)
provider = "none"                # "none" | "openai" (POST {api_url}/embeddings) | "onnx" (local model folder)
api_url = "http://localhost:11434/v1"   # openai: Ollama's OpenAI-compatible API by default
model = "nomic-embed-text"       # openai: the model name the server knows
model_path = "models/minilm"     # onnx: folder with model.onnx + tokenizer.json (relative to the segment)
batch_size = 32                  # texts per request / per model run
timeout = 30.0                   # seconds per request
api_key_env = "OPENAI_API_KEY"   # openai: the variable holding a bearer token (default "": none sent)

[telemetry]                  TRIFECTA_NO_TELEMETRY=1 turns it off (options: telemetry, telemetry_max_bytes)
enabled = true                   # JSONL call events under <segment>/.trifecta/telemetry/ (`ctx stats`)
max_bytes = 2000000              # rotate the event file past this size; 2 older files are kept

[query_rewrite]              TRIFECTA_REWRITE (1/0), TRIFECTA_REWRITE_API_URL, TRIFECTA_REWRITE_MODEL,
                             TRIFECTA_REWRITE_TIMEOUT, TRIFECTA_REWRITE_API_KEY_ENV (options: rewrite_enabled, ...)
enabled = false                  # rewrite natural-language questions automatically (--rewrite forces one anyway)
api_url = "http://localhost:11434/v1/chat/completions"   # any OpenAI-compatible chat completions endpoint
model = "qwen2.5:3b"
timeout = 5.0                    # wall-clock seconds for the whole model call
api_key_env = ""                 # the variable holding a bearer token for hosted APIs ("" sends none)

[lsp]                        TRIFECTA_LSP_COMMAND, TRIFECTA_LSP_TIMEOUT (options: lsp_command, lsp_timeout)
command = "jedi-language-server" # the server for ast hover / ast refs, over stdio (a string or a list)
timeout = 10.0                   # seconds for start-up + initialize, and for each request
"""

from __future__ import annotations

import os
import shlex
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from .chat_rewriter import DEFAULT_API_URL as DEFAULT_REWRITE_URL
from .chat_rewriter import DEFAULT_MODEL as DEFAULT_REWRITE_MODEL
from .chat_rewriter import DEFAULT_TIMEOUT as DEFAULT_REWRITE_TIMEOUT
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
    refresh_interval: float | None = None  # None: the caller's default (facade.Engine)
    watch_files: bool = True
    max_bytes_total: int = 32_000
    max_snippet_bytes: int = 2_000
    max_snippets: int = 5
    max_lines_per_snippet: int = 50
    embed_provider: str = "none"
    embed_api_url: str = "http://localhost:11434/v1"
    embed_model: str = "nomic-embed-text"
    embed_model_path: Path | None = None
    embed_batch_size: int = 32
    embed_timeout: float = 30.0
    embed_api_key_env: str = ""
    telemetry: bool = True
    telemetry_max_bytes: int = 2_000_000
    rewrite_enabled: bool = False
    rewrite_api_url: str = DEFAULT_REWRITE_URL
    rewrite_model: str = DEFAULT_REWRITE_MODEL
    rewrite_timeout: float = DEFAULT_REWRITE_TIMEOUT
    rewrite_api_key_env: str = ""
    lsp_command: tuple[str, ...] = ("jedi-language-server",)
    lsp_timeout: float = 10.0


def _bool(value: object, name: str) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off", ""):
        return False
    raise ConfigError(f"{name} must be true or false, got {value!r}")


def _seconds(value: object, name: str, *, most: float, zero_ok: bool = False) -> float:
    """A duration in seconds within (0, most], or [0, most] when zero means "off"; NaN and booleans never pass."""
    try:
        seconds = float(str(value)) if not isinstance(value, bool) else float("nan")
    except ValueError:
        seconds = float("nan")
    low_ok = seconds >= 0 if zero_ok else seconds > 0
    if not (low_ok and seconds <= most):  # also false for NaN
        low = "0" if zero_ok else "more than 0"
        raise ConfigError(f"{name} must be a number of seconds from {low} to {most:g}, got {value!r}")
    return seconds


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
        embedding = doc.get("embedding", {})
        if isinstance(embedding, dict):  # [embedding] keys are short; settings carry an embed_ prefix
            raw.update({f"embed_{k}": v for k, v in embedding.items()})
        telemetry = doc.get("telemetry", {})
        if isinstance(telemetry, dict):  # [telemetry] enabled / max_bytes
            raw.update({"telemetry" if k == "enabled" else f"telemetry_{k}": v for k, v in telemetry.items()})
        rewrite = doc.get("query_rewrite", {})
        if isinstance(rewrite, dict):  # [query_rewrite] keys carry a rewrite_ prefix in Settings
            raw.update({f"rewrite_{k}": v for k, v in rewrite.items()})
        lsp_table = doc.get("lsp", {})
        if isinstance(lsp_table, dict):  # [lsp] command / timeout
            raw.update({f"lsp_{k}": v for k, v in lsp_table.items()})
    env_map = {
        "TRIFECTA_DB": "db_path",
        "TRIFECTA_MAX_FILE_BYTES": "max_file_bytes",
        "TRIFECTA_WORKERS": "workers",
        "TRIFECTA_LINT": "lint",
        "TRIFECTA_AUTO_REFRESH": "auto_refresh",
        "TRIFECTA_REFRESH_INTERVAL": "refresh_interval",
        "TRIFECTA_WATCH_FILES": "watch_files",
        "TRIFECTA_MAX_BYTES": "max_bytes_total",
    }
    env_map.update({f"TRIFECTA_{k.upper()}": k for k in EMBED_KEYS})
    env_map.update(
        {"TRIFECTA_REWRITE" if k == "rewrite_enabled" else f"TRIFECTA_{k.upper()}": k for k in REWRITE_KEYS}
    )
    env_map.update({"TRIFECTA_LSP_COMMAND": "lsp_command", "TRIFECTA_LSP_TIMEOUT": "lsp_timeout"})
    for var, key in env_map.items():
        if env.get(var, "") != "":
            raw[key] = env[var]
    if env.get("TRIFECTA_NO_TELEMETRY", "") != "":
        raw["telemetry"] = not _bool(env["TRIFECTA_NO_TELEMETRY"], "TRIFECTA_NO_TELEMETRY")
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
        "telemetry_max_bytes",
    ):
        if key in raw:
            values[key] = _int(raw[key], key)
    if "workers" in raw:
        values["workers"] = _int(raw["workers"], "workers")
    for key in ("lint", "auto_refresh", "watch_files", "telemetry"):
        if key in raw:
            values[key] = _bool(raw[key], key)
    if "refresh_interval" in raw:
        values["refresh_interval"] = _seconds(
            raw["refresh_interval"], "refresh_interval", most=3600, zero_ok=True
        )
    for key in ("exclude", "secret_patterns"):
        if key in raw:
            value = raw[key]
            if isinstance(value, str):
                value = [v for v in value.split(",") if v.strip()]
            values[key] = tuple(str(v) for v in value)
    values.update(_embedding(raw, root))
    values.update(_rewrite(raw))
    values.update(_lsp(raw))
    return Settings(**values)


EMBED_KEYS = (
    "embed_provider",
    "embed_api_url",
    "embed_model",
    "embed_model_path",
    "embed_batch_size",
    "embed_timeout",
    "embed_api_key_env",
)
EMBED_PROVIDERS = ("none", "openai", "onnx")


def _embedding(raw: Mapping[str, Any], root: Path) -> dict[str, Any]:
    """The [embedding] settings, checked: a provider that cannot work is a ConfigError, not a silent fallback."""
    values: dict[str, Any] = {}
    provider = str(raw.get("embed_provider", "none")).strip().lower()
    if provider not in EMBED_PROVIDERS:
        raise ConfigError(
            f"[embedding] provider must be one of {', '.join(EMBED_PROVIDERS)}, got {provider!r}"
        )
    values["embed_provider"] = provider
    for key in ("embed_api_url", "embed_model", "embed_api_key_env"):
        if key in raw:
            values[key] = str(raw[key]).strip()
    url = values.get("embed_api_url", "http://")
    if not url.startswith(("http://", "https://")):
        raise ConfigError(f"[embedding] api_url must start with http:// or https://, got {url!r}")
    if "embed_model" in values and not values["embed_model"]:
        raise ConfigError("[embedding] model must not be empty")
    if "embed_batch_size" in raw:
        values["embed_batch_size"] = _int(raw["embed_batch_size"], "[embedding] batch_size")
    if "embed_timeout" in raw:
        values["embed_timeout"] = _seconds(raw["embed_timeout"], "[embedding] timeout", most=3600)
    if str(raw.get("embed_model_path", "")).strip():
        path = Path(str(raw["embed_model_path"])).expanduser()
        values["embed_model_path"] = path if path.is_absolute() else root / path
    if provider == "onnx" and "embed_model_path" not in values:
        raise ConfigError(
            "[embedding] provider 'onnx' needs model_path: a folder holding model.onnx and tokenizer.json"
        )
    return values


REWRITE_KEYS = (
    "rewrite_enabled",
    "rewrite_api_url",
    "rewrite_model",
    "rewrite_timeout",
    "rewrite_api_key_env",
)


def _rewrite(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The [query_rewrite] settings, checked, so a typo is a ConfigError rather than a rewrite that never works."""
    values: dict[str, Any] = {}
    if "rewrite_enabled" in raw:
        values["rewrite_enabled"] = _bool(raw["rewrite_enabled"], "[query_rewrite] enabled")
    for key in ("rewrite_api_url", "rewrite_model", "rewrite_api_key_env"):
        if key in raw:
            if not isinstance(raw[key], str):
                raise ConfigError(f"[query_rewrite] {key[8:]} must be a string, got {raw[key]!r}")
            values[key] = raw[key].strip()
    url = values.get("rewrite_api_url", DEFAULT_REWRITE_URL)
    if not url.startswith(("http://", "https://")) or len(url) <= len("https://"):
        raise ConfigError(f"[query_rewrite] api_url must be an http:// or https:// URL, got {url!r}")
    if "rewrite_model" in values and not values["rewrite_model"]:
        raise ConfigError("[query_rewrite] model must not be empty")
    if "rewrite_timeout" in raw:
        values["rewrite_timeout"] = _seconds(raw["rewrite_timeout"], "[query_rewrite] timeout", most=600)
    return values


def _lsp(raw: Mapping[str, Any]) -> dict[str, Any]:
    """``lsp_command`` as an argument list (a string is split shell-style) and ``lsp_timeout`` in seconds."""
    values: dict[str, Any] = {}
    if "lsp_command" in raw:
        command = raw["lsp_command"]
        try:
            parts = shlex.split(command) if isinstance(command, str) else [str(c) for c in command]
        except (TypeError, ValueError) as exc:
            raise ConfigError(
                f"lsp_command must be a command line or a list, got {command!r}: {exc}"
            ) from None
        if not parts or not parts[0].strip():
            raise ConfigError("lsp_command must name a program, got an empty command")
        values["lsp_command"] = tuple(parts)
    if "lsp_timeout" in raw:
        values["lsp_timeout"] = _seconds(raw["lsp_timeout"], "lsp_timeout", most=3600)
    return values
