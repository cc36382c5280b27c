"""PackedModel: an ArticulatedModel flattened into the contiguous arrays the kernels take.

Built once per model (cached by identity) so repeated API calls pay for validation only once.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np

from ..model.articulated import ArticulatedModel
from ..model.primitives import PRIMITIVE_NV, SPHERICAL
from .kernels import layout
from .kernels.fk_basis import revolute_basis


@dataclass(frozen=True, eq=False)
class PackedModel:
    link_table: np.ndarray       # int64 [nlink, 4], see kernels.layout
    link_axis: np.ndarray        # float64 [nlink, 3]
    R_parent_joint: np.ndarray   # float64 [nlink, 3, 3]
    p_parent_joint: np.ndarray   # float64 [nlink, 3] [m]
    R_joint_child: np.ndarray    # float64 [nlink, 3, 3]
    p_joint_child: np.ndarray    # float64 [nlink, 3] [m]
    revolute_basis: np.ndarray   # float64 [nlink, 4, 3, 3], see kernels.fk.revolute_basis
    S: np.ndarray                # float64 [nlink, 6, 6], motion subspaces in link coordinates
    I6: np.ndarray               # float64 [nlink, 6, 6], spatial inertias at link origins
    dof_parent: np.ndarray       # int64 [nv]
    dof_table: np.ndarray        # float64 [nv, layout.DOF_COLUMNS]
    armature: np.ndarray         # float64 [nv]
    gravity: np.ndarray          # float64 [3] [m/s^2]
    body_link: np.ndarray        # int64 [nbody]
    body_R_link: np.ndarray      # float64 [nbody, 3, 3]
    body_p_link: np.ndarray      # float64 [nbody, 3] [m]
    coupling_dof: np.ndarray     # int64 [ncoupling, 2]
    coupling_coeff: np.ndarray   # float64 [ncoupling, 2]
    coupling_offset: np.ndarray  # float64 [ncoupling]
    loop_type: np.ndarray        # int64 [nloop]
    loop_link: np.ndarray        # int64 [nloop, 2]
    loop_R: np.ndarray           # float64 [nloop, 2, 3, 3]
    loop_p: np.ndarray           # float64 [nloop, 2, 3] [m]
    loop_axis: np.ndarray        # float64 [nloop, 3]
    dist_link: np.ndarray        # int64 [ndistance, 2]
    dist_anchor: np.ndarray      # float64 [ndistance, 2, 3] [m]
    dist_frame: np.ndarray       # float64 [ndistance, 2, 3, 3]
    dist_bounds: np.ndarray      # float64 [ndistance, 2] [m | rad]
    dist_kind: np.ndarray        # int64 [ndistance]
    dist_drive: np.ndarray       # float64 [ndistance, ROW_DRIVE_COLUMNS] (model/articulated.py)
    col_type: np.ndarray         # int64 [ncollider]
    col_link: np.ndarray         # int64 [ncollider]
    col_R: np.ndarray            # float64 [ncollider, 3, 3]
    col_p: np.ndarray            # float64 [ncollider, 3] [m]
    col_size: np.ndarray         # float64 [ncollider, 3] [m]
    col_hull_rows: np.ndarray    # float64 [nrow, 4] [m]
    col_hull_index: np.ndarray   # int64 [ncollider, 4]
    col_friction: np.ndarray     # float64 [ncollider]
    col_restitution: np.ndarray  # float64 [ncollider]
    pairs: np.ndarray            # int64 [npair, 2]
    nq: int
    nv: int

    def model_args(self) -> tuple:
        """The tree, its inertias and the bodies: the kernels' ``model`` argument."""
        return (self.link_table, self.link_axis, self.R_parent_joint, self.p_parent_joint,
                self.R_joint_child, self.p_joint_child, self.revolute_basis, self.S, self.I6,
                self.dof_parent, self.dof_table, self.armature, self.gravity, self.body_link,
                self.body_R_link, self.body_p_link)

    def constraint_args(self):
        """The couplings and loop closures (the kernels' ``constraints``), None without any."""
        if not (self.coupling_dof.shape[0] or self.loop_type.shape[0]):
            return None
        return (self.coupling_dof, self.coupling_coeff, self.coupling_offset, self.loop_type,
                self.loop_link, self.loop_R, self.loop_p, self.loop_axis)

    def limit_args(self):
        """The limit rows (the kernels' ``limits``: kernels/limits.py), None when there is no limit
        row at all (has_limit_rows): (dist_link, rows, drives) with rows the bound rows of distance
        joints and loop-closing hinges and sliders (dist_link, dist_anchor, dist_frame,
        dist_bounds, dist_kind), None without any, and drives their drives (dist_drive), None when
        no row has one: a None leaves that part out of the compiled kernels."""
        if not self.has_limit_rows():
            return None
        nd = self.dist_link.shape[0]
        rows = (self.dist_link, self.dist_anchor, self.dist_frame, self.dist_bounds, self.dist_kind) if nd else None
        drives = self.dist_drive if nd and bool(np.any(self.dist_drive[:, 0] != 0)) else None
        return (self.dist_link, rows, drives)

    def contact_args(self, pair_allowance=None):
        """The colliders and the pairs that may touch (the kernels' ``contact``), None when no
        pair is simulated; ``pair_allowance`` [npair] [m] the overlap each pair keeps (zeros
        when None: kernels/contact.py's detect_contacts)."""
        if not self.pairs.shape[0]:
            return None
        if pair_allowance is None:
            pair_allowance = np.zeros(self.pairs.shape[0])
        return (self.col_type, self.col_link, self.col_R, self.col_p, self.col_size,
                self.col_hull_rows, self.col_hull_index, self.col_friction, self.col_restitution,
                self.pairs, np.ascontiguousarray(pair_allowance, dtype=np.float64))

    def link_transforms(self, q: np.ndarray):
        """(E [nlink, 3, 3], r [nlink, 3] [m]): each link's pose in its parent's link at ``q``
        [nq] (float64, contiguous), the kernels' link transforms."""
        from .kernels.fk import link_transforms

        nl = self.link_table.shape[0]
        E, r = np.empty((nl, 3, 3)), np.empty((nl, 3))
        link_transforms(self.link_table, self.link_axis, self.R_parent_joint, self.p_parent_joint,
                        self.R_joint_child, self.p_joint_child, self.revolute_basis, q, np.empty((3, 3)),
                        np.empty(3), E, r)
        return E, r

    def link_world_poses(self, q: np.ndarray):
        """(R [nlink, 3, 3], p [nlink, 3] [m]): each link's world pose at ``q`` [nq]."""
        from .kernels.fk import link_world_poses

        E, r = self.link_transforms(q)
        nl = self.link_table.shape[0]
        R, p = np.empty((nl, 3, 3)), np.empty((nl, 3))
        link_world_poses(self.link_table, E, r, R, p)
        return R, p

    def has_limit_rows(self) -> bool:
        """True when some dof has a hard position limit (a finite bound and no soft-limit spring)
        or a velocity limit, or the model has a bound row (kernels/limits.py): the rows of kernels/limits.py."""
        d = self.dof_table
        placed = (d[:, layout.DOF_Q_INDEX] >= 0) | (d[:, layout.DOF_BALL_Q] >= 0)
        hard = (placed & (d[:, layout.DOF_LIMIT_STIFFNESS] == 0.0)
                & ((d[:, layout.DOF_LOWER] > -np.inf) | (d[:, layout.DOF_UPPER] < np.inf)))
        return bool(np.any(hard | (d[:, layout.DOF_VELOCITY_LIMIT] < np.inf))) or self.dist_link.shape[0] > 0


