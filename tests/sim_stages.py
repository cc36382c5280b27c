"""The simulator's sample stages (sample_stages/sim/), written from the parameters their tests
check against: closed forms (tests/sim/test_acceptance_closed_forms.py,
tests/sim/test_distance_joints.py) and bad input (tests/sim/test_acceptance_bad_input.py).

The stage files are the tests' input; tests/sim/test_sample_stages.py checks that each file is
what its builder writes, so a parameter changed here must be written out again:
``python tests/sim_stages.py`` rewrites the folder.
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

FOLDER = Path(__file__).resolve().parent.parent / "sample_stages" / "sim"

HEADER = """#usda 1.0
(
    defaultPrim = "World"
    metersPerUnit = 1
    kilogramsPerUnit = 1
    upAxis = "Z"
)
def Xform "World"
{{
    def PhysicsScene "scene"
    {{
        vector3f physics:gravityDirection = (0, 0, -1)
        float physics:gravityMagnitude = {gravity}
    }}
{body}
}}
"""


def body(name, mass, inertia, translate=(0, 0, 0), com=(0, 0, 0), orient=None, extra=""):
    ops = '"xformOp:translate"' + (', "xformOp:orient"' if orient else "")
    orient_line = f"        quatd xformOp:orient = {tuple(orient)}\n" if orient else ""
    return f"""    def Xform "{name}" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
    {{
        float physics:mass = {mass}
        float3 physics:diagonalInertia = {tuple(inertia)}
        point3f physics:centerOfMass = {tuple(com)}
        double3 xformOp:translate = {tuple(translate)}
{orient_line}        uniform token[] xformOpOrder = [{ops}]
{extra}    }}
"""


def revolute(name, body1, axis, body0=None, pos0=(0, 0, 0), pos1=(0, 0, 0), schemas=(), extra=""):
    api_line = f' (prepend apiSchemas = {list(schemas)!r})'.replace("'", '"') if schemas else ""
    rel0 = f"        rel physics:body0 = </World/{body0}>\n" if body0 else ""
    return f"""    def PhysicsRevoluteJoint "{name}"{api_line}
    {{
        uniform token physics:axis = "{axis}"
{rel0}        rel physics:body1 = </World/{body1}>
        point3f physics:localPos0 = {tuple(pos0)}
        point3f physics:localPos1 = {tuple(pos1)}
{extra}    }}
"""


def stage(body_text: str, gravity=9.81) -> str:
    return HEADER.format(gravity=gravity, body=body_text)


# --- closed forms ------------------------------------------------------------------------------
PENDULUM = dict(mass=1.0, inertia=0.001, length=1.0, start_deg=120.0)


def pendulum_120deg() -> str:
    """A point-like bob 1 m below a hinge about Y, released at 120 deg (PhysicsJointStateAPI)."""
    p = PENDULUM
    hinge = revolute("Hinge", "Bob", "Y", pos0=(0, 0, p["length"]), pos1=(0, 0, p["length"]),
                     schemas=("PhysicsJointStateAPI:angular",),
                     extra=f"        float state:angular:physics:position = {p['start_deg']:g}\n")
    return stage(body("Bob", 1, (0.001, 0.001, 0.001)) + hinge)


def double_pendulum() -> str:
    """Two 1 kg bobs on 1 m links, released at 70 and -35 deg."""
    state = ("PhysicsJointStateAPI:angular",)
    return stage(body("Upper", 1, (1e-3, 1e-3, 1e-3), translate=(0, 0, -1))
                 + body("Lower", 1, (1e-3, 1e-3, 1e-3), translate=(0, 0, -2))
                 + revolute("Shoulder", "Upper", "Y", pos1=(0, 0, 1), schemas=state,
                            extra="        float state:angular:physics:position = 70\n")
                 + revolute("Elbow", "Lower", "Y", body0="Upper", pos1=(0, 0, 1), schemas=state,
                            extra="        float state:angular:physics:position = -35\n"))


# [N m/deg, N m s/deg, kg m^2], exact in float32
DAMPED = dict(k_deg=0.125, c_deg=0.0078125, inertia=0.5, start_deg=10.0)


def damped_oscillator() -> str:
    """A wheel on a drive spring, damped by PhysxJointAxisAPI viscous friction, from 10 deg."""
    d = DAMPED
    extra = (f"        float drive:angular:physics:stiffness = {d['k_deg']}\n"
             "        float drive:angular:physics:targetPosition = 0\n"
             f"        float physxJointAxis:angular:viscousFrictionCoefficient = {d['c_deg']}\n"
             f"        float state:angular:physics:position = {d['start_deg']:g}\n")
    hinge = revolute("Hinge", "Wheel", "Z", extra=extra, schemas=(
        "PhysicsDriveAPI:angular", "PhysxJointAxisAPI:angular", "PhysicsJointStateAPI:angular"))
    return stage(body("Wheel", 2, (d["inertia"],) * 3) + hinge)


FREE_BODY = dict(mass=2.0, inertia=(0.5, 1.0, 1.5), position=(0.5, -1.0, 3.0), orient=(0.8, 0.6, 0.0, 0.0),
                 velocity=(1.0, 2.0, 5.0), angular_velocity_deg=(120.0, 200.0, -80.0))


def free_body() -> str:
    """A brick thrown and spun about a non-principal axis, no joint."""
    f = FREE_BODY
    extra = (f"        vector3f physics:velocity = {tuple(int(v) for v in f['velocity'])}\n"
             f"        vector3f physics:angularVelocity = {tuple(int(w) for w in f['angular_velocity_deg'])}\n")
    return stage(body("Brick", 2, f["inertia"], translate=f["position"], orient=f["orient"], extra=extra))


TOP = dict(mass=1.0, length=0.125, i1=0.005, i3=0.01, spin=200.0, tilt_deg=30.0)


def top_orientation() -> tuple[float, float, float, float]:
    half = math.radians(TOP["tilt_deg"]) / 2.0
    return (math.cos(half), math.sin(half), 0, 0)


def top_precession_rate(gravity=9.81) -> float:
    """Omega = m g l / (I3 w3) [rad/s]."""
    return TOP["mass"] * gravity * TOP["length"] / (TOP["i3"] * TOP["spin"])


def spinning_top() -> str:
    """A symmetric top on a spherical joint at its tip, tilted 30 deg, started in steady
    precession: spin about its axis plus Omega about the vertical [deg/s, world]."""
    t = TOP
    w, x, _, _ = top_orientation()
    # the body's z axis in the world, after the rotation about x by the tilt
    axis = (0.0, -2.0 * w * x, 1.0 - 2.0 * x * x)
    omega = top_precession_rate()
    spin = [math.degrees(t["spin"] * a) for a in axis]
    spin[2] += math.degrees(omega)
    extra = f"        vector3f physics:angularVelocity = ({spin[0]:.17g}, {spin[1]:.17g}, {spin[2]:.17g})\n"
    top = body("Top", t["mass"], (t["i1"], t["i1"], t["i3"]), com=(0, 0, t["length"]), orient=top_orientation(),
               extra=extra)
    joint = """    def PhysicsSphericalJoint "Tip"
    {
        uniform token physics:axis = "Z"
        rel physics:body1 = </World/Top>
    }
