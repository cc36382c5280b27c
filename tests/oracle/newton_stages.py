"""Small generated stages, one per rule of how Newton 1.8 reads joints (units, unauthored defaults,
one-sided limits, D6 axes, merged pairs, acceleration drives, world side, free joints, disabled,
excluded and coupling joints, and each shape that makes Newton refuse a stage).

``write_all(dir)`` writes them; tests/oracle/test_walk_vs_newton.py reads each back through Newton
and compares with the walker's ``newton`` reading. REFUSED names the stages Newton refuses.
"""
from __future__ import annotations

import math
from pathlib import Path

from pxr import Gf, Sdf, Usd, UsdGeom, UsdPhysics

# Measured: Newton 1.8 refuses each of these stages as a whole (the test checks it still does).
REFUSED = {
    "disabled_body": "a joint to a disabled body reads as a joint to the world: a cycle through the world",
    "kinematic_below": "a kinematic body below the root",
    "loop_cycle": "a loop without excludeFromArticulation",
    "merged_bad": "a spherical joint on a body pair a revolute joint also joins",
    "weld_two": "two fixed joints on one body pair",
    "no_root_chain": "a body-to-body joint outside any articulation",
    "standalone_pair": "a body-to-body joint outside any articulation",
    "reversed": "a joint from child to parent",
    "same_body": "both sides on one body",
    "multi_root_float": "two floating parts under one articulation root",
}


def stage(path, mpu=1.0):
    s = Usd.Stage.CreateNew(path)
    UsdGeom.SetStageMetersPerUnit(s, mpu); UsdGeom.SetStageUpAxis(s, "Z")
    UsdGeom.Xform.Define(s, "/World"); s.SetDefaultPrim(s.GetPrimAtPath("/World"))
    UsdPhysics.Scene.Define(s, "/World/scene")
    return s

def body(s, path, z=0.0, kinematic=False, enabled=True, collider=True):
    c = UsdGeom.Cube.Define(s, path); c.CreateSizeAttr(0.1)
    c.AddTranslateOp().Set(Gf.Vec3d(0, 0, z))
    rb = UsdPhysics.RigidBodyAPI.Apply(c.GetPrim())
    if kinematic: rb.CreateKinematicEnabledAttr(True)
    if not enabled: rb.CreateRigidBodyEnabledAttr(False)
    m = UsdPhysics.MassAPI.Apply(c.GetPrim()); m.CreateMassAttr(1.0); m.CreateDiagonalInertiaAttr(Gf.Vec3f(0.01,0.01,0.01)); m.CreatePrincipalAxesAttr(Gf.Quatf(1, 0, 0, 0))
    if collider: UsdPhysics.CollisionAPI.Apply(c.GetPrim())
    return c.GetPrim()

def joint(s, path, kind, b0, b1, z0=0.0, z1=0.0, axis="X"):
    J = {"rev": UsdPhysics.RevoluteJoint, "pri": UsdPhysics.PrismaticJoint, "sph": UsdPhysics.SphericalJoint,
         "fix": UsdPhysics.FixedJoint, "dist": UsdPhysics.DistanceJoint, "d6": UsdPhysics.Joint}[kind]
    j = J.Define(s, path)
    if b0: j.CreateBody0Rel().SetTargets([b0])
    if b1: j.CreateBody1Rel().SetTargets([b1])
    j.CreateLocalPos0Attr(Gf.Vec3f(0, 0, z0)); j.CreateLocalPos1Attr(Gf.Vec3f(0, 0, z1))
    if kind in ("rev", "pri"): j.CreateAxisAttr(axis)
    return j

def drive(j, inst, ke, kd, maxf=None, typ=None):
    d = UsdPhysics.DriveAPI.Apply(j.GetPrim(), inst)
    d.CreateStiffnessAttr(ke); d.CreateDampingAttr(kd)
    if maxf is not None: d.CreateMaxForceAttr(maxf)
    if typ: d.CreateTypeAttr(typ)

def limit(j, inst, lo, hi):
    l = UsdPhysics.LimitAPI.Apply(j.GetPrim(), inst); l.CreateLowAttr(lo); l.CreateHighAttr(hi)

