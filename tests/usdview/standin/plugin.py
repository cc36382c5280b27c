"""Stand-in for ``pxr.Usdviewq.plugin`` (usdview is not on the package registry).

It offers what a plugin container and usdview's loader touch: the ``PluginContainer`` base
declared as a Tf type under usdview's own type name, ``deferredImport``, a command registry and a
menu builder that records what a container puts in its menus. It is loaded under the module name
``pxr.Usdviewq.plugin`` by :func:`usdview_standin.install`, never imported under its file name.
"""
import importlib

from pxr import Tf


class DeferredImport:
    """Attribute access yields a function that imports the module on its first call."""

    def __init__(self, module_name, package=None):
        self.module_name = module_name
        self.package = package
        self.imported = None

    def __getattr__(self, name):
        def call(*args, **kwargs):
            if self.imported is None:
                self.imported = importlib.import_module(self.module_name, self.package)
            return getattr(self.imported, name)(*args, **kwargs)

        return call


class PluginContainer:
    def deferredImport(self, moduleName):
        return DeferredImport(moduleName, self.__module__)

    def registerPlugins(self, plugRegistry, usdviewApi):
        raise NotImplementedError

    def configureView(self, plugRegistry, plugUIBuilder):
        raise NotImplementedError


PluginContainerTfType = Tf.Type.Define(PluginContainer)


class DuplicateCommandPlugin(Exception):
    pass


class CommandPlugin:
    def __init__(self, name, displayName, callback, description, usdviewApi):
        self.name = name
        self.displayName = displayName
        self.description = description
        self.callback = callback
        self.usdviewApi = usdviewApi

    def run(self):
        return self.callback(self.usdviewApi)


class PluginRegistry:
    def __init__(self, usdviewApi):
        self.usdviewApi = usdviewApi
        self.commands = {}

    def registerCommandPlugin(self, name, displayName, callback, description=""):
        if name in self.commands:
            raise DuplicateCommandPlugin(name)
        plugin = CommandPlugin(name, displayName, callback, description, self.usdviewApi)
        self.commands[name] = plugin
        return plugin

    def getCommandPlugin(self, name):
        return self.commands.get(name)


class PluginMenu:
    """Records items (command plugins) and separators (``None``) in order."""

    def __init__(self, title):
        self.title = title
        self.items = []
        self.submenus = {}

    def addItem(self, commandPlugin, shortcut=None):
        self.items.append(commandPlugin)
        return commandPlugin

    def addSeparator(self):
        self.items.append(None)

    def findOrCreateSubmenu(self, menuName):
        return self.submenus.setdefault(menuName, PluginMenu(menuName))


class PluginUIBuilder:
    def __init__(self):
        self.menus = {}

    def findOrCreateMenu(self, menuName):
        return self.menus.setdefault(menuName, PluginMenu(menuName))
