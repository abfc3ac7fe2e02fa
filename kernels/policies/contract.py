"""The heuristic of Bridgette and Draw Bridge, and each decision's dispatch by policy: the
B-3 discards, the C-4/B-5/B-6 calls with doubles and redoubles, the card play (C-3 with
B-7..B-10) and Draw Bridge's D-2 draw-phase cards."""

import math

import numpy as np
from numba import njit

from kernels.calls import BID_LEVEL, BID_STRAIN, CALL_DOUBLE, CALL_PASS, CALL_REDOUBLE, STRAIN_BIDS
from kernels.cards import (
    ALL_SUITED, CARD_CLASS, COLONS, HCP, ONE, RANGE_MASKS, RANK_JACK, RANK_MASKS, RANK_TEN, SUIT_MASKS, ZERO,
    above_in_suit_nb, bit_nb, hcp_nb, highest_nb, lowest_nb, popcount_nb,
)
from kernels.policies.kinds import POLICY_RANDOM, pick_random_nb
from kernels.tricks import beaters_nb, draw_beats_nb

AVERAGE_HCP = 9.5  # 40 points over 55 cards, 13 held
_S13, _S26, _S39 = np.uint64(13), np.uint64(26), np.uint64(39)
_RANKS = np.uint64((1 << 13) - 1)


@njit(cache=True)
def estimate_tricks_nb(hand, strain):
    """Tricks this hand expects to take as declarer in ``strain`` (0-3 suits, 4 no-trump)."""
    est = 6.5 + (hcp_nb(hand) - AVERAGE_HCP) / 3.0 + 0.5 * popcount_nb(hand & COLONS)
    if strain < 4:
        length = popcount_nb(hand & SUIT_MASKS[strain])
        est += 0.7 * (length - 3.5)
        if length >= 4:
            for u in range(4):
                if u != strain:
                    est += 0.4 * max(0, 2 - popcount_nb(hand & SUIT_MASKS[u]))
    else:
        for u in range(4):
            length = popcount_nb(hand & SUIT_MASKS[u])
            if length == 0:
                est -= 1.5
            elif length > 4:
                est += 0.3 * (length - 4)
    return est


@njit(cache=True)
def defence_estimate_nb(hand, strain):
    """Tricks this hand expects to take defending the opponent's contract in ``strain``."""
    tricks = 6.5 + (hcp_nb(hand) - AVERAGE_HCP) / 3.0
    if strain < 4:
        tricks += 0.5 * (popcount_nb(hand & SUIT_MASKS[strain]) - 3.5)
    return tricks


# How much the exchange wants to keep each Colon (Little, Royal, Grand), on the scale of
# high-card points plus suit length used for suited cards below.
COLON_KEEP = np.array([2.5, 3.5, 4.5])


@njit(cache=True, inline="always")
def choose_discard_nb(pid, prm, hand, rng):
    """B-3: one card to discard from a hand above 13 cards."""
    if pid == POLICY_RANDOM:
        return pick_random_nb(hand, rng)
    return heuristic_discard_nb(prm.heuristic, hand)


@njit(cache=True)
def heuristic_discard_nb(h, hand):
    """The heuristic's choice for ``choose_discard_nb``."""
    # Heuristic: keep high cards and long suits; drop the lowest card of the shortest suit.
    # The card of least keep, the lowest of equals. A suit's keep rises with rank, so only
    # the lowest card of each suit is a candidate; suits are taken in card order.
    best_card, best_keep = -1, 1e18
    for s in range(4):
        cards = hand & SUIT_MASKS[s]
        if cards:
            c = lowest_nb(cards)
            keep = HCP[c % 13] + 0.08 * (c % 13) + 0.6 * popcount_nb(cards)
            if keep < best_keep:
                best_card, best_keep = c, keep
    colons = hand & COLONS
    while colons:
        c = lowest_nb(colons)
        colons &= colons - ONE
        keep = COLON_KEEP[c - 52] * h.keep_colons
        if keep < best_keep:
            best_card, best_keep = c, keep
    return best_card


@njit(cache=True, inline="always")
def choose_call_nb(pid, prm, seat, hand, legal, cur_bid, bidder, doubled, unseen, gain, odds, rng):
    """C-4/B-5/B-6: one call from the legal set ``legal`` (bit = call id). ``unseen`` is
    what the seat cannot see; ``gain[doubled, bid, tricks]`` the game's deal score, the
    declarer's minus the opponent's, by the declarer's tricks (B-11..B-14, D-5, D-6);
    ``odds`` the seat's memo of trick chances (``competing_bid_nb``)."""
    if pid == POLICY_RANDOM:
        return pick_random_nb(legal, rng)
    return heuristic_call_nb(prm.heuristic, seat, hand, legal, cur_bid, bidder, doubled, unseen, gain, odds)


