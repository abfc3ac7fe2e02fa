"""Plain minimax double-dummy reference for the card play of the three games (docs/rules.md).

Written from the rule book alone, to check a fast solver. Every hand is visible and each side
plays to maximise the tricks it takes from the remaining ones. Deliberately naive: every legal
card is tried at every turn to the last trick, with no pruning, no transposition table, no
memoisation and no card equivalences. The only merge is of exact duplicates (E-10 double deck):
either copy of a card leaves the same position, so it is tried once.

* ``contract_tricks`` / ``contract_card_values`` -- Bridgette (B-7..B-10) and Draw Bridge's
  contract play (D-4, C-3; no Colons), seats 0 and 1.
* ``euchre_tricks`` / ``euchre_card_values`` -- Bid Euchre (C-3 with E-2 suits and ranks, the
  E-10 joker and double deck, E-6 three-card tricks when a seat sits out).
"""

from __future__ import annotations

from collections import Counter

from sim.reference import bid_euchre as _eu
from sim.reference import bridgette as _br

SUIT_LETTERS = ("C", "D", "H", "S")
_SUIT_INDEX = {s: i for i, s in enumerate(SUIT_LETTERS)}
_NO_SUIT = 4
COLON_DISCARD_OPTIONS = ("last_resort", "when_void")

# Bridgette cards as small ints: suit (4 for a Colon), rank (-1 for a Colon), the Colon whose
# range holds the card (B-1, B-8; -1 for a Colon).
_B_CARDS = _br.SUITED_CARDS + _br.COLONS
_B_INDEX = {c: i for i, c in enumerate(_B_CARDS)}
_B_SUIT = tuple(_NO_SUIT if _br.is_colon(c) else _SUIT_INDEX[_br.suit_of(c)] for c in _B_CARDS)
_B_RANK = tuple(-1 if _br.is_colon(c) else _br.RANK_VALUE[c[0]] for c in _B_CARDS)
_B_MATCH = tuple(-1 if _br.is_colon(c) else _B_INDEX[_br.matching_colon(c)] for c in _B_CARDS)

# Bid Euchre cards as small ints (E-1, E-10).
_E_CARDS = _eu.SUITED_CARDS + (_eu.JOKER,)
_E_INDEX = {c: i for i, c in enumerate(_E_CARDS)}
_TRUMP_KEY = 100


def _without(hand: tuple, card: int) -> tuple:
    i = hand.index(card)
    return hand[:i] + hand[i + 1:]


# --------------------------------------------------------------------------------------
# Bridgette and Draw Bridge (B-7..B-10, D-4)
# --------------------------------------------------------------------------------------

def _contract_tree(trump: int, when_void: bool):
    """The two-seat game tree for one trump (-1: no-trump) and ``play.colon_discard`` (B-10):
    ``(leads, follows, lead_value, follow_value, after_follow)``. In the last trick each seat's
    one card is its only legal card, so that trick is judged directly."""
    suit_of, rank_of, match_of = _B_SUIT, _B_RANK, _B_MATCH

    def leads(hand, barred):
        """C-3 any card, except the B-8 barred suit unless every card held is of it."""
        if barred >= 0:
            allowed = tuple(c for c in hand if suit_of[c] != barred)
            if allowed:
                return allowed
        return hand

    def follows(hand, lead):
        """B-9 any card on a Colon; on a suited card C-3, the B-8 matching Colon always, and
        B-10 another Colon by ``colon_discard``."""
        led_suit = suit_of[lead]
        if led_suit == _NO_SUIT:
            return hand
        match = match_of[lead]
        same = tuple(c for c in hand if suit_of[c] == led_suit or c == match)
        if len(same) > (match in hand):
            return same
        if when_void:
            return hand
        return tuple(c for c in hand if suit_of[c] != _NO_SUIT or c == match) or hand

    def resolve(lead, card):
        """(whether the follower's ``card`` wins, the suit barred at the leader's next lead)."""
        led_suit, card_suit = suit_of[lead], suit_of[card]
        if led_suit == _NO_SUIT:
            return card_suit == trump or match_of[card] == lead, -1
        if card_suit == led_suit:
            return rank_of[card] > rank_of[lead], -1
        if card_suit == _NO_SUIT:
            return False, (led_suit if card == match_of[lead] else -1)
        return card_suit == trump, -1

    def lead_value(me, opp, barred):
        """Tricks the leader ``me`` takes from a trick boundary on."""
        n = len(me)
        if n == 1:
            return 0 if resolve(me[0], opp[0])[0] else 1
        best = 0
        for card in leads(me, barred):
            i = me.index(card)
            v = n - follow_value(opp, me[:i] + me[i + 1:], card)
            if v > best:
                best = v
        return best

    def follow_value(me, leader, lead):
        """Tricks the follower ``me`` takes, the trick in progress included."""
        best = 0
        for card in follows(me, lead):
            i = me.index(card)
            v = after_follow(me[:i] + me[i + 1:], leader, lead, card)
            if v > best:
                best = v
        return best

    def after_follow(me, leader, lead, card):
        """The follower's tricks once it has played ``card`` to ``lead``; C-3 the winner leads."""
        won, bar = resolve(lead, card)
        if not me:
            return 1 if won else 0
        if won:
            return 1 + lead_value(me, leader, -1)
        return len(me) - lead_value(leader, me, bar)

    return leads, follows, lead_value, follow_value, after_follow


