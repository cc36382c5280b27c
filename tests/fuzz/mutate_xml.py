"""Structure-aware mutations of URDF and SDFormat documents (lxml trees, then bytes)."""
from __future__ import annotations

import copy
import random
from pathlib import Path

from lxml import etree

ODD_SCALARS = ("nan", "NaN", "inf", "-inf", "1e308", "-1e308", "1e400", "-1", "0", "-0", "", " ", "abc",
               "1 2 3", "1,2,3", "0x10", "1e-320", "true", "[1, 2]", "99999999999999999999999", "1e9", "-1e9")
ODD_VECTORS = ("0 0 0", "nan 0 0", "1 2", "1 2 3 4", "inf inf inf", "0 0 1e-300", "1e308 1e308 1e308",
               "-0 -0 -0", "", "a b c", "1 2 3 4 5 6 7", "0 0 0 0", "1e400 0 0", "0.0 0.0 -1.0")
ODD_NAMES = ("", " ", "world", "a/b", "x" * 300, "..", "0", "__", "base", "a b", "ünïcode", "name\twith\ttab")
REFERENCE_TAGS = {"parent", "child", "mimic"}
REFERENCE_ATTRS = ("link", "joint", "relative_to", "attached_to", "expressed_in", "canonical_link",
                   "placement_frame")


def parse(data: bytes):
    parser = etree.XMLParser(remove_comments=False, resolve_entities=False, recover=False)
    return etree.fromstring(data, parser)


def serialize(root) -> bytes:
    return etree.tostring(root, xml_declaration=True, encoding="utf-8")


def _elements(root):
    return [el for el in root.iter() if isinstance(el.tag, str)]


def _names(root) -> list[str]:
    return [el.get("name") for el in _elements(root) if el.get("name")] or ["base"]


def drop(rng, root, ctx):
    elements = [el for el in _elements(root) if el is not root]
    if elements:
        el = rng.choice(elements)
        el.getparent().remove(el)


def duplicate(rng, root, ctx):
    elements = [el for el in _elements(root) if el is not root]
    if elements:
        el = rng.choice(elements)
        twin = copy.deepcopy(el)
        if twin.get("name") and rng.random() < 0.7:
            twin.set("name", twin.get("name") + "_twin")
        el.addnext(twin)


def duplicate_many(rng, root, ctx):
    elements = [el for el in _elements(root) if el.tag in ("joint", "link", "frame")]
    if elements:
        el = rng.choice(elements)
        rename = rng.random() < 0.7
        for i in range(rng.choice((2, 10, 200))):
            twin = copy.deepcopy(el)
            if rename and twin.get("name"):
                twin.set("name", f"{twin.get('name')}_{i}")
            el.addnext(twin)


def reorder(rng, root, ctx):
    parents = [el for el in _elements(root) if len(el)]
    if parents:
        el = rng.choice(parents)
        children = list(el)
        rng.shuffle(children)
        for child in children:
            el.remove(child)
        for child in children:
            el.append(child)


def odd_attribute(rng, root, ctx):
    candidates = [(el, key) for el in _elements(root) for key in el.attrib]
    if candidates:
        el, key = rng.choice(candidates)
        pool = ODD_VECTORS if len((el.get(key) or "").split()) > 1 else ODD_SCALARS
        if key in ("name", "link", "joint", "type") and rng.random() < 0.5:
            pool = ODD_NAMES + ("floating", "planar", "screw", "ball", "gearbox", "revolute2", "universal")
        el.set(key, rng.choice(pool))


def odd_text(rng, root, ctx):
    leaves = [el for el in _elements(root) if len(el) == 0 and (el.text or "").strip()]
    if leaves:
        el = rng.choice(leaves)
        pool = ODD_VECTORS if len(el.text.split()) > 1 else ODD_SCALARS
        if el.tag in REFERENCE_TAGS or el.tag in ("uri", "name"):
            pool = ODD_NAMES
        el.text = rng.choice(pool)


