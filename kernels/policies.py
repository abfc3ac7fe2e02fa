"""Decision functions, dispatched by integer policy id (DESIGN point 5).

Each ``choose_*`` function receives only what the deciding seat may see: its own hand,
the legal actions, the public auction and play, and the cards it has itself discarded
or seen dead (``unseen`` is the deck less all of those). A seat's parameters come as one
``POLICY_PARAMS`` record, a named record per policy (``prm.heuristic.aggression``,
``prm.pimc.worlds``); the heuristic's functions read only its own record. Defaults,
meanings and ranges live in ``sim/policies.py``.
"""

import math

import numpy as np
from numba import njit

from kernels.calls import BID_LEVEL, BID_STRAIN, CALL_DOUBLE, CALL_PASS, CALL_REDOUBLE, EUCHRE_PASS, STRAIN_BIDS
from kernels.cards import (
    ALL_SUITED, CARD_CLASS, COLONS, EUCHRE_ACES, EUCHRE_KING, EUCHRE_POWER, EUCHRE_SUIT_OF, HCP, ONE,
    POWER_LEFT_BOWER, POWER_RIGHT_BOWER, POWER_TRUMP_ACE, POWER_TRUMP_KING, RANGE_MASKS, RANK_JACK, RANK_MASKS,
    RANK_TEN, SUIT_MASKS, TRUMP_POWER, ZERO, above_in_suit_nb, bit_nb, hcp_nb, highest_nb, lowest_nb, nth_card_nb,
    popcount_nb,
)
from kernels.records import record_dtype
from kernels.rng import below_nb
from kernels.tricks import beaters_nb, draw_beats_nb, euchre_beats_nb

POLICY_RANDOM = 0
POLICY_HEURISTIC = 1
POLICY_DD = 2  # the card play: double dummy (kernels.dd), every hand seen; the rest: heuristic
POLICY_PIMC = 3  # the card play: double dummy averaged over sampled worlds (kernels.pimc); the rest: heuristic
POLICY_SEARCH = 4  # pimc's card play, and the other decisions by rollout (kernels.search)

# The parameters each policy reads, one record each (meanings and defaults: sim/policies.py).
HEURISTIC_PARAMS = record_dtype([(name, np.float64) for name in (
    "aggression", "double_margin", "redouble_margin", "keep_colons", "use_colons", "colon_lead_odds", "draw_fight",
    "partner_aware", "bid_by_score", "compete_margin")])
PIMC_PARAMS = record_dtype([(name, np.float64) for name in (
    "worlds",  # worlds sampled per card
    "bid_worlds",  # worlds sampled for a deal's calls (0: the heuristic's calls)
    "keep",  # 1 keeps the worlds of the seat's last card that stay consistent (Bridgette)
)])
SEARCH_PARAMS = record_dtype([(name, np.float64) for name in (
    "exchange_worlds",  # worlds valuing each candidate exchange (B-3, E-4; 0: the heuristic's)
    "call_worlds",  # worlds valuing each candidate call (C-4, E-3's bids and trump; 0: the heuristic's)
    "draw_worlds",  # worlds valuing each candidate draw-phase card (Draw Bridge's D-2; 0: the heuristic's)
    "objective",  # what a searched choice maximizes: OBJECTIVE_POINTS or OBJECTIVE_GAMES
)])
OBJECTIVE_POINTS = 0  # the mean deal score: the seat's points minus the opponent's
OBJECTIVE_GAMES = 1  # the mean chance of winning the game from the current totals
# A seat's parameters: the searching seats decide as the heuristic wherever they do not
# search, and ``search`` plays its cards as ``pimc``, so each seat carries every record.
POLICY_PARAMS = record_dtype([("heuristic", HEURISTIC_PARAMS), ("pimc", PIMC_PARAMS), ("search", SEARCH_PARAMS)])


@njit(cache=True, inline="always")
def plays_by_worlds_nb(pid, prm):
    """Whether a seat plays its cards over sampled worlds (kernels.pimc): ``pimc``, and
    ``search`` unless its ``worlds`` is 0 (the heuristic's card play)."""
    return pid == POLICY_PIMC or (pid == POLICY_SEARCH and prm.pimc.worlds > 0)


