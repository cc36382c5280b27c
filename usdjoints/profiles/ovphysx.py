"""PhysX through ovphysx 0.7: reads what USD population writes (the resolved USD value).

Measured with ovphysx 0.7 unless a line says otherwise (tests/oracle and the ovphysx readback tests).
"""
from types import MappingProxyType

from .base import PHYSX_AXIS_COLUMNS, CLAMP, LOCK, REJECT_NESTED, TREE, Profile

PROFILE = Profile(
    name="ovphysx",
    title="PhysX",
    description="PhysX through ovphysx 0.7: reads what USD population writes (the resolved USD value).",
    # a revolute/prismatic/D6 limit is on when either bound is finite and inside +-0.5e38
    limit_enable_rule=MappingProxyType({}),
    # in an articulation a one-sided revolute limit is rejected (lowLimit must be <= highLimit)
    # and the hinge locked at [0, 0]; standalone, the open side is clamped to +-180 deg
    one_sided_revolute=MappingProxyType({"articulation": LOCK, "standalone": CLAMP}),
    standalone_revolute_clamp=180.0,
    # Measured (tests/oracle/test_walk_vs_ovphysx.py): outside articulations a revolute joint is a
    # D6 twist limit and a bound beyond +-180 deg is clamped to +-180 ("Lower angle limit on a
    # revolute D6 joint was clamped to -180 degrees"), where it no longer holds (driven at
    # -120 deg/s the hinge turned -595 deg in 5 s). Inside an articulation nothing is clamped:
    # bounds of +-400 and +-2000 deg read back as authored and a driven joint stops at them. The
    # contract page (ovphysx-0.7-population, PhysicsRevoluteJoint) says articulation limits
    # beyond +-360 deg are clamped to (-2pi, 2pi) with a warning; the runtime does neither.
    standalone_revolute_range=180.0,
    articulation_d6_translational_drives=False,  # articulation D6 joints have rotational axes only
    reads_unauthored_as="producer",
    reads_invalid_as="cast",  # a castable wrong type is converted; else its default for an absent column
    # rotational gains x 180/pi and targets in radians inside PhysX
    units=MappingProxyType({"angle": "rad", "angular_gain": "per rad", "length": "stage"}),
    disabled_bodies="skips",  # to the nearest enclosing enabled rigid body
    collider_bodies=False,
    unresolved_frame="verbatim",  # a side with no body keeps its authored frame as world space
    kinematic_links=False,
    root_on_body_is_base=True,  # a root API on a dynamic body: floating base there, no election
    # measured (tests/oracle/test_articulation_graph_ovphysx.py): with the root API on a dynamic
    # link, a kinematic body jointed to the articulation is one of its links, and is simulated
    # as dynamic (a kinematic base fell 4.9 m in 1 s with its arm); with the root on an Xform or
    # a joint, such an articulation is refused (refuses_kinematic_articulations)
    body_root_kinematic_links=True,
    root_on_non_link="reject",  # a root on a disabled or kinematic body is ignored
    # measured (tests/oracle/test_articulation_graph_ovphysx.py): a root on a joint with
    # jointEnabled = false builds no articulation, though the joints below it are enabled
    # (OpenUSD's parser gathers the articulation all the same)
    root_on_disabled_joint="reject",
    nested_roots=REJECT_NESTED,  # "nested articulation roots are not supported"
    refuses_kinematic_articulations=True,  # "Articulations with kinematic bodies are not supported"
    # measured (tests/oracle/test_walk_vs_ovphysx.py): metersPerUnit or kilogramsPerUnit of 0, -1,
    # nan or inf: attach fails with "physics source scan failed" and nothing is simulated
    # (1e-30 loads; an upAxis other than Y or Z loads)
    refuses_units=frozenset({"metersPerUnit", "kilogramsPerUnit"}),
    world_anchor_welds=True,
    # measured (tests/oracle/test_walk_vs_ovphysx.py, a 0.2 m cube): a collider's bound material
    # density gives the mass (500 kg/m^3: 4 kg, physics-purpose binding or not); the body's
    # physics:density wins over it (3000: 24 kg) and physics:mass over both; a material without
    # density leaves PhysX's 1000 kg/m^3
    material_density=True,  # a hinge from the world to an articulation becomes its fixed base
    # measured (tests/sim/test_zero_moment_link_physx.py): "PxRigidBody::setMassSpaceInertiaTensor():
    # components must be > 0 for articulations", and the link turns with its default (1, 1, 1)
    link_zero_moment_default=True,
    dof_columns=PHYSX_AXIS_COLUMNS,  # armature, speed limit and friction per axis
    articulation_roles=frozenset({TREE}),  # a loop-closing joint is simulated beside the articulation
    # measured (tests/oracle/test_articulation_graph_ovphysx.py): of several joints on one body
    # pair PhysX keeps the first by path, whatever the definition or body order, and the loop a
    # joint closes follows a depth-first walk, joints in path order, from the elected root
    joint_order="path",
    # "Articulation cannot contain a distance joint!": simulated beside it, as if excluded
    unarticulated_types=frozenset({"distance"}),
    tree_from="elected",
    notes=(
        "A revolute/prismatic/D6 limit is on when either bound is finite and inside +-0.5e38.",
        "Inside an articulation a revolute limit with one infinite bound is rejected and the hinge is locked at [0, 0].",
        "Standalone, an infinite revolute bound, and a finite one beyond +-180 deg, is clamped to +-180 deg.",
        "Inside an articulation a revolute bound beyond one turn is kept and holds (not clamped to +-360 deg).",
        "Articulation D6 joints apply no limits and ignore translational drives.",
        "Body relationships resolve to the nearest enclosing enabled rigid body; a side with none is the world and its frame is used verbatim.",
        "With the root API on a dynamic link, kinematic bodies jointed to the articulation become dynamic links.",
        "An articulation root on a disabled joint is ignored: no articulation is built from it.",
        "A stage whose metersPerUnit or kilogramsPerUnit is no positive finite number is not loaded at all.",
        "A body without physics:mass or physics:density takes its mass from each collider's material density, else 1000 kg/m^3.",
        "Rotational gains are multiplied by 180/pi and targets converted to radians when read.",
    ),
)
