"""The collision-pair rules as built for many colliders, against the rules read pair by pair.

colliders._filter_pairs decides each pair with vector masks per row, and
colliders.without_start_overlaps tests only the pairs whose bounding spheres meet. The oracle of
both is the consumer profile's rules applied to every pair in turn, written out here as plainly
as the profile states them (model/colliders.py's docstring):

* colliders on one link, or two planes: no pair, nothing reported;
* two links joined by a joint whose physics:collisionEnabled is not true: filtered;
* two links of one articulation whose enabledSelfCollisions is false: filtered;
* a PhysicsFilteredPairsAPI naming a prim at or above one collider (or its articulation's
  root) and a prim at or above the other: filtered;
* two colliders in groups where one names the other in filteredGroups (the scene's inversion
  turns the list into the groups that do collide): filtered;

the first matching rule gives the reason, and the order is (i, j) with i < j. Random scenes of a
few hundred colliders cover every rule and their overlaps.
"""
from __future__ import annotations

import random
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from usdjoints.model.articulated import COLLIDER_BOX, COLLIDER_PLANE, COLLIDER_SPHERE
from usdjoints.model.colliders import _covering, _filter_pairs

REPO = Path(__file__).resolve().parents[2]


def _reference(description, model, joints, rows):
    """The rules pair by pair (see the module docstring)."""
    filters = description.collision_filters
    link_of = {name: int(model.body_link[i]) for i, name in enumerate(model.body_names)}
    jointed = set()
    for joint in joints:
        if joint.body0 in link_of and joint.body1 in link_of:
            column = joint.columns.get("physics:collisionEnabled")
            if column is not None and column.value:
                continue
            a, b = link_of[joint.body0], link_of[joint.body1]
            jointed.add((min(a, b), max(a, b)))
    articulation_of = {}
    for k, articulation in enumerate(description.articulations):
        for body in articulation.links:
            articulation_of.setdefault(body, k)

    def self_collides(k):
        return filters.self_collisions.get(description.articulations[k].root, True)

    def owners(row):
        out = set(_covering(row[0]))
        if row[8] in articulation_of:
            out.add(description.articulations[articulation_of[row[8]]].root)
        return out

    def pair_filtered(a, b):
        return any((x, y) in filters.filtered_pairs or (y, x) in filters.filtered_pairs
                   for x in owners(a) for y in owners(b))

    pairs, filtered = [], []
    for i, a in enumerate(rows):
        for j in range(i + 1, len(rows)):
            b = rows[j]
            if a[2] == b[2] or (a[1] == COLLIDER_PLANE and b[1] == COLLIDER_PLANE):
                continue
            if (min(a[2], b[2]), max(a[2], b[2])) in jointed:
                reason = "jointed bodies (the joint's physics:collisionEnabled is not true)"
            elif a[8] in articulation_of and articulation_of.get(b[8]) == articulation_of[a[8]] \
                    and not self_collides(articulation_of[a[8]]):
                reason = "links of one articulation with enabledSelfCollisions = false"
            elif pair_filtered(a, b):
                reason = "PhysicsFilteredPairsAPI"
            elif a[10] is not None and b[10] is not None and (
                    (b[10] in filters.groups.get(a[10], ()) or a[10] in filters.groups.get(b[10], ()))
                    != filters.inverted):
                reason = "PhysicsCollisionGroup filteredGroups"
            else:
                pairs.append((i, j))
                continue
            filtered.append((a[0], b[0], reason))
    return pairs, filtered


def _scene(seed: int, inverted: bool):
    """A random scene: articulations of chained bodies (some without self-collision), free
    bodies, static colliders and planes, several colliders per body, filtered pairs naming
    colliders, bodies, ancestors and articulation roots, groups naming each other and themselves."""
    rng = random.Random(seed)
    bodies, articulations, joints = [], [], []
    for k in range(rng.randint(2, 5)):
        root = f"/World/Robot{k}"
        links = [f"{root}/L{n}" for n in range(rng.randint(2, 12))]
        bodies += links
        articulations.append(SimpleNamespace(root=root, links=tuple(links)))
        for a, b in zip(links, links[1:]):
            enabled = rng.random() < 0.2
            columns = {"physics:collisionEnabled": SimpleNamespace(value=True)} if enabled else {}
            joints.append(SimpleNamespace(body0=a, body1=b, columns=columns))
        if rng.random() < 0.3:  # a loop or a second joint between two links
            a, b = rng.sample(links, 2)
            joints.append(SimpleNamespace(body0=a, body1=b, columns={}))
    free = [f"/World/Free{k}" for k in range(rng.randint(5, 40))]
    bodies += free
    joints.append(SimpleNamespace(body0=None, body1=free[0], columns={}))  # a world anchor filters nothing
    # bodies on links; some share a link (welded), one is welded to the world (link -1)
    body_link = {}
    for n, body in enumerate(bodies):
        body_link[body] = n // 2 if rng.random() < 0.2 else n
    body_link[free[-1]] = -1
    groups = [f"/World/G{k}" for k in range(4)]
    group_names = {g: tuple(rng.sample(groups, rng.randint(0, 2))) for g in groups}
    rows = []
    for body in bodies:
        for c in range(rng.randint(1, 3)):
            path = body if c == 0 else f"{body}/C{c}"
            kind = rng.choice((COLLIDER_BOX, COLLIDER_SPHERE))
            group = rng.choice(groups + [None, None])
            rows.append((path, kind, body_link[body], None, None, None, 0.5, 0.0, body, False, group))
    for k in range(rng.randint(1, 6)):  # static colliders and planes: link -1, no body
        kind = COLLIDER_PLANE if k < 2 else COLLIDER_BOX
        rows.append((f"/World/Static{k}", kind, -1, None, None, None, 0.5, 0.0, None, False,
                     rng.choice(groups + [None])))
    prims = [r[0] for r in rows] + bodies + [a.root for a in articulations] + ["/World"]
    filtered_pairs = tuple((rng.choice(prims), rng.choice(prims)) for _ in range(rng.randint(0, 8)))
    self_collisions = {a.root: rng.random() < 0.5 for a in articulations if rng.random() < 0.7}
    filters = SimpleNamespace(filtered_pairs=filtered_pairs, groups=group_names, inverted=inverted,
                              self_collisions=self_collisions)
    description = SimpleNamespace(collision_filters=filters, articulations=tuple(articulations))
    names = tuple(bodies)
    model = SimpleNamespace(body_names=names, body_link=np.array([body_link[b] for b in names]))
    return description, model, joints, rows


