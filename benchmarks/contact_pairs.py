"""How load_model's contact model grows with the number of colliders (issue 13).

Two stages per size N (default 500, 1,000 and 2,000):

* ``chain_N``: ``benchmarks/make_chain_stage.py``'s serial chain of N Cube bodies with a
  collider on every body (one articulation, adjacent links jointed, so their pairs are filtered);
* ``field_N``: N free Cube bodies with colliders on a square grid 0.5 m apart (no joints, no
  articulation, one PhysicsCollisionGroup holding every other box and filtering itself, so the
  group rule is exercised).

Each goes through ``load_model(contact=True)`` in a fresh process. The pair list keeps every
pair of colliders that may ever touch (the simulator tests each pair's distance at every step),
so it holds about N^2/2 pairs by design; what this measures is that building it costs a small
constant per pair. Printed: CPU seconds, wall seconds, pairs, filtered pairs, and the growth
exponent of the CPU time against N (2 is the size of the output itself).

    python benchmarks/contact_pairs.py [--sizes 500,1000,2000] [--out DIR]
"""
from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from scaling import exponent  # noqa: E402  (the growth exponent, fitted as scaling.py fits it)

_CHILD = r"""
import json, resource, sys, time
import usdjoints

def cpu():
    a = resource.getrusage(resource.RUSAGE_SELF)
    b = resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime

t, c = time.perf_counter(), cpu()
m = usdjoints.load_model(sys.argv[1], contact=True)
t, c = time.perf_counter() - t, cpu() - c
print(json.dumps({"seconds": t, "cpu": c, "colliders": len(m.collider_names), "pairs": len(m.collision_pairs),
                  "filtered": len(m.collision_filtered)}))
"""


def write_field(path: Path, n: int) -> None:
    """N free unit-mass Cube bodies (0.2 m) with colliders on a grid, every other one in a
    collision group that filters itself."""
    from pxr import Gf, Sdf, UsdGeom, UsdPhysics

    layer = Sdf.Layer.CreateAnonymous(".usdc")
    side = math.ceil(math.sqrt(n))
    with Sdf.ChangeBlock():
        layer.defaultPrim = "World"
        layer.pseudoRoot.SetInfo(UsdGeom.Tokens.metersPerUnit, 1.0)
        layer.pseudoRoot.SetInfo(UsdPhysics.Tokens.kilogramsPerUnit, 1.0)
        layer.pseudoRoot.SetInfo(UsdGeom.Tokens.upAxis, UsdGeom.Tokens.z)
        world = Sdf.CreatePrimInLayer(layer, "/World")
        world.specifier, world.typeName = Sdf.SpecifierDef, "Xform"
        scene = Sdf.CreatePrimInLayer(layer, "/World/physicsScene")
        scene.specifier, scene.typeName = Sdf.SpecifierDef, "PhysicsScene"
        group = Sdf.CreatePrimInLayer(layer, "/World/Even")
        group.specifier, group.typeName = Sdf.SpecifierDef, "PhysicsCollisionGroup"
        members = Sdf.RelationshipSpec(group, "collection:colliders:includes")
        Sdf.RelationshipSpec(group, "physics:filteredGroups").targetPathList.explicitItems = [Sdf.Path("/World/Even")]
        even = []
        for k in range(n):
            prim = f"/World/Box{k}"
            box = Sdf.CreatePrimInLayer(layer, prim)
            box.specifier, box.typeName = Sdf.SpecifierDef, "Cube"
            box.SetInfo("apiSchemas", Sdf.TokenListOp.Create(
                prependedItems=["PhysicsRigidBodyAPI", "PhysicsCollisionAPI", "PhysicsMassAPI"]))
            for name, kind, value in (("size", Sdf.ValueTypeNames.Double, 0.2),
                                      ("physics:mass", Sdf.ValueTypeNames.Float, 1.0),
                                      ("xformOp:translate", Sdf.ValueTypeNames.Double3,
                                       Gf.Vec3d(0.5 * (k % side), 0.5 * (k // side), 1.0))):
                Sdf.AttributeSpec(box, name, kind).default = value
            Sdf.AttributeSpec(box, "xformOpOrder", Sdf.ValueTypeNames.TokenArray,
                              Sdf.VariabilityUniform).default = ["xformOp:translate"]
            if k % 2 == 0:
                even.append(Sdf.Path(prim))
        members.targetPathList.explicitItems = even
    tmp = path.with_name(path.name + ".tmp.usdc")
    if not layer.Export(str(tmp)):
        raise OSError(f"{path}: could not write the layer")
    os.replace(tmp, path)


def run(path: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + (os.pathsep + os.environ["PYTHONPATH"]
                                                   if os.environ.get("PYTHONPATH") else ""))
    done = subprocess.run([sys.executable, "-c", _CHILD, str(path)], capture_output=True, text=True, env=env,
                          check=False)
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise RuntimeError(f"load_model {path.name}: exit {done.returncode}: {tail}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="500,1000,2000", help="collider counts (default 500,1000,2000)")
    parser.add_argument("--out", type=Path, default=None, help="working folder (default: a temporary one)")
    args = parser.parse_args(argv)
    sizes = sorted(int(s) for s in args.sizes.split(","))
    if len(sizes) < 2 or sizes[0] < 2:
        parser.error("give at least two sizes, each at least 2")
    out = args.out or Path(tempfile.mkdtemp(prefix="usdjoints-pairs-"))
    out.mkdir(parents=True, exist_ok=True)
    import usdjoints  # noqa: F401  (PhysX schemas before any layer is written)
    from make_chain_stage import make_chain_stage

    print("load_model(contact=True): CPU s (wall s), pairs, filtered; exponent of the CPU time")
    for kind in ("chain", "field"):
        cpu = []
        for n in sizes:
            path = out / f"{kind}_{n}.usdc"
            if not path.exists():
                if kind == "chain":
                    make_chain_stage(path, n, chain_length=n, with_colliders=True)
                else:
                    write_field(path, n)
            r = run(path)
            cpu.append(r["cpu"])
            print(f"{kind:5s} {n:6d} colliders: {r['cpu']:7.2f} s ({r['seconds']:6.1f} s)  "
                  f"{r['pairs']:9d} pairs  {r['filtered']:7d} filtered", flush=True)
        print(f"{kind:5s} exponent {exponent(sizes, cpu):.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
