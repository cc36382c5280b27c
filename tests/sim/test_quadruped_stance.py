"""A converted quadruped (solo12 from example-robot-data) stands on PD drives for 10 s.

The URDF is converted with a floating base; a layer over the converted stage adds the ground
plane, the foot colliders and the drive gains and targets of the SRDF's "standing" pose, and the
base starts at the height where the lowest foot point touches the ground (forward kinematics).

Oracles: the physical requirement itself (the base stays up and level, nothing diverges, the
joints hold their targets), and static equilibrium by virtual work at the end: the foot forces
that balance the joint rows, tau_gravity - tau_drive = J_joints^T f, must carry the whole
weight (sum f_z = m g) and balance the base's six rows, J_base^T f = tau_gravity[base], and
stay inside the Coulomb disc.

Colliders: the converter gives every link its collision mesh, which a rigid body collides as
its convex hull (the feet's within a 32 x 16.5 x 32 mm box). The layer disables every collider
but the feet's; the "spheres" variant replaces the foot mesh by a sphere of its box's half
height at the foot frame (one contact point per foot, as the equilibrium check needs).
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

import usdjoints  # noqa: F401  (registers the PhysX schemas before any stage opens)
from samples import robots_dir
from usdjoints.model.articulated import COLLIDER_BOX, COLLIDER_HULL, COLLIDER_SPHERE
from usdjoints.model.build import load_model
from usdjoints.model.rotation import quat_to_matrix
from usdjoints.sim.api import forward_kinematics, integrate_configuration, inverse_dynamics, simulate

LEGS = ("FL", "FR", "HL", "HR")
LINKS = ("SHOULDER", "UPPER_LEG", "LOWER_LEG", "FOOT")
# PD gains of the stance [N m/rad], [N m s/rad]: the weight on one foot (~6 N) at a lever of at
# most the leg's reach (0.23 m) bends a joint by at most 1.4 / 20 = 0.07 rad.
KP, KD = 20.0, 0.5
FOOT_RADIUS = 0.016  # [m] half the height of the foot mesh's bounding box
DURATION, DT = 10.0, 1e-3
RECORD_EVERY = 10


def _robots_dir() -> Path:
    root = robots_dir()
    if not (root / "solo_description").is_dir():
        pytest.skip(f"example-robot-data's solo_description not found under {root}")
    return root


def _standing_pose(srdf: Path) -> dict[str, float]:
    """The joint angles [rad] of the SRDF group state "standing" (root joint left out)."""
    from lxml import etree

    state = etree.parse(str(srdf)).find("group_state[@name='standing']")
    assert state is not None, f"{srdf}: no group_state 'standing'"
    return {j.get("name"): float(j.get("value")) for j in state.findall("joint")
            if j.get("name") != "root_joint"}


def _stance_layer(converted: Path, pose: dict[str, float], feet: str) -> str:
    """A layer over the converted stage: ground, foot colliders, drives holding ``pose``.

    The layer is the stage's root, so it restates the converter's units (a root layer without
    them reads as centimetres)."""
    lines = ["#usda 1.0", "(", "    metersPerUnit = 1", "    kilogramsPerUnit = 1", '    upAxis = "Z"',
             f"    subLayers = [@{converted.name}@]", ")",
             'def Plane "Ground" (prepend apiSchemas = ["PhysicsCollisionAPI"])', "{",
             '    uniform token axis = "Z"', "}", 'over "solo"', "{", '    over "joints"', "    {"]
    for joint, angle in pose.items():
        # UsdPhysics angular drives: gains per degree, target in degrees
        lines += [f'        over "{joint}"', "        {",
                  f"            float drive:angular:physics:stiffness = {KP * math.pi / 180.0!r}",
                  f"            float drive:angular:physics:damping = {KD * math.pi / 180.0!r}",
                  f"            float drive:angular:physics:targetPosition = {math.degrees(angle)!r}",
                  "        }"]
    lines += ["    }"]
    for link in ["base_link"] + [f"{leg}_{part}" for leg in LEGS for part in LINKS]:
        lines += [f'    over "{link}"', "    {"]
        if not (feet == "converted" and link.endswith("FOOT")):
            lines += ['        over "collision_0"', "        {",
                      "            bool physics:collisionEnabled = false", "        }"]
        if feet == "spheres" and link.endswith("FOOT"):
            lines += ['        def Sphere "contact" (prepend apiSchemas = ["PhysicsCollisionAPI"])', "        {",
                      f"            double radius = {FOOT_RADIUS}", "        }"]
        lines += ["    }"]
    return "\n".join(lines + ["}", ""])


def _lowest_collider_point(model, q) -> float:
    """The lowest world height [m] reached by any collider on a link at configuration q."""
    position, quaternion = forward_kinematics(model, q)
    lowest = math.inf
    for c in range(len(model.collider_names)):
        link = int(model.collider_link[c])
        if link < 0:
            continue
        b = int(np.nonzero(np.asarray(model.body_link) == link)[0][0])
        R_w_link = quat_to_matrix(quaternion[b]) @ np.asarray(model.body_R_link[b]).T
        p_w_link = position[b] - R_w_link @ np.asarray(model.body_p_link[b])
        centre = p_w_link + R_w_link @ model.collider_p_link[c]
        R_w_c = R_w_link @ model.collider_R_link[c]
        size = model.collider_size[c]
        if model.collider_type[c] == COLLIDER_SPHERE:
            lowest = min(lowest, centre[2] - size[0])
        elif model.collider_type[c] == COLLIDER_BOX:
            lowest = min(lowest, centre[2] - float(np.abs(R_w_c[2]) @ size))
        elif model.collider_type[c] == COLLIDER_HULL:
            start, count = model.collider_hull_index[c, :2]
            vertices = np.asarray(model.collider_hull_rows)[start:start + count, :3]
            lowest = min(lowest, float(np.min(centre[2] + vertices @ R_w_c[2])))
        else:
            raise AssertionError(f"unexpected collider {model.collider_names[c]}")
    return lowest


def _build(tmp_path: Path, feet: str):
    from usdjoints.convert import convert_urdf

    robots = _robots_dir() / "solo_description"
    converted = tmp_path / "solo12.usda"
    convert_urdf(robots / "robots" / "solo12.urdf", converted, floating_base=True)
    pose = _standing_pose(robots / "srdf" / "solo.srdf")
    stance = tmp_path / f"solo12_stance_{feet}.usda"
    stance.write_text(_stance_layer(converted, pose, feet))
    model = load_model(str(stance))
    base = model.q_slice("/solo/base_link")
    assert model.joint_types[model.joint_index("/solo/base_link")] == "free"
    q0 = model.q_initial.copy()
    for joint, angle in pose.items():
        q0[model.q_slice(f"/solo/joints/{joint}")] = angle
    q0[base.start:base.start + 3] = 0.0
    q0[base.start + 3:base.start + 7] = (1.0, 0.0, 0.0, 0.0)
    q0[base.start + 2] = -_lowest_collider_point(model, q0)
    return model, pose, q0


@pytest.fixture(scope="module", params=["spheres", "converted"])
def stance(request, tmp_path_factory):
    feet = request.param
    model, pose, q0 = _build(tmp_path_factory.mktemp(f"solo12_{feet}"), feet)
    trajectory = simulate(model, DURATION, DT, q0=q0, record_every=RECORD_EVERY)
    return feet, model, pose, q0, trajectory


def test_feet_colliders_are_what_the_variant_says(stance):
    """The converter's foot collider is the mesh's convex hull; the sphere variant replaces it.
    Oracle: the collider arrays of the model (five colliders: four feet and the ground)."""
    feet, model, *_ = stance
    foot = [c for c, name in enumerate(model.collider_names) if "_FOOT/" in name]
    assert len(foot) == 4 and len(model.collider_names) == 5
    expected = COLLIDER_SPHERE if feet == "spheres" else COLLIDER_HULL
    assert all(model.collider_type[c] == expected for c in foot)
    if feet == "converted":
        # the hull's box is within half the extent of solo_foot.stl [m] (float32), its vertices
        # the support points of 64 directions, so it reaches the extent to 0.3 mm
        size = np.array(sorted(model.collider_size[foot[0]]))
        assert np.all(size <= np.array([0.00825, 0.015993, 0.016]) + 1e-6)
        assert np.allclose(size, [0.00825, 0.015993, 0.016], atol=3e-4)


def test_quadruped_stands_for_ten_seconds(stance):
    """The physical requirement: over 10 s at dt = 1e-3 the state stays finite, the base stays
    above half its start height (and is not launched), its tilt stays under 20 deg, it does not
    wander, and the joints end at rest near their targets."""
    feet, model, pose, q0, trajectory = stance
    assert np.all(np.isfinite(trajectory.q)) and np.all(np.isfinite(trajectory.qd))
    base_pose = trajectory.body_poses[:, model.body_names.index("/solo/base_link")]
    h0 = q0[model.q_slice("/solo/base_link").start + 2]
    assert 0.2 < h0 < 0.26  # legs folded as the SRDF says (its own root height is 0.235 m)
    height = base_pose[:, 2]
    assert height.min() > 0.5 * h0 and height.max() < 1.5 * h0
    up = np.array([quat_to_matrix(quat)[:, 2] for quat in base_pose[:, 3:]])
    tilt = np.degrees(np.arccos(np.clip(up[:, 2], -1.0, 1.0)))
    assert tilt.max() < 20.0
    # a standing robot does not walk away: 1 cm over 10 s is far above the measured ~1e-5 m
    assert np.linalg.norm(base_pose[-1, :2] - base_pose[0, :2]) < 0.01
    # nothing explodes: no joint ever spins faster than 10 rad/s (settling from the drop is slow)
    assert np.abs(trajectory.qd).max() < 10.0
    last_second = trajectory.t >= DURATION - 1.0
    assert np.abs(trajectory.qd[last_second]).max() < 1e-3
    for joint, angle in pose.items():
        # the gravity load bends a joint by at most ~0.07 rad (see KP)
        assert trajectory.q[-1, model.q_slice(f"/solo/joints/{joint}")][0] == pytest.approx(angle, abs=0.1)


def _foot_point_jacobians(model, q, feet, offsets):
    """[4, 3, nv]: d(contact point)/dv by central differences of q (+) eps v; the points are
    fixed to the feet (offset [m] in foot axes). eps = 1e-6 gives ~1e-12 truncation error."""
    eps = 1e-6

    def points(qq):
        position, quaternion = forward_kinematics(model, qq)
        return np.array([position[b] + quat_to_matrix(quaternion[b]) @ o for b, o in zip(feet, offsets)])

    J = np.zeros((len(feet), 3, model.nv))
    for k in range(model.nv):
        step = np.zeros(model.nv)
        step[k] = eps
        J[:, :, k] = (points(integrate_configuration(model, q, step, 1.0))
                      - points(integrate_configuration(model, q, -step, 1.0))) / (2.0 * eps)
    return J


@pytest.mark.parametrize("stance", ["spheres"], indirect=True)
def test_resting_stance_is_in_static_equilibrium(stance):
    """Virtual work at rest (qd ~ 0, qdd = 0): tau_gravity = tau_drive + J^T f. The 12 joint rows
    give the four foot forces f; those must carry the weight, sum f_z = m g, and satisfy the
    six base rows (which the solve did not use), and lie in the Coulomb disc |f_t| <= mu f_z."""
    # spheres only: a box foot carries a wrench, not one force, which 12 joint rows cannot give
    _, model, pose, q0, trajectory = stance
    q, qd = trajectory.q[-1], trajectory.qd[-1]
    feet = [model.body_names.index(f"/solo/{leg}_FOOT") for leg in LEGS]
    _, quaternion = forward_kinematics(model, q)
    # each foot touches the ground at its sphere's lowest point, fixed to the foot at rest
    offsets = [quat_to_matrix(quaternion[b]).T @ np.array([0.0, 0.0, -FOOT_RADIUS]) for b in feet]
    J = _foot_point_jacobians(model, q, feet, offsets).reshape(12, model.nv)
    tau_gravity = inverse_dynamics(model, q, qd, np.zeros(model.nv))
    dof_q = np.asarray(model.dof_q_index)
    driven = np.asarray(model.dof_drive_type) > 0
    assert np.allclose(np.asarray(model.dof_drive_stiffness)[driven], KP, rtol=1e-6)  # per degree read back
    assert not np.any(np.asarray(model.dof_stiffness)) and not np.any(np.asarray(model.dof_damping)[driven])
    tau_drive = np.zeros(model.nv)
    tau_drive[driven] = (np.asarray(model.dof_drive_stiffness)[driven]
                         * (np.asarray(model.dof_drive_target_position)[driven] - q[dof_q[driven]])
                         + np.asarray(model.dof_drive_damping)[driven]
                         * (np.asarray(model.dof_drive_target_velocity)[driven] - qd[driven]))
    base = model.v_slice("/solo/base_link")
    joints = np.ones(model.nv, dtype=bool)
    joints[base] = False
    residual = tau_gravity - tau_drive
    f = np.linalg.solve(J[:, joints].T, residual[joints]).reshape(4, 3)
    weight = float(np.sum(model.link_mass)) * float(np.linalg.norm(model.gravity))
    # at rest to ~1e-14 rad/s, exact Jacobians to ~1e-10: 1e-6 relative leaves wide margin
    assert f[:, 2].sum() == pytest.approx(weight, rel=1e-6)
    assert np.allclose(J[:, base].T @ f.ravel(), residual[base], rtol=0, atol=1e-6 * weight)
    assert np.all(f[:, 2] > 0.1 * weight / 4)  # every foot carries load
    mu = float(np.max(model.collider_friction))
    assert np.all(np.linalg.norm(f[:, :2], axis=1) <= mu * f[:, 2] * (1 + 1e-6))
