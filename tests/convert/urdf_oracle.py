"""Link poses of a URDF as pinocchio reads it and of the converted USD stage as OpenUSD reads it.

Pinocchio parses URDF with urdfdom (the ROS reference parser), so what it loads and what it
refuses is urdfdom's judgement; its link (BODY) frames at the neutral configuration are the
reference poses. The USD side is read with UsdGeom.XformCache, sharing no code with the converter.
"""
from __future__ import annotations

import numpy as np
from pxr import Usd, UsdGeom

POSE_TOL = 1e-8  # body transforms are written as doubles


def pinocchio_link_poses(urdf: str, floating: bool = False) -> dict[str, np.ndarray]:
    """{link name: 4x4 world transform} at q = neutral (raises when urdfdom refuses the file)."""
    import pinocchio as pin

    model = pin.buildModelFromUrdf(str(urdf), *((pin.JointModelFreeFlyer(),) if floating else ()))
    data = model.createData()
    pin.framesForwardKinematics(model, data, pin.neutral(model))
    return {f.name: data.oMf[i].homogeneous.copy() for i, f in enumerate(model.frames)
            if f.type == pin.FrameType.BODY}


def usd_link_poses(usd: str) -> dict[str, np.ndarray]:
    """{source link name (displayName or prim name): 4x4 world transform} of the robot prim's children."""
    stage = Usd.Stage.Open(str(usd))
    cache = UsdGeom.XformCache()
    poses = {}
    for prim in stage.GetDefaultPrim().GetChildren():
        if prim.IsA(UsdGeom.Xform) and prim.GetName() not in ("joints", "Looks"):
            poses[prim.GetDisplayName() or prim.GetName()] = np.array(cache.GetLocalToWorldTransform(prim)).T
    return poses


def pose_mismatches(expected: dict[str, np.ndarray], actual: dict[str, np.ndarray],
                    tol: float = POSE_TOL) -> list[str]:
    """Links whose pose differs by more than ``tol`` (position [m], rotation matrix entries)."""
    bad = []
    for name, pose in expected.items():
        if name == "world" and name not in actual and np.allclose(pose, np.eye(4), atol=tol):
            continue  # a root link named world is the world frame: no prim is written for it
        if name not in actual:
            bad.append(f"{name}: not in the USD stage")
        elif np.max(np.abs(actual[name][:3, :] - pose[:3, :])) > tol:
            bad.append(f"{name}: max deviation {np.max(np.abs(actual[name][:3, :] - pose[:3, :])):.3g}")
    return bad
