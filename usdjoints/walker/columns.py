"""Reading a prim's columns with their provenance.

Reading splits in two. :class:`Signatures` reads what a prim authors once (consumer-independent:
values, blocks, time samples, relationship targets) into a :class:`RawColumns`; a
:class:`ColumnView` then dresses those raw values as :class:`Resolved` columns for one consumer.
Many prims share a schema signature (type name plus applied API schemas), so the per-column facts
(owner, raw fallback, producer value, each consumer's parser default) are worked out once per
signature.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping, NamedTuple

from pxr import Gf, Tf

from .. import contract
from ..contract.registry import to_python as _to_python_general
from ..profiles import PROFILES
from ..provenance import Resolved, Source

_PLAIN = (float, bool, str, int, type(None))
_SCALARS = frozenset({float, bool, str, int})
_VALUES = (float, bool, str, int, tuple)  # parser defaults that are values (not a Marker or UnitsScaled)
_VECTORS = (Gf.Vec3f, Gf.Vec3d, Gf.Vec2f, Gf.Vec2d, Gf.Vec4f, Gf.Vec4d)  # float and double: a buffer
_HALF_VECTORS = (Gf.Vec3h, Gf.Vec2h, Gf.Vec4h)  # half floats: Python's buffers do not read them
_QUATERNIONS = (Gf.Quatf, Gf.Quatd, Gf.Quath)
# Types whose Python reading has the same shape whenever the type is the fallback's (arrays do not)
_FIXED_SHAPES = frozenset(_SCALARS | set(_VECTORS) | set(_HALF_VECTORS) | set(_QUATERNIONS))
_IGNORED = frozenset({"proxyPrim", "purpose", "visibility", "xformOpOrder"})
BLOCKED = object()  # a raw value: an opinion blocks the attribute
WRONG_TYPE = "authored with another value type than the schema declares"
_new_resolved = tuple.__new__
_AUTHORED = Source.AUTHORED


def to_python(value):
    """Plain Python for the value types joint columns hold; anything else goes the general way."""
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind in _VECTORS:
        # through the buffer in one call: iterating a Gf vector costs fifty times more
        return tuple(memoryview(value).tolist())
    if kind in _HALF_VECTORS:
        return tuple(float(value[i]) for i in range(len(value)))
    if kind in _QUATERNIONS:
        imaginary = value.GetImaginary()
        return (value.GetReal(), imaginary[0], imaginary[1], imaginary[2])
    return _to_python_general(value)


@dataclass(frozen=True, slots=True)
class ColumnInfo:
    """What a column is for one schema signature, whoever reads it."""

    name: str
    owner: str
    is_relationship: bool
    fallback: object
    producer: object
    value_type: object = None  # the value type name the schema declares ("float"), None for relationships
    raw_type: object = None  # the Python type ``Get`` returns for a value of that type (None: unchecked)


class Invalid(NamedTuple):
    """A raw value authored with another value type than the schema declares (``float3`` or
    ``double`` where ``float`` is declared), or that USD cannot read (a corrupt crate value).

    Measured on a revolute joint in an articulation: OpenUSD's parser reads every such column as
    its schema fallback (``double physics:lowerLimit`` -> -inf, ``double`` or ``int`` stiffness -> 0,
    ``double3 physics:localPos0`` -> 0). PhysX (ovphysx 0.7) converts a number of another precision
    (``double``, ``half``, ``int``, ``bool`` where ``float`` is declared; ``double3`` where
    ``point3f`` is) and reads anything else (``float3``, ``float[]`` or ``token`` for a float,
    ``float2`` for a point, ``quatd`` for a ``quatf``) as its default for an absent column.
    usdjoints follows OpenUSD's parser. ``cast`` is the value PhysX converts (None: none).
    """

    authored_type: str
    declared_type: str
    reason: str
    cast: object = None


class RawColumns(NamedTuple):
    """What one prim authors: ``values`` name -> (value, BLOCKED or an :class:`Invalid`,
    time_sampled); ``targets`` name -> relationship targets; ``authored`` every authored property
    name."""

    signature: tuple
    values: dict
    targets: dict
    authored: frozenset


class Signatures:
    """Column infos per schema signature, and the consumer-independent read of a prim."""

    def __init__(self, stage=None):
        self._infos: dict[tuple, Mapping[str, ColumnInfo]] = {}
        # When no layer the stage uses holds a time sample, no attribute can have one: skip asking.
        self._may_have_samples = stage is None or any(
            layer.ListAllTimeSamples() for layer in stage.GetUsedLayers())

    def infos(self, signature: tuple) -> Mapping[str, ColumnInfo]:
        return self._infos[signature]

    def read(self, prim, type_name: str, applied: tuple[str, ...]) -> RawColumns:
        signature = (type_name, applied)
        infos = self._infos.get(signature)
        if infos is None:
            infos = self._infos[signature] = _build_infos(prim, type_name, applied)
        authored = frozenset(prim.GetAuthoredPropertyNames())
        values, targets = {}, {}
        for name in authored.intersection(infos):
            info = infos[name]
            if info.is_relationship:
                targets[name] = _targets(prim, name)
            else:
                values[name] = _read_value(prim, name, info, self._may_have_samples)
        return RawColumns(signature, values, targets, authored)


def _targets(prim, name: str) -> tuple[str, ...]:
    """A relationship's targets; an attribute of that name, or targets USD cannot compose
    (a target path that is no path), leave it without targets."""
    relationship = prim.GetRelationship(name)
    if not relationship:
        return ()
    try:
        return tuple(str(t) for t in relationship.GetTargets())
    except Tf.ErrorException:
        return ()


def _read_value(prim, name: str, info: ColumnInfo, may_have_samples: bool) -> tuple:
    """(value, BLOCKED or an :class:`Invalid`; time_sampled) for one authored attribute.

    The value's Python type tells a wrongly typed one: ``Get`` hands back what the layer holds
    (a ``Gf.Vec3f`` for a ``float3`` where ``float`` is declared) while ``GetTypeName`` reports the
    schema's type. A number of another precision (``double`` for ``float``) reaches Python as the
    same ``float`` and is told by the audit's schema-type-mismatch rule instead.
    """
    attribute = prim.GetAttribute(name)
    if not attribute:  # a relationship authored under an attribute's name
        return (Invalid("rel", _type_name(info.value_type), "a relationship where the schema declares an attribute"),
                False)
    try:
        sampled = may_have_samples and attribute.GetNumTimeSamples() > 0
        value = attribute.Get()
    except Tf.ErrorException as error:
        return (Invalid(_authored_type(attribute), _type_name(info.value_type),
                        f"USD cannot read the value: {_first_line(error)}"), False)
    if value is None:
        return (BLOCKED, sampled)
    if info.raw_type is not None and type(value) is not info.raw_type:
        return (Invalid(_authored_type(attribute), _type_name(info.value_type),
                        WRONG_TYPE, _physx_cast(value, info.fallback)), sampled)
    value = to_python(value)
    if info.raw_type in _FIXED_SHAPES:
        return (value, sampled)  # the fallback's own type: a scalar, vector or quaternion of its size
    if not _conforms(value, info.fallback):
        return (Invalid(_authored_type(attribute), _type_name(info.value_type),
                        "the value does not have the declared type's shape"), sampled)
    return (value, sampled)


def _authored_type(attribute) -> str:
    """The value type the strongest layer wrote for ``attribute`` (for messages only: slow)."""
    from pxr import Tf

    try:
        for spec in attribute.GetPropertyStack():
            # the strongest opinion may be a relationship of the same name (a layer that
            # composes in another one's attribute): it has no value type
            written = getattr(spec, "typeName", None)
            return "a relationship" if written is None else str(written)
    except Tf.ErrorException:
        pass
    return "?"


def _conforms(value, fallback) -> bool:
    """Whether a value read from an attribute of the declared type has its fallback's shape
    (a crate can hold a value of another type than its spec declares)."""
    kind = type(value)
    if kind is type(fallback) and kind in _SCALARS:
        return True  # the common case: a float, bool, str or int where one is declared
    if fallback is None:
        return True
    if isinstance(fallback, bool) or isinstance(value, bool):
        return type(value) is type(fallback)
    if isinstance(fallback, (int, float)):
        return isinstance(value, (int, float))
    if isinstance(fallback, str):
        return isinstance(value, str)
    if isinstance(fallback, tuple):
        return isinstance(value, tuple) and len(value) == len(fallback) and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)
    return True


def _physx_cast(value, fallback):
    """The value PhysX converts a wrongly typed one to (see :class:`Invalid`), or None."""
    if isinstance(value, _QUATERNIONS) or isinstance(fallback, bool) or fallback is None:
        return None
    if hasattr(value, "__len__") and len(value) != 3:
        return None  # neither a number nor a 3-vector, however long (not read element by element)
    value = to_python(value)
    if isinstance(fallback, (int, float)):
        return float(value) if isinstance(value, (int, float)) else None
    if isinstance(fallback, tuple) and len(fallback) == 3 and isinstance(value, tuple) and len(value) == 3 \
            and all(isinstance(v, (int, float)) for v in value):
        return tuple(float(v) for v in value)
    return None


def _type_name(value_type) -> str:
    return value_type or "?"


_USD_REASON = re.compile(r" : '(.*)'\s*$", re.S)


def usd_reason(error) -> str:
    """The reason in a ``Tf.ErrorException`` ("Error in 'f' at line n in file x : 'reason'"),
    without the C++ function and file; one line, at most 160 characters."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    if not lines:
        return type(error).__name__
    match = _USD_REASON.search(lines[-1])
    reason = match.group(1) if match else lines[-1]
    return reason if len(reason) <= 160 else reason[:157] + "..."


