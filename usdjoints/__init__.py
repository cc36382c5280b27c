"""usdjoints: how every consumer really reads the joints of an OpenUSD physics stage.

The public API is re-exported here and imported lazily, so ``import usdjoints`` stays light: it
registers the PhysX schemas (which must happen before any stage is opened) and nothing else. It
never imports numba.
"""
from __future__ import annotations

from ._schemas import ensure_physx_schemas

ensure_physx_schemas()

__version__ = "0.1.0"

__all__ = [
    "walk",
    "audit",
    "convert_urdf",
    "convert_sdformat",
    "load_model",
    "forward_kinematics",
    "forward_dynamics",
    "simulate",
    "open_stage",
    "plugin_path",
    "author_joint_frames",
    "write_trajectory",
    "__version__",
]

_LAZY = {
    "walk": ("usdjoints.walker", "walk"),
    "open_stage": ("usdjoints.walker.stage_io", "open_stage"),
    "audit": ("usdjoints.auditor", "audit"),
    "convert_urdf": ("usdjoints.convert", "convert_urdf"),
    "convert_sdformat": ("usdjoints.convert", "convert_sdformat"),
    "load_model": ("usdjoints.model.build", "load_model"),
    "forward_kinematics": ("usdjoints.sim.api", "forward_kinematics"),
    "forward_dynamics": ("usdjoints.sim.api", "forward_dynamics"),
    "simulate": ("usdjoints.sim.api", "simulate"),
    "plugin_path": ("usdjoints.plugin_path", "plugin_path"),
    "author_joint_frames": ("usdjoints.api_edit", "author_joint_frames"),
    "write_trajectory": ("usdjoints.api_edit", "write_trajectory"),
}


def __getattr__(name: str):
    try:
        module_name, attr = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'usdjoints' has no attribute {name!r}") from None
    import importlib

    value = getattr(importlib.import_module(module_name), attr)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
