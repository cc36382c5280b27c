"""Links without self_collide in a large model: one self-filtering collision group, not a
quadratic number of filtered pairs, and the same pairs filtered.

Oracles: OpenUSD's UsdPhysics parser (``LoadUsdPhysicsFromRange``) reads the group, its members
and its filteredGroups naming itself; and the pairs usdjoints' model filters (its PhysX filtering
rules, measured with ovphysx: tests/model/test_collision_filters.py) are the same set for the
group and for the filtered pairs the smaller-model path writes.
"""
from __future__ import annotations

import warnings

import usdjoints
from usdjoints.convert import convert_sdformat, usd_writer_surfaces

from pxr import Usd, UsdPhysics


def _chain(n: int) -> str:
    links = "".join(
        f'<link name="l{k}"><pose>{0.3 * k} 0 0 0 0 0</pose><inertial><mass>1</mass></inertial>'
        '<collision name="c"><geometry><sphere><radius>0.2</radius></sphere></geometry></collision></link>'
        for k in range(n))
    joints = "".join(f'<joint name="j{k}" type="revolute"><parent>l{k - 1}</parent><child>l{k}</child>'
                     '<axis><xyz>0 0 1</xyz></axis></joint>' for k in range(1, n))
    return f'<sdf version="1.9"><model name="m"><static>false</static>{links}{joints}</model></sdf>'


def _filtered(path) -> set:
    model = usdjoints.load_model(str(path))
    return {tuple(sorted((a, b))) for a, b, _ in model.collision_filtered}


def test_a_large_model_gets_one_group_filtering_the_same_pairs(tmp_path, monkeypatch):
    n = usd_writer_surfaces.MAX_FILTERED_PAIR_LINKS + 6
    source = tmp_path / "chain.sdf"
    source.write_text(_chain(n))
    grouped = tmp_path / "grouped.usda"
    convert_sdformat(source, grouped)
    stage = Usd.Stage.Open(str(grouped))
    assert not any(p.GetRelationship("physics:filteredPairs") for p in stage.Traverse())
    descs = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        parsed = UsdPhysics.LoadUsdPhysicsFromRange(stage, ["/"])
    for kind, (paths, objects) in parsed.items():
        for path, obj in zip(paths, objects):
            descs[str(path)] = (kind, obj)
    groups = [(p, d) for p, (kind, d) in descs.items() if kind == UsdPhysics.ObjectType.CollisionGroup]
    assert len(groups) == 1
    path, group = groups[0]
    assert [str(t) for t in group.filteredGroups] == [path]
    spheres = [d for kind, d in descs.values() if kind == UsdPhysics.ObjectType.SphereShape]
    assert len(spheres) == n and all([str(g) for g in d.collisionGroups] == [path] for d in spheres)

    monkeypatch.setattr(usd_writer_surfaces, "MAX_FILTERED_PAIR_LINKS", 10 * n)
    paired = tmp_path / "paired.usda"
    convert_sdformat(source, paired)
    pairs = _filtered(paired)
    assert len(pairs) == n * (n - 1) // 2  # every pair: jointed, or filtered by self_collide
    assert _filtered(grouped) == pairs
