"""What happens to every SDFormat element and attribute: the converter's table and the walk that
reports what a file holds and the conversion does not carry.

``spec_elements.json`` (written by ``tools/sdf_spec_elements.py`` from the specification's
``sdf/1.x/*.sdf`` description files) lists every element and attribute of SDFormat 1.4 to 1.12
as a key ``FILE:PATH`` (``surface:surface/friction/ode/mu``, attributes ``KEY@NAME``). ``RULES``
gives each key one status, first matching pattern wins:

* ``converted``: read into the IR and written (UsdPhysics, PhysX columns, UsdGeom, UsdLux or
  custom attributes);
* ``kept``: the element and everything in it are kept as a prim with its XML
  (extras.py), when it sits where the reader keeps it (a link's sensor, a world's light...);
  elsewhere it is reported as dropped;
* ``reported``: the reader itself reports what it does with it (with its own message);
* ``dropped``: not converted; every occurrence in a file gets a report entry (one per key and
  file, with the count and the first line).

:func:`coverage_notes` walks a document against the specification tree: the children of
converted elements are classified in turn; elements and attributes the specification does not
know (misspelt, or custom ones with a namespace prefix) are reported as dropped too.
"""
from __future__ import annotations

import fnmatch
import json
from functools import lru_cache
from pathlib import Path

from lxml import etree

from ..report import EntryKind, ReportEntry
from .extras import JOINT_EXTRAS, LINK_EXTRAS, MODEL_EXTRAS, WORLD_EXTRAS

SPEC_FILE = Path(__file__).with_name("spec_elements.json")

_DISPLAY = "display-only: no physics and no USD shading is written for it"
_SOLVER = "a solver setting of ODE, Bullet, DART or Simbody without a PhysX equivalent"
_CONTACT = "a contact solver parameter without a PhysX equivalent"