def wrong_shape(rng, root, ctx):
    """Arrays where scalars go and scalars where arrays go."""
    leaves = [el for el in _elements(root) if len(el) == 0 and (el.text or "").strip()]
    attrs = [(el, key) for el in _elements(root) for key in el.attrib if key not in ("name",)]
    if leaves and (not attrs or rng.random() < 0.5):
        el = rng.choice(leaves)
        el.text = " ".join([el.text.split()[0]] * rng.choice((0, 2, 3, 7)))
    elif attrs:
        el, key = rng.choice(attrs)
        first = (el.get(key) or "0").split() or ["0"]
        el.set(key, " ".join([first[0]] * rng.choice((0, 2, 4, 6))))


def zero_axis(rng, root, ctx):
    axes = [el for el in _elements(root) if el.tag == "axis"]
    if axes:
        axis = rng.choice(axes)
        if axis.get("xyz") is not None or ctx["kind"] == "urdf":
            axis.set("xyz", rng.choice(("0 0 0", "nan nan nan", "1e-300 0 0", "inf 0 0")))
        else:
            xyz = axis.find("xyz")
            if xyz is None:
                xyz = etree.SubElement(axis, "xyz")
            xyz.text = rng.choice(("0 0 0", "nan 0 0", "1e-300 0 0", "inf 0 0"))


def dangling(rng, root, ctx):
    refs = [el for el in _elements(root) if el.tag in REFERENCE_TAGS]
    attrs = [(el, key) for el in _elements(root) for key in el.attrib if key in REFERENCE_ATTRS]
    target = rng.choice(("nope", "", "world", "__model__", rng.choice(_names(root))))
    if refs and (not attrs or rng.random() < 0.5):
        el = rng.choice(refs)
        if el.get("link") is not None:
            el.set("link", target)
        elif el.get("joint") is not None:
            el.set("joint", target)
        else:
            el.text = target
    elif attrs:
        el, key = rng.choice(attrs)
        el.set(key, target)
    else:
        frames = [el for el in _elements(root) if el.tag in ("pose", "frame", "link", "joint")]
        if frames:
            rng.choice(frames).set(rng.choice(("relative_to", "attached_to")), target)


def cycle(rng, root, ctx):
    """A joint whose child is an ancestor (URDF/SDF), or frames attached in a ring (SDF)."""
    joints = [el for el in _elements(root) if el.tag == "joint"]
    if not joints:
        return
    joint = rng.choice(joints)
    parent, child = joint.find("parent"), joint.find("child")
    if parent is None or child is None:
        return
    if ctx["kind"] == "urdf":
        p, c = parent.get("link"), child.get("link")
        if rng.random() < 0.5:
            parent.set("link", c or "")
            child.set("link", p or "")
        else:
            child.set("link", p or "")  # self loop
        if rng.random() < 0.5:
            joint.addnext(copy.deepcopy(joint))  # and a second joint on the same link
    else:
        p, c = parent.text, child.text
        parent.text, child.text = c, p
        frames = [el for el in _elements(root) if el.tag == "frame" and el.get("name")]
        if len(frames) >= 1:
            a = frames[0]
            b = frames[-1]
            a.set("attached_to", b.get("name"))
            b.set("attached_to", a.get("name"))
        models = [el for el in _elements(root) if el.tag in ("model", "world")]
        if models and rng.random() < 0.5:
            for i in range(2):
                frame = etree.SubElement(models[0], "frame", name=f"ring{i}", attached_to=f"ring{1 - i}")
                pose = etree.SubElement(frame, "pose", relative_to=f"ring{1 - i}")
                pose.text = "0 0 0 0 0 0"


def odd_names(rng, root, ctx):
    named = [el for el in _elements(root) if el.get("name") is not None]
    if named:
        el = rng.choice(named)
        el.set("name", rng.choice(ODD_NAMES + (rng.choice(_names(root)),)))


def add_element(rng, root, ctx):
    """Elements in odd places: a joint inside a link, a second model, an empty geometry."""
    hosts = _elements(root)
    tag = rng.choice(("joint", "link", "inertial", "limit", "axis", "geometry", "mesh", "pose", "origin",
                      "mass", "inertia", "model", "include", "frame", "mimic", "dynamics", "gearbox_ratio"))
    el = etree.SubElement(rng.choice(hosts), tag)
    if rng.random() < 0.5:
        el.set("name", rng.choice(ODD_NAMES))
    if rng.random() < 0.5:
        el.text = rng.choice(ODD_SCALARS + ODD_VECTORS)


