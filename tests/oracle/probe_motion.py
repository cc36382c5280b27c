"""Motion the PhysX probe derives from body poses: standalone joints and couplings.

PhysX has no joint read for a joint outside an articulation, so its rate and displacement are
measured from the two bodies it connects, and a rack or gear is judged by the rates of the two
joints it names. Angular results are [rad, rad/s], linear ones [length, length/s]. Quaternions
are [w, x, y, z]. Plain floats in, plain floats out: the probe turns them into JSON.
"""
from __future__ import annotations

import math

COUPLING_TYPES = {"PhysxPhysicsRackAndPinionJoint": "rack_and_pinion", "PhysxPhysicsGearJoint": "gear"}
UNIT_AXES = {"X": (1.0, 0.0, 0.0), "Y": (0.0, 1.0, 0.0), "Z": (0.0, 0.0, 1.0)}
STANDALONE_KINDS = {"PhysicsRevoluteJoint": "angular", "PhysicsPrismaticJoint": "linear"}

# Motion of a standalone joint is body1 relative to body0 along the joint axis: localRot0 applied
# to the named unit axis, carried by body0's simulated pose (for a static body0 its authored
# one; with no body0, the world). Angular results are [rad, rad/s], linear [length, length/s].


def standalone_motion(usd: dict, history: list[dict], time: float) -> dict:
    """Rate at the end, displacement over the run (summed step by step, so past half a turn),
    and mean rate of body1 relative to body0 along the joint axis; None where not measurable."""
    kind = STANDALONE_KINDS.get(usd["type"])
    motion = {"kind": kind, "rate": None, "displacement": None, "mean_rate": None}
    if kind is None or usd["axis"] not in UNIT_AXES:
        return motion
    states = [_pair(usd, bodies) for bodies in history]
    displacement = sum(_displacement(usd, kind, a, b) for a, b in zip(states, states[1:]))
    motion["rate"] = _rate(usd, kind, states[-1])
    motion["displacement"] = displacement
    motion["mean_rate"] = displacement / time if time > 0 else None
    return motion


def _pair(usd: dict, bodies: dict) -> tuple[dict, dict]:
    return (_body_state(bodies, usd["body0"], usd["body0_world_rot"]), _body_state(bodies, usd["body1"], None))


def _rate(usd: dict, kind: str, state: tuple[dict, dict]) -> float:
    """Relative angular velocity, or relative velocity of body1's origin, on the world axis."""
    b0, b1 = state
    axis = rotate(b0["orientation"], rotate(usd["local_rot0"], UNIT_AXES[usd["axis"]]))
    if kind == "angular":
        relative = [w1 - w0 for w1, w0 in zip(b1["angular_velocity"], b0["angular_velocity"])]
    else:
        arm = [p1 - p0 for p1, p0 in zip(b1["position"], b0["position"])]
        carried = cross(b0["angular_velocity"], arm)
        relative = [v1 - v0 - c for v1, v0, c in zip(b1["linear_velocity"], b0["linear_velocity"], carried)]
    return sum(r * a for r, a in zip(relative, axis))


def _displacement(usd: dict, kind: str, before: tuple[dict, dict], after: tuple[dict, dict]) -> float:
    """Motion along the joint axis between two reads (one step: well under half a turn)."""
    axis_in_body0 = rotate(usd["local_rot0"], UNIT_AXES[usd["axis"]])
    (p_before, q_before), (p_after, q_after) = _seen_from_body0(*before), _seen_from_body0(*after)
    if kind == "angular":
        turn = quat_multiply(q_after, conjugate(q_before))
        along = sum(c * a for c, a in zip(turn[1:], axis_in_body0))
        return math.remainder(2.0 * math.atan2(along, turn[0]), 2.0 * math.pi)
    return sum((a - b) * axis for a, b, axis in zip(p_after, p_before, axis_in_body0))


def _body_state(bodies: dict, path: str | None, authored_rot: list[float] | None) -> dict:
    """A body's pose and velocity in one read; a static or missing body stands still."""
    entry = bodies.get(path) if path else None
    if entry is not None:
        return entry
    return {"position": [0.0] * 3, "orientation": authored_rot or [1.0, 0.0, 0.0, 0.0],
            "linear_velocity": [0.0] * 3, "angular_velocity": [0.0] * 3}


def _seen_from_body0(b0: dict, b1: dict) -> tuple[list[float], list[float]]:
    """body1's position and rotation expressed in body0's frame."""
    inverse = conjugate(b0["orientation"])
    offset = [p1 - p0 for p1, p0 in zip(b1["position"], b0["position"])]
    return rotate(inverse, offset), quat_multiply(inverse, b1["orientation"])


def coupling(usd: dict, joints: dict, time: float) -> dict:
    """Which joints a rack/gear couples, their rates, and the observed rate ratios.

    rate_ratio uses the rates at the end of the run, mean_rate_ratio the displacements over the
    whole run: PhysX can report a body velocity that its pose does not follow (ratio 0).
    """
    kind = COUPLING_TYPES[usd["type"]]
    names = ("hinge", "prismatic") if kind == "rack_and_pinion" else ("hinge0", "hinge1")
    report = {"kind": kind, "authored": usd.get("authored", {})}
    rates, mean_rates = [], []
    for name in names:
        target = usd["relationships"].get(name)
        joint = joints.get(target) if target else None
        report[name] = target
        report[f"{name}_rate"] = joint_value(joint, "rate", time)
        report[f"{name}_mean_rate"] = joint_value(joint, "mean_rate", time)
        rates.append(report[f"{name}_rate"])
        mean_rates.append(report[f"{name}_mean_rate"])
    report["rate_ratio"] = _ratio(kind, rates)
    report["mean_rate_ratio"] = _ratio(kind, mean_rates)
    return report


def _ratio(kind: str, rates: list) -> float | None:
    """rack: hinge [rad/s] per prismatic [length/s]; gear: hinge1 per hinge0 (both [rad/s])."""
    numerator, denominator = (rates[0], rates[1]) if kind == "rack_and_pinion" else (rates[1], rates[0])
    if not all(isinstance(r, float) for r in rates) or abs(denominator) < 1e-9:
        return None
    return numerator / denominator


def joint_value(joint: dict | None, name: str, time: float) -> float | None:
    """A one-DOF joint's rate ("rate") or run-average rate ("mean_rate"), in PhysX units."""
    if joint is None:
        return None
    if not joint["articulated"]:
        value = joint[name]
    elif len(joint["dofs"]) != 1:
        value = None
    elif name == "rate":
        value = joint["dofs"][0]["velocity"]
    else:
        dof = joint["dofs"][0]
        moved = [dof["position"], dof["position_initial"]]
        value = (moved[0] - moved[1]) / time if time > 0 and all(isinstance(v, float) for v in moved) else None
    return value if isinstance(value, float) else None


def rotate(q: list[float], v: tuple[float, float, float]) -> list[float]:
    w, x, y, z = q
    norm = math.sqrt(w * w + x * x + y * y + z * z) or 1.0
    w, x, y, z = w / norm, x / norm, y / norm, z / norm
    t = cross((x, y, z), v)
    t = [2.0 * c for c in t]
    u = cross((x, y, z), t)
    return [v[i] + w * t[i] + u[i] for i in range(3)]


def conjugate(q: list[float]) -> list[float]:
    return [q[0], -q[1], -q[2], -q[3]]


def quat_multiply(a: list[float], b: list[float]) -> list[float]:
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return [aw * bw - ax * bx - ay * by - az * bz,
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw]


def cross(a, b) -> list[float]:
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
