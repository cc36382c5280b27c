"""SDFormat values the fuzzer found crashing the reader: each is now a one-line error or read exactly.

Oracles: the XML 1.0 specification (an encoding error is fatal; Python's UTF-8 decoder gives the
first bad byte's line), the operating system (a path component over NAME_MAX is ENAMETOOLONG, so
no file exists there, as libsdformat's findFile finds none), libsdformat's parameter parsing (one
double per <screw_thread_pitch>; a value it cannot parse fails the load), and closed forms (the
unit direction of (1e308, 1e308, 1e308) and of (1e-200, 1e-200, 1e-200) is (1, 1, 1)/sqrt(3)).
"""
from __future__ import annotations

import math

import pytest

import usdjoints  # noqa: F401  (registers the PhysX schemas before any stage is opened)
from usdjoints.convert import convert_sdformat
from usdjoints.errors import InputError

from pxr import Gf, Usd, UsdPhysics  # noqa: E402

LINK = '<link name="{0}"><inertial><mass>1</mass><inertia><ixx>1</ixx><iyy>1</iyy><izz>1</izz></inertia></inertial></link>'


def _model(body: str, version: str = "1.10") -> bytes:
    return (f'<?xml version="1.0"?>\n<sdf version="{version}">\n<model name="m">\n'
            f'{LINK.format("a")}\n{LINK.format("b")}\n{body}\n</model>\n</sdf>\n').encode()


def _refused(tmp_path, data: bytes) -> str:
    source, out = tmp_path / "m.sdf", tmp_path / "m.usda"
    source.write_bytes(data)
    with pytest.raises(InputError) as caught:
        convert_sdformat(source, out)
    assert not out.exists(), "a refused conversion leaves no output"
    message = str(caught.value)
    assert "\n" not in message and len(message.replace(str(source), "F")) < 200, message
    return message


def test_invalid_utf8_names_the_line_of_the_first_bad_byte(tmp_path):
    data = _model('<joint name="j\xff" type="fixed"><parent>a</parent><child>b</child></joint>'.replace("\xff", "@"))
    data = data.replace(b"@", b"\xc3\x28")  # a lead byte followed by no continuation byte
    bad_line = data[:data.index(b"\xc3\x28")].count(b"\n") + 1
    with pytest.raises(UnicodeDecodeError):
        data.decode("utf-8")
    assert f"m.sdf:{bad_line}: not well-formed XML" in _refused(tmp_path, data)


def test_invalid_utf8_in_model_config_names_the_config(tmp_path):
    model = tmp_path / "arm"
    model.mkdir()
    (model / "model.config").write_bytes(b'<?xml version="1.0"?>\n<model><name>\xff</name><sdf version="1.10">m.sdf</sdf></model>\n')
    message = _refused(tmp_path, _model(f"<include><uri>{model}</uri></include>"))
    assert "model.config:2" in message and "not well-formed XML" in message


def test_include_uri_longer_than_a_file_name_is_not_found(tmp_path):
    uri = "x" * 300
    with pytest.raises(OSError) as too_long:
        (tmp_path / uri).stat()
    assert too_long.value.strerror == "File name too long"
    message = _refused(tmp_path, _model(f"<include><uri>{uri}</uri></include>"))
    assert "m.sdf:6: cannot find include uri 'xxx" in message and "File name too long" in message


@pytest.mark.parametrize("pitch", ["0.25 0.25", "a quarter", "nan", "inf"])
def test_screw_pitch_that_is_not_one_finite_number_is_refused(tmp_path, pitch):
    joint = (f'<joint name="s" type="screw"><parent>a</parent><child>b</child>'
             f'<screw_thread_pitch>{pitch}</screw_thread_pitch><axis><xyz>0 0 1</xyz></axis></joint>')
    message = _refused(tmp_path, _model(joint))
    assert "m.sdf:6: <screw_thread_pitch>" in message


@pytest.mark.parametrize("tag, value", [("iyy", "-inf"), ("ixy", "nan"), ("mass", "inf")])
def test_non_finite_mass_or_inertia_is_refused(tmp_path, tag, value):
    link = LINK.format("c").replace(f"<{tag}>1</{tag}>", f"<{tag}>{value}</{tag}>")
    if f"<{tag}>" not in link:
        link = link.replace("</inertia>", f"<{tag}>{value}</{tag}></inertia>")
    message = _refused(tmp_path, _model(link))
    assert f"m.sdf:6: <{tag}> holds '{value}', which is not finite" in message


