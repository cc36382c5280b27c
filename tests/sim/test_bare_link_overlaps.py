"""Shapes that overlap around a joint decomposed into hinges through dummy links (URDF's way of
writing a ball joint: three hinges, two massless links without colliders) are held at their
start depth, not pushed apart.

Oracles: in uniform gravity a free tree with no other force feels no internal force, so its
joints stay where they start and its base falls as a lone body under semi-implicit Euler
(z_n = -g h^2 n (n + 1) / 2); ovphysx 0.7 on bullet3's humanoid (the case this comes from:
PhysX's push left its torso within 0.1 m of free fall after 0.5 s, where a position-only push
apart threw it 205 m in the first step).
"""
from __future__ import annotations

import numpy as np

from usdjoints.convert import convert_urdf
from usdjoints.model.build import load_model
from usdjoints.sim import api
from usdjoints.sim.start_overlaps import held_start_overlaps, joined_through_bare_links

INERTIAL = '<inertial><mass value="{m}"/><inertia ixx="{i}" iyy="{i}" izz="{i}" ixy="0" ixz="0" iyz="0"/></inertial>'
HIP = f"""<robot name="hip">
  <link name="pelvis">{INERTIAL.format(m=5, i=0.05)}
    <collision><geometry><sphere radius="0.1"/></geometry></collision></link>
  <link name="hip_x_link">{INERTIAL.format(m=0.001, i=1e-6)}</link>
  <link name="hip_y_link">{INERTIAL.format(m=0.001, i=1e-6)}</link>
  <link name="thigh">{INERTIAL.format(m=2, i=0.02)}
    <collision><origin xyz="0.02 0.01 -0.02"/><geometry><sphere radius="0.08"/></geometry></collision></link>
  <joint name="hip_x" type="continuous"><parent link="pelvis"/><child link="hip_x_link"/>
    <origin xyz="0 0 -0.05"/><axis xyz="1 0 0"/></joint>
  <joint name="hip_y" type="continuous"><parent link="hip_x_link"/><child link="hip_y_link"/><axis xyz="0 1 0"/></joint>
  <joint name="hip_z" type="continuous"><parent link="hip_y_link"/><child link="thigh"/><axis xyz="0 0 1"/></joint>
</robot>
"""


def test_overlap_around_a_decomposed_ball_joint_is_held(tmp_path):
    urdf = tmp_path / "hip.urdf"
    urdf.write_text(HIP)
    stage = tmp_path / "hip.usda"
    convert_urdf(urdf, stage)
    model = load_model(stage)
    pairs = np.asarray(model.collision_pairs)
    assert len(pairs) == 1 and joined_through_bare_links(model, pairs).tolist() == [True]
    assert held_start_overlaps(model)[0] > 0.1  # the spheres start 0.13 m deep
    h = 1e-3
    tr = api.simulate(model, 0.5, h, record_every=1)
    base = model.q_slice(model.joint_names[0])
    assert np.abs(np.delete(tr.q, np.arange(base.start, base.stop), axis=1)).max() < 1e-9
    n = np.arange(len(tr.t))
    g = float(np.linalg.norm(model.gravity))
    assert np.abs(tr.q[:, base.start + 2] - (tr.q[0, base.start + 2] - g * h * h * n * (n + 1) / 2)).max() < 1e-9
