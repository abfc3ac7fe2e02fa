"""The ``search`` policy in Bid Euchre: bids, trump and the E-4 exchange by rollout
(kernels.search.euchre), and the strict worlds of ``pimc``'s sampled calls.

The worlds are checked against the auction replayed here through the heuristic, call by
call; the searched bid and trump against a hand whose best contract is plain by hand; the
count of decisions the model cannot explain against calls the model never makes.
``tests/test_information.py`` checks that these decisions read only what the seat knows.
"""

import numpy as np
import pytest

from kernels import bid_euchre as ke
from kernels import pimc
from kernels import policies as kp
from kernels.calls import EUCHRE_PASS, euchre_legal_bids_nb
from kernels.cards import EUCHRE_CARD_IDS, EUCHRE_SUIT_OF
from kernels.dd import new_context
from kernels.search import euchre as kse
from sim.api import resolve_rules
from sim.games import game_module, kernel_rules
from sim.policies import parse_policy
from sim.rules import BidEuchreRules
from tests.records import assert_same_on_threads_and_blocks
from tests.seats import fresh_seats

THREE, FOUR, FIVE, ASK, MOON = range(5)  # the single deck's bid ids: 3, 4, 5, 6A, 6M
HEARTS = 2
P = kernel_rules(BidEuchreRules()).params[0]
GAIN = ke.bid_gain_nb(P)
# The rule arguments as the deal kernel passes them (tricks, ask_cards, double_deck, joker,
# stick_the_dealer): with the kernel's argument types the tests reuse its compiled searches.
RULES = tuple(np.int64(P[k]) for k in ("tricks", "ask_cards", "double_deck", "joker", "stick_the_dealer"))
I64, I8 = np.int64, np.int8


def mask(names):
    return np.uint64(sum(1 << EUCHRE_CARD_IDS[n] for n in names.split()))


def _seats(policy, stream=77):
    return fresh_seats(policy, 4, stream)


def _heuristic_auction(h, hands, dealer, calls):
    """E-3 replayed here: for each call made so far, the heuristic's call of its caller
    holding its hand of ``hands``; the list of them."""
    made, high, bidder = [], -1, -1
    for turn in range(len(calls)):
        caller = (dealer + 1 + turn) % 4
        legal = euchre_legal_bids_nb(6, high, turn, False)
        made.append(int(kp.heuristic_euchre_bid_nb(h, np.uint64(hands[caller]), legal, high, bidder, caller, 6, 1)))
        if calls[turn] != EUCHRE_PASS:
            high, bidder = calls[turn], caller
    return made


def test_every_world_reproduces_the_calls_so_far_under_the_model():
    """Worlds after 1 to 3 heuristic calls of true deals: the seat's hand as it is, the
    other 18 cards six to a seat, and every other seat, as the heuristic with the seat's
    parameters, makes the calls it made (the seat's own call is not the model's to make).
    With the trump named by a bidder: the model's trump from that world's bidder's hand."""
    policy = parse_policy("search:call_worlds=8", "bid-euchre")
    h = policy.row().heuristic
    rng = np.random.default_rng(4)
    checked = 0
    for k in range(12):
        deck = rng.permutation(24)
        hands = np.array([sum(1 << int(c) for c in deck[6 * s:6 * s + 6]) for s in range(4)], dtype=np.uint64)
        dealer, turn = int(rng.integers(4)), 1 + k % 3
        seat = (dealer + 1 + turn) % 4
        calls, high, bidder = [], -1, -1
        for t in range(turn):
            caller = (dealer + 1 + t) % 4
            legal = euchre_legal_bids_nb(6, high, t, False)
            calls.append(int(kp.heuristic_euchre_bid_nb(h, hands[caller], legal, high, bidder, caller, 6, 1)))
            if calls[-1] != EUCHRE_PASS:
                high, bidder = calls[-1], caller
        seats = _seats(policy, 40 + k)
        seats["calls"][0, :turn] = calls
        named_by = bidder if bidder >= 0 and bidder != seat else -1
        trump = int(kp.heuristic_euchre_trump_nb(h, hands[bidder], 1)) if named_by >= 0 else -1
        worlds = pimc.euchre_calling_worlds_nb(seats[0], I64(seat), hands, I64(turn), I64(dealer), *RULES[:1],
                                               *RULES[2:], np.float64(8), I64(kse.REJECTION_TRIES), I64(named_by),
                                               I64(trump))
        assert 1 <= len(worlds) <= 8
        for w in worlds:
            assert w[seat] == hands[seat] and int(np.bitwise_or.reduce(w)) == 2**24 - 1
            assert all(bin(int(x)).count("1") == 6 for x in w)
            made = _heuristic_auction(h, w, dealer, calls)
            assert [m for t, m in enumerate(made) if (dealer + 1 + t) % 4 != seat] == \
                [c for t, c in enumerate(calls) if (dealer + 1 + t) % 4 != seat]
            if named_by >= 0:
                assert kp.heuristic_euchre_trump_nb(h, w[named_by], 1) == trump
            checked += 1
    assert checked >= 80


