"""The writer's batched authoring gives the layer a single Usd stage would have.

Oracle: OpenUSD itself. The same sequence of Usd API calls (prims defined under one parent in
their thousands, a library scope created between two of them and filled later, nested scopes,
schemas applied to prims after they were parked, display names, custom data, relationships) is
made once on a plain ``Usd.Stage`` and once through :class:`BatchedStage`; the two layers must
export the same text, and list the same specs with the same fields and properties in the same
order.
"""
from __future__ import annotations

from contextlib import nullcontext

from pxr import Gf, Sdf, Usd, UsdGeom, UsdPhysics, UsdShade

from usdjoints.convert.usd_writer_batch import PARK_BATCH, BatchedStage

LINKS = 3 * PARK_BATCH + 7  # several full batches and a partial one


def _author(stage: Usd.Stage, park, editing) -> None:
    UsdGeom.SetStageMetersPerUnit(stage, 1.0)
    robot = UsdGeom.Xform.Define(stage, "/robot")
    stage.SetDefaultPrim(robot.GetPrim())
    UsdPhysics.Scene.Define(stage, "/PhysicsScene").CreateGravityMagnitudeAttr(9.81)
    looks = Sdf.Path("/robot/Looks")
    materials = []
    for k in range(LINKS):
        path = Sdf.Path(f"/robot/link{k}")
        link = UsdGeom.Xform.Define(stage, path)
        link.AddTranslateOp(UsdGeom.XformOp.PrecisionDouble).Set(Gf.Vec3d(0.1 * k, 0.0, 0.0))
        UsdPhysics.MassAPI.Apply(link.GetPrim()).CreateMassAttr(1.0 + k)
        if k % 3 == 0:
            link.GetPrim().SetDisplayName(f"link {k}")
        cube = UsdGeom.Cube.Define(stage, path.AppendChild("collision"))
        UsdPhysics.CollisionAPI.Apply(cube.GetPrim())
        cube.CreatePurposeAttr(UsdGeom.Tokens.guide)
        if k in (3, 40, 41, 150):  # the library appears between two links, then grows
            if not stage.GetPrimAtPath(looks):
                UsdGeom.Scope.Define(stage, looks)
            material = UsdShade.Material.Define(stage, looks.AppendChild(f"m{k}"))
            materials.append(material)
            park(material.GetPath())
        if materials:
            UsdShade.MaterialBindingAPI.Apply(cube.GetPrim()).Bind(materials[-1])
        park(path)
    joints = Sdf.Path("/robot/joints")
    UsdGeom.Scope.Define(stage, joints)
    for k in range(1, LINKS):
        joint = UsdPhysics.RevoluteJoint.Define(stage, joints.AppendChild(f"joint{k}"))
        joint.CreateBody0Rel().SetTargets([Sdf.Path(f"/robot/link{k - 1}")])
        joint.CreateBody1Rel().SetTargets([Sdf.Path(f"/robot/link{k}")])
        joint.CreateAxisAttr(UsdPhysics.Tokens.x)
        joint.GetPrim().SetCustomDataByKey("k", k)
        if k % 50 == 0:  # a prim beside the joints scope, written between two joints
            UsdGeom.Xform.Define(stage, f"/robot/nut{k}")
            park(Sdf.Path(f"/robot/nut{k}"))
        park(joint.GetPath())
    for path in ("/robot/link0", "/robot/link100", "/robot/joints/joint7", "/robot"):
        with editing(Sdf.Path(path)) as prim:
            UsdPhysics.ArticulationRootAPI.Apply(prim)
    with editing(Sdf.Path("/robot/link5")) as prim:
        UsdPhysics.FilteredPairsAPI.Apply(prim).CreateFilteredPairsRel().SetTargets(["/robot/link6"])


def _specs(layer: Sdf.Layer) -> list:
    """Every prim spec, children and properties in their stored order, with its fields' names."""
    found = [("/", layer.pseudoRoot.ListInfoKeys(), [])]

    def visit(spec):
        found.append((str(spec.path), spec.ListInfoKeys(), [p.name for p in spec.properties]))
        for prop in spec.properties:
            found.append((str(prop.path), prop.ListInfoKeys(), []))
        for child in spec.nameChildren:
            visit(child)

    for child in layer.pseudoRoot.nameChildren:
        visit(child)
    return found


