"""Runs the PhysX probe (ovphysx_probe.py) in a child process and returns its JSON report.

Kept apart from conftest.py so other test folders can import it under a unique module name
(several folders have a conftest.py, so `from conftest import ...` is ambiguous).
"""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

PROBE_SCRIPT = Path(__file__).resolve().with_name("ovphysx_probe.py")
# A probe loads a stage in about a second; two minutes means PhysX hung.
PROBE_TIMEOUT_S = 120.0


def ovphysx_available() -> bool:
    """Whether ovphysx is installed, found without importing it into the calling process."""
    return importlib.util.find_spec("ovphysx") is not None and importlib.util.find_spec("ovstage") is not None


def run_ovphysx_probe(stage: str | os.PathLike, *, steps: int = 0, dt: float = 1.0 / 60.0) -> dict:
    """The probe's report for one stage after `steps` steps of `dt` [s].

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


CONTACTS_SCRIPT = Path(__file__).resolve().with_name("ovphysx_contacts.py")


def run_ovphysx_contacts(stage: str | os.PathLike, *, steps: int, dt: float) -> dict:
    """PhysX's contact report at every one of `steps` steps of `dt` [s] (ovphysx_contacts.py):
    the stage's rigid bodies that carry PhysxContactReportAPI are the sensors.

    Raises RuntimeError with the script's stderr when it exits non-zero or prints no JSON.
    """
    command = [sys.executable, str(CONTACTS_SCRIPT), str(stage), "--steps", str(steps), "--dt", repr(dt)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=PROBE_TIMEOUT_S, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"ovphysx contact report failed on {stage} (exit {done.returncode}): {done.stderr[-2000:]}")
    try:
        return json.loads(done.stdout)
    except json.JSONDecodeError as error:
        raise RuntimeError(f"ovphysx contact report printed no JSON for {stage}: {done.stdout[:500]!r}") from error
