"""Structure-aware mutations of USD layers (through Sdf specs), then .usda text or .usdc bytes."""
from __future__ import annotations

import math
import os
import random
import tempfile

from pxr import Gf, Sdf, Vt

FLOATS = (math.nan, math.inf, -math.inf, 1e308, -1e308, 1e38, -1.0, 0.0, -0.0, 1e-45, 3.4e38, 1e20, -1e9)
TYPES = ("float", "double", "half", "int", "bool", "token", "string", "float3", "double3", "float2",
         "quatf", "quatd", "matrix4d", "float[]", "double[]", "token[]", "float3[]", "point3f[]", "quatf[]",
         "rel", "asset", "vector3f", "int[]", "uint", "int64", "color3f")
JOINT_TYPES = ("PhysicsRevoluteJoint", "PhysicsPrismaticJoint", "PhysicsSphericalJoint", "PhysicsFixedJoint",
               "PhysicsDistanceJoint", "PhysicsJoint", "PhysxPhysicsRackAndPinionJoint",
               "PhysxPhysicsGearJoint", "Xform", "Bogus", "Scope", "Cube", "")
SCHEMAS = ("PhysicsRigidBodyAPI", "PhysicsArticulationRootAPI", "PhysicsMassAPI", "PhysicsCollisionAPI",
           "PhysicsDriveAPI:angular", "PhysicsDriveAPI:linear", "PhysicsDriveAPI:rotX", "PhysicsLimitAPI:rotX",
           "PhysicsLimitAPI:transY", "PhysicsLimitAPI:distance", "PhysxJointAPI", "PhysxMimicJointAPI:rotZ",
           "PhysicsJointStateAPI:angular", "PhysxArticulationAPI", "PhysicsDriveAPI:", "PhysicsDriveAPI",
           "PhysxLimitAPI:angular", "PhysicsFilteredPairsAPI", "NotAnAPI")
ATTR_NAMES = ("physics:lowerLimit", "physics:upperLimit", "physics:axis", "physics:localPos0", "physics:localRot1",
              "drive:angular:physics:stiffness", "drive:angular:physics:maxForce", "physics:mass",
              "physics:diagonalInertia", "physics:principalAxes", "physics:centerOfMass", "physics:density",
              "limit:rotX:physics:low", "physics:gearRatio", "physics:ratio", "physics:breakForce",
              "physics:jointEnabled", "physics:excludeFromArticulation", "physics:gravityDirection",
              "physics:gravityMagnitude", "xformOp:translate", "xformOp:orient", "xformOp:scale",
              "xformOp:transform", "xformOp:rotateXYZ", "xformOpOrder", "physics:coneAngle0Limit",
              "physics:minDistance", "physics:velocity", "physics:rigidBodyEnabled", "physics:kinematicEnabled",
              "state:angular:physics:position", "physxJoint:maxJointVelocity", "physxMimicJoint:rotZ:gearing",
              "physics:approximation", "physics:collisionEnabled", "drive:angular:physics:type",
              "physics:simulationOwner")
REL_NAMES = ("physics:body0", "physics:body1", "physics:hinge0", "physics:hinge1", "physics:hinge",
             "physics:prismatic", "physxMimicJoint:rotZ:referenceJoint", "physics:simulationOwner",
             "physics:filteredPairs")