@njit(cache=True)
def heuristic_call_nb(h, seat, hand, legal, cur_bid, bidder, doubled, unseen, gain, odds):
    """The heuristic's choice for ``choose_call_nb``.

    With ``bid_by_score`` and the opponent's hand known (every card the seat cannot see is
    the opponent's: Draw Bridge after D-2), tricks are counted from both hands and a bid
    beyond them is made only when the game's scoring says it pays (``competing_bid_nb``);
    otherwise from this hand alone.
    """
    aggression = h.aggression
    by_score = h.bid_by_score > 0 and popcount_nb(unseen) == popcount_nb(hand)
    if cur_bid >= 0 and bidder == seat:
        # The opponent doubled this seat's bid: redouble when it should make with tricks to spare.
        if legal & bit_nb(CALL_REDOUBLE):
            need = 6 + BID_LEVEL[cur_bid] + h.redouble_margin
            if bid_tricks_nb(hand, unseen, BID_STRAIN[cur_bid], by_score) + aggression >= need:
                return CALL_REDOUBLE
        return CALL_PASS
    # The lowest legal bid in the strain with the best estimate that the estimate supports.
    best_bid = -1
    best_est = -1e9
    above = ~(bit_nb(cur_bid + 1) - ONE)
    for strain in range(5):
        bids = legal & STRAIN_BIDS[strain] & above
        if bids == ZERO:
            continue
        b = lowest_nb(bids)  # the cheapest legal bid in this strain
        est = bid_tricks_nb(hand, unseen, strain, by_score) + aggression
        if BID_LEVEL[b] <= int(np.floor(est)) - 6 and est > best_est:
            best_est, best_bid = est, b
    if best_bid >= 0:
        return best_bid
    if by_score and cur_bid >= 0:
        b = competing_bid_nb(h, hand, unseen, legal & above, cur_bid, doubled, gain, odds)
        if b >= 0:
            return b
    if cur_bid >= 0 and legal & bit_nb(CALL_DOUBLE):
        # Double when the opponent's contract looks out of reach by a margin.
        if 13.0 - defence_estimate_nb(hand, BID_STRAIN[cur_bid]) + h.double_margin < 6 + BID_LEVEL[cur_bid]:
            return CALL_DOUBLE
    return CALL_PASS


# How far a declarer's tricks stray from ``expected_tricks_nb``: a standard deviation by
# strain (clubs .. spades, no-trump), rounded from the contracts of heuristic Draw Bridge
# games, where it came out at about 0.9 in a suit and 1.8 to 1.9 in no-trump.
TRICK_SPREAD = np.array([1.0, 1.0, 1.0, 1.0, 2.0])


@njit(cache=True)
def expected_tricks_nb(hand, opponent, strain):
    """Tricks ``hand`` expects as declarer in ``strain`` against a known ``opponent`` hand:
    the two take 13 between them, so 6.5 plus half the difference of their estimates."""
    return 6.5 + (estimate_tricks_nb(hand, strain) - estimate_tricks_nb(opponent, strain)) / 2.0


@njit(cache=True)
def bid_tricks_nb(hand, unseen, strain, by_score):
    """The auction's trick estimate: from both hands when bidding by score, else this hand's."""
    if by_score:
        return expected_tricks_nb(hand, unseen, strain)
    return estimate_tricks_nb(hand, strain)


# A memo row of ``trick_odds_nb``: [its strain + 1 (0: empty), its tricks, their chances of 0..13].
ODDS_WIDTH = 16


@njit(cache=True)
def trick_odds_nb(odds, strain, tricks, n):
    """The chances of 0..``n`` declarer tricks falling about ``tricks`` in ``strain`` with the
    spread of TRICK_SPREAD (a normal law rounded to whole tricks), kept in the memo row
    ``odds`` and taken from it while ``strain`` and ``tricks`` are the same: a hand's
    estimates do not change during an auction, and Draw Bridge's competing bids ask again
    at every call. ``n`` is not part of the key: it is the game's hand size, the same at
    every call of a run."""
    if odds[0] != strain + 1 or odds[1] != tricks:
        spread = TRICK_SPREAD[strain] * math.sqrt(2.0)
        below = 0.0  # chance of fewer than t tricks
        for t in range(n + 1):
            upto = 1.0 if t == n else 0.5 * (1.0 + math.erf((t + 0.5 - tricks) / spread))
            odds[2 + t] = upto - below
            below = upto
        odds[0], odds[1] = strain + 1, tricks
    return odds[2:3 + n]


