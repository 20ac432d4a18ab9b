"""Settings: defaults < the user's config < `<segment>/.trifecta/config.toml` < `TRIFECTA_*` environment <
explicit options (the facade's keyword arguments).

The user's config is `$TRIFECTA_CONFIG_HOME/config.toml`, else `$XDG_CONFIG_HOME/trifecta/config.toml`, else
`~/.config/trifecta/config.toml`, with the same sections. A segment's config is the repository's, not the
user's: unless the user trusted the segment (`trifecta trust`, TRIFECTA_TRUST=1, option
trust_segment_config=True), these settings from it are ignored, listed in `Settings.untrusted` and reported
as a CONFIG_UNTRUSTED warning:
    [index] db_path outside .trifecta/, [embedding] model_path outside the segment,
    [embedding] provider = "openai", api_url, api_key_env, [query_rewrite] api_url, api_key_env, [lsp] command
A segment's secret_patterns add to the defaults (or the user's list) and never remove one; its max_file_bytes
is capped at 8 MiB; workers is capped at 32 for everybody. Whatever the source but the user's, the index
(and its -wal/-shm siblings) must resolve inside a real `.trifecta/` folder: a symlink out is a ConfigError.

[index]                      TRIFECTA_DB, TRIFECTA_DB_URL, TRIFECTA_SEGMENT_ID, TRIFECTA_MAX_FILE_BYTES,
                             TRIFECTA_WORKERS
db_path = ".trifecta/index.db"   # relative to the segment, or absolute
db_url = "postgresql://..."      # a shared PostgreSQL index instead of the file (user config, env, option
                                 # only: a repository's own config cannot send its code to a server)
segment_id = "name"              # the segment's key in a shared index (default: the folder's name);
                                 # with db_url, searches do not refresh unless auto_refresh is set
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
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from ..domain.contract import Notice, WarningCode
from .chat_rewriter import DEFAULT_API_URL as DEFAULT_REWRITE_URL
from .chat_rewriter import DEFAULT_MODEL as DEFAULT_REWRITE_MODEL
from .chat_rewriter import DEFAULT_TIMEOUT as DEFAULT_REWRITE_TIMEOUT
from .file_source import DEFAULT_MAX_FILE_BYTES, DEFAULT_SECRET_PATTERNS
from .telemetry import TELEMETRY_DIR
from .trust import (
    USER_CONFIG_FILE,
    TrustStore,
    UnsafeConfigFile,
    digest,
    parse_toml,
    read_small_file,
    user_config_dir,
)

CONFIG_DIR = ".trifecta"
CONFIG_FILE = "config.toml"


class ConfigError(ValueError):
    """A setting that cannot be used, with the reason."""


@attrs.frozen(kw_only=True)
class Settings:
    segment: Path
    db_path: Path
    db_url: str = ""  # postgresql://...: the shared index (postgres_store) instead of db_path
    segment_id: str = ""  # the segment's key in a shared index
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
    # the segment config's settings ignored because only the user (or a trusted segment) may set them
    untrusted: tuple[str, ...] = ()
    trust_outdated: bool = False  # the segment was trusted, but its config file changed since


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
    options = {k: v for k, v in (options or {}).items() if v is not None}
    trust_option = options.pop("trust_segment_config", None)
    root = Path(segment).expanduser().resolve()
    if not root.is_dir():
        raise ConfigError(f"segment {str(segment)!r} is not a directory")
    user_dir = user_config_dir(env)
    user_raw = _flatten(_read_config(user_dir / USER_CONFIG_FILE)) if user_dir else {}
    config_bytes = _segment_config_bytes(root)
    segment_raw = _flatten(_parse(config_bytes, root / CONFIG_DIR / CONFIG_FILE))
    env_raw = _env_settings(env)

    trust = _Trust(root, digest(config_bytes), trust_option, env, user_dir)
    kept, untrusted = _restrict(segment_raw, root, trust)
    raw: dict[str, Any] = {**user_raw, **kept, **env_raw, **options}
    if "secret_patterns" in kept and "secret_patterns" not in env_raw and "secret_patterns" not in options:
        base = (
            _patterns(user_raw["secret_patterns"])
            if "secret_patterns" in user_raw
            else DEFAULT_SECRET_PATTERNS
        )
        raw["secret_patterns"] = base + tuple(p for p in _patterns(kept["secret_patterns"]) if p not in base)

    known = {f.name for f in attrs.fields(Settings)} - {"segment", "untrusted", "trust_outdated"}
    unknown = sorted(set(raw) - known)
    if unknown:
        raise ConfigError(f"unknown setting(s): {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    from_user = (
        "db_path" in options or "db_path" in env_raw or ("db_path" in user_raw and "db_path" not in kept)
    )
    values: dict[str, Any] = {
        "segment": root,
        "db_path": _db_path(raw.pop("db_path", f"{CONFIG_DIR}/index.db"), root, from_user=from_user),
        "untrusted": tuple(untrusted),
        "trust_outdated": bool(untrusted) and trust.outdated,
    }
    _check_inside(root / CONFIG_DIR / TELEMETRY_DIR, root / CONFIG_DIR, "the telemetry folder")
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
        values["workers"] = min(_int(raw["workers"], "workers"), MAX_WORKERS)
    for key in ("lint", "auto_refresh", "watch_files", "telemetry"):
        if key in raw:
            values[key] = _bool(raw[key], key)
    if "refresh_interval" in raw:
        values["refresh_interval"] = _seconds(
            raw["refresh_interval"], "refresh_interval", most=3600, zero_ok=True
        )
    for key in ("exclude", "secret_patterns"):
        if key in raw:
            values[key] = _patterns(raw[key])
    values.update(_shared_index(raw, root))
    values.update(_embedding(raw, root))
    values.update(_rewrite(raw))
    values.update(_lsp(raw))
    return Settings(**values)


# ---------------------------------------------------------------------------------------------- trust
MAX_WORKERS = 32  # parser processes, for everybody: more only thrash a machine
SEGMENT_MAX_FILE_BYTES = (
    8 << 20
)  # a segment's own config may raise max_file_bytes this far; the user, further
USER_ONLY = {  # settings a segment may set only when trusted: commands, endpoints, credentials
    "embed_api_url",
    "embed_api_key_env",
    "rewrite_api_url",
    "rewrite_api_key_env",
    "lsp_command",
    "db_url",  # where the code goes, as an endpoint
    "segment_id",  # which segment of a shared index is overwritten
}
SECTIONS = {"embed": "embedding", "rewrite": "query_rewrite", "lsp": "lsp", "telemetry": "telemetry"}
INDEX_KEYS = ("db_path", "db_url", "segment_id", "max_file_bytes", "exclude", "secret_patterns", "workers")


def config_key(key: str) -> str:
    """A setting as it is written in config.toml: `embed_api_url` -> `[embedding] api_url`."""
    if key == "telemetry":
        return "[telemetry] enabled"
    prefix, _, rest = key.partition("_")
    if prefix in SECTIONS and rest:
        return f"[{SECTIONS[prefix]}] {rest}"
    section = "index" if key in INDEX_KEYS else "budget" if key.startswith("max_") else "search"
    return f"[{section}] {key}"


class _Trust:
    """Whether the segment's config is trusted: the facade option, else TRIFECTA_TRUST, else the trust store
    (an entry for this segment whose sha256 matches the config file). Asked only when it matters."""

    def __init__(
        self, root: Path, sha: str, option: object, env: Mapping[str, str], user_dir: Path | None
    ) -> None:
        self.root, self.sha, self.option, self.env, self.user_dir = root, sha, option, env, user_dir
        self.outdated = False  # trusted once, but the config file changed since
        self._answer: bool | None = None

    def __bool__(self) -> bool:
        if self._answer is None:
            self._answer = self._ask()
        return self._answer

    def _ask(self) -> bool:
        if self.option is not None:
            return _bool(self.option, "trust_segment_config")
        if self.env.get("TRIFECTA_TRUST", "") != "":
            return _bool(self.env["TRIFECTA_TRUST"], "TRIFECTA_TRUST")
        if self.user_dir is None:
            return False
        try:
            entry = TrustStore(self.user_dir).find(self.root)
        except UnsafeConfigFile as exc:
            raise ConfigError(f"the trust file: {exc}") from None
        if entry is None:
            return False
        self.outdated = entry.config_sha256 != self.sha
        return not self.outdated


def _restrict(raw: Mapping[str, Any], root: Path, trusted: _Trust) -> tuple[dict[str, Any], list[str]]:
    """The segment config's settings the segment may set, and the names of those ignored because only the
    user (or a trusted segment) may set them. Ignoring rather than failing keeps a cloned repository usable."""
    kept: dict[str, Any] = {}
    ignored: list[str] = []
    for key, value in raw.items():
        if _needs_trust(key, value, root) and not trusted:
            if key == "max_file_bytes":  # capped rather than dropped
                kept[key] = SEGMENT_MAX_FILE_BYTES
                ignored.append(f"{config_key(key)} (capped at {SEGMENT_MAX_FILE_BYTES})")
            else:
                ignored.append(config_key(key))
            continue
        kept[key] = value
    onnx = str(kept.get("embed_provider", "")).strip().lower() == "onnx"
    if onnx and "embed_model_path" in raw and "embed_model_path" not in kept:
        del kept["embed_provider"]  # its model was outside the segment: no provider rather than an error
        ignored.append(config_key("embed_provider"))
    return kept, ignored


def _needs_trust(key: str, value: Any, root: Path) -> bool:
    if key in USER_ONLY:
        return True
    if key == "embed_provider":  # "openai" sends the code to api_url: the user chooses where code goes
        return str(value).strip().lower() == "openai"
    if key == "db_path":
        return not _lexically_inside(value, root / CONFIG_DIR, root)
    if key == "embed_model_path":
        return not _lexically_inside(value, root, root) or not (root / str(value)).resolve().is_relative_to(
            root
        )
    if key == "max_file_bytes":
        try:
            return int(str(value)) > SEGMENT_MAX_FILE_BYTES
        except ValueError:
            return False  # not a number: _int() says so
    return False


def _lexically_inside(value: object, folder: Path, root: Path) -> bool:
    """A relative path (no `~`), taken from the segment `root`, that stays inside `folder` once `..` are folded."""
    text = str(value)
    if not text or Path(text).is_absolute() or text.startswith("~"):
        return False
    joined = Path(os.path.normpath(root / text))
    return joined != folder and joined.is_relative_to(folder)


def _db_path(value: object, root: Path, *, from_user: bool) -> Path:
    """The index file. The user's choice (user config, environment, options) is taken as given (`~` expanded,
    relative to the segment). The default or a segment's choice must stay inside `.trifecta/` once every
    symlink is resolved, the database and its -wal/-shm/-journal siblings alike: a repository cannot make a
    search overwrite a file of the user's."""
    text = str(value)
    if from_user:
        path = Path(text).expanduser()
        return path if path.is_absolute() else root / path
    folder = root / CONFIG_DIR
    if not _lexically_inside(text, folder, root):
        raise ConfigError(
            f"db_path {text!r} in {folder / CONFIG_FILE} is outside {folder}: a segment's config may only place "
            "the index inside .trifecta/; set db_path in your own config or with TRIFECTA_DB instead"
        )
    path = root / text
    for candidate in (path, *(path.with_name(path.name + s) for s in ("-wal", "-shm", "-journal"))):
        _check_inside(candidate, folder, "the index file")
    return path


