"""Loop closures: a joint marked excludeFromArticulation becomes a constraint held by projection.

Oracle: the closure identity (the excluded joint's two frames share their origin and hinge axis)
evaluated on the simulated body poses, and energy conservation of the frictionless linkage.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

import usdjoints  # noqa: F401  (registers the PhysX schemas before any stage opens)
from usdjoints.model.build import load_model
from usdjoints.model.rotation import quat_to_matrix
from usdjoints.sim.api import constraint_jacobian, simulate

FOUR_BAR = Path(__file__).resolve().parents[2] / "sample_stages" / "four_bar_loop.usda"
# Newton projection stops below 1e-12 m each step; the acceptance bound is 1e-6 m.
CLOSURE_TOL = 1e-6


def _closure_error(model, poses):
    """|p_A - p_B| [m] and the hinge axes' misalignment [rad] of RockerGround, from body poses."""
    names = list(model.body_names)
    rocker, ground = names.index("/World/Rocker"), names.index("/World/Ground")
    R_r = np.array([quat_to_matrix(p[rocker, 3:]) for p in poses])
    R_g = np.array([quat_to_matrix(p[ground, 3:]) for p in poses])
    p_a = poses[:, rocker, :3] + R_r @ np.array([0.0, 0.0, -0.5])
    p_b = poses[:, ground, :3] + R_g @ np.array([1.0, 0.0, 0.25])
    axis_a, axis_b = R_r[:, :, 1], R_g[:, :, 1]
    return np.linalg.norm(p_a - p_b, axis=1), np.linalg.norm(np.cross(axis_a, axis_b), axis=1)


def test_excluded_joint_becomes_a_loop_constraint():
    model = load_model(str(FOUR_BAR))
    assert model.loop_names == ("/World/RockerGround",)
    assert "/World/RockerGround" not in model.joint_names
    G, c = constraint_jacobian(model, model.q_initial)
    assert G.shape == (5, model.nv) and np.abs(c).max() < 1e-9  # authored closed: residual 0


def test_four_bar_closure_holds_over_ten_seconds():
    """Closure identity: the crank swings from a push; position error < 1e-6 m for 10 s."""
    model = load_model(str(FOUR_BAR), contact=False)
    trajectory = simulate(model, 10.0, 1e-3, qd0=[2.0, 0.0, 0.0], record_every=10)
    distance, angle = _closure_error(model, trajectory.body_poses)
    assert distance.max() < CLOSURE_TOL and angle.max() < CLOSURE_TOL
    crank = trajectory.q[:, 0]
    assert np.ptp(crank) > 1.0  # the linkage really moves


def test_four_bar_parallelogram_kinematics_and_energy():
    """A parallelogram keeps q_coupler = -q_crank and q_rocker = q_crank (closed form); without
    damping its energy is conserved: RK4 with the projection drifts 1.3e-6 J in 3 s (measured),
    so 1e-5 J catches a projection that adds or removes energy at first order."""
    model = load_model(str(FOUR_BAR), contact=False)
    trajectory = simulate(model, 3.0, 1e-3, integrator="rk4", qd0=[2.0, 0.0, 0.0])
    q = trajectory.q
    assert np.abs(q[:, 1] + q[:, 0]).max() < 1e-9 and np.abs(q[:, 2] - q[:, 0]).max() < 1e-9
    from usdjoints.sim.api import mass_matrix

    masses = {"/World/Crank": 0.5, "/World/Coupler": 1.0, "/World/Rocker": 0.5}
    names = list(model.body_names)
    energy = []
    for k in range(0, len(trajectory.t), 50):
        M = mass_matrix(model, q[k])
        kinetic = 0.5 * trajectory.qd[k] @ M @ trajectory.qd[k]
        potential = sum(m * 9.81 * trajectory.body_poses[k, names.index(b), 2] for b, m in masses.items())
        energy.append(kinetic + potential)
    assert np.ptp(energy) < 1e-5


def _four_bar_closed_by(closing: str) -> str:
    """sample_stages/four_bar_loop.usda with its loop-closing hinge (RockerGround, about Y)
    replaced by ``closing``, the text of the new joint's header and type-specific lines."""
    text = FOUR_BAR.read_text()
    start = text.index('    def PhysicsRevoluteJoint "RockerGround"')
    header_end = text.index("{", start)
    axis_line = '        uniform token physics:axis = "Y"\n'
    body = text[header_end:text.index("    }\n", header_end)]
    assert axis_line in body
    return text[:start] + closing + body.replace(axis_line, "") + text[text.index("    }\n", header_end):]


D6_LOCKS = "".join(f"""
        float limit:{axis}:physics:low = 1
        float limit:{axis}:physics:high = -1""" for axis in ("transX", "transY", "transZ", "rotX", "rotZ"))


def test_d6_loop_closure_with_one_free_rotation_is_the_hinge(tmp_path):
    """Oracle: a D6 whose only free axis is rotY is the hinge about Y: the four-bar closed by it
    moves exactly as the one closed by the revolute joint (the same rows)."""
    hinge = FOUR_BAR
    d6 = tmp_path / "d6.usda"
    apis = ", ".join(f'"PhysicsLimitAPI:{a}"' for a in ("transX", "transY", "transZ", "rotX", "rotZ"))
    text = _four_bar_closed_by(f'    def PhysicsJoint "RockerGround" (prepend apiSchemas = [{apis}])\n')
    d6.write_text(text.replace("bool physics:excludeFromArticulation = 1", "bool physics:excludeFromArticulation = 1"
                               + D6_LOCKS))
    a = simulate(load_model(str(hinge)), 0.3, 1e-3)
    b = simulate(load_model(str(d6)), 0.3, 1e-3)
    assert np.array_equal(a.q, b.q)