def test_batched_layer_is_the_single_stage_layer():
    plain = Usd.Stage.CreateInMemory()
    _author(plain, lambda path: None, lambda path: nullcontext(plain.GetPrimAtPath(path)))
    batch = BatchedStage()
    _author(batch.stage, batch.park, batch.editing)
    layer = batch.finish()
    expected = plain.GetRootLayer()
    assert layer.ExportToString() == expected.ExportToString()
    assert _specs(layer) == _specs(expected)
    names = [child.name for child in layer.GetPrimAtPath("/robot").nameChildren]
    assert names[:6] == ["link0", "link1", "link2", "link3", "Looks", "link4"]


def test_working_stage_stays_small():
    batch = BatchedStage()
    _author(batch.stage, batch.park, batch.editing)
    # every link and joint was parked: only the scopes, libraries and the unflushed batch remain
    assert len(batch.stage.GetPrimAtPath("/robot").GetChildren()) <= PARK_BATCH + 3
    assert len(batch.finish().GetPrimAtPath("/robot/joints").nameChildren) == LINKS - 1


def _author_mixed(stage: Usd.Stage, park, author, with_library: bool) -> None:
    """Links and joints, every other one written as Sdf specs through ``author`` (None: through
    the Usd API, as on a plain stage); the same specs either way. ``with_library``: a scope
    appears between two links and is filled later, which the parked layer cannot hold in order."""
    from usdjoints.convert import usd_writer_specs as specs

    robot = UsdGeom.Xform.Define(stage, "/robot")
    stage.SetDefaultPrim(robot.GetPrim())
    UsdPhysics.Scene.Define(stage, "/PhysicsScene")
    for k in range(LINKS):
        path = Sdf.Path(f"/robot/link{k}")
        if author is not None and k % 2:
            spec = author(path, "Xform")
            specs.attribute(spec, "physics:mass", 1.0 + k)
            specs.apply_schemas(spec, ["PhysicsMassAPI"])
        else:
            link = UsdGeom.Xform.Define(stage, path)
            UsdPhysics.MassAPI.Apply(link.GetPrim()).CreateMassAttr(1.0 + k)
            if with_library and k in (4, 70):  # as a link binds a material: the scope comes after it
                if not stage.GetPrimAtPath("/robot/Looks"):
                    UsdGeom.Scope.Define(stage, "/robot/Looks")
                UsdShade.Material.Define(stage, f"/robot/Looks/m{k}")
                park(Sdf.Path(f"/robot/Looks/m{k}"))
            park(path)
    UsdGeom.Scope.Define(stage, "/robot/joints")
    for k in range(1, LINKS):
        path = Sdf.Path(f"/robot/joints/joint{k}")
        if author is not None and k % 3:
            specs.relationship(author(path, "PhysicsRevoluteJoint"), "physics:body0",
                               [Sdf.Path(f"/robot/link{k - 1}")])
        else:
            UsdPhysics.RevoluteJoint.Define(stage, path).CreateBody0Rel().SetTargets(
                [Sdf.Path(f"/robot/link{k - 1}")])
            park(path)


def test_authored_specs_keep_their_place():
    """Prims written straight into the parked layer (BatchedStage.author) between parked ones:
    the output is the single stage's layer, whether the parked layer becomes the output (all in
    order) or the output is assembled by copying (a scope filled after later siblings)."""
    for with_library in (False, True):
        plain = Usd.Stage.CreateInMemory()
        _author_mixed(plain, lambda path: None, None, with_library)
        batch = BatchedStage()
        _author_mixed(batch.stage, batch.park, batch.author, with_library)
        layer = batch.finish()
        expected = plain.GetRootLayer()
        assert layer.ExportToString() == expected.ExportToString()
        assert _specs(layer) == _specs(expected)
        in_place = layer.identifier == batch._parked.identifier
        assert in_place is not with_library  # both ways of finishing are compared