def _check_inside(path: Path, folder: Path, what: str) -> None:
    real_folder = folder.resolve()
    real = path.resolve()
    if not real.is_relative_to(real_folder):
        raise ConfigError(
            f"{what} {path} resolves to {real}, outside {real_folder} (a symlink): Trifecta never writes there; "
            "remove the symlink, or set db_path in your own config or with TRIFECTA_DB"
        )


def _segment_config_bytes(root: Path) -> bytes | None:
    """The segment's config.toml, read safely: `.trifecta` must be a real folder (a symlink is refused, since
    the index and telemetry are written there), and config.toml a regular file inside the segment."""
    folder = root / CONFIG_DIR
    try:
        info = os.lstat(folder)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(info.st_mode):
        raise ConfigError(
            f"{folder} is a symlink (to {os.readlink(folder)}): Trifecta writes its index and telemetry only "
            "into a real .trifecta folder inside the segment; replace the link with a folder"
        )
    file = folder / CONFIG_FILE
    if file.is_symlink() and not file.resolve().is_relative_to(root):
        raise ConfigError(f"{file} is a symlink to {file.resolve()}, outside the segment; it is not read")
    try:
        return read_small_file(file)
    except UnsafeConfigFile as exc:
        raise ConfigError(str(exc)) from None


def segment_config_digest(segment: str | os.PathLike[str]) -> str:
    """The sha256 `trifecta trust` binds trust to ("" when the segment has no config file)."""
    return digest(_segment_config_bytes(Path(segment).resolve()))


