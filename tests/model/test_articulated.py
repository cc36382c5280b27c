"""ArticulatedModel and ModelBuilder: index ranges, fixed-joint merging, D6 expansion, and the
promise that importing the model never loads numba."""
import subprocess
import sys

import numpy as np
import pytest

from usdjoints.model import Drive, ModelBuilder, merge_rigidly_attached
from reference.random_models import random_inertia, random_rotation


def _two_link(joint_type="fixed", **extra):
    b = ModelBuilder(gravity=(0, 0, -9.81))
    b.add_body("base", joint_type="free", mass=2.0, com=(0.1, 0, 0), inertia=np.diag([0.1, 0.2, 0.3]))
    b.add_body("tool", parent="base", joint_type=joint_type, p_parent_joint=(0, 0, 0.5), mass=1.0,
               com=(0, 0.2, 0), inertia=np.diag([0.01, 0.02, 0.03]), **extra)
    return b.build()


def test_slices_and_neutral_configuration():
    b = ModelBuilder()
    b.add_body("base", joint_type="free", mass=1.0, inertia=np.eye(3))
    b.add_body("ball", parent="base", joint_type="spherical", mass=1.0, inertia=np.eye(3))
    b.add_body("hinge", parent="ball", joint_type="revolute", mass=1.0, inertia=np.eye(3))
    b.add_body("slider", parent="hinge", joint_type="d6", d6_axes=("rotZ", "transX"), mass=1.0, inertia=np.eye(3))
    m = b.build()
    assert m.joint_names == ("base", "ball", "hinge", "slider")
    assert (m.nq, m.nv) == (7 + 4 + 1 + 2, 6 + 3 + 1 + 2)
    assert m.q_slice("ball") == slice(7, 11) and m.v_slice("ball") == slice(6, 9)
    assert m.q_slice("slider") == slice(12, 14) and m.v_slice("slider") == slice(10, 12)
    np.testing.assert_array_equal(m.neutral_configuration(),
                                  [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0])
    # D6 axes come translations first: transX then rotZ, on a virtual link then the body's link
    assert m.link_names[-2:] == ("slider/transX", "slider")
    assert list(m.dof_q_index[10:]) == [12, 13] and list(m.dof_q_index[6:9]) == [-1, -1, -1]
    with pytest.raises(KeyError, match="no joint named"):
        m.q_slice("missing")


def test_arrays_are_read_only():
    m = _two_link()
    with pytest.raises(ValueError):
        m.link_mass[0] = 5.0


def test_merge_matches_parallel_axis_theorem():
    """Oracle: two point masses 1 kg at x = +-1 make mass 2, com 0, inertia diag(0, 2, 2)."""
    zero = np.zeros((3, 3))
    mass, com, inertia = merge_rigidly_attached(1.0, [1, 0, 0], zero, 1.0, [0, 0, 0], zero, np.eye(3), [-1, 0, 0])
    assert mass == 2.0
    np.testing.assert_allclose(com, 0.0, atol=1e-15)
    np.testing.assert_allclose(inertia, np.diag([0.0, 2.0, 2.0]), atol=1e-15)


def test_fixed_child_has_the_dynamics_of_a_locked_joint():
    """Oracle: welding a body equals joining it by a revolute joint held at q = 0 with no
    acceleration: the base block of the mass matrix and the gravity forces must agree."""
    from usdjoints.sim import api

    welded = _two_link("fixed")
    hinged = _two_link("revolute", axis=(1, 0, 0))
    assert welded.nbody == 2 and welded.nlink == 1 and welded.body_link.tolist() == [0, 0]
    q = np.array([0.3, -0.2, 1.0, 0.9, 0.1, 0.3, 0.2])
    q /= np.r_[1, 1, 1, [np.linalg.norm(q[3:])] * 4]
    qh = np.concatenate([q, [0.0]])
    np.testing.assert_allclose(api.mass_matrix(welded, q), api.mass_matrix(hinged, qh)[:6, :6], atol=1e-12)
    zero6, zero7 = np.zeros(6), np.zeros(7)
    np.testing.assert_allclose(api.inverse_dynamics(welded, q, zero6, zero6),
                               api.inverse_dynamics(hinged, qh, zero7, zero7)[:6], atol=1e-12)
    pos_w, quat_w = api.forward_kinematics(welded, q)
    pos_h, quat_h = api.forward_kinematics(hinged, qh)
    np.testing.assert_allclose(pos_w, pos_h, atol=1e-12)
    np.testing.assert_allclose(quat_w, quat_h, atol=1e-12)


def test_single_axis_d6_equals_the_plain_joint():
    """A D6 joint with only rotZ free is a revolute joint about z (same M, bias, poses)."""
    from usdjoints.sim import api

    rng = np.random.default_rng(3)
    models = []
    for kind in ("revolute", "d6"):
        r = np.random.default_rng(7)
        b = ModelBuilder()
        b.add_body("a", joint_type=kind, axis=(0, 0, 1), d6_axes=("rotZ",), mass=1.5,
                   com=r.normal(size=3), inertia=random_inertia(r), R_parent_joint=random_rotation(r),
                   p_parent_joint=r.normal(size=3), damping=0.3, drive=Drive(stiffness=2.0))
        models.append(b.build())
    q, qd = rng.normal(size=1), rng.normal(size=1)
    np.testing.assert_array_equal(api.mass_matrix(models[0], q), api.mass_matrix(models[1], q))
    np.testing.assert_array_equal(api.inverse_dynamics(models[0], q, qd, qd), api.inverse_dynamics(models[1], q, qd, qd))
    assert models[1].dof_damping[0] == 0.3 and models[1].dof_drive_stiffness[0] == 2.0


def test_body_welded_to_world_keeps_its_pose():
    b = ModelBuilder()
    b.add_body("ground", joint_type="fixed", p_parent_joint=(1, 2, 3))
    b.add_body("arm", parent="ground", joint_type="revolute", p_parent_joint=(0, 0, 1), mass=1.0,
               inertia=np.eye(3))
    m = b.build()
    from usdjoints.sim import api

    positions, _ = api.forward_kinematics(m, [0.4])
    np.testing.assert_allclose(positions, [[1, 2, 3], [1, 2, 4]])


def test_importing_the_model_does_not_import_numba():
    code = ("import sys, usdjoints.model, usdjoints.sim.api, usdjoints.sim.packed; "
            "print('numba' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
