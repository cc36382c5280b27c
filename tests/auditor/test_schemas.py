"""The shipped JSON Schemas describe every document usdjoints writes, and reject what they should.

Oracle: jsonschema's draft 2020-12 validator (schemas checked as schemas first) on the real
documents: ``walk`` of every sample stage for every consumer, ``columns`` of the whole contract and
of each owner, ``convert`` reports of the URDF and SDFormat test robots, ``audit`` of every bad
sample stage. Mutated documents must fail, so the schemas are not vacuous.
"""
from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

import usdjoints  # noqa: F401
from schema_check import jsonschema, validate_document
from usdjoints.contract.types import CONSUMERS
from usdjoints.schemas import NAMES, load, schema_text

REPO = Path(__file__).resolve().parents[2]
SAMPLES = sorted(p for p in (REPO / "sample_stages").rglob("*.usda"))


def test_every_schema_is_a_valid_schema_and_printed_by_the_command(capsys):
    import usdjoints.cli as cli

    for name in NAMES:
        jsonschema.Draft202012Validator.check_schema(load(name))
        assert cli.main(["schema", name]) == 0
        assert capsys.readouterr().out == schema_text(name)
        assert load(f"usdjoints.{name}/1") == load(name)
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["schema", "nothing"])
    assert exit_info.value.code == 2


@pytest.mark.parametrize("consumer", CONSUMERS)
def test_walk_documents(consumer):
    from usdjoints.walker import walk
    from usdjoints.walker.render import walk_json
    from usdjoints.walker.stage_io import open_stage
    from usdjoints.errors import UsdJointsError
    from usdjoints.jsonio import to_jsonable

    checked = 0
    for path in SAMPLES:
        try:
            document = to_jsonable(walk_json(walk(open_stage(str(path)), consumer=consumer)))
        except UsdJointsError:
            continue  # a stage the walker refuses writes no document
        validate_document(document)
        checked += 1
    assert checked >= len(SAMPLES) - 5


def test_columns_documents():
    from usdjoints.contract import index
    from usdjoints.contract.render import columns_json

    validate_document(columns_json(None))
    for owner in index.known_owners():
        validate_document(columns_json(owner))


def test_convert_documents(tmp_path):
    from usdjoints.convert.api import convert_file
    from usdjoints.errors import UsdJointsError

    sources = sorted((REPO / "tests" / "data" / "urdf").glob("*.urdf")) + sorted(
        (REPO / "tests" / "data" / "sdf").glob("*.sdf"))
    converted = 0
    for index, source in enumerate(sources):
        try:
            report = convert_file(source, tmp_path / f"out{index}.usda")
        except UsdJointsError:
            continue  # the invalid fixtures (self-child joints...) are refused, with no report
        validate_document(json.loads(json.dumps(report.to_json())))
        converted += 1
    assert converted >= 10


def test_audit_documents(bad_dir):
    from usdjoints.auditor import audit
    from usdjoints.auditor.writers import render

    report = audit(bad_dir)
    document = json.loads(render(report, "json"))
    validate_document(document)
    limited = json.loads(render(report.limited("error", 3), "json"))
    validate_document(limited)
    assert limited["summary"]["omitted"]


def _fails(document) -> bool:
    try:
        validate_document(document)
    except jsonschema.ValidationError:
        return True
    return False


def test_schemas_reject_wrong_documents(bad_dir):
    from usdjoints.auditor import audit
    from usdjoints.walker import walk
    from usdjoints.walker.render import walk_json
    from usdjoints.jsonio import to_jsonable

    good = json.loads(json.dumps(audit(bad_dir / "same-body.usda").as_json()))
    for mutate in (lambda d: d["findings"][0].update(severity="fatal"),
                   lambda d: d["findings"][0].pop("fix"),
                   lambda d: d["summary"].update(exit_code=3),
                   lambda d: d.update(failures=[{"stage": "x", "kind": "lost", "message": "m"}])):
        bad = copy.deepcopy(good)
        mutate(bad)
        assert _fails(bad)
    walked = to_jsonable(walk_json(walk(str(REPO / "sample_stages" / "revolute_basic.usda"))))
    for mutate in (lambda d: d["joints"][0].update(type="hinge"),
                   lambda d: d["joints"][0]["local_pose0"].update(orientation=[1, 0, 0]),
                   lambda d: d["joints"][0]["limits"][0].update(low="NaN"),  # only "inf", "-inf", "nan"
                   lambda d: d["units"].update(upAxis="X")):
        bad = copy.deepcopy(walked)
        mutate(bad)
        assert _fails(bad)


def test_walk_schema_names_every_provenance_source():
    """The walk schema's column sources are exactly the provenance enum's values (oracle: the enum)."""
    from usdjoints.provenance import Source

    text = json.dumps(load("walk"))
    declared = {s.value for s in Source}
    for value in declared:
        assert f'"{value}"' in text, value
