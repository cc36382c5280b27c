"""Mesh colliders on rigid bodies collide as convex hulls (PhysX's convexHull approximation).

Oracles: Qhull (scipy.spatial.ConvexHull) for the hull's vertices and face planes; closed forms
for the dynamics: a mesh cube is the same solid as a Cube of its size, so it rests at half its
size on a plane and slides to a stop at mu g, exactly as the primitive does
(tests/sim/test_contact.py holds the primitive to the same closed forms).
"""
from __future__ import annotations

import numpy as np
import pytest

from usdjoints.model.articulated import COLLIDER_BOX, COLLIDER_HULL
from usdjoints.model.build import load_model
from usdjoints.model.colliders import hull_planes
from usdjoints.sim.api import simulate
from usdjoints.walker.colliders import HULL_VERTEX_LIMIT, hull_points

STAGE = """#usda 1.0
(
    metersPerUnit = 1
    kilogramsPerUnit = 1
    upAxis = "Z"
)
def PhysicsScene "scene"
{{
    vector3f physics:gravityDirection = (0, 0, -1)
    float physics:gravityMagnitude = 9.81
}}
def Material "Rubber" (prepend apiSchemas = ["PhysicsMaterialAPI"])
{{
    float physics:staticFriction = {mu}
    float physics:dynamicFriction = {mu}
    float physics:restitution = 0
}}
def Plane "Ground" (prepend apiSchemas = ["PhysicsCollisionAPI", "MaterialBindingAPI"])
{{
    uniform token axis = "Z"
    rel material:binding:physics = </Rubber>
}}
def {shape} "Body" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI", "PhysicsCollisionAPI", "MaterialBindingAPI"])
{{
    float physics:mass = 1
    float3 physics:diagonalInertia = (0.00667, 0.00667, 0.00667)
    {body}
    rel material:binding:physics = </Rubber>
    double3 xformOp:translate = (0, 0, {z})
    uniform token[] xformOpOrder = ["xformOp:translate"]
}}
"""
G = 9.81
DT = 1e-3
HALF = 0.1
_CORNERS = [(x, y, z) for x in (-HALF, HALF) for y in (-HALF, HALF) for z in (-HALF, HALF)]
MESH_CUBE = ("point3f[] points = [" + ", ".join(f"({x}, {y}, {z})" for x, y, z in _CORNERS) + "]\n"
             "    int[] faceVertexCounts = [4, 4, 4, 4, 4, 4]\n"
             "    int[] faceVertexIndices = [0, 1, 3, 2, 4, 6, 7, 5, 0, 4, 5, 1, 2, 3, 7, 6, 0, 2, 6, 4, 1, 5, 7, 3]")
CUBE = f"double size = {2 * HALF}"


def _model(tmp_path, shape, body, z, mu=0.5):
    path = tmp_path / f"{shape}_{z}_{mu}.usda"
    path.write_text(STAGE.format(shape=shape, body=body, z=z, mu=mu))
    return load_model(str(path))


def _random_cloud(seed, n=500):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, 3)) * np.array([0.1, 0.04, 0.02])


@pytest.mark.parametrize("seed", range(4))
def test_hull_planes_match_qhull(seed):
    """Every point's depth below the nearest face plane equals Qhull's (1e-12 m)."""
    spatial = pytest.importorskip("scipy.spatial")
    points = _random_cloud(seed, HULL_VERTEX_LIMIT)
    planes = hull_planes(points)
    reference = spatial.ConvexHull(points).equations  # n . x + offset <= 0 inside
    queries = _random_cloud(seed + 100, 2000)
    ours = np.min(planes[:, 3] - queries @ planes[:, :3].T, axis=1)
    theirs = np.min(-(queries @ reference[:, :3].T + reference[:, 3]), axis=1)
    assert np.abs(ours - theirs).max() < 1e-12
    assert np.allclose(np.linalg.norm(planes[:, :3], axis=1), 1.0)