def mesh_at_marker(rng, root, ctx):
    """A mesh (or an include) that names the marker file: its content must never be printed."""
    marker = ctx["marker"]
    links = [el for el in _elements(root) if el.tag == "link"] or [root]
    link = rng.choice(links)
    if ctx["kind"] == "urdf":
        visual = etree.SubElement(link, "visual")
        geometry = etree.SubElement(visual, "geometry")
        etree.SubElement(geometry, "mesh", filename=rng.choice((marker, "file://" + marker, marker + ".stl")))
    else:
        if rng.random() < 0.5:
            visual = etree.SubElement(link, "visual", name="leak")
            geometry = etree.SubElement(visual, "geometry")
            mesh = etree.SubElement(geometry, "mesh")
            uri = etree.SubElement(mesh, "uri")
            uri.text = rng.choice((marker, "file://" + marker, marker + ".dae"))
        else:
            host = next((el for el in _elements(root) if el.tag in ("model", "world")), root)
            include = etree.SubElement(host, "include")
            uri = etree.SubElement(include, "uri")
            uri.text = rng.choice(("model://evil", "model://evil2", "file://" + ctx["evil_model"], ctx["evil_model"],
                                   ctx["evil_model"] + "2", marker))
            if rng.random() < 0.3:
                etree.SubElement(include, "name").text = rng.choice(ODD_NAMES)


# ---------------------------------------------------------------------------------------------
# What real robot files bring: SDFormat nesting, frames, includes, versions, worlds and the
# elements a converter skips; URDF transmissions, Gazebo tags, mimics, xacro left-overs, packages.

SDF_VERSIONS = ("1.4", "1.5", "1.6", "1.7", "1.8", "1.9", "1.10", "1.11", "1.12", "2.0", "", "1", "1.x", "0.9",
                "1.9.0", " 1.7 ")
MODEL_URIS = ("model://box", "model://test_model_with_frames", "model://missing_model", "model://", "model:///abs",
              "model://box/model.sdf", "model://box/../box", "file:///nonexistent/model", "package://nope/model",
              "https://fuel.gazebosim.org/1.0/OpenRobotics/models/Box", "box", "./box", "", "model://box/",
              "model://" + "x" * 300, "model://ünï")
EXTRA_SDF_ELEMENTS = (
    '<plugin filename="libgz-sim-joint-state-publisher-system.so" name="gz::sim::systems::JointStatePublisher">'
    '<joint_name>hinge</joint_name><update_rate>nan</update_rate></plugin>',
    '<sensor name="imu" type="imu"><pose>0 0 0 0 0 0</pose><always_on>1</always_on><update_rate>-5</update_rate>'
    '<imu><angular_velocity><x><noise type="gaussian"><mean>0</mean></noise></x></angular_velocity></imu></sensor>',
    '<sensor name="cam" type="camera"><camera><horizontal_fov>inf</horizontal_fov>'
    '<image><width>0</width><height>-1</height></image></camera></sensor>',
    '<light name="sun" type="directional"><pose>0 0 10 0 0 0</pose><diffuse>1 1 1 1</diffuse>'
    '<direction>0 0 0</direction><attenuation><range>nan</range></attenuation></light>',
    '<actor name="walker"><skin><filename>model://actor/walk.dae</filename></skin>'
    '<animation name="walk"><filename>walk.dae</filename></animation>'
    '<script><trajectory id="0" type="walk"><waypoint><time>0</time><pose>0 0 0 0 0 0</pose></waypoint>'
    '</trajectory></script></actor>',
    '<gripper name="g"><gripper_link>base</gripper_link><palm_link>nope</palm_link></gripper>',
    '<static>true</static>', '<self_collide>1</self_collide>', '<enable_wind>yes</enable_wind>',
    '<allow_auto_disable>0</allow_auto_disable>', '<physics name="p" type="ode"><max_step_size>0</max_step_size>'
    '</physics>', '<gravity>0 0 nan</gravity>', '<magnetic_field>1 2 3</magnetic_field>',
    '<atmosphere type="adiabatic"/>', '<scene><ambient>1 1 1 1</ambient></scene>',
    '<gz:custom xmlns:gz="http://gazebosim.org/schema"><gz:value>1</gz:value></gz:custom>',
    '<custom_element_without_namespace>1</custom_element_without_namespace>',
    '<audio_source><uri>marker</uri></audio_source>',
)


