"""Relative ranks: the table keys and the equivalent cards. A segment of the deck (a suit,
cut at the ranges of the Colons in play; Bid Euchre: an effective suit) counts only as the
sequence of owners of its cards in play, so positions that differ only in which low cards
are gone share a key, and cards of one hand with no other card in play between them are
searched once."""

import numpy as np
from numba import njit

from kernels.cards import (
    ALL_SUITED, COLONS, ONE, RANGE_MASKS, SUIT_MASKS, ZERO, bit_nb, compress_nb, highest_nb, lowest_nb, popcount_nb,
)
from kernels.dd.layout import PAIR_LOWS


def _contract_segs(live: int) -> np.ndarray:
    """Packing segments while the Colons of the bit set ``live`` (Little 1, Royal 2, Grand
    4) are in play: each suit, cut where a live Colon's range (B-1) begins or ends."""
    cuts = set()
    if live & 0b011:  # Little or Royal: 2-10 against J-K-A
        cuts.add(9)
    if live & 0b110:  # Royal or Grand: J-K against A
        cuts.add(12)
    segs = []
    for s in range(4):
        edges = [0, *sorted(cuts), 13]
        segs += [sum(1 << (13 * s + r) for r in range(lo, hi)) for lo, hi in zip(edges, edges[1:])]
    return np.array(segs + [0] * (12 - len(segs)), dtype=np.uint64)


CONTRACT_SEGS = np.array([_contract_segs(live) for live in range(8)], dtype=np.uint64)
# The highest bit of each segment, by the same index.
CONTRACT_SEG_TOPS = np.array([sum(1 << (int(seg).bit_length() - 1) for seg in segs if seg) for segs in CONTRACT_SEGS],
                             dtype=np.uint64)
_S52 = np.uint64(52)


@njit(cache=True, inline="always")
def _live_colons_nb(in_play):
    return np.int64((in_play & COLONS) >> _S52)


@njit(cache=True, inline="always")
def contract_segs_nb(in_play):
    return CONTRACT_SEGS[_live_colons_nb(in_play)]


@njit(cache=True, inline="always")
def segment_counts_nb(in_play, segs):
    """How many cards each segment has in play, 4 bits per segment (at most 12 segments of
    at most 15 cards): the boundaries of a key's compressed owner sequence."""
    counts = ZERO
    for k in range(segs.shape[0]):
        counts |= np.uint64(popcount_nb(in_play & segs[k])) << np.uint64(4 * k)
    return counts


_S12, _S40, _S56 = np.uint64(12), np.uint64(40), np.uint64(56)
_LITTLE, _ROYAL, _GRAND = (np.uint64(1 << (52 + k)) for k in range(3))


@njit(cache=True, inline="always")
def classes_key_nb(hand, other):
    """The classes of ``hand``'s cards that the Colons ``other`` holds can read: B-8 blocks
    and B-10 discards on a led card of a Colon's range, B-9 a card of its range beating the
    led Colon. Per suit, how many of its cards are 2-10 (for the Little Colon, and for the
    Royal one where the hand has J-K cards of the suit: they lie above those) and J-K
    (Royal), and which aces it holds (Grand). A suit's cards keep their order among the
    cards in play, so these counts say which of them lie in each range. Nothing reads the
    classes of a Colon holder's own cards: a Colon acts only on the other hand's cards."""
    key = ZERO
    little, royal = other & _LITTLE != ZERO, other & _ROYAL != ZERO
    if little or royal:
        for s in range(4):
            suit = hand & SUIT_MASKS[s]
            face = popcount_nb(suit & RANGE_MASKS[1]) if royal else 0
            low = popcount_nb(suit & RANGE_MASKS[0]) if little or face else 0
            key |= np.uint64(low) << (_S40 + np.uint64(4 * s)) | np.uint64(face) << (_S56 + np.uint64(2 * s))
    if other & _GRAND:
        key |= (hand & RANGE_MASKS[2]) >> _S12
    return key


@njit(cache=True, inline="always")
def contract_key_nb(leader_hand, follower_hand, in_play):
    """A trick boundary's table key, by relative rank: the leader's suited cards numbered by
    their place among the suited cards in play, with the Colons it holds (bits 52-54); how
    many cards each suit has in play (4 bits each), with the follower's Colons; and each
    hand's classes that the other's Colons read (``classes_key_nb``). Two positions share a
    key when each suit holds the same sequence of owners and the Colons read the same
    classes."""
    return (compress_nb(leader_hand, in_play & ALL_SUITED) | (leader_hand & COLONS),
            segment_counts_nb(in_play, CONTRACT_SEGS[0]) | (follower_hand & COLONS),
            classes_key_nb(leader_hand, follower_hand), classes_key_nb(follower_hand, leader_hand))


