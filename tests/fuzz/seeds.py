"""Seed inputs for the fuzzer: the repository's own stages and robots, plus small inline robots."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
KINDS = ("urdf", "sdf", "usda", "usdc")


@dataclass(frozen=True)
class Seed:
    kind: str          # urdf, sdf, usda (usdc seeds are usda seeds written as crate)
    name: str
    data: bytes
    resource_dirs: tuple[str, ...] = ()


SMALL_URDF = b"""<?xml version="1.0"?>
<robot name="two">
  <link name="base">
    <inertial><origin xyz="0 0 0" rpy="0 0 0"/><mass value="1"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>
    <collision><geometry><box size="0.1 0.1 0.1"/></geometry></collision>
  </link>
  <link name="arm">
    <inertial><mass value="0.5"/><inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.001"/></inertial>
    <visual><geometry><mesh filename="package://robot/meshes/arm.stl" scale="1 1 1"/></geometry></visual>
  </link>
  <link name="tip"/>
  <joint name="hinge" type="revolute">
    <parent link="base"/><child link="arm"/>
    <origin xyz="0 0 0.1" rpy="0 0 0"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="10" velocity="1"/>
    <dynamics damping="0.1" friction="0"/>
  </joint>
  <joint name="slide" type="prismatic">
    <parent link="arm"/><child link="tip"/>
    <origin xyz="0.2 0 0" rpy="0 1.5707963 0"/><axis xyz="1 0 0"/>
    <limit lower="0" upper="0.1" effort="5" velocity="0.5"/>
    <mimic joint="hinge" multiplier="0.5" offset="0.1"/>
  </joint>
</robot>
"""

SMALL_SDF = b"""<?xml version="1.0"?>
<sdf version="1.9">
  <model name="pendulum">
    <link name="base">
      <pose>0 0 1 0 0 0</pose>
      <inertial><mass>1</mass><inertia><ixx>0.01</ixx><iyy>0.01</iyy><izz>0.01</izz>
        <ixy>0</ixy><ixz>0</ixz><iyz>0</iyz></inertia></inertial>
      <collision name="c"><geometry><sphere><radius>0.1</radius></sphere></geometry></collision>
    </link>
    <link name="bob">
      <pose relative_to="hinge">0 0 -0.5 0 0 0</pose>
      <inertial><mass>0.3</mass></inertial>
      <visual name="v"><geometry><cylinder><radius>0.02</radius><length>0.5</length></cylinder></geometry></visual>
    </link>
    <frame name="f1" attached_to="base"><pose>0 0.1 0 0 0 1.57</pose></frame>
    <joint name="world_fix" type="fixed"><parent>world</parent><child>base</child></joint>
    <joint name="hinge" type="revolute">
      <pose relative_to="base">0 0 0 0 0 0</pose>
      <parent>base</parent><child>bob</child>
      <axis><xyz expressed_in="f1">1 0 0</xyz>
        <limit><lower>-1.57</lower><upper>1.57</upper><effort>10</effort><velocity>3</velocity></limit>
        <dynamics><damping>0.05</damping><friction>0</friction><spring_stiffness>1</spring_stiffness></dynamics>
      </axis>
    </joint>
  </model>
</sdf>
"""


def load_seeds() -> dict[str, list[Seed]]:
    """Every seed by kind (``usdc`` cases are made from the ``usda`` seeds)."""
    seeds: dict[str, list[Seed]] = {"urdf": [Seed("urdf", "small.urdf", SMALL_URDF)],
                                    "sdf": [Seed("sdf", "small.sdf", SMALL_SDF)], "usda": []}
    data = REPO / "tests" / "data"
    for path in sorted((data / "urdf").glob("*.urdf")):
        seeds["urdf"].append(Seed("urdf", path.name, path.read_bytes()))
    sdf_roots = [data / "sdf", data / "sdf_fixtures", data / "sdf_fixtures" / "couplings",
                 data / "sdf_fixtures" / "world_models"]
    models = str(data / "sdf" / "models")
    for root in sdf_roots:
        for path in sorted(root.glob("*.sdf")):
            seeds["sdf"].append(Seed("sdf", path.name, path.read_bytes(), (str(path.parent), models)))
    usd_roots = [REPO / "sample_stages", REPO / "tests" / "data" / "usd"]
    for root in usd_roots:
        for path in sorted(root.rglob("*.usda")):
            text = path.read_bytes()
            if len(text) > 200_000:
                continue
            seeds["usda"].append(Seed("usda", path.name, text, (str(path.parent),)))
    return seeds
