"""Consumer profiles: how each consumer of a stage reads its joints, as data plus small named
behaviours. The walker, the auditor, the command line and the usdview inspector take the list of
consumers and every consumer-specific rule from here; nothing outside this package asks which
consumer it is serving.

A profile (:class:`~usdjoints.profiles.base.Profile`) holds:

- data: its name and how messages name it, the API instances each joint type reads, the limit
  enable rule per joint type, the one-sided-limit and clamp policies, how wrongly typed values
  and unauthored columns read, the units it reads values in, where its parser defaults come from;
- named behaviours, each a method reading that data: :meth:`resolve_body` (which prim a body
  relationship lands on: disabled bodies, colliders), :meth:`is_link` (kinematic bodies),
  :meth:`articulation_joints` / :meth:`listed_joints` (which joints join an articulation: tree,
  loop-closing, self-referencing and excluded joints; :meth:`articulates` keeps a joint type out,
  as PhysX does distance joints), :meth:`order_body_joints` and :meth:`tree_start` (of several
  joints on one body pair, which one the tree keeps and which closes a loop), :meth:`elect_roots`
  (root and base election, per connected component; profiles/graph.py holds the parser's),
  :meth:`accepts_root_on` / :meth:`accepts_root_on_joint` (roots on disabled or kinematic bodies,
  on disabled joints), whether a root on a body takes kinematic bodies as links, and the
  nested-root policy;
- mass data: whether the consumer resolves masses at all, and whether a collider's material
  density weighs it; the stage units it refuses to load.

Adding a consumer
-----------------
1. Measure it: for each rule above, build the smallest stage that shows the consumer's choice and
   read the consumer's own output back (a test under tests/ that names the consumer as its oracle).
2. Write ``usdjoints/profiles/<name>.py`` with one :class:`Profile` instance (a subclass only when a
   behaviour is more than the data can say), each rule with a one-line reason or measurement.
3. Add ``"<name>": "<module>"`` to :data:`_MODULES` below: that is the only list of consumers.
4. Parser defaults: either add a ``<name>=`` value to the column tables (contract/columns.py), or
   set ``parser_defaults_from`` to the consumer whose defaults it shares and list the columns
   that differ in ``parser_default_overrides`` (keyed ``(owner, column name)``).
The command line (``--consumer``), the auditor (``--consumer``, every rule's consumer list) and
the usdview inspector then offer it without further edits.
"""
from __future__ import annotations

import importlib
from types import MappingProxyType

__all__ = ["NAMES", "PROFILES", "profile"]

# consumer name -> module in this package holding its profile (the one place the list is spelled)
_MODULES = MappingProxyType({
    "ovphysx": "ovphysx",
    "usdphysics": "usdphysics",
    "usdjoints": "simulator",
    "newton": "newton",
})

NAMES: tuple[str, ...] = tuple(_MODULES)


class _Profiles:
    """Read-only mapping name -> Profile that imports each profile module on first use."""

    def __init__(self):
        self._loaded: dict = {}

    def __getitem__(self, name):
        try:
            return self._loaded[name]
        except KeyError:
            pass
        module = _MODULES[name]  # KeyError for an unknown consumer, as a mapping does
        loaded = importlib.import_module(f"{__name__}.{module}").PROFILE
        self._loaded[name] = loaded
        return loaded

    def __contains__(self, name):
        return name in _MODULES

    def __iter__(self):
        return iter(NAMES)

    def __len__(self):
        return len(NAMES)

    def keys(self):
        return NAMES

    def values(self):
        return tuple(self[n] for n in NAMES)

    def items(self):
        return tuple((n, self[n]) for n in NAMES)

    def get(self, name, default=None):
        return self[name] if name in _MODULES else default


PROFILES = _Profiles()


def profile(name: str):
    """The profile of consumer ``name``; an unknown name is a usage error naming the choices."""
    if not isinstance(name, str) or name not in _MODULES:
        from ..errors import UsageError

        raise UsageError(f"unknown consumer {name!r}: choose one of {', '.join(NAMES)}")
    return PROFILES[name]
