"""ArticulatedModel: the numeric description of a kinematic tree, as plain numpy arrays.

The simulator works on three index spaces:

* **links** ``[nlink]``: the rigid frames the dynamics kernels walk, in topological order
  (``link_parent[i] < i``, ``-1`` = world). Every link has exactly one joint primitive connecting
  it to its parent: revolute, prismatic, spherical or free. A D6 joint with several free axes is
  a chain of 1-dof primitives joined by *virtual* links (zero mass, ``link_virtual`` true):
  translations X, Y, Z first, then rotations about X, Y, Z (intrinsic order), each present only
  when that axis is free. Fixed joints never become links: the builder merges the child's mass
  properties into its parent (:func:`usdjoints.model.inertia.merge_rigidly_attached`).
* **joints** ``[njoint]``: what a user names (``joint_names``), each owning one contiguous range
  of ``q`` and ``v`` and one or more links.
* **dofs** ``[nv]``: one per velocity coordinate. Passive, limit and drive parameters live here.
  ``dof_q_index[k]`` is the matching position coordinate for scalar dofs (revolute, prismatic,
  D6 axes) and ``-1`` for the rotational dofs of quaternion joints, where springs, limits and
  position targets do not apply (damping, friction, armature and velocity targets do).
* **bodies** ``[nbody]``: the real rigid bodies whose poses are reported. A body rides on a link
  (``body_link``) at a constant offset; several bodies share one link when fixed joints were
  merged; ``body_link == -1`` is a body welded to the world.

Coordinates. A pose ``(R_a_b, p_a_b)`` places frame ``b`` in frame ``a``: ``R_a_b`` maps ``b``
coordinates to ``a`` coordinates and ``p_a_b`` is ``b``'s origin in ``a`` [m]. A link's pose in its
parent is ``T_parent_joint * T_joint(q) * T_joint_child``. Quaternions are (w, x, y, z).

Joint coordinates: revolute/prismatic ``q`` [rad or m], ``v`` [rad/s or m/s]. Spherical ``q`` is
the quaternion of the moving frame in the joint frame, ``v`` its angular velocity in the moving
frame [rad/s]. Free ``q`` = position of the moving frame in the joint frame [m] then quaternion;
``v`` = linear velocity of its origin then angular velocity, both in the moving frame (a body
twist, as pinocchio orders it).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from .primitives import (  # noqa: F401  (the primitives' one home; re-exported)
    FREE, PRIMITIVE_NAMES, PRIMITIVE_NQ, PRIMITIVE_NV, PRISMATIC, REVOLUTE, SPHERICAL, motion_subspace,
)
from .rotation import quat_to_rotation_vector

DRIVE_NONE = 0
DRIVE_FORCE = 1
DRIVE_ACCELERATION = 2
DRIVE_TYPES = {"force": DRIVE_FORCE, "acceleration": DRIVE_ACCELERATION}

# Loop-closing joints keep the primitive codes above; a weld closing a loop is LOOP_FIXED.
LOOP_FIXED = 4
LOOP_TYPES = {"revolute": REVOLUTE, "prismatic": PRISMATIC, "spherical": SPHERICAL, "fixed": LOOP_FIXED}
# a D6 closing a loop whose locked axes make none of those: LOOP_D6 + its mask of locked axes (bit
# a for transX, transY, transZ, rotX, rotY, rotZ; sim/kernels/constraints.py holds its rows)
LOOP_D6 = 8

# What a bound row (the distance_* arrays) bounds: a distance joint's anchor distance, or the
# limit of a loop-closing hinge (the angle of side 1's frame about side 0's x axis) or slider (side
# 1's anchor along side 0's x axis), the frames turned so that x is the joint's axis
BOUND_DISTANCE = 0
BOUND_ANGLE = 1
BOUND_SLIDE = 2
# a spherical joint's cone: the swing of side 1's x axis from side 0's, within the elliptical cone
# of half-angles (bounds) about side 0's y and z axes (in the tree or closing a loop)
BOUND_CONE = 3
# A bound row's drive (distance_drive's columns): a loop-closing hinge's or slider's drive on its
# axis, in SI and radians, type DRIVE_NONE (no drive), DRIVE_FORCE or DRIVE_ACCELERATION
ROW_DRIVE_TYPE = 0
ROW_DRIVE_STIFFNESS = 1
ROW_DRIVE_DAMPING = 2
ROW_DRIVE_MAX_FORCE = 3
ROW_DRIVE_TARGET_POSITION = 4
ROW_DRIVE_TARGET_VELOCITY = 5
ROW_DRIVE_COLUMNS = 6

COLLIDER_SPHERE = 0
COLLIDER_CAPSULE = 1
COLLIDER_BOX = 2
COLLIDER_PLANE = 3
COLLIDER_HULL = 4
COLLIDER_TYPES = {"sphere": COLLIDER_SPHERE, "capsule": COLLIDER_CAPSULE, "box": COLLIDER_BOX,
                  "plane": COLLIDER_PLANE, "hull": COLLIDER_HULL}


def _empty(*shape, dtype=np.float64):
    return field(default_factory=lambda: np.zeros(shape, dtype=dtype))


@dataclass(frozen=True, eq=False)
class ArticulatedModel:
    """A kinematic tree in SI units and radians; arrays are float64 / int64 and never mutated."""

    # Links, shape [nlink], topological order.
    link_names: tuple[str, ...]
    link_parent: np.ndarray          # int64 [nlink], parent link index, -1 = world
    link_type: np.ndarray            # int64 [nlink], REVOLUTE | PRISMATIC | SPHERICAL | FREE
    link_joint: np.ndarray           # int64 [nlink], index of the user-facing joint
    link_virtual: np.ndarray         # bool [nlink], massless link inside a D6 chain
    link_q_start: np.ndarray         # int64 [nlink], first q index of the primitive
    link_v_start: np.ndarray         # int64 [nlink], first v (and dof) index of the primitive
    link_axis: np.ndarray            # float64 [nlink, 3], unit axis in the joint frame (rev/prism)
    link_R_parent_joint: np.ndarray  # float64 [nlink, 3, 3], joint frame orientation in parent link
    link_p_parent_joint: np.ndarray  # float64 [nlink, 3] [m], joint frame origin in parent link
    link_R_joint_child: np.ndarray   # float64 [nlink, 3, 3], link frame orientation in moving frame
    link_p_joint_child: np.ndarray   # float64 [nlink, 3] [m], link frame origin in moving frame
    link_mass: np.ndarray            # float64 [nlink] [kg]
    link_com: np.ndarray             # float64 [nlink, 3] [m], centre of mass in link frame
    link_inertia: np.ndarray         # float64 [nlink, 3, 3] [kg m^2], about the com, link axes

    # User-facing joints, shape [njoint].
    joint_names: tuple[str, ...]
    joint_types: tuple[str, ...]     # revolute | prismatic | spherical | free | d6
    joint_q_start: np.ndarray        # int64 [njoint]
    joint_nq: np.ndarray             # int64 [njoint]
    joint_v_start: np.ndarray        # int64 [njoint]
    joint_nv: np.ndarray             # int64 [njoint]

    # Dofs, shape [nv]. Angular dofs in rad / N m, linear dofs in m / N.
    dof_joint: np.ndarray            # int64 [nv], owning joint
    dof_q_index: np.ndarray          # int64 [nv], matching q index, -1 for quaternion dofs
    dof_damping: np.ndarray          # float64 [nv] [N m s/rad | N s/m], force = -d * v
    dof_stiffness: np.ndarray        # float64 [nv] [N m/rad | N/m], force = -k * (q - spring_ref)
    dof_spring_ref: np.ndarray       # float64 [nv] [rad | m]
    dof_friction_loss: np.ndarray    # float64 [nv] [N m | N], dry friction magnitude
    dof_armature: np.ndarray         # float64 [nv] [kg m^2 | kg], added to the mass-matrix diagonal
    dof_lower: np.ndarray            # float64 [nv] [rad | m], -inf = none
    dof_upper: np.ndarray            # float64 [nv] [rad | m], +inf = none
    dof_limit_stiffness: np.ndarray  # float64 [nv] [N m/rad | N/m], soft-limit spring
    dof_limit_damping: np.ndarray    # float64 [nv] [N m s/rad | N s/m], resists only deeper motion
    dof_effort_limit: np.ndarray     # float64 [nv] [N m | N], |actuation| bound, inf = none
    dof_velocity_limit: np.ndarray   # float64 [nv] [rad/s | m/s], |v| bound, inf = none
    dof_drive_type: np.ndarray       # int64 [nv], DRIVE_NONE | DRIVE_FORCE | DRIVE_ACCELERATION
    dof_drive_stiffness: np.ndarray  # float64 [nv] [N m/rad | N/m]; per second^2 for acceleration
    dof_drive_damping: np.ndarray    # float64 [nv] [N m s/rad | N s/m]; per second for acceleration
    dof_drive_max_force: np.ndarray  # float64 [nv] [N m | N], inf = unbounded
    dof_drive_target_position: np.ndarray  # float64 [nv] [rad | m]
    dof_drive_target_velocity: np.ndarray  # float64 [nv] [rad/s | m/s]

    # Real bodies, shape [nbody].
    body_names: tuple[str, ...]
    body_link: np.ndarray            # int64 [nbody], carrying link, -1 = welded to the world
    body_R_link: np.ndarray          # float64 [nbody, 3, 3], body orientation in its link frame
    body_p_link: np.ndarray          # float64 [nbody, 3] [m], body origin in its link frame

    gravity: np.ndarray              # float64 [3] [m/s^2], in world coordinates
    q_initial: np.ndarray            # float64 [nq], the state a simulation starts from by default
    qd_initial: np.ndarray           # float64 [nv]

    # Couplings, shape [ncoupling]: exact linear constraints between two scalar dofs,
    # coeff[0] q[dof 0] + coeff[1] q[dof 1] + offset = 0 (so coeff[0] v0 + coeff[1] v1 = 0), in SI
    # and radians. Rack-and-pinion, gear and mimic joints all become one row.
    coupling_names: tuple[str, ...] = ()
    coupling_dof: np.ndarray = _empty(0, 2, dtype=np.int64)   # int64 [ncoupling, 2], dof indices
    coupling_coeff: np.ndarray = _empty(0, 2)                  # float64 [ncoupling, 2]
    coupling_offset: np.ndarray = _empty(0)                    # float64 [ncoupling] [rad | m]

    # Loop closures, shape [nloop]: a joint outside the tree holds frame A (on link_a, the joint's
    # body0 side) and frame B (on link_b, body1) together except along its free axes.
    loop_names: tuple[str, ...] = ()
    loop_type: np.ndarray = _empty(0, dtype=np.int64)          # int64 [nloop], LOOP_TYPES
    loop_link: np.ndarray = _empty(0, 2, dtype=np.int64)       # int64 [nloop, 2], -1 = world
    loop_R_link_frame: np.ndarray = _empty(0, 2, 3, 3)         # float64 [nloop, 2, 3, 3]
    loop_p_link_frame: np.ndarray = _empty(0, 2, 3)            # float64 [nloop, 2, 3] [m]
    loop_axis: np.ndarray = _empty(0, 3)                       # float64 [nloop, 3], in frame A

    # Bound rows, shape [ndistance]: distance joints (outside the tree: PhysX never articulates
    # them), each keeping the distance between an anchor on link 0 (body0) and one on link 1
    # (body1) within [min, max] (-inf, inf where the joint authors no bound); then the limits and
    # drives of loop-closing hinges and sliders (distance_kind, BOUND_* above; distance_drive,
    # ROW_DRIVE_*: DRIVE_NONE for a row without a drive).
    distance_names: tuple[str, ...] = ()
    distance_link: np.ndarray = _empty(0, 2, dtype=np.int64)   # int64 [ndistance, 2], -1 = world
    distance_p_link_frame: np.ndarray = _empty(0, 2, 3)        # float64 [ndistance, 2, 3] [m]
    distance_R_link_frame: np.ndarray = _empty(0, 2, 3, 3)     # float64 [ndistance, 2, 3, 3]
    distance_bounds: np.ndarray = _empty(0, 2)                 # float64 [ndistance, 2] [m | rad]
    distance_kind: np.ndarray = _empty(0, dtype=np.int64)      # int64 [ndistance], BOUND_*
    distance_drive: np.ndarray = _empty(0, 6)                  # float64 [ndistance, ROW_DRIVE_COLUMNS]

    # Colliders, shape [ncollider]: primitives fixed to a link (-1 = the world). A capsule's axis
    # and a plane's normal are the collider frame's z axis.
    collider_names: tuple[str, ...] = ()
    collider_type: np.ndarray = _empty(0, dtype=np.int64)      # int64, COLLIDER_TYPES
    collider_link: np.ndarray = _empty(0, dtype=np.int64)      # int64, -1 = world
    collider_R_link: np.ndarray = _empty(0, 3, 3)              # float64 [ncollider, 3, 3]
    collider_p_link: np.ndarray = _empty(0, 3)                 # float64 [ncollider, 3] [m]
    collider_size: np.ndarray = _empty(0, 3)  # [m]: sphere (r, 0, 0), capsule (r, half length, 0), box
    # half extents; a hull the half extents of its vertices' box, centred on the collider frame
    # A hull's vertex rows (x, y, z, 0) then its face-plane rows (nx, ny, nz, d; n . x <= d inside),
    # collider frame [m]; per collider (vertex start, count, face start, count), zeros for others.
    collider_hull_rows: np.ndarray = _empty(0, 4)              # float64 [nrow, 4]
    collider_hull_index: np.ndarray = _empty(0, 4, dtype=np.int64)  # int64 [ncollider, 4]
    # per collider, the articulation (index in the stage's) its body is a link of, -1 for none
    collider_articulation: np.ndarray = _empty(0, dtype=np.int64)
    collider_friction: np.ndarray = _empty(0)                  # float64 [ncollider], Coulomb mu
    collider_restitution: np.ndarray = _empty(0)               # float64 [ncollider], 0..1
    # Pairs of colliders that may touch (same-link and jointed pairs filtered), int64 [npair, 2].
    collision_pairs: np.ndarray = _empty(0, 2, dtype=np.int64)
    # Pairs left out by PhysX's filtering rules (colliders.py): (collider a, collider b, reason).
    collision_filtered: tuple = ()

    # Per joint, the D6 axis of each of its dofs in dof order (transX .. rotZ; () for other joint
    # types): a D6 whose body0 is the child in the tree runs its axes in reverse order.
    joint_dof_axes: tuple = ()
    diagnostics: tuple = ()          # usdjoints.descriptors.Diagnostic: what the build changed or dropped

    def __post_init__(self):
        # Kernels share these arrays across calls and threads: make accidental writes fail loudly.
        for value in self.__dict__.values():
            if isinstance(value, np.ndarray):
                value.flags.writeable = False

    @property
    def nlink(self) -> int:
        return len(self.link_names)

    @property
    def nbody(self) -> int:
        return len(self.body_names)

    @property
    def nq(self) -> int:
        return int(self.joint_q_start[-1] + self.joint_nq[-1]) if len(self.joint_names) else 0

    @property
    def nv(self) -> int:
        return int(self.joint_v_start[-1] + self.joint_nv[-1]) if len(self.joint_names) else 0

    @cached_property
    def joint_positions(self) -> dict:
        """joint name -> its index in ``joint_names`` (the first of repeated names)."""
        return _first_positions(self.joint_names)

    @cached_property
    def body_positions(self) -> dict:
        """body name -> its index in ``body_names`` (the first of repeated names)."""
        return _first_positions(self.body_names)

    def joint_index(self, name: str) -> int:
        j = self.joint_positions.get(name)
        if j is None:
            raise KeyError(f"no joint named {name!r}; joints: {', '.join(self.joint_names)}")
        return j

    def q_slice(self, name: str) -> slice:
        """The range of ``q`` owned by joint ``name``."""
        j = self.joint_index(name)
        start = int(self.joint_q_start[j])
        return slice(start, start + int(self.joint_nq[j]))

    def v_slice(self, name: str) -> slice:
        """The range of ``v`` (and of the dof arrays) owned by joint ``name``."""
        j = self.joint_index(name)
        start = int(self.joint_v_start[j])
        return slice(start, start + int(self.joint_nv[j]))

    def neutral_configuration(self) -> np.ndarray:
        """q with every scalar coordinate 0 and every quaternion the identity, shape [nq]."""
        q = np.zeros(self.nq)
        for i in range(self.nlink):
            kind = int(self.link_type[i])
            start = int(self.link_q_start[i])
            if kind == SPHERICAL:
                q[start] = 1.0
            elif kind == FREE:
                q[start + 3] = 1.0
        return q

    def dof_positions(self, q) -> tuple[np.ndarray, np.ndarray]:
        """(placed bool [nv], x float64 [..., nv]): each dof's position [rad | m] at q [..., nq], the one its
        limits, springs and drives act on: a hinge's or slider's coordinate, a ball joint dof's
        component of its rotation vector (rotation.quat_to_rotation_vector, as PhysX reads a
        spherical joint); a free joint's dofs have none (placed False, x 0). The numpy twin of
        the simulator's kernels/jcalc.dof_position."""
        q = np.asarray(q, dtype=float)
        placed = np.asarray(self.dof_q_index) >= 0
        x = np.where(placed, q[..., np.maximum(self.dof_q_index, 0)], 0.0)
        for i in np.flatnonzero(np.asarray(self.link_type) == SPHERICAL):
            v, start = int(self.link_v_start[i]), int(self.link_q_start[i])
            x[..., v:v + 3] = quat_to_rotation_vector(q[..., start:start + 4])
            placed[v:v + 3] = True
        return placed, x

    @cached_property
    def link_motion_subspace(self) -> np.ndarray:
        """S of each link's primitive in link coordinates, float64 [nlink, 6, 6], spatial rows
        (angular, linear); only the first ``nv`` columns of a primitive are used."""
        S = np.zeros((self.nlink, 6, 6))
        for i in range(self.nlink):
            # moving-frame coordinates -> link coordinates
            S[i] = motion_subspace(int(self.link_type[i]), self.link_axis[i], self.link_R_joint_child[i].T,
                                   self.link_p_joint_child[i])
        return S

    @cached_property
    def link_spatial_inertia(self) -> np.ndarray:
        """Spatial inertia of each link about its own origin, float64 [nlink, 6, 6] (angular,
        linear) [kg m^2, kg m, kg]."""
        out = np.zeros((self.nlink, 6, 6))
        for i in range(self.nlink):
            m, c = self.link_mass[i], self.link_com[i]
            cx = np.array([[0.0, -c[2], c[1]], [c[2], 0.0, -c[0]], [-c[1], c[0], 0.0]])
            out[i, :3, :3] = self.link_inertia[i] + m * cx @ cx.T
            out[i, :3, 3:] = m * cx
            out[i, 3:, :3] = m * cx.T
            out[i, 3:, 3:] = m * np.eye(3)
        return out

    @cached_property
    def dof_parent(self) -> np.ndarray:
        """The previous dof on the path to the root, int64 [nv], -1 at the root: the sparsity
        pattern of the mass matrix that the LTDL factorisation follows."""
        lam = np.full(self.nv, -1, dtype=np.int64)
        for i in range(self.nlink):
            start, n = int(self.link_v_start[i]), PRIMITIVE_NV[int(self.link_type[i])]
            p = int(self.link_parent[i])
            if p >= 0:
                lam[start] = int(self.link_v_start[p]) + PRIMITIVE_NV[int(self.link_type[p])] - 1
            for k in range(1, n):
                lam[start + k] = start + k - 1
        return lam

    @cached_property
    def dof_name(self) -> tuple[str, ...]:
        """``joint[k]`` labels for messages, one per dof."""
        names = []
        for j, name in enumerate(self.joint_names):
            n = int(self.joint_nv[j])
            names.extend([name] if n == 1 else [f"{name}[{k}]" for k in range(n)])
        return tuple(names)


def _first_positions(names) -> dict[str, int]:
    """name -> the index of its first occurrence in ``names``."""
    positions: dict[str, int] = {}
    for index, name in enumerate(names):
        positions.setdefault(name, index)
    return positions
