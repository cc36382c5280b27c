"""numba kernels of the simulator, one module per pipeline stage. Importing a kernel module
imports numba; nothing outside usdjoints.sim does."""
