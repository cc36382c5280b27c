"""Contact surfaces and collision filtering of SDFormat colliders, as PhysX reads them.

* ``surface/friction`` and ``surface/bounce`` become a UsdShade material with
  PhysicsMaterialAPI bound to the collider for purpose ``physics``: static and dynamic friction
  are both SDFormat's Coulomb ``mu`` (ODE's single coefficient; an unwritten mu is the spec's
  1.0), restitution is ``restitution_coefficient`` (spec 0). PhysX averages two touching
  materials' coefficients by default; ODE multiplies them (reported once per conversion).
  Colliders without a ``<surface>`` get no material (PhysX's default material applies).
* ``collide_without_contact``: the collider has no contact response; written with
  ``physics:collisionEnabled = false``.
* ``collide_bitmask``: two colliders collide when their masks share a bit (unwritten: 0xff).
  Each distinct mask is one PhysicsCollisionGroup; groups whose masks share no bit filter each
  other.
* ``self_collide`` (link, defaulting to the model's; spec default false): two links of one
  model collide when either has it true. Each pair of bodies of one model that both have it
  false gets a PhysicsFilteredPairsAPI entry (on the first of the two). Without it PhysX lets
  every pair collide (articulation self-collision is on by default). Pairs grow as the square
  of the links (a 5,000-link chain wrote 12.5 million targets, 50 MB): above
  ``MAX_FILTERED_PAIR_LINKS`` links the model's links are one PhysicsCollisionGroup that
  filters itself instead (the same pairs filtered; used only when no ``collide_bitmask`` group
  is written, since PhysX counts a collider's first group alone).
* ``<density>`` is MassAPI density on the collider (used for the mass when the link has none).
"""
from __future__ import annotations

from contextlib import nullcontext
from itertools import combinations

from pxr import Sdf, Usd, UsdGeom, UsdPhysics, UsdShade

from .names import unique_child_name
from .report import EntryKind, Notes

#: Most links of one model written as filtered pairs (64 links: 2,016 pairs) before a group.
MAX_FILTERED_PAIR_LINKS = 64
#: SDFormat's documented ODE friction coefficient.
SPEC_MU = 1.0
DEFAULT_BITMASK = 0xFF


class SurfaceLibrary:
    def __init__(self, stage: Usd.Stage, path: Sdf.Path, park=None):
        self.stage = stage
        self._park = park  # called with each material's path once it is written (BatchedStage.park)
        self.path = path
        self._materials: dict[tuple, UsdShade.Material] = {}
        self._names: set[str] = set()
        self._combine_noted = False
        self.masks: dict[int, list[Sdf.Path]] = {}
        self.any_mask = False

    def apply(self, prim: Usd.Prim, collision, link, rigid: bool, notes: Notes) -> None:
        surface = getattr(collision, "surface", None)
        density = getattr(collision, "density", None)
        where = str(collision.source)
        if density is not None:
            if density <= 0.0:
                notes.add(EntryKind.WARNING, where, f"link {link.name!r} collision density",
                          f"{density} kg/m³ is not positive; not written")
            else:
                UsdPhysics.MassAPI.Apply(prim).CreateDensityAttr(float(density))
        if surface is None:
            self.plain_collider(prim.GetPath())
            return
        mask = DEFAULT_BITMASK if surface.collide_bitmask is None else surface.collide_bitmask
        self.masks.setdefault(mask, []).append(prim.GetPath())
        self.any_mask = self.any_mask or surface.collide_bitmask is not None
        if surface.collide_without_contact:
            UsdPhysics.CollisionAPI(prim).CreateCollisionEnabledAttr(False)
            notes.add(EntryKind.CHOICE, str(surface.source), f"link {link.name!r} collision",
                      "collide_without_contact: written with collisionEnabled false (no contact response)")
        if surface.static_friction is None and surface.restitution is None:
            return
        mu = SPEC_MU if surface.static_friction is None else surface.static_friction
        if surface.static_friction is None:
            notes.add(EntryKind.DEFAULT, str(surface.source), f"link {link.name!r} friction",
                      f"not written; the sdformat default mu {SPEC_MU} is used")
        restitution = 0.0 if surface.restitution is None else surface.restitution
        negative = [f"{name} {value}" for name, value in (("friction", mu), ("restitution", restitution)) if value < 0.0]
        if negative:
            notes.add(EntryKind.WARNING, str(surface.source), f"link {link.name!r} surface",
                      f"negative {' and '.join(negative)} {'is' if len(negative) == 1 else 'are'} written as given")
        key = (mu, restitution)
        material = self._materials.get(key)
        if material is None:
            if not self.stage.GetPrimAtPath(self.path):
                UsdGeom.Scope.Define(self.stage, self.path)
            name = unique_child_name(f"surface_mu_{mu:g}_e_{restitution:g}".replace(".", "_").replace("-", "m"),
                                     self._names)
            material = UsdShade.Material.Define(self.stage, self.path.AppendChild(name))
            api = UsdPhysics.MaterialAPI.Apply(material.GetPrim())
            api.CreateStaticFrictionAttr(float(mu))
            api.CreateDynamicFrictionAttr(float(mu))
            api.CreateRestitutionAttr(float(restitution))
            self._materials[key] = material
            if self._park is not None:
                self._park(material.GetPath())  # binding needs only its path
        UsdShade.MaterialBindingAPI.Apply(prim).Bind(material, UsdShade.Tokens.weakerThanDescendants, "physics")
        if not self._combine_noted:
            self._combine_noted = True
            notes.add(EntryKind.CHOICE, str(surface.source), "surface friction",
                      "PhysX averages the coefficients of two touching materials; ODE multiplies them")

    def plain_collider(self, path: Sdf.Path) -> None:
        """:meth:`apply` for a collider with no ``<surface>`` and no ``<density>``: it has the
        default collide_bitmask and nothing else to write."""
        self.masks.setdefault(DEFAULT_BITMASK, []).append(path)

    def write_bitmask_groups(self, root: Sdf.Path, used: set[str]) -> None:
        if not self.any_mask or len(self.masks) < 2:
            return
        groups = {}
        for mask, paths in self.masks.items():
            path = root.AppendChild(unique_child_name(f"collide_bitmask_{mask:#x}", used))
            group = UsdPhysics.CollisionGroup.Define(self.stage, path)
            group.GetCollidersCollectionAPI().CreateIncludesRel().SetTargets(paths)
            groups[mask] = group
        for a, b in combinations(sorted(groups), 2):
            if a & b == 0:
                groups[a].CreateFilteredGroupsRel().AddTarget(groups[b].GetPath())
        for mask, group in groups.items():
            if mask == 0:  # a zero mask collides with nothing, itself included
                group.CreateFilteredGroupsRel().AddTarget(group.GetPath())


