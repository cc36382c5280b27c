"""numba kernels of the simulator, one module per pipeline stage. Importing a kernel module
imports numba; nothing outside usdjoints.sim does."""

# Compile flag of every kernel: floating-point contraction lets a * b + c become one fused
# multiply-add (one rounding instead of two, and fewer instructions: the Euler step of a 9-dof
# arm takes ~14% less time). NaN, inf and the order of other operations keep their IEEE rules,
# so the divergence checks still see every non-finite value.
FMA = {"contract"}
