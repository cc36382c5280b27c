"""The validators give the audit's findings however they are loaded, with only the plugin path set.

Oracle: ``usdjoints audit`` on the same stages against usd-core's own UsdValidation registry and
context, run in a fresh interpreter whose only setup is ``PXR_PLUGINPATH_NAME`` (from
``usdjoints plugin-path``, appended to a value already there) or ``Plug.Registry().RegisterPlugins``:
in usdchecker's order (open the stage, then load the validators by keyword) and the reverse.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import usdjoints  # noqa: F401
from usdjoints.auditor import audit
from usdjoints.plugin_path import plugin_path, plugin_paths, plugin_search_path

REPO = Path(__file__).resolve().parents[2]

_PROBE = r"""
import json, sys
order, stages = sys.argv[1], sys.argv[2:]
from pxr import Plug, Usd, UsdValidation
if order == "register-then-open":
    import usdjoints
    Plug.Registry().RegisterPlugins(usdjoints.plugin_path())
def load():
    registry = UsdValidation.ValidationRegistry()
    names = sorted(m.name for m in registry.GetValidatorMetadataForKeyword("usdjoints"))
    return UsdValidation.ValidationContext(registry.GetOrLoadValidatorsByName(names))
def site(error):
    site = error.GetSites()[0]
    if site.IsProperty():
        return [str(site.GetProperty().GetPrimPath()), site.GetProperty().GetName()]
    path = site.GetPrim().GetPath() if site.IsPrim() else None
    return [str(path) if path is not None and str(path) != "/" else None, None]
def errors_of(context, stage):
    return sorted([e.GetName(), *site(e), str(e.GetType()).rpartition(".")[2], e.GetMessage()]
                  for e in context.Validate(stage))
if order == "open-then-load":  # usdchecker: the stage first
    opened = [Usd.Stage.Open(path) for path in stages]
    context = load()
else:
    context = load()
    opened = [Usd.Stage.Open(path) for path in stages]
print(json.dumps({path: errors_of(context, stage) for path, stage in zip(stages, opened)}))
"""
_SEVERITY = {"error": "Error", "warning": "Warn", "info": "Info"}


def _expected(path: str) -> list:
    # The validators' attribute site: the finding's attribute when the prim has it.
    rows = []
    for f in audit(path).findings:
        if f.rule.startswith("usdphysics:"):
            continue  # OpenUSD's own validators: they report under their own names
        message = f.message + (f" Fix: {f.fix}" if f.fix else "")
        rows.append([f.rule, f.prim, f.attribute if f.prim else None, _SEVERITY[f.severity], message])
    return sorted(rows)


def _probe(order: str, stages, env_path: str | None):
    env = {k: v for k, v in os.environ.items() if k != "PXR_PLUGINPATH_NAME"}
    env["PYTHONPATH"] = str(REPO)
    if env_path is not None:
        env["PXR_PLUGINPATH_NAME"] = env_path
    done = subprocess.run([sys.executable, "-c", _PROBE, order, *stages], capture_output=True, text=True,
                          timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def stages(bad_dir):
    return [str(p) for p in sorted(bad_dir.glob("*.usda"))]


@pytest.fixture(scope="module")
def expected(stages):
    return {path: _expected(path) for path in stages}


def test_plugin_search_path_lists_the_physx_schemas():
    import physx_usd_schemas

    paths = plugin_paths()
    assert paths[0] == plugin_path()
    assert paths[1:] == [str(p) for p in physx_usd_schemas.schema_paths()]
    assert all((Path(p) / "plugInfo.json").is_file() for p in paths)
    assert plugin_search_path() == os.pathsep.join(paths)


@pytest.mark.parametrize("order", ["open-then-load", "load-then-open"])
def test_env_plugin_path_alone_agrees_with_audit_in_either_order(order, stages, expected, tmp_path):
    # appended to a value already set, as the README shows: the other folder holds nothing here
    existing = str(tmp_path)
    got = _probe(order, stages, os.pathsep.join([plugin_search_path(), existing]))
    assert got == expected


def test_registering_plugin_path_before_opening_agrees_with_audit(stages, expected):
    assert _probe("register-then-open", stages, None) == expected


def test_physx_schemas_registered_too_late_are_said_not_misread(stages):
    # only usdjoints' own folder in the variable: usdchecker's order cannot know the PhysX types
    got = _probe("open-then-load", stages[:1], plugin_path())
    rows = got[stages[0]]
    assert rows and all(row[3] == "Error" and "PhysX schemas were registered after" in row[4] for row in rows)


def test_plugin_path_command_prints_the_search_path(capsys):
    import usdjoints.cli as cli

    assert cli.main(["plugin-path"]) == 0
    assert capsys.readouterr().out == plugin_search_path() + "\n"
