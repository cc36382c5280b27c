"""The acceptance robot set of the simulator (issue 16) and the measurements made on each robot.

Every robot is a real model from a public source, turned into USD by one of three converters:
* usdjoints itself, from tests/data/urdf_corpus, tests/data/sdf_corpus and example-robot-data;
* urdf-usd-converter and mujoco-usd-converter, whose outputs are committed in tests/data/sim_robots
  (see MANIFEST.tsv there; each converter ran in its own environment);
plus ovphysx's own sample stages, read from the installed ovphysx package.

The measurements are the issue's acceptance properties, each with its oracle:
* free fall: with no ground, contacts, drives and limits are internal forces, so the centre of
  mass follows the lone body's semi-implicit Euler trajectory, c_n = c_0 + v_0 n dt + g dt^2 n (n + 1) / 2,
  the total linear momentum grows by exactly M g dt a step and the angular momentum about the centre
  of mass stays constant (conservation laws);
* limits: a fixed-base robot's joints stay within their limits (0.5 deg, 0.5 mm);
* energy: an undriven robot (the same model with its drives switched off) never gains energy,
  kinetic (q_dot' M q_dot / 2) plus gravity's and the joint springs' potential.

Run as a script for the table the report quotes: `python tests/sim/sim_robots.py [NAME ...]`.
"""
from __future__ import annotations

import dataclasses
import math
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"
COMMITTED = DATA / "sim_robots"
DT = 1e-3          # [s], the command line's default step (euler integrator)
DURATION = 2.0     # [s], the run length
RECORD_EVERY = 10  # steps between the samples the properties are checked on
HALF_DEGREE = math.radians(0.5)
HALF_MM = 5e-4


def _erd_robots() -> Path | None:
    from importlib import metadata

    try:
        root = Path(metadata.distribution("example-robot-data").locate_file(
            "cmeel.prefix/share/example-robot-data/robots"))
    except metadata.PackageNotFoundError:
        return None
    return root if root.is_dir() else None


def _ovphysx_samples() -> Path | None:
    import importlib.util

    spec = importlib.util.find_spec("ovphysx")
    if spec is None or not spec.submodule_search_locations:
        return None
    root = Path(list(spec.submodule_search_locations)[0]) / "samples" / "data"
    return root if root.is_dir() else None


@dataclasses.dataclass(frozen=True)
class Robot:
    name: str
    source: str           # "urdf-corpus" | "sdf-corpus" | "example-robot-data" | "ovphysx" | "uuc" | "mjc"
    path: str             # relative to its source's folder
    floating: bool = False  # converted with a free base (usdjoints' converters only)
    features: str = ""      # what makes it interesting: drives, mimic, loops, contact

    def stage(self, workdir: Path) -> Path | None:
        """The USD stage to simulate (converted into workdir when needed); None when the
        source is not installed here."""
        from usdjoints.convert import convert_sdformat, convert_urdf

        if self.source == "urdf-corpus":
            out = workdir / f"{self.name}.usda"
            convert_urdf(DATA / "urdf_corpus" / self.path, out, floating_base=self.floating)
            return out
        if self.source == "sdf-corpus":
            out = workdir / f"{self.name}.usda"
            convert_sdformat(DATA / "sdf_corpus" / self.path, out, floating_base=self.floating or None)
            return out
        if self.source == "example-robot-data":
            root = _erd_robots()
            if root is None:
                return None
            out = workdir / f"{self.name}.usda"
            if self.path.endswith(".sdf"):
                convert_sdformat(root / self.path, out, floating_base=self.floating or None)
            else:
                convert_urdf(root / self.path, out, floating_base=self.floating)
            return out
        if self.source == "ovphysx":
            root = _ovphysx_samples()
            return None if root is None else root / self.path
        return COMMITTED / self.path