@njit(cache=True, inline="always")
def reads_calls_in_play_nb(pid):
    """Whether a seat playing its cards over worlds keeps only the worlds in which the
    opponent, modelled as the heuristic, would have made its calls (kernels.pimc):
    ``search``; ``pimc`` samples every world its card play allows."""
    return pid == POLICY_SEARCH


@njit(cache=True, inline="always")
def calls_by_worlds_nb(pid, prm):
    """Whether a seat makes its calls over sampled worlds, one answer ahead (kernels.pimc):
    ``pimc`` with ``bid_worlds`` above 0."""
    return pid == POLICY_PIMC and prm.pimc.bid_worlds > 0


@njit(cache=True, inline="always")
def searches_calls_nb(pid, prm):
    """Whether a seat makes its calls by rollout (kernels.search: the bridge games' C-4, Bid
    Euchre's E-3 bids and trump): ``search`` with ``call_worlds`` above 0."""
    return pid == POLICY_SEARCH and prm.search.call_worlds > 0


@njit(cache=True, inline="always")
def searches_exchange_nb(pid, prm):
    """Whether a seat chooses its exchange by rollout (kernels.search: Bridgette's B-3
    discards, Bid Euchre's E-4 gives and returns): ``search`` with ``exchange_worlds`` above 0."""
    return pid == POLICY_SEARCH and prm.search.exchange_worlds > 0


@njit(cache=True, inline="always")
def searches_draw_nb(pid, prm):
    """Whether a seat plays Draw Bridge's draw phase by rollout (kernels.search): ``search``
    with ``draw_worlds`` above 0."""
    return pid == POLICY_SEARCH and prm.search.draw_worlds > 0


AVERAGE_HCP = 9.5  # 40 points over 55 cards, 13 held
_S13, _S26, _S39 = np.uint64(13), np.uint64(26), np.uint64(39)
_RANKS = np.uint64((1 << 13) - 1)


@njit(cache=True, inline="always")
def pick_random_nb(mask, rng):
    """Uniform choice of one set bit of ``mask``."""
    return nth_card_nb(mask, below_nb(rng, popcount_nb(mask)))


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
        strain = BID_STRAIN[cur_bid]
        mine = 6.5 + (hcp_nb(hand) - AVERAGE_HCP) / 3.0
        if strain < 4:
            mine += 0.5 * (popcount_nb(hand & SUIT_MASKS[strain]) - 3.5)
        if 13.0 - mine + h.double_margin < 6 + BID_LEVEL[cur_bid]:
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
def _cheapest_nb(mask, trump):
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
            cheap = _cheapest_nb(suited, trump)
            if lead % 13 >= RANK_JACK or cheap % 13 >= RANK_TEN or cheap // 13 == trump:
                return 52 + CARD_CLASS[lead]
        if suited:
            return _cheapest_nb(suited, trump)
        return lowest_nb(legal)
    # A Colon was led (B-9): win with a card in its range or a trump, else throw the cheapest.
    in_range = legal & RANGE_MASKS[lead - 52] & ~trumps
    if in_range:
        return lowest_nb(in_range)
    if legal & trumps:
        return lowest_nb(legal & trumps)
    if suited:
        return _cheapest_nb(suited, trump)
    return lowest_nb(legal)



@njit(cache=True)
def _highest_rank_nb(mask):
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
        return _highest_rank_nb(legal) if wanted else _cheapest_nb(legal, -1)
    if wanted:
        winners = ZERO
        rest = legal
        while rest:
            c = lowest_nb(rest)
            rest &= rest - ONE
            if draw_beats_nb(c, lead, led_suit_wins):
                winners |= bit_nb(c)
        if winners:
            return _cheapest_nb(winners, -1)
    return _cheapest_nb(legal, -1)


# --- Bid Euchre (E-3..E-6) ------------------------------------------------------------------
# Cards in the Bid Euchre layout of kernels.cards; bids are ladder ids (3.. first, then the
# ask and the moon), EUCHRE_PASS a pass. ``copies`` is 2 with the double deck, else 1.


