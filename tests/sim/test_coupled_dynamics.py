"""Couplings in the simulator: rack and pinion, gear, mimic, and a pulley built from two racks.

Oracles: the authored ratio read as PhysX states it (closed form), ovphysx 0.7 on the same stages
(marker ``oracle``), the Atwood machine's closed form, and pinocchio's mimic-aware model.
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

import usdjoints  # noqa: F401  (registers the PhysX schemas before any stage opens)
from samples import robots_dir
from usdjoints.model.build import load_model
from usdjoints.sim.api import forward_dynamics, simulate

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
sys.path.insert(0, str(TESTS / "oracle"))
sys.path.insert(0, str(TESTS))

# Couplings are projected exactly each step: the rows hold to rounding (1e-9 leaves 1e5 of margin).
RATIO_TOL = 1e-9
RACK_STAGES = [ROOT / "sample_stages" / "rack_and_pinion.usda", TESTS / "data/usd/rpd_ratio_90.usda",
               TESTS / "data/usd/rpd_ratio_unauthored.usda", TESTS / "data/usd/rp_ratio_unauthored.usda",
               ROOT / "sample_stages" / "clean" / "rack_pinion_driven.usda"]
GEAR_STAGES = [ROOT / "sample_stages" / "gear_pair.usda", TESTS / "data/usd/gear_ratio_2.usda",
               TESTS / "data/usd/gear_ratio_unauthored.usda", ROOT / "sample_stages" / "clean" / "gear_driven.usda"]


def _walk(path):
    from usdjoints.walker import walk

    return walk(str(path), consumer="usdjoints")


def _coupling_joint(description, kind):
    return next(j for j in description.joints if j.type == kind)


@pytest.mark.parametrize("path", RACK_STAGES, ids=lambda p: p.stem)
def test_rack_speed_is_pinion_speed_over_ratio_at_every_step(path):
    """Closed form: rack [length/s] = pinion [deg/s] / ratio [deg/length], at every step."""
    description = _walk(path)
    joint = _coupling_joint(description, "rack_and_pinion")
    model = load_model(str(path))
    trajectory = simulate(model, 0.5, 1e-3)
    w = trajectory.qd[:, model.v_slice(joint.coupling.hinge)][:, 0]
    v = trajectory.qd[:, model.v_slice(joint.coupling.prismatic)][:, 0]
    mpu = description.units.meters_per_unit.value
    residual = np.degrees(w) - joint.coupling.ratio * v / mpu
    scale = max(np.abs(np.degrees(w)).max(), 1.0)
    assert np.abs(residual).max() <= RATIO_TOL * scale
    q_w = trajectory.q[:, model.q_slice(joint.coupling.hinge)][:, 0]
    q_v = trajectory.q[:, model.q_slice(joint.coupling.prismatic)][:, 0]
    drift = np.degrees(q_w - q_w[0]) - joint.coupling.ratio * (q_v - q_v[0]) / mpu
    assert np.abs(drift).max() <= RATIO_TOL * max(np.abs(np.degrees(q_w - q_w[0])).max(), 1.0)


@pytest.mark.parametrize("path", GEAR_STAGES, ids=lambda p: p.stem)
def test_second_gear_turns_at_minus_ratio_at_every_step(path):
    """Closed form: w1 = -gearRatio w0 at every step, and the angles follow from the start."""
    joint = _coupling_joint(_walk(path), "gear")
    model = load_model(str(path))
    trajectory = simulate(model, 0.5, 1e-3)
    w0 = trajectory.qd[:, model.v_slice(joint.coupling.hinge0)][:, 0]
    w1 = trajectory.qd[:, model.v_slice(joint.coupling.hinge1)][:, 0]
    assert np.abs(w1 + joint.coupling.ratio * w0).max() <= RATIO_TOL * max(np.abs(w0).max(), 1.0)
    assert np.abs(w0[-1]) > 0.1  # the drive turns the first gear: the check is not vacuous
    q0 = trajectory.q[:, model.q_slice(joint.coupling.hinge0)][:, 0]
    q1 = trajectory.q[:, model.q_slice(joint.coupling.hinge1)][:, 0]
    assert np.abs((q1 - q1[0]) + joint.coupling.ratio * (q0 - q0[0])).max() <= RATIO_TOL


def test_ratio_zero_locks_the_pinion_and_leaves_the_rack_still():
    """PhysX (ovphysx 0.7, FACTS): ratio 0 keeps the rack still and the pinion's velocity 0."""
    path = TESTS / "data/usd/rpd_ratio_0.usda"
    model = load_model(str(path))
    trajectory = simulate(model, 0.5, 1e-3)
    assert np.abs(trajectory.qd[:, model.v_slice("/World/Hinge")]).max() <= RATIO_TOL
    assert np.abs(trajectory.q[:, model.q_slice("/World/Slider")] - trajectory.q[0, model.q_slice("/World/Slider")]).max() <= RATIO_TOL