_first_line = usd_reason


def _build_infos(prim, type_name: str, applied: tuple[str, ...]) -> Mapping[str, ColumnInfo]:
    definition = prim.GetPrimDefinition()
    owners = _owner_by_property(applied)
    known = frozenset(contract.known_owners())
    infos = {}
    for name in definition.GetPropertyNames():
        owner = owners.get(name, type_name)
        if owner not in known or name in _IGNORED:
            continue  # not a column of the joint contract (geometry, imaging, other APIs)
        is_relationship = definition.GetSchemaRelationshipSpec(name) is not None
        raw_fallback = None if is_relationship else definition.GetAttributeFallbackValue(name)
        fallback = to_python(raw_fallback)
        value_type = None
        if not is_relationship:
            spec = definition.GetSchemaAttributeSpec(name)
            value_type = str(spec.typeName) if spec else None
        infos[name] = ColumnInfo(name, owner, is_relationship, fallback, contract.producer_value(owner, name),
                                 value_type, None if raw_fallback is None else type(raw_fallback))
    return infos


def _owner_by_property(applied: tuple[str, ...]) -> dict[str, str]:
    """Map each property name of the applied API schemas to its API's schema name."""
    from pxr import Usd

    registry = Usd.SchemaRegistry()
    owners: dict[str, str] = {}
    for schema in applied:
        api, _, instance = schema.partition(":")
        definition = registry.FindAppliedAPIPrimDefinition(api)
        if definition is None:
            continue
        for template in definition.GetPropertyNames():
            name = template.replace("__INSTANCE_NAME__", instance) if instance else template
            owners[name] = api
    return owners


