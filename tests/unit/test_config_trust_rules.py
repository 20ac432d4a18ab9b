"""The trust model for configuration: what a repository's own `.trifecta/config.toml` may set, the user's
config file, the trust store, and reading config files safely (no FIFO, no symlink out, no huge file)."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trifecta.domain.contract import WarningCode
from trifecta.infrastructure.config import (
    MAX_WORKERS,
    SEGMENT_MAX_FILE_BYTES,
    ConfigError,
    Settings,
    load_settings,
    segment_config_digest,
    untrusted_notice,
)
from trifecta.infrastructure.file_source import DEFAULT_SECRET_PATTERNS
from trifecta.infrastructure.trust import TrustStore, user_config_dir


@pytest.fixture
def seg(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".trifecta").mkdir(parents=True)
    return root


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """The user's config folder, in a temp dir (never the real home)."""
    folder = tmp_path / "config-home"
    folder.mkdir()
    return folder


def write_segment(seg: Path, text: str) -> None:
    (seg / ".trifecta" / "config.toml").write_text(text)


def attrs_default(field: str) -> object:
    return next(f.default for f in attrs.fields(Settings) if f.name == field)


def env_for(home: Path, **extra: str) -> dict[str, str]:
    return {"TRIFECTA_CONFIG_HOME": str(home), **extra}


# --- where the user's config lives --------------------------------------------------------------------------


def test_user_config_dir_from_the_given_environment(tmp_path: Path) -> None:
    assert user_config_dir({"TRIFECTA_CONFIG_HOME": "/a", "XDG_CONFIG_HOME": "/b", "HOME": "/c"}) == Path(
        "/a"
    )
    assert user_config_dir({"XDG_CONFIG_HOME": "/b", "HOME": "/c"}) == Path("/b/trifecta")
    assert user_config_dir({"HOME": "/c"}) == Path("/c/.config/trifecta")
    assert user_config_dir({}) is None  # an explicit empty environment reads no user config


def test_user_config_is_honoured_for_every_setting(seg: Path, home: Path, tmp_path: Path) -> None:
    db = tmp_path / "elsewhere" / "index.db"
    (home / "config.toml").write_text(
        f'[index]\ndb_path = "{db}"\nmax_file_bytes = {64 << 20}\n'
        '[embedding]\nprovider = "openai"\napi_url = "https://embed.example/v1"\napi_key_env = "MY_KEY"\n'
        '[lsp]\ncommand = "my-ls --stdio"\n[search]\nlint = true\n'
    )
    s = load_settings(seg, env=env_for(home))
    assert s.db_path == db and s.max_file_bytes == 64 << 20 and s.lint is True
    assert (s.embed_provider, s.embed_api_url, s.embed_api_key_env) == (
        "openai",
        "https://embed.example/v1",
        "MY_KEY",
    )
    assert s.lsp_command == ("my-ls", "--stdio") and s.untrusted == ()
    # the same file through XDG_CONFIG_HOME and HOME
    xdg = tmp_path / "xdg"
    (xdg / "trifecta").mkdir(parents=True)
    (xdg / "trifecta" / "config.toml").write_text("[search]\nlint = true\n")
    assert load_settings(seg, env={"XDG_CONFIG_HOME": str(xdg)}).lint is True
    (tmp_path / "h" / ".config" / "trifecta").mkdir(parents=True)
    (tmp_path / "h" / ".config" / "trifecta" / "config.toml").write_text("[budget]\nmax_snippets = 9\n")
    assert load_settings(seg, env={"HOME": str(tmp_path / "h")}).max_snippets == 9


def test_user_db_path_expands_home(seg: Path, home: Path, tmp_path: Path) -> None:
    (home / "config.toml").write_text('[index]\ndb_path = "~/idx/index.db"\n')
    s = load_settings(seg, env=env_for(home, HOME=str(tmp_path)))
    assert s.db_path == Path("~/idx/index.db").expanduser()


# --- precedence ---------------------------------------------------------------------------------------------

LAYERS = ("user", "segment", "env", "option")


