"""Registers the PhysX schemas with USD's plugin system.

It must run before any stage is opened or the schema registry is first used: afterwards the
registration fails silently and PhysX typed prims (rack-and-pinion, gear) stop being joints.
"""
from __future__ import annotations

_registered = False


def ensure_physx_schemas() -> bool:
    """Import ``physx_usd_schemas`` once; returns whether USD now knows the PhysX joint types."""
    global _registered
    if not _registered:
        import physx_usd_schemas  # noqa: F401  (registers its plugInfo on import)

        _registered = True
    from pxr import Usd

    return Usd.SchemaRegistry().FindConcretePrimDefinition("PhysxPhysicsRackAndPinionJoint") is not None