class ColumnView:
    """The raw columns of prims as one consumer resolves them."""

    def __init__(self, signatures: Signatures, consumer: str):
        self.signatures = signatures
        self.consumer = consumer
        self.profile = PROFILES[consumer]
        self._defaults: dict[tuple, dict[str, object]] = {}
        self._unauthored: dict[tuple, dict[str, Resolved]] = {}

    def _prepare(self, signature: tuple) -> None:
        defaults, unauthored = {}, {}
        for name, info in self.signatures.infos(signature).items():
            default = contract.parser_default(self.consumer, info.owner, name)
            defaults[name] = default
            if info.is_relationship:
                unauthored[name] = Resolved(None, Source.MISSING, None, default, info.producer)
            else:
                unauthored[name] = Resolved(info.fallback, Source.FALLBACK, info.fallback, default, info.producer)
        self._defaults[signature] = defaults
        self._unauthored[signature] = unauthored

    def columns(self, raw: RawColumns) -> dict[str, Resolved]:
        """Every column with provenance: unauthored ones shared, authored ones dressed."""
        signature = raw.signature
        if signature not in self._unauthored:
            self._prepare(signature)
        columns = dict(self._unauthored[signature])
        if not raw.values and not raw.targets:
            return columns
        defaults = self._defaults[signature]
        infos = self.signatures.infos(signature)
        for name, (value, time_sampled) in raw.values.items():
            info = infos[name]
            default = defaults[name]
            if value is BLOCKED:
                # a rule rather than a value (Marker, UnitsScaled) leaves the fallback as the best reading
                read = default if type(default) in _VALUES else info.fallback
                columns[name] = Resolved(read, Source.BLOCKED, info.fallback, default, info.producer)
            elif type(value) is Invalid:
                columns[name] = self._invalid(value, info, default, time_sampled)
            else:
                # the hot path (every authored value, every consumer): build the tuple directly
                columns[name] = _new_resolved(Resolved, (value, _AUTHORED, info.fallback, default, info.producer,
                                                         time_sampled))
        for name, targets in raw.targets.items():
            default = defaults[name]
            if targets:
                columns[name] = Resolved(targets[0], Source.AUTHORED, None, default, infos[name].producer)
            else:
                columns[name] = Resolved(default, Source.BLOCKED, None, default, infos[name].producer)
        return columns


    def _invalid(self, invalid: Invalid, info: ColumnInfo, default, time_sampled: bool) -> Resolved:
        """A wrongly typed or unreadable column as this consumer reads it (see :class:`Invalid`)."""
        if self.profile.reads_invalid_as == "cast":
            if invalid.cast is not None:
                return Resolved(invalid.cast, Source.AUTHORED, info.fallback, default, info.producer, time_sampled)
            if type(default) in _VALUES:
                return Resolved(default, Source.INVALID, info.fallback, default, info.producer, time_sampled)
        return Resolved(info.fallback, Source.INVALID, info.fallback, default, info.producer, time_sampled)


