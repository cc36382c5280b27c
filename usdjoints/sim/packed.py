"""PackedModel: an ArticulatedModel flattened into the contiguous arrays the kernels take.

Built once per model (cached by identity) so repeated API calls pay for validation only once.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np

from ..model.articulated import ArticulatedModel
from .kernels import layout


@dataclass(frozen=True, eq=False)
class PackedModel:
    link_table: np.ndarray       # int64 [nlink, 4], see kernels.layout
    link_axis: np.ndarray        # float64 [nlink, 3]
    R_parent_joint: np.ndarray   # float64 [nlink, 3, 3]
    p_parent_joint: np.ndarray   # float64 [nlink, 3] [m]
    R_joint_child: np.ndarray    # float64 [nlink, 3, 3]
    p_joint_child: np.ndarray    # float64 [nlink, 3] [m]
    S: np.ndarray                # float64 [nlink, 6, 6], motion subspaces in link coordinates
    I6: np.ndarray               # float64 [nlink, 6, 6], spatial inertias at link origins
    dof_parent: np.ndarray       # int64 [nv]
    dof_table: np.ndarray        # float64 [nv, layout.DOF_COLUMNS]
    armature: np.ndarray         # float64 [nv]
    gravity: np.ndarray          # float64 [3] [m/s^2]
    body_link: np.ndarray        # int64 [nbody]
    body_R_link: np.ndarray      # float64 [nbody, 3, 3]
    body_p_link: np.ndarray      # float64 [nbody, 3] [m]
    nq: int
    nv: int


_CACHE: "weakref.WeakKeyDictionary[ArticulatedModel, PackedModel]" = weakref.WeakKeyDictionary()


def _f64(a, shape):
    return np.ascontiguousarray(np.asarray(a, dtype=np.float64).reshape(shape))


def pack(model: ArticulatedModel) -> PackedModel:
    """The kernel view of ``model`` (cached)."""
    cached = _CACHE.get(model)
    if cached is not None:
        return cached
    nl, nv = model.nlink, model.nv
    link_table = np.ascontiguousarray(np.stack(
        [model.link_parent, model.link_type, model.link_q_start, model.link_v_start],
        axis=1).astype(np.int64).reshape(nl, 4))
    dof = np.zeros((nv, layout.DOF_COLUMNS))
    columns = {
        layout.DOF_Q_INDEX: model.dof_q_index, layout.DOF_DAMPING: model.dof_damping,
        layout.DOF_STIFFNESS: model.dof_stiffness, layout.DOF_SPRING_REF: model.dof_spring_ref,
        layout.DOF_FRICTION_LOSS: model.dof_friction_loss, layout.DOF_ARMATURE: model.dof_armature,
        layout.DOF_LOWER: model.dof_lower, layout.DOF_UPPER: model.dof_upper,
        layout.DOF_LIMIT_STIFFNESS: model.dof_limit_stiffness,
        layout.DOF_LIMIT_DAMPING: model.dof_limit_damping,
        layout.DOF_EFFORT_LIMIT: model.dof_effort_limit,
        layout.DOF_VELOCITY_LIMIT: model.dof_velocity_limit,
        layout.DOF_DRIVE_TYPE: model.dof_drive_type,
        layout.DOF_DRIVE_STIFFNESS: model.dof_drive_stiffness,
        layout.DOF_DRIVE_DAMPING: model.dof_drive_damping,
        layout.DOF_DRIVE_MAX_FORCE: model.dof_drive_max_force,
        layout.DOF_DRIVE_TARGET_POSITION: model.dof_drive_target_position,
        layout.DOF_DRIVE_TARGET_VELOCITY: model.dof_drive_target_velocity,
    }
    for column, values in columns.items():
        dof[:, column] = np.asarray(values, dtype=np.float64).reshape(nv)
    packed = PackedModel(
        link_table=link_table,
        link_axis=_f64(model.link_axis, (nl, 3)),
        R_parent_joint=_f64(model.link_R_parent_joint, (nl, 3, 3)),
        p_parent_joint=_f64(model.link_p_parent_joint, (nl, 3)),
        R_joint_child=_f64(model.link_R_joint_child, (nl, 3, 3)),
        p_joint_child=_f64(model.link_p_joint_child, (nl, 3)),
        S=_f64(model.link_motion_subspace, (nl, 6, 6)),
        I6=_f64(model.link_spatial_inertia, (nl, 6, 6)),
        dof_parent=np.ascontiguousarray(model.dof_parent, dtype=np.int64),
        dof_table=dof,
        armature=_f64(model.dof_armature, (nv,)),
        gravity=_f64(model.gravity, (3,)),
        body_link=np.ascontiguousarray(model.body_link, dtype=np.int64),
        body_R_link=_f64(model.body_R_link, (model.nbody, 3, 3)),
        body_p_link=_f64(model.body_p_link, (model.nbody, 3)),
        nq=model.nq, nv=nv,
    )
    _CACHE[model] = packed
    return packed