def test_negative_mass_is_refused(tmp_path):
    """libsdformat 12.3 reports a negative <mass> as an invalid inertial (Debian's libsdformat-dev
    on a real file); the URDF reader refuses it as well. It was converted as a stand-in quoted as
    'mass 0', its centre of mass dropped."""
    message = _refused(tmp_path, _model(LINK.format("c").replace("<mass>1</mass>", "<mass>-1</mass>")))
    assert "m.sdf:6:" in message and "negative mass -1" in message


#: (ixx iyy izz ixy ixz iyz, libsdformat 12.3 loads it): each verdict is what Debian's
#: libsdformat-dev said of this inertia in a one-link model ("A link named l has invalid inertia"
#: or no error): gz-math's MassMatrix3::IsValid, whose tolerance is 10 machine epsilons times half
#: the trace. A real file: aws-robomaker-small-house-world's ShoeRack (tests/data/sdf_corpus).
INERTIAS = [
    ("0.02 0.04 1 0 0 0", False),                # izz beyond ixx + iyy (the ShoeRack's)
    ("1 1 2 0 0 0", True),                       # a flat plate: izz = ixx + iyy
    ("1 1 2.000000000000003 0 0 0", True),       # over by less than the tolerance (4.4e-15)
    ("1 1 2.000000000000006 0 0 0", False),      # over by more
    ("1 0 1 0 0 0", True),                       # a thin rod: a zero moment
    ("0 0 0 0 0 0", True),                       # a point mass
    ("-1 1 1 0 0 0", False),                     # a negative moment
    ("1 1 1 2 0 0", False),                      # not positive semi-definite
    ("1 1 1 0.9 0 0", False),                    # moments 0.1 1 1.9
    ("0.5 0.5 0.9 0.4 0 0", True),               # moments 0.1 0.9 0.9
    ("0.5 0.5 1 0.4 0 0", False),                # moments 0.1 0.9 1, rounded by the closed form to just over
    ("0.5 0.5 1 0.4000001 0 0", True),           # ... and to within the tolerance
]


def _inertia_warnings(tmp_path, link) -> list[str]:
    source = tmp_path / "m.sdf"
    source.write_bytes(_model(link))
    report = convert_sdformat(source, tmp_path / "m.usda")
    return [f"{w.where}: {w.message}" for w in report.warnings if "libsdformat refuses" in w.message]


@pytest.mark.parametrize("values, loads", INERTIAS)
def test_inertia_libsdformat_refuses_is_converted_with_its_verdict(tmp_path, values, loads):
    """Converted as given, as a URDF's (example-robot-data's cassie.sdf has two such links), with
    a warning exactly where libsdformat refuses the file."""
    tags = ("ixx", "iyy", "izz", "ixy", "ixz", "iyz")
    inertia = "".join(f"<{t}>{v}</{t}>" for t, v in zip(tags, values.split()))
    link = f'<link name="c"><inertial><mass>1</mass><inertia>{inertia}</inertia></inertial></link>'
    warnings = _inertia_warnings(tmp_path, link)
    if loads:
        assert warnings == []
        return
    (warning,) = warnings
    assert "m.sdf:6: inertia ixx iyy izz ixy ixz iyz = " in warning and "triangle inequality" in warning


def test_missing_diagonal_inertia_entries_count_as_one(tmp_path):
    """libsdformat reads a missing <ixx>, <iyy> or <izz> as 1: izz 3 alone is then 1 1 3, invalid
    (libsdformat 12.3 on this file: invalid inertia), and izz 2 alone a valid plate."""
    link = '<link name="c"><inertial><mass>1</mass><inertia><izz>{0}</izz></inertia></inertial></link>'
    (warning,) = _inertia_warnings(tmp_path, link.format(3))
    assert "= 1.0 1.0 3.0 0.0 0.0 0.0 is not" in warning
    assert _inertia_warnings(tmp_path, link.format(2)) == []


def test_inertia_that_overflows_in_the_link_frame_is_refused(tmp_path):
    link = ('<link name="c"><inertial><pose>0 0 0 0.7 0 0</pose><mass>1</mass><inertia><ixx>1e308</ixx>'
            '<iyy>1e308</iyy><izz>1e308</izz><iyz>1e308</iyz></inertia></inertial></link>')
    # refused as it is read: 1e308 has no 32-bit float (the inertia's frame would overflow too)
    assert "beyond the range of the 32-bit floats" in _refused(tmp_path, _model(link))


