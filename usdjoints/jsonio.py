"""JSON for every usdjoints output: no bare Infinity/NaN, quaternions as [w, x, y, z].

Non-finite floats become the strings "inf", "-inf" and "nan"; tuples become lists; enums
become their value; Gf vectors and matrices become (nested) lists; Sdf paths become strings.
"""
from __future__ import annotations

import dataclasses
import enum
import json
import math
from typing import Any


def _float(value: float) -> Any:
    if math.isfinite(value):
        return value
    if math.isnan(value):
        return "nan"
    return "inf" if value > 0 else "-inf"


def _from_pxr(obj: Any) -> Any:
    if hasattr(obj, "GetReal") and hasattr(obj, "GetImaginary"):
        imaginary = obj.GetImaginary()
        return [_float(float(obj.GetReal()))] + [_float(float(c)) for c in imaginary]
    if type(obj).__name__ == "Path":  # Sdf.Path
        return str(obj)
    try:
        return [to_jsonable(item) for item in obj]
    except TypeError:
        return str(obj)


def to_jsonable(obj: Any) -> Any:
    """``obj`` as plain JSON data (dict, list, str, int, float, bool, None)."""
    if obj is None or isinstance(obj, bool):
        return obj
    if isinstance(obj, enum.Enum):
        return to_jsonable(obj.value)
    if isinstance(obj, int):
        return obj
    if isinstance(obj, float):
        return _float(obj)
    if isinstance(obj, str):
        return str(obj)
    if isinstance(obj, dict):
        return {str(to_jsonable(k)): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set, frozenset)):
        return [to_jsonable(item) for item in obj]
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if type(obj).__module__.startswith("pxr."):
        return _from_pxr(obj)
    if hasattr(obj, "tolist"):  # numpy arrays and scalars
        return to_jsonable(obj.tolist())
    return str(obj)


def dumps(obj: Any, indent: int | None = 2) -> str:
    """``obj`` as strict JSON text (``allow_nan=False`` proves no bare Infinity/NaN slipped in)."""
    return json.dumps(to_jsonable(obj), indent=indent, allow_nan=False)
