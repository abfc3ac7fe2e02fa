"""Counter-based random numbers: each game's stream is a pure function of (seed, game index).

SplitMix64: the state advances by a fixed odd constant and each output is a bijective mix
of the state. A game's starting state is the mix of the run seed's hash and the game
index, so any game can be regenerated alone, and results do not depend on how games are
split across threads, blocks or machines.
"""

import numpy as np
from numba import njit

_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S32 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(32)
_STREAM_KEY = np.uint64(0xD1B54A32D192ED03)


@njit(cache=True, inline="always")
def mix64_nb(z):
    """SplitMix64's finaliser: a bijection of uint64 with good avalanche."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(cache=True)
def game_stream_nb(seed, game_index, state):
    """Set ``state`` (a 1-element uint64 array) to the start of the stream of one game."""
    key = mix64_nb(np.uint64(seed) ^ _STREAM_KEY)
    state[0] = mix64_nb(key + np.uint64(game_index) * _GAMMA)


@njit(cache=True, inline="always")
def next_u64_nb(state):
    """The next 64 random bits of the stream."""
    state[0] += _GAMMA
    return mix64_nb(state[0])


_S11 = np.uint64(11)
_UNIT = 1.0 / 9007199254740992.0  # 2**-53


@njit(cache=True, inline="always")
def uniform_nb(state):
    """A uniform float in [0, 1) from 53 bits of the stream."""
    return np.float64(next_u64_nb(state) >> _S11) * _UNIT


@njit(cache=True, inline="always")
def below_nb(state, n):
    """A random integer in [0, n) for 0 < n < 2**32 (multiply-shift, bias below 2**-26)."""
    hi = next_u64_nb(state) >> _S32
    return np.int64((hi * np.uint64(n)) >> _S32)


@njit(cache=True)
def shuffle_nb(state, arr):
    """Fisher-Yates shuffle of ``arr`` in place."""
    for i in range(arr.shape[0] - 1, 0, -1):
        j = below_nb(state, i + 1)
        arr[i], arr[j] = arr[j], arr[i]


@njit(cache=True)
def game_streams_nb(seed, game_index, deal_rng, policy_rng):
    """Start a game's two streams in the states given: the deal stream (cards, first dealer)
    and the policy stream, so the cards of every deal are the same whatever the policies
    choose."""
    game_stream_nb(seed, game_index, deal_rng)
    game_stream_nb(seed, game_index, policy_rng)
    policy_rng[0] = ~policy_rng[0]
