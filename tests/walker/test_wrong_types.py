"""Wrongly typed, unreadable and out-of-range values: the walker never raises and reads each the
way the consumer does.

Oracles: OpenUSD's own parser (``UsdPhysics.UsdPhysicsLoadStageFromPrimRange``) run live on the
same stage for the ``usdphysics`` reading; PhysX (ovphysx 0.7) for the ``ovphysx`` reading, whose
measured values are written out below and re-measured live by ``test_ovphysx_reads_as_measured``
when ovphysx is installed. Each stage is the articulated hinge of tests/data/usd/artic_revolute_drive.usda
with one column re-authored.
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

import usdjoints
from samples import REPO
from usdphysics_oracle import parse_with_usdphysics

BASE = REPO / "tests" / "data" / "usd" / "artic_revolute_drive.usda"
HINGE = "/World/Hinge"
_EXTRA = ("        float drive:angular:physics:stiffness = 5\n        float physics:lowerLimit = -45\n"
          "        float physics:upperLimit = 60\n        quatf physics:localRot0 = (1, 0, 0, 0)\n")

# name: (authored line replaced, replacement, what PhysX read: (lower [deg], stiffness [per deg], localPos0 x))
CASES = {
    "double3_pos": ("point3f physics:localPos0 = (0.5, 0, 0)", "double3 physics:localPos0 = (0.7, 0, 0)",
                    (-45.0, 5.0, 0.7)),
    "float2_pos": ("point3f physics:localPos0 = (0.5, 0, 0)", "float2 physics:localPos0 = (0.7, 0)",
                   (-45.0, 5.0, 0.0)),
    "float3_lower": ("float physics:lowerLimit = -45", "float3 physics:lowerLimit = (1, 2, 3)", (0.0, 5.0, 0.5)),
    "float_array_lower": ("float physics:lowerLimit = -45", "float[] physics:lowerLimit = [-30]", (0.0, 5.0, 0.5)),
    "bool_lower": ("float physics:lowerLimit = -45", "bool physics:lowerLimit = 1", (1.0, 5.0, 0.5)),
    "int_stiffness": ("float drive:angular:physics:stiffness = 5", "int drive:angular:physics:stiffness = 7",
                      (-45.0, 7.0, 0.5)),
    "token_stiffness": ("float drive:angular:physics:stiffness = 5",
                        'token drive:angular:physics:stiffness = "x"', (-45.0, 0.0, 0.5)),
    "quatd_rot": ("quatf physics:localRot0 = (1, 0, 0, 0)",
                  "quatd physics:localRot0 = (0.7071068, 0, 0, 0.7071068)", (-45.0, 5.0, 0.5)),
}


def _stage_text(name: str) -> str:
    text = BASE.read_text().replace("        float drive:angular:physics:stiffness = 0\n", _EXTRA)
    old, new, _ = CASES[name]
    assert old in text
    return text.replace(old, new)


@pytest.fixture(scope="module")
def stages(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("wrong_types")
    out = {}
    for name in CASES:
        out[name] = folder / f"{name}.usda"
        out[name].write_text(_stage_text(name))
    return out


def _hinge(path, consumer):
    description = usdjoints.walk(str(path), consumer=consumer)
    (joint,) = [j for j in description.joints if j.path == HINGE]
    return joint, description


@pytest.mark.parametrize("name", sorted(CASES))
def test_usdphysics_reading_matches_the_parser(stages, name):
    from pxr import Usd

    joint, _ = _hinge(stages[name], "usdphysics")
    theirs = parse_with_usdphysics(Usd.Stage.Open(str(stages[name])))["joints"][HINGE]
    (limit,) = theirs["limits"]
    assert (joint.limits[0].enabled, joint.limits[0].low, joint.limits[0].high) == (
        limit["enabled"], limit["low"], limit["high"])
    assert [d.stiffness for d in joint.drives] == [d["stiffness"] for d in theirs["drives"]]
    assert list(joint.local_pose0.position) == pytest.approx(theirs["local_pose0"]["position"])
    assert list(joint.local_pose0.orientation) == pytest.approx(theirs["local_pose0"]["orientation"])


@pytest.mark.parametrize("name", sorted(CASES))
def test_ovphysx_reading_is_what_physx_read(stages, name):
    joint, _ = _hinge(stages[name], "ovphysx")
    lower, stiffness, x = CASES[name][2]
    assert joint.limits[0].low == pytest.approx(lower)
    assert joint.drives[0].stiffness == pytest.approx(stiffness)
    assert joint.local_pose0.position[0] == pytest.approx(x)


@pytest.mark.parametrize("name", sorted(CASES))
def test_wrong_type_is_an_error_diagnostic_and_an_audit_finding(stages, name):
    _, description = _hinge(stages[name], "usdjoints")
    attribute = CASES[name][1].split()[1]
    found = [d for d in description.diagnostics if d.code == "invalid-value-type" and d.prim == HINGE]
    assert [d.message.split(" ", 1)[0] for d in found] == [attribute]
    assert found[0].severity == "error" and len(found[0].message) < 200
    findings = usdjoints.audit(str(stages[name])).by_rule("invalid-value-type")
    assert [(f.prim, f.attribute) for f in findings] == [(HINGE, attribute)]


@pytest.mark.oracle
@pytest.mark.slow
@pytest.mark.parametrize("name", ["double3_pos", "float3_lower", "int_stiffness", "token_stiffness", "bool_lower"])
def test_ovphysx_reads_as_measured(stages, name):
    sys.path.insert(0, str(REPO / "tests" / "oracle"))
    from ovphysx_runner import ovphysx_available, run_ovphysx_probe

    if not ovphysx_available():
        pytest.skip("ovphysx is not installed (the oracle extra)")
    report = run_ovphysx_probe(stages[name])
    (dof,) = report["joints"][HINGE]["dofs"]
    lower, stiffness, _ = CASES[name][2]
    assert math.degrees(dof["lower"]) == pytest.approx(lower, abs=1e-4)
    assert dof["stiffness"] == pytest.approx(math.degrees(stiffness), rel=1e-5)  # reported per radian


UNIT_CASES = {"metersPerUnit = 0": ("metersPerUnit", 0.01), "metersPerUnit = -1": ("metersPerUnit", 0.01),
              "metersPerUnit = nan": ("metersPerUnit", 0.01), "kilogramsPerUnit = inf": ("kilogramsPerUnit", 1.0),
              'upAxis = "W"': ("upAxis", "Y")}


@pytest.mark.parametrize("authored", sorted(UNIT_CASES))
def test_out_of_range_stage_units_read_as_the_fallback(tmp_path, authored):
    """Oracle: the schema fallbacks (UsdGeom: 0.01 m per unit, up axis Y; UsdPhysics: 1 kg per unit)."""
    key, fallback = UNIT_CASES[authored]
    text = BASE.read_text()
    lines = [line for line in text.splitlines() if not line.strip().startswith(key)]
    text = "\n".join(lines).replace("(\n", f"(\n    {authored}\n", 1)
    path = tmp_path / "units.usda"
    path.write_text(text)
    description = usdjoints.walk(str(path), consumer="usdjoints")
    resolved = {"metersPerUnit": description.units.meters_per_unit, "kilogramsPerUnit":
                description.units.kilograms_per_unit, "upAxis": description.units.up_axis}[key]
    assert (resolved.value, resolved.source.value) == (fallback, "invalid")
    assert [d.code for d in description.diagnostics if d.code == "invalid-stage-units"] == ["invalid-stage-units"]
    usdjoints.audit(str(path))  # the unit rules read the walk: no exception


XFORM_CASES = {
    "array translate": ("double3 xformOp:translate = (1, 0, 1)", "float3[] xformOp:translate = [(1, 0, 1)]"),
    "empty translate": ("double3 xformOp:translate = (1, 0, 1)", "float3[] xformOp:translate = []"),
    "scalar orient": ("double3 xformOp:translate = (1, 0, 1)",
                      'double3 xformOp:translate = (1, 0, 1)\n        float xformOp:orient = 1\n'
                      '        uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:orient"]'),
}


@pytest.mark.parametrize("name", sorted(XFORM_CASES))
def test_unevaluable_xform_op_is_identity(tmp_path, name):
    """Oracle: USD's own message for such an op, "Returning identity matrix": the op counts as identity."""
    old, new = XFORM_CASES[name]
    text = BASE.read_text()
    link = text.index('def Cube "Link"')
    at = text.index(old, link)
    body = text[:at] + new + text[at + len(old):]
    if "xformOp:orient" in new:  # the old order line follows: drop it
        body = body.replace('        uniform token[] xformOpOrder = ["xformOp:translate"]\n    }\n\n    def PhysicsFixed',
                            "    }\n\n    def PhysicsFixed", 1)
    path = tmp_path / "xform.usda"
    path.write_text(body)
    for consumer in ("ovphysx", "usdphysics", "usdjoints"):
        description = usdjoints.walk(str(path), consumer=consumer)
        link_body = next(b for b in description.bodies if b.path == "/World/Link")
        expected = (0.0, 0.0, 0.0) if "translate" in name else (1.0, 0.0, 1.0)
        assert link_body.world_pose.position == pytest.approx(expected)
        assert any(d.code == "invalid-xform-op" and d.prim == "/World/Link" for d in description.diagnostics)
    assert usdjoints.audit(str(path)).by_rule("invalid-xform-op")


