"""The binary-layer probe's bounds: a damaged crate is refused in one line within a time and a
memory limit (``USDJOINTS_PROBE_TIMEOUT``, ``USDJOINTS_PROBE_MEMORY_MB``), never a long wait.

Oracle: OpenUSD's own crate reader on the same file. Under an address-space limit of the probe's
default 2048 MB it refuses the repro at once with ``std::bad_alloc`` (it asks for a 10 GB
section); with no limit it takes tens of seconds (measured 35 s and 10 GB resident; not rerun
here, the machine is shared).
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import time

from samples import REPO, TESTS

CLI = [sys.executable, "-m", "usdjoints"]
HUGE_SECTION = TESTS / "fuzz" / "repros" / "crate_insert_10gb_section.usdc"


def run(*argv, env=None, timeout=120):
    environment = dict(os.environ, **(env or {}))
    return subprocess.run([*CLI, *map(str, argv)], capture_output=True, text=True, timeout=timeout, cwd=REPO,
                          env=environment)


def one_line(result) -> str:
    assert result.returncode == 2, result
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr and "internal error" not in result.stderr, lines
    assert len(re.sub(r"/[^ :()]+", "/F", lines[0])) < 200, lines[0]
    return lines[0]


def test_openusd_asks_for_gigabytes_reading_the_repro():
    code = ("import resource, sys; resource.setrlimit(resource.RLIMIT_AS, (2048 * 10**6, resource.RLIM_INFINITY))\n"
            "from pxr import Sdf, Tf\n"
            "try:\n    Sdf.Layer.OpenAsAnonymous(sys.argv[1])\nexcept Tf.ErrorException as e:\n    print(e)\n")
    done = subprocess.run([sys.executable, "-c", code, str(HUGE_SECTION)], capture_output=True, text=True, timeout=120)
    assert "bad_alloc" in done.stdout + done.stderr


def test_a_crate_declaring_gigabytes_is_refused_within_the_memory_limit(tmp_path):
    crate = tmp_path / "damaged.usdc"
    crate.write_bytes(HUGE_SECTION.read_bytes())
    started = time.monotonic()
    for command in ("walk", "audit"):
        line = one_line(run(command, crate))
        assert f"{crate}: OpenUSD asked for more than 2048 MB reading this binary layer" in line
        assert "USDJOINTS_PROBE_MEMORY_MB" in line
    assert time.monotonic() - started < 60  # about 2 s each; 35 s each without the limit
    assert crate.read_bytes() == HUGE_SECTION.read_bytes()


def test_the_cpu_time_limit_refuses_a_crate_the_probe_cannot_read_in_time(tmp_path):
    """A sound 15,000-joint crate (1.4 MB) takes the probe about 3 s of CPU time: a 1 s limit
    refuses it, in one line naming the limit; the default limit reads it."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    from make_chain_stage import make_chain_stage

    crate = make_chain_stage(tmp_path / "chain.usdc", 15000, chain_length=20)
    started = time.monotonic()
    line = one_line(run("walk", crate, env={"USDJOINTS_PROBE_TIMEOUT": "0.1"}))
    assert f"{crate}: OpenUSD did not finish reading this binary layer in 1 s of CPU time" in line
    assert "USDJOINTS_PROBE_TIMEOUT" in line
    assert time.monotonic() - started < 60
    assert run("walk", crate).returncode == 0


def test_limits_that_are_not_positive_numbers_are_one_line(tmp_path):
    from pxr import Sdf

    crate = tmp_path / "arm.usdc"
    Sdf.Layer.FindOrOpen(str(REPO / "sample_stages" / "arm_articulation.usda")).Export(str(crate))
    for name, value in (("USDJOINTS_PROBE_TIMEOUT", "soon"), ("USDJOINTS_PROBE_MEMORY_MB", "-1"),
                        ("USDJOINTS_PROBE_TIMEOUT", "inf")):
        line = one_line(run("walk", crate, env={name: value}))
        assert f"{name} must be a positive number" in line