def _fragment(text: str, marker: str):
    return etree.fromstring(text.replace(">marker<", ">" + marker + "<"))


def _models(root) -> list:
    return [el for el in _elements(root) if el.tag == "model"]


def sdf_version(rng, root, ctx):
    """Every SDFormat version a file may declare (1.4 to 1.11), and some no reader knows."""
    if ctx["kind"] != "sdf":
        return
    sdf = root if root.tag == "sdf" else next((el for el in _elements(root) if el.tag == "sdf"), None)
    if sdf is not None:
        if rng.random() < 0.1:
            sdf.attrib.pop("version", None)
        else:
            sdf.set("version", rng.choice(SDF_VERSIONS))


def sdf_nested_model(rng, root, ctx):
    """A model inside a model (1.8's nesting), joints and frames reaching in with ``a::b`` names."""
    if ctx["kind"] != "sdf":
        return
    models = _models(root)
    if not models:
        return
    outer = rng.choice(models)
    if rng.random() < 0.5:  # the whole model moves one level down
        inner = copy.deepcopy(outer)
        for child in list(outer):
            outer.remove(child)
        outer.append(inner)
        inner.set("name", rng.choice(("inner", outer.get("name") or "m", "")))
        if rng.random() < 0.5:
            outer.set("canonical_link", rng.choice((f"{inner.get('name')}::base", "base", "nope::base", "")))
    else:
        inner = etree.SubElement(outer, "model", name=rng.choice(("nested", "nested::twice", "world", "__model__")))
        link = etree.SubElement(inner, "link", name="l")
        etree.SubElement(etree.SubElement(link, "inertial"), "mass").text = rng.choice(("1", "0", "nan"))
        joint = etree.SubElement(outer, "joint", name="to_nested", type=rng.choice(("fixed", "revolute", "ball")))
        names = [el.get("name") for el in outer if el.tag == "link" and el.get("name")] or ["world"]
        etree.SubElement(joint, "parent").text = rng.choice(names + ["world", "__model__"])
        etree.SubElement(joint, "child").text = rng.choice((f"{inner.get('name')}::l", f"{inner.get('name')}",
                                                            f"{inner.get('name')}::__model__", "l", "nested::nope"))
        if joint.get("type") == "revolute":
            etree.SubElement(etree.SubElement(joint, "axis"), "xyz").text = "0 0 1"
    if rng.random() < 0.3:
        pose = etree.SubElement(inner, "pose")
        pose.text = rng.choice(("1 0 0 0 0 0", "0 0 0 0 0 3.14159", "nan 0 0 0 0 0"))
        if rng.random() < 0.5:
            pose.set("relative_to", rng.choice(("__model__", "base", "world", "nope")))


def sdf_frame_chain(rng, root, ctx):
    """Frames attached to frames attached to links (a chain several deep), poses relative to them,
    and joints whose parent or child is a frame (SDFormat 1.7+ frame semantics)."""
    if ctx["kind"] != "sdf":
        return
    models = _models(root)
    if not models:
        return
    model = rng.choice(models)
    links = [el.get("name") for el in model if el.tag == "link" and el.get("name")]
    joints = [el.get("name") for el in model if el.tag == "joint" and el.get("name")]
    anchor = rng.choice(links + joints + ["__model__", "world", ""] if links else ["__model__"])
    previous = anchor
    depth = rng.choice((1, 3, 12, 60))
    names = []
    for i in range(depth):
        name = f"chain{i}"
        frame = etree.SubElement(model, "frame", name=name)
        if rng.random() < 0.9:
            frame.set("attached_to", previous)
        pose = etree.SubElement(frame, "pose")
        pose.text = rng.choice(("0 0 0.1 0 0 0", "0 0 0 0 0 1.5707963", "0.1 0 0 0.1 0.2 0.3"))
        if rng.random() < 0.4:
            pose.set("relative_to", rng.choice((previous, anchor, "__model__", name)))
        if rng.random() < 0.2:
            pose.set("degrees", rng.choice(("true", "false", "1", "maybe")))
            pose.set("rotation_format", rng.choice(("euler_rpy", "quat_xyzw", "bogus")))
            if pose.get("rotation_format") == "quat_xyzw":
                pose.text = rng.choice(("0 0 0 0 0 0 1", "0 0 0 0 0 0 0", "0 0 0 1 1 1 1"))
        previous = name
        names.append(name)
    targets = [el for el in _elements(model) if el.tag in ("pose",) and el.getparent().tag in ("link", "joint")]
    if targets and rng.random() < 0.7:
        rng.choice(targets).set("relative_to", rng.choice(names))
    js = [el for el in model if el.tag == "joint"]
    if js and rng.random() < 0.5:
        joint = rng.choice(js)
        side = joint.find(rng.choice(("parent", "child")))
        if side is not None:
            side.text = rng.choice(names)
    axes = [el for el in _elements(model) if el.tag == "xyz"]
    if axes and rng.random() < 0.5:
        rng.choice(axes).set("expressed_in", rng.choice(names + ["__model__", "world"]))