def untrusted_notice(settings: Settings) -> Notice | None:
    """The CONFIG_UNTRUSTED warning every answer carries while the segment's config asks for more than it may."""
    if not settings.untrusted:
        return None
    command = f"trifecta trust {shlex.quote(str(settings.segment))}"
    changed = " It was trusted, but the file changed since." if settings.trust_outdated else ""
    return Notice(
        code=WarningCode.CONFIG_UNTRUSTED,
        message=(
            f"ignored from {settings.segment / CONFIG_DIR / CONFIG_FILE}: {', '.join(settings.untrusted)} "
            f"(only your own config, TRIFECTA_* variables or options may set these).{changed} If you trust "
            f"this repository, run `{command}` (trust covers this content of the file: run it again after "
            "the file changes)."
        ),
        data={"ignored": list(settings.untrusted), "trust_command": command},
    )


def _read_config(path: Path) -> dict[str, Any]:
    try:
        data = read_small_file(path)
    except UnsafeConfigFile as exc:
        raise ConfigError(str(exc)) from None
    return _parse(data, path)


def _parse(data: bytes | None, path: Path) -> dict[str, Any]:
    if data is None:
        return {}
    try:
        return parse_toml(data, path)
    except UnsafeConfigFile as exc:
        raise ConfigError(str(exc)) from None


