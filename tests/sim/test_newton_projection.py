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
