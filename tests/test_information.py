"""Information hygiene: a policy decides only on what its seat may know.

For sampled decision points of heuristic games, the cards the deciding seat cannot see at
that moment (the other hands, the stock, the others' discards and exchange cards, the
cards still to be drawn) are shuffled among themselves. The other seats then replay their
recorded actions, mapped through the same shuffle, while the deciding seat chooses by its
policy again: every decision it made up to that point must come out the same. A shuffle
that makes a recorded action of another seat illegal (it revealed, say, a void) is not a
world consistent with what the seat saw, and is set aside.

A control shuffle that also moves one card the seat holds must change some decisions,
so the harness can see a policy that reads what it should not. Each game plays its own
default heuristic (Draw Bridge's bids by expected score from both hands, which a seat
knows once D-2 has shown every card played).

A ``pimc`` seat samples worlds from the game's policy stream, which every seat of a game
shares. So its worlds A and B are each one deal played from the same stream state, the
``pimc`` seat choosing, the other seats playing the heuristic (world A) or replaying
world A's actions (world B); its checked decisions are its calls (sampled, ``bid_worlds``),
Bid Euchre's trump and its cards (the rest are the heuristic's, checked above). In
Bridgette it keeps the worlds of its last card that stay consistent (``keep``), so these
must come from what it knows too. A ``search`` seat also chooses Bridgette's discards from
worlds of the opponent's holding, Draw Bridge's draw-phase cards from worlds of the
opponent's hand and the stock's order read through the opponent's plays, and Bid Euchre's
bids, trump and E-4 gives and returns from worlds the calls explain (kernels.search):
checked the same way.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from kernels import bid_euchre as ke
from kernels import bridgette as kb
from kernels import contract as kc
from kernels import draw_bridge as kd
from kernels.cards import mask_to_cards
from kernels.dd import new_context
from kernels.step import POLICY_SCRIPT, TRACE_WIDTH, seats_for
from sim import bid_euchre, bridgette, draw_bridge
from sim.games import kernel_rules
from sim.policies import kernel_policies, parse_policy, searches
from sim.rules import BidEuchreRules, BridgetteRules, DrawBridgeRules

PIMC = parse_policy("pimc:worlds=3,bid_worlds=3,keep=1")  # keep: read by Bridgette's card play
SEARCH = parse_policy("search:worlds=3,exchange_worlds=4,call_worlds=3", "bridgette")
# The same, reading the other searching seat's calls by the softmax model (kernels.policies.reading).
SEARCH_SOFTMAX = parse_policy("search:worlds=3,exchange_worlds=4,call_worlds=3,call_model=1", "bridgette")
# Bid Euchre's search seat bids more boldly than the heuristic, so that it asks (E-4) often.
SEARCH_EUCHRE = parse_policy("search:worlds=2,exchange_worlds=3,call_worlds=3,aggression=1", "bid-euchre")
TRACE_ROWS = 512
STREAM = 0x5EED  # the policy stream's state when a single deal starts


def _mask(cards) -> int:
    m = 0
    for c in cards:
        m |= 1 << int(c)
    return m


def _mapped_mask(mask: int, pi: dict) -> int:
    return _mask(pi.get(c, c) for c in mask_to_cards(np.uint64(mask)))


def _no_rows():
    return np.zeros((0, TRACE_WIDTH), dtype=np.int64)


class Deal:
    """One traced deal of world A: dealer, hands (int masks), stock and action rows."""

    def __init__(self, dealer, hands, stock, rows):
        self.dealer, self.hands, self.stock = dealer, hands, stock
        self.rows = [tuple(int(x) for x in r) for r in rows]

    def seat_actions(self, seat, rows=None):
        return [(kind, action, legal) for kind, s, action, legal in (self.rows if rows is None else rows) if s == seat]


def _contract_arrays(deal, pi):
    """World B of a contract game: hands and stock mapped through ``pi``, and the recorded
    calls and cards (mapped) as scripts."""
    hands = np.array([_mapped_mask(h, pi) for h in deal.hands], dtype=np.uint64)
    stock = np.array([pi.get(int(c), int(c)) for c in deal.stock], dtype=np.int64)
    calls = [a for k, _, a, _ in deal.rows if k == kc.KIND_CALL]
    play = [pi.get(a, a) for k, _, a, _ in deal.rows if k == kc.KIND_PLAY]
    return hands, stock, calls, play


def _replayed(play_deal, engine, seat, players, lists, *args, policy, heuristic):
    """Play world B with ``policy`` in ``seat`` and every other seat scripted (no ``lists``:
    playing ``heuristic``): its trace."""
    pol, prm = kernel_policies([policy if s == seat else heuristic for s in range(players)])
    if lists:
        pol[np.arange(players) != seat] = POLICY_SCRIPT
    seats = seats_for(pol, prm, lists)
    seats["rng"] = STREAM
    trace = np.zeros((TRACE_ROWS, TRACE_WIDTH), dtype=np.int64)
    rows = np.zeros(1, dtype=engine.DEAL_DTYPE)
    # No search context for heuristic seats: then the deal kernel is sim.replay's, which
    # tests.warm compiled, and not a compile of its own for these tests.
    dd = new_context() if searches([policy, heuristic]) else None
    play_deal(*args, seats[0], trace, rows[0], dd, np.zeros(0, dtype=engine.DD_DTYPE))
    return trace[:seats["tcur"][0]]


def _deals(traced, contracts_only=True):
    """World A's deals from a kernel trace; a contract game's passed-out deals are left out
    (the hands after the exchange were never shown)."""
    _, headers, outcomes, trace = traced
    for head, row in zip(headers, outcomes):
        if contracts_only and row["contract"] < 0:
            continue
        yield Deal(int(head["dealer"]), [int(h) for h in head["hands"]],
                   head["stock"][:head["stock_len"]].astype(np.int64), trace[head["actions_start"]:head["actions_end"]])


# --- Per game: world A, what a seat knows at a decision, and world B played again -----------

class BridgetteWorld:
    rules = BridgetteRules()
    players = 2
    kind_play = kc.KIND_PLAY
    pimc_kinds = (kc.KIND_CALL, kc.KIND_PLAY)  # a pimc seat's own decisions: its calls and cards
    policy = parse_policy("heuristic", "bridgette")
    games = 40  # games probed, about 1,200 deals

    def deals(self, seed, games):
        yield from _deals(bridgette.trace_raw(self.rules, [self.policy] * 2, seed, games))

    def known(self, deal, seat, t):
        """The seat's own cards (dealt and drawn: all it discards or plays), the up-card, and
        every card played before action ``t``."""
        pool = _mask(a for k, s, a, _ in deal.rows if s == seat and k in (kc.KIND_DISCARD, kc.KIND_PLAY))
        played = _mask(a for k, _, a, _ in deal.rows[:t] if k == kc.KIND_PLAY)
        return pool | _mask([deal.stock[0]]) | played

    def deck(self, deal):
        return deal.hands[0] | deal.hands[1] | _mask(deal.stock)

    def replay(self, deal, seat, pi, policy=None, scripted=True):
        hands, stock, calls, play = _contract_arrays(deal, pi)
        discards = [[pi.get(a, a) for k, t, a, _ in deal.rows if t == s and k == kc.KIND_DISCARD] for s in (0, 1)]
        return _replayed(kb.play_deal_nb, kb, seat, 2, (*discards, calls, play) if scripted else (),
                         kernel_rules(self.rules), np.uint64(self.deck(deal)), deal.dealer, hands, stock, policy=policy or self.policy, heuristic=self.policy)


class DrawBridgeWorld:
    rules = DrawBridgeRules()
    players = 2
    kind_play = kc.KIND_PLAY
    pimc_kinds = (kc.KIND_CALL, kc.KIND_PLAY)  # a pimc seat's own decisions: its calls and cards
    policy = parse_policy("heuristic", "draw-bridge")
    games = 3  # its games run to 7NT auctions and last about 105 deals: 1,100 decisions checked

    def deals(self, seed, games):
        yield from _deals(draw_bridge.trace_raw(self.rules, [self.policy] * 2, seed, games))

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

    def replay(self, deal, seat, pi, policy=None, scripted=True):
        hands, stock, calls, play = _contract_arrays(deal, pi)
        return _replayed(kd.play_deal_nb, kd, seat, 2, ([], [], calls, play) if scripted else (),
                         kernel_rules(self.rules), deal.dealer, hands, stock, policy=policy or self.policy, heuristic=self.policy)


class BidEuchreWorld:
    players = 4
    kind_play = ke.KIND_PLAY
    pimc_kinds = (ke.KIND_CALL, ke.KIND_TRUMP, ke.KIND_PLAY)  # its exchange is the heuristic's
    policy = parse_policy("heuristic", "bid-euchre")
    games = 10  # about 1,700 decisions checked

    def __init__(self, rules):
        self.rules = rules

    def deals(self, seed, games):
        yield from _deals(bid_euchre.trace_raw(self.rules, [self.policy] * 4, seed, games), contracts_only=False)

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

    def replay(self, deal, seat, pi, policy=None, scripted=True):
        hands = np.array([_mapped_mask(h, pi) for h in deal.hands], dtype=np.uint64)
        if not scripted:
            return _replayed(ke.play_deal_nb, ke, seat, 4, (), kernel_rules(self.rules), deal.dealer, hands,
                             self._reneges(policy), policy=policy or self.policy, heuristic=self.policy)

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
        lists = (cards(ke.KIND_DISCARD), [a for k, _, a, _ in deal.rows if k == ke.KIND_CALL],
                 [trump] if trump >= 0 else [], gives, returns, cards(ke.KIND_PLAY))
        return _replayed(ke.play_deal_nb, ke, seat, 4, lists, kernel_rules(self.rules), deal.dealer, hands,
                         self._reneges(policy), policy=policy or self.policy, heuristic=self.policy)

    def _reneges(self, policy):
        """The E-8 reneges' buffer as sim.replay passes it, for heuristic seats (the kernel
        ``_replayed`` takes then is sim.replay's); None with a search seat, whose deal kernel
        shares the run's hand kernel (kernels.bid_euchre.play_deal_nb)."""
        return None if searches([policy or self.policy]) else np.zeros((ke.MAX_RENEGES, 2), dtype=np.int64)


