"""Random robots (tests/sim/random_urdf.py) converted by usdjoints and simulated 2 s at the
command-line defaults (euler, dt = 1e-3, contacts on, the converter's drives): the issue-16
properties on models nobody wrote by hand, with the robot set's measurements
(tests/sim/sim_robots.py) and oracles:

* every robot runs without divergence or refusal;
* a floating base (no ground: contacts, drives, limits and mimic couplings are internal forces)
  keeps its centre of mass on the lone body's Euler trajectory to 1e-3 m, its linear momentum
  less M g t and its angular momentum about the centre of mass to 1e-6 of M g t_end (conservation
  laws);
* a fixed base's joints that start within their limits stay within them to 0.5 deg (0.5 mm),
  and those that start outside are within them at the end (PhysX puts them back in one step).

And the converter against pinocchio reading the same URDF (mimic tags removed for both, continuous
joints made revolute: pinocchio's continuous joint has two coordinates): the mass matrix and the
inverse dynamics of the converted stage agree to 1e-5 relative (UsdPhysics stores masses,
inertias and frames as 32-bit floats), as on example-robot-data in test_acceptance_pinocchio.py.

The undriven energy is not checked here: on these undamped, fast-swinging random trees semi-
implicit Euler's own energy error (first order in dt; tests/sim/test_energy_sources.py) exceeds
the robot set's 1e-3 of the swing on about one robot in fifteen, and the start overlaps of
primitive colliders are pushed apart as PhysX pushes them, which raises the energy.
"""
from __future__ import annotations

import re

import numpy as np
import pytest

import random_urdf
import sim_robots

pytestmark = pytest.mark.slow

# 16 trees of up to 10 links and 2 of up to 30; even seeds float
SEEDS = [(seed, 10) for seed in range(16)] + [(100, 30), (101, 30)]


def _run(seed: int, max_links: int, tmp_path):
    from usdjoints.convert import convert_urdf
    from usdjoints.model.build import load_model
    from usdjoints.sim import api

    urdf = tmp_path / f"random{seed}.urdf"
    urdf.write_text(random_urdf.robot(seed, max_links))
    stage = tmp_path / f"random{seed}.usda"
    convert_urdf(urdf, stage, floating_base=seed % 2 == 0)
    model = load_model(str(stage))
    trajectory = api.simulate(model, sim_robots.DURATION, sim_robots.DT, record_every=sim_robots.RECORD_EVERY)
    return model, trajectory


@pytest.mark.parametrize("seed,max_links", SEEDS)
def test_random_robot_keeps_the_properties(seed, max_links, tmp_path):
    model, trajectory = _run(seed, max_links, tmp_path)
    if sim_robots.free_roots(model):
        fall = sim_robots.free_fall_errors(model, trajectory)
        print(f"\nrandom{seed}: nv={model.nv}, COM {fall['com_m']:.2e} m, p {fall['p_Ns']:.2e} N s, "
              f"L {fall['L_Nms']:.2e} N m s")
        assert fall["com_m"] < 1e-3
        assert fall["p_Ns"] < 1e-6 * fall["scale_p"]
        assert fall["L_Nms"] < 1e-6 * fall["scale_p"]
    else:
        worst, joint, outside = sim_robots.limit_excess(model, trajectory)
        print(f"\nrandom{seed}: nv={model.nv}, {worst:.2e} past a limit ({joint}), started outside: {outside}")
        assert worst < 0.5, joint
        for name, (_, end, _) in outside.items():
            assert end < 0.5, name


def _pinocchio_ready(text: str) -> str:
    """``text`` without mimic tags, its continuous joints revolute within +-3 rad."""
    from test_acceptance_pinocchio import _strip_mimic

    text = _strip_mimic(text).replace('type="continuous"', 'type="revolute"')
    text = re.sub(r'<limit effort="[^"]*" velocity="[^"]*"/>', "", text)
    return re.sub(r'(<joint name="j\d+" type="revolute">(?:(?!</joint>).)*?)(</joint>)',
                  lambda m: m.group(1) + ("" if "<limit lower" in m.group(1) else
                                          '<limit lower="-3" upper="3" effort="1" velocity="1"/>') + m.group(2),
                  text, flags=re.S)


@pytest.mark.oracle
@pytest.mark.parametrize("seed", range(16))
def test_random_robot_converts_to_pinocchios_dynamics(seed, tmp_path):
    pin = pytest.importorskip("pinocchio")
    import test_acceptance_pinocchio as reference
    from usdjoints.convert import convert_urdf
    from usdjoints.model.build import load_model
    from usdjoints.sim import api

    floating = seed % 2 == 0
    text = _pinocchio_ready(random_urdf.robot(seed))
    urdf, stage = tmp_path / "robot.urdf", tmp_path / "robot.usda"
    urdf.write_text(text)
    report = convert_urdf(urdf, stage, floating_base=floating)
    # the links the converter gave a stand-in mass (see test_acceptance_pinocchio.converted)
    stand_ins = {m.group(1) for e in report.entries
                 if (m := re.match(r"link '([^']+)' mass$", e.element)) and "written as" in e.message}
    stand_ins -= reference._welded_links(text)
    pin_text = reference._with_physx_inertias(reference._with_stand_in_masses(text, stand_ins), stage,
                                              reference._zero_inertia_links(text))
    model, pm = load_model(stage), reference._pin_model(pin_text, floating)
    pd = pm.createData()
    q_map, v_map, quats = reference._index_maps(model, pm)
    worst = {"rnea": 0.0, "crba": 0.0}
    for q_pin, qd_pin, qdd_pin, _ in reference._random_states(pm, 20, seed=seed):
        q = np.empty(model.nq)
        q[q_map] = q_pin
        for qp, qo in quats:
            q[qo:qo + 4] = reference._quat_xyzw_to_wxyz(q_pin[qp:qp + 4])
        qd, qdd = np.empty(model.nv), np.empty(model.nv)
        qd[v_map], qdd[v_map] = qd_pin, qdd_pin
        worst["rnea"] = max(worst["rnea"], reference._rel(api.inverse_dynamics(model, q, qd, qdd)[v_map],
                                                          pin.rnea(pm, pd, q_pin, qd_pin, qdd_pin)))
        worst["crba"] = max(worst["crba"], reference._rel(api.mass_matrix(model, q)[np.ix_(v_map, v_map)],
                                                          pin.crba(pm, pd, q_pin)))
    print(f"\nrandom{seed}: nv={model.nv}, relative rnea {worst['rnea']:.1e}, crba {worst['crba']:.1e}")
    assert max(worst.values()) < reference.END_TO_END_RTOL, worst
