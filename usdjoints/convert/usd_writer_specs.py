"""Sdf authoring of the writer's most common prims (links, box/sphere/cylinder/capsule shapes,
single-axis, fixed and ball joints), spec for spec what the Usd API calls of usd_writer,
usd_writer_geometry and usd_writer_joints author.

The Usd API recomposes the working stage's prim on every edit: about 0.5 ms per link of a chain,
most of a conversion's time. Here each prim is an ``Sdf.PrimSpec`` written straight into the
batch's parked layer (:meth:`BatchedStage.author`), with the attributes, list ops, relationship
targets and metadata the Usd API gives it, in the same order, so the output layer is the same
byte for byte (tests/convert/test_usd_writer_specs.py makes both and compares them). Prims of
other kinds, or with materials, surfaces, extras or custom data, stay with the Usd API.
"""
from __future__ import annotations

from pxr import Gf, Sdf

_T = Sdf.ValueTypeNames
_UNIFORM = Sdf.VariabilityUniform

#: The schema attributes written here: value type and whether it is uniform, as the schemas
#: (UsdGeom, UsdPhysics, PhysxSchema) declare them.
_SCHEMA: dict[str, tuple] = {
    "xformOp:translate": (_T.Double3, False),
    "xformOpOrder": (_T.TokenArray, True),
    "xformOp:scale": (_T.Float3, False),
    "purpose": (_T.Token, True),
    "size": (_T.Double, False),
    "radius": (_T.Double, False),
    "height": (_T.Double, False),
    "axis": (_T.Token, True),
    "physics:kinematicEnabled": (_T.Bool, False),
    "physxRigidBody:disableGravity": (_T.Bool, False),
    "physics:mass": (_T.Float, False),
    "physics:centerOfMass": (_T.Point3f, False),
    "physics:diagonalInertia": (_T.Float3, False),
    "physics:principalAxes": (_T.Quatf, False),
    "physics:excludeFromArticulation": (_T.Bool, True),
    "physics:localPos0": (_T.Point3f, False),
    "physics:localRot0": (_T.Quatf, False),
    "physics:localPos1": (_T.Point3f, False),
    "physics:localRot1": (_T.Quatf, False),
    "physics:axis": (_T.Token, True),
    "physics:lowerLimit": (_T.Float, False),
    "physics:upperLimit": (_T.Float, False),
}


def attribute(spec: Sdf.PrimSpec, name: str, value, type_name=None, uniform: bool | None = None) -> Sdf.AttributeSpec:
    """A non-custom attribute with its default value, as a schema's ``Create...Attr(value)``."""
    if type_name is None:
        type_name, uniform = _SCHEMA[name]
    attr = Sdf.AttributeSpec(spec, name, type_name, _UNIFORM if uniform else Sdf.VariabilityVarying)  # not custom
    attr.default = value
    return attr


def define(parent: Sdf.PrimSpec, name: str, type_name: str) -> Sdf.PrimSpec:
    """``Usd.Stage.DefinePrim`` under an existing parent spec."""
    return Sdf.PrimSpec(parent, name, Sdf.SpecifierDef, type_name)


def apply_schemas(spec: Sdf.PrimSpec, names: list[str]) -> None:
    """``Usd.Prim.AddAppliedSchema`` for each name in turn (a prepended list op)."""
    if names:
        spec.SetInfo("apiSchemas", Sdf.TokenListOp.Create(prependedItems=names))


def xform_ops(spec: Sdf.PrimSpec, translate: Gf.Vec3d, orient, scale: Gf.Vec3f | None = None) -> None:
    """``AddTranslateOp().Set``, ``AddOrientOp().Set`` (quatd or quatf as given) and, with
    ``scale``, ``AddScaleOp().Set``. The first op creates xformOpOrder, so it comes second; its
    value is the last one the ops give it, naming them all."""
    attribute(spec, "xformOp:translate", translate)
    attribute(spec, "xformOpOrder", _ORDER_TRS if scale is not None else _ORDER_TR)
    attribute(spec, "xformOp:orient", orient, _T.Quatd if isinstance(orient, Gf.Quatd) else _T.Quatf, False)
    if scale is not None:
        attribute(spec, "xformOp:scale", scale)


_ORDER_TR = ["xformOp:translate", "xformOp:orient"]
_ORDER_TRS = ["xformOp:translate", "xformOp:orient", "xformOp:scale"]


def relationship(spec: Sdf.PrimSpec, name: str, targets: list[Sdf.Path]) -> None:
    """A schema relationship with ``SetTargets(targets)``."""
    rel = Sdf.RelationshipSpec(spec, name, False, _UNIFORM)
    rel.targetPathList.explicitItems = targets


def custom_data(spec: Sdf.PrimSpec, key_path: str, value) -> None:
    """``SetCustomDataByKey``: a ``:`` in the key nests dictionaries."""
    data = dict(spec.customData)
    *parents, leaf = key_path.split(":")
    node = data
    for key in parents:
        existing = node.get(key)
        node[key] = dict(existing) if isinstance(existing, dict) else {}  # a value there is replaced
        node = node[key]
    node[leaf] = value
    spec.customData = data
