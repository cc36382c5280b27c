"""read_sdformat: RobotIR contents for the corpus files and for hand-written fixtures.

Oracles: libsdformat 12's resolved poses (the reference dumps in tests/data/sdf), composed along
the nested models it reports; identities between equivalent files (a merged include and a plain
include place every link identically); closed forms for the screw pitch conversion.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from usdjoints.convert.ir import JointType
from usdjoints.convert.report import EntryKind
from usdjoints.convert.sdformat import read_sdformat
from usdjoints.convert.sdformat.pose import Pose
from usdjoints.errors import InputError

DATA = Path(__file__).resolve().parents[2] / "data"
CORPUS = DATA / "sdf"
FIXTURES = DATA / "sdf_fixtures"
#: poses composed through up to four nested models from 12-digit prints: 1e-9 m covers the rounding.
TOL = 1e-9


def _reference(name: str) -> list[dict]:
    text = (CORPUS / f"sdformat_test_sdf_{name}.jsonl").read_text()
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _pose(values) -> Pose:
    q = values[3:]
    norm = math.sqrt(sum(c * c for c in q))
    return Pose(tuple(values[:3]), tuple(c / norm for c in q))


def _close(a, b: Pose) -> bool:
    dot = sum(x * y for x, y in zip(a.orientation, b.orientation))
    sign = 1.0 if dot >= 0 else -1.0
    return (max(abs(x - y) for x, y in zip(a.position, b.position)) < TOL
            and max(abs(sign * x - y) for x, y in zip(a.orientation, b.orientation)) < TOL)


def _model_frames(records: list[dict]) -> dict[str, Pose]:
    """X_root_model for every (nested) model name, from the reference's nested_model_pose chain."""
    frames: dict[str, Pose] = {}
    for r in records:
        if r["kind"] == "model" and "::" not in r["name"] and r["name"] not in frames:
            frames[r["name"]] = Pose()
        elif r["kind"] == "world_model_pose":
            frames[r["name"]] = _pose(r["pose_in_world"])
        elif r["kind"] == "nested_model_pose":
            frames[f"{r['model']}::{r['name']}"] = frames[r["model"]].compose(_pose(r["pose_in_model"]))
    return frames


ACCEPTED = [p.stem for p in sorted(CORPUS.glob("*.sdf")) if _reference(p.name)[0]["errors"] == 0]


@pytest.mark.parametrize("name", ACCEPTED)
def test_link_and_joint_frames_match_libsdformat(name: str):
    """Link poses, joint frames (from both sides) and axes in the IR equal libsdformat's."""
    records = _reference(f"{name}.sdf")
    robot = read_sdformat(CORPUS / f"{name}.sdf", resource_paths=[CORPUS / "models"])
    frames = _model_frames(records)
    is_world = any(r["kind"] == "world" for r in records)
    top = next((r["name"] for r in records if r["kind"] == "model"), None)

    def scoped(model: str, name: str) -> str:
        return name if (not is_world and model == top) else f"{model.split('::', 1)[1]}::{name}" if not is_world else f"{model}::{name}"

    links = {l.name: l for l in robot.links}
    joints = {j.name: j for j in robot.joints}
    checked = 0
    for r in records:
        if r["kind"] == "link":
            expected = frames[r["model"]].compose(_pose(r["pose_in_model"]))
            assert _close(_ir(links[scoped(r["model"], r["name"])].pose), expected), (name, r["name"])
            checked += 1
        elif r["kind"] == "joint" and r.get("err", 0) == 0:
            joint = joints[scoped(r["model"], r["name"])]
            X_root_joint = frames[r["model"]].compose(_pose(r["pose_in_model"]))
            parent = links.get(joint.parent)
            if parent is not None and parent.pose is not None:
                assert _close(_ir(parent.pose).compose(_ir(joint.pose_in_parent)), X_root_joint), (name, r["name"])
            child = _ir(links[joint.child].pose)
            assert _close(child.compose(_ir(joint.pose_in_child)), X_root_joint), (name, r["name"])
            for index, axis in enumerate(joint.axes):
                if f"axis{index}" not in r:
                    continue  # an unwritten axis libsdformat leaves out; ours is the spec direction
                reference = frames[r["model"]].rotate(tuple(r[f"axis{index}"]["xyz_in_model"]))
                ours = X_root_joint.rotate(axis.xyz)
                assert max(abs(a - b) for a, b in zip(ours, reference)) < TOL, (name, r["name"], index)
            checked += 1
    assert checked > 0


