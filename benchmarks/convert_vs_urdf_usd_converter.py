"""URDF -> USD conversion time: usdjoints beside urdf-usd-converter on example-robot-data robots.

The anchor lives in its own virtual environment (it bundles its own ``pxr``, which must never
share an environment with usd-core). Each robot is timed four ways, each the best of ``--repeat``
runs:

* anchor CLI / ours CLI: the whole command as a new process (interpreter start, imports, parse,
  mesh loading, write): ``python -m urdf_usd_converter URDF DIR --no-layer-structure --package
  ...`` and what the ``usdjoints convert URDF -o OUT.usdc --package ...`` console script runs,
  after one untimed warm-up run each. Both run with compiled bytecode, as installed packages do:
  the anchor's from its install, ours from a temporary bytecode cache the warm-up fills (see
  :func:`bytecode_env`).
* anchor in-process / ours in-process: the conversion call alone, in one long-lived process per
  tool after one warm-up conversion of the same robot (imports done, first-use caches filled):
  ``urdf_usd_converter.Converter(layer_structure=False, ros_packages=[...]).convert(URDF, DIR)``
  run by the anchor's interpreter with its CLI's default diagnostics level (warnings only), and
  ``usdjoints.convert.convert_urdf(URDF, OUT.usdc, packages=...)`` here. Each run gets a fresh
  converter object and a fresh output directory (anchor) or file name (ours).

Both tools write one binary crate layer per robot: the anchor flattens its layered asset into
``DIR/<robot>.usdc`` when layer structure is off (textures, if any, are copied beside it), and
usdjoints writes ``OUT.usdc``. The formats found on disk are checked and printed.

    python benchmarks/convert_vs_urdf_usd_converter.py [--anchor-python /work/venv-urdfusd/bin/python]

Set up the anchor with::

    python3 -m venv /work/venv-urdfusd && /work/venv-urdfusd/bin/pip install urdf-usd-converter

Exit code 0 when every robot converted with both tools, 1 when one failed, 2 when the anchor is
not installed. The targets are usdjoints <= 0.3x the anchor's time in-process (issue 14) and
<= 0.5x by CLI (interpreter start and imports, which neither tool can shed, weigh more there).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path

ROBOTS = {
    "double_pendulum": "double_pendulum_description/urdf/double_pendulum.urdf",
    "ur5": "ur_description/urdf/ur5_robot.urdf",
    "panda": "panda_description/urdf/panda.urdf",
    "solo12": "solo_description/robots/solo12.urdf",
    "anymal": "anymal_b_simple_description/robots/anymal.urdf",
    "hyq": "hyq_description/robots/hyq_no_sensors.urdf",
    "allegro_left_hand": "allegro_hand_description/urdf/allegro_left_hand.urdf",
    "romeo_small": "romeo_description/urdf/romeo_small.urdf",
    "talos_full_v2": "talos_data/robots/talos_full_v2.urdf",
}
CLI_TARGET = 0.5
IN_PROCESS_TARGET = 0.3

# Run by the anchor's interpreter: argv[1] is a JSON job {robots: {name: urdf}, share, repeat, tmp};
# prints one JSON line {name: {"seconds": best, "written": file name} | {"error": message}}.
ANCHOR_IN_PROCESS = r"""
import json, pathlib, sys, time
import usdex.core
from urdf_usd_converter import Converter

usdex.core.activateDiagnosticsDelegate()  # as the anchor's CLI does by default: warnings only
usdex.core.setDiagnosticsLevel(usdex.core.DiagnosticsLevel.eWarning)
job = json.loads(sys.argv[1])
packages = [{"name": "example-robot-data", "path": job["share"]}]
results = {}
for name, urdf in job["robots"].items():
    try:
        best, written = float("inf"), None
        for run in range(job["repeat"] + 1):  # run 0 is the warm-up
            out_dir = pathlib.Path(job["tmp"]) / f"anchor_inproc_{name}_{run}"
            out_dir.mkdir()
            start = time.perf_counter()
            asset = Converter(layer_structure=False, ros_packages=packages).convert(urdf, str(out_dir))
            elapsed = time.perf_counter() - start
            if run:
                best = min(best, elapsed)
            written = pathlib.Path(asset.path).name
        results[name] = {"seconds": best, "written": written}
    except Exception as error:
        results[name] = {"error": f"{type(error).__name__}: {error}"[:300]}
