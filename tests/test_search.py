"""The ``search`` policy: Bridgette's exchange chosen by rollout (kernels.search).

Its parts are checked against independent routes: the candidate sets against a hand worked
out from the heuristic's keep values, the modelled auction against the auctions the
heuristic seats of real games made, and the search against the heuristic's exchange in a
duplicate match. ``tests/test_information.py`` checks that its discards read only what the
seat knows.
"""

import numpy as np
import pytest

from kernels import bridgette as kb
from kernels import contract as kc
from kernels import pimc
from kernels.pimc import sample_bidding_worlds_nb
from kernels import policies as kp
from kernels.search import calls as ksc
from kernels.search import exchange as kse
from kernels.search import rollout as ksr
from kernels.calls import CALL_IDS, call_name, legal_calls_nb
from kernels.cards import CARD_IDS
from kernels.dd import new_context
from kernels.policies import ODDS_WIDTH
from kernels.step import seats_for
from sim import bridgette
from sim.games import kernel_rules
from sim.policies import PolicyError, parse_policy
from sim.rules import BridgetteRules
from tests.seats import fresh_seats


def mask(names):
    return np.uint64(sum(1 << CARD_IDS[n] for n in names.split()))


HEURISTIC = parse_policy("heuristic", "bridgette").row().heuristic
BOTH_HEURISTIC = np.stack([parse_policy("heuristic", "bridgette").row()] * 2)  # both seats' parameter records


def test_candidates_worked_by_hand():
    """Keep values (kernels.policies.heuristic_discard_nb): 2C 0.6*2 = 1.2, then 3C alone
    0.08 + 0.6 = 0.68; the Little Colon 2.5 * keep_colons 0.5 = 1.25; TS 0.64 + 3.0,
    JH 1 + 0.72 + 2.4, QD 2 + 0.8 + 1.8. The heuristic drops 2C and 3C; dropping the
    Colon instead fills with 2C; keeping 3C also drops the Colon next (the same set);
    discarding clubs whole is the heuristic's set."""
    hand = mask("2C 3C QD KD AD JH QH KH AH TS JS QS KS AS CL")
    out = np.zeros(kse.MAX_CANDIDATES, dtype=np.uint64)
    n = kse.exchange_candidates_nb(HEURISTIC, hand, 2, out)
    assert list(out[:n]) == [mask("2C 3C"), mask("2C CL")]


def test_candidates_flip_every_colon_and_void_short_suits():
    """A dealer's 17 cards, 4 to discard. Keep values: 2C 1.2 then 3C 0.68, 2D 1.2 then 3D
    0.68 (clubs first among equals), Royal Colon 1.75, Grand 2.25, JS 1 + 0.72 + 1.8, 4H
    0.16 + 4.8. The heuristic drops the four low minors and keeps both Colons; dropping a
    Colon fills with 2C 3C 2D; keeping 3D drops the Royal Colon (the same set); the spades
    go whole with 2C; the minors whole are the heuristic's set."""
    hand = mask("2C 3C 2D 3D 4H 5H 6H 7H 8H 9H TH AH JS QS KS CR CG")
    out = np.zeros(kse.MAX_CANDIDATES, dtype=np.uint64)
    n = kse.exchange_candidates_nb(HEURISTIC, hand, 4, out)
    assert list(out[:n]) == [mask("2C 3C 2D 3D"), mask("CR 2C 3C 2D"), mask("CG 2C 3C 2D"), mask("JS QS KS 2C")]


