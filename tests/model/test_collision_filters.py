"""PhysX's collision filtering rules, checked against PhysX itself.

One stage holds separate pairs of overlapping cubes (10 and 8 cm, overlapping by 5 mm along x,
less than the 1 cm to their side faces, so the contact normal is x; no gravity), each
under one rule:

* joined by a prismatic joint along x, collisionEnabled unset: no contact;
* the same with physics:collisionEnabled = true: they push apart;
* no joint, PhysicsFilteredPairsAPI on one body naming the other: no contact;
* no joint, in two PhysicsCollisionGroups, one naming the other in filteredGroups: no contact;
* no joint, nothing: they push apart (the control);
* a three-link articulation whose last link overlaps its first: they push apart by default, and
  not when the root says physxArticulation:enabledSelfCollisions = false.

Oracles: ovphysx 0.7 on the same stage (does a pair move apart in 0.2 s?), and the same answer
from usdjoints: the pair is kept in collision_pairs exactly when PhysX pushes it apart.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from usdjoints.model.build import load_model

REPO = Path(__file__).resolve().parents[2]

HEADER = """#usda 1.0
(
    metersPerUnit = 1
    kilogramsPerUnit = 1
    upAxis = "Z"
)
def PhysicsScene "scene"
{
    vector3f physics:gravityDirection = (0, 0, -1)
    float physics:gravityMagnitude = 0
}
"""


def _cube(path: str, x: float, y: float, extra_api: str = "", extra: str = "", size: float = 0.1) -> str:
    name = path.rsplit("/", 1)[1]
    return f"""def Cube "{name}" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI", "PhysicsMassAPI"{extra_api}])
{{
    double size = {size}
    float physics:mass = 1
    double3 xformOp:translate = ({x}, {y}, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"]
{extra}}}
"""


def _pair(name: str, y: float, a_api: str = "", a_extra: str = "") -> str:
    # B is the smaller cube: no face of one is coplanar with a face of the other
    return _cube(f"/{name}A", 0.0, y, a_api, a_extra) + _cube(f"/{name}B", 0.085, y, size=0.08)


def _slider(name: str, y: float, enabled: bool | None) -> str:
    flag = "" if enabled is None else f"    bool physics:collisionEnabled = {str(enabled).lower()}\n"
    return f"""def PhysicsPrismaticJoint "{name}Joint"
{{
    rel physics:body0 = </{name}A>
    rel physics:body1 = </{name}B>
    point3f physics:localPos0 = (0.04, 0, 0)
    point3f physics:localPos1 = (-0.045, 0, 0)
    uniform token physics:axis = "X"
{flag}}}
"""


def _chain(name: str, y: float, self_collisions: bool | None) -> str:
    """Links L0 (x = 0), L1 (x = 0.09, hinged to L0) and L2 hinged to L1 but placed back at
    x = 0.085 over L0 (a folded chain): L0 and L2 overlap and are not jointed."""
    flag = "" if self_collisions is None else \
        f"    bool physxArticulation:enabledSelfCollisions = {str(self_collisions).lower()}\n"
    apis = '"PhysicsArticulationRootAPI", "PhysxArticulationAPI"'
    links = (_cube(f"/{name}/L0", 0.0, y) + _cube(f"/{name}/L1", 0.09, y + 0.12)
             + _cube(f"/{name}/L2", 0.085, y, size=0.08))

    def hinge(joint, a, b, pos0, pos1):
        return f"""    def PhysicsRevoluteJoint "{joint}"
    {{
        rel physics:body0 = </{name}/{a}>
        rel physics:body1 = </{name}/{b}>
        point3f physics:localPos0 = {pos0}
        point3f physics:localPos1 = {pos1}
        uniform token physics:axis = "Z"
    }}
"""
    body = links.replace("\n", "\n    ").rstrip() + "\n"
    body = "    " + body
    return (f'def Xform "{name}" (prepend apiSchemas = [{apis}])\n{{\n{flag}{body}'
            + hinge("J1", "L0", "L1", "(0.045, 0.06, 0)", "(-0.045, -0.06, 0)")
            + hinge("J2", "L1", "L2", "(-0.005, -0.06, 0)", "(0, 0.06, 0)") + "}\n")


STAGE = HEADER + "".join([
    _pair("Jointed", 0.0), _slider("Jointed", 0.0, None),
    _pair("Enabled", 1.0), _slider("Enabled", 1.0, True),
    _pair("Pairs", 2.0, ', "PhysicsFilteredPairsAPI"', "    rel physics:filteredPairs = </PairsB>\n"),
    _pair("Groups", 3.0),
    """def PhysicsCollisionGroup "GroupA"
{
    rel collection:colliders:includes = </GroupsA>
    rel physics:filteredGroups = </GroupB>
}
def PhysicsCollisionGroup "GroupB"
{
    rel collection:colliders:includes = </GroupsB>
}
""",
    _pair("Free", 4.0),
    _chain("Selfish", 5.0, None),
    _chain("Polite", 6.0, False),
])

# the pairs whose cubes overlap, and whether PhysX's rules let them collide
EXPECTED = {
    ("/JointedA", "/JointedB"): False,
    ("/EnabledA", "/EnabledB"): True,
    ("/PairsA", "/PairsB"): False,
    ("/GroupsA", "/GroupsB"): False,
    ("/FreeA", "/FreeB"): True,
    ("/Selfish/L0", "/Selfish/L2"): True,
    ("/Polite/L0", "/Polite/L2"): False,
}


@pytest.fixture(scope="module")
def stage_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("filters") / "filters.usda"
    path.write_text(STAGE)
    return path


def _kept(model) -> set[tuple[str, str]]:
    names = model.collider_names
    return {tuple(sorted((names[a], names[b]))) for a, b in model.collision_pairs}


def test_usdjoints_keeps_exactly_the_colliding_pairs(stage_path):
    model = load_model(str(stage_path))
    kept = _kept(model)
    for pair, collides in EXPECTED.items():
        assert (tuple(sorted(pair)) in kept) == collides, pair
    reasons = {tuple(sorted(f[:2])): f[2] for f in model.collision_filtered}
    assert "collisionEnabled" in reasons[("/JointedA", "/JointedB")]
    assert reasons[("/PairsA", "/PairsB")] == "PhysicsFilteredPairsAPI"
    assert "CollisionGroup" in reasons[("/GroupsA", "/GroupsB")]
    assert "enabledSelfCollisions" in reasons[("/Polite/L0", "/Polite/L2")]


def test_no_contact_leaves_colliders_out(stage_path):
    model = load_model(str(stage_path), contact=False)
    assert len(model.collider_names) == 0 and len(model.collision_pairs) == 0


@pytest.mark.oracle
@pytest.mark.slow
def test_physx_pushes_apart_exactly_the_kept_pairs(stage_path):
    """Oracle: ovphysx 0.7. A pair PhysX lets collide moves apart (> 5 mm along x or y in
    0.2 s); a filtered pair stays within 0.1 mm."""
    sys.path.insert(0, str(REPO / "tests" / "oracle"))
    from ovphysx_runner import ovphysx_available, run_ovphysx_probe

    if not ovphysx_available():
        pytest.skip("ovphysx is not installed (pip install usdjoints[oracle])")
    bodies = run_ovphysx_probe(stage_path, steps=50, dt=4e-3)["bodies"]
    for (a, b), collides in EXPECTED.items():
        start = np.subtract(bodies[b]["initial"]["position"], bodies[a]["initial"]["position"])
        end = np.subtract(bodies[b]["final"]["position"], bodies[a]["final"]["position"])
        moved = float(np.linalg.norm(end - start))
        if collides:
            assert moved > 5e-3, (a, b, moved)
        else:
            assert moved < 1e-4, (a, b, moved)


def test_usdjoints_pushes_apart_exactly_the_kept_pairs(stage_path):
    """The PhysX test's pairs on usdjoints' own run (0.2 s at dt = 4 ms). usdjoints removes an
    overlap by a position-only correction that leaves no velocity (PhysX's depenetration leaves
    some, so its pairs fly on), so a kept pair ends exactly out of contact: it has moved by the
    5 mm overlap, to 0.5 um; a filtered pair stays within 0.1 mm."""
    from usdjoints.sim import api

    model = load_model(str(stage_path))
    trajectory = api.simulate(model, 0.2, 4e-3)
    index = {name: b for b, name in enumerate(model.body_names)}
    for (a, b), collides in EXPECTED.items():
        start = trajectory.body_poses[0, index[b], :3] - trajectory.body_poses[0, index[a], :3]
        end = trajectory.body_poses[-1, index[b], :3] - trajectory.body_poses[-1, index[a], :3]
        moved = float(np.linalg.norm(end - start))
        if collides:
            assert moved > 5e-3 - 5e-7, (a, b, moved)
        else:
            assert moved < 1e-4, (a, b, moved)
