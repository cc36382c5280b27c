"""Arguments of the public Python API, checked where they enter.

A value of the wrong Python type (a path that is not a string, a count that is not a whole
number, an array of strings) is a :class:`~usdjoints.errors.UsageError` naming the argument and
what was given, as the command line's own option errors are, not a ``TypeError`` from deep inside.
"""
from __future__ import annotations

import math
import numbers
import os

import numpy as np

from .errors import UsageError


def _shown(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:57]}..."


def path_arg(value, name: str = "path") -> str:
    """``os.fspath`` of a str, bytes or os.PathLike (bytes decoded as the file system does)."""
    if isinstance(value, bytes):
        return os.fsdecode(value)
    if isinstance(value, str) or hasattr(type(value), "__fspath__"):
        try:
            text = os.fspath(value)
        except TypeError as error:
            raise UsageError(f"{name} must be a path, got {type(value).__name__}: {error}") from None
        return os.fsdecode(text) if isinstance(text, bytes) else text
    raise UsageError(f"{name} must be a path (str or os.PathLike), got {type(value).__name__} {_shown(value)}")


def paths_arg(value, name: str, what: str = "paths") -> list[str]:
    """A list of paths (path_arg each) from an iterable of them; one path alone is refused, not
    read as a sequence of one-letter paths. ``what`` names the items in the message."""
    if isinstance(value, (str, bytes, os.PathLike)) or not hasattr(value, "__iter__"):
        raise UsageError(f"{name} must be a list of {what}, got {type(value).__name__}")
    return [path_arg(item, name) for item in value]


# the largest whole number an argument may be: every integer up to it is exact as a float
WHOLE_MAX = 2 ** 53


def is_real(value) -> bool:
    """A real number that a float can hold (not a bool, a string, an array or an int past 1e308)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return False
    try:
        float(value)
    except (OverflowError, ValueError):
        return False
    return True


def real_arg(value, name: str) -> float:
    """A real number (not a bool, a string or an array) as a float; non-finite values pass."""
    if not is_real(value):
        raise UsageError(f"{name} must be a number, got {type(value).__name__} {_shown(value)}")
    return float(value)


def whole_arg(value, name: str, minimum: int = 1, maximum: int = WHOLE_MAX) -> int:
    """A whole number in [minimum, maximum] (an integral float such as 4.0 is accepted)."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        number = int(value)
    elif is_real(value) and math.isfinite(float(value)) and float(value) == int(float(value)):
        number = int(float(value))
    else:
        raise UsageError(f"{name} must be a whole number, got {type(value).__name__} {_shown(value)}")
    if number < minimum:
        raise UsageError(f"{name} must be at least {minimum}, got {number}")
    if number > maximum:
        raise UsageError(f"{name} must be at most {maximum:,}, got {_shown(number)}")
    return number


def float_array_arg(value, name: str) -> np.ndarray:
    """``value`` as a float64 array; strings, objects and complex numbers are refused."""
    try:
        array = np.asarray(value)
    except (TypeError, ValueError) as error:  # ragged nesting
        raise UsageError(f"{name} must be an array of numbers: {error}") from None
    if array.dtype == np.bool_ or not (np.issubdtype(array.dtype, np.integer)
                                        or np.issubdtype(array.dtype, np.floating)):
        raise UsageError(f"{name} must be an array of real numbers, got {array.dtype} {_shown(value)}")
    return array.astype(np.float64, copy=False)


def names_arg(value, name: str) -> list:
    """A list of names from an iterable of them; one str is one name."""
    if isinstance(value, str):
        return [value]
    if not hasattr(value, "__iter__") or isinstance(value, (bytes, dict)):
        raise UsageError(f"{name} must be a list of names, got {type(value).__name__} {_shown(value)}")
    return list(value)


def bool_arg(value, name: str) -> bool:
    """True or False (also NumPy's bool); anything else is refused rather than read as truthy."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise UsageError(f"{name} must be True or False, got {type(value).__name__} {_shown(value)}")
