"""Source values beyond the 32-bit floats UsdPhysics' attributes hold (IEEE 754 binary32: largest
3.4028235e38, smallest positive 1.4e-45; the oracle is numpy.finfo) are refused with their file
and line instead of being written as infinities, or a tiny mass as 0 (UsdPhysics' "no mass")."""
from __future__ import annotations

import math

import pytest
from pxr import Usd, UsdPhysics

from usdjoints.convert.api import convert_file
from usdjoints.errors import InputError

URDF = """<robot name="r">
  <link name="a"><inertial><mass value="{mass}"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
  <link name="b"><inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
  <joint name="j" type="revolute"><parent link="a"/><child link="b"/><origin xyz="0 0 {z}"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>
"""
SDF = """<?xml version="1.0"?>
<sdf version="1.9"><model name="m">
  <link name="a"><inertial><mass>{mass}</mass><inertia><ixx>1</ixx><iyy>1</iyy><izz>1</izz></inertia></inertial></link>
  <link name="b"><pose>0 0 {z} 0 0 0</pose><inertial><mass>1</mass></inertial></link>
  <joint name="j" type="revolute"><parent>a</parent><child>b</child><axis><xyz>0 0 1</xyz></axis></joint>
</model></sdf>
"""


def _convert(tmp_path, kind, mass="1", z="1"):
    source = tmp_path / f"robot.{kind}"
    source.write_text((URDF if kind == "urdf" else SDF).format(mass=mass, z=z))
    out = tmp_path / "out.usda"
    convert_file(source, out)
    return out


@pytest.mark.parametrize("kind", ["urdf", "sdf"])
@pytest.mark.parametrize("mass, z, lines", [("1e39", "1", {"urdf": 2, "sdf": 3}), ("1", "-4e38", {"urdf": 4, "sdf": 4})])
def test_a_value_beyond_float32_is_refused_with_its_line(tmp_path, kind, mass, z, lines):
    with pytest.raises(InputError, match="beyond the range of the 32-bit floats") as refused:
        _convert(tmp_path, kind, mass, z)
    where = str(refused.value)
    assert f"robot.{kind}:{lines[kind]}:" in where, where
    assert not (tmp_path / "out.usda").exists()


@pytest.mark.parametrize("kind", ["urdf", "sdf"])
def test_a_mass_below_the_smallest_float32_is_refused(tmp_path, kind):
    with pytest.raises(InputError, match="below the smallest 32-bit float"):
        _convert(tmp_path, kind, mass="1e-46")


@pytest.mark.parametrize("kind", ["urdf", "sdf"])
def test_the_largest_float32_values_are_written_finite(tmp_path, kind):
    stage = Usd.Stage.Open(str(_convert(tmp_path, kind, mass="3e38", z="3e38")))
    masses = [UsdPhysics.MassAPI(p).GetMassAttr().Get() for p in stage.Traverse() if p.HasAPI(UsdPhysics.MassAPI)]
    assert masses and all(math.isfinite(m) for m in masses) and max(masses) == pytest.approx(3e38, rel=1e-6)
