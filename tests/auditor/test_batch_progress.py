"""Batch progress: rate and ETA, redrawn at most every 0.25 s, on or off with --[no-]progress.

Oracle: a scripted clock (rate = done / elapsed, ETA = remaining / rate by hand) and the
command's stderr.
"""
from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import usdjoints  # noqa: F401
from usdjoints.progress import RateProgress

REPO = Path(__file__).resolve().parents[2]


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_rate_eta_and_throttle():
    clock, stream = Clock(), io.StringIO()
    bar = RateProgress("audit", 1000, unit="stages", stream=stream, clock=clock)
    clock.now += 2.0
    bar(100)  # 50 stages/s, 900 left: 18 s
    first = stream.getvalue()
    assert "100/1000 stages" in first and "50/s" in first and "ETA 0:18" in first
    for step in range(1, 10):  # nine calls within 0.09 s: no redraw
        clock.now += 0.01
        bar(100 + step)
    assert stream.getvalue() == first
    clock.now += 0.2
    bar(120)
    assert stream.getvalue().count("\r") == 2
    clock.now = 120.0
    bar(1000)  # the end is always drawn
    bar.close()
    last = stream.getvalue().rsplit("\r", 1)[1]
    assert "1000/1000 stages" in last and "in 0:20" in last and last.endswith("\n")


def _audit(*flags):
    done = subprocess.run([sys.executable, "-c", "import sys; from usdjoints.cli import main; sys.exit(main(sys.argv[1:]))",
                           "audit", str(REPO / "sample_stages" / "bad"), "--format", "json", *flags],
                          capture_output=True, timeout=300, env={"PYTHONPATH": str(REPO), "PATH": ""})
    # bytes, decoded by hand: text mode would turn the bar's carriage returns into newlines
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode(), done.stderr.decode())


def test_progress_flag_on_and_off():
    shown = _audit("--progress", "--jobs", "2")
    assert shown.returncode == 1 and "audit [" in shown.stderr and "/s" in shown.stderr
    n_bad = len(list((REPO / "sample_stages" / "bad").glob("*.usda")))
    assert shown.stderr.rstrip("\n").rsplit("\r", 1)[1].startswith(
        f"audit [##############################] {n_bad}/{n_bad} stages")
    hidden = _audit("--no-progress")
    assert hidden.returncode == 1 and "audit [" not in hidden.stderr
    assert hidden.stdout == shown.stdout
