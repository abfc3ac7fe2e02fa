"""The limit loop of ``python -m benchmarks.peers`` deals real hands and plays legal greedy games.

Each recorded deal is replayed here in plain Python: the hands are dealt from the deck
without overlap, every card is played once by the seat that holds it, followers follow
suit when they can, every play is the greedy choice the loop documents, the trick winner
leads next, and the tricks won match the loop's count and the benchmarked kernels' totals.
"""

import pytest

from benchmarks import limit_loop

TRUMP = 3
SHAPES = {"two": dict(cards=55, hands=2, size=13, per_suit=13),
          "four": dict(cards=24, hands=4, size=6, per_suit=6)}


def suit(card: int, per_suit: int) -> int:
    return card // per_suit if card < 4 * per_suit else TRUMP  # the Colons are trumps


def beats(card: int, win: int, per_suit: int) -> bool:
    s, w = suit(card, per_suit), suit(win, per_suit)
    return (s == w and card > win) or (s == TRUMP and w != TRUMP)


def greedy_lead(hand: set, per_suit: int) -> int:
    by_suit = [[c for c in hand if suit(c, per_suit) == s] for s in range(4)]
    longest = max(range(4), key=lambda s: (len(by_suit[s]), -s))
    return max(by_suit[longest])


def greedy_follow(hand: set, win: int, led: int, per_suit: int) -> int:
    legal = sorted(c for c in hand if suit(c, per_suit) == led)
    if legal:
        return next((c for c in legal if beats(c, win, per_suit)), legal[0])
    winning_trumps = sorted(c for c in hand if suit(c, per_suit) == TRUMP and beats(c, win, per_suit))
    others = sorted(c for c in hand if suit(c, per_suit) != TRUMP)
    return (winning_trumps or others or sorted(hand))[0]


def cards_of(mask: int) -> set:
    return {c for c in range(64) if (int(mask) >> c) & 1}


@pytest.mark.parametrize("shape", ["two", "four"])
def test_limit_loop_plays_legal_greedy_games(shape):
    p = SHAPES[shape]
    seed, first, count = 11, 5, 40
    hands, traces, won = limit_loop.trace(shape, seed, first, count)
    assert len({tuple(int(h) for h in row) for row in hands}) == count  # every deal differs
    led_suits, seen = set(), set()
    for deal in range(count):
        held = [cards_of(h) for h in hands[deal]]
        assert all(len(h) == p["size"] for h in held)
        dealt = set().union(*held)
        assert len(dealt) == p["hands"] * p["size"] and max(dealt) < p["cards"]  # no card twice
        seen |= dealt
        played, leader, side_tricks, tricks = [], 0, 0, 0
        for trick in traces[deal]:
            assert trick[0] == leader
            cards = [int(c) for c in trick[1:]]
            win, winner = cards[0], leader
            assert win in held[leader] and win == greedy_lead(held[leader], p["per_suit"])
            led = suit(win, p["per_suit"])
            held[leader].discard(win)
            for k, card in enumerate(cards[1:], 1):
                seat = (leader + k) % p["hands"]
                hand = held[seat]
                assert card in hand
                if any(suit(c, p["per_suit"]) == led for c in hand):
                    assert suit(card, p["per_suit"]) == led  # follows suit when it can
                assert card == greedy_follow(hand, win, led, p["per_suit"])
                hand.discard(card)
                if beats(card, win, p["per_suit"]):
                    win, winner = card, seat
            played += cards
            led_suits.add(led)
            leader = winner
            side_tricks += winner % 2 == 0
            tricks += 1
        assert sorted(played) == sorted(dealt) and not any(held)  # every card played exactly once
        assert tricks == p["size"] and won[deal] == side_tricks <= tricks
    assert led_suits == {0, 1, 2, 3} and seen == set(range(p["cards"]))  # every card gets dealt
    # the benchmarked kernel plays the same deals: seat 0's side's tricks agree
    assert limit_loop.run(shape, seed, first, count) == int(won.sum())
    assert limit_loop.run(shape, seed, first + 1, 3) == int(won[1:4].sum())
