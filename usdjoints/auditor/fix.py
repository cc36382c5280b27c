"""The fix layer: a new root layer over the stage that pins every divergent default.

``write_fix_layer(stage, out)`` writes ``out`` as a root layer whose sublayer is the original
root layer. The new root's own opinions are stronger than everything in that sublayer (blocks
included), so authoring the resolved producer value there makes every consumer read the same
thing. Misspelt coupling relationships get their targets copied under the schema name. The input
is only read; ``out`` is written to a temporary file and renamed into place.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Optional

from ..profiles import NAMES as CONSUMERS
from ..errors import UsageError
from ..outputs import check_output, write_file
from ..provenance import Source
from ..walker import walk_many
from ..walker.stage_io import open_stage
from .rule import AuditContext
from .rules_defaults import DefaultDivergenceRule, divergent_consumers
from .rules_couplings import SCHEMA_NAME_FOR

# Root-layer metadata a stage reads only from its root layer: carried over to the new root.
_STAGE_METADATA = ("defaultPrim", "metersPerUnit", "kilogramsPerUnit", "upAxis", "startTimeCode", "endTimeCode",
                   "timeCodesPerSecond", "framesPerSecond")


@dataclass(frozen=True, slots=True)
class PinnedValue:
    prim: Optional[str]  # None for stage metadata
    name: str
    value: object


@dataclass(frozen=True, slots=True)
class FixResult:
    """What the fix layer authored; ``skipped`` names prims it could not override (instance proxies)."""

    out: str
    source: str
    pinned: tuple[PinnedValue, ...]
    skipped: tuple[str, ...]


def write_fix_layer(stage_or_path, out: str, walks: Optional[dict] = None) -> FixResult:
    """Write ``out``: a root layer over ``stage_or_path`` pinning divergent defaults [see module doc].
    ``walks`` are the stage's readings by every consumer when the caller has them already (the
    audit's ``walk_many(stage, CONSUMERS)`` of the same open stage); they are made here otherwise."""
    from pxr import Sdf, UsdGeom

    stage = open_stage(stage_or_path)
    root = stage.GetRootLayer()
    if not root.realPath:
        raise UsageError("the fix layer needs a stage saved to a file (it becomes the fix layer's sublayer)")
    source = root.realPath
    out = check_output(out, "--fix", inputs=[source], stages=[stage])  # never the stage or one of its layers
    if walks is None:
        walks = walk_many(stage, CONSUMERS)  # one scan, read by every consumer (as the audit reads it)
    ctx = AuditContext(stage, source, walks)

    layer = Sdf.Layer.CreateAnonymous(".usda")
    for key in _STAGE_METADATA:
        if root.pseudoRoot.HasInfo(key):
            layer.pseudoRoot.SetInfo(key, root.pseudoRoot.GetInfo(key))
    pinned: list[PinnedValue] = []
    skipped: list[str] = []
    units = walks["ovphysx"].units
    layer.pseudoRoot.SetInfo("metersPerUnit", float(UsdGeom.GetStageMetersPerUnit(stage)))
    layer.pseudoRoot.SetInfo("upAxis", str(UsdGeom.GetStageUpAxis(stage)))
    for key, resolved in (("metersPerUnit", units.meters_per_unit), ("upAxis", units.up_axis)):
        if resolved.source is not Source.AUTHORED:
            pinned.append(PinnedValue(None, key, resolved.value))

    rules = [cls() for cls in DefaultDivergenceRule.__subclasses__()]
    with Sdf.ChangeBlock():
        for joint in walks["ovphysx"].joints:
            prim = stage.GetPrimAtPath(joint.path)
            names = [name for rule in rules for name in rule.watched(joint)
                     if joint.columns.get(name) is not None
                     and joint.columns[name].source in (Source.FALLBACK, Source.BLOCKED)
                     and divergent_consumers(ctx, joint.path, name)[1]]
            renames = [(wrong, right) for wrong, right in SCHEMA_NAME_FOR.items()
                       if prim.HasRelationship(wrong) and not prim.GetRelationship(right).HasAuthoredTargets()
                       and prim.GetRelationship(wrong).GetTargets()]
            if not names and not renames:
                continue
            if prim.IsInstanceProxy():
                skipped.append(joint.path)
                continue
            spec = Sdf.CreatePrimInLayer(layer, joint.path)
            definition = prim.GetPrimDefinition()
            for name in names:
                value = joint.columns[name].producer
                if value is None:
                    value = joint.columns[name].fallback
                type_name = definition.GetAttributeDefinition(name).GetTypeName()
                attribute = Sdf.AttributeSpec(spec, name, type_name)
                attribute.default = value
                pinned.append(PinnedValue(joint.path, name, value))
            for wrong, right in renames:
                targets = prim.GetRelationship(wrong).GetTargets()
                relationship = Sdf.RelationshipSpec(spec, right, custom=False)
                for target in targets:
                    relationship.targetPathList.explicitItems.append(target)
                pinned.append(PinnedValue(joint.path, right, tuple(str(t) for t in targets)))
    layer.subLayerPaths.append(_relative(source, os.fspath(out)))
    _export(layer, out)
    return FixResult(os.fspath(out), source, tuple(pinned), tuple(skipped))


def _relative(source: str, out: str) -> str:
    try:
        return os.path.relpath(source, os.path.dirname(os.path.abspath(out)))
    except ValueError:  # another drive on Windows
        return source


def _export(layer, out) -> None:
    def export(temporary: str) -> None:
        if not layer.Export(temporary, comment="pins the values every consumer must read alike"):
            raise UsageError(f"{out}: could not write the fix layer")

    write_file(out, export, "--fix")  # temporary file beside it, then renamed; umask honoured