WORLDS = {
    "bridgette": BridgetteWorld(),
    "draw-bridge": DrawBridgeWorld(),
    "bid-euchre": BidEuchreWorld(BidEuchreRules()),
    "bid-euchre-joker": BidEuchreWorld(BidEuchreRules.from_dict({"variant": {"joker": True}})),
}


def _world_a(world, deal, seat, policy):
    """World A of ``seat``: the heuristic game's deal (``policy`` None), or the same cards
    played again from the stream state ``STREAM`` with ``policy`` in ``seat`` (None: no
    contract was played)."""
    if policy is None:
        return deal
    rows = [tuple(int(x) for x in r) for r in world.replay(deal, seat, {}, policy, scripted=False)]
    if not any(k == world.kind_play for k, _, _, _ in rows):
        return None
    return Deal(deal.dealer, deal.hands, deal.stock, rows)


def _probe(world, seed, games, shuffles, control, policy=None, kinds=None):
    """(decision points checked, decisions that changed, worlds set aside). Decision points
    are any of the seat's actions with the game's heuristic (``policy`` None), or those of
    ``kinds`` (default: the game's ``pimc_kinds``) of ``policy``."""
    kinds = kinds or world.pimc_kinds
    rng = np.random.default_rng(seed)
    checked = changed = set_aside = 0
    for dealt in world.deals(seed, games):
        deck = world.deck(dealt)
        for seat in range(world.players):
            deal = _world_a(world, dealt, seat, policy)
            if deal is None:
                continue
            mine = [i for i, row in enumerate(deal.rows) if row[1] == seat
                    and (policy is None or row[0] in kinds)]
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
                rows = world.replay(deal, seat, pi, policy)
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
    checked, changed, _ = _probe(WORLDS[name], seed=11, games=range(WORLDS[name].games), shuffles=4, control=False)
    assert checked >= 300
    assert changed == 0


