"""The fuzzer's regression repros (tests/fuzz/repros/manifest.json) and the failure classes still open.

Each manifest entry is one distinct failure class the fuzzer found, with its minimal repro::

    {"file": "repros/<name>.<ext>", "kind": "urdf|sdf|usda|usdc", "steps": [...] or null,
     "class": "crash/<exception>/<innermost usdjoints frame>" or "hang/<step>",
     "owner": "walker|contract|auditor|convert|model|sim|stage_io", "open": true|false,
     "description": one line, "resources": [repository-relative folders]?, "cli_command": s?}

``open`` entries are classes in code this fuzzer's owner does not maintain (converters, model,
simulator, stage opening): their repros run as expected failures until fixed there. Every other
entry must now come out clean (ok or a usdjoints error).
"""
from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
MANIFEST = HERE / "repros" / "manifest.json"


def entries() -> list[dict]:
    return json.loads(MANIFEST.read_text()) if MANIFEST.exists() else []


def open_classes() -> set[tuple]:
    """The keys (see campaign.key_of) of the classes still open elsewhere."""
    out = set()
    for entry in entries():
        if entry["open"]:
            out.add(tuple(entry["class"].split("/", 2)))
    return out


def is_known_open(key: tuple) -> bool:
    """Whether ``key`` is one of the open classes (a hang counts whatever step it happened in when
    its class is listed as ``hang/*``)."""
    opened = open_classes()
    return tuple(key) in opened or (key[0] == "hang" and ("hang", "*") in opened)
