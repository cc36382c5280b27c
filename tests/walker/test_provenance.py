"""Provenance of every column against USD's own value resolution.

Oracle: ``UsdAttribute.GetResolveInfo().GetSource()`` and ``Get()`` on the same attribute: a
default opinion is ``authored``; time samples only are ``authored`` with ``time_sampled`` (the
consumers read the default time, so the value is the fallback); no opinion is ``fallback`` with
the registry's value; a blocked value is ``blocked`` with the consumer's parser default.
"""
from __future__ import annotations

import math

from pxr import Sdf, Usd, UsdPhysics

from usdjoints.contract import parser_default, raw_fallback
from usdjoints.walker import walk_many

CONSUMERS = ("ovphysx", "usdphysics", "usdjoints")


def _stage():
    stage = Usd.Stage.CreateInMemory()
    joint = UsdPhysics.RevoluteJoint.Define(stage, "/J")
    joint.CreateLowerLimitAttr().Set(-30.0)  # a default opinion
    upper = joint.CreateUpperLimitAttr()
    upper.Set(10.0, 1.0)  # time samples only
    joint.CreateBreakForceAttr().Set(Sdf.ValueBlock())  # blocked
    return stage, joint


def test_sources_follow_usd_value_resolution():
    stage, joint = _stage()
    resolve = {name: joint.GetPrim().GetAttribute(name).GetResolveInfo().GetSource()
               for name in ("physics:lowerLimit", "physics:upperLimit", "physics:axis")}
    assert resolve["physics:lowerLimit"] == Usd.ResolveInfoSourceDefault
    assert resolve["physics:upperLimit"] == Usd.ResolveInfoSourceTimeSamples
    assert resolve["physics:axis"] == Usd.ResolveInfoSourceFallback
    assert joint.GetBreakForceAttr().Get() is None  # USD's signal of a block
    for consumer, description in walk_many(stage, CONSUMERS).items():
        columns = description.joint("/J").columns
        lower, upper, axis, brk = (columns[n] for n in ("physics:lowerLimit", "physics:upperLimit", "physics:axis",
                                                        "physics:breakForce"))
        assert (lower.source.value, lower.value, lower.time_sampled) == ("authored", -30.0, False)
        assert (upper.source.value, upper.time_sampled) == ("authored", True)
        assert upper.value == joint.GetUpperLimitAttr().Get()  # what a reader at the default time sees
        assert (axis.source.value, axis.value) == ("fallback", raw_fallback("PhysicsRevoluteJoint", "physics:axis"))
        expected_default = parser_default(consumer, "PhysicsRevoluteJoint", "physics:breakForce")
        assert brk.source.value == "blocked"
        assert brk.value == expected_default or (isinstance(brk.value, float) and math.isnan(brk.value))
        assert upper.fallback == raw_fallback("PhysicsRevoluteJoint", "physics:upperLimit")


def test_time_samples_are_noticed_only_when_a_layer_has_them():
    """Without any time sample in the used layers, no column claims one."""
    stage = Usd.Stage.CreateInMemory()
    joint = UsdPhysics.RevoluteJoint.Define(stage, "/J")
    joint.CreateUpperLimitAttr().Set(5.0)
    column = walk_many(stage, ("usdjoints",))["usdjoints"].joint("/J").columns["physics:upperLimit"]
    assert (column.source.value, column.value, column.time_sampled) == ("authored", 5.0, False)
