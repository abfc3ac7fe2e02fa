"""Draw Bridge's draw phase by rollout (kernels.search.draw): candidates, worlds, choice.

The candidates are checked on hands worked out by hand; the worlds against a draw phase
played here, trick by trick, by the heuristic: each world must hold the seat's view of the
deal and make the opponent's past plays again when replayed through the model, written
here independently of the kernel's replay; the choice on a position where winning the
face-up card is clearly right; the records on one and two threads and in blocks.
"""

import numpy as np
import pytest

from kernels.cards import CARD_IDS, SUIT_MASKS
from kernels.dd import new_context
from kernels.policies import heuristic_draw_card_nb
from kernels.search import draw as ksd
from sim import draw_bridge
from sim.games import kernel_rules
from sim.policies import parse_policy
from sim.rules import DrawBridgeRules
from tests.records import assert_same_on_threads_and_blocks
from tests.seats import fresh_seats


def mask(names):
    return np.uint64(sum(1 << CARD_IDS[n] for n in names.split()))


def cards(m):
    return [c for c in range(52) if (int(m) >> c) & 1]


def heuristic(**changed):
    text = ",".join(f"{k}={v}" for k, v in changed.items())
    return parse_policy("heuristic" + (":" + text if text else ""), "draw-bridge").row().heuristic


def candidates(h, hand, lead, shown, led_suit_wins):
    out = np.empty(ksd.MAX_DRAW_CANDIDATES, dtype=np.int64)
    n = ksd.draw_candidates_nb(h, hand, hand, lead, shown, led_suit_wins, out)
    return [c for c in out[:n]]


def test_candidates_worked_by_hand():
    """Following 8H (highest rank wins, the top face down): the heuristic's cheapest 2C, the
    cheapest winner 9C (ranks above 8: 9C QD TH AS), the cheapest loser (2C again), the
    lowest of each suit (2C, 3D, 5H, 4S). Under ``led_suit`` only TH wins. Leading with AH
    face up (worth fighting for at ``draw_fight`` 13): the heuristic's highest rank AS,
    then the cheapest and each suit's lowest."""
    hand = mask("2C 9C 3D QD 5H TH 4S AS")
    ids = [CARD_IDS[n] for n in "2C 9C 3D 5H 4S".split()]
    assert candidates(heuristic(), hand, CARD_IDS["8H"], -1, False) == ids
    assert candidates(heuristic(), hand, CARD_IDS["8H"], -1, True) == [CARD_IDS[n] for n in "2C TH 3D 5H 4S".split()]
    assert candidates(heuristic(), hand, -1, CARD_IDS["AH"], False) == [CARD_IDS[n] for n in "AS 2C 3D 5H 4S".split()]
    # Face down, leading: the heuristic's cheapest, the highest rank, the suits' lowest.
    assert candidates(heuristic(), hand, -1, -1, False) == [CARD_IDS[n] for n in "2C AS 3D 5H 4S".split()]
    assert candidates(heuristic(), mask("7H"), -1, -1, False) == [CARD_IDS["7H"]]


