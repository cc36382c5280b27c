"""A prim applying thousands of API schemas (10,000 instances of PhysicsDriveAPI on one joint).

Oracle: OpenUSD itself. It builds a prim's definition, on the first read of the prim's schemas or
of any of its properties, in time growing with the square of the schemas applied to it: 1,000
PhysicsDriveAPI instances take 2 s, 2,000 take 10 to 14 s and 10,000 over five minutes (measured
with ``Usd.Prim.GetAppliedSchemas``), for every tool that reads the prim. A name the schema
registry does not know costs nothing: OpenUSD drops it. usdjoints refuses a prim applying more
than MAX_APPLIED_SCHEMAS known schemas before that definition is built, in one line naming it.
"""
from __future__ import annotations

import re
import subprocess
import sys

import pytest

from usdjoints.errors import InputError
from usdjoints.walker import walk
from usdjoints.walker.stage_io import MAX_APPLIED_SCHEMAS

from samples import REPO

BASE = REPO / "sample_stages" / "revolute_basic.usda"
HANG_LIMIT = 60  # s: the refusal takes a second or two; building the definition takes minutes


def _stage(tmp_path, names, suffix=".usda"):
    from pxr import Sdf

    listed = ", ".join(f'"{name}"' for name in names)
    text = BASE.read_text().replace('prepend apiSchemas = ["PhysicsDriveAPI:angular"]',
                                    f'prepend apiSchemas = [{listed}, "PhysicsDriveAPI:angular"]')
    path = tmp_path / f"crowded{suffix}"
    if suffix == ".usda":
        path.write_text(text)
    else:
        layer = Sdf.Layer.CreateAnonymous(".usda")
        layer.ImportFromString(text)
        layer.Export(str(path))
    return path


def test_one_schema_past_the_limit_is_refused_naming_the_prim(tmp_path):
    drives = [f"PhysicsDriveAPI:d{i}" for i in range(MAX_APPLIED_SCHEMAS)]  # + angular: one past
    with pytest.raises(InputError) as error:
        walk(str(_stage(tmp_path, drives)))
    assert error.value.where == "/World/Hinge"
    assert f"applies {MAX_APPLIED_SCHEMAS + 1} API schemas" in error.value.message


def test_the_limit_itself_is_read(tmp_path):
    drives = [f"PhysicsDriveAPI:d{i}" for i in range(MAX_APPLIED_SCHEMAS - 1)]
    (joint,) = walk(str(_stage(tmp_path, drives))).joints
    assert joint.path == "/World/Hinge"


def test_names_openusd_does_not_know_do_not_count(tmp_path):
    unknown = [f"NoSuchAPI{i}" for i in range(10000)] + [f"NoSuchAPI:i{i}" for i in range(10000)]
    (joint,) = walk(str(_stage(tmp_path, unknown))).joints
    assert joint.path == "/World/Hinge"


@pytest.mark.parametrize("suffix", [".usda", ".usdc"])  # a crate is read first in the probe's child
def test_ten_thousand_drives_are_refused_at_once(tmp_path, suffix):
    stage = _stage(tmp_path, [f"PhysicsDriveAPI:d{i}" for i in range(10000)], suffix)
    for command in ("walk", "audit", "simulate"):
        result = subprocess.run([sys.executable, "-m", "usdjoints", command, str(stage)], capture_output=True,
                                text=True, timeout=HANG_LIMIT, cwd=REPO)
        lines = result.stderr.strip().splitlines()
        assert result.returncode == 2 and len(lines) == 1 and "Traceback" not in result.stderr, result
        assert "/World/Hinge: applies 10,001 API schemas" in lines[0], lines[0]
        assert len(re.sub(r"/[^ :()]+", "/F", lines[0])) < 200, lines[0]
