"""numba kernels of the simulator, one module per pipeline stage. Importing a kernel module
imports numba; nothing outside usdjoints.sim does."""

# Compile flag of every kernel: floating-point contraction lets a * b + c become one fused
# multiply-add (one rounding instead of two, and fewer instructions: the Euler step of a 9-dof
# arm takes ~14% less time). NaN, inf and the order of other operations keep their IEEE rules,
# so the divergence checks still see every non-finite value.
FMA = {"contract"}

# Reference counts. numba counts the references to every array a kernel holds with an atomic
# increment and decrement (each a call) unless its reference-count pruning pass removes the pair.
# The pass gives up on a whole function when it meets some constructs, and then every array
# argument costs its two atomic calls on each call of the kernel: 176 of each in a step of the
# panda arm, about a third of the step. What made it give up here, each found on the compiled
# code: a division that may raise ZeroDivisionError (hence error_model="numpy": a division by
# zero gives inf or nan, which the divergence checks report), `int(k) & 3` on an integer
# (trig.sin_cos), two long loop nests in one function (world_dynamics splits its passes), and a
# call inside a loop that is not inlined (the limit solve's helpers are forceinline).
# The step loop (integrate.simulate_envs) passes borrowed views (borrow.py: no meminfo, so
# each count is a null test), which leaves none of these atomic adds in a step of the panda.
# The null tests stayed, each a call that spills the live floating-point registers: about 60 in
# one `integrate.acceleration` of the panda, where the pass still gave up. So the kernels that
# only other kernels call count no references at all (INTERNAL's "_nrt": off). They hold arrays
# their callers own and neither allocate nor return one (njit refuses such a return type at
# compile time); the few that allocate scratch keep the counts (WRAPPERLESS). That made the
# driven panda's step about a sixth faster (0.55 -> 0.67 M steps per second on one thread).
# `python benchmarks/sim_refcounts.py` counts them per step.
ERROR_MODEL = "numpy"

# Options of a kernel that only other kernels call: numba compiles no Python (and no C)
# entry point for it. Each entry point is code of its own, compiled with the kernel and again in
# every kernel that calls it (a third of the compile of a kernel taking 25 arrays); calling such
# a kernel from Python raises TypeError. INTERNAL kernels count no references (above);
# WRAPPERLESS is for those that allocate.
WRAPPERLESS = {"no_cpython_wrapper": True, "no_cfunc_wrapper": True}
INTERNAL = {**WRAPPERLESS, "_nrt": False}


def njit(**options):
    """numba.njit(**options) for the kernels: ``INTERNAL`` in the options makes a call from Python
    raise TypeError instead of jumping to an entry point that was never compiled.

    numba is imported here, at the decoration of the first kernel, so this package stays light."""
    import numba

    _load_array_lowering()
    options = {"_nrt": True, **options}  # explicit: numba would take a caller's when compiling a callee
    compile_ = numba.njit(error_model=ERROR_MODEL, **options)

    def decorate(function):
        dispatcher = compile_(function)
        if options.get("no_cpython_wrapper") and hasattr(dispatcher, "py_func"):  # not NUMBA_DISABLE_JIT's plain function
            dispatcher.__class__ = _internal_class(type(dispatcher), counted=options["_nrt"])
        cache = getattr(dispatcher, "_cache", None)
        if cache is not None and hasattr(cache, "_load_overload"):
            cache.__class__ = _cache_class(type(cache))
        return dispatcher

    return decorate


_CACHE_CLASSES = {}


def _cache_class(base):
    """``base`` (numba's cache class) with two changes.

    Its entries are keyed by every kernel's source as well (_kernel_sources_digest). numba keys a
    cached kernel by its own bytecode and its own file's time stamp, not by the kernels it calls
    and compiles into itself: after a change to projection.py alone, the step loop of
    integrate.py kept running the old projection from the cache, silently.

    It loads a compiled kernel after starting numba's runtime alone. numba's own load first
    refreshes its whole target: it imports and registers every lowering and typing module (numpy,
    random, typed containers, jitclass...), which takes about 0.15 s and which only a compile
    uses; a compile still refreshes the target itself (numba.core.compiler.compile_extra). The
    loaded code links against the runtime's symbols (NRT_MemInfo_alloc...), which
    rtsys.initialize registers."""
    if base not in _CACHE_CLASSES:
        def load_overload(self, sig, target_context):
            from numba.core.runtime import rtsys

            rtsys.initialize(target_context)
            with self._guard_against_spurious_io_errors():
                return self._load_overload(sig, target_context)

        def _index_key(self, sig, codegen):
            signature, magic, hashes = base._index_key(self, sig, codegen)
            return signature, magic, (*hashes, _kernel_sources_digest())

        _CACHE_CLASSES[base] = type("KernelCache", (base,), {"load_overload": load_overload,
                                                             "_index_key": _index_key})
    return _CACHE_CLASSES[base]


