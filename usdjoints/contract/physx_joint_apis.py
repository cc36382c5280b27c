"""Columns of the multiple-apply PhysX joint APIs: limit tuning, per-axis properties, mimic.

OpenUSD's parser reads none of them. The mimic API has no ovphysx 0.7 contract page: its
ovphysx defaults are marked not recorded and its meaning is taken from PhysX's public
documentation of the articulation mimic joint.
"""
from __future__ import annotations

from . import shared_divergences as d
from .columns import attribute, relationship
from .markers import FLT_MAX, Marker

PHYSX_LIMIT = "PhysxLimitAPI"
_LIMIT_PAGE = "PhysxLimitAPI.md"
PHYSX_LIMIT_COLUMNS = (
    attribute(
        PHYSX_LIMIT, "physxLimit:<inst>:restitution", "float", "none",
        ovphysx=0.0, usdphysics=Marker.NOT_READ, page=_LIMIT_PAGE,
        if_absent="The limit does not bounce. Applies only while the limit it tunes is enabled.",
        divergences=(d.LIMIT_RESTITUTION_UNCLAMPED,),
    ),
    attribute(
        PHYSX_LIMIT, "physxLimit:<inst>:bounceThreshold", "float", "linear: length/s; angular: deg/s",
        ovphysx=0.0, usdphysics=Marker.NOT_READ, page=_LIMIT_PAGE,
        if_absent="Any impact speed can bounce (threshold 0).",
        divergences=(d.LIMIT_BOUNCE_UNCONVERTED,),
    ),
    attribute(
        PHYSX_LIMIT, "physxLimit:<inst>:stiffness", "float", "linear: force/length; angular: torque/deg",
        ovphysx=0.0, usdphysics=Marker.NOT_READ, page=_LIMIT_PAGE,
        if_absent="A hard limit (no spring). Articulation limits carry no spring at all.",
    ),
    attribute(
        PHYSX_LIMIT, "physxLimit:<inst>:damping", "float", "linear: force*s/length; angular: torque*s/deg",
        ovphysx=0.0, usdphysics=Marker.NOT_READ, page=_LIMIT_PAGE,
        if_absent="No damping at the limit.",
    ),
)

JOINT_AXIS = "PhysxJointAxisAPI"
_AXIS_PAGE = "PhysxJointAxisAPI.md"
JOINT_AXIS_COLUMNS = (
    attribute(
        JOINT_AXIS, "physxJointAxis:<inst>:armature", "float", "linear: mass; angular: mass*length^2",
        ovphysx=0.0, usdphysics=Marker.NOT_READ, page=_AXIS_PAGE,
        if_absent="No armature (reflected rotor inertia) on the axis. Articulation joints only.",
        divergences=(d.AXIS_ZERO_CANNOT_CLEAR_SEED,),
    ),
    attribute(
        JOINT_AXIS, "physxJointAxis:<inst>:maxJointVelocity", "float", "linear: length/s; angular: deg/s",
        ovphysx=FLT_MAX, usdphysics=Marker.NOT_READ, page=_AXIS_PAGE, conversion="deg_to_rad",
        producer=FLT_MAX,
        if_absent="No joint speed limit (unauthored it is inf).",
        divergences=(d.AXIS_VELOCITY_REWRITTEN, d.AXIS_ZERO_CANNOT_CLEAR_SEED),
    ),
    attribute(
        JOINT_AXIS, "physxJointAxis:<inst>:staticFrictionEffort", "float", "linear: force; angular: torque",
        ovphysx=0.0, usdphysics=Marker.NOT_READ, page=_AXIS_PAGE,
        if_absent="No static joint friction.",
        divergences=(d.AXIS_ZERO_CANNOT_CLEAR_SEED,),
    ),
    attribute(
        JOINT_AXIS, "physxJointAxis:<inst>:dynamicFrictionEffort", "float", "linear: force; angular: torque",
        ovphysx=0.0, usdphysics=Marker.NOT_READ, page=_AXIS_PAGE,
        if_absent="No dynamic joint friction.",
        divergences=(d.AXIS_ZERO_CANNOT_CLEAR_SEED,),
    ),
    attribute(
        JOINT_AXIS, "physxJointAxis:<inst>:viscousFrictionCoefficient", "float",
        "linear: force*s/length; angular: torque*s/deg",
        ovphysx=0.0, usdphysics=Marker.NOT_READ, page=_AXIS_PAGE,
        conversion="angular_gain_per_deg_to_per_rad",
        if_absent="No viscous joint friction.",
        divergences=(d.AXIS_ZERO_CANNOT_CLEAR_SEED,),
    ),
)

MIMIC = "PhysxMimicJointAPI"
_MIMIC_PAGE = "PxArticulationMimicJoint (PhysX docs)"
MIMIC_COLUMNS = (
    relationship(
        MIMIC, "physxMimicJoint:<inst>:referenceJoint", page=_MIMIC_PAGE, usdphysics=Marker.NOT_READ,
        if_absent=(
            "No leader joint: the mimic constraint for this instance is not created. Both joints "
            "must belong to the same articulation."
        ),
    ),
    attribute(
        MIMIC, "physxMimicJoint:<inst>:referenceJointAxis", "token", "none",
        ovphysx=Marker.NOT_RECORDED, usdphysics=Marker.NOT_READ, page=_MIMIC_PAGE,
        if_absent="The leader's degree of freedom followed; unauthored it is rotX.",
    ),
    attribute(
        MIMIC, "physxMimicJoint:<inst>:gearing", "float", "none",
        ovphysx=Marker.NOT_RECORDED, usdphysics=Marker.NOT_READ, page=_MIMIC_PAGE,
        if_absent=(
            "PhysX keeps q_follower + gearing * q_leader + offset = 0, so the unauthored gearing 1 "
            "makes the follower turn opposite to the leader."
        ),
    ),
    attribute(
        MIMIC, "physxMimicJoint:<inst>:offset", "float", "not recorded",
        ovphysx=Marker.NOT_RECORDED, usdphysics=Marker.NOT_READ, page=_MIMIC_PAGE,
        if_absent="No offset between the coupled joint positions.",
    ),
    attribute(
        MIMIC, "physxMimicJoint:<inst>:naturalFrequency", "float", "1/s",
        ovphysx=Marker.NOT_RECORDED, usdphysics=Marker.NOT_READ, page=_MIMIC_PAGE,
        if_absent="A value <= 0 makes the coupling rigid (no compliance).",
    ),
    attribute(
        MIMIC, "physxMimicJoint:<inst>:dampingRatio", "float", "none",
        ovphysx=Marker.NOT_RECORDED, usdphysics=Marker.NOT_READ, page=_MIMIC_PAGE,
        if_absent="Used only with a positive natural frequency (a compliant spring-damper coupling).",
    ),
)
