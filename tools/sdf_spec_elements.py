"""Derive the list of SDFormat elements and attributes per version from the specification.

Reads the element description files ``sdf/<version>/*.sdf`` of a gazebosim/sdformat checkout
(a work tree or a bare git directory) and writes
``usdjoints/convert/sdformat/spec_elements.json``: the element tree (element keys with their
child elements and attributes, merged over the versions) and, per version, the keys it has.

A key is ``FILE:PATH``: the description file's stem and the element path inside it
(``surface:surface/friction/ode/mu``); an attribute is ``KEY@NAME``. ``<include filename=...>``
points a child at the included file's top element. Only names are taken from the files.

Usage: python tools/sdf_spec_elements.py SDFORMAT_CHECKOUT [--commit REV]
"""
from __future__ import annotations

import argparse
import json
import subprocess
from pathlib import Path

from lxml import etree

VERSIONS = ("1.4", "1.5", "1.6", "1.7", "1.8", "1.9", "1.10", "1.11", "1.12")
OUT = Path(__file__).resolve().parents[1] / "usdjoints" / "convert" / "sdformat" / "spec_elements.json"


def _files(repo: Path, rev: str, version: str) -> dict[str, bytes]:
    if (repo / "sdf" / version).is_dir():
        return {p.stem: p.read_bytes() for p in (repo / "sdf" / version).glob("*.sdf")}
    names = subprocess.run(["git", "-C", str(repo), "ls-tree", "--name-only", rev, f"sdf/{version}/"],
                           check=True, capture_output=True, text=True).stdout.split()
    out = {}
    for name in names:
        if name.endswith(".sdf"):
            out[Path(name).stem] = subprocess.run(["git", "-C", str(repo), "show", f"{rev}:{name}"],
                                                  check=True, capture_output=True).stdout
    return out


def _walk(element, key: str, tree: dict, keys: set[str], many: bool = True) -> None:
    node = tree.setdefault(key, {"c": {}, "a": [], "any": False, "many": False})
    node["many"] = node["many"] or many  # may appear more than once in some version
    keys.add(key)
    if element.get("copy_data", "").lower() == "true":
        node["any"] = True
    for child in element:
        if not isinstance(child.tag, str):
            continue
        if child.tag == "attribute":
            name = child.get("name")
            if name and name not in node["a"]:
                node["a"].append(name)
            keys.add(f"{key}@{name}")
        elif child.tag == "element":
            name = child.get("name")
            if not name:
                continue
            if child.get("ref"):  # the element described by another file (a nested model)
                node.setdefault("ref", {})[name] = child.get("ref")
                continue
            child_key = f"{key}/{name}"
            node["c"][name] = child_key
            _walk(child, child_key, tree, keys, child.get("required", "0") in ("*", "+"))
        elif child.tag == "include":
            stem = Path(child.get("filename", "")).stem
            if stem:
                node.setdefault("inc", [])
                if stem not in node["inc"]:
                    node["inc"].append(stem)
                if child.get("required", "0") in ("*", "+"):
                    node.setdefault("inc_many", [])
                    if stem not in node["inc_many"]:
                        node["inc_many"].append(stem)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkout", type=Path)
    parser.add_argument("--commit", default="HEAD")
    args = parser.parse_args(argv)
    tree: dict = {}
    versions: dict[str, list[str]] = {}
    roots: dict[str, str] = {}
    for version in VERSIONS:
        keys: set[str] = set()
        for stem, data in sorted(_files(args.checkout, args.commit, version).items()):
            root = etree.fromstring(data, etree.XMLParser(remove_comments=True))
            if root.tag != "element":
                continue
            key = f"{stem}:{root.get('name')}"
            roots[stem] = key
            _walk(root, key, tree, keys)
        versions[version] = sorted(keys)
    # an include names a file; its element is that file's top element; a ref names a file too
    for node in tree.values():
        node["several"] = sorted(name for name, key in node["c"].items() if tree[key]["many"])
        for stem in node.pop("inc", []):
            if stem in roots:
                node["c"][roots[stem].split(":", 1)[1]] = roots[stem]
        for stem in node.pop("inc_many", []):
            if stem in roots:
                node["several"].append(roots[stem].split(":", 1)[1])
        for name, stem in node.pop("ref", {}).items():
            if stem in roots:
                node["c"][name] = roots[stem]
                node["several"].append(name)
    for node in tree.values():
        node.pop("many")
        node["several"] = sorted(set(node["several"]))
    rev = subprocess.run(["git", "-C", str(args.checkout), "rev-parse", args.commit], capture_output=True,
                         text=True).stdout.strip()
    OUT.write_text(json.dumps({"source": f"gazebosim/sdformat {rev} sdf/<version>/*.sdf",
                               "root": roots["root"], "tree": tree, "versions": versions},
                              indent=0, sort_keys=True) + "\n")
    print(f"{OUT}: {len(tree)} elements; " + ", ".join(f"{v}: {len(k)}" for v, k in versions.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
