"""The masses of a description, resolved when first read (walker/mass.py does the arithmetic)."""
from __future__ import annotations

from collections.abc import Mapping

from ..descriptors import ColliderDesc, MassDesc

# the columns walker/mass.py reads (every other input of a body's mass is shared by the consumers)
MASS_COLUMNS = ("physics:mass", "physics:centerOfMass", "physics:diagonalInertia", "physics:principalAxes",
                "physics:density")


class ResolvedMasses(Mapping):
    """body path -> :class:`MassDesc` for one consumer, each computed when first read.

    It holds data only (the bodies' columns, their colliders, the units): a walk of a stage with
    thousands of bodies pays nothing for masses nobody reads, and nothing here reads a stage.
    ``shared`` is a cache the consumers of one scan share: a body's mass depends on its mass
    columns, its colliders (the same for every consumer), the units and the two rules of the
    consumer's profile that weigh it, so consumers that agree on all of them (PhysX and the
    simulator, usually) resolve it once.
    """

    def __init__(self, bodies, colliders: tuple[ColliderDesc, ...], consumer: str, meters_per_unit: float,
                 kilograms_per_unit: float, stand_ins: frozenset, shared: dict | None = None,
                 links: frozenset = frozenset()):
        from ..profiles import profile

        self._columns = {body.path: body.columns for body in bodies}
        self._colliders: dict[str, list[ColliderDesc]] = {}
        for collider in colliders:
            if collider.body is not None:
                self._colliders.setdefault(collider.body, []).append(collider)
        self._consumer, self._mpu, self._kpu, self._stand_ins = consumer, meters_per_unit, kilograms_per_unit, stand_ins
        rules = profile(consumer)
        self._rules = (rules.computes_mass, rules.material_density, rules.link_zero_moment_default,
                       meters_per_unit, kilograms_per_unit)
        self._links = links  # the articulation links of this consumer's reading
        self._done: dict[str, MassDesc] = {}
        self._shared = {} if shared is None else shared

    def __getitem__(self, path: str) -> MassDesc:
        done = self._done.get(path)
        if done is None:
            columns = self._columns[path]  # KeyError for a path that is no body
            key = (path, self._rules, path in self._links, tuple((name, column.value, column.authored) for name in MASS_COLUMNS
                                            if (column := columns.get(name)) is not None))
            try:
                done = self._shared.get(key)
            except TypeError:  # a value that is no hashable Python value: resolved here alone
                key = None
            if done is None:
                from .mass import resolve  # numpy: loaded when a mass is first read

                done = resolve(path, columns, self._colliders.get(path, []), self._consumer,
                               self._mpu, self._kpu, path in self._stand_ins, path in self._links)
                if key is not None:
                    self._shared[key] = done
            self._done[path] = done
        return done

    def __iter__(self):
        return iter(self._columns)

    def __len__(self) -> int:
        return len(self._columns)
