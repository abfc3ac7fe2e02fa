"""Deal runs and conditions on the cards, checked once and compiled into the kernels' plan.

    python -m sim.run --deals 1e5 --dealer 0 --upcard ace
    python -m sim.run --deals 1e5 --predeal 0=CG,AS --require "0:hcp>=12,spades>=5"

A deal run plays independent deals, deal ``i`` a pure function of (seed, i), dealt by a
fixed seat (``--dealer 0``) or by seat ``i`` mod the number of seats (the default). Its
records are those of a game run whose games last one counted deal (a passed-out deal that
C-5 redeals is dealt again under the same conditions).

Conditions (deal runs only):
- the up-card (Bridgette, B-3): cards and classes, ``CG``, ``AS,AH``, ``numeral``
  (2-10 and the Little Colon), ``face`` (J, Q, K and the Royal Colon), ``ace`` (aces and
  the Grand Colon), ``colon`` (any Colon);
- predeals: cards a seat holds as dealt (``0=CG,AS``; with the double deck a card named
  twice predeals both copies);
- ranges: ``SEAT:FEATURE OP N`` terms, comma-separated, OP one of >= <= = > <. Features
  count cards of the seat's hand as dealt: the suits (``spades``; a Colon is of no suit,
  B-6), ``aces``, ``hcp`` (A 4, K 3, Q 2, J 1; the bridge games), ``colons`` and each
  Colon, ``little``, ``royal``, ``grand`` (Bridgette),
  and in Bid Euchre ``trumps_SUIT`` (the suit, its left bower, and the joker) and
  ``bowers_SUIT`` (the jacks of the suit's colour) for SUIT one of clubs, diamonds, hearts,
  spades (``trumps_spades``).

The other cards are dealt uniformly; a deal outside a range is dealt again whole
(kernels.dealing), and the acceptance rate is measured by a pilot before the run starts
and counted exactly during it.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

import numpy as np

from sim.cli import quoted
from sim.resolve import in_argument_words

SUITS = ("clubs", "diamonds", "hearts", "spades")
UPCARD_CLASSES = ("numeral", "face", "ace", "colon")
PILOT_TRIES = 200_000  # candidate deals the pilot deals to measure the acceptance rate
# The largest number a --require term may name: every feature of a hand (its cards of a
# suit, aces, points, trumps) is far smaller, and the kernels keep the bounds in int64.
MAX_TERM = 1_000
OPS = {">=": (0, None), "<=": (None, 0), "=": (0, 0), "==": (0, 0), ">": (1, None), "<": (None, -1)}
TERM = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(>=|<=|==|=|>|<)\s*([+-]?[0-9]+(?:_[0-9]+)*)\s*$")


class DealingError(ValueError):
    """Deal-run settings or conditions that cannot be used: one line for the user."""


@dataclass(frozen=True)
class Dealing:
    """How a run deals. ``unit`` "games" (whole games, the default) or "deals"; the rest
    apply to deal runs: ``dealer`` "alternate" or a seat, ``upcard`` card and class names,
    ``predeal`` {seat: [cards]}, ``require`` {seat: ["hcp>=12", ...]}."""

    unit: str = "games"
    dealer: str = "alternate"
    upcard: tuple = ()
    predeal: dict = field(default_factory=dict)
    require: dict = field(default_factory=dict)

    @property
    def deal_run(self) -> bool:
        return self.unit == "deals"

    @property
    def conditioned(self) -> bool:
        return bool(self.upcard or self.predeal or self.require)

    def to_dict(self) -> dict:
        out = asdict(self)
        out["upcard"] = list(self.upcard)
        out["predeal"] = {str(s): list(c) for s, c in sorted(self.predeal.items())}
        out["require"] = {str(s): list(t) for s, t in sorted(self.require.items())}
        return out

    def flags(self) -> list[str]:
        """The command line's flags that give this dealing, beside --deals N."""
        return [*(["--dealer", self.dealer] if self.dealer != "alternate" else []),
                *(["--upcard", ",".join(self.upcard)] if self.upcard else []),
                *(w for s, cards in sorted(self.predeal.items()) for w in ("--predeal", f"{s}={','.join(cards)}")),
                *(w for s, terms in sorted(self.require.items()) for w in ("--require", f"{s}:{','.join(terms)}"))]

    def describe(self) -> str:
        """One line for the terminal."""
        if not self.deal_run:
            return "whole games"
        parts = [f"single deals, dealer {'alternating' if self.dealer == 'alternate' else 'seat ' + self.dealer}"]
        if self.upcard:
            parts.append("up-card " + ",".join(self.upcard))
        parts += [f"seat {s} holds {','.join(c)}" for s, c in sorted(self.predeal.items())]
        parts += [f"seat {s}: {','.join(t)}" for s, t in sorted(self.require.items())]
        return "; ".join(parts)


