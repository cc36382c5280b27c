"""An authored diagonal inertia of (0, 0, 0) is read as PhysX reads it: as not authored.

Oracle: ovphysx 0.7 (CPU) on the same stage. Each body (m = 2, physics:diagonalInertia =
(0, 0, 0)) spins at 1 rad/s on a hinge whose damping-only drive (d = 1 N m s/rad) slows it in one
implicit step of h = 1e-4 s to w' = w / (1 + h d / I); PhysX's w' gives the inertia it used.
Measured: 0.00795 with no collider (PhysX's small sphere, 2/5 m (0.1 m)^2 = 0.008) and 0.01328
on a 0.2 m cube collider (the cube's m s^2 / 6 = 0.01333): the zero was not kept. usdjoints kept
it and refused the stage (singular mass matrix).

A diagonal with no entry above 0 reads the same ((-1, -1, 0): measured 0.004 kg m^2 for m = 1
with no collider, PhysX's small sphere), and one with an entry above 0 is used entry by entry as
its absolute value ((-1, 2, 3) as (1, 2, 3), with PhysX's warning "computed mass inertia tensor
... does have a negative diagonal value"); measured with ovphysx 0.7 from the inertia it holds and
from free spins and pendulum periods with it. usdjoints refused the first as singular and kept
the negative entry of the second.
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
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


def _body(name: str, x: float, cube: bool, diagonal: str) -> str:
    kind, extra_api, size = ("Cube", ', "PhysicsCollisionAPI"', "    double size = 0.2\n") if cube else ("Xform", "", "")
    return f"""def {kind} "{name}" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"{extra_api}])
{{
    double3 xformOp:translate = ({x}, 0, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
    float physics:mass = 2
    float3 physics:diagonalInertia = {diagonal}
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


COMPUTED = {"/Bare": 0.4 * 2 * 0.1 ** 2, "/Boxed": 2 * 0.2 ** 2 / 6}
# the authored diagonal -> each body's inertia about the hinge's X axis [kg m^2]
DIAGONALS = {
    "(0, 0, 0)": COMPUTED,
    "(-1, -1, 0)": COMPUTED,  # no entry above 0: not authored
    "(-0.005, 0.002, 0.003)": {"/Bare": 0.005, "/Boxed": 0.005},  # its absolute value
}


def _stage(diagonal: str) -> str:
    return HEADER + _body("Bare", 0, False, diagonal) + _body("Boxed", 3, True, diagonal)


@pytest.mark.parametrize("diagonal", DIAGONALS)
def test_zero_inertia_is_computed_or_defaulted(tmp_path, capsys, diagonal):
    """Oracle: the closed forms above (PhysX's small sphere; the cube's inertia) and PhysX's
    measured rules; the stage simulates from the command line (exit 0, no refusal)."""
    stage = tmp_path / "zero_inertia.usda"
    stage.write_text(_stage(diagonal))
    model = load_model(str(stage))
    for b, name in enumerate(model.body_names):
        inertia = model.link_inertia[int(model.body_link[b])]
        assert inertia[0, 0] == pytest.approx(DIAGONALS[diagonal][name], rel=1e-6), name
        assert (np.diag(inertia) > 0).all(), name
    assert cli.main(["simulate", str(stage), "--duration", "0.01"]) == 0, capsys.readouterr().err


@pytest.mark.oracle
@pytest.mark.parametrize("diagonal", DIAGONALS)
def test_zero_inertia_matches_physx(tmp_path, diagonal):
    sys.path.insert(0, str(REPO / "tests" / "oracle"))
    from ovphysx_runner import ovphysx_available, run_ovphysx_probe

    if not ovphysx_available():
        pytest.skip("ovphysx is not installed (pip install usdjoints[oracle])")
    stage = tmp_path / "zero_inertia.usda"
    stage.write_text(_stage(diagonal))
    model = load_model(str(stage))
    bodies = run_ovphysx_probe(stage, steps=1, dt=1e-4)["bodies"]
    for b, name in enumerate(model.body_names):
        w = bodies[name]["final"]["angular_velocity"][0]
        physx_inertia = 1e-4 * 1.0 / (1.0 / w - 1.0)
        print(f"\n{name}: PhysX {physx_inertia:.5f}, usdjoints {model.link_inertia[int(model.body_link[b])][0, 0]:.5f}")
        assert physx_inertia == pytest.approx(model.link_inertia[int(model.body_link[b])][0, 0], rel=2e-2), name
