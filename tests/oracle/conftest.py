"""The `ovphysx_probe` fixture: what PhysX (ovphysx, CPU) reads from a stage, as a dict.

The probe runs in its own Python process (see ovphysx_runner.py): PhysX keeps process-wide state,
writes to the process's stdout and brings its own USD; a child process keeps all of that away
from the test process and from pxr. Reports are cached for the whole pytest run, keyed by the stage
file (path, size, modification time) and the run settings, so many tests can ask about the same
stage for the price of one load.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from ovphysx_runner import ovphysx_available, run_ovphysx_probe


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