def test_call_candidates_worked_by_hand():
    """B-11/B-12 made exactly, undoubled: 0NT and one of a suit 150 + 250, 1NT, 2NT and two
    or three of a suit and 4C/4D 250 + 250, 3NT, 4H/4S and 5C/5D 750 + 250. At the opening:
    the pass (the heuristic's call, first), then per strain the cheapest bid and the next
    that scores more; over the opponent's 2H, the heuristic bidding 2S: the pass and double
    too, 3C then 5C, 3H then 4H, 2S (already there) then 4S, 2NT then 3NT."""
    gain = kernel_rules(BridgetteRules()).tables[0]["gain"]
    all_bids = (1 << 36) - 1
    out = np.zeros(ksc.MAX_CALL_CANDIDATES, dtype=np.int64)
    legal = np.uint64(all_bids | 1 << CALL_IDS["P"])
    n = ksc.call_candidates_nb(CALL_IDS["P"], legal, gain, out)
    assert [call_name(c) for c in out[:n]] == ["P", "1C", "2C", "1D", "2D", "1H", "2H", "1S", "2S", "0NT", "1NT"]
    above_2h = all_bids & ~((1 << (CALL_IDS["2H"] + 1)) - 1)
    legal = np.uint64(above_2h | 1 << CALL_IDS["P"] | 1 << CALL_IDS["X"])
    n = ksc.call_candidates_nb(CALL_IDS["2S"], legal, gain, out)
    assert [call_name(c) for c in out[:n]] == ["2S", "P", "X", "3C", "5C", "3D", "5D", "3H", "4H", "4S", "2NT", "3NT"]


def test_model_auction_is_the_auction_heuristic_seats_make():
    """kernels.search.model_auction_nb against every deal of real heuristic games: the hands
    after the exchange (the draw, less the traced discards) give the traced contract,
    declarer and doubling."""
    rules = BridgetteRules()
    kr = kernel_rules(rules)
    p = kr.params[0]
    gain = kr.tables[0]["gain"]
    _, headers, outcomes, trace = bridgette.trace_raw(rules, [parse_policy("heuristic", "bridgette")] * 2, 3,
                                                      range(30))
    odds = np.zeros((2, 5, ODDS_WIDTH))
    checked = 0
    for head, row in zip(headers, outcomes):
        if row["error"]:
            continue
        hands = head["hands"].astype(np.uint64).copy()
        stock = head["stock"][:head["stock_len"]].astype(np.int64)
        kb.draw_nb(p, int(head["dealer"]), hands, stock)
        for kind, seat, card, _ in trace[head["actions_start"]:head["actions_end"]]:
            if kind == kc.KIND_DISCARD:
                hands[seat] &= ~np.uint64(1 << int(card))
        got = ksr.model_auction_nb(BOTH_HEURISTIC, hands, False, int(head["dealer"]), -1, -1, 0, 0, 0, p["min_trump_cards"],
                                  p["nt_needs_all_suits"] != 0, p["jump_min_cards"],
                                  p["opening_pass"] == kb.OPENING_PASS_ENDS, gain, odds)
        assert got == (row["contract"], row["declarer"], row["doubled"]), int(head["seq"])
        checked += 1
    assert checked >= 150


def test_calls_the_model_cannot_explain_give_no_worlds_and_the_heuristics_call():
    """After an opening 7NT, which the heuristic model bids on no hand a few hundred draws
    find (it needs about 29 of the 40 points), no world is taken and the search seat makes
    the heuristic's call; after an opening pass every world taken is one where the model
    passes too (the opponent's worlds replayed through the model's own first call)."""
    kr = kernel_rules(BridgetteRules())
    p = kr.params[0]
    b6 = (0, int(p["min_trump_cards"]), bool(p["nt_needs_all_suits"]), int(p["jump_min_cards"]))
    gain = kr.tables[0]["gain"]
    policy = parse_policy("search:call_worlds=6", "bridgette")
    deck = np.random.default_rng(3).permutation(52)
    hands = np.array([sum(1 << int(c) for c in deck[:13]), sum(1 << int(c) for c in deck[13:26])], dtype=np.uint64)
    unseen = ~hands[0] & np.uint64(2**52 - 1)
    calls = np.array([CALL_IDS["7NT"]], dtype=np.int64)
    seats = fresh_seats(policy, 2)
    wanted = policy.row().search.call_worlds  # the seat's own parameter, as the kernels pass it
    worlds, whole = sample_bidding_worlds_nb(seats[0], 0, hands, unseen, calls, 1, 1, *b6, gain, wanted,
                                             ksc.REJECTION_TRIES)
    assert len(worlds) == 0 and not whole
    legal = np.uint64(1 << CALL_IDS["P"] | 1 << CALL_IDS["X"])
    odds = np.zeros((2, 5, ODDS_WIDTH))
    mine = kp.heuristic_call_nb(HEURISTIC, 0, hands[0], legal, CALL_IDS["7NT"], 1, 0, unseen, gain, odds)
    got = ksc.search_call_nb(new_context()[0], fresh_seats(policy, 2)[0], 0, hands, legal, CALL_IDS["7NT"], 1, 0,
                            unseen, gain, False, calls, 1, 1, *b6, False)
    assert got == mine
    calls = np.array([CALL_IDS["P"]], dtype=np.int64)
    worlds, _ = sample_bidding_worlds_nb(fresh_seats(policy, 2)[0], 0, hands, unseen, calls, 1, 1, *b6, gain, wanted,
                                           ksc.REJECTION_TRIES)
    assert len(worlds) == 6
    for world in worlds:
        assert world & ~unseen == 0 and bin(int(world)).count("1") == 13
        legal = legal_calls_nb(world, 1, -1, -1, 0, *b6)
        assert kp.heuristic_call_nb(HEURISTIC, 1, world, legal, -1, -1, 0, ~world, gain, odds) == CALL_IDS["P"]


