"""A free body whose inertia is authored zero cannot be solved for: simulate refuses it before the
run with one line naming the body (tests/fuzz/repros/simulate_zero_division.usda).

Oracle: the mass matrix of a free body is diag(m, m, m, I): with I = 0 its angular rows are zero
and M has no inverse, whatever the integrator.
"""
from __future__ import annotations

import numpy as np
import pytest

from usdjoints.errors import SimulationError
from usdjoints.model.builder import ModelBuilder
from usdjoints.sim import api


def test_free_body_without_inertia_is_named():
    b = ModelBuilder(gravity=(0, 0, -9.81))
    b.add_body("/World/A", joint_type="free", joint_name="/World/A", mass=1.0, inertia=np.zeros((3, 3)))
    model = b.build()
    assert np.diag(api.mass_matrix(model, model.q_initial))[3:].max() == 0.0
    with pytest.raises(SimulationError) as error:
        api.simulate(model, 0.004, 1e-3)
    message = str(error.value)
    assert "mass matrix is singular: body '/World/A' (free base, angular velocity x)" in message, message
    assert "\n" not in message and len(message) < 200


def test_masses_that_overflow_together_are_named_as_an_overflow(recwarn):
    """A fuzzer's case: two 1e308 kg bodies (finite each, as kilogramsPerUnit 1e308 makes them)
    on a hinge. Their joint-space mass matrix overflows (m1 + m2 = inf: IEEE 754), which was
    reported as the body moving 'no mass or inertia', after numpy's overflow warnings."""
    b = ModelBuilder(gravity=(0, 0, -9.81))
    b.add_body("/World/A", joint_type="free", joint_name="/World/A", mass=1e308, inertia=np.eye(3) * 1e307)
    b.add_body("/World/B", parent="/World/A", joint_type="revolute", joint_name="/World/J", axis=(0, 0, 1),
               mass=1e308, inertia=np.eye(3) * 1e307, p_parent_joint=(0.5, 0, 0), p_joint_child=(0.5, 0, 0))
    model = b.build()
    with pytest.raises(SimulationError) as error:
        api.simulate(model, 0.004, 1e-3)
    message = str(error.value)
    assert "mass matrix is not finite at body '/World/A' (free base, linear velocity x)" in message, message
    assert "overflow in SI units" in message and "\n" not in message
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]
