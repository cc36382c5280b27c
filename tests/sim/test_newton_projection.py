"""The position projection onto the loops takes Newton steps of at most MAX_NEWTON_TURN per joint
and still closes a loop that starts far open.

Oracle: the closed form of a rod hinged at the origin about z whose tip is held by a ball joint to
the world at angle theta0 from where it starts: the only closed configuration near the start is
the hinge at theta0 (the circle through the anchor), so the projected start state is exactly
theta0 and, with no gravity or velocity, it stays there. Uncapped, the Newton step from 3 rad
away overshot and the hinge closed two turns away, at theta0 + 4 pi.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from sim_stages import body, revolute, stage
from usdjoints.model.build import load_model
from usdjoints.sim import api
from usdjoints.sim.kernels.constraints import MAX_NEWTON_TURN


@pytest.mark.parametrize("theta0", [0.5, 2.0, 3.0])
def test_a_loop_far_open_is_closed_at_the_start(tmp_path, theta0):
    assert theta0 <= 3.0 * MAX_NEWTON_TURN  # closes within the projection's iterations
    anchor = (math.cos(theta0), math.sin(theta0), 0.0)
    tip = f"""    def PhysicsSphericalJoint "Tip"
    {{
        rel physics:body1 = </World/Rod>
        bool physics:excludeFromArticulation = 1
        point3f physics:localPos0 = {anchor}
        point3f physics:localPos1 = (1, 0, 0)
    }}
"""
    text = stage(body("Rod", 1.0, (0.01, 0.1, 0.1), com=(0.5, 0, 0)) + revolute("Pivot", "Rod", "Z") + tip, 0.0)
    path = tmp_path / "rod.usda"
    path.write_text(text)
    model = load_model(str(path))
    trajectory = api.simulate(model, 0.01, 1e-3)
    # float32 anchors: the circle through them is theta0 to ~1e-7
    assert np.allclose(trajectory.q[:, 0], theta0, atol=2e-7), trajectory.q[:, 0]
    assert np.abs(trajectory.qd).max() < 1e-9


def test_loops_that_cannot_close_are_left_as_they_are(tmp_path):
    """Generated stage seed 446 (tests/stagegen.py): two ball joints tie the same two bodies of a
    floating articulation at anchors metres apart, which no pose can meet. The projection used
    to chase them round their nearest, moving the base metres a step until the run diverged
    (0.93 s). Now a projection that ends no closer than it started is taken back, the two bodies
    fall together as one rigid assembly, and their centre of mass accelerates at g (to 1e-5 g).
    Oracle: the semi-implicit Euler step on a uniform acceleration, whose positions k steps apart
    have the second difference g (k dt)^2 exactly."""
    from stagegen import generate_stage
    from usdjoints.model.kinematics import link_world_poses

    stage_ = generate_stage(446)
    path = tmp_path / "seed446.usda"
    stage_.GetRootLayer().Export(str(path))
    model = load_model(str(path), contact=False)
    assert len(model.loop_type) == 2
    dt, every = 1e-3, 100
    trajectory = api.simulate(model, 2.0, dt, record_every=every)
    mass = np.asarray(model.link_mass)

    def centre(q):
        R, p = link_world_poses(model, q)
        c = p + np.einsum("nij,nj->ni", R, np.asarray(model.link_com))
        return (mass[:, None] * c).sum(axis=0) / mass.sum()

    com = np.array([centre(q) for q in trajectory.q[4:]])  # from 0.4 s, the loops long settled
    second = (com[2:] - 2.0 * com[1:-1] + com[:-2]) / (every * dt) ** 2
    np.testing.assert_allclose(second, np.broadcast_to(model.gravity, second.shape), atol=1e-5 * 9.81)