ROBOTS = (
    # usdjoints' URDF converter on the URDF corpus (its meshes are not committed: the colliders
    # that need them are dropped with a report entry, the MemoryError case of the issue)
    Robot("fr3", "urdf-corpus", "oems__fr3.urdf", features="drives, mimic fingers"),
    Robot("ur5e", "urdf-corpus", "ros_industrial__ur5e.urdf", features="drives"),
    Robot("kinova_gen3", "urdf-corpus", "robotics_toolbox__kinovaGen3.urdf", features="drives"),
    Robot("iiwa14", "urdf-corpus", "drake__iiwa14_primitive_collision.urdf", features="drives, primitive colliders"),
    Robot("allegro_left", "urdf-corpus", "drake__allegro_hand_description_left.urdf", features="drives, light links"),
    Robot("robotiq_2f85", "urdf-corpus", "ros_industrial__robotiq_arg2f_85_model.urdf", features="mimic"),
    Robot("atlas", "urdf-corpus", "drake__atlas_minimal_contact.urdf", floating=True, features="floating, drives"),
    Robot("yumi", "urdf-corpus", "robotics_toolbox__yumi.urdf", features="drives, two arms"),
    # usdjoints' SDFormat converter on the SDFormat corpus
    Robot("mimic_pendulums", "sdf-corpus", "gz-physics/test/common_test/worlds/mimic_fast_slow_pendulums_world.sdf",
          features="mimic"),
    # usdjoints' converters on example-robot-data
    Robot("solo12", "example-robot-data", "solo_description/robots/solo12.urdf", floating=True,
          features="floating, drives, self-collision"),
    Robot("panda", "example-robot-data", "panda_description/urdf/panda.urdf", features="drives, mimic, light fingers"),
    Robot("a1", "example-robot-data", "a1_description/urdf/a1.urdf", floating=True,
          features="floating, starts outside its calf limits"),
    Robot("anymal", "example-robot-data", "anymal_b_simple_description/robots/anymal.urdf", floating=True,
          features="floating, drives"),
    Robot("tiago", "example-robot-data", "tiago_description/robots/tiago.urdf", features="drives, light hand links"),
    Robot("ur5", "example-robot-data", "ur_description/urdf/ur5_robot.urdf", features="drives"),
    # usdjoints' SDFormat converter on example-robot-data: 6 loops (the foot four-bars start at a
    # dead point, outside their limits) and 10 gearbox couplings
    Robot("cassie", "example-robot-data", "cassie_description/robots/cassie.sdf",
          features="floating, loops at a dead point, gear couplings, starts outside its foot limits"),
    # its pelvis on a vertical slider limited to [0, 0.2] m (a fixed base), 4 loops; the feet start
    # at the dead point, where their limits and loops cannot both hold: they stay outside. The
    # tree-alone correction, moved back by the loops' projection every step, pumped 87 J into it
    Robot("cassie_reduced", "example-robot-data", "cassie_description/robots/cassie_reduced.sdf",
          features="base on a limited slider, loops whose limits cannot hold at the start"),
    Robot("cassie_simple", "example-robot-data", "cassie_description/robots/cassie_simple.sdf",
          features="base on a limited slider, loops whose limits cannot hold at the start"),
    Robot("cassie_wo_gearbox", "example-robot-data", "cassie_description/robots/cassie_wo_gearbox_spring.sdf",
          features="base on a limited slider, loops"),
    # ovphysx's sample stages, as shipped
    Robot("ovphysx_ant", "ovphysx", "Ant.usda", features="floating, ground, self-collision"),
    Robot("ovphysx_cartpole", "ovphysx", "CartPole.usda", features="prismatic + revolute"),
    Robot("ovphysx_cart_rail_drive", "ovphysx", "CartRailDriveAngular.usda", features="drives"),
    Robot("ovphysx_drive_types", "ovphysx", "drive_type_articulation.usda", features="force and acceleration drives"),
    Robot("ovphysx_spherical", "ovphysx", "SphericalArtiAtOrigin.usda", features="spherical joint"),
    # urdf-usd-converter 0.3.4's output (committed)
    Robot("uuc_solo12", "uuc", "uuc/solo12/solo.usdc", features="floating, another converter's colliders"),
    # mujoco-usd-converter 0.8.0's outputs of dm_control's suite (committed)
    Robot("mjc_acrobot", "mjc", "mjc/acrobot/acrobot.usdc", features="undriven"),
    Robot("mjc_cartpole", "mjc", "mjc/cartpole/cart-pole.usdc", features="undriven, prismatic"),
    Robot("mjc_cheetah", "mjc", "mjc/cheetah/cheetah.usdc", features="planar base, ground contact"),
    Robot("mjc_hopper", "mjc", "mjc/hopper/planar hopper.usdc", features="planar base, ground contact"),
    Robot("mjc_walker", "mjc", "mjc/walker/planar walker.usdc", features="planar base, ground contact"),
    Robot("mjc_humanoid", "mjc", "mjc/humanoid/humanoid.usdc", features="floating, ground, empty bodies"),
    Robot("mjc_quadruped", "mjc", "mjc/quadruped/quadruped.usdc", features="floating, ground"),
    Robot("mjc_finger", "mjc", "mjc/finger/finger.usdc", features="contact"),
    Robot("mjc_reacher", "mjc", "mjc/reacher/two-link planar reacher.usdc", features="undriven"),
    Robot("mjc_swimmer", "mjc", "mjc/swimmer/swimmer.usdc", features="planar base, many links"),
    Robot("mjc_manipulator", "mjc", "mjc/manipulator/planar manipulator.usdc", features="gripper, loops?"),
)
BY_NAME = {r.name: r for r in ROBOTS}