@pytest.mark.parametrize("name", sorted(WORLDS))
def test_control_moving_a_held_card_changes_decisions(name):
    checked, changed, _ = _probe(WORLDS[name], seed=12, games=range(WORLDS[name].games), shuffles=2, control=True)
    assert checked >= 100
    assert changed >= 0.05 * checked


# pimc seats search, so fewer games: (games, least decision points checked).
PIMC_PROBES = {"bridgette": (6, 120), "draw-bridge": (4, 1000), "bid-euchre": (4, 300), "bid-euchre-joker": (4, 300)}


@pytest.mark.parametrize("name", sorted(WORLDS))
def test_pimc_decisions_ignore_cards_the_seat_cannot_see(name):
    """A pimc seat's sampled worlds come from what it knows only: its calls (sampled in the
    contract games) and cards come out the same however the cards it cannot see lie."""
    games, least = PIMC_PROBES[name]
    checked, changed, _ = _probe(WORLDS[name], seed=13, games=range(games), shuffles=3, control=False, policy=PIMC)
    assert checked >= least
    assert changed == 0


@pytest.mark.parametrize("name", ["bridgette", "bid-euchre"])
def test_pimc_control_moving_a_held_card_changes_decisions(name):
    games = {"bridgette": 10, "bid-euchre": 4}[name]  # one shuffle each: enough decisions to count
    checked, changed, _ = _probe(WORLDS[name], seed=14, games=range(games), shuffles=1, control=True, policy=PIMC)
    assert checked >= 25
    assert changed >= 0.05 * checked


