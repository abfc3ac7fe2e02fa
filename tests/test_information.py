"""Information hygiene: a policy decides only on what its seat may know.

For sampled decision points of heuristic games, the cards the deciding seat cannot see at
that moment (the other hands, the stock, the others' discards and exchange cards, the
cards still to be drawn) are shuffled among themselves. The other seats then replay their
recorded actions, mapped through the same shuffle, while the deciding seat chooses by its
policy again: every decision it made up to that point must come out the same. A shuffle
that makes a recorded action of another seat illegal (it revealed, say, a void) is not a
world consistent with what the seat saw, and is set aside.

A control shuffle that also moves one card the seat holds must change some decisions,
so the harness can see a policy that reads what it should not.
"""

from __future__ import annotations

import numpy as np
import pytest

from kernels import bid_euchre as ke
from kernels import bridgette as kb
from kernels import contract as kc
from kernels import draw_bridge as kd
from kernels.cards import mask_to_cards
from kernels.policies import POLICY_SCRIPT
from sim import bid_euchre, bridgette, draw_bridge
from sim.policies import kernel_policies, parse_policy
from sim.rules import BidEuchreRules, BridgetteRules, DrawBridgeRules

HEURISTIC = parse_policy("heuristic")
TRACE_ROWS = 512


def _mask(cards) -> int:
    m = 0
    for c in cards:
        m |= 1 << int(c)
    return m


def _mapped_mask(mask: int, pi: dict) -> int:
    return _mask(pi.get(c, c) for c in mask_to_cards(np.uint64(mask)))


def _no_rows():
    return np.zeros((0, ke.TRACE_WIDTH), dtype=np.int64)


class Deal:
    """One traced deal of world A: dealer, hands (int masks), stock and action rows."""

    def __init__(self, dealer, hands, stock, rows):
        self.dealer, self.hands, self.stock = dealer, hands, stock
        self.rows = [tuple(int(x) for x in r) for r in rows]

    def seat_actions(self, seat, rows=None):
        return [(kind, action, legal) for kind, s, action, legal in (self.rows if rows is None else rows) if s == seat]


def _trace_buffer():
    return np.zeros((TRACE_ROWS, kc.TRACE_WIDTH), dtype=np.int64), np.zeros(1, dtype=np.int64)


def _contract_arrays(deal, pi):
    """World B of a contract game: hands and stock mapped through ``pi``, and the recorded
    calls and cards (mapped) as scripts."""
    hands = np.array([_mapped_mask(h, pi) for h in deal.hands], dtype=np.uint64)
    stock = np.array([pi.get(int(c), int(c)) for c in deal.stock], dtype=np.int64)
    calls = np.array([a for k, _, a, _ in deal.rows if k == kc.KIND_CALL], dtype=np.int64)
    play = np.array([pi.get(a, a) for k, _, a, _ in deal.rows if k == kc.KIND_PLAY], dtype=np.int64)
    return hands, stock, calls, play


def _kernel_args(seat, players):
    """The heuristic in ``seat``, every other seat scripted."""
    _, prm = kernel_policies([HEURISTIC] * players)
    pol = np.full(players, POLICY_SCRIPT, dtype=np.int64)
    pol[seat] = HEURISTIC.policy_id
    return pol, prm


# --- Per game: world A, what a seat knows at a decision, and world B played again -----------

class BridgetteWorld:
    rules = BridgetteRules()
    players = 2
    kind_play = kc.KIND_PLAY

    def deals(self, seed, games):
        _, headers, trace = bridgette.trace_raw(self.rules, [HEURISTIC] * 2, seed, games)
        for h in headers:
            if h[kb.H_OUT + kc.O_CONTRACT] < 0:
                continue  # passed out: the hands after the exchange were never shown
            stock = h[kb.H_STOCK:kb.H_STOCK + h[kb.H_STOCK_LEN]].copy()
            yield Deal(int(h[kb.H_DEALER]), [int(np.uint64(h[kb.H_HAND + s])) for s in (0, 1)],
                       stock, trace[h[kb.H_ACTIONS]:h[kb.H_ACTIONS + 1]])

    def known(self, deal, seat, t):
        """The seat's own cards (dealt and drawn: all it discards or plays), the up-card, and
        every card played before action ``t``."""
        pool = _mask(a for k, s, a, _ in deal.rows if s == seat and k in (kc.KIND_DISCARD, kc.KIND_PLAY))
        played = _mask(a for k, _, a, _ in deal.rows[:t] if k == kc.KIND_PLAY)
        return pool | _mask([deal.stock[0]]) | played

    def deck(self, deal):
        return deal.hands[0] | deal.hands[1] | _mask(deal.stock)

    def replay(self, deal, seat, pi):
        params, deck, value, exact, penalty = self.rules.to_kernel()
        hands, stock, calls, play = _contract_arrays(deal, pi)
        discards = np.full((2, 16), -1, dtype=np.int64)
        for s in (0, 1):
            cards = [pi.get(a, a) for k, t, a, _ in deal.rows if t == s and k == kc.KIND_DISCARD]
            discards[s, 0] = len(cards)
            discards[s, 1:1 + len(cards)] = cards
        pol, prm = _kernel_args(seat, 2)
        trace, tcur = _trace_buffer()
        kb.play_deal_nb(params, value, exact, penalty, np.uint64(self.deck(deal)), deal.dealer, hands,
                        stock, pol, prm, np.zeros(1, dtype=np.uint64), discards, calls, play, trace,
                        tcur, np.zeros(kb.N_OUT, dtype=np.int64))
        return trace[:tcur[0]]


