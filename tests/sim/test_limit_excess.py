"""The joints a run carried past their hard limits, named by the command line.

Oracle: closed forms on hand-made trajectories (the distance past a bound is read off the
states), and the simulator's own bound on a held limit (0.5 deg, 0.5 mm): a limit held to it is
not reported, the start is never reported, nor a joint that starts outside its limits while the
step brings it back.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from usdjoints.model import ModelBuilder
from usdjoints.sim.limit_excess import limits_passed


def _model():
    b = ModelBuilder(gravity=(0, 0, -9.81))
    b.add_body("hinge", joint_type="revolute", mass=1.0, inertia=np.eye(3), lower=-0.5, upper=0.5)
    b.add_body("slider", parent="hinge", joint_type="prismatic", mass=1.0, inertia=np.eye(3), lower=0.0, upper=0.1)
    b.add_body("soft", parent="slider", joint_type="revolute", mass=1.0, inertia=np.eye(3), lower=-0.1, upper=0.1,
               limit_stiffness=1e3)
    b.add_body("free_turn", parent="soft", joint_type="revolute", mass=1.0, inertia=np.eye(3))
    return b.build()


def test_each_joint_past_its_limit_is_named_with_its_worst():
    model = _model()
    t = np.array([0.0, 0.1, 0.2, 0.3])
    q = np.array([[0.0, 0.05, 1.0, 9.0],  # the start (the soft limit's excess never counts)
                  [0.6, 0.1004, 0.9, 9.0],  # the hinge 0.1 rad past; the slider 0.4 mm (held)
                  [0.55, 0.1012, 0.9, 9.0],  # the slider 1.2 mm past (its worst)
                  [0.5 + math.radians(0.4), 0.1, 0.9, 9.0]])  # the hinge back within 0.5 deg
    found = limits_passed(model, q, t)
    assert [(label, unit, when) for label, _, unit, when in found] == [
        ("joint 'hinge'", "deg", 0.1), ("joint 'slider'", "mm", 0.2)]
    assert found[0][1] == pytest.approx(math.degrees(0.1)) and found[1][1] == pytest.approx(1.2)


def test_a_held_run_reports_nothing_and_envs_are_searched():
    """Soft limits (a spring) and joints without limits are never reported; with envs leading,
    the worst env counts."""
    model = _model()
    t = np.array([0.0, 0.1])
    held = np.array([[0.0, 0.05, 5.0, 100.0], [0.5 + math.radians(0.49), 0.1004, 5.0, 100.0]])
    assert limits_passed(model, held, t) == []
    envs = np.stack([held, held.copy()])
    envs[1, 1, 0] = -0.6
    (label, value, unit, when), = limits_passed(model, envs, t)
    assert (label, unit, when) == ("joint 'hinge'", "deg", 0.1) and value == pytest.approx(math.degrees(0.1))


def test_a_joint_starting_outside_counts_from_its_return():
    """A hinge starting 1.5 rad past its limit, brought back over two samples (the correction
    turns at most 0.6 rad a step), is not reported until it is back; its excess after that is.
    A slider that never comes back is reported at the end, with its last excess."""
    model = _model()
    t = np.array([0.0, 0.1, 0.2, 0.3, 0.4])
    q = np.array([[2.0, 0.5, 0.0, 0.0],
                  [1.4, 0.4, 0.0, 0.0],    # both still coming back: not counted
                  [0.5, 0.3, 0.0, 0.0],    # the hinge on its limit
                  [0.7, 0.2, 0.0, 0.0],    # the hinge 0.2 rad past after its return: counted
                  [0.5, 0.15, 0.0, 0.0]])  # the slider still 50 mm out at the end
    found = limits_passed(model, q, t)
    assert [(label, unit, when) for label, _, unit, when in found] == [
        ("joint 'slider'", "mm", 0.4), ("joint 'hinge'", "deg", 0.3)]
    assert found[0][1] == pytest.approx(50.0) and found[1][1] == pytest.approx(math.degrees(0.2))
    back = q.copy()
    back[3, 0] = 0.5
    back[:, 1] = [0.5, 0.3, 0.1, 0.1, 0.1]
    assert limits_passed(model, back, t) == []
