"""Distance joints (PhysicsDistanceJoint): held outside the tree, as PhysX holds them, with the
anchors' distance kept within [minDistance, maxDistance] by the limit solve (sim/kernels/limits.py).

Oracles: the point pendulum's equation of motion (a ball on a taut rope whose spin is free),
integrated here by RK4 at 1e-5 s; semi-implicit Euler free fall while the rope is slack;
conservation of linear momentum between two bodies the rope ties (an internal force); and
ovphysx 0.7 on the same stage (marked oracle).
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

import sim_stages
from sim_stages import ROPE
from usdjoints import cli
from usdjoints.model.build import load_model
from usdjoints.sim import api

REPO = Path(__file__).resolve().parents[2]
G = 9.81

HEADER = """#usda 1.0
(
    metersPerUnit = 1
    kilogramsPerUnit = 1
    upAxis = "Z"
)
def PhysicsScene "scene"
{
    vector3f physics:gravityDirection = (0, 0, -1)
    float physics:gravityMagnitude = %(gravity)s
}
"""


def _ball(name, x, z, mass=1.0, velocity=(0.0, 0.0, 0.0)):
    return f"""def Xform "{name}" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
{{
    double3 xformOp:translate = ({x}, 0, {z})
    uniform token[] xformOpOrder = ["xformOp:translate"]
    float physics:mass = {mass}
    float3 physics:diagonalInertia = (0.001, 0.001, 0.001)
    vector3f physics:velocity = {velocity}
}}
"""


def _rope(name, body0, body1, pos0, extra):
    rel0 = f"    rel physics:body0 = </{body0}>\n" if body0 else ""
    return f"""def PhysicsDistanceJoint "{name}"
{{
{rel0}    rel physics:body1 = </{body1}>
    point3f physics:localPos0 = {pos0}
    point3f physics:localPos1 = (0, 0, 0)
{extra}}}
"""


def _point_pendulum(duration, step=1e-5):
    """(x, z) of a point pendulum of length L hung at the anchor, released with the rope
    horizontal: phi'' = g cos(phi) / L for the angle phi below the horizontal (RK4)."""
    L = ROPE["length"]

    def rate(phi, w):
        return w, G * math.cos(phi) / L

    phi, w = 0.0, 0.0
    for _ in range(int(round(duration / step))):
        k1 = rate(phi, w)
        k2 = rate(phi + 0.5 * step * k1[0], w + 0.5 * step * k1[1])
        k3 = rate(phi + 0.5 * step * k2[0], w + 0.5 * step * k2[1])
        k4 = rate(phi + step * k3[0], w + step * k3[1])
        phi += step / 6.0 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0])
        w += step / 6.0 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1])
    ax, _, az = ROPE["anchor"]
    return np.array([ax + L * math.cos(phi), az - L * math.sin(phi)])


def _ball_path(model, duration, dt):
    tr = api.simulate(model, duration, dt, record_every=1)
    return tr.t, tr.body_poses[:, 0, :3]


def test_rope_pendulum_follows_the_point_pendulum():
    """The ball on the taut rope swings as a point pendulum: first-order (Euler) error, 10 times
    smaller at a 10 times smaller step; the rope stretches by less than 0.1 mm."""
    model = load_model(sim_stages.path("rope_pendulum"))
    assert model.distance_names == ("/World/Rope",) and model.nlink == 1  # a lone free ball
    exact = _point_pendulum(0.5)
    errors = []
    for dt in (1e-3, 1e-4):
        t, p = _ball_path(model, 0.5, dt)
        length = np.linalg.norm(p - np.array(ROPE["anchor"]), axis=1)
        assert length.max() < ROPE["length"] + 1e-4 and length.min() > ROPE["length"] - 1e-4
        errors.append(float(np.linalg.norm(p[-1, [0, 2]] - exact)))
    print(f"\nrope pendulum at 0.5 s: |error| {errors[0]:.2e} m (dt 1e-3), {errors[1]:.2e} m (dt 1e-4)")
    assert errors[0] < 3e-3 and errors[1] < errors[0] / 5


def test_slack_rope_lets_the_ball_fall_until_taut(tmp_path):
    """Hung 0.5 m below the anchor on a 1 m rope, the ball falls as semi-implicit Euler falls
    (z_n = z0 - g h^2 n (n + 1) / 2) until the rope is taut, then hangs 1 m below, at rest."""
    stage = tmp_path / "slack.usda"
    stage.write_text(HEADER % {"gravity": G} + _ball("Ball", 0, 1.5)
                     + _rope("Rope", None, "Ball", (0, 0, 2), "    float physics:maxDistance = 1\n"))
    model = load_model(stage)
    h = 1e-3
    t, p = _ball_path(model, 1.0, h)
    n = np.arange(len(t))
    g = float(np.linalg.norm(model.gravity))  # 9.81 as the stage's float32 holds it
    free = 1.5 - g * h * h * n * (n + 1) / 2
    slack = free > 1.0 + 1e-9
    assert np.abs(p[slack, 2] - free[slack]).max() < 1e-12
    assert p[:, 2].min() > 1.0 - 1e-4  # never more than 0.1 mm past the rope's length
    assert abs(p[-1, 2] - 1.0) < 1e-4 and np.abs(p[-20:, 2] - 1.0).max() < 1e-4


def test_min_distance_holds_a_strut(tmp_path):
    """minDistance alone: a ball 1 m above its anchor with minDistance 1 stays there under
    gravity (without the joint it falls)."""
    stage = tmp_path / "strut.usda"
    stage.write_text(HEADER % {"gravity": G} + _ball("Ball", 0, 3)
                     + _rope("Strut", None, "Ball", (0, 0, 2), "    float physics:minDistance = 1\n"))
    t, p = _ball_path(load_model(stage), 1.0, 1e-3)
    assert np.abs(p[:, 2] - 3.0).max() < 1e-4 and np.abs(p[:, 0]).max() < 1e-9


def test_min_above_max_holds_a_rod_at_max(tmp_path):
    """minDistance 1.5 above maxDistance 1, the ball 1 m above its anchor: held at 1 m against
    gravity, as ovphysx 0.7 holds it (measured: 1.025 m after 0.3 s, at rest; with maxDistance
    alone the ball falls towards the anchor). Oracle: that measurement, and the closed form."""
    stage = tmp_path / "rod.usda"
    stage.write_text(HEADER % {"gravity": G} + _ball("Ball", 0, 3)
                     + _rope("Rod", None, "Ball", (0, 0, 2), "    float physics:minDistance = 1.5\n"
                             "    float physics:maxDistance = 1\n"))
    model = load_model(stage)
    assert model.distance_bounds.tolist() == [[1.0, 1.0]]
    assert any(d.code == "distance-min-above-max" for d in model.diagnostics)
    t, p = _ball_path(model, 0.3, 1e-3)
    assert np.abs(p[:, 2] - 3.0).max() < 1e-4


def test_rope_between_two_bodies_keeps_their_momentum(tmp_path):
    """Two free bodies flying apart (no gravity) until a 1.5 m rope between them is taut: the
    rope's pull is internal, so the total linear momentum and the straight uniform path of their
    centre of mass are kept, and the distance stops at 1.5 m."""
    stage = tmp_path / "pair.usda"
    stage.write_text(HEADER % {"gravity": 0} + _ball("A", 0, 0, 1.0, (-1.0, 0.2, 0.0))
                     + _ball("B", 1, 0, 3.0, (1.0, 0.0, 0.3))
                     + _rope("Rope", "A", "B", (0, 0, 0), "    float physics:maxDistance = 1.5\n"))
    model = load_model(stage)
    tr = api.simulate(model, 2.0, 1e-3, record_every=10)
    masses = np.array([1.0, 3.0])
    names = list(tr.body_names)
    p = tr.body_poses[:, [names.index("/A"), names.index("/B")], :3]
    com = (masses[None, :, None] * p).sum(axis=1) / masses.sum()
    start_velocity = (1.0 * np.array([-1.0, 0.2, 0.0]) + 3.0 * np.array([1.0, 0.0, 0.3])) / 4.0
    expected = com[0] + tr.t[:, None] * start_velocity
    assert np.abs(com - expected).max() < 1e-6
    distance = np.linalg.norm(p[:, 1] - p[:, 0], axis=1)
    assert distance.max() < 1.5 + 1e-4 and distance[-1] > 1.5 - 1e-3


def test_sample_distance_stage_simulates(tmp_path, capsys):
    """sample_stages/distance_minmax.usda, refused until the simulator held distance joints,
    runs from the command line (exit 0)."""
    out = tmp_path / "run.npz"
    stage = REPO / "sample_stages" / "distance_minmax.usda"
    assert cli.main(["simulate", str(stage), "--duration", "1", "--out", str(out)]) == 0, capsys.readouterr().err
    assert out.exists()


@pytest.mark.oracle
def test_rope_pendulum_matches_physx():
    """ovphysx 0.7 on the sample stage, 500 steps of 1 ms: the ball's final position agrees to
    1 cm (PhysX's own rope stretched by 6 mm here, ours by less than 0.1 mm)."""
    sys.path.insert(0, str(REPO / "tests" / "oracle"))
    from ovphysx_runner import ovphysx_available, run_ovphysx_probe

    if not ovphysx_available():
        pytest.skip("ovphysx is not installed (pip install usdjoints[oracle])")
    stage = sim_stages.path("rope_pendulum")
    physx = np.array(run_ovphysx_probe(stage, steps=500, dt=1e-3)["bodies"]["/World/Ball"]["final"]["position"])
    _, p = _ball_path(load_model(stage), 0.5, 1e-3)
    print(f"\nrope pendulum at 0.5 s: PhysX {physx.round(4)}, usdjoints {p[-1].round(4)}")
    assert np.linalg.norm(physx - p[-1]) < 1e-2
