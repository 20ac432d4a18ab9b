"""Both JSON profiles of a search, as the CLI prints them, against golden files (TRIFECTA_UPDATE_GOLDEN=1
rewrites them): `--profile full` the whole envelope, `--profile brief` what an agent needs to choose."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from trifecta.domain.contract import Response

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
EXE = str(Path(sys.executable).parent / "trifecta")
VOLATILE = {"took_ms", "built_at", "engines", "latency_ms"}


def normalize(value: Any, segment: str) -> Any:
    if isinstance(value, dict):
        return {k: "<volatile>" if k in VOLATILE else normalize(v, segment) for k, v in value.items()}
    if isinstance(value, list):
        return [normalize(v, segment) for v in value]
    return value.replace(segment, "<SEGMENT>") if isinstance(value, str) else value


@pytest.mark.timeout(120)
@pytest.mark.parametrize("profile", ["full", "brief"])
def test_search_envelope_of_each_profile_matches_its_golden_file(sample_repo: Path, profile: str) -> None:
    segment = str(sample_repo.resolve())
    args = ["ctx", "search", "-q", "parse an HTTP header line", "-n", "3", "-x", "1", "--json", "-s", segment]
    proc = subprocess.run(
        [EXE, *args, "--profile", profile], capture_output=True, text=True, timeout=60, cwd=sample_repo.parent
    )
    assert proc.returncode == 0, proc.stderr
    envelope = json.loads(proc.stdout)
    Response.from_dict(envelope)  # either profile decodes into the typed model
    actual = normalize(envelope, segment)
    golden = GOLDEN / f"search_{profile}.json"
    if os.environ.get("TRIFECTA_UPDATE_GOLDEN") == "1":
        golden.write_text(json.dumps(actual, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    assert actual == json.loads(golden.read_text(encoding="utf-8"))
    hit = envelope["data"]["hits"][0]
    assert hit["source"].startswith("def parse_http_header")  # expanded in either profile
    assert envelope["data"]["expanded"]["bytes"] <= envelope["data"]["expanded"]["budget"]
