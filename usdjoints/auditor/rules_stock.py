"""OpenUSD's own UsdPhysics validators (usd-core's ``usdPhysicsValidators``) as audit rules.

Each stock validator is one rule, ``usdphysics:<ValidatorName>``; its findings are the errors
the validator reports when ``UsdValidation`` validates the whole stage (instance proxies
included), on the prims (and properties) the validator names, with the validator's error name
leading the message. The checks are not rewritten here: the rules run the validators. Where a
usd-core build ships none of them, the rules report nothing and ``--list-rules`` still lists them.
"""
from __future__ import annotations

from typing import Iterator

from ..contract.types import CONSUMERS
from .rule import AuditContext, Rule

PREFIX = "usdphysics:"
STOCK_VALIDATORS = {
    "RigidBodyChecker": "OpenUSD's RigidBodyAPI checks: an xformable, non-instance-proxy prim, no skew or "
                        "rotated scale, valid mass, density and inertia values",
    "PhysicsJointChecker": "OpenUSD's joint checks: body0/body1 name existing prims, one target each",
    "ArticulationChecker": "OpenUSD's articulation checks: no articulation root nested in another, none on a "
                           "static body",
    "ColliderChecker": "OpenUSD's CollisionAPI checks: uniform scale on implicit shapes, points data, planes only "
                       "static, valid mass, density and inertia values",
}
_SEVERITY = {"Error": "error", "Warn": "warning", "Info": "info"}


def stock_errors(ctx: AuditContext) -> list[tuple[str, str, str | None, str | None, str]]:
    """(validator, severity, prim, property, message) of every stock UsdPhysics error of the stage,
    computed once per audit context."""
    cached = ctx.memo.get("usdphysics-validators")
    if cached is not None:
        return cached
    from pxr import UsdValidation

    registry = UsdValidation.ValidationRegistry()
    names = [f"usdPhysicsValidators:{name}" for name in STOCK_VALIDATORS if registry.HasValidator(
        f"usdPhysicsValidators:{name}") or registry.GetValidatorMetadata(f"usdPhysicsValidators:{name}")]
    out = []
    if names:
        validators = [v for v in registry.GetOrLoadValidatorsByName(names) if v]
        for error in _validate(ctx.stage, validators):
            validator = error.GetValidator()
            name = validator.GetMetadata().name.partition(":")[2] if validator else ""
            severity = _SEVERITY.get(str(error.GetType()).rsplit(".", 1)[-1], "error")
            sites = error.GetSites() or [None]
            for site in sites:
                prim = prop = None
                if site is not None and site.GetPrim():
                    prim = site.GetPrim().GetPath().pathString
                    if site.GetProperty():
                        prop = site.GetProperty().GetName()
                out.append((name, severity, prim, prop, f"[{error.GetName()}] {error.GetMessage()}"))
    ctx.memo["usdphysics-validators"] = out
    return out


def _validate(stage, validators) -> list:
    """The validators' errors on ``stage``. A USD error raised while one validates (an xformOp USD
    cannot evaluate: the walker's invalid-xform-op) would lose every error of the stage, so the
    stage is then validated prim by prim, and a prim a validator cannot read is left to the rules
    that report why."""
    from pxr import Tf, Usd, UsdValidation

    try:
        return list(UsdValidation.ValidationContext(validators).Validate(stage))
    except Tf.ErrorException:
        pass
    errors = []
    for prim in Usd.PrimRange.Stage(stage, Usd.TraverseInstanceProxies(Usd.PrimDefaultPredicate)):
        for validator in validators:
            try:
                errors.extend(validator.Validate(prim))
            except Tf.ErrorException:
                continue
    return errors


class StockValidatorRule(Rule):
    """Base of the stock UsdPhysics validator rules: ``validator`` is the validator's name."""

    validator: str
    severity = "error"
    severities = ("error", "warning", "info")  # the validator's error type
    consumers = CONSUMERS  # a schema violation concerns every consumer
    fix = "see OpenUSD's UsdPhysics schema documentation for the constraint the message names"

    def check(self, ctx: AuditContext) -> Iterator:
        for validator, severity, prim, prop, message in stock_errors(ctx):
            if validator == self.validator:
                yield self.finding(ctx, prim, message, prop, severity=severity)


def _rule(name: str, description: str) -> type[StockValidatorRule]:
    return type(f"Stock{name}", (StockValidatorRule,), {
        "id": PREFIX + name, "validator": name, "description": description, "__module__": __name__})


RULES = tuple(_rule(name, description) for name, description in STOCK_VALIDATORS.items())
