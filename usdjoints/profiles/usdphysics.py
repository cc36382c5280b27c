"""OpenUSD's own parser, UsdPhysics.LoadUsdPhysicsFromRange (usd-core 26.11).

Each rule is checked against the parser in tests/test_usdphysics_oracle.py and
tests/walker/openusd_parsing/ (scenarios of OpenUSD's testUsdPhysicsParsing.py rebuilt as stages).
The articulation rules follow the parser's link traversal (pxr/usd/usdPhysics/parseUtils.cpp):
joints are visited in path order, and a root is elected per connected component.
"""
from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

from .base import DISABLE, EXCLUDED, INDEPENDENT, LOOP, TREE, Profile
from .graph import elect, world_joint_link


@dataclass(frozen=True)
class ParserProfile(Profile):
    """OpenUSD's parser: a profile whose root election is the parser's own."""

    def elect_roots(self, root, root_joint, root_is_body, scopes, incidence):
        if root_is_body:
            return (root,), root  # the root API on a body: that body, floating
        if root_joint is not None:
            sides = (root_joint.side0.body, root_joint.side1.body)
            if sides[0] is None or sides[1] is None:
                # a joint to the world is the root (with neither side a body, of nothing)
                return (root,), sides[0] or sides[1]
            return (), None  # a joint between two bodies roots nothing
        prims = []
        for seed, _links in scopes:
            elected = elect(seed, incidence)
            if elected is not None:
                prims.append(elected)
        if not prims:
            return (), None
        first = prims[0]
        for record_side in world_joint_link(first, incidence):
            return tuple(prims), record_side
        return tuple(prims), first


PROFILE = ParserProfile(
    name="usdphysics",
    title="OpenUSD's parser",
    description="OpenUSD's own parser, UsdPhysics.LoadUsdPhysicsFromRange.",
    # unknown joint types (PhysX couplings, custom joints) are reported as free D6 joints
    joint_types_read_as=MappingProxyType({"rack_and_pinion": "d6", "gear": "d6", "custom": "d6"}),
    limit_enable_rule=MappingProxyType({"revolute": "and"}),  # prismatic and D6: either bound
    one_sided_revolute=MappingProxyType({"articulation": DISABLE, "standalone": DISABLE}),
    reads_unauthored_as="usd",
    reads_invalid_as="fallback",
    # a disabled body is passed over for the nearest enabled one above it (usd-core 26.11)
    disabled_bodies="skips",
    collider_bodies=True,  # no enabled rigid body on the way up: the topmost collider is the body
    unresolved_frame="lifted",
    kinematic_links=True,
    root_on_body_is_base=False,
    root_on_non_link="accept",
    nested_roots=INDEPENDENT,  # each root is gathered on its own: nested roots share links
    refuses_kinematic_articulations=False,
    world_anchor_welds=False,
    computes_mass=False,  # the parser reports the authored mass values and resolves none
    # every enabled joint touching a link is the articulation's, excluded and loop-closing ones too
    articulation_roles=frozenset({TREE, LOOP, EXCLUDED}),
    listed_roles=frozenset({TREE, LOOP, EXCLUDED}),
    seeds_inside_links=False,  # the parser prunes the subtree of a link from its search for seeds
    jointless_seeds=True,
    notes=(
        "A revolute limit is on only when both bounds are finite; prismatic and D6 limits when either is.",
        "Body relationships resolve to the nearest enabled rigid body above the target, else the topmost collider.",
        "A frame on a non-body target is lifted through the target's transform into the body (or world) frame.",
        "PhysX rack-and-pinion and gear joints are reported as D6 joints unless custom joint tokens are given.",
        "An articulation lists every enabled joint touching its links; a floating one is rooted at the "
        "top of a nested chain or at the centre of its graph.",
    ),
)