@njit(cache=True, inline="always")
def representatives_nb(legal, hand, in_play, segmented, tops):
    """One card per run of equivalent cards of ``legal``: a card of the ``segmented`` cards
    is left out when the next card in play above it in its segment (``tops``: each
    segment's highest bit) is in ``hand`` too, as that card stands for both; other cards
    (Colons) are each their own run. For all cards at once: ``hand`` fills down through the
    cards out of play of each segment (an occluded fill, steps 1, 2, 4, 8: segments of up
    to 16 cards), and a card whose upper neighbour is filled has such a card above it."""
    filled = hand & segmented
    gaps = segmented & ~in_play & ~tops  # out of play, and below another card of its segment
    for step in (1, 2, 4, 8):
        filled |= gaps & (filled >> np.uint64(step))
        gaps &= gaps >> np.uint64(step)
    return legal & ~((filled >> ONE) & segmented & ~tops)


@njit(cache=True, inline="always")
def contract_representatives_nb(legal, hand, in_play, facing):
    """``representatives_nb`` over the suits, cut at the ranges of the Colons in ``facing``
    (those the other hand holds or has led): B-8..B-10 read the class of a card only where
    such a Colon faces it."""
    return representatives_nb(legal, hand, in_play, ALL_SUITED, CONTRACT_SEG_TOPS[_live_colons_nb(facing)])


@njit(cache=True, inline="always")
def euchre_representatives_nb(legal, hand, in_play, segs, group, double_deck):
    """One card per run of equivalent cards of ``legal``: a card is left out when the next
    card in play above it in its effective suit is in ``hand`` too, and so is every card in
    play of equal power to either (a double-deck copy elsewhere breaks the run). The single
    deck has no equal powers: ``representatives_nb`` over the effective suits."""
    if not double_deck:
        tops = ZERO
        for k in range(4):
            tops |= bit_nb(highest_nb(segs[k]))
        return representatives_nb(legal, hand, in_play, segs[0] | segs[1] | segs[2] | segs[3], tops)
    keep = legal
    for k in range(4):
        seg = segs[k]
        rest = legal & seg
        while rest:
            low = rest & (~rest + ONE)
            rest ^= low
            above = in_play & seg & ~((low << ONE) - ONE) & ~group[lowest_nb(low)]
            if above:
                nxt = above & (~above + ONE)
                span = in_play & (group[lowest_nb(low)] | group[lowest_nb(nxt)])
                if span & ~hand == ZERO:
                    keep &= ~low
    return keep


@njit(cache=True, inline="always")
def euchre_key_nb(hands, in_play, segs):
    """A trick boundary's table key in the single deck, by relative rank: three hands' cards
    numbered by their place among the cards in play (the fourth holds the rest), and how
    many cards each effective suit has in play (4 bits each). Two positions share a key
    when each effective suit holds the same sequence of owners."""
    return (compress_nb(hands[0], in_play), compress_nb(hands[1], in_play), compress_nb(hands[2], in_play),
            segment_counts_nb(in_play, segs))


@njit(cache=True, inline="always")
def copies_key_nb(hand):
    """How many copies of each card a double-deck hand holds (the pair's low bit: one or
    more, high bit: both), whichever copies they are."""
    low = hand & PAIR_LOWS
    high = (hand >> ONE) & PAIR_LOWS
    return (low | high) | ((low & high) << ONE)


@njit(cache=True, inline="always")
def double_deck_key_nb(hands, in_play, segs):
    """A trick boundary's table key in the double deck, by relative rank: each hand's
    copies of each card (``copies_key_nb``) numbered by the card's place among the cards
    with a copy in play (two bits a card: at most 25 cards, 50 bits), and how many such
    cards each effective suit has (4 bits each, in the words' top bytes). Two positions
    share a key when each effective suit holds the same sequence of cards in play with
    the same copies in each hand: a card whose copies are both gone orders nothing."""
    low = (in_play | (in_play >> ONE)) & PAIR_LOWS  # the pairs with a copy in play
    cards = low | (low << ONE)
    counts = segment_counts_nb(low, segs)
    return (compress_nb(copies_key_nb(hands[0]), cards) | (counts << _S56),
            compress_nb(copies_key_nb(hands[1]), cards) | ((counts >> np.uint64(8)) << _S56),
            compress_nb(copies_key_nb(hands[2]), cards), compress_nb(copies_key_nb(hands[3]), cards))
