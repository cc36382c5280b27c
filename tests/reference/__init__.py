"""Plain-numpy oracles, written for clarity rather than speed (Featherstone, RBDA 2008)."""
