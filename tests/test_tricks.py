"""The trick helpers of kernels/tricks.py agree with each other and with C-3 by hand; the
card-set helper every random choice reads picks the card it is asked for."""

import numpy as np
import pytest

from kernels.cards import CARD_IDS, nth_card_nb, nth_card_table_nb
from kernels.tricks import beaters_nb, beats_nb


def test_beats_by_hand():
    """C-3: a higher card of the suit led wins, a trump beats any other suit, anything else loses."""
    kh, ah, two_s, qd = CARD_IDS["KH"], CARD_IDS["AH"], CARD_IDS["2S"], CARD_IDS["QD"]
    assert beats_nb(ah, kh, -1) and not beats_nb(kh, ah, -1)
    assert beats_nb(two_s, ah, 3) and not beats_nb(two_s, ah, -1)
    assert not beats_nb(qd, kh, 3) and not beats_nb(kh, two_s, 3)


@pytest.mark.parametrize("trump", [-1, 0, 1, 2, 3])
def test_beaters_is_beats_for_every_card(trump):
    rng = np.random.default_rng(trump + 7)
    for _ in range(400):
        cards = [int(c) for c in rng.choice(52, size=int(rng.integers(0, 14)), replace=False)]
        best = int(rng.integers(0, 52))
        mask = np.uint64(sum(1 << c for c in cards))
        expected = sum(1 << c for c in cards if beats_nb(c, best, trump))
        assert int(beaters_nb(mask, best, trump)) == expected


@pytest.mark.parametrize("nth", [nth_card_nb, nth_card_table_nb])
def test_nth_card_is_the_nth_lowest_card_of_the_set(nth):
    """Every place of random sets of every size up to 64 cards, against the sorted list:
    the kernels' choice (pdep where the machine has a fast one) and the byte table."""
    rng = np.random.default_rng(3)
    for _ in range(2000):
        cards = sorted(int(c) for c in rng.choice(64, size=int(rng.integers(1, 65)), replace=False))
        mask = np.uint64(sum(1 << c for c in cards))
        assert [nth(mask, n) for n in range(len(cards))] == cards
