"""Rigid bodies and how a joint's relationship target resolves to one.

Consumers disagree on two points, both encoded here: which ancestor counts as the body (OpenUSD's
parser takes the nearest PhysicsRigidBodyAPI prim whether enabled or not, else the topmost
collider; PhysX and usdjoints take the nearest *enabled* rigid body), and what happens to the frame
of a target that is no body (OpenUSD's parser and usdjoints lift it through the target's
transform; PhysX uses the authored frame verbatim in world space).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from pxr import Gf, Usd, UsdGeom

from ..descriptors import BodyDesc, Diagnostic, Pose
from ..profiles import PROFILES
from ..provenance import Resolved


@dataclass(frozen=True, slots=True)
class BodyRecord:
    """What the walker keeps of a rigid body while it resolves joints."""

    path: str
    enabled: bool
    kinematic: bool
    world: Gf.Matrix4d  # composed local-to-world, scale included
    scale: tuple[float, float, float]
    mirrored: bool


@dataclass(frozen=True, slots=True)
class ResolvedSide:
    """One side of a joint: the body it resolves to (None = world) and its frame in that body."""

    body: Optional[str]
    target: Optional[str]
    pose: Pose
    diagnostics: tuple[Diagnostic, ...] = ()


class BodyIndex:
    """Rigid bodies and colliders of a stage, with a transform cache; shared by every consumer."""

    def __init__(self, stage: Usd.Stage):
        self.stage = stage
        self.xform_cache = UsdGeom.XformCache(Usd.TimeCode.Default())
        self.records: dict[str, BodyRecord] = {}
        self.colliders: set[str] = set()
        self._poses: list[tuple[str, Pose, object]] = []  # path, unscaled world pose, raw columns
        self._sides: dict[tuple, tuple[ResolvedSide, str]] = {}  # (joint, side, group) -> (side, consumer)
        self.transform_errors: dict[str, str] = {}  # prim path -> why an xformOp of it was taken as identity

    def descs(self, view) -> tuple[BodyDesc, ...]:
        """The bodies with their columns as the consumer of ``view`` resolves them."""
        out = []
        for path, pose, raw in self._poses:
            record = self.records[path]
            out.append(BodyDesc(path, record.enabled and not record.kinematic, record.kinematic, record.enabled,
                                pose, record.scale, record.mirrored, view.columns(raw)))
        return tuple(out)

    def world(self, prim: Usd.Prim) -> Gf.Matrix4d:
        """``prim``'s local-to-world transform; an xformOp USD cannot evaluate counts as identity."""
        return local_to_world(self.xform_cache, prim, self.transform_errors)

    def add_body(self, prim: Usd.Prim, raw, columns: dict[str, Resolved]) -> None:
        """A rigid body: ``raw`` its authored columns, ``columns`` them resolved (any consumer)."""
        path = str(prim.GetPath())
        world = self.world(prim)
        # the matrix as Python floats in one call (each Gf call, and iterating a Gf vector most
        # of all, costs far more than arithmetic on floats)
        r0, r1, r2, (tx, ty, tz, _) = memoryview(world).tolist()
        mirrored = _determinant3(r0, r1, r2) < 0.0
        if not mirrored and _is_rigid(r0, r1, r2):
            # rigid transform: no scale to decompose (the common case, and much cheaper)
            position = (tx, ty, tz)
            orientation = _quat_tuple(world.ExtractRotationQuat())
            scale = (1.0, 1.0, 1.0)
        else:
            transform = Gf.Transform(world)
            scale = _vec3_tuple(transform.GetScale())
            position = _vec3_tuple(transform.GetTranslation())
            orientation = _quat_tuple(transform.GetRotation().GetQuat())
        enabled = bool(columns["physics:rigidBodyEnabled"].value)
        kinematic = bool(columns["physics:kinematicEnabled"].value)
        self.records[path] = BodyRecord(path, enabled, kinematic, world, scale, mirrored)
        self._poses.append((path, Pose(position, orientation), raw))

    def add_collider(self, prim: Usd.Prim) -> None:
        self.colliders.add(str(prim.GetPath()))

    def is_link(self, path: Optional[str], consumer: str) -> bool:
        """Whether ``path`` can be an articulation link for ``consumer``."""
        return PROFILES[consumer].is_link(self.records.get(path) if path else None)

    def find_body(self, prim: Usd.Prim, consumer: str) -> Optional[str]:
        """The body a prim belongs to, as ``consumer`` resolves it (None = world)."""
        return PROFILES[consumer].resolve_body(prim, self.records, self.colliders, self.stage.GetPseudoRoot())

    def resolve_side(self, joint_path: str, side: int, target: Optional[str], position, orientation,
                     consumer: str) -> ResolvedSide:
        """Resolve ``physics:body<side>`` and bake its frame the way ``consumer`` does.

        ``position`` [stage length] and ``orientation`` (w, x, y, z) are the authored local frame;
        the quaternion is normalised first, as every consumer does. Results are shared between
        consumers wherever their rules agree (no target, or a target that is an enabled body).
        """
        record = self.records.get(target) if target else None
        if target is None or (record is not None and record.enabled):
            group = "any"  # no target, or an enabled body itself: every consumer resolves it alike
        else:
            group = PROFILES[consumer].body_rule()  # consumers with one rule resolve it alike
        key = (joint_path, side, group, position, orientation)  # frames are in the key: a blocked one may differ
        cached = self._sides.get(key)
        if cached is not None and (group == "any" or cached[1] == consumer or cached[0].body is not None):
            return cached[0]
        resolved = self._resolve_side(joint_path, side, target, position, orientation, consumer)
        self._sides[key] = (resolved, consumer)
        return resolved

    def _resolve_side(self, joint_path: str, side: int, target: Optional[str], position, orientation,
                      consumer: str) -> ResolvedSide:
        quat = _normalised(orientation)
        if target is None:
            return ResolvedSide(None, None, Pose(tuple(position), quat))
        target_prim = self.stage.GetPrimAtPath(target)
        if not target_prim:
            message = (f"physics:body{side} targets {target}, which does not exist: that side is anchored "
                       "to the world with its frame taken as world space")
            return ResolvedSide(None, target, Pose(tuple(position), quat),
                                (Diagnostic("error", joint_path, message, "dangling-body"),))
        body = self.find_body(target_prim, consumer)
        diagnostics: list[Diagnostic] = []
        if body is None:
            diagnostics.append(Diagnostic(
                "warning", joint_path,
                f"physics:body{side} targets {target}, which is inside no rigid body: that side is the world",
                "target-not-body"))
        if body == target:
            record = self.records.get(body)
            scale = record.scale if record else (1.0, 1.0, 1.0)
            return ResolvedSide(body, target, Pose(_scaled(position, scale), quat), tuple(diagnostics))
        if body is None and PROFILES[consumer].unresolved_frame == "verbatim":
            # e.g. PhysX keeps the authored frame as a world-space frame when no body resolves.
            return ResolvedSide(None, target, Pose(tuple(position), quat), tuple(diagnostics))
        target_world = self.world(target_prim)
        body_world = self.records[body].world if body in self.records else (
            self.world(self.stage.GetPrimAtPath(body)) if body else Gf.Matrix4d(1.0))
        anchor = Gf.Matrix4d(1.0)
        anchor.SetRotateOnly(Gf.Quatd(quat[0], Gf.Vec3d(quat[1], quat[2], quat[3])))
        anchor.SetTranslateOnly(Gf.Vec3d(*position))
        in_body = (anchor * target_world * body_world.GetInverse()).RemoveScaleShear()
        lifted_position = _vec3_tuple(in_body.ExtractTranslation())
        lifted_quat = _normalised(_quat_tuple(in_body.ExtractRotationQuat()))
        scale = Gf.Transform(body_world).GetScale() if body else (1.0, 1.0, 1.0)
        if body is not None:
            diagnostics.append(Diagnostic(
                "info", joint_path,
                f"physics:body{side} targets {target} inside body {body}: its frame is lifted into the body",
                "target-child-prim"))
        return ResolvedSide(body, target, Pose(_scaled(lifted_position, scale), lifted_quat), tuple(diagnostics))


