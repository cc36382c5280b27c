"""A URDF whose ``world`` link is the parent of a moving joint (pybullet's pendulum5 and cartpole
style: world -> revolute -> link): the converted joint moves.

Oracles:
* ovphysx 0.7 (tests/oracle/ovphysx_probe.py, skipped without the oracle extra): rooted on the
  robot prim, PhysX made the hinge to the world the articulation's fixed base and it never moved
  (the auditor's welded-anchor rule states it, measured in tests/oracle/test_audit_claims.py);
  rooted on the body the hinge carries, PhysX swings it: a pendulum released horizontal has fallen
  by more than 0.5 rad after 0.5 s (closed form of a point mass: pi / 2 rad at t = 1.9 s for
  l = 1 m; small angles are passed at 0.5 s);
* OpenUSD's parser (UsdPhysics.UsdPhysicsLoadStageFromPrimRange): the articulation is rooted where the
  converter put the API, and the hinge is one of its joints with the world as body0;
* a fixed joint to the world keeps the root on the robot prim (the weld is the fixed base).
"""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest
from pxr import Usd, UsdPhysics

from usdjoints.auditor import audit
from usdjoints.convert import convert_urdf
from usdjoints.model.build import load_model

TESTS = Path(__file__).resolve().parents[1]
PROBE = TESTS / "oracle" / "ovphysx_probe.py"

PENDULUM = """<?xml version="1.0"?>
<robot name="pendulum">
  <link name="world"/>
  <link name="rod">
    <inertial><origin xyz="1 0 0"/><mass value="1"/>
      <inertia ixx="1e-4" ixy="0" ixz="0" iyy="1e-4" iyz="0" izz="1e-4"/></inertial>
  </link>
  <joint name="hinge" type="{kind}">
    <parent link="world"/><child link="rod"/><origin xyz="0 0 2"/><axis xyz="0 1 0"/>
    <limit lower="-3" upper="3" effort="0" velocity="10"/>
  </joint>
</robot>
"""


def _convert(tmp_path, kind: str) -> Path:
    urdf = tmp_path / f"{kind}.urdf"
    urdf.write_text(PENDULUM.format(kind=kind))
    out = tmp_path / f"{kind}.usda"
    convert_urdf(urdf, out)
    return out


def _roots(path: Path) -> list[str]:
    stage = Usd.Stage.Open(str(path))
    return [str(p.GetPath()) for p in stage.Traverse() if p.HasAPI(UsdPhysics.ArticulationRootAPI)]


@pytest.mark.parametrize("kind", ["revolute", "continuous", "prismatic"])
def test_moving_world_joint_roots_the_articulation_on_its_body(tmp_path, kind):
    out = _convert(tmp_path, kind)
    assert _roots(out) == ["/pendulum/rod"]
    rules = {f.rule for f in audit(str(out)).findings if f.severity in ("error", "warning")}
    assert "welded-anchor" not in rules and "root-elected-elsewhere" not in rules
    model = load_model(str(out))
    assert model.nv == 1 and list(model.joint_names) == ["/pendulum/joints/hinge"]
    # OpenUSD's parser: one articulation rooted on the body, the hinge from the world its joint
    stage = Usd.Stage.Open(str(out))
    parsed = UsdPhysics.UsdPhysicsLoadStageFromPrimRange(stage, ["/"])
    articulations = [desc for key, (paths, descs) in parsed.items()
                     if key == UsdPhysics.ObjectType.Articulation for desc in descs]
    assert len(articulations) == 1 and [str(p) for p in articulations[0].articulatedJoints] == [
        "/pendulum/joints/hinge"]


def test_weld_to_world_keeps_the_root_on_the_robot_prim(tmp_path):
    assert _roots(_convert(tmp_path, "fixed")) == ["/pendulum"]


@pytest.mark.oracle
def test_physx_swings_the_hinge_to_the_world(tmp_path):
    if importlib.util.find_spec("ovphysx") is None or not PROBE.is_file():
        pytest.skip("ovphysx (extra oracle) or its probe is not available")
    out = _convert(tmp_path, "revolute")
    done = subprocess.run([sys.executable, str(PROBE), str(out), "--steps", "30", "--dt", repr(1 / 60)],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    assert abs(report["joints"]["/pendulum/joints/hinge"]["displacement"]) > 0.5
