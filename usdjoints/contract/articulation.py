"""Columns of the articulation APIs: the root marker and its PhysX tuning.

PhysicsArticulationRootAPI declares no property; its presence in the prim's ``apiSchemas`` is
the whole signal, recorded here as one metadata column.
"""
from __future__ import annotations

from . import shared_divergences as d
from .columns import attribute
from .markers import Marker, UnitsScaled
from .types import Producer

ROOT = "PhysicsArticulationRootAPI"
ROOT_COLUMNS = (
    attribute(
        ROOT, "apiSchemas", "token[]", "none",
        ovphysx=None, usdphysics=None, usdjoints=None, kind="metadata", producer=Producer.RESOLVED,
        page="PhysicsArticulationRootAPI.md",
        if_absent=(
            "No articulation is rooted at this prim: its bodies and joints stay maximal-coordinate "
            "bodies and standalone joints unless another root encloses them. On a rigid body the "
            "body is the root; on a joint to the world the articulation has a fixed base."
        ),
        divergences=(d.NESTED_ROOTS_REJECTED,),
    ),
)

PHYSX_ARTICULATION = "PhysxArticulationAPI"
_PAGE = "PhysxArticulationAPI.md"
PHYSX_ARTICULATION_COLUMNS = (
    attribute(
        PHYSX_ARTICULATION, "physxArticulation:articulationEnabled", "bool", "none",
        ovphysx=True, usdphysics=Marker.NOT_READ, page=_PAGE,
        if_absent="The articulation is built; false turns its links into plain bodies and its joints into standalone joints.",
    ),
    attribute(
        PHYSX_ARTICULATION, "physxArticulation:enabledSelfCollisions", "bool", "none",
        ovphysx=True, usdphysics=Marker.NOT_READ, page=_PAGE,
        if_absent="Links of the articulation collide with each other.",
    ),
    attribute(
        PHYSX_ARTICULATION, "physxArticulation:sleepThreshold", "float", "length^2/s^2",
        ovphysx=UnitsScaled(5e-5, 2), usdphysics=Marker.NOT_READ, page=_PAGE,
        if_absent="Mass-normalised kinetic energy below which the articulation may sleep.",
        divergences=(d.ARTICULATION_THRESHOLDS_UNSCALED,),
    ),
    attribute(
        PHYSX_ARTICULATION, "physxArticulation:stabilizationThreshold", "float", "length^2/s^2",
        ovphysx=UnitsScaled(1e-2, 2), usdphysics=Marker.NOT_READ, page=_PAGE,
        if_absent="Mass-normalised kinetic energy below which stabilisation may act.",
        divergences=(d.ARTICULATION_STABILIZATION_COEFFICIENT, d.ARTICULATION_THRESHOLDS_UNSCALED),
    ),
    attribute(
        PHYSX_ARTICULATION, "physxArticulation:solverPositionIterationCount", "int", "none",
        ovphysx=32, usdphysics=Marker.NOT_READ, page=_PAGE,
        if_absent="32 position iterations (clamped to [1, 255]).",
    ),
    attribute(
        PHYSX_ARTICULATION, "physxArticulation:solverVelocityIterationCount", "int", "none",
        ovphysx=1, usdphysics=Marker.NOT_READ, page=_PAGE,
        if_absent="1 velocity iteration (clamped to [0, 255]).",
    ),
)
