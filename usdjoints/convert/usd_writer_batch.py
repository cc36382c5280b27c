"""Batched authoring: the writer's Usd API calls on a stage that stays small, whatever the robot.

A Usd.Stage recomposes a prim's list of children each time a child is added under it, so
defining N sibling prims costs O(N²) (a 36,819-link URDF chain did not convert in 300 s: every
link is a child of the robot prim and every joint a child of ``joints``). Prims the writer
authors through UsdGeom / UsdPhysics / UsdShade keep every spec exactly as the Usd API writes it (specifier, typeName, apiSchemas list ops, custom-ness, variability, value types,
xformOpOrder, relationship list ops, metadata), but on a working stage from which each finished
prim is *parked*: its spec subtree is copied into a side layer (``Sdf.CopySpec``) and removed from
the working layer, so the working stage holds only the prims still being authored.

:meth:`BatchedStage.finish` assembles the output layer with the Sdf API inside one
``Sdf.ChangeBlock``: the working layer's specs and the parked ones, every parent's children in
the order they were first authored (the order a single stage would have given them). A parked
prim that must be edited again (an applied schema added at the end) is brought back for the edit
and parked again (:meth:`BatchedStage.editing`).

A prim written with the Sdf API instead (usd_writer_specs) goes straight into the parked layer
(:meth:`BatchedStage.author`). When the parked layer then holds every prim in its final order
(the usual case: a robot's links and joints all written so), it becomes the output layer itself,
with the working layer's few remaining specs added, instead of copying every spec once more.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from pxr import Sdf, Usd


#: Prims parked together: removing them from the working layer in one Sdf.ChangeBlock costs the
#: working stage one recomposition, and it holds at most this many finished siblings meanwhile.
PARK_BATCH = 64


class BatchedStage:
    """``stage`` is the working stage to author on; park each prim once it is finished."""

    def __init__(self) -> None:
        self.stage = Usd.Stage.CreateInMemory()
        self._layer = self.stage.GetRootLayer()
        self._parked = Sdf.Layer.CreateAnonymous("parked.usda")
        self._units: set[Sdf.Path] = set()  # paths parked (each with its subtree)
        self._order: dict[Sdf.Path, list[str]] = {}  # parent -> children's names, first authored first
        self._known: dict[Sdf.Path, set[str]] = {}
        self._pending: dict[Sdf.Path, None] = {}  # asked to be parked, still in the working layer

    def _note_children(self, parent: Sdf.Path) -> None:
        """Records the children of ``parent`` now in the working layer not yet seen, in their order."""
        spec = self._layer.GetPrimAtPath(parent)
        if spec is None:
            return
        order = self._order.setdefault(parent, [])
        known = self._known.setdefault(parent, set())
        for name in spec.nameChildren.keys():
            if name not in known:
                known.add(name)
                order.append(name)

    def park(self, path: Sdf.Path) -> None:
        """Moves the prim at ``path`` (and what is under it) out of the working stage (in batches of
        PARK_BATCH); no-op if absent or if a child of it is parked already."""
        if path in self._order or path in self._pending or self._layer.GetPrimAtPath(path) is None:
            return  # a parent of parked prims stays: it is assembled child by child
        self._order.setdefault(path.GetParentPath(), [])
        self._pending[path] = None
        if len(self._pending) >= PARK_BATCH:
            self._flush()

    def _flush(self) -> None:
        pending, self._pending = list(self._pending), {}
        for parent in dict.fromkeys(p.GetParentPath() for p in pending):
            self._note_children(parent)
        with Sdf.ChangeBlock():  # Sdf edits only: the working stage recomposes once, after
            for path in pending:
                if self._layer.GetPrimAtPath(path) is None:
                    continue  # under a prim parked before it in this batch
                parent = path.GetParentPath()
                if self._parked.GetPrimAtPath(parent) is None and not parent.IsAbsoluteRootPath():
                    Sdf.CreatePrimInLayer(self._parked, parent)  # a placeholder: never copied to the output
                if not Sdf.CopySpec(self._layer, path, self._parked, path):
                    raise RuntimeError(f"cannot move the spec {path} out of the working layer")
                del self._layer.GetPrimAtPath(parent).nameChildren[path.name]
                self._units.add(path)

    def author(self, path: Sdf.Path, type_name: str) -> Sdf.PrimSpec:
        """A new prim spec defined at ``path`` straight into the parked layer, for Sdf authoring
        (usd_writer_specs) of a prim that is finished when written: its parent's children keep
        their first-authored order. The parent must be a prim of the working stage."""
        if self._pending:
            self._flush()  # prims finished before it enter the parked layer first, in their order
        parent = path.GetParentPath()
        self._note_children(parent)  # the working stage's children authored before it come first
        order = self._order.setdefault(parent, [])
        known = self._known.setdefault(parent, set())
        if path.name in known:
            raise RuntimeError(f"the prim {path} is authored twice")
        known.add(path.name)
        order.append(path.name)
        parent_spec = self._parked.GetPrimAtPath(parent)
        if parent_spec is None:
            parent_spec = Sdf.CreatePrimInLayer(self._parked, parent)  # a placeholder: never copied
        self._units.add(path)
        return Sdf.PrimSpec(parent_spec, path.name, Sdf.SpecifierDef, type_name)

    def park_children(self, parent: Sdf.Path, keep: frozenset[str] | set[str] = frozenset()) -> None:
        """Parks every child of ``parent`` now in the working stage, except the names in ``keep``."""
        spec = self._layer.GetPrimAtPath(parent)
        if spec is None:
            return
        for name in list(spec.nameChildren.keys()):
            if name not in keep:
                self.park(parent.AppendChild(name))

    @contextmanager
    def editing(self, path: Sdf.Path) -> Iterator[Usd.Prim]:
        """The working stage's prim at ``path``; a parked prim is brought back and parked again after."""
        unit = next((p for p in path.GetPrefixes() if p in self._units and self._layer.GetPrimAtPath(p) is None),
                    None)
        if unit is not None:
            if not Sdf.CopySpec(self._parked, unit, self._layer, unit):
                raise RuntimeError(f"cannot bring the spec {unit} back into the working layer")
        try:
            yield self.stage.GetPrimAtPath(path)
        finally:
            if unit is not None:
                self.park(unit)

    def finish(self) -> Sdf.Layer:
        """The output layer: everything authored, children in first-authored order."""
        self._flush()
        root = Sdf.Path.absoluteRootPath
        for parent in [root, *self._order]:
            self._note_children(parent)
        tails = self._tails()
        if tails is not None:
            return self._finish_in_place(tails)
        out = Sdf.Layer.CreateAnonymous("usdjoints.usda")
        with Sdf.ChangeBlock():
            self._copy_fields(root, out)  # the layer's metadata
            for name in self._order[root]:
                self._copy(root.AppendChild(name), out)
        return out

    def _tails(self) -> dict[Sdf.Path, list[str]] | None:
        """When the parked layer already holds the output's prims in their order, but for prims
        still whole in the working layer that come last among their siblings: those, per parent
        (its tail). None otherwise (the output is then assembled by copying, :meth:`finish`)."""
        root = Sdf.Path.absoluteRootPath
        tails: dict[Sdf.Path, list[str]] = {}
        for parent in [root, *self._order]:
            if parent != root and self._layer.GetPrimAtPath(parent) is None:
                return None
            parked = self._parked.GetPrimAtPath(parent)
            present = list(parked.nameChildren.keys()) if parked is not None else []
            order = self._order[parent]
            parked_names = set(present)
            tail = [name for name in order if name not in parked_names]
            if present + tail != order:
                return None
            for name in order:
                child = parent.AppendChild(name)
                if child in self._order:
                    if name not in parked_names:
                        return None
                elif name in parked_names and self._layer.GetPrimAtPath(child) is not None:
                    return None  # in both layers: the copy takes the working layer's
            tails[parent] = tail
        return tails

    def _finish_in_place(self, tails: dict[Sdf.Path, list[str]]) -> Sdf.Layer:
        """The parked layer made the output (see :meth:`_tails`): the working layer's metadata,
        the fields and properties of the parents of parked prims, and each parent's tail."""
        out = self._parked
        with Sdf.ChangeBlock():
            for parent, tail in tails.items():
                self._copy_fields(parent, out)
                for name in tail:
                    path = parent.AppendChild(name)
                    if not Sdf.CopySpec(self._layer, path, out, path):
                        raise RuntimeError(f"cannot copy the spec {path} into the output layer")
        return out

    def _copy(self, path: Sdf.Path, out: Sdf.Layer) -> None:
        if path not in self._order:  # no child parked: the subtree is whole in one layer
            source = self._layer if self._layer.GetPrimAtPath(path) is not None else self._parked
            if source.GetPrimAtPath(path) is None:
                return
            if not Sdf.CopySpec(source, path, out, path):
                raise RuntimeError(f"cannot copy the spec {path} into the output layer")
            return
        spec = self._layer.GetPrimAtPath(path)  # a parent of parked prims stays in the working layer
        if spec is None:
            raise RuntimeError(f"the parent {path} of parked prims left the working layer")
        Sdf.CreatePrimInLayer(out, path)
        self._copy_fields(path, out)
        for name in self._order[path]:
            self._copy(path.AppendChild(name), out)

    def _copy_fields(self, path: Sdf.Path, out: Sdf.Layer) -> None:
        """``path``'s own fields and properties (not its child prims) into ``out``."""
        source, target = self._layer.GetObjectAtPath(path), out.GetObjectAtPath(path)
        for key in source.ListInfoKeys():  # every field but the children's
            target.SetInfo(key, source.GetInfo(key))
        if path.IsAbsoluteRootPath():
            return
        for prop in source.properties:
            if not Sdf.CopySpec(self._layer, prop.path, out, prop.path):
                raise RuntimeError(f"cannot copy the property {prop.path} into the output layer")
