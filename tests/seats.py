"""Seats records the kernel-level search and pimc tests share: every seat playing one policy,
knowing nothing yet (any unseen card may lie anywhere), its stream fixed."""

import numpy as np

from kernels.step import seats_for
from sim.policies import kernel_policies

ANYWHERE = np.uint64(2**64 - 1)


def fresh_seats(policy, players: int, stream: int = 99) -> np.ndarray:
    """A seats record of ``players`` seats all playing the parsed ``policy``, each seat's
    ``may_hold`` every card and its policy stream ``stream``."""
    seats = seats_for(*kernel_policies([policy] * players))
    seats["may_hold"] = ANYWHERE
    seats["rng"] = stream
    return seats
