"""The query API over the contract (oracle: the registry and the tables' own definitions)."""
from __future__ import annotations

import math

import pytest

from usdjoints.contract import (
    CONSUMERS,
    FLT_MAX,
    Marker,
    UnitsScaled,
    column,
    columns_for,
    divergences,
    known_owners,
    parser_default,
    producer_value,
    raw_fallback,
)
from usdjoints.errors import UsageError


def test_concrete_instance_names_find_their_template():
    """Identity: an instance name and its template name are the same column."""
    spec = column("PhysicsDriveAPI", "drive:angular:physics:stiffness")
    assert spec.name == "drive:<inst>:physics:stiffness"
    assert column("PhysxMimicJointAPI", "physxMimicJoint:rotZ:gearing").name == "physxMimicJoint:<inst>:gearing"
    with pytest.raises(UsageError):
        column("PhysicsDriveAPI", "drive:a:b:physics:stiffness")


def test_typed_joint_answers_for_inherited_columns():
    """Identity: an inherited column keeps PhysicsJoint as owner."""
    assert column("PhysicsRevoluteJoint", "physics:body0").owner == "PhysicsJoint"
    assert column("PhysicsRevoluteJoint", "physics:lowerLimit").owner == "PhysicsRevoluteJoint"


def test_usdjoints_parser_default_is_the_live_fallback_everywhere():
    """Oracle: the registry. usdjoints reads an absent attribute as its schema fallback."""
    for owner in known_owners():
        for spec in columns_for(owner):
            value = parser_default("usdjoints", owner, spec.name)
            if spec.kind == "attribute":
                assert value == raw_fallback(spec.owner, spec.name), spec.name


def test_absent_column_defaults_differ_as_recorded():
    """The absent-column defaults the contract pages and FACTS.md record, side by side."""
    assert parser_default("ovphysx", "PhysicsRevoluteJoint", "physics:lowerLimit") == 0.0
    assert parser_default("ovphysx", "PhysxPhysicsRackAndPinionJoint", "physics:ratio") == 0.0
    assert parser_default("ovphysx", "PhysxPhysicsGearJoint", "physics:gearRatio") == 0.0
    assert parser_default("ovphysx", "PhysicsSphericalJoint", "physics:coneAngle1Limit") == 0.0
    assert parser_default("ovphysx", "PhysicsJoint", "physics:breakForce") == FLT_MAX
    assert parser_default("ovphysx", "PhysicsDriveAPI", "drive:linear:physics:maxForce") == FLT_MAX
    assert parser_default("usdphysics", "PhysxPhysicsGearJoint", "physics:gearRatio") is Marker.NOT_READ
    assert parser_default("usdjoints", "PhysicsRevoluteJoint", "physics:upperLimit") == math.inf
    scaled = parser_default("ovphysx", "PhysxArticulationAPI", "physxArticulation:sleepThreshold")
    assert isinstance(scaled, UnitsScaled) and scaled.at(1.0) == pytest.approx(5e-3)  # 5e-5 * 10^2


def test_producer_values_resolve_the_fallback():
    """Oracle: the registry. RESOLVED becomes the fallback, NOT_WRITTEN becomes None."""
    assert producer_value("PhysxPhysicsRackAndPinionJoint", "physics:ratio") == 1.0
    assert producer_value("PhysxPhysicsRackAndPinionJoint", "physics:hinge") is None
    assert producer_value("PhysicsDriveAPI", "drive:<inst>:physics:maxForce", "angular") == math.inf
    assert producer_value("PhysxJointAxisAPI", "physxJointAxis:rotX:maxJointVelocity") == FLT_MAX


def test_unknown_names_raise_usage_errors_listing_the_known_ones():
    """Bad input is a UsageError naming the alternatives."""
    with pytest.raises(UsageError, match="PhysicsRevoluteJoint"):
        columns_for("RevoluteJoint")
    with pytest.raises(UsageError, match="usdjoints"):
        parser_default("physx", "PhysicsJoint", "physics:body0")


def test_divergences_of_a_type_include_inherited_ones():
    """Identity: a typed joint reports the base joint's divergences plus its own."""
    own = {(s.name, d.effect) for s, d in divergences("PhysicsRevoluteJoint")}
    base = {(s.name, d.effect) for s, d in divergences("PhysicsJoint")}
    assert base < own
    assert all(d.kind in ("defect", "fragile", "note") for _, d in divergences())
    assert set(CONSUMERS) == {"ovphysx", "usdphysics", "usdjoints", "newton"}
