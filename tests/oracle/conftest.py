"""The `ovphysx_probe` fixture: what PhysX (ovphysx, CPU) reads from a stage, as a dict.

The probe runs in its own Python process (tests/oracle/ovphysx_probe.py): PhysX keeps process-wide
state, routes its log and stdout, and brings its own USD; a child process keeps all of that away
from the test process and from pxr. Results are cached for the whole session, keyed by the stage
file (path, size, modification time) and the run settings, so many tests can ask about the same
stage for the price of one load.
"""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

PROBE_SCRIPT = Path(__file__).with_name("ovphysx_probe.py")
DATA_DIR = Path(__file__).resolve().parents[1] / "data" / "usd"
# A probe loads a stage in about a second; a minute means PhysX hung.
PROBE_TIMEOUT_S = 120.0


def ovphysx_available() -> bool:
    """Whether ovphysx is installed, found without importing it into the test process."""
    return importlib.util.find_spec("ovphysx") is not None and importlib.util.find_spec("ovstage") is not None


def run_ovphysx_probe(stage: str | os.PathLike, *, steps: int = 0, dt: float = 1.0 / 60.0) -> dict:
    """Runs the probe on one stage in a child process and returns its JSON report.

    Raises RuntimeError with the probe's stderr when it exits non-zero or prints no JSON.
    """
    command = [sys.executable, str(PROBE_SCRIPT), str(stage), "--steps", str(steps), "--dt", repr(dt)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=PROBE_TIMEOUT_S, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"ovphysx probe failed on {stage} (exit {done.returncode}): {done.stderr[-2000:]}")
    try:
        return json.loads(done.stdout)
    except json.JSONDecodeError as error:
        raise RuntimeError(f"ovphysx probe printed no JSON for {stage}: {done.stdout[:500]!r}") from error


@pytest.fixture(scope="session")
def ovphysx_probe():
    """`probe(stage, *, steps=0, dt=1/60) -> dict`: the probe's report for a stage, cached.

    Skips the test when ovphysx is not installed (the `oracle` extra).
    """
    if not ovphysx_available():
        pytest.skip("ovphysx is not installed (pip install usdjoints[oracle])")
    cache: dict[tuple, dict] = {}

    def probe(stage: str | os.PathLike, *, steps: int = 0, dt: float = 1.0 / 60.0) -> dict:
        path = Path(stage).resolve()
        status = path.stat()
        key = (str(path), status.st_size, status.st_mtime_ns, int(steps), float(dt))
        if key not in cache:
            cache[key] = run_ovphysx_probe(path, steps=steps, dt=dt)
        return cache[key]

    return probe


@pytest.fixture(scope="session")
def oracle_stage_dir() -> Path:
    """tests/data/usd: the PhysX behaviour stages, copied so the tests run from a bare clone."""
    return DATA_DIR
