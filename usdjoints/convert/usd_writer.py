"""RobotIR -> USD layer: the one writer both converters share, with an explicit authoring policy.

Layout of the written stage (metersPerUnit 1, kilogramsPerUnit 1, upAxis Z)::

    /<robot>                 Xform, defaultPrim, at the model pose; ArticulationRootAPI if fixed base
        /<link>              Xform + PhysicsRigidBodyAPI + PhysicsMassAPI, at its pose at q = 0
            /visual_<n>      gprims placed by their origin in the link frame
            /collision_<n>   gprims with PhysicsCollisionAPI (purpose guide)
        /joints/<joint>      UsdPhysics joints (see usd_writer_joints for their policy)
        /Looks/<material>    UsdShade materials
    /PhysicsScene            gravity -Z 9.81 m/s² (outside the default prim, so references skip it)

Rigid bodies are flat siblings (never nested), so each keeps its own world pose and a consumer
never has to undo a parent body's motion. Base policy: the robot is fixed-base when a joint
connects it to the world link (a ``world`` root in URDF); otherwise floating. ``floating_base``
overrides: True drops fixed/floating joints to the world, False welds a floating root to the
world with a fixed joint ``world_weld``. The articulation root is the robot prim for a fixed base
(the world joint is then inside it) and the root link for a floating base, or for a base tied to
the world by a moving joint (which PhysX would otherwise lock).

A link without mass (no ``<inertial>``, or mass 0) is written with mass 1e-3 kg and inertia
1e-6 kg·m² on each principal axis: consumers otherwise substitute 1 kg or derive mass from the
colliders at 1000 kg/m³, either of which would add a real load where the source has none.
"""
from __future__ import annotations

import functools
import os
from dataclasses import replace

import numpy as np
from pxr import Gf, Sdf, Usd, UsdGeom, UsdPhysics

from ..errors import InputError, UsageError
from ..outputs import USD_LAYER_EXTENSIONS
from .ir import IDENTITY, JointType, Link, Pose, RobotIR
from .mass import inertia_matrix, principal_axes, quat_to_matrix
from .meshes import MeshCache
from .names import unique_child_name
from .report import ConversionReport, EntryKind, Notes
from .usd_writer_batch import BatchedStage
from .usd_writer_couplings import write_gear, write_screw
from .usd_writer_plan import BasePlan, link_poses, plan_base
from .usd_writer_geometry import MaterialLibrary, write_shape, write_shape_spec
from .usd_writer_geometry import specs_writable as shape_specs_writable
from . import usd_writer_specs as specs
from .usd_writer_joints import JointPlacement, specs_writable, write_joint, write_joint_specs
from .usd_writer_extras import write_extras, write_scene
from .usd_writer_surfaces import SurfaceLibrary, write_self_collision_groups

MASSLESS_MASS = 1e-3  # [kg]
MASSLESS_INERTIA = 1e-6  # [kg·m²]
MASS_STAND_IN_KEY = "usdjoints:massStandIn"  # customData on a body given the stand-in above
USD_EXTENSIONS = USD_LAYER_EXTENSIONS  # the endings every command writes a stage layer to


def write_usd(robot: RobotIR, output_path: str | os.PathLike, *, floating_base: bool | None = None,
              input_path: str | None = None, strict: bool = False) -> ConversionReport:
    """Writes ``robot`` to ``output_path`` (.usda/.usdc/.usd) through a temporary file and a rename.

    ``strict``: a warning (e.g. a mesh that cannot be found) raises InputError and nothing is written.
    """
    output = str(output_path)
    in_place = getattr(output_path, "kind", "file") != "file"  # a checked device or FIFO: no ending needed
    if not in_place and not output.lower().endswith(USD_EXTENSIONS):  # as the output check and USD read them
        raise UsageError(f"{output}: the output must end with one of {', '.join(USD_EXTENSIONS)}")
    notes = Notes(robot.notes)
    layer, report_fields = build_layer(robot, floating_base, notes)
    warnings = [e for e in notes.entries if e.kind is EntryKind.WARNING]
    if strict and warnings:
        raise InputError(warnings[0].where, f"{warnings[0].element}: {warnings[0].message}",
                         f"{len(warnings)} warning(s); run without --strict to convert anyway")
    _save(layer, output_path)
    return ConversionReport(input_path=input_path or robot.source.file, output_path=output,
                            robot_name=robot.name, entries=tuple(notes.entries), **report_fields)


