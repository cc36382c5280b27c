"""Mass, inertia and collider sizes as the consumers resolve them (the description's masses and
colliders): hazards OpenUSD's stock validators do not check.

The thresholds are isaaclab-robot-doctor 0.1's (checks.py): a mass below 1 g, principal moments
that are not positive or violate Ia + Ib >= Ic (tolerance 1e-9 Ic), a mesh scaled by 0.001 (a
file in millimetres), a mesh scale above 5 or below 0.001, a primitive more than 5 m or less
than 1 mm across.
"""
from __future__ import annotations

import math
from typing import Iterator

from .rule import AuditContext, DiagnosticRule, Rule, fmt

TINY_MASS_KG = 1e-3
SIZE_LARGE_M = 5.0
SIZE_SMALL_M = 1e-3
MM_SCALE = 1e-3
_RESOLVING = ("ovphysx", "usdjoints")  # the consumers that resolve masses (OpenUSD's parser computes none)


def _dynamic_masses(ctx: AuditContext, consumer: str):
    walk = ctx.walks[consumer]
    for body in walk.bodies:
        if body.dynamic:
            yield body, walk.mass(body.path)


class DynamicBodyWithoutMass(DiagnosticRule):
    """Measured with ovphysx 0.7 (tests/sim/test_default_mass.py): such a body weighs 1 stage mass
    unit with a 0.1 m sphere's inertia and falls under gravity; PhysX only warns."""

    id = "dynamic-body-without-mass"
    code = "no-mass-no-collider"
    description = ("a dynamic body with no mass and no collider: PhysX simulates it anyway, with 1 kg and a 0.1 m "
                   "sphere's inertia, and it falls under gravity")
    severity = "warning"
    consumers = _RESOLVING
    fix = "author physics:mass and physics:diagonalInertia, give the body a collider, or make it kinematic"


class ColliderWithoutVolume(DiagnosticRule):
    id = "collider-without-volume"
    code = "collider-no-mass"
    description = "a collider whose size, radius or height gives no finite positive volume: it adds no mass to its body"
    severity = "warning"
    consumers = _RESOLVING
    fix = "author positive finite dimensions"


class TinyMass(Rule):
    id = "tiny-mass"
    description = "a dynamic body lighter than 1 g: large mass ratios, which PhysX articulations handle badly"
    severity = "warning"
    consumers = _RESOLVING
    fix = "give the body a realistic mass, or weld it into a neighbour with a fixed joint"

    def check(self, ctx: AuditContext) -> Iterator:
        seen: dict[str, list] = {}
        for consumer in self.applies(ctx.consumers):
            for body, mass in _dynamic_masses(ctx, consumer):
                if mass.source != "default" and math.isfinite(mass.mass) and 0.0 < mass.mass < TINY_MASS_KG:
                    seen.setdefault(body.path, [mass, []])[1].append(consumer)
        for path, (mass, consumers) in seen.items():
            where = "physics:mass" if mass.source == "authored" else None
            yield self.finding(ctx, path, f"mass {fmt(mass.mass)} kg ({mass.source}) is below {fmt(TINY_MASS_KG)} kg",
                               where, consumers)


