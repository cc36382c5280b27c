"""The stage walker: ``Usd.Stage`` -> :class:`~usdjoints.descriptors.StageDescription`.

One scan of the stage collects rigid bodies, colliders, articulation roots and joints with what
they author; each consumer's reading then resolves joints against the bodies, gathers the
articulations and finishes each joint with the limits and drives that consumer reads.
"""
from __future__ import annotations

import contextlib
import importlib
import gc
from typing import Iterable

from ..profiles import profile
from ..descriptors import StageDescription
from .articulations import build_articulations
from .columns import ColumnView
from .dofs import with_generic_dofs
from .joints import consumer_joint_type, finish_joint, read_joint
from .scan import StageScan, scan_stage
from .stage_io import StageLike, open_stage
from .colliders import read_colliders, read_filters
from .massmap import ResolvedMasses
from .scene import read_scene, unsupported_bodies
from .units import read_units, unit_diagnostics
from .values import SchemaValues

__all__ = ["walk", "walk_many", "paused_cycle_collection"]


def walk(stage: StageLike, consumer: str = "ovphysx") -> StageDescription:
    """Read every joint of ``stage`` as ``consumer`` (ovphysx, usdphysics or usdjoints) reads it.

    ``stage`` is an open ``Usd.Stage`` or a path. Nothing is written to the stage.
    """
    return walk_many(stage, (consumer,))[consumer]


def walk_many(stage: StageLike, consumers: Iterable[str]) -> dict[str, StageDescription]:
    """Each consumer's reading of ``stage``, from one scan of it (the auditor's way in)."""
    consumers = list(consumers)
    for consumer in consumers:
        profile(consumer)  # validates the name (and that it is one)
    consumers = tuple(dict.fromkeys(consumers))
    stage = open_stage(stage)
    with paused_cycle_collection(), unreadable_values_rejected(stage):
        scan = scan_stage(stage)
        shared: dict = {}  # consumer-independent findings, computed for the first consumer
        readings: dict[str, StageDescription] = {}
        return {consumer: _reading(scan, consumer, shared, readings) for consumer in consumers}


def _reading(scan: StageScan, consumer: str, shared: dict, readings: dict) -> StageDescription:
    """``consumer``'s description: its own reading, or the one it reads through refined by its
    profile's rules. ``readings`` keeps each reading so that one is made once per scan."""
    rules = profile(consumer)
    base = rules.reads_through or consumer
    description = readings.get(base)
    if description is None:
        description = readings[base] = with_generic_dofs(_describe(scan, base, shared), profile(base))
    if rules.refine is None:
        return description
    module_name, _, function = rules.refine.partition(":")
    refine = getattr(importlib.import_module(module_name), function)
    return refine(description, scan.stage, scan.bodies)


@contextlib.contextmanager
def unreadable_values_rejected(stage):
    """The boundary for what USD itself cannot hand over: a name or value that is not valid
    UTF-8 (a damaged crate), or a USD error the walker does not read around, becomes one
    :class:`~usdjoints.errors.InputError` naming the stage's file."""
    from pxr import Tf

    from ..errors import InputError
    from .columns import usd_reason

    try:
        yield
    except UnicodeDecodeError as error:
        raise InputError(_stage_file(stage), "holds a name or value that is not valid UTF-8 "
                         f"(byte 0x{error.object[error.start]:02x})", "the file is damaged") from error
    except Tf.ErrorException as error:
        raise InputError(_stage_file(stage), f"USD cannot read a value: {usd_reason(error)}") from error


def _stage_file(stage) -> str:
    layer = stage.GetRootLayer()
    try:
        return layer.realPath or layer.identifier
    except UnicodeDecodeError:
        return "<stage>"


@contextlib.contextmanager
def paused_cycle_collection():
    """Pause Python's cycle collector while the description is built.

    A walk allocates hundreds of thousands of small acyclic objects (tuples, frozen descriptors);
    each allocation burst would trigger collections that rescan everything built so far, about a
    third of a walk's time on a 10,000-joint stage. Reference counting still frees everything.

    While paused, every allocation still counts towards the youngest generation, so the first
    allocation after re-enabling would scan all of them at once (0.18 s after a 10,000-joint
    walk). freeze() then unfreeze() instead moves the tracked objects to the oldest generation
    and resets that count without scanning: they are then handled as any long-lived object. A
    program that froze objects itself keeps them frozen (the pause then ends plainly).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            if gc.get_freeze_count() == 0:
                gc.freeze()
                gc.unfreeze()
            gc.enable()


def _describe(scan: StageScan, consumer: str, shared: dict) -> StageDescription:
    view = ColumnView(scan.signatures, consumer)
    records = [read_joint(path, raw, consumer_joint_type(raw.signature[0], consumer), view, scan.bodies,
                          consumer, shared)
               for path, raw in scan.joints]
    result = build_articulations(scan.roots, scan.root_is_joint, records, scan.bodies, consumer, scan.body_order)
    diagnostics = list(scan.diagnostics)
    diagnostics.extend(result.diagnostics)
    joints = []
    for record in records:
        joint, notes = finish_joint(record, result.joint_articulation.get(record.path), consumer)
        joints.append(joint)
        diagnostics.extend(notes)
    units = read_units(scan.stage, consumer)
    diagnostics.extend(unit_diagnostics(units, scan.stage, consumer))
    bodies = scan.bodies.descs(view)
    physical = _physical(scan, shared, units)
    scene = read_scene(scan.stage, scan.scenes, units, physical["values"])
    diagnostics.extend(physical["values"].diagnostics)
    diagnostics.extend(physical["volume_notes"])
    diagnostics.extend(unsupported_bodies(bodies, physical["colliders"], consumer))
    return StageDescription(
        stage=scan.stage.GetRootLayer().identifier,
        consumer=consumer,
        units=units,
        bodies=bodies,
        articulations=result.articulations,
        joints=tuple(joints),
        diagnostics=tuple(diagnostics),
        scene=scene,
        colliders=physical["colliders"],
        collision_filters=physical["filters"],
        masses=ResolvedMasses(bodies, physical["colliders"], consumer, float(units.meters_per_unit.value),
                              float(units.kilograms_per_unit.value), frozenset(scan.mass_stand_ins),
                              shared.setdefault(_MASSES, {}),
                              frozenset(link for a in result.articulations for link in a.links)),
    )


def _physical(scan: StageScan, shared: dict, units) -> dict:
    """Colliders, collision filters and the values read for them (and for the scene): the same
    for every consumer, read once."""
    found = shared.get(_PHYSICAL)
    if found is not None:
        return found
    values = SchemaValues()
    colliders = read_colliders(scan.stage, scan.collider_order, scan.bodies.records, scan.bodies.xform_cache,
                               values)
    colliders, filters = read_filters(scan.stage, list(colliders), scan.scenes, scan.collision_groups,
                                      scan.filtering, scan.roots)
    volume_notes = []
    if colliders:
        from .mass import collider_volume_diagnostics

        volume_notes = collider_volume_diagnostics(colliders, float(units.meters_per_unit.value))
    if scan.scenes:
        # the scene's values are read once too, so a wrongly typed one is reported once per walk
        read_scene(scan.stage, scan.scenes, units, values)
    found = shared[_PHYSICAL] = {"values": values, "colliders": colliders, "filters": filters,
                                 "volume_notes": volume_notes}
    return found


_MASSES = ("masses",)  # the key of the masses resolved so far, shared by the consumers (walker/massmap.py)
_PHYSICAL = ("physical",)  # the key of _physical's entry in the shared findings (joint paths are strings)