def build_stage(robot: RobotIR, floating_base: bool | None, notes: Notes) -> tuple[Usd.Stage, dict]:
    """Authors the robot into a new in-memory stage; returns it with the report's summary fields."""
    layer, fields = build_layer(robot, floating_base, notes)
    return Usd.Stage.Open(layer), fields


def build_layer(robot: RobotIR, floating_base: bool | None, notes: Notes) -> tuple[Sdf.Layer, dict]:
    """Authors the robot into a new anonymous layer; returns it with the report's summary fields.

    Links and joints of the common kinds are written as Sdf specs (usd_writer_specs), the other
    prims through the Usd API on a working stage and parked once finished (see usd_writer_batch),
    so the time grows linearly with the robot's size.
    """
    plan = plan_base(robot, floating_base, notes)
    poses = link_poses(robot, plan)
    batch = BatchedStage()
    stage = batch.stage
    UsdGeom.SetStageMetersPerUnit(stage, 1.0)
    UsdPhysics.SetStageKilogramsPerUnit(stage, 1.0)
    UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.z)
    robot_path = Sdf.Path.absoluteRootPath.AppendChild(unique_child_name(robot.name, {"PhysicsScene"}))
    robot_prim = UsdGeom.Xform.Define(stage, robot_path)
    _name_prim(robot_prim.GetPrim(), robot.name)
    stage.SetDefaultPrim(robot_prim.GetPrim())
    if robot.pose is not None:
        _set_pose(robot_prim, robot.pose)
    scene = UsdPhysics.Scene.Define(stage, "/PhysicsScene")
    write_scene(stage, scene, robot, notes)

    used: set[str] = set()
    link_paths: dict[str, Sdf.Path] = {}
    for link in robot.links:
        if link.name == robot.world_link and link.pose is None and not (link.visuals or link.collisions):
            continue
        link_paths[link.name] = robot_path.AppendChild(unique_child_name(link.name, used))
    body_paths = {name: path for name, path in link_paths.items() if name not in plan.forest.anchors
                  and name != robot.world_link}
    joints_path = robot_path.AppendChild(unique_child_name("joints", used))
    looks = MaterialLibrary(stage, robot_path.AppendChild(unique_child_name("Looks", used)), park=batch.park)
    meshes = MeshCache()
    surfaces = SurfaceLibrary(stage, robot_path.AppendChild(unique_child_name("PhysicsMaterials", used)),
                              park=batch.park)
    for link in robot.links:
        if link.name in link_paths and _specs_writable(link):
            _write_link_specs(batch, link_paths[link.name], link, poses[link.name], robot, notes,
                              rigid=link.name in body_paths, surfaces=surfaces)
        elif link.name in link_paths:
            _write_link(stage, link_paths[link.name], link, poses[link.name], robot, notes, meshes, looks,
                        rigid=link.name in body_paths, surfaces=surfaces)
            batch.park(link_paths[link.name])
        elif link.extras:
            notes.add(EntryKind.DROPPED, str(link.source), f"link {link.name!r}",
                      f"{len(link.extras)} sensor/plugin element(s) of a link that is not written")
    if robot.extras:
        write_extras(stage, robot_path, robot.extras, used, notes, park=batch.park)
    write_self_collision_groups(stage, robot, link_paths, body_paths, robot_path, used, notes, surfaces,
                                editing=batch.editing)
    batch.park_children(robot_path)  # the libraries and groups are finished

    UsdGeom.Scope.Define(stage, joints_path)
    placements = _placements(robot, plan, poses, body_paths, joints_path)
    joint_paths = {p.joint.name: p.path for p in placements}
    tree_paths: dict[str, Sdf.Path] = dict(joint_paths)  # the prim a consumer's tree walk meets
    written = nuts = 0
    gears = []
    for place in placements:
        if place.joint.type is JointType.GEARBOX:
            gears.append(place)
            continue
        if place.joint.type is JointType.SCREW:
            nut_path = robot_path.AppendChild(unique_child_name(f"{place.joint.name}_screw_nut", used))
            nut_pose = poses[place.joint.parent].compose(place.joint.pose_in_parent or IDENTITY)
            screw = write_screw(stage, place, nut_path, nut_pose, robot, notes, joint_paths)
            if screw is not None:
                _name_prim(screw.coupling, place.joint.name)
                tree_paths[place.joint.name] = screw.translation.GetPath()
                written += 1
                nuts += 1
            batch.park_children(joints_path)
            batch.park(nut_path)
            continue
        if specs_writable(place.joint):
            spec = write_joint_specs(batch, place, robot, notes)
            if spec.name != place.joint.name:
                spec.SetInfo("displayName", place.joint.name)  # _name_prim
            written += 1
            continue
        prim = write_joint(stage, place, robot, notes, joint_paths)
        if prim is not None:
            _name_prim(prim, place.joint.name)
            written += 1
        batch.park_children(joints_path)
    for place in gears:
        prim = write_gear(stage, place.joint, place.path, robot, notes, body_paths, joint_paths, poses)
        if prim is not None:
            _name_prim(prim, place.joint.name)
            written += 1
        batch.park_children(joints_path)

    roots = _articulation_roots(stage, robot_prim.GetPrim(), plan, body_paths, tree_paths, robot)
    for path in roots:
        with batch.editing(path) as prim:
            UsdPhysics.ArticulationRootAPI.Apply(prim)
    return batch.finish(), {"fixed_base": plan.fixed_base, "articulation_root": str(roots[0]) if roots else "",
                   "articulation_roots": tuple(str(r) for r in roots),
                   "loop_joints": tuple(sorted(plan.excluded)),
                   "body_count": len(body_paths) + nuts, "joint_count": written}


