"""Draw Bridge's D-2 draw phase by rollout (``draw_worlds``).

**Candidates** (``draw_candidates_nb``): the heuristic's card; following, the cheapest
legal card that wins the trick and the cheapest that loses it (so the seat can want the
stock's top card or not); leading, the card of highest rank (the lead most likely to win)
and the cheapest; and the lowest card of each suit held (which suit to give up). "Cheapest"
is the heuristic's order: lowest rank, clubs first among equals.

**Worlds** (``draw_worlds_nb``). What the seat cannot see is where the cards it has never
seen lie: in the opponent's dealt hand, among the opponent's hidden draws (every draw of
the opponent's unless ``show_stock_top`` showed it: the top card the trick's winner takes),
or in the stock still to come, in its order. Each card the opponent has played came from
its dealt hand or a draw before that trick. The seat knows its own dealt hand and draws,
every card played, who won each trick and, with ``show_stock_top``, every face-up top. A
world is drawn uniformly among the arrangements consistent with all that in which the
opponent, as the heuristic with its own parameters, would have made every draw-phase
play it made from the hands the world gives it. The model picks the first legal card in
an order, so a card it would have chosen over the card played, the two held alone, cannot
have been in the opponent's hand then (``forbidden_until_nb``): each card may lie only in
the places it came into late enough. The cards are placed in those sets, each uniformly
among the free places of its set, and a try is kept with chance (ways it could be placed)
/ (a bound on them), which gives every arrangement the same chance; then the opponent's
plays are replayed through the model and only worlds that make them all are kept (exact
rejection: the model is deterministic; it also rules out a world that breaks D-2's
``must_follow``), within ``REJECTION_TRIES`` draws per world wanted. With none kept the seat plays the
heuristic's card and the deal counts one ``unexplained`` decision.

**Rollout.** In every world each candidate is played, then the rest of the draw phase as
the model plays it for both players (face-up tops from the world's stock), the auction as
``model_auction_nb`` makes it from both hands (after D-2 each player knows the deal), and
the contract at its double-dummy tricks, scored by the game (kernels.search.rollout).
"""

import numpy as np
from numba import njit

from kernels.calls import BID_STRAIN, FIRST_BID
from kernels.cards import NO, NONE, NOUGHT, SUIT_MASKS, YES, ZERO, bit_nb, cards_of_nb, lowest_nb
from kernels.pimc import REJECTION_TRIES, decision_stream_nb
from kernels.policies import ODDS_WIDTH, add_distinct_nb, cheapest_nb, heuristic_draw_card_nb, highest_rank_nb
from kernels.rng import below_nb, shuffle_nb, uniform_nb
from kernels.search.rollout import (
    HAND_SIZE, defence_tricks_nb, goal_nb, model_auction_nb, note_unexplained_nb, worth_nb,
)
from kernels.tricks import draw_beats_nb, draw_follow_legal_nb

MAX_DRAW_CANDIDATES = 7  # the heuristic's card, two more (win/lose or highest/cheapest), a card of each suit
DECK_MASK = np.uint64((1 << 52) - 1)


@njit(cache=True)
def draw_candidates_nb(h, hand, legal, lead, shown, led_suit_wins, out):
    """D-2: the cards a ``search`` seat values (module docstring), distinct, the heuristic's
    first, into ``out``; returns how many."""
    n = add_distinct_nb(out, 0, heuristic_draw_card_nb(h, hand, legal, lead, shown, led_suit_wins))
    if lead >= 0:
        winners = ZERO
        rest = legal
        while rest:
            c = lowest_nb(rest)
            rest &= ~bit_nb(c)
            if draw_beats_nb(c, lead, led_suit_wins):
                winners |= bit_nb(c)
        if winners:
            n = add_distinct_nb(out, n, cheapest_nb(winners, -1))
        if legal & ~winners:
            n = add_distinct_nb(out, n, cheapest_nb(legal & ~winners, -1))
    else:
        n = add_distinct_nb(out, n, highest_rank_nb(legal))
        n = add_distinct_nb(out, n, cheapest_nb(legal, -1))
    for s in range(4):
        suit = legal & SUIT_MASKS[s]
        if suit:
            n = add_distinct_nb(out, n, lowest_nb(suit))
    return n