def from_dict(data: dict | None) -> Dealing:
    """The Dealing a run folder's manifest recorded (None: whole games), its terms in
    ``parse``'s form (a folder played before that form: ``hcp==12`` is ``hcp=12``)."""
    if not data:
        return Dealing()
    return Dealing(data["unit"], data["dealer"], tuple(data["upcard"]),
                   {int(s): tuple(c) for s, c in data["predeal"].items()},
                   {int(s): tuple(sorted(_term_words(w) for w in t)) for s, t in data["require"].items()})


@in_argument_words  # its words name the arguments; the commands call parse.__wrapped__, whose words name flags
def parse(unit: str = "games", dealer=None, upcard=None, predeal=(), require=()) -> Dealing:
    """A Dealing from the command line's words: ``upcard`` "ace" or "AS,AH", ``predeal``
    ["0=CG,AS"], ``require`` ["0:hcp>=12,spades>=5"]. Settings of deal runs without
    ``unit="deals"`` are a DealingError."""
    if unit not in ("games", "deals"):
        raise DealingError(f"unit must be games or deals, got '{unit}'")
    given = [name for name, value in (("--dealer", dealer), ("--upcard", upcard), ("--predeal", predeal),
                                      ("--require", require)) if value]
    if unit == "games" and given:
        raise DealingError(f"{given[0]} applies to deal runs: play --deals N instead of --games N")
    for flag, value in (("--dealer", dealer), ("--upcard", upcard)):
        if isinstance(value, str) and not value.strip():  # as the command line refuses it: not "no condition"
            raise DealingError(f"{flag} '{value}' names nothing")
    dealer = "alternate" if dealer is None else str(dealer)
    if dealer != "alternate" and not (dealer.isascii() and dealer.isdigit() and len(dealer) < 3):
        raise DealingError(f"--dealer must be alternate or a seat number, got '{dealer}'")
    if dealer != "alternate":
        dealer = str(int(dealer))  # 00 is seat 0
    cards = tuple(_items(",".join(_words(upcard or (), "--upcard")), "--upcard"))
    holds: dict = {}
    for text in _words(predeal, "--predeal"):
        seat, eq, names = str(text).partition("=")
        if not eq or not names.strip():
            raise DealingError(f"--predeal '{text}' is not SEAT=CARD,...  (e.g. 0=CG,AS)")
        seat = _seat(seat, "--predeal", text)
        holds[seat] = holds.get(seat, ()) + tuple(_items(names, "--predeal"))
    ranges: dict = {}
    for text in _words(require, "--require"):
        seat, colon, terms = str(text).partition(":")
        if not colon or not terms.strip():
            raise DealingError(f"--require '{text}' is not SEAT:TERM,...  (e.g. 0:hcp>=12,spades>=5)")
        seat = _seat(seat, "--require", text)
        ranges[seat] = ranges.get(seat, ()) + tuple(_term_words(t) for t in _items(terms, "--require"))
    # One canonical form of the words, so that a run resumed with the same conditions written
    # another way (up-cards in another order or listed twice, a hand's cards or a seat's terms
    # in another order: one set, one hand, one conjunction; seat 00 as 0) is the same run.
    return Dealing(unit, dealer, tuple(sorted(set(cards))), {s: tuple(sorted(c)) for s, c in holds.items()},
                   {s: tuple(sorted(t)) for s, t in ranges.items()})


def _term_words(term: str) -> str:
    """A --require term in one form: no spaces, ``==`` as ``=``, the number as its digits
    (``hcp == 012`` is ``hcp=12``); a term that is none (``hcp>=1 2``, spaces within a name,
    an operator or a number) is left as written for its check to name."""
    match = TERM.match(term)
    if match is None or len(match[3]) > 12:
        return term.strip()
    name, op, digits = match.groups()
    return f"{name}{'=' if op == '==' else op}{int(digits.replace('_', ''))}"


