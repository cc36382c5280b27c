"""Raw fallbacks read live from OpenUSD's schema registry, never typed into Python.

Concrete joint types come from their concrete prim definition, applied APIs from their API
prim definition (multiple-apply APIs declare their properties on the ``__INSTANCE_NAME__``
template), and the stage units from the layer-metadata fallbacks the Sdf schema registers.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Optional

from .._schemas import ensure_physx_schemas

STAGE_OWNER = "stage"
APPLIED_SCHEMAS = "apiSchemas"  # the prim metadata listing applied APIs
_TEMPLATE = "__INSTANCE_NAME__"


class UnknownSchemaProperty(LookupError):
    """The registry knows no such schema, or the schema declares no such property."""


def _registry():
    ensure_physx_schemas()
    from pxr import Usd

    return Usd.SchemaRegistry()


@lru_cache(maxsize=None)
def prim_definition(owner: str):
    """The prim definition of a concrete type or an applied API named ``owner`` (None if unknown)."""
    registry = _registry()
    definition = registry.FindConcretePrimDefinition(owner)
    if definition is None:
        definition = registry.FindAppliedAPIPrimDefinition(owner)
    return definition


def is_multiple_apply(owner: str) -> bool:
    from pxr import Usd

    _registry()
    return bool(Usd.SchemaRegistry.IsMultipleApplyAPISchema(owner))


def template_name(name: str) -> str:
    """The registry spelling of a contract column name (``<inst>`` -> ``__INSTANCE_NAME__``)."""
    return name.replace("<inst>", _TEMPLATE)


@lru_cache(maxsize=None)
def property_names(owner: str) -> tuple[str, ...]:
    """Every property the schema declares, in contract spelling (``<inst>`` for the instance)."""
    definition = prim_definition(owner)
    if definition is None:
        raise UnknownSchemaProperty(f"{owner}: not a schema known to the registry")
    return tuple(n.replace(_TEMPLATE, "<inst>") for n in definition.GetPropertyNames())


def to_python(value: Any) -> Any:
    """A VtValue payload as plain Python: floats, tuples (quaternions as (w, x, y, z)), str."""
    from pxr import Gf, Sdf

    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (Gf.Quatf, Gf.Quatd, Gf.Quath)):
        imaginary = value.GetImaginary()
        return (float(value.GetReal()), float(imaginary[0]), float(imaginary[1]), float(imaginary[2]))
    if isinstance(value, Sdf.AssetPath):
        return value.path
    if hasattr(value, "__len__") and not isinstance(value, (bytes, bytearray)):
        return tuple(to_python(v) for v in value)
    return str(value)  # a TfToken reaches Python as str already; anything else is named


@lru_cache(maxsize=None)
def _stage_fallback(name: str) -> Any:
    from pxr import Sdf, UsdGeom

    _registry()
    if name == "upAxis":
        return str(UsdGeom.GetFallbackUpAxis())
    # metersPerUnit (UsdGeom) and kilogramsPerUnit (UsdPhysics) are layer metadata fields whose
    # fallbacks their plugins register with the Sdf schema. The layer must outlive its spec.
    layer = Sdf.Layer.CreateAnonymous(".usda")
    spec = layer.pseudoRoot
    if name not in spec.GetMetaDataInfoKeys():
        raise UnknownSchemaProperty(f"{STAGE_OWNER}: no layer metadata field {name!r}")
    return to_python(spec.GetFallbackForInfo(name))


@lru_cache(maxsize=None)
def raw_fallback(owner: str, name: str, instance: Optional[str] = None) -> Any:
    """The schema's fallback for ``owner``'s property ``name``, as a plain Python value.

    ``name`` may use ``<inst>`` or a concrete instance (with ``instance`` naming it, or embedded
    in the name). Relationships and properties without a fallback give None. Raises
    :class:`UnknownSchemaProperty` when the registry has no such schema or property.
    """
    if owner == STAGE_OWNER:
        return _stage_fallback(name)
    definition = prim_definition(owner)
    if definition is None:
        raise UnknownSchemaProperty(f"{owner}: not a schema known to the registry")
    if name == APPLIED_SCHEMAS and owner in definition.GetAppliedAPISchemas():
        return None  # an applied API has no fallback presence: it is listed or it is not
    registry_name = template_name(name)
    if instance and instance in registry_name.split(":"):
        registry_name = registry_name.replace(f":{instance}:", f":{_TEMPLATE}:", 1)
    names = definition.GetPropertyNames()
    if registry_name not in names and is_multiple_apply(owner):
        parts = registry_name.split(":")
        for i in range(len(parts)):
            candidate = ":".join(parts[:i] + [_TEMPLATE] + parts[i + 1:])
            if candidate in names:
                registry_name = candidate
                break
    if registry_name not in names:
        raise UnknownSchemaProperty(f"{owner}: the schema declares no property {name!r}")
    if definition.GetSchemaRelationshipSpec(registry_name) is not None:
        return None
    return to_python(definition.GetAttributeFallbackValue(registry_name))


@lru_cache(maxsize=None)
def value_type_name(owner: str, name: str) -> str:
    """The Sdf value type name the schema declares (``"rel"`` for a relationship)."""
    definition = prim_definition(owner)
    if definition is None:
        raise UnknownSchemaProperty(f"{owner}: not a schema known to the registry")
    registry_name = template_name(name)
    if definition.GetSchemaRelationshipSpec(registry_name) is not None:
        return "rel"
    spec = definition.GetSchemaAttributeSpec(registry_name)
    if spec is None:
        raise UnknownSchemaProperty(f"{owner}: the schema declares no property {name!r}")
    return str(spec.typeName)