class DrawBridgeWorld:
    rules = DrawBridgeRules()
    players = 2
    kind_play = kc.KIND_PLAY

    def deals(self, seed, games):
        _, headers, trace = draw_bridge.trace_raw(self.rules, [HEURISTIC] * 2, seed, games)
        for h in headers:
            if h[kd.H_OUT + kc.O_CONTRACT] < 0:
                continue
            yield Deal(int(h[kd.H_DEALER]), [int(np.uint64(h[kd.H_HAND + s])) for s in (0, 1)],
                       h[kd.H_STOCK:kd.H_STOCK + 26].copy(), trace[h[kd.H_ACTIONS]:h[kd.H_ACTIONS + 1]])

    def known(self, deal, seat, t):
        """D-2: the dealt hand, the stock cards the seat drew in tricks finished before ``t``
        (it plays each of them later), face-up stock tops so far, and the cards played."""
        plays = [(s, a) for k, s, a, _ in deal.rows if k == kc.KIND_PLAY]
        mine = {a for s, a in plays if s == seat}
        before = sum(1 for k, _, _, _ in deal.rows[:t] if k == kc.KIND_PLAY)
        finished = min(before // 2, 13)
        known = deal.hands[seat] | _mask(a for _, a in plays[:before])
        for trick in range(finished):
            known |= _mask(c for c in deal.stock[2 * trick:2 * trick + 2] if int(c) in mine)
        if self.rules.draw.show_stock_top:
            known |= _mask(deal.stock[2 * trick] for trick in range(min(finished + 1, 13)))
        return known

    def deck(self, deal):
        return deal.hands[0] | deal.hands[1] | _mask(deal.stock)

    def replay(self, deal, seat, pi):
        params, made, undertricks = self.rules.to_kernel()
        hands, stock, calls, play = _contract_arrays(deal, pi)
        pol, prm = _kernel_args(seat, 2)
        trace, tcur = _trace_buffer()
        kd.play_deal_nb(params, made, undertricks, deal.dealer, hands, stock, pol, prm,
                        np.zeros(1, dtype=np.uint64), calls, play, trace, tcur,
                        np.zeros(kd.N_OUT, dtype=np.int64))
        return trace[:tcur[0]]


class BidEuchreWorld:
    players = 4
    kind_play = ke.KIND_PLAY

    def __init__(self, rules):
        self.rules = rules

    def deals(self, seed, games):
        _, headers, trace = bid_euchre.trace_raw(self.rules, [HEURISTIC] * 4, seed, games)
        for h in headers:
            yield Deal(int(h[ke.H_DEALER]), [int(np.uint64(h[ke.H_HAND + s])) for s in range(4)],
                       np.zeros(0, dtype=np.int64), trace[h[ke.H_ACTIONS]:h[ke.H_ACTIONS + 1]])

    def known(self, deal, seat, t):
        """The dealt hand (the joker dealer's discard among it), E-4 exchange cards the seat
        gave or received before ``t``, and the cards played before ``t``."""
        known = deal.hands[seat]
        for k, s, a, _ in deal.rows[:t]:
            if k == ke.KIND_PLAY or (k in (ke.KIND_GIVE, ke.KIND_RETURN) and seat in (s, (s + 2) % 4)):
                known |= 1 << a
        # Forced returns (E-4) are not traced: the bidder holds them once the exchange is over.
        exchange = [i for i, (k, s, _, _) in enumerate(deal.rows) if k in (ke.KIND_GIVE, ke.KIND_RETURN)]
        bidder = next((s for k, s, _, _ in deal.rows if k == ke.KIND_TRUMP), -1)
        if seat == bidder and exchange and t > exchange[-1]:
            known |= self._forced(deal, bidder)
        return known

    def _forced(self, deal, bidder):
        trump = next(a for k, _, a, _ in deal.rows if k == ke.KIND_TRUMP)
        gives = sum(1 for k, _, _, _ in deal.rows if k == ke.KIND_GIVE)
        if not gives:
            return 0
        discard = _mask(a for k, _, a, _ in deal.rows if k == ke.KIND_DISCARD)  # E-10 joker
        before = deal.hands[(bidder + 2) % 4] & ~discard
        return int(ke.highest_trumps_nb(np.uint64(before), trump, gives))

    def deck(self, deal):
        return deal.hands[0] | deal.hands[1] | deal.hands[2] | deal.hands[3]

    def replay(self, deal, seat, pi):
        params, _ = self.rules.to_kernel()
        hands = np.array([_mapped_mask(h, pi) for h in deal.hands], dtype=np.uint64)

        def cards(kind):
            return np.array([pi.get(a, a) for k, _, a, _ in deal.rows if k == kind], dtype=np.int64)

        returns = cards(ke.KIND_RETURN)
        gives = cards(ke.KIND_GIVE)
        trump = next((a for k, _, a, _ in deal.rows if k == ke.KIND_TRUMP), -1)
        if len(gives):  # the partner's forced returns lead its returns in a script
            bidder = next(s for k, s, _, _ in deal.rows if k == ke.KIND_GIVE)
            before = hands[(bidder + 2) % 4] & ~np.uint64(_mask(cards(ke.KIND_DISCARD)))
            forced = mask_to_cards(ke.highest_trumps_nb(before, trump, len(gives)))
            if seat == bidder and _mask(forced) != _mapped_mask(self._forced(deal, bidder), pi):
                return _no_rows()  # the bidder saw other forced returns: not its world
            returns = np.concatenate([np.asarray(forced, dtype=np.int64), returns])
        pol, prm = _kernel_args(seat, 4)
        trace, tcur = _trace_buffer()
        ke.play_deal_nb(params, deal.dealer, hands, pol, prm, np.zeros(1, dtype=np.uint64),
                        cards(ke.KIND_DISCARD),
                        np.array([a for k, _, a, _ in deal.rows if k == ke.KIND_CALL], dtype=np.int64),
                        np.array([trump] if trump >= 0 else [], dtype=np.int64), gives, returns,
                        cards(ke.KIND_PLAY), np.zeros((ke.MAX_RENEGES, 2), dtype=np.int64), trace, tcur,
                        np.zeros(ke.N_OUT, dtype=np.int64))
        return trace[:tcur[0]]


WORLDS = {
    "bridgette": BridgetteWorld(),
    "draw-bridge": DrawBridgeWorld(),
    "bid-euchre": BidEuchreWorld(BidEuchreRules()),
    "bid-euchre-joker": BidEuchreWorld(BidEuchreRules.from_dict({"variant": {"joker": True}})),
}


def _probe(world, seed, games, shuffles, control):
    """(decision points checked, decisions that changed, worlds set aside)."""
    rng = np.random.default_rng(seed)
    checked = changed = set_aside = 0
    for deal in world.deals(seed, games):
        deck = world.deck(deal)
        for seat in range(world.players):
            mine = [i for i, row in enumerate(deal.rows) if row[1] == seat]
            if not mine:
                continue
            t = int(rng.choice(mine))
            expect = deal.seat_actions(seat, deal.rows[:t + 1])
            known = world.known(deal, seat, t)
            hidden = [c for c in mask_to_cards(np.uint64(deck & ~known))]
            for _ in range(shuffles):
                moved = list(hidden)
                if control:  # also move one card the seat holds and has not played yet
                    unplayed = [c for c in mask_to_cards(np.uint64(deal.hands[seat] & ~_played(world, deal, t)))]
                    if not unplayed or not hidden:
                        continue
                    moved.append(int(rng.choice(unplayed)))
                pi = dict(zip(moved, rng.permutation(moved).tolist()))
                rows = world.replay(deal, seat, pi)
                got = deal.seat_actions(seat, [tuple(int(x) for x in r) for r in rows])
                if len(got) < len(expect):
                    set_aside += 1  # another seat's recorded action was illegal in this world
                    continue
                checked += 1
                if control:  # the choices themselves, not only the legal sets, must move
                    changed += [g[:2] for g in got[:len(expect)]] != [e[:2] for e in expect]
                else:
                    changed += got[:len(expect)] != expect
    return checked, changed, set_aside


def _played(world, deal, t):
    return _mask(a for k, _, a, _ in deal.rows[:t] if k == world.kind_play)


@pytest.mark.parametrize("name", sorted(WORLDS))
def test_decisions_ignore_cards_the_seat_cannot_see(name):
    checked, changed, _ = _probe(WORLDS[name], seed=11, games=range(40), shuffles=4, control=False)
    assert checked >= 300
    assert changed == 0


@pytest.mark.parametrize("name", sorted(WORLDS))
def test_control_moving_a_held_card_changes_decisions(name):
    checked, changed, _ = _probe(WORLDS[name], seed=12, games=range(40), shuffles=2, control=True)
    assert checked >= 100
    assert changed >= 0.05 * checked