def odd_value(rng: random.Random, type_name: str):
    """A value of ``type_name`` chosen to be awkward: non-finite, huge, zero, degenerate."""
    f = rng.choice(FLOATS)
    t = Sdf.ValueTypeNames.Find(type_name)
    base = str(t.scalarType.type) if t else type_name
    if type_name.endswith("[]"):
        n = rng.choice((0, 1, 2, 5))
        scalar = odd_value(rng, type_name[:-2])
        try:
            return t.type.pythonClass([scalar] * n) if t and t.type.pythonClass else [scalar] * n
        except Exception:
            return [scalar] * n
    if type_name in ("float", "double", "half"):
        return f
    if type_name in ("int", "uint", "int64"):
        return rng.choice((0, -1, 2**31 - 1, 7, -(2**31)) if type_name != "uint" else (0, 1, 2**32 - 1))
    if type_name == "bool":
        return rng.random() < 0.5
    if type_name in ("token", "string"):
        return rng.choice(("", "X", "Y", "Z", "W", "bogus", "force", "acceleration", "convexHull", "ün", "x" * 500))
    if type_name == "asset":
        return Sdf.AssetPath(rng.choice(("", "missing.usda", "/dev/null", "@@")))
    if type_name in ("float3", "double3", "point3f", "vector3f", "color3f"):
        return Gf.Vec3d(f, rng.choice(FLOATS), 0.0) if rng.random() < 0.5 else Gf.Vec3d(0, 0, 0)
    if type_name == "float2":
        return Gf.Vec2f(f, 0.0)
    if type_name in ("quatf", "quatd"):
        return rng.choice((Gf.Quatd(0, 0, 0, 0), Gf.Quatd(math.nan, 0, 0, 0), Gf.Quatd(1e30, 1e30, 0, 0),
                           Gf.Quatd(-1, 0, 0, 0), Gf.Quatd(0.5, 0.5, 0.5, 0.5), Gf.Quatd(math.inf, 0, 0, 0)))
    if type_name == "matrix4d":
        return rng.choice((Gf.Matrix4d(0.0), Gf.Matrix4d(1.0).SetScale(Gf.Vec3d(0, 1, 1)),
                           Gf.Matrix4d(math.nan), Gf.Matrix4d(1e300), Gf.Matrix4d(-1.0)))
    return None


def _prims(layer) -> list:
    out = []
    layer.Traverse(Sdf.Path.absoluteRootPath,
                   lambda p: out.append(p) if p.IsPrimPath() and p != Sdf.Path.absoluteRootPath else None)
    return [layer.GetPrimAtPath(p) for p in out if layer.GetPrimAtPath(p)]


def _attributes(layer) -> list:
    return [a for prim in _prims(layer) for a in prim.attributes]


def _relationships(layer) -> list:
    return [r for prim in _prims(layer) for r in prim.relationships]


def _joints(layer) -> list:
    return [p for p in _prims(layer) if "Joint" in p.typeName]


def set_odd_value(rng, layer):
    attrs = _attributes(layer)
    if attrs:
        attr = rng.choice(attrs)
        value = Sdf.ValueBlock() if rng.random() < 0.15 else odd_value(rng, str(attr.typeName))
        try:
            attr.default = value
        except Exception:
            pass


def change_type(rng, layer):
    """Replace an attribute with one of the same name but another value type (or no value)."""
    attrs = _attributes(layer)
    if not attrs:
        return
    attr = rng.choice(attrs)
    prim, name = attr.owner, attr.name
    new_type = rng.choice(TYPES)
    prim.RemoveProperty(attr)
    if new_type == "rel":
        rel = Sdf.RelationshipSpec(prim, name, custom=False)
        rel.targetPathList.explicitItems = [prim.path]
        return
    type_name = Sdf.ValueTypeNames.Find(new_type)
    if not type_name:
        return
    spec = Sdf.AttributeSpec(prim, name, type_name)
    if rng.random() < 0.85:
        try:
            spec.default = odd_value(rng, new_type)
        except Exception:
            pass


def add_odd_attribute(rng, layer):
    prims = _prims(layer)
    if not prims:
        return
    prim = rng.choice(prims)
    name = rng.choice(ATTR_NAMES)
    if name in prim.properties:
        prim.RemoveProperty(prim.properties[name])
    new_type = rng.choice(TYPES[:-1] if name != "xformOpOrder" else ("token[]", "token", "string[]"))
    type_name = Sdf.ValueTypeNames.Find(new_type)
    if not type_name:
        return
    spec = Sdf.AttributeSpec(prim, name, type_name)
    if name == "xformOpOrder" and new_type == "token[]":
        spec.default = Vt.TokenArray(rng.sample(["xformOp:translate", "xformOp:orient", "xformOp:scale",
                                                 "xformOp:transform", "xformOp:bogus", "!resetXformStack!",
                                                 "xformOp:rotateXYZ"], rng.randint(0, 4)))
        return
    if rng.random() < 0.85:
        try:
            spec.default = odd_value(rng, new_type)
        except Exception:
            pass
    if rng.random() < 0.15:
        try:
            layer.SetTimeSample(spec.path, 1.0, odd_value(rng, new_type))
        except Exception:
            pass


