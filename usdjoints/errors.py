"""Typed errors. Every message names where (file:line or prim path), what is wrong and how to fix it.

The CLI turns any :class:`UsdJointsError` into one line on stderr and exit code 2.
"""
from __future__ import annotations


class UsdJointsError(Exception):
    """Base of every error usdjoints raises on purpose."""

    exit_code = 2


class InputError(UsdJointsError):
    """Unreadable or invalid input: a missing file, bad XML, a broken stage.

    ``where`` is ``file`` or ``file:line`` or a prim path; it leads the message.
    """

    def __init__(self, where: str | None, message: str, hint: str | None = None):
        self.where = where
        self.message = message
        self.hint = hint
        text = f"{where}: {message}" if where else message
        if hint:
            text = f"{text} ({hint})"
        super().__init__(text)


class UnsupportedFeature(UsdJointsError):
    """Input that is valid but uses something usdjoints does not handle; names the feature."""


class UsageError(UsdJointsError):
    """A command line or API call that cannot be carried out as asked."""


class SimulationError(UsdJointsError):
    """A run that failed: divergence or NaN, naming the joint and the time."""

    exit_code = 1