@njit(cache=True)
def _euchre_extreme_nb(mask, trump, highest):
    """The card of ``mask`` with the highest (or lowest) power under ``trump``."""
    best, best_power = -1, -1 if highest else 10**6
    rest = mask
    while rest:
        c = lowest_nb(rest)
        rest &= rest - ONE
        p = EUCHRE_POWER[trump, c]
        if (p > best_power) if highest else (p < best_power):
            best, best_power = c, p
    return best


@njit(cache=True)
def euchre_strength_nb(hand, trump, copies):
    """Tricks this hand expects to take by itself with ``trump``: trumps by rank, side aces.

    Trumps that head the suit without a gap (the right bower down, every copy of each
    rank held) are sure tricks; the joker of E-10 is not counted against them.
    """
    est = 0.0
    trumps = hand & EUCHRE_SUIT_OF[trump, trump]
    top = POWER_RIGHT_BOWER
    while top >= TRUMP_POWER:
        held = 0
        rest = trumps
        while rest:
            c = lowest_nb(rest)
            rest &= rest - ONE
            held += EUCHRE_POWER[trump, c] == top
        if held < copies:
            break
        top -= 1
    rest = trumps
    while rest:
        c = lowest_nb(rest)
        rest &= rest - ONE
        p = EUCHRE_POWER[trump, c]
        if p > top:
            est += 1.0
        else:
            est += (1.0 if p >= POWER_RIGHT_BOWER else 0.85 if p == POWER_LEFT_BOWER else
                    0.7 if p == POWER_TRUMP_ACE else 0.5 if p == POWER_TRUMP_KING else 0.35)
    n = popcount_nb(trumps)
    if n >= 3:
        est += 0.3 * (n - 2)
    est += 0.7 * popcount_nb(hand & EUCHRE_ACES & ~trumps)
    return est


@njit(cache=True)
def _best_trump_nb(hand, copies):
    """The suit this hand is strongest in, and its estimate."""
    best, best_est = 0, -1.0
    for t in range(4):
        e = euchre_strength_nb(hand, t, copies)
        if e > best_est:
            best, best_est = t, e
    return best, best_est


@njit(cache=True, inline="always")
def choose_euchre_discard_nb(pid, prm, hand, copies, rng):
    """E-10 joker: the dealer's discard before the auction: its weakest card."""
    if pid == POLICY_RANDOM:
        return pick_random_nb(hand, rng)
    return heuristic_euchre_discard_nb(prm.heuristic, hand, copies)


@njit(cache=True)
def heuristic_euchre_discard_nb(h, hand, copies):
    """The heuristic's choice for ``choose_euchre_discard_nb``."""
    trump, _ = _best_trump_nb(hand, copies)
    return _euchre_extreme_nb(hand, trump, False)


@njit(cache=True, inline="always")
def choose_euchre_bid_nb(pid, prm, hand, legal, high, high_bidder, seat, tricks, copies, rng):
    """E-3: pass or a bid (ladder id). Bids the team's expected tricks in its best suit; asks
    or shoots the moon with a hand that expects (nearly) every trick."""
    if pid == POLICY_RANDOM:
        return pick_random_nb(legal, rng)
    return heuristic_euchre_bid_nb(prm.heuristic, hand, legal, high, high_bidder, seat, tricks, copies)


@njit(cache=True)
def heuristic_euchre_bid_nb(h, hand, legal, high, high_bidder, seat, tricks, copies):
    """The heuristic's choice for ``choose_euchre_bid_nb``."""
    _, alone = _best_trump_nb(hand, copies)
    scale = tricks / 6.0
    levels = tricks - 3
    ask, moon = levels, levels + 1
    aggression = h.aggression
    choice = -1
    if alone + aggression >= tricks - 0.3 * scale:
        choice = moon
    elif alone + aggression + 0.8 * scale >= tricks - 0.5 * scale:
        choice = ask
    else:
        team = alone + aggression + 1.25 * scale  # what partner adds on average
        level = int(np.floor(team))
        if high_bidder >= 0 and (high_bidder - seat) % 2 == 0:
            level = int(np.floor(team - 1.5))  # do not overbid partner without a clear margin
        if level >= 3:
            choice = min(level - 3, levels - 1)
    while choice >= 0 and (legal & bit_nb(choice)) == ZERO:
        choice -= 1
    if choice >= 0 and choice > high:
        return choice
    if legal & bit_nb(EUCHRE_PASS):
        return EUCHRE_PASS
    return lowest_nb(legal)  # stuck dealer: the lowest bid


