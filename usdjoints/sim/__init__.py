"""The reduced-coordinate simulator. ``usdjoints.sim.api`` holds the public functions; numba is
imported only when one of them first runs."""