#: (pattern, status, reason); patterns are fnmatch patterns over keys, tried in order.
RULES: tuple[tuple[str, str, str], ...] = (
    # the file and its top elements
    ("root:sdf", "converted", ""),
    ("root:sdf@version", "converted", ""),
    ("urdf:*", "dropped", "not reachable from <sdf> in the specification (a URDF <robot> inside SDFormat)"),
    ("collision_engine:*", "dropped", "not reachable from <sdf> in the specification"),
    # poses and frames
    ("pose:pose", "converted", ""),
    ("pose:pose@relative_to", "converted", ""),
    ("pose:pose@degrees", "converted", ""),
    ("pose:pose@rotation_format", "converted", ""),
    ("pose:pose@frame", "dropped", "the 1.5/1.6 frame attribute of <pose> is not interpreted (as libsdformat)"),
    ("frame:frame", "converted", ""),
    ("frame:frame@*", "converted", ""),
    # models and worlds
    ("model:model", "converted", ""),
    ("model:model@name", "converted", ""),
    ("model:model@canonical_link", "converted", ""),
    ("model:model@placement_frame", "converted", ""),
    ("model:model@namespace", "dropped", "model namespaces are not interpreted"),
    ("model:model/pose", "converted", ""),
    ("model:model/static", "converted", ""),
    ("model:model/self_collide", "converted", ""),
    ("model:model/allow_auto_disable", "dropped", "body sleeping is left to the consumer"),
    ("model:model/enable_wind", "dropped", "no wind model in UsdPhysics"),
    ("*:*/include", "converted", ""),
    ("*:*/include/uri", "converted", ""),
    ("*:*/include/name", "converted", ""),
    ("*:*/include/pose", "converted", ""),
    ("*:*/include/static", "converted", ""),
    ("*:*/include/placement_frame", "converted", ""),
    ("*:*/include@merge", "converted", ""),
    ("*:*/include/namespace", "dropped", "include namespaces are not interpreted"),
    ("world:world", "converted", ""),
    ("world:world@name", "converted", ""),
    ("world:world/gravity", "converted", ""),
    ("world:world/audio*", "kept", ""),
    ("world:world/wind*", "kept", ""),
    ("world:world/magnetic_field", "kept", ""),
    ("physics:physics", "converted", ""),
    ("physics:physics@*", "converted", ""),
    ("physics:physics/max_step_size", "converted", ""),
    ("physics:physics/real_time_factor", "converted", ""),
    ("physics:physics/gravity", "converted", ""),
    ("physics:physics/magnetic_field", "dropped", "no magnetic field in UsdPhysics"),
    ("physics:physics/*", "dropped", _SOLVER),
    # links
    ("link:link", "converted", ""),
    ("link:link@name", "converted", ""),
    ("link:link/pose", "converted", ""),
    ("link:link/gravity", "converted", ""),
    ("link:link/kinematic", "converted", ""),
    ("link:link/self_collide", "converted", ""),
    ("link:link/velocity_decay*", "converted", ""),
    ("link:link/enable_wind", "dropped", "no wind model in UsdPhysics"),
    ("link:link/must_be_base_link", "dropped", "an ODE hint on the articulation's base"),
    ("inertial:inertial", "converted", ""),
    ("inertial:inertial/mass", "converted", ""),
    ("inertial:inertial/pose*", "converted", ""),
    ("inertial:inertial/inertia*", "converted", ""),
    ("inertial:inertial@auto", "reported", ""),
    ("inertial:inertial/fluid_added_mass", "reported", ""),
    ("inertial:inertial/fluid_added_mass/*", "reported", ""),
    ("inertial:inertial/density", "dropped", "inertial density is used only by auto inertia, which is not computed"),
    ("inertial:inertial/auto_inertia_params", "dropped", "auto inertia is not computed"),
    ("collision:collision", "converted", ""),
    ("collision:collision@name", "converted", ""),
    ("collision:collision/pose", "converted", ""),
    ("collision:collision/density", "converted", ""),
    ("collision:collision/laser_retro", "dropped", "a sensor return intensity"),
    ("collision:collision/max_contacts", "dropped", _CONTACT),
    ("collision:collision/auto_inertia_params", "dropped", "auto inertia is not computed"),
    ("surface:surface", "converted", ""),
    ("surface:surface/friction", "converted", ""),
    ("surface:surface/friction/ode", "converted", ""),
    ("surface:surface/friction/ode/mu", "converted", ""),
    ("surface:surface/friction/ode/mu2", "converted", ""),
    ("surface:surface/friction/bullet", "converted", ""),
    ("surface:surface/friction/bullet/friction", "converted", ""),
    ("surface:surface/friction/bullet/friction2", "converted", ""),
    ("surface:surface/bounce", "converted", ""),
    ("surface:surface/bounce/restitution_coefficient", "converted", ""),
    ("surface:surface/contact", "converted", ""),
    ("surface:surface/contact/collide_without_contact", "converted", ""),
    ("surface:surface/contact/collide_bitmask", "converted", ""),
    ("surface:surface/friction/*", "dropped", "anisotropic, torsional, rolling friction and slip are not in PhysX materials"),
    ("surface:surface/bounce/threshold", "dropped", "PhysX has its own bounce threshold (a scene setting)"),
    ("surface:surface/*", "dropped", _CONTACT),
    ("visual:visual", "converted", ""),
    ("visual:visual@name", "converted", ""),
    ("visual:visual/pose", "converted", ""),
    ("visual:visual/material", "converted", ""),
    ("visual:visual/material/diffuse", "converted", ""),
    ("visual:visual/*", "dropped", _DISPLAY),
    ("material:material", "converted", ""),
    ("material:material/diffuse", "converted", ""),
    ("material:material/*", "dropped", _DISPLAY),
    ("geometry:geometry", "converted", ""),
    ("geometry:geometry/empty", "reported", ""),
    ("box_shape:*", "converted", ""),
    ("sphere_shape:*", "converted", ""),
    ("cylinder_shape:*", "converted", ""),
    ("capsule_shape:*", "converted", ""),
    ("plane_shape:*", "converted", ""),
    ("mesh_shape:mesh", "converted", ""),
    ("mesh_shape:mesh/uri", "converted", ""),
    ("mesh_shape:mesh/scale", "converted", ""),
    ("mesh_shape:mesh/submesh*", "reported", ""),
    ("mesh_shape:mesh/convex_decomposition*", "dropped", "mesh colliders are written as one convex hull"),
    ("mesh_shape:mesh@optimization", "dropped", "mesh colliders are written as one convex hull"),
    ("ellipsoid_shape:*", "reported", ""),
    ("cone_shape:*", "reported", ""),
    ("heightmap_shape:*", "reported", ""),
    ("polyline_shape:*", "reported", ""),
    ("image_shape:*", "reported", ""),
    # joints
    ("joint:joint", "converted", ""),
    ("joint:joint@*", "converted", ""),
    ("joint:joint/parent", "converted", ""),
    ("joint:joint/child", "converted", ""),
    ("joint:joint/pose", "converted", ""),
    ("joint:joint/gearbox_*", "converted", ""),
    ("joint:joint/screw_thread_pitch", "converted", ""),
    ("joint:joint/thread_pitch", "converted", ""),
    ("joint:joint/axis*/limit/stiffness", "reported", ""),
    ("joint:joint/axis*/limit/dissipation", "reported", ""),
    ("joint:joint/axis*", "converted", ""),
    ("joint:joint/physics*", "dropped", _SOLVER),
    ("mimic:*", "converted", ""),
    # elements kept whole (as a camera, a light or a prim with their XML)
    *((f"{stem}:*", "kept", "") for stem in (
        "sensor", "air_pressure", "air_speed", "altimeter", "camera", "contact", "forcetorque", "gps", "imu",
        "lidar", "logical_camera", "magnetometer", "navsat", "noise", "ray", "rfid", "rfidtag", "sonar",
        "transceiver", "light", "projector", "plugin", "battery", "audio_sink", "audio_source",
        "particle_emitter", "gripper", "actor", "population", "scene", "atmosphere", "spherical_coordinates",
        "gui", "road", "state", "model_state", "link_state", "light_state", "joint_state")),
)

