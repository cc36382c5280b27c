"""Paths the tests share: the repository, the bundled sample stages, the optional shared corpus."""
from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TESTS = REPO / "tests"
SAMPLE_STAGES = sorted((REPO / "sample_stages").rglob("*.usda"))
SHARED_CORPUS = REPO.parent / "shared" / "corpus"


def pendulum_urdf(arm_visual: str = "") -> str:
    """A two-link revolute pendulum URDF; ``arm_visual`` is put inside the arm link (a mesh or box
    the test needs), nothing by default."""
    return f"""<?xml version="1.0"?>
<robot name="pendulum">
  <link name="base">
    <inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial>
  </link>
  <link name="arm">
    <inertial><mass value="0.5"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>{arm_visual}
  </link>
  <joint name="hinge" type="revolute">
    <parent link="base"/><child link="arm"/><axis xyz="0 1 0"/>
    <limit lower="-1" upper="1" effort="10" velocity="1"/>
  </joint>
</robot>
"""


def robots_dir() -> Path:
    """example-robot-data's robots folder; the calling test is skipped without it."""
    import pytest
    from importlib import metadata

    try:
        distribution = metadata.distribution("example-robot-data")
    except metadata.PackageNotFoundError:
        pytest.skip("example-robot-data is not installed")
    root = Path(distribution.locate_file("cmeel.prefix/share/example-robot-data/robots"))
    if not root.is_dir():
        pytest.skip(f"example-robot-data robots not found at {root}")
    return root