def _contract_position(hands, trump, to_move, trick, barred, colon_discard):
    if trump is not None and trump not in _SUIT_INDEX:
        raise ValueError(f"trump must be a suit letter or None, got {trump!r}")
    if colon_discard not in COLON_DISCARD_OPTIONS:
        raise ValueError(f"colon_discard must be one of {COLON_DISCARD_OPTIONS}, got {colon_discard!r}")
    tree = _contract_tree(-1 if trump is None else _SUIT_INDEX[trump], colon_discard == "when_void")
    if to_move not in (0, 1):
        raise ValueError(f"to_move must be seat 0 or 1, got {to_move!r}")
    if len(hands) != 2:
        raise ValueError("a contract position has two hands")
    trick = tuple(trick)
    if len(trick) > 1:
        raise ValueError("trick holds at most the lead card")
    cards = [c for h in hands for c in h] + list(trick)
    unknown = [c for c in cards if c not in _B_INDEX]
    if unknown:
        raise ValueError(f"not Bridgette cards: {unknown}")
    dup = [c for c, k in Counter(cards).items() if k > 1]
    if dup:
        raise ValueError(f"cards given twice: {dup}")
    me = tuple(_B_INDEX[c] for c in hands[to_move])
    opp = tuple(_B_INDEX[c] for c in hands[1 - to_move])
    if trick:
        if barred is not None:
            raise ValueError("barred applies at a trick boundary only")
        if len(me) != len(opp) + 1:
            raise ValueError("the follower must hold one card more than the leader")
        return tree, me, opp, _B_INDEX[trick[0]], -1
    if barred is not None and barred not in _SUIT_INDEX:
        raise ValueError(f"barred must be a suit letter or None, got {barred!r}")
    if len(me) != len(opp):
        raise ValueError("at a trick boundary both hands hold as many cards")
    return tree, me, opp, None, -1 if barred is None else _SUIT_INDEX[barred]


def contract_tricks(hands, trump, to_move, trick=(), barred=None, colon_discard="last_resort") -> int:
    """Tricks seat ``to_move`` takes from now on (the trick in progress included) with perfect
    play by both, in Bridgette (B-7..B-10) or Draw Bridge's contract play (D-4).

    ``trick`` is ``()`` at a trick boundary or ``(lead_card,)`` led by the other seat;
    ``barred`` is the suit ``to_move`` may not lead now (B-8), only at a trick boundary."""
    (_, _, lead_value, follow_value, _), me, opp, lead, bar = _contract_position(
        hands, trump, to_move, trick, barred, colon_discard)
    if lead is None:
        return lead_value(me, opp, bar) if me else 0
    return follow_value(me, opp, lead)


def contract_card_values(hands, trump, to_move, trick=(), barred=None,
                         colon_discard="last_resort") -> dict[str, int]:
    """Each legal card of ``to_move`` -> the tricks it takes from now on (the trick in
    progress included) after playing it, with perfect play by both afterwards."""
    (leads, follows, _, follow_value, after_follow), me, opp, lead, bar = _contract_position(
        hands, trump, to_move, trick, barred, colon_discard)
    if lead is None:
        return {_B_CARDS[c]: len(me) - follow_value(opp, _without(me, c), c) for c in leads(me, bar)}
    return {_B_CARDS[c]: after_follow(_without(me, c), opp, lead, c) for c in follows(me, lead)}