def test_draw_from_is_uniform():
    """Three cards of six, 60,000 times: each card drawn half the time (binomial, 5 sigma)."""
    rng = np.array([12345], dtype=np.uint64)
    pool = mask("2C 5D 9H KS AS CG")
    counts = np.zeros(64)
    for _ in range(60_000):
        got = int(ksr.draw_from_nb(rng, pool, 3))
        assert bin(got).count("1") == 3 and got & ~int(pool) == 0
        counts += [(got >> c) & 1 for c in range(64)]
    drawn = counts[counts > 0]
    assert len(drawn) == 6 and np.all(np.abs(drawn - 30_000) < 5 * np.sqrt(60_000 * 0.25))


def test_search_parameters():
    assert parse_policy("search", "bridgette").row().search.exchange_worlds == 16
    assert parse_policy("search", "bridgette").row().search.objective == kp.OBJECTIVE_GAMES
    assert str(parse_policy("search:worlds=0", "bridgette")) == "search:worlds=0"
    assert parse_policy("search:worlds=0", "bridgette").row().pimc.worlds == 0
    with pytest.raises(PolicyError, match="pimc:worlds must be a whole number from 1"):
        parse_policy("pimc:worlds=0", "bridgette")
    with pytest.raises(PolicyError, match="no parameter 'exchange_worlds' in draw-bridge"):
        parse_policy("search:exchange_worlds=4", "draw-bridge")
    euchre = parse_policy("search", "bid-euchre").row().search
    assert (euchre.call_worlds, euchre.exchange_worlds) == (16, 16)
    with pytest.raises(PolicyError, match="no parameter 'objective' in bid-euchre"):
        parse_policy("search:objective=1", "bid-euchre")
    with pytest.raises(PolicyError, match=r"exchange_worlds must be 0 \(the heuristic's choice\) or a whole number"):
        parse_policy("search:exchange_worlds=2.5", "bridgette")


@pytest.mark.slow
def test_searched_exchange_beats_the_heuristics():
    """The exchange alone searched (cards and calls as the heuristic): more points per deal
    than the heuristic in a duplicate match, the 95% interval above zero."""
    from sim.match import play_match

    searched = parse_policy("search:worlds=0,call_worlds=0,objective=0", "bridgette")
    result = play_match("bridgette", searched, parse_policy("heuristic", "bridgette"), 600, seed=21)
    assert result["ci95"][0] > 0


