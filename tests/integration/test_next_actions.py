"""Every next action runs as written: the commands the CLI suggests (JSON and text alike) are run through a
real shell from another folder, and must answer (status ok) on the segment they name, never build an index
where they were run. The MCP side (each next action a valid tool call) is in test_mcp.py."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from trifecta.domain.contract import Response

BIN = Path(sys.executable).parent  # this interpreter's `trifecta` first on PATH, as a user's install would be
HEADER = "sym://python/type/shop/checkout/parse_http_header"

# commands whose answers carry next actions: hits, zero hits, skeletons, snippets, and the errors that
# point somewhere (not found, ambiguous, a file where a definition was expected, no embedder)
SEEDS: list[list[str]] = [
    ["ctx", "search", "-q", "parse an HTTP header line"],
    ["ctx", "search", "-q", "reserve stock", "-n", "3"],
    ["ctx", "search", "-q", "zzqxv_nothing_like_this"],
    ["ctx", "search", "-q", "config", "--mode", "lexical"],
    ["ctx", "search", "-q", "how do we connect", "--mode", "semantic"],
    ["ctx", "search", "-q", "sym://python/type/shop/checkout/no_such_thing"],
    ["ast", "symbols", "sym://python/mod/shop/checkout"],
    ["ast", "symbols", "sym://python/type/shop/inventory/Inventory"],
    ["ast", "symbols", "sym://python/mod/utils"],
    ["ast", "symbols", "sym://python/mod/nowhere/accounts"],
    ["ast", "snippet", HEADER],
    ["ast", "snippet", "sym://python/type/shop/checkout/no_such_thing"],
    ["ast", "snippet", "sym://python/mod/shop/checkout"],
    ["ctx", "get", "--path", "shop/checkout.py"],
]


def shell(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", "TRIFECTA_WORKERS": "1"}
    return subprocess.run(
        ["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=60
    )


def _json(proc: subprocess.CompletedProcess[str]) -> dict:
    assert proc.stdout.startswith("{"), (proc.args, proc.returncode, proc.stderr)
    data = json.loads(proc.stdout)
    Response.from_dict(data)
    return data


def _text_actions(proc: subprocess.CompletedProcess[str]) -> list[str]:
    lines = (proc.stdout + proc.stderr).splitlines()
    return [line.split("next: ", 1)[1] for line in lines if line.lstrip("# ").startswith("next: ")]


@pytest.mark.timeout(240)
def test_every_suggested_command_runs_verbatim_from_another_folder(sample_repo: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    segment = str(sample_repo.resolve())
    suggested: dict[str, str] = {}  # command -> what suggested it
    for seed in SEEDS:
        words = ["trifecta", *seed, "--segment", segment]
        json_actions = _json(shell(shlex.join([*words, "--json"]), elsewhere))["next_actions"]
        if seed in TEXT_TOO:  # the same commands whichever way the answer is shown
            assert _text_actions(shell(shlex.join(words), elsewhere)) == json_actions, seed
        for action in json_actions:
            assert action.startswith("trifecta ") and action.count(f"--segment {segment}") <= 1, action
            suggested.setdefault(action, " ".join(seed))
    assert len(suggested) >= 12, suggested  # the seeds did produce a fair set of actions

    # run each one as written, and the actions those answers suggest in turn (one level more)
    ran: set[str] = set()
    queue = list(suggested)
    while queue and len(ran) < 60:
        action = queue.pop(0)
        if action in ran:
            continue
        ran.add(action)
        proc = shell(action, elsewhere)
        assert proc.returncode == 0, f"{action!r} (from {suggested[action]!r}): {proc.stderr}"
        if suggested[action] in SEEDS_TEXT:  # follow the first level's suggestions too
            for nxt in _text_actions(proc):
                suggested.setdefault(nxt, action)
                queue.append(nxt)
    print(f"{len(ran)} commands run")
    assert not (elsewhere / ".trifecta").exists()  # nothing was indexed where the commands ran
    assert os.listdir(elsewhere) == []


SEEDS_TEXT = {" ".join(seed) for seed in SEEDS}
TEXT_TOO = [SEEDS[0], SEEDS[6], SEEDS[8], SEEDS[10], SEEDS[13]]  # search, skeleton, error, snippet, get
