"""Borrowed array views: the same data, shape and strides without an owner.

numba counts the references to an array through its meminfo pointer, with an atomic increment
and decrement around each use its pruning pass cannot prove redundant: in the Euler step of the
driven panda arm that was about a seventh of the time, and the atomic adds of two threads on the
shared model arrays' counts made the second thread slower than the first
(benchmarks/sim_refcounts.py). A view whose meminfo is null costs a null test instead: numba's
NRT_incref and NRT_decref return at once on null.

Such a view must not outlive the array it was taken from: take it of an argument the caller
holds, or of an array that keep_alive keeps to the end of the function using the view, and never
return it or store it where it outlives that array.
"""
from __future__ import annotations

from numba.core import cgutils, config, types
from numba.extending import intrinsic


def _borrowed(context, builder, typ, value):
    """The borrowed copy of one value of type typ: arrays lose their owner, tuples are copied
    member by member, None and numbers are themselves."""
    if isinstance(typ, types.Array):
        source = context.make_array(typ)(context, builder, value=value)
        view = context.make_array(typ)(context, builder)
        view.meminfo = cgutils.get_null_value(view.meminfo.type)
        view.parent = cgutils.get_null_value(view.parent.type)
        view.nitems = source.nitems
        view.itemsize = source.itemsize
        view.data = source.data
        view.shape = source.shape
        view.strides = source.strides
        return view._getvalue()
    if isinstance(typ, types.BaseTuple):
        out = cgutils.get_null_value(context.get_value_type(typ))
        for i, member in enumerate(typ):
            item = builder.extract_value(value, i)
            out = builder.insert_value(out, _borrowed(context, builder, member, item), i)
        return out
    return value


def _borrowable(typ) -> bool:
    if isinstance(typ, types.BaseTuple):
        return all(_borrowable(member) for member in typ)
    return isinstance(typ, (types.Array, types.NoneType, types.Number, types.Boolean))


@intrinsic
def borrow(typingctx, value):
    """``value`` (an array, None, or a tuple of them, nested) with every array a borrowed view
    (see the module docstring); the type is unchanged."""
    if not _borrowable(value):
        return None

    def codegen(context, builder, signature, args):
        return _borrowed(context, builder, value, args[0])

    return value(value), codegen


@intrinsic
def keep_alive(typingctx, owners):
    """A use of ``owners`` that does nothing: placed after the last use of the views borrowed
    from them, it keeps numba from releasing the arrays before that point."""

    def codegen(context, builder, signature, args):
        return context.get_dummy_value()

    return types.none(owners), codegen


if config.DISABLE_JIT:  # the kernels run as Python: nothing is counted, nothing to borrow
    def borrow(value):  # noqa: F811
        return value

    def keep_alive(owners):  # noqa: F811
        return None
