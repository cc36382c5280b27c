"""Rendering of the contract: the rack-and-pinion table of seed 003 and strict JSON."""
from __future__ import annotations

import json

import pytest

from usdjoints.contract import known_owners
from usdjoints.contract.render import columns_json, render_columns_text
from usdjoints.errors import UsageError

RACK = "PhysxPhysicsRackAndPinionJoint"
# Every column of the seed's rack-and-pinion page, in its order.
SEED_003_COLUMNS = [
    "physics:body0", "physics:body1", "physics:localPos0", "physics:localRot0", "physics:localPos1",
    "physics:localRot1", "physics:jointEnabled", "physics:collisionEnabled", "physics:breakForce",
    "physics:breakTorque", "physics:excludeFromArticulation", "physics:ratio", "physics:hinge",
    "physics:prismatic",
]


def _row(text: str, name: str) -> list[str]:
    for line in text.splitlines():
        cells = line.split()
        if cells and cells[0] == name:
            return cells
    raise AssertionError(f"no table row for {name}")


def test_rack_table_shows_every_seed_column_with_fallback_producer_and_defaults():
    """Oracle: seed 003's table and the registry. ratio: fallback 1, producer resolved, ovphysx 0."""
    text = render_columns_text(RACK)
    names = [line.split()[0] for line in text.splitlines() if line.startswith("physics:")]
    assert names == SEED_003_COLUMNS
    assert _row(text, "physics:ratio")[1:] == ["float", "deg/length", "1", "resolved", "0", "not", "read", "1",
                                                   "not", "read"]  # newton: the parser's default
    assert _row(text, "physics:breakForce")[-6:] == ["inf", "resolved", "FLT_MAX", "FLT_MAX", "inf", "FLT_MAX"]
    assert _row(text, "physics:hinge")[1:] == ["rel", "-", "-", "not", "written", "-", "not", "read", "-", "not",
                                                "read"]
    assert _row(text, "physics:body0")[1] == "*"  # inherited marker
    assert "defect (consumer) physics:ratio" in text


def test_rack_json_carries_every_seed_column():
    """Oracle: seed 003. Same columns in JSON, with per-consumer defaults and strict floats."""
    data = columns_json(RACK)
    assert data["schema"] == "usdjoints.columns/1" and data["owners"] == [RACK]
    by_name = {c["name"]: c for c in data["columns"]}
    assert list(by_name) == SEED_003_COLUMNS
    assert by_name["physics:ratio"]["parser_default"] == {"ovphysx": 0.0, "usdphysics": "not read", "usdjoints": 1.0,
                                                          "newton": "not read"}
    assert by_name["physics:breakForce"]["fallback"] == "inf"
    assert by_name["physics:localRot0"]["fallback"] == [1.0, 0.0, 0.0, 0.0]  # [w, x, y, z]
    assert by_name["physics:body0"]["inherited"] and by_name["physics:body0"]["owner"] == "PhysicsJoint"


@pytest.mark.parametrize("owner", [None, *known_owners()])
def test_json_is_strict_for_every_owner(owner):
    """Identity: json.dumps(allow_nan=False) accepts the output, so no bare Infinity/NaN remains."""
    json.dumps(columns_json(owner), allow_nan=False)
    assert render_columns_text(owner).strip()


def test_unknown_owner_is_a_usage_error_listing_known_names():
    """Bad input: one UsageError naming the known types and APIs."""
    with pytest.raises(UsageError, match="PhysxPhysicsGearJoint"):
        render_columns_text("GearJoint")
    with pytest.raises(UsageError):
        columns_json("GearJoint")


def test_owner_list_has_one_line_per_owner():
    """Identity: the listing names each owner once."""
    text = render_columns_text(None)
    firsts = [line.split()[0] for line in text.splitlines()[2:] if line.strip()]
    for owner in known_owners():
        assert firsts.count(owner) == 1
