"""The articulated model the simulator runs: numpy arrays only (importing this never loads numba)."""
from __future__ import annotations

from .articulated import (
    DRIVE_ACCELERATION, DRIVE_FORCE, DRIVE_NONE, FREE, PRISMATIC, REVOLUTE, SPHERICAL,
    ArticulatedModel,
)
from .builder import D6_AXES, Drive, ModelBuilder
from .inertia import merge_rigidly_attached

__all__ = [
    "ArticulatedModel", "ModelBuilder", "Drive", "D6_AXES", "merge_rigidly_attached",
    "REVOLUTE", "PRISMATIC", "SPHERICAL", "FREE",
    "DRIVE_NONE", "DRIVE_FORCE", "DRIVE_ACCELERATION",
]