def rel_targets(rng, layer):
    rels = _relationships(layer)
    prims = _prims(layer)
    if not rels or not prims:
        if prims:
            prim = rng.choice(prims)
            rel = Sdf.RelationshipSpec(prim, rng.choice(REL_NAMES), custom=False)
            rel.targetPathList.explicitItems = [rng.choice(prims).path]
        return
    rel = rng.choice(rels)
    choice = rng.randrange(7)
    paths = [p.path for p in prims]
    if choice == 0:
        rel.targetPathList.ClearEdits()
    elif choice == 1:
        rel.targetPathList.explicitItems = [Sdf.Path("/Nowhere/At/All")]
    elif choice == 2:
        rel.targetPathList.explicitItems = rng.sample(paths, min(len(paths), 3))
    elif choice == 3:
        rel.targetPathList.explicitItems = [rel.owner.path]  # itself
    elif choice == 4:
        rel.targetPathList.explicitItems = [Sdf.Path.absoluteRootPath]
    elif choice == 5:
        rel.targetPathList.explicitItems = [rng.choice(paths).AppendProperty("physics:mass")]
    else:
        rel.targetPathList.explicitItems = [Sdf.Path("../../../../x")]


def duplicate_joint(rng, layer):
    joints = _joints(layer) or _prims(layer)
    if not joints:
        return
    joint = rng.choice(joints)
    parent = joint.path.GetParentPath()
    for i in range(rng.choice((1, 3, 50))):
        dst = parent.AppendChild(f"{joint.name}_dup{i}")
        if layer.GetPrimAtPath(dst):
            continue
        Sdf.CopySpec(layer, joint.path, layer, dst)


def delete_prim(rng, layer):
    prims = _prims(layer)
    if prims:
        prim = rng.choice(prims)
        parent = prim.nameParent or layer.pseudoRoot
        del parent.nameChildren[prim.name]


def change_schemas(rng, layer):
    prims = _prims(layer)
    if not prims:
        return
    prim = rng.choice(prims)
    items = list(prim.GetInfo("apiSchemas").GetAddedOrExplicitItems()) if prim.HasInfo("apiSchemas") else []
    if items and rng.random() < 0.4:
        items.remove(rng.choice(items))
    else:
        items.append(rng.choice(SCHEMAS))
    prim.SetInfo("apiSchemas", Sdf.TokenListOp.Create(prependedItems=items))


def change_prim_type(rng, layer):
    prims = _prims(layer)
    if prims:
        rng.choice(prims).typeName = rng.choice(JOINT_TYPES)


def layer_metadata(rng, layer):
    key = rng.choice(("metersPerUnit", "kilogramsPerUnit", "upAxis"))
    if key == "upAxis":
        layer.pseudoRoot.SetInfo(key, rng.choice(("X", "W", "", "y", "Z")))
    else:
        layer.pseudoRoot.SetInfo(key, rng.choice(FLOATS))


def composition(rng, layer):
    """Internal references and inherits that cycle or dangle."""
    prims = _prims(layer)
    if not prims:
        return
    prim = rng.choice(prims)
    target = rng.choice(prims + [prim])
    arc = rng.randrange(4)
    if arc == 0:
        prim.referenceList.prependedItems.append(Sdf.Reference("", target.path))
        target.referenceList.prependedItems.append(Sdf.Reference("", prim.path))
    elif arc == 1:
        prim.inheritPathList.prependedItems.append(target.path)
        target.inheritPathList.prependedItems.append(prim.path)
    elif arc == 2:
        prim.referenceList.prependedItems.append(Sdf.Reference("", Sdf.Path("/Missing")))
    else:
        prim.specializesList.prependedItems.append(target.path)


def instance(rng, layer):
    prims = _prims(layer)
    if prims:
        rng.choice(prims).instanceable = True