@njit(cache=True)
def model_explains_nb(h, seat, opp_dealt, opp_draws, plays, n_played, leaders, tops, trick, must_follow,
                      led_suit_wins):
    """Whether the opponent of ``seat``, dealt ``opp_dealt`` and drawing ``opp_draws[j]``
    after trick j, would as the heuristic ``h`` have made each of its draw-phase plays
    (``plays[:n_played]``, trick j led by ``leaders[j]``, its face-up top ``tops[j]`` or -1)."""
    opp = 1 - seat
    held = opp_dealt
    for k in range(trick + 1):
        pos = 2 * k + (0 if leaders[k] == opp else 1)
        if pos < n_played:
            card = plays[pos]
            lead = -1 if pos == 2 * k else plays[2 * k]
            legal = held if lead < 0 else draw_follow_legal_nb(held, lead, must_follow)
            if held & bit_nb(card) == ZERO or heuristic_draw_card_nb(h, held, legal, lead, tops[k],
                                                                      led_suit_wins) != card:
                return False
            held &= ~bit_nb(card)
        if k < trick:
            held |= bit_nb(opp_draws[k])
    return True


@njit(cache=True)
def forbidden_until_nb(h, seat, cards, last, plays, n_played, leaders, tops, must_follow, led_suit_wins):
    """For each card ``cards[i]``, the last trick up to ``last[i]`` at which the opponent
    cannot have held it, -1 for none: a trick it played to where, held beside the card it
    played, this card would have been the model's choice instead. The model picks the first
    legal card in an order (lowest rank; winners first when fighting; highest rank when
    leading to fight; the suit led first under ``must_follow``), so a card that beats the
    one played in a pair beats it in any hand."""
    opp = 1 - seat
    until = np.full(cards.shape[0], -1, dtype=np.int64)
    for i in range(cards.shape[0]):
        for k in range(last[i] + 1):
            pos = 2 * k + (0 if leaders[k] == opp else 1)
            if pos >= n_played:
                continue
            card = plays[pos]
            lead = -1 if pos == 2 * k else plays[2 * k]
            pair = bit_nb(card) | bit_nb(cards[i])
            legal = pair if lead < 0 else draw_follow_legal_nb(pair, lead, must_follow)
            if heuristic_draw_card_nb(h, pair, legal, lead, tops[k], led_suit_wins) != card:
                until[i] = k
    return until


DEALT = 1 << HAND_SIZE  # in a set of places: the opponent's dealt hand (bits below: its hidden draws)


@njit(cache=True, inline="always")
def _places_nb(places, free_dealt):
    """The free places in ``places``: its hidden draws, and ``free_dealt`` with the dealt hand."""
    n = free_dealt if places & DEALT else 0
    rest = places & (DEALT - 1)
    while rest:
        rest &= rest - 1
        n += 1
    return n