def chain(s, n=2, root="/World/R"):
    """root Xform with ArticulationRootAPI, bodies L0..L{n-1}, L0 welded to world."""
    UsdGeom.Xform.Define(s, root); UsdPhysics.ArticulationRootAPI.Apply(s.GetPrimAtPath(root))
    bs = [body(s, f"{root}/L{i}", z=0.2 * i) for i in range(n)]
    joint(s, f"{root}/weld", "fix", None, bs[0].GetPath())
    return bs


def write_all(out: Path) -> list[Path]:
    """Write every probe stage into ``out``; returns their paths."""
    out.mkdir(parents=True, exist_ok=True)

    def new(name, mpu=1.0):
        return stage(str(out / (name + ".usda")), mpu)


    s = new("rev_units"); b = chain(s); j = joint(s, "/World/R/j", "rev", b[0].GetPath(), b[1].GetPath(), 0.1, -0.1)
    j.CreateLowerLimitAttr(-45); j.CreateUpperLimitAttr(30); drive(j, "angular", 10.0, 1.0, 5.0); s.Save()
    s = new("rev_bare"); b = chain(s); joint(s, "/World/R/j", "rev", b[0].GetPath(), b[1].GetPath(), 0.1, -0.1); s.Save()
    s = new("rev_drive_nomax"); b = chain(s); j = joint(s, "/World/R/j", "rev", b[0].GetPath(), b[1].GetPath(), 0.1, -0.1); drive(j, "angular", 10.0, 1.0); s.Save()
    s = new("rev_onesided"); b = chain(s); j = joint(s, "/World/R/j", "rev", b[0].GetPath(), b[1].GetPath(), 0.1, -0.1); j.CreateLowerLimitAttr(-30); s.Save()
    s = new("rev_onesided_hi"); b = chain(s); j = joint(s, "/World/R/j", "rev", b[0].GetPath(), b[1].GetPath(), 0.1, -0.1); j.CreateUpperLimitAttr(20); s.Save()
    s = new("rev_inverted"); b = chain(s); j = joint(s, "/World/R/j", "rev", b[0].GetPath(), b[1].GetPath(), 0.1, -0.1); j.CreateLowerLimitAttr(30); j.CreateUpperLimitAttr(-30); s.Save()
    s = new("pri_cm", 0.01); b = chain(s); j = joint(s, "/World/R/j", "pri", b[0].GetPath(), b[1].GetPath(), 10, -10); j.CreateLowerLimitAttr(-5); j.CreateUpperLimitAttr(7); drive(j, "linear", 100.0, 2.0, 50.0); s.Save()
    s = new("pri_bare"); b = chain(s); joint(s, "/World/R/j", "pri", b[0].GetPath(), b[1].GetPath(), 0.1, -0.1); s.Save()
    s = new("rev_accel"); b = chain(s); j = joint(s, "/World/R/j", "rev", b[0].GetPath(), b[1].GetPath(), 0.1, -0.1); drive(j, "angular", 10.0, 1.0, 5.0, "acceleration"); s.Save()
    s = new("rev_newton_attrs"); b = chain(s); j = joint(s, "/World/R/j", "rev", b[0].GetPath(), b[1].GetPath(), 0.1, -0.1)
    p = j.GetPrim(); p.CreateAttribute("newton:armature", Sdf.ValueTypeNames.Float).Set(0.25); p.CreateAttribute("newton:friction", Sdf.ValueTypeNames.Float).Set(0.5); p.CreateAttribute("newton:velocityLimit", Sdf.ValueTypeNames.Float).Set(90.0); s.Save()
    s = new("rev_physx_axis"); b = chain(s); j = joint(s, "/World/R/j", "rev", b[0].GetPath(), b[1].GetPath(), 0.1, -0.1)
    p = j.GetPrim(); p.CreateAttribute("physxJointAxis:angular:armature", Sdf.ValueTypeNames.Float).Set(0.25); p.CreateAttribute("physxJointAxis:angular:maxJointVelocity", Sdf.ValueTypeNames.Float).Set(90.0); p.CreateAttribute("physxJoint:armature", Sdf.ValueTypeNames.Float).Set(0.3); p.CreateAttribute("physxJoint:maxJointVelocity", Sdf.ValueTypeNames.Float).Set(45.0); p.CreateAttribute("physxJoint:jointFriction", Sdf.ValueTypeNames.Float).Set(0.7); s.Save()
    s = new("pri_newton_attrs"); b = chain(s); j = joint(s, "/World/R/j", "pri", b[0].GetPath(), b[1].GetPath(), 0.1, -0.1)
    p = j.GetPrim(); p.CreateAttribute("newton:armature", Sdf.ValueTypeNames.Float).Set(0.25); p.CreateAttribute("newton:velocityLimit", Sdf.ValueTypeNames.Float).Set(2.0); s.Save()
    s = new("sph_cone"); b = chain(s); j = joint(s, "/World/R/j", "sph", b[0].GetPath(), b[1].GetPath(), 0.1, -0.1); j.CreateConeAngle0LimitAttr(30); j.CreateConeAngle1LimitAttr(20); s.Save()
    s = new("sph_bare"); b = chain(s); joint(s, "/World/R/j", "sph", b[0].GetPath(), b[1].GetPath(), 0.1, -0.1); s.Save()
    s = new("dist"); b = chain(s); j = joint(s, "/World/R/j", "dist", b[0].GetPath(), b[1].GetPath(), 0.1, -0.1); j.CreateMinDistanceAttr(0.05); j.CreateMaxDistanceAttr(0.3); s.Save()
    s = new("dist_open"); b = chain(s); j = joint(s, "/World/R/j", "dist", b[0].GetPath(), b[1].GetPath(), 0.1, -0.1); j.CreateMaxDistanceAttr(0.3); s.Save()
    s = new("d6_mixed"); b = chain(s); j = joint(s, "/World/R/j", "d6", b[0].GetPath(), b[1].GetPath(), 0.1, -0.1)
    limit(j, "rotX", -20, 40); limit(j, "transX", 1, -1); limit(j, "transY", -0.1, 0.2); drive(j, "rotX", 3.0, 0.3, 7.0); drive(j, "rotZ", 4.0, 0.4, 8.0); drive(j, "transY", 50.0, 5.0); s.Save()
    s = new("d6_none"); b = chain(s); joint(s, "/World/R/j", "d6", b[0].GetPath(), b[1].GetPath(), 0.1, -0.1); s.Save()
    s = new("d6_open_limit"); b = chain(s); j = joint(s, "/World/R/j", "d6", b[0].GetPath(), b[1].GetPath(), 0.1, -0.1); limit(j, "rotY", -math.inf, math.inf); limit(j, "rotZ", -10, math.inf); s.Save()
    s = new("d6_equal"); b = chain(s); j = joint(s, "/World/R/j", "d6", b[0].GetPath(), b[1].GetPath(), 0.1, -0.1); limit(j, "rotY", 0, 0); limit(j, "rotZ", -5, 5); s.Save()
    s = new("merged_pair"); b = chain(s); j = joint(s, "/World/R/jx", "rev", b[0].GetPath(), b[1].GetPath(), 0.1, -0.1, "X"); j.CreateLowerLimitAttr(-10); j.CreateUpperLimitAttr(10); drive(j, "angular", 2.0, 0.2, 3.0)
    j = joint(s, "/World/R/jy", "rev", b[0].GetPath(), b[1].GetPath(), 0.1, -0.1, "Y"); j.CreateLowerLimitAttr(-20); j.CreateUpperLimitAttr(25); drive(j, "angular", 5.0, 0.5, 6.0); s.Save()
    s = new("merged_three"); b = chain(s)
    for ax in "ZXY":
        j = joint(s, f"/World/R/j{ax}", "rev", b[0].GetPath(), b[1].GetPath(), 0.1, -0.1, ax)
    j = joint(s, "/World/R/jp", "pri", b[0].GetPath(), b[1].GetPath(), 0.1, -0.1, "Z"); j.CreateLowerLimitAttr(-0.1); j.CreateUpperLimitAttr(0.1); s.Save()
    s = new("merged_bad"); b = chain(s); joint(s, "/World/R/ja", "rev", b[0].GetPath(), b[1].GetPath(), 0.1, -0.1); joint(s, "/World/R/jb", "sph", b[0].GetPath(), b[1].GetPath(), 0.1, -0.1); s.Save()
    s = new("merged_same_axis"); b = chain(s); joint(s, "/World/R/ja", "rev", b[0].GetPath(), b[1].GetPath(), 0.1, -0.1); joint(s, "/World/R/jb", "rev", b[0].GetPath(), b[1].GetPath(), 0.1, -0.1); s.Save()
    s = new("world_side1"); UsdGeom.Xform.Define(s, "/World/R"); UsdPhysics.ArticulationRootAPI.Apply(s.GetPrimAtPath("/World/R"))
    b0 = body(s, "/World/R/L0"); b1 = body(s, "/World/R/L1", 0.2); joint(s, "/World/R/weld", "rev", b0.GetPath(), None, 0.0, 0.0, "Z")
    joint(s, "/World/R/j", "rev", b0.GetPath(), b1.GetPath(), 0.1, -0.1); s.Save()
    s = new("reversed"); b = chain(s, 3); joint(s, "/World/R/j1", "rev", b[0].GetPath(), b[1].GetPath(), 0.1, -0.1); joint(s, "/World/R/j2", "rev", b[2].GetPath(), b[1].GetPath(), -0.1, 0.1); s.Save()
    s = new("floating"); UsdGeom.Xform.Define(s, "/World/R"); UsdPhysics.ArticulationRootAPI.Apply(s.GetPrimAtPath("/World/R"))
    b0 = body(s, "/World/R/L0"); b1 = body(s, "/World/R/L1", 0.2); joint(s, "/World/R/j", "rev", b0.GetPath(), b1.GetPath(), 0.1, -0.1); s.Save()
    s = new("lone_body"); body(s, "/World/B"); s.Save()
    s = new("lone_with_world_joint"); b0 = body(s, "/World/B"); joint(s, "/World/j", "rev", None, b0.GetPath()); s.Save()
    s = new("standalone_pair"); b0 = body(s, "/World/A"); b1 = body(s, "/World/B", 0.2); joint(s, "/World/j", "rev", b0.GetPath(), b1.GetPath(), 0.1, -0.1); s.Save()
    s = new("same_body"); b = chain(s); joint(s, "/World/R/j", "rev", b[1].GetPath(), b[1].GetPath()); s.Save()
    s = new("disabled_joint"); b = chain(s); j = joint(s, "/World/R/j", "rev", b[0].GetPath(), b[1].GetPath(), 0.1, -0.1); j.CreateJointEnabledAttr(False); s.Save()
    s = new("loop_excluded"); b = chain(s, 3); joint(s, "/World/R/j1", "rev", b[0].GetPath(), b[1].GetPath(), 0.1, -0.1); joint(s, "/World/R/j2", "rev", b[1].GetPath(), b[2].GetPath(), 0.1, -0.1)
    j = joint(s, "/World/R/j3", "rev", b[0].GetPath(), b[2].GetPath(), 0.2, -0.2); j.CreateExcludeFromArticulationAttr(True); s.Save()
    s = new("loop_cycle"); b = chain(s, 3); joint(s, "/World/R/j1", "rev", b[0].GetPath(), b[1].GetPath(), 0.1, -0.1); joint(s, "/World/R/j2", "rev", b[1].GetPath(), b[2].GetPath(), 0.1, -0.1)
    joint(s, "/World/R/j3", "rev", b[0].GetPath(), b[2].GetPath(), 0.2, -0.2); s.Save()
    s = new("two_roots"); b = chain(s, 2, "/World/R"); joint(s, "/World/R/j", "rev", b[0].GetPath(), b[1].GetPath(), 0.1, -0.1)
    c = chain(s, 2, "/World/Q"); joint(s, "/World/Q/j", "rev", c[0].GetPath(), c[1].GetPath(), 0.1, -0.1); s.Save()
    s = new("nested_roots"); b = chain(s, 2, "/World/R"); joint(s, "/World/R/j", "rev", b[0].GetPath(), b[1].GetPath(), 0.1, -0.1)
    UsdPhysics.ArticulationRootAPI.Apply(b[1]); s.Save()
    s = new("kinematic_below"); UsdGeom.Xform.Define(s, "/World/R"); UsdPhysics.ArticulationRootAPI.Apply(s.GetPrimAtPath("/World/R"))
    b0 = body(s, "/World/R/L0"); b1 = body(s, "/World/R/L1", 0.2, kinematic=True); joint(s, "/World/R/weld", "fix", None, b0.GetPath()); joint(s, "/World/R/j", "rev", b0.GetPath(), b1.GetPath(), 0.1, -0.1); s.Save()
    s = new("kinematic_root"); UsdGeom.Xform.Define(s, "/World/R"); UsdPhysics.ArticulationRootAPI.Apply(s.GetPrimAtPath("/World/R"))
    b0 = body(s, "/World/R/L0", kinematic=True); b1 = body(s, "/World/R/L1", 0.2); joint(s, "/World/R/j", "rev", b0.GetPath(), b1.GetPath(), 0.1, -0.1); s.Save()
    s = new("disabled_body"); b = chain(s, 3); joint(s, "/World/R/j1", "rev", b[0].GetPath(), b[1].GetPath(), 0.1, -0.1); joint(s, "/World/R/j2", "rev", b[1].GetPath(), b[2].GetPath(), 0.1, -0.1)
    UsdPhysics.RigidBodyAPI(b[2]).CreateRigidBodyEnabledAttr(False); s.Save()
    # flat siblings with root API on base body
    s = new("root_on_body"); b0 = body(s, "/World/L0"); UsdPhysics.ArticulationRootAPI.Apply(b0); b1 = body(s, "/World/L1", 0.2)
    joint(s, "/World/weld", "fix", None, b0.GetPath()); joint(s, "/World/j", "rev", b0.GetPath(), b1.GetPath(), 0.1, -0.1); s.Save()
    s = new("no_root_chain"); b0 = body(s, "/World/L0"); b1 = body(s, "/World/L1", 0.2)
    joint(s, "/World/weld", "fix", None, b0.GetPath()); joint(s, "/World/j", "rev", b0.GetPath(), b1.GetPath(), 0.1, -0.1); s.Save()
    s = new("multi_root_float"); UsdGeom.Xform.Define(s, "/World/R"); UsdPhysics.ArticulationRootAPI.Apply(s.GetPrimAtPath("/World/R"))
    b0 = body(s, "/World/R/A0"); b1 = body(s, "/World/R/A1", 0.2); joint(s, "/World/R/ja", "rev", b0.GetPath(), b1.GetPath(), 0.1, -0.1)
    c0 = body(s, "/World/R/B0", 1.0); c1 = body(s, "/World/R/B1", 1.2); joint(s, "/World/R/jb", "rev", c0.GetPath(), c1.GetPath(), 0.1, -0.1); s.Save()
    s = new("multi_root_fixed"); UsdGeom.Xform.Define(s, "/World/R"); UsdPhysics.ArticulationRootAPI.Apply(s.GetPrimAtPath("/World/R"))
    b0 = body(s, "/World/R/A0"); b1 = body(s, "/World/R/A1", 0.2); joint(s, "/World/R/ja", "rev", b0.GetPath(), b1.GetPath(), 0.1, -0.1); joint(s, "/World/R/wa", "fix", None, b0.GetPath())
    c0 = body(s, "/World/R/B0", 1.0); c1 = body(s, "/World/R/B1", 1.2); joint(s, "/World/R/jb", "rev", c0.GetPath(), c1.GetPath(), 0.1, -0.1); joint(s, "/World/R/wb", "fix", None, c0.GetPath()); s.Save()
    s = new("sentinel"); b = chain(s); j = joint(s, "/World/R/j", "rev", b[0].GetPath(), b[1].GetPath(), 0.1, -0.1); j.CreateLowerLimitAttr(-1e16); j.CreateUpperLimitAttr(1e38); s.Save()
    s = new("pri_sentinel"); b = chain(s); j = joint(s, "/World/R/j", "pri", b[0].GetPath(), b[1].GetPath(), 0.1, -0.1); j.CreateLowerLimitAttr(-1e16); j.CreateUpperLimitAttr(math.inf); s.Save()
    s = new("weld_two"); b = chain(s); joint(s, "/World/R/weld2", "fix", None, b[0].GetPath()); joint(s, "/World/R/j", "rev", b[0].GetPath(), b[1].GetPath(), 0.1, -0.1); s.Save()
    s = new("world_both_sides"); b = chain(s); joint(s, "/World/R/j", "rev", b[0].GetPath(), b[1].GetPath(), 0.1, -0.1); joint(s, "/World/R/jw", "rev", None, None); s.Save()
    s = new("excluded_only"); b = chain(s); j = joint(s, "/World/R/j", "rev", b[0].GetPath(), b[1].GetPath(), 0.1, -0.1); j.CreateExcludeFromArticulationAttr(True); s.Save()
    s = new("d6_drive_maxf"); b = chain(s); j = joint(s, "/World/R/j", "d6", b[0].GetPath(), b[1].GetPath(), 0.1, -0.1); limit(j, "rotX", -1, 1); limit(j, "transZ", -1, 1); drive(j, "transZ", 5.0, 1.0, 9.0); limit(j, "rotZ", -math.inf, 3); s.Save()
    s = new("sph_drive"); b = chain(s); j = joint(s, "/World/R/j", "sph", b[0].GetPath(), b[1].GetPath(), 0.1, -0.1); drive(j, "rotX", 5.0, 1.0, 9.0); s.Save()
    s = new("merged_rev_pri"); b = chain(s); j = joint(s, "/World/R/a", "pri", b[0].GetPath(), b[1].GetPath(), 0.1, -0.1, "Y"); drive(j, "linear", 7.0, 0.7)
    j = joint(s, "/World/R/b", "rev", b[0].GetPath(), b[1].GetPath(), 0.1, -0.1, "Z"); j.CreateLowerLimitAttr(-10); drive(j, "angular", 2.0, 0.2, 3.0)
    p = j.GetPrim(); p.CreateAttribute("newton:armature", Sdf.ValueTypeNames.Float).Set(0.25); p.CreateAttribute("newton:velocityLimit", Sdf.ValueTypeNames.Float).Set(90.0); s.Save()
    s = new("d6_newton_attrs"); b = chain(s); j = joint(s, "/World/R/j", "d6", b[0].GetPath(), b[1].GetPath(), 0.1, -0.1); limit(j, "rotX", -1, 1); limit(j, "transZ", -1, 1)
    p = j.GetPrim(); p.CreateAttribute("newton:armature", Sdf.ValueTypeNames.Float).Set(0.25); p.CreateAttribute("newton:velocityLimit", Sdf.ValueTypeNames.Float).Set(90.0); p.CreateAttribute("newton:friction", Sdf.ValueTypeNames.Float).Set(0.1); s.Save()
    s = new("sph_newton_attrs"); b = chain(s); j = joint(s, "/World/R/j", "sph", b[0].GetPath(), b[1].GetPath(), 0.1, -0.1)
    p = j.GetPrim(); p.CreateAttribute("newton:armature", Sdf.ValueTypeNames.Float).Set(0.25); p.CreateAttribute("newton:velocityLimit", Sdf.ValueTypeNames.Float).Set(90.0); s.Save()
    # a body with neither mass nor collider: loaded, but given no free joint (and one with a mass is)
    for name, mass in (("ghost_body", None), ("ghost_body_with_mass", 1.0)):
        s = new(name)
        ghost = UsdGeom.Xform.Define(s, "/World/G").GetPrim()
        UsdPhysics.RigidBodyAPI.Apply(ghost)
        if mass is not None:
            UsdPhysics.MassAPI.Apply(ghost).CreateMassAttr(mass)
        s.Save()
    return sorted(out.glob("*.usda"))
