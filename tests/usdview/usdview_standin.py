"""Installs the stand-in ``pxr.Usdviewq.plugin`` module and provides a minimal usdviewApi.

The stand-in usdviewApi has the members usdview's ``UsdviewApi`` exposes that the usdjoints
commands use: ``stage``, ``dataModel.selection``, ``selectedPrims``, ``selectedPaths``, ``prim``,
``frame``, ``qMainWindow`` (None: no Qt, so commands print through ``PrintStatus``),
``PrintStatus`` and ``UpdateGUI``.
"""
from __future__ import annotations

import importlib.util
import sys
import types
from pathlib import Path

STANDIN = Path(__file__).resolve().parent / "standin" / "plugin.py"


def install():
    """Make ``pxr.Usdviewq.plugin`` importable (once per process: a Tf type is defined once)."""
    if "pxr.Usdviewq.plugin" in sys.modules:
        return sys.modules["pxr.Usdviewq.plugin"]
    import pxr

    package = types.ModuleType("pxr.Usdviewq")
    package.__path__ = []
    spec = importlib.util.spec_from_file_location("pxr.Usdviewq.plugin", STANDIN)
    module = importlib.util.module_from_spec(spec)
    sys.modules["pxr.Usdviewq"] = package
    sys.modules["pxr.Usdviewq.plugin"] = module
    spec.loader.exec_module(module)
    package.plugin = module
    pxr.Usdviewq = package
    return module


class Selection:
    def __init__(self):
        self.prims = []

    def clearPrims(self):
        self.prims = []

    def addPrim(self, prim, instance=None):
        if prim not in self.prims:
            self.prims.append(prim)

    def setPrim(self, prim, instance=None):
        self.prims = [prim]

    def getPrims(self):
        return list(self.prims)

    def getPrimPaths(self):
        return [p.GetPath() for p in self.prims]

    def getFocusPrim(self):
        return self.prims[-1] if self.prims else None


class DataModel:
    def __init__(self, stage):
        from pxr import Usd

        self.stage = stage
        self.selection = Selection()
        self.currentFrame = Usd.TimeCode.Default()


class UsdviewApi:
    def __init__(self, stage):
        self.dataModel = DataModel(stage)
        self.status = []
        self.gui_updates = 0
        self.qMainWindow = None

    @property
    def stage(self):
        return self.dataModel.stage

    @property
    def frame(self):
        return self.dataModel.currentFrame

    @property
    def prim(self):
        return self.dataModel.selection.getFocusPrim()

    @property
    def selectedPrims(self):
        return self.dataModel.selection.getPrims()

    @property
    def selectedPaths(self):
        return self.dataModel.selection.getPrimPaths()

    def PrintStatus(self, msg):
        self.status.append(msg)

    def UpdateGUI(self):
        self.gui_updates += 1

    def select(self, *paths):
        """Select prims as a user clicking in the prim browser would."""
        self.dataModel.selection.clearPrims()
        for path in paths:
            self.dataModel.selection.addPrim(self.stage.GetPrimAtPath(path))


def load_containers(usdview_api):
    """Load every registered usdview plugin container the way usdview's loader does.

    Returns (containers, registry, ui_builder) after registerPlugins and configureView ran.
    """
    from pxr import Plug

    plugin_module = install()
    containers = []
    for container_type in Plug.Registry.GetAllDerivedTypes(plugin_module.PluginContainerTfType):
        Plug.Registry().GetPluginForType(container_type).Load()
        containers.append(container_type.pythonClass())
    registry = plugin_module.PluginRegistry(usdview_api)
    builder = plugin_module.PluginUIBuilder()
    for container in containers:
        container.registerPlugins(registry, usdview_api)
    for container in containers:
        container.configureView(registry, builder)
    return containers, registry, builder