@njit(cache=True)
def draw_worlds_nb(rng, h, seat, dealt, drew, plays, n_played, leaders, tops, trick, must_follow, led_suit_wins,
                   wanted):
    """Up to ``wanted`` worlds of the draw phase at trick ``trick`` (``n_played`` cards played
    so far) for ``seat``, dealt ``dealt`` and drawing ``drew[j]`` after trick j, the
    opponent's plays explained by the heuristic with the opponent's parameters ``h`` (module
    docstring). Returns (the
    opponent's hand now in each world, the stock in each: its cards from ``2 * trick`` on,
    the opponent's dealt hand in each, its draws in each: ``[w, j]`` after trick j)."""
    opp = 1 - seat
    show = tops[trick] >= 0
    mine = dealt
    for j in range(trick):
        mine |= bit_nb(drew[j])
    shown = ZERO
    for j in range(trick + 1):
        if tops[j] >= 0:
            shown |= bit_nb(tops[j])
    # The opponent's plays whose origin the seat cannot see, in play order, and their tricks.
    opp_played = ZERO
    p_cards = np.empty(HAND_SIZE + 1, dtype=np.int64)
    p_trick = np.empty(HAND_SIZE + 1, dtype=np.int64)
    n_p = 0
    for k in range(trick + 1):
        pos = 2 * k + (0 if leaders[k] == opp else 1)
        if pos < n_played:
            opp_played |= bit_nb(plays[pos])
            if shown & bit_nb(plays[pos]) == ZERO:
                p_cards[n_p], p_trick[n_p] = plays[pos], k
                n_p += 1
    # Each past trick's draw of the opponent: the face-up top it won, or a hidden place.
    hidden = np.zeros(HAND_SIZE, dtype=np.bool_)
    hidden_mask = 0
    for j in range(trick):
        hidden[j] = not (tops[j] >= 0 and leaders[j + 1] == opp)
        if hidden[j]:
            hidden_mask |= 1 << j
    # Where each played card can have come from (bit j: the hidden draw after trick j; bit
    # DEALT: the dealt hand): before its trick, and after the last trick at which the model
    # would have played it instead. A bound on the ways to place them (``placed_most``):
    # each card's places less one for every earlier card whose places are among its own.
    p_until = forbidden_until_nb(h, seat, p_cards[:n_p], p_trick[:n_p] - 1, plays, n_played, leaders, tops,
                                 must_follow, led_suit_wins)
    p_set = np.empty(n_p, dtype=np.int64)
    placed_most = 1.0
    for i in range(n_p):
        lo = max(p_until[i], 0)
        p_set[i] = hidden_mask & ((1 << p_trick[i]) - 1) & ~((1 << lo) - 1)
        if p_until[i] < 0:
            p_set[i] |= DEALT
        size = _places_nb(p_set[i], HAND_SIZE)
        for j in range(i):
            if p_set[j] & ~p_set[i] == 0:
                size -= 1
        placed_most *= max(size, 0)
    # The cards never seen, the most constrained first: a card the model says the opponent
    # did not hold up to trick f goes to a place it came into after f (a draw after trick
    # f or later, or the stock). These sets nest, so placing the cards in this order, each
    # in a free place of its set uniformly, is uniform given where the played cards went;
    # ``ways`` counts the placements, and a try is kept with chance ways / most_ways, which
    # makes the whole uniform (the most ways: every played card from the dealt hand).
    never = cards_of_nb(DECK_MASK & ~mine & ~shown & ~opp_played)
    until = forbidden_until_nb(h, seat, never, np.full(never.shape[0], trick, dtype=np.int64), plays, n_played,
                               leaders, tops, must_follow, led_suit_wins)
    order = np.argsort(-until, kind="mergesort")
    never, until = never[order], until[order]
    n_stock = 2 * HAND_SIZE - 2 * trick
    n_rest = n_stock - (1 if show else 0)
    most_ways = 1.0
    for i in range(never.shape[0]):
        room = n_rest + (HAND_SIZE - n_p if until[i] < 0 else 0)
        for j in range(max(until[i], 0), trick):
            room += hidden[j]
        most_ways *= max(room - i, 0)
    opp_draws = np.empty(HAND_SIZE, dtype=np.int64)
    n = max(1, np.int64(wanted))
    hands_out = np.empty(n, dtype=np.uint64)
    stocks_out = np.empty((n, n_stock), dtype=np.int64)
    dealt_out = np.empty(n, dtype=np.uint64)
    draws_out = np.full((n, HAND_SIZE), -1, dtype=np.int64)
    taken = np.zeros(HAND_SIZE, dtype=np.bool_)
    rest = np.empty(max(n_rest, 1), dtype=np.int64)
    got = 0
    if most_ways == 0.0:
        return hands_out[:0], stocks_out[:0], dealt_out[:0], draws_out[:0]
    if placed_most == 0.0:
        return hands_out[:0], stocks_out[:0], dealt_out[:0], draws_out[:0]
    for _ in range(REJECTION_TRIES * n):
        # The opponent's played cards, in play order, each into a free place of its set.
        opp_dealt = ZERO
        free_dealt = HAND_SIZE
        taken[:] = False
        ways = 1.0
        for i in range(n_p):
            free = p_set[i]
            for j in range(trick):
                if taken[j]:
                    free &= ~(1 << j)
            room = _places_nb(free, free_dealt)
            if room == 0:
                ways = 0.0
                break
            ways *= room
            r = below_nb(rng, room)
            if free & DEALT:
                if r < free_dealt:
                    opp_dealt |= bit_nb(p_cards[i])
                    free_dealt -= 1
                    continue
                r -= free_dealt
            for j in range(trick):
                if free & (1 << j):
                    if r == 0:
                        taken[j] = True
                        opp_draws[j] = p_cards[i]
                        break
                    r -= 1
        if ways == 0.0:
            continue
        # The cards never seen, each into a free place of its set.
        n_r = 0
        for i in range(never.shape[0]):
            lo = max(until[i], 0)
            room = n_rest - n_r + (free_dealt if until[i] < 0 else 0)
            for j in range(lo, trick):
                room += hidden[j] and not taken[j]
            if room <= 0:
                ways = 0.0
                break
            ways *= room
            r = below_nb(rng, room)
            if r < n_rest - n_r:
                rest[n_r] = never[i]
                n_r += 1
                continue
            r -= n_rest - n_r
            if until[i] < 0:
                if r < free_dealt:
                    opp_dealt |= bit_nb(never[i])
                    free_dealt -= 1
                    continue
                r -= free_dealt
            for j in range(lo, trick):
                if hidden[j] and not taken[j]:
                    if r == 0:
                        taken[j] = True
                        opp_draws[j] = never[i]
                        break
                    r -= 1
        # Kept with chance (ways / the bound on them): every placement the same chance.
        if ways == 0.0 or uniform_nb(rng) * most_ways * placed_most >= ways:
            continue
        for j in range(trick):
            if not hidden[j]:
                opp_draws[j] = tops[j]
        shuffle_nb(rng, rest[:n_r])
        s = 0
        if show:
            stocks_out[got, 0] = tops[trick]
            s = 1
        stocks_out[got, s:] = rest[:n_r]
        if not model_explains_nb(h, seat, opp_dealt, opp_draws, plays, n_played, leaders, tops, trick, must_follow,
                                 led_suit_wins):
            continue
        held = opp_dealt
        for j in range(trick):
            held |= bit_nb(opp_draws[j])
        hands_out[got] = held & ~opp_played
        dealt_out[got] = opp_dealt
        draws_out[got, :trick] = opp_draws[:trick]
        got += 1
        if got == n:
            break
    return hands_out[:got], stocks_out[:got], dealt_out[:got], draws_out[:got]


