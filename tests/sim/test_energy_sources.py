"""Where an undriven robot's energy rises, measured: the integrator's own oscillation on an
undamped system, told apart from a source of energy.

mimic_pendulums (tests/sim/sim_robots.py; KNOWN in test_robot_set.py) is four undamped pendulums
on plates resting on the ground: nothing dissipates while they swing, so the energy the robot
set measures oscillates with semi-implicit Euler's O(dt) error and its rise equals its swing.
Oracle (backward error analysis): semi-implicit Euler, v' = v - dt M^-1 grad V(q), q' = q + dt v',
conserves the modified energy E - (dt / 2) grad V(q) . v to O(dt^2), so on a conservative system
* the rise of E is proportional to dt (halved with the step), a bounded oscillation, and
* the modified energy does not rise beyond the robot set's criterion (1e-3 of E's swing),
while a source of energy (a force doing work, as the explicit frame term of a spinning free body
did: test_spinning_body_energy.py) shows in both.
"""
from __future__ import annotations

import numpy as np
import pytest

import sim_robots
from test_robot_set import ENERGY_RTOL

pytestmark = pytest.mark.slow


def _rise(values) -> tuple[float, float]:
    values = np.asarray(values)
    return float(np.max(values - np.minimum.accumulate(values))), float(np.ptp(values))


def _energies(model, dt):
    from usdjoints.sim import api

    every = round(sim_robots.RECORD_EVERY * sim_robots.DT / dt)
    trajectory = api.simulate(model, sim_robots.DURATION, dt, record_every=every)
    plain, modified = [], []
    eps = 1e-6
    zero = np.zeros(model.nv)
    for q, v in zip(trajectory.q, trajectory.qd):
        e = sim_robots.energy(model, q, v)
        ahead = api.integrate_configuration(model, q, v, eps)
        behind = api.integrate_configuration(model, q, v, -eps)
        power = (sim_robots.energy(model, ahead, zero) - sim_robots.energy(model, behind, zero)) / (2 * eps)
        plain.append(e)
        modified.append(e - 0.5 * dt * power)
    return plain, modified


def test_undamped_pendulums_conserve_the_modified_energy(tmp_path):
    from usdjoints.model.build import load_model

    stage = sim_robots.BY_NAME["mimic_pendulums"].stage(tmp_path)
    model = sim_robots.undriven(load_model(str(stage)))
    assert not np.any(np.asarray(model.dof_damping))  # nothing dissipates: an oscillating E
    plain, modified = _energies(model, sim_robots.DT)
    rise, swing = _rise(plain)
    rise_modified, _ = _rise(modified)
    half_rise, _ = _rise(_energies(model, sim_robots.DT / 2)[0])
    print(f"\nE rise {rise:.3g} J (swing {swing:.3g} J), at dt/2 {half_rise:.3g} J; modified energy rise {rise_modified:.3g} J")
    assert rise > 0.5 * swing  # the failure the robot set records (KNOWN)
    assert 0.45 < half_rise / rise < 0.55  # first order in dt: the integrator's oscillation
    assert rise_modified <= ENERGY_RTOL * swing
