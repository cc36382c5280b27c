"""The contract against OpenUSD's schema registry (oracle: Usd.SchemaRegistry, read live)."""
from __future__ import annotations

import math

import pytest

import usdjoints.units
from usdjoints.contract import (
    Marker,
    Producer,
    UnitsScaled,
    columns_for,
    known_owners,
    raw_fallback,
)
from usdjoints.contract.index import OWN_COLUMNS, PARENT
from usdjoints.contract.registry import is_multiple_apply, property_names, value_type_name

_IMAGEABLE = {"proxyPrim", "purpose", "visibility"}  # rendering properties, never physics columns
_SCHEMA_OWNERS = [o for o in known_owners() if o != "stage"]


def _same(a, b) -> bool:
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        # fallbacks are float32; the contract restates them as Python floats (exact for 0, 1, inf)
        return a == b or (math.isfinite(a) and math.isclose(a, b, rel_tol=1e-6))
    return a == b


def _all_columns():
    return [spec for own in OWN_COLUMNS.values() for spec in own]


@pytest.mark.parametrize("owner", _SCHEMA_OWNERS)
def test_contract_covers_every_schema_property(owner):
    """Oracle: the prim definition's property names. The contract lists each one, and no other."""
    declared = set(property_names(owner)) - _IMAGEABLE
    listed = {spec.name for spec in columns_for(owner) if spec.kind != "metadata"}
    assert listed == declared


@pytest.mark.parametrize("spec", _all_columns(), ids=lambda s: f"{s.owner}.{s.name}")
def test_every_column_is_a_registry_property_of_its_type(spec):
    """Oracle: the registry. The name exists, the Sdf type matches, relationships are relationships."""
    if spec.kind == "metadata":
        raw_fallback(spec.owner, spec.name)  # raises when the registry has no such field
        return
    assert value_type_name(spec.owner, spec.name) == spec.value_type
    assert (spec.kind == "relationship") == (spec.value_type == "rel")
    assert spec.multiple_apply == is_multiple_apply(spec.owner)


@pytest.mark.parametrize("spec", _all_columns(), ids=lambda s: f"{s.owner}.{s.name}")
def test_restated_values_equal_the_fallback_or_carry_a_divergence(spec):
    """Oracle: the registry. A literal parser default or producer value that differs from the
    schema fallback must be explained by a divergence naming that consumer (or the producer)."""
    fallback = raw_fallback(spec.owner, spec.name)
    for consumer, value in spec.parser_defaults.items():
        if value is None or isinstance(value, (Marker, UnitsScaled)):
            continue
        if not _same(value, fallback):
            assert any(consumer in d.effect.split(":")[0] for d in spec.divergences), (consumer, value, fallback)
    if not isinstance(spec.producer, Producer):
        if not _same(spec.producer, fallback):
            assert any(d.side == "producer" for d in spec.divergences)
    for consumer, value in spec.parser_defaults.items():
        if isinstance(value, UnitsScaled):
            assert any(d.kind == "defect" for d in spec.divergences), consumer


def test_fallbacks_the_tables_restate_in_words_match_the_registry():
    """Oracle: the registry. Values the if-absent texts and summaries quote."""
    assert raw_fallback("PhysxPhysicsRackAndPinionJoint", "physics:ratio") == 1.0
    assert raw_fallback("PhysxPhysicsGearJoint", "physics:gearRatio") == 1.0
    assert raw_fallback("PhysicsRevoluteJoint", "physics:lowerLimit") == -math.inf
    assert raw_fallback("PhysicsRevoluteJoint", "physics:upperLimit") == math.inf
    assert raw_fallback("PhysicsSphericalJoint", "physics:coneAngle0Limit") == -1.0
    assert raw_fallback("PhysicsDriveAPI", "drive:<inst>:physics:maxForce") == math.inf
    assert raw_fallback("PhysxMimicJointAPI", "physxMimicJoint:<inst>:gearing") == 1.0
    assert raw_fallback("PhysxMimicJointAPI", "physxMimicJoint:<inst>:referenceJointAxis") == "rotX"
    assert raw_fallback("PhysicsMassAPI", "physics:centerOfMass") == (-math.inf,) * 3
    assert raw_fallback("PhysicsMassAPI", "physics:principalAxes") == (0.0, 0.0, 0.0, 0.0)
    assert raw_fallback("stage", "metersPerUnit") == 0.01
    assert raw_fallback("stage", "upAxis") == "Y"
    assert raw_fallback("PhysicsJoint", "physics:localRot0") == (1.0, 0.0, 0.0, 0.0)


def test_typed_joints_inherit_from_physics_joint_in_the_type_system():
    """Oracle: Tf's schema type hierarchy; the contract's inheritance map must agree with it."""
    from pxr import Usd

    base = Usd.SchemaRegistry.GetTypeFromName("PhysicsJoint")
    for typed, parent in PARENT.items():
        assert parent == "PhysicsJoint"
        assert Usd.SchemaRegistry.GetTypeFromName(typed).IsA(base), typed
    assert [s.owner for s in columns_for("PhysicsRevoluteJoint")][:11] == ["PhysicsJoint"] * 11


def test_articulation_root_declares_no_property():
    """Oracle: the registry. The root API's single contract entry is metadata, not a property."""
    assert set(property_names("PhysicsArticulationRootAPI")) == set()
    (entry,) = columns_for("PhysicsArticulationRootAPI")
    assert entry.kind == "metadata" and raw_fallback(entry.owner, entry.name) is None


@pytest.mark.parametrize("spec", [s for s in _all_columns() if s.conversion], ids=lambda s: f"{s.owner}.{s.name}")
def test_conversions_name_functions_of_the_units_module(spec):
    """Identity: a named conversion is a callable in usdjoints.units."""
    assert callable(getattr(usdjoints.units, spec.conversion))
