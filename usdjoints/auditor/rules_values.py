"""Values that are wrong on their face: inverted or out-of-range bounds, radians in degree columns,
non-finite numbers, wrong value types, joint columns on prims that are no joint."""
from __future__ import annotations

import math
from typing import Iterator

from ..provenance import Source
from ..walker.limits import SENTINEL
from .rule import AuditContext, DiagnosticRule, Rule, fmt

# PhysX clamps a standalone revolute (D6 twist) limit to half a turn either way [deg].
HALF_TURN_DEG = 180.0
# Bounds this small that are not whole degrees read like radians (2*pi plus float slack) [deg].
RADIAN_LOOKALIKE_MAX = 2.0 * math.pi + 1e-4
# Degrees written by hand fall on 1/64 deg (5.625 = 360/64 in ovphysx's chain sample); radians
# converted from pi rarely do [1/deg].
DEGREE_GRID = 64.0
# Columns where an infinity is a legitimate "unlimited".
_INFINITY_ALLOWED = ("Limit", ":low", ":high", "maxForce", "breakForce", "breakTorque", "maxJointVelocity",
                     "Distance", "maxDepenetrationVelocity", "maxLinearVelocity", "maxAngularVelocity")


def _bound(value) -> bool:
    return value is not None and math.isfinite(value) and abs(value) < SENTINEL


def _typed_bounds(joint):
    low = joint.columns["physics:lowerLimit"]
    high = joint.columns["physics:upperLimit"]
    return float(low.value), float(high.value), low.source is Source.AUTHORED or high.source is Source.AUTHORED


class LowerAboveUpper(Rule):
    id = "lower-above-upper"
    description = "a revolute or prismatic lowerLimit above its upperLimit: the joint has no valid position"
    severity = "error"
    fix = "swap the bounds (a D6 axis is locked with low > high; typed joints have no such convention)"

    def check(self, ctx: AuditContext) -> Iterator:
        for joint in ctx.primary.joints:
            if joint.type not in ("revolute", "prismatic"):
                continue
            low, high, authored = _typed_bounds(joint)
            if authored and _bound(low) and _bound(high) and low > high:
                yield self.finding(ctx, joint.path, f"physics:lowerLimit {fmt(low)} is above physics:upperLimit "
                                   f"{fmt(high)}", "physics:lowerLimit")


class MinAboveMax(Rule):
    id = "min-above-max"
    description = "a distance joint whose minDistance is above its maxDistance"
    severity = "error"
    fix = "swap physics:minDistance and physics:maxDistance"

    def check(self, ctx: AuditContext) -> Iterator:
        for joint in ctx.primary.joints:
            if joint.type != "distance":
                continue
            low = float(joint.columns["physics:minDistance"].value)
            high = float(joint.columns["physics:maxDistance"].value)
            if low >= 0.0 and high >= 0.0 and low > high:
                yield self.finding(ctx, joint.path, f"physics:minDistance {fmt(low)} is above physics:maxDistance "
                                   f"{fmt(high)}", "physics:minDistance")


class RevoluteLimitBeyondTurn(Rule):
    """Measured with ovphysx 0.7: a standalone revolute joint is a D6 twist limit, clamped to
    [-180, 180] deg with a warning; inside an articulation bounds of +-270 and +-400 deg are kept
    and hold (a driven joint stops at exactly -400 deg)."""

    id = "revolute-limit-beyond-turn"
    covers = ("limit-beyond-turn",)  # the walker's diagnostic of the same clamp, bound by bound
    description = "a standalone revolute bound beyond +-180 deg: PhysX clamps it to +-180 deg"
    severity = "warning"
    consumers = ("ovphysx",)
    fix = "keep standalone revolute bounds within [-180, 180] deg, make them infinite, or put the joint in an articulation"

    def check(self, ctx: AuditContext) -> Iterator:
        if "ovphysx" not in ctx.walks:
            return
        for joint in ctx.walks["ovphysx"].joints:
            if joint.type != "revolute" or (joint.articulation is not None and not joint.exclude_from_articulation):
                continue
            for name in ("physics:lowerLimit", "physics:upperLimit"):
                value = float(joint.columns[name].value)
                if _bound(value) and abs(value) > HALF_TURN_DEG:
                    yield self.finding(ctx, joint.path, f"{name} = {fmt(value)} deg on a joint outside articulations: "
                                       f"PhysX clamps it to {fmt(math.copysign(HALF_TURN_DEG, value))} deg", name)


