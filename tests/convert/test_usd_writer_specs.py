"""The writer's Sdf authoring (usd_writer_specs) gives the layer its Usd API authoring gives.

Oracle: OpenUSD's Usd API. Each robot is written twice: as the converter writes it (links and
joints of the common kinds as Sdf specs) and with every prim authored through UsdGeom /
UsdPhysics on the working stage (the writer's other path, forced here). The two layers must
export the same text, list the same specs with the same fields and properties in the same order,
and the two reports must be the same.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from usdjoints.convert import usd_writer
from usdjoints.convert.api import read_robot
from usdjoints.convert.report import Notes
from usdjoints.errors import InputError

DATA = Path(__file__).resolve().parent.parent / "data"

# Every kind the Sdf path writes, and its rarer values: kinematic and gravity-free bodies, a
# massless link (the stand-in and its custom data), a static model link (no rigid body), names
# that are not USD identifiers (display names), box/sphere/cylinder/capsule shapes with and
# without origins, ball, continuous, prismatic and fixed joints, a joint to the world, a closed
# loop (excludeFromArticulation), springs, damping and friction, a zero effort, unlimited
# velocity, an initial position and missing limits.
FEATURES_SDF = """<?xml version="1.0"?>
<sdf version="1.9">
  <model name="features">
    <link name="base">
      <pose>0 0 0.5 0 0 0.3</pose>
      <inertial><mass>2</mass><pose>0.1 0 0 0.2 0.1 0</pose>
        <inertia><ixx>0.1</ixx><iyy>0.2</iyy><izz>0.25</izz><ixy>0.01</ixy><ixz>0</ixz><iyz>-0.0</iyz></inertia>
      </inertial>
      <collision name="c"><pose>0 0 0.1 0 0 0</pose><geometry><box><size>0.2 0.3 0.4</size></box></geometry></collision>
      <visual name="v"><geometry><sphere><radius>0.1</radius></sphere></geometry></visual>
    </link>
    <link name="arm link">
      <pose>0.5 0 0.5 0 0 0</pose>
      <kinematic>true</kinematic>
      <collision name="cyl"><geometry><cylinder><radius>0.05</radius><length>0.4</length></cylinder></geometry></collision>
      <collision name="cap"><pose>0 0.1 0 1.57 0 0</pose><geometry><capsule><radius>0.02</radius><length>0.1</length></capsule></geometry></collision>
    </link>
    <link name="floater">
      <pose>1 0 0.5 0 0 0</pose>
      <gravity>false</gravity>
      <velocity_decay><linear>0.1</linear><angular>0.2</angular></velocity_decay>
      <inertial><mass>0.5</mass><inertia><ixx>0.01</ixx><iyy>0.01</iyy><izz>0.01</izz></inertia></inertial>
      <visual name="v"><geometry><box><size>1 1 1</size></box></geometry></visual>
    </link>
    <link name="slider"><pose>1.5 0 0.5 0 0 0</pose>
      <inertial><mass>0.3</mass><inertia><ixx>0.01</ixx><iyy>0.02</iyy><izz>0.03</izz></inertia></inertial>
    </link>
    <link name="tip"><pose>2 0 0.5 0 0 0</pose>
      <inertial><mass>0.2</mass><inertia><ixx>0.01</ixx><iyy>0.01</iyy><izz>0.01</izz></inertia></inertial>
    </link>
    <joint name="anchor" type="fixed"><parent>world</parent><child>base</child></joint>
    <joint name="shoulder" type="revolute"><parent>base</parent><child>arm link</child>
      <pose>0 0 0.1 0 0 0</pose>
      <axis><xyz>0 1 1</xyz><limit><lower>-1</lower><upper>2</upper><effort>0</effort><velocity>-1</velocity></limit>
        <dynamics><damping>0.5</damping><friction>0.2</friction></dynamics><initial_position>0.3</initial_position></axis>
    </joint>
    <joint name="elbow" type="continuous"><parent>arm link</parent><child>floater</child>
      <axis><xyz>-1 0 0</xyz><limit><effort>5</effort><velocity>2</velocity></limit></axis></joint>
    <joint name="slide-1" type="prismatic"><parent>floater</parent><child>slider</child>
      <axis><xyz>1 0 0</xyz><limit><effort>3</effort></limit>
        <dynamics><spring_stiffness>10</spring_stiffness><spring_reference>0.1</spring_reference></dynamics></axis></joint>
    <joint name="wrist" type="ball"><parent>slider</parent><child>tip</child></joint>
    <joint name="loop" type="revolute"><parent>tip</parent><child>base</child>
      <axis><xyz>0 0 1</xyz><limit><lower>0</lower><upper>0.5</upper></limit></axis></joint>
  </model>
