"""Acceptance (issue 16): real robots simulate 2 s at the command-line defaults (euler, dt = 1e-3,
contacts on) without divergence or refusal, and keep the issue's three properties.

The robots and the measurements are in tests/sim/sim_robots.py, with their oracles:
* floating base, ground removed: the centre of mass on the lone body's Euler trajectory to 1e-3 m,
  linear momentum less M g t and angular momentum about the centre of mass conserved
  (conservation laws: contacts, drives and limits are internal forces);
* fixed base: joints that start within their limits stay within them to 0.5 deg (0.5 mm);
* drives off: the energy (kinetic + gravity + joint springs) never rises above its lowest value so
  far by more than 1e-3 of the run's own energy swing (semi-implicit Euler's energy is not
  exactly conserved on a conservative system: it oscillates by O(dt); it never drifts up).
  It is measured from the first state within every limit: a robot that starts outside a limit
  violates a constraint, and PhysX (as usdjoints) removes that violation in the first step by
  moving the joint, which changes the potential energy without a force doing work.

The robots that do not hold a property today are listed in KNOWN with the measured cause; they are
strict expected failures, so a fix shows up as an unexpected pass.
"""
from __future__ import annotations

import math
import time

import numpy as np
import pytest

import sim_robots

pytestmark = pytest.mark.slow

COM_BOUND = 1e-3          # [m], the bound
MOMENTUM_RTOL = 1e-6      # of M g t_end (linear) and of M g t_end x 1 m (angular)
LIMIT_BOUND = 0.5         # [deg | mm]
ENERGY_RTOL = 1e-3        # of the run's energy swing

# Measured on this branch (tests/sim/sim_robots.py as a script prints the numbers).
KNOWN = {
    ("uuc_solo12", "runs"): "diverges at t = 0.065 s (HL_HAA): urdf-usd-converter's overlapping leg "
                            "colliders; fine with --no-contact",
    # contacts are not energy-neutral: penetration is removed by a velocity (the contact time
    # constant and up to PhysX's 3 m/s depenetration speed), which adds energy at impacts.
    # With load_model(contact=False) none of these rises: mimic_pendulums' energy only falls
    # (the rise is contact-only, not the mimic constraint), mjc_quadruped 0 J, allegro_left and
    # tiago 0 J from their first state within their limits
    ("mimic_pendulums", "energy"): "+0.070 J on a swing of 0.070 J: the pendulums' contacts",
    ("mjc_humanoid", "energy"): "+0.50 J on a swing of 95 J at the ground impact",
    ("mjc_quadruped", "energy"): "+1.93 J on a swing of 597 J, contacts (none without)",
    ("allegro_left", "energy"): "+0.0155 J on a swing of 0.0155 J: the hand's self-contacts",
    ("tiago", "energy"): "+8.66 J on a swing of 11.5 J: the hand links' self-contacts",
    # semi-implicit Euler's own first-order energy error on fast, light links (the rise halves
    # with dt: cheetah 0.0122, 0.0065, 0.0032 J at dt = 1e-3, 5e-4, 2.5e-4 s; manipulator
    # without contacts 0.111, 0.050, 0.022 J). The masses are PhysX's (density 1000 times the
    # capsules' volumes, cheetah's torso 9.46 kg); before the model read them from the
    # StageDescription each body also counted its child bodies' colliders (torso 21.2 kg), so
    # the links were heavier and slower and the same error stayed under the bound
    ("mjc_cheetah", "energy"): "+0.0123 J on a swing of 6.24 J (ffoot at 17 rad/s); "
                               "+0.0032 J on 8.1 J without contacts",
    ("mjc_manipulator", "energy"): "+0.039 J on a swing of 2.20 J; arm at 15-27 rad/s, fingertips "
                                   "of 1.5e-7 kg m^2",
    # contacts push a joint that starts outside its limits once it is back on its limit
    ("allegro_left", "outside"): "joint_12 starts 15.1 deg past its limit and is on it after "
                                 "the first step (at rest with --no-contact); the thumb's "
                                 "self-contacts then move it at up to 250 deg/s",
}

_CACHE: dict[str, dict] = {}


def _measured(name: str, tmp_path_factory) -> dict:
    if name not in _CACHE:
        _CACHE[name] = sim_robots.measure(sim_robots.BY_NAME[name], tmp_path_factory.mktemp(name))
    result = _CACHE[name]
    if "skipped" in result:
        pytest.skip(result["skipped"])
    return result


def _expect(request, name: str, prop: str) -> None:
    reason = KNOWN.get((name, prop))
    if reason:
        request.applymarker(pytest.mark.xfail(reason=reason, strict=True))


NAMES = [r.name for r in sim_robots.ROBOTS]


def test_the_set_is_large_and_varied():
    """The issue asks for 20 or more robots, several with drives, mimic or loops, from each of
    the sources."""
    sources = {r.source for r in sim_robots.ROBOTS}
    assert len(NAMES) >= 20 and len(set(NAMES)) == len(NAMES)
    assert {"urdf-corpus", "sdf-corpus", "example-robot-data", "ovphysx", "uuc", "mjc"} <= sources


@pytest.mark.parametrize("name", NAMES)
def test_runs_two_seconds_at_the_defaults(name, request, tmp_path_factory):
    _expect(request, name, "runs")
    result = _measured(name, tmp_path_factory)
    print(f"\n{sim_robots._row(result)}")
    assert "error" not in result, result["error"]


