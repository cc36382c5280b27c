"""OpenUSD's own parser, UsdPhysics.LoadUsdPhysicsFromRange (usd-core 26.x).

Read from pxr/usd/usdPhysics/parseUtils.cpp and checked against the parser in
tests/test_usdphysics_oracle.py and tests/walker/openusd_parsing/.
"""
from types import MappingProxyType

from .base import DISABLE, INDEPENDENT, LOOP, TREE, Profile

PROFILE = Profile(
    name="usdphysics",
    title="OpenUSD's parser",
    description="OpenUSD's own parser, UsdPhysics.LoadUsdPhysicsFromRange.",
    # unknown joint types (PhysX couplings, custom joints) are reported as free D6 joints
    joint_types_read_as=MappingProxyType({"rack_and_pinion": "d6", "gear": "d6", "custom": "d6"}),
    limit_enable_rule=MappingProxyType({"revolute": "and"}),  # prismatic and D6: either bound
    one_sided_revolute=MappingProxyType({"articulation": DISABLE, "standalone": DISABLE}),
    reads_unauthored_as="usd",
    reads_invalid_as="fallback",
    disabled_bodies="resolves",
    collider_bodies=True,  # no rigid body on the way up: the topmost collider is the body
    unresolved_frame="lifted",
    kinematic_links=True,
    root_on_body_is_base=False,
    root_on_non_link="accept",
    nested_roots=INDEPENDENT,  # each root is gathered on its own: nested roots share links
    refuses_kinematic_articulations=False,
    world_anchor_welds=False,
    articulation_roles=frozenset({TREE, LOOP}),
    notes=(
        "A revolute limit is on only when both bounds are finite; prismatic and D6 limits when either is.",
        "Body relationships resolve to the nearest ancestor with PhysicsRigidBodyAPI, enabled or not, else the topmost collider.",
        "A frame on a non-body target is lifted through the target's transform into the body (or world) frame.",
        "PhysX rack-and-pinion and gear joints are reported as D6 joints unless custom joint tokens are given.",
    ),
)