def _model_of(name: str, robot) -> str:
    """The top-level model a link belongs to: a world's ``model::link``, or the one robot."""
    if robot.world is not None and "::" in name:
        return name.split("::", 1)[0]
    return ""


def write_self_collision_groups(stage, robot, link_paths, body_paths, robot_path, used, notes: Notes,
                                surfaces: SurfaceLibrary | None = None, editing=None) -> None:
    """``editing(path)``: a context manager giving the body prim to edit (BatchedStage.editing, for
    bodies already moved out of the working stage); default: the stage's prim."""
    editing = editing or (lambda path: nullcontext(stage.GetPrimAtPath(path)))
    if surfaces is not None:
        surfaces.write_bitmask_groups(robot_path, used)
    by_model: dict[str, list] = {}
    for link in robot.links:
        if link.self_collide is False and link.name in body_paths and link.collisions:
            by_model.setdefault(_model_of(link.name, robot), []).append(link)
    mask_groups = surfaces is not None and surfaces.any_mask and len(surfaces.masks) >= 2
    for model, links in by_model.items():
        if len(links) < 2:
            continue
        if len(links) > MAX_FILTERED_PAIR_LINKS and not mask_groups:
            name = unique_child_name(f"{model or 'model'}_no_self_collide".replace(":", "_"), used)
            group = UsdPhysics.CollisionGroup.Define(stage, robot_path.AppendChild(name))
            group.GetCollidersCollectionAPI().CreateIncludesRel().SetTargets([body_paths[k.name] for k in links])
            group.CreateFilteredGroupsRel().SetTargets([group.GetPath()])
            notes.add(EntryKind.CHOICE, str(links[0].source), "self_collide",
                      f"{len(links)} links without self_collide: one collision group that filters itself "
                      "(SDFormat: links of one model collide only when one has self_collide true)")
            continue
        for index, link in enumerate(links[:-1]):
            with editing(body_paths[link.name]) as prim:
                api = UsdPhysics.FilteredPairsAPI.Apply(prim)
                api.CreateFilteredPairsRel().SetTargets([body_paths[other.name] for other in links[index + 1:]])
        notes.add(EntryKind.CHOICE, str(links[0].source), "self_collide",
                  f"{len(links)} links without self_collide: every pair of them is a filtered pair "
                  "(SDFormat: links of one model collide only when one has self_collide true)")
