"""`usdjoints convert` on SDFormat, run as its own process: the summary counts every report kind
(kept included), the JSON report carries the same counts and matches usdjoints/schemas/convert-1.json,
and each warning is printed once with one ``warning:``.

Oracle: the file below is written to hold exactly three kept elements (a camera sensor, a light, a
plugin) and three warnings (an undeclared namespace prefix, a pre-1.7 joint renamed as libsdformat
renames it, one missing mesh named by a visual and a collision); the JSON entries are tallied here
independently of the report's own counts; jsonschema validates the document.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import Counter

import pytest

from usdjoints.schemas import schema_for

SDF = """<?xml version="1.0"?>
<sdf version="1.6">
<model name="m">
<link name="a">
<visual name="v"><geometry><mesh><uri>missing.stl</uri></mesh></geometry></visual>
<collision name="c"><geometry><mesh><uri>missing.stl</uri></mesh></geometry></collision>
<sensor name="cam" type="camera"><camera><horizontal_fov>1</horizontal_fov></camera></sensor>
<light name="lamp" type="point"><diffuse>1 1 1 1</diffuse></light>
</link>
<link name="b" gz:expressed_in="x"/>
<joint name="b" type="revolute"><parent>a</parent><child>b</child><axis><xyz>0 0 1</xyz></axis></joint>
<plugin name="p" filename="libp.so"/>
</model>
</sdf>
"""
SUMMARY = re.compile(r"^(?P<input>\S+) -> (?P<output>\S+): (?P<bodies>\d+) bodies, (?P<joints>\d+) joints, "
                     r"(fixed|floating) base, (?P<defaults>\d+) spec defaults used, (?P<dropped>\d+) dropped, "
                     r"(?P<kept>\d+) kept, (?P<warnings>\d+) warnings$")


def _convert(*args) -> subprocess.CompletedProcess:
    code = "import sys; from usdjoints.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", code, "convert", *map(str, args)], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("summary")
    source = folder / "robot.sdf"
    source.write_text(SDF)
    text = _convert(source, "-o", folder / "text.usda")
    as_json = _convert(source, "-o", folder / "json.usda", "--report", "json")
    return source, text, as_json


def test_summary_counts_kept_with_the_other_kinds(runs):
    source, text, as_json = runs
    assert text.returncode == 0, text.stderr
    match = SUMMARY.match(text.stdout.strip())
    assert match, text.stdout
    document = json.loads(as_json.stdout)
    tally = Counter(entry["kind"] for entry in document["entries"])
    assert int(match["kept"]) == tally["kept"] == 3
    assert int(match["warnings"]) == tally["warning"] == 3
    assert int(match["dropped"]) == tally["dropped"]
    assert int(match["defaults"]) == tally["default"] + tally["choice"]
    assert document["counts"] == {kind: tally[kind] for kind in ("default", "choice", "dropped", "warning", "kept")}


def test_json_report_with_kept_entries_matches_the_schema(runs):
    jsonschema = pytest.importorskip("jsonschema")
    _, _, as_json = runs
    assert as_json.returncode == 0, as_json.stderr
    document = json.loads(as_json.stdout)
    assert any(entry["kind"] == "kept" for entry in document["entries"])
    schema = schema_for(document)
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(document)
    for bad in ({**document, "counts": {**document["counts"], "kept": -1}},
                {**document, "entries": [{**document["entries"][0], "kind": "lost"}]}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.Draft202012Validator(schema).validate(bad)


def test_each_warning_is_one_line_with_one_prefix(runs):
    source, text, as_json = runs
    for run in (text, as_json):
        lines = run.stderr.strip().splitlines()
        assert len(lines) == 3, run.stderr  # the missing mesh once, though two shapes name it
        for line in lines:
            assert line.startswith(f"usdjoints: warning: {source}:") and line.count("warning:") == 1, line
            assert line.count("usdjoints:") == 1, line
