"""Kernels against pinocchio's ABA, RNEA, CRBA and forward kinematics on the same model, built
through pinocchio's Python API (addJoint / appendBodyToJoint) from the same float64 parameters.

Oracle: pinocchio (extra `oracle`). pinocchio's CRBA assumes depth-first joint order, so the
trees here are added depth first (our kernels only need topological order). Random trees with free bases, spherical joints, unaligned
revolute/prismatic axes, D6 chains (as separate pinocchio joints), armature and joint offsets.
"""
import numpy as np
import pytest

pin = pytest.importorskip("pinocchio")

from reference.random_models import random_state, random_tree
from reference.to_pinocchio import q_to_pinocchio, to_pinocchio
from usdjoints.sim import api

pytestmark = pytest.mark.oracle
# Both sides are float64 recursions over the same tree; 1e-10 relative leaves room for a
# different operation order (measured differences are ~1e-14).
RTOL = 1e-10


def _rel(actual, expected):
    return np.max(np.abs(actual - expected)) / max(1.0, np.max(np.abs(expected)))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("free_base", [True, False])
def test_dynamics_match_pinocchio(seed, free_base):
    model = random_tree(seed, n_bodies=10, free_base=free_base, depth_first=True)
    pmodel = to_pinocchio(model)
    pdata = pmodel.createData()
    rng = np.random.default_rng(seed)
    for _ in range(20):
        q, qd, qdd, tau = random_state(model, rng)
        qp = q_to_pinocchio(model, q)
        assert _rel(api.forward_dynamics(model, q, qd, tau), pin.aba(pmodel, pdata, qp, qd, tau)) < RTOL
        assert _rel(api.inverse_dynamics(model, q, qd, qdd), pin.rnea(pmodel, pdata, qp, qd, qdd)) < RTOL
        M_pin = pin.crba(pmodel, pdata, qp).copy()  # pinocchio 4 returns both triangles
        assert _rel(api.mass_matrix(model, q), M_pin) < RTOL


@pytest.mark.parametrize("seed", range(4))
def test_body_poses_match_pinocchio(seed):
    model = random_tree(seed, n_bodies=10)
    pmodel = to_pinocchio(model)
    pdata = pmodel.createData()
    q, _, _, _ = random_state(model, np.random.default_rng(seed))
    pin.forwardKinematics(pmodel, pdata, q_to_pinocchio(model, q))
    positions, quats = api.forward_kinematics(model, q)
    for b in range(model.nbody):
        link = int(model.body_link[b])
        if link < 0:
            continue
        T = (pdata.oMi[link + 1]
             * pin.SE3(model.link_R_joint_child[link], model.link_p_joint_child[link])
             * pin.SE3(model.body_R_link[b], model.body_p_link[b]))
        np.testing.assert_allclose(positions[b], T.translation, atol=1e-10)
        expected = pin.Quaternion(T.rotation)
        np.testing.assert_allclose(abs(np.dot(quats[b], [expected.w, expected.x, expected.y, expected.z])), 1.0, atol=1e-12)
