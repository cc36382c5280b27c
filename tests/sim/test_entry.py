"""Calls through compiled addresses (usdjoints/sim/kernels/entry.py).

Oracles: the same kernel called directly (the result is the same number), numba's own record of
what a compiled function contains (the caller's code holds no copy of the callee), a second
process on the same numba cache (it loads the caller and finds its callees' types in it), and
the return type numba compiles a callee for (a call site compiled for another is refused before
any call).
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]

MODULE = textwrap.dedent('''
    import numpy as np
    from usdjoints.sim.kernels import INTERNAL, njit
    from usdjoints.sim.kernels.entry import SLOTS, call_entry, resolve


    @njit(cache=True, **INTERNAL)
    def weighted_sum(x, w, out) -> float:
        total = 0.0
        for i in range(x.shape[0]):
            out[i] = w * x[i]
            total += out[i]
        return total


    @njit(cache=True, **INTERNAL)
    def says_int(x) -> int:
        return x[0] * 0.5  # a float: the annotation is wrong


    @njit(cache=True)
    def caller(entries, x, w, out, n):
        t = 0.0
        for k in range(n):
            t += call_entry(entries, 3, weighted_sum, (x, w + k, out))
        return t


    @njit(cache=True)
    def wrong_caller(entries, x):
        return call_entry(entries, 0, says_int, (x,))


    def run(n=4):
        x = np.arange(5.0)
        out = np.empty(5)
        args = (x, 2.0, out, n)
        entries = resolve(caller, (np.zeros(SLOTS, dtype=np.int64), *args))
        return caller(entries, *args), entries
''')


@pytest.fixture()
def module(tmp_path, monkeypatch):
    (tmp_path / "entry_sample.py").write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    import importlib

    sys.modules.pop("entry_sample", None)
    yield importlib.import_module("entry_sample")
    sys.modules.pop("entry_sample", None)


def test_a_call_through_the_address_gives_the_direct_calls_result(module):
    total, entries = module.run(4)
    x = np.arange(5.0)
    assert total == sum(float(np.sum((2.0 + k) * x)) for k in range(4))
    assert np.count_nonzero(entries) == 1 and entries[3] != 0


def test_the_callers_code_holds_no_copy_of_the_callee(module):
    module.run(1)
    compiled = module.caller.overloads[module.caller.signatures[0]]
    defined = [f.name for f in compiled.library._final_module.functions if not f.is_declaration]
    assert not any("weighted_sum" in name for name in defined), defined


def test_a_return_type_other_than_the_annotation_is_refused_before_the_call(module):
    from usdjoints.sim.kernels.entry import SLOTS, resolve

    x = np.arange(3.0)
    with pytest.raises(TypeError, match="says_int returns float64, not its annotation's int64"):
        resolve(module.wrong_caller, (np.zeros(SLOTS, dtype=np.int64), x))


def test_a_second_process_finds_the_callees_types_in_the_cached_caller(tmp_path):
    (tmp_path / "entry_sample.py").write_text(MODULE)
    child = ("import sys, json; sys.path.insert(0, sys.argv[1]); import entry_sample as m; "
             "from numba.core import event\n"
             "names = []\n"
             "class L(event.Listener):\n"
             "    def on_start(self, ev): pass\n"
             "    def on_end(self, ev): names.append(ev.data['dispatcher'].py_func.__name__)\n"
             "event.register('numba:compile', L())\n"
             "total, _ = m.run(3)\n"
             "print(json.dumps([total, names]))")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    runs = [subprocess.run([sys.executable, "-c", child, str(tmp_path)], capture_output=True, text=True,
                           env=env, timeout=300, check=True, cwd=REPO).stdout.strip().splitlines()[-1]
            for _ in range(2)]
    import json

    (first, compiled_first), (second, compiled_second) = (json.loads(run) for run in runs)
    assert first == second == sum(float(np.sum((2.0 + k) * np.arange(5.0))) for k in range(3))
    assert "caller" in compiled_first and "weighted_sum" in compiled_first
    assert compiled_second == []  # both loaded from the cache


def test_a_kernel_without_a_return_annotation_cannot_be_called_through_its_address():
    from usdjoints.sim.kernels.entry import return_type

    def kernel(x):
        return x

    with pytest.raises(TypeError, match="return annotation"):
        return_type(kernel)
