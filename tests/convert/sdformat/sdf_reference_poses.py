"""libsdformat's resolved poses (the records tools/sdfref prints, one JSON object a line) as the
converter's Pose values, keyed by the converter's scoped names; shared by the corpus tests."""
from __future__ import annotations

import math

import numpy as np

from usdjoints.convert.ir import Pose
from pxr import Gf


def pose(values) -> Pose:
    q = np.asarray(values[3:], float)
    return Pose(tuple(values[:3]), tuple(q / np.linalg.norm(q)))


def gf_pose(matrix: Gf.Matrix4d) -> Pose:
    q = matrix.RemoveScaleShear().ExtractRotationQuat()
    return Pose(tuple(matrix.ExtractTranslation()), (q.GetReal(), *q.GetImaginary()))


def angle(a, b) -> float:
    dot = abs(sum(x * y for x, y in zip(a, b)))
    return 2.0 * math.acos(min(1.0, dot))


def reference_frames(records):
    """(model frames in the world, links, joints) keyed by the converter's scoped names."""
    is_world = any(r["kind"] == "world" for r in records)
    frames: dict[str, Pose] = {}
    top = None
    links, joints = {}, {}
    for r in records[1:]:
        if r["kind"] == "model" and top is None and not is_world:
            top = r["name"]
            frames[top] = pose(r["pose_in_parent"])
        elif r["kind"] == "world_model_pose":
            frames[r["name"]] = pose(r["pose_in_world"])
        elif r["kind"] == "nested_model_pose":
            frames[f"{r['model']}::{r['name']}"] = frames[r["model"]].compose(pose(r["pose_in_model"]))
        elif r["kind"] in ("link", "joint"):
            model = r["model"]
            scope = "" if model == top else (model.split("::", 1)[1] + "::" if top else model + "::")
            (links if r["kind"] == "link" else joints)[scope + r["name"]] = (model, r)
    return frames, links, joints
