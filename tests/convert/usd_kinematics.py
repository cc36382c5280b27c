"""Test helper: a converted robot's kinematics as OpenUSD's parser reads it, in plain numpy.

Shares no code with usdjoints.convert: poses come from OpenUSD's physics parser (bodies and
joint frames) and are composed here with 4x4 matrices, so a frame error in the writer shows up as
a mismatch against pinocchio or a closed form.
"""
from __future__ import annotations

import warnings

import numpy as np
from pxr import Sdf, Usd, UsdPhysics


def quat_matrix(q) -> np.ndarray:
    """(w, x, y, z) -> 3x3 rotation (normalised first, as the parser does)."""
    w, x, y, z = np.asarray(q, float) / np.linalg.norm(q)
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ])


def transform(position, orientation) -> np.ndarray:
    m = np.eye(4)
    m[:3, :3] = quat_matrix(orientation)
    m[:3, 3] = position
    return m


def rotation_about_x(angle: float) -> np.ndarray:
    c, s = np.cos(angle), np.sin(angle)
    m = np.eye(4)
    m[1:3, 1:3] = [[c, -s], [s, c]]
    return m


def translation_along_x(distance: float) -> np.ndarray:
    m = np.eye(4)
    m[0, 3] = distance
    return m


def _quat(q):
    im = q.GetImaginary()
    return (q.GetReal(), im[0], im[1], im[2])


def read_physics(stage: Usd.Stage) -> dict:
    """Bodies (world pose at the authored state) and joints as OpenUSD's parser returns them."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        raw = UsdPhysics.LoadUsdPhysicsFromRange(stage, [Sdf.Path.absoluteRootPath])
    by_type = {kind.name: list(zip(paths, descs)) for kind, (paths, descs) in raw.items()}
    bodies = {str(p): transform(d.position, _quat(d.rotation)) for p, d in by_type.get("RigidBody", ())}
    joints = {}
    for type_name, kind in (("RevoluteJoint", "revolute"), ("PrismaticJoint", "prismatic"),
                            ("FixedJoint", "fixed"), ("SphericalJoint", "spherical"), ("D6Joint", "d6")):
        for path, desc in by_type.get(type_name, ()):
            joints[str(path)] = {
                "type": kind,
                "body0": str(desc.body0) if desc.body0 != Sdf.Path() else None,
                "body1": str(desc.body1) if desc.body1 != Sdf.Path() else None,
                "local0": transform(desc.localPose0Position, _quat(desc.localPose0Orientation)),
                "local1": transform(desc.localPose1Position, _quat(desc.localPose1Orientation)),
                "axis": desc.axis.name if kind in ("revolute", "prismatic") else None,
                "limit": (desc.limit.enabled, desc.limit.lower, desc.limit.upper) if kind in ("revolute", "prismatic") else None,
                "drive": desc.drive if kind in ("revolute", "prismatic") else None,
            }
    articulations = [(str(p), d) for p, d in by_type.get("Articulation", ())]
    return {"bodies": bodies, "joints": joints, "articulations": articulations}


def joint_motion(joint: dict, q: float) -> np.ndarray:
    """The motion a joint adds between its two frames: about/along the token axis X."""
    assert joint["type"] == "fixed" or joint["axis"] == "X", joint
    if joint["type"] == "revolute":
        return rotation_about_x(q)
    if joint["type"] == "prismatic":
        return translation_along_x(q)
    return np.eye(4)


def compose_world_poses(physics: dict, positions: dict[str, float], root_poses: dict[str, np.ndarray]) -> dict:
    """World pose of every body at joint positions ``positions`` (joint path -> [rad] or [m]).

    ``root_poses`` gives bodies with no parent joint. Each child follows
    X_w_child = X_w_parent · local0 · motion(q) · local1⁻¹.
    """
    poses = dict(root_poses)
    by_child = {j["body1"]: (path, j) for path, j in physics["joints"].items()}
    remaining = [b for b in physics["bodies"] if b not in poses]
    while remaining:
        progressed = False
        for body in list(remaining):
            path, joint = by_child[body]
            parent = np.eye(4) if joint["body0"] is None else poses.get(joint["body0"])
            if parent is None:
                continue
            motion = joint_motion(joint, positions.get(path, 0.0))
            poses[body] = parent @ joint["local0"] @ motion @ np.linalg.inv(joint["local1"])
            remaining.remove(body)
            progressed = True
        assert progressed, f"bodies without a path to a root: {remaining}"
    return poses


def world_axis(physics: dict, poses: dict, joint_path: str) -> np.ndarray:
    """The joint's token axis X in world coordinates, seen from body0's frame."""
    joint = physics["joints"][joint_path]
    parent = np.eye(4) if joint["body0"] is None else poses[joint["body0"]]
    return (parent @ joint["local0"])[:3, 0]


def rotation_angle(a: np.ndarray, b: np.ndarray) -> float:
    """Angle [rad] of the relative rotation between two 3x3 rotations."""
    cosine = (np.trace(a[:3, :3].T @ b[:3, :3]) - 1.0) / 2.0
    return float(np.arccos(np.clip(cosine, -1.0, 1.0)))
