"""Screw and gearbox joints: the coupling prims, read by OpenUSD and run by PhysX.

Oracles: OpenUSD's parser and prim definitions (types, relationships, ratios); ovphysx 0.7
(PhysX itself: the rate of one coupled joint over the other after a few steps under gravity).
SDFormat's relations: screw translation = thread_pitch [m/rad] x rotation; gearbox
theta_child = -ratio x theta_parent, both angles about the gearbox axes relative to the reference body.
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

import usdjoints  # noqa: F401  (registers the PhysX schemas before any stage is opened)
from usdjoints.convert import convert_sdformat

from pxr import Usd, UsdPhysics  # noqa: E402

FIXTURES = Path(__file__).resolve().parents[2] / "data" / "sdf_fixtures" / "couplings"
ORACLE = Path(__file__).resolve().parents[2] / "oracle"
THREAD_PITCH = 0.25 / (2.0 * math.pi)  # screw.sdf: 0.25 m per turn [m/rad]
#: PhysX solves the coupling at velocity level in float32: 1e-4 relative is its round-off margin.
RATE_TOL = 1e-4


def _convert(tmp_path, name: str) -> tuple[Path, Usd.Stage]:
    out = tmp_path / f"{name}.usda"
    convert_sdformat(FIXTURES / f"{name}.sdf", out)
    return out, Usd.Stage.Open(str(out))


def test_screw_is_rack_and_pinion_over_prismatic_and_revolute(tmp_path):
    """OpenUSD reads the rotation and translation as joints of one articulation; the rack names them."""
    _, stage = _convert(tmp_path, "screw")
    rack = stage.GetPrimAtPath("/screw/joints/thread")
    assert rack.GetTypeName() == "PhysxPhysicsRackAndPinionJoint" and rack.IsA(UsdPhysics.Joint)
    assert rack.GetRelationship("physics:hinge").GetTargets() == ["/screw/joints/thread_rotation"]
    assert rack.GetRelationship("physics:prismatic").GetTargets() == ["/screw/joints/thread_translation"]
    assert rack.GetAttribute("physics:ratio").Get() == pytest.approx(math.degrees(1.0) / THREAD_PITCH, rel=1e-6)
    assert stage.GetPrimAtPath("/screw/joints/thread_rotation").IsA(UsdPhysics.RevoluteJoint)
    assert stage.GetPrimAtPath("/screw/joints/thread_translation").IsA(UsdPhysics.PrismaticJoint)
    nut = stage.GetPrimAtPath("/screw/thread_screw_nut")
    assert nut.HasAPI(UsdPhysics.RigidBodyAPI) and UsdPhysics.MassAPI(nut).GetMassAttr().Get() > 0.0
    parsed = UsdPhysics.UsdPhysicsLoadStageFromPrimRange(stage, ["/"])
    articulations = parsed[UsdPhysics.ObjectType.Articulation]
    assert len(articulations[0]) == 1
    assert {str(p) for p in articulations[1][0].articulatedJoints} >= {
        "/screw/joints/thread_rotation", "/screw/joints/thread_translation"}


@pytest.mark.parametrize("name, hinge_sign", [("gearbox", 1.0), ("gearbox_flipped_hinge", -1.0)])
def test_gearbox_is_gear_over_the_two_hinges(tmp_path, name, hinge_sign):
    """gearRatio = ratio x the sign of each hinge against the gearbox axis (one hinge flipped: negated)."""
    _, stage = _convert(tmp_path, name)
    gear = stage.GetPrimAtPath(f"/{name}/joints/gears")
    assert gear.GetTypeName() == "PhysxPhysicsGearJoint" and gear.IsA(UsdPhysics.Joint)
    assert gear.GetRelationship("physics:hinge0").GetTargets() == [f"/{name}/joints/hinge_in"]
    assert gear.GetRelationship("physics:hinge1").GetTargets() == [f"/{name}/joints/hinge_out"]
    assert gear.GetAttribute("physics:gearRatio").Get() == 2.0 * hinge_sign


def _probe(stage_path: Path) -> dict:
    sys.path.insert(0, str(ORACLE))
    try:
        from ovphysx_runner import ovphysx_available, run_ovphysx_probe
    finally:
        sys.path.remove(str(ORACLE))
    if not ovphysx_available():
        pytest.skip("ovphysx is not installed")
    return run_ovphysx_probe(stage_path, steps=30, dt=1.0 / 240.0)


@pytest.mark.oracle
def test_physx_turns_the_screw_at_thread_pitch(tmp_path):
    """PhysX: rotation rate / translation rate = 1 / thread_pitch, same sign (gravity pulls the nut down).

    PhysX holds the velocity ratio; its positions drift from it (the rack's position correction
    works against a moving pinion), so the test reads rates, not displacements.
    """
    out, _ = _convert(tmp_path, "screw")
    coupling = _probe(out)["couplings"]["/screw/joints/thread"]
    assert coupling["prismatic_rate"] < 0.0  # it falls
    assert coupling["rate_ratio"] == pytest.approx(1.0 / THREAD_PITCH, rel=RATE_TOL)


@pytest.mark.oracle
@pytest.mark.parametrize("name, hinge_sign", [("gearbox", 1.0), ("gearbox_flipped_hinge", -1.0)])
def test_physx_holds_the_gearbox_ratio(tmp_path, name, hinge_sign):
    """PhysX: theta_out about axis2 = -2 theta_in about axis, whichever way the second hinge points."""
    out, _ = _convert(tmp_path, name)
    coupling = _probe(out)["couplings"][f"/{name}/joints/gears"]
    assert abs(coupling["hinge0_rate"]) > 0.1  # gravity turned the input gear
    # hinge_out's own angle is hinge_sign x theta_out
    assert coupling["rate_ratio"] * hinge_sign == pytest.approx(-2.0, rel=RATE_TOL)
    assert coupling["mean_rate_ratio"] * hinge_sign == pytest.approx(-2.0, rel=1e-3)


def _gear_ratio_of(tmp_path, ratio_text: str, name: str) -> float:
    text = (FIXTURES / "gearbox_flipped_hinge.sdf").read_text()
    source = tmp_path / f"{name}.sdf"
    source.write_text(text.replace("<gearbox_ratio>2</gearbox_ratio>", f"<gearbox_ratio>{ratio_text}</gearbox_ratio>"))
    out = tmp_path / f"{name}.usda"
    convert_sdformat(source, out)
    stage = Usd.Stage.Open(str(out))
    gears = [p for p in stage.Traverse() if p.GetTypeName() == "PhysxPhysicsGearJoint"]
    assert len(gears) == 1
    return gears[0].GetAttribute("physics:gearRatio").Get()


@pytest.mark.parametrize("ratio, accepted", [("3.5", 3.5), (" -0.5 ", -0.5), ("1e1", 10.0), ("", 1.0), ("0x10", None),
                                             ("two", None), ("2 3", None), ("inf", None), ("nan", None)])
def test_gearbox_ratio_text(tmp_path, ratio, accepted):
    """libsdformat reads <gearbox_ratio> as a double (empty: its default, 1): text that is no
    number, or no finite one, is an InputError at its line, never a ValueError; a number scales
    the gear as the fixture's ratio 2 does (the flipped hinge's sign kept)."""
    from usdjoints.errors import InputError

    if accepted is None:
        with pytest.raises(InputError, match=r"gear\.sdf:\d+: .*gearbox_ratio"):
            _gear_ratio_of(tmp_path, ratio, "gear")
        assert not (tmp_path / "gear.usda").exists()
        return
    two = _gear_ratio_of(tmp_path, "2", "two")
    assert _gear_ratio_of(tmp_path, ratio, "gear") == pytest.approx(two * accepted / 2.0)