@pytest.mark.parametrize("seed", range(12))
def test_pairs_follow_the_rules_pair_by_pair(seed):
    description, model, joints, rows = _scene(seed, inverted=seed % 3 == 0)
    pairs, filtered, _ = _filter_pairs(description, model, joints, rows)
    want_pairs, want_filtered = _reference(description, model, joints, rows)
    assert np.asarray(pairs).dtype == np.int64
    assert [tuple(p) for p in np.asarray(pairs).tolist()] == want_pairs
    assert filtered == want_filtered
    reasons = {f[2] for f in want_filtered}
    if seed == 0:  # the scenes do reach the rules (seed 0 holds every kind)
        assert len(reasons) == 4, reasons


def test_no_pairs_of_one_or_no_collider():
    description, model, joints, rows = _scene(1, inverted=False)
    for subset in ([], rows[:1]):
        pairs, filtered, _ = _filter_pairs(description, model, joints, subset)
        assert np.asarray(pairs).reshape(-1, 2).shape == (0, 2) and filtered == []


# converted robots whose mesh-bounding boxes overlap at the start (4, 34 and 3 pairs dropped),
# and one of capsules and spheres with none
CONVERTED = REPO / "tests" / "data" / "converted_usd"
OVERLAPPING = ("uuc__oems__baxter", "uuc__oems__dual_panda", "uuc__oems__fr3")


@pytest.mark.parametrize("name", OVERLAPPING + ("mjc__dm_control__humanoid",))
def test_start_overlaps_match_every_pairs_depth(name):
    """without_start_overlaps drops exactly the pairs on one tree, one of them a box bounding a
    mesh, whose narrow-phase depth at the start is > 0, computed here for every pair (no
    bounding-sphere shortcut)."""
    import dataclasses

    from usdjoints.model.build import load_model
    from usdjoints.model.overlaps import start_contact_depths
    from usdjoints.walker import walk
    from usdjoints.walker.stage_io import open_stage

    stage = CONVERTED / f"{name}.usdc"
    model = load_model(str(stage))
    description = walk(open_stage(str(stage)), consumer="usdjoints")
    shapes = {c.path: c.shape for c in description.colliders}
    index = {name: k for k, name in enumerate(model.collider_names)}
    dropped = [f for f in model.collision_filtered if "overlapping" in f[2]]
    before = sorted([tuple(p) for p in np.asarray(model.collision_pairs).tolist()]
                    + [(index[a], index[b]) for a, b, _ in dropped])
    full = dataclasses.replace(model, collision_pairs=np.array(before, dtype=np.int64).reshape(-1, 2))
    depth = start_contact_depths(full)
    root = list(range(model.nlink))
    for i in range(model.nlink):
        if model.link_parent[i] >= 0:
            root[i] = root[int(model.link_parent[i])]
    approximate = [model.collider_type[k] == COLLIDER_BOX and shapes[name] != "cube"
                   for k, name in enumerate(model.collider_names)]
    want = []
    for k, (a, b) in enumerate(before):
        la, lb = int(model.collider_link[a]), int(model.collider_link[b])
        if la >= 0 and lb >= 0 and root[la] == root[lb] and (approximate[a] or approximate[b]) and depth[k] > 0:
            want.append((model.collider_names[a], model.collider_names[b],
                         f"bounding boxes of one robot overlapping by {depth[k]:.3g} m at the start"))
    assert dropped == want
    assert bool(dropped) == (name in OVERLAPPING)


def test_more_pairs_than_the_contact_model_holds_are_refused(monkeypatch):
    """Past MAX_COLLIDER_PAIRS candidate pairs (pairs of colliders on different bodies) the model
    is refused in one line naming the way out, instead of asking for memory quadratic in the
    colliders; at the bound exactly it is built. Oracle: the pair-by-pair reference's count."""
    from usdjoints.errors import UnsupportedFeature
    from usdjoints.model import colliders

    description, model, joints, rows = _scene(0, inverted=False)
    want_pairs, want_filtered = _reference(description, model, joints, rows)
    candidates = len(want_pairs) + len(want_filtered)
    assert candidates > 10
    monkeypatch.setattr(colliders, "MAX_COLLIDER_PAIRS", candidates)
    pairs, _, _ = _filter_pairs(description, model, joints, rows)
    assert len(pairs) == len(want_pairs)
    monkeypatch.setattr(colliders, "MAX_COLLIDER_PAIRS", candidates - 1)
    with pytest.raises(UnsupportedFeature, match="contact=False"):
        _filter_pairs(description, model, joints, rows)