</sdf>
"""

FEATURES_URDF = """<?xml version="1.0"?>
<robot name="urdf features">
  <link name="world"/>
  <link name="base"><inertial><origin xyz="0 0 0.1" rpy="0.1 0.2 0.3"/><mass value="1"/>
    <inertia ixx="0.1" ixy="0.0" ixz="0.0" iyy="0.1" iyz="0.0" izz="0.1"/></inertial>
    <collision><origin xyz="0 0 0.1"/><geometry><cylinder radius="0.1" length="0.2"/></geometry></collision></link>
  <link name="massless"><visual><geometry><sphere radius="0.05"/></geometry></visual></link>
  <link name="zero mass"><inertial><mass value="0"/><inertia ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" izz="0"/></inertial></link>
  <link name="free"><inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>
  <joint name="fix" type="fixed"><parent link="world"/><child link="base"/></joint>
  <joint name="rev" type="revolute"><parent link="base"/><child link="massless"/><origin xyz="0 0 0.3" rpy="0 0 1"/>
    <axis xyz="0 0 -1"/><limit lower="-1" upper="1" effort="2" velocity="3"/><dynamics damping="0.1" friction="0.05"/></joint>
  <joint name="cont" type="continuous"><parent link="massless"/><child link="zero mass"/><axis xyz="1 0 0"/></joint>
  <joint name="pris" type="prismatic"><parent link="zero mass"/><child link="free"/><axis xyz="0 1 0"/>
    <limit lower="0" upper="0.2" effort="0" velocity="0"/></joint>
</robot>
"""


def _usd_api_only(monkeypatch) -> None:
    """Every link and joint through the Usd API path of the writer."""
    monkeypatch.setattr(usd_writer, "_specs_writable", lambda link: False)
    monkeypatch.setattr(usd_writer, "specs_writable", lambda joint: False)


def _specs(layer) -> list:
    found = [("/", layer.pseudoRoot.ListInfoKeys())]

    def visit(spec):
        found.append((str(spec.path), spec.ListInfoKeys(), [p.name for p in spec.properties]))
        for prop in spec.properties:
            found.append((str(prop.path), prop.ListInfoKeys()))
        for child in spec.nameChildren:
            visit(child)

    for child in layer.pseudoRoot.nameChildren:
        visit(child)
    return found


def _written(robot, floating_base=None):
    notes = Notes(robot.notes)
    layer, fields = usd_writer.build_layer(robot, floating_base, notes)
    return layer.ExportToString(), _specs(layer), fields, [str(e) for e in notes.entries]


def _inputs(tmp_path: Path) -> list[Path]:
    (tmp_path / "features.sdf").write_text(FEATURES_SDF)
    (tmp_path / "features.urdf").write_text(FEATURES_URDF)
    corpus = ["drake__iiwa14_primitive_collision.urdf", "drake_repo__cassie_v2.urdf", "oems__fr3.urdf",
              "robotics_toolbox__pr2.urdf", "ros_industrial__ur5e.urdf"]
    return [tmp_path / "features.sdf", tmp_path / "features.urdf",
            *sorted((DATA / "urdf").glob("*.urdf")), *sorted((DATA / "sdf").glob("*.sdf")),
            *(DATA / "urdf_corpus" / name for name in corpus)]


def test_sdf_specs_are_the_usd_api_layer(tmp_path, monkeypatch):
    compared = sdf_prims = 0
    for path in _inputs(tmp_path):
        try:
            robot = read_robot(path)
        except InputError:
            continue  # a file of the error tests
        sdf_prims += sum(usd_writer._specs_writable(link) for link in robot.links)
        sdf_prims += sum(usd_writer.specs_writable(joint) for joint in robot.joints)
        for floating_base in (None, True, False):
            with monkeypatch.context() as patch:
                try:
                    fast = _written(robot, floating_base)
                except InputError as error:
                    fast = str(error)
                _usd_api_only(patch)
                try:
                    usd = _written(robot, floating_base)
                except InputError as error:
                    usd = str(error)
            assert fast == usd, f"{path.name} floating_base={floating_base}"
            compared += 1
    assert compared >= 60 and sdf_prims >= 300, (compared, sdf_prims)  # the Sdf path was used


@pytest.mark.parametrize("text", [FEATURES_SDF, FEATURES_URDF], ids=["sdf", "urdf"])
def test_features_take_the_sdf_path(tmp_path, text):
    """Every link and joint of the feature robots goes through the Sdf path (else the comparison
    above would compare the Usd path with itself for those features)."""
    path = tmp_path / ("f.sdf" if text is FEATURES_SDF else "f.urdf")
    path.write_text(text)
    robot = read_robot(path)
    assert all(usd_writer._specs_writable(link) for link in robot.links)
    assert all(usd_writer.specs_writable(joint) for joint in robot.joints)
