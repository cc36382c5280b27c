"""The masses of a description, resolved when first read (walker/mass.py does the arithmetic)."""
from __future__ import annotations

from collections.abc import Mapping

from ..descriptors import ColliderDesc, MassDesc


class ResolvedMasses(Mapping):
    """body path -> :class:`MassDesc` for one consumer, each computed when first read.

    It holds data only (the bodies' columns, their colliders, the units): a walk of a stage with
    thousands of bodies pays nothing for masses nobody reads, and nothing here reads a stage.
    """

    def __init__(self, bodies, colliders: tuple[ColliderDesc, ...], consumer: str, meters_per_unit: float,
                 kilograms_per_unit: float, stand_ins: frozenset):
        self._columns = {body.path: body.columns for body in bodies}
        self._colliders: dict[str, list[ColliderDesc]] = {}
        for collider in colliders:
            if collider.body is not None:
                self._colliders.setdefault(collider.body, []).append(collider)
        self._consumer, self._mpu, self._kpu, self._stand_ins = consumer, meters_per_unit, kilograms_per_unit, stand_ins
        self._done: dict[str, MassDesc] = {}

    def __getitem__(self, path: str) -> MassDesc:
        done = self._done.get(path)
        if done is None:
            columns = self._columns[path]  # KeyError for a path that is no body
            from .mass import resolve  # numpy: loaded when a mass is first read

            done = self._done[path] = resolve(path, columns, self._colliders.get(path, []), self._consumer,
                                              self._mpu, self._kpu, path in self._stand_ins)
        return done

    def __iter__(self):
        return iter(self._columns)

    def __len__(self) -> int:
        return len(self._columns)