def sdf_include(rng, root, ctx):
    """``<include>`` of model:// URIs (found, missing, odd), with the children an include may carry."""
    if ctx["kind"] != "sdf":
        return
    hosts = [el for el in _elements(root) if el.tag in ("model", "world")] or [root]
    host = rng.choice(hosts)
    for _ in range(rng.choice((1, 1, 2, 5))):
        include = etree.SubElement(host, "include")
        if rng.random() < 0.4:
            include.set("merge", rng.choice(("true", "false", "1", "yes")))
        etree.SubElement(include, "uri").text = rng.choice(MODEL_URIS)
        if rng.random() < 0.6:
            etree.SubElement(include, "name").text = rng.choice(("inc", "inc", "base", "a::b", "", "world"))
        if rng.random() < 0.5:
            pose = etree.SubElement(include, "pose")
            pose.text = rng.choice(("1 2 3 0 0 0", "0 0 0 0 0 0", "1e400 0 0 0 0 0"))
            if rng.random() < 0.5:
                pose.set("relative_to", rng.choice(("__model__", "base", "world", "nope")))
        if rng.random() < 0.3:
            etree.SubElement(include, "static").text = rng.choice(("true", "0", "x"))
        if rng.random() < 0.3:
            etree.SubElement(include, "placement_frame").text = rng.choice(("base", "link", "nope", ""))
        if rng.random() < 0.2:
            etree.SubElement(include, "plugin", name="p", filename="libp.so")
        if rng.random() < 0.2:  # an include nested in an include's host copy
            etree.SubElement(include, "include")


def sdf_extras(rng, root, ctx):
    """Plugins, sensors, lights, actors and other elements a physics conversion skips."""
    if ctx["kind"] != "sdf":
        return
    hosts = [el for el in _elements(root) if el.tag in ("model", "world", "link", "joint", "sdf")] or [root]
    for _ in range(rng.choice((1, 2, 4))):
        host = rng.choice(hosts)
        host.append(_fragment(rng.choice(EXTRA_SDF_ELEMENTS), ctx["marker"]))


def sdf_world(rng, root, ctx):
    """A world holding several models: copies of the file's model (renamed or not), placed apart."""
    if ctx["kind"] != "sdf":
        return
    sdf = root if root.tag == "sdf" else None
    models = [el for el in sdf if el.tag == "model"] if sdf is not None else []
    if sdf is None or not models:
        return
    world = etree.SubElement(sdf, rng.choice(("world", "world", "world")), name=rng.choice(("default", "", "w")))
    model = models[0]
    sdf.remove(model)
    count = rng.choice((1, 2, 3, 20))
    for i in range(count):
        twin = copy.deepcopy(model)
        if rng.random() < 0.85:
            twin.set("name", f"{model.get('name') or 'm'}_{i}")
        pose = twin.find("pose")
        if pose is None:
            pose = etree.SubElement(twin, "pose")
        pose.text = f"{i} 0 0 0 0 0"
        world.append(twin)
    if rng.random() < 0.3:
        joint = etree.SubElement(world, "joint", name="world_joint", type="fixed")
        etree.SubElement(joint, "parent").text = "world"
        etree.SubElement(joint, "child").text = f"{model.get('name') or 'm'}_0::base"
    if rng.random() < 0.3:
        etree.SubElement(world, "frame", name="wf", attached_to=rng.choice(("world", f"{model.get('name')}_0", "x")))
    if rng.random() < 0.2:
        etree.SubElement(sdf, "world", name=world.get("name"))  # a second world