def _articulation_roots(stage, robot_prim, plan: BasePlan, body_paths, tree_paths, robot) -> list[Sdf.Path]:
    """One root per set of bodies: the robot prim when it is the only set and welded to the world,
    else per set the fixed joint that ties it to the world, or its root body (floating base); none
    for a body no joint connects.

    A set tied to the world by a moving joint (a URDF ``world`` parent of a revolute or prismatic
    joint) is rooted on the body that joint carries: PhysX makes the world joint of an articulation
    rooted on the robot prim or on that joint its fixed base, and the joint never moves (measured
    with ovphysx 0.7); rooted on the body, the joint moves (PhysX holds it beside the articulation,
    OpenUSD's parser and usdjoints as the articulation's first joint)."""
    components = [c for c in plan.components if any(b in body_paths for b in c.bodies)]
    if len(components) == 1 and components[0].fixed_base and not _moving_anchor(components[0]):
        return [robot_prim.GetPath()]
    roots = []
    for component in components:
        if component.fixed_base and _moving_anchor(component):
            roots.append(body_paths[component.bodies[0]])
        elif component.fixed_base:
            roots.append(tree_paths[component.tree[0].name])
        elif not component.tree:
            # a lone body is a rigid body: an articulation root over it gathers no link (OpenUSD's
            # parser elects the body its root yet lists no articulated body; empty-articulation),
            # and a lone kinematic body is moved by its pose
            continue
        else:
            roots.append(body_paths[component.root])
    return roots


def _moving_anchor(component) -> bool:
    """Whether the joint that ties a fixed-base set to the world moves (is not a weld)."""
    return bool(component.tree) and component.tree[0].type is not JointType.FIXED


def _placements(robot, plan: BasePlan, poses, body_paths, joints_path) -> list[JointPlacement]:
    used: set[str] = set()
    placements = []
    robot_pose = robot.pose or IDENTITY
    gearboxes = [j for j in robot.joints if j.type is JointType.GEARBOX]
    tree_order = [j for c in plan.components for j in c.tree]
    loop_order = [j for j in robot.joints if j.name in plan.excluded]
    walked_back = {name for c in plan.components for name in c.reversed_joints}
    for joint in tree_order + loop_order + gearboxes:
        if joint.name in plan.skipped_joints and joint.type is not JointType.GEARBOX:
            continue
        if joint.name in walked_back and joint.name not in plan.excluded:
            joint = _parent_first(joint, body_paths, robot.defaults.axis)
        body0 = body_paths.get(joint.parent)
        pose0 = joint.pose_in_parent or IDENTITY
        if body0 is None:  # the world or a static link: the frame is written in the world
            pose0 = robot_pose.compose(poses[joint.parent]).compose(pose0)
        body1 = body_paths.get(joint.child)
        pose1 = joint.pose_in_child or IDENTITY
        if body1 is None:  # the child cannot move: body1 stays empty (the world), the order is kept
            pose1 = robot_pose.compose(poses[joint.child]).compose(pose1)
            if body0 is None:
                continue
        placements.append(JointPlacement(joint, joints_path.AppendChild(unique_child_name(joint.name, used)),
                                         body0, body1, pose0, pose1, joint.name in plan.excluded))
    return placements


