"""Shrinking a failing case while it still fails the same way (same exception type and frame)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from lxml import etree

from .campaign import Case, Worker, copy_case, key_of, run_one, worker_env

MAX_TRIES = 200


class Oracle:
    """Does a candidate input still reproduce ``key``?"""

    def __init__(self, worker: Worker, entry: dict, scratch: Path):
        self.worker = worker
        self.key = tuple(entry["key"])
        request = entry["request"]
        self.kind = request["kind"]
        step = entry["step"]["step"]
        self.steps = None if step.startswith("converted:") or step in ("inputs", "?") else [step]
        if step.startswith("converted:"):
            self.steps = ["convert"] + [step]  # the worker runs converted steps after a full convert
            self.steps = None
        self.request = request
        self.example = Path(entry["example"])
        self.scratch = scratch
        self.tries = 0

    def __call__(self, data: bytes, ext: str | None = None) -> bool:
        if self.tries >= MAX_TRIES:
            return False
        self.tries += 1
        directory = self.scratch / f"try{self.tries:04d}"
        copy_case(self.example, directory, ignore=shutil.ignore_patterns("out", "info.json", "input.*"))
        kind = self.kind if ext is None else ext
        main = directory / ("input." + kind)
        main.write_bytes(data)
        case = Case(0, kind, "", [], directory, main, self.request["token"],
                    self.request["resources"], simulate=self.request["simulate"], cli=self.request["cli"],
                    usdc_out=self.request["usdc_out"], cli_command=self.request.get("cli_command", "walk"))
        try:
            result = run_one(self.worker, case, self.steps)
        finally:
            shutil.rmtree(directory, ignore_errors=True)
        return any(s["outcome"] not in ("ok", "rejected") and key_of(s) == self.key for s in result["steps"])


def shrink_xml(data: bytes, still: Oracle) -> bytes:
    try:
        root = etree.fromstring(data, etree.XMLParser(resolve_entities=False))
    except etree.XMLSyntaxError:
        return shrink_lines(data, still)
    tree = root.getroottree()
    doctype = tree.docinfo.doctype

    def text(r):
        body = etree.tostring(r, encoding="utf-8")
        return b'<?xml version="1.0"?>\n' + (doctype.encode() + b"\n" if doctype else b"") + body

    changed = True
    while changed and still.tries < MAX_TRIES:
        changed = False
        for el in list(root.iter()):
            if el is root or not isinstance(el.tag, str) or el.getparent() is None:
                continue
            parent = el.getparent()
            index = parent.index(el)
            parent.remove(el)
            if still(text(root)):
                changed = True
            else:
                parent.insert(index, el)
        for el in list(root.iter()):
            if not isinstance(el.tag, str):
                continue
            for name in list(el.attrib):
                value = el.attrib.pop(name)
                if still(text(root)):
                    changed = True
                else:
                    el.set(name, value)
    result = text(root)
    return result if still(result) else data


def shrink_lines(data: bytes, still: Oracle, ext: str | None = None) -> bytes:
    """Remove chunks of lines, halving the chunk size (ddmin over lines)."""
    lines = data.split(b"\n")
    chunk = max(1, len(lines) // 2)
    while chunk >= 1 and still.tries < MAX_TRIES:
        i = 0
        removed = False
        while i < len(lines) and still.tries < MAX_TRIES:
            candidate = lines[:i] + lines[i + chunk:]
            if candidate and still(b"\n".join(candidate), ext):
                lines = candidate
                removed = True
            else:
                i += chunk
        if not removed:
            chunk //= 2
    return b"\n".join(lines)


def minimise_entry(worker: Worker, entry: dict, scratch: Path) -> tuple[bytes, str]:
    """The smallest input found for ``entry`` and its extension."""
    example = Path(entry["example"])
    data = (example / entry["main"]).read_bytes()
    still = Oracle(worker, entry, scratch)
    kind = entry["request"]["kind"]
    if kind in ("urdf", "sdf"):
        return shrink_xml(data, still), kind
    if kind == "usda":
        return shrink_lines(data, still), "usda"
    # A crate that Sdf reads is shrunk as text when the text fails the same way.
    from pxr import Sdf

    layer = Sdf.Layer.OpenAsAnonymous(str(example / entry["main"]))
    if layer is not None:
        text = layer.ExportToString().encode()
        if still(text, "usda"):
            return shrink_lines(text, still, "usda"), "usda"
    return data, "usdc"


def minimise_all(campaign, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    worker = Worker(worker_env())
    try:
        for n, entry in enumerate(campaign.distinct.values()):
            scratch = out / f"scratch{n:03d}"
            scratch.mkdir(exist_ok=True)
            data, ext = minimise_entry(worker, entry, scratch)
            shutil.rmtree(scratch, ignore_errors=True)
            target = out / f"{n:03d}.{ext}"
            target.write_bytes(data)
            (out / f"{n:03d}.json").write_text(json.dumps({"key": entry["key"], "step": entry["step"],
                                                           "kind": ext, "resources": entry["request"]["resources"]},
                                                          indent=1))
            print(f"minimised {'/'.join(map(str, entry['key']))}: {len(data)} bytes -> {target}", flush=True)
    finally:
        worker.kill()


def main(argv=None) -> int:
    """``python -m tests.fuzz.minimise OUT EXAMPLE...``: shrink saved examples (campaign
    distinct/ folders) into OUT, one file and one JSON note per example."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m tests.fuzz.minimise")
    parser.add_argument("out", type=Path)
    parser.add_argument("examples", nargs="+", type=Path)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    worker = Worker(worker_env())
    try:
        for example in args.examples:
            entry = json.loads((example / "info.json").read_text())
            entry["example"] = str(example)
            scratch = args.out / f"scratch-{example.name}"
            scratch.mkdir(exist_ok=True)
            data, ext = minimise_entry(worker, entry, scratch)
            shutil.rmtree(scratch, ignore_errors=True)
            name = f"{example.parent.parent.name}-{example.name}"
            (args.out / f"{name}.{ext}").write_bytes(data)
            (args.out / f"{name}.json").write_text(json.dumps({"key": entry["key"], "step": entry["step"]["step"],
                                                              "kind": ext, "source": str(example)}, indent=1))
            print(f"{'/'.join(map(str, entry['key']))}: {len(data)} bytes -> {name}.{ext}", flush=True)
    finally:
        worker.kill()
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main())
