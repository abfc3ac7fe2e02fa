"""Hand features of Bridgette deals as dealt, whose means follow exactly from the deck:
control variates that need no run."""

from __future__ import annotations

import time

import numpy as np

from sim.multilevel.estimator import Features


def _mix64(z):
    from kernels.rng import _M1, _M2

    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


def dealt_orders(seed: int, first: int, count: int) -> np.ndarray:
    """The 55-card order of the first shuffle of deals ``first .. first+count-1`` of a
    Bridgette run of ``seed`` (kernels.rng's streams, kernels.bridgette.deal_cards_nb's
    Fisher-Yates, after the first dealer's draw), in numpy, many deals at once."""
    from kernels.rng import _GAMMA, _STREAM_KEY

    with np.errstate(over="ignore"):
        key = _mix64(np.asarray([seed], dtype=np.uint64) ^ _STREAM_KEY)
        state = _mix64(key + np.arange(first, first + count, dtype=np.uint64) * _GAMMA)

        def below(n):
            nonlocal state
            state = state + _GAMMA
            hi = _mix64(state) >> np.uint64(32)
            return ((hi * np.uint64(n)) >> np.uint64(32)).astype(np.int64)

        below(2)  # the first dealer's draw, made in a deal run too
        order = np.tile(np.arange(55, dtype=np.int8), (count, 1))
        rows = np.arange(count)
        for i in range(54, 0, -1):
            j = below(i + 1)
            held = order[rows, i].copy()
            order[rows, i] = order[rows, j]
            order[rows, j] = held
    return order


HAND_FEATURES = ("hcp", "aces", "little", "royal", "grand", "longest", "up_face", "up_ace", "up_colon",
                 "hcp_x_face", "hcp_x_ace")


def hand_features(rules, seed: int, count: int) -> Features:
    """Features of the first ``count`` deals of an unconditioned Bridgette deal run of
    ``seed`` as dealt, from the dealer's side (B-2: the non-dealer is dealt first, so the
    dealer holds the even places' neighbours): high-card points, aces, each Colon (+1 the
    dealer holds it, -1 the non-dealer) and the longest suit, each the dealer's minus the
    non-dealer's, whose mean is exactly 0 because the two hands are exchangeable, also
    given the up-card; the up-card's class (B-3: face, ace, a Colon), whose mean is its
    share of the deck; and points times the up-card's class, mean 0 again."""
    from kernels.cards import CARD_CLASS, HCP
    from sim.bridgette import kernel_rules

    began = time.perf_counter()
    deck = [int(c) for c in kernel_rules(rules).deck]
    order = dealt_orders(seed, 0, count).astype(np.int64)
    if len(deck) < 55:  # the kernel keeps the deck's cards of the 55 shuffled, in order
        keep = np.isin(order, deck)
        order = order[keep].reshape(count, len(deck))
    nondealer, dealer = order[:, 0:26:2], order[:, 1:26:2]
    up = order[:, 26]
    points = np.array([HCP[c % 13] if c < 52 else 0 for c in range(55)], dtype=np.int64)
    ace = np.array([c < 52 and c % 13 == 12 for c in range(55)])

    def diff(table):
        return table[dealer].sum(axis=1) - table[nondealer].sum(axis=1)

    cols = {"hcp": diff(points).astype(float), "aces": diff(ace.astype(np.int64)).astype(float)}
    for name, card in (("little", 52), ("royal", 53), ("grand", 54)):
        cols[name] = diff((np.arange(55) == card).astype(np.int64)).astype(float)

    def longest(hand):
        suits = np.where(hand < 52, hand // 13, 4)
        return np.stack([(suits == s).sum(axis=1) for s in range(4)]).max(axis=0)

    cols["longest"] = (longest(dealer) - longest(nondealer)).astype(float)
    up_class = np.where(up < 52, CARD_CLASS[np.minimum(up, 54)], -1)
    colon_class = CARD_CLASS[np.clip(up, 52, 54)]
    klass = np.where(up < 52, up_class, colon_class)  # B-3: a Colon draws as its range's class
    cols["up_face"] = (klass == 1).astype(float)
    cols["up_ace"] = (klass == 2).astype(float)
    cols["up_colon"] = (up >= 52).astype(float)
    cols["hcp_x_face"] = cols["hcp"] * cols["up_face"]
    cols["hcp_x_ace"] = cols["hcp"] * cols["up_ace"]
    n_deck = len(deck)
    share = {k: sum(1 for c in deck if int(CARD_CLASS[c]) == k) / n_deck for k in (1, 2)}
    means = {"up_face": share[1], "up_ace": share[2], "up_colon": sum(1 for c in deck if c >= 52) / n_deck}
    names = tuple(n for n in HAND_FEATURES if not (n in ("little", "royal", "grand", "up_colon")
                                                   and not any(c >= 52 for c in deck)
                                                   or n in ("little", "royal", "grand")
                                                   and {"little": 52, "royal": 53, "grand": 54}[n] not in deck))
    x = np.column_stack([cols[n] for n in names])
    mu = np.array([means.get(n, 0.0) for n in names])
    return Features(names, x, mu, time.perf_counter() - began)