@settings(max_examples=40, deadline=None)
@given(present=st.fixed_dictionaries({layer: st.booleans() for layer in LAYERS}))
def test_precedence_defaults_user_segment_env_options(
    tmp_path_factory: Any, present: dict[str, bool]
) -> None:
    """Each layer sets max_bytes_total to its own value; the highest layer present wins, else the default."""
    root = tmp_path_factory.mktemp("p")
    seg, home = root / "seg", root / "home"
    (seg / ".trifecta").mkdir(parents=True)
    home.mkdir()
    value = {layer: 1000 * (i + 1) for i, layer in enumerate(LAYERS)}
    env = env_for(home)
    options: dict[str, Any] = {}
    if present["user"]:
        (home / "config.toml").write_text(f"[budget]\nmax_bytes_total = {value['user']}\n")
    if present["segment"]:
        write_segment(seg, f"[budget]\nmax_bytes_total = {value['segment']}\n")
    if present["env"]:
        env["TRIFECTA_MAX_BYTES"] = str(value["env"])
    if present["option"]:
        options["max_bytes_total"] = value["option"]
    winners = [layer for layer in LAYERS if present[layer]]
    expected = value[winners[-1]] if winners else 32_000
    assert load_settings(seg, options, env=env).max_bytes_total == expected


@settings(max_examples=40, deadline=None)
@given(
    present=st.fixed_dictionaries({layer: st.booleans() for layer in LAYERS}),
    trusted=st.booleans(),
)
def test_precedence_of_a_user_only_setting(
    tmp_path_factory: Any, present: dict[str, bool], trusted: bool
) -> None:
    """The same for [lsp] command, except that an untrusted segment's value never counts."""
    root = tmp_path_factory.mktemp("q")
    seg, home = root / "seg", root / "home"
    (seg / ".trifecta").mkdir(parents=True)
    home.mkdir()
    env = env_for(home, **({"TRIFECTA_TRUST": "1"} if trusted else {}))
    options: dict[str, Any] = {}
    if present["user"]:
        (home / "config.toml").write_text("[lsp]\ncommand = 'user-ls'\n")
    if present["segment"]:
        write_segment(seg, "[lsp]\ncommand = 'segment-ls'\n")
    if present["env"]:
        env["TRIFECTA_LSP_COMMAND"] = "env-ls"
    if present["option"]:
        options["lsp_command"] = "option-ls"
    counted = [layer for layer in LAYERS if present[layer] and (layer != "segment" or trusted)]
    expected = f"{counted[-1]}-ls" if counted else "jedi-language-server"
    s = load_settings(seg, options, env=env)
    assert s.lsp_command == (expected,)
    assert s.untrusted == (("[lsp] command",) if present["segment"] and not trusted else ())


@pytest.mark.parametrize(
    ("user", "segment", "env", "option", "expected"),
    [
        (None, None, None, None, 32_000),
        (1000, None, None, None, 1000),
        (1000, 2000, None, None, 2000),
        (1000, 2000, "3000", None, 3000),
        (1000, 2000, "3000", 4000, 4000),
        (None, 2000, None, 4000, 4000),
        (1000, None, "3000", None, 3000),
    ],
)
def test_precedence_table(
    seg: Path,
    home: Path,
    user: int | None,
    segment: int | None,
    env: str | None,
    option: int | None,
    expected: int,
) -> None:
    if user is not None:
        (home / "config.toml").write_text(f"[budget]\nmax_bytes_total = {user}\n")
    if segment is not None:
        write_segment(seg, f"[budget]\nmax_bytes_total = {segment}\n")
    variables = env_for(home, **({"TRIFECTA_MAX_BYTES": env} if env else {}))
    options = {"max_bytes_total": option} if option is not None else None
    assert load_settings(seg, options, env=variables).max_bytes_total == expected


# --- what a segment may not set -----------------------------------------------------------------------------

USER_ONLY = [
    ("[embedding]\napi_url = 'http://attacker/v1'\n", "embed_api_url", "[embedding] api_url"),
    ("[embedding]\napi_key_env = 'GITHUB_TOKEN'\n", "embed_api_key_env", "[embedding] api_key_env"),
    ("[embedding]\nprovider = 'openai'\n", "embed_provider", "[embedding] provider"),
    ("[query_rewrite]\napi_url = 'http://attacker/v1/chat'\n", "rewrite_api_url", "[query_rewrite] api_url"),
    ("[query_rewrite]\napi_key_env = 'GITHUB_TOKEN'\n", "rewrite_api_key_env", "[query_rewrite] api_key_env"),
    ("[lsp]\ncommand = ['touch', '/tmp/pwned']\n", "lsp_command", "[lsp] command"),
    ("[index]\ndb_path = '/home/u/notes.txt'\n", "db_path", "[index] db_path"),
    ("[index]\ndb_path = '~/notes.txt'\n", "db_path", "[index] db_path"),
    ("[index]\ndb_path = '../../notes.txt'\n", "db_path", "[index] db_path"),
    ("[index]\ndb_path = 'index.db'\n", "db_path", "[index] db_path"),  # the segment root, not .trifecta/
    ("[embedding]\nmodel_path = '/opt/models/x'\n", "embed_model_path", "[embedding] model_path"),
    ("[embedding]\nmodel_path = '../models/x'\n", "embed_model_path", "[embedding] model_path"),
]