@njit(cache=True)
def draw_rollout_nb(prm, seat, hands, stock, trick, leader, lead, card, show, must_follow, led_suit_wins):
    """D-2 from trick ``trick`` on, ``seat`` playing ``card`` to it (``lead``: the card the
    opponent led to it, -1 when ``seat`` leads), the rest as the heuristic plays for both,
    each with its own parameters of ``prm``; ``hands`` (the two hands now, updated to those
    after D-2) and ``stock`` (its cards from ``2 * trick`` on)."""
    base = 2 * trick
    for k in range(trick, HAND_SIZE):
        top = stock[2 * k - base]
        shown = top if show else -1
        first = -1
        for turn in range(2):
            s = leader if turn == 0 else 1 - leader
            if k == trick and s == seat:
                c = card
            elif k == trick and turn == 0:
                c = lead  # the opponent's lead, already out of its hand
            else:
                held = hands[s]
                legal = held if turn == 0 else draw_follow_legal_nb(held, first, must_follow)
                c = heuristic_draw_card_nb(prm[s].heuristic, held, legal, first, shown, led_suit_wins)
            hands[s] &= ~bit_nb(c)
            if turn == 0:
                first = c
            elif draw_beats_nb(c, first, led_suit_wins):
                leader = s
        hands[leader] |= bit_nb(top)
        hands[1 - leader] |= bit_nb(stock[2 * k + 1 - base])


