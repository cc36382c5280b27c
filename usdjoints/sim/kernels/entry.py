"""Calls from the step loop to its large kernels through their compiled addresses.

numba compiles a call from kernel A to kernel B by linking B's code into A's and generating the
machine code of the whole again: every kernel the step loop calls was compiled once on its own
and once more inside ``integrate.simulate_envs``. On a cold start that second pass ran alone on
one core after everything else (about 6 s of the driven panda's 18). A call through ``call_entry``
instead jumps to the address of B's own compiled code, which the caller passes in at run time
(``entries``, an int64 vector), so the step loop's compile is only its own. The address is an
argument, not a constant, so the step loop's cached machine code stays valid in a new process.

Each call site writes the callee's argument types (pickled) into a constant of the caller's
compiled code, named after the caller and the site's slot. ``resolve`` reads them back, from a
fresh compile or from numba's cache alike, has numba compile or load the callee for exactly those
types, and fills ``entries``: the caller never jumps to code compiled for other types.
"""
from __future__ import annotations

import ctypes
import importlib
import pickle

import numpy as np
from numba.core import cgutils, config, types
from numba.extending import intrinsic
from llvmlite import ir

#: slots of the step loop's calls (one per call site; unused sites keep address 0)
SLOTS = 12


def _symbol(function_name: str, slot: int) -> str:
    return f"{function_name}.entry.{slot}"


@intrinsic
def call_entry(typingctx, entries, slot, kernel, args):
    """``kernel(*args)`` through the address in ``entries[slot]`` (see the module docstring);
    ``slot`` a literal int below SLOTS. The callee is not compiled here: its return type is
    its Python return annotation, and ``resolve`` checks that it is the one compiled."""
    if not isinstance(slot, types.IntegerLiteral) or not isinstance(kernel, types.Dispatcher):
        return None
    if not 0 <= slot.literal_value < SLOTS or not isinstance(args, types.BaseTuple):
        return None
    function = kernel.dispatcher.py_func
    returns = return_type(function)
    wanted = tuple(args)
    index = slot.literal_value

    def codegen(context, builder, signature, llargs):
        entries_value, _, _, args_value = llargs
        values = cgutils.unpack_tuple(builder, args_value, len(wanted))
        _write_record(builder.module, _symbol(builder.function.name, index),
                      (function.__module__, function.__qualname__, wanted))
        vector = context.make_array(signature.args[0])(context, builder, value=entries_value)
        address = builder.load(builder.gep(vector.data, [context.get_constant(types.intp, index)]))
        function_type = context.call_conv.get_function_type(returns, wanted)
        callee = builder.inttoptr(address, function_type.as_pointer())
        status, result = context.call_conv.call_function(builder, callee, returns, wanted, values)
        with cgutils.if_unlikely(builder, status.is_error):
            context.call_conv.return_status_propagate(builder, status)
        return result

    return returns(entries, slot, kernel, args), codegen


#: numba type of each return annotation a kernel called through call_entry may carry
_RETURNS = {None: types.none, "None": types.none, bool: types.boolean, "bool": types.boolean,
            int: types.int64, "int": types.int64, float: types.float64, "float": types.float64}


def return_type(function):
    """The numba type of ``function``'s return annotation (None, bool, int or float)."""
    annotation = function.__annotations__.get("return", "missing")
    if annotation not in _RETURNS:
        raise TypeError(f"{function.__module__}.{function.__qualname__} is called through call_entry "
                        f"but its return annotation is {annotation!r}, not None, bool, int or float")
    return _RETURNS[annotation]


def _write_record(module, name: str, record: tuple) -> None:
    """A constant ``name`` in ``module``: 8 bytes of length, then ``record`` pickled."""
    data = pickle.dumps(record, protocol=4)
    data = len(data).to_bytes(8, "little") + data
    array_type = ir.ArrayType(ir.IntType(8), len(data))
    constant = ir.GlobalVariable(module, array_type, name=name)
    constant.global_constant = True
    constant.initializer = ir.Constant(array_type, bytearray(data))


def resolve(dispatcher, args) -> np.ndarray:
    """The entries vector for a call ``dispatcher(*args)``, whose ``entries`` argument is the
    int64 vector of SLOTS addresses: compiles (or loads) the caller for the arguments' types, then
    each callee it calls through ``call_entry``, and returns their addresses."""
    entries = np.zeros(SLOTS, dtype=np.int64)
    if config.DISABLE_JIT:
        return entries
    signature = tuple(dispatcher.typeof_pyval(a) for a in args)
    dispatcher.compile(signature)
    caller = dispatcher.overloads[signature]
    name = caller.fndesc.llvm_func_name
    known = _RESOLVED.get(name)
    if known is None:
        known = {}
        engine = caller.library.codegen._engine
        for slot in range(SLOTS):
            symbol = _symbol(name, slot)
            if engine.is_symbol_defined(symbol):
                known[slot] = _address(*_read_record(engine.get_global_value_address(symbol)))
        _RESOLVED[name] = known
    for slot, address in known.items():
        entries[slot] = address
    return entries


_RESOLVED: dict[str, dict[int, int]] = {}


def _read_record(address: int) -> tuple:
    size = int.from_bytes(ctypes.string_at(address, 8), "little")
    return pickle.loads(ctypes.string_at(address + 8, size))


def _address(module: str, qualname: str, argument_types: tuple) -> int:
    """The address of kernel module.qualname's code compiled for ``argument_types`` (compiled
    now, or loaded from numba's cache), once its return type is the one its call sites were
    compiled for."""
    kernel = importlib.import_module(module)
    for part in qualname.split("."):
        kernel = getattr(kernel, part)
    kernel.compile(argument_types)
    compiled = kernel.overloads[argument_types]
    wanted = return_type(kernel.py_func)
    if compiled.signature.return_type != wanted:
        raise TypeError(f"{module}.{qualname} returns {compiled.signature.return_type}, not its "
                        f"annotation's {wanted}")
    return compiled.library.get_pointer_to_function(compiled.fndesc.llvm_func_name)

if config.DISABLE_JIT:  # the kernels run as Python: a plain call
    def call_entry(entries, slot, kernel, args):  # noqa: F811
        return kernel(*args)