TRANSMISSIONS = (
    '<transmission name="t1"><type>transmission_interface/SimpleTransmission</type>'
    '<joint name="{joint}"><hardwareInterface>hardware_interface/EffortJointInterface</hardwareInterface></joint>'
    '<actuator name="m1"><mechanicalReduction>{value}</mechanicalReduction></actuator></transmission>',
    '<transmission name="t2" type="SimpleTransmission"><joint name="{joint}"/><actuator name="a"/>'
    '<mechanicalReduction>{value}</mechanicalReduction></transmission>',
    '<transmission name="t3"><type>transmission_interface/DifferentialTransmission</type>'
    '<joint name="{joint}"><role>joint1</role><mechanicalReduction>{value}</mechanicalReduction></joint>'
    '<joint name="nope"><role>joint2</role></joint><actuator name="x"><role>actuator1</role></actuator></transmission>',
)
GAZEBO_TAGS = (
    '<gazebo reference="{link}"><material>Gazebo/Orange</material><mu1>{value}</mu1><mu2>0.2</mu2>'
    '<kp>1e6</kp><selfCollide>true</selfCollide></gazebo>',
    '<gazebo reference="{joint}"><implicitSpringDamper>1</implicitSpringDamper>'
    '<provideFeedback>true</provideFeedback></gazebo>',
    '<gazebo><plugin name="gazebo_ros_control" filename="libgazebo_ros_control.so">'
    '<robotNamespace>/r</robotNamespace></plugin><static>true</static></gazebo>',
    '<gazebo reference="{link}"><sensor type="ray" name="laser"><ray><scan><horizontal>'
    '<samples>{value}</samples></horizontal></scan></ray></sensor></gazebo>',
    '<gazebo reference="nope"><turnGravityOff>true</turnGravityOff></gazebo>',
    '<gazebo reference="{link}"><visual><material><ambient>1 0 0 1</ambient></material></visual></gazebo>',
)
XACRO_LEFTOVERS = ("${pi/2}", "${radians(90)}", "$(find robot_description)/meshes/a.stl", "${mass}",
                   "${-wheel_radius}", "$(arg prefix)", "${", "}", "$${x}", "${1/0}")
PACKAGE_URIS = ("package://robot/meshes/missing.stl", "package://nope/meshes/x.dae", "package://", "package:///",
                "package://robot", "package://robot/../../../etc/passwd.stl", "model://robot/meshes/a.stl",
                "file:///nonexistent/a.stl", "file://relative/a.stl", "meshes/a.STL", "http://example.com/a.stl",
                "package://robot/meshes/a.obj", "package://robot/meshes/ünï.stl", "package://ro bot/m.stl", "")


def urdf_transmission(rng, root, ctx):
    """``<transmission>`` blocks (the ros_control kinds) naming real, missing and odd joints."""
    if ctx["kind"] != "urdf":
        return
    joints = [el.get("name") for el in _elements(root) if el.tag == "joint" and el.get("name")] or ["j"]
    for _ in range(rng.choice((1, 2))):
        text = rng.choice(TRANSMISSIONS).format(joint=rng.choice(joints + ["nope", ""]),
                                                value=rng.choice(("1", "50", "0", "-1", "nan", "abc", "1e400")))
        root.append(etree.fromstring(text))


def urdf_gazebo(rng, root, ctx):
    """``<gazebo>`` tags on links, joints, missing names and the robot."""
    if ctx["kind"] != "urdf":
        return
    links = [el.get("name") for el in _elements(root) if el.tag == "link" and el.get("name")] or ["l"]
    joints = [el.get("name") for el in _elements(root) if el.tag == "joint" and el.get("name")] or ["j"]
    for _ in range(rng.choice((1, 2, 3))):
        text = rng.choice(GAZEBO_TAGS).format(link=rng.choice(links), joint=rng.choice(joints),
                                              value=rng.choice(("0.5", "nan", "-1", "x", "1e400")))
        root.append(etree.fromstring(text))