@pytest.mark.parametrize(("text", "field", "name"), USER_ONLY)
def test_an_untrusted_segment_cannot_set_user_only_settings(
    seg: Path, home: Path, text: str, field: str, name: str
) -> None:
    write_segment(seg, text)
    s = load_settings(seg, env=env_for(home))
    default = seg.resolve() / ".trifecta" / "index.db" if field == "db_path" else attrs_default(field)
    assert getattr(s, field) == default
    assert name in s.untrusted  # recorded, not an error: a cloned repository still works
    notice = untrusted_notice(s)
    assert notice is not None and notice.code is WarningCode.CONFIG_UNTRUSTED
    assert name in notice.message and f"trifecta trust {seg.resolve()}" in notice.message


@pytest.mark.parametrize(
    ("text", "field", "value"),
    [
        ("[embedding]\napi_url = 'http://other/v1'\n", "embed_api_url", "http://other/v1"),
        ("[embedding]\napi_key_env = 'GITHUB_TOKEN'\n", "embed_api_key_env", "GITHUB_TOKEN"),
        ("[query_rewrite]\napi_key_env = 'K'\n", "rewrite_api_key_env", "K"),
        ("[lsp]\ncommand = ['pylsp']\n", "lsp_command", ("pylsp",)),
        ("[embedding]\nmodel_path = '/opt/models/x'\n", "embed_model_path", Path("/opt/models/x")),
    ],
)
@pytest.mark.parametrize("how", ["env", "option", "store"])
def test_a_trusted_segment_may_set_them(
    seg: Path, home: Path, text: str, field: str, value: object, how: str
) -> None:
    write_segment(seg, text)
    env = env_for(home)
    options: dict[str, Any] = {}
    if how == "env":
        env["TRIFECTA_TRUST"] = "1"
    elif how == "option":
        options["trust_segment_config"] = True
    else:
        TrustStore(home).trust(seg, segment_config_digest(seg))
    s = load_settings(seg, options, env=env)
    assert getattr(s, field) == value and s.untrusted == ()


def test_untrusted_means_no_warning_when_nothing_restricted_is_set(seg: Path, home: Path) -> None:
    write_segment(
        seg, "[search]\nlint = true\n[index]\nexclude = ['docs/']\ndb_path = '.trifecta/other.db'\n"
    )
    s = load_settings(seg, env=env_for(home))
    assert s.lint and s.exclude == ("docs/",) and s.db_path == seg.resolve() / ".trifecta" / "other.db"
    assert s.untrusted == () and untrusted_notice(s) is None


def test_an_onnx_model_inside_the_segment_is_allowed_outside_it_drops_the_provider(
    seg: Path, home: Path
) -> None:
    write_segment(seg, "[embedding]\nprovider = 'onnx'\nmodel_path = 'models/mini'\n")
    s = load_settings(seg, env=env_for(home))
    assert s.embed_provider == "onnx" and s.embed_model_path == seg.resolve() / "models" / "mini"
    write_segment(seg, "[embedding]\nprovider = 'onnx'\nmodel_path = '/opt/model'\n")
    s = load_settings(seg, env=env_for(home))  # no ConfigError ("onnx needs model_path"): no embedder
    assert s.embed_provider == "none" and s.embed_model_path is None
    assert set(s.untrusted) == {"[embedding] model_path", "[embedding] provider"}


def test_a_trusted_segment_still_cannot_put_the_index_outside_trifecta(seg: Path, home: Path) -> None:
    write_segment(seg, "[index]\ndb_path = '/tmp/elsewhere.db'\n")
    with pytest.raises(ConfigError, match="inside .trifecta"):
        load_settings(seg, env=env_for(home, TRIFECTA_TRUST="1"))


