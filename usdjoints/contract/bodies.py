"""Columns of the rigid-body and mass APIs that decide how a joint's bodies move.

OpenUSD's parser reads the rigid-body columns into its body descriptor; it reads no mass
column (``UsdPhysics.RigidBodyAPI.ComputeMassProperties`` does, outside the parser).
"""
from __future__ import annotations

from . import shared_divergences as d
from .columns import attribute, relationship
from .markers import Marker

RIGID_BODY = "PhysicsRigidBodyAPI"
_BODY_PAGE = "PhysicsRigidBodyAPI.md"
_ZERO3 = (0.0, 0.0, 0.0)
RIGID_BODY_COLUMNS = (
    attribute(
        RIGID_BODY, "physics:rigidBodyEnabled", "bool", "none",
        ovphysx=True, usdphysics=True, page=_BODY_PAGE,
        if_absent=(
            "A dynamic body. false makes it static: a joint to it anchors to the world and it "
            "cannot be an articulation link."
        ),
    ),
    attribute(
        RIGID_BODY, "physics:kinematicEnabled", "bool", "none",
        ovphysx=False, usdphysics=False, page=_BODY_PAGE,
        if_absent="Not kinematic. A kinematic body counts as world for articulation anchoring.",
    ),
    attribute(
        RIGID_BODY, "physics:startsAsleep", "bool", "none",
        ovphysx=False, usdphysics=False, page=_BODY_PAGE,
        if_absent="The body starts awake.",
    ),
    attribute(
        RIGID_BODY, "physics:velocity", "vector3f", "length/s",
        ovphysx=_ZERO3, usdphysics=_ZERO3, page=_BODY_PAGE,
        if_absent="Zero initial linear velocity (world frame unless local-space velocities are requested).",
    ),
    attribute(
        RIGID_BODY, "physics:angularVelocity", "vector3f", "deg/s",
        ovphysx=_ZERO3, usdphysics=_ZERO3, page=_BODY_PAGE, conversion="deg_to_rad",
        if_absent="Zero initial angular velocity.",
    ),
    relationship(
        RIGID_BODY, "physics:simulationOwner", page=_BODY_PAGE,
        if_absent="The body belongs to the default scene.",
    ),
)

MASS = "PhysicsMassAPI"
_MASS_PAGE = "PhysicsMassAPI.md"
MASS_COLUMNS = (
    attribute(
        MASS, "physics:mass", "float", "mass",
        ovphysx=-1.0, usdphysics=Marker.NOT_READ, page=_MASS_PAGE,
        if_absent="Unset (fallback 0): the mass is volume times density.",
        divergences=(d.MASS_UNSET_SENTINEL,),
    ),
    attribute(
        MASS, "physics:density", "float", "mass/length^3",
        ovphysx=-1.0, usdphysics=Marker.NOT_READ, page=_MASS_PAGE,
        if_absent=(
            "Unset (fallback 0): the bound physics material's density, else 1000 kg/m^3 expressed "
            "in stage units."
        ),
        divergences=(d.MASS_UNSET_SENTINEL,),
    ),
    attribute(
        MASS, "physics:centerOfMass", "point3f", "length",
        ovphysx=None, usdphysics=Marker.NOT_READ, page=_MASS_PAGE,
        if_absent="Unset (fallback -inf on every axis): computed from the collision shapes.",
    ),
    attribute(
        MASS, "physics:diagonalInertia", "float3", "mass*length^2",
        ovphysx=None, usdphysics=Marker.NOT_READ, page=_MASS_PAGE,
        if_absent="Unset (fallback zero): computed from the collision shapes.",
    ),
    attribute(
        MASS, "physics:principalAxes", "quatf", "none",
        ovphysx=(1.0, 0.0, 0.0, 0.0), usdphysics=Marker.NOT_READ, page=_MASS_PAGE,
        if_absent="Unset (fallback all-zero quaternion): the computed principal frame, or identity.",
        divergences=(d.PRINCIPAL_AXES_IDENTITY,),
    ),
)
