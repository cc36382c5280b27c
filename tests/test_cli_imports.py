"""What the command line loads: each subcommand imports only the modules it runs.

Oracle: ``sys.modules`` of a fresh interpreter after the import or the run (the process itself).
Start-up time is mostly imports, so a module that appears here without being used is time spent
on every ``usdjoints`` call.
"""
from __future__ import annotations

import json
import subprocess
import sys

from samples import REPO, pendulum_urdf

URDF = pendulum_urdf('\n    <visual><geometry><box size="0.1 0.1 1"/></geometry></visual>')


def loaded_after(code: str) -> set[str]:
    """Module names a fresh interpreter holds after running ``code``."""
    script = code + "\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))\n"
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                            cwd=REPO)
    assert result.returncode == 0, result.stderr
    return set(json.loads(result.stdout.strip().splitlines()[-1]))


def test_importing_the_cli_loads_no_subcommand():
    """``import usdjoints.cli`` registers schemas and the audit parser (consumer names only): no
    audit engine or rules, converter, contract tables, walker, numpy, lxml or numba."""
    modules = loaded_after("from usdjoints.cli import main")
    assert "usdjoints" in modules and "usdjoints.cli" in modules
    for name in ("usdjoints.auditor.engine", "usdjoints.auditor.registry", "usdjoints.convert",
                 "usdjoints.contract.index", "usdjoints.contract.markers", "usdjoints.walker", "numpy", "numba",
                 "lxml"):
        assert name not in modules, name


def test_convert_loads_neither_auditor_rules_nor_contract_index(tmp_path):
    """``usdjoints convert`` of a URDF: the URDF reader and USD writer, not the audit rules, the
    contract tables, the walker, the SDFormat reader or numba."""
    source = tmp_path / "pendulum.urdf"
    source.write_text(URDF)
    out = tmp_path / "pendulum.usda"
    modules = loaded_after(
        "from usdjoints.cli import main\n"
        f"assert main(['convert', {str(source)!r}, '-o', {str(out)!r}]) == 0\n")
    assert out.is_file()
    assert {"usdjoints.convert.urdf", "usdjoints.convert.usd_writer"} <= modules
    for name in ("usdjoints.auditor.engine", "usdjoints.auditor.registry", "usdjoints.contract.index",
                 "usdjoints.walker", "usdjoints.convert.sdformat", "usdjoints.sim", "numba"):
        assert name not in modules, name


def test_contract_names_resolve_lazily_and_divergences_is_the_query():
    """Every public contract name loads on first use; ``divergences`` is the query function even
    after the column tables (which share divergence records) were imported first."""
    modules = loaded_after(
        "import usdjoints.contract.joints\n"
        "import usdjoints.contract as contract\n"
        "from usdjoints.contract import divergences\n"
        "assert callable(divergences) and divergences is contract.index.divergences\n"
        "assert all(getattr(contract, name) is not None for name in contract.__all__)\n"
        "assert divergences('PhysicsRevoluteJoint')\n")
    assert "usdjoints.contract.index" in modules
