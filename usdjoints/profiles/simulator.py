"""The usdjoints simulator: the USD value, with one-sided limits taken as one-sided."""
from types import MappingProxyType

from .base import PHYSX_AXIS_COLUMNS, LOOP, OPEN, SHARE_CLAIMED, TREE, Profile

PROFILE = Profile(
    name="usdjoints",
    title="usdjoints",
    description="The usdjoints simulator: the USD value, with one-sided limits taken as one-sided.",
    one_sided_revolute=MappingProxyType({"articulation": OPEN, "standalone": OPEN}),
    reads_unauthored_as="usd",
    reads_invalid_as="fallback",
    # the simulator works in SI units and radians (usdjoints.model converts on build)
    units=MappingProxyType({"angle": "rad", "angular_gain": "per rad", "length": "m"}),
    disabled_bodies="skips",
    collider_bodies=False,
    unresolved_frame="lifted",
    kinematic_links=False,
    root_on_non_link="reject",
    nested_roots=SHARE_CLAIMED,  # warned, and gathers only links the outer root left
    dof_columns=PHYSX_AXIS_COLUMNS,  # armature, speed limit and friction per axis
    material_density=True,  # masses are resolved as PhysX resolves them
    link_zero_moment_default=True,  # as PhysX: a link's tensor with a zero moment is rejected
    articulation_roles=frozenset({TREE, LOOP}),  # loops are closed by constraints in the simulator
    # as PhysX ("Articulation cannot contain a distance joint!"): held outside the tree
    unarticulated_types=frozenset({"distance"}),
    notes=(
        "A limit is on when either bound is finite; an infinite bound leaves that side open.",
        "A distance joint is held outside the tree, its anchors' distance within [minDistance, maxDistance]; a negative bound is none, as in PhysX.",
        "Body relationships resolve to the nearest enclosing enabled rigid body; frames on other targets are lifted through the target.",
    ),
)