_CACHE: "weakref.WeakKeyDictionary[ArticulatedModel, PackedModel]" = weakref.WeakKeyDictionary()


# Every array is a writable C-contiguous copy: numba types read-only arrays apart, and the model's
# arrays are read-only, so the kernels called on them (the mass matrix before a run) would
# compile a second time for the same shapes.
def _f64(a, shape):
    return np.array(np.asarray(a, dtype=np.float64).reshape(shape), order="C")


def _i64(a, shape):
    return np.array(np.asarray(a, dtype=np.int64).reshape(shape), order="C")


def _unit_rows(model: ArticulatedModel, S: np.ndarray) -> np.ndarray:
    """layout.LINK_UNIT_ROW of each link: the row of the single 1 of a one-dof link's subspace
    column when every other entry is exactly 0, else -1."""
    rows = np.full(model.nlink, -1, dtype=np.int64)
    for i in range(model.nlink):
        if PRIMITIVE_NV[int(model.link_type[i])] != 1:
            continue
        column = S[i, :, 0]
        ones = np.flatnonzero(column == 1.0)
        if len(ones) == 1 and np.count_nonzero(column) == 1:
            rows[i] = ones[0]
    return rows


def pack(model: ArticulatedModel) -> PackedModel:
    """The kernel view of ``model`` (cached)."""
    cached = _CACHE.get(model)
    if cached is not None:
        return cached
    nl, nv = model.nlink, model.nv
    S = _f64(model.link_motion_subspace, (nl, 6, 6))
    link_table = np.ascontiguousarray(np.stack(
        [model.link_parent, model.link_type, model.link_q_start, model.link_v_start,
         _unit_rows(model, S)], axis=1).astype(np.int64).reshape(nl, layout.LINK_COLUMNS))
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
    dof[:, layout.DOF_BALL_Q] = -1.0
    for i in np.flatnonzero(np.asarray(model.link_type) == SPHERICAL):
        v = int(model.link_v_start[i])
        dof[v:v + 3, layout.DOF_BALL_Q] = float(model.link_q_start[i])
        dof[v:v + 3, layout.DOF_BALL_AXIS] = (0.0, 1.0, 2.0)
    frames = (_f64(model.link_axis, (nl, 3)), _f64(model.link_R_parent_joint, (nl, 3, 3)),
              _f64(model.link_p_parent_joint, (nl, 3)), _f64(model.link_R_joint_child, (nl, 3, 3)),
              _f64(model.link_p_joint_child, (nl, 3)))
    packed = PackedModel(
        link_table=link_table,
        link_axis=frames[0],
        R_parent_joint=frames[1],
        p_parent_joint=frames[2],
        R_joint_child=frames[3],
        p_joint_child=frames[4],
        revolute_basis=revolute_basis(*frames),
        S=S,
        I6=_f64(model.link_spatial_inertia, (nl, 6, 6)),
        dof_parent=_i64(model.dof_parent, (nv,)),
        dof_table=dof,
        armature=_f64(model.dof_armature, (nv,)),
        gravity=_f64(model.gravity, (3,)),
        body_link=_i64(model.body_link, (model.nbody,)),
        body_R_link=_f64(model.body_R_link, (model.nbody, 3, 3)),
        body_p_link=_f64(model.body_p_link, (model.nbody, 3)),
        coupling_dof=_i64(model.coupling_dof, (-1, 2)),
        coupling_coeff=_f64(model.coupling_coeff, (-1, 2)),
        coupling_offset=_f64(model.coupling_offset, (-1,)),
        loop_type=_i64(model.loop_type, (-1,)),
        loop_link=_i64(model.loop_link, (-1, 2)),
        loop_R=_f64(model.loop_R_link_frame, (-1, 2, 3, 3)),
        loop_p=_f64(model.loop_p_link_frame, (-1, 2, 3)),
        loop_axis=_f64(model.loop_axis, (-1, 3)),
        dist_link=_i64(model.distance_link, (-1, 2)),
        dist_anchor=_f64(model.distance_p_link_frame, (-1, 2, 3)),
        dist_frame=_f64(model.distance_R_link_frame, (-1, 2, 3, 3)),
        dist_bounds=_f64(model.distance_bounds, (-1, 2)),
        dist_kind=_i64(model.distance_kind, (-1,)),
        dist_drive=_f64(model.distance_drive, (-1, 6)),
        col_type=_i64(model.collider_type, (-1,)),
        col_link=_i64(model.collider_link, (-1,)),
        col_R=_f64(model.collider_R_link, (-1, 3, 3)),
        col_p=_f64(model.collider_p_link, (-1, 3)),
        col_size=_f64(model.collider_size, (-1, 3)),
        col_hull_rows=_f64(model.collider_hull_rows, (-1, 4)),
        col_hull_index=_i64(model.collider_hull_index if len(model.collider_hull_index) == len(model.collider_type)
                            else np.zeros((len(model.collider_type), 4), dtype=np.int64), (-1, 4)),
        col_friction=_f64(model.collider_friction, (-1,)),
        col_restitution=_f64(model.collider_restitution, (-1,)),
        pairs=_i64(model.collision_pairs, (-1, 2)),
        nq=model.nq, nv=nv,
    )
    _CACHE[model] = packed
    return packed
