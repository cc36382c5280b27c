"""Limits of loop-closing hinges and sliders (kernels/limits.py bound rows), as PhysX holds the
limits of joints outside the articulation.

Oracles: the closed form of a held limit (a rod released level under gravity comes to rest on
the limit of the excluded hinge that shares its axis, within the issue's 0.5 deg; a box falling
along a slider rests on the excluded slider's lower limit, within 0.5 mm), with the joint's sign
as PhysX measures it (body1's frame against body0's: the same hinge authored from the rod to the
world holds the negated interval), and the free motion without the limit (the rod swings past).
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

from sim_stages import body, stage
from usdjoints.model.build import load_model
from usdjoints.sim import api

EXCLUDED = "        bool physics:excludeFromArticulation = 1\n"
REPO = Path(__file__).resolve().parents[2]


def _joint(kind, name, axis, body0=None, body1=None, pos0=(0, 0, 0), pos1=(0, 0, 0), limits=None, extra=""):
    schema = ' (prepend apiSchemas = ["PhysicsLimitAPI:{}"])'.format("angular" if kind == "Revolute" else "linear")
    rels = "".join(f"        rel physics:{side} = </World/{target}>\n"
                   for side, target in (("body0", body0), ("body1", body1)) if target)
    bounds = "" if limits is None else (f"        float physics:lowerLimit = {limits[0]}\n"
                                        f"        float physics:upperLimit = {limits[1]}\n")
    return f"""    def Physics{kind}Joint "{name}"{schema if limits else ""}
    {{
        uniform token physics:axis = "{axis}"
{rels}        point3f physics:localPos0 = {tuple(pos0)}
        point3f physics:localPos1 = {tuple(pos1)}
{bounds}{extra}    }}
"""


def _rod_stage(tmp_path, limits, reversed_=False) -> Path:
    """A rod 1 m long along +x hinged about Y at the origin (Pivot, in the tree) and again by an
    excluded hinge (Held) carrying ``limits`` [deg], authored world -> rod or rod -> world."""
    rod = body("Rod", 1.0, (0.01, 1.0 / 12, 1.0 / 12), translate=(0.5, 0, 0))
    pivot = _joint("Revolute", "Pivot", "Y", body1="Rod", pos1=(-0.5, 0, 0))
    if reversed_:
        held = _joint("Revolute", "Held", "Y", body0="Rod", pos0=(-0.5, 0, 0), limits=limits, extra=EXCLUDED)
    else:
        held = _joint("Revolute", "Held", "Y", body1="Rod", pos1=(-0.5, 0, 0), limits=limits, extra=EXCLUDED)
    path = tmp_path / "rod.usda"
    path.write_text(stage(rod + pivot + held))
    return path


def _rod(tmp_path, limits, reversed_=False):
    model = load_model(str(_rod_stage(tmp_path, limits, reversed_)))
    assert model.loop_names == ("/World/Held",)
    assert "loop-joint-drive-ignored" not in {d.code for d in model.diagnostics}
    trajectory = api.simulate(model, 1.0, 1e-3)
    return math.degrees(float(trajectory.q[-1, 0]))  # Pivot's angle: gravity turns it positive


@pytest.mark.parametrize("reversed_, limits, rest", [
    (False, (-10, 10), 10.0), (False, (-5, 20), 20.0),
    (True, (-10, 10), 10.0), (True, (-20, 5), 20.0)])
def test_excluded_hinge_limit_holds_the_rod(tmp_path, reversed_, limits, rest):
    """Authored world -> rod, Held's angle is Pivot's; rod -> world, its negative: the upper
    limit 5 then holds nothing the falling rod reaches, and the lower -20 stops it at +20 deg."""
    assert abs(_rod(tmp_path, limits, reversed_) - rest) < 0.5


def test_without_a_limit_the_rod_swings_past(tmp_path):
    assert _rod(tmp_path, None) > 30.0


def _slider_stage(tmp_path) -> Path:
    box = body("Box", 2.0, (0.01, 0.01, 0.01), translate=(0, 0, 1))
    rail = _joint("Prismatic", "Rail", "Z", body1="Box", pos0=(0, 0, 1))
    stop = _joint("Prismatic", "Stop", "Z", body1="Box", pos0=(0, 0, 1), limits=(-0.2, 0.5), extra=EXCLUDED)
    path = tmp_path / "slider.usda"
    path.write_text(stage(box + rail + stop))
    return path


def test_excluded_slider_limit_holds_a_falling_box(tmp_path):
    """A box on a slider along Z (in the tree), and an excluded slider on the same axis whose
    lower limit is -0.2 m: the box falls 0.2 m and rests there."""
    model = load_model(str(_slider_stage(tmp_path)))
    assert model.loop_names == ("/World/Stop",)
    trajectory = api.simulate(model, 1.0, 1e-3)
    assert abs(float(trajectory.q[-1, 0]) + 0.2) < 5e-4
    assert float(trajectory.q[:, 0].min()) > -0.2 - 5e-4


@pytest.mark.oracle
def test_the_rest_poses_agree_with_physx(tmp_path):
    """ovphysx 0.7, 1,000 steps of 1 ms on the reversed rod (-20, 5) and on the slider: the joint
    in the tree ends where PhysX's does, to 0.5 deg and 0.5 mm."""
    sys.path.insert(0, str(REPO / "tests" / "oracle"))
    from ovphysx_runner import ovphysx_available, run_ovphysx_probe

    if not ovphysx_available():
        pytest.skip("ovphysx is not installed (pip install usdjoints[oracle])")
    rod = _rod_stage(tmp_path, (-20, 5), reversed_=True)
    physx = run_ovphysx_probe(rod, steps=1000, dt=1e-3)["joints"]
    assert abs(math.degrees(physx["/World/Pivot"]["displacement"]) - _rod(tmp_path, (-20, 5), True)) < 0.5
    slider = _slider_stage(tmp_path)
    physx = run_ovphysx_probe(slider, steps=1000, dt=1e-3)["joints"]
    ours = api.simulate(load_model(str(slider)), 1.0, 1e-3).q[-1, 0]
    assert abs(physx["/World/Rail"]["displacement"] - ours) < 5e-4