class LimitLooksRadians(Rule):
    id = "limit-looks-radians"
    description = "angular bounds within +-2*pi that are not multiples of 1/64 deg: they look like radians in a degree column"
    severity = "warning"
    fix = "convert to degrees (multiply by 57.2958); UsdPhysics angles are degrees"

    def check(self, ctx: AuditContext) -> Iterator:
        for joint in ctx.primary.joints:
            for low_name, high_name in self._angular_columns(joint):
                low, high = joint.columns[low_name], joint.columns[high_name]
                if not (low.source is Source.AUTHORED and high.source is Source.AUTHORED):
                    continue
                values = (float(low.value), float(high.value))
                if not all(_bound(v) for v in values) or values[0] == values[1]:
                    continue
                small = all(abs(v) <= RADIAN_LOOKALIKE_MAX for v in values)
                fractional = any(abs(v * DEGREE_GRID - round(v * DEGREE_GRID)) > 1e-3 for v in values)
                if small and fractional:
                    degrees = ", ".join(f"{math.degrees(v):.4g}" for v in values)
                    yield self.finding(ctx, joint.path, f"[{fmt(values[0])}, {fmt(values[1])}] deg reads like radians "
                                       f"([{degrees}] deg if so)", low_name)

    @staticmethod
    def _angular_columns(joint):
        if joint.type == "revolute":
            return (("physics:lowerLimit", "physics:upperLimit"),)
        if joint.type == "d6":
            return tuple((f"limit:{a}:physics:low", f"limit:{a}:physics:high") for a in ("rotX", "rotY", "rotZ")
                         if f"limit:{a}:physics:low" in joint.columns)
        return ()


class NonUnitQuaternion(DiagnosticRule):
    id = "non-unit-quaternion"
    code = "non-unit-quaternion"
    description = "a joint frame quaternion that is not unit length: consumers normalise it silently"
    severity = "warning"
    fix = "author a normalised quaternion (w, x, y, z)"


class NonFiniteValue(Rule):
    id = "non-finite-value"
    covers = ("non-finite",)  # the walker's diagnostic of a non-finite joint frame
    description = "an authored NaN, or an infinity in a column where it does not mean 'unlimited'"
    severity = "error"
    fix = "author a finite value"

    def check(self, ctx: AuditContext) -> Iterator:
        for joint in ctx.primary.joints:
            yield from self._columns(ctx, joint.path, joint.columns)
        for body in ctx.primary.bodies:
            yield from self._columns(ctx, body.path, body.columns)
        scene = ctx.primary.scene
        if scene is not None and scene.path is not None:
            # a gravityMagnitude of -inf is the schema's earth gravity; NaN and +inf are no gravity
            magnitude = scene.magnitude
            if magnitude.source is Source.AUTHORED and isinstance(magnitude.value, float) \
                    and (math.isnan(magnitude.value) or magnitude.value == math.inf):
                yield self.finding(ctx, scene.path, f"physics:gravityMagnitude = {magnitude.value} is not a "
                                   "gravity (-inf, the fallback, is earth gravity)", "physics:gravityMagnitude")
            yield from self._columns(ctx, scene.path, {"physics:gravityDirection": scene.direction})

    def _columns(self, ctx, path, columns):
        suspicious = []
        for name, resolved in columns.items():
            if resolved.source is not Source.AUTHORED:
                continue
            value = resolved.value
            if type(value) is float and math.isfinite(value):
                continue  # the common case, decided without building anything
            suspicious.append((name, resolved))
        for name, resolved in sorted(suspicious):
            values = resolved.value if isinstance(resolved.value, tuple) else (resolved.value,)
            numbers = [v for v in values if isinstance(v, float)]
            if any(math.isnan(v) for v in numbers):
                yield self.finding(ctx, path, f"{name} = {resolved.value} holds NaN", name)
            elif any(math.isinf(v) for v in numbers) and (isinstance(resolved.value, tuple)
                                                         or not any(k in name for k in _INFINITY_ALLOWED)):
                yield self.finding(ctx, path, f"{name} = {resolved.value} is infinite", name)


_WRITTEN = (Source.AUTHORED, Source.BLOCKED)


