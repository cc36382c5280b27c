"""PhysX (ovphysx 0.7, CPU) simulates converted SDFormat worlds with the gravity, friction and
springs the files write.

Oracle: ovphysx in a child process (tests/oracle/ovphysx_probe.py) against closed forms: free
fall under the world's gravity (none for ``0 0 0``), Coulomb sliding deceleration mu·g, and a
damped spring settling at its reference.
"""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest
from pxr import Gf, Usd, UsdPhysics

from usdjoints.convert import convert_sdformat

pytestmark = pytest.mark.oracle

PROBE = Path(__file__).resolve().parents[2] / "oracle" / "ovphysx_probe.py"
DT = 1.0 / 500.0


def probe(stage: Path, steps: int) -> dict:
    if importlib.util.find_spec("ovphysx") is None or not PROBE.is_file():
        pytest.skip("ovphysx (extra oracle) or its probe is not available")
    done = subprocess.run([sys.executable, str(PROBE), str(stage), "--steps", str(steps), "--dt", str(DT)],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


BOX = """<inertial><mass>1</mass><inertia><ixx>0.1</ixx><iyy>0.1</iyy><izz>0.1</izz></inertia></inertial>
  <collision name="c"><geometry><box><size>0.2 0.2 0.2</size></box></geometry>{surface}</collision>"""


def _world(gravity: str, body: str, extra: str = "") -> str:
    return f"""<sdf version="1.9"><world name="w"><gravity>{gravity}</gravity>
      <physics name="p" type="ode"><max_step_size>{DT}</max_step_size></physics>{extra}
      <model name="box"><pose>0 0 1 0 0 0</pose><link name="body">{body}</link></model></world></sdf>"""


@pytest.mark.parametrize("gravity, g", [("0 0 0", 0.0), ("0 0 -3", 3.0)])
def test_free_body_falls_with_the_world_gravity(tmp_path, gravity, g):
    src = tmp_path / "fall.sdf"
    src.write_text(_world(gravity, BOX.format(surface="")))
    out = tmp_path / "fall.usda"
    convert_sdformat(src, out)
    steps = 250
    physx = probe(out, steps)
    (body,) = (b["final"] for b in physx["bodies"].values())
    # the velocity after n steps is exactly g n dt; the drop is g t² / 2 up to the integrator's
    # g dt t / 2 (7.5e-4 m here; 9.81 instead of 3 m/s² would be 0.85 m)
    assert body["position"][2] == pytest.approx(1.0 - 0.5 * g * (DT * steps) ** 2, abs=1e-3)
    assert body["linear_velocity"][2] == pytest.approx(-g * DT * steps, abs=1e-4)


def test_box_slides_with_the_surface_friction(tmp_path):
    surface = "<surface><friction><ode><mu>0.3</mu><mu2>0.3</mu2></ode></friction></surface>"
    ground = f"""<model name="ground"><static>true</static><link name="floor">
      <collision name="c"><pose>0 0 -0.5 0 0 0</pose><geometry><box><size>20 20 1</size></box></geometry>{surface}
      </collision></link></model>"""
    text = _world("0 0 -9.81", BOX.format(surface=surface), ground).replace("<pose>0 0 1 0 0 0</pose>",
                                                                           "<pose>0 0 0.1 0 0 0</pose>")
    src = tmp_path / "slide.sdf"
    src.write_text(text)
    out = tmp_path / "slide.usda"
    convert_sdformat(src, out)
    stage = Usd.Stage.Open(str(out))
    body = next(p for p in stage.Traverse() if p.HasAPI(UsdPhysics.RigidBodyAPI))
    UsdPhysics.RigidBodyAPI(body).CreateVelocityAttr(Gf.Vec3f(2.0, 0.0, 0.0))  # [m/s], the test's push
    stage.Save()
    steps = 150  # 0.3 s, the box still sliding (it stops after 2 / (0.3 g) = 0.68 s)
    physx = probe(out, steps)
    state = physx["bodies"][str(body.GetPath())]["final"]
    # Coulomb sliding: v = v0 - mu g t; PhysX averages the two materials (both 0.3)
    assert state["linear_velocity"][0] == pytest.approx(2.0 - 0.3 * 9.81 * steps * DT, rel=0.03)


def test_suspension_spring_settles_at_its_reference(tmp_path):
    wheel = """<link name="wheel"><pose>0 0 0.5 0 0 0</pose>
        <inertial><mass>1</mass><inertia><ixx>0.01</ixx><iyy>0.01</iyy><izz>0.01</izz></inertia></inertial></link>
      <joint name="suspension" type="prismatic"><parent>body</parent><child>wheel</child>
        <axis><xyz>0 0 1</xyz><limit><lower>-1</lower><upper>1</upper></limit>
          <dynamics><spring_stiffness>2500</spring_stiffness><spring_reference>0.02</spring_reference>
            <damping>20</damping></dynamics></axis></joint>"""
    text = _world("0 0 0", BOX.format(surface="")).replace("</link></model>", "</link>" + wheel + "</model>")
    src = tmp_path / "spring.sdf"
    src.write_text(text)
    out = tmp_path / "spring.usda"
    convert_sdformat(src, out)
    physx = probe(out, 1000)  # 2 s; the spring's envelope decays as exp(-t / 0.1 s)
    (joint,) = [j for p, j in physx["joints"].items() if p.endswith("suspension") and j.get("dofs")]
    assert joint["dofs"][0]["position"] == pytest.approx(0.02, abs=2e-4)
