"""Loop-closing D6 joints whose locked axes make no hinge, slider, ball or weld: held as the tree
holds a D6, Tx Ty Tz Rx Ry Rz over its free axes (a locked translation keeps body1's anchor off
that axis of body0's frame; free rotations turn as hinges in that order).

Oracles, on one free body whose anchor is its centre of mass, joined to the world only by the
closure: Newton's first law along and about the free axes (a torque-free principal-axis spin and a
uniform slide stay as they start, in closed form), the constraint's own residual (the locked
coordinate stays 0 for the whole run), and the KKT projection of the start velocity (a start
rate about a locked axis of a body with diagonal inertia is removed, the rest kept).
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from sim_stages import body, stage
from usdjoints.model.build import load_model
from usdjoints.sim import api

INERTIA = (0.1, 0.2, 0.3)
START = (0.25, -0.5, 1.0)  # exact in the float32 localPos0


def _closure(locked: tuple[str, ...]) -> str:
    schemas = ", ".join(f'"PhysicsLimitAPI:{a}"' for a in locked)
    limits = "".join(f"        float limit:{a}:physics:low = 1\n        float limit:{a}:physics:high = -1\n"
                     for a in locked)
    return f"""    def PhysicsJoint "Closure" (prepend apiSchemas = [{schemas}])
    {{
        rel physics:body1 = </World/Box>
        bool physics:excludeFromArticulation = 1
        point3f physics:localPos0 = {START}
{limits}    }}
"""


def _run(tmp_path, locked, velocity=(0, 0, 0), spin_deg=(0, 0, 0), gravity=9.81, duration=1.0):
    extra = (f"        vector3f physics:velocity = {tuple(velocity)}\n"
             f"        vector3f physics:angularVelocity = {tuple(spin_deg)}\n")
    path = tmp_path / "closure.usda"
    path.write_text(stage(body("Box", 1.0, INERTIA, translate=START, extra=extra) + _closure(locked), gravity))
    model = load_model(str(path))
    assert model.loop_names == ("/World/Closure",)
    trajectory = api.simulate(model, duration, 1e-3)
    return trajectory.t, trajectory.body_poses[:, 0, :3], trajectory.body_poses[:, 0, 3:]


def _matrices(quaternions):
    w, x, y, z = quaternions.T
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
        np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
        np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1)], -2)


def test_point_on_a_plane_slides_and_spins_freely(tmp_path):
    """transZ locked, the rest free: gravity along -z is held, a slide along x and a spin about the
    principal z axis go on unchanged."""
    t, p, quat = _run(tmp_path, ("transZ",), velocity=(1.0, 0.5, 0.0), spin_deg=(0, 0, math.degrees(2.0)))
    assert np.abs(p[:, 2] - START[2]).max() < 1e-9
    assert np.allclose(p[:, 0], START[0] + t, atol=1e-9) and np.allclose(p[:, 1], START[1] + 0.5 * t, atol=1e-9)
    angle = np.unwrap(2.0 * np.arctan2(quat[:, 3], quat[:, 0]))
    assert np.allclose(angle, 2.0 * t, atol=1e-9)


@pytest.mark.parametrize("locked, free_first, free_second", [("rotY", 0, 2), ("rotZ", 0, 1), ("rotX", 1, 2)])
def test_one_locked_rotation_keeps_the_hinge_chain(tmp_path, locked, free_first, free_second):
    """One rotation locked, translations free: A's first free axis stays normal to B's second.
    A spin about the first free axis (principal) goes on at its start rate; the start rate about the
    locked axis is projected out (diagonal inertia: removed outright)."""
    spin = [0.0, 0.0, 0.0]
    spin[free_first] = math.degrees(2.0)
    spin["XYZ".index(locked[-1])] = math.degrees(1.0)
    t, p, quat = _run(tmp_path, (locked,), spin_deg=tuple(spin), gravity=0.0)
    R = _matrices(quat)
    residual = R[:, free_first, free_second]  # world axis first . body axis second (A is the world)
    assert np.abs(residual).max() < 1e-9
    axis = np.eye(3)[free_first]
    # the body turns about its first free axis alone: that column of R stays the world axis
    assert np.allclose(R[:, :, free_first], axis, atol=1e-9)
    other = (free_first + 1) % 3
    e_other = R[:, :, other]
    angle = np.unwrap(np.arctan2(np.cross(np.eye(3)[other], e_other) @ axis, e_other @ np.eye(3)[other]))
    assert np.allclose(angle, 2.0 * t, atol=1e-9)
    assert np.abs(p - START).max() < 1e-9


def test_cylinder_slides_along_and_turns_about_its_axis(tmp_path):
    """transX and rotX free (a cylindrical joint, no loop type of its own): a slide and a spin along
    the principal x axis go on unchanged, gravity is held."""
    locked = ("transY", "transZ", "rotY", "rotZ")
    t, p, quat = _run(tmp_path, locked, velocity=(0.7, 0, 0), spin_deg=(math.degrees(3.0), 0, 0))
    assert np.allclose(p[:, 0], START[0] + 0.7 * t, atol=1e-9)
    assert np.abs(p[:, 1:] - START[1:]).max() < 1e-9
    angle = np.unwrap(2.0 * np.arctan2(quat[:, 1], quat[:, 0]))
    assert np.allclose(angle, 3.0 * t, atol=1e-9)
