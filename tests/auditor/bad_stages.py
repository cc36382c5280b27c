"""One small stage per audit rule, each triggering it at a known prim and attribute.

``BAD[rule_id] = (usda text, prim, attribute)``: the rule must report a finding at exactly that
prim (``None`` = the stage) and attribute. Stages are written as text so each reads like the
mistake a user would make.
"""
from __future__ import annotations

HEADER = '#usda 1.0\n(\n    metersPerUnit = 1\n    kilogramsPerUnit = 1\n    upAxis = "Z"\n)\n'
FREE = "float physics:lowerLimit = -inf\n float physics:upperLimit = inf"


def body(name: str, x: float, extra: str = "", api: str = "") -> str:
    return (f'def Cube "{name}" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"{api}])\n'
            f'{{\n float physics:mass = 1\n float3 physics:diagonalInertia = (0.2, 0.2, 0.2)\n {extra}\n'
            f' double3 xformOp:translate = ({x}, 0, 1)\n uniform token[] xformOpOrder = ["xformOp:translate"]\n}}\n')


def joint(kind: str, name: str, b0: str | None, b1: str | None, text: str = "", api: str = "") -> str:
    rels = "".join(f" rel physics:body{i} = <{b}>\n" for i, b in ((0, b0), (1, b1)) if b)
    schemas = f" (prepend apiSchemas = [{api}])" if api else ""
    return f'def {kind} "{name}"{schemas}\n{{\n{rels} {text}\n}}\n'


def world(*children: str, header: str = HEADER) -> str:
    return header + 'def Xform "World"\n{\n' + "".join(children) + "}\n"


def robot(*children: str, root_api: bool = True) -> str:
    """A fixed-base articulation /World/Robot: bodies A (welded to the world) and B."""
    api = ' (prepend apiSchemas = ["PhysicsArticulationRootAPI"])' if root_api else ""
    return (f'def Xform "Robot"{api}\n{{\n' + body("A", 0) + body("B", 1)
            + joint("PhysicsFixedJoint", "Weld", None, "/World/Robot/A") + "".join(children) + "}\n")


AB = ("/World/A", "/World/B")
HINGE = f"uniform token physics:axis = \"Z\"\n {FREE}"
RA, RB = "/World/Robot/A", "/World/Robot/B"