def value_diagnostics(path: str, raw: RawColumns) -> list:
    """Errors for authored values no consumer reads as written: another value type than the
    schema declares, or unreadable values (NaN and infinities are the audit's non-finite-value)."""
    if not any(type(value) is Invalid for value, _sampled in raw.values.values()):
        return []  # the common case: nothing to report, nothing to sort
    from ..descriptors import Diagnostic

    out = []
    for name, (value, _sampled) in sorted(raw.values.items()):
        if type(value) is Invalid:
            if value.cast is not None:
                effect = "PhysX converts it; OpenUSD's parser and usdjoints read the schema fallback"
            else:
                effect = ("no consumer reads it: OpenUSD's parser and usdjoints read the schema fallback, "
                          "PhysX its default for an absent column")
            what = f"{name} is authored as {value.authored_type}, the schema declares {value.declared_type}"
            if value.reason != WRONG_TYPE:
                what = f"{what} ({value.reason})"
            out.append(Diagnostic("error", path, f"{what}: {effect}", "invalid-value-type", attribute=name))
    return out


def extra_physics_columns(authored: frozenset[str], columns: Mapping[str, Resolved]) -> tuple[str, ...]:
    """Authored ``physics:``/``drive:``/``limit:`` properties that no applied schema declares."""
    unknown = authored.difference(columns.keys())
    if not unknown:
        return ()
    prefixes = ("physics:", "drive:", "limit:", "state:", "physx")
    return tuple(sorted(n for n in unknown if n.startswith(prefixes)))