# ---------------------------------------------------------------------------------------------
# What real stages bring: composition over files (sublayers, references, payloads, clips) and
# variants, instancing and its prototypes, time samples, arrays for scalars, extreme units.

# the files a case folder holds beside its input (see companion_files): a layer, a second one
# whose joint has odd values, the marker file (its content must never be printed) and a folder
COMPANIONS = ("layer.usda", "odd.usda", "secret.txt", "input.usda", "input.usdc", "missing.usda", ".",
              "folder", "folder/deep.usda", "/dev/null", "/dev/zero", "fifo.usda", "loop.usda", "", "@",
              "layer.usda:SDF_FORMAT_ARGS:format=usdc", "layer.usdc", "layer.usdz", "http://example.com/a.usda",
              "odd.usda", "layer.usda")


def companion_files(directory, rng: random.Random, seed_text: bytes) -> list[str]:
    """Files beside a case's input that its layers may name: returns the names written."""
    from pathlib import Path

    directory = Path(directory)
    (directory / "layer.usda").write_bytes(seed_text)
    odd, _ = mutate_layer(seed_text, rng)
    (directory / "odd.usda").write_bytes(to_usda(odd) if odd is not None else seed_text)
    (directory / "folder").mkdir(exist_ok=True)
    (directory / "folder" / "deep.usda").write_bytes(b"#usda 1.0\n(\n    subLayers = [@../layer.usda@]\n)\n")
    names = ["layer.usda", "odd.usda", "folder/deep.usda"]
    try:
        os.mkfifo(directory / "fifo.usda")
        names.append("fifo.usda")
    except OSError:
        pass
    try:
        os.symlink("loop.usda", directory / "loop.usda")
        names.append("loop.usda")
    except OSError:
        pass
    return names


def _asset(rng) -> str:
    return rng.choice(COMPANIONS)


def sublayers(rng, layer):
    """Sublayers: the companions, the input itself (a cycle), missing files, special files, with offsets."""
    paths = list(layer.subLayerPaths)
    for _ in range(rng.choice((1, 1, 2, 3))):
        paths.insert(rng.randrange(len(paths) + 1), _asset(rng))
    layer.subLayerPaths = paths
    if rng.random() < 0.3 and len(layer.subLayerPaths):
        offsets = [Sdf.LayerOffset(rng.choice((0.0, 10.0, math.nan, 1e300)), rng.choice((1.0, 0.0, -1.0, 1e-300)))
                   for _ in layer.subLayerPaths]
        try:
            layer.subLayerOffsets[:] = offsets
        except Exception:
            for i, offset in enumerate(offsets):
                try:
                    layer.subLayerOffsets[i] = offset
                except Exception:
                    pass


def external_arcs(rng, layer):
    """References and payloads to the companion layers (their default prim, a named prim, a missing
    one), on a body, a joint or a new prim."""
    prims = _prims(layer)
    if not prims:
        return
    prim = rng.choice(prims) if rng.random() < 0.7 else Sdf.PrimSpec(layer.pseudoRoot, "Extra", Sdf.SpecifierDef,
                                                                       "Xform")
    for _ in range(rng.choice((1, 1, 2))):
        asset = _asset(rng)
        target = rng.choice((Sdf.Path(), Sdf.Path("/World"), Sdf.Path("/World/Hinge"), Sdf.Path("/Missing"),
                             rng.choice(prims).path))
        if rng.random() < 0.5:
            prim.referenceList.prependedItems.append(
                Sdf.Reference(asset, target, Sdf.LayerOffset(rng.choice((0.0, 5.0)), rng.choice((1.0, -2.0)))))
        else:
            prim.payloadList.prependedItems.append(Sdf.Payload(asset, target))