_SCALAR_JOINTS = (JointType.REVOLUTE, JointType.CONTINUOUS, JointType.PRISMATIC, JointType.FIXED)


def _parent_first(joint, body_paths, default_axis):
    """A tree joint the tree walks from its child to its parent (a link that is the child of two
    joints, as turtlebot's rack), written with body0 the tree's parent: Newton refuses a stage whose
    joint points from child to parent. A hinge or slider keeps its coordinate: its two frames swap
    sides and its axis is reversed (body0's motion about -a by q is body1's about a by q), so
    limits, drives, joint states and couplings are unchanged. Other kinds and joints to the world
    are written as the file states them."""
    if joint.type not in _SCALAR_JOINTS or joint.parent not in body_paths or joint.child not in body_paths:
        return joint
    axes = joint.axes
    if joint.type is not JointType.FIXED:
        axes = tuple(replace(axis, xyz=tuple(-c for c in (axis.xyz if axis.xyz is not None else default_axis)))
                     for axis in axes)
    return replace(joint, parent=joint.child, child=joint.parent, pose_in_parent=joint.pose_in_child or IDENTITY,
                   pose_in_child=joint.pose_in_parent or IDENTITY, axes=axes)


def _write_link(stage, path, link: Link, pose: Pose, robot: RobotIR, notes: Notes, meshes, looks, *,
                rigid: bool, surfaces=None) -> None:
    xform = UsdGeom.Xform.Define(stage, path)
    prim = xform.GetPrim()
    _name_prim(prim, link.name)
    _set_pose(xform, pose)
    if rigid:
        body = UsdPhysics.RigidBodyAPI.Apply(prim)
        if link.kinematic:
            body.CreateKinematicEnabledAttr(True)
        if link.gravity is False:
            prim.AddAppliedSchema("PhysxRigidBodyAPI")
            prim.CreateAttribute("physxRigidBody:disableGravity", Sdf.ValueTypeNames.Bool).Set(True)
        _write_velocity_decay(prim, link)
        _write_mass(UsdPhysics.MassAPI.Apply(prim), link, robot, notes)
    used: set[str] = set()
    for kind, shapes in (("visual", link.visuals), ("collision", link.collisions)):
        for index, shape in enumerate(shapes):
            if shape.geometry is None:
                continue
            name = unique_child_name(f"{kind}_{shape.name}" if shape.name else f"{kind}_{index}", used)
            gprim = write_shape(stage, path.AppendChild(name), shape.geometry, shape.origin or IDENTITY,
                                collider=kind == "collision", meshes=meshes, notes=notes,
                                where=str(shape.source), element=f"link {link.name!r} {kind} {index}")
            if gprim is not None and kind == "visual" and shape.material is not None:
                looks.bind(gprim, shape.material, notes, str(shape.source))
            if gprim is not None and kind == "collision" and surfaces is not None:
                surfaces.apply(gprim.GetPrim(), shape, link, rigid, notes)
    if link.extras:
        write_extras(stage, path, link.extras, used, notes)
    if link.custom_data:
        for key, value in link.custom_data.items():
            prim.SetCustomDataByKey(key, value)


def _specs_writable(link: Link) -> bool:
    """Whether :func:`_write_link_specs` writes this link (else :func:`_write_link` does): shapes
    of the kinds usd_writer_specs writes, without materials, surfaces or densities, and no
    sensors or plugins, custom data of plain values only."""
    if link.extras or not all(isinstance(v, (bool, int, float, str)) for v in link.custom_data.values()):
        return False
    if any(v.geometry is not None and (v.material is not None or not shape_specs_writable(v.geometry))
           for v in link.visuals):
        return False
    return all(c.surface is None and c.density is None
               and (c.geometry is None or shape_specs_writable(c.geometry)) for c in link.collisions)


