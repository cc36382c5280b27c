"""An authored diagonal inertia of (0, 0, 0) is read as PhysX reads it: as not authored.

Oracle: ovphysx 0.7 (CPU) on the same stage. Each body (m = 2, physics:diagonalInertia =
(0, 0, 0)) spins at 1 rad/s on a hinge whose damping-only drive (d = 1 N m s/rad) slows it in one
implicit step of h = 1e-4 s to w' = w / (1 + h d / I); PhysX's w' gives the inertia it used.
Measured: 0.00795 with no collider (PhysX's small sphere, 2/5 m (0.1 m)^2 = 0.008) and 0.01328
on a 0.2 m cube collider (the cube's m s^2 / 6 = 0.01333): the zero was not kept. usdjoints kept
it and refused the stage (singular mass matrix).
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

from usdjoints import cli
from usdjoints.model.build import load_model

REPO = Path(__file__).resolve().parents[2]

HEADER = """#usda 1.0
(
    metersPerUnit = 1
    kilogramsPerUnit = 1
    upAxis = "Z"
)
def PhysicsScene "scene"
{
}
"""


def _body(name: str, x: float, cube: bool) -> str:
    kind, extra_api, size = ("Cube", ', "PhysicsCollisionAPI"', "    double size = 0.2\n") if cube else ("Xform", "", "")
    return f"""def {kind} "{name}" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"{extra_api}])
{{
    double3 xformOp:translate = ({x}, 0, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
    float physics:mass = 2
    float3 physics:diagonalInertia = (0, 0, 0)
    vector3f physics:angularVelocity = ({math.degrees(1.0)}, 0, 0)
{size}}}
def PhysicsRevoluteJoint "j{name}" (prepend apiSchemas = ["PhysicsDriveAPI:angular"])
{{
    rel physics:body1 = </{name}>
    point3f physics:localPos0 = ({x}, 0, 0)
    uniform token physics:axis = "X"
    float drive:angular:physics:damping = {math.radians(1.0)}
}}
"""


STAGE = HEADER + _body("Bare", 0, False) + _body("Boxed", 3, True)
EXPECTED = {"/Bare": 0.4 * 2 * 0.1 ** 2, "/Boxed": 2 * 0.2 ** 2 / 6}


def test_zero_inertia_is_computed_or_defaulted(tmp_path, capsys):
    """Oracle: the closed forms above (PhysX's small sphere; the cube's inertia); the stage
    simulates from the command line (exit 0, no refusal)."""
    stage = tmp_path / "zero_inertia.usda"
    stage.write_text(STAGE)
    model = load_model(str(stage))
    for b, name in enumerate(model.body_names):
        inertia = model.link_inertia[int(model.body_link[b])]
        assert inertia[0, 0] == pytest.approx(EXPECTED[name], rel=1e-6), name
    assert cli.main(["simulate", str(stage), "--duration", "0.01"]) == 0, capsys.readouterr().err


@pytest.mark.oracle
def test_zero_inertia_matches_physx(tmp_path):
    sys.path.insert(0, str(REPO / "tests" / "oracle"))
    from ovphysx_runner import ovphysx_available, run_ovphysx_probe

    if not ovphysx_available():
        pytest.skip("ovphysx is not installed (pip install usdjoints[oracle])")
    stage = tmp_path / "zero_inertia.usda"
    stage.write_text(STAGE)
    model = load_model(str(stage))
    bodies = run_ovphysx_probe(stage, steps=1, dt=1e-4)["bodies"]
    for b, name in enumerate(model.body_names):
        w = bodies[name]["final"]["angular_velocity"][0]
        physx_inertia = 1e-4 * 1.0 / (1.0 / w - 1.0)
        print(f"\n{name}: PhysX {physx_inertia:.5f}, usdjoints {model.link_inertia[int(model.body_link[b])][0, 0]:.5f}")
        assert physx_inertia == pytest.approx(model.link_inertia[int(model.body_link[b])][0, 0], rel=2e-2), name