_SOURCES_DIGEST = []


def _kernel_sources_digest() -> str:
    """sha256 of the source files of this package (read once per process, about a millisecond)."""
    if not _SOURCES_DIGEST:
        import hashlib
        from pathlib import Path

        digest = hashlib.sha256()
        for path in sorted(Path(__file__).resolve().parent.glob("*.py")):
            digest.update(path.name.encode())
            digest.update(path.read_bytes())
        _SOURCES_DIGEST.append(digest.hexdigest())
    return _SOURCES_DIGEST[0]


# numba's array lowering (numba.np.arraymath, loaded with its CPU target) probes for BLAS when it
# is imported, by importing scipy.linalg.cython_blas where scipy is installed: about 0.1 s, a
# tenth of a warm `usdjoints simulate`. No kernel calls BLAS (no np.dot, @ or np.linalg), so the
# module is loaded here with that probe answered "absent", unless scipy's BLAS is imported
# already (then the probe costs nothing and finds it).
_BLAS_PROBE = "scipy.linalg.cython_blas"


def _load_array_lowering():
    import sys

    if "numba.np.arraymath" in sys.modules or _BLAS_PROBE in sys.modules:
        return
    sys.modules[_BLAS_PROBE] = None  # an import of it raises ImportError
    try:
        import numba.np.arraymath  # noqa: F401
    finally:
        if sys.modules.get(_BLAS_PROBE, 0) is None:
            del sys.modules[_BLAS_PROBE]


def plain_argument_types(dispatcher):
    """Type the calls other kernels make to ``dispatcher`` by each argument's plain type (put
    above its ``@njit``). numba otherwise compiles a kernel once more for every constant a caller
    passes (``_sweeps(..., 0, ...)``, ``friction=True``): each a separate compile of the kernel
    and of everything it calls. Calls from Python are typed that way already, and the arithmetic
    is the same; only a branch on such an argument is taken at run time instead of at compile
    time, so this is for kernels whose constants are flags and counts, not for those where a
    constant prunes work from a hot loop (a loop-free model's ``m = 0`` keeps pruning the
    constraint rows out of the limit and contact solves)."""
    from numba.core import types

    if not hasattr(dispatcher, "get_call_template"):  # NUMBA_DISABLE_JIT: a plain function
        return dispatcher
    typed = dispatcher.get_call_template

    def get_call_template(args, kws):
        return typed(tuple(types.unliteral(a) for a in args),
                     {name: types.unliteral(value) for name, value in kws.items()})

    dispatcher.get_call_template = get_call_template
    return dispatcher


_INTERNAL_CLASSES = {}


def _internal_class(base, counted: bool):
    """``base`` (numba's dispatcher class) refusing calls from Python: without its Python entry
    point such a call would jump to no code at all. Uncounted (INTERNAL) kernels also refuse to
    be compiled, or loaded from the cache, returning an array: nothing would count the caller's
    reference to it."""
    key = (base, counted)
    if key not in _INTERNAL_CLASSES:
        def __call__(self, *args, **kwargs):
            raise TypeError(f"{self.py_func.__module__}.{self.py_func.__qualname__} is called only "
                            "from other kernels (it is compiled without a Python entry point)")

        members = {"__call__": __call__}
        if not counted:
            def add_overload(self, cres):
                if _holds_array(cres.signature.return_type):
                    raise TypeError(f"{self.py_func.__module__}.{self.py_func.__qualname__} counts no "
                                    f"references (INTERNAL) but returns {cres.signature.return_type}: "
                                    "compile it with WRAPPERLESS")
                base.add_overload(self, cres)

            members["add_overload"] = add_overload
        _INTERNAL_CLASSES[key] = type("InternalKernel", (base,), members)
    return _INTERNAL_CLASSES[key]


def _holds_array(typ) -> bool:
    """Whether a value of numba type ``typ`` holds a reference-counted object (an array, a list,
    a set, a dict), directly or in a tuple."""
    from numba.core import types

    if isinstance(typ, types.BaseTuple):
        return any(_holds_array(member) for member in typ)
    return isinstance(typ, (types.Array, types.List, types.Set, types.DictType, types.ListType))