def variants(rng, layer):
    """A variant set whose variants override a joint or a body (odd values, another type, a deleted
    relationship), selected, unselected or selecting a variant that does not exist."""
    prims = _prims(layer)
    if not prims:
        return
    host = rng.choice([p for p in prims if p.path.IsPrimPath() and p.path.pathElementCount == 1] or prims)
    name = rng.choice(("v", "physics", "lod"))
    vset = Sdf.VariantSetSpec(host, name)
    descendants = [p for p in prims if p.path.HasPrefix(host.path) and p.path != host.path]
    for variant_name in rng.sample(("a", "b", "c", "empty"), rng.randint(1, 3)):
        variant = Sdf.VariantSpec(vset, variant_name)
        if variant_name == "empty" or not descendants:
            continue
        source = rng.choice(descendants)
        relative = source.path.MakeRelativePath(host.path)
        over = variant.primSpec
        for element in str(relative).split("/"):
            child = over.nameChildren.get(element) if element in over.nameChildren else None
            over = child or Sdf.PrimSpec(over, element, Sdf.SpecifierOver)
        if rng.random() < 0.3:
            over.typeName = rng.choice(JOINT_TYPES)
        for attr in list(source.attributes)[: rng.randint(1, 3)]:
            spec = Sdf.AttributeSpec(over, attr.name, attr.typeName)
            try:
                spec.default = odd_value(rng, str(attr.typeName))
            except Exception:
                pass
        if rng.random() < 0.3:
            rel = Sdf.RelationshipSpec(over, rng.choice(REL_NAMES), custom=False)
            rel.targetPathList.explicitItems = [rng.choice(prims).path]
    host.variantSetNameList.prependedItems.append(name)
    if rng.random() < 0.8:
        host.variantSelections[name] = rng.choice(("a", "b", "c", "empty", "missing", ""))


def prototype_targets(rng, layer):
    """Instanceable prims, with joints' bodies pointing into them (instance proxies), at prototype
    paths (/__Prototype_1) or at an instance itself."""
    prims = _prims(layer)
    bodies = [p for p in prims if "PhysicsRigidBodyAPI" in str(p.GetInfo("apiSchemas"))] if prims else []
    if not prims:
        return
    candidates = [p for p in prims if p.nameChildren] or prims
    instance = rng.choice(candidates)
    if rng.random() < 0.7 and bodies:
        referenced = rng.choice(bodies)
        copy_path = Sdf.Path("/Instanced%d" % rng.randrange(3))
        if not layer.GetPrimAtPath(copy_path):
            holder = Sdf.PrimSpec(layer.pseudoRoot, copy_path.name, Sdf.SpecifierDef, "Xform")
            holder.instanceable = True
            holder.referenceList.prependedItems.append(Sdf.Reference("", referenced.path.GetParentPath()
                                                                     if referenced.path.pathElementCount > 1
                                                                     else referenced.path))
        instance_path = copy_path
    else:
        instance.instanceable = True
        instance_path = instance.path
    rels = _relationships(layer)
    if not rels:
        return
    rel = rng.choice(rels)
    child = rng.choice(bodies).path.name if bodies else "Base"
    rel.targetPathList.explicitItems = [rng.choice((instance_path.AppendChild(child), instance_path,
                                                    Sdf.Path("/__Prototype_1"), Sdf.Path("/__Prototype_1/" + child),
                                                    instance_path.AppendChild(child).AppendProperty("physics:mass")))]


def time_samples(rng, layer):
    """Joint and body columns authored as time samples (beside a default or instead of one), with
    odd times; a time-sampled relationship-like value; a stage time range."""
    attrs = [a for a in _attributes(layer) if a.variability != Sdf.VariabilityUniform] or _attributes(layer)
    for attr in rng.sample(attrs, min(len(attrs), rng.choice((1, 2, 5)))):
        if rng.random() < 0.5:
            attr.ClearDefaultValue()
        value = attr.default if attr.HasDefaultValue() else None
        for time in rng.sample((0.0, 1.0, -1.0, 1e300, -1e300, 0.5, 24.0), rng.randint(1, 3)):
            sample = value if value is not None and rng.random() < 0.3 else odd_value(rng, str(attr.typeName))
            if sample is None:
                continue
            try:
                layer.SetTimeSample(attr.path, time, sample)
            except Exception:
                pass
    if rng.random() < 0.5:
        layer.startTimeCode = rng.choice((0.0, 1.0, -1e300, math.nan))
        layer.endTimeCode = rng.choice((0.0, 10.0, 1e300, -5.0))
        layer.timeCodesPerSecond = rng.choice((24.0, 0.0, -1.0, math.inf, 1e-300))