def test_missing_relationship_creates_no_coupling():
    """PhysX creates no joint without physics:hinge: the pinion spins at its drive's 90 deg/s and
    the rack stays; the model says why (diagnostic)."""
    model = load_model(str(TESTS / "data/usd/rpd_no_hinge_rel.usda"))
    assert model.coupling_names == ()
    assert any(d.code == "coupling-not-created" for d in model.diagnostics)
    trajectory = simulate(model, 0.5, 1e-3)
    # a 1e5 N·m·s/deg damper on a 0.1 kg·m² pinion reaches its target within a step
    assert trajectory.qd[-1, model.v_slice("/World/Hinge")][0] == pytest.approx(math.radians(90.0), rel=1e-6)
    assert trajectory.qd[-1, model.v_slice("/World/Slider")][0] == 0.0


def _probe(path, steps=30, dt=1 / 60):
    import ovphysx_runner

    if not ovphysx_runner.ovphysx_available():
        pytest.skip("ovphysx is not installed")
    return ovphysx_runner.run_ovphysx_probe(str(path), steps=steps, dt=dt)


@pytest.mark.oracle
@pytest.mark.parametrize("path", [TESTS / "data/usd/rpd_ratio_90.usda", TESTS / "data/usd/rpd_ratio_unauthored.usda",
                                  TESTS / "data/usd/gear_ratio_2.usda", TESTS / "data/usd/gear_ratio_unauthored.usda",
                                  ROOT / "sample_stages" / "gear_pair.usda",
                                  ROOT / "sample_stages" / "rack_and_pinion.usda",
                                  ROOT / "sample_stages" / "clean" / "rack_pinion_driven.usda",
                                  ROOT / "sample_stages" / "clean" / "gear_driven.usda"], ids=lambda p: p.stem)
def test_speed_ratio_and_sign_match_physx(path):
    """ovphysx 0.7: the coupling's rate ratio (rack: hinge rad/s per prismatic length/s; gear:
    hinge1 / hinge0) has our value and sign (PhysX solves it iteratively: 1e-3 relative)."""
    report = _probe(path)
    name, physx = next(iter(report["couplings"].items()))
    model = load_model(str(path))
    trajectory = simulate(model, 0.5, 1 / 60)
    if physx["kind"] == "rack_and_pinion":
        ours = trajectory.qd[-1, model.v_slice(physx["hinge"])][0] / trajectory.qd[-1, model.v_slice(physx["prismatic"])][0]
    else:
        ours = trajectory.qd[-1, model.v_slice(physx["hinge1"])][0] / trajectory.qd[-1, model.v_slice(physx["hinge0"])][0]
    assert ours == pytest.approx(physx["rate_ratio"], rel=1e-3)


@pytest.mark.oracle
def test_ratio_zero_and_missing_relationship_as_physx():
    """ovphysx 0.7: ratio 0 leaves the rack still and the pinion's velocity ~0; with no hinge
    relationship no coupling exists, the pinion turns at its drive's 90 deg/s and the rack stays."""
    zero = _probe(TESTS / "data/usd/rpd_ratio_0.usda")
    coupling = zero["couplings"]["/World/RackAndPinion"]
    assert abs(coupling["prismatic_rate"]) < 1e-6 and abs(coupling["hinge_rate"]) < 1e-3
    model = load_model(str(TESTS / "data/usd/rpd_ratio_0.usda"))
    trajectory = simulate(model, 0.5, 1 / 60)
    assert abs(trajectory.qd[-1, model.v_slice("/World/Hinge")][0]) < 1e-9
    assert abs(trajectory.qd[-1, model.v_slice("/World/Slider")][0]) < 1e-9
    missing = _probe(TESTS / "data/usd/rpd_no_hinge_rel.usda")
    physx_rack = missing["joints"]["/World/Slider"]["rate"]
    physx_pinion = missing["joints"]["/World/Hinge"]["rate"]
    model = load_model(str(TESTS / "data/usd/rpd_no_hinge_rel.usda"))
    trajectory = simulate(model, 0.5, 1 / 60)
    assert abs(physx_rack) < 1e-6 and trajectory.qd[-1, model.v_slice("/World/Slider")][0] == 0.0
    assert trajectory.qd[-1, model.v_slice("/World/Hinge")][0] == pytest.approx(physx_pinion, rel=1e-3)


