"""The transposition table: entries at trick boundaries holding bounds on the leader's
side's tricks and the best lead found, in buckets of two, by generation (a new generation
makes every entry stale with no clearing)."""

import numpy as np
from numba import njit

from kernels.dd.context import ST_GEN, ST_NODES


_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_M3 = np.uint64(0x9E3779B97F4A7C15)
_M4 = np.uint64(0xD6E8FEB86659FD93)
_S29, _S43 = np.uint64(29), np.uint64(43)


@njit(cache=True, inline="always")
def _hash_nb(k0, k1, k2, k3, meta):
    """A key's hash: one multiply per word, none waiting on another (the bucket's address is
    wanted early, ``contract_enter_nb``), high bits folded down to the index bits."""
    h = k0 * _M1 ^ (k1 + np.uint64(meta)) * _M2 ^ k2 * _M3 ^ k3 * _M4
    return h ^ (h >> _S29) ^ (h >> _S43)


@njit(cache=True, inline="always")
def tt_bucket_nb(tt, k0, k1, k2, k3, meta):
    """Where a key's entry may lie: this index or the next."""
    return np.int64(_hash_nb(k0, k1, k2, k3, meta) & np.uint64(tt.shape[0] - 2))


@njit(cache=True, inline="always")
def tt_probe_nb(tt, ctx, k0, k1, k2, k3, meta):
    """The entry holding this key (index), or -1."""
    return tt_find_nb(tt, ctx, tt_bucket_nb(tt, k0, k1, k2, k3, meta), k0, k1, k2, k3, meta)


@njit(cache=True, inline="always")
def tt_find_nb(tt, ctx, i, k0, k1, k2, k3, meta):
    """``tt_probe_nb`` in the bucket at ``i``."""
    gen = ctx.stats[ST_GEN]
    for j in range(i, i + 2):
        e = tt[j]
        if e.gen == gen and e.meta == meta and e.k0 == k0 and e.k1 == k1 and e.k2 == k2 and e.k3 == k3:
            return j
    return -1


@njit(cache=True, inline="always")
def tt_store_nb(tt, ctx, k0, k1, k2, k3, meta, is_lower, bound, best, n_max):
    """Narrow the bounds of a key's entry (new entry: [0, n_max]) with one search result:
    the value is >= ``bound`` (``is_lower``) or < ``bound``."""
    i = tt_bucket_nb(tt, k0, k1, k2, k3, meta)
    j = tt_find_nb(tt, ctx, i, k0, k1, k2, k3, meta)
    if j < 0:
        # Take a stale slot first, else either one (by the node count's parity): keeping the
        # entry of the larger subtree instead would fill the table with positions of searches
        # long done, as entries stay fresh while the rules do (``renew_nb``).
        gen = ctx.stats[ST_GEN]
        j = i if tt[i].gen != gen else (i + 1 if tt[i + 1].gen != gen else i + (ctx.stats[ST_NODES] & 1))
        e = tt[j]
        e.k0, e.k1, e.k2, e.k3, e.meta, e.gen = k0, k1, k2, k3, meta, ctx.stats[ST_GEN]
        e.lo, e.hi, e.best = 0, n_max, -1
    e = tt[j]
    if is_lower:
        if bound > e.lo:
            e.lo = bound
    elif bound - 1 < e.hi:
        e.hi = bound - 1
    if best >= 0:
        e.best = best
