"""URDF -> USD conversion time: usdjoints beside urdf-usd-converter on example-robot-data robots.

The anchor lives in its own virtual environment (it bundles its own ``pxr``, which must never
share an environment with usd-core). Both converters run the same way, as a whole process from
the command line (interpreter start, imports, parse, mesh loading, write), each best of
``--repeat`` runs; usdjoints is also timed in-process (conversion only, after one warm-up).

    python benchmarks/convert_vs_urdf_usd_converter.py [--anchor-python /work/venv-urdfusd/bin/python]

Set up the anchor with::

    python3 -m venv /work/venv-urdfusd && /work/venv-urdfusd/bin/pip install urdf-usd-converter

Exit code 0 when every robot converted with both tools, 1 when one failed, 2 when the anchor is
not installed. The target is usdjoints <= 0.5x the anchor's time.
"""
from __future__ import annotations

import argparse
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
TARGET_RATIO = 0.5


def robots_dir() -> Path:
    distribution = metadata.distribution("example-robot-data")
    return Path(distribution.locate_file("cmeel.prefix/share/example-robot-data/robots"))


def timed(command: list[str], repeat: int, env=None) -> tuple[float, str]:
    """Best wall time [s] of ``repeat`` runs; raises RuntimeError with stderr when one fails."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
        elapsed = time.perf_counter() - start
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(command[:3])}... exit {done.returncode}: {done.stderr.strip()[-300:]}")
        best = min(best, elapsed)
    return best, ""


def anchor_command(anchor_python: str, urdf: Path, out_dir: Path, share: Path) -> list[str]:
    return [anchor_python, "-m", "urdf_usd_converter", str(urdf), str(out_dir), "--no-layer-structure",
            "--package", f"example-robot-data={share}"]


def ours_command(urdf: Path, out: Path, share: Path) -> list[str]:
    # what the `usdjoints` console script runs
    return [sys.executable, "-c", "import sys; from usdjoints.cli import main; sys.exit(main(sys.argv[1:]))",
            "convert", str(urdf), "-o", str(out),
            "--package", f"example-robot-data={share}"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--anchor-python", default="/work/venv-urdfusd/bin/python")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--robots", nargs="*", default=sorted(ROBOTS))
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
    from usdjoints.convert import convert_urdf

    robots = robots_dir()
    share = robots.parent  # package://example-robot-data/robots/... resolves under <share>/robots
    print(f"urdf-usd-converter {version} vs usdjoints, whole process by CLI (best of {args.repeat}), "
          f"usdjoints also in-process")
    header = f"{'robot':<20}{'anchor CLI [s]':>16}{'ours CLI [s]':>14}{'ratio':>8}{'ours in-proc [s]':>18}"
    print(header)
    ratios = []
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        tmp_dir = Path(tmp)
        for name in args.robots:
            urdf = robots / ROBOTS[name]
            try:
                anchor_s, _ = timed(anchor_command(args.anchor_python, urdf, tmp_dir / f"anchor_{name}", share),
                                    args.repeat)
                ours_s, _ = timed(ours_command(urdf, tmp_dir / f"{name}.usdc", share), args.repeat)
            except RuntimeError as error:
                print(f"{name:<20}failed: {error}")
                failed = True
                continue
            out = tmp_dir / f"{name}_inproc.usdc"
            packages = {"example-robot-data": str(share)}
            convert_urdf(urdf, out, packages=packages)  # warm-up: imports and first-use caches
            inproc = []
            for _ in range(args.repeat):
                start = time.perf_counter()
                convert_urdf(urdf, out, packages=packages)
                inproc.append(time.perf_counter() - start)
            ratio = ours_s / anchor_s
            ratios.append(ratio)
            print(f"{name:<20}{anchor_s:>16.3f}{ours_s:>14.3f}{ratio:>7.2f}x{min(inproc):>18.3f}")
    if ratios:
        geo = statistics.geometric_mean(ratios)
        print(f"geometric mean ratio (ours / anchor, CLI): {geo:.2f}x; worst {max(ratios):.2f}x; "
              f"target <= {TARGET_RATIO}x: {'met' if max(ratios) <= TARGET_RATIO else 'not met'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
