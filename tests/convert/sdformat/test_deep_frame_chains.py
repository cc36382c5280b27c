"""Pose and attached_to chains as long as the model, declared in either order.

Regression: a model whose link k is placed ``relative_to`` link k+1 (declared before the link it
depends on) resolved its poses by recursion, one Python frame per link, and 5,000 links ended in
an internal error (RecursionError). Oracle: closed form, each link 0.1 m further along X than the
next one, so link k sits at x = 0.1 (n - k); a frame attached to a frame ... attached to a link
moves with that link.
"""
from __future__ import annotations

import sys

import pytest

from usdjoints.convert.sdformat import read_sdformat
from usdjoints.errors import InputError

#: well above Python's recursion limit, so a recursive resolution cannot pass
N = max(5000, 3 * sys.getrecursionlimit())


def _write(tmp_path, body: str) -> str:
    path = tmp_path / "chain.sdf"
    path.write_text(f'<?xml version="1.0"?>\n<sdf version="1.9"><model name="chain">{body}</model></sdf>\n')
    return str(path)


def test_relative_to_chain_declared_before_its_targets(tmp_path):
    links = "".join(
        f'<link name="link{k}"><pose relative_to="link{k + 1}">0.1 0 0 0 0 0</pose></link>' for k in range(N - 1))
    links += f'<link name="link{N - 1}"><pose>0.1 0 0 0 0 0</pose></link>'
    robot = read_sdformat(_write(tmp_path, links))
    poses = {link.name: link.pose for link in robot.links}
    for k in (0, 1, N // 2, N - 1):
        assert poses[f"link{k}"].position == pytest.approx((0.1 * (N - k), 0.0, 0.0), rel=1e-12)


def test_attached_to_chain_declared_before_its_targets(tmp_path):
    frames = "".join(f'<frame name="f{k}" attached_to="f{k + 1}"><pose>0 0 0.01 0 0 0</pose></frame>'
                     for k in range(N - 1))
    frames += f'<frame name="f{N - 1}" attached_to="base"/>'
    body = ('<link name="base"/><link name="tip"/>' + frames
            + '<joint name="j" type="revolute"><parent>f0</parent><child>tip</child>'
              '<axis><xyz>0 0 1</xyz></axis></joint>')
    robot = read_sdformat(_write(tmp_path, body))
    (joint,) = robot.joints
    assert (joint.parent, joint.child) == ("base", "tip")  # f0 moves with base, through every frame


def test_long_cycle_is_an_input_error(tmp_path):
    links = "".join(f'<link name="link{k}"><pose relative_to="link{(k + 1) % N}">0.1 0 0 0 0 0</pose></link>'
                    for k in range(N))
    with pytest.raises(InputError, match="cycle"):
        read_sdformat(_write(tmp_path, links))
