#!/usr/bin/env python3
"""Convert a URDF robot to USD, simulate it, and store the motion as a layer over the robot.

    python examples/convert_and_simulate.py ROBOT.urdf --out OUT_DIR [--duration 1.0]

Writes ``OUT_DIR/<robot>.usda`` (the converted robot) and ``OUT_DIR/<robot>_motion.usda``: a
layer whose sublayer is the robot and which holds the bodies' transforms as time samples, so
``usdview OUT_DIR/<robot>_motion.usda`` plays the motion. Prints the joint positions over time.
Exit code 0 on success, 2 for input the converter or the simulator cannot handle.
"""
from __future__ import annotations

import argparse
import math
import os
import sys

import usdjoints  # registers the PhysX schemas before any stage opens
from usdjoints import convert_urdf, load_model, simulate
from usdjoints.api_edit import write_trajectory
from usdjoints.errors import UsdJointsError

STEP = 1e-3  # [s]
FRAME_RATE = 24  # [1/s] samples written per second of motion


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("urdf")
    parser.add_argument("--out", required=True, help="output directory")
    parser.add_argument("--duration", type=float, default=1.0, help="[s]")
    args = parser.parse_args(argv)
    try:
        os.makedirs(args.out, exist_ok=True)
        name = os.path.splitext(os.path.basename(args.urdf))[0]
        robot_path = os.path.join(args.out, name + ".usda")
        report = convert_urdf(args.urdf, robot_path)
        print(f"converted {report.robot_name}: {report.body_count} bodies, {report.joint_count} joints "
              f"({'fixed' if report.fixed_base else 'floating'} base) -> {robot_path}")

        model = load_model(robot_path)
        substeps = round(1.0 / FRAME_RATE / STEP)
        trajectory = simulate(model, args.duration, 1.0 / FRAME_RATE / substeps, record_every=substeps)
        motion_path = os.path.join(args.out, name + "_motion.usda")
        _write_motion(robot_path, motion_path, trajectory)
    except UsdJointsError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2

    names = [n.rsplit("/", 1)[-1] for n in trajectory.joint_names]
    print(f"simulated {args.duration:g} s at dt = {1.0 / FRAME_RATE / substeps:.4g} s; joint positions [deg or m]:")
    print("t [s]   " + "  ".join(f"{n:>10}" for n in names))
    for k in range(0, len(trajectory.t), max(1, len(trajectory.t) // 4)):
        values = []
        for joint, start in enumerate(trajectory.q_start):
            nq = int(model.joint_nq[joint])
            value = trajectory.q[k, start]
            angular = model.joint_types[joint] in ("revolute", "spherical")
            values.append(f"{math.degrees(value) if angular else value:10.3f}" if nq == 1 else f"{'(' + str(nq) + ' coords)':>10}")
        print(f"{trajectory.t[k]:<6.3f}  " + "  ".join(values))
    print(f"motion: {motion_path} ({len(trajectory.t)} time samples)")
    return 0


def _write_motion(robot_path: str, motion_path: str, trajectory) -> None:
    """A new layer over the robot, holding the motion; only that layer is saved."""
    from pxr import Sdf, Usd

    layer = Sdf.Layer.CreateNew(motion_path)
    robot = Sdf.Layer.FindOrOpen(robot_path)
    # Units and the up axis are read from the root layer only: the new root must restate them.
    for key in ("metersPerUnit", "kilogramsPerUnit", "upAxis", "defaultPrim"):
        if robot.pseudoRoot.HasInfo(key):
            layer.pseudoRoot.SetInfo(key, robot.pseudoRoot.GetInfo(key))
    layer.subLayerPaths.append(os.path.basename(robot_path))
    stage = Usd.Stage.Open(layer)
    stage.SetTimeCodesPerSecond(FRAME_RATE)
    stage.SetEditTarget(layer)
    write_trajectory(stage, trajectory, layer=layer)
    layer.Save()


if __name__ == "__main__":
    sys.exit(main())
