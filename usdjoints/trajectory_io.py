"""Writing a simulated trajectory out: an npz archive, USD time samples, a plot.

Every output goes through :mod:`usdjoints.outputs`: a regular file is written to a temporary name
beside its destination and renamed into place (so a failed run never leaves a half-written file),
a device or FIFO is written in place, and nothing is ever written over the stage or its layers.
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from .errors import UsageError
from .outputs import check_output, write_file


def _replace_atomically(destination, write, option: str = "output") -> None:
    write_file(destination, write, option)


def write_npz(trajectory, path) -> None:
    """``t``, ``q``, ``qd``, ``joint_names``, ``q_start``, ``v_start``, ``body_paths``, ``body_poses``."""
    def write(temporary):
        with open(temporary, "wb") as stream:
            np.savez(stream, t=trajectory.t, q=trajectory.q, qd=trajectory.qd,
                     joint_names=np.array(trajectory.joint_names, dtype=str),
                     q_start=trajectory.q_start, v_start=trajectory.v_start,
                     body_paths=np.array(trajectory.body_names, dtype=str), body_poses=trajectory.body_poses)

    _replace_atomically(path, write, "--out")


def write_usd_time_samples(trajectory, description, stage, path) -> None:
    """A layer over ``stage`` that moves each simulated body with ``xformOp:transform`` samples.

    Positions go back to stage units; each body keeps its authored world scale; time codes are
    sample indices at ``timeCodesPerSecond`` = the recording rate.
    """
    from pxr import Gf, Sdf, Usd, UsdGeom

    if trajectory.n_envs != 1:
        raise UsageError("--write-usd writes one environment; run with --envs 1")
    output = check_output(path, "--write-usd", stages=[stage])  # never the stage or one of its layers
    mpu = float(description.units.meters_per_unit.value)
    destination = Path(os.path.realpath(output.target))
    cache = UsdGeom.XformCache(Usd.TimeCode.Default())
    rate = 1.0 / float(trajectory.t[1] - trajectory.t[0]) if len(trajectory.t) > 1 else 1.0

    def write(temporary):
        layer = Sdf.Layer.CreateAnonymous(".usda")
        root = stage.GetRootLayer().realPath or stage.GetRootLayer().identifier
        layer.subLayerPaths.append(os.path.relpath(root, destination.parent) if os.path.isabs(root) else root)
        layer.timeCodesPerSecond = rate
        layer.framesPerSecond = rate
        layer.startTimeCode = 0
        layer.endTimeCode = len(trajectory.t) - 1
        with Sdf.ChangeBlock():
            for index, body_path in enumerate(trajectory.body_names):
                prim = stage.GetPrimAtPath(body_path)
                if not prim:
                    continue
                parent_world = cache.GetParentToWorldTransform(prim)
                scale = description.body(body_path).world_scale
                spec = Sdf.CreatePrimInLayer(layer, body_path)
                order = Sdf.AttributeSpec(spec, "xformOpOrder", Sdf.ValueTypeNames.TokenArray,
                                          variability=Sdf.VariabilityUniform)
                order.default = ["xformOp:transform"]
                attribute = Sdf.AttributeSpec(spec, "xformOp:transform", Sdf.ValueTypeNames.Matrix4d)
                for frame, pose in enumerate(trajectory.body_poses[:, index]):
                    world = Gf.Matrix4d(1.0).SetScale(Gf.Vec3d(*scale))
                    rotation = Gf.Matrix4d(1.0).SetRotate(Gf.Quatd(pose[3], Gf.Vec3d(*pose[4:7])))
                    translation = Gf.Matrix4d(1.0).SetTranslate(Gf.Vec3d(*(pose[:3] / mpu)))
                    local = world * rotation * translation * parent_world.GetInverse()
                    layer.SetTimeSample(attribute.path, frame, local)
        if not layer.Export(temporary):
            raise UsageError(f"{destination}: USD could not write this file")

    _replace_atomically(output, write, "--write-usd")


def plot_backend():
    """matplotlib's pyplot on the file-only Agg backend; a UsageError without the ``plot``
    extra (callers ask before a long run, so a missing extra costs nothing)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as error:
        raise UsageError("--plot needs matplotlib: pip install 'usdjoints[plot]'") from error
    return plt