def test_walker_hull_vertices_are_vertices_of_the_mesh_hull():
    """A mesh of 500 points keeps at most HULL_VERTEX_LIMIT of them, every one a vertex of
    Qhull's hull of all 500; a flat mesh has no hull (it keeps its bounding box)."""
    spatial = pytest.importorskip("scipy.spatial")
    from pxr import Usd, UsdGeom

    points = _random_cloud(7)
    stage = Usd.Stage.CreateInMemory()
    mesh = UsdGeom.Mesh.Define(stage, "/m")
    mesh.CreatePointsAttr([tuple(map(float, p)) for p in points])
    hull = np.array(hull_points(mesh.GetPrim()))
    assert 8 <= len(hull) <= HULL_VERTEX_LIMIT
    vertices = points[spatial.ConvexHull(points).vertices]
    for p in hull:
        assert np.min(np.linalg.norm(vertices - p, axis=1)) < 1e-6  # float32 points
    flat = UsdGeom.Mesh.Define(stage, "/flat")
    flat.CreatePointsAttr([(float(x), float(y), 0.0) for x, y, _ in points])
    assert hull_points(flat.GetPrim()) is None


def test_mesh_on_a_body_is_a_hull_and_a_static_mesh_its_box(tmp_path):
    model = _model(tmp_path, "Mesh", MESH_CUBE, z=0.1)
    kinds = dict(zip(model.collider_names, model.collider_type))
    assert kinds["/Body"] == COLLIDER_HULL
    index = model.collider_hull_index[model.collider_names.index("/Body")]
    assert index[1] == 8 and index[3] == 6  # a cube's 8 vertices and 6 face planes
    static = tmp_path / "static.usda"
    static.write_text(STAGE.format(shape="Mesh", body=MESH_CUBE, z=0.1, mu=0.5).replace(
        '"PhysicsRigidBodyAPI", "PhysicsMassAPI", ', "") + 'def Sphere "Ball" (prepend apiSchemas = '
        '["PhysicsRigidBodyAPI", "PhysicsCollisionAPI"])\n{\n    double radius = 0.05\n}\n')
    fixed = load_model(str(static))
    assert fixed.collider_type[fixed.collider_names.index("/Body")] == COLLIDER_BOX


def test_dropped_mesh_cube_rests_at_half_its_size(tmp_path):
    """Dropped flat from 0.3 m, the mesh cube rests at z = 0.1 m within 1 mm, where the Cube
    primitive rests (to 1e-8 m), and does not drift."""
    ours = simulate(_model(tmp_path, "Mesh", MESH_CUBE, z=0.3), 3.0, DT, record_every=100)
    cube = simulate(_model(tmp_path, "Cube", CUBE, z=0.3), 3.0, DT, record_every=100)
    height = ours.body_poses[:, 0, 2]
    assert np.all(height[10:] >= HALF - 1e-3)
    assert abs(height[-1] - HALF) <= 1e-3
    assert np.ptp(height[10:]) <= 1e-6
    # to 1e-8 m: the mesh's points are float32 (0.1 is 0.1 + 1.49e-9 there)
    assert abs(height[-1] - cube.body_poses[-1, 0, 2]) <= 1e-8
    assert np.abs(ours.body_poses[10:, 0, :2]).max() <= 1e-6


def test_sliding_mesh_cube_decelerates_at_mu_g(tmp_path):
    """Coulomb on the hull's bottom face: the speed falls by mu g per second (1e-5)."""
    mu = 0.3
    model = _model(tmp_path, "Mesh", MESH_CUBE, z=HALF, mu=mu)
    qd0 = np.zeros(model.nv)
    qd0[0] = 2.0
    trajectory = simulate(model, 1.0, DT, qd0=qd0)
    window = slice(100, 300)
    slope = np.polyfit(trajectory.t[window], trajectory.qd[window, 0], 1)[0]
    assert slope == pytest.approx(-mu * G, rel=1e-5)
    assert trajectory.qd[-1, 0] == pytest.approx(0.0, abs=1e-6)


