"""Floating trees in free flight keep the lone body's momentum and path (sim/kernels/momentum.py).

Oracles: conservation laws, computed here from the model's masses and inertias and the links'
poses at q and q (+) +-eps v (central differences of the forward kinematics), independently of
the kernels: with gravity only, the centre of mass follows semi-implicit Euler's lone-body path
c_n = c_0 + n dt u_0 + g dt^2 n (n + 1) / 2 (u_0 the start's centre-of-mass velocity), and the
angular momentum about the centre of mass stays what it was. Random trees (seeded) of revolute
and spherical joints on a free base, every joint turning: before, they left that path by up to
5 cm in 1 s at dt = 1e-3.
"""
from __future__ import annotations

import numpy as np
import pytest

from usdjoints.model import ModelBuilder
from usdjoints.model.rotation import quat_to_matrix
from usdjoints.sim import api

G = np.array([0.0, 0.0, -9.81])
DT = 1e-3
EPS = 1e-6


def _tree(seed: int, gravity=G):
    rng = np.random.default_rng(seed)
    b = ModelBuilder(gravity=tuple(gravity))
    b.add_body("base", joint_type="free", mass=10 ** rng.uniform(-1, 1), inertia=np.diag(10 ** rng.uniform(-3, -1, 3)))
    names = ["base"]
    for i in range(int(rng.integers(1, 6))):
        d = 10 ** rng.uniform(-4, -1.5, 3)
        kind = "spherical" if rng.random() < 0.5 else "revolute"
        extra = {"axis": tuple(rng.normal(size=3))} if kind == "revolute" else {}
        b.add_body(f"l{i}", parent=names[int(rng.integers(0, len(names)))], joint_type=kind,
                   p_parent_joint=tuple(rng.uniform(-0.3, 0.3, 3)), mass=10 ** rng.uniform(-2, 0.5),
                   com=tuple(rng.uniform(-0.2, 0.2, 3)), inertia=np.diag([d[1] + d[2], d[0] + d[2], d[0] + d[1]]) / 2,
                   **extra)
        names.append(f"l{i}")
    model = b.build()
    return model, rng.normal(scale=2.0, size=model.nv)


def _links(model, q):
    """World (R, centre of mass) of each link with mass."""
    positions, quats = api.forward_kinematics(model, q)
    out = {}
    for b, link in enumerate(model.body_link):
        link = int(link)
        if link in out or model.link_mass[link] == 0.0:
            continue
        R_wl = quat_to_matrix(quats[b]) @ np.asarray(model.body_R_link[b]).T
        p_wl = positions[b] - R_wl @ np.asarray(model.body_p_link[b])
        out[link] = (R_wl, p_wl + R_wl @ model.link_com[link])
    return out


def _momentum(model, q, qd):
    """(centre of mass, its velocity, angular momentum about it), by central differences."""
    now = _links(model, q)
    ahead = _links(model, api.integrate_configuration(model, q, qd, EPS))
    back = _links(model, api.integrate_configuration(model, q, qd, -EPS))
    mass = sum(float(model.link_mass[k]) for k in now)
    c = sum(float(model.link_mass[k]) * now[k][1] for k in now) / mass
    u = sum(float(model.link_mass[k]) * (ahead[k][1] - back[k][1]) for k in now) / (2 * EPS * mass)
    L = np.zeros(3)
    for k, (R, x) in now.items():
        W = (ahead[k][0] - back[k][0]) @ R.T / (2 * EPS)  # [w]x
        w = np.array([W[2, 1], W[0, 2], W[1, 0]])
        v = (ahead[k][1] - back[k][1]) / (2 * EPS)
        m = float(model.link_mass[k])
        L += R @ model.link_inertia[k] @ R.T @ w + m * np.cross(x - c, v)
    return c, u, L


@pytest.mark.parametrize("seed", range(8))
def test_centre_of_mass_follows_the_lone_body_path(seed):
    model, qd0 = _tree(seed)
    n = 1000
    trajectory = api.simulate(model, n * DT, DT, qd0=qd0, record_every=100)
    c0, u0, _ = _momentum(model, trajectory.q[0], qd0)
    for row, q in enumerate(trajectory.q):
        k = 100 * row
        expected = c0 + k * DT * u0 + G * DT * DT * k * (k + 1) / 2
        c, _, _ = _momentum(model, q, trajectory.qd[row])
        assert np.abs(c - expected).max() < 1e-8, (seed, k)


@pytest.mark.parametrize("seed", range(8))
def test_angular_momentum_about_the_centre_of_mass_is_kept(seed):
    model, qd0 = _tree(seed, gravity=(0.0, 0.0, 0.0))
    trajectory = api.simulate(model, 0.5, DT, qd0=qd0, record_every=50)
    _, u0, L0 = _momentum(model, trajectory.q[0], qd0)
    scale = np.linalg.norm(L0) + 1e-12
    for row, q in enumerate(trajectory.q):
        _, u, L = _momentum(model, q, trajectory.qd[row])
        assert np.linalg.norm(L - L0) < 1e-7 * scale + 1e-12, (seed, row)
        assert np.abs(u - u0).max() < 1e-8