# --------------------------------------------------------------------------------------
# Bid Euchre (C-3, E-2, E-6, E-10)
# --------------------------------------------------------------------------------------

def _next_active(seat: int, out_seat: int | None) -> int:
    """C-2: play passes to seat + 1, skipping the seat that sits out (E-6)."""
    nxt = (seat + 1) % 4
    return (nxt + 1) % 4 if nxt == out_seat else nxt


def _euchre_tables(trump: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Per card: its E-2 suit (the left bower and the joker are trumps) and its strength key,
    above every plain card for a trump."""
    suit = tuple(_SUIT_INDEX[_eu.suit_of(c, trump)] for c in _E_CARDS)
    key = tuple(_TRUMP_KEY + _eu.trump_value(c, trump) if _eu.is_trump(c, trump)
                else _eu.PLAIN_VALUE[c[0]] for c in _E_CARDS)
    return suit, key


def _euchre_tree(trump: str, out_seat: int | None, hands: list[tuple]):
    """The game tree for one trump and sitting-out seat: ``(value, from_lead, play, suit, key,
    nxt, last)``. ``hands`` (sorted, so that copies of a card sit together) change in place
    during the search and are restored. A trick's state is ``k`` (cards played to it, 0 = the
    lead), ``led`` (its E-2 suit) and ``best_key``/``best_seat`` (the card winning so far).
    In the last trick every card is forced, so that trick is judged directly."""
    suit, key = _euchre_tables(trump)
    trump_suit = _SUIT_INDEX[trump]
    nxt = tuple(_next_active(s, out_seat) for s in range(4))
    last = 3 if out_seat is None else 2

    def last_trick(seat):
        """Every hand holds one card: team 0's trick or not (C-3, E-10 strict beat)."""
        card = hands[seat][0]
        led, best_key, best_seat = suit[card], key[card], seat
        for _ in range(last):
            seat = nxt[seat]
            card = hands[seat][0]
            if (suit[card] == led or suit[card] == trump_suit) and key[card] > best_key:
                best_key, best_seat = key[card], seat
        return 1 - (best_seat & 1)

    def value(seat, k, led, best_key, best_seat):
        """Team 0's tricks from here with ``seat`` to play card number ``k`` (0 = the lead, at
        least two cards in every hand); team 0 maximises, team 1 minimises. C-3: follow the
        E-2 suit led if possible; the highest trump, else the highest card of the suit led
        wins; E-10: a later identical card does not beat the first. The winner leads next."""
        hand = hands[seat]
        options = [i for i, c in enumerate(hand) if suit[c] == led] if k else None
        team1 = seat & 1
        best = 99 if team1 else -1
        previous = -1
        for i in options or range(len(hand)):
            card = hand[i]
            if card == previous:
                continue
            previous = card
            hands[seat] = hand[:i] + hand[i + 1:]
            if k == 0:
                v = value(nxt[seat], 1, suit[card], key[card], seat)
            else:
                if (suit[card] == led or suit[card] == trump_suit) and key[card] > best_key:
                    best_key_now, winner = key[card], seat
                else:
                    best_key_now, winner = best_key, best_seat
                if k < last:
                    v = value(nxt[seat], k + 1, led, best_key_now, winner)
                else:
                    v = 1 - (winner & 1)
                    rest = len(hands[winner])
                    if rest == 1:
                        v += last_trick(winner)
                    elif rest:
                        v += value(winner, 0, -1, 0, winner)
            if (v < best) if team1 else (v > best):
                best = v
        hands[seat] = hand
        return best

    def from_lead(seat):
        """Team 0's tricks from a trick boundary with ``seat`` to lead."""
        rest = len(hands[seat])
        if rest > 1:
            return value(seat, 0, -1, 0, seat)
        return last_trick(seat) if rest else 0

    def play(seat, card, k, led, best_key, best_seat):
        """Team 0's tricks from here after ``seat`` plays ``card`` (already out of its hand),
        judged as in ``value``."""
        if k == 0:
            led, best_key, best_seat = suit[card], key[card], seat
        elif (suit[card] == led or suit[card] == trump_suit) and key[card] > best_key:
            best_key, best_seat = key[card], seat
        if k < last:
            return value(nxt[seat], k + 1, led, best_key, best_seat)
        return 1 - (best_seat & 1) + from_lead(best_seat)

    return value, from_lead, play, suit, key, nxt, last