PAIR_STAGE = """#usda 1.0
(
    metersPerUnit = 1
    kilogramsPerUnit = 1
    upAxis = "Z"
)
def PhysicsScene "scene"
{{
    float physics:gravityMagnitude = 0
}}
def Xform "robot"
{{
    def {shape} "a" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI", "PhysicsCollisionAPI"])
    {{
        float physics:mass = 1
        float3 physics:diagonalInertia = (0.00667, 0.00667, 0.00667)
        {body}
    }}
    def {shape} "b" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI", "PhysicsCollisionAPI"])
    {{
        float physics:mass = 1
        float3 physics:diagonalInertia = (0.00667, 0.00667, 0.00667)
        {body}
        double3 xformOp:translate = (0.19, 0, 0)
        float3 xformOp:scale = (1, 0.5, 0.5)
        uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:scale"]
    }}
    def PhysicsRevoluteJoint "hinge"
    {{
        rel physics:body0 = </robot/a>
        rel physics:body1 = </robot/b>
        bool physics:collisionEnabled = true
        uniform token physics:axis = "Z"
        point3f physics:localPos0 = (0.095, 0, 0)
        point3f physics:localPos1 = (-0.095, 0, 0)
    }}
}}
"""


@pytest.mark.parametrize("shape, body, held", [("Mesh", MESH_CUBE, True), ("Cube", CUBE, False)],
                         ids=["hulls-held", "cubes-pushed"])
def test_start_overlap_of_one_robot(tmp_path, shape, body, held):
    """Two links hinged with collisionEnabled, b's end (half a's section) 1 cm deep in a at the
    start, no gravity:
    as hulls the overlap is held (no force acts, so nothing moves: closed form), as Cube
    primitives it is pushed apart (PhysX's depenetration, which usdjoints keeps for primitives)."""
    from usdjoints.sim.start_overlaps import held_start_overlaps, start_contact_depths

    path = tmp_path / f"pair_{shape}.usda"
    path.write_text(PAIR_STAGE.format(shape=shape, body=body))
    model = load_model(str(path))
    assert len(model.collision_pairs) == 1
    depth = start_contact_depths(model)[0]
    assert depth == pytest.approx(0.01, abs=1e-6)
    assert held_start_overlaps(model)[0] == (pytest.approx(depth) if held else 0.0)
    trajectory = simulate(model, 0.2, DT, record_every=50)
    moved = np.abs(trajectory.q - trajectory.q[0]).max()
    if held:
        assert moved <= 1e-12
    else:
        assert moved > 1e-3


def test_start_overlap_held_where_the_limit_correction_puts_it(tmp_path):
    """The hinged hull pair above, starting at q = 0 outside the hinge's [10, 20] deg: the first
    step puts the hinge on 10 deg (its position-only correction), where the overlap is deeper
    than at the start. The pair is held at that deeper depth, so after the first step nothing
    moves at all (no gravity, no drive: closed form), instead of the contacts pushing the
    hull back to its start depth."""
    from usdjoints.sim.start_overlaps import held_start_overlaps, start_contact_depths, within_limits

    path = tmp_path / "limited_pair.usda"
    path.write_text(PAIR_STAGE.format(shape="Mesh", body=MESH_CUBE).replace(
        'uniform token physics:axis = "Z"', 'uniform token physics:axis = "Z"\n'
        '        float physics:lowerLimit = 10\n        float physics:upperLimit = 20'))
    model = load_model(str(path))
    corrected = within_limits(model, model.q_initial)
    assert corrected[-1] == pytest.approx(np.radians(10.0)) and model.q_initial[-1] == 0.0
    start, on_limit = start_contact_depths(model)[0], start_contact_depths(model, q=corrected)[0]
    assert on_limit > start + 1e-3
    assert held_start_overlaps(model)[0] == pytest.approx(on_limit)
    trajectory = simulate(model, 0.2, DT, record_every=1)
    assert trajectory.q[1, -1] == pytest.approx(np.radians(10.0), abs=1e-12)
    assert np.abs(trajectory.q[1:] - trajectory.q[1]).max() <= 1e-12
