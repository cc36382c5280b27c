"""The scripts in examples/ run on the bundled sample stages and URDFs, each in its own interpreter.

Each test runs a script as a user would (subprocess, timeout) and checks what it wrote with an
independent reader: OpenUSD composition of the written layers, or a closed form.
"""
from __future__ import annotations

import math
import re
import subprocess
import sys

import pytest
from pxr import Gf, Usd, UsdGeom

from samples import REPO

EXAMPLES = REPO / "examples"
SAMPLES = REPO / "sample_stages"
TIMEOUT = 300  # [s] the first simulation may compile the numba kernels (~10 s), CI machines are slow


def _run(script, *args, expect=0):
    done = subprocess.run([sys.executable, str(EXAMPLES / script), *map(str, args)], capture_output=True,
                          text=True, timeout=TIMEOUT, cwd=REPO)
    assert done.returncode == expect, done.stdout + done.stderr
    return done


def test_audit_and_pin_folder(tmp_path):
    """Oracle: OpenUSD composition of each written layer (it must carry the stage's joints and make
    the pinned upper limit authored), and the bad_* samples' own headers (errors remain where
    pinning cannot help: bad_onesided_limit's one finite bound)."""
    out = tmp_path / "pinned"
    done = _run("audit_and_pin_folder.py", SAMPLES, "--out", out, expect=1)  # bad_* samples keep errors
    lines = done.stdout.splitlines()
    assert lines[0].split()[0] == "asset"
    assert re.fullmatch(r"\d+ asset\(s\), \d+ with errors left after pinning", lines[-1])
    rows = {line.split()[0]: line for line in lines[1:-1]}
    assert set(rows) == {p.name for p in SAMPLES.rglob("*.usda")}
    # Newton refuses revolute_basic's standalone body-to-body joint: its one error, which pinning
    # defaults cannot remove
    assert rows["revolute_basic.usda"].split()[1:3] == ["1/0/1", "1/0/1"]
    assert rows["arm_articulation.usda"].split()[1] == "0/0/3"
    pinned = Usd.Stage.Open(str(out / "bad_onesided_limit.pinned.usda"))
    attribute = pinned.GetPrimAtPath("/World/OneSided").GetAttribute("physics:upperLimit")
    assert attribute.HasAuthoredValue() and attribute.Get() == math.inf
    assert not (out / "revolute_basic.pinned.usda").exists()  # nothing to pin there


def test_audit_and_pin_folder_rejects_a_folder_without_stages(tmp_path):
    """An empty folder is bad input: exit code 2 and one line on stderr."""
    done = _run("audit_and_pin_folder.py", tmp_path, "--out", tmp_path / "out", expect=2)
    assert len(done.stderr.strip().splitlines()) == 1


def test_convert_and_simulate(tmp_path):
    """Oracle: planar double-pendulum kinematics in closed form. With the printed joint angles at
    the last sample, the lower link's origin must sit at shoulder + 0.5 m (cos q1, 0, -sin q1)
    (a positive turn about +Y takes +X toward -Z) and turn by q1 + q2; at time 0 the composed
    motion layer must reproduce the converted robot's authored transforms."""
    done = _run("convert_and_simulate.py", EXAMPLES / "data" / "double_pendulum.urdf", "--out", tmp_path)
    lines = done.stdout.splitlines()
    last = next(line for line in reversed(lines) if re.match(r"^\d+\.\d+\s", line))
    t_end, q1_deg, q2_deg = (float(x) for x in last.split())
    assert t_end == pytest.approx(1.0)
    motion = Usd.Stage.Open(str(tmp_path / "double_pendulum_motion.usda"))
    robot = Usd.Stage.Open(str(tmp_path / "double_pendulum.usda"))
    assert motion.GetEndTimeCode() == 24
    lower = motion.GetPrimAtPath("/double_pendulum/lower")
    end = UsdGeom.XformCache(motion.GetEndTimeCode()).GetLocalToWorldTransform(lower)
    q1, q2 = math.radians(q1_deg), math.radians(q2_deg)
    expected = Gf.Vec3d(0.5 * math.cos(q1), 0.0, 1.0 - 0.5 * math.sin(q1))
    # printed angles have 3 decimals: 5e-4 deg at 0.5 m is 4.4e-6 m
    assert (end.ExtractTranslation() - expected).GetLength() < 1e-5
    turn = end.ExtractRotation()
    assert abs(turn.GetAxis() * Gf.Vec3d(0, 1, 0)) == pytest.approx(1.0, abs=1e-6)
    angle = math.radians(turn.GetAngle()) * (1 if turn.GetAxis()[1] > 0 else -1)
    assert math.remainder(angle - (q1 + q2), 2 * math.pi) == pytest.approx(0.0, abs=2e-5)
    for path in ("/double_pendulum/upper", "/double_pendulum/lower"):
        start = UsdGeom.XformCache(0).GetLocalToWorldTransform(motion.GetPrimAtPath(path))
        authored = UsdGeom.XformCache(Usd.TimeCode.Default()).GetLocalToWorldTransform(robot.GetPrimAtPath(path))
        assert Gf.IsClose(start, authored, 1e-6)


def test_convert_and_simulate_keeps_a_mimic_joint(tmp_path):
    """Oracle: the URDF's own <mimic multiplier="0.5" offset="0.1">: at every printed sample the
    follower equals 0.5 x the reference + 0.1 rad (printed with 3 decimals in degrees)."""
    done = _run("convert_and_simulate.py", REPO / "tests" / "data" / "urdf" / "mimic_pair.urdf", "--out", tmp_path)
    rows = [line.split() for line in done.stdout.splitlines() if re.match(r"^\d+\.\d+\s", line)]
    assert rows
    for _, ref_deg, follow_deg in rows:
        assert float(follow_deg) == pytest.approx(0.5 * float(ref_deg) + math.degrees(0.1), abs=2e-3)


@pytest.mark.parametrize("sample", ["revolute_basic.usda", "bad_gear_relnames.usda", "scaled_rotated_xforms.usda"])
def test_kit_style_edit(sample):
    """The stage's root layer stays unmodified and removing the override layer removes every
    edit; with the auditor, the pinned override clears the errors the fix layer addresses."""
    done = _run("kit_style_edit.py", SAMPLES / sample)
    assert "root layer modified: False" in done.stdout
    assert "frames scope still on stage: False" in done.stdout
    if sample == "bad_gear_relnames.usda":
        # Oracle: the sample's header: both hinge relationships are misspelt; copying them to
        # physics:hinge0/1 (what the fix layer does) leaves no error.
        counts = re.search(r"(\d+)/\d+/\d+ before pinning, (\d+)/\d+/\d+ after", done.stdout)
        assert int(counts.group(1)) > 0 and int(counts.group(2)) == 0
