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


MUTATIONS = (drop, duplicate, duplicate_many, reorder, odd_attribute, odd_text, odd_text, odd_attribute,
             wrong_shape, zero_axis, dangling, cycle, odd_names, add_element, mesh_at_marker)


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
        for _ in range(rng.choice((1, 1, 1, 2, 3))):
            op = rng.choice(MUTATIONS)
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
