"""Screw and gearbox joints move in usdjoints' simulator as SDFormat defines them.

Oracles: SDFormat's own relations, measured on the simulated bodies' world poses (not on the
converter's coordinates): screw: translation of the nut along the screw axis = thread_pitch
[m/rad] x its rotation about that axis (the reader resolves SDFormat's two pitch elements to one
signed pitch); gearbox: theta_child = -ratio x theta_parent, both angles about
the gearbox axis relative to the reference body. Tolerance 1e-7: the simulator projects the
coupling exactly each step; float32 poses in USD bound the rest.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from usdjoints.convert import convert_sdformat
from usdjoints.model.build import load_model
from usdjoints.model.rotation import angle_about, quat_to_matrix
from usdjoints.sim.api import simulate

FIXTURES = Path(__file__).resolve().parents[2] / "data" / "sdf_fixtures" / "couplings"
THREAD_PITCH = 0.25 / (2.0 * math.pi)  # screw.sdf: <screw_thread_pitch> 0.25 m per turn [m/rad]


def _run(tmp_path, name: str, duration: float = 0.5):
    out = tmp_path / f"{name}.usda"
    convert_sdformat(FIXTURES / f"{name}.sdf", out)
    model = load_model(out)
    return model, simulate(model, duration, 1e-3)


def _pose(trajectory, model, body: str, frame: int):
    index = model.body_names.index(body)
    pose = trajectory.body_poses[frame, index]
    return pose[:3], quat_to_matrix(pose[3:])


def test_screw_translates_thread_pitch_per_radian(tmp_path):
    model, trajectory = _run(tmp_path, "screw")
    p0, R_previous = _pose(trajectory, model, "/screw/nut", 0)
    axis = np.array([0.0, 0.0, 1.0])
    moved, rotation = 0.0, 0.0
    for frame in range(1, len(trajectory.t)):
        p, R = _pose(trajectory, model, "/screw/nut", frame)
        rotation += angle_about(R_previous.T @ R, axis)  # summed per step: the nut turns past half a turn
        R_previous = R
        translation = float((p - p0) @ axis)
        assert translation == pytest.approx(THREAD_PITCH * rotation, abs=1e-7)
        moved = max(moved, abs(translation))
    assert moved > 1e-3  # gravity really drove the nut down the thread


@pytest.mark.parametrize("name", ["gearbox", "gearbox_flipped_hinge"])
def test_gearbox_holds_its_ratio(tmp_path, name):
    model, trajectory = _run(tmp_path, name)
    axis = np.array([0.0, 1.0, 0.0])
    _, R_in0 = _pose(trajectory, model, f"/{name}/gear_in", 0)
    _, R_out0 = _pose(trajectory, model, f"/{name}/gear_out", 0)
    turned = 0.0
    for frame in range(1, len(trajectory.t)):
        _, R_in = _pose(trajectory, model, f"/{name}/gear_in", frame)
        _, R_out = _pose(trajectory, model, f"/{name}/gear_out", frame)
        theta_in, theta_out = angle_about(R_in0.T @ R_in, axis), angle_about(R_out0.T @ R_out, axis)
        assert theta_out == pytest.approx(-2.0 * theta_in, abs=1e-7)
        turned = max(turned, abs(theta_in))
    assert turned > 1e-2  # gravity really turned the input gear