def local_to_world(cache, prim: Usd.Prim, errors: Optional[dict] = None) -> Gf.Matrix4d:
    """``cache.GetLocalToWorldTransform(prim)``, or, when USD cannot evaluate an xformOp on the way
    (an empty or wrongly typed value: USD raises), the same product with each such op taken as
    the identity, which is what USD's C++ API returns to a consumer after posting the error.
    ``errors`` collects prim path -> reason for each prim whose op was replaced."""
    from pxr import Tf

    try:
        return cache.GetLocalToWorldTransform(prim)
    except Tf.ErrorException:
        pass
    chain = []
    node = prim
    while node and not node.IsPseudoRoot():
        chain.append(node)
        node = node.GetParent()
    world = Gf.Matrix4d(1.0)
    for node in reversed(chain):  # root first
        local, resets = _local_transform(node, errors)
        world = local if resets else local * world
    return world


def _local_transform(prim: Usd.Prim, errors: Optional[dict]) -> tuple[Gf.Matrix4d, bool]:
    from pxr import Tf

    xformable = UsdGeom.Xformable(prim)
    if not xformable:
        return Gf.Matrix4d(1.0), False
    try:
        ops = xformable.GetOrderedXformOps()
        resets = xformable.GetResetXformStack()
    except Tf.ErrorException as error:
        _note(errors, prim, error)
        return Gf.Matrix4d(1.0), False
    local = Gf.Matrix4d(1.0)
    for op in ops:
        try:
            matrix = op.GetOpTransform(Usd.TimeCode.Default())
        except Tf.ErrorException as error:
            _note(errors, prim, error)
            continue
        local = matrix * local
    return local, resets


