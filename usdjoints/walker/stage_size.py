"""How much composition a stage asks for, estimated from its layers before OpenUSD composes it.

A prim that references a class twice, whose prims reference the next class twice, and so on,
composes 2^30 prims from a 5 kB file: OpenUSD's ``Usd.Stage.Open`` then runs for ever (with
``instanceable`` prims it opens at once, but a walk visits every instance proxy). Composition
cannot be interrupted, so such a stage is refused before it is opened.

The estimate follows the layers' specs the way composition does, per layer stack (a layer and
its sublayers, whose specs at one path merge): a prim is itself, its children (the union of the
names the stack's specs give it), the prims an arc (reference, payload, inherit, specialize)
brings under it, and, per variant set, the largest of its variants. Each prim's index holds a
node per arc that reaches it, and composing costs time per node (about 7 us here, with a chain
of references 15 deep): ``index_nodes`` counts them, one for the prim and one more for every
arc above each prim an arc brings. Specs reached several times are counted each time, as
composition builds them each time; an arc back into a prim being counted (a cycle, which
OpenUSD reports itself) counts nothing. The work is one visit of each distinct spec path.
"""
from __future__ import annotations

from ..errors import InputError

# ~30 s of composition on a 2-core machine; a robot or a scene of thousands of them is far below
MAX_INDEX_NODES = 4_000_000
_ARC_LISTS = ("referenceList", "payloadList", "inheritPathList", "specializesList")


class _Stacks:
    """The layer stacks reachable from the root layer: a stack is a tuple of opened layers."""

    def __init__(self, root):
        self._by_root: dict[str, tuple] = {}
        self.root = self.of(root)

    def of(self, layer) -> tuple:
        stack = self._by_root.get(layer.identifier)
        if stack is None:
            stack, pending, seen = [], [layer], set()
            while pending:
                current = pending.pop(0)
                if current is None or current.identifier in seen:
                    continue
                seen.add(current.identifier)
                stack.append(current)
                pending.extend(_found(current, path) for path in current.subLayerPaths)
            stack = tuple(stack)
            self._by_root[layer.identifier] = stack
        return stack


def _found(anchor, asset: str):
    """The already opened layer an asset path of ``anchor`` names, or None."""
    from pxr import Sdf, Tf

    if not asset:
        return None
    try:
        return Sdf.Layer.FindRelativeToLayer(anchor, asset)
    except Tf.ErrorException:
        return None


def _default_prim_path(layer):
    from pxr import Sdf

    name = layer.defaultPrim
    if not name:
        return None
    text = name if name.startswith("/") else "/" + name
    if not Sdf.Path.IsValidPathString(text):
        return None
    path = Sdf.Path(text)
    return path if path.IsPrimPath() else None


def _items(spec, attr: str) -> list:
    try:
        return list(getattr(spec, attr).ApplyEditsToList([]))
    except Exception:  # noqa: BLE001  a list op Sdf cannot apply composes nothing either
        return []


def _parts(stacks: _Stacks, stack: tuple, path):
    """(children, arcs, variant sets) of the prim at ``path`` in ``stack``: child paths, arc
    targets as (stack, path), and per variant set the paths of its variants."""
    children: dict[str, object] = {}
    arcs: list[tuple] = []
    variant_sets: dict[str, dict[str, object]] = {}
    for layer in stack:
        spec = layer.GetPrimAtPath(path)
        if not spec:
            continue
        for child in spec.nameChildren.values():  # the specs' own paths: a name Sdf would not
            children.setdefault(child.name, child.path)  # build a path of is kept as it is
        for attr in _ARC_LISTS:
            for item in _items(spec, attr):
                if attr in ("inheritPathList", "specializesList"):
                    if item.IsAbsolutePath() and item.IsPrimPath():
                        arcs.append((stack, item))
                    continue
                target_stack, target = stack, item.primPath
                if item.assetPath:
                    found = _found(layer, item.assetPath)
                    if found is None:
                        continue
                    target_stack = stacks.of(found)
                    if target.isEmpty:
                        target = _default_prim_path(found)
                if target is not None and target.IsAbsolutePath() and target.IsPrimPath():
                    arcs.append((target_stack, target))
        for set_name, variant_set in spec.variantSets.items():
            variants = variant_sets.setdefault(set_name, {})
            for variant_name, variant in variant_set.variants.items():
                prim = variant.primSpec
                if prim:
                    variants.setdefault(variant_name, prim.path)
    return list(children.values()), arcs, [list(v.values()) for v in variant_sets.values() if v]


