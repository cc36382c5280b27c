"""The plugin container as usdview discovers and loads it, with usdview replaced by a stand-in.

Oracle: OpenUSD's plugin system itself (Plug.Registry registers the plugInfo, Tf.Type answers
the derived-type query usdview's loader makes) and the loader sequence of usdview's plugin module
(Load, pythonClass(), registerPlugins, configureView).
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from pxr import Plug, Tf

import usdview_standin
from usdjoints.plugin_path import plugin_path

CONTAINER_TYPE = "usdjoints.usdview.container.UsdJointsPluginContainer"
EXPECTED_LABELS = ["Audit stage", "Inspect joint", "Show joint frames", "Simulate", None, "Pin defaults"]


def _register():
    Plug.Registry().RegisterPlugins(plugin_path())
    return Plug.Registry().GetPluginWithName("usdjoints.usdview.container")


def test_plug_info_is_valid_json_and_registers_a_python_plugin():
    """Plug.Registry accepts the plugInfo and knows the plugin as a Python module."""
    data = json.loads((Path(plugin_path()) / "plugInfo.json").read_text())
    assert any(p.get("Name") == "usdjoints.usdview.container" for p in data["Plugins"])
    plugin = _register()
    assert plugin is not None
    assert plugin.isPythonModule
    assert CONTAINER_TYPE in plugin.metadata["Types"]


def test_container_is_a_derived_type_of_usdviews_plugin_container():
    """The query usdview's loader makes finds the container, before and after the base class exists."""
    _register()
    base = Tf.Type.FindByName("pxr.Usdviewq.plugin.PluginContainer")
    assert not base.isUnknown
    assert CONTAINER_TYPE in [t.typeName for t in Plug.Registry.GetAllDerivedTypes(base)]
    plugin_module = usdview_standin.install()
    assert plugin_module.PluginContainerTfType == base
    container_type = Tf.Type.FindByName(CONTAINER_TYPE)
    assert container_type.IsA(base)


def test_loading_registers_every_command_and_builds_the_menu(tmp_path):
    """Loaded as usdview loads it, the container registers each command once and fills one menu."""
    from pxr import Usd

    _register()
    api = usdview_standin.UsdviewApi(Usd.Stage.CreateInMemory())
    containers, registry, builder = usdview_standin.load_containers(api)
    ours = [c for c in containers if type(c).__name__ == "UsdJointsPluginContainer"]
    assert len(ours) == 1
    from usdjoints.usdview import container

    assert sorted(registry.commands) == sorted(name for name, *_ in container.COMMANDS)
    menu = builder.menus["usdjoints"]
    assert [item.displayName if item else None for item in menu.items] == EXPECTED_LABELS
    for item in filter(None, menu.items):
        assert item.description, item.name
        assert callable(item.callback)


def test_importing_the_container_loads_neither_numpy_nor_numba():
    """In a fresh interpreter, importing the container (as usdview does at start) stays light."""
    tests = Path(__file__).resolve().parent
    code = (
        "import sys; sys.path.insert(0, %r)\n"
        "import usdview_standin; usdview_standin.install()\n"
        "import usdjoints.usdview.container\n"
        "print(sorted(m for m in ('numpy', 'numba', 'usdjoints.usdview.commands', 'usdjoints.walker')"
        " if m in sys.modules))\n" % str(tests)
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