@pytest.mark.parametrize("component", ["1e308", "1e-200"])
def test_axis_of_extreme_but_finite_components_is_its_unit_direction(tmp_path, component):
    joint = (f'<joint name="h" type="revolute"><parent>a</parent><child>b</child>'
             f'<axis><xyz>{component} {component} {component}</xyz></axis></joint>')
    source, out = tmp_path / "m.sdf", tmp_path / "m.usda"
    source.write_bytes(_model(joint))
    convert_sdformat(source, out)
    stage = Usd.Stage.Open(str(out))
    hinge = next(UsdPhysics.RevoluteJoint(p) for p in stage.Traverse() if p.IsA(UsdPhysics.RevoluteJoint))
    assert hinge.GetAxisAttr().Get() == "X"
    rotation = Gf.Rotation(Gf.Quatd(hinge.GetLocalRot1Attr().Get()))
    direction = rotation.TransformDir(Gf.Vec3d(1, 0, 0))
    expected = 1.0 / math.sqrt(3.0)
    assert all(abs(c - expected) < 1e-6 for c in direction), direction


@pytest.mark.parametrize("xyz", ["nan 0 1", "inf 0 0"])
def test_axis_that_is_not_finite_is_refused(tmp_path, xyz):
    joint = (f'<joint name="h" type="revolute"><parent>a</parent><child>b</child>'
             f'<axis><xyz>{xyz}</xyz></axis></joint>')
    assert "the axis of joint 'h' is not finite" in _refused(tmp_path, _model(joint))


@pytest.mark.parametrize("normal", ["0 0 0", "nan 0 1"])
def test_plane_normal_that_is_no_direction_is_refused(tmp_path, normal):
    link = (f'<link name="c"><collision name="g"><geometry><plane><normal>{normal}</normal><size>1 1</size>'
            '</plane></geometry></collision></link>')
    assert "m.sdf:6: the plane normal" in _refused(tmp_path, _model(link))


