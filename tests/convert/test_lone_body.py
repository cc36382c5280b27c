"""A robot of one link and no joint (gazebo_models' quadrotor and parrot_bebop_2, pybullet's cube
and sphere URDFs) converts to a plain rigid body, with no articulation root.

Oracle: OpenUSD's parser (UsdPhysics.UsdPhysicsLoadStageFromPrimRange). An articulation root over
one body and no joint is self-contradictory there: it elects the body its root yet lists no
articulated body (tests/walker/openusd_parsing: test_parser_contradiction_single_body_...), and
the auditor reports empty-articulation. Written without the root, the parser reports one rigid
body and no articulation, and the body falls freely (usdjoints' model: one free joint, 6 dofs).
"""
from __future__ import annotations

import pytest
from pxr import Usd, UsdPhysics

from usdjoints.auditor import audit
from usdjoints.convert import convert_sdformat, convert_urdf
from usdjoints.model.build import load_model

URDF = """<robot name="cube"><link name="body"><inertial><mass value="2"/>
<inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial>
<collision><geometry><box size="0.2 0.2 0.2"/></geometry></collision></link></robot>
"""
SDF = """<?xml version="1.0"?><sdf version="1.6"><model name="quad"><pose>0 0 1 0 0 0</pose>
<link name="body"><inertial><mass>1.5</mass><inertia><ixx>0.01</ixx><iyy>0.01</iyy><izz>0.02</izz>
</inertia></inertial><collision name="c"><geometry><box><size>0.3 0.3 0.1</size></box></geometry>
</collision></link></model></sdf>
"""


@pytest.mark.parametrize("kind", ["urdf", "sdf"])
def test_one_link_robot_is_a_rigid_body_without_articulation_root(tmp_path, kind):
    source = tmp_path / f"robot.{kind}"
    source.write_text(URDF if kind == "urdf" else SDF)
    out = tmp_path / "robot.usda"
    (convert_urdf if kind == "urdf" else convert_sdformat)(source, out)
    stage = Usd.Stage.Open(str(out))
    assert not [p for p in stage.Traverse() if p.HasAPI(UsdPhysics.ArticulationRootAPI)]
    parsed = UsdPhysics.UsdPhysicsLoadStageFromPrimRange(stage, ["/"])
    kinds = {key: len(descs) for key, (paths, descs) in parsed.items()}
    assert kinds.get(UsdPhysics.ObjectType.RigidBody) == 1
    assert not kinds.get(UsdPhysics.ObjectType.Articulation)
    assert "empty-articulation" not in {f.rule for f in audit(str(out)).findings}
    model = load_model(str(out))
    assert model.nv == 6
