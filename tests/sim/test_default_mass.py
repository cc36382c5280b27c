"""Bodies that nothing gives a mass or an inertia simulate as PhysX simulates them.

Oracles: ovphysx 0.7 (CPU) on the same stage, measured through tests/oracle's probe runner:
* mass: a body on a vertical prismatic joint with a spring drive (k = 100 N/m, damped) sags by
  m g / k under gravity; PhysX's sag gives m;
* inertia: a body on a hinge with a damping-only drive (d = 1 N m s/rad) spinning at 1 rad/s
  loses speed as w' = w / (1 + h d / I) in one implicit step; PhysX's w' gives I.
And the closed form of semi-implicit Euler free fall for the 120-byte stage that divided by zero.
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

from usdjoints import cli
from usdjoints.model.build import load_model
from usdjoints.model.mass import DEFAULT_MASS, DEFAULT_SPHERE_RADIUS
from usdjoints.sim import api

REPO = Path(__file__).resolve().parents[2]

# A free body with a mass and nothing else: no inertia, no collider (it divided by zero).
MASS_ONLY = """#usda 1.0
def Xform "b" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
{
    float physics:mass = 1
}
"""

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


def _body(name: str, x: float, mass: float | None, spin: bool) -> str:
    apis = '"PhysicsRigidBodyAPI", "PhysicsMassAPI"' if mass is not None else '"PhysicsRigidBodyAPI"'
    lines = [f'def Xform "{name}" (prepend apiSchemas = [{apis}])', "{",
             f"    double3 xformOp:translate = ({x}, 0, 0)",
             '    uniform token[] xformOpOrder = ["xformOp:translate"]']
    if mass is not None:
        lines.append(f"    float physics:mass = {mass}")
    if spin:
        lines.append(f"    vector3f physics:angularVelocity = ({math.degrees(1.0)}, 0, 0)")
    return "\n".join(lines + ["}", ""])


def _slider(name: str, body: str, x: float) -> str:
    return f"""def PhysicsPrismaticJoint "{name}" (prepend apiSchemas = ["PhysicsDriveAPI:linear"])
{{
    rel physics:body1 = </{body}>
    point3f physics:localPos0 = ({x}, 0, 0)
    uniform token physics:axis = "Z"
    float drive:linear:physics:stiffness = 100
    float drive:linear:physics:damping = 30
}}
"""


def _hinge(name: str, body: str, x: float) -> str:
    # damping 1 N m s/rad, authored per degree
    return f"""def PhysicsRevoluteJoint "{name}" (prepend apiSchemas = ["PhysicsDriveAPI:angular"])
{{
    rel physics:body1 = </{body}>
    point3f physics:localPos0 = ({x}, 0, 0)
    uniform token physics:axis = "X"
    float drive:angular:physics:damping = {math.radians(1.0)}
}}
"""


# A: nothing; B: nothing, spinning; C: mass 2 only; D: mass 2 only, spinning.
PROBE_STAGE = HEADER + "".join([
    _body("A", 0, None, False), _slider("jA", "A", 0),
    _body("B", 3, None, True), _hinge("jB", "B", 3),
    _body("C", 6, 2, False), _slider("jC", "C", 6),
    _body("D", 9, 2, True), _hinge("jD", "D", 9),
])


def test_mass_without_inertia_falls_freely(tmp_path, capsys):
    """The 120-byte stage that raised ZeroDivisionError: the body gets a small sphere's inertia
    and falls; oracle: the semi-implicit Euler sum of free fall, z_n = -g dt^2 n (n + 1) / 2."""
    stage = tmp_path / "mass_only.usda"
    stage.write_text(MASS_ONLY)
    model = load_model(str(stage))
    expected_inertia = 0.4 * 1.0 * DEFAULT_SPHERE_RADIUS ** 2
    assert np.allclose(model.link_inertia[0], np.eye(3) * expected_inertia)
    assert any(d.code == "mass-defaulted" and d.prim == "/b" for d in model.diagnostics)
    dt, n = 1e-3, 100
    trajectory = api.simulate(model, n * dt, dt)
    g = -float(model.gravity[2])
    assert trajectory.q[-1, 2] == pytest.approx(-g * dt * dt * n * (n + 1) / 2, rel=1e-9)
    out = tmp_path / "t.npz"
    assert cli.main(["simulate", str(stage), "--duration", "0.01", "--out", str(out)]) == 0
    assert "Traceback" not in capsys.readouterr().err


def test_defaults_are_physx_defaults():
    """The made-up values themselves, per the module docstring's rules."""
    from pxr import Sdf, Usd

    layer = Sdf.Layer.CreateAnonymous(".usda")
    layer.ImportFromString(PROBE_STAGE)
    model = load_model(Usd.Stage.Open(layer))
    mass = dict(zip(model.body_names, model.link_mass[model.body_link]))
    assert mass == {"/A": DEFAULT_MASS, "/B": DEFAULT_MASS, "/C": 2.0, "/D": 2.0}
    for b, name in enumerate(model.body_names):
        link = int(model.body_link[b])
        assert np.allclose(model.link_inertia[link], np.eye(3) * 0.4 * mass[name] * DEFAULT_SPHERE_RADIUS ** 2)


@pytest.mark.oracle
@pytest.mark.slow
def test_default_mass_and_inertia_match_physx(tmp_path):
    """Oracle: ovphysx. Sag m g / k on the sliders (after 3 s, settled), one implicit damping
    step on the hinges (dt = 1e-4); PhysX's values within 2 % of usdjoints' model."""
    sys.path.insert(0, str(REPO / "tests" / "oracle"))
    from ovphysx_runner import ovphysx_available, run_ovphysx_probe

    if not ovphysx_available():
        pytest.skip("ovphysx is not installed (pip install usdjoints[oracle])")
    stage = tmp_path / "defaults.usda"
    stage.write_text(PROBE_STAGE)
    model = load_model(str(stage))
    g = -float(model.gravity[2])
    settled = run_ovphysx_probe(stage, steps=600, dt=0.005)["bodies"]
    one_step = run_ovphysx_probe(stage, steps=1, dt=1e-4)["bodies"]
    for b, name in enumerate(model.body_names):
        link = int(model.body_link[b])
        if name in ("/A", "/C"):
            physx_mass = -settled[name]["final"]["position"][2] * 100.0 / g
            assert physx_mass == pytest.approx(model.link_mass[link], rel=2e-2), name
        else:
            w = one_step[name]["final"]["angular_velocity"][0]
            physx_inertia = 1e-4 * 1.0 / (1.0 / w - 1.0)
            assert physx_inertia == pytest.approx(model.link_inertia[link][0, 0], rel=2e-2), name
