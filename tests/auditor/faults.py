"""Test-only faults for batch audits, installed by importing this module (never by usdjoints).

A stage whose file name starts with ``raises-in-rule`` makes the first audit rule raise the
TypeError a wrong value type once gave; ``loops-in-rule``, loop for ever in Python; and
``stuck-in-openusd``, block for an hour in one call that does not return to the interpreter
(``time.sleep``: what a call into OpenUSD's C++ that never ends looks like to Python); it is imported into a CLI subprocess
(``python -c "import faults; ..."``), inherited by the forked local workers, and preloaded into
Dask workers (``dask worker --preload``, or ``DASK_DISTRIBUTED__WORKER__PRELOAD`` for
``local:N``). The stage that crashes a worker needs no help: :func:`write_segfaulting_stage`
writes a real one, which segfaults ``Usd.Stage.Open`` itself.
"""
from __future__ import annotations

import os
import time

RAISES = "raises-in-rule"
LOOPS = "loops-in-rule"
STUCK = "stuck-in-openusd"
# OpenUSD's text parser recurses once per nested prim: 200,000 levels overflow an 8 MB stack
# (50,000 do not; measured with usd-core 26.5).
SEGFAULT_DEPTH = 200_000


def write_segfaulting_stage(path) -> None:
    with open(path, "w") as stream:
        stream.write("#usda 1.0\n" + 'def "a" {\n' * SEGFAULT_DEPTH + "}\n" * SEGFAULT_DEPTH)


def _install() -> None:
    import usdjoints  # noqa: F401
    from usdjoints.auditor.registry import RULE_CLASSES

    rule = RULE_CLASSES[0]
    original = rule.check
    if getattr(original, "faulty", False):
        return

    def check(self, ctx):
        name = os.path.basename(ctx.name)
        if name.startswith(RAISES):
            raise TypeError("must be real number, not str")
        if name.startswith(LOOPS):
            spins = 0
            while True:
                spins += 1
        if name.startswith(STUCK):
            time.sleep(3600)
        return original(self, ctx)

    check.faulty = True
    rule.check = check


_install()