def read_conditions(path) -> dict:
    """The deal-run settings of a TOML file, in the words ``parse`` takes:

        dealer = 0
        upcard = "ace"            # or ["AS", "AH"]
        [predeal]
        0 = ["CG", "AS"]
        [require]
        0 = ["hcp>=12", "spades>=5"]
    """
    from sim.cli import read_toml

    data = read_toml(path, "conditions", DealingError)
    unknown = set(data) - {"dealer", "upcard", "predeal", "require"}
    if unknown:
        raise DealingError(f"conditions file {path}: unknown key '{sorted(unknown)[0]}' "
                           "(keys: dealer, upcard, predeal, require)")

    def words(value, key):
        if isinstance(value, list) and not value or isinstance(value, str) and not value.strip():
            raise DealingError(f"conditions file {path}: {key} names nothing")
        if isinstance(value, str):
            return value
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return ",".join(value)
        raise DealingError(f"conditions file {path}: {key} must be a string or a list of strings")

    for table in ("predeal", "require"):
        if not isinstance(data.get(table, {}), dict):
            raise DealingError(f"conditions file {path}: [{table}] must be a table of seats")
    dealer = data.get("dealer", "alternate")
    if isinstance(dealer, bool) or not isinstance(dealer, (int, str)):  # shown as TOML writes it
        shown = {bool: str(dealer).lower(), dict: "a table", list: "a list"}.get(type(dealer), str(dealer))
        raise DealingError(f"conditions file {path}: dealer must be alternate or a seat number, got {shown}")
    return {"dealer": None if "dealer" not in data else str(data["dealer"]),
            "upcard": None if "upcard" not in data else words(data["upcard"], "upcard"),
            "predeal": [f"{s}={words(v, f'predeal.{s}')}" for s, v in data.get("predeal", {}).items()],
            "require": [f"{s}:{words(v, f'require.{s}')}" for s, v in data.get("require", {}).items()]}


