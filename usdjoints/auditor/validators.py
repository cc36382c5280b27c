"""The audit rules as UsdValidation validators (keyword ``usdjoints``).

plugInfo declares one stage validator per rule under the plugin name ``usdjoints.auditor.plugin``
(a Python plugin: loading it imports that module, which calls :func:`register`). Importing this
module has no side effect, so the registry is not created before the plugin is known. Every
validator of one stage shares one audit: the report is cached per stage and dropped as soon as
the stage changes (``Usd.Notice.ObjectsChanged``).
"""
from __future__ import annotations

import threading

from pxr import Sdf, Tf, Usd, UsdValidation

from ..profiles import NAMES as CONSUMERS
from .engine import audit_stage
from .findings import AuditReport
from .registry import RULE_CLASSES, select_rules

PLUGIN_NAME = "usdjoints.auditor.plugin"
KEYWORD = "usdjoints"
_ERROR_TYPE = {"error": UsdValidation.ValidationErrorType.Error,
               "warning": UsdValidation.ValidationErrorType.Warn,
               "info": UsdValidation.ValidationErrorType.Info}


class _ReportCache:
    """The latest audit of each stage, invalidated by any change to it."""

    def __init__(self):
        self._lock = threading.Lock()
        self._entries: list[tuple] = []  # (stage, report, notice listener)

    def report(self, stage) -> AuditReport:
        with self._lock:
            for cached_stage, report, _ in self._entries:
                if cached_stage == stage:
                    return report
            report = audit_stage(stage, CONSUMERS, select_rules())
            listener = Tf.Notice.Register(Usd.Notice.ObjectsChanged, self._changed, stage)
            self._entries.append((stage, report, listener))
            del self._entries[:-8]  # a handful of stages is all one validation pass needs
            return report

    def _changed(self, notice, stage) -> None:
        with self._lock:
            for entry in self._entries:
                if entry[0] == stage:
                    entry[2].Revoke()
            self._entries = [e for e in self._entries if e[0] != stage]


_CACHE = _ReportCache()


def validator_name(rule_id: str) -> str:
    return f"{PLUGIN_NAME}:{rule_id}"


def physx_schemas_known() -> bool:
    """Whether USD's schema registry holds the PhysX types (it does not when the PhysX schemas
    were registered only after it was built: the validators would then misread PhysX joints)."""
    return Usd.SchemaRegistry().FindConcretePrimDefinition("PhysxPhysicsRackAndPinionJoint") is not None


LATE_PHYSX = ("not checked: the PhysX schemas were registered after USD's schema registry was built, so PhysX "
              "joints would be misread; put the output of `usdjoints plugin-path` (it lists physx-usd-schemas' "
              "resource folders) in PXR_PLUGINPATH_NAME before starting the tool")


def _task(rule_id: str):
    def validate(stage, time_range=None):
        if not physx_schemas_known():
            return [UsdValidation.ValidationError(
                rule_id, UsdValidation.ValidationErrorType.Error,
                [UsdValidation.ValidationErrorSite(stage, Sdf.Path.absoluteRootPath)], f"{rule_id} {LATE_PHYSX}")]
        errors = []
        for finding in _CACHE.report(stage).by_rule(rule_id):
            path = Sdf.Path(finding.prim) if finding.prim else Sdf.Path.absoluteRootPath
            if finding.attribute and finding.prim:
                path = path.AppendProperty(finding.attribute)
            message = finding.message + (f" Fix: {finding.fix}" if finding.fix else "")
            errors.append(UsdValidation.ValidationError(
                rule_id, _ERROR_TYPE[finding.severity], [UsdValidation.ValidationErrorSite(stage, path)], message))
        return errors

    return validate


def plug_info_validators() -> dict:
    """The ``Validators`` section of plugInfo.json, generated from the rules (a test compares them)."""
    section: dict = {"keywords": [KEYWORD]}
    for cls in RULE_CLASSES:
        section[cls.id] = {"doc": cls.description, "keywords": [f"{KEYWORD}-{cls.severity}"]}
    return section


def register() -> int:
    """Register the task of every rule plugInfo declares; returns how many were registered.

    Importing this module without usdjoints' plugInfo registered registers nothing (the registry
    only accepts plugin validators whose metadata plugInfo declared).
    """
    registry = UsdValidation.ValidationRegistry()
    count = 0
    for cls in RULE_CLASSES:
        name = validator_name(cls.id)
        if registry.GetValidatorMetadata(name) is None:
            continue
        if not registry.HasValidator(name):
            registry.RegisterPluginStageValidator(name, _task(cls.id))
        count += 1
    return count