def _write_link_specs(batch: BatchedStage, path, link: Link, pose: Pose, robot: RobotIR, notes: Notes, *,
                      rigid: bool, surfaces=None) -> None:
    """:func:`_write_link` for a link :func:`_specs_writable` accepts, as Sdf specs written into the
    batch's parked layer (usd_writer_specs): the same specs, report entries and order."""
    spec = batch.author(path, "Xform")
    if path.name != link.name:
        spec.SetInfo("displayName", link.name)  # _name_prim
    specs.xform_ops(spec, Gf.Vec3d(*pose.position), Gf.Quatd(*pose.orientation))  # _set_pose
    if rigid:
        schemas = ["PhysicsRigidBodyAPI"]
        if link.kinematic:
            specs.attribute(spec, "physics:kinematicEnabled", True)
        if link.gravity is False:
            schemas.append("PhysxRigidBodyAPI")
            specs.attribute(spec, "physxRigidBody:disableGravity", True)
        for tag in ("linear", "angular"):  # _write_velocity_decay
            value = link.custom_data.get(f"sdformat:velocity_decay_{tag}")
            if value is not None:
                if "PhysxRigidBodyAPI" not in schemas:
                    schemas.append("PhysxRigidBodyAPI")
                specs.attribute(spec, f"physxRigidBody:{tag}Damping", float(value))
        schemas.append("PhysicsMassAPI")
        specs.apply_schemas(spec, schemas)
        values = mass_values(link, robot, notes)
        if values is not None:
            mass, center, moments, axes, stand_in = values
            specs.attribute(spec, "physics:mass", mass)
            specs.attribute(spec, "physics:centerOfMass", center)
            if moments is not None:
                specs.attribute(spec, "physics:diagonalInertia", moments)
                specs.attribute(spec, "physics:principalAxes", axes)
            if stand_in:
                specs.custom_data(spec, MASS_STAND_IN_KEY, True)
    used: set[str] = set()
    for kind, shapes in (("visual", link.visuals), ("collision", link.collisions)):
        for index, shape in enumerate(shapes):
            if shape.geometry is None:
                continue
            name = unique_child_name(f"{kind}_{shape.name}" if shape.name else f"{kind}_{index}", used)
            write_shape_spec(spec, name, shape.geometry, shape.origin or IDENTITY, collider=kind == "collision")
            if kind == "collision" and surfaces is not None:
                surfaces.plain_collider(path.AppendChild(name))
    for key, value in link.custom_data.items():
        specs.custom_data(spec, key, value)


def _write_velocity_decay(prim, link: Link) -> None:
    """SDFormat velocity_decay (a velocity-proportional decay per second) as PhysX body damping."""
    for tag in ("linear", "angular"):
        value = link.custom_data.get(f"sdformat:velocity_decay_{tag}")
        if value is not None:
            prim.AddAppliedSchema("PhysxRigidBodyAPI")
            prim.CreateAttribute(f"physxRigidBody:{tag}Damping", Sdf.ValueTypeNames.Float).Set(float(value))


def _write_mass(mass_api: UsdPhysics.MassAPI, link: Link, robot: RobotIR, notes: Notes) -> None:
    values = mass_values(link, robot, notes)
    if values is None:
        return
    mass, center, moments, axes, stand_in = values
    mass_api.CreateMassAttr(mass)
    mass_api.CreateCenterOfMassAttr(center)
    if moments is not None:
        mass_api.CreateDiagonalInertiaAttr(moments)
        mass_api.CreatePrincipalAxesAttr(axes)
    if stand_in:
        # says the source had no mass here, so a reduced-coordinate consumer that welds this body
        # to its parent can drop the stand-in and keep the source's dynamics exactly
        mass_api.GetPrim().SetCustomDataByKey(MASS_STAND_IN_KEY, True)