class SchemaTypeMismatch(Rule):
    id = "schema-type-mismatch"
    description = ("an attribute authored with a value type the schema does not declare: a role only (float3 for "
                   "point3f) is read by both parsers, another precision (double for float) by PhysX only")
    # measured: OpenUSD's parser and PhysX both read a float3 localPos0 as authored (info); a double
    # for a float is read by PhysX only (warning)
    severity = "warning"
    severities = ("warning", "info")  # a role only: info
    fix = "re-author the attribute with the schema's type (`usdjoints columns <type>` lists them)"

    def check(self, ctx: AuditContext) -> Iterator:
        from pxr import Sdf

        # the walker reports the types it tells apart by value (float3 for float) as invalid-value-type
        invalid = {(d.prim, d.attribute) for d in ctx.primary.diagnostics if d.code == "invalid-value-type"}
        declared_types: dict[tuple, dict[str, str]] = {}  # per schema signature: name -> declared type
        described = [(j.path, j.schema_type, j.columns) for j in ctx.primary.joints] + \
            [(b.path, "", b.columns) for b in ctx.primary.bodies]
        for path, schema_type, columns in described:
            authored = [name for name, column in columns.items() if column.source in _WRITTEN]
            if not authored:
                continue
            prim = ctx.stage.GetPrimAtPath(path)  # the value type a layer wrote: no description holds it
            # the column names stand for the applied schemas: no need to ask USD per prim
            signature = (schema_type, tuple(columns))
            declared = declared_types.get(signature)
            if declared is None:
                definition = prim.GetPrimDefinition()
                declared = declared_types[signature] = {}
                for name in definition.GetPropertyNames():
                    spec = definition.GetAttributeDefinition(name)
                    if spec:
                        declared[name] = str(spec.GetTypeName())
            # UsdAttribute reports the schema's type; what a layer wrote is on its specs.
            # each spec's attribute map once per prim, not once per attribute (each is a new proxy)
            stack = [(prim_spec, prim_spec.attributes) for prim_spec in prim.GetPrimStack()]
            for name in authored:
                expected = declared.get(name)
                if expected is None:
                    continue
                for prim_spec, attributes in stack:
                    attribute_spec = attributes.get(name)
                    if attribute_spec is None:
                        continue
                    try:
                        written = str(attribute_spec.typeName)
                    except UnicodeDecodeError:  # a damaged crate: the type name is no text
                        yield self.finding(ctx, path, f"{name} is authored in {prim_spec.layer.identifier} with a "
                                           "value type name that is not valid UTF-8: no consumer reads it", name,
                                           severity="warning")
                        break
                    if written != expected and (path, name) not in invalid:
                        yield self._mismatch(ctx, path, name, written, expected, prim_spec.layer.identifier, Sdf)
                    break  # the strongest opinion decides what was written

    def _mismatch(self, ctx, path, name, written, expected, layer, Sdf):
        written_type = Sdf.ValueTypeNames.Find(written)
        expected_type = Sdf.ValueTypeNames.Find(expected)
        where = f"{name} is authored as {written} in {layer}, the schema declares {expected}"
        if written_type and expected_type and written_type.type == expected_type.type:  # a role only (float3, point3f)
            return self.finding(ctx, path, f"{where}: OpenUSD's parser and PhysX read it anyway, tools that check "
                                "value types reject it", name, severity="info")
        # measured: double for float, string for token: OpenUSD's parser reads the fallback, PhysX converts it
        return self.finding(ctx, path, f"{where}: OpenUSD's parser ignores it (reads the schema fallback) while "
                            "PhysX converts it", name, severity="warning")


class InvalidValueType(DiagnosticRule):
    id = "invalid-value-type"
    code = "invalid-value-type"
    description = ("an attribute authored with a value of another shape than declared (float3 or a token for a "
                   "float, double3 for a point3f) or that USD cannot read: the consumers do not read it as written")
    severity = "error"
    fix = "re-author the attribute with the schema's type (`usdjoints columns <type>` lists them)"


class InvalidXformOp(DiagnosticRule):
    id = "invalid-xform-op"
    code = "invalid-xform-op"
    description = "an xformOp USD cannot evaluate (an empty or wrongly typed value): consumers take it as the identity"
    severity = "error"
    fix = "author the op with its declared value type, or remove it from xformOpOrder"


class NotAJoint(DiagnosticRule):
    id = "not-a-joint"
    code = "not-a-joint"
    description = "a prim whose type is no joint type (often misspelt) but which carries physics joint columns"
    severity = "error"
    fix = "fix the type name (e.g. PhysicsDistanceJoint, not DistancePhysicsJoint)"


class InvalidStageUnits(DiagnosticRule):
    id = "invalid-stage-units"
    code = "invalid-stage-units"
    description = "metersPerUnit, kilogramsPerUnit or upAxis unreadable or out of range: read as the fallback"
    severity = "error"
    fix = "author a positive finite metersPerUnit and kilogramsPerUnit, and upAxis Y or Z, in the root layer"


RULES = (LowerAboveUpper, MinAboveMax, RevoluteLimitBeyondTurn, InvalidStageUnits, LimitLooksRadians, NonUnitQuaternion,
         NonFiniteValue, SchemaTypeMismatch, InvalidValueType, InvalidXformOp, NotAJoint)