def arrays_for_scalars(rng, layer):
    """A joint's or body's scalar or vector column re-authored as an array of its type."""
    attrs = [a for a in _attributes(layer) if not str(a.typeName).endswith("[]")]
    if not attrs:
        return
    attr = rng.choice(attrs)
    array_type = Sdf.ValueTypeNames.Find(str(attr.typeName) + "[]")
    if not array_type:
        return
    prim, name, variability = attr.owner, attr.name, attr.variability
    value = attr.default if attr.HasDefaultValue() else None
    prim.RemoveProperty(attr)
    spec = Sdf.AttributeSpec(prim, name, array_type, variability=variability)
    count = rng.choice((0, 1, 2, 3, 1000))
    try:
        item = value if value is not None and rng.random() < 0.7 else odd_value(rng, str(array_type.scalarType))
        spec.default = array_type.type.pythonClass([item] * count)
    except Exception:
        pass


def extreme_units(rng, layer):
    """Stage units far from metres and kilograms (1e-300 .. 1e300), and an odd up axis beside them."""
    for key in rng.sample(("metersPerUnit", "kilogramsPerUnit"), rng.randint(1, 2)):
        layer.pseudoRoot.SetInfo(key, rng.choice((1e-300, 1e300, 1e-9, 1e9, 1e-38, 3.5e38, 5e-324, 0.0254, 1e-12)))
    if rng.random() < 0.3:
        layer.pseudoRoot.SetInfo("upAxis", rng.choice(("Y", "Z", "X")))


def value_clips(rng, layer):
    """Value clips naming the companion layers (and special files) on a joint or body."""
    prims = _prims(layer)
    if not prims:
        return
    prim = rng.choice(prims)
    clips = {"default": {"assetPaths": Sdf.AssetPathArray([_asset(rng) for _ in range(rng.randint(1, 2))]),
                         "primPath": str(rng.choice(prims).path),
                         "active": Vt.Vec2dArray([(0.0, 0.0)]), "times": Vt.Vec2dArray([(0.0, 0.0)])}}
    prim.SetInfo("clips", clips)


MUTATIONS = (set_odd_value, set_odd_value, change_type, change_type, add_odd_attribute, add_odd_attribute,
             rel_targets, rel_targets, duplicate_joint, delete_prim, change_schemas, change_prim_type,
             layer_metadata, composition, instance, sublayers, external_arcs, variants, prototype_targets,
             time_samples, arrays_for_scalars, extreme_units, value_clips)