"""
    return stage(top + joint)


STEP = dict(k_deg=0.0625, c_deg=0.0009765625, inertia=0.0078125, target_deg=30.0)  # exact in float32


def position_drive_step() -> str:
    """A disc at rest at 0 whose position drive targets 30 deg."""
    s = STEP
    extra = (f"        float drive:angular:physics:stiffness = {s['k_deg']}\n"
             f"        float drive:angular:physics:damping = {s['c_deg']}\n"
             f"        float drive:angular:physics:targetPosition = {s['target_deg']:g}\n")
    hinge = revolute("Hinge", "Disc", "Z", extra=extra, schemas=("PhysicsDriveAPI:angular",))
    return stage(body("Disc", 1, (s["inertia"],) * 3) + hinge)


SOFT_LIMIT = dict(mass=2.0, length=0.5, inertia=0.01)


def soft_limit() -> str:
    """A horizontal arm pressed by gravity onto its upper limit at 0 deg."""
    s = SOFT_LIMIT
    extra = "        float physics:lowerLimit = -90\n        float physics:upperLimit = 0\n"
    hinge = revolute("Hinge", "Arm", "Y", pos0=(0, 0, 1), pos1=(-s["length"], 0, 0), extra=extra)
    return stage(body("Arm", s["mass"], (s["inertia"],) * 3, translate=(s["length"], 0, 1)) + hinge)


# --- bad input: `usdjoints simulate` exits 2 naming the prim -----------------------------------
BAD_HEADER = """#usda 1.0
(
    metersPerUnit = 1
    kilogramsPerUnit = 1
    upAxis = "Z"
)
"""


def no_bodies() -> str:
    """No rigid body: nothing moves (PhysX steps it all the same)."""
    return BAD_HEADER + """
def Xform "World"
{
    def Cube "Box"
    {
    }
}
"""


def massless_body() -> str:
    """A dynamic body with no mass and no collider to derive one from: PhysX simulates it with
    its default mass and a small sphere's inertia, so usdjoints does too."""
    return BAD_HEADER + """
def Xform "World"
{
    def Xform "Ghost" (prepend apiSchemas = ["PhysicsRigidBodyAPI"])
    {
    }
}
"""


# a ball on a taut rope (PhysicsDistanceJoint, maxDistance only) to a world anchor, released
# with the rope horizontal: a point pendulum (the ball's spin is free, so its inertia plays no
# part); tests/sim/test_distance_joints.py
ROPE = dict(mass=1.0, inertia=0.001, length=1.0, anchor=(0.0, 0.0, 2.0))


def rope_pendulum() -> str:
    x, y, z = ROPE["anchor"]
    ball = body("Ball", ROPE["mass"], (ROPE["inertia"],) * 3, translate=(x + ROPE["length"], y, z))
    rope = f"""    def PhysicsDistanceJoint "Rope"
    {{
        rel physics:body1 = </World/Ball>
        point3f physics:localPos0 = {(x, y, z)}
        point3f physics:localPos1 = (0, 0, 0)
        float physics:maxDistance = {ROPE["length"]}
    }}
"""
    return stage(ball + rope)


STAGES = {builder.__name__: builder for builder in (
    pendulum_120deg, double_pendulum, damped_oscillator, free_body, spinning_top, position_drive_step,
    soft_limit, no_bodies, massless_body, rope_pendulum)}


def path(name: str) -> Path:
    return FOLDER / f"{name}.usda"


def main() -> int:
    FOLDER.mkdir(parents=True, exist_ok=True)
    for name, builder in STAGES.items():
        path(name).write_text(builder())
        print(path(name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
