"""A library process that opens an engine before numpy is loaded gets numpy with one OpenBLAS thread (a search
over stored postings imports it): a thread per core spun for tens of ms of CPU after the import, in every new
process. The user's own setting, or a numpy loaded before, is left alone."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

_CHILD = """
import json, os, sys
before = sys.argv[2] == "numpy-first"
if before:
    import numpy
import trifecta
engine = trifecta.open(sys.argv[1])
import numpy  # as a search over stored postings would
print(json.dumps({"blas": os.environ.get("OPENBLAS_NUM_THREADS"), "threads": len(os.listdir("/proc/self/task"))}))
"""


def _child(segment: Path, order: str, blas: str | None) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if blas is not None:
        env["OPENBLAS_NUM_THREADS"] = blas
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, str(segment), order],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=True,
    )
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


@pytest.mark.timeout(240)
@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="counts threads in /proc")
def test_an_engine_opened_first_gets_numpy_with_one_blas_thread(sample_repo: Path) -> None:
    assert _child(sample_repo, "engine-first", None) == {"blas": "1", "threads": 1}
    assert _child(sample_repo, "engine-first", "2")["blas"] == "2"  # the user's choice
    first = _child(sample_repo, "numpy-first", None)
    assert first["blas"] is None  # numpy was loaded with the host's own setting: nothing to change
    if (os.cpu_count() or 1) > 1:
        assert int(str(first["threads"])) > 1  # what one thread saves: numpy's own pool