def test_a_long_array_where_a_point_goes_is_not_read_element_by_element(tmp_path, monkeypatch):
    """physics:localPos0 authored as a point3f[] of 200,000 points: a wrong type like float2_pos,
    which PhysX reads as its default for an absent column (the table in tests/fuzz/README.md),
    so nothing of the array is converted. Before, each point was turned into a Python tuple to
    find that out: a million took 30 s and a few million ran past any time limit (the contract:
    never a hang)."""
    from usdjoints.walker import columns

    converted = []
    general = columns._to_python_general

    def counting(value):
        converted.append(len(value) if hasattr(value, "__len__") else 1)
        return general(value)

    monkeypatch.setattr(columns, "_to_python_general", counting)
    text = BASE.read_text()
    old = "point3f physics:localPos0 = (0.5, 0, 0)"
    assert old in text
    path = tmp_path / "long_array_pos.usda"
    path.write_text(text.replace(old, "point3f[] physics:localPos0 = [" + ", ".join(["(1, 2, 3)"] * 200_000) + "]"))
    joint, description = _hinge(path, "ovphysx")
    assert tuple(joint.local_pose0.position) == (0.0, 0.0, 0.0)
    assert [d.message.split(" ", 1)[0] for d in description.diagnostics
            if d.code == "invalid-value-type" and d.prim == HINGE] == ["physics:localPos0"]
    assert max(converted, default=0) < 1000
