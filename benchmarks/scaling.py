"""How usdjoints' time grows with the size of a robot: serial chains of N links.

For each N (default 1,000, 10,000 and 40,000 links) three inputs are written:

* ``chain_N.urdf``: a URDF serial chain (``link0`` to ``link{N-1}``, N-1 revolute joints, each
  link with mass, inertia and a box collision);
* ``chain_N.sdf``: the same chain as an SDFormat 1.9 model;
* ``chain_N.usdc``: a USD stage with one articulation of N Cube bodies and N revolute joints,
  written by ``benchmarks/make_chain_stage.py`` (``chain_length = N``).

Each stage goes through ``walk`` (ovphysx), ``audit`` and ``load_model`` (``contact=False``
unless ``--contact``: the contact model keeps every pair of colliders that may touch, n(n-1)/2
for a chain, so with contact it is quadratic by design); the URDF and SDFormat
files first go through ``convert_urdf`` / ``convert_sdformat`` (to .usdc), and their converted
stages are the ones walked, audited and loaded. Every stage is timed once per size (the 40,000
case is heavy: it is run once, not repeated), each in a fresh process so one stage's caches do
not help the next.

Times are CPU seconds (the process and the binary-layer probe it starts), which a shared machine
disturbs far less than wall time (printed beside them). The growth exponent of a (format, stage)
row is the slope of the least-squares line through (log N, log t); 1 is linear. The target is <= 1.2 (issue 13). Exit code 0 when every exponent
meets it, 1 otherwise.

    python benchmarks/scaling.py [--sizes 1000,10000,40000] [--formats urdf,sdf,usd]
                                 [--stages convert,walk,audit,load_model] [--out DIR] [--target 1.2]

``--stages convert`` times the converters alone; the other stages of a URDF or SDFormat row still
convert first (untimed) to have a stage to read.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LINK = 0.1  # [m] spacing of the links along X
FORMATS = ("urdf", "sdf", "usd")
STAGES = ("convert", "walk", "audit", "load_model")


def write_urdf(path: Path, n: int) -> None:
    parts = ['<?xml version="1.0"?>', '<robot name="chain">']
    for k in range(n):
        parts.append(
            f'<link name="link{k}"><inertial><origin xyz="0 0 0"/><mass value="1"/>'
            '<inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.001"/></inertial>'
            f'<collision><geometry><box size="{LINK / 2} 0.02 0.02"/></geometry></collision></link>')
    for k in range(1, n):
        parts.append(
            f'<joint name="joint{k}" type="revolute"><parent link="link{k - 1}"/><child link="link{k}"/>'
            f'<origin xyz="{LINK} 0 0" rpy="0 0 0"/><axis xyz="0 0 1"/>'
            '<limit lower="-1" upper="1" effort="10" velocity="1"/></joint>')
    parts.append("</robot>")
    path.write_text("\n".join(parts) + "\n")


def write_sdf(path: Path, n: int) -> None:
    parts = ['<?xml version="1.0"?>', '<sdf version="1.9">', '<model name="chain">']
    for k in range(n):
        parts.append(
            f'<link name="link{k}"><pose>{LINK * k} 0 0 0 0 0</pose><inertial><mass>1</mass>'
            '<inertia><ixx>0.001</ixx><iyy>0.001</iyy><izz>0.001</izz><ixy>0</ixy><ixz>0</ixz><iyz>0</iyz>'
            f'</inertia></inertial><collision name="c"><geometry><box><size>{LINK / 2} 0.02 0.02</size></box>'
            '</geometry></collision></link>')
    for k in range(1, n):
        parts.append(
            f'<joint name="joint{k}" type="revolute"><parent>link{k - 1}</parent><child>link{k}</child>'
            '<axis><xyz>0 0 1</xyz><limit><lower>-1</lower><upper>1</upper><effort>10</effort>'
            '<velocity>1</velocity></limit></axis></joint>')
    parts.append("</model></sdf>")
    path.write_text("\n".join(parts) + "\n")


# One stage in a fresh interpreter: prints its wall and CPU seconds (this process and the
# binary-layer probe it starts) and the peak RSS as JSON.
_CHILD = r"""
import json, resource, sys, time
stage, path, extra, contact = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
import usdjoints

def cpu():
    a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime

t, c = time.perf_counter(), cpu()
if stage == "convert":
    from usdjoints.convert import convert_file
    convert_file(path, extra)
elif stage == "walk":
    d = usdjoints.walk(path, "ovphysx")
    assert len(d.joints) >= int(extra), (len(d.joints), extra)
elif stage == "audit":
    usdjoints.audit(path)
elif stage == "load_model":
    m = usdjoints.load_model(path, contact=contact)
    assert len(m.link_parent) >= int(extra), (len(m.link_parent), extra)
