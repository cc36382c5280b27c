"""Which joint of a loop closes it (usdjoints/model/forest.py): one that carries no drive, limit
or coupling, when the loop has one, so that the tree keeps what only the tree simulates.

Oracles: the closed form of a limit that holds (a rod released level falls onto its hinge's
+10 deg limit and rests there, within the issue's 0.5 deg), the same rod with the limit on
neither hinge (it swings past +10 deg towards hanging down: the check can fail), and the tree
itself (the breadth-first tree is kept when no trade helps).
"""
from __future__ import annotations

import math

from sim_stages import body, revolute, stage
from usdjoints.model.build import load_model
from usdjoints.sim import api

LIMIT = ("PhysicsLimitAPI:angular",)
LIMITS = "        float physics:lowerLimit = -10\n        float physics:upperLimit = 10\n"


def _rod(tmp_path, first_limited: bool, second_limited: bool):
    """A rod 1 m long along +x, hinged about Y at the origin twice over (Pivot, then Held: the
    same axis, so the loop they make holds one hinge's motion); Held or Pivot may carry a limit."""
    rod = body("Rod", 1.0, (0.01, 1.0 / 12, 1.0 / 12), translate=(0.5, 0, 0))
    pos1 = (-0.5, 0, 0)
    pivot = revolute("Pivot", "Rod", "Y", pos1=pos1, schemas=LIMIT if first_limited else (),
                     extra=LIMITS if first_limited else "")
    held = revolute("Held", "Rod", "Y", pos1=pos1, schemas=LIMIT if second_limited else (),
                    extra=LIMITS if second_limited else "")
    path = tmp_path / "rod.usda"
    path.write_text(stage(rod + pivot + held))
    return load_model(str(path))


def _final_angle_deg(model) -> float:
    trajectory = api.simulate(model, 1.0, 1e-3)
    assert trajectory.q.shape[1] == 1  # the one hinge the tree carries
    return math.degrees(float(trajectory.q[-1, 0]))


def test_the_limited_hinge_stays_in_the_tree_and_its_limit_holds(tmp_path):
    """Held, the second world hinge, would close the loop and lose its limit; Pivot closes it
    instead. Gravity (-z) turns the level rod about +Y by positive angles: it rests on +10 deg."""
    model = _rod(tmp_path, first_limited=False, second_limited=True)
    assert model.loop_names == ("/World/Pivot",)
    assert "loop-joint-drive-ignored" not in {d.code for d in model.diagnostics}
    assert abs(_final_angle_deg(model) - 10.0) < 0.5


def test_without_the_limit_the_rod_swings_past_it(tmp_path):
    model = _rod(tmp_path, first_limited=False, second_limited=False)
    assert model.loop_names == ("/World/Held",)  # the breadth-first tree: nothing to trade
    assert _final_angle_deg(model) > 30.0


def test_a_loop_whose_joints_all_carry_keeps_its_tree(tmp_path):
    """Both hinges limited: no joint of the loop is free to close it, so the breadth-first tree
    stays; Pivot's limit holds in the tree and Held's as a bound row of the closure."""
    model = _rod(tmp_path, first_limited=True, second_limited=True)
    assert model.loop_names == ("/World/Held",)
    assert "loop-joint-drive-ignored" not in {d.code for d in model.diagnostics}
    assert abs(_final_angle_deg(model) - 10.0) < 0.5
