"""Writing into an open stage the way pipeline tools expect.

Every usdjoints function that edits a stage goes through :func:`edit_layer`: it writes into the
layer the caller named, or else through the stage's current edit target (with its path mapping),
never saves a layer, and leaves the root layer alone unless the caller chose it. Writers use the
Sdf API inside one ``Sdf.ChangeBlock`` so a viewer or a Kit extension recomposes once per edit.
"""
from __future__ import annotations

from dataclasses import dataclass

from .errors import UsageError


@dataclass(frozen=True)
class EditLayer:
    """Where an edit lands: ``layer`` and the edit target that maps stage paths into it."""

    stage: object  # Usd.Stage
    layer: object  # Sdf.Layer
    target: object  # Usd.EditTarget

    def spec_path(self, path) -> "Sdf.Path":  # noqa: F821
        """The path in :attr:`layer` that holds opinions for the stage path ``path``."""
        from pxr import Sdf

        return self.target.MapToSpecPath(Sdf.Path(str(path)))


def edit_layer(stage, layer=None) -> EditLayer:
    """Resolve where an edit of ``stage`` goes.

    ``layer`` is an ``Sdf.Layer`` of the stage's local layer stack (root, session, or one of their
    sublayers); ``None`` means the stage's current edit target. A stage given as a path is refused:
    edits need a stage the caller holds, or they would vanish with it.
    """
    from pxr import Sdf, Usd

    if not isinstance(stage, Usd.Stage):
        raise UsageError(f"expected an open Usd.Stage to edit, got {type(stage).__name__}; "
                         "open the stage first (usdjoints.open_stage) and keep it")
    if layer is None:
        target = stage.GetEditTarget()
        if not target.IsValid():
            raise UsageError("the stage's edit target is invalid; set one with stage.SetEditTarget")
        return EditLayer(stage, target.GetLayer(), target)
    if not isinstance(layer, Sdf.Layer):
        raise UsageError(f"layer must be an Sdf.Layer, got {type(layer).__name__}")
    if not stage.HasLocalLayer(layer):
        raise UsageError(f"{layer.identifier}: not in the stage's local layer stack; add it as a "
                         "sublayer of the root or session layer first, or edits would not show")
    return EditLayer(stage, layer, Usd.EditTarget(layer))


def session_layer(stage) -> EditLayer:
    """The stage's session layer: edits that show in a viewer and are never saved with the asset."""
    return edit_layer(stage, stage.GetSessionLayer())


def ensure_prim_spec(edit: EditLayer, path, specifier=None, type_name: str = ""):
    """The prim spec for stage path ``path`` in the edit layer, created as an ``over`` if absent.

    Call inside ``Sdf.ChangeBlock``. ``specifier``/``type_name`` are set only on a new spec, so an
    existing ``def`` keeps its type.
    """
    from pxr import Sdf

    spec_path = edit.spec_path(path)
    spec = edit.layer.GetPrimAtPath(spec_path)
    if spec is None:
        spec = Sdf.CreatePrimInLayer(edit.layer, spec_path)
        spec.specifier = specifier if specifier is not None else Sdf.SpecifierOver
        if type_name:
            spec.typeName = type_name
    return spec


def set_attribute(prim_spec, name: str, value_type, value=None, *, variability=None, time_samples=None):
    """Author ``name`` on ``prim_spec``: a default ``value`` and/or ``time_samples`` {time: value}.

    Existing time samples of the attribute are replaced, so a rerun never mixes two runs.
    """
    from pxr import Sdf

    attr = prim_spec.attributes.get(name)
    if attr is None:
        attr = Sdf.AttributeSpec(prim_spec, name, value_type,
                                 variability if variability is not None else Sdf.VariabilityVarying)
    if value is not None:
        attr.default = value
    if time_samples is not None:
        layer = prim_spec.layer
        for time in layer.ListTimeSamplesForPath(attr.path):
            layer.EraseTimeSample(attr.path, time)
        for time, sample in time_samples:
            layer.SetTimeSample(attr.path, time, sample)
    return attr


def remove_prim_spec(edit: EditLayer, path) -> bool:
    """Delete the prim spec (and everything under it) for stage path ``path`` from the edit layer."""
    spec_path = edit.spec_path(path)
    spec = edit.layer.GetPrimAtPath(spec_path)
    if spec is None:
        return False
    parent = edit.layer.GetPrimAtPath(spec_path.GetParentPath())
    del parent.nameChildren[spec.name]
    return True


# The edit functions pipeline scripts call, importable from here without the viewer's package name.
_EDITORS = {
    "author_joint_frames": "usdjoints.usdview.frames",
    "remove_joint_frames": "usdjoints.usdview.frames",
    "toggle_joint_frames": "usdjoints.usdview.frames",
    "write_trajectory": "usdjoints.usdview.simulate",
    "simulate_to_time_samples": "usdjoints.usdview.simulate",
}


def __getattr__(name: str):
    module = _EDITORS.get(name)
    if module is None:
        raise AttributeError(f"module 'usdjoints.api_edit' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