def _follow(hand, lead, must_follow):
    if must_follow and lead >= 0 and hand & int(SUIT_MASKS[lead // 13]):
        return hand & int(SUIT_MASKS[lead // 13])
    return hand


def _beats(card, lead, led_suit_wins):
    if led_suit_wins:
        return card // 13 == lead // 13 and card > lead
    return card % 13 > lead % 13


def _draw_history():
    """The draw phase's public history, nothing played yet: (plays, leaders, tops), unset -1."""
    return np.full(26, -1, dtype=np.int64), np.full(14, -1, dtype=np.int64), np.full(13, -1, dtype=np.int64)


def _draw_phase_until(h, hands, stock, dealer, show, must_follow, led_suit_wins, stop_at):
    """The heuristic's draw phase, played here, up to its ``stop_at``-th card: (seat to
    play, its hand, the lead, the trick, dealt hands, draws, plays, leaders, tops)."""
    hands = [int(x) for x in hands]
    dealt = list(hands)
    drew = np.full((2, 13), -1, dtype=np.int64)
    plays, leaders, tops = _draw_history()
    leader = 1 - dealer
    for trick in range(13):
        top = int(stock[2 * trick])
        shown = top if show else -1
        leaders[trick], tops[trick] = leader, shown
        lead = -1
        for turn in range(2):
            seat = leader if turn == 0 else 1 - leader
            if 2 * trick + turn == stop_at:
                return seat, hands, lead, trick, dealt, drew, plays, leaders, tops
            legal = hands[seat] if turn == 0 else _follow(hands[seat], lead, must_follow)
            card = int(heuristic_draw_card_nb(h, np.uint64(hands[seat]), np.uint64(legal), lead, shown,
                                              led_suit_wins))
            hands[seat] &= ~(1 << card)
            plays[2 * trick + turn] = card
            if turn == 0:
                lead = card
            elif _beats(card, lead, led_suit_wins):
                leader = seat
        hands[leader] |= 1 << top
        hands[1 - leader] |= 1 << int(stock[2 * trick + 1])
        drew[leader, trick], drew[1 - leader, trick] = top, stock[2 * trick + 1]
    raise AssertionError("stop_at past the draw phase")


@pytest.mark.parametrize("show,must_follow,led_suit_wins", [(False, False, False), (True, False, False),
                                                           (False, True, True)])
def test_every_world_holds_what_the_seat_saw_and_explains_the_opponents_plays(show, must_follow, led_suit_wins):
    """Positions of heuristic draw phases at every stage: each world is a full deal that
    agrees with what the seat saw, and the opponent, replayed here from its dealt hand and
    draws in the world, makes every play it made; the true deal is always explained."""
    h = heuristic()
    rng = np.random.default_rng(7)
    state = np.array([99], dtype=np.uint64)
    positions = with_worlds = 0
    for deal in range(40):
        order = rng.permutation(52)
        dealer = deal % 2
        hands = [0, 0]
        for k in range(26):
            hands[(1 - dealer) if k % 2 == 0 else dealer] |= 1 << int(order[k])
        stock = order[26:]
        stop_at = 1 + deal * 5 % 25
        seat, now, lead, trick, dealt, drew, plays, leaders, tops = _draw_phase_until(
            h, hands, stock, dealer, show, must_follow, led_suit_wins, stop_at)
        opp = 1 - seat
        assert ksd.model_explains_nb(h, seat, np.uint64(dealt[opp]), drew[opp], plays, stop_at, leaders, tops, trick,
                                     must_follow, led_suit_wins)
        opp_now, stocks, opp_dealt, opp_draws = ksd.draw_worlds_nb(
            state, h, seat, np.uint64(dealt[seat]), drew[seat], plays, stop_at, leaders, tops, trick, must_follow,
            led_suit_wins, 6.0)
        positions += 1
        with_worlds += len(opp_now) > 0
        mine = dealt[seat] | sum(1 << int(drew[seat, j]) for j in range(trick))
        for w in range(len(opp_now)):
            # A full deal: the seat's cards, the opponent's dealt hand and draws, the stock left.
            held = int(opp_dealt[w])
            assert bin(held).count("1") == 13 and held & mine == 0
            pieces = [dealt[seat], held] + [1 << int(c) for c in drew[seat, :trick]]
            pieces += [1 << int(c) for c in opp_draws[w, :trick]] + [1 << int(c) for c in stocks[w]]
            assert sum(bin(p).count("1") for p in pieces) == 52 and np.bitwise_or.reduce(pieces) == 2**52 - 1
            assert len(stocks[w]) == 26 - 2 * trick
            if show:
                assert stocks[w][0] == tops[trick]
                for j in range(trick):
                    if leaders[j + 1] == opp:
                        assert opp_draws[w, j] == tops[j]
            # The opponent's plays again, from its hands in the world.
            for k in range(trick + 1):
                pos = 2 * k + (0 if leaders[k] == opp else 1)
                if pos < stop_at:
                    first = -1 if pos == 2 * k else int(plays[2 * k])
                    legal = held if first < 0 else _follow(held, first, must_follow)
                    assert heuristic_draw_card_nb(h, np.uint64(held), np.uint64(legal), first, tops[k],
                                                  led_suit_wins) == plays[pos]
                    held &= ~(1 << int(plays[pos]))
                if k < trick:
                    held |= 1 << int(opp_draws[w, k])
            assert held == int(opp_now[w])
    assert with_worlds >= 0.9 * positions


def test_first_lead_worlds_are_uniform_among_those_the_model_explains():
    """The dealer, following the heuristic's lead of 5D face down: every world has the
    opponent holding no card the heuristic would throw first (ranks 2 to 4, and 5C), and
    each unseen card above it held equally often (12 of the 29 such cards each world)."""
    h = heuristic()
    dealer_hand = mask("2C 3C 3D 4H 6S 7S 8C 9D TH JS QC KD AH")
    plays, leaders, tops = _draw_history()
    plays[0], leaders[0] = CARD_IDS["5D"], 0
    state = np.array([5], dtype=np.uint64)
    counts = np.zeros(52)
    n = 0
    for _ in range(300):
        opp_now, stocks, _, _ = ksd.draw_worlds_nb(state, h, 1, dealer_hand, np.full(13, -1, dtype=np.int64), plays,
                                                   1, leaders, tops, 0, False, False, 40.0)
        for held in opp_now:
            counts[cards(held)] += 1
            n += 1
    assert n == 300 * 40
    cheaper = [CARD_IDS[c] for c in "2D 2H 2S 3H 3S 4C 4D 4S 5C".split()]
    assert counts[cheaper].sum() == 0 and counts[cards(dealer_hand)].sum() == 0
    above = [c for c in range(52) if c not in cheaper and c != CARD_IDS["5D"] and not (int(dealer_hand) >> c) & 1]
    assert len(above) == 29
    p = 12 / 29
    assert np.all(np.abs(counts[above] - n * p) < 5 * np.sqrt(n * p * (1 - p)))


def test_wins_the_face_up_ace_the_heuristic_lets_go():
    """Trick 1, AS face up, the opponent leading 2D, a failed contract costing (D-6 bridge
    undertricks; with none, the model's auctions climb to a 7NT nobody makes and no card
    matters). At ``draw_fight`` 15 the heuristic never fights and throws 2C (equal ranks:
    the leader wins), leaving the ace to the opponent; 3C wins it at the cost of a three.
    The search plays 3C."""
    kr = kernel_rules(DrawBridgeRules.from_dict({"scoring": {"undertricks": "bridge"}}))
    gain = kr.tables[0]["gain"]
    hand = mask("2C 3C 6C 9C 4D 8D JD 5H 7H KH 3S 8S QS")
    plays, leaders, tops = _draw_history()
    plays[0], leaders[0], tops[0] = CARD_IDS["2D"], 0, CARD_IDS["AS"]
    no_draws = np.full(13, -1, dtype=np.int64)
    args = (1, hand, hand, CARD_IDS["2D"], False, False, 0, hand, no_draws, plays, leaders, tops, 1, False, gain)
    searching = parse_policy("search:draw_worlds=16,draw_fight=15", "draw-bridge")
    got = ksd.search_draw_card_nb(new_context()[0], fresh_seats(searching, 2)[0], *args)
    assert got == CARD_IDS["3C"]
    assert heuristic_draw_card_nb(searching.row().heuristic, hand, hand, CARD_IDS["2D"], CARD_IDS["AS"],
                                  False) == CARD_IDS["2C"]


def test_records_do_not_depend_on_threads_or_blocks():
    """A searched draw phase against the heuristic, short games (target 40, undertricks
    cost): the same records on one and two threads and in blocks of two games."""
    rules = DrawBridgeRules.from_dict({"game": {"target": 40}, "scoring": {"undertricks": "bridge"}})
    policies = [parse_policy("search:worlds=0,call_worlds=0,draw_worlds=2", "draw-bridge"),
                parse_policy("heuristic", "draw-bridge")]
    assert_same_on_threads_and_blocks(draw_bridge.run_block, rules, policies, 3, 6, [0, 2, 4])
