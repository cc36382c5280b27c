"""A stage with no dynamic rigid body (a ground, a runway, a world of static props, a bare shape)
is stepped as PhysX steps it: nothing moves, the run succeeds and says so in one warning line.

Oracle: ovphysx 0.7 on the same stages (its probe steps them, exit 0, and reports no articulation and no
body that moves); for usdjoints, the closed form of an empty state: zero coordinates at every
recorded time from 0 to the duration.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import sim_stages
from usdjoints import cli
from usdjoints.model.build import load_model
from usdjoints.sim import api

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "oracle"))
from ovphysx_runner import ovphysx_available, run_ovphysx_probe  # noqa: E402

HEADER = sim_stages.BAD_HEADER  # units in metres and kilograms, Z up

GROUND = HEADER + """
def PhysicsScene "Scene"
{
}
def Xform "World"
{
    def Plane "Ground" (prepend apiSchemas = ["PhysicsCollisionAPI"])
    {
        uniform token axis = "Z"
    }
    def Cube "Prop" (prepend apiSchemas = ["PhysicsCollisionAPI"])
    {
        double3 xformOp:translate = (0, 0, 0.5)
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }
}
"""

KINEMATIC = HEADER + """
def Xform "World"
{
    def Cube "Lift" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI"])
    {
        bool physics:kinematicEnabled = 1
    }
}
"""

STAGES = {"ground": GROUND, "bare shape": sim_stages.no_bodies(), "kinematic body": KINEMATIC}


@pytest.fixture(params=list(STAGES))
def static_stage(request, tmp_path):
    path = tmp_path / "static.usda"
    path.write_text(STAGES[request.param])
    return path


@pytest.mark.skipif(not ovphysx_available(), reason="needs ovphysx (the oracle extra)")
def test_physx_steps_a_stage_with_nothing_dynamic(static_stage):
    report = run_ovphysx_probe(static_stage, steps=10, dt=1e-3)
    assert report["articulations"] == []
    assert report["time"] == pytest.approx(0.01)
    for body in report["bodies"].values():  # a kinematic body is reported, and stays put
        assert body["final"]["position"] == body["initial"]["position"]
        assert body["final"]["linear_velocity"] == [0.0, 0.0, 0.0]
        assert body["final"]["angular_velocity"] == [0.0, 0.0, 0.0]


def test_simulate_runs_and_says_nothing_moves(static_stage, tmp_path, capsys):
    out = tmp_path / "trajectory.npz"
    code = cli.main(["simulate", str(static_stage), "--duration", "0.05", "--fps", "100",
                     "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "Traceback" not in err
    assert "no dynamic rigid body" in err and "nothing moves" in err
    data = np.load(out)
    np.testing.assert_allclose(data["t"], np.linspace(0.0, 0.05, 6), atol=1e-12)
    assert data["q"].shape == (6, 0) and data["qd"].shape == (6, 0)  # one env: [T, nq]
    assert data["body_poses"].shape == (6, 0, 7)
    assert data["joint_names"].shape == (0,)


def test_api_gives_an_empty_model_and_trajectory(static_stage):
    model = load_model(static_stage)
    assert (model.nq, model.nv, model.nbody) == (0, 0, 0)
    assert any(d.code == "nothing-dynamic" for d in model.diagnostics)
    trajectory = api.simulate(model, 0.01, 1e-3, n_envs=3, record_every=5)
    assert np.asarray(trajectory.q).shape == (3, 3, 0)
    np.testing.assert_allclose(trajectory.t, [0.0, 0.005, 0.01], atol=1e-15)


def test_plot_of_nothing_moving_is_drawn(static_stage, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    plot = tmp_path / "plot.png"
    assert cli.main(["simulate", str(static_stage), "--duration", "0.01", "--plot", str(plot)]) == 0
    assert plot.read_bytes().startswith(b"\x89PNG")
