"""A D6 joint whose three rotations are free turns them as one ball joint, as PhysX makes such a
D6 spherical, whether they are limited or driven or not; three hinges rotX, rotY, rotZ in a row
(ModelBuilder's d6_axes without d6_ball) lock at rotY = +-90 deg, and a run that diverges there
says so and points to a limit or a spherical joint.

Oracles: the torque-free rigid body's closed-form bound on its turning rate, |w| <= sqrt(2 E /
I_min) with E = w0^T I w0 / 2 conserved; the spherical joint itself (the same motion to the
last bit, or to rounding when a limit that is never reached is checked each step); and the
divergence contract (SimulationError naming the joint). The body starts at 20 rad/s about rotY
and 3 rad/s about rotX: on hinges its hinge rates pass the 1000 rad/s floor near the lock at
0.72 s, while on a ball (a spherical joint, or the D6, limited or not) it keeps within the bound
for the whole second.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from sim_stages import body, stage
from usdjoints.errors import SimulationError
from usdjoints.model.build import load_model
from usdjoints.sim import api

INERTIA = (0.1, 0.2, 0.3)
W0 = np.array([3.0, 20.0, 0.0])
LOCKED = "\n".join(f"        float limit:trans{a}:physics:low = 1\n        float limit:trans{a}:physics:high = -1"
                   for a in "XYZ")
D6_BALL = f"""    def PhysicsJoint "Gimbal" (prepend apiSchemas = ["PhysicsLimitAPI:transX", "PhysicsLimitAPI:transY", "PhysicsLimitAPI:transZ"])
    {{
        rel physics:body1 = </World/Top>
{LOCKED}
    }}
"""
D6 = D6_BALL.replace('"PhysicsLimitAPI:transZ"]', '"PhysicsLimitAPI:transZ", "PhysicsLimitAPI:rotX"]').replace(
    LOCKED, LOCKED + "\n        float limit:rotX:physics:low = -360\n        float limit:rotX:physics:high = 360")
BALL = """    def PhysicsSphericalJoint "Ball"
    {
        rel physics:body1 = </World/Top>
    }
"""


def _model(tmp_path, joint: str):
    path = tmp_path / "top.usda"
    path.write_text(stage(body("Top", 1.0, INERTIA) + joint, gravity=0.0))
    return load_model(str(path))


@pytest.mark.parametrize("record_every", [1, 17, 500])
def test_hinges_diverging_near_the_lock_name_it(record_every):
    from usdjoints.model import ModelBuilder

    b = ModelBuilder(gravity=(0, 0, 0))
    b.add_body("/World/Top", joint_type="d6", joint_name="/World/Gimbal", d6_axes=("rotX", "rotY", "rotZ"),
               mass=1.0, inertia=np.diag(INERTIA))
    model = b.build()
    with pytest.raises(SimulationError) as error:
        api.simulate(model, 1.0, 1e-3, qd0=W0, record_every=record_every)
    message = str(error.value)
    assert message.startswith("joint '/World/Gimbal' (dof 0) diverged at t = 0.72"), message
    assert "'/World/Gimbal' turns its three rotations as hinges rotX, rotY, rotZ in a row" in message
    degrees = float(message.split("rotY was at ")[1].split(" deg")[0])
    assert 60.0 <= abs(degrees) <= 90.0, message
    assert "check the masses" not in message


def test_limited_d6_rotations_turn_as_the_spherical_joint(tmp_path):
    """A rotX limit of +-360 deg, which a rotation vector's component (at most 180 deg) never
    reaches: three hinges would diverge at 0.72 s (the test above), the ball follows the
    spherical joint."""
    d6 = _model(tmp_path, D6)
    assert d6.joint_types == ("d6",) and d6.nq == 4 and d6.nv == 3
    ours, theirs = api.simulate(d6, 1.0, 1e-3, qd0=W0), api.simulate(_model(tmp_path, BALL), 1.0, 1e-3, qd0=W0)
    np.testing.assert_allclose(ours.body_poses, theirs.body_poses, rtol=0.0, atol=1e-9)
    np.testing.assert_allclose(ours.qd, theirs.qd, rtol=0.0, atol=1e-9)


def test_spherical_joint_has_no_lock(tmp_path):
    model = _model(tmp_path, BALL)
    trajectory = api.simulate(model, 1.0, 1e-3, qd0=W0)
    energy = 0.5 * float(np.dot(INERTIA, W0 ** 2))
    bound = math.sqrt(2.0 * energy / min(INERTIA))
    assert np.linalg.norm(trajectory.qd, axis=1).max() <= 1.01 * bound


def test_free_d6_rotations_turn_as_the_spherical_joint(tmp_path):
    ball = _model(tmp_path, BALL)
    d6 = _model(tmp_path, D6_BALL)
    assert d6.joint_types == ("d6",) and d6.nq == 4 and d6.nv == 3
    ours, theirs = api.simulate(d6, 1.0, 1e-3, qd0=W0), api.simulate(ball, 1.0, 1e-3, qd0=W0)
    np.testing.assert_array_equal(ours.body_poses, theirs.body_poses)
    np.testing.assert_array_equal(ours.qd, theirs.qd)


def test_other_divergences_keep_their_hint():
    """A D6 joint without all three rotations free has no lock: a rotor blowing up under negative
    damping keeps the masses-and-gains hint."""
    from usdjoints.model import ModelBuilder

    b = ModelBuilder(gravity=(0, 0, 0))
    b.add_body("/r/rotor", joint_type="revolute", mass=1.0, inertia=np.eye(3) * 1e-3, damping=[-0.5])
    model = b.build(qd_initial=np.array([1.0]))
    with pytest.raises(SimulationError) as error:
        api.simulate(model, 1.0, 1e-3)
    assert "check the masses" in str(error.value)
