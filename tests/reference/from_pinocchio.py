"""Build an ArticulatedModel of a pinocchio model, in pinocchio's joint order (the inverse of
to_pinocchio): pinocchio's joint frame is our moving frame and link frame, so the model holds the
very float64 parameters pinocchio holds."""
from __future__ import annotations

import numpy as np

from usdjoints.model import ModelBuilder

_AXES = {"X": (1.0, 0.0, 0.0), "Y": (0.0, 1.0, 0.0), "Z": (0.0, 0.0, 1.0)}


def model_from_pinocchio(pm):
    """Our model of pinocchio's tree; raises ValueError for a joint type with no counterpart."""
    builder = ModelBuilder(gravity=np.asarray(pm.gravity.linear))
    for i in range(1, pm.njoints):
        joint = pm.joints[i]
        short = joint.shortname()
        if short in ("JointModelRX", "JointModelRY", "JointModelRZ"):
            kind, axis = "revolute", _AXES[short[-1]]
        elif short in ("JointModelPX", "JointModelPY", "JointModelPZ"):
            kind, axis = "prismatic", _AXES[short[-1]]
        elif short == "JointModelRevoluteUnaligned":
            kind, axis = "revolute", tuple(joint.extract().axis)
        elif short == "JointModelPrismaticUnaligned":
            kind, axis = "prismatic", tuple(joint.extract().axis)
        elif short == "JointModelFreeFlyer":
            kind, axis = "free", (0.0, 0.0, 1.0)
        elif short == "JointModelSpherical":
            kind, axis = "spherical", (0.0, 0.0, 1.0)
        else:
            raise ValueError(f"pinocchio joint type {short} has no counterpart in usdjoints")
        parent = None if pm.parents[i] == 0 else pm.names[pm.parents[i]]
        placement, inertia = pm.jointPlacements[i], pm.inertias[i]
        builder.add_body(pm.names[i], parent=parent, joint_type=kind, axis=axis,
                         R_parent_joint=placement.rotation, p_parent_joint=placement.translation,
                         mass=inertia.mass, com=inertia.lever, inertia=inertia.inertia,
                         armature=pm.armature[joint.idx_v:joint.idx_v + joint.nv])
    return builder.build()