def _flatten(doc: Mapping[str, Any]) -> dict[str, Any]:
    """A config document's sections as Settings names."""
    raw: dict[str, Any] = {}
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
    return raw


def _env_settings(env: Mapping[str, str]) -> dict[str, Any]:
    env_map = {
        "TRIFECTA_DB": "db_path",
        "TRIFECTA_DB_URL": "db_url",
        "TRIFECTA_SEGMENT_ID": "segment_id",
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
    raw: dict[str, Any] = {key: env[var] for var, key in env_map.items() if env.get(var, "") != ""}
    if env.get("TRIFECTA_NO_TELEMETRY", "") != "":
        raw["telemetry"] = not _bool(env["TRIFECTA_NO_TELEMETRY"], "TRIFECTA_NO_TELEMETRY")
    return raw


def _patterns(value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(v for v in value.split(",") if v.strip())
    if isinstance(value, list | tuple):
        return tuple(str(v) for v in value)
    raise ConfigError(f"a pattern list must be a list of strings, got {value!r}")


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


def _shared_index(raw: Mapping[str, Any], root: Path) -> dict[str, Any]:
    """db_url (a postgresql:// URL) and segment_id (default: the segment folder's name). With a shared index
    a search does not refresh it unless auto_refresh says so: an indexer (a CI job) keeps it fresh, and a
    search machine may have no checkout at all."""
    url = str(raw.get("db_url", "") or "").strip()
    if not url:
        return {}
    if not url.startswith(("postgresql://", "postgres://")):
        raise ConfigError("[index] db_url must be a postgresql:// URL")
    segment_id = str(raw.get("segment_id", "") or "").strip() or root.name
    values: dict[str, Any] = {"db_url": url, "segment_id": segment_id}
    if "auto_refresh" not in raw:
        values["auto_refresh"] = False
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