def test_an_env_setting_wins_over_an_ignored_segment_one(seg: Path, home: Path, tmp_path: Path) -> None:
    write_segment(seg, "[index]\ndb_path = '/home/u/notes.txt'\n")
    s = load_settings(seg, env=env_for(home, TRIFECTA_DB=str(tmp_path / "mine.db")))
    assert s.db_path == tmp_path / "mine.db"


# --- caps and secret patterns -------------------------------------------------------------------------------


def test_secret_patterns_from_a_segment_only_add(seg: Path, home: Path) -> None:
    write_segment(seg, "[index]\nsecret_patterns = []\n")
    assert load_settings(seg, env=env_for(home)).secret_patterns == DEFAULT_SECRET_PATTERNS
    write_segment(seg, "[index]\nsecret_patterns = ['*.vault', '.env']\n")
    s = load_settings(seg, env=env_for(home, TRIFECTA_TRUST="1"))  # even trusted: never removes one
    assert s.secret_patterns == (*DEFAULT_SECRET_PATTERNS, "*.vault")


def test_the_user_may_replace_secret_patterns(seg: Path, home: Path) -> None:
    (home / "config.toml").write_text("[index]\nsecret_patterns = ['*.mine']\n")
    assert load_settings(seg, env=env_for(home)).secret_patterns == ("*.mine",)
    write_segment(seg, "[index]\nsecret_patterns = ['*.theirs']\n")
    assert load_settings(seg, env=env_for(home)).secret_patterns == ("*.mine", "*.theirs")
    assert load_settings(seg, {"secret_patterns": ["x"]}, env=env_for(home)).secret_patterns == ("x",)


def test_max_file_bytes_from_a_segment_is_capped(seg: Path, home: Path) -> None:
    write_segment(seg, f"[index]\nmax_file_bytes = {1 << 30}\n")
    s = load_settings(seg, env=env_for(home))
    assert s.max_file_bytes == SEGMENT_MAX_FILE_BYTES
    assert any(u.startswith("[index] max_file_bytes") for u in s.untrusted)
    write_segment(seg, f"[index]\nmax_file_bytes = {2 << 20}\n")
    assert load_settings(seg, env=env_for(home)).max_file_bytes == 2 << 20  # under the cap: as set
    assert load_settings(seg, {"max_file_bytes": 1 << 30}, env={}).max_file_bytes == 1 << 30  # the user: any


def test_workers_are_capped_for_everybody(seg: Path) -> None:
    assert load_settings(seg, {"workers": 10_000}, env={}).workers == MAX_WORKERS
    write_segment(seg, "[index]\nworkers = 3\n")
    assert load_settings(seg, env={}).workers == 3


# --- the trust store ----------------------------------------------------------------------------------------


def test_trust_is_bound_to_the_config_content(seg: Path, home: Path) -> None:
    write_segment(seg, "[lsp]\ncommand = ['pylsp']\n")
    store = TrustStore(home)
    store.trust(seg, segment_config_digest(seg))
    assert load_settings(seg, env=env_for(home)).lsp_command == ("pylsp",)
    write_segment(seg, "[lsp]\ncommand = ['touch', '/tmp/pwned']\n")  # a git pull changed it
    s = load_settings(seg, env=env_for(home))
    assert s.lsp_command == ("jedi-language-server",) and s.trust_outdated
    notice = untrusted_notice(s)
    assert notice is not None and "changed since" in notice.message
    store.trust(seg, segment_config_digest(seg))
    assert load_settings(seg, env=env_for(home)).lsp_command == ("touch", "/tmp/pwned")
    assert [e.path for e in store.entries()] == [str(seg.resolve())]  # one entry per segment
    assert store.remove(seg) and not store.remove(seg)
    assert load_settings(seg, env=env_for(home)).untrusted == ("[lsp] command",)


def test_trust_option_false_overrides_the_store(seg: Path, home: Path) -> None:
    write_segment(seg, "[lsp]\ncommand = ['pylsp']\n")
    TrustStore(home).trust(seg, segment_config_digest(seg))
    s = load_settings(seg, {"trust_segment_config": False}, env=env_for(home))
    assert s.untrusted == ("[lsp] command",)
    assert load_settings(seg, env=env_for(home, TRIFECTA_TRUST="0")).untrusted == ("[lsp] command",)


