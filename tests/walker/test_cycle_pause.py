"""The walker's pause of Python's cycle collector leaves the collector as it found it.

Oracle: CPython's own collector counters (gc.get_count, gc.get_freeze_count, gc.isenabled).
"""
import gc

import pytest

from usdjoints.walker import paused_cycle_collection


@pytest.fixture
def collector():
    was_enabled = gc.isenabled()
    gc.enable()
    yield
    gc.unfreeze()
    if not was_enabled:
        gc.disable()


def test_pause_ends_without_a_pending_young_collection(collector):
    """Allocations made while paused must not all land in one collection on the way out: the
    youngest generation's count starts again below its threshold."""
    threshold = gc.get_threshold()[0]
    with paused_cycle_collection():
        assert not gc.isenabled()
        kept = [[i] for i in range(50 * threshold)]  # lists are tracked by the collector
        assert gc.get_count()[0] > threshold
    assert gc.isenabled()
    assert gc.get_count()[0] < threshold
    assert gc.get_freeze_count() == 0  # nothing left frozen
    assert len(kept) == 50 * threshold


def test_pause_keeps_objects_the_program_froze(collector):
    """A program that froze objects (as pre-forking servers do) finds them still frozen."""
    gc.freeze()
    frozen = gc.get_freeze_count()
    assert frozen > 0
    with paused_cycle_collection():
        kept = [[i] for i in range(1000)]
    assert gc.isenabled()
    # the pause neither unfroze them (0) nor froze its own lists (frozen + 1000); another thread
    # (pytest-xdist's channel to its controller) may free a few of the frozen objects meanwhile
    assert frozen - 100 < gc.get_freeze_count() <= frozen
    assert len(kept) == 1000


def test_pause_leaves_a_disabled_collector_disabled():
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        with paused_cycle_collection():
            pass
        assert not gc.isenabled()
    finally:
        if was_enabled:
            gc.enable()
