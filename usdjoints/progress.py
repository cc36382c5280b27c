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


class RateProgress:
    """``rate(done, total)`` redraws ``label [####....] 512/10000 stages  850/s  ETA 0:11``.

    Redraws at most every ``interval`` seconds (and once at the end), however often it is called;
    the rate is taken over the whole run so far. :meth:`close` ends the line.
    """

    WIDTH = 30

    def __init__(self, label: str, total: int, unit: str = "items", stream: Optional[TextIO] = None,
                 interval: float = 0.25, clock=None):
        import time

        self.label, self.total, self.unit, self.interval = label, total, unit, interval
        self.stream = stream if stream is not None else sys.stderr
        self.clock = clock or time.monotonic
        self.started = self.clock()
        self._drawn_at: Optional[float] = None
        self._open = False

    def __call__(self, done: int, total: Optional[int] = None) -> None:
        total = self.total if total is None else total
        now = self.clock()
        if done < total and self._drawn_at is not None and now - self._drawn_at < self.interval:
            return
        self._drawn_at = now
        self.stream.write("\r" + self.line(done, total, now - self.started))
        self.stream.flush()
        self._open = True

    def line(self, done: int, total: int, elapsed: float) -> str:
        filled = self.WIDTH * done // total if total else self.WIDTH
        text = f"{self.label} [{'#' * filled}{'.' * (self.WIDTH - filled)}] {done}/{total} {self.unit}"
        if done and elapsed > 0:
            rate = done / elapsed
            text += f"  {rate:,.0f}/s" if rate >= 10 else f"  {rate:.1f}/s"
            if done < total:
                text += f"  ETA {_clock_text((total - done) / rate)}"
            else:
                text += f"  in {_clock_text(elapsed)}"
        return text

    def close(self) -> None:
        if self._open:
            self.stream.write("\n")
            self.stream.flush()
            self._open = False


def _clock_text(seconds: float) -> str:
    """``0:07``, ``12:30``, ``1:02:03``."""
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"
