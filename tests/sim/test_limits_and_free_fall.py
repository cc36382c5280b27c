"""Limits that hold, limits that keep momentum, and real robots that fall freely with contacts on.

Oracles:
* free fall: a floating robot with no ground feels only internal forces (drives, limits, its
  own contacts), so its centre of mass follows the lone-body trajectory of semi-implicit Euler
  from rest, c_n = c_0 + g dt^2 n (n + 1) / 2 (momentum conservation);
* hard limits: a joint driven at its full effort into a limit passes it by less than 0.5 deg
  (0.5 mm), the issue's bound; a joint that starts outside is on its bound after the first step
  and keeps no speed from the correction (PhysX's behaviour, measured with ovphysx).
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from samples import robots_dir
from usdjoints.model import Drive, ModelBuilder
from usdjoints.model.build import load_model
from usdjoints.model.rotation import quat_to_matrix
from usdjoints.sim import api

DT = 1e-3
HALF_DEGREE = math.radians(0.5)
HALF_MM = 5e-4


def centre_of_mass(model, q) -> np.ndarray:
    positions, quats = api.forward_kinematics(model, q)
    first_body = {}
    for b, link in enumerate(model.body_link):
        first_body.setdefault(int(link), b)
    total, weighted = 0.0, np.zeros(3)
    for link in range(model.nlink):
        mass = float(model.link_mass[link])
        if mass == 0.0:
            continue
        b = first_body[link]
        R_wb = quat_to_matrix(quats[b])
        R_wl = R_wb @ np.asarray(model.body_R_link[b]).T
        p_wl = positions[b] - R_wl @ np.asarray(model.body_p_link[b])
        weighted += mass * (p_wl + R_wl @ model.link_com[link])
        total += mass
    return weighted / total


def free_fall_error(model, trajectory) -> float:
    c0 = centre_of_mass(model, trajectory.q[0])
    worst = 0.0
    for row, t in enumerate(trajectory.t):
        n = round(t / DT)
        expected = c0 + model.gravity * DT * DT * n * (n + 1) / 2.0
        worst = max(worst, float(np.linalg.norm(centre_of_mass(model, trajectory.q[row]) - expected)))
    return worst


FLOATING = {
    "solo12": "solo_description/robots/solo12.urdf",
    "panda": "panda_description/urdf/panda.urdf",
    "laikago": "laikago_description/urdf/laikago.urdf",
    "a1": "a1_description/urdf/a1.urdf",
}


@pytest.mark.parametrize("robot", sorted(FLOATING))
def test_floating_robot_falls_freely_with_contacts_on(robot, tmp_path):
    """1 s at the defaults, self-collision on (PhysX's default): the COM stays on the lone-body
    trajectory to 1e-3 m (the issue's bound); no divergence."""
    from usdjoints.convert import convert_urdf

    stage = tmp_path / f"{robot}.usda"
    convert_urdf(robots_dir() / FLOATING[robot], stage, floating_base=True)
    model = load_model(str(stage))
    assert len(model.collider_names) > 0
    trajectory = api.simulate(model, 1.0, DT, record_every=50)
    error = free_fall_error(model, trajectory)
    print(f"\n{robot}: {len(model.collision_pairs)} pairs, COM off free fall by {error:.1e} m")
    assert error < 1e-3


def test_fixed_panda_keeps_its_limits(tmp_path):
    """The fixed-base Panda under gravity for 2 s at the defaults: every joint within its limits
    to 0.5 deg (0.5 mm) once joint 4, whose zero pose lies 4 deg outside its range, is back;
    the fingers (0.1 kg, drive damping 100 N s/m) within [0, 0.04] m throughout."""
    from usdjoints.convert import convert_urdf

    stage = tmp_path / "panda.usda"
    convert_urdf(robots_dir() / "panda_description/urdf/panda.urdf", stage, floating_base=False)
    model = load_model(str(stage))
    trajectory = api.simulate(model, 2.0, DT)
    q = trajectory.q
    over = np.maximum(model.dof_lower - q, q - model.dof_upper)  # > 0 outside
    start = np.maximum(over[0], 0.0)
    linear = np.array([t == "prismatic" for t in model.joint_types])[model.dof_joint]
    bound = np.where(linear, HALF_MM, HALF_DEGREE)
    # never further out than at the start by more than the bound (while joint 4 is moved back,
    # its position-only impulses reach its neighbours through the inertia: 3.5e-5 rad measured)
    assert np.all(over <= start + bound)
    settled = trajectory.t >= 0.5
    assert np.all(over[settled] <= bound)
    fingers = [model.q_slice(n).start for n in model.joint_names if "finger" in n]
    assert fingers and np.all(q[:, fingers] >= -HALF_MM) and np.all(q[:, fingers] <= 0.04 + HALF_MM)


@pytest.mark.parametrize("kind", ["revolute", "prismatic"])
def test_limit_holds_at_full_effort(kind):
    """A light link (0.1 kg, 1e-4 kg m^2) driven at 100 N (N m) towards a target far past its
    upper limit, with the converter's damping (100 N s/m): it passes the limit by less than
    0.5 deg / 0.5 mm and comes to rest on it."""
    b = ModelBuilder(gravity=(0, 0, 0))
    b.add_body("link", joint_type=kind, axis=(1, 0, 0), mass=0.1, inertia=np.eye(3) * 1e-4,
               lower=0.0, upper=0.04,
               drive=Drive(stiffness=1e4, damping=100.0, max_force=100.0, target_position=10.0))
    trajectory = api.simulate(b.build(), 1.0, DT)
    bound = HALF_MM if kind == "prismatic" else HALF_DEGREE
    assert float(np.max(trajectory.q[:, 0])) < 0.04 + bound
    assert abs(trajectory.q[-1, 0] - 0.04) < bound and abs(trajectory.qd[-1, 0]) < 1e-9


def test_joint_outside_its_limit_comes_back_without_launching():
    """A hinge starting 1 rad past its upper limit (as an a1 or go2 calf at its URDF zero pose):
    it is put on its bound in the first step by a position-only correction (as PhysX does,
    tests/sim/test_start_outside_limits_physx.py), keeps no velocity from that, and stays there."""
    b = ModelBuilder(gravity=(0, 0, 0))
    b.add_body("calf", joint_type="revolute", mass=1.0, com=(0.1, 0, 0), inertia=np.eye(3) * 1e-3,
               lower=-2.7, upper=-0.9)
    model = b.build(q_initial=np.array([0.1]))
    trajectory = api.simulate(model, 2.0, DT)
    assert abs(trajectory.q[1, 0] + 0.9) < 1e-9  # on the bound after one step
    assert float(np.max(np.abs(trajectory.qd))) < 1e-9  # nothing kept: not launched
    assert float(np.min(trajectory.q[:, 0])) >= -0.9 - 1e-9  # not thrown past the bound
    assert abs(trajectory.q[-1, 0] + 0.9) < 1e-9


def test_correction_of_one_joint_carries_no_other_past_its_limit():
    """A shoulder starting 1 rad past its limit beside an elbow at rest inside [-0.05, 0.05]: the
    shoulder's correction acts on the elbow through the inverse inertia (an impulse at the
    shoulder swings the forearm back). Oracle: the limits themselves; after the first step both
    joints are within their bounds (the elbow was carried 2.9 rad past its own), and nothing
    moves after (no velocity kept)."""
    b = ModelBuilder(gravity=(0, 0, 0))
    b.add_body("upper", joint_type="revolute", axis=(0, 0, 1), mass=1.0, com=(0.2, 0, 0),
               inertia=np.eye(3) * 1e-3, lower=-0.5, upper=0.5)
    b.add_body("fore", parent="upper", joint_type="revolute", axis=(0, 0, 1), p_parent_joint=(0.4, 0, 0),
               mass=1.0, com=(0.2, 0, 0), inertia=np.eye(3) * 1e-3, lower=-0.05, upper=0.05)
    trajectory = api.simulate(b.build(q_initial=np.array([1.5, 0.0])), 0.05, DT)
    q = trajectory.q[1:]
    assert np.all(np.abs(q[:, 0]) <= 0.5 + 1e-9) and np.all(np.abs(q[:, 1]) <= 0.05 + 1e-9), q[:3]
    assert abs(q[0, 0] - 0.5) < 1e-9
    assert float(np.max(np.abs(trajectory.qd))) < 1e-9


def test_free_base_joint_outside_its_limit_keeps_the_centre_of_mass():
    """A free base whose arm starts 1 rad past its limit, no gravity: the first step puts the arm
    on its limit, and the robot's centre of mass does not move (no external force: momentum
    conservation), although a one-step correction this large moves it at second order unless
    the base is moved back (sim/kernels/correction.py keep_centres_of_mass)."""
    b = ModelBuilder(gravity=(0, 0, 0))
    b.add_body("/robot/base", joint_type="free", mass=2.0, inertia=np.eye(3) * 0.02)
    b.add_body("/robot/arm", parent="/robot/base", joint_type="revolute", joint_name="/robot/joint",
               axis=(0, 1, 0), p_parent_joint=(0.1, 0, 0), mass=0.5, com=(0.2, 0, 0),
               inertia=np.eye(3) * 1e-3, lower=-0.2, upper=0.2)
    model = b.build(q_initial=np.array([0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.2]))
    trajectory = api.simulate(model, 0.05, DT)
    assert abs(trajectory.q[1, 7] - 0.2) < 1e-9
    assert float(np.max(np.abs(trajectory.qd))) < 1e-9
    c0 = centre_of_mass(model, trajectory.q[0])
    drift = max(float(np.linalg.norm(centre_of_mass(model, q) - c0)) for q in trajectory.q)
    print(f"\nCOM moved {drift:.2e} m; the base moved {np.linalg.norm(trajectory.q[-1, :3]):.3e} m")
    assert drift < 1e-12


def _spinning_arm(velocity_limit: float, target: float):
    b = ModelBuilder(gravity=(0, 0, -9.81))
    b.add_body("/robot/base", joint_type="free", mass=2.0, inertia=np.eye(3) * 0.02)
    b.add_body("/robot/arm", parent="/robot/base", joint_type="revolute", joint_name="/robot/joint",
               axis=(0, 1, 0), p_parent_joint=(0.1, 0, 0), mass=0.5, com=(0.2, 0, 0),
               inertia=np.eye(3) * 1e-3, velocity_limit=velocity_limit,
               drive=Drive(damping=10.0, max_force=20.0, target_velocity=target))
    return b.build()


def test_velocity_limit_keeps_momentum():
    """A free base whose arm is driven at 50 rad/s against a 5 rad/s velocity limit. The limit
    holds (round-off), and being a joint-space impulse it adds nothing to the COM's departure
    from free fall: that departure is semi-implicit Euler's own first-order error for a body
    spinning at 5 rad/s, equal (to 1e-5 m) to the same robot driven to 5 rad/s with no limit.
    (A clamp that overwrote v put a floating laikago 0.667 m off.)"""
    limited = _spinning_arm(5.0, 50.0)
    trajectory = api.simulate(limited, 1.0, DT, record_every=10)
    speed = np.abs(trajectory.qd[:, 6])
    assert float(np.max(speed)) <= 5.0 * (1 + 1e-12) and float(np.max(speed)) > 4.99
    free = _spinning_arm(math.inf, 5.0)
    reference = api.simulate(free, 1.0, DT, record_every=10)
    error, baseline = free_fall_error(limited, trajectory), free_fall_error(free, reference)
    print(f"\nCOM off free fall: limited {error:.3e} m, unlimited at the same speed {baseline:.3e} m")
    assert abs(error - baseline) < 1e-5
