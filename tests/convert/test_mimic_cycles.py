"""Mimic joints whose leaders lead back to themselves are refused, with the file and line of the
mimic that closes the cycle: no joint of such a cycle moves on its own, so no consumer has a
reference to follow (a chain of mimics that ends at an independent joint converts)."""
from __future__ import annotations

import pytest

from usdjoints.convert.api import convert_file, convert_sdformat, convert_urdf
from usdjoints.errors import InputError

LINK = '<link name="{0}"><inertial><mass value="1"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial></link>'


def _urdf(tmp_path, mimics: dict) -> str:
    links = "".join(LINK.format(n) for n in "abcd")
    joints = ""
    for i, (parent, child) in enumerate(zip("abc", "bcd"), start=1):
        mimic = f'<mimic joint="{mimics[f"j{i}"]}" multiplier="2"/>' if f"j{i}" in mimics else ""
        joints += (f'\n<joint name="j{i}" type="revolute"><parent link="{parent}"/><child link="{child}"/>'
                   f'<axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/>{mimic}</joint>')
    path = tmp_path / "robot.urdf"
    path.write_text(f'<robot name="r">\n{links}{joints}\n</robot>\n')
    return str(path)


@pytest.mark.parametrize("mimics, line, cycle", [
    ({"j1": "j2", "j2": "j1"}, 3, "'j1' mimics 'j2' mimics 'j1'"),
    ({"j2": "j2"}, 4, "'j2' mimics 'j2'"),
    ({"j1": "j2", "j2": "j3", "j3": "j1"}, 3, "'j1' mimics 'j2' mimics 'j3' mimics 'j1'")])
@pytest.mark.parametrize("convert", [convert_file, convert_urdf])
def test_a_cycle_of_mimics_is_refused(tmp_path, mimics, line, cycle, convert):
    """convert_urdf refuses what convert_file (and the command line) refuse."""
    with pytest.raises(InputError, match="mimic joints form a cycle") as refused:
        convert(_urdf(tmp_path, mimics), tmp_path / "out.usda")
    assert f"robot.urdf:{line}:" in str(refused.value) and cycle in str(refused.value)
    assert not (tmp_path / "out.usda").exists()


def test_a_chain_of_mimics_converts(tmp_path):
    convert_file(_urdf(tmp_path, {"j2": "j1", "j3": "j2"}), tmp_path / "out.usda")
    assert (tmp_path / "out.usda").exists()


@pytest.mark.parametrize("convert", [convert_file, convert_sdformat])
def test_an_sdformat_cycle_is_refused(tmp_path, convert):
    path = tmp_path / "m.sdf"
    path.write_text('<?xml version="1.0"?>\n<sdf version="1.11"><model name="m">\n'
                    '<link name="a"/><link name="b"/><link name="c"/>\n'
                    '<joint name="j1" type="revolute"><parent>a</parent><child>b</child><axis><xyz>0 0 1</xyz>'
                    '<mimic joint="j2"><multiplier>2</multiplier></mimic></axis></joint>\n'
                    '<joint name="j2" type="revolute"><parent>b</parent><child>c</child><axis><xyz>0 0 1</xyz>'
                    '<mimic joint="j1"><multiplier>1</multiplier></mimic></axis></joint>\n</model></sdf>\n')
    with pytest.raises(InputError, match=r"m\.sdf:4: mimic joints form a cycle"):
        convert(path, tmp_path / "out.usda")
    assert not (tmp_path / "out.usda").exists()
