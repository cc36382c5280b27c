"""The fuzzer's worker: runs cases through the public functions and reports each outcome.

Protocol (one JSON object per line): the parent sends a case
``{"main": path, "kind": k, "steps": [...]|null, "token": marker_text, "resources": [...],
"simulate": bool, "cli": bool}``; the worker answers ``{"step": name}`` before each step (so a
hang or a signal can be pinned to a step) and ``{"result": [...]}`` at the end, one entry per step:
``{"step", "outcome": ok|rejected|crash|partial|leak, "type", "frame", "message"}``.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import traceback
import warnings

CONSUMERS = ("ovphysx", "usdphysics", "usdjoints")
USD_STEPS = ("open", "walk:ovphysx", "walk:usdphysics", "walk:usdjoints", "audit", "load_model")
XML_STEPS = ("convert", "convert_file")


def innermost_frame(error: BaseException) -> str:
    """The innermost traceback frame inside the usdjoints package, as ``module.py:function``."""
    frames = traceback.extract_tb(error.__traceback__)
    inside = [f for f in frames if f"{os.sep}usdjoints{os.sep}" in f.filename]
    frame = inside[-1] if inside else (frames[-1] if frames else None)
    if frame is None:
        return "?"
    parts = frame.filename.split(os.sep)
    where = "/".join(parts[parts.index("usdjoints"):]) if "usdjoints" in parts else os.path.basename(frame.filename)
    return f"{where}:{frame.name}"


class Runner:
    def __init__(self):
        import usdjoints  # noqa: F401 (registers the schemas)
        from usdjoints.errors import UsdJointsError

        self.UsdJointsError = UsdJointsError
        warnings.simplefilter("ignore")

    def run_case(self, case: dict, emit) -> list[dict]:
        kind = case["kind"]
        steps = case.get("steps") or (list(USD_STEPS) if kind in ("usda", "usdc") else list(XML_STEPS))
        if kind in ("usda", "usdc") and case.get("simulate") and not case.get("steps"):
            steps.append("simulate")
        if case.get("cli") and not case.get("steps"):
            steps.append("cli")
        results = []
        self.token = case["token"]
        self.outputs: list[str] = []
        for step in steps:
            emit({"step": step})
            results.append(self.run_step(step, case))
        # A converted stage goes through the USD side as well.
        if kind in ("urdf", "sdf") and not case.get("steps"):
            converted = case.get("_converted")
            if converted:
                for step in USD_STEPS:
                    emit({"step": "converted:" + step})
                    entry = self.run_step(step, dict(case, main=converted, kind="usda"))
                    entry["step"] = "converted:" + step
                    results.append(entry)
        return results

    def run_step(self, step: str, case: dict) -> dict:
        texts: list[str] = []
        entry = {"step": step, "outcome": "ok"}
        try:
            self._step(step, case, texts)
        except self.UsdJointsError as error:
            entry.update(outcome="rejected", type=type(error).__name__, message=str(error)[:300])
            texts.append(str(error))
            if step in XML_STEPS:
                leftovers = self._leftovers(case)
                if leftovers:
                    entry.update(outcome="partial", message="output left after a failure: " + ", ".join(leftovers))
        except _Partial as error:
            entry.update(outcome="partial", message=str(error))
        except _CliCrash as error:
            entry.update(outcome="crash", type=error.args[0], frame="cli", message=error.args[1][:300])
            texts.append(error.args[1])
        except RecursionError as error:
            entry.update(outcome="crash", type="RecursionError", frame=innermost_frame(error), message="")
        except BaseException as error:  # noqa: BLE001 (classifying every escape is the point)
            if isinstance(error, KeyboardInterrupt):
                raise
            entry.update(outcome="crash", type=type(error).__name__, frame=innermost_frame(error),
                         message=f"{error}"[:300])
            texts.append(repr(error))
        if any(self.token in t for t in texts) or self._leak_in_outputs():
            entry.update(outcome="leak", message="marker content in the output")
        return entry

    def _leftovers(self, case) -> list[str]:
        out_dir = os.path.join(os.path.dirname(case["main"]), "out")
        return sorted(os.listdir(out_dir)) if os.path.isdir(out_dir) else []

    def _leak_in_outputs(self) -> bool:
        token = self.token.encode()
        for path in self.outputs:
            try:
                with open(path, "rb") as f:
                    if token in f.read():
                        return True
            except OSError:
                pass
        return False

    def _step(self, step: str, case: dict, texts: list[str]) -> None:
        import usdjoints
        from usdjoints import jsonio
        from usdjoints.walker.render import render_text, walk_json

        main = case["main"]
        if step == "open":
            usdjoints.open_stage(main)
        elif step.startswith("walk:"):
            description = usdjoints.walk(main, consumer=step.split(":", 1)[1])
            texts.append(jsonio.dumps(walk_json(description)))
            texts.append(render_text(description))
        elif step == "audit":
            from usdjoints.auditor.writers import render

            report = usdjoints.audit(main)
            for fmt in ("json", "sarif", "text"):
                texts.append(render(report, fmt))
        elif step == "load_model":
            usdjoints.load_model(main)
        elif step == "simulate":
            model = usdjoints.load_model(main)
            usdjoints.simulate(model, duration=0.004, dt=0.001)
        elif step in XML_STEPS:
            self._convert(step, case, texts)
        elif step == "cli":
            self._cli(case, texts)
        else:
            raise ValueError(f"unknown step {step}")

    def _convert(self, step, case, texts) -> None:
        import usdjoints
        from usdjoints.convert.api import convert_file

        main = case["main"]
        out_dir = os.path.join(os.path.dirname(main), "out")
        os.makedirs(out_dir, exist_ok=True)
        for name in os.listdir(out_dir):
            os.unlink(os.path.join(out_dir, name))
        out = os.path.join(out_dir, "robot" + (".usdc" if case.get("usdc_out") else ".usda"))
        kwargs = {"resource_paths": case.get("resources") or []}
        if step == "convert_file":
            report = convert_file(main, out, **kwargs)
        elif case["kind"] == "urdf":
            report = usdjoints.convert_urdf(main, out, **kwargs)
        else:
            report = usdjoints.convert_sdformat(main, out, **kwargs)
        texts.append(repr(report))
        for warning in getattr(report, "warnings", ()) or ():
            texts.append(str(warning))
        self.outputs.append(out)
        from pxr import Sdf

        if not os.path.isfile(out) or Sdf.Layer.OpenAsAnonymous(out) is None:
            raise _Partial(f"{step} returned but its output {out} is missing or unreadable")
        extra = [n for n in os.listdir(out_dir) if n != os.path.basename(out)]
        if extra:
            raise _Partial(f"{step} left extra files: {extra}")
        if step == "convert":  # kept for the USD steps, out of the way of convert_file
            kept_dir = os.path.join(os.path.dirname(main), "out_kept")
            os.makedirs(kept_dir, exist_ok=True)
            keep = os.path.join(kept_dir, os.path.basename(out))
            os.replace(out, keep)
            case["_converted"] = keep
            self.outputs.append(keep)

    def _cli(self, case, texts) -> None:
        kind = case["kind"]
        main = case["main"]
        if kind in ("urdf", "sdf"):
            out = os.path.join(os.path.dirname(main), "cli_out.usda")
            args = ["convert", main, "-o", out] + [a for r in case.get("resources") or [] for a in ("--resource-path", r)]
        else:
            args = [case.get("cli_command", "walk"), main, "--format", "json"]
        code = "import sys; from usdjoints.cli import main; sys.exit(main(sys.argv[1:]))"
        try:
            proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, timeout=18,
                                  env=dict(os.environ, PYTHONWARNINGS="ignore"))
        except subprocess.TimeoutExpired:
            raise _CliCrash("CliHang", "the command line did not finish in 18 s")
        stderr = proc.stderr.decode("utf-8", "replace")
        stdout = proc.stdout.decode("utf-8", "replace")
        texts.extend([stdout, stderr])
        if kind in ("urdf", "sdf"):
            out = os.path.join(os.path.dirname(main), "cli_out.usda")
            if os.path.exists(out):
                self.outputs.append(out)
        if proc.returncode not in (0, 1, 2) or "internal error" in stderr or "Traceback" in stderr:
            last = [line for line in stderr.splitlines() if line.strip()][-1:] or [f"exit {proc.returncode}"]
            kind_of = "exit%d" % proc.returncode
            if "internal error:" in last[0]:
                kind_of = last[0].split("internal error:", 1)[1].split(":", 1)[0].strip()
            raise _CliCrash("cli:" + kind_of, last[0])


class _Partial(Exception):
    pass


class _CliCrash(Exception):
    pass


def main() -> int:
    sys.setrecursionlimit(4000)
    runner = Runner()
    # The protocol gets its own descriptor; anything the code under test (Python or native) writes
    # to stdout goes to stderr instead.
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    def emit(obj):
        out.write(json.dumps(obj) + "\n")
        out.flush()

    emit({"ready": True})
    for line in sys.stdin:
        if not line.strip():
            continue
        case = json.loads(line)
        emit({"result": runner.run_case(case, emit)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