def urdf_mimic(rng, root, ctx):
    """A ``<mimic>`` added to a joint: of another joint, itself, a missing one, a fixed one, a chain."""
    if ctx["kind"] != "urdf":
        return
    joints = [el for el in _elements(root) if el.tag == "joint" and el.get("name")]
    if not joints:
        return
    for _ in range(rng.choice((1, 1, 2, 4))):
        follower = rng.choice(joints)
        for old in follower.findall("mimic"):
            follower.remove(old)
        mimic = etree.SubElement(follower, "mimic",
                                 joint=rng.choice([j.get("name") for j in joints] + ["nope", ""]))
        if rng.random() < 0.7:
            mimic.set("multiplier", rng.choice(("1", "-1", "0", "0.5", "nan", "inf", "1e40", "1e-40", "x")))
        if rng.random() < 0.7:
            mimic.set("offset", rng.choice(("0", "0.1", "nan", "-inf", "1e40", "")))


def xacro_leftovers(rng, root, ctx):
    """A file that was never run through xacro: ``${...}``/``$(...)`` values, xacro elements."""
    candidates = [(el, key) for el in _elements(root) for key in el.attrib if key not in ("version",)]
    leaves = [el for el in _elements(root) if len(el) == 0 and (el.text or "").strip()]
    for _ in range(rng.choice((1, 2))):
        if candidates and (not leaves or rng.random() < 0.6):
            el, key = rng.choice(candidates)
            value = rng.choice(XACRO_LEFTOVERS)
            el.set(key, value if rng.random() < 0.6 else (el.get(key) or "") + " " + value)
        elif leaves:
            rng.choice(leaves).text = rng.choice(XACRO_LEFTOVERS)
    if rng.random() < 0.4:
        xacro = "http://www.ros.org/wiki/xacro"
        root.append(etree.fromstring(f'<xacro:property xmlns:xacro="{xacro}" name="mass" value="1"/>'))
        root.append(etree.fromstring(f'<xacro:include xmlns:xacro="{xacro}" filename="$(find p)/a.xacro"/>'))
        root.append(etree.fromstring(f'<xacro:macro xmlns:xacro="{xacro}" name="leg" params="side">'
                                     '<link name="${side}_leg"/></xacro:macro>'))


def missing_meshes(rng, root, ctx):
    """Mesh paths users bring: package:// of missing packages, model://, file://, URLs, odd cases."""
    if ctx["kind"] == "urdf":
        meshes = [el for el in _elements(root) if el.tag == "mesh"]
        if not meshes or rng.random() < 0.5:
            links = [el for el in _elements(root) if el.tag == "link"] or [root]
            host = etree.SubElement(rng.choice(links), rng.choice(("visual", "collision")))
            meshes.append(etree.SubElement(etree.SubElement(host, "geometry"), "mesh"))
        mesh = rng.choice(meshes)
        mesh.set("filename", rng.choice(PACKAGE_URIS))
        if rng.random() < 0.3:
            mesh.set("scale", rng.choice(("1 1 1", "0 0 0", "-1 1 1", "0.001", "nan 1 1")))
    else:
        uris = [el for el in _elements(root) if el.tag == "uri" and el.getparent().tag == "mesh"]
        if not uris or rng.random() < 0.5:
            links = [el for el in _elements(root) if el.tag == "link"]
            if not links:
                return
            host = etree.SubElement(rng.choice(links), rng.choice(("visual", "collision")), name="m")
            uris.append(etree.SubElement(etree.SubElement(etree.SubElement(host, "geometry"), "mesh"), "uri"))
        rng.choice(uris).text = rng.choice(PACKAGE_URIS + MODEL_URIS[:4])


MUTATIONS = (drop, duplicate, duplicate_many, reorder, odd_attribute, odd_text, odd_text, odd_attribute,
             wrong_shape, zero_axis, dangling, cycle, odd_names, add_element, mesh_at_marker,
             sdf_version, sdf_nested_model, sdf_frame_chain, sdf_include, sdf_extras, sdf_world,
             urdf_transmission, urdf_gazebo, urdf_mimic, xacro_leftovers, missing_meshes)
_ONLY = {"sdf": (sdf_version, sdf_nested_model, sdf_frame_chain, sdf_include, sdf_extras, sdf_world),
         "urdf": (urdf_transmission, urdf_gazebo, urdf_mimic)}