ATWOOD = """#usda 1.0
(
    metersPerUnit = 1
    kilogramsPerUnit = 1
    upAxis = "Z"
)
def PhysicsScene "scene"
{{
    vector3f physics:gravityDirection = (0, 0, -1)
    float physics:gravityMagnitude = {g}
}}
def Xform "Pulley" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
{{
    float physics:mass = 0.5
    float3 physics:diagonalInertia = ({inertia}, {inertia}, {inertia})
}}
def Xform "Left" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
{{
    float physics:mass = {m1}
    float3 physics:diagonalInertia = (0.01, 0.01, 0.01)
    double3 xformOp:translate = (-{r}, 0, -1)
    uniform token[] xformOpOrder = ["xformOp:translate"]
}}
def Xform "Right" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
{{
    float physics:mass = {m2}
    float3 physics:diagonalInertia = (0.01, 0.01, 0.01)
    double3 xformOp:translate = ({r}, 0, -1)
    uniform token[] xformOpOrder = ["xformOp:translate"]
}}
def PhysicsRevoluteJoint "Axle"
{{
    uniform token physics:axis = "Y"
    rel physics:body1 = </Pulley>
}}
def PhysicsPrismaticJoint "LeftRope"
{{
    uniform token physics:axis = "Z"
    rel physics:body1 = </Left>
    point3f physics:localPos0 = (-{r}, 0, -1)
}}
def PhysicsPrismaticJoint "RightRope"
{{
    uniform token physics:axis = "Z"
    rel physics:body1 = </Right>
    point3f physics:localPos0 = ({r}, 0, -1)
}}
def PhysxPhysicsRackAndPinionJoint "LeftWrap"
{{
    rel physics:body0 = </Pulley>
    rel physics:body1 = </Left>
    rel physics:hinge = </Axle>
    rel physics:prismatic = </LeftRope>
    float physics:ratio = {ratio}
}}
def PhysxPhysicsRackAndPinionJoint "RightWrap"
{{
    rel physics:body0 = </Pulley>
    rel physics:body1 = </Right>
    rel physics:hinge = </Axle>
    rel physics:prismatic = </RightRope>
    float physics:ratio = {minus_ratio}
}}
"""


def test_atwood_machine_through_two_rack_couplings(tmp_path):
    """Closed form: a = (m1 - m2) g / (m1 + m2 + I / r^2) for two masses on a pulley of inertia I
    and radius r. The pulley turning +w about +Y lifts the left mass (x = -r) at r w and lowers
    the right one, so the racks' ratios are +-(180/pi)/r [deg per m]."""
    m1, m2, inertia, r, g = 3.0, 1.0, 0.02, 0.1, 9.81
    ratio = math.degrees(1.0) / r
    path = tmp_path / "atwood.usda"
    path.write_text(ATWOOD.format(g=g, inertia=inertia, m1=m1, m2=m2, r=r, ratio=ratio, minus_ratio=-ratio))
    model = load_model(str(path))
    assert len(model.coupling_names) == 2
    dt, duration = 1e-3, 1.0
    trajectory = simulate(model, duration, dt)
    expected = (m1 - m2) * g / (m1 + m2 + inertia / r ** 2)
    left = trajectory.qd[:, model.v_slice("/LeftRope")][:, 0]
    right = trajectory.qd[:, model.v_slice("/RightRope")][:, 0]
    # constant forces, constant mass matrix: Euler's velocity is exact; float32 authored values
    # (ratio, masses, inertia) limit the agreement to ~1e-7 relative
    measured = -(left[-1] - left[0]) / duration
    assert measured == pytest.approx(expected, rel=1e-6)
    assert np.abs(left + right).max() <= RATIO_TOL


@pytest.fixture(scope="module")
def panda(tmp_path_factory):
    from usdjoints.convert import convert_urdf

    urdf = robots_dir() / "panda_description/urdf/panda.urdf"
    out = tmp_path_factory.mktemp("panda") / "panda.usda"
    convert_urdf(urdf, out, floating_base=False)
    return urdf, load_model(str(out), contact=False)