#: Where the reader keeps a kept element: (parent tag, child tag) pairs.
KEPT_PLACES = frozenset(
    [("link", t) for t in LINK_EXTRAS] + [("joint", t) for t in JOINT_EXTRAS]
    + [("model", t) for t in MODEL_EXTRAS] + [("world", t) for t in WORLD_EXTRAS])


#: SDFormat 1.3 names that 1.4 moved (the specification's 1_3.convert): (parent key, tag) -> 1.4 key.
LEGACY_1_3 = {
    ("physics:physics", "update_rate"): "physics:physics/real_time_update_rate",
    ("physics:physics/ode/solver", "dt"): "physics:physics/max_step_size",
    ("physics:physics/bullet", "dt"): "physics:physics/max_step_size",
}


@lru_cache(maxsize=1)
def spec() -> dict:
    return json.loads(SPEC_FILE.read_text())


@lru_cache(maxsize=None)
def status(key: str) -> tuple[str, str] | None:
    """(status, reason) of a specification key, or None when no rule covers it."""
    for pattern, state, reason in RULES:
        if fnmatch.fnmatchcase(key, pattern):
            return state, reason
    return None


def _where(element: etree._Element) -> str:
    return f"{element.getroottree().docinfo.URL}:{element.sourceline}"


def _local(tag: str) -> tuple[str, bool]:
    """(name, namespaced) of an lxml tag or attribute name."""
    if tag.startswith("{"):
        return tag.split("}", 1)[1], True
    return tag, False


