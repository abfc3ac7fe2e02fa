"""Numba kernels: deal, play and score games over bitmask hands. No I/O, no global state."""
