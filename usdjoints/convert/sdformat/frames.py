"""SDFormat frame semantics: the pose (relative_to) graph and the attached_to graph of a scope.

Rules (SDFormat 1.7+, which libsdformat also applies to older files after conversion):

* ``__model__`` is the model frame; in a world, ``world`` is the root.
* Default ``relative_to``: a link or nested model -> the model frame; a joint -> its child frame;
  a frame -> its ``attached_to`` frame, whose default is the model frame (the world in a world).
* A name ``A::B`` reaches into nested model ``A``; a scope never sees its parent's names. In 1.7
  a declaration may itself be named ``A::B`` (libsdformat's partially flattened output): a
  declared name is always taken literally first.
* A nested model's ``placement_frame`` P makes its pose the pose of P, so
  ``X_parent_model = X_parent_relative_to * X_pose * inv(X_model_P)``.
* Attached_to resolution (the body a frame moves with): a frame -> its ``attached_to``;
  a joint -> its child; a model frame or nested model -> its canonical link.

Every cycle, self reference and dangling name raises :class:`InputError` naming the element.
"""
from __future__ import annotations

from usdjoints.errors import InputError

from .pose import IDENTITY, Pose
from .scope import Decl, Scope


class FrameGraph:
    """Resolved poses of one scope's frames in its own frame (model frame, or world frame).

    Results are memoised; a fresh graph per scope is cheap and holds no state beyond that.
    """

    def __init__(self, scope: Scope):
        self.scope = scope
        self.root_name = "world" if scope.kind == "world" else "__model__"
        self._decls: dict[str, Decl] = {d.name: d for d in scope.decls}
        self._nested: dict[str, FrameGraph] = {}
        self._poses: dict[str, Pose] = {}
        self._bodies: dict[str, str] = {}
        self.axes: dict[tuple[int, str], tuple] = {}  # axes.read_axis: (id(decl), tag) -> (decl, SdfAxis)
        self._pose_visiting: set[str] = set()
        self._body_visiting: set[str] = set()
        self._canonical: str | None = None
        self.is_nested = False  # a model inside a model (not a file's top-level model or a world's model)

    # ---- lookup ------------------------------------------------------------------------
    def decl(self, name: str) -> Decl | None:
        return self._decls.get(name)

    def nested(self, name: str) -> "FrameGraph":
        graph = self._nested.get(name)
        if graph is None:
            d = self._decls[name]
            graph = self._nested[name] = FrameGraph(d.scope)
            graph.is_nested = self.scope.kind == "model"
        return graph

    def exists(self, name: str) -> bool:
        """Whether ``name`` (possibly scoped ``A::B``) names a frame visible from this scope."""
        if name == self.root_name or name in self._decls:
            return True
        head, sep, rest = name.partition("::")
        if sep:
            d = self._decls.get(head)
            return d is not None and d.kind == "model" and self.nested(head).exists(rest)
        return name in self._decls

    def _require(self, name: str, d: Decl, role: str) -> None:
        if not self.exists(name):
            raise InputError(
                d.where,
                f"{role} '{name}' of {d.kind} '{d.name}' names no link, joint, frame or nested model "
                f"in {self.scope.kind} '{self.scope.name}'",
            )

    # ---- poses -------------------------------------------------------------------------
    def pose(self, name: str) -> Pose:
        """``X_scope_name``: the pose of frame ``name`` in this scope's frame.

        The relative_to chain is walked in a loop, not by recursion: a chain may be as long as the
        model (a link per link, declared in either order).
        """
        if name == self.root_name:
            return IDENTITY
        head, sep, rest = name.partition("::")
        if sep and name not in self._decls:  # a 1.7 flattened name 'A::B' is a literal name
            return self.pose(head).compose(self.nested(head).pose(rest))
        cached = self._poses.get(name)
        if cached is not None:
            return cached
        chain: list[Decl] = []  # name, then the frame it is relative to, ... down to a known pose
        try:
            current = name
            while True:
                d = self._decls[current]
                target = self.pose_parent(d)
                if current in self._pose_visiting:
                    raise InputError(d.where, f"the relative_to graph has a cycle through {d.kind} '{current}'")
                self._pose_visiting.add(current)
                chain.append(d)
                if target == self.root_name or target in self._poses or (
                        "::" in target and target not in self._decls):
                    break
                current = target
            X = self.pose(target)  # the root, a known pose, or one inside a nested model
            for d in reversed(chain):
                X = X.compose(d.pose)
                if d.kind == "model":
                    X = X.compose(self.nested(d.name).placement_pose().inverse())
                self._poses[d.name] = X
        finally:
            for d in chain:
                self._pose_visiting.discard(d.name)
        return self._poses[name]

    def pose_parent(self, d: Decl) -> str:
        """The frame ``d``'s pose is relative to, checked to exist and not to be ``d`` itself."""
        target = self._alias(d, d.relative_to)
        if not target:
            if d.kind == "joint":
                target = self._alias(d, d.child)
            elif d.kind == "frame":
                target = self._alias(d, d.attached_to) or self._alias(d, self.root_name)
            else:
                target = self._alias(d, self.root_name)
        if target == d.name:
            raise InputError(d.where, f"relative_to '{target}' is {d.kind} '{d.name}' itself, a cycle in the pose graph")
        if d.kind == "joint" and target == "world" and self.root_name != "world":
            raise InputError(d.where, f"joint '{d.name}' cannot have its pose relative to 'world' inside a model")
        self._require(target, d, "relative_to")
        return target

    def placement_pose(self) -> Pose:
        """``X_model_P`` of this model's placement frame P (identity without one)."""
        frame = self.scope.placement_frame
        if not frame:
            return IDENTITY
        if not self.exists(frame):
            raise InputError(self.scope.placement_where or self.scope.where,
                             f"placement_frame '{frame}' names no frame in model '{self.scope.name}'")
        return self.pose(frame)

    @staticmethod
    def _alias(d: Decl, name: str) -> str:
        return d.model_alias if name == "__model__" else name

    # ---- attached_to ------------------------------------------------------------------
    def body(self, name: str) -> str:
        """The link (scoped name, e.g. ``M1::L``) frame ``name`` is attached to, or ``world``.

        The attached_to chain (frame -> frame..., joint -> child) is walked in a loop, not by recursion.
        """
        chain: list[str] = []  # name, then the frame it is attached to, ... down to a known body
        try:
            while True:
                body = self._known_body(name)
                if body is not None:
                    break
                d = self._decls[name]
                if d.kind == "joint":
                    target = self._alias(d, d.child)
                    role = "child"
                else:
                    target = self._alias(d, d.attached_to) or self._alias(d, self.root_name)
                    role = "attached_to"
                if target == name:
                    raise InputError(d.where, f"{role} of {d.kind} '{name}' is the {d.kind} itself, a cycle in the attached_to graph")
                self._require(target, d, role)
                if name in self._body_visiting:
                    raise InputError(d.where, f"the attached_to graph has a cycle through {d.kind} '{name}'")
                self._body_visiting.add(name)
                chain.append(name)
                name = target
        finally:
            for link in chain:
                self._body_visiting.discard(link)
        for link in chain:
            self._bodies[link] = body
        return body

    def _known_body(self, name: str) -> str | None:
        """The body of ``name`` when no attached_to step of this scope is needed, else None."""
        if name == "world" and (self.root_name == "world" or name not in self._decls):
            return "world"
        if name == "__model__":
            return self.canonical_link()
        head, sep, rest = name.partition("::")
        if sep and name not in self._decls:
            return _join(head, self.nested(head).body(rest))
        cached = self._bodies.get(name)
        if cached is not None:
            return cached
        d = self._decls[name]
        if d.kind == "link":
            return name
        if d.kind == "model":
            return _join(name, self.nested(name).canonical_link())
        return None

    def canonical_link(self) -> str:
        """``//model/@canonical_link``, else the first link, else the first nested model's.

        Found once per scope: every frame attached to the model frame asks for it, and the search
        runs through the declarations before the first link.
        """
        if self._canonical is None:
            self._canonical = self._find_canonical_link()
        return self._canonical

    def _find_canonical_link(self) -> str:
        scope = self.scope
        if scope.canonical_link:
            head, sep, rest = scope.canonical_link.partition("::")
            d = self._decls.get(head)
            ok = d is not None and (d.kind == "link" and not sep or d.kind == "model" and sep)
            nested = self.nested(head) if ok and sep else None
            if not ok or (sep and (not nested.exists(rest) or nested.body(rest) != rest)):
                raise InputError(scope.where, f"canonical_link '{scope.canonical_link}' names no link of model '{scope.name}'")
            return scope.canonical_link
        for d in scope.decls:
            if d.kind == "link":
                return d.name
        for d in scope.decls:
            if d.kind == "model":
                return _join(d.name, self.nested(d.name).canonical_link())
        if scope.static:  # libsdformat attaches the frames of a static model without links to its model frame
            return "__model__"
        raise InputError(scope.where, f"model '{scope.name}' has no link", "a model needs at least one link")

    # ---- joints ------------------------------------------------------------------------
    def joint_bodies(self, d: Decl) -> tuple[str, str]:
        """(parent link, child link) of joint ``d``, after checking its parent and child names."""
        parent, child = self._alias(d, d.parent), self._alias(d, d.child)
        if child == d.name:
            raise InputError(d.where, f"joint '{d.name}' names itself as its child")
        if child == "world":
            raise InputError(d.where, f"joint '{d.name}' has 'world' as its child", "world can only be a parent")
        if parent == d.name:
            raise InputError(d.where, f"joint '{d.name}' names itself as its parent")
        if parent == child:
            raise InputError(d.where, f"joint '{d.name}' has the same parent and child '{child}'")
        if parent != "world":
            self._require(parent, d, "parent")
        self._require(child, d, "child")
        parent_body, child_body = self.body(parent), self.body(child)
        for role, name, body in (("parent", parent, parent_body), ("child", child, child_body)):
            if fixed_model_frame(body):
                raise InputError(d.where, f"joint '{d.name}': {role} '{name}' is attached to no link "
                                 "(it belongs to a static model without links)", "attach the joint to a link")
        if parent_body == child_body and not self.is_nested:
            raise InputError(d.where, f"joint '{d.name}': parent '{parent}' and child '{child}' are both attached to link '{child_body}'")
        return parent_body, child_body

    def joins_one_link(self, d: Decl) -> bool:
        """Whether joint ``d`` of a nested model has its parent and child on one link: libsdformat
        checks this only for the joints of a file's top-level model and of a world's models, and
        loads such a joint of a nested model (gz-sim's nested_models test model has one)."""
        parent_body, child_body = self.joint_bodies(d)
        return parent_body == child_body

    def validate(self) -> None:
        """Resolve every declaration once so that the first error (in document order) is raised."""
        for d in self.scope.decls:
            if d.kind == "model":
                self.nested(d.name).validate()
            if d.kind == "joint":
                self.joint_bodies(d)
            elif d.kind == "frame":
                self.body(d.name)
            self.pose(d.name)
        if self.scope.kind == "model" and any(d.kind in ("link", "model") for d in self.scope.decls):
            self.canonical_link()
        elif self.scope.kind == "model" and not self.scope.static:
            # libsdformat: "A model must have at least one link", unless the model is static
            raise InputError(self.scope.where, f"model '{self.scope.name}' has no link",
                             "a model needs at least one link, or <static>true</static>")
        self.placement_pose()


def fixed_model_frame(body: str) -> bool:
    """Whether ``body`` (from :meth:`FrameGraph.body`) is the model frame of a static model without
    links, which libsdformat gives the frames of such a model; it never moves."""
    return body == "__model__" or body.endswith("::__model__")


def _join(head: str, rest: str) -> str:
    return rest if rest == "world" else f"{head}::{rest}"