@njit(cache=True, inline="always")
def choose_euchre_trump_nb(pid, prm, hand, copies, rng):
    """E-3: the bidder names trump: its strongest suit."""
    if pid == POLICY_RANDOM:
        return below_nb(rng, 4)
    return heuristic_euchre_trump_nb(prm.heuristic, hand, copies)


@njit(cache=True)
def heuristic_euchre_trump_nb(h, hand, copies):
    """The heuristic's choice for ``choose_euchre_trump_nb``."""
    trump, _ = _best_trump_nb(hand, copies)
    return trump


@njit(cache=True, inline="always")
def choose_euchre_give_nb(pid, prm, legal, trump, rng):
    """E-4: a card the asking bidder gives partner: its least useful one."""
    if pid == POLICY_RANDOM:
        return pick_random_nb(legal, rng)
    return heuristic_euchre_give_nb(prm.heuristic, legal, trump)


@njit(cache=True)
def heuristic_euchre_give_nb(h, legal, trump):
    """The heuristic's choice for ``choose_euchre_give_nb``."""
    return _euchre_extreme_nb(legal, trump, False)


@njit(cache=True, inline="always")
def choose_euchre_return_nb(pid, prm, legal, trump, rng):
    """E-4: a return of partner's choice (no trumps left): its best card."""
    if pid == POLICY_RANDOM:
        return pick_random_nb(legal, rng)
    return heuristic_euchre_return_nb(prm.heuristic, legal, trump)


@njit(cache=True)
def heuristic_euchre_return_nb(h, legal, trump):
    """The heuristic's choice for ``choose_euchre_return_nb``."""
    return _euchre_extreme_nb(legal, trump, True)


@njit(cache=True, inline="always")
def choose_euchre_card_nb(pid, prm, hand, legal, lead, best, best_seat, seat, trump, bidder, played, rng):
    """E-6: a card to play. Leads trump from the top on the bidding side, cashes side aces,
    never overtakes a partner who is winning with a high card, wins as cheaply as it can."""
    if pid == POLICY_RANDOM:
        return pick_random_nb(legal, rng)
    return heuristic_euchre_card_nb(prm.heuristic, hand, legal, lead, best, best_seat, seat, trump, bidder, played)


@njit(cache=True)
def heuristic_euchre_card_nb(h, hand, legal, lead, best, best_seat, seat, trump, bidder, played):
    """The heuristic's choice for ``choose_euchre_card_nb``."""
    trumps = legal & EUCHRE_SUIT_OF[trump, trump]
    if lead < 0:
        if trumps and (seat - bidder) % 2 == 0:
            top = _euchre_extreme_nb(trumps, trump, True)
            if EUCHRE_POWER[trump, top] >= POWER_LEFT_BOWER:
                return top
        aces = legal & EUCHRE_ACES & ~trumps
        if aces:
            return lowest_nb(aces)
        return _euchre_extreme_nb(legal, trump, False)
    winners = ZERO
    rest = legal
    while rest:
        c = lowest_nb(rest)
        rest &= rest - ONE
        if euchre_beats_nb(c, best, trump):
            winners |= bit_nb(c)
    partner_winning = (best_seat - seat) % 4 == 2
    strong = EUCHRE_POWER[trump, best] >= EUCHRE_KING  # a trump, or a plain king or ace
    if winners and not (partner_winning and strong and h.partner_aware > 0):
        return _euchre_extreme_nb(winners, trump, False)
    return _euchre_extreme_nb(legal, trump, False)
