"""Every element and attribute of SDFormat 1.4-1.12 has a status in the converter's table, and a
file holding any of them converts (or is refused with file:line) with the report naming it.

Oracle: the specification's own element description files (gazebosim/sdformat sdf/1.x/*.sdf),
from which tools/sdf_spec_elements.py derived spec_elements.json; the property test builds
documents from those lists.
"""
from __future__ import annotations

import fnmatch
import random
import re

import pytest

from usdjoints.convert import convert_sdformat
from usdjoints.convert.sdformat import coverage
from usdjoints.convert.sdformat.extras import JOINT_EXTRAS, LINK_EXTRAS, MODEL_EXTRAS, WORLD_EXTRAS
from usdjoints.errors import UsdJointsError

SPEC = coverage.spec()
TREE = SPEC["tree"]
VERSIONS = ("1.4", "1.5", "1.6", "1.7", "1.8", "1.9", "1.10", "1.11", "1.12")


def test_the_spec_lists_cover_every_version_and_their_main_elements():
    assert set(SPEC["versions"]) == set(VERSIONS)
    for version in VERSIONS:
        keys = set(SPEC["versions"][version])
        for key in ("link:link", "joint:joint", "joint:joint/axis/xyz", "collision:collision", "model:model",
                    "world:world", "sensor:sensor", "light:light", "surface:surface/friction/ode/mu"):
            assert key in keys, (version, key)
    assert "joint:joint/axis/xyz@expressed_in" not in SPEC["versions"]["1.6"]
    assert "joint:joint/axis/xyz@expressed_in" in SPEC["versions"]["1.7"]
    assert "joint:joint/screw_thread_pitch" in SPEC["versions"]["1.10"]


@pytest.mark.parametrize("version", VERSIONS)
def test_every_element_and_attribute_has_a_status(version):
    missing = [key for key in SPEC["versions"][version] if coverage.status(key) is None]
    assert missing == []


def test_no_rule_is_a_catch_all():
    for pattern, state, reason in coverage.RULES:
        stem = pattern.split(":", 1)[0]
        assert pattern not in ("*", "*:*") and (stem != "*" or "/" in pattern), pattern
        assert state in ("converted", "kept", "reported", "dropped")
        assert state != "dropped" or reason, pattern


def test_every_rule_matches_some_key():
    keys = set().union(*map(set, SPEC["versions"].values()))
    unused = [p for p, _, _ in coverage.RULES if not any(fnmatch.fnmatchcase(k, p) for k in keys)]
    assert unused == []


def test_elements_the_reader_keeps_are_kept_in_the_table():
    for parent, tags in (("link", LINK_EXTRAS), ("joint", JOINT_EXTRAS), ("model", MODEL_EXTRAS),
                         ("world", WORLD_EXTRAS)):
        node = TREE[f"{parent}:{parent}"]
        for tag in tags:
            key = node["c"].get(tag)
            if key is not None:  # e.g. a link <plugin> is not in the specification, and is kept all the same
                assert coverage.status(key)[0] == "kept", (parent, tag, key)


ODD_VALUES = ("", "nan", "abc", "-1", "0", "1e400", "0 0 0", "1 2", "true", "  7  ", "0x10", "__model__", "world")


def documents(rng: random.Random):
    """A random document: 1-3 chains of spec elements below a start element, with odd values."""
    version = rng.choice(VERSIONS)
    start = rng.choice(["model:model", "world:world", "link:link", "joint:joint", "collision:collision"])
    chains = []
    for _ in range(rng.randint(1, 3)):
        key, chain = start, []
        for _depth in range(rng.randint(1, 6)):
            children = TREE[key]["c"]
            if not children:
                break
            tag = rng.choice(sorted(children))
            key = children[tag]
            attributes = {}
            for name in TREE[key]["a"]:
                if name == "name":
                    attributes[name] = rng.choice(["n", "", "a::b", "world", "n2"])
                elif rng.random() < 0.5:
                    attributes[name] = rng.choice(ODD_VALUES)
            chain.append((tag, key, attributes))
        if chain:
            chains.append((chain, rng.choice(ODD_VALUES)))
    return version, start, chains


def _render(version, start, chains):
    """The document and, per chain, the line of each inserted element."""
    lines = [f'<sdf version="{version}">']
    head = {"model:model": ['<model name="m">', '<link name="base"/>'],
            "world:world": ['<world name="w">', '<model name="m"><link name="base"/></model>'],
            "link:link": ['<model name="m">', '<link name="base">'],
            "joint:joint": ['<model name="m">', '<link name="base"/>', '<link name="tip"/>',
                            '<joint name="j" type="revolute">', '<parent>base</parent>', '<child>tip</child>'],
            "collision:collision": ['<model name="m">', '<link name="base">', '<collision name="c">',
                                    '<geometry><sphere><radius>1</radius></sphere></geometry>']}[start]
    tail = {"model:model": ["</model>"], "world:world": ["</world>"], "link:link": ["</link>", "</model>"],
            "joint:joint": ["</joint>", "</model>"], "collision:collision": ["</collision>", "</link>", "</model>"]}[start]
    lines += head
    placed = []
    for chain, value in chains:
        where = []
        for depth, (tag, key, attributes) in enumerate(chain):
            attrs = "".join(f' {k}="{v}"' for k, v in attributes.items())
            text = value if depth == len(chain) - 1 else ""
            lines.append(f"<{tag}{attrs}>{text}")
            where.append((len(lines), key))
        for tag, _, _ in reversed(chain):
            lines.append(f"</{tag}>")
        placed.append(where)
    lines += tail + ["</sdf>"]
    return "\n".join(lines), placed


@pytest.mark.parametrize("seed", range(300))
def test_any_spec_element_with_odd_values_converts_or_is_refused_with_file_line(tmp_path, seed):
    version, start, chains = documents(random.Random(seed))
    text, placed = _render(version, start, chains)
    src = tmp_path / "doc.sdf"
    src.write_text(text)
    try:
        report = convert_sdformat(src, tmp_path / "doc.usda")
    except UsdJointsError as error:
        assert re.match(rf"{re.escape(str(src))}:\d+", str(error)) or str(src) in str(error), str(error)
        return
    entries = [e for e in report.entries if e.where.startswith(str(src))]
    lines_reported = {int(e.where.rsplit(":", 1)[-1]) for e in entries}
    for where in placed:
        # the first inserted element the conversion does not carry as such is named in the report,
        # or one of its inserted ancestors is (a dropped ancestor drops what it holds), or the
        # report counts it with an earlier occurrence of the same element
        for index, (line, key) in enumerate(where):
            state = coverage.status(key)[0]
            if state == "converted":
                continue
            tags = {k.rsplit("/", 1)[-1].split(":")[-1] for _, k in where[:index + 1]}
            named = any(l in lines_reported for l, _ in where[:index + 1])
            counted = any("occurrences" in e.message and any(f"<{t}>" in e.element + e.message for t in tags)
                          for e in entries)
            assert named or counted, (text, line, key, state, [str(e) for e in entries])
            break