@njit(cache=True)
def expected_gain_nb(gain, bid, doubled, tricks, odds):
    """The declarer's expected ``gain[doubled, bid, t]`` when its tricks ``t`` fall about
    ``tricks`` (``trick_odds_nb``, with its memo row ``odds``)."""
    chances = trick_odds_nb(odds, BID_STRAIN[bid], tricks, gain.shape[2] - 1)
    total = 0.0
    for t in range(chances.shape[0]):
        total += chances[t] * gain[doubled, bid, t]
    return total


@njit(cache=True)
def competing_bid_nb(h, hand, opponent, bids, cur_bid, doubled, gain, odds):
    """Whether to bid over the opponent's contract beyond this hand's tricks: the cheapest
    bid of ``bids`` with the best expected score, or -1 to let the contract stand.
    ``odds[0, strain]`` and ``odds[1, strain]``: memo rows of ``trick_odds_nb`` for this
    seat's tricks and the opponent's.

    Passing leaves the opponent's contract, worth minus its expected gain to this seat; a
    bid of ours is worth its own expected gain (if it stands). Bid when that beats passing
    by more than ``compete_margin`` points. Under D-6's default ``scoring.undertricks =
    "none"`` a failed contract costs nothing, so outbidding pays until the opponent's
    contract is out of its reach; with ``"bridge"`` the undertricks weigh against it.
    """
    aggression = h.aggression
    theirs = expected_gain_nb(gain, cur_bid, doubled, expected_tricks_nb(opponent, hand, BID_STRAIN[cur_bid]),
                              odds[1, BID_STRAIN[cur_bid]])
    best, best_gain = -1, -1e18
    for strain in range(5):
        in_strain = bids & STRAIN_BIDS[strain]
        if in_strain == ZERO:
            continue
        b = lowest_nb(in_strain)
        ours = expected_gain_nb(gain, b, 0, expected_tricks_nb(hand, opponent, strain) + aggression, odds[0, strain])
        if ours > best_gain:
            best, best_gain = b, ours
    if best >= 0 and best_gain + theirs > h.compete_margin:
        return best
    return -1


@njit(cache=True)
def cheapest_nb(mask, trump):
    """The least useful suited card of ``mask``: lowest rank, non-trumps first (clubs first
    among equal ranks), -1 for none."""
    trumps = SUIT_MASKS[trump] if trump >= 0 else ZERO
    side = _ranks_nb(mask & ~trumps)
    if side != ZERO:
        return _card_of_rank_nb(mask & ~trumps, lowest_nb(side))
    if mask & trumps:
        return lowest_nb(mask & trumps)
    return -1


@njit(cache=True, inline="always")
def _ranks_nb(mask):
    """The ranks present in the suited cards of ``mask``, as 13 bits (2 = bit 0)."""
    mask &= ALL_SUITED
    return (mask | (mask >> _S13) | (mask >> _S26) | (mask >> _S39)) & _RANKS


@njit(cache=True, inline="always")
def _card_of_rank_nb(mask, rank):
    """The card of ``rank`` in ``mask`` of the lowest suit (clubs first)."""
    return lowest_nb(mask & RANK_MASKS[rank])


@njit(cache=True)
def _is_master_nb(card, unseen):
    return (unseen & above_in_suit_nb(card)) == ZERO


@njit(cache=True)
def none_held_odds_nb(unseen, wanted, held):
    """Chance that ``held`` cards dealt at random from ``unseen`` miss every ``wanted`` card."""
    u = popcount_nb(unseen)
    n = popcount_nb(unseen & wanted)
    odds = 1.0
    for i in range(held):
        if u - i <= 0:
            break
        odds *= max(0, u - n - i) / (u - i)
    return odds


@njit(cache=True, inline="always")
def choose_card_nb(pid, prm, hand, legal, lead, trump, is_declarer, unseen, rng):
    """B-7..B-10: one card from ``legal``; ``lead`` is -1 when this seat leads."""
    if pid == POLICY_RANDOM:
        return pick_random_nb(legal, rng)
    return heuristic_card_nb(prm.heuristic, hand, legal, lead, trump, is_declarer, unseen)


