"""Drives of loop-closing hinges and sliders (kernels/limits.py drive_impulses), as PhysX drives a
joint outside the articulation: an implicit spring-damper on the joint's bound row.

Oracles: closed forms of the driven rest (a rod hinged about Y by a joint in the tree and by an
excluded hinge on the same axis whose drive holds it against gravity; a box on a slider held by an
excluded slider's drive), the free fall of a drive too weak to hold (a = g - maxForce / m), and
ovphysx 0.7 on the same stages. Two of PhysX's readings are measured here rather than assumed:
its hinge spring pulls with stiffness x 2 sin(e / 2) for the angle error e (its D6 drive's
quaternion error; e itself would rest a weak drive 1.2 deg away on the reversed rod), and an
acceleration drive's gains are scaled by the inertia the row sees from its two bodies as free
bodies (the rod's 1/12 kg m^2 about its centre, not the 1/3 it shows about the pivot).
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

from sim_stages import body, stage
from usdjoints.model.build import load_model
from usdjoints.sim import api

EXCLUDED = "        bool physics:excludeFromArticulation = 1\n"
REPO = Path(__file__).resolve().parents[2]
G = float(np.float32(9.81))  # sim_stages' gravity [m/s^2], a float attribute
ROD_TORQUE = 0.5 * G   # the 1 kg, 1 m rod's gravity torque about the pivot when level [N m]


def _drive(kind, stiffness, damping, target, max_force=None, type_=None) -> str:
    text = (f"        float drive:{kind}:physics:stiffness = {stiffness}\n"
            f"        float drive:{kind}:physics:damping = {damping}\n"
            f"        float drive:{kind}:physics:targetPosition = {target}\n")
    if max_force is not None:
        text += f"        float drive:{kind}:physics:maxForce = {max_force}\n"
    if type_ is not None:
        text += f'        uniform token drive:{kind}:physics:type = "{type_}"\n'
    return text


def _joint(kind, name, axis, sides, extra="", schemas=()) -> str:
    rels = "".join(f"        rel physics:{side} = </World/{target}>\n" for side, (target, _) in sides.items() if target)
    poses = "".join(f"        point3f physics:localPos{side[-1]} = {pos}\n" for side, (_, pos) in sides.items())
    api_schemas = f' (prepend apiSchemas = [{", ".join(f"{s!r}" for s in schemas)}])'.replace("'", '"') if schemas else ""
    return (f'    def Physics{kind}Joint "{name}"{api_schemas}\n    {{\n'
            f'        uniform token physics:axis = "{axis}"\n{rels}{poses}{extra}    }}\n')


def _rod_stage(tmp_path, reversed_=False, kind="Revolute", **drive) -> Path:
    """A 1 kg rod 1 m long along +x hinged about Y at the origin (Pivot, in the tree) and again
    by an excluded joint (Held) with an angular drive, authored world -> rod or rod -> world."""
    rod = body("Rod", 1.0, (0.01, 1.0 / 12, 1.0 / 12), translate=(0.5, 0, 0))
    pivot = _joint("Revolute", "Pivot", "Y", {"body1": ("Rod", (-0.5, 0, 0))})
    side = {"body0": ("Rod", (-0.5, 0, 0))} if reversed_ else {"body1": ("Rod", (-0.5, 0, 0))}
    held = _joint(kind, "Held", "Y", side, EXCLUDED + _drive("angular", **drive), ["PhysicsDriveAPI:angular"])
    path = tmp_path / "rod.usda"
    path.write_text(stage(rod + pivot + held))
    return path


def _slider_stage(tmp_path, **drive) -> Path:
    """A 2 kg box on a slider along Z (Rail, in the tree) and an excluded slider on the same axis
    (Stop) whose linear drive holds it."""
    box = body("Box", 2.0, (0.01, 0.01, 0.01), translate=(0, 0, 1))
    sides = {"body0": (None, (0, 0, 1)), "body1": ("Box", (0, 0, 0))}  # the world's frame at the box
    rail = _joint("Prismatic", "Rail", "Z", sides)
    stop = _joint("Prismatic", "Stop", "Z", sides, EXCLUDED + _drive("linear", **drive),
                  ["PhysicsDriveAPI:linear"])
    path = tmp_path / "slider.usda"
    path.write_text(stage(box + rail + stop))
    return path


def _simulate(path, duration):
    model = load_model(str(path))
    assert "loop-joint-drive-ignored" not in {d.code for d in model.diagnostics}
    return api.simulate(model, duration, 1e-3).q[:, 0]


def _root(f, lo, hi) -> float:
    """The root of f in [lo, hi] by bisection (f changes sign there)."""
    f_lo = f(lo)
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if (f(mid) > 0.0) == (f_lo > 0.0):
            lo, f_lo = mid, f(mid)
        else:
            hi = mid
    return 0.5 * (lo + hi)


def _rod_rest(target_deg, k, reversed_) -> float:
    """Pivot's rest angle [deg]: the spring k 2 sin(e / 2) on Held's error e (Held's angle is
    Pivot's, or its negative when authored rod -> world) balances gravity's torque."""
    sign = -1.0 if reversed_ else 1.0
    target = math.radians(target_deg)

    def torque(theta):
        error = target - sign * theta
        return sign * k * 2.0 * math.sin(0.5 * error) + ROD_TORQUE * math.cos(theta)
    return math.degrees(_root(torque, -1.5, 1.5))


@pytest.mark.parametrize("reversed_", [False, True])
def test_a_weak_hinge_drive_holds_the_rod_at_its_rest(tmp_path, reversed_):
    """0.1 N m/deg towards +30 deg: the rod rests 27 (or 47) deg from the target, where the
    sine error (not the angle error, 0.16 and 1.17 deg away) balances gravity."""
    k = 0.1 * 180.0 / math.pi
    q = _simulate(_rod_stage(tmp_path, reversed_, stiffness=0.1, damping=0.05, target=30), 8.0)
    assert abs(math.degrees(q[-1]) - _rod_rest(30.0, k, reversed_)) < 0.02


def test_a_stiff_hinge_drive_is_stable_at_the_default_step(tmp_path):
    """1e9 N m/deg and 1e6 N m s/deg on a 1 kg rod at dt = 1 ms (an explicit spring would need
    dt < 2e-6 s): the rod sits on the target."""
    q = _simulate(_rod_stage(tmp_path, stiffness=1e9, damping=1e6, target=30), 1.0)
    assert abs(math.degrees(q[-1]) - 30.0) < 1e-5
    assert max(abs(math.degrees(x)) for x in q) < 30.0 + 1e-5


def test_an_acceleration_hinge_drive_scales_by_the_rods_own_inertia(tmp_path):
    """An acceleration drive 1 N m/deg per kg m^2: its gains times the rod's 1/12 kg m^2 about
    its centre of mass (the inertia the row sees from the rod as a free body)."""
    k = 180.0 / math.pi / 12.0
    q = _simulate(_rod_stage(tmp_path, stiffness=1, damping=0.2, target=30, type_="acceleration"), 8.0)
    assert abs(math.degrees(q[-1]) - _rod_rest(30.0, k, False)) < 0.02


@pytest.mark.parametrize("type_, stiffness", [(None, 1000.0), ("acceleration", 2000.0)])
def test_a_slider_drive_holds_the_box(tmp_path, type_, stiffness):
    """1000 N/m towards +0.1 m: the box rests m g / k below the target (an acceleration drive's
    gains are per kg: times the box's 2 kg)."""
    q = _simulate(_slider_stage(tmp_path, stiffness=1000, damping=100, target=0.1, type_=type_), 3.0)
    assert abs(q[-1] - (0.1 - 2.0 * G / stiffness)) < 1e-5


def test_a_drive_too_weak_to_hold_lets_the_box_fall(tmp_path):
    """maxForce 10 N against the box's 19.6 N weight: it falls at g - 10 / 2 m/s^2 (semi-implicit
    Euler's x_n = -a dt^2 n (n + 1) / 2)."""
    q = _simulate(_slider_stage(tmp_path, stiffness=1000, damping=100, target=0.1, max_force=10), 3.0)
    a, dt, n = G - 5.0, 1e-3, 3000
    assert abs(q[-1] + a * dt * dt * n * (n + 1) / 2.0) < 1e-6


def test_a_d6_drive_with_two_free_axes_is_still_reported(tmp_path):
    """An excluded D6 free about X and Y (no hinge, no bound row): its rotX drive is not
    simulated, and said so; the rod's motion is the undriven one."""
    locked = ("transX", "transY", "transZ", "rotZ")
    schemas = ", ".join(f'"PhysicsLimitAPI:{a}"' for a in locked) + ', "PhysicsDriveAPI:rotX"'
    limits = "".join(f"        float limit:{a}:physics:low = 1\n        float limit:{a}:physics:high = -1\n"
                     for a in locked)
    held = (f'    def PhysicsJoint "Held" (prepend apiSchemas = [{schemas}])\n    {{\n'
            f"        rel physics:body1 = </World/Rod>\n        point3f physics:localPos1 = (-0.5, 0, 0)\n"
            f"{EXCLUDED}{limits}{_drive('rotX', 1, 0.2, 30)}    }}\n")
    rod = body("Rod", 1.0, (0.01, 1.0 / 12, 1.0 / 12), translate=(0.5, 0, 0))
    path = tmp_path / "d6.usda"
    path.write_text(stage(rod + _joint("Revolute", "Pivot", "Y", {"body1": ("Rod", (-0.5, 0, 0))}) + held))
    model = load_model(str(path))
    notes = [d for d in model.diagnostics if d.code == "loop-joint-drive-ignored"]
    assert [d.message for d in notes] == ["drives of a loop-closing joint are not simulated"]
    assert model.distance_names == ()


@pytest.mark.oracle
def test_the_driven_rests_agree_with_physx(tmp_path):
    """ovphysx 0.7 on the same stages: the joint in the tree ends where PhysX's does, to 0.2 deg
    and 0.2 mm (measured: 0.02 and 0.06 deg on the weak drive, 0.09 and 0.11 on the acceleration
    drive, 0.06 and 0.08 mm on the slider)."""
    sys.path.insert(0, str(REPO / "tests" / "oracle"))
    from ovphysx_runner import ovphysx_available, run_ovphysx_probe

    if not ovphysx_available():
        pytest.skip("ovphysx is not installed (pip install usdjoints[oracle])")
    cases = [(_rod_stage, dict(stiffness=0.1, damping=0.05, target=30), False, "Pivot", 8.0),
             (_rod_stage, dict(stiffness=0.1, damping=0.05, target=30), True, "Pivot", 8.0),
             (_rod_stage, dict(stiffness=1, damping=0.2, target=30, type_="acceleration"), False, "Pivot", 8.0),
             (_slider_stage, dict(stiffness=1000, damping=100, target=0.1), None, "Rail", 3.0),
             (_slider_stage, dict(stiffness=1000, damping=100, target=0.1, type_="acceleration"), None, "Rail", 3.0)]
    for make, drive, reversed_, joint, duration in cases:
        path = make(tmp_path, **drive) if reversed_ is None else make(tmp_path, reversed_, **drive)
        ours = _simulate(path, duration)[-1]
        theirs = run_ovphysx_probe(path, steps=round(duration / 1e-3), dt=1e-3)["joints"][f"/World/{joint}"]["displacement"]
        tolerance = 2e-4 if joint == "Rail" else math.radians(0.2)
        assert abs(ours - theirs) < tolerance, (path.name, drive, reversed_, ours, theirs)


def test_a_drive_far_from_its_target_is_motion_not_divergence(tmp_path):
    """1000 N/m towards +80 m on the 2 kg box: the box swings at sqrt(k / m) = 22 rad/s through
    80 m, passing 1,700 m/s, far past the 100 m/s that the stage's own size would call a
    divergence; the excluded slider's drive sets the run's speed scale (divergence.bounds). Oracle:
    the implicit step's recurrence on the linear spring, v' = (v - h g + h k / m (target - x)) /
    (1 + h^2 k / m), x' = x + h v'."""
    k, m, target, h, n = 1000.0, 2.0, 80.0, 1e-3, 200
    q = _simulate(_slider_stage(tmp_path, stiffness=k, damping=0, target=target), n * h)
    x, v, expected = 0.0, 0.0, [0.0]
    for _ in range(n):
        v = (v - h * G + h * k / m * (target - x)) / (1.0 + h * h * k / m)
        x += h * v
        expected.append(x)
    assert np.allclose(q, expected, rtol=1e-9, atol=1e-9)
    assert np.abs(np.diff(q)).max() / h > 1000.0
