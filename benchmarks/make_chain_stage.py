"""Writes the benchmark stage: many revolute joints in chained, fixed-base articulations.

Each chain is an Xform with PhysicsArticulationRootAPI holding ``chain_length`` Cube bodies in a
row along X and ``chain_length`` revolute joints: the first ties body 0 to the world (body0
absent, so the articulation is fixed-base), each next one ties body k-1 to body k. Every second
joint has both limits authored, every third a PhysicsDriveAPI:angular, so the walker meets
authored, fallback and parser-default columns in the same run.

Usage: ``python benchmarks/make_chain_stage.py OUT.usdc [--joints 10000] [--chain-length 20]``
(``.usda`` writes text). Authoring goes through Sdf specs inside one change block: the Usd API
would take several seconds for 10,000 joints.
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import usdjoints  # noqa: E402,F401  (PhysX schemas before any layer is read)
from pxr import Gf, Sdf, UsdGeom, UsdPhysics  # noqa: E402

LINK_LENGTH = 0.5  # [stage length] spacing of the bodies along X


def make_chain_stage(
    path: str | os.PathLike, n_joints: int = 10_000, chain_length: int = 20, with_colliders: bool = False
) -> Path:
    """Write the stage to ``path`` (.usdc or .usda) and return it.

    ``n_joints`` revolute joints [count] split into ``ceil(n_joints / chain_length)`` articulations;
    the last chain may be shorter. The file is written to a temporary name and renamed.
    """
    if n_joints < 1 or chain_length < 1:
        raise ValueError(f"n_joints ({n_joints}) and chain_length ({chain_length}) must be >= 1")
    out = Path(path)
    layer = Sdf.Layer.CreateAnonymous(out.suffix or ".usdc")
    with Sdf.ChangeBlock():
        layer.defaultPrim = "World"
        layer.pseudoRoot.SetInfo(UsdGeom.Tokens.metersPerUnit, 1.0)
        layer.pseudoRoot.SetInfo(UsdPhysics.Tokens.kilogramsPerUnit, 1.0)
        layer.pseudoRoot.SetInfo(UsdGeom.Tokens.upAxis, UsdGeom.Tokens.z)
        _prim(layer, "/World", "Xform")
        scene = _prim(layer, "/World/physicsScene", "PhysicsScene")
        _attr(scene, "physics:gravityMagnitude", Sdf.ValueTypeNames.Float, 9.81)
        n_chains = math.ceil(n_joints / chain_length)
        for chain in range(n_chains):
            length = min(chain_length, n_joints - chain * chain_length)
            _author_chain(layer, chain, length, with_colliders)
    tmp = tempfile.NamedTemporaryFile(dir=out.parent or ".", suffix=out.suffix, delete=False)
    tmp.close()
    try:
        if not layer.Export(tmp.name):
            raise OSError(f"{out}: could not write the layer")
        os.replace(tmp.name, out)
    finally:
        if os.path.exists(tmp.name):
            os.unlink(tmp.name)
    return out


def _prim(layer: Sdf.Layer, path: str, type_name: str, api_schemas: tuple[str, ...] = ()) -> Sdf.PrimSpec:
    spec = Sdf.CreatePrimInLayer(layer, path)
    spec.specifier = Sdf.SpecifierDef
    spec.typeName = type_name
    if api_schemas:
        spec.SetInfo("apiSchemas", Sdf.TokenListOp.Create(prependedItems=list(api_schemas)))
    return spec


def _attr(spec: Sdf.PrimSpec, name: str, value_type, value, uniform: bool = False) -> None:
    attr = Sdf.AttributeSpec(spec, name, value_type, Sdf.VariabilityUniform if uniform else Sdf.VariabilityVarying)
    attr.default = value


def _rel(spec: Sdf.PrimSpec, name: str, target: str) -> None:
    rel = Sdf.RelationshipSpec(spec, name)
    rel.targetPathList.explicitItems = [Sdf.Path(target)]


def _author_chain(layer: Sdf.Layer, chain: int, length: int, with_colliders: bool) -> None:
    root = f"/World/Chain{chain}"
    group = _prim(layer, root, "Xform", ("PhysicsArticulationRootAPI",))
    _attr(group, "xformOp:translate", Sdf.ValueTypeNames.Double3, Gf.Vec3d(0, 2.0 * chain, 1))
    _attr(group, "xformOpOrder", Sdf.ValueTypeNames.TokenArray, ["xformOp:translate"], uniform=True)
    body_apis = ("PhysicsRigidBodyAPI", "PhysicsMassAPI") + (("PhysicsCollisionAPI",) if with_colliders else ())
    for k in range(length):
        body = _prim(layer, f"{root}/Link{k}", "Cube", body_apis)
        _attr(body, "size", Sdf.ValueTypeNames.Double, 0.2)
        _attr(body, "physics:mass", Sdf.ValueTypeNames.Float, 1.0)
        _attr(body, "physics:diagonalInertia", Sdf.ValueTypeNames.Float3, Gf.Vec3f(0.0067, 0.0067, 0.0067))
        _attr(body, "xformOp:translate", Sdf.ValueTypeNames.Double3, Gf.Vec3d(LINK_LENGTH * (k + 1), 0, 0))
        _attr(body, "xformOpOrder", Sdf.ValueTypeNames.TokenArray, ["xformOp:translate"], uniform=True)
    for k in range(length):
        has_drive = k % 3 == 0
        joint = _prim(layer, f"{root}/Joint{k}", "PhysicsRevoluteJoint",
                      ("PhysicsDriveAPI:angular",) if has_drive else ())
        _attr(joint, "physics:axis", Sdf.ValueTypeNames.Token, "Y", uniform=True)
        if k == 0:
            # body0 absent: side 0 is the world, its frame in world space (chain origin).
            _attr(joint, "physics:localPos0", Sdf.ValueTypeNames.Point3f, Gf.Vec3f(LINK_LENGTH / 2, 2.0 * chain, 1))
        else:
            _rel(joint, "physics:body0", f"{root}/Link{k - 1}")
            _attr(joint, "physics:localPos0", Sdf.ValueTypeNames.Point3f, Gf.Vec3f(LINK_LENGTH / 2, 0, 0))
        _rel(joint, "physics:body1", f"{root}/Link{k}")
        _attr(joint, "physics:localPos1", Sdf.ValueTypeNames.Point3f, Gf.Vec3f(-LINK_LENGTH / 2, 0, 0))
        if k % 2 == 0:
            _attr(joint, "physics:lowerLimit", Sdf.ValueTypeNames.Float, -90.0)
            _attr(joint, "physics:upperLimit", Sdf.ValueTypeNames.Float, 90.0)
        if has_drive:
            _attr(joint, "drive:angular:physics:stiffness", Sdf.ValueTypeNames.Float, 50.0)
            _attr(joint, "drive:angular:physics:damping", Sdf.ValueTypeNames.Float, 5.0)
            _attr(joint, "drive:angular:physics:targetPosition", Sdf.ValueTypeNames.Float, 10.0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="output .usdc or .usda")
    parser.add_argument("--joints", type=int, default=10_000)
    parser.add_argument("--chain-length", type=int, default=20)
    parser.add_argument("--with-colliders", action="store_true")
    args = parser.parse_args(argv)
    try:
        out = make_chain_stage(args.out, args.joints, args.chain_length, args.with_colliders)
    except (ValueError, OSError) as error:
        print(f"make_chain_stage: {error}", file=sys.stderr)
        return 2
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
