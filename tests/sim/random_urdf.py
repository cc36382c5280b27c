"""Random URDF robots, for the simulator's property tests on models nobody wrote by hand.

A robot of ``seed`` is a tree of 2 to ``max_links`` links joined by revolute, prismatic,
continuous and fixed joints with axes of any direction and length, origins anywhere within a
size drawn from 5 cm to 1 m, masses from 1 g to 30 kg (a link in twenty has no <inertial>, a
tenth have moments a million times too small for their mass), principal axes turned at random,
zero to two primitive colliders per link (so non-adjacent links may touch), effort and velocity
limits over three decades, some joint damping and friction, limits that the zero pose lies
outside of (a fifth of the limited joints), and mimic joints whose limits hold on their
leader's whole range (a mimic whose limits contradict its leader's has no motion within both).
"""
from __future__ import annotations

import math
import random


def _rpy(rng: random.Random) -> str:
    return " ".join(f"{rng.uniform(-math.pi, math.pi):.6g}" for _ in range(3))


def _moments(rng: random.Random, mass: float, tiny: bool) -> tuple[float, float, float]:
    """Principal moments of a physical body (each at most the sum of the other two)."""
    while True:
        a, b, c = (rng.uniform(0.2, 1.0) for _ in range(3))
        if a + b >= c and a + c >= b and b + c >= a:
            break
    scale = mass * rng.choice([0.001, 0.01, 0.05]) * (1e-6 if tiny else 1.0)
    return a * scale, b * scale, c * scale


def _geometry(rng: random.Random, size: float) -> str:
    kind = rng.choice(["box", "sphere", "cylinder"])
    if kind == "box":
        sides = " ".join(f"{size * rng.uniform(0.3, 1.5):.4g}" for _ in range(3))
        return f'<box size="{sides}"/>'
    if kind == "sphere":
        return f'<sphere radius="{size * rng.uniform(0.2, 0.8):.4g}"/>'
    return f'<cylinder radius="{size * rng.uniform(0.1, 0.5):.4g}" length="{size * rng.uniform(0.5, 2.0):.4g}"/>'


def _link(rng: random.Random, index: int, size: float) -> str:
    parts = [f'<link name="l{index}">']
    if rng.random() < 0.95:
        mass = math.exp(rng.uniform(math.log(1e-3), math.log(30.0)))
        ixx, iyy, izz = _moments(rng, mass, tiny=rng.random() < 0.1)
        com = f"{rng.uniform(-size, size) / 3:.4g} 0 {rng.uniform(-size, size) / 3:.4g}"
        parts.append(f'<inertial><origin xyz="{com}" rpy="{_rpy(rng)}"/><mass value="{mass:.6g}"/>'
                     f'<inertia ixx="{ixx:.6g}" iyy="{iyy:.6g}" izz="{izz:.6g}" ixy="0" ixz="0" iyz="0"/></inertial>')
    for _ in range(rng.choice([0, 1, 1, 2])):
        parts.append(f'<collision><origin xyz="0 0 {rng.uniform(-size, size) / 2:.4g}" rpy="{_rpy(rng)}"/>'
                     f'<geometry>{_geometry(rng, size)}</geometry></collision>')
    parts.append("</link>")
    return "".join(parts)


def robot(seed: int, max_links: int = 10) -> str:
    """The URDF text of random robot ``seed``."""
    rng = random.Random(seed)
    n = rng.randint(2, max_links)
    size = rng.choice([0.05, 0.1, 0.3, 1.0])
    parents = [-1] + [rng.randrange(0, i) if rng.random() < 0.4 else i - 1 for i in range(1, n)]
    lines = [f'<robot name="random{seed}">'] + [_link(rng, i, size) for i in range(n)]
    leaders: list[tuple[str, tuple[float, float]]] = []  # joints a mimic may follow, with their limits
    for i in range(1, n):
        kind = rng.choice(["revolute", "revolute", "revolute", "prismatic", "continuous", "fixed"])
        axis = [rng.choice([0.0, 1.0, rng.uniform(-1.0, 1.0)]) for _ in range(3)]
        if not any(axis):
            axis[2] = 1.0
        origin = " ".join(f"{rng.uniform(-size, size) * s:.4g}" for s in (1.0, 1.0, 1.5))
        rpy = _rpy(rng) if rng.random() < 0.5 else "0 0 0"
        body = [f'<parent link="l{parents[i]}"/><child link="l{i}"/><origin xyz="{origin}" rpy="{rpy}"/>',
                '<axis xyz="{:.4g} {:.4g} {:.4g}"/>'.format(*axis)]
        effort = math.exp(rng.uniform(math.log(0.5), math.log(500.0)))
        velocity = math.exp(rng.uniform(math.log(0.1), math.log(20.0)))
        limits = None
        if kind in ("revolute", "prismatic") and leaders and rng.random() < 0.15:
            leader, (low, high) = rng.choice(leaders)
            multiplier = rng.choice([1.0, -1.0, 0.5, 2.0])
            low, high = sorted((multiplier * low, multiplier * high))
            margin = rng.choice([0.0, 0.05, 0.3])
            body.append(f'<limit lower="{low - margin:.6g}" upper="{high + margin:.6g}" effort="{effort:.4g}" '
                        f'velocity="{velocity:.4g}"/><mimic joint="{leader}" multiplier="{multiplier:g}" offset="0"/>')
        elif kind in ("revolute", "prismatic"):
            span = rng.uniform(0.1, 3.0) if kind == "revolute" else rng.uniform(0.01, 2.0 * size)
            low = -rng.uniform(0.0, span) if rng.random() < 0.8 else rng.uniform(0.01, 0.3)
            limits = (float(f"{low:.4g}"), float(f"{low + span:.4g}"))
            body.append(f'<limit lower="{limits[0]:.4g}" upper="{limits[1]:.4g}" effort="{effort:.4g}" '
                        f'velocity="{velocity:.4g}"/>')
            leaders.append((f"j{i}", limits))
        elif kind == "continuous" and rng.random() < 0.5:
            body.append(f'<limit effort="{effort:.4g}" velocity="{velocity:.4g}"/>')
        if kind != "fixed" and rng.random() < 0.3:
            body.append(f'<dynamics damping="{rng.choice([0, 0.01, 0.5, 5]):g}" friction="{rng.choice([0, 0.1, 1]):g}"/>')
        lines.append(f'<joint name="j{i}" type="{kind}">{"".join(body)}</joint>')
    lines.append("</robot>")
    return "\n".join(lines)
