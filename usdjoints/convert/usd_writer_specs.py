"""Sdf authoring of the writer's most common prims (links, box/sphere/cylinder/capsule shapes,
single-axis, fixed and ball joints), spec for spec what the Usd API calls of usd_writer,
usd_writer_geometry and usd_writer_joints author.

The Usd API recomposes the working stage's prim on every edit: about 0.5 ms per link of a chain,
most of a conversion's time. Here each prim is an ``Sdf.PrimSpec`` written straight into the
batch's parked layer (:meth:`BatchedStage.author`), with the attributes, list ops, relationship
targets and metadata the Usd API gives it, in the same order, so the output layer is the same
byte for byte (tests/convert/test_usd_writer_specs.py makes both and compares them). Prims of
other kinds, or with materials, surfaces, meshes, sensors or plugins, stay with the Usd API.
"""
from __future__ import annotations

import functools

from pxr import Gf, Sdf, Usd

_T = Sdf.ValueTypeNames

#: The schema that declares each attribute written here; its value type and variability are
#: read from that schema's definition (:func:`_declared`), as the Usd API's Create...Attr use them.
_DECLARED_BY = {
    "xformOpOrder": "Xform",
    "purpose": "Cube",
    "size": "Cube",
    "radius": "Sphere",
    "height": "Cylinder",
    "axis": "Cylinder",
    "physics:kinematicEnabled": "PhysicsRigidBodyAPI",
    "physxRigidBody:disableGravity": "PhysxRigidBodyAPI",
    "physxRigidBody:linearDamping": "PhysxRigidBodyAPI",
    "physxRigidBody:angularDamping": "PhysxRigidBodyAPI",
    "physics:mass": "PhysicsMassAPI",
    "physics:centerOfMass": "PhysicsMassAPI",
    "physics:diagonalInertia": "PhysicsMassAPI",
    "physics:principalAxes": "PhysicsMassAPI",
    "physics:excludeFromArticulation": "PhysicsRevoluteJoint",
    "physics:localPos0": "PhysicsRevoluteJoint",
    "physics:localRot0": "PhysicsRevoluteJoint",
    "physics:localPos1": "PhysicsRevoluteJoint",
    "physics:localRot1": "PhysicsRevoluteJoint",
    "physics:axis": "PhysicsRevoluteJoint",
    "physics:lowerLimit": "PhysicsRevoluteJoint",
    "physics:upperLimit": "PhysicsRevoluteJoint",
    # multiple-apply schemas: the instance's name is written __INSTANCE_NAME__
    "drive:__INSTANCE_NAME__:physics:type": "PhysicsDriveAPI",
    "drive:__INSTANCE_NAME__:physics:stiffness": "PhysicsDriveAPI",
    "drive:__INSTANCE_NAME__:physics:damping": "PhysicsDriveAPI",
    "drive:__INSTANCE_NAME__:physics:maxForce": "PhysicsDriveAPI",
    "drive:__INSTANCE_NAME__:physics:targetPosition": "PhysicsDriveAPI",
    "physxJointAxis:__INSTANCE_NAME__:maxJointVelocity": "PhysxJointAxisAPI",
    "physxJointAxis:__INSTANCE_NAME__:viscousFrictionCoefficient": "PhysxJointAxisAPI",
    "physxJointAxis:__INSTANCE_NAME__:staticFrictionEffort": "PhysxJointAxisAPI",
    "physxJointAxis:__INSTANCE_NAME__:dynamicFrictionEffort": "PhysxJointAxisAPI",
    "state:__INSTANCE_NAME__:physics:position": "PhysicsJointStateAPI",
    "state:__INSTANCE_NAME__:physics:velocity": "PhysicsJointStateAPI",
}

#: xformOp attributes are declared by no schema: AddTranslateOp / AddScaleOp (default
#: precision) type them so; the orient op's type follows the value given.
_OPS = {"xformOp:translate": _T.Double3, "xformOp:scale": _T.Float3}


@functools.lru_cache(maxsize=None)
def _declared(name: str) -> tuple[Sdf.ValueTypeName, Sdf.Variability]:
    """The value type and variability the schema declaring ``name`` gives it."""
    registry = Usd.SchemaRegistry()
    schema = _DECLARED_BY[name]
    definition = registry.FindConcretePrimDefinition(schema) or registry.FindAppliedAPIPrimDefinition(schema)
    declared = definition.GetAttributeDefinition(name)
    return _T.Find(str(declared.GetTypeName())), declared.GetVariability()


def attribute(spec: Sdf.PrimSpec, name: str, value, instance: str | None = None) -> Sdf.AttributeSpec:
    """A schema attribute with its default value, as the schema's ``Create...Attr(value)`` (or
    ``CreateAttribute`` of an attribute an applied schema declares) writes it: not custom.
    ``instance``: the instance name of a multiple-apply schema, which ``name`` contains."""
    if name in _OPS:
        type_name, variability = _OPS[name], Sdf.VariabilityVarying
    elif name == "xformOp:orient":
        type_name, variability = (_T.Quatd if isinstance(value, Gf.Quatd) else _T.Quatf), Sdf.VariabilityVarying
    else:
        declared = name if instance is None else name.replace(f":{instance}:", ":__INSTANCE_NAME__:", 1)
        type_name, variability = _declared(declared)
    attr = Sdf.AttributeSpec(spec, name, type_name, variability)  # declaresCustom False
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
    attribute(spec, "xformOp:orient", orient)
    if scale is not None:
        attribute(spec, "xformOp:scale", scale)


_ORDER_TR = ["xformOp:translate", "xformOp:orient"]
_ORDER_TRS = ["xformOp:translate", "xformOp:orient", "xformOp:scale"]


def relationship(spec: Sdf.PrimSpec, name: str, targets: list[Sdf.Path]) -> None:
    """A schema relationship with ``SetTargets(targets)``."""
    rel = Sdf.RelationshipSpec(spec, name, False, Sdf.VariabilityUniform)  # relationships are uniform
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
