"""ModelBuilder: assemble an ArticulatedModel body by body (tests, scripts and the stage builder).

Poses passed in are relative to the parent *body* frame, so a body welded to its parent by a
fixed joint can itself be a parent: the builder composes the weld offsets into link frames.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np

from .articulated import (
    DRIVE_TYPES, FREE, PRIMITIVE_NQ, PRIMITIVE_NV, PRISMATIC, REVOLUTE, SPHERICAL,
    ArticulatedModel,
)
from ..errors import InputError
from .inertia import merge_rigidly_attached

D6_AXES = ("transX", "transY", "transZ", "rotX", "rotY", "rotZ")
# a D6 joint's three free rotations turned as one ball joint (ModelBuilder.add_body's d6_ball): its
# label in joint_dof_axes, for 4 coordinates (w, x, y, z) and 3 dofs (the angular velocity in the
# moving frame: rotX, rotY, rotZ at the identity)
D6_BALL = "rotXYZ"
_UNIT = np.eye(3)
_DOF_DEFAULTS = {
    "damping": 0.0, "stiffness": 0.0, "spring_ref": 0.0, "friction_loss": 0.0, "armature": 0.0,
    "lower": -np.inf, "upper": np.inf, "limit_stiffness": 0.0, "limit_damping": 0.0,
    "effort_limit": np.inf, "velocity_limit": np.inf,
}
# the columns a step multiplies by the state (inf there makes a NaN or an inf force at once, which
# the simulator could only report as a divergence); the others are bounds, where inf means none
_FINITE_DOF = ("damping", "stiffness", "spring_ref", "friction_loss", "armature", "limit_stiffness",
               "limit_damping")
_FINITE_DRIVE = ("stiffness", "damping", "target_position", "target_velocity")


@dataclass(frozen=True)
class Drive:
    """A joint drive as UsdPhysics defines it, in SI and radians.

    force = stiffness * (target_position - q) + damping * (target_velocity - v), clamped to
    ``max_force``; ``type="acceleration"`` scales the gains by the dof's effective inertia.
    """

    type: str = "force"
    stiffness: float = 0.0
    damping: float = 0.0
    max_force: float = np.inf
    target_position: float = 0.0
    target_velocity: float = 0.0


@dataclass
class _Link:
    name: str
    parent: int
    kind: int
    joint: int
    virtual: bool
    axis: np.ndarray
    R_pj: np.ndarray
    p_pj: np.ndarray
    R_jc: np.ndarray
    p_jc: np.ndarray
    mass: float = 0.0
    com: np.ndarray = None
    inertia: np.ndarray = None


def _pose_mul(Ra, pa, Rb, pb):
    # a frame that is not finite (inf in a joint's localPos) is named by the checks that follow
    # (initial_state), as an InputError: no RuntimeWarning from numpy before it
    with np.errstate(invalid="ignore", over="ignore"):
        return Ra @ Rb, pa + Ra @ pb


class ModelBuilder:
    """Collects bodies and joints; :meth:`build` returns the frozen model.

    >>> b = ModelBuilder(gravity=(0, 0, -9.81))
    >>> b.add_body("arm", parent=None, joint_type="revolute", axis=(0, 1, 0), mass=1.0,
    ...            com=(0, 0, -0.5), inertia=np.eye(3) * 1e-3)
    """

    def __init__(self, gravity: Sequence[float] = (0.0, 0.0, -9.81)):
        self.gravity = np.asarray(gravity, dtype=float)
        self._links: list[_Link] = []
        self._body_names: list[str] = []
        self._body_index: dict[str, int] = {}  # name -> index in _body_names
        self._body_link: list[int] = []
        self._body_pose: list[tuple[np.ndarray, np.ndarray]] = []  # in the link (or world) frame
        self._joints: list[tuple[str, str, list[int]]] = []  # name, type, link indices
        self._dofs: list[dict] = []
        self._joint_axes: list[tuple[str, ...]] = []

    def add_body(self, name: str, *, parent: Optional[str] = None, joint_type: str = "revolute",
                 joint_name: Optional[str] = None, mass: float = 0.0, com=(0.0, 0.0, 0.0),
                 inertia=None, R_parent_joint=None, p_parent_joint=(0.0, 0.0, 0.0),
                 R_joint_child=None, p_joint_child=(0.0, 0.0, 0.0), axis=(0.0, 0.0, 1.0),
                 d6_axes: Sequence[str] = (), d6_reversed: bool = False, d6_ball: bool = False, drive=None,
                 **dof_params) -> str:
        """Add body ``name`` joined to ``parent`` (a body name, None = world).

        ``mass`` [kg], ``com`` [m] in the body frame, ``inertia`` [kg m^2] about the com. The joint
        frame is placed in the parent body by ``R_parent_joint``/``p_parent_joint`` and the body in
        the joint's moving frame by ``R_joint_child``/``p_joint_child`` [m]. ``axis`` is in the
        joint frame. ``d6_axes`` lists the free axes of a ``"d6"`` joint; ``d6_reversed`` makes
        it the inverse motion (the axes in reverse order, each turning the other way: a D6 whose
        body0 is the child), its dofs then in that order with the same coordinates. ``d6_ball``
        (rotX, rotY and rotZ all free) turns the three rotations as one ball joint (SPHERICAL, a
        quaternion, labelled ``D6_BALL``) after the translations, instead of three hinges in a
        row, which lock at rotY = +-90 deg; its three dofs' limits, springs and drives act on the
        components of its rotation vector (ArticulatedModel.dof_positions). Dof parameters
        (``damping``, ``stiffness``, ``spring_ref``, ``friction_loss``, ``armature``, ``lower``,
        ``upper``, ``limit_stiffness``, ``limit_damping``, ``effort_limit``, ``velocity_limit``)
        and ``drive`` (a :class:`Drive` or None) take one value or one per dof.
        """
        unknown = set(dof_params) - set(_DOF_DEFAULTS)
        if unknown:
            raise TypeError(f"unknown dof parameters: {sorted(unknown)}")
        if name in self._body_index:
            raise ValueError(f"body {name!r} added twice")
        R_pj = np.eye(3) if R_parent_joint is None else np.asarray(R_parent_joint, dtype=float)
        R_jc = np.eye(3) if R_joint_child is None else np.asarray(R_joint_child, dtype=float)
        p_pj = np.asarray(p_parent_joint, dtype=float)
        p_jc = np.asarray(p_joint_child, dtype=float)
        inertia = np.zeros((3, 3)) if inertia is None else np.asarray(inertia, dtype=float)
        com = np.asarray(com, dtype=float)

        # Re-express the joint frame relative to the parent's link (or the world).
        if parent is None:
            parent_link, R_lb, p_lb = -1, np.eye(3), np.zeros(3)
        else:
            b = self._body_index.get(parent)
            if b is None:
                raise ValueError(f"parent body {parent!r} has not been added")
            parent_link = self._body_link[b]
            R_lb, p_lb = self._body_pose[b]
        R_pj, p_pj = _pose_mul(R_lb, p_lb, R_pj, p_pj)

        if joint_type == "fixed" or (joint_type == "d6" and not d6_axes):
            R_body, p_body = _pose_mul(R_pj, p_pj, R_jc, p_jc)
            if parent_link >= 0:
                link = self._links[parent_link]
                link.mass, link.com, link.inertia = merge_rigidly_attached(
                    link.mass, link.com, link.inertia, mass, com, inertia, R_body, p_body)
            self._add_body_record(name, parent_link, R_body, p_body)
            return name

        primitives = self._primitives(joint_type, axis, d6_axes, d6_reversed, d6_ball)
        joint_index = len(self._joints)
        links = []
        prev = parent_link
        for k, (kind, prim_axis, suffix) in enumerate(primitives):
            last = k == len(primitives) - 1
            link = _Link(
                name=name if last else f"{name}/{suffix}", parent=prev, kind=kind,
                joint=joint_index, virtual=not last, axis=prim_axis,
                R_pj=R_pj if k == 0 else np.eye(3), p_pj=p_pj if k == 0 else np.zeros(3),
                R_jc=R_jc if last else np.eye(3), p_jc=p_jc if last else np.zeros(3),
                mass=mass if last else 0.0, com=com if last else np.zeros(3),
                inertia=inertia if last else np.zeros((3, 3)))
            self._links.append(link)
            prev = len(self._links) - 1
            links.append(prev)
        self._joints.append((joint_name or name, joint_type, links))
        self._joint_axes.append(tuple(suffix for _, _, suffix in primitives) if joint_type == "d6" else ())
        nv = sum(PRIMITIVE_NV[kind] for kind, _, _ in primitives)
        self._add_dofs(joint_name or name, nv, dof_params, drive)
        self._add_body_record(name, prev, np.eye(3), np.zeros(3))
        return name

    def _add_body_record(self, name, link, R, p):
        self._body_index[name] = len(self._body_names)
        self._body_names.append(name)
        self._body_link.append(link)
        self._body_pose.append((R, p))

    @staticmethod
    def _primitives(joint_type, axis, d6_axes, d6_reversed=False, d6_ball=False):
        if joint_type in ("revolute", "continuous"):
            a = np.asarray(axis, dtype=float)
            return [(REVOLUTE, a / np.linalg.norm(a), "")]
        if joint_type == "prismatic":
            a = np.asarray(axis, dtype=float)
            return [(PRISMATIC, a / np.linalg.norm(a), "")]
        if joint_type == "spherical":
            return [(SPHERICAL, np.zeros(3), "")]
        if joint_type == "free":
            return [(FREE, np.zeros(3), "")]
        if joint_type == "d6":
            bad = set(d6_axes) - set(D6_AXES)
            if bad:
                raise ValueError(f"unknown D6 axes {sorted(bad)}; use {D6_AXES}")
            if d6_ball and not set(D6_AXES[3:]) <= set(d6_axes):
                raise ValueError("a D6 ball needs rotX, rotY and rotZ free")
            out = []
            for k, label in enumerate(D6_AXES):
                if label in d6_axes and not (d6_ball and k >= 3):
                    out.append((PRISMATIC if k < 3 else REVOLUTE, _UNIT[k % 3].copy(), label))
            if d6_reversed:  # (T_1 ... T_n)^-1 = T_n^-1 ... T_1^-1, T(a, q)^-1 = T(-a, q)
                out = [(kind, -unit, label) for kind, unit, label in reversed(out)]
            if d6_ball:  # (T R)^-1 = R^-1 T^-1: the inverse rotation is a ball too, turned first
                ball = (SPHERICAL, np.zeros(3), D6_BALL)
                out = [ball] + out if d6_reversed else out + [ball]
            return out
        raise ValueError(f"unknown joint type {joint_type!r}")

    def _add_dofs(self, joint_name, nv, params, drive):
        per = {}
        for key, default in _DOF_DEFAULTS.items():
            value = params.get(key, default)
            if type(value) is float or type(value) is int:  # one value for every dof
                per[key] = (float(value),) * nv
            elif type(value) is list and len(value) == nv and all(type(x) is float for x in value):
                per[key] = value  # one float per dof, as the stage builder passes them
            else:
                per[key] = np.broadcast_to(np.asarray(value, dtype=float), (nv,))
        drives = list(drive) if isinstance(drive, (list, tuple)) else [drive] * nv
        if len(drives) != nv:
            raise ValueError(f"joint {joint_name!r}: {len(drives)} drives for {nv} dofs")
        for k in range(nv):
            row = {key: float(per[key][k]) for key in per}
            row["drive"] = drives[k]
            _check_finite(joint_name, row)
            self._dofs.append(row)

    def build(self, q_initial=None, qd_initial=None) -> ArticulatedModel:
        """Freeze the collected tree; initial state defaults to the neutral configuration, rest."""
        links = self._links
        nl = len(links)
        kinds = np.array([l.kind for l in links], dtype=np.int64)
        nq_link = np.array([PRIMITIVE_NQ[k] for k in kinds], dtype=np.int64)
        nv_link = np.array([PRIMITIVE_NV[k] for k in kinds], dtype=np.int64)
        q_start = np.concatenate([[0], np.cumsum(nq_link)[:-1]]).astype(np.int64) if nl else np.zeros(0, np.int64)
        v_start = np.concatenate([[0], np.cumsum(nv_link)[:-1]]).astype(np.int64) if nl else np.zeros(0, np.int64)
        joint_links = [j[2] for j in self._joints]
        j_q = np.array([q_start[ls[0]] for ls in joint_links], dtype=np.int64)
        j_v = np.array([v_start[ls[0]] for ls in joint_links], dtype=np.int64)
        j_nq = np.array([nq_link[ls].sum() for ls in joint_links], dtype=np.int64)
        j_nv = np.array([nv_link[ls].sum() for ls in joint_links], dtype=np.int64)
        dof_joint = np.repeat(np.arange(len(self._joints), dtype=np.int64), j_nv)
        dof_q = np.full(len(self._dofs), -1, dtype=np.int64)
        for i in range(nl):
            if kinds[i] in (REVOLUTE, PRISMATIC):
                dof_q[v_start[i]] = q_start[i]
        d = self._dofs

        def col(key):
            return np.array([row[key] for row in d], dtype=float)

        def drive_col(attr, default):
            return np.array([getattr(row["drive"], attr) if row["drive"] else default for row in d], dtype=float)

        drive_type = np.array([DRIVE_TYPES[row["drive"].type] if row["drive"] else 0 for row in d], dtype=np.int64)
        model = ArticulatedModel(
            link_names=tuple(l.name for l in links),
            link_parent=np.array([l.parent for l in links], dtype=np.int64),
            link_type=kinds,
            link_joint=np.array([l.joint for l in links], dtype=np.int64),
            link_virtual=np.array([l.virtual for l in links], dtype=bool),
            link_q_start=q_start, link_v_start=v_start,
            link_axis=np.array([l.axis for l in links], dtype=float).reshape(nl, 3),
            link_R_parent_joint=np.array([l.R_pj for l in links], dtype=float).reshape(nl, 3, 3),
            link_p_parent_joint=np.array([l.p_pj for l in links], dtype=float).reshape(nl, 3),
            link_R_joint_child=np.array([l.R_jc for l in links], dtype=float).reshape(nl, 3, 3),
            link_p_joint_child=np.array([l.p_jc for l in links], dtype=float).reshape(nl, 3),
            link_mass=np.array([l.mass for l in links], dtype=float),
            link_com=np.array([l.com for l in links], dtype=float).reshape(nl, 3),
            link_inertia=np.array([l.inertia for l in links], dtype=float).reshape(nl, 3, 3),
            joint_names=tuple(j[0] for j in self._joints),
            joint_types=tuple(j[1] for j in self._joints),
            joint_q_start=j_q, joint_nq=j_nq, joint_v_start=j_v, joint_nv=j_nv,
            dof_joint=dof_joint, dof_q_index=dof_q,
            dof_damping=col("damping"), dof_stiffness=col("stiffness"),
            dof_spring_ref=col("spring_ref"), dof_friction_loss=col("friction_loss"),
            dof_armature=col("armature"), dof_lower=col("lower"), dof_upper=col("upper"),
            dof_limit_stiffness=col("limit_stiffness"), dof_limit_damping=col("limit_damping"),
            dof_effort_limit=col("effort_limit"), dof_velocity_limit=col("velocity_limit"),
            dof_drive_type=drive_type,
            dof_drive_stiffness=drive_col("stiffness", 0.0),
            dof_drive_damping=drive_col("damping", 0.0),
            dof_drive_max_force=drive_col("max_force", np.inf),
            dof_drive_target_position=drive_col("target_position", 0.0),
            dof_drive_target_velocity=drive_col("target_velocity", 0.0),
            body_names=tuple(self._body_names),
            body_link=np.array(self._body_link, dtype=np.int64),
            body_R_link=np.array([p[0] for p in self._body_pose], dtype=float).reshape(-1, 3, 3),
            body_p_link=np.array([p[1] for p in self._body_pose], dtype=float).reshape(-1, 3),
            gravity=self.gravity.copy(),
            q_initial=np.zeros(0), qd_initial=np.zeros(0),
            joint_dof_axes=tuple(self._joint_axes),
        )
        q0 = model.neutral_configuration() if q_initial is None else np.asarray(q_initial, dtype=float)
        qd0 = np.zeros(model.nv) if qd_initial is None else np.asarray(qd_initial, dtype=float)
        return dataclasses.replace(model, q_initial=q0.copy(), qd_initial=qd0.copy())


def _check_finite(joint_name, row) -> None:
    """InputError naming the joint when one of its dof's gains or targets (in SI units, after
    the stage's units and degrees are applied) is not finite, or a bound is NaN."""
    bad = [f"{key.replace('_', ' ')} {row[key]:g}" for key in _FINITE_DOF if not math.isfinite(row[key])]
    bad += [f"{key.replace('_', ' ')} {row[key]:g}" for key in _DOF_DEFAULTS
            if key not in _FINITE_DOF and math.isnan(row[key])]
    drive = row["drive"]
    if drive:
        bad += [f"drive {key.replace('_', ' ')} {getattr(drive, key):g}" for key in _FINITE_DRIVE
                if not math.isfinite(getattr(drive, key))]
        if math.isnan(drive.max_force):
            bad.append("drive max force nan")
    if bad:
        raise InputError(joint_name, f"not finite in SI units: its {', '.join(bad)}")
