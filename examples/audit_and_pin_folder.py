#!/usr/bin/env python3
"""Audit every USD asset in a folder and write a fix layer for each one that needs it.

    python examples/audit_and_pin_folder.py ASSETS_DIR --out PINNED_DIR

For each stage: its findings by severity; where consumers would read an unauthored value
differently, ``PINNED_DIR/<name>.pinned.usda`` pins the value (a new root layer over the asset,
which is only read). The pinned layers are then audited again to show what pinning removed.
Exit code: 0 when no asset has an error left after pinning, 1 otherwise, 2 for bad input.
"""
from __future__ import annotations

import argparse
import os
import sys

import usdjoints  # registers the PhysX schemas before any stage opens
from usdjoints.auditor import audit, write_fix_layer
from usdjoints.errors import UsdJointsError


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", help="directory searched recursively for .usda/.usdc/.usd/.usdz")
    parser.add_argument("--out", required=True, help="directory for the <name>.pinned.usda layers")
    args = parser.parse_args(argv)
    try:
        os.makedirs(args.out, exist_ok=True)
        report = audit(args.folder)  # a directory expands to every USD file under it
        rows = []
        errors_left = 0
        for stage_path in report.stages:
            findings = [f for f in report.findings if f.stage == stage_path]
            before = _counts(findings)
            failure = next((f for f in report.failures if f.stage == stage_path), None)
            if failure is not None:
                rows.append((os.path.basename(stage_path), "unreadable", "-", failure.message))
                errors_left += 1
                continue
            out = os.path.join(args.out, os.path.splitext(os.path.basename(stage_path))[0] + ".pinned.usda")
            fix = write_fix_layer(stage_path, out)
            if fix.pinned:
                after = _counts(audit(out).findings)
                pinned = f"{len(fix.pinned)} value(s) -> {os.path.basename(out)}"
            else:
                os.unlink(out)  # nothing to pin: keep the folder to the assets that need a layer
                after, pinned = before, "nothing to pin"
            errors_left += after[0] > 0
            rows.append((os.path.basename(stage_path), _fmt(before), _fmt(after), pinned))
    except UsdJointsError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    width = max(len(r[0]) for r in rows)
    print(f"{'asset':<{width}}  {'before (E/W/I)':<14}  {'after (E/W/I)':<14}  pinned")
    for name, before, after, pinned in rows:
        print(f"{name:<{width}}  {before:<14}  {after:<14}  {pinned}")
    print(f"{len(rows)} asset(s), {errors_left} with errors left after pinning")
    return 1 if errors_left else 0


def _counts(findings) -> tuple[int, int, int]:
    return tuple(sum(f.severity == s for f in findings) for s in ("error", "warning", "info"))


def _fmt(counts) -> str:
    return "/".join(str(c) for c in counts)


if __name__ == "__main__":
    sys.exit(main())