def test_an_include_whose_model_file_is_a_fifo_says_so(tmp_path):
    """An <include> of a folder whose model.sdf is a FIFO: refused at once (nothing blocks on the
    FIFO), naming the file that is not a regular file rather than saying the folder has none."""
    import os
    import subprocess
    import sys

    (tmp_path / "fdir").mkdir()
    os.mkfifo(tmp_path / "fdir" / "model.sdf")
    world = tmp_path / "w.sdf"
    world.write_text('<?xml version="1.0"?>\n<sdf version="1.9"><world name="w"><include><uri>fdir</uri>'
                     '</include></world></sdf>\n')
    result = subprocess.run([sys.executable, "-m", "usdjoints", "convert", str(world), "-o", str(tmp_path / "o.usda")],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert f"{tmp_path / 'fdir' / 'model.sdf'} is not a regular file" in result.stderr.strip()
    assert not (tmp_path / "o.usda").exists()


def test_missing_absolute_model_uri_lists_each_place_searched_once(tmp_path):
    """model:///abs joined to each resource folder is /abs again (an absolute path replaces the
    folder): the message listed '/abs' once per folder plus once more."""
    folders = [tmp_path / f"r{i}" for i in range(3)]
    for folder in folders:
        folder.mkdir()
    missing = tmp_path / "nowhere"
    source = tmp_path / "m.sdf"
    source.write_bytes(_model(f"<include><uri>model://{missing}</uri></include>"))
    with pytest.raises(InputError) as caught:
        convert_sdformat(source, tmp_path / "m.usda", resource_paths=[str(f) for f in folders])
    message = str(caught.value)
    assert "cannot find include uri" in message and message.count(str(missing)) == 2, message  # the uri, one place


@pytest.mark.parametrize("where", ["link", "nested_model", "joint"])
@pytest.mark.parametrize("value", ["nan 0 0 0 0 0", "0 0 0 inf 0 0"])
def test_a_pose_that_is_not_finite_is_refused_at_its_line(tmp_path, where, value):
    """A <pose> holding nan or inf, on a link, a nested model (the fuzzer's case: every link of
    the nested model was written at (nan, nan, nan) and the conversion exited 0) or a joint:
    refused at the pose's line, as every other non-finite number of the file is."""
    pose = f"<pose>{value}</pose>"
    if where == "link":
        body = LINK.format("c").replace("<inertial>", pose + "<inertial>")
    elif where == "nested_model":
        body = f'<model name="inner">{LINK.format("c")}{pose}</model>'
    else:
        body = f'<joint name="j" type="fixed"><parent>a</parent><child>b</child>{pose}</joint>'
    message = _refused(tmp_path, _model(body))
    assert f"m.sdf:6: <pose> holds '{value}', which is not finite" in message


@pytest.mark.parametrize("mu, bounce, words", [
    ("-1", "0", "negative friction -1.0 is written as given"),
    ("0.5", "-0.5", "negative restitution -0.5 is written as given"),
    ("-1", "-0.5", "negative friction -1.0 and restitution -0.5 are written as given"),
])
def test_a_negative_friction_or_restitution_warning_names_only_what_is_negative(tmp_path, mu, bounce, words):
    """gazebo_models' ragdoll has mu -1; the warning named its restitution 0.0 as well."""
    collision = (f'<collision name="c"><geometry><sphere><radius>0.1</radius></sphere></geometry><surface>'
                 f'<friction><ode><mu>{mu}</mu></ode></friction><bounce><restitution_coefficient>{bounce}'
                 f'</restitution_coefficient></bounce></surface></collision>')
    source = tmp_path / "m.sdf"
    source.write_bytes(_model(LINK.format("c").replace("</inertial>", "</inertial>" + collision)))
    report = convert_sdformat(source, tmp_path / "m.usda")
    assert [w.message for w in report.warnings if "negative" in w.message] == [words]


def test_include_named_world_is_refused_at_its_name(tmp_path):
    """libsdformat reserves 'world' as a frame name; the name here is the <include>'s own
    <name> in m.sdf (line 6), not anything in the included model file."""
    (tmp_path / "inner.sdf").write_text('<?xml version="1.0"?>\n<sdf version="1.10"><model name="box">'
                                        f'{LINK.format("base")}</model></sdf>\n')
    message = _refused(tmp_path, _model("<include><uri>inner.sdf</uri>\n<name>world</name></include>"))
    assert "m.sdf:7: the model name 'world' is reserved" in message and "inner.sdf" not in message


def test_include_of_a_file_that_is_not_xml_names_both_places(tmp_path):
    """The XML error is in the included file (its line 1); the message also names the
    <include> that pulled it in (m.sdf:6)."""
    (tmp_path / "notes.txt").write_text("just some text\n")
    message = _refused(tmp_path, _model("<include><uri>notes.txt</uri></include>"))
    assert "notes.txt:1: not well-formed XML" in message and "included at" in message
    assert message.endswith("m.sdf:6)")


def test_include_placement_frame_that_names_no_frame_is_blamed_on_the_include(tmp_path):
    """The placement frame is the <include>'s own element (m.sdf line 7): the message points
    there, not at the included model, which names no such frame only because it was never
    asked to."""
    (tmp_path / "inner.sdf").write_text('<?xml version="1.0"?>\n<sdf version="1.10"><model name="box">'
                                        f'{LINK.format("base")}</model></sdf>\n')
    message = _refused(tmp_path, _model("<include><uri>inner.sdf</uri>\n"
                                        "<placement_frame>nope</placement_frame><pose>0 0 0 0 0 0</pose></include>"))
    assert "m.sdf:7: placement_frame 'nope' names no frame in model 'box'" in message


def test_name_clash_of_a_merged_include_names_the_include(tmp_path):
    """libsdformat refuses a merged include whose link has the name of a link of the model it
    merges into; the message names both links and the <include> (m.sdf:6) that merged one."""
    (tmp_path / "inner.sdf").write_text('<?xml version="1.0"?>\n<sdf version="1.10"><model name="box">\n'
                                        f'{LINK.format("a")}</model></sdf>\n')
    source = tmp_path / "m.sdf"
    source.write_bytes(_model('<include merge="true"><uri>inner.sdf</uri></include>'))
    with pytest.raises(InputError) as caught:
        convert_sdformat(source, tmp_path / "m.usda")
    message = str(caught.value).replace(f"{tmp_path}/", "")
    assert message == ("inner.sdf:3: link name 'a' is already used by the link at m.sdf:4 (sibling links, "
                       "joints, frames and models need unique names; this one is merged by the <include> "
                       "at m.sdf:6)"), message