def test_trust_store_keeps_odd_paths_and_survives_many_entries(tmp_path: Path, home: Path) -> None:
    store = TrustStore(home)
    odd = tmp_path / 'we"ird\\ name\x7f\t'
    odd.mkdir()
    for i in range(20):
        (tmp_path / f"s{i}").mkdir()
        store.trust(tmp_path / f"s{i}", f"{i:064x}")
    store.trust(odd, "")
    entries = {e.path: e.config_sha256 for e in store.entries()}
    assert len(entries) == 21 and entries[str(odd.resolve())] == ""
    assert not list(home.glob(".trusted-*"))  # no temp file left behind


def test_a_broken_trust_file_is_a_config_error(seg: Path, home: Path) -> None:
    write_segment(seg, "[lsp]\ncommand = ['pylsp']\n")
    (home / "trusted.toml").write_text("[[segment]\n")
    with pytest.raises(ConfigError, match="trust file"):
        load_settings(seg, env=env_for(home))


# --- reading config files safely ----------------------------------------------------------------------------


def test_a_symlinked_trifecta_folder_is_refused(tmp_path: Path) -> None:
    seg = tmp_path / "repo"
    seg.mkdir()
    (tmp_path / "outside").mkdir()
    (seg / ".trifecta").symlink_to(tmp_path / "outside")
    with pytest.raises(ConfigError, match="symlink"):
        load_settings(seg, env={})


@pytest.mark.parametrize("name", ["index.db", "index.db-wal", "index.db-shm", "index.db-journal"])
def test_an_index_file_symlinked_out_is_refused(seg: Path, tmp_path: Path, name: str) -> None:
    victim = tmp_path / "notes.txt"
    victim.write_text("mine\n")
    (seg / ".trifecta" / name).symlink_to(victim)
    with pytest.raises(ConfigError, match="outside"):
        load_settings(seg, env=env_for(tmp_path, TRIFECTA_TRUST="1"))
    assert victim.read_text() == "mine\n"


def test_a_db_path_through_a_symlinked_folder_is_refused(seg: Path, tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    (seg / ".trifecta" / "sub").symlink_to(tmp_path / "out")
    write_segment(seg, "[index]\ndb_path = '.trifecta/sub/index.db'\n")
    with pytest.raises(ConfigError, match="outside"):
        load_settings(seg, env={})


def test_a_symlinked_telemetry_folder_is_refused(seg: Path, tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    (seg / ".trifecta" / "telemetry").symlink_to(tmp_path / "out")
    with pytest.raises(ConfigError, match="telemetry"):
        load_settings(seg, env={})


@pytest.mark.timeout(10)
def test_a_fifo_config_is_refused_without_blocking(seg: Path) -> None:
    os.mkfifo(seg / ".trifecta" / "config.toml")
    started = time.monotonic()
    with pytest.raises(ConfigError, match="not a regular file"):
        load_settings(seg, env={})
    assert time.monotonic() - started < 2


@pytest.mark.timeout(10)
def test_a_config_symlinked_out_of_the_segment_is_refused(seg: Path) -> None:
    (seg / ".trifecta" / "config.toml").symlink_to("/dev/zero")
    with pytest.raises(ConfigError, match="outside the segment"):
        load_settings(seg, env={})


def test_a_config_symlinked_inside_the_segment_is_read(seg: Path) -> None:
    (seg / "shared.toml").write_text("[search]\nlint = true\n")
    (seg / ".trifecta" / "config.toml").symlink_to(seg / "shared.toml")
    assert load_settings(seg, env={}).lint is True


@pytest.mark.timeout(10)
def test_a_huge_config_is_refused(seg: Path, home: Path) -> None:
    write_segment(seg, "# " + "x" * (2 << 20) + "\n")
    with pytest.raises(ConfigError, match="at most"):
        load_settings(seg, env={})
    os.mkfifo(home / "config.toml")  # the user's file gets the same care
    with pytest.raises(ConfigError, match="not a regular file"):
        load_settings(seg.parent, env=env_for(home))


@pytest.mark.parametrize("section", ["index", "search", "lsp"])
def test_a_segment_cannot_trust_itself(seg: Path, home: Path, section: str) -> None:
    write_segment(seg, f"[{section}]\ntrust_segment_config = true\n")
    with pytest.raises(ConfigError, match="unknown setting"):
        load_settings(seg, env=env_for(home))