def test_an_unbeatable_hand_shoots_the_moon_in_hearts_where_the_heuristic_passes():
    """J H, J D, A H, K H, Q H, T H: with hearts trump the six highest trumps (E-2), every
    trick alone whatever the others hold. E-7: 6M scores 24, 6A 12 (the partner's trump
    back, still all six), 3 to 5 with partner 6, a pass with every model seat passing (an
    aggression of -8 bids nothing: this hand's 7.2 expected tricks less 8, with 1.25 from
    partner, are no level) a void hand, 0. So the searched call is 6M and the trump
    hearts, where the heuristic with these parameters passes."""
    policy = parse_policy("search:aggression=-8,call_worlds=6", "bid-euchre")
    h = policy.row().heuristic
    rng = np.random.default_rng(9)
    mine = mask("JH JD AH KH QH TH")
    rest = [c for c in range(24) if not (int(mine) >> c) & 1]
    for dealer in range(4):
        order = rng.permutation(rest)
        seat = (dealer + 1) % 4
        hands = np.zeros(4, dtype=np.uint64)
        hands[seat] = mine
        others = [s for s in range(4) if s != seat]
        for i, s in enumerate(others):
            hands[s] = sum(1 << int(c) for c in order[6 * i:6 * i + 6])
        legal = euchre_legal_bids_nb(6, -1, 0, False)
        assert kp.heuristic_euchre_bid_nb(h, mine, legal, -1, -1, seat, 6, 1) == EUCHRE_PASS
        seats = _seats(policy, 5 + dealer)
        got = kse.search_euchre_bid_nb(new_context()[0], seats[0], I64(seat), hands, np.uint64(legal), I64(-1), I64(-1),
                                       I64(0), I64(dealer), GAIN, *RULES)
        assert got == MOON
        seats["calls"][0, :4] = [MOON if t == 0 else EUCHRE_PASS for t in range(4)]
        trump = kse.search_euchre_trump_nb(new_context()[0], seats[0], I64(seat), hands, I8(MOON), I64(dealer), GAIN,
                                           *RULES)
        assert trump == HEARTS
        assert seats["unexplained"][0].sum() == 0


def test_calls_the_model_cannot_explain_give_the_heuristics_call_and_are_counted():
    """An opening 5 by the first caller, which the model with an aggression of -5 never
    bids: no world is taken; the search seat (and a pimc seat sampling its calls, whose
    worlds are now as strict) makes the heuristic's call and the deal counts one
    ``unexplained`` decision."""
    rng = np.random.default_rng(2)
    deck = rng.permutation(24)
    hands = np.array([sum(1 << int(c) for c in deck[6 * s:6 * s + 6]) for s in range(4)], dtype=np.uint64)
    dealer, seat = 3, 1  # seat 0 called first
    legal = euchre_legal_bids_nb(6, FIVE, 1, False)
    for spec, decide in (("search:aggression=-5,call_worlds=6", kse.search_euchre_bid_nb),
                         ("pimc:aggression=-5,bid_worlds=6", pimc.pimc_euchre_bid_nb)):
        policy = parse_policy(spec, "bid-euchre")
        h = policy.row().heuristic
        seats = _seats(policy)
        seats["calls"][0, 0] = FIVE
        worlds = pimc.euchre_calling_worlds_nb(seats.copy()[0], I64(seat), hands, I64(1), I64(dealer), *RULES[:1],
                                               *RULES[2:], np.float64(6), I64(kse.REJECTION_TRIES), I64(-1), I64(-1))
        assert len(worlds) == 0
        got = decide(new_context()[0], seats[0], I64(seat), hands, np.uint64(legal), I64(FIVE), I64(0), I64(1),
                     I64(dealer), GAIN, *RULES)
        assert got == kp.heuristic_euchre_bid_nb(h, hands[seat], legal, FIVE, 0, seat, 6, 1)
        assert seats["unexplained"][0].tolist() == [0, 1, 0, 0]


