"""The walker's Newton reading (``walk --consumer newton --format json``) against Newton's finalized
model (newton_probe.py's report), joint by joint and dof by dof, after unit conversion.

The walk gives values in USD units (degrees, per-degree gains, deg/s); Newton holds radians,
per-radian gains and rad/s. Newton stores float32, so values agree to a relative 1e-6.
"""
from __future__ import annotations

import math

FIELDS = ("limit_lower", "limit_upper", "target_ke", "target_kd", "effort_limit", "velocity_limit", "armature",
          "friction")
DEG = math.pi / 180.0
REL = 2e-6
NEWTON_TYPE = {"revolute": "revolute", "prismatic": "prismatic", "spherical": "ball", "fixed": "fixed",
               "distance": "distance", "d6": "d6", "free": "free"}
REFUSAL_CODES = ("newton-refuses-stage", "same-body")


def _float(v):
    if isinstance(v, str):
        return float(v)
    return float(v)


def to_newton(field: str, value, rotational: bool) -> float:
    """A walk value (USD units) in Newton's units."""
    value = _float(value)
    if not rotational:
        return value
    if field in ("limit_lower", "limit_upper", "velocity_limit"):
        return value * DEG
    if field in ("target_ke", "target_kd"):
        return value / DEG
    return value


def _close(a: float, b: float) -> bool:
    if math.isinf(a) or math.isinf(b) or math.isnan(a) or math.isnan(b):
        return a == b or (math.isnan(a) and math.isnan(b))
    return abs(a - b) <= REL * max(1.0, abs(a), abs(b))


class Comparison:
    def __init__(self):
        self.fields = 0
        self.mismatches: list[str] = []

    def check(self, where: str, name: str, predicted, measured) -> None:
        self.fields += 1
        same = _close(predicted, measured) if isinstance(predicted, float) else predicted == measured
        if not same:
            self.mismatches.append(f"{where}: {name} walk={predicted!r} newton={measured!r}")


def _dofs(result: Comparison, where: str, predicted: list, measured: list) -> None:
    result.check(where, "dof count", len(predicted), len(measured))
    for index, (dof, got) in enumerate(zip(predicted, measured)):
        for field in FIELDS:
            item = dof[field]
            value = item["value"] if isinstance(item, dict) else item
            if value is None:
                result.mismatches.append(f"{where}: dof {index} {field} has no value for Newton")
                continue
            result.check(f"{where} dof {index} ({dof['dof']})", field,
                         to_newton(field, value, dof["rotational"]), _float(got[field]))


def compare(walk: dict, report: dict) -> Comparison:
    """Every joint and dof field of Newton's model against the walk."""
    result = Comparison()
    errors = [d for d in walk["diagnostics"] if d["severity"] == "error" and d.get("code") in REFUSAL_CODES]
    refusals = [d for d in walk["diagnostics"] if d.get("code") == "newton-refuses-stage"]
    if report["refused"]:
        result.check("stage", "Newton refuses it: an error diagnostic", bool(errors), True)
        return result
    result.check("stage", "refused (no refusal predicted)", [], [d["message"] for d in refusals])
    unpredicted = {d["prim"] for d in walk["diagnostics"] if d.get("code") == "newton-unpredicted"}
    predicted = {j["path"]: j for j in walk["joints"] if not j["dropped"] and not j["merged_into"]}
    measured: dict[str, dict] = {}
    free = []
    for joint in report["joints"]:
        if joint["label"].startswith("/"):
            measured.setdefault(joint["label"], joint)
        else:
            free.append(joint)
    for path in unpredicted:
        predicted.pop(path, None)
        measured.pop(path, None)
    result.check("stage", "joint labels", sorted(predicted), sorted(measured))
    for path in sorted(set(predicted) & set(measured)):
        joint, got = predicted[path], measured[path]
        result.check(path, "joint_type", NEWTON_TYPE.get(joint["type"], joint["type"]), got["type"])
        result.check(path, "joint_parent", joint["body0"], got["parent"])
        result.check(path, "joint_child", joint["body1"], got["child"])
        result.check(path, "joint_enabled", joint["enabled"], got["enabled"])
        _dofs(result, path, joint["dofs"], got["dofs"])
        mimic = joint["mimics"][0] if joint["mimics"] else None
        expected = None if mimic is None else {"reference": mimic["reference"], "coef0": -_float(mimic["offset"]),
                                               "coef1": -_float(mimic["gearing"])}
        if got["mimic"] is not None:
            got_mimic = {k: (_float(v) if k != "reference" else v) for k, v in got["mimic"].items()}
        else:
            got_mimic = None
        result.check(path, "mimic", expected, got_mimic)
    synthetic = sorted(walk.get("synthetic_joints", []), key=lambda s: s["body1"])
    free = sorted(free, key=lambda j: j["child"] or "")
    result.check("stage", "free joints (children)", [s["body1"] for s in synthetic], [j["child"] for j in free])
    for added, got in zip(synthetic, free):
        where = f"free joint of {added['body1']}"
        result.check(where, "joint_type", added["type"], got["type"])
        result.check(where, "joint_parent", added["body0"], got["parent"])
        _dofs(result, where, added["dofs"], got["dofs"])
    return result