def _euler_deg(quats):
    """Roll, pitch, yaw [deg] (x-y-z extrinsic) of quaternions w x y z, shape [T, 4]."""
    w, x, y, z = quats.T
    roll = np.arctan2(2 * (w * x + y * z), 1 - 2 * (x * x + y * y))
    pitch = np.arcsin(np.clip(2 * (w * y - z * x), -1.0, 1.0))
    yaw = np.arctan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))
    return np.degrees(np.stack([roll, pitch, yaw], axis=1))


def _plot_panels(trajectory):
    """[(title, y label, [(label, values)])]: one panel per unit, lines named, not indexed."""
    q = trajectory.q if trajectory.n_envs == 1 else trajectory.q[0]
    starts = list(trajectory.q_start) + [q.shape[1]]
    types = trajectory.joint_types or ("",) * len(trajectory.joint_names)
    panels = {"angles": [], "lengths": [], "position": [], "orientation": [], "other": []}
    for j, (name, kind) in enumerate(zip(trajectory.joint_names, types)):
        a, b = starts[j], starts[j + 1]
        if kind == "free":
            for k, axis in enumerate("xyz"):
                panels["position"].append((f"{name} {axis}", q[:, a + k]))
            for label, values in zip(("roll", "pitch", "yaw"), _euler_deg(q[:, a + 3:a + 7]).T):
                panels["orientation"].append((f"{name} {label}", values))
        elif kind == "spherical":
            for label, values in zip(("roll", "pitch", "yaw"), _euler_deg(q[:, a:a + 4]).T):
                panels["orientation"].append((f"{name} {label}", values))
        elif kind == "revolute":
            panels["angles"].append((name, q[:, a]))
        elif kind == "prismatic":
            panels["lengths"].append((name, q[:, a]))
        else:  # a d6 joint's axes, or a trajectory that does not say its joint types
            for k in range(a, b):
                panels["other"].append((f"{name}[{k - a}]" if b - a > 1 else name, q[:, k]))
    labels = {"angles": ("joint angles", "q [rad]"), "lengths": ("joint positions", "q [m]"),
              "position": ("base position", "[m]"), "orientation": ("orientations", "[deg]"),
              "other": ("joint coordinates", "q [rad | m]")}
    return [(labels[k][0], labels[k][1], lines) for k, lines in panels.items() if lines]


def write_plot(trajectory, path) -> None:
    """Joint coordinates over time (needs the ``plot`` extra): one panel per unit (joint angles,
    joint positions, base position, orientations as roll/pitch/yaw), every line named, the
    legend beside its panel; colours from a 20-colour cycle, then repeated with another dash."""
    plt = plot_backend()
    panels = _plot_panels(trajectory)
    if not panels:  # no coordinate at all (a stage with nothing dynamic): one empty panel
        panels = [("no joint coordinates: nothing moves", "", [])]
    figure, axes = plt.subplots(len(panels), 1, figsize=(10, 1.5 + 2.5 * len(panels)), sharex=True,
                                squeeze=False)
    colours = plt.get_cmap("tab20").colors
    for axis, (title, ylabel, lines) in zip(axes[:, 0], panels):
        for n, (label, values) in enumerate(lines):
            axis.plot(trajectory.t, values, label=label, color=colours[n % 20],
                      linestyle=("-", "--", ":")[(n // 20) % 3])
        axis.set_title(title, fontsize="small")
        axis.set_ylabel(ylabel)
        if lines:
            axis.legend(fontsize="x-small", loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    axes[-1, 0].set_xlabel("t [s]")
    figure.tight_layout()
    try:
        _replace_atomically(path, lambda temporary: figure.savefig(temporary, format="png"), "--plot")
    finally:
        plt.close(figure)
