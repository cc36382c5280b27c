"""Every URDF element and attribute is converted or reported as dropped with its file:line.

Oracle: the list of URDF elements and attributes in tests/data/urdf_spec/elements.txt, taken from
urdfdom's parser and the ROS wiki's URDF pages (see the file's header), not from the converter.
Each element is written alone into a small valid robot and the file is converted: an element the
converter's table calls converted gets no "not converted" entry; one it calls dropped gets exactly
one dropped entry at its line; an unknown element or attribute anywhere is reported at its line.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from lxml import etree

from usdjoints.convert import convert_urdf
from usdjoints.convert.report import EntryKind
from usdjoints.convert.urdf import CONVERTED_ELEMENTS, DROPPED_ELEMENTS

SPEC_FILE = Path(__file__).resolve().parents[1] / "data" / "urdf_spec" / "elements.txt"
ATTRIBUTE = re.compile(r'(\w+)="([^"]*)"')

SKELETON = """<robot name="r">
<link name="base"/><link name="mid"/><link name="tip"/>
<joint name="j" type="revolute"><parent link="base"/><child link="mid"/>
<limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
<joint name="k" type="revolute"><parent link="mid"/><child link="tip"/>
<limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>"""


def _spec() -> dict[str, dict[str, str]]:
    entries = {}
    for line in SPEC_FILE.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            path, _, rest = line.partition(" ")
            entries[path] = dict(ATTRIBUTE.findall(rest))
    return entries


SPEC = _spec()


def _dropped_ancestor(path: str) -> str | None:
    parts = path.split("/")
    for end in range(2, len(parts) + 1):
        if "/".join(parts[:end]) in DROPPED_ELEMENTS:
            return "/".join(parts[:end])
    return None


def _place(root, path: str, attributes: dict[str, str]):
    """The element at ``path`` (the last of its tag at each level, created when absent), attributes set."""
    element = root
    for tag in path.split("/")[1:]:
        found = element.findall(tag)
        element = found[-1] if found else etree.SubElement(element, tag)
    for key, value in attributes.items():
        element.set(key, value)
    return element


def _write(tmp_path: Path, root) -> Path:
    source = tmp_path / "robot.urdf"
    source.write_bytes(etree.tostring(root, pretty_print=True))
    return source


def _line(source: Path, path: str) -> int:
    return _place(etree.parse(str(source)).getroot(), path, {}).sourceline


def test_the_table_covers_the_spec_and_nothing_else():
    for path, attributes in SPEC.items():
        if _dropped_ancestor(path) is None:
            assert path in CONVERTED_ELEMENTS, f"{path} is neither converted nor dropped"
            assert set(attributes) <= CONVERTED_ELEMENTS[path], path
    extensions = {p for p in CONVERTED_ELEMENTS if p.endswith("/capsule")}  # pybullet's, not urdfdom's
    assert set(CONVERTED_ELEMENTS) - extensions <= set(SPEC)
    assert set(DROPPED_ELEMENTS) <= set(SPEC)


@pytest.mark.parametrize("path", sorted(SPEC))
def test_each_element_alone_is_converted_or_reported_at_its_line(tmp_path, path):
    root = etree.fromstring(SKELETON)
    _place(root, path, SPEC[path])
    source = _write(tmp_path, root)
    report = convert_urdf(source, tmp_path / "out.usda")
    dropped = [e for e in report.entries if e.kind is EntryKind.DROPPED and e.message.endswith("not converted")]
    top = _dropped_ancestor(path)
    if top is not None:
        where = f"{source}:{_line(source, top)}"
        tag = top.rsplit("/", 1)[1]
        assert [(e.where, e.element) for e in dropped] == [(where, f"<{tag}>")], report.to_text()
    else:
        assert dropped == [], report.to_text()


@pytest.mark.parametrize("path", sorted(p for p in SPEC if _dropped_ancestor(p) is None))
def test_unknown_attributes_and_children_are_reported_at_their_lines(tmp_path, path):
    root = etree.fromstring(SKELETON)
    element = _place(root, path, {**SPEC[path], "bogus": "1"})
    etree.SubElement(element, "bogus_child")
    source = _write(tmp_path, root)
    report = convert_urdf(source, tmp_path / "out.usda")
    line = _line(source, path)
    child_line = _line(source, f"{path}/bogus_child")
    dropped = {(e.where, e.element) for e in report.entries if e.kind is EntryKind.DROPPED}
    tag = path.rsplit("/", 1)[-1]
    assert (f"{source}:{line}", f"<{tag} bogus='1'>") in dropped, report.to_text()
    assert (f"{source}:{child_line}", "<bogus_child>") in dropped, report.to_text()


ODD_VALUES = ["", "nan", "inf", "abc", "-1", "0", "1e400", "1 2", "  0.5  ", "1,2,3", "0 0 0", "-0"]


@pytest.mark.parametrize("seed", range(4))
def test_spec_elements_in_combination_with_odd_values_never_crash(tmp_path, seed):
    """Property (seeded random draws, 60 files per seed): any subset of the spec's elements, each
    attribute written as in the spec, left out, empty or odd, either converts, with every dropped
    element reported at its line, or fails with one InputError line naming file:line. No other
    exception escapes."""
    import random

    from usdjoints.errors import UsdJointsError

    draw = random.Random(seed)
    paths = sorted(SPEC)
    outcomes = {"converted": 0, "refused": 0}
    for _ in range(60):
        root = etree.fromstring(SKELETON)
        placed = []
        for path in draw.sample(paths, draw.randint(1, 6)):
            attributes = {}
            for key, spec_value in SPEC[path].items():
                choice = draw.choice(["spec", "spec", None, *ODD_VALUES])
                if choice is not None:
                    attributes[key] = spec_value if choice == "spec" else choice
            placed.append(path)
            _place(root, path, attributes)
        source = _write(tmp_path, root)
        try:
            report = convert_urdf(source, tmp_path / "out.usda")
        except UsdJointsError as error:
            text = str(error)
            assert "\n" not in text and re.match(rf"{re.escape(str(source))}:\d+: ", text), text
            outcomes["refused"] += 1
            continue
        outcomes["converted"] += 1
        reread = etree.parse(str(source)).getroot()
        dropped = {e.where for e in report.entries if e.kind is EntryKind.DROPPED}
        for path in placed:
            top = _dropped_ancestor(path)
            if top is not None:
                assert f"{source}:{_place(reread, top, {}).sourceline}" in dropped, report.to_text()
    assert outcomes["converted"] and outcomes["refused"], outcomes  # both branches were exercised