t, c = time.perf_counter() - t, cpu() - c
print(json.dumps({"seconds": t, "cpu": c, "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def run_stage(stage: str, path: Path, extra: str, contact: bool = False) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + (os.pathsep + os.environ["PYTHONPATH"]
                                                   if os.environ.get("PYTHONPATH") else ""))
    # run in ROOT: ``-c`` puts the current folder first on sys.path, and ROOT's usdjoints is the
    # one to time even when the script is started from another checkout
    done = subprocess.run([sys.executable, "-c", _CHILD, stage, str(path), extra, "1" if contact else "0"], capture_output=True,
                          text=True, env=env, check=False, cwd=ROOT)
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise RuntimeError(f"{stage} {path.name}: exit {done.returncode}: {tail}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _progress(fmt: str, stage: str, n: int, result: dict) -> None:
    print(f"  {fmt} {stage} {n}: {result['cpu']:.2f} s CPU, {result['seconds']:.1f} s wall, "
          f"{result['rss_mb']:.0f} MB", file=sys.stderr, flush=True)


def exponent(sizes: list[int], times: list[float]) -> float:
    xs = [math.log(n) for n in sizes]
    ys = [math.log(max(t, 1e-6)) for t in times]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,40000", help="chain lengths (default 1000,10000,40000)")
    parser.add_argument("--formats", default=",".join(FORMATS), help="formats (default urdf,sdf,usd)")
    parser.add_argument("--stages", default=",".join(STAGES),
                        help="stages to time (default convert,walk,audit,load_model)")
    parser.add_argument("--out", type=Path, default=None, help="working folder (default: a temporary one)")
    parser.add_argument("--target", type=float, default=1.2, help="largest growth exponent allowed (default 1.2)")
    parser.add_argument("--contact", action="store_true",
                        help="load_model with contact pairs (all collider pairs: quadratic by design; default off)")
    args = parser.parse_args(argv)
    sizes = sorted(int(s) for s in args.sizes.split(","))
    formats = [f for f in args.formats.split(",") if f]
    stages = [s for s in args.stages.split(",") if s]
    if len(sizes) < 2 or any(f not in FORMATS for f in formats):
        parser.error("give at least two sizes and formats among urdf,sdf,usd")
    if not stages or any(s not in STAGES for s in stages):
        parser.error("give stages among " + ",".join(STAGES))
    if formats == ["usd"] and stages == ["convert"]:
        parser.error("a USD stage is not converted: give urdf or sdf with --stages convert")
    out = (args.out or Path(tempfile.mkdtemp(prefix="usdjoints-scaling-"))).resolve()  # the stages run in ROOT
    out.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from make_chain_stage import make_chain_stage

    times: dict[tuple[str, str], list[float]] = {}
    print(f"CPU seconds (wall seconds) per stage; exponent of the CPU time; load_model contact={args.contact}")
    print(f"{'format':6s} {'stage':10s} " + " ".join(f"{n:>16d}" for n in sizes) + "  exponent  peak RSS")
    for fmt in formats:
        if fmt == "usd" and stages == ["convert"]:
            continue  # nothing to time: a USD stage is not converted
        rows: dict[str, list[tuple[float, float]]] = {s: [] for s in STAGES}
        rss: dict[str, float] = {s: 0.0 for s in STAGES}
        for n in sizes:
            if fmt == "usd":
                stage_path = out / f"chain_{n}.usdc"
                if not stage_path.exists():
                    make_chain_stage(stage_path, n, chain_length=n)
                joints = n
            else:
                source = out / f"chain_{n}.{fmt}"
                (write_urdf if fmt == "urdf" else write_sdf)(source, n)
                stage_path = out / f"chain_{n}_{fmt}.usdc"
                result = run_stage("convert", source, str(stage_path))
                if "convert" in stages:
                    rows["convert"].append((result["cpu"], result["seconds"]))
                    rss["convert"] = max(rss["convert"], result["rss_mb"])
                    _progress(fmt, "convert", n, result)
                joints = n - 1
            for stage in (s for s in STAGES[1:] if s in stages):
                result = run_stage(stage, stage_path, str(joints), args.contact)
                rows[stage].append((result["cpu"], result["seconds"]))
                rss[stage] = max(rss[stage], result["rss_mb"])
                _progress(fmt, stage, n, result)
        for stage in STAGES:
            if not rows[stage]:
                continue
            times[(fmt, stage)] = [c for c, _ in rows[stage]]
            k = exponent(sizes, times[(fmt, stage)])
            print(f"{fmt:6s} {stage:10s} " + " ".join(f"{c:7.2f}s ({w:6.1f}s)" for c, w in rows[stage])
                  + f"  {k:8.2f}  {rss[stage]:6.0f} MB" + ("" if k <= args.target else "  over target"), flush=True)
    worst = max(exponent(sizes, t) for t in times.values())
    print(f"largest exponent {worst:.2f} (target <= {args.target}); files in {out}")
    return 0 if worst <= args.target else 1


if __name__ == "__main__":
    sys.exit(main())
