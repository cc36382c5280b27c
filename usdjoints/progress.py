"""A one-line progress bar on stderr, for runs long enough that a user waits on them."""
from __future__ import annotations

import sys
from typing import Optional, TextIO


class ProgressBar:
    """``bar(fraction)`` redraws ``label [#####.....] 50%`` in place; the bar ends its line once
    the fraction reaches 1. Redraws only when the shown percentage changes."""

    WIDTH = 30

    def __init__(self, label: str, stream: Optional[TextIO] = None):
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self._shown = -1

    def __call__(self, fraction: float) -> None:
        percent = int(100 * min(max(fraction, 0.0), 1.0))
        if percent == self._shown:
            return
        self._shown = percent
        filled = self.WIDTH * percent // 100
        self.stream.write(f"\r{self.label} [{'#' * filled}{'.' * (self.WIDTH - filled)}] {percent:3d}%")
        if percent == 100:
            self.stream.write("\n")
        self.stream.flush()
