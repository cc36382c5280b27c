"""The fuzzer's hang clock, on processes whose state is known by construction.

Oracle: the process's own behaviour. A child blocked in sleep(2) (in the kernel, never runnable)
is a blocked case; a child spinning in a loop uses CPU time, and is a hang once it has used the
timeout's worth; neither is one before the timeout has passed in wall time. The clock reads
/proc, so the checks are for Linux.
"""
from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from fuzz import campaign  # noqa: E402

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")


def _child(code: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", code], start_new_session=True)


def _verdict(clock, limit: float) -> tuple[str | None, float]:
    """Poll as the campaign does (every 0.5 s) until a verdict or ``limit`` seconds."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        why = clock.verdict(time.monotonic())
        if why:
            return why, time.monotonic() - clock.started
        time.sleep(0.5)
    return None, limit


def test_a_blocked_process_is_a_hang_after_the_timeout():
    proc = _child("import time; time.sleep(120)")
    try:
        clock = campaign.HangClock(proc.pid, timeout=1.0)
        assert clock.verdict(time.monotonic()) is None
        why, waited = _verdict(clock, 60)
        assert why is not None and why.startswith("blocked"), why
        assert waited >= 1.0
    finally:
        proc.kill()
        proc.wait()


def test_a_spinning_process_is_a_hang_once_it_used_the_timeout_of_cpu(monkeypatch):
    monkeypatch.setattr(campaign, "WALL_LIMIT", 1000)  # a loaded machine may starve the child
    proc = _child("while True: pass")
    try:
        clock = campaign.HangClock(proc.pid, timeout=1.0)
        why, _ = _verdict(clock, 300)
        assert why is not None and "CPU time" in why, why
        usage = campaign.group_usage(proc.pid)
        assert usage is not None and usage[0] - clock.cpu0 >= 1.0
    finally:
        proc.kill()
        proc.wait()


def test_the_group_counts_a_waited_child_s_cpu():
    """A case's CPU time includes the children its worker ran and waited for (the binary-layer
    probe, the command-line runs): utime + stime + cutime + cstime of the group."""
    proc = _child("import subprocess, sys, time\n"
                  "subprocess.run([sys.executable, '-c', 'x = 0\\nfor i in range(3 * 10**7): x += i'])\n"
                  "time.sleep(120)")
    try:
        before = campaign.group_usage(proc.pid)
        assert before is not None
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            usage = campaign.group_usage(proc.pid)
            if usage and usage[0] - before[0] > 0.5 and not usage[1]:
                break
            time.sleep(0.5)
        assert usage[0] - before[0] > 0.5, usage
    finally:
        proc.kill()
        proc.wait()
