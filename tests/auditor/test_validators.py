"""The rules as UsdValidation validators, found by keyword once usdjoints' plugInfo is registered.

Oracle: usd-core's own UsdValidation registry and ValidationContext run the validators; their
errors must match the findings of ``audit`` on the same stage.
"""
from __future__ import annotations

import json
import os

import pytest

import usdjoints  # noqa: F401
from usdjoints.auditor import RULE_CLASSES, audit
from usdjoints.auditor.validators import PLUGIN_NAME, plug_info_validators, validator_name


def _declared_in_repo_plug_info() -> bool:
    from usdjoints.plugin_path import plugin_path

    with open(os.path.join(plugin_path(), "plugInfo.json")) as stream:
        plugins = json.load(stream)["Plugins"]
    return any(p.get("Name") == PLUGIN_NAME for p in plugins)


_PROBE = r"""
import json, sys
import usdjoints
from pxr import Plug, Usd, UsdValidation
Plug.Registry().RegisterPlugins(sys.argv[1])
registry = UsdValidation.ValidationRegistry()  # created after the plugin is known, as in usdchecker
from usdjoints.auditor.validators import KEYWORD
names = sorted(m.name for m in registry.GetValidatorMetadataForKeyword(KEYWORD))
context = UsdValidation.ValidationContext(registry.GetOrLoadValidatorsByName(names))
def site_prim(site):
    if site.IsProperty():
        return str(site.GetProperty().GetPrimPath())
    return str(site.GetPrim().GetPath()) if site.IsPrim() and site.GetPrim().GetPath() != "/" else None
errors = {}
for path in sys.argv[2:]:
    stage = Usd.Stage.Open(path)
    errors[path] = sorted([e.GetName(), site_prim(e.GetSites()[0]), str(e.GetType()).rpartition(".")[2]]
                          for e in context.Validate(stage))
edited = Usd.Stage.Open(sys.argv[-1])
validator = registry.GetOrLoadValidatorByName(names[0].rpartition(":")[0] + ":lower-above-upper")
before = len(validator.Validate(edited))
edited.GetPrimAtPath("/World/J").GetAttribute("physics:lowerLimit").Set(-60.0)
print(json.dumps({"names": names, "errors": errors, "edit": [before, len(validator.Validate(edited))]}))
"""


@pytest.fixture(scope="module")
def probe(bad_dir, tmp_path_factory):
    """Run the validators in a fresh interpreter (the registry reads plugInfo once, when created)."""
    import subprocess
    import sys

    if _declared_in_repo_plug_info():
        from usdjoints.plugin_path import plugin_path

        directory = plugin_path()
    else:  # the fragment the repository's plugInfo.json is to carry
        directory = tmp_path_factory.mktemp("plug")
        fragment = {"Plugins": [{"Type": "python", "Name": PLUGIN_NAME,
                                 "Info": {"Validators": plug_info_validators()}}]}
        (directory / "plugInfo.json").write_text(json.dumps(fragment))
    stages = [str(bad_dir / f"{rule}.usda") for rule in ("locked-hinge", "dangling-body", "default-coupling-ratio",
                                                          "lower-above-upper")]
    done = subprocess.run([sys.executable, "-c", _PROBE, str(directory), *stages], capture_output=True, text=True,
                          timeout=300, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_repo_plug_info_matches_the_rules():
    if not _declared_in_repo_plug_info():
        pytest.skip("plugInfo.json does not declare the validators yet")
    from usdjoints.plugin_path import plugin_path

    with open(os.path.join(plugin_path(), "plugInfo.json")) as stream:
        plugin = next(p for p in json.load(stream)["Plugins"] if p["Name"] == PLUGIN_NAME)
    assert plugin["Info"]["Validators"] == plug_info_validators()


def test_validators_found_by_keyword(probe):
    assert probe["names"] == sorted(validator_name(cls.id) for cls in RULE_CLASSES)


def test_validation_context_matches_audit(probe):
    severity = {"error": "Error", "warning": "Warn", "info": "Info"}
    for path, errors in probe["errors"].items():
        expected = sorted([f.rule, f.prim, severity[f.severity]] for f in audit(path).findings
                          if not f.rule.startswith("usdphysics:"))  # OpenUSD's own validators report themselves
        assert errors == expected, path


def test_cache_follows_stage_edits(probe):
    assert probe["edit"] == [1, 0]
