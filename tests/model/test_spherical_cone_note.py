"""A spherical joint's cone limit is not simulated in the tree: the model says so rather than let
the joint swing past it unannounced (PhysX limits the swing: measured with ovphysx 0.7, a rod on
a standalone ball joint with 40 deg half-angles rests 40 deg from the cone axis)."""
from __future__ import annotations

from pathlib import Path

from usdjoints.model.build import load_model

SAMPLES = Path(__file__).resolve().parents[2] / "sample_stages"


def _notes(path):
    return [(d.prim, d.code) for d in load_model(str(path)).diagnostics if d.code == "spherical-cone-not-simulated"]


def test_a_cone_limit_is_reported():
    assert _notes(SAMPLES / "spherical_cone.usda") == [("/World/Cone", "spherical-cone-not-simulated")]


def test_a_ball_without_a_cone_is_not(tmp_path):
    text = (SAMPLES / "spherical_cone.usda").read_text()
    for name in ("coneAngle0Limit", "coneAngle1Limit"):
        text = "\n".join(line if f"physics:{name}" not in line else line.split("=")[0] + "= -1"
                         for line in text.splitlines())
    path = tmp_path / "no_cone.usda"
    path.write_text(text)
    assert _notes(path) == []