@pytest.mark.parametrize("name", NAMES)
def test_floating_base_falls_as_a_lone_body(name, request, tmp_path_factory):
    _expect(request, name, "runs")
    result = _measured(name, tmp_path_factory)
    if "error" in result:
        pytest.fail(result["error"])
    if not result["floating"]:
        pytest.skip("fixed or planar base")
    assert "free_fall_error" not in result, result.get("free_fall_error")
    fall = result["free_fall"]
    print(f"\n{name}: COM {fall['com_m']:.2e} m, p {fall['p_Ns']:.2e} N s, L {fall['L_Nms']:.2e} N m s")
    assert fall["com_m"] < COM_BOUND
    assert fall["p_Ns"] < MOMENTUM_RTOL * fall["scale_p"]
    assert fall["L_Nms"] < MOMENTUM_RTOL * fall["scale_p"]


@pytest.mark.parametrize("name", NAMES)
def test_fixed_base_holds_its_limits(name, request, tmp_path_factory):
    _expect(request, name, "runs")
    _expect(request, name, "limits")
    result = _measured(name, tmp_path_factory)
    if "error" in result:
        pytest.fail(result["error"])
    if result["floating"]:
        pytest.skip("floating base")
    print(f"\n{name}: {result['limit_excess']:.3g} past the limit of {result['limit_joint']}")
    assert result["limit_excess"] < LIMIT_BOUND


@pytest.mark.parametrize("name", NAMES)
def test_undriven_energy_never_rises(name, request, tmp_path_factory):
    _expect(request, name, "runs")
    _expect(request, name, "energy")
    result = _measured(name, tmp_path_factory)
    if "error" in result:
        pytest.fail(result["error"])
    assert "energy_error" not in result, result.get("energy_error")
    print(f"\n{name}: energy rise {result['energy_rise']:.3g} J on a swing of {result['energy_spread']:.3g} J")
    assert result["energy_rise"] <= ENERGY_RTOL * result["energy_spread"]


@pytest.mark.parametrize("name", ["a1", "fr3", "panda", "allegro_left", "mjc_hopper"])
def test_joint_starting_outside_is_brought_back_without_launching(name, request, tmp_path_factory):
    """A joint that starts past its limit is on it (to 0.5 deg) at the end of the 2 s run, and
    is not launched: the first step puts it on its limit by a position-only correction that
    leaves it no speed (as PhysX, tests/sim/test_start_outside_limits_physx.py), so it moves
    only as gravity and the drives move it, here below 3 rad/s (172 deg/s; measured at most
    72 deg/s, fr3_joint4 under its drive)."""
    _expect(request, name, "outside")
    result = _measured(name, tmp_path_factory)
    assert result.get("outside"), "the robot no longer starts outside a limit"
    for joint, (start, end, speed) in result["outside"].items():
        print(f"\n{name} {joint}: {start:.3g} past at t = 0, {end:.3g} at 2 s, max speed {speed:.3g}/s")
        assert end < LIMIT_BOUND
        assert speed < math.degrees(3.0)


def test_divergence_of_a_real_robot_is_reported_at_once(tmp_path):
    """urdf-usd-converter's solo12 diverges at t = 0.065 s with contacts on (its overlapping leg
    colliders): the run stops with a SimulationError naming the joint and the time within a few
    seconds (the issue: 29.7 s)."""
    from usdjoints.errors import SimulationError
    from usdjoints.model.build import load_model
    from usdjoints.sim import api

    stage = sim_robots.BY_NAME["uuc_solo12"].stage(tmp_path)
    model = load_model(str(stage))
    api.simulate(model, 0.0, sim_robots.DT)  # kernels loaded
    started = time.perf_counter()
    with pytest.raises(SimulationError, match=r"joint '/solo/Physics/\w+' diverged at t = 0\.0\d+ s"):
        api.simulate(model, sim_robots.DURATION, sim_robots.DT)
    # The message's time says it stopped within a few steps; the wall-clock bound is a loose guard
    # against the old slow report (29.7 s), wide enough for a loaded machine.
    assert time.perf_counter() - started < 10.0


def test_robot_converted_without_its_meshes_simulates(tmp_path):
    """The issue's MemoryError: a robot converted without its meshes. The corpus' ur5e has none
    committed: the converter warns for each missing mesh, and the model simulates 2 s at the
    defaults with finite states in a few seconds. Oracle: the CLI contract (no MemoryError, no
    traceback) and the converter's own report."""
    from usdjoints.convert import convert_urdf
    from usdjoints.model.build import load_model
    from usdjoints.sim import api

    out = tmp_path / "ur5e.usda"
    report = convert_urdf(sim_robots.DATA / "urdf_corpus" / "ros_industrial__ur5e.urdf", out)
    missing = [e for e in report.entries if "not found" in e.message and "mesh" in e.message]
    assert len(missing) >= 6
    model = load_model(str(out))
    api.simulate(model, 0.0, sim_robots.DT)  # kernels loaded
    started = time.perf_counter()
    trajectory = api.simulate(model, sim_robots.DURATION, sim_robots.DT, record_every=100)
    assert time.perf_counter() - started < 30.0  # a guard against a runaway, not a speed check
    assert np.all(np.isfinite(trajectory.q))
