"""Trick mechanics, each rule once: the legal cards and the trick winner of every game family.

The deal kernels, the policies and the independent analyses all read these:
- contract play (C-3, with Bridgette's Colons: B-8 block and bar, B-9 Colon leads, B-10):
  ``lead_legal_nb``, ``follow_legal_nb``, ``trick_nb``, ``beats_nb`` (``beaters_nb`` for a
  set); Draw Bridge's contract
  phase (D-4) is the same play without Colons;
- the Draw Bridge draw phase (D-2): ``draw_follow_legal_nb``, ``draw_beats_nb``;
- Bid Euchre (C-3 over E-2's effective suits and powers): ``euchre_follow_legal_nb``,
  ``euchre_beats_nb``; E-4's forced returns, ``highest_trumps_nb``.
"""

from numba import njit

from kernels.cards import (
    ALL_SUITED, CARD_CLASS, COLONS, EUCHRE_EFF_SUIT, EUCHRE_POWER, EUCHRE_SUIT_OF, ONE, SUIT_MASKS, ZERO,
    above_in_suit_nb, bit_nb, lowest_nb,
)

# --- Contract play: C-3 with B-7..B-10 ----------------------------------------------------


@njit(cache=True, inline="always")
def beats_nb(card, best, trump):
    """C-3: does suited ``card`` beat the suited ``best`` so far (trump -1 for none)?"""
    cs = card // 13
    bs = best // 13
    if cs == bs:
        return card > best
    return cs == trump


@njit(cache=True, inline="always")
def beaters_nb(cards, best, trump):
    """C-3 over a set: the suited ``cards`` that beat the suited ``best`` (``beats_nb`` for
    each card at once): higher cards of its suit, and any trump when it is not a trump."""
    higher = cards & above_in_suit_nb(best)
    if trump >= 0 and trump != best // 13:
        higher |= cards & SUIT_MASKS[trump]
    return higher


@njit(cache=True, inline="always")
def lead_legal_nb(hand, barred_suit):
    """B-8: any card, except the barred suit (-1: none) while the leader holds anything else."""
    if barred_suit >= 0:
        other = hand & ~SUIT_MASKS[barred_suit]
        if other != ZERO:
            return other
    return hand


@njit(cache=True, inline="always")
def follow_legal_nb(hand, lead, colon_when_void):
    """C-3 with B-8..B-10: the cards the follower may play to ``lead``.

    The suit led if held, and the Colon matching a suited lead (B-8); a led Colon takes any
    card (B-9); another Colon only when void (``play.colon_discard = "when_void"``) or as a
    last resort (B-10).
    """
    if lead >= 52:
        return hand
    match = bit_nb(52 + CARD_CLASS[lead])
    legal = hand & match
    suit = hand & SUIT_MASKS[lead // 13]
    if suit != ZERO:
        return legal | suit
    legal |= hand & ALL_SUITED
    other_colons = hand & COLONS & ~match
    if colon_when_void or (hand & ~other_colons) == ZERO:
        legal |= other_colons
    return legal


@njit(cache=True, inline="always")
def trick_nb(lead, follow, trump):
    """B-8, B-9, C-3: (does the leader win, suit barred to the leader's next lead or -1).

    A led Colon loses only to a trump or a card of its range, and wins against a Colon;
    the Colon matching a suited lead loses and bars that suit to the leader's next lead.
    """
    if lead >= 52:
        if follow >= 52:
            return True, -1
        wins = follow // 13 == trump or CARD_CLASS[follow] == lead - 52
        return not wins, -1
    if follow >= 52:
        barred = lead // 13 if follow == 52 + CARD_CLASS[lead] else -1
        return True, barred
    return not beats_nb(follow, lead, trump), -1


# --- The draw phase: D-2 ------------------------------------------------------------------


@njit(cache=True, inline="always")
def draw_follow_legal_nb(hand, lead, must_follow):
    """D-2: any card, or the suit led if held when following is compulsory."""
    if must_follow and lead >= 0:
        held = hand & SUIT_MASKS[lead // 13]
        if held != ZERO:
            return held
    return hand


@njit(cache=True, inline="always")
def draw_beats_nb(card, lead, led_suit_wins):
    """D-2: does the follower's ``card`` win the draw trick led with ``lead``? The higher
    rank whatever the suit (equal ranks to the leader), or the higher card of the suit led."""
    if led_suit_wins:
        return card // 13 == lead // 13 and card > lead
    return card % 13 > lead % 13


# --- Bid Euchre: C-3 over E-2 -------------------------------------------------------------


@njit(cache=True, inline="always")
def euchre_follow_legal_nb(hand, lead, trump):
    """C-3 with E-2 suits: the effective suit led if held, else any card (-1: leading)."""
    if lead < 0:
        return hand
    held = hand & EUCHRE_SUIT_OF[trump, EUCHRE_EFF_SUIT[trump, lead]]
    return held if held != ZERO else hand


@njit(cache=True, inline="always")
def euchre_beats_nb(card, best, trump):
    """E-2, C-3: does ``card`` beat the ``best`` card so far? A trump beats any other suit;
    within a suit the higher power, and identical double-deck cards do not beat each other."""
    cs, bs = EUCHRE_EFF_SUIT[trump, card], EUCHRE_EFF_SUIT[trump, best]
    if cs == bs:
        return EUCHRE_POWER[trump, card] > EUCHRE_POWER[trump, best]
    return cs == trump


@njit(cache=True)
def highest_trumps_nb(hand, trump, k):
    """E-4: the ``k`` highest trumps of ``hand`` (all of them if fewer), as a card set."""
    chosen = ZERO
    trumps = hand & EUCHRE_SUIT_OF[trump, trump]
    for _ in range(k):
        if trumps == ZERO:
            break
        best, best_power = -1, -1
        rest = trumps
        while rest:
            c = lowest_nb(rest)
            rest &= rest - ONE
            if EUCHRE_POWER[trump, c] > best_power:
                best, best_power = c, EUCHRE_POWER[trump, c]
        chosen |= bit_nb(best)
        trumps &= ~bit_nb(best)
    return chosen