# ----------------------------------------------------------------------------------------------
# stages and models


def static_colliders(stage) -> list[str]:
    """Colliders of no rigid body (grounds, walls): the prims a no-ground variant deactivates."""
    from pxr import UsdPhysics

    found = []
    for prim in stage.Traverse():
        if not prim.HasAPI(UsdPhysics.CollisionAPI):
            continue
        owner = prim
        while owner and not owner.IsPseudoRoot() and not owner.HasAPI(UsdPhysics.RigidBodyAPI):
            owner = owner.GetParent()
        if not owner or owner.IsPseudoRoot():
            found.append(str(prim.GetPath()))
    return found


def open_without_ground(path: Path):
    """The stage with its static colliders deactivated in the session layer (the file is not
    changed): a floating robot then falls with no ground to meet."""
    from pxr import Usd

    stage = Usd.Stage.Open(str(path))
    with Usd.EditContext(stage, stage.GetSessionLayer()):
        for prim_path in static_colliders(stage):
            stage.GetPrimAtPath(prim_path).SetActive(False)
    return stage


def free_roots(model) -> list[int]:
    from usdjoints.model.articulated import FREE

    return [k for k in range(model.nlink) if int(model.link_type[k]) == FREE and int(model.link_parent[k]) == -1]


def undriven(model):
    """The same model with every drive switched off (joint springs, damping and limits kept)."""
    return dataclasses.replace(model, dof_drive_type=np.zeros_like(model.dof_drive_type))


def has_drives(model) -> bool:
    return bool(np.any(model.dof_drive_type != 0))


# ----------------------------------------------------------------------------------------------
# measurements


def _link_frames(model, q):
    """World rotation and origin of every link frame (links carrying no body get None)."""
    from usdjoints.model.rotation import quat_to_matrix
    from usdjoints.sim import api

    positions, quats = api.forward_kinematics(model, q)
    frames = [None] * model.nlink
    for b, link in enumerate(model.body_link):
        link = int(link)
        if link < 0 or frames[link] is not None:
            continue
        R_wl = quat_to_matrix(quats[b]) @ np.asarray(model.body_R_link[b]).T
        frames[link] = (R_wl, positions[b] - R_wl @ np.asarray(model.body_p_link[b]))
    return frames


def centre_of_mass(model, q) -> np.ndarray:
    frames = _link_frames(model, q)
    total, weighted = 0.0, np.zeros(3)
    for link in range(model.nlink):
        mass = float(model.link_mass[link])
        if mass == 0.0 or frames[link] is None:
            continue
        R_wl, p_wl = frames[link]
        weighted += mass * (p_wl + R_wl @ model.link_com[link])
        total += mass
    return weighted / total


def momentum(model, q, qd, roots) -> tuple[np.ndarray, np.ndarray]:
    """World linear momentum and angular momentum about the world origin of the whole robot.

    The free joint's velocity is the base link's body-frame twist (linear first), so the base
    rows of M q_dot are the spatial momentum of everything the base carries, in base axes, about
    the base origin: p_b and L_b. In the world, p = R p_b and L_O = R L_b + o x p."""
    from usdjoints.sim import api

    h = api.mass_matrix(model, q) @ qd
    frames = _link_frames(model, q)
    p_total, l_total = np.zeros(3), np.zeros(3)
    for root in roots:
        start = int(model.link_v_start[root])
        R_wl, origin = frames[root]
        p = R_wl @ h[start:start + 3]
        p_total += p
        l_total += R_wl @ h[start + 3:start + 6] + np.cross(origin, p)
    return p_total, l_total