def mass_values(link: Link, robot: RobotIR, notes: Notes):
    """The MassAPI values of a rigid link (mass, centre of mass, principal moments, principal axes,
    whether they are the massless stand-in), with their report entries; None when no mass is
    written (the colliders' density gives it)."""
    inertial = link.inertial
    where = str(inertial.source if inertial else link.source)
    mass = None if inertial is None else inertial.mass
    if any(c.density is not None for c in link.collisions) and (inertial is None or inertial.mass is None):
        # the colliders' density gives the mass: PhysX integrates it over their volume
        notes.add(EntryKind.CHOICE, where, f"link {link.name!r} mass",
                  "no mass written: the colliders' <density> gives it (PhysX computes mass from volume)")
        return None
    if inertial is not None and mass is None:
        notes.add(EntryKind.DEFAULT, where, f"link {link.name!r} mass",
                  f"not written; the {robot.defaults.format} default {robot.defaults.mass} kg is used")
        mass = robot.defaults.mass
    if mass is None or mass <= 0.0:
        why = "no <inertial>" if inertial is None else "mass 0"
        notes.add(EntryKind.CHOICE, where, f"link {link.name!r} mass",
                  f"{why}: written as {MASSLESS_MASS} kg, {MASSLESS_INERTIA} kg·m² per axis "
                  "(consumers would otherwise substitute 1 kg or collider-based mass)")
        return (MASSLESS_MASS, Gf.Vec3f(0.0, 0.0, 0.0),
                Gf.Vec3f(MASSLESS_INERTIA, MASSLESS_INERTIA, MASSLESS_INERTIA), Gf.Quatf(1.0), True)
    origin = inertial.origin or IDENTITY
    inertia = inertial.inertia
    if inertia is None:
        notes.add(EntryKind.DEFAULT, where, f"link {link.name!r} inertia",
                  f"not written; the {robot.defaults.format} default is used")
        inertia = robot.defaults.inertia
    # repr tells -0.0 from 0.0, which the decomposition may carry into the axes' signs
    principal = _principal_in_link(repr((origin.orientation, inertia)), origin.orientation, inertia)
    if principal is None:  # finite moments near 1e308 can overflow when rotated
        raise InputError(where, f"the inertia of link {link.name!r} overflows in the link frame "
                         "(its moments are too large for double precision)")
    moments, axes = principal
    indefinite = min(moments) < -1e-12 * max(1.0, max(moments))
    if indefinite:
        notes.add(EntryKind.WARNING, where, f"link {link.name!r} inertia",
                  f"not positive semi-definite (principal moments {moments})")
    if max(abs(m) for m in moments) == 0.0:
        # (0, 0, 0) is the schema's fallback, "compute it from the colliders", as PhysX reads it
        # (tests/sim/test_zero_inertia_physx.py); left unauthored it means the same, and OpenUSD's
        # RigidBodyChecker wants principalAxes and diagonalInertia both in range or neither
        notes.add(EntryKind.WARNING, where, f"link {link.name!r} inertia",
                  "all zero: not written, so UsdPhysics consumers derive it from the colliders")
        return float(mass), Gf.Vec3f(*origin.position), None, None, False
    a, b, c = sorted(moments)
    if not indefinite and a <= 0.0:
        notes.add(EntryKind.WARNING, where, f"link {link.name!r} inertia",
                  f"principal moments {tuple(float(m) for m in moments)} include a zero: written as given, as "
                  "pinocchio takes them; OpenUSD's RigidBodyChecker reports it, and PhysX rejects it on an "
                  "articulation link, which then turns with PhysX's default inertia, 1 stage unit about each axis")
    elif not indefinite and c > (a + b) * (1.0 + 1e-6):
        notes.add(EntryKind.WARNING, where, f"link {link.name!r} inertia",
                  f"principal moments {tuple(float(m) for m in moments)} are not a rigid body's (the largest "
                  "exceeds the sum of the other two): written as given, as pinocchio and PhysX take them")
    return (float(mass), Gf.Vec3f(*origin.position), Gf.Vec3f(*moments),
            Gf.Quatf(float(axes[0]), Gf.Vec3f(*axes[1:])), False)


@functools.lru_cache(maxsize=1024)  # robots repeat links: a chain's 40,000 links share one inertial
def _principal_in_link(key: str, orientation, inertia):
    """The principal moments and axes (principal_axes) of ``inertia`` given in a frame rotated by
    ``orientation`` from the link frame, in the link frame; None when the rotated tensor overflows.
    ``key`` is the arguments' repr, so equal floats of another sign (-0.0) are other entries."""
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is refused by the caller
        tensor_link = quat_to_matrix(orientation) @ inertia_matrix(inertia) @ quat_to_matrix(orientation).T
    if not np.isfinite(tensor_link).all():
        return None
    return principal_axes(tensor_link)


def _set_pose(xformable: UsdGeom.Xformable, pose: Pose) -> None:
    # double precision: float32 would limit positions to ~1e-7 relative (1e-6 m at 10 m)
    xformable.AddTranslateOp(UsdGeom.XformOp.PrecisionDouble).Set(Gf.Vec3d(*pose.position))
    xformable.AddOrientOp(UsdGeom.XformOp.PrecisionDouble).Set(Gf.Quatd(*pose.orientation))


def _name_prim(prim: Usd.Prim, source_name: str) -> None:
    if prim.GetName() != source_name:
        prim.SetDisplayName(source_name)


def _save(layer: Sdf.Layer, output) -> None:
    from ..outputs import write_file

    def export(temporary: str) -> None:
        if not layer.Export(temporary):
            raise UsageError(f"{output}: cannot write the USD layer")

    write_file(output, export, "-o")  # checked, temporary file beside it, renamed; umask honoured


__all__ = ["write_usd", "build_stage", "build_layer", "link_poses", "plan_base", "BasePlan"]
