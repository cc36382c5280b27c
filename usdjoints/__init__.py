"""usdjoints: how every consumer really reads the joints of an OpenUSD physics stage.

The public API is re-exported here and imported lazily, so ``import usdjoints`` stays light: it
registers the PhysX schemas (which must happen before any stage is opened) and nothing else. It
never imports numba.
"""
from __future__ import annotations

from ._lazy import lazy_exports
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
    "walk": ".walker",
    "open_stage": ".walker.stage_io",
    "audit": ".auditor",
    "convert_urdf": ".convert",
    "convert_sdformat": ".convert",
    "load_model": ".model.build",
    "forward_kinematics": ".sim.api",
    "forward_dynamics": ".sim.api",
    "simulate": ".sim.api",
    "plugin_path": ".plugin_path",
    "author_joint_frames": ".api_edit",
    "write_trajectory": ".api_edit",
}

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, __all__)
