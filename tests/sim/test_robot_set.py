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
    # Where each rise comes from was measured step by step (the Euler velocity update, the loop
    # projection, the limit impulses, the contact solve, the position update, the contacts' and
    # the limits' position-only corrections, the loop position projection, each stage's energy
    # change). mjc_quadruped's +3.11 J was its ball (a lone free body, 14.1 kg) spinning at
    # 24 rad/s while moving at 4 m/s: the body-frame velocity's explicit frame term gained
    # m dt^2 |w x u|^2 / 2 = 0.067 J a step; the step now integrates a lone body's momentum in
    # the world frame (configuration.world_frame_velocity) and the quadruped's energy never rises.
    #
    # undamped pendulums, nothing dissipates while they swing (the plates rest on the ground,
    # the contacts take out what gravity's step puts in): the rise is semi-implicit Euler's own
    # O(dt) oscillation, 0.0696 / 0.0348 / 0.0174 J at dt, dt/2, dt/4; the integrator's
    # modified energy E - dt/2 grad V . v rises 6.3e-5 J (test_energy_sources.py)
    ("mimic_pendulums", "energy"): "+0.070 J on a swing of 0.070 J: Euler's O(dt) oscillation, undamped",
    # base_link and the four upper legs start 1.2 to 1.7 mm deep in each other (their mesh hulls;
    # 9.4 mm as bounding boxes) and are held at that depth (sim/start_overlaps.py held_start_overlaps; with
    # the push PhysX gives them it was +1.12 J); the rise is not the contacts': with
    # contact=False it is 4.7e-4 J on a swing of 4.7e-4 J
    ("uuc_solo12", "energy"): "+1.0e-4 J on a swing of 0.042 J; +4.7e-4 J of 4.7e-4 J without contacts",
    # joints 4 and 6 start 25.6 and 48.8 deg outside their limits (removed by the first step);
    # two self-collision pairs start 3.4 and 3.6 cm deep and one stays 3.4 cm deep all run (the
    # limits keep the push-out from removing it): every other step the contacts' position-only
    # push-out raises the energy 5.5e-6 J (the velocity stages take out less)
    ("fr3", "energy"): "+5.1e-5 J on a swing of 6.2e-3 J: the push-out of a 3.4 cm start overlap",
    # undamped, no contact in the rising window (t = 1.47-1.50 s): the arm swings at 20-24 rad/s
    # and the Euler velocity and position updates add 8e-4 J a step (the limit impulses take out
    # 5e-5 J): the explicit velocity-product (Coriolis and centrifugal) forces of semi-implicit
    # Euler in (q, v); the modified energy rises as much (0.051 J), the rise is 0.012 J at dt/2
    ("mjc_manipulator", "energy"): "+0.050 J on a swing of 2.26 J: explicit Coriolis forces of a fast swing",
    # after the first step (joint_12 starts 15.1 deg past its limit) the rise is the contacts'
    # position-only push-out of a 0.63 mm start overlap (2.8e-6 J a step, decaying with the
    # 20 ms time constant; 3e-8 m left at 0.2 s)
    ("allegro_left", "energy"): "+3.7e-5 J on a swing of 3.7e-5 J: the push-out of a 0.63 mm start overlap",
    # at rest on the floor from the start, its feet 72 nm inside it, 70 nm all run (a swing of
    # 3e-7 J, 1e-9 J per kg and metre of height): the contacts' position-only push-out of that
    # resting overlap raises the energy in its steps (2.1e-7 J over the first 50 steps) and the
    # position updates take it out again (-1.7e-7 J)
    ("mjc_walker", "energy"): "+1.4e-7 J on a swing of 3.0e-7 J: the push-out of a 70 nm resting overlap",
    # its pelvis hangs on a slider limited to [0, 0.2] m, resting on the lower limit, with 4 loops
    # closed through the legs. With that one limit removed both properties hold (rise 0 J, no
    # excess); with contact off both fail as much (+1.46 J, 2.8 deg): the limit rows that carry
    # the robot's weight and the loops' position projection, not the contacts. Not the stalled
    # tree-alone correction of cassie_reduced (the same numbers before and after that change)
    ("cassie_wo_gearbox", "limits"): "left_yaw_op 2.4 deg past its limit, hanging on its base slider's limit",
    ("cassie_wo_gearbox", "energy"): "+0.70 J on a swing of 1.73 J, hanging on its base slider's limit",
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
    """A real robot with slow steps (tiago: 48 dofs, 1800 collision pairs) made to diverge: its
    right wheel (a leaf on the fixed base, no position limit) turning at 1 rad/s gets a negative
    damping and loses its velocity limit. Closed form: the damping is implicit, and the wheel's
    pivot in the factor of H = M + dt (d_drive + d) is its own diagonal; with
    dt d = -(0.9 M_kk + dt d_drive) that pivot is 0.1 M_kk, so each step multiplies the wheel's
    speed by 10 and it passes the 1000 rad/s floor within 4 steps. The run stops with a
    SimulationError naming the joint and the time within a few seconds (the issue: 29.7 s)."""
    import dataclasses

    from usdjoints.errors import SimulationError
    from usdjoints.model.build import load_model
    from usdjoints.sim import api

    stage = sim_robots.BY_NAME["tiago"].stage(tmp_path)
    if stage is None:
        pytest.skip("example-robot-data is not installed")
    model = load_model(str(stage))
    wheel = "/tiago/joints/wheel_right_joint"
    dof = next(d for d in range(model.nv) if model.joint_names[int(model.dof_joint[d])] == wheel)
    link = sim_robots._dof_link(model, dof)
    assert not any(int(p) == link for p in model.link_parent)  # a leaf
    assert not np.isfinite(model.dof_lower[dof]) and not np.isfinite(model.dof_upper[dof])
    damping = np.array(model.dof_damping, dtype=float)
    mass = api.mass_matrix(model, model.q_initial)[dof, dof]
    damping[dof] = -(0.9 * mass / sim_robots.DT + float(model.dof_drive_damping[dof]))
    velocity_limit = np.array(model.dof_velocity_limit, dtype=float)
    velocity_limit[dof] = np.inf
    qd0 = np.array(model.qd_initial, dtype=float)
    qd0[dof] = 1.0
    unstable = dataclasses.replace(model, dof_damping=damping, dof_velocity_limit=velocity_limit, qd_initial=qd0)
    api.simulate(unstable, 0.0, sim_robots.DT)  # kernels loaded
    started = time.perf_counter()
    with pytest.raises(SimulationError, match=rf"joint '{wheel}' diverged at t = 0\.00[1-4] s"):
        api.simulate(unstable, sim_robots.DURATION, sim_robots.DT)
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
