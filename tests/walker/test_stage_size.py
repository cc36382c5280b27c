"""Stages whose composition repeats the same prims at every level (references that double).

Oracle: OpenUSD itself. A prim referencing a class twice, whose two prims reference the next
class twice, and so on for 30 levels, composes 2^30 prims from a 5 kB file: ``Usd.Stage.Open``
never returns (measured: 15 levels take 6.7 s, 17 levels 22 s, each level doubling it), and with
``instanceable`` prims it opens at once but a walk visits 2^30 instance proxies. usdjoints
refuses such a stage before composing it, in one line naming the file (stage_size.py). The
estimate it refuses on is checked against OpenUSD's own count of the composed prims: exact on
the doubling stages small enough to compose, never below it on every stage the tests hold.
"""
from __future__ import annotations

import subprocess
import sys

import pytest

from usdjoints.errors import InputError
from usdjoints.walker import walk
from usdjoints.walker.stage_io import _open_layers
from usdjoints.walker.stage_size import MAX_INDEX_NODES, estimate

from samples import REPO

HANG_LIMIT = 60  # s: the refusal takes well under a second; composing takes years


def _doubling(depth: int, instanceable: bool = False) -> str:
    """World references C0; Ci's prims a and b each reference C(i+1), down to an empty C(depth)."""
    extra = "\n        instanceable = true" if instanceable else ""
    classes = "".join(
        f'class Xform "C{i}"\n{{\n' + "".join(
            f'    def Xform "{name}" (\n        references = </C{i + 1}>{extra}\n    )\n    {{\n    }}\n'
            for name in "ab") + "}\n"
        for i in range(depth))
    return ('#usda 1.0\n(\n    defaultPrim = "World"\n)\n' + classes
            + f'class Xform "C{depth}"\n{{\n}}\n'
            + 'def Xform "World" (\n    references = </C0>\n)\n{\n}\n')


def _doubling_files(folder, depth: int, arc: str = "references") -> str:
    """The same doubling through files: layer i's prims a and b each reference (or payload) layer
    i + 1, whose default prim is Root."""
    for i in range(depth + 1):
        children = "" if i == depth else "".join(
            f'    def Xform "{name}" (\n        {arc} = @level{i + 1}.usda@\n    )\n    {{\n    }}\n'
            for name in "ab")
        (folder / f"level{i}.usda").write_text(
            f'#usda 1.0\n(\n    defaultPrim = "Root"\n)\ndef Xform "Root"\n{{\n{children}}}\n')
    return str(folder / "level0.usda")


def _composed(path: str) -> int:
    """OpenUSD's count of the prims the stage composes, classes and instance proxies included."""
    from pxr import Usd

    stage = Usd.Stage.Open(path)
    return sum(1 for _ in Usd.PrimRange.Stage(stage, Usd.TraverseInstanceProxies(Usd.PrimAllPrimsPredicate)))


def _estimate(path: str):
    layers = _open_layers(path, path, False)  # held: the estimate follows opened layers only
    return estimate(layers[0])


def _run(path, *args):
    return subprocess.run([sys.executable, "-m", "usdjoints", *args, str(path)], capture_output=True,
                          text=True, timeout=HANG_LIMIT, cwd=REPO)


@pytest.mark.parametrize("instanceable", [False, True], ids=["references", "instanceable"])
def test_thirty_doubling_levels_are_refused_in_one_line(tmp_path, instanceable):
    path = tmp_path / "fan.usda"
    path.write_text(_doubling(30, instanceable))
    for command in ("walk", "audit"):
        result = _run(path, command)
        assert result.returncode == 2, (command, result.stderr)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
        assert str(path) in lines[0] and f"more than {MAX_INDEX_NODES:,} prim index nodes" in lines[0]


@pytest.mark.parametrize("arc", ["references", "payload"])
def test_doubling_through_files_is_refused(tmp_path, arc):
    with pytest.raises(InputError) as error:
        walk(_doubling_files(tmp_path, 30, arc))
    assert "prim index nodes" in error.value.message


@pytest.mark.parametrize("depth", [1, 4, 9])
@pytest.mark.parametrize("instanceable", [False, True], ids=["references", "instanceable"])
def test_the_estimate_is_openusds_count_on_doubling_stages(tmp_path, depth, instanceable):
    path = tmp_path / "fan.usda"
    path.write_text(_doubling(depth, instanceable))
    prims, nodes, _ = _estimate(str(path))
    # closed form: class Ci composes 2^(depth - i + 1) - 1 prims, World as many as C0
    assert prims == _composed(str(path)) == sum(2 ** (depth - i + 1) - 1 for i in range(depth + 1)) + 2 ** (depth + 1) - 1
    assert nodes >= prims


@pytest.mark.parametrize("depth", [1, 6])
def test_the_estimate_is_openusds_count_through_files(tmp_path, depth):
    path = _doubling_files(tmp_path, depth)
    prims, _, _ = _estimate(path)
    assert prims == _composed(path) == 2 ** (depth + 1) - 1


def test_a_doubling_stage_below_the_limit_is_walked(tmp_path):
    path = tmp_path / "fan.usda"
    path.write_text(_doubling(10))
    assert tuple(walk(str(path)).joints) == ()


def _stages():
    found = sorted(REPO.glob("sample_stages/**/*.usda")) + sorted((REPO / "tests" / "data").rglob("*.usd*"))
    return [p for p in found if "corrupt" not in p.name and "crash" not in p.name]


def test_the_estimate_never_undercounts_a_stage_the_tests_hold():
    """Sublayers, references, payloads, variants, inherits and instancing as the sample and test
    stages author them: the estimate is at least OpenUSD's count (an upper bound: merged specs
    and unselected variants can only make it larger), and within a few times of it."""
    checked = 0
    for path in _stages():
        try:
            layers = _open_layers(str(path), str(path), False)
            composed = _composed(str(path))
        except Exception:  # noqa: BLE001  a stage OpenUSD refuses is another test's concern
            continue
        prims, _, _ = estimate(layers[0])
        assert composed <= prims <= 3 * composed + 10, (path, prims, composed)
        checked += 1
    assert checked >= 50


def test_a_variant_set_without_variants_counts_nothing(tmp_path):
    """Sdf lets a binary layer hold a variant set with no variant (the text parser refuses it):
    OpenUSD composes the prim without one, and so does the estimate."""
    from pxr import Sdf

    path = str(tmp_path / "empty_set.usdc")
    layer = Sdf.Layer.CreateNew(path)
    prim = Sdf.PrimSpec(layer, "A", Sdf.SpecifierDef, "Xform")
    Sdf.PrimSpec(layer, "B", Sdf.SpecifierDef, "Xform")
    prim.referenceList.Prepend(Sdf.Reference(primPath="/B"))
    Sdf.VariantSetSpec(prim, "v")
    layer.defaultPrim = "A"
    layer.Save()
    prims, _, _ = _estimate(path)
    assert prims == _composed(path) == 2
    assert tuple(walk(path).joints) == ()
