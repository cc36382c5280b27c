"""Newton 1.8 (``newton.ModelBuilder().add_usd(path)``, then ``finalize(device="cpu")``).

Newton reads joints through OpenUSD's parser and then applies its own rules, by degree of freedom:
the profile reads the stage through the ``usdphysics`` profile and refines that reading in
:mod:`usdjoints.walker.newton`, where each rule has its measurement. Measured on generated stages
and on converted robots read back through Newton (tests/oracle/test_walk_vs_newton.py).
"""
from types import MappingProxyType

from .base import INDEPENDENT, LOOP, TREE, Profile

PROFILE = Profile(
    name="newton",
    title="Newton",
    description="Newton 1.8 (ModelBuilder.add_usd): OpenUSD's parser, then Newton's own rules, by degree of freedom.",
    # the parser's reading first: these fields are the usdphysics profile's (the refinement changes
    # what Newton changes)
    joint_types_read_as=MappingProxyType({"rack_and_pinion": "d6", "gear": "d6", "custom": "d6"}),
    reads_unauthored_as="usd",
    reads_invalid_as="fallback",
    parser_defaults_from="usdphysics",  # an absent column is what the parser hands Newton
    # radians and per-radian gains; stage units are not applied (metersPerUnit != 1 only warns)
    units=MappingProxyType({"angle": "rad", "angular_gain": "per rad", "length": "stage"}),
    disabled_bodies="resolves",
    collider_bodies=True,
    unresolved_frame="lifted",
    kinematic_links=True,
    nested_roots=INDEPENDENT,  # each root is built: the joints of nested roots twice
    articulation_roles=frozenset({TREE, LOOP}),
    reads_through="usdphysics",
    refine="usdjoints.walker.newton:refine",
    notes=(
        "Joints, bodies and limits are read through OpenUSD's parser; stage units are not applied.",
        "An infinite revolute or prismatic bound becomes 1e10 (rad or m); a one-sided limit stays one-sided.",
        "A D6 axis is a dof only with a PhysicsLimitAPI and low < high; other axes are locked and their drives dropped.",
        "Revolute and prismatic joints sharing a body pair become one D6 named after the first of them.",
        "The world is always the parent; a floating base or a lone body gets a free joint.",
        "Disabled, gear and rack-and-pinion joints are not built; several other shapes make Newton refuse the stage.",
        "Armature, friction and velocity limit come from newton:* attributes only (PhysxJointAxisAPI is not read).",
        "Acceleration drives are read as force drives; spherical cone limits are ignored.",
    ),
)
