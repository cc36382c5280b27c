"""One line per contract owner: what the type, API or block is for."""
from __future__ import annotations

SUMMARIES: dict[str, str] = {
    "PhysicsJoint": "Base of every joint; typed exactly PhysicsJoint it is the D6 joint (limits and drives per axis through the joint APIs).",
    "PhysicsRevoluteJoint": "Hinge: one rotation about axis, optional limits in degrees.",
    "PhysicsPrismaticJoint": "Slider: one translation along axis, optional limits in stage lengths.",
    "PhysicsSphericalJoint": "Ball joint: three rotations, optional elliptical swing cone in degrees.",
    "PhysicsFixedJoint": "Weld: no degree of freedom; declares nothing beyond PhysicsJoint.",
    "PhysicsDistanceJoint": "Keeps the distance between the two joint frames inside [minDistance, maxDistance].",
    "PhysxPhysicsRackAndPinionJoint": "Couples a hinge's rotation to a slider's translation by ratio [deg per length].",
    "PhysxPhysicsGearJoint": "Couples two hinges' rotations by gearRatio.",
    "PhysicsDriveAPI": "PD drive on one joint axis (multiple-apply: angular, linear, transX..rotZ, distance).",
    "PhysicsLimitAPI": "Per-axis limit of a D6 joint (multiple-apply: transX..rotZ, distance).",
    "PhysicsJointStateAPI": "Initial position and velocity of one joint axis (multiple-apply).",
    "PhysxLimitAPI": "PhysX tuning of one joint limit: restitution, bounce threshold, soft-limit spring.",
    "PhysxJointAxisAPI": "PhysX per-axis properties of an articulation joint: armature, speed limit, friction.",
    "PhysxMimicJointAPI": "PhysX mimic coupling of one axis to a reference joint's axis (multiple-apply: rotX, rotY, rotZ).",
    "PhysicsArticulationRootAPI": "Marks the root of a reduced-coordinate articulation; declares no attribute.",
    "PhysxArticulationAPI": "PhysX tuning of an articulation: enable flag, self-collision, thresholds, solver iterations.",
    "PhysicsRigidBodyAPI": "Makes a prim a rigid body; decides which bodies a joint connects and how they start.",
    "PhysicsMassAPI": "Explicit mass properties; anything unset is computed from geometry and density.",
    "stage": "Stage units: metersPerUnit, kilogramsPerUnit, upAxis.",
}
