"""Numba kernels: deal, play and score games over bitmask hands. No I/O, no global state.

Numba's on-disk cache notices an edit only in the file of the compiled function itself,
not in the files it calls into (an edited policy would leave the engine's cached
machine code stale). The cache therefore lives in a folder named after a hash of every
kernel source (kernels/options.py, which numbers the choice options, among them), so any
such edit starts a fresh cache. Run folders record the same hash, so a run is never
resumed by other kernels than the ones that began it.
"""

import hashlib
from pathlib import Path

from numba import config

_HERE = Path(__file__).resolve().parent
_SOURCES = sorted(_HERE.rglob("*.py"))
SOURCE_DIGEST = hashlib.sha256(b"".join(p.read_bytes() for p in _SOURCES)).hexdigest()[:16]
config.CACHE_DIR = str(Path(config.CACHE_DIR or _HERE / "__pycache__") / f"numba-{SOURCE_DIGEST}")