def text_mutation(text: bytes, rng) -> tuple[bytes, str]:
    """Byte-level damage to .usda text: invalid UTF-8 in a name or string, a deleted line."""
    roll = rng.random()
    if roll < 0.5:
        bad = rng.choice((b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\x80\x80", b"\xfe"))
        spots = [i + 1 for i in range(len(text)) if text[i:i + 1] == b'"'] or [len(text) // 2]
        at = rng.choice(spots)
        return text[:at] + bad + text[at:], "invalid_utf8"
    lines = text.split(b"\n")
    if len(lines) > 3:
        del lines[rng.randrange(1, len(lines))]
    return b"\n".join(lines), "drop_line"


def mutate_layer(data: bytes, rng: random.Random) -> tuple[object, list[str]]:
    layer = Sdf.Layer.CreateAnonymous(".usda")
    if not layer.ImportFromString(data.decode("utf-8", "replace")):
        return None, []
    applied = []
    for _ in range(rng.choice((1, 1, 2, 3, 4))):
        op = rng.choice(MUTATIONS)
        try:
            op(rng, layer)
        except Exception:
            continue
        applied.append(op.__name__)
    return layer, applied


def to_usda(layer) -> bytes:
    return layer.ExportToString().encode("utf-8")


def to_usdc(layer) -> bytes:
    fd, path = tempfile.mkstemp(suffix=".usdc")
    os.close(fd)
    try:
        if not layer.Export(path):
            raise RuntimeError("export failed")
        with open(path, "rb") as f:
            return f.read()
    finally:
        os.unlink(path)


def crate_sections(data: bytes) -> list[tuple[str, int, int, int]]:
    """The crate's table of contents: (name, start, size, offset of the entry) per section."""
    import struct

    if len(data) < 24 or not data.startswith(b"PXR-USDC"):
        return []
    (toc,) = struct.unpack_from("<q", data, 16)
    if not 0 <= toc <= len(data) - 8:
        return []
    (count,) = struct.unpack_from("<Q", data, toc)
    sections = []
    for i in range(min(count, 32)):
        at = toc + 8 + i * 32
        if at + 32 > len(data):
            break
        name = data[at:at + 16].split(b"\0", 1)[0].decode("ascii", "replace")
        start, size = struct.unpack_from("<qq", data, at + 16)
        sections.append((name, start, size, at))
    return sections


def corrupt_section(data: bytes, rng) -> tuple[bytes, str]:
    """Damage one named section of the crate (TOKENS, STRINGS, FIELDS, FIELDSETS, PATHS, SPECS) or
    its table-of-contents entry: a start or size out of range, a count inflated, bytes flipped."""
    import struct

    sections = crate_sections(data)
    if not sections:
        return corrupt_crate(data, rng)
    name, start, size, entry = rng.choice(sections)
    out = bytearray(data)
    roll = rng.randrange(4)
    if roll == 0:
        struct.pack_into("<q", out, entry + 16, rng.choice((-1, 0, len(data), len(data) - 1, 2**62, start + 1)))
        return bytes(out), f"section_{name}_start"
    if roll == 1:
        struct.pack_into("<q", out, entry + 24, rng.choice((-1, 0, size * 1000, 2**40, size - 1, 2**63 - 1)))
        return bytes(out), f"section_{name}_size"
    if roll == 2 and 0 <= start < len(data) - 8:  # the leading count of most sections
        struct.pack_into("<Q", out, start, rng.choice((0, 1, 2**32, 2**63, 0xFFFFFFFF, 12345678)))
        return bytes(out), f"section_{name}_count"
    for _ in range(rng.randint(1, 4)):
        if size > 0 and 0 <= start < len(data):
            at = start + rng.randrange(max(1, min(size, len(data) - start)))
            out[at] = rng.randrange(256)
    return bytes(out), f"section_{name}_flip"


def corrupt_crate(data: bytes, rng) -> tuple[bytes, str]:
    out = bytearray(data)
    roll = rng.randrange(5)
    if roll == 0:
        return bytes(out[: rng.randrange(8, max(9, len(out)))]), "truncate"
    if roll == 1:
        for _ in range(rng.randint(1, 8)):
            out[rng.randrange(len(out))] = rng.randrange(256)
        return bytes(out), "flip"
    if roll == 2:
        start = rng.randrange(len(out))
        for i in range(start, min(len(out), start + rng.randint(1, 64))):
            out[i] = rng.choice((0, 0xFF))
        return bytes(out), "zero_range"
    if roll == 3:  # the table of contents sits at the end: damage there
        start = max(0, len(out) - rng.randint(1, 256))
        out[start] = rng.randrange(256)
        return bytes(out), "toc"
    start = rng.randrange(len(out))
    chunk = out[start:start + rng.randint(1, 128)]
    return bytes(out[:start] + chunk + out[start:]), "insert"


def mutate(data: bytes, kind: str, rng: random.Random, directory=None) -> tuple[bytes, list[str]]:
    """A mutated .usda text or .usdc crate from a .usda seed (``directory``: the case folder, where
    the companion layers its arcs may name are written first)."""
    if directory is not None and rng.random() < 0.3:
        companion_files(directory, rng, data)
    layer, applied = mutate_layer(data, rng)
    if layer is None:
        return data, []
    if kind == "usda":
        text = to_usda(layer)
        if rng.random() < 0.08:
            text, what = text_mutation(text, rng)
            applied.append(what)
        return text, applied
    crate = to_usdc(layer)
    if rng.random() < 0.35:
        crate, what = (corrupt_section if rng.random() < 0.4 else corrupt_crate)(crate, rng)
        applied.append("crate_" + what)
    return crate, applied