def _explained_card_worlds(policy, hands, played, seat, out_seat, trump, stream):
    """The worlds ``pimc.euchre_explained_worlds_nb`` gives ``seat`` in the middle of play
    (``hands`` held now, ``played[t]`` the cards seat ``t`` has played), as (worlds of the
    other seats' hands now, as ``[w, t]``; the seat's record)."""
    seats = _seats(policy, stream)
    seats["played"][0, :4] = played
    unseen = pimc.euchre_unseen_nb(seats[0], I64(seat), hands[seat], np.bitwise_or.reduce(played), I64(0), I64(0))
    counts = np.zeros(pimc.MAX_HOLDERS, dtype=I64)
    allowed = np.zeros(pimc.MAX_HOLDERS, dtype=np.uint64)
    holder_seat = np.full(pimc.MAX_HOLDERS, -1, dtype=I64)
    m = pimc.euchre_holders_nb(seats[0], I64(seat), hands, unseen, I64(out_seat), counts, allowed, holder_seat)
    cards, ways, stride, used, _ = pimc.deal_table_nb(unseen, counts[:m], allowed[:m])
    return seats, cards, ways, stride, counts[:m], used, holder_seat[:m], unseen


def test_card_play_worlds_are_those_the_calls_explain():
    """Mid-hand, after the heuristic's auction of true deals and a card from each other seat:
    in every world a search seat plays over, the other seats' cards with those they have
    played, replayed here through the heuristic's auction call by call, make the four calls
    made, and the bidder's names the trump; a partner that searches its calls is not read
    (the worlds then leave its calls as they fall), a heuristic partner is; calls the model
    never makes (an opening 5 at an aggression of -5) explain no world: the card counts
    one ``unexplained`` decision and its worlds are uniform."""
    rng = np.random.default_rng(11)
    checked = unread_differs = 0
    for k in range(40):
        explained = k % 4 != 0
        policy = parse_policy("search" if explained else "search:aggression=-5", "bid-euchre")
        h = policy.row().heuristic
        deck = rng.permutation(24)
        dealt = np.array([sum(1 << int(c) for c in deck[6 * s:6 * s + 6]) for s in range(4)], dtype=np.uint64)
        dealer = int(rng.integers(4))
        calls = [FIVE, EUCHRE_PASS, EUCHRE_PASS, EUCHRE_PASS]
        if explained:
            calls = []
            for t in range(4):
                calls.append(_heuristic_auction(h, dealt, dealer, calls + [EUCHRE_PASS])[t])
        bids = [(c, (dealer + 1 + t) % 4) for t, c in enumerate(calls) if c != EUCHRE_PASS]
        if not bids or bids[-1][0] == ASK:
            continue
        bid, bidder = bids[-1]
        trump = int(kp.heuristic_euchre_trump_nb(h, dealt[bidder], 1))
        out_seat = (bidder + 2) % 4 if bid == MOON else -1
        seat = ((bidder + 1) % 4, (bidder + 3) % 4, bidder)[k % 3 if explained else 0]
        played = np.zeros(4, dtype=np.uint64)
        for t in range(4):
            if t != out_seat:
                played[t] = np.uint64(1 << int(np.flatnonzero([(int(dealt[t]) >> c) & 1 for c in range(24)])[0]))
        hands = dealt & ~played
        seats, cards, ways, stride, counts, used, holder_seat, unseen = _explained_card_worlds(
            policy, hands, played, seat, out_seat, trump, 60 + k)
        partner = (seat + 2) % 4
        read_partner = k % 2 == 1
        if read_partner:
            seats["pol"][0, partner] = kp.POLICY_HEURISTIC
        seats["calls"][0, :4] = calls
        pimc.note_euchre_auction_nb(seats[0], I64(dealer), I64(6), I64(0), I64(bidder), I64(bid))
        worlds = np.zeros((8, counts.shape[0]), dtype=np.uint64)
        n = pimc.euchre_explained_worlds_nb(seats[0], I64(seat), ways, stride, cards, counts, used,
                                            np.array([k], dtype=np.uint64), holder_seat, I64(out_seat), I64(trump),
                                            I64(1), worlds)
        assert n == 8 and seats["unexplained"][0].sum() == (0 if explained else 1)
        for world in worlds:
            then = played.copy()
            then[seat] |= hands[seat]
            for hh, t in enumerate(holder_seat):  # a holder of no seat: the partner sitting out
                then[t if t >= 0 else out_seat] |= world[hh]
            assert int(np.bitwise_or.reduce(then)) == 2**24 - 1 and all(bin(int(x)).count("1") == 6 for x in then)
            made = _heuristic_auction(h, then, dealer, calls)
            read = [t for t in range(4) if (dealer + 1 + t) % 4 != seat and
                    ((dealer + 1 + t) % 4 != partner or read_partner)]
            agree = [made[t] for t in read] == [calls[t] for t in read]
            if bidder != seat and (bidder != partner or read_partner):
                agree = agree and kp.heuristic_euchre_trump_nb(h, then[bidder], 1) == trump
            if explained:
                assert agree
                unread_differs += not read_partner and made != list(calls)
            checked += 1
    assert checked >= 150 and unread_differs >= 1


