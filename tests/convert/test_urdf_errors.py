"""Bad URDFs: each raises InputError naming file:line and leaves no output file behind.

Oracle: the URDF specification (and urdfdom, which rejects the same files); the expected line is
the line of the offending element in the literal text below.
"""
from __future__ import annotations

import pytest

from usdjoints.convert import convert_urdf
from usdjoints.errors import InputError

LINK = '<link name="{0}"><inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>'


def _robot(*body: str) -> str:
    return "\n".join(['<robot name="r">', LINK.format("a"), LINK.format("b"), *body, "</robot>"])


REVOLUTE = '<joint name="j" type="revolute"><parent link="a"/><child link="b"/>{0}<limit lower="-1" upper="1" effort="1" velocity="1"/></joint>'

CASES = {
    # name: (text, line of the offending element, words the message must contain)
    "not_xml": ("<robot name='r'>\n<link name='a'>\n</robot>", 3, "XML"),
    "no_robot": ('<model name="m">\n<link name="a"/>\n</model>', 1, "<robot>"),
    "unknown_link": (_robot('<joint name="j" type="fixed"><parent link="a"/><child link="c"/></joint>'), 4, "'c'"),
    "two_roots": (_robot(LINK.format("c"), '<joint name="j" type="fixed"><parent link="a"/><child link="b"/></joint>'),
                  4, "root"),
    "cycle": (_robot(LINK.format("c"),
                     '<joint name="j1" type="fixed"><parent link="b"/><child link="c"/></joint>',
                     '<joint name="j2" type="fixed"><parent link="c"/><child link="b"/></joint>'), 5, "cycle"),
    "cycle_without_root": (_robot('<joint name="j1" type="fixed"><parent link="a"/><child link="b"/></joint>',
                                  '<joint name="j2" type="fixed"><parent link="b"/><child link="a"/></joint>'),
                           4, "cycle"),
    "zero_axis": (_robot(REVOLUTE.format('<axis xyz="0 0 0"/>')), 4, "zero axis"),
    "nan_origin": (_robot('<joint name="j" type="fixed"><parent link="a"/><child link="b"/>\n'
                          '<origin xyz="0 nan 0"/></joint>'), 5, "finite"),
    "negative_mass": ('<robot name="r">\n<link name="a"><inertial>\n<mass value="-2"/></inertial></link>\n</robot>',
                      3, "negative mass"),
    "unknown_type": (_robot('<joint name="j" type="hinge"><parent link="a"/><child link="b"/></joint>'), 4, "hinge"),
    "missing_parent_link": (_robot('<joint name="j" type="fixed">\n<parent/><child link="b"/></joint>'), 5,
                            "<parent> needs the attribute 'link'"),
    # urdfdom reads each number with an istringstream in the classic locale (ASCII digits only, the
    # whole token) and splits a vector at ' ' only; Python's float reads the first as 1, its split
    # splits the second at the no-break space
    "arabic_indic_digit": ('<robot name="r">\n<link name="a"><inertial>\n<mass value="&#x661;"/></inertial></link>\n'
                           '</robot>', 3, "needs 1 number"),
    "no_break_space": (_robot('<joint name="j" type="fixed"><parent link="a"/><child link="b"/>\n'
                              '<origin xyz="0&#xa0;0 1"/></joint>'), 5, "needs 3 numbers"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_urdf_is_an_input_error_at_its_line(tmp_path, case):
    """Each malformed file fails with file:line and no output (the write goes through a rename)."""
    text, line, words = CASES[case]
    source = tmp_path / f"{case}.urdf"
    source.write_text(text)
    output = tmp_path / "out.usda"
    with pytest.raises(InputError) as caught:
        convert_urdf(source, output)
    assert caught.value.where == f"{source}:{line}", str(caught.value)
    assert words in str(caught.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == [source.name]


def test_missing_input_file(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        convert_urdf(tmp_path / "absent.urdf", tmp_path / "out.usda")
