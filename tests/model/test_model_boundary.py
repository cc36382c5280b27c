"""The model builder reads only the description: it opens no stage and imports no simulator.

Oracles: the import statements of usdjoints/model (read with ``ast``); ``Usd.Stage.Open``
patched to fail while a model is built from a finished walk; and the simulator's compiled
kernels (usdjoints.sim.api) for the numpy forward kinematics and mass-matrix diagonal that
replace them in the builder.
"""
from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
MODEL = REPO / "usdjoints" / "model"
SAMPLES = REPO / "sample_stages"


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative to usdjoints/model
                parts = ["usdjoints", "model"][: 2 - (node.level - 1)]
                base = ".".join(parts + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def test_no_model_module_imports_the_simulator():
    modules = sorted(MODEL.glob("*.py"))
    assert len(modules) > 5
    for path in modules:
        bad = sorted(name for name in _imports(path) if name == "usdjoints.sim" or name.startswith("usdjoints.sim."))
        assert not bad, f"{path.name} imports {bad}"


@pytest.mark.parametrize("stem", ["arm_articulation", "gear_pair", "four_bar_loop", "scaled_rotated_xforms"])
def test_building_a_model_opens_no_stage(stem, monkeypatch):
    from pxr import Usd

    from usdjoints.model.build import build_model
    from usdjoints.walker import walk

    description = walk(str(SAMPLES / f"{stem}.usda"), consumer="usdjoints")

    def refuse(*args, **kwargs):
        raise AssertionError("the model builder opened a stage")

    monkeypatch.setattr(Usd.Stage, "Open", refuse)
    monkeypatch.setattr(Usd.Stage, "CreateInMemory", refuse)
    model = build_model(description)
    assert model.nlink > 0


@pytest.mark.parametrize("stem", ["arm_articulation", "gear_pair", "four_bar_loop", "spherical_cone",
                                  "d6_limits_drives", "scaled_rotated_xforms"])
def test_numpy_kinematics_match_the_kernels(stem):
    from usdjoints.model.build import load_model
    from usdjoints.model.kinematics import link_world_poses, mass_matrix_diagonal
    from usdjoints.sim import api

    model = load_model(str(SAMPLES / f"{stem}.usda"), contact=False)
    rng = np.random.default_rng(7)
    q = np.array(model.q_initial, dtype=float)
    q = q + 0.3 * rng.standard_normal(q.shape) * (np.asarray(model.q_initial) == q)  # perturb every coordinate
    for i in range(model.nlink):  # keep quaternions unit
        if int(model.link_type[i]) in (2, 3):
            start = int(model.link_q_start[i]) + (3 if int(model.link_type[i]) == 3 else 0)
            q[start:start + 4] /= np.linalg.norm(q[start:start + 4])
    np.testing.assert_allclose(mass_matrix_diagonal(model, q), np.diag(api.mass_matrix(model, q)),
                               rtol=1e-10, atol=1e-12)
    R, p = link_world_poses(model, q)
    from usdjoints.sim.kernels.fk import link_transforms, link_world_poses as kernel_poses
    from usdjoints.sim.packed import pack

    pm = pack(model)
    n = pm.link_table.shape[0]
    E, r = np.empty((n, 3, 3)), np.empty((n, 3))
    link_transforms(pm.link_table, pm.link_axis, pm.R_parent_joint, pm.p_parent_joint, pm.R_joint_child,
                    pm.p_joint_child, pm.revolute_basis, q, np.empty((3, 3)), np.empty(3), E, r)
    Rk, pk = np.empty((n, 3, 3)), np.empty((n, 3))
    kernel_poses(pm.link_table, E, r, Rk, pk)
    np.testing.assert_allclose(R, Rk, atol=1e-12)
    np.testing.assert_allclose(p, pk, atol=1e-12)


OVERLAPPING = """#usda 1.0
(
    metersPerUnit = 1
    kilogramsPerUnit = 1
    upAxis = "Z"
)

def Xform "World"
{
    def Plane "Ground" (prepend apiSchemas = ["PhysicsCollisionAPI"])
    {
        uniform token axis = "Z"
    }
"""


def _body(name, x, y, z, shape, extra="", rotate=(0, 0, 0)):
    return f"""
    def Xform "{name}" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
    {{
        float physics:mass = 1
        double3 xformOp:translate = ({x}, {y}, {z})
        float3 xformOp:rotateXYZ = {rotate}
        uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:rotateXYZ"]
        def {shape} "Shape" (prepend apiSchemas = ["PhysicsCollisionAPI"])
        {{
            {extra}
        }}
    }}
"""


def test_numpy_start_depths_match_the_kernels(tmp_path):
    """Free bodies (each its own tree, so no pair is dropped) placed to touch, overlap and stay
    apart: the numpy depths equal the narrow phase's."""
    from usdjoints.model.build import load_model
    from usdjoints.model.overlaps import start_contact_depths
    from usdjoints.sim import start_overlaps

    mesh = ('int[] faceVertexCounts = [3]\n            int[] faceVertexIndices = [0, 1, 2]\n'
            '            point3f[] points = [(-0.3, -0.2, -0.1), (0.3, 0.2, 0.1), (0, 0.25, -0.2)]')
    text = OVERLAPPING + "".join([
        _body("A", 0, 0, 0.4, "Cube", "double size = 1", (10, 20, 30)),
        _body("B", 0.7, 0.1, 0.5, "Sphere", "double radius = 0.3"),
        _body("C", -0.6, 0.2, 0.3, "Capsule", 'double radius = 0.2\n            double height = 0.6\n'
              '            uniform token axis = "X"', (0, 15, 0)),
        _body("D", 0.2, -0.8, 0.2, "Mesh", mesh, (5, 0, 40)),
        _body("E", 3, 3, 2, "Cube", "double size = 0.5"),
        _body("F", -0.4, -0.5, 0.5, "Capsule", "double radius = 0.15\n            double height = 0.4", (40, 0, 0)),
    ]) + "}\n"
    path = tmp_path / "overlaps.usda"
    path.write_text(text)
    model = load_model(str(path))
    assert len(model.collision_pairs) >= 10
    ours, kernels = start_contact_depths(model), start_overlaps.start_contact_depths(model)
    # the kernels report a depth only for touching pairs (-inf otherwise): the decision is depth > 0
    np.testing.assert_array_equal(ours > 0, kernels > 0)
    np.testing.assert_allclose(ours[kernels > 0], kernels[kernels > 0], atol=1e-12)
    assert (ours > 0).sum() >= 3 and (ours <= 0).sum() >= 3


CONVERTED = REPO / "tests" / "data" / "converted_usd"


@pytest.mark.parametrize("stem", ["mjc__dm_control__humanoid", "uuc__oems__baxter", "uuc__drake_repo__cassie_v2"])
@pytest.mark.parametrize("offset", [0.0, 1.0e3])
def test_mass_diagonal_of_branching_trees_matches_crba(stem, offset):
    """The composite pass over real branching robots, at their place and 1 km from the origin.
    Oracle: the diagonal of the crba kernel's mass matrix."""
    from usdjoints.model.build import load_model
    from usdjoints.model.kinematics import mass_matrix_diagonal
    from usdjoints.sim import api

    model = load_model(str(CONVERTED / f"{stem}.usdc"), contact=False)
    q = np.array(model.q_initial, dtype=float)
    for i in range(model.nlink):
        if int(model.link_type[i]) == 3 and int(model.link_parent[i]) < 0:  # a free root: move it away
            q[int(model.link_q_start[i]):int(model.link_q_start[i]) + 3] += offset
    want = np.diag(api.mass_matrix(model, q))
    np.testing.assert_allclose(mass_matrix_diagonal(model, q), want, rtol=1e-9, atol=1e-12 * max(want.max(), 1.0))