def _euchre_position(hands, trump, to_move, trick, out_seat):
    if trump not in _SUIT_INDEX:
        raise ValueError(f"trump must be a suit letter, got {trump!r}")
    if len(hands) != 4:
        raise ValueError("a Bid Euchre position has four hands")
    if out_seat is not None and (out_seat not in range(4) or hands[out_seat]):
        raise ValueError("out_seat must be a seat 0-3 whose hand is empty")
    if to_move not in range(4) or to_move == out_seat:
        raise ValueError(f"to_move must be a seat that plays, got {to_move!r}")
    trick = tuple(trick)
    cards = [c for h in hands for c in h] + [c for _, c in trick]
    unknown = [c for c in cards if c not in _E_INDEX]
    if unknown:
        raise ValueError(f"not Bid Euchre cards: {unknown}")
    over = [c for c, k in Counter(cards).items() if k > (1 if c == _eu.JOKER else 2)]
    if over:
        raise ValueError(f"more copies than the E-10 double deck holds: {over}")
    hands = [tuple(sorted(_E_INDEX[c] for c in h)) for h in hands]
    value, from_lead, play, suit, key, nxt, last = _euchre_tree(trump, out_seat, hands)
    trump_suit = _SUIT_INDEX[trump]
    if len(trick) > last:
        raise ValueError("the trick in progress is already complete")
    seat = trick[0][0] if trick else to_move
    played = set()
    led, best_key, best_seat = -1, 0, seat
    for k, (s, c) in enumerate(trick):
        if s != seat:
            raise ValueError(f"trick out of turn: seat {s} where seat {seat} plays")
        card = _E_INDEX[c]
        if k == 0:
            led, best_key, best_seat = suit[card], key[card], s
        elif (suit[card] == led or suit[card] == trump_suit) and key[card] > best_key:
            best_key, best_seat = key[card], s
        played.add(s)
        seat = nxt[s]
    if seat != to_move:
        raise ValueError(f"seat {seat} is to play, not seat {to_move}")
    n = len(hands[to_move])
    for s in range(4):
        if s != out_seat and len(hands[s]) != n - (s in played):
            raise ValueError("hand sizes do not fit the trick in progress")
    return value, from_lead, play, suit, hands, (to_move, len(trick), led, best_key, best_seat), n


def euchre_tricks(hands, trump, to_move, trick=(), out_seat=None) -> int:
    """Tricks ``to_move``'s team takes from now on (the trick in progress included) with
    perfect play by all, in Bid Euchre (C-3, E-2, E-6, E-10).

    ``trick`` holds the ``(seat, card)`` pairs already played to the trick in progress, the
    leader first; ``out_seat`` is the seat that sits out (E-4, E-5), its hand empty."""
    value, from_lead, _, _, _, state, n = _euchre_position(hands, trump, to_move, trick, out_seat)
    team0 = value(*state) if state[1] else from_lead(to_move)
    return team0 if to_move % 2 == 0 else n - team0


def euchre_card_values(hands, trump, to_move, trick=(), out_seat=None) -> dict[str, int]:
    """Each legal card of ``to_move`` (duplicate copies once) -> its team's tricks from now on
    after playing it, with perfect play by all afterwards."""
    _, _, play, suit, hands, (seat, k, led, best_key, best_seat), n = _euchre_position(
        hands, trump, to_move, trick, out_seat)
    hand = hands[seat]
    legal = tuple(c for c in hand if suit[c] == led) or hand
    values = {}
    for card in dict.fromkeys(legal):
        hands[seat] = _without(hand, card)
        team0 = play(seat, card, k, led, best_key, best_seat)
        hands[seat] = hand
        values[_E_CARDS[card]] = team0 if to_move % 2 == 0 else n - team0
    return values
