"""Reads stages with Newton (``ModelBuilder().add_usd(path)``, ``finalize(device="cpu")``) and prints,
per stage, one JSON line with what the finalized model holds per joint and dof.

Run as ``python newton_probe.py STAGE...``; a stage Newton refuses gives ``{"refused": message}``.
Values are Newton's (radians, per-radian gains, rad/s); the test converts the walker's to them.
"""
from __future__ import annotations

import contextlib
import io
import json
import math
import sys
import warnings


def _number(value):
    value = float(value)
    if math.isfinite(value):
        return value
    return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")


def read(path: str, newton) -> dict:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                builder = newton.ModelBuilder()
                builder.add_usd(path)
                model = builder.finalize(device="cpu")
        except Exception as error:  # Newton refuses the stage: its message is the oracle's answer
            return {"stage": path, "refused": f"{type(error).__name__}: {error}"}
    names = {e.value: e.name.lower() for e in newton.JointType}
    bodies = list(model.body_label)
    labels = list(model.joint_label)
    arrays = {name: getattr(model, "joint_" + name).numpy() for name in (
        "parent", "child", "type", "enabled", "limit_lower", "limit_upper", "target_ke", "target_kd",
        "effort_limit", "velocity_limit", "armature", "friction", "qd_start", "dof_dim")}
    mimic_joint = model.joint_mimic_joint.numpy() if hasattr(model, "joint_mimic_joint") else None
    mimic_coeffs = model.joint_mimic_coeffs.numpy() if hasattr(model, "joint_mimic_coeffs") else None
    joints = []
    for index, label in enumerate(labels):
        start, end = int(arrays["qd_start"][index]), int(arrays["qd_start"][index + 1])
        parent, child = int(arrays["parent"][index]), int(arrays["child"][index])
        dofs = [{name: _number(arrays[name][k]) for name in (
            "limit_lower", "limit_upper", "target_ke", "target_kd", "effort_limit", "velocity_limit", "armature",
            "friction")} for k in range(start, end)]
        joint = {"label": label, "type": names[int(arrays["type"][index])],
                 "parent": bodies[parent] if parent >= 0 else None, "child": bodies[child] if child >= 0 else None,
                 "enabled": bool(arrays["enabled"][index]), "dof_dim": [int(x) for x in arrays["dof_dim"][index]],
                 "dofs": dofs, "mimic": None}
        if mimic_joint is not None and int(mimic_joint[index]) >= 0:
            joint["mimic"] = {"reference": labels[int(mimic_joint[index])],
                              "coef0": _number(mimic_coeffs[index][0]), "coef1": _number(mimic_coeffs[index][1])}
        joints.append(joint)
    return {"stage": path, "refused": None, "bodies": bodies, "joints": joints,
            "warnings": [str(w.message) for w in caught]}


def main(paths) -> int:
    import warp

    warp.config.quiet = True
    import newton

    for path in paths:
        print(json.dumps(read(path, newton)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