@njit(cache=True)
def heuristic_card_nb(h, hand, legal, lead, trump, is_declarer, unseen):
    """The heuristic's choice for ``choose_card_nb``."""
    trumps = SUIT_MASKS[trump] if trump >= 0 else ZERO
    suited = legal & ALL_SUITED
    use_colons = h.use_colons > 0
    if lead < 0:
        # B-9: lead a Colon when the opponent (holding as many cards as this seat) likely
        # has no card of its range and no trump, the only cards that beat it.
        colons = legal & COLONS if use_colons else ZERO
        while colons:
            c = lowest_nb(colons)
            colons &= colons - ONE
            beaters = RANGE_MASKS[c - 52] | trumps
            if none_held_odds_nb(unseen, beaters, popcount_nb(hand)) >= h.colon_lead_odds:
                return c
        # Declarer draws trumps with a top trump.
        if is_declarer and legal & trumps and unseen & trumps:
            top = highest_nb(legal & trumps)
            if _is_master_nb(top, unseen):
                return top
        # Cash a side-suit winner: the highest master card, the top suit first. Below a
        # suit's highest card nothing is a master unless that card is.
        side = suited & ~trumps
        for s in range(3, -1, -1):
            if side & SUIT_MASKS[s]:
                c = highest_nb(side & SUIT_MASKS[s])
                if _is_master_nb(c, unseen):
                    return c
        # Lead low from the longest side suit.
        best_suit, best_len = -1, 0
        for s in range(4):
            n = popcount_nb(suited & SUIT_MASKS[s])
            if s != trump and n > best_len:
                best_suit, best_len = s, n
        if best_suit >= 0:
            return lowest_nb(suited & SUIT_MASKS[best_suit])
        if suited:
            return lowest_nb(suited)
        return lowest_nb(legal)
    if lead < 52:
        # Win as cheaply as possible: lowest card of the suit led that beats it, else lowest trump.
        winners = beaters_nb(suited, lead, trump)
        if winners:
            same = winners & SUIT_MASKS[lead // 13]
            return lowest_nb(same) if same else lowest_nb(winners)
        # B-8: block with the matching Colon rather than give up a good card, or to bar
        # the leader from running a suit headed by an honour.
        match = bit_nb(52 + CARD_CLASS[lead])
        if use_colons and legal & match:
            if suited == ZERO:
                return 52 + CARD_CLASS[lead]
            cheap = cheapest_nb(suited, trump)
            if lead % 13 >= RANK_JACK or cheap % 13 >= RANK_TEN or cheap // 13 == trump:
                return 52 + CARD_CLASS[lead]
        if suited:
            return cheapest_nb(suited, trump)
        return lowest_nb(legal)
    # A Colon was led (B-9): win with a card in its range or a trump, else throw the cheapest.
    in_range = legal & RANGE_MASKS[lead - 52] & ~trumps
    if in_range:
        return lowest_nb(in_range)
    if legal & trumps:
        return lowest_nb(legal & trumps)
    if suited:
        return cheapest_nb(suited, trump)
    return lowest_nb(legal)


@njit(cache=True)
def highest_rank_nb(mask):
    """The card of highest rank in ``mask`` (clubs first among equals), -1 for none."""
    ranks = _ranks_nb(mask)
    if ranks == ZERO:
        return -1
    return _card_of_rank_nb(mask, highest_nb(ranks))


@njit(cache=True, inline="always")
def choose_draw_card_nb(pid, prm, hand, legal, lead, shown_top, led_suit_wins, rng):
    """D-2: one card to a draw-phase trick (``shown_top`` is -1 unless the stock's top is face up).

    The heuristic fights for a face-up honour (the winner draws it) and otherwise throws
    its least useful card, keeping its strength for the contract.
    """
    if pid == POLICY_RANDOM:
        return pick_random_nb(legal, rng)
    return heuristic_draw_card_nb(prm.heuristic, hand, legal, lead, shown_top, led_suit_wins)


@njit(cache=True)
def heuristic_draw_card_nb(h, hand, legal, lead, shown_top, led_suit_wins):
    """The heuristic's choice for ``choose_draw_card_nb``."""
    wanted = shown_top >= 0 and shown_top % 13 + 2 >= h.draw_fight
    if lead < 0:
        return highest_rank_nb(legal) if wanted else cheapest_nb(legal, -1)
    if wanted:
        winners = ZERO
        rest = legal
        while rest:
            c = lowest_nb(rest)
            rest &= rest - ONE
            if draw_beats_nb(c, lead, led_suit_wins):
                winners |= bit_nb(c)
        if winners:
            return cheapest_nb(winners, -1)
    return cheapest_nb(legal, -1)


