"""Models that include a model twice, nested: the includes to expand double at every level.

Oracle: closed form. Files m0 .. mL, each model mi holding one link and including m(i+1) twice
(mL only its link), expand 2 + 4 + ... + 2^L = 2^(L+1) - 2 includes into 2^(L+1) - 1 links; as
libsdformat does, each include reads and builds its file again. 30 levels (31 small files) would
expand 2^31 - 2 includes: the conversion ran for ever. Past MAX_INCLUDES it is refused in one line
naming the include, well inside the time limit.
"""
from __future__ import annotations

import subprocess
import sys

import pytest

import usdjoints  # noqa: F401  (registers the PhysX schemas before any stage is opened)
from usdjoints.convert import convert_sdformat
from usdjoints.convert.sdformat import scope
from usdjoints.errors import InputError

from pxr import Usd, UsdPhysics  # noqa: E402

HANG_LIMIT = 60  # s: the refusal takes a few seconds; the expansion, for ever


def doubling_files(folder, levels: int):
    for i in range(levels + 1):
        includes = "".join(f"<include><uri>m{i + 1}.sdf</uri><name>{side}</name></include>"
                           for side in ("a", "b")) if i < levels else ""
        (folder / f"m{i}.sdf").write_text(f'<?xml version="1.0"?>\n<sdf version="1.9"><model name="m{i}">\n'
                                          f'<link name="l"><inertial><mass>1</mass></inertial></link>\n'
                                          f"{includes}\n</model></sdf>\n")
    return folder / "m0.sdf"


def test_each_include_is_expanded_each_time(tmp_path, monkeypatch):
    monkeypatch.setattr(scope, "MAX_INCLUDES", 2 ** 6 - 2)  # exactly the includes of 5 levels
    convert_sdformat(doubling_files(tmp_path, 5), tmp_path / "five.usda")
    stage = Usd.Stage.Open(str(tmp_path / "five.usda"))
    links = [p for p in stage.Traverse() if p.HasAPI(UsdPhysics.RigidBodyAPI)]
    assert len(links) == 2 ** 6 - 1


def test_one_include_past_the_limit_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(scope, "MAX_INCLUDES", 2 ** 7 - 3)  # one short of the includes of 6 levels
    with pytest.raises(InputError) as error:
        convert_sdformat(doubling_files(tmp_path, 6), tmp_path / "six.usda")
    assert f"more than {2 ** 7 - 3} includes to expand" in error.value.message
    assert not (tmp_path / "six.usda").exists()


def test_thirty_doubling_levels_are_refused_at_once(tmp_path):
    source = doubling_files(tmp_path, 30)
    result = subprocess.run([sys.executable, "-m", "usdjoints", "convert", str(source), "-o",
                             str(tmp_path / "out.usda")], capture_output=True, text=True, timeout=HANG_LIMIT)
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2 and len(lines) == 1 and "Traceback" not in result.stderr, result
    assert f"more than {scope.MAX_INCLUDES:,} includes to expand" in lines[0]
    assert not (tmp_path / "out.usda").exists()