class InertiaNotPhysical(Rule):
    id = "inertia-not-physical"
    description = ("an authored inertia whose principal moments are not all positive (error) or violate "
                   "Ia + Ib >= Ic (warning): no real mass distribution has it")
    severity = "error"
    severities = ("error", "warning")
    consumers = _RESOLVING
    fix = "recompute the inertia (from CAD or a primitive approximation); mm^2 for m^2 is a common slip"

    def check(self, ctx: AuditContext) -> Iterator:
        seen: dict[str, tuple] = {}
        rejected: set[str] = set()
        for consumer in self.applies(ctx.consumers):
            for body, mass in _dynamic_masses(ctx, consumer):
                diagonal = mass.authored_diagonal
                if mass.inertia_source not in ("authored", "rejected") or diagonal is None or not any(diagonal):
                    continue  # unauthored, or the all-zero fallback (OpenUSD's validator reports a half-authored one)
                if not all(math.isfinite(v) for v in diagonal):
                    continue  # non-finite-value reports it
                key = body.path
                if mass.inertia_source == "rejected":
                    rejected.add(key)
                if key in seen:
                    seen[key][1].append(consumer)
                    continue
                seen[key] = (tuple(sorted(diagonal)), [consumer])
        for path, ((a, b, c), consumers) in seen.items():
            if a <= 0.0:
                kept = ("; PhysX rejects it on this articulation link, which turns with PhysX's default "
                        "inertia, 1 stage unit about each axis" if path in rejected else "")
                yield self.finding(ctx, path, f"principal moments {fmt(a)}, {fmt(b)}, {fmt(c)} are not all positive: "
                                   f"the inertia is not positive definite{kept}", "physics:diagonalInertia",
                                   consumers)
            elif a + b + 1e-9 * c < c:
                yield self.finding(ctx, path, f"principal moments violate Ia + Ib >= Ic ({fmt(a)} + {fmt(b)} < "
                                   f"{fmt(c)})", "physics:diagonalInertia", consumers, severity="warning")


class MeshScaleUnits(Rule):
    id = "mesh-scale-units"
    description = ("a mesh collider scaled by 0.001 (a mesh file in millimetres: info) or by more than 5 or less than "
                   "0.001 (a unit mix-up: warning)")
    severity = "warning"
    severities = ("warning", "info")
    fix = "check that the mesh, the joint frames and the masses are all in the stage's units"

    def check(self, ctx: AuditContext) -> Iterator:
        for collider in ctx.primary.colliders:
            if collider.shape != "mesh":
                continue
            scales = [s for s in collider.body_scale if s != 1.0]
            if any(math.isclose(s, MM_SCALE, rel_tol=1e-6) for s in scales):
                yield self.finding(ctx, collider.path, "the mesh is scaled by 0.001: its file is in millimetres; fine "
                                   "as long as the joint frames and masses are in the stage's units", None,
                                   severity="info")
            elif any(s > SIZE_LARGE_M or 0.0 < s < SIZE_SMALL_M for s in scales):
                odd = next(s for s in scales if s > SIZE_LARGE_M or 0.0 < s < SIZE_SMALL_M)
                yield self.finding(ctx, collider.path, f"the mesh is scaled by {fmt(odd)}: an unusual scale usually "
                                   "means a unit mix-up", None)


class PrimitiveSizeUnits(Rule):
    id = "primitive-size-units"
    description = "a primitive collider more than 5 m across (it looks like millimetres) or less than 1 mm across"
    severity = "warning"
    fix = "author sizes in the stage's units (metersPerUnit says which)"

    def check(self, ctx: AuditContext) -> Iterator:
        mpu = float(ctx.primary.units.meters_per_unit.value)
        for collider in ctx.primary.colliders:
            dims = _dimensions(collider, mpu)
            large = [d for d in dims if d > SIZE_LARGE_M]
            small = [d for d in dims if 0.0 < d < SIZE_SMALL_M]
            if large:
                yield self.finding(ctx, collider.path, f"the {collider.shape} is {fmt(max(large))} m across: it looks "
                                   "like millimetres", None)
            elif small:
                yield self.finding(ctx, collider.path, f"the {collider.shape} is only {fmt(min(small))} m across: "
                                   "sub-millimetre shapes are rarely intended and hard for the collision solver", None)


def _dimensions(collider, mpu: float) -> list[float]:
    scale = collider.body_scale if collider.body is not None else collider.world_scale
    largest = max(scale)
    if collider.shape == "cube" and collider.size is not None:
        return [collider.size * s * mpu for s in scale]
    if collider.shape == "sphere" and collider.radius is not None:
        return [collider.radius * largest * mpu]
    if collider.shape in ("capsule", "cylinder") and collider.radius is not None and collider.height is not None:
        return [collider.radius * largest * mpu, collider.height * largest * mpu]
    return []


RULES = (DynamicBodyWithoutMass, ColliderWithoutVolume, TinyMass, InertiaNotPhysical, MeshScaleUnits,
         PrimitiveSizeUnits)
