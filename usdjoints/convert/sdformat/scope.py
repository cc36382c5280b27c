"""The scope tree: each ``<model>`` or ``<world>`` as an ordered list of named declarations.

Includes are expanded here, so later stages see one tree whatever files it came from. A
merged include (``merge='true'``) puts the included model's declarations into the enclosing
model and stands its model frame in with a frame named ``_merged__NAME__model__``, as
libsdformat does.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from lxml import etree

from usdjoints.errors import InputError, UnsupportedFeature

from ..resolve import Confinement
from .includes import resolve_uri
from .parse import child_bool, child_text, load_document
from .pose import IDENTITY, Pose, parse_pose, where

DECLARATION_TAGS = ("link", "joint", "frame", "model")
#: includes expanded in one conversion, each nested one counted every time its includer is: a
#: model including the next one twice, 30 files deep, expands 2^30 models (every include reads
#: and builds its file again), as libsdformat would
MAX_INCLUDES = 20_000


@dataclass(frozen=True, eq=False)
class Decl:
    """A named frame of a scope: a link, joint, explicit frame or nested model.

    ``relative_to`` and ``attached_to`` are as written ("" = the default applies);
    ``model_alias`` is the name ``__model__`` means for this declaration (it differs for
    declarations merged from an include).
    """

    kind: str
    name: str
    pose: Pose
    relative_to: str
    where: str
    element: etree._Element
    version: tuple[int, int]
    attached_to: str = ""
    parent: str = ""
    child: str = ""
    scope: "Scope | None" = None
    model_alias: str = "__model__"
    included_at: str = ""  # "file:line" of the merge='true' <include> that brought it in


@dataclass(frozen=True, eq=False)
class Scope:
    """A model or a world with its declarations in document order."""

    kind: str
    name: str
    where: str
    element: etree._Element
    version: tuple[int, int]
    path: Path
    decls: tuple[Decl, ...]
    pose: Pose = IDENTITY
    relative_to: str = ""
    canonical_link: str = ""
    placement_frame: str = ""
    placement_where: str = ""  # "file:line" of the placement_frame (an <include>'s own, or the model's)
    static: bool = False
    warnings: tuple[str, ...] = field(default=())  # "file:line: message": pre-1.7 renames, recovered XML


@dataclass(frozen=True)
class ScopeContext:
    """What scope building needs besides the element: the file and the include search path."""

    path: Path
    version: tuple[int, int]
    directories: tuple[Path, ...]
    include_stack: tuple[Path, ...] = ()
    confinement: Confinement | None = None  # --confine: the folders includes may be read from
    expanded: list = field(default_factory=lambda: [0])  # includes expanded so far, shared by the whole tree


def build_root(document, directories: tuple[Path, ...], confinement: Confinement | None = None) -> list[Scope]:
    """The top-level scopes of a document: its worlds, or its single model."""
    context = ScopeContext(document.path, document.version, directories, (document.path.resolve(),), confinement)
    scopes = [build_world(w, context) for w in document.root.findall("world")]
    models = document.root.findall("model")
    if not scopes and len(models) < 2:  # libsdformat: "Root object can only contain one of model, light or actor"
        _lone_light_or_actor(document.root, document.path)
    if len(models) > 1:  # libsdformat: an error, "Root object can only contain one model"
        raise InputError(where(models[1]), f"the <sdf> root holds {len(models)} <model> elements: SDFormat "
                         "allows one (put several models in a <world>)")
    if models:
        _check_top_level_pose(models[0])
    warnings = tuple(document.warnings)
    if scopes and models:
        # libsdformat loads both without an error; the worlds are what a simulator runs (Gazebo
        # loads the worlds of a file), so the root model is left out of them
        warnings += (f"{where(models[0])}: the root <model> {models[0].get('name', '')!r} beside the file's "
                     "<world>: converted are the worlds, without it",)
    elif models:
        scopes.append(build_model(models[0], context))
    if scopes and warnings:
        scopes[0] = replace(scopes[0], warnings=warnings + scopes[0].warnings)
    if not scopes:
        raise InputError(where(document.root), "the file has no <model> or <world>")
    return scopes


def build_world(element: etree._Element, context: ScopeContext) -> Scope:
    _require_name(element)
    decls: list[Decl] = []
    renamed: list[str] = []
    for child in element:
        if child.tag == "include":
            decls.extend(_include(child, context, in_world=True, warnings=renamed))
        elif child.tag in ("model", "frame", "joint"):
            decls.append(_declaration(child, context))
    # before 1.7 a world's frame named like one of its models is renamed too (libsdformat's
    # DOMWorld.LoadModelFrameSameName: world_model_frame_same_name.sdf's frame is ground_frame)
    decls = _rename_colliding(decls, element, context, renamed)
    _check_unique(decls, element, context)
    return Scope("world", element.get("name"), where(element), element, context.version,
                 context.path, tuple(decls), warnings=tuple(renamed))


def build_model(element: etree._Element, context: ScopeContext, *, name: str | None = None,
                pose: tuple[Pose, str] | None = None, static: bool | None = None,
                placement_frame: str | None = None, placement_where: str = "") -> Scope:
    """A ``<model>`` element -> :class:`Scope`; the keyword overrides come from an ``<include>``."""
    _require_name(element)  # an included model too: libsdformat reads the file before the override
    decls: list[Decl] = []
    renamed: list[str] = []
    for child in element:
        if child.tag == "include":
            decls.extend(_include(child, context, in_world=False, warnings=renamed))
        elif child.tag in DECLARATION_TAGS:
            decls.append(_declaration(child, context))
    decls = _rename_colliding(decls, element, context, renamed)
    _check_unique(decls, element, context)
    own_pose = parse_pose(element.find("pose"))
    model_name = name if name else element.get("name", "")
    if is_reserved(model_name):
        raise InputError(where(element), f"the model name '{model_name}' is reserved "
                         "('world' and names starting and ending with '__' are reserved)")
    return Scope(
        "model",
        name if name else element.get("name", ""),
        where(element),
        element,
        context.version,
        context.path,
        tuple(decls),
        pose=(pose or own_pose)[0],
        relative_to=(pose or own_pose)[1],
        canonical_link=element.get("canonical_link", ""),
        placement_frame=placement_frame if placement_frame else element.get("placement_frame", ""),
        placement_where=placement_where if placement_frame else where(element),
        static=child_bool(element, "static", False) if static is None else static,
        warnings=tuple(renamed),
    )


def _require_name(element: etree._Element) -> str:
    """The name attribute the specification requires (libsdformat refuses it missing or empty)."""
    name = element.get("name")
    if not name:
        raise InputError(where(element), f"<{element.tag}> has no name attribute")
    return name


def _declaration(element: etree._Element, context: ScopeContext) -> Decl:
    name = _require_name(element)
    pose, relative_to = parse_pose(element.find("pose"))
    common = dict(name=name, pose=pose, relative_to=relative_to, where=where(element),
                  element=element, version=context.version)
    if element.tag == "frame":
        return Decl("frame", attached_to=element.get("attached_to", ""), **common)
    if element.tag == "joint":
        parent, child = child_text(element, "parent"), child_text(element, "child")
        if parent is None or child is None:
            raise InputError(where(element), f"joint '{name}' needs both <parent> and <child>")
        return Decl("joint", parent=parent, child=child, **common)
    if element.tag == "model":
        scope = build_model(element, context)
        return Decl("model", scope=scope, **dict(common, pose=scope.pose, relative_to=scope.relative_to))
    return Decl("link", **common)


def _include(element: etree._Element, context: ScopeContext, *, in_world: bool, warnings: list[str]) -> list[Decl]:
    """The declarations an include adds; a merged model's warnings go to ``warnings`` (its host's)."""
    uri = child_text(element, "uri")
    if uri is None:
        raise InputError(where(element), "<include> has no <uri>")
    _refuse_parameter_passing(element)
    path = resolve_uri(uri, context.path.parent, context.directories, where(element), context.confinement)
    if path.resolve() in context.include_stack:
        raise InputError(where(element), f"include of '{uri}' includes itself")
    context.expanded[0] += 1
    if context.expanded[0] > MAX_INCLUDES:
        raise InputError(where(element), f"more than {MAX_INCLUDES:,} includes to expand (models that include "
                         "a model several times, nested, multiply)")
    name = child_text(element, "name")
    if name and is_reserved(name):
        raise InputError(where(element.find("name")), f"the model name '{name}' is reserved "
                         "('world' and names starting and ending with '__' are reserved)")
    pose_element = element.find("pose")
    pose = parse_pose(pose_element) if pose_element is not None else None
    placement = element.find("placement_frame")
    if placement is not None and pose_element is None:
        raise InputError(where(placement), "<include> has a <placement_frame> but no <pose>",
                         "placement_frame names the frame the include's <pose> places; add the <pose>")
    static_text = child_text(element, "static")
    try:
        document = load_document(path)
        models = document.root.findall("model")
        other = _lone_light_or_actor(document.root, path)
        if other is not None:  # libsdformat adds it to the world or model; neither is converted
            warnings.append(f"{where(element)}: the included {path} holds {_a(other.tag)}, not a model: "
                            "not converted")
            return []
        if len(models) != 1:
            raise InputError(f"{path}:{document.root.sourceline}",
                             f"included file must hold exactly one <model>, found {len(models)}")
        _check_top_level_pose(models[0])
        inner = ScopeContext(path, document.version, context.directories,
                             context.include_stack + (path.resolve(),), context.confinement, context.expanded)
        scope = build_model(
            models[0], inner, name=name, pose=pose,
            static=None if static_text is None else static_text.lower() in ("true", "1"),
            placement_frame=child_text(element, "placement_frame"),
            placement_where=where(placement) if placement is not None else "",
        )
    except InputError as error:  # a problem inside the included file: say where it was included
        included = f"included at {where(element)}"
        raise InputError(error.where, error.message,
                         f"{error.hint}; {included}" if error.hint else included) from None
    if document.warnings:
        scope = replace(scope, warnings=document.warnings + scope.warnings)
    merge = element.get("merge", "false").strip().lower() in ("true", "1")
    if not merge:
        return [Decl("model", scope.name, scope.pose, scope.relative_to, where(element), element,
                     context.version, scope=scope)]
    if in_world:
        raise InputError(where(element), "merge='true' includes are only allowed inside a <model>")
    warnings.extend(scope.warnings)
    return _merged(scope, element)


def _refuse_parameter_passing(include: etree._Element) -> None:
    """``<experimental:params>`` adds, removes and changes elements of the included model
    (libsdformat's parameter passing); a model read without those changes would be a different
    model, so the include is refused rather than converted without them."""
    for child in include:
        if (isinstance(child.tag, str) and child.prefix == "experimental"
                and etree.QName(child).localname == "params" and len(child)):
            raise UnsupportedFeature(f"{where(child)}: <experimental:params> (parameter passing into an included "
                                     "model) is not supported; write the changes into a copy of the model")


def _lone_light_or_actor(root: etree._Element, path: Path) -> etree._Element | None:
    """The one ``<light>`` or ``<actor>`` an included file holds in place of a model, or None.

    An included file holds one model, one light or one actor; libsdformat refuses a file with
    more than one of them, or with more than one kind ("Found other top level element")."""
    entities = [child for child in root if child.tag in ("model", "light", "actor")]
    if len(entities) < 2:
        return entities[0] if entities and entities[0].tag != "model" else None
    second = next((e for e in entities[1:] if e.tag != entities[0].tag), entities[1])
    what = f"a second <{second.tag}>" if second.tag == entities[0].tag else _a(second.tag)
    raise InputError(f"{path}:{second.sourceline}", f"the file holds {what} beside its "
                     f"<{entities[0].tag}> (line {entities[0].sourceline})",
                     "a file holds one model, one light or one actor, or worlds")


def _a(tag: str) -> str:
    return f"an <{tag}>" if tag[0] in "aeiou" else f"a <{tag}>"


def _check_top_level_pose(model: etree._Element) -> None:
    """A file's top-level model has no sibling frames: its pose cannot be relative_to one
    (libsdformat checks this in every file it reads, an included one too)."""
    pose = model.find("pose")
    if pose is not None and pose.get("relative_to", ""):
        raise InputError(where(pose), f"the pose of top-level model '{model.get('name', '')}' is relative_to "
                         f"'{pose.get('relative_to')}'; a top-level model's pose has no frame to be relative to",
                         "remove the relative_to attribute")


def _merged(scope: Scope, element: etree._Element) -> list[Decl]:
    proxy = f"_merged__{scope.name}__model__"
    canonical = scope.canonical_link or next((d.name for d in scope.decls if d.kind == "link"), "")
    if not canonical:
        raise InputError(where(element), f"merged model '{scope.name}' has no link to attach its model frame to")
    # the proxy is attached to the canonical link but placed relative to the enclosing model
    pose = scope.pose
    if scope.placement_frame:  # the include's <pose> places frame P: X_parent_model = X_pose * inv(X_model_P)
        from .frames import FrameGraph  # frames.py reads this module's Scope
        pose = pose.compose(FrameGraph(scope).placement_pose().inverse())
    frame = Decl("frame", proxy, pose, scope.relative_to or "__model__", where(element), element,
                 scope.version, attached_to=canonical)
    decls = [frame]
    for d in scope.decls:
        def alias(name: str) -> str:
            return proxy if name == "__model__" else name
        relative_to, attached_to = alias(d.relative_to), alias(d.attached_to)
        if d.kind in ("link", "model") and not relative_to:
            relative_to = proxy
        if d.kind == "frame" and not attached_to:
            attached_to = proxy
        decls.append(replace(d, relative_to=relative_to, attached_to=attached_to, parent=alias(d.parent),
                             child=alias(d.child), model_alias=proxy,
                             included_at=d.included_at or where(element)))
    return decls


def is_reserved(name: str) -> bool:
    """libsdformat's reserved frame names: ``world`` and any name of four or more characters
    starting and ending with ``__`` (``__`` and ``___`` are names like any other)."""
    return name == "world" or (len(name) >= 4 and name.startswith("__") and name.endswith("__"))


def _rename_colliding(decls: list[Decl], element: etree._Element, context: ScopeContext,
                      renamed: list[str]) -> list[Decl]:
    """Before 1.7, libsdformat renames a joint named like a link or model to ``NAME_joint``
    (``NAME_joint0``, ``NAME_joint1``... while taken), and a frame named like any of them to
    ``NAME_frame``; a warning, not an error. Nothing before 1.7 refers to a joint or frame by name."""
    if context.version >= (1, 7):
        return decls
    # two siblings of one kind sharing a name stay an error ("joint with name[j] already exists")
    _check_unique(decls, element, context)
    taken = {d.name for d in decls if d.kind in ("link", "model")}
    for kind, suffix in (("joint", "_joint"), ("frame", "_frame")):
        for index, d in enumerate(decls):
            if d.kind != kind:
                continue
            name = d.name
            if name in taken:
                name, counter = d.name + suffix, 0
                while name in taken:
                    name, counter = f"{d.name}{suffix}{counter}", counter + 1
                renamed.append(f"{d.where}: {kind} '{d.name}' has the name of another element in a "
                               f"pre-1.7 file: renamed '{name}' as libsdformat does")
                decls[index] = replace(d, name=name)
            taken.add(name)
    return decls


def _check_unique(decls: list[Decl], element: etree._Element, context: ScopeContext) -> None:
    seen: dict[str, Decl] = {}
    for d in decls:
        if is_reserved(d.name):
            raise InputError(d.where, f"the {d.kind} name '{d.name}' is reserved "
                             "('world' and names starting and ending with '__' are reserved)")
        if "::" in d.name and context.version >= (1, 8):
            raise InputError(d.where, f"the name '{d.name}' contains '::', which separates scopes")
        previous = seen.get(d.name)
        if previous is not None and (previous.kind == d.kind or context.version >= (1, 7)):
            merged = "; ".join(f"{which} is merged by the <include> at {x.included_at}"
                               for which, x in (("this one", d), ("that one", previous)) if x.included_at)
            raise InputError(d.where, f"{d.kind} name '{d.name}' is already used by the {previous.kind} at {previous.where}",
                             "sibling links, joints, frames and models need unique names"
                             + (f"; {merged}" if merged else ""))
        seen[d.name] = d