def energy(model, q, qd) -> float:
    """Kinetic + gravity's potential + the joint springs' energy [J]."""
    from usdjoints.sim import api

    frames = _link_frames(model, q)
    potential = 0.0
    for link in range(model.nlink):
        if frames[link] is None:
            continue
        R_wl, p_wl = frames[link]
        potential -= float(model.link_mass[link]) * float(model.gravity @ (p_wl + R_wl @ model.link_com[link]))
    for dof in range(model.nv):
        qi = int(model.dof_q_index[dof])
        if qi >= 0 and model.dof_stiffness[dof] != 0.0:
            potential += 0.5 * float(model.dof_stiffness[dof]) * (q[qi] - float(model.dof_spring_ref[dof])) ** 2
    return 0.5 * float(qd @ api.mass_matrix(model, q) @ qd) + potential


def free_fall_errors(model, trajectory) -> dict:
    """Largest distance of the centre of mass from the lone body's Euler trajectory [m], and
    the largest changes of linear momentum (less M g t) and of angular momentum about the
    centre of mass, relative to the robot's scale M g t_end and M g t_end * (its size)."""
    roots = free_roots(model)
    mass = float(np.sum(model.link_mass))
    c0 = centre_of_mass(model, trajectory.q[0])
    p0, l0 = momentum(model, trajectory.q[0], trajectory.qd[0], roots)
    v0 = p0 / mass
    l0_com = l0 - np.cross(c0, p0)
    g = np.asarray(model.gravity, dtype=float)
    com_error = p_error = l_error = 0.0
    for row, t in enumerate(trajectory.t):
        n = round(float(t) / DT)
        c = centre_of_mass(model, trajectory.q[row])
        # semi-implicit Euler: v_n = v_0 + g n dt, c_n = c_0 + dt sum_{k=1..n} v_k
        expected = c0 + v0 * n * DT + g * DT * DT * n * (n + 1) / 2.0
        com_error = max(com_error, float(np.linalg.norm(c - expected)))
        p, l_origin = momentum(model, trajectory.q[row], trajectory.qd[row], roots)
        p_error = max(p_error, float(np.linalg.norm(p - p0 - mass * g * n * DT)))
        l_error = max(l_error, float(np.linalg.norm(l_origin - np.cross(c, p) - l0_com)))
    return {"com_m": com_error, "p_Ns": p_error, "L_Nms": l_error,
            "scale_p": mass * float(np.linalg.norm(g)) * DURATION}


def limit_excess(model, trajectory) -> tuple[float, str, dict]:
    """The largest distance past a limit over the run, in deg (revolute) or mm (prismatic),
    and the joint it happened on, over the joints that start within their limits; and, for each
    joint that starts outside, (start excess, end excess, largest speed) [deg or mm, deg/s or mm/s]."""
    from usdjoints.model.articulated import PRISMATIC

    worst, where, outside = 0.0, "", {}
    for dof in range(model.nv):
        qi = int(model.dof_q_index[dof])
        lower, upper = float(model.dof_lower[dof]), float(model.dof_upper[dof])
        if qi < 0 or not (math.isfinite(lower) or math.isfinite(upper)):
            continue
        q = trajectory.q[:, qi]
        linear = int(model.link_type[_dof_link(model, dof)]) == PRISMATIC
        unit = 1e3 if linear else 180.0 / math.pi
        excess = np.maximum(np.maximum(lower - q, q - upper), 0.0) * unit
        name = f"{model.joint_names[int(model.dof_joint[dof])]} ({'mm' if linear else 'deg'})"
        if excess[0] > 1e-9:
            outside[name] = (float(excess[0]), float(excess[-1]), float(np.max(np.abs(trajectory.qd[:, dof]))) * unit)
            continue
        if float(np.max(excess)) > worst or not where:
            worst, where = float(np.max(excess)), name
    return worst, where, outside


def _dof_link(model, dof: int) -> int:
    for link in range(model.nlink):
        start = int(model.link_v_start[link])
        from usdjoints.sim.kernels.jcalc import primitive_nv

        if start <= dof < start + primitive_nv(int(model.link_type[link])):
            return link
    raise ValueError(dof)


def first_feasible(model, trajectory) -> int:
    """The first recorded state with every joint within its limits (to 1e-9): 0 unless the robot
    starts outside a limit, which the first step removes (sim/kernels/limits.py, as PhysX)."""
    for row, q in enumerate(trajectory.q):
        inside = True
        for dof in range(model.nv):
            qi = int(model.dof_q_index[dof])
            if qi >= 0 and not (model.dof_lower[dof] - 1e-9 <= q[qi] <= model.dof_upper[dof] + 1e-9):
                inside = False
                break
        if inside:
            return row
    return len(trajectory.q)