def estimate(root_layer) -> tuple[int, int, str]:
    """(prims, index nodes, the root prim with most nodes) the root layer's stage composes, each
    capped just above MAX_INDEX_NODES (the count stops mattering there). Arcs are followed into
    layers that are open only: the caller holds every layer the stage reaches (stage_io's
    _open_layers), so this opens no file."""
    from pxr import Sdf

    cap = MAX_INDEX_NODES + 1
    stacks = _Stacks(root_layer)
    done: dict[tuple, tuple[int, int]] = {}
    busy: set[tuple] = set()
    parts: dict[tuple, tuple] = {}

    def key(stack, path):
        return (stack[0].identifier, path)

    total_prims, total_nodes, worst, worst_nodes = 0, 0, "", -1
    roots = _parts(stacks, stacks.root, Sdf.Path.absoluteRootPath)[0]
    for root in roots:
        # depth-first, each node entered once: ("enter", ...) expands it, ("leave", ...) sums it
        todo = [("enter", stacks.root, root, True)]
        while todo:
            action, stack, path, is_prim = todo.pop()
            k = key(stack, path)
            if action == "enter":
                if k in done or k in busy:
                    continue
                busy.add(k)
                parts[k] = children, arcs, variant_sets = _parts(stacks, stack, path)
                todo.append(("leave", stack, path, is_prim))
                todo.extend(("enter", stack, child, True) for child in children)
                todo.extend(("enter", s, p, True) for s, p in arcs)
                todo.extend(("enter", stack, v, False) for vs in variant_sets for v in vs)
                continue
            children, arcs, variant_sets = parts.pop(k)
            prims = nodes = 1 if is_prim else 0
            for child in children:
                p, n = done.get(key(stack, child), (0, 0))
                prims, nodes = prims + p, nodes + n
            for s, p_ in arcs:  # the target is this prim itself: its prims less one, one node more each
                p, n = done.get(key(s, p_), (0, 0))
                prims, nodes = prims + max(p - 1, 0), nodes + n + p
            for variants in variant_sets:
                p, n = max((done.get(key(stack, v), (0, 0)) for v in variants), key=lambda pn: pn[1])
                prims, nodes = prims + p, nodes + n
            busy.discard(k)
            done[k] = (min(prims, cap), min(nodes, cap))
        p, n = done.get(key(stacks.root, root), (0, 0))
        total_prims, total_nodes = min(total_prims + p, cap), min(total_nodes + n, cap)
        if n > worst_nodes:
            worst, worst_nodes = str(root), n
        if total_nodes >= cap:
            break
    return total_prims, total_nodes, worst


_ARC_WORDS = (b"references", b"payload", b"inherits", b"specializes", b"variantSet")
_ARC_KEYS = frozenset(("references", "payload", "inheritPaths", "specializes", "variantSetNames"))


def _has_arcs(layer) -> bool:
    """Whether a layer may author a composition arc: a text layer is searched for the keywords
    (a read of a file just parsed), any other layer's prim specs are listed."""
    from pxr import Sdf

    path = layer.realPath
    if path and layer.GetFileFormat().formatId == "usda":
        try:
            with open(path, "rb") as stream:
                data = stream.read()
        except OSError:
            return True
        return any(word in data for word in _ARC_WORDS)
    found = []

    def visit(path):
        if not found and (path.IsPrimPath() or path.IsPrimVariantSelectionPath()):
            spec = layer.GetPrimAtPath(path)
            if spec is not None and not _ARC_KEYS.isdisjoint(spec.ListInfoKeys()):
                found.append(path)

    layer.Traverse(Sdf.Path.absoluteRootPath, visit)
    return bool(found)


def refuse_expansion(layers, shown: str) -> None:
    """An :class:`InputError` naming the stage's file when composing the stage whose root layer
    is layers[0] (every layer it reaches opened, in ``layers``) would build more than
    MAX_INDEX_NODES prim index nodes (module doc). Without any arc, each spec composes once: the
    layers are only searched for arcs then."""
    if not any(_has_arcs(layer) for layer in layers):
        return
    prims, nodes, worst = estimate(layers[0])
    if nodes > MAX_INDEX_NODES:
        count = f"more than {MAX_INDEX_NODES:,}" if prims > MAX_INDEX_NODES else f"{prims:,}"
        raise InputError(shown, f"composing <{worst}> would build more than {MAX_INDEX_NODES:,} prim index nodes "
                         f"({count} prims): its references, payloads, inherits or variants bring the same prims "
                         "in again at every level, and OpenUSD would compose each copy (minutes to days) "
                         "without a way to stop it",
                         "reference each class once per level")