@njit(cache=True)
def search_draw_card_nb(dd, seats, seat, hand, legal, lead, led_suit_wins, must_follow, trick, dealt, drew, plays,
                        leaders, tops, dealer, opening_pass_ends, gain):
    """D-2: the draw-phase card of a ``search`` seat holding ``hand`` at trick ``trick``: the
    candidate whose rolled-out deal scores best on average over worlds in which the model
    explains the opponent's plays (module docstring). What the seat knows: its dealt hand
    ``dealt`` and draws ``drew[:trick]``, the ``plays`` so far (``lead`` the one led to this
    trick, -1 when it leads), each trick's leader ``leaders[:trick + 1]`` and face-up top
    ``tops[:trick + 1]`` (-1 when the top is face down). ``dd``: the game's search context."""
    h = seats.prm[seat].heuristic
    shown = tops[trick]
    candidates = np.empty(MAX_DRAW_CANDIDATES, dtype=np.int64)
    n_c = draw_candidates_nb(h, hand, legal, lead, shown, led_suit_wins, candidates)
    if n_c == 1:
        return candidates[0]
    rng = decision_stream_nb(seats)
    n_played = 2 * trick + (1 if lead >= 0 else 0)
    opp, stocks, _, _ = draw_worlds_nb(rng, seats.prm[1 - seat].heuristic, seat, dealt, drew, plays, n_played,
                                       leaders, tops, trick, must_follow, led_suit_wins,
                                       seats.prm[seat].search.draw_worlds)
    n_w = opp.shape[0]
    if n_w == 0:
        note_unexplained_nb(seats, seat)
        return candidates[0]
    # Each (candidate, world): the hands after D-2 and the auction the model makes from them.
    after = np.empty((n_c, n_w, 2), dtype=np.uint64)
    contract = np.empty((n_c, n_w), dtype=np.int64)
    declarer = np.empty((n_c, n_w), dtype=np.int64)
    doubled = np.empty((n_c, n_w), dtype=np.int64)
    odds = np.zeros((2, 5, ODDS_WIDTH))
    hands = np.empty(2, dtype=np.uint64)
    show = shown >= 0
    for c in range(n_c):
        for w in range(n_w):
            hands[seat], hands[1 - seat] = hand, opp[w]
            draw_rollout_nb(seats.prm, seat, hands, stocks[w], trick, leaders[trick], lead, candidates[c], show,
                            must_follow, led_suit_wins)
            after[c, w, 0], after[c, w, 1] = hands[0], hands[1]
            contract[c, w], declarer[c, w], doubled[c, w] = model_auction_nb(
                seats.prm, hands, YES, dealer, NONE, NONE, NOUGHT, NOUGHT, FIRST_BID, NOUGHT, NO, NOUGHT,
                opening_pass_ends, gain, odds)
    # Valued strain by strain, so the search table serves the next solve of the same trump.
    goal = goal_nb(seats, seat)
    value = np.zeros(n_c)
    guess = NONE
    for strain in range(-1, 5):
        for c in range(n_c):
            for w in range(n_w):
                bid = contract[c, w]
                if strain < 0:
                    if bid < 0:
                        value[c] += worth_nb(0.0, goal)
                    continue
                if bid < 0 or BID_STRAIN[bid] != strain:
                    continue
                d = declarer[c, w]
                guess = defence_tricks_nb(dd, after[c, w], strain, d, NO, guess)
                score = gain[doubled[c, w], bid, HAND_SIZE - guess]
                value[c] += worth_nb(score if d == seat else -score, goal)
    best = 0
    for c in range(1, n_c):
        if value[c] > value[best]:
            best = c
    return candidates[best]