class _Tally:
    def __init__(self):
        self.first: dict[tuple, tuple[str, str, str]] = {}
        self.count: dict[tuple, int] = {}

    def add(self, key: tuple, where: str, element: str, message: str) -> None:
        if key not in self.first:
            self.first[key] = (where, element, message)
        self.count[key] = self.count.get(key, 0) + 1

    def entries(self) -> list[ReportEntry]:
        out = []
        for key, (where, element, message) in self.first.items():
            n = self.count[key]
            suffix = f" ({n} occurrences; the first is here)" if n > 1 else ""
            out.append(ReportEntry(EntryKind.DROPPED, where, element, message + suffix))
        return out


def coverage_notes(roots) -> list[ReportEntry]:
    """Report entries for what the documents (their ``<sdf>`` elements) hold and the conversion drops."""
    tally = _Tally()
    tree = spec()["tree"]
    for root in roots:
        _walk(root, spec()["root"], tree, tally, parent_tag="")
    return tally.entries()


def _walk(element: etree._Element, key: str, tree: dict, tally: _Tally, parent_tag: str,
          document: tuple[bool, str] | None = None) -> None:
    """``document``: (legacy, file) of the element's document, known for the children of a walked
    element (they are in its tree)."""
    node = tree[key]
    if document is None:
        roottree = element.getroottree()
        document = ((roottree.getroot().get("version") or "").strip() == "1.3", roottree.docinfo.URL)
    legacy, file = document
    for name in element.attrib:
        local, namespaced = _local(name)
        if namespaced:
            uri = name[1:].split("}", 1)[0]
            prefix = next((p for p, u in element.nsmap.items() if u == uri and p), uri)
            tally.add((file, "attr-ns", key, local), _where(element), f"<{element.tag}>",
                      f"custom attribute '{prefix}:{local}' is not interpreted")
        elif local not in node["a"]:
            tally.add((file, "attr-unknown", key, local), _where(element), f"<{element.tag}>",
                      f"attribute '{local}' is not in the SDFormat specification; not converted")
        else:
            state = status(f"{key}@{local}") or ("dropped", "not converted")
            if state[0] == "dropped":
                tally.add((file, key, local), _where(element), f"<{element.tag}> {local}", state[1])
    if node.get("any"):
        return
    several = set(node.get("several", ()))
    counted: dict[str, int] = {}
    for child in element:
        if not isinstance(child.tag, str):
            continue
        local, namespaced = _local(child.tag)
        counted[local] = counted.get(local, 0) + 1
        if counted[local] > 1 and local in node["c"] and local not in several:
            tally.add((file, "repeated", key, local), _where(child), f"<{element.tag}>",
                      f"a second <{local}>: the specification allows one, only the first is read")
            continue
        if namespaced:
            tally.add((file, "ns", key, local), _where(child), f"<{element.tag}>",
                      f"custom element <{child.prefix}:{local}> is not interpreted")
            continue
        if (element.tag, local) in KEPT_PLACES:
            continue  # the reader keeps it whole (and reports it)
        child_key = node["c"].get(local)
        if child_key is None and legacy:
            child_key = LEGACY_1_3.get((key, local))
        if child_key is None:
            tally.add((file, "unknown", key, local), _where(child), f"<{element.tag}>",
                      f"<{local}> is not in the SDFormat specification; not converted")
            continue
        if element.tag == "sdf" and local not in ("model", "world"):
            tally.add((file, child_key), _where(child), f"<{local}>",
                      f"a file-level <{local}> (outside a world) is not converted")
            continue
        state, reason = status(child_key) or ("dropped", "not converted")
        if state == "converted":
            _walk(child, child_key, tree, tally, element.tag, document)
        elif state == "kept":
            if (element.tag, local) not in KEPT_PLACES:
                tally.add((file, element.tag, child_key), _where(child), f"<{element.tag}>",
                          f"<{local}> inside <{element.tag}> is not converted (it is kept inside "
                          f"{', '.join(f'<{p}>' for p in sorted(p for p, t in KEPT_PLACES if t == local))})")
        elif state == "dropped":
            tally.add((file, child_key), _where(child), f"<{element.tag}>/<{local}>", reason)
