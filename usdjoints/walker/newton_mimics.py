"""The couplings Newton 1.8 applies between joints (``joint_mimic_joint`` / ``joint_mimic_coeffs``).

Measured with ``add_usd``: PhysxMimicJointAPI:<axis> becomes ``q = -offset - gearing * q_ref``;
NewtonMimicAPI (what urdf-usd-converter writes for a URDF ``<mimic>``) takes precedence, its
``newton:mimicCoef0`` authored in degrees for a revolute follower; a follower or reference that is
not a revolute, prismatic or D6 joint in Newton's model makes Newton refuse the stage.
"""
from __future__ import annotations

import dataclasses
import math
from typing import Optional

from ..descriptors import Diagnostic, MimicCoupling

# Joint types a mimic follower or its reference may have in Newton's model.
_MIMIC_TYPES = frozenset({"revolute", "prismatic", "d6"})


def _api_names(prim) -> set[str]:
    """The API schema names a prim's apiSchemas metadata lists (registered or not), without instances."""
    listop = prim.GetMetadata("apiSchemas") if prim else None
    if not listop:
        return set()
    items = list(listop.prependedItems) + list(listop.appendedItems) + list(listop.explicitItems)
    return {str(item).split(":", 1)[0] for item in items}


def _authored(prim, name: str, fallback=None):
    attr = prim.GetAttribute(name)
    if attr and attr.HasAuthoredValue():
        return attr.Get()
    return fallback


def _target(prim, name: str) -> Optional[str]:
    rel = prim.GetRelationship(name)
    targets = rel.GetTargets() if rel and rel.HasAuthoredTargets() else []
    if not targets:
        return None
    target = targets[0]
    if not target.IsAbsolutePath():
        target = prim.GetPath().GetParentPath().AppendPath(target)
    return str(target)


def newton_mimics(stage, built, merged_into, newton_type, refuse, notes) -> dict[str, tuple[MimicCoupling, ...]]:
    """The couplings Newton applies: ``q = coef0 + coef1 * q_ref``, stored as PhysX's convention
    (``gearing = -coef1``, ``offset = -coef0``, the offset in the follower's joint coordinates [rad or
    length]). NewtonMimicAPI wins over PhysxMimicJointAPI; MjcEqualityJointAPI makes an equality
    constraint instead (no mimic)."""
    built_paths = {j.path for j in built}
    out: dict[str, tuple[MimicCoupling, ...]] = {}
    for joint in built:
        if joint.path in merged_into:
            continue
        prim = stage.GetPrimAtPath(joint.path)
        apis = _api_names(prim)
        if "MjcEqualityJointAPI" in apis:
            continue
        mimic = None
        if "NewtonMimicAPI" in apis:
            if not bool(_authored(prim, "newton:mimicEnabled", True)):
                continue
            reference = _target(prim, "newton:mimicJoint") or _target(prim, "mjc:target")
            coef0 = _authored(prim, "newton:mimicCoef0")
            if coef0 is None:
                coef0 = float(_authored(prim, "mjc:coef0", 0.0))  # the older name, already in radians
            elif joint.type == "revolute":
                coef0 = math.radians(float(coef0))  # authored in degrees for a revolute follower
            coef1 = _authored(prim, "newton:mimicCoef1")
            if coef1 is None:
                coef1 = _authored(prim, "mjc:coef1", 1.0)
            if reference is not None:
                mimic = MimicCoupling("newton", reference, None, -float(coef1), -float(coef0))
        elif joint.mimics:
            mimic = joint.mimics[-1]
        if mimic is None:
            continue
        reference = merged_into.get(mimic.reference, mimic.reference)
        if reference not in built_paths:
            notes.append(Diagnostic("warning", joint.path, f"the mimic's reference {mimic.reference} is no joint "
                                    "Newton builds: the coupling is skipped", "newton-mimic-skipped"))
            continue
        for path in (joint.path, reference):
            if newton_type.get(path) not in _MIMIC_TYPES:
                refuse(joint.path, f"the mimic follower {joint.path} or its reference {reference} is a "
                       f"{newton_type.get(path)} joint (Newton couples only revolute, prismatic and D6 joints)")
                break
        out[joint.path] = (dataclasses.replace(mimic, reference=reference),)
    return out
