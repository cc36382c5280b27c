"""The usdview menu commands. Each takes usdview's ``usdviewApi`` and works on its stage.

Only a few members of usdviewApi are used (``stage``, ``selectedPrims``, ``dataModel.selection``,
``PrintStatus``, ``qMainWindow``), so the commands run the same under a stand-in without a viewer.
Edits go into the stage's session layer: the viewer shows them, the asset file never gets them.
Each command returns a :class:`Outcome` (ignored by usdview, read by tests and scripts); a
usdjoints error becomes one status line, never a traceback in the viewer.
"""
from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field

from ..errors import UsageError, UsdJointsError
from . import dialogs

DEFAULT_DURATION = 2.0  # [s] offered by "Simulate"


@dataclass(frozen=True)
class Outcome:
    """What a command did: ``ok``, the status line shown, the prims it selected, what it wrote."""

    ok: bool
    message: str
    selected: tuple[str, ...] = ()
    wrote: tuple[str, ...] = ()
    detail: object = None
    text: str = field(default="", repr=False)


def _command(function):
    """Report a usdjoints error as one status line instead of raising into the viewer."""

    @functools.wraps(function)
    def run(usdview_api, *args, **kwargs):
        try:
            outcome = function(usdview_api, *args, **kwargs)
        except UsdJointsError as error:
            outcome = Outcome(False, f"usdjoints: {error}")
        usdview_api.PrintStatus(outcome.message)
        return outcome

    return run


@_command
def audit_stage(usdview_api) -> Outcome:
    """Audit the viewer's stage for every consumer; findings in a window, their prims selected.

    Choosing a finding in the window selects its prim. Without a window every finding is printed
    and the prims that have an error (else a warning, else any finding) are selected.
    """
    audit = _auditor()
    stage = usdview_api.stage
    report = audit(stage)
    findings = report.findings
    header = ("severity", "rule", "prim", "attribute", "consumers", "message", "fix")
    rows = [(f.severity, f.rule, f.prim or "-", f.attribute or "-", ", ".join(f.consumers), f.message,
             f.fix or "") for f in findings]
    summary = report.summary()
    message = (f"usdjoints audit: {summary['error']} error(s), {summary['warning']} warning(s), "
               f"{summary['info']} info on {len(findings)} finding(s)")
    choose = functools.partial(_select_finding, usdview_api, findings)
    window = dialogs.show_table(usdview_api, "usdjoints: audit", header, rows, on_choose=choose)
    selected: tuple[str, ...] = ()
    if window is None:
        for f in findings:
            usdview_api.PrintStatus(f"{f.severity} {f.rule} {f.prim or '-'}: {f.message}")
        selected = select_prims(usdview_api, _worst_prims(findings))
    return Outcome(True, message, selected=selected, detail=report,
                   text="\n".join(" | ".join(r) for r in rows))


def _select_finding(usdview_api, findings, row: int) -> tuple[str, ...]:
    prim = findings[row].prim
    return select_prims(usdview_api, [prim] if prim else [])


def select_finding(usdview_api, finding) -> tuple[str, ...]:
    """What choosing ``finding`` in the audit window does: select its prim (nothing for a stage-wide one)."""
    return select_prims(usdview_api, [finding.prim] if finding.prim else [])


@_command
def inspect_joint(usdview_api) -> Outcome:
    """Every column of the selected joints with its value and source, for each consumer."""
    from .inspect import inspect_joints, render_inspection

    paths = [str(p.GetPath()) for p in usdview_api.selectedPrims]
    if not paths:
        return Outcome(False, "usdjoints: select one or more joint prims first")
    inspections = inspect_joints(usdview_api.stage, paths)
    if not inspections:
        return Outcome(False, "usdjoints: no selected prim is a joint for any consumer")
    text = render_inspection(inspections)
    if dialogs.show_text(usdview_api, "usdjoints: " + ", ".join(i.path for i in inspections), text) is None:
        for line in text.splitlines():
            usdview_api.PrintStatus(line)
    return Outcome(True, f"usdjoints: inspected {len(inspections)} joint(s)", detail=inspections, text=text)