def energy_increase(model, trajectory) -> tuple[float, float]:
    """The largest rise of the energy above its lowest value so far [J], and the energy scale
    (the spread of the energy over the run, at least 1e-9 J).

    Both are measured from the first state within every limit: a start outside a limit violates
    a constraint, and the step that removes the violation (a position-only projection onto the
    bound in the first step, as PhysX does) changes the potential energy by moving the joint; it
    is not a force doing work. From that state on, the robot is a conservative system. A robot
that never gets within its limits is measured from its start."""
    start = first_feasible(model, trajectory)
    if start == len(trajectory.q):  # never within its limits: measured from the start
        start = 0
    energies = [energy(model, q, qd) for q, qd in zip(trajectory.q[start:], trajectory.qd[start:])]
    low, rise = energies[0], 0.0
    for e in energies:
        rise = max(rise, e - low)
        low = min(low, e)
    spread = float(np.max(energies) - np.min(energies))
    return rise, max(spread, 1e-9)


def measure(robot: Robot, workdir: Path) -> dict:
    """Everything the acceptance checks need for one robot: runs at the command-line defaults."""
    from usdjoints.errors import SimulationError, UsdJointsError
    from usdjoints.model.build import load_model
    from usdjoints.sim import api

    path = robot.stage(workdir)
    if path is None:
        return {"name": robot.name, "skipped": f"{robot.source} is not installed"}
    result = {"name": robot.name, "source": robot.source, "features": robot.features}
    started = time.perf_counter()
    try:
        model = load_model(str(path))
        result.update(nq=model.nq, nv=model.nv, bodies=model.nbody, drives=has_drives(model),
                      loops=len(model.loop_names), couplings=len(model.coupling_names),
                      pairs=len(model.collision_pairs), floating=bool(free_roots(model)),
                      fixed_links=int(np.sum(model.collider_link == -1)))
        trajectory = api.simulate(model, DURATION, DT, record_every=RECORD_EVERY)
    except (SimulationError, UsdJointsError) as error:
        result["error"] = str(error).splitlines()[0]
        return result
    result["seconds"] = time.perf_counter() - started
    result["limit_excess"], result["limit_joint"], result["outside"] = limit_excess(model, trajectory)
    if result["floating"]:
        stage = open_without_ground(path)
        free = load_model(stage)
        try:
            falling = api.simulate(free, DURATION, DT, record_every=RECORD_EVERY)
            result["free_fall"] = free_fall_errors(free, falling)
        except (SimulationError, UsdJointsError) as error:
            result["free_fall_error"] = str(error).splitlines()[0]
    passive = undriven(model)
    try:
        coasting = api.simulate(passive, DURATION, DT, record_every=RECORD_EVERY)
        result["energy_rise"], result["energy_spread"] = energy_increase(passive, coasting)
    except (SimulationError, UsdJointsError) as error:
        result["energy_error"] = str(error).splitlines()[0]
    return result


def _row(r: dict) -> str:
    if "skipped" in r:
        return f"{r['name']:<24} skipped: {r['skipped']}"
    if "error" in r:
        return f"{r['name']:<24} ERROR: {r['error']}"
    parts = [f"{r['name']:<24} nv={r['nv']:<3} drv={int(r['drives'])} loops={r['loops']} mimic={r['couplings']} "
             f"pairs={r['pairs']:<4} {r['seconds']:5.1f}s"]
    parts.append(f"limit+ {r['limit_excess']:.3g} {r['limit_joint']}")
    if "free_fall" in r:
        f = r["free_fall"]
        parts.append(f"COM {f['com_m']:.2e} m p {f['p_Ns']:.1e} L {f['L_Nms']:.1e}")
    if "free_fall_error" in r:
        parts.append(f"FREE-FALL ERROR {r['free_fall_error']}")
    if "energy_rise" in r:
        parts.append(f"dE+ {r['energy_rise']:.2e} J (spread {r['energy_spread']:.2e})")
    if "energy_error" in r:
        parts.append(f"UNDRIVEN ERROR {r['energy_error']}")
    for joint, (start, end, speed) in r.get("outside", {}).items():
        parts.append(f"starts outside {joint}: {start:.3g} -> {end:.3g}, max speed {speed:.3g}/s")
    return " | ".join(parts)


if __name__ == "__main__":
    import tempfile

    names = sys.argv[1:] or [r.name for r in ROBOTS]
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            print(_row(measure(BY_NAME[name], Path(tmp))), flush=True)