def test_worth_of_a_deal_worked_by_hand():
    """``worth_nb``: the points themselves under the points objective; under the games
    objective, after the last deal, whether the seat then leads (a tie one half), and with
    two deals left the normal chance, at a lead of 2,130 x 0.476936 points (where erf is
    1/2) three quarters."""
    points, games = kp.OBJECTIVE_POINTS, kp.OBJECTIVE_GAMES
    assert ksr.worth_nb(-250.0, np.array([points, 900.0, 0.0])) == -250.0
    last = np.array([games, 100.0, 0.0])  # the seat leads by 100 before the last deal
    assert [ksr.worth_nb(x, last) for x in (-150.0, -100.0, 50.0)] == [0.0, 0.5, 1.0]
    assert ksr.DEAL_SPREAD * np.sqrt(2 * 2) == 2130.0
    assert ksr.worth_nb(0.0, np.array([games, 0.0, 2.0])) == 0.5
    assert ksr.worth_nb(2130.0 * 0.476936, np.array([games, 0.0, 2.0])) == pytest.approx(0.75, abs=1e-6)
    seats = seats_for(np.array([kp.POLICY_SEARCH] * 2), np.stack([parse_policy("search", "bridgette").row()] * 2))
    seats["totals"][0] = (300, 1000)
    seats["deals_left"] = 3
    assert list(ksr.goal_nb(seats[0], 1)) == [games, 700.0, 3.0]


@pytest.mark.slow
def test_the_games_objective_wins_more_games():
    """The measurement that made the games objective Bridgette's default (docs/search.md,
    Objective): over 300 duplicate games, more games won than the same player maximizing
    the deal score, the 95% interval above one half."""
    from sim.match import play_match

    games = parse_policy("search:worlds=0,objective=1", "bridgette")
    points = parse_policy("search:worlds=0,objective=0", "bridgette")
    result = play_match("bridgette", games, points, 300, seed=21)
    assert result["a_game_win_ci95"][0] > 0.5


def test_card_play_worlds_are_those_the_opponents_calls_explain():
    """A search seat's card play keeps the worlds in which the model would have opened as the
    opponent did, from the hand it held then (its hand in the world with the two cards it
    has played since), each replayed here through the heuristic's own call; after an
    opening 7NT none is explained: the decision counts as unexplained and the worlds are
    drawn as pimc draws them."""
    kr = kernel_rules(BridgetteRules())
    p = kr.params[0]
    b6 = (0, int(p["min_trump_cards"]), int(p["nt_needs_all_suits"]), int(p["jump_min_cards"]))
    gain = kr.tables[0]["gain"]
    odds = np.zeros((2, 5, ODDS_WIDTH))
    deck = np.random.default_rng(5).permutation(52)
    dealt = np.array([sum(1 << int(c) for c in deck[:13]), sum(1 << int(c) for c in deck[13:26])], dtype=np.uint64)
    legal = legal_calls_nb(dealt[1], 1, -1, -1, 0, *b6[:2], bool(b6[2]), b6[3])
    opening = kp.heuristic_call_nb(HEURISTIC, 1, dealt[1], legal, -1, -1, 0, ~dealt[1], gain, odds)
    played = np.uint64(1 << int(deck[13]) | 1 << int(deck[14]))  # the opponent's cards played so far
    hands = np.array([dealt[0], dealt[1] & ~played], dtype=np.uint64)
    unseen = np.uint64(2**52 - 1) & ~dealt[0] & ~played
    for call, explained in ((opening, True), (CALL_IDS["7NT"], False)):
        seats = fresh_seats(parse_policy("search", "bridgette"), 2)
        s = seats[0]
        s["calls"][0] = call
        s["auction"][:] = (1, 1, *b6)
        s["played"][1] = played
        cards, ways, stride, counts, allowed, _ = pimc.contract_deals_nb(s, 0, hands, unseen)
        holders = np.zeros((8, counts.shape[0]), dtype=np.uint64)
        rng = np.array([7], dtype=np.uint64)
        n = pimc.explained_worlds_nb(s, 0, ways, stride, cards, counts, allowed, rng, holders, 0, gain)
        assert n == 8 and int(s["unexplained"][0]) == (0 if explained else 1)
        for world in holders[:n, 0]:
            assert world & ~unseen == 0 and bin(int(world)).count("1") == 11
            then = world | played
            legal = legal_calls_nb(then, 1, -1, -1, 0, *b6[:2], bool(b6[2]), b6[3])
            made = kp.heuristic_call_nb(HEURISTIC, 1, then, legal, -1, -1, 0, ~then, gain, odds)
            assert (made == call) == explained
