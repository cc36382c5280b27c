"""A multiple-apply API schema listed without an instance name (apiSchemas = ["PhysicsDriveAPI"]).

Oracle: OpenUSD itself. Its schema registry refuses to add such a schema to the prim's definition
(it prints "can not be added to a prim definition without an instance name" from C++, straight
to file descriptor 2) and leaves it out of ``GetAppliedSchemas()``, so no consumer reads the
drive. The walker reports it as ``nameless-instance`` and OpenUSD's raw warning no longer reaches
the user's terminal (it printed through ``--quiet``).
"""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from usdjoints.walker import walk

BAD = Path(__file__).resolve().parents[2] / "sample_stages" / "bad" / "nameless-instance.usda"


def _nameless(description) -> list:
    return [d for d in description.diagnostics if d.code == "nameless-instance"]


def test_openusd_drops_the_schema():
    from pxr import Usd

    stage = Usd.Stage.Open(str(BAD))
    prim = stage.GetPrimAtPath("/World/J")
    assert "PhysicsDriveAPI" in prim.GetMetadata("apiSchemas").ApplyOperations([])
    assert not any(s.startswith("PhysicsDriveAPI") for s in prim.GetAppliedSchemas())


def test_reported_on_every_stage_of_a_process(tmp_path):
    # OpenUSD warns once per process and prim definition: the second stage gets no warning
    second = tmp_path / "again.usda"
    shutil.copyfile(BAD, second)
    for path in (BAD, second):
        found = _nameless(walk(str(path)))
        assert [(d.prim, d.severity) for d in found] == [("/World/J", "warning")]
        assert "PhysicsDriveAPI" in found[0].message


def test_raw_openusd_warning_is_held_back():
    done = subprocess.run([sys.executable, "-m", "usdjoints", "walk", str(BAD), "--quiet"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "without an instance name" not in done.stderr
    assert "PhysicsDriveAPI is applied without an instance name" in done.stdout