def _ir(pose) -> Pose:
    return Pose(tuple(pose.position), tuple(pose.orientation))


def test_joint_types_and_counts():
    """joint_complete.sdf holds one joint of each of the nine types, with the axis counts SDFormat gives them."""
    robot = read_sdformat(CORPUS / "joint_complete.sdf")
    kinds = {j.name: (j.type, len(j.axes)) for j in robot.joints}
    assert kinds == {
        "revolute_joint": (JointType.REVOLUTE, 1), "ball_joint": (JointType.BALL, 0),
        "continuous_joint": (JointType.CONTINUOUS, 1), "fixed_joint": (JointType.FIXED, 0),
        "gearbox_joint": (JointType.GEARBOX, 1), "prismatic_joint": (JointType.PRISMATIC, 1),
        "revolute2_joint": (JointType.REVOLUTE2, 2), "screw_joint": (JointType.SCREW, 1),
        "universal_joint": (JointType.UNIVERSAL, 2),
    }
    revolute = robot.joint("revolute_joint").axes[0]
    assert (revolute.lower, revolute.upper, revolute.effort, revolute.velocity) == (-0.5, 0.5, 123.4, 12.0)
    assert (revolute.damping, revolute.friction, revolute.spring_reference, revolute.spring_stiffness) == (0.1, 0.2, 1.3, 10.6)


def test_screw_pitch_conversion():
    """Closed form: screw_thread_pitch [m/rev] / 2π, else -1/thread_pitch [rad/m], else 1 m/rev."""
    robot = read_sdformat(CORPUS / "joint_screw_thread_pitch.sdf")
    pitch = {j.name: j.thread_pitch for j in robot.joints}
    assert pitch["default_param"] == pytest.approx(1.0 / (2 * math.pi), abs=1e-15)
    for name in ("both_params", "new_param", "param_precedence"):
        assert pitch[name] == pytest.approx(0.5 / (2 * math.pi), abs=1e-15)
    # 12.566 is 4π rounded to 3 decimals, hence the 1e-5 tolerance
    assert pitch["old_param"] == pytest.approx(0.5 / (2 * math.pi), abs=1e-5)


def test_world_with_several_models_and_include_through_resource_path():
    """Closed form: the table is yawed 90° at x=2; each arm sits 0.5 m to its side, 0.8 m up."""
    robot = read_sdformat(FIXTURES / "world_models" / "two_models.sdf", resource_paths=[FIXTURES / "elsewhere"])
    poses = {l.name: l.pose.position for l in robot.links}
    assert poses["left_arm::base"] == pytest.approx((1.5, 0.0, 0.8), abs=1e-12)
    assert poses["right_arm::upper"] == pytest.approx((2.5, 0.0, 1.8), abs=1e-12)
    assert robot.link("table::top").custom_data["sdformat:static"] is True
    assert {j.name for j in robot.joints} == {"left_arm::shoulder", "right_arm::shoulder", "bolt_left", "bolt_right"}
    shoulder = robot.joint("left_arm::shoulder")
    # the include picks arm.sdf (1.11), the newest supported version in model.config
    assert shoulder.axes[0].effort == 30.0 and shoulder.axes[0].damping == 0.5
    assert robot.link("left_arm::upper").inertial.mass == 1.5