BAD: dict[str, tuple[str, str | None, str | None]] = {
    "default-coupling-ratio": (world(
        body("A", 0), body("B", 1),
        joint("PhysicsRevoluteJoint", "H", None, "/World/A", HINGE),
        joint("PhysicsPrismaticJoint", "P", None, "/World/B", FREE),
        joint("PhysxPhysicsRackAndPinionJoint", "R", *AB, "rel physics:hinge = </World/H>\n rel physics:prismatic = </World/P>"),
    ), "/World/R", "physics:ratio"),
    "default-joint-limits": (world(body("A", 0), body("B", 1), joint("PhysicsRevoluteJoint", "J", *AB)),
                             "/World/J", "physics:lowerLimit"),
    "default-d6-limit": (world(body("A", 0), body("B", 1), joint("PhysicsJoint", "D6", *AB, "",
                                                                  '"PhysicsLimitAPI:rotX"')),
                         "/World/D6", "limit:rotX:physics:high"),
    "default-cone-angle": (world(body("A", 0), body("B", 1), joint("PhysicsSphericalJoint", "Ball", *AB)),
                           "/World/Ball", "physics:coneAngle0Limit"),
    "default-stage-units": (world(body("A", 0), header="#usda 1.0\n(\n    kilogramsPerUnit = 1\n)\n"),
                            None, "metersPerUnit"),
    "limit-enable-disagreement": (world(body("A", 0), body("B", 1), joint(
        "PhysicsRevoluteJoint", "J", *AB, "float physics:lowerLimit = -30\n float physics:upperLimit = inf")),
        "/World/J", "physics:lowerLimit"),
    "locked-hinge": (world(robot(joint("PhysicsRevoluteJoint", "J", RA, RB,
                                       "float physics:lowerLimit = -30\n float physics:upperLimit = inf"))),
                     "/World/Robot/J", "physics:upperLimit"),
    "one-sided-limit": (world(body("A", 0), body("B", 1), joint(
        "PhysicsRevoluteJoint", "J", *AB, "float physics:lowerLimit = -30\n float physics:upperLimit = inf")),
        "/World/J", "physics:lowerLimit"),
    "articulation-d6-limit": (world(robot(joint(
        "PhysicsJoint", "D6", RA, RB, "float limit:rotX:physics:low = -10\n float limit:rotX:physics:high = 10",
        '"PhysicsLimitAPI:rotX"'))), "/World/Robot/D6", None),
    "unread-drive-instance": (world(body("A", 0), body("B", 1), joint(
        "PhysicsRevoluteJoint", "J", *AB, FREE + "\n float drive:linear:physics:stiffness = 10",
        '"PhysicsDriveAPI:linear"')), "/World/J", "drive:linear:physics:stiffness"),
    "unread-limit-instance": (world(body("A", 0), body("B", 1), joint(
        "PhysicsRevoluteJoint", "J", *AB, FREE + "\n float limit:rotX:physics:low = -5\n float limit:rotX:physics:high = 5",
        '"PhysicsLimitAPI:rotX"')), "/World/J", "limit:rotX:physics:low"),
    "articulation-d6-drive": (world(robot(joint(
        "PhysicsJoint", "D6", RA, RB, "float drive:transX:physics:stiffness = 10", '"PhysicsDriveAPI:transX"'))),
        "/World/Robot/D6", None),
    "cone-one-angle": (world(body("A", 0), body("B", 1), joint(
        "PhysicsSphericalJoint", "Ball", *AB, "float physics:coneAngle0Limit = 30")),
        "/World/Ball", "physics:coneAngle1Limit"),
    "coupling-missing-relationship": (world(body("A", 0), body("B", 1), joint(
        "PhysxPhysicsGearJoint", "G", *AB, "float physics:gearRatio = 2")), "/World/G", "physics:hinge0"),
    "coupling-misspelt-relationship": (world(
        body("A", 0), body("B", 1),
        joint("PhysicsRevoluteJoint", "H0", None, "/World/A", HINGE),
        joint("PhysicsRevoluteJoint", "H1", None, "/World/B", HINGE),
        joint("PhysxPhysicsGearJoint", "G", *AB, "float physics:gearRatio = 2\n"
              " rel physxGearJoint:hinge0 = </World/H0>\n rel physxGearJoint:hinge1 = </World/H1>"),
    ), "/World/G", "physxGearJoint:hinge0"),
    "coupling-zero-ratio": (world(
        body("A", 0), body("B", 1),
        joint("PhysicsRevoluteJoint", "H", None, "/World/A", HINGE),
        joint("PhysicsPrismaticJoint", "P", None, "/World/B", FREE),
        joint("PhysxPhysicsRackAndPinionJoint", "R", *AB, "float physics:ratio = 0\n"
              " rel physics:hinge = </World/H>\n rel physics:prismatic = </World/P>"),
    ), "/World/R", "physics:ratio"),
    "coupling-wrong-target": (world(
        body("A", 0), body("B", 1),
        joint("PhysicsPrismaticJoint", "P", None, "/World/A", FREE),
        joint("PhysicsRevoluteJoint", "H1", None, "/World/B", HINGE),
        joint("PhysxPhysicsGearJoint", "G", *AB, "float physics:gearRatio = 2\n"
              " rel physics:hinge0 = </World/P>\n rel physics:hinge1 = </World/H1>"),
    ), "/World/G", "physics:hinge0"),
    "mimic-reference": (world(robot(joint(
        "PhysicsRevoluteJoint", "J", RA, RB, HINGE + "\n rel physxMimicJoint:rotZ:referenceJoint = </World/Robot/Nope>",
        '"PhysxMimicJointAPI:rotZ"'))), "/World/Robot/J", "physxMimicJoint:rotZ:referenceJoint"),
    "coupling-unseen": (world(
        body("A", 0), body("B", 1),
        joint("PhysicsRevoluteJoint", "H0", None, "/World/A", HINGE),
        joint("PhysicsRevoluteJoint", "H1", None, "/World/B", HINGE),
        joint("PhysxPhysicsGearJoint", "G", *AB, "float physics:gearRatio = 2\n"
              " rel physics:hinge0 = </World/H0>\n rel physics:hinge1 = </World/H1>"),
    ), "/World/G", None),
    "dangling-body": (world(body("A", 0), joint("PhysicsRevoluteJoint", "J", "/World/A", "/World/Missing", HINGE)),
                      "/World/J", "physics:body1"),
    "target-not-body": (world(body("A", 0), 'def Xform "Plain"\n{\n}\n',
                              joint("PhysicsRevoluteJoint", "J", "/World/A", "/World/Plain", HINGE)),
                        "/World/J", "physics:body1"),
    "same-body": (world(body("A", 0), joint("PhysicsRevoluteJoint", "J", "/World/A", "/World/A", HINGE)),
                  "/World/J", None),
    "mirrored-body": (world(body("A", 0), body("B", 1, 'double3 xformOp:scale = (-1, 1, 1)').replace(
        '["xformOp:translate"]', '["xformOp:translate", "xformOp:scale"]'),
        joint("PhysicsRevoluteJoint", "J", *AB, HINGE)), "/World/B", None),
    "non-link-in-articulation": (world(robot(joint("PhysicsRevoluteJoint", "J", RA, RB, HINGE)).replace(
        body("B", 1), body("B", 1, "bool physics:kinematicEnabled = true"))),
        "/World/Robot/B", "physics:kinematicEnabled"),
    "several-body-targets": (world(body("A", 0), body("B", 1), body("C", 2), joint(
        "PhysicsRevoluteJoint", "J", "/World/A", None, HINGE + "\n rel physics:body1 = [</World/B>, </World/C>]")),
        "/World/J", "physics:body1"),
    "no-body": (world(joint("PhysicsRevoluteJoint", "J", None, None, HINGE)), "/World/J", None),
    "articulation-loop": (world(robot(body("C", 2), joint("PhysicsRevoluteJoint", "AB", RA, RB, HINGE),
                                      joint("PhysicsRevoluteJoint", "BC", RB, "/World/Robot/C", HINGE),
                                      joint("PhysicsRevoluteJoint", "CA", "/World/Robot/C", RA, HINGE))),
                          "/World/Robot/BC", "physics:excludeFromArticulation"),
    "nested-root": (world(robot(joint("PhysicsRevoluteJoint", "J", RA, RB, HINGE)).replace(
        body("B", 1), 'def Xform "Inner" (prepend apiSchemas = ["PhysicsArticulationRootAPI"])\n{\n'
        + body("B", 1) + "}\n").replace(RB, "/World/Robot/Inner/B")), "/World/Robot/Inner", None),
    "welded-anchor": (world('def Xform "Robot" (prepend apiSchemas = ["PhysicsArticulationRootAPI"])\n{\n'
                            + body("A", 0) + body("B", 1)
                            + joint("PhysicsRevoluteJoint", "Mount", None, RA, HINGE)
                            + joint("PhysicsRevoluteJoint", "J", RA, RB, HINGE) + "}\n"),
                      "/World/Robot/Mount", None),
    "root-on-non-link": (world(body("A", 0, "bool physics:kinematicEnabled = true",
                                    ', "PhysicsArticulationRootAPI"'), body("B", 1),
                               joint("PhysicsRevoluteJoint", "J", *AB, HINGE)), "/World/A", None),
    "empty-articulation": (world('def Xform "Robot" (prepend apiSchemas = ["PhysicsArticulationRootAPI"])\n{\n'
                                 + body("A", 0) + "}\n"), "/World/Robot", None),
    "disabled-joint-cuts-links": (world(robot(body("C", 2), joint("PhysicsRevoluteJoint", "AB", RA, RB, HINGE),
                                              joint("PhysicsRevoluteJoint", "BC", RB, "/World/Robot/C",
                                                    HINGE + "\n bool physics:jointEnabled = false"))),
                                  "/World/Robot/BC", "physics:jointEnabled"),
    "root-elected-elsewhere": (world(body("A", 0), body("B", 1, "", ', "PhysicsArticulationRootAPI"'),
                                     joint("PhysicsFixedJoint", "Weld", None, "/World/A"),
                                     joint("PhysicsRevoluteJoint", "J", *AB, HINGE)), "/World/B", None),
    "lower-above-upper": (world(body("A", 0), body("B", 1), joint(
        "PhysicsRevoluteJoint", "J", *AB, "float physics:lowerLimit = 30\n float physics:upperLimit = -30")),
        "/World/J", "physics:lowerLimit"),
    "min-above-max": (world(body("A", 0), body("B", 1), joint(
        "PhysicsDistanceJoint", "D", *AB, "float physics:minDistance = 2\n float physics:maxDistance = 1")),
        "/World/D", "physics:minDistance"),
    "revolute-limit-beyond-turn": (world(body("A", 0), body("B", 1), joint(
        "PhysicsRevoluteJoint", "J", *AB, "float physics:lowerLimit = -400\n float physics:upperLimit = 400")),
        "/World/J", "physics:lowerLimit"),
    "limit-looks-radians": (world(body("A", 0), body("B", 1), joint(
        "PhysicsRevoluteJoint", "J", *AB, "float physics:lowerLimit = -1.5708\n float physics:upperLimit = 1.5708")),
        "/World/J", "physics:lowerLimit"),
    "non-unit-quaternion": (world(body("A", 0), body("B", 1), joint(
        "PhysicsRevoluteJoint", "J", *AB, HINGE + "\n quatf physics:localRot0 = (2, 0, 0, 0)")),
        "/World/J", "physics:localRot0"),
    "non-finite-value": (world(body("A", 0), body("B", 1), joint(
        "PhysicsRevoluteJoint", "J", *AB, HINGE + "\n point3f physics:localPos0 = (nan, 0, 0)")),
        "/World/J", "physics:localPos0"),
    "schema-type-mismatch": (world(body("A", 0), body("B", 1), joint(
        "PhysicsRevoluteJoint", "J", *AB, HINGE + "\n float3 physics:localPos0 = (0.5, 0, 0)")),
        "/World/J", "physics:localPos0"),
    "not-a-joint": (world(body("A", 0), body("B", 1), joint("DistancePhysicsJoint", "Rope", *AB)),
                    "/World/Rope", None),
    "angular-gain-per-radian": (world(body("A", 0), body("B", 1), joint(
        "PhysicsRevoluteJoint", "J", *AB, HINGE + "\n float drive:angular:physics:stiffness = 1000",
        '"PhysicsDriveAPI:angular"')), "/World/J", "drive:angular:physics:stiffness"),
    "units-look-metres": (world(body("A", 0), body("B", 1), joint("PhysicsRevoluteJoint", "J", *AB, HINGE),
                                header=HEADER.replace("metersPerUnit = 1", "metersPerUnit = 0.01")),
                          None, "metersPerUnit"),
}
