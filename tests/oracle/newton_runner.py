"""Runs the Newton probe (newton_probe.py) in a child process: warp compiles and caches kernels and
Newton registers its own USD schemas, which stay out of the test process that way."""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

PROBE_SCRIPT = Path(__file__).resolve().with_name("newton_probe.py")
# First use compiles warp kernels (measured 5-50 s per module); later loads take about a second.
PROBE_TIMEOUT_S = 900.0


def newton_available() -> bool:
    """Whether newton, newton-usd-schemas and warp are installed (the `oracle-newton` extra)."""
    return all(importlib.util.find_spec(name) is not None for name in ("newton", "newton_usd_schemas", "warp"))


def run_newton_probe(stages) -> dict[str, dict]:
    """Newton's report for each stage, keyed by the path as given."""
    stages = [str(s) for s in stages]
    if not stages:
        return {}
    completed = subprocess.run([sys.executable, str(PROBE_SCRIPT), *stages], capture_output=True, text=True,
                               timeout=PROBE_TIMEOUT_S, env={**os.environ, "PYTHONWARNINGS": "ignore"})
    if completed.returncode != 0:
        raise RuntimeError(f"newton probe failed ({completed.returncode}): {completed.stderr[-2000:]}")
    reports = {}
    for line in completed.stdout.splitlines():
        line = line.strip()
        if line.startswith("{"):
            report = json.loads(line)
            reports[report["stage"]] = report
    missing = [s for s in stages if s not in reports]
    if missing:
        raise RuntimeError(f"newton probe printed no report for {missing[:3]}: {completed.stderr[-2000:]}")
    return reports