print(json.dumps(results))
"""


def robots_dir() -> Path:
    distribution = metadata.distribution("example-robot-data")
    return Path(distribution.locate_file("cmeel.prefix/share/example-robot-data/robots"))


def timed(commands: list[list[str]], env: dict[str, str] | None = None) -> float:
    """Best wall time [s] over the commands after the first, an untimed warm-up (page cache, bytecode
    cache); raises RuntimeError with stderr when one fails."""
    best = float("inf")
    for run, command in enumerate(commands):
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
        elapsed = time.perf_counter() - start
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(command[:3])}... exit {done.returncode}: {done.stderr.strip()[-300:]}")
        if run:
            best = min(best, elapsed)
    return best


def bytecode_env(cache_dir: Path) -> dict[str, str]:
    """The environment for our CLI runs: bytecode written to and read from ``cache_dir``.

    An installed package carries compiled bytecode (the anchor's does: pip compiled it), but an
    editable checkout run with PYTHONDONTWRITEBYTECODE recompiles every usdjoints module in every
    process (~30 ms here); the warm-up run fills this cache instead, outside the source tree.
    """
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(cache_dir)
    return env


def anchor_command(anchor_python: str, urdf: Path, out_dir: Path, share: Path) -> list[str]:
    return [anchor_python, "-m", "urdf_usd_converter", str(urdf), str(out_dir), "--no-layer-structure",
            "--package", f"example-robot-data={share}"]


def ours_command(urdf: Path, out: Path, share: Path) -> list[str]:
    # what the `usdjoints` console script runs
    return [sys.executable, "-c", "import sys; from usdjoints.cli import main; sys.exit(main(sys.argv[1:]))",
            "convert", str(urdf), "-o", str(out),
            "--package", f"example-robot-data={share}"]


def usd_files(directory: Path) -> list[str]:
    return sorted(path.name for path in directory.iterdir() if path.suffix in (".usd", ".usda", ".usdc"))


def anchor_in_process(anchor_python: str, robots: dict[str, Path], share: Path, repeat: int, tmp: Path) -> dict:
    job = {"robots": {name: str(urdf) for name, urdf in robots.items()}, "share": str(share), "repeat": repeat,
           "tmp": str(tmp)}
    done = subprocess.run([anchor_python, "-c", ANCHOR_IN_PROCESS, json.dumps(job)], capture_output=True, text=True,
                          check=False)
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        message = f"anchor in-process run exit {done.returncode}: {done.stderr.strip()[-300:]}"
        return {name: {"error": message} for name in robots}
    return json.loads(lines[-1])


def ours_in_process(urdf: Path, share: Path, repeat: int, tmp: Path, name: str) -> float:
    from usdjoints.convert import convert_urdf

    packages = {"example-robot-data": str(share)}
    best = float("inf")
    for run in range(repeat + 1):  # run 0 is the warm-up: imports and first-use caches
        out = tmp / f"ours_inproc_{name}_{run}.usdc"
        start = time.perf_counter()
        convert_urdf(urdf, out, packages=packages)
        elapsed = time.perf_counter() - start
        if run:
            best = min(best, elapsed)
    return best


def summary(label: str, ratios: dict[str, float], target: float) -> str:
    if not ratios:
        return f"{label}: no robot converted by both tools"
    worst = max(ratios, key=ratios.get)
    geo = statistics.geometric_mean(ratios.values())
    return (f"{label}: geometric mean {geo:.2f}x ({'meets' if geo <= target else 'misses'} "
            f"<= {target}x), worst {ratios[worst]:.2f}x ({worst}; "
            f"{'meets' if ratios[worst] <= target else 'misses'} <= {target}x)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--anchor-python", default="/work/venv-urdfusd/bin/python")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--robots", nargs="*", default=sorted(ROBOTS), choices=sorted(ROBOTS), metavar="ROBOT")
    args = parser.parse_args()

    probe = subprocess.run([args.anchor_python, "-c", "import urdf_usd_converter"], capture_output=True, text=True,
                           check=False) if Path(args.anchor_python).exists() else None
    if probe is None or probe.returncode != 0:
        print(f"urdf-usd-converter is not installed at {args.anchor_python}: create its own environment with\n"
              "  python3 -m venv /work/venv-urdfusd && /work/venv-urdfusd/bin/pip install urdf-usd-converter\n"
              "(never into usdjoints' environment: it bundles its own pxr)", file=sys.stderr)
        return 2
    version = subprocess.run([args.anchor_python, "-c", "from importlib.metadata import version; "
                              "print(version('urdf-usd-converter'))"], capture_output=True, text=True).stdout.strip()

    import usdjoints  # noqa: F401  (PhysX schemas before any stage)

    robots = robots_dir()
    share = robots.parent  # package://example-robot-data/robots/... resolves under <share>/robots
    urdfs = {name: robots / ROBOTS[name] for name in args.robots}
    print(f"urdf-usd-converter {version} vs usdjoints {usdjoints.__version__}, best of {args.repeat}: "
          f"CLI = whole process, in-proc = conversion call after a warm-up")
    header = (f"{'robot':<20}{'anchor CLI':>11}{'ours CLI':>10}{'ratio':>8}"
              f"{'anchor in-proc':>16}{'ours in-proc':>14}{'ratio':>8}   [s]")
    cli_ratios: dict[str, float] = {}
    inproc_ratios: dict[str, float] = {}
    written: dict[str, set[str]] = {"anchor": set(), "usdjoints": set()}
    anchor_layer_counts: set[int] = set()
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        tmp_dir = Path(tmp)
        anchor_inproc = anchor_in_process(args.anchor_python, urdfs, share, args.repeat, tmp_dir)
        print(header)
        for name, urdf in urdfs.items():
            anchor_dirs = [tmp_dir / f"anchor_cli_{name}_{run}" for run in range(args.repeat + 1)]
            ours_outs = [tmp_dir / f"ours_cli_{name}_{run}.usdc" for run in range(args.repeat + 1)]
            try:
                anchor_s = timed([anchor_command(args.anchor_python, urdf, d, share) for d in anchor_dirs])
                ours_s = timed([ours_command(urdf, out, share) for out in ours_outs], bytecode_env(tmp_dir / "pyc"))
                ours_inproc_s = ours_in_process(urdf, share, args.repeat, tmp_dir, name)
            except Exception as error:  # any failure of either tool is reported per robot
                print(f"{name:<20}failed: {error}")
                failed = True
                continue
            anchor_layers = usd_files(anchor_dirs[0])
            anchor_layer_counts.add(len(anchor_layers))
            written["anchor"].update(Path(f).suffix for f in anchor_layers)
            written["usdjoints"].update(out.suffix for out in ours_outs if out.is_file())
            cli_ratios[name] = ours_s / anchor_s
            row = f"{name:<20}{anchor_s:>11.3f}{ours_s:>10.3f}{cli_ratios[name]:>7.2f}x"
            entry = anchor_inproc.get(name, {"error": "no result"})
            if "error" in entry:
                print(f"{row}   anchor in-process failed: {entry['error']}")
                failed = True
                continue
            written["anchor"].add(Path(entry["written"]).suffix)
            inproc_ratios[name] = ours_inproc_s / entry["seconds"]
            print(f"{row}{entry['seconds']:>16.3f}{ours_inproc_s:>14.3f}{inproc_ratios[name]:>7.2f}x")
    counts = "/".join(str(n) for n in sorted(anchor_layer_counts)) or "-"
    print(f"layers written: anchor {', '.join(sorted(written['anchor'])) or '-'} ({counts} USD file(s) per robot "
          f"directory), usdjoints {', '.join(sorted(written['usdjoints'])) or '-'} (one file per robot)")
    print(summary("CLI ratio (ours / anchor)", cli_ratios, CLI_TARGET))
    print(summary("in-process ratio (ours / anchor)", inproc_ratios, IN_PROCESS_TARGET))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