def mutations_for(kind: str) -> tuple:
    """The mutations that apply to a ``kind`` document (the other format's own ones left out)."""
    other = [op for k, ops in _ONLY.items() if k != kind for op in ops]
    return tuple(op for op in MUTATIONS if op not in other)


def xxe(data: bytes, rng, marker: str) -> bytes:
    """Declare an external entity naming the marker file and use it in a value."""
    head, sep, rest = data.partition(b"?>") if data.startswith(b"<?xml") else (b"", b"", data)
    prefix = head + sep
    root_tag = rest.lstrip().split(b">", 1)[0].split()[0].lstrip(b"<") if rest.strip() else b"robot"
    url = rng.choice(("file://" + marker, marker))
    doctype = (b'\n<!DOCTYPE ' + root_tag + b' [<!ENTITY xxe SYSTEM "' + url.encode() + b'">'
               b'<!ENTITY % pe SYSTEM "' + url.encode() + b'">]>\n')
    spots = [b'name="', b"<mass>", b'value="', b"<uri>", b'link="', b"<child>"]
    spot = rng.choice(spots)
    if spot in rest:
        rest = rest.replace(spot, spot + b"&xxe;", 1)
    else:
        rest = rest.replace(b">", b">&xxe;", 1)
    return prefix + doctype + rest


def invalid_utf8(data: bytes, rng) -> bytes:
    """Bytes that are not UTF-8 inside a name or a value."""
    bad = rng.choice((b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80", b"\x80", b"\xfe\xfe"))
    spots = [i + 6 for i in range(len(data)) if data.startswith(b'name="', i)] or [len(data) // 2]
    at = rng.choice(spots)
    return data[:at] + bad + data[at:]


def byte_noise(data: bytes, rng) -> bytes:
    """Truncation or a few flipped bytes: malformed XML."""
    if rng.random() < 0.5:
        return data[: rng.randrange(1, max(2, len(data)))]
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        out[rng.randrange(len(out))] = rng.randrange(256)
    return bytes(out)


def mutate(data: bytes, kind: str, rng: random.Random, ctx: dict) -> tuple[bytes, list[str]]:
    """One mutated document and the names of the mutations applied."""
    ctx = dict(ctx, kind=kind)
    applied: list[str] = []
    try:
        root = parse(data)
    except etree.XMLSyntaxError:
        root = None
    if root is not None:
        ops = mutations_for(kind)
        for _ in range(rng.choice((1, 1, 1, 2, 3))):
            op = rng.choice(ops)
            op(rng, root, ctx)
            applied.append(op.__name__)
        data = serialize(root)
    roll = rng.random()
    if roll < 0.06:
        data = xxe(data, rng, ctx["marker"])
        applied.append("xxe")
    elif roll < 0.10:
        data = invalid_utf8(data, rng)
        applied.append("invalid_utf8")
    elif roll < 0.13:
        data = byte_noise(data, rng)
        applied.append("byte_noise")
    return data, applied


def write_evil_model(directory: Path, marker: str) -> Path:
    """An SDFormat model folder whose model.config and model.sdf pull the marker file in."""
    evil = directory / "evil"
    evil.mkdir(parents=True, exist_ok=True)
    doctype = f'<!DOCTYPE model [<!ENTITY xxe SYSTEM "file://{marker}">]>'
    (evil / "model.config").write_text(
        f'<?xml version="1.0"?>\n{doctype}\n<model><name>&xxe;</name><sdf version="1.9">model.sdf</sdf></model>\n')
    model_sdf = (f'<?xml version="1.0"?>\n<!DOCTYPE sdf [<!ENTITY xxe SYSTEM "file://{marker}">]>\n'
                 '<sdf version="1.9"><model name="evil"><link name="l_&xxe;"><inertial><mass>1</mass></inertial>'
                 '</link></model></sdf>\n')
    (evil / "model.sdf").write_text(model_sdf)
    # the same model with a clean model.config: the entity sits in the SDFormat file only
    clean = directory / "evil2"
    clean.mkdir(parents=True, exist_ok=True)
    (clean / "model.config").write_text('<?xml version="1.0"?>\n<model><name>evil2</name>'
                                        '<sdf version="1.9">model.sdf</sdf></model>\n')
    (clean / "model.sdf").write_text(model_sdf)
    return evil