@_command
def toggle_joint_frames(usdview_api) -> Outcome:
    """Draw the frames of the selected joints (all joints when none is selected), or remove them."""
    from .frames import FRAMES_SCOPE, remove_joint_frames, author_joint_frames
    from ..walker import walk

    stage = usdview_api.stage
    session = stage.GetSessionLayer()
    if remove_joint_frames(stage, session):
        return Outcome(True, "usdjoints: joint frames removed", wrote=(FRAMES_SCOPE,))
    joint_paths = {j.path for j in walk(stage).joints}
    chosen = [str(p.GetPath()) for p in usdview_api.selectedPrims if str(p.GetPath()) in joint_paths]
    result = author_joint_frames(stage, chosen or None, session)
    return Outcome(True, f"usdjoints: frames of {len(result.joints)} joint(s) under {FRAMES_SCOPE} "
                   "(frame 0 saturated, frame 1 pale, axis yellow)", wrote=result.curves, detail=result)


@_command
def simulate_stage(usdview_api, duration=None) -> Outcome:
    """Simulate the stage and write the motion into the session layer; the timeline plays it."""
    from .simulate import simulate_to_time_samples

    if duration is None:
        duration = dialogs.ask_duration(usdview_api, DEFAULT_DURATION)
        if duration is None:
            return Outcome(False, "usdjoints: simulation cancelled")
    stage = usdview_api.stage
    result = simulate_to_time_samples(stage, float(duration), layer=stage.GetSessionLayer())
    _refresh(usdview_api)
    return Outcome(True, f"usdjoints: simulated {duration:g} s, {len(result.bodies)} bodies, time codes "
                   f"{result.start_time_code:g}-{result.end_time_code:g} (session layer)",
                   wrote=result.bodies, detail=result)


@_command
def pin_defaults(usdview_api) -> Outcome:
    """Write the audit's fix layer beside the stage (``<stem>.pinned.usda``) and select what it pins.

    The fix layer is a new root layer over the stage: open it instead of the stage to read the
    pinned values. The stage in the viewer is not changed.
    """
    _auditor()
    from ..auditor.fix import write_fix_layer

    stage = usdview_api.stage
    source = stage.GetRootLayer().realPath
    if not source:
        raise UsageError("pinning defaults needs a stage saved to a file; save it first")
    out = fix_layer_path(source)
    result = write_fix_layer(stage, out)
    prims = [p.prim for p in result.pinned if p.prim]
    selected = select_prims(usdview_api, prims)
    skipped = f", {len(result.skipped)} instance prim(s) skipped" if result.skipped else ""
    return Outcome(True, f"usdjoints: pinned {len(result.pinned)} value(s) on {len(selected)} prim(s) in "
                   f"{out}{skipped}; open that file to read them", selected=selected, wrote=(out,),
                   detail=result)


def fix_layer_path(stage_path: str) -> str:
    """Where "Pin defaults" writes: beside the stage, ``robot.usda`` -> ``robot.pinned.usda``."""
    stem, _ = os.path.splitext(stage_path)
    return stem + ".pinned.usda"


def select_prims(usdview_api, paths) -> tuple[str, ...]:
    """Make ``paths`` the viewer's prim selection (unknown paths are skipped); returns what was selected."""
    stage = usdview_api.stage
    selection = usdview_api.dataModel.selection
    chosen = []
    for path in dict.fromkeys(paths):
        prim = stage.GetPrimAtPath(path)
        if prim:
            chosen.append(prim)
    batch = getattr(selection, "batchPrimChanges", None)
    with batch if batch is not None else _NoBatch():
        selection.clearPrims()
        for prim in chosen:
            selection.addPrim(prim)
    return tuple(str(p.GetPath()) for p in chosen)


def _worst_prims(findings) -> list[str]:
    from ..auditor.findings import SEVERITY_RANK

    with_prim = [f for f in findings if f.prim]
    if not with_prim:
        return []
    worst = max(SEVERITY_RANK[f.severity] for f in with_prim)
    return [f.prim for f in with_prim if SEVERITY_RANK[f.severity] == worst]


def _auditor():
    from ..auditor import audit

    return audit


def _refresh(usdview_api) -> None:
    """Ask the viewer to pick up a new time range; a stand-in without the method is fine."""
    update = getattr(usdview_api, "UpdateGUI", None)
    if update is not None:
        update()


class _NoBatch:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