def test_mimic_gripper_follower_tracks_the_reference(panda):
    """PhysX's mimic row q_f + gearing q_r + offset = 0 (gearing -1, offset 0 for the panda's
    <mimic joint="panda_finger_joint1"/>): the second finger equals the first at every step."""
    _, model = panda
    assert model.coupling_names == ("/panda/joints/panda_finger_joint2:rotX",)
    q0 = model.q_initial.copy()
    q0[model.q_slice("/panda/joints/panda_finger_joint1")] = 0.03  # projected onto the row at start
    trajectory = simulate(model, 1.0, 1e-3, q0=q0)
    f1 = trajectory.q[:, model.q_slice("/panda/joints/panda_finger_joint1")][:, 0]
    f2 = trajectory.q[:, model.q_slice("/panda/joints/panda_finger_joint2")][:, 0]
    assert np.abs(f1 - f2).max() <= RATIO_TOL
    assert f2[0] == pytest.approx(0.015, abs=1e-9)  # the start was projected: not vacuous


def test_mimic_dynamics_equal_pinocchio_mimic_model(panda):
    """pinocchio 4.1's mimic-aware model of the same robot (pin.buildModelFromUrdf(..., mimic=True))
    reduces the dynamics onto the independent joints; our projected acceleration must equal the
    same reduction of our own rigid-body model, built in pinocchio (tests/reference/to_pinocchio),
    and pinocchio's mimic model must equal that reduction of its own full model."""
    pin = pytest.importorskip("pinocchio")
    from reference.to_pinocchio import q_to_pinocchio, to_pinocchio

    urdf, model = panda
    rng = np.random.default_rng(7)
    q = model.q_initial.copy()
    q[:7] = rng.uniform(-1.0, 1.0, 7)
    q[7] = q[8] = 0.02
    qd = np.zeros(model.nv)
    qd[:7] = rng.normal(size=7)
    qd[7] = qd[8] = 0.1
    tau = np.concatenate([rng.normal(size=8), [0.0]])
    ours = forward_dynamics(model, q, qd, tau, constrained=True)
    assert ours[8] == pytest.approx(ours[7], abs=1e-12)
    P = np.zeros((9, 8))
    P[:8, :8] = np.eye(8)
    P[8, 7] = 1.0  # q = P q_independent
    pmodel = to_pinocchio(model)
    data = pmodel.createData()
    qp = q_to_pinocchio(model, q)
    M = pin.crba(pmodel, data, qp)
    M = np.triu(M) + np.triu(M, 1).T
    bias = pin.rnea(pmodel, data, qp, qd, np.zeros(9))
    reduced = np.linalg.solve(P.T @ M @ P, P.T @ (tau - bias))
    # pinocchio and our kernels agree to ~1e-12 on random trees; 1e-9 leaves room for conditioning
    assert np.abs(ours[:8] - reduced).max() <= 1e-9 * max(1.0, np.abs(reduced).max())
    mimic = pin.buildModelFromUrdf(str(urdf), mimic=True)
    full = pin.buildModelFromUrdf(str(urdf))
    dm, df = mimic.createData(), full.createData()
    qr = q[:8]
    Mr = pin.crba(mimic, dm, qr)
    Mr = np.triu(Mr) + np.triu(Mr, 1).T
    Mf = pin.crba(full, df, q)
    Mf = np.triu(Mf) + np.triu(Mf, 1).T
    assert np.allclose(Mr, P.T @ Mf @ P, rtol=0, atol=1e-12)


def test_batched_envs_keep_the_gear_ratio_and_match_single_runs():
    """Envs are independent: three gear pairs started at different speeds equal single runs, and
    each keeps w1 = -2 w0 (the initial state is projected onto the row)."""
    path = ROOT / "sample_stages" / "gear_pair.usda"
    model = load_model(str(path))
    qd0 = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, -3.0]])
    batch = simulate(model, 0.2, 1e-3, qd0=qd0, n_envs=3, record_every=20)
    for e in range(3):
        single = simulate(model, 0.2, 1e-3, qd0=qd0[e], record_every=20)
        assert np.array_equal(batch.qd[e], single.qd)
        assert np.abs(batch.qd[e][:, 1] + 2.0 * batch.qd[e][:, 0]).max() <= RATIO_TOL * 10.0
