"""A simulation played back by USD itself: body transforms as time samples in a layer.

Each simulated body gets one ``xformOp:transform:usdjointsSim`` op (and an ``xformOpOrder`` that
uses only it), authored as an override in the chosen layer, so the asset's own transforms stay
untouched underneath and removing the layer removes the motion. A body's scale (and mirroring)
stays as authored: only its rigid pose moves.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

from ..api_edit import edit_layer, ensure_prim_spec, set_attribute
from ..errors import InputError, UsageError

SIM_OP = "xformOp:transform:usdjointsSim"
MAX_DT = 1e-3  # [s] step bound: explicit drives and limits stay stable on light links (see FACTS)


@dataclass(frozen=True)
class PlaybackResult:
    """What :func:`write_trajectory` authored: bodies, time-code range and whether the range was set."""

    layer: str
    bodies: tuple[str, ...]
    start_time_code: float
    end_time_code: float
    samples: int
    time_range_authored: bool


def simulate_to_time_samples(stage, duration: float = 2.0, layer=None, integrator: str = "euler",
                             max_dt: float = MAX_DT) -> PlaybackResult:
    """Simulate ``stage`` (as usdjoints reads it) for ``duration`` [s] and author the motion.

    One sample per time code of the stage (``timeCodesPerSecond``); the step is the largest
    divisor of a frame not above ``max_dt`` [s], so samples fall on whole frames. ``layer``: see
    :func:`usdjoints.api_edit.edit_layer`.
    """
    from ..model.build import load_model
    from ..sim.api import simulate

    edit = edit_layer(stage, layer)
    if not (isinstance(duration, (int, float)) and math.isfinite(duration) and duration > 0):
        raise UsageError(f"duration must be a positive number of seconds, got {duration!r}")
    fps = float(stage.GetTimeCodesPerSecond())
    substeps = max(1, math.ceil((1.0 / fps) / max_dt - 1e-9))
    dt = 1.0 / fps / substeps
    model = load_model(stage)
    trajectory = simulate(model, float(duration), dt, integrator=integrator, record_every=substeps)
    return write_trajectory(stage, trajectory, layer=edit.layer if layer is not None else None)


def write_trajectory(stage, trajectory, layer=None, start_time_code: Optional[float] = None) -> PlaybackResult:
    """Author ``trajectory`` (a single-environment :class:`~usdjoints.sim.trajectory.Trajectory`
    whose ``body_names`` are prim paths of ``stage``, simulated from a stage with the same units
    and body transforms) as time samples.

    Sample ``k`` lands at ``start_time_code + t[k] * timeCodesPerSecond``; ``start_time_code``
    defaults to the stage's start (0 without an authored range). When the edit layer is the
    root or the session layer the stage's time range is set to cover the samples.
    """
    from pxr import Sdf, Usd, UsdGeom, Vt

    from ..walker import walk

    from ..sim.trajectory import Trajectory

    edit = edit_layer(stage, layer)
    if not isinstance(trajectory, Trajectory):
        raise UsageError(f"expected a Trajectory (usdjoints.simulate's result), got {type(trajectory).__name__}")
    if trajectory.n_envs != 1:
        raise UsageError(f"write one environment at a time; this trajectory has {trajectory.n_envs}")
    description = walk(stage, "usdjoints")
    mpu = float(description.units.meters_per_unit.value)
    rigid_default = {b.path: _rigid(b.world_pose.position, b.world_pose.orientation) for b in description.bodies}
    fps = float(stage.GetTimeCodesPerSecond())
    if start_time_code is None:
        start_time_code = float(stage.GetStartTimeCode()) if stage.HasAuthoredTimeCodeRange() else 0.0
    # rounded so whole frames stay whole despite the accumulated step arithmetic
    times = [round(start_time_code + float(t) * fps, 9) for t in trajectory.t]

    bodies = tuple(trajectory.body_names)
    xforms = UsdGeom.XformCache(Usd.TimeCode.Default())
    world_default = {}
    world_motion = {}
    for index, path in enumerate(bodies):
        prim = stage.GetPrimAtPath(path)
        if not prim or path not in rigid_default:
            raise InputError(path, "the trajectory names a body this stage does not have",
                             "write a trajectory onto the stage it was simulated from")
        if prim.IsInstanceProxy() or prim.IsInPrototype():
            raise InputError(path, "body is inside an instance; its transform cannot be overridden",
                             "make the instance editable (instanceable = false) first")
        world_default[path] = xforms.GetLocalToWorldTransform(prim)
        scale = world_default[path] * rigid_default[path].GetInverse()  # scale/mirror, body frame
        world_motion[path] = [scale * _rigid(pose[:3] / mpu, pose[3:]) for pose in trajectory.body_poses[:, index]]

    with Sdf.ChangeBlock():
        for path in bodies:
            prim = stage.GetPrimAtPath(path)
            locals_ = [world * parent.GetInverse()
                       for world, parent in zip(world_motion[path], _parent_motion(prim, xforms, world_default, world_motion))]
            spec = ensure_prim_spec(edit, path)
            set_attribute(spec, SIM_OP, Sdf.ValueTypeNames.Matrix4d, locals_[0],
                          time_samples=list(zip(times, locals_)))
            set_attribute(spec, UsdGeom.Tokens.xformOpOrder, Sdf.ValueTypeNames.TokenArray,
                          Vt.TokenArray([SIM_OP]), variability=Sdf.VariabilityUniform)
        range_authored = edit.layer in (stage.GetRootLayer(), stage.GetSessionLayer())
        if range_authored:
            edit.layer.startTimeCode = min(times[0], edit.layer.startTimeCode) if edit.layer.HasStartTimeCode() else times[0]
            edit.layer.endTimeCode = max(times[-1], edit.layer.endTimeCode) if edit.layer.HasEndTimeCode() else times[-1]
    return PlaybackResult(edit.layer.identifier, bodies, times[0], times[-1], len(times), range_authored)


def _parent_motion(prim, xforms, world_default, world_motion):
    """The parent's world transform at each sample: constant, unless a simulated body is above it."""
    from pxr import Gf

    parent = prim.GetParent()
    samples = len(world_motion[str(prim.GetPath())])
    ancestor = parent
    while ancestor and not ancestor.IsPseudoRoot() and str(ancestor.GetPath()) not in world_motion:
        ancestor = ancestor.GetParent()
    if parent.IsPseudoRoot():
        return [Gf.Matrix4d(1.0)] * samples
    parent_default = xforms.GetLocalToWorldTransform(parent)
    if not ancestor or ancestor.IsPseudoRoot():
        return [parent_default] * samples
    key = str(ancestor.GetPath())
    offset = parent_default * world_default[key].GetInverse()  # the static part between them
    return [offset * moving for moving in world_motion[key]]


def _rigid(position, orientation):
    from pxr import Gf

    w, x, y, z = (float(c) for c in orientation)
    return Gf.Matrix4d(Gf.Rotation(Gf.Quatd(w, Gf.Vec3d(x, y, z))), Gf.Vec3d(*(float(c) for c in position)))