def test_a_d6_hinge_closing_the_loop_keeps_its_range(tmp_path):
    """An excluded D6 with every axis locked but rotY (a hinge about Y, as the loop holds it) and
    rotY's range [-10, 10] deg: the rod rests on +10 deg, as on the revolute joint's limit."""
    axes = ("transX", "transY", "transZ", "rotX", "rotY", "rotZ")
    schemas = ", ".join(f'"PhysicsLimitAPI:{a}"' for a in axes)
    ranges = "".join(f"        float limit:{a}:physics:low = {-10 if a == 'rotY' else 1}\n"
                     f"        float limit:{a}:physics:high = {10 if a == 'rotY' else -1}\n" for a in axes)
    held = f"""    def PhysicsJoint "Held" (prepend apiSchemas = [{schemas}])
    {{
        rel physics:body1 = </World/Rod>
        point3f physics:localPos1 = (-0.5, 0, 0)
{EXCLUDED}{ranges}    }}
"""
    rod = body("Rod", 1.0, (0.01, 1.0 / 12, 1.0 / 12), translate=(0.5, 0, 0))
    path = tmp_path / "d6.usda"
    path.write_text(stage(rod + _joint("Revolute", "Pivot", "Y", body1="Rod", pos1=(-0.5, 0, 0)) + held))
    model = load_model(str(path))
    assert model.loop_names == ("/World/Held",) and model.distance_names == ("/World/Held",)
    assert "loop-joint-drive-ignored" not in {d.code for d in model.diagnostics}
    assert abs(math.degrees(float(api.simulate(model, 1.0, 1e-3).q[-1, 0])) - 10.0) < 0.5