def test_include_found_through_environment(monkeypatch):
    """GZ_SIM_RESOURCE_PATH is searched like --resource-path (identity with the previous test)."""
    monkeypatch.setenv("GZ_SIM_RESOURCE_PATH", str(FIXTURES / "elsewhere"))
    robot = read_sdformat(FIXTURES / "world_models" / "two_models.sdf")
    assert robot.link("left_arm::base").pose.position == pytest.approx((1.5, 0.0, 0.8), abs=1e-12)


def test_merged_include_places_links_like_a_plain_include():
    """Identity: merging an include only renames its elements; every pose stays the same."""
    merged = read_sdformat(FIXTURES / "merged.sdf")
    nested = read_sdformat(FIXTURES / "nested.sdf")
    for name in ("base", "upper"):
        assert _close(_ir(merged.link(name).pose), _ir(nested.link(f"arm::{name}").pose))
    assert _close(_ir(merged.joint("mount").pose_in_parent), _ir(nested.joint("mount").pose_in_parent))


BAD = {
    "unknown_version.sdf": ('<sdf version="9.9"><model name="m"><link name="l"/></model></sdf>', 1, "version"),
    "not_xml.sdf": ('<sdf version="1.9">\n<model name="m">\n<link name="l">\n</model></sdf>', 4, "XML"),
    "dangling.sdf": ('<sdf version="1.9">\n<model name="m">\n<link name="l">\n<pose relative_to="nowhere"/></link>\n</model></sdf>', 3, "nowhere"),
    "cycle.sdf": ('<sdf version="1.9">\n<model name="m">\n<link name="l"/>\n<frame name="a" attached_to="b"/>\n<frame name="b" attached_to="a"/>\n</model></sdf>', 4, "cycle"),
    "self.sdf": ('<sdf version="1.9">\n<model name="m">\n<link name="l"/>\n<joint name="j" type="fixed"><parent>l</parent><child>l</child></joint>\n</model></sdf>', 4, "same parent and child"),
    "missing_include.sdf": ('<sdf version="1.9">\n<model name="m">\n<link name="l"/>\n<include><uri>model://no_such_model</uri></include>\n</model></sdf>', 4, "no_such_model"),
    "zero_axis.sdf": ('<sdf version="1.9">\n<model name="m">\n<link name="a"/><link name="b"/>\n<joint name="j" type="revolute"><parent>a</parent><child>b</child>\n<axis><xyz>0 0 0</xyz></axis></joint>\n</model></sdf>', 5, "zero length"),
    "bad_type.sdf": ('<sdf version="1.9">\n<model name="m">\n<link name="a"/><link name="b"/>\n<joint name="j" type="hinge"><parent>a</parent><child>b</child></joint>\n</model></sdf>', 4, "unknown type"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_input_names_file_and_line(tmp_path, name):
    """Each malformed file raises InputError whose location is the offending line."""
    text, line, words = BAD[name]
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(InputError) as info:
        read_sdformat(path)
    assert info.value.where == f"{path}:{line}"
    assert words in str(info.value)


def test_unsupported_and_extras_are_reported_not_dropped():
    """shapes.sdf: the geometry RobotIR cannot hold (cone, ellipsoid, heightmap, polyline) appears in the notes."""
    robot = read_sdformat(CORPUS / "shapes.sdf")
    text = "\n".join(str(n) for n in robot.notes)
    for kind in ("<cone>", "<ellipsoid>", "<heightmap>", "<polyline>"):
        assert kind in text
    kinds = {type(c.geometry).__name__ for c in robot.link("link").collisions if c.geometry is not None}
    assert {"Box", "Capsule", "Cylinder", "Plane", "Sphere", "MeshRef"} <= kinds
    # a collision that loses its shape changes the physics (the link passes through what that
    # shape would touch): a warning each, naming the collision; a visual's is only dropped
    lost = {n.message.split("'")[1] for n in robot.notes
            if n.kind == EntryKind.WARNING and "has no collider for it" in n.message}
    dropped = [c for c in robot.link("link").collisions if c.geometry is None]
    assert lost and len(lost) == len({c.name for c in dropped})
