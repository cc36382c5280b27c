"""The usdview plugin container: adds a "usdjoints" menu.

usdview finds it through ``plugInfo.json`` (``PXR_PLUGINPATH_NAME=$(usdjoints plugin-path)``) and
imports this module while it starts, so it imports only ``pxr.Tf`` and usdview's own plugin
module: the walker, auditor and simulator (numpy, numba) load on the first menu click, through
``deferredImport``.
"""
from __future__ import annotations

from pxr import Tf
from pxr.Usdviewq.plugin import PluginContainer

MENU = "usdjoints"
COMMANDS_MODULE = "usdjoints.usdview.commands"

# (command name, menu label, function in COMMANDS_MODULE, tooltip); the order is the menu's.
COMMANDS = (
    ("usdjoints.auditStage", "Audit stage", "audit_stage",
     "Audit the stage for every consumer; choosing a finding selects its prim"),
    ("usdjoints.inspectJoint", "Inspect joint", "inspect_joint",
     "Every column of the selected joints with its value and source for each consumer"),
    ("usdjoints.showJointFrames", "Show joint frames", "toggle_joint_frames",
     "Draw (or remove) the two frames and the axis of each joint, in the session layer"),
    ("usdjoints.simulate", "Simulate", "simulate_stage",
     "Simulate the stage and write the motion as time samples into the session layer"),
    ("usdjoints.pinDefaults", "Pin defaults", "pin_defaults",
     "Write the audit's fix layer beside the stage (pins values consumers read differently)"),
)


class UsdJointsPluginContainer(PluginContainer):
    """Registers the usdjoints commands and puts them in a "usdjoints" menu."""

    def registerPlugins(self, plugRegistry, usdviewApi):
        commands = self.deferredImport(COMMANDS_MODULE)
        self._commands = [
            plugRegistry.registerCommandPlugin(name, label, getattr(commands, function), tooltip)
            for name, label, function, tooltip in COMMANDS
        ]

    def configureView(self, plugRegistry, plugUIBuilder):
        menu = plugUIBuilder.findOrCreateMenu(MENU)
        for index, command in enumerate(self._commands):
            if COMMANDS[index][2] == "pin_defaults":  # the one command that writes a file
                menu.addSeparator()
            menu.addItem(command)


Tf.Type.Define(UsdJointsPluginContainer)
