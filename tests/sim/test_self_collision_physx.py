"""Self-collision on and off on real robots whose adjacent links overlap, against PhysX.

Oracle: ovphysx 0.7 on the CPU on the same stage: usdjoints' conversion of example-robot-data's
panda and solo12 (mesh colliders; adjacent links' colliders overlap at the start), under a layer
that switches gravity, drives, body damping and sleeping off and sets
physxArticulation:enabledSelfCollisions. With nothing else acting, a joint moves in 0.2 s only if
contacts (or a limit the joint starts outside of: panda_joint4, 4 deg) push it.

Measured: with self-collision off, both engines move exactly the same joints by the same amounts
(panda: the 0.0698 rad return of panda_joint4; solo12: nothing). With it on, PhysX's contacts
between the robots' overlapping mesh hulls throw the joints (panda up to 0.44 rad, solo12 up to
3.3 rad in 0.2 s), while usdjoints (bounding boxes of the meshes, pairs already overlapping at the
start left out) moves nothing more than without them: a strict expected failure until the two agree.
On solo12 the pairs are base_link with each UPPER_LEG (two joints apart, bounding boxes overlapping
by 9.4 mm at the start, which usdjoints leaves out): with those four pairs filtered
(PhysicsFilteredPairsAPI), PhysX moves no joint either.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

import sim_robots

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "oracle"))
from ovphysx_runner import ovphysx_available, run_ovphysx_probe  # noqa: E402

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

STEPS, DT = 200, 1e-3
MOVED = 1e-3  # [rad | m]


def layer(src, out, on):
    from pxr import Sdf, Usd, UsdGeom, UsdPhysics

    base = Usd.Stage.Open(str(src))
    lay = Sdf.Layer.CreateNew(str(out))
    lay.subLayerPaths.append(str(src))
    st = Usd.Stage.Open(lay)
    UsdGeom.SetStageMetersPerUnit(st, UsdGeom.GetStageMetersPerUnit(base))
    UsdPhysics.SetStageKilogramsPerUnit(st, UsdPhysics.GetStageKilogramsPerUnit(base))
    UsdGeom.SetStageUpAxis(st, UsdGeom.GetStageUpAxis(base))
    F, B = Sdf.ValueTypeNames.Float, Sdf.ValueTypeNames.Bool
    for prim in st.Traverse():
        if prim.IsA(UsdPhysics.Scene):
            prim.CreateAttribute("physics:gravityMagnitude", F).Set(0.0)
        if prim.HasAPI(UsdPhysics.ArticulationRootAPI):
            prim.AddAppliedSchema("PhysxArticulationAPI")
            prim.CreateAttribute("physxArticulation:enabledSelfCollisions", B).Set(bool(on))
            prim.CreateAttribute("physxArticulation:sleepThreshold", F).Set(0.0)
            prim.CreateAttribute("physxArticulation:stabilizationThreshold", F).Set(0.0)
        if prim.HasAPI(UsdPhysics.RigidBodyAPI):
            prim.AddAppliedSchema("PhysxRigidBodyAPI")
            prim.CreateAttribute("physxRigidBody:angularDamping", F).Set(0.0)
            prim.CreateAttribute("physxRigidBody:linearDamping", F).Set(0.0)
        for kind in ("angular", "linear"):
            if prim.HasAPI(UsdPhysics.DriveAPI, kind):
                prim.CreateAttribute(f"drive:{kind}:physics:stiffness", F).Set(0.0)
                prim.CreateAttribute(f"drive:{kind}:physics:damping", F).Set(0.0)
    lay.Save()


def _motions(name: str, on: bool, workdir: Path):
    """{joint: |q(0.2 s) - q(0)|} from PhysX and from usdjoints."""
    from usdjoints.model.build import load_model
    from usdjoints.sim import api

    if not ovphysx_available():
        pytest.skip("ovphysx is not installed")
    src = sim_robots.BY_NAME[name].stage(workdir)
    if src is None:
        pytest.skip("example-robot-data is not installed")
    out = workdir / f"{name}_selfcollision_{int(on)}.usda"
    layer(src, out, on)
    report = run_ovphysx_probe(out, steps=STEPS, dt=DT)
    physx = {j: abs(d["dofs"][0]["position"] - d["dofs"][0]["position_initial"])
             for j, d in report["joints"].items() if d.get("dofs")}
    model = load_model(str(out))
    trajectory = api.simulate(model, STEPS * DT, DT, record_every=STEPS)
    ours = {j: float(abs(trajectory.q[-1, model.q_slice(j)][0] - trajectory.q[0, model.q_slice(j)][0]))
            for j in physx}
    return physx, ours


@pytest.mark.parametrize("on", [False, pytest.param(True, marks=pytest.mark.xfail(
    strict=True, reason="PhysX's self-contacts between overlapping mesh hulls move the joints "
                        "(panda 0.44 rad, solo12 3.3 rad in 0.2 s); usdjoints' contacts (mesh "
                        "bounding boxes, pairs overlapping at the start left out) move none"))],
    ids=["self-collision-off", "self-collision-on"])
@pytest.mark.parametrize("name", ["solo12"])  # panda measured the same way: 0.0698 rad off, 0.44 on
def test_same_joints_pushed_as_physx(name, on, tmp_path):
    physx, ours = _motions(name, on, tmp_path)
    moved_physx = sorted(j for j, v in physx.items() if v > MOVED)
    moved_ours = sorted(j for j, v in ours.items() if v > MOVED)
    print(f"\n{name} self-collision {on}: PhysX moved {len(moved_physx)} joints (max {max(physx.values()):.3g}), "
          f"usdjoints {len(moved_ours)} (max {max(ours.values()):.3g})")
    assert moved_ours == moved_physx
    for joint in physx:
        assert abs(ours[joint] - physx[joint]) < 1e-3, (joint, ours[joint], physx[joint])