def test_exchange_candidates_are_every_set_once():
    """E-4's candidate sets: the heuristic's first, then every set of the size wanted (6
    singles, 15 pairs of six cards); with the double deck's identical copies once (a hand
    holding both copies of 9C: 5 distinct singles of its 6 cards, and of its 15 pairs the
    4 of either 9C with another card counted once: 11); over ``MAX_SETS``, the heuristic's
    set and its neighbours (6 of 12 cards: 1 + 6 * 6)."""
    hand = mask("9C TC AD KH QS AS")
    out = np.zeros(kse.MAX_SETS, dtype=np.uint64)
    assert kse.card_sets_nb(hand, 1, mask("9C"), out) == 6 and out[0] == mask("9C")
    assert kse.card_sets_nb(hand, 2, mask("9C TC"), out) == 15
    twins = hand | np.uint64(1 << (EUCHRE_CARD_IDS["9C"] + kse.DOUBLE_COPY))
    twins &= ~mask("AS")
    assert kse.card_sets_nb(twins, 1, mask("9C"), out) == 5
    assert kse.card_sets_nb(twins, 2, mask("9C TC"), out) == 15 - 5 + 1
    big = np.uint64(2**12 - 1)
    assert kse.card_sets_nb(big, 6, np.uint64(0b111111), out) == 1 + 36


def test_searched_exchange_gives_and_returns_legal_sets():
    """E-4 by search: the asking bidder's planned give is ``ask_cards`` of its own cards; the
    partner's planned returns are non-trumps of its own, as many as its forced trumps leave."""
    policy = parse_policy("search:exchange_worlds=4", "bid-euchre")
    rng = np.random.default_rng(12)
    checked = 0
    for k in range(20):
        deck = rng.permutation(24)
        hands = np.array([sum(1 << int(c) for c in deck[6 * s:6 * s + 6]) for s in range(4)], dtype=np.uint64)
        dealer, bidder, trump = 0, 1, int(rng.integers(4))
        seats = _seats(policy, 60 + k)
        seats["calls"][0, :4] = [ASK if t == 0 else EUCHRE_PASS for t in range(4)]
        give = kse.search_euchre_give_nb(new_context()[0], seats[0], I64(bidder), hands, I8(ASK), I64(trump),
                                         I64(dealer), GAIN, *RULES)
        assert bin(int(give)).count("1") == 1 and give & ~hands[bidder] == 0
        partner = 3
        back = kse.search_euchre_returns_nb(new_context()[0], seats[0], I64(partner), hands, I64(bidder), I8(ASK),
                                            I64(trump), I64(dealer), GAIN, *RULES)
        trumps = hands[partner] & EUCHRE_SUIT_OF[trump, trump]
        assert bin(int(back)).count("1") == (0 if trumps else 1)
        assert back & ~hands[partner] == 0 and back & trumps == 0
        checked += 1
    assert checked == 20


@pytest.mark.parametrize("games", [3])
def test_search_runs_are_the_same_for_any_threads_and_blocks(games):
    """Worlds come from the game's policy stream: 1 or 2 threads, one block or two, the same
    records (an aggressive search seat, so that asks and their exchanges occur)."""
    rules = resolve_rules("bid-euchre", None)
    seats = [parse_policy("search:worlds=2,call_worlds=3,exchange_worlds=3,aggression=1", "bid-euchre"),
             parse_policy("heuristic", "bid-euchre"),
             parse_policy("search:worlds=2,call_worlds=3,exchange_worlds=3", "bid-euchre"),
             parse_policy("heuristic:aggression=1", "bid-euchre")]
    assert_same_on_threads_and_blocks(game_module("bid-euchre").run_block, rules, seats, 21, games, [0, 1])
