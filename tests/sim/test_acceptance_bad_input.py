"""Acceptance: `usdjoints simulate` on bad input exits with status 2 and a one-line message that
names the offending prim (or option), never a traceback and never a partial output file.

Oracle: the CLI contract (exit code 2, `usdjoints: error:` line naming the prim) checked on stages
that each carry exactly one defect (written in this file or by tests/sim_stages.py), with a
well-formed twin where one is needed to show the defect is what gets rejected.
"""
from __future__ import annotations

import pytest

import sim_stages
from usdjoints import cli

HEADER = """#usda 1.0
(
    metersPerUnit = 1
    kilogramsPerUnit = 1
    upAxis = "Z"
)
"""

# mass 0 means "compute it": from the cube's volume at the default density, so this one is fine
MASS_FROM_SHAPE = HEADER + """
def Xform "World"
{
    def Cube "Brick" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI", "PhysicsCollisionAPI"])
    {
        float physics:mass = 0
        double size = 0.1
    }
}
"""

PENDULUM = HEADER + """
def Xform "World"
{
    def Cube "Bob" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
    {
        float physics:mass = 1
        float3 physics:diagonalInertia = (0.01, 0.01, 0.01)
        double3 xformOp:translate = (0, 0, -1)
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }
    def PhysicsRevoluteJoint "Hinge"
    {
        uniform token physics:axis = "Y"
        rel physics:body1 = </World/Bob>
        point3f physics:localPos1 = (0, 0, 1)
    }
}
"""


def _run(tmp_path, capsys, text, *options):
    """Run on a sample stage (a name) or on stage text written to tmp_path."""
    if text in sim_stages.STAGES:
        stage = sim_stages.path(text)
    else:
        stage = tmp_path / "stage.usda"
        stage.write_text(text)
    out = tmp_path / "trajectory.npz"
    code = cli.main(["simulate", str(stage), "--duration", "0.01", "--out", str(out), *options])
    captured = capsys.readouterr()
    return code, captured.err, out, stage


def _assert_rejected(code, err, out, *names):
    assert code == 2, err
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("usdjoints: error:"), err
    for name in names:
        assert name in lines[0], err
    assert not out.exists()


def test_massless_dynamic_body_simulates_as_physx(tmp_path, capsys):
    """A dynamic body with no mass and no collider is not refused: PhysX simulates it (with its
    default mass, tests/sim/test_default_mass.py), so the run succeeds and writes its output."""
    code, err, out, _ = _run(tmp_path, capsys, "massless_body")
    assert code == 0, err
    assert out.exists()


def test_mass_zero_is_computed_from_the_shape(tmp_path, capsys):
    """Oracle: UsdPhysics' rule that mass 0 means 'derive it from the colliders'; the same
    defect-free twin of the massless body runs (a cube falls freely)."""
    code, err, out, _ = _run(tmp_path, capsys, MASS_FROM_SHAPE)
    assert code == 0, err
    assert out.exists()


@pytest.mark.parametrize("dt", ["-0.001", "0"])
def test_non_positive_dt(tmp_path, capsys, dt):
    """A step that is not positive: exit 2, naming the option."""
    code, err, out, _ = _run(tmp_path, capsys, PENDULUM, "--dt", dt)
    _assert_rejected(code, err, out, "--dt")


def test_good_twin_runs(tmp_path, capsys):
    """The pendulum the dt cases use is itself fine: exit 0 and a trajectory file."""
    code, err, out, _ = _run(tmp_path, capsys, PENDULUM)
    assert code == 0, err
    assert out.exists()


@pytest.mark.parametrize("attribute, value, said", [
    ("drive:angular:physics:damping", "inf", "drive damping inf"),
    ("drive:angular:physics:damping", "-inf", "drive damping -inf"),
    ("drive:angular:physics:stiffness", "inf", "drive stiffness inf"),
    ("drive:angular:physics:targetPosition", "nan", "drive target position nan"),
    ("drive:angular:physics:targetVelocity", "-inf", "drive target velocity -inf"),
])
def test_gain_or_target_not_finite(tmp_path, capsys, attribute, value, said):
    """A drive gain or target that is not finite is refused before the run,
    naming the joint (it was reported as the pendulum diverging at its first step, 'passed inf
    rad/s'); the same pendulum with finite values is test_good_twin_runs."""
    text = PENDULUM.replace('def PhysicsRevoluteJoint "Hinge"',
                            'def PhysicsRevoluteJoint "Hinge" (prepend apiSchemas = ["PhysicsDriveAPI:angular"])')
    text = text.replace('uniform token physics:axis = "Y"', f'uniform token physics:axis = "Y"\n        float {attribute} = {value}')
    code, err, out, _ = _run(tmp_path, capsys, text)
    _assert_rejected(code, err, out, "/World/Hinge", said)