def _words(value, flag: str) -> list[str]:
    """A setting given as one text or a list of texts (from the API as from repeated flags)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return list(value)
    raise DealingError(f"{flag} takes a text or a list of texts, got {value!r}")


def _items(text: str, flag: str) -> list[str]:
    items = [t.strip() for t in str(text).split(",") if t.strip()]
    if text and not items:
        raise DealingError(f"{flag} '{text}' names nothing")
    return items


def _seat(text: str, flag: str, whole: str) -> int:
    digits = text.strip()
    if not (digits.isascii() and digits.isdigit()):  # 0-9 only: not '²', nor other scripts' digits
        raise DealingError(f"{flag} '{whole}' does not start with a seat number")
    if len(digits) > 2:  # no game has a hundred seats (nor Python reads past 4,300 digits)
        raise DealingError(f"{flag}: no game has a seat {quoted(digits)}")
    return int(digits)


# --- Compiling a Dealing for a game ---------------------------------------------------------

@dataclass(frozen=True)
class Layout:
    """A game's deck as the kernel deals it: card ids, names, seats, cards per hand, and the
    places of kernels.dealing.candidate_nb for dealer 0."""

    deck: np.ndarray
    names: dict  # name -> card ids of the deck (two with the double deck)
    seats: int
    hand: int
    dealt: int
    extra_seat: int
    up_pos: int
    features: dict  # feature name -> (kind, mask)


def layout(game: str, rules) -> Layout:
    """The deck and features of ``game`` under ``rules`` (its module's ``deal_layout``)."""
    from sim.games import game_module

    return game_module(game).deal_layout(rules)


def bridge_layout(deck, up_pos: int) -> Layout:
    """Two hands of 13 dealt alternately from ``deck`` (C-1 card ids), the stock after them:
    the suits (a Colon is of none, B-6), aces, high-card points, and Bridgette's Colons."""
    from kernels.cards import COLONS, RANK_ACE, SUIT_MASKS, card_name
    from kernels.dealing import REQ_COUNT, REQ_HCP

    deck = np.asarray(deck, dtype=np.int64)
    names = {card_name(int(c)): [int(c)] for c in deck}
    features = {suit: (REQ_COUNT, int(SUIT_MASKS[s])) for s, suit in enumerate(SUITS)}
    features["aces"] = (REQ_COUNT, sum(1 << (s * 13 + RANK_ACE) for s in range(4)))
    features["hcp"] = (REQ_HCP, 0)
    if up_pos >= 0:  # Bridgette
        features["colons"] = (REQ_COUNT, int(COLONS))
        for colon, card in zip(("little", "royal", "grand"), ("CL", "CR", "CG")):
            if card in names:
                features[colon] = (REQ_COUNT, 1 << names[card][0])
    return Layout(deck, names, 2, 13, 26, -1, up_pos, features)


def _card_hint(text: str, lay: Layout) -> str:
    """'; did you mean 'TS'?' for a card named another common way (10S, ts; the joker as JK
    or JOKER), or ''."""
    guess = text.strip().upper().replace("10", "T")
    guess = "JO" if guess in ("JK", "JKR", "JOKER") else guess
    return f"; did you mean '{guess}'? (a card is its rank, T for ten, then its suit)" if guess in lay.names else ""


def upcard_mask(lay: Layout, items) -> int:
    """The allowed up-cards: named cards and classes (B-3)."""
    from kernels.cards import CARD_CLASS, COLON_GRAND, COLON_LITTLE

    mask = 0
    for item in items:
        if item in UPCARD_CLASSES:
            chosen = [int(c) for c in lay.deck
                      if (COLON_LITTLE <= c <= COLON_GRAND if item == "colon"
                          else CARD_CLASS[int(c)] == UPCARD_CLASSES.index(item))]
            if not chosen:
                raise DealingError(f"--upcard {item}: no card of the deck is of that class")
            mask |= sum(1 << c for c in chosen)
        elif item in lay.names:
            mask |= 1 << lay.names[item][0]
        else:
            raise DealingError(f"--upcard: '{item}' is not a card of this deck nor one of {', '.join(UPCARD_CLASSES)}"
                               f"{_card_hint(item, lay)}")
    return mask


def plan(game: str, rules, dealing: Dealing) -> np.ndarray:
    """The kernels' plan record (kernels.dealing.PLAN_DTYPE) for ``dealing`` in ``game``
    under ``rules``; a DealingError names the first thing that cannot be dealt."""
    from kernels.dealing import DEALER_ALTERNATE, MAX_REQUIREMENTS, games_plan

    out = games_plan()
    if not dealing.deal_run:
        return out
    lay = layout(game, rules)
    row = out[0]
    row["one_deal"] = True
    if dealing.dealer == "alternate":
        row["dealer"] = DEALER_ALTERNATE
    else:
        if int(dealing.dealer) >= lay.seats:
            raise DealingError(f"--dealer {dealing.dealer}: {game} has seats 0 to {lay.seats - 1}")
        row["dealer"] = int(dealing.dealer)
    if dealing.upcard:
        if lay.up_pos < 0:
            raise DealingError("--upcard: only Bridgette turns an up-card (B-3)")
        row["upcards"] = np.uint64(upcard_mask(lay, dealing.upcard))
    taken: dict = {}
    for seat, cards in sorted(dealing.predeal.items()):
        _check_seat(seat, lay, "--predeal", game)
        if len(cards) > lay.hand:
            extra = " (the joker dealer's extra card, E-10, is dealt at random)" if lay.extra_seat >= 0 else ""
            raise DealingError(f"--predeal: seat {seat} is dealt {lay.hand} cards, not {len(cards)}{extra}")
        mask = 0
        for name in cards:
            if name not in lay.names:
                raise DealingError(f"--predeal: '{name}' is not a card of this deck{_card_hint(name, lay)}")
            copies = [c for c in lay.names[name] if c not in taken]
            if not copies:
                raise DealingError(f"--predeal: {name} is predealt more times than the deck holds it")
            taken[copies[0]] = seat
            mask |= 1 << copies[0]
        row["predeal"][seat] = np.uint64(mask)
    if dealing.upcard:  # the kernel draws the up-card among these
        row["upcards"] = np.uint64(int(row["upcards"]) & ~sum(1 << c for c in taken))
        if not row["upcards"]:
            raise DealingError("--upcard: every allowed up-card is predealt to a seat")
    n = 0
    for seat, terms in sorted(dealing.require.items()):
        _check_seat(seat, lay, "--require", game)
        for term in terms:
            kind, mask, lo, hi = _term(term, lay, game)
            if n == MAX_REQUIREMENTS:
                raise DealingError(f"--require: at most {MAX_REQUIREMENTS} terms")
            row["req_seat"][n], row["req_kind"][n], row["req_mask"][n] = seat, kind, np.uint64(mask)
            row["req_lo"][n], row["req_hi"][n] = lo, hi
            n += 1
    row["n_req"] = n
    row["conditioned"] = dealing.conditioned
    return out


def _check_seat(seat: int, lay: Layout, flag: str, game: str) -> None:
    if seat >= lay.seats:
        raise DealingError(f"{flag}: {game} has seats 0 to {lay.seats - 1}, not {seat}")


def _term(term: str, lay: Layout, game: str) -> tuple[int, int, int, int]:
    """(kind, mask, lowest, highest) of one range term."""
    match = TERM.match(term)
    if not match:
        raise DealingError(f"--require: {quoted(term)} is not FEATURE OP NUMBER (e.g. hcp>=12)")
    name, op, digits = match.groups()
    if name not in lay.features:
        raise DealingError(f"--require: '{name}' is not a feature of {game} under these rules; its features: "
                           f"{', '.join(lay.features)}")
    # Signs and underscores between digits as every number the package reads; Python reads
    # no integer of more than 4,300 digits.
    number = int(digits) if len(digits) <= 12 else MAX_TERM + 1
    if abs(number) > MAX_TERM:
        raise DealingError(f"--require: {quoted(term)}: the number must be from {-MAX_TERM:,} to {MAX_TERM:,}")
    kind, mask = lay.features[name]
    low, high = OPS[op]
    return (kind, mask, -(2**62) if low is None else number + low, 2**62 if high is None else number + high)


def acceptance_by_dealer(game: str, rules, plan_row: np.ndarray, tries: int = PILOT_TRIES) -> dict:
    """{dealer: the share of candidate deals that meet the plan's ranges} for each seat that
    deals in the plan's run (every seat when the dealer alternates), from a pilot of
    ``tries`` each: who deals decides which seat is dealt first and which is dealt an extra
    card (E-10's joker), so a condition may be met under one dealer and never under
    another."""
    from kernels.dealing import DEALER_ALTERNATE, acceptance_nb

    lay = layout(game, rules)
    dealer = int(plan_row[0]["dealer"])
    dealers = range(lay.seats) if dealer == DEALER_ALTERNATE else [max(dealer, 0)]
    if not plan_row[0]["n_req"]:
        return {d: 1.0 for d in dealers}
    rates = {}
    for d in dealers:  # the layout's seats are those of seat 0 dealing: the first card goes to seat 1
        extra = (lay.extra_seat + d) % lay.seats if lay.extra_seat >= 0 else -1
        met = acceptance_nb(plan_row[0], lay.deck, 0x5EED, tries, (d + 1) % lay.seats, lay.seats, lay.dealt, extra,
                            lay.up_pos)
        rates[d] = met / tries
    return rates


def acceptance(game: str, rules, plan_row: np.ndarray, tries: int = PILOT_TRIES) -> float:
    """The share of candidate deals that meet the plan's ranges, from a pilot of ``tries``
    for each dealer of the run (their mean: the dealers take turns)."""
    rates = acceptance_by_dealer(game, rules, plan_row, tries)
    return sum(rates.values()) / len(rates)


def checked_plan(game: str, rules, dealing: Dealing) -> tuple[np.ndarray, float]:
    """The plan and its pilot acceptance rate; conditions too rare to finish under any dealer
    of the run are a DealingError naming that dealer."""
    row = plan(game, rules, dealing)
    rates = acceptance_by_dealer(game, rules, row)
    never = [d for d, rate in rates.items() if rate == 0]
    if never:
        who = f" with seat {never[0]} dealing" if len(rates) > 1 or never[0] != 0 else ""
        some = len(rates) > 1 and len(never) < len(rates)
        hint = " (a deal run's dealer alternates: --dealer names one)" if some else ""
        raise DealingError(f"the conditions accepted none of {PILOT_TRIES:,} deals tried{who}: loosen them{hint}")
    return row, sum(rates.values()) / len(rates)


MOST_SAMPLED = 2**26  # deals ``sample`` holds at once: 2 GB of hands with four seats


def sample(game: str, rules, dealing: Dealing, n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``n`` deals dealt by seat 0 under ``dealing``'s conditions, as the kernels deal them:
    (hands as card bitmasks, shape (n, seats); up-cards, -1 where the game has none)."""
    from kernels.dealing import sample_nb
    from sim.resolve import check_resolved

    seed, n, _ = check_resolved(game, rules, None, seed, "n", n, largest=MOST_SAMPLED)
    if not isinstance(dealing, Dealing):
        raise TypeError(f'dealing must be a sim.dealing.Dealing (sim.dealing.parse("deals", ...)), got {dealing!r:.60}')
    row = plan(game, rules, Dealing("deals", "0", dealing.upcard, dealing.predeal, dealing.require))
    row[0]["conditioned"] = True  # dealt by the conditioned path even with no condition
    lay = layout(game, rules)
    hands = np.zeros((n, lay.seats), dtype=np.uint64)
    ups = np.zeros(n, dtype=np.int64)
    sample_nb(row[0], lay.deck, seed, 1, lay.seats, lay.dealt, lay.extra_seat, lay.up_pos, hands, ups)
    return hands, ups
