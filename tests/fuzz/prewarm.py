"""Compile the simulator's kernels once, before a campaign, for every model feature set.

The simulator compiles one kernel variant per set of features a model uses (loop or coupling
rows, limit rows, contact, a floating tree). A case is the first to need a variant: without this,
its 20 s budget would include a one-time numba compile (tens of seconds on a loaded machine), and it would be
counted as a hang although no input can make the compile run longer. Each of the sixteen
combinations is built here from a two-link pendulum and simulated for zero seconds, which compiles
(or loads from the on-disk cache the workers share) the variant the fuzzed cases will load.
"""
from __future__ import annotations

import itertools
import tempfile
from pathlib import Path

_HEAD = """#usda 1.0
(
    metersPerUnit = 1
    kilogramsPerUnit = 1
    upAxis = "Z"
)
def PhysicsScene "Scene" {}
def Xform "World" {
    def Xform "Arm" (prepend apiSchemas = ["PhysicsArticulationRootAPI"]) {
        def Cube "A" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"]) {
            double size = 0.1
            float physics:mass = 1
            double3 xformOp:translate = (0, 0, 1)
            uniform token[] xformOpOrder = ["xformOp:translate"]
        }
        def Cube "B" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"]) {
            double size = 0.1
            float physics:mass = 1
            double3 xformOp:translate = (0.5, 0, 1)
            uniform token[] xformOpOrder = ["xformOp:translate"]
        }
%(base)s        def PhysicsRevoluteJoint "Hinge" {
            rel physics:body0 = </World/Arm/A>
            rel physics:body1 = </World/Arm/B>
            uniform token physics:axis = "Y"
            point3f physics:localPos0 = (0.25, 0, 0)
            point3f physics:localPos1 = (-0.25, 0, 0)
%(limits)s        }
%(loop)s    }
%(ground)s}
"""
_BASE = """        def PhysicsFixedJoint "Base" {
            rel physics:body1 = </World/Arm/A>
            point3f physics:localPos0 = (0, 0, 1)
        }
"""
_LIMITS = "            float physics:lowerLimit = -30\n            float physics:upperLimit = 30\n"
_LOOP = """        def PhysicsRevoluteJoint "Closing" {
            rel physics:body0 = </World/Arm/A>
            rel physics:body1 = </World/Arm/B>
            uniform token physics:axis = "Y"
            point3f physics:localPos0 = (0.25, 0, 0)
            point3f physics:localPos1 = (-0.25, 0, 0)
        }
"""
# the arm's base is welded to the world, so only a free body can touch the ground
_GROUND = """    def Cube "Ground" (prepend apiSchemas = ["PhysicsCollisionAPI"]) {
        double size = 1
        double3 xformOp:translate = (2, 0, -0.5)
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }
    def Cube "Box" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI", "PhysicsCollisionAPI"]) {
        double size = 0.1
        float physics:mass = 1
        double3 xformOp:translate = (2, 0, 0.04)
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }
"""


def feature_stages(folder: Path) -> list[Path]:
    """One stage per combination of (limits, a loop-closing joint, contact, a floating base: the
    arm's base not welded, so the momentum of its free flight is kept) in ``folder``."""
    paths = []
    for limits, loop, contact, floating in itertools.product((False, True), repeat=4):
        text = _HEAD % {"limits": _LIMITS if limits else "", "loop": _LOOP if loop else "",
                        "ground": _GROUND if contact else "", "base": "" if floating else _BASE}
        path = folder / f"limits{int(limits)}_loop{int(loop)}_contact{int(contact)}_floating{int(floating)}.usda"
        path.write_text(text)
        paths.append(path)
    return paths


def prewarm_kernels() -> int:
    """Compile or load every kernel variant a fuzzed case can need; returns how many stages ran."""
    import usdjoints

    with tempfile.TemporaryDirectory(prefix="usdjoints-prewarm-") as folder:
        stages = feature_stages(Path(folder))
        for path in stages:
            model = usdjoints.load_model(str(path))
            usdjoints.simulate(model, duration=0.0, dt=1e-3)
    return len(stages)
