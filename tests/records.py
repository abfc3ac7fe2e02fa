"""A check the reproducibility tests share: a block of games gives the same records on one
thread and on two, and played whole or in smaller blocks (the policy and deal streams are
pure functions of the seed and the game index)."""

import numba
import numpy as np


def on_threads(threads, play, *args):
    """``play(*args)`` with numba limited to ``threads`` threads (as many as it has, at most)."""
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
        return play(*args)
    finally:
        numba.set_num_threads(before)


def assert_same_on_threads_and_blocks(play, rules, policies, seed, games, starts):
    """``play`` (a game's ``run_block``) of games ``0 .. games-1``: the deal and game records
    on two threads, and of the blocks beginning at each of ``starts`` (the first 0), equal
    those on one thread. Returns the one-thread records."""
    one = on_threads(1, play, rules, policies, seed, 0, games)
    two = on_threads(2, play, rules, policies, seed, 0, games)
    ends = list(starts[1:]) + [games]
    blocks = [play(rules, policies, seed, first, end - first) for first, end in zip(starts, ends)]
    for other in (two, tuple(np.concatenate(parts) for parts in zip(*blocks))):
        assert np.array_equal(one[0], other[0]) and np.array_equal(one[1], other[1])
    return one