def _note(errors: Optional[dict], prim, error) -> None:
    if errors is not None:
        from .columns import usd_reason

        errors.setdefault(str(prim.GetPath()), usd_reason(error))


def _determinant3(r0, r1, r2) -> float:
    """Determinant of the 3x3 part of a transform given as its first three rows (lists of 4)."""
    return (r0[0] * (r1[1] * r2[2] - r1[2] * r2[1]) - r0[1] * (r1[0] * r2[2] - r1[2] * r2[0])
            + r0[2] * (r1[0] * r2[1] - r1[1] * r2[0]))


def _dot3(a, b) -> float:
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def _is_rigid(r0, r1, r2) -> bool:
    """Whether a transform's 3x3 part (rows r0, r1, r2) is a rotation (unit, orthogonal rows) to
    float64 rounding."""
    tolerance = 1e-12
    return (abs(_dot3(r0, r0) - 1.0) < tolerance and abs(_dot3(r1, r1) - 1.0) < tolerance
            and abs(_dot3(r2, r2) - 1.0) < tolerance and abs(_dot3(r0, r1)) < tolerance
            and abs(_dot3(r0, r2)) < tolerance and abs(_dot3(r1, r2)) < tolerance)


def _scaled(position, scale) -> tuple[float, float, float]:
    return (float(position[0]) * scale[0], float(position[1]) * scale[1], float(position[2]) * scale[2])


def _vec3_tuple(vector) -> tuple[float, float, float]:
    return (float(vector[0]), float(vector[1]), float(vector[2]))  # indexing: iterating is slow


def _quat_tuple(quat) -> tuple[float, float, float, float]:
    imaginary = quat.GetImaginary()
    return (float(quat.GetReal()), float(imaginary[0]), float(imaginary[1]), float(imaginary[2]))


def _normalised(quat) -> tuple[float, float, float, float]:
    w, x, y, z = (float(c) for c in quat)
    norm = (w * w + x * x + y * y + z * z) ** 0.5
    if norm == 0.0 or norm != norm:
        return (1.0, 0.0, 0.0, 0.0)
    return (w / norm, x / norm, y / norm, z / norm)