@pytest.mark.parametrize("policy, games", [(SEARCH, 5), (SEARCH_SOFTMAX, 4)], ids=["heuristic model", "softmax model"])
def test_search_exchange_ignores_cards_the_seat_cannot_see(policy, games):
    """A search seat's discards (B-3, valued over worlds of the opponent's holding), calls
    and cards come out the same however the cards it has not seen lie, whichever model it
    reads the other searching seat's calls by."""
    checked, changed, _ = _probe(WORLDS["bridgette"], seed=15, games=range(games), shuffles=2, control=False,
                                 policy=policy, kinds=(kc.KIND_DISCARD, kc.KIND_CALL, kc.KIND_PLAY))
    assert checked >= 10 * games
    assert changed == 0


def test_search_exchange_control_moving_a_held_card_changes_decisions():
    checked, changed, _ = _probe(WORLDS["bridgette"], seed=16, games=range(5), shuffles=1, control=True,
                                 policy=SEARCH, kinds=(kc.KIND_DISCARD,))
    assert checked >= 25
    assert changed >= 0.05 * checked


class DrawBridgeShownWorld(DrawBridgeWorld):
    rules = DrawBridgeRules.from_dict({"draw": {"show_stock_top": True}})


class FirstDeals:
    """The first ``n`` deals of a world's games only (a Draw Bridge game runs about 105)."""

    def __init__(self, world, n):
        self.world, self.n = world, n

    def __getattr__(self, name):
        return getattr(self.world, name)

    def deals(self, seed, games):
        return itertools.islice(self.world.deals(seed, games), self.n)


SEARCH_DRAW = parse_policy("search:worlds=2,call_worlds=1,draw_worlds=3", "draw-bridge")


def test_search_draw_phase_ignores_cards_the_seat_cannot_see():
    """A search seat's draw-phase cards (D-2, valued over worlds of the opponent's hand and
    the stock's order that explain the opponent's plays) and its later calls and cards come
    out the same however the cards it has not seen lie, the stock's order among them."""
    checked, changed, _ = _probe(FirstDeals(DrawBridgeWorld(), 12), seed=17, games=range(1), shuffles=1,
                                 control=False, policy=SEARCH_DRAW, kinds=(kc.KIND_PLAY,))
    assert checked >= 20
    assert changed == 0


def test_search_euchre_decisions_ignore_cards_the_seat_cannot_see():
    """A Bid Euchre search seat's bids, trump, E-4 gives and returns (valued over worlds the
    calls so far explain) and cards (over worlds the auction explains) come out the same
    however the cards it has not seen lie."""
    kinds = (ke.KIND_CALL, ke.KIND_TRUMP, ke.KIND_GIVE, ke.KIND_RETURN, ke.KIND_PLAY)
    checked, changed, _ = _probe(WORLDS["bid-euchre"], seed=17, games=range(2), shuffles=2, control=False,
                                 policy=SEARCH_EUCHRE, kinds=kinds)
    assert checked >= 100
    assert changed == 0


@pytest.mark.slow
def test_search_draw_phase_ignores_cards_the_seat_cannot_see_face_up():
    """The same with the stock's top face up (``show_stock_top``): the winners' draws are
    public, the losers' are not."""
    checked, changed, _ = _probe(FirstDeals(DrawBridgeShownWorld(), 12), seed=17, games=range(1), shuffles=2,
                                 control=False, policy=SEARCH_DRAW, kinds=(kc.KIND_PLAY,))
    assert checked >= 40
    assert changed == 0


@pytest.mark.slow
def test_search_draw_phase_control_moving_a_held_card_changes_decisions():
    checked, changed, _ = _probe(FirstDeals(DrawBridgeWorld(), 12), seed=18, games=range(1), shuffles=2,
                                 control=True, policy=SEARCH_DRAW, kinds=(kc.KIND_PLAY,))
    assert checked >= 20
    assert changed >= 0.05 * checked


@pytest.mark.slow
def test_search_euchre_control_moving_a_held_card_changes_decisions():
    checked, changed, _ = _probe(WORLDS["bid-euchre"], seed=18, games=range(2), shuffles=1, control=True,
                                 policy=SEARCH_EUCHRE, kinds=(ke.KIND_CALL, ke.KIND_TRUMP))
    assert checked >= 25
    assert changed >= 0.05 * checked
