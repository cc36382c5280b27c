#!/usr/bin/env python3
"""Edit a stage you hold open, the way a Kit extension does: nothing lands in the asset's layers.

    python examples/kit_style_edit.py STAGE.usda [--joint /World/Hinge]

An application (Kit, usdview, a DCC) owns the stage; a tool adds an anonymous override layer on
top of the session layer, points the edit target at it and calls usdjoints there. Here: read
the joints as PhysX would, draw their frames into the override layer, and, when the auditor finds
a value consumers read differently, pin it in the same override layer. Then it shows that the
root layer is untouched and that dropping the override layer undoes everything. usd-core only.
"""
from __future__ import annotations

import argparse
import sys

import usdjoints  # registers the PhysX schemas before any stage opens
from usdjoints import walk
from usdjoints.api_edit import author_joint_frames, edit_layer, ensure_prim_spec
from usdjoints.errors import UsdJointsError


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stage")
    parser.add_argument("--joint", action="append", help="joint path to draw (default: all)")
    args = parser.parse_args(argv)
    from pxr import Sdf, Usd

    try:
        stage = usdjoints.open_stage(args.stage)  # in an application: the stage it already holds
        override = Sdf.Layer.CreateAnonymous("usdjoints-overrides")
        stage.GetSessionLayer().subLayerPaths.insert(0, override.identifier)
        stage.SetEditTarget(Usd.EditTarget(override))

        description = walk(stage, consumer="ovphysx")
        print(f"{len(description.joints)} joint(s), {len(description.articulations)} articulation(s) as PhysX reads them")
        frames = author_joint_frames(stage, args.joint)  # writes through the edit target
        print(f"frames of {len(frames.joints)} joint(s) under {frames.scope}, axis length {frames.length:.3g}")
        before = _audit_counts(stage)
        pinned = _pin_divergent_defaults(stage)
        print(f"pinned {len(pinned)} value(s) in the override layer" + "".join(f"\n  {p}" for p in pinned))
        if before is not None:
            print(f"audit findings (error/warning/info): {before} before pinning, {_audit_counts(stage)} after")
    except UsdJointsError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2

    root_dirty = stage.GetRootLayer().dirty
    specs = []
    override.Traverse(override.pseudoRoot.path, lambda path: specs.append(path) if path.IsPrimPath() else None)
    print(f"override layer: {len(specs)} prim spec(s); root layer modified: {root_dirty}")
    stage.GetSessionLayer().subLayerPaths.remove(override.identifier)
    print(f"override layer removed: frames scope still on stage: {bool(stage.GetPrimAtPath(frames.scope))}")
    return 1 if root_dirty else 0


def _audit_counts(stage):
    try:
        from usdjoints.auditor import audit
    except ImportError:
        return None
    summary = audit(stage).summary()
    return f"{summary['error']}/{summary['warning']}/{summary['info']}"


def _pin_divergent_defaults(stage) -> list[str]:
    """Pin, in the edit target, what the auditor's fix layer would pin (a stage-wide value such as
    metersPerUnit is only listed: stage metadata is read from the root layer alone)."""
    try:
        from usdjoints.auditor import write_fix_layer
    except ImportError:  # an installation without the auditor: nothing to pin
        return []
    import os
    import tempfile

    from pxr import Sdf

    edit = edit_layer(stage)
    pinned = []
    with tempfile.TemporaryDirectory() as scratch:
        # The auditor decides what to pin; its layer is read back and only its overrides are kept.
        result = write_fix_layer(stage, os.path.join(scratch, "pins.usda"))
        fix = Sdf.Layer.FindOrOpen(result.out)
        with Sdf.ChangeBlock():
            for value in result.pinned:
                if value.prim is None:
                    pinned.append(f"(stage) {value.name} = {value.value}: author it in the root layer")
                    continue
                source = Sdf.Path(value.prim).AppendProperty(value.name)
                ensure_prim_spec(edit, value.prim)
                Sdf.CopySpec(fix, source, edit.layer, edit.spec_path(source))
                pinned.append(f"{value.prim}.{value.name} = {value.value}")
    return pinned


if __name__ == "__main__":
    sys.exit(main())
