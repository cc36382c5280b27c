"""SDFormat files whose XML libsdformat reads and XML parsers reject: read as libsdformat reads them.

Oracle: libsdformat 12.3 (Debian's libsdformat-dev, through ``shared/tools/sdfref``) on the same
bytes. It loaded every ACCEPTED file with no error and placed link ``l`` of model ``z`` at
``z``'s pose (0 1 0, yaw 0.5) times (1 2 3) (gz-sim's test/worlds/reset_detachable_joint.sdf
begins with a declaration that lost its '<'); it refused every REFUSED file ("Unable to read file",
tinyxml2's XML_ERROR_PARSING_DECLARATION or XML_ERROR_PARSING_TEXT); the line given is where
usdjoints reports the first thing wrong (for text before the declaration, the text).
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import usdjoints  # noqa: F401  (registers the PhysX schemas)
from usdjoints.cli import main
from usdjoints.convert import convert_sdformat

from pxr import Usd, UsdGeom  # noqa: E402

MODEL = '<model name="z"><pose>0 1 0 0 0 0.5</pose><link name="l"><pose>1 2 3 0 0 0</pose></link></model>'
DECLARATION = '<?xml version="1.0"?>\n'
SDF = f'<sdf version="1.6"><world name="w">{MODEL}</world></sdf>\n'
PLUGIN = '<plugin name="p" filename="libp.so"><gz::system_priority>1</gz::system_priority></plugin>'

# name: (bytes, words of the one warning)
ACCEPTED = {
    "comment_with_double_hyphen": (DECLARATION + SDF.replace("<world", "<!-- a -- b --><world"), "holding '--'"),
    "comment_ending_in_a_hyphen": (DECLARATION + SDF.replace("<world", "<!-- a ---><world"), "holding '--'"),
    "blank_line_before_the_declaration": ("\n  " + DECLARATION + SDF, "comes before it"),
    "two_declarations": (DECLARATION + DECLARATION + SDF, "2 declarations"),
    "name_with_double_colon": (DECLARATION + SDF.replace("</world>", PLUGIN + "</world>"),
                               "QName 'gz::system_priority'"),
    "stray_ampersand": (DECLARATION + SDF.replace('name="w"', 'name="w&v"'), "'&'"),
    "second_root_element": (DECLARATION + SDF + '<sdf version="1.6"/>\n', "after the root element"),
    "text_before_the_root": ("junk text\n" + SDF, "before the first element"),
    "declaration_without_its_lt": ('?xml version="1.0"?>\n' + SDF, "before the first element"),
    "text_then_a_comment_after_the_root": (DECLARATION + SDF + "junk\n<!-- c -->\n", "after the root"),
}
# name: (bytes, line of the error)
REFUSED = {
    "comment_before_the_declaration": ("<!-- c -->\n" + DECLARATION + SDF, 2),
    "text_after_the_root_element": (DECLARATION + SDF + "xyz\n", 3),
    "text_before_the_declaration": ("junk\n" + DECLARATION + SDF, 1),
}


def _libsdformat_link_position() -> np.ndarray:
    c, s = math.cos(0.5), math.sin(0.5)
    return np.array([c * 1 - s * 2, s * 1 + c * 2 + 1, 3])


@pytest.mark.parametrize("case", sorted(ACCEPTED))
def test_files_libsdformat_loads_convert_with_its_link_pose(tmp_path, case):
    data, words = ACCEPTED[case]
    source = tmp_path / f"{case}.sdf"
    source.write_bytes(data.encode())
    report = convert_sdformat(source, tmp_path / "out.usda")
    (warning,) = report.warnings
    assert words in warning.message and warning.where.startswith(f"{source}:"), warning
    stage = Usd.Stage.Open(str(tmp_path / "out.usda"))
    (link,) = [p for p in stage.Traverse() if p.GetMetadata("displayName") == "z::l"]
    position = np.array(UsdGeom.XformCache().GetLocalToWorldTransform(link).ExtractTranslation())
    assert np.allclose(position, _libsdformat_link_position(), atol=1e-9)


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_files_libsdformat_refuses_exit_2_at_their_line(tmp_path, capsys, case):
    data, line = REFUSED[case]
    source = tmp_path / f"{case}.sdf"
    source.write_bytes(data.encode())
    assert main(["convert", str(source), "-o", str(tmp_path / "out.usda")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"{source}:{line}:" in err[0], err
    assert not (tmp_path / "out.usda").exists()
