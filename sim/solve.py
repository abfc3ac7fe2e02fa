"""python -m sim.solve FILE.jsonl [--json] [--at play[K]]

Double-dummy analysis of recorded deals (docs/rules.md replay format, one JSON object per
line): per deal the tricks each declarer takes in each strain (Bid Euchre: the bidder's
team in each trump, with partner and alone), the par of the bridge games (sim.par) and,
with --at, every legal card's value at one point of the recorded play.

The hands analysed are those at the start of play, found by replaying the deal in its
referee (sim/reference/): Bridgette's after the B-3 exchange, Draw Bridge's after the 13
draw-phase tricks, Bid Euchre's after the joker discard and any 6A exchange. ``--at
play[K]`` is the position just before the card ``play[K]`` of the deal's ``play`` list, as
the replay format numbers it (so Draw Bridge's contract play is play[26] .. play[51]): the
cards left, the trick in progress and B-8's barred suit; each legal card of the seat to
play is worth the tricks its side takes from there on, the trick in progress included.

Exit status 0, or 2 with one line for bad input: a missing or unreadable file, bad JSON,
an unknown game, a deal its referee finds illegal, or a K that is not a position of the
deal's play. Every deal is checked before anything is solved or printed.
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass

from sim.cli import OneLineParser, deal_index, exit_with, interruptible, path_text
from sim.files import open_input
from sim.games import GAME_NAMES, GAMES
from sim.replay import MalformedCase, SpoolError, one_line, parse_cases
from sim.rules import rules_for

STRAINS = ("C", "D", "H", "S", "NT")
SUITS = "CDHS"


class BadInput(ValueError):
    """A user error: printed as the command's one line, exit status 2."""


@dataclass
class Position:
    """A point of the card play: the seat to play, the hands (card names), the trick in
    progress (Bid Euchre: (seat, card) pairs), B-8's barred suit, the tricks won so far
    (per seat, or per team in Bid Euchre), the trump suit letter (None: no-trump) and, in
    Bid Euchre, the seat sitting out (None if none)."""

    seat: int
    hands: list
    trick: list
    barred: str | None
    tricks_won: list
    trump: str | None
    out_seat: int | None = None


@dataclass
class Deal:
    """One replayed deal: the referee's outcome, the hands at the start of play and the
    position asked for by --at (None without --at)."""

    line: int
    case: dict
    rules: object
    outcome: dict
    hands: list
    position: Position | None


# --- Replaying a deal in its referee ------------------------------------------------------

def _at_k(value: str) -> int:
    """--at play[K] (or K alone): K read as every count is (1_0, 1e1), a card index."""
    text = value.strip()
    if text.startswith("play[") != text.endswith("]"):
        raise ValueError
    return deal_index(text.removeprefix("play[").removesuffix("]"))


def _contract_actions(case, info):
    """A contract game's items in time order as one list (discards, non-dealer first, then
    the ``info.dd_play_from`` cards before the auction, the calls, the contract's cards), with
    the index where the auction starts and where the contract play starts. A game without an
    exchange (Draw Bridge) has no discards: its referee leaves the field aside, and so does
    this."""
    dealer, play_from = case["dealer"], info.dd_play_from
    discards = (list(case.get("discards") or []) if info.exchange else []) + [[], []]
    play = list(case.get("play") or [])
    before = list(discards[1 - dealer] or []) + list(discards[dealer] or []) + play[:play_from]
    calls = list(case.get("calls") or [])
    return before + calls + play[play_from:], len(before), len(before) + len(calls)


def _replay_contract_game(case, rules, referee, k):
    """Bridgette or Draw Bridge: (the hands at the start of the auction, which are those at
    the start of play; the position before play[k], or None)."""
    info = GAMES[case["game"]]
    deal = getattr(referee, info.referee_deal)(rules, case["dealer"], case["hands"], case["stock"])
    actions, auction_at, play_at = _contract_actions(case, info)
    hands = None
    for i, action in enumerate(actions):
        if i == auction_at:
            hands = deal.hands
        if k is not None and i == play_at + (k - info.dd_play_from):
            break
        deal.apply(action)
    if k is None:
        return hands, None
    return hands, Position(deal.to_move, deal.hands, deal.current_trick, getattr(deal, "barred_suit", None),
                           deal.tricks_won, deal.trump)


def _replay_euchre(case, rules, referee, k):
    """Bid Euchre: (the hands at the start of play, the position before play[k] or None)."""
    deal = getattr(referee, GAMES[case["game"]].referee_deal)(rules, case["dealer"], case["hands"], allow_renege=True)
    discards = list(case.get("discards") or [])
    for seat in range(4):
        for card in (discards[seat] if seat < len(discards) and discards[seat] else []):
            deal.apply(card)
    for call in case.get("calls") or []:
        deal.apply(call)
    if not deal.void:
        deal.apply(case["trump"])
        if deal.phase == "exchange":
            assert referee._replay_exchange(deal, case.get("trump_exchange")) is None
    hands = deal.hands
    position = None
    if k is not None:
        for card in (case.get("play") or [])[:k]:
            deal.apply(card)
        position = Position(deal.to_move, deal.hands, deal.current_trick, None, deal.tricks_won, deal.trump,
                            deal.sitting_out)
    return hands, position


def play_range(case: dict, outcome: dict) -> range:
    """The K of --at play[K] that are positions of the deal's recorded card play."""
    if outcome.get("contract") == "pass" or outcome.get("bid") == "pass":
        return range(0)
    play = case.get("play") or []
    return range(GAMES[case["game"]].dd_play_from, len(play))


def load(path: str, k: int | None):
    """Read, check and replay every deal of the file, then give its Deals one at a time
    (replayed again, so that memory stays bounded however many the file holds); BadInput
    names the first problem, before any deal is given."""
    try:
        with open_input(path, encoding="utf-8-sig") as fh:  # a byte-order mark is read past
            cases = parse_cases(fh)
    except OSError as exc:
        raise BadInput(f"cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise BadInput(f"{path} is not UTF-8 text") from None
    except MalformedCase as exc:
        raise BadInput(f"{path}: {exc}") from None
    except SpoolError as exc:
        raise BadInput(str(exc)) from None
    if not cases:
        raise BadInput(f"{path} holds no deals")
    for number, case in cases:
        deal_from_case(case, k, f"{path}: line {number}", number)
    return (deal_from_case(case, k, f"{path}: line {number}", number) for number, case in cases)


def deal_from_case(case: dict, k: int | None, where: str, number: int = 0) -> Deal:
    """Check and replay one replay-format deal (``where`` names it in errors)."""
    game = case["game"]
    if game not in GAMES:
        raise BadInput(f"{where}: unknown game '{game}' (games: {', '.join(GAME_NAMES)})")
    referee = importlib.import_module(GAMES[game].referee)
    rules = rules_for(game, case.get("rules"))
    outcome = referee.replay(case)
    if "error" in outcome:
        raise BadInput(f"{where}: not a legal deal: {outcome['error']} at {outcome['at']}: "
                       f"{outcome.get('message', '')}".rstrip(": "))
    if k is not None:
        positions = play_range(case, outcome)
        if k not in positions:
            what = (f"the deal has no card play ({'a void deal' if _euchre(game) else 'passed out'})"
                    if not positions else f"its play runs play[{positions[0]}] .. play[{positions[-1]}]")
            raise BadInput(f"{where}: --at play[{k}] is not a position of the contract play: {what}")
    replay = _replay_euchre if GAMES[game].dd_solver == "euchre" else _replay_contract_game
    hands, position = replay(case, rules, referee, k)
    return Deal(number, case, rules, outcome, hands, position)


# --- Solving --------------------------------------------------------------------------------

def euchre_ids(hands, trick=()):
    """Card names -> kernels ids for Bid Euchre: a double deck's second copy of a name is
    id + 24 (whichever hand or trick holds it), the joker 48. Returns (hands as ids, trick
    as (seat, id) pairs)."""
    from kernels.cards import EUCHRE_CARD_IDS

    seen: dict = {}

    def ident(name):
        copy = seen.get(name, 0)
        seen[name] = copy + 1
        return EUCHRE_CARD_IDS[name] + 24 * copy

    trick_ids = [(seat, ident(card)) for seat, card in trick]
    return [[ident(c) for c in hand] for hand in hands], trick_ids


def euchre_name(card: int) -> str:
    from kernels.cards import EUCHRE_JOKER, euchre_card_name

    return euchre_card_name(card if card == EUCHRE_JOKER else card % 24)


def _euchre(game: str) -> bool:
    """Whether the game's card play is Bid Euchre's (four hands, E-2), else a contract game's."""
    return GAMES[game].dd_solver == "euchre"


def _when_void(deal: Deal) -> bool:
    return getattr(getattr(deal.rules, "play", None), "colon_discard", None) == "when_void"


def _euchre_flags(deal: Deal) -> dict:
    return dict(double_deck=deal.rules.variant.double_deck, joker=deal.rules.variant.joker)


def contract_deal(solver, deal: Deal) -> dict:
    """A bridge deal's table, par and the played contract with its double-dummy tricks."""
    from kernels.calls import BID_STRAIN, CALL_IDS
    from kernels.cards import CARD_IDS
    from sim.dd import contract_table
    from sim.par import par

    hands = [[CARD_IDS[c] for c in h] for h in deal.hands]
    table = contract_table(solver, hands, _when_void(deal))
    played = dict(deal.outcome)
    if played["contract"] != "pass":
        played["dd_tricks"] = int(table[BID_STRAIN[CALL_IDS[played["contract"]]], played["declarer"]])
    return {"table": {s: [int(t) for t in table[i]] for i, s in enumerate(STRAINS)},
            "par": par(table, hands, deal.case["dealer"], deal.rules).to_dict(), "played": played}


def euchre_deal(solver, deal: Deal) -> dict:
    """Bid Euchre: the bidder's team's tricks per trump and bidder, with partner and alone
    (the partner's cards out of play), the bidder leading; the played bid with its
    double-dummy tricks."""
    from sim.reference.bid_euchre import has_ace_no_face

    flags = _euchre_flags(deal)
    result: dict = {}
    voided = deal.rules.variant.ace_no_face and any(has_ace_no_face(h) for h in deal.case["hands"])
    if not voided:
        hands, _ = euchre_ids(deal.hands)

        def tricks(trump, bidder, alone):
            if not alone:
                return solver.euchre_tricks(hands, trump, bidder, **flags)
            out = (bidder + 2) % 4  # E-6: the partner sits out
            return solver.euchre_tricks([[] if s == out else h for s, h in enumerate(hands)], trump, bidder,
                                        out_seat=out, **flags)

        result["table"] = {kind: {SUITS[t]: [tricks(t, b, kind == "alone") for b in range(4)] for t in range(4)}
                           for kind in ("partner", "alone")}
    else:
        result["table"] = None
        result["no_table"] = "the deal was voided as dealt (E-10 ace-no-face): no card is played"
    played = dict(deal.outcome)
    if played["bid"] != "pass" and result["table"] is not None:
        kind = "alone" if played["bid"][-1] in "AM" else "partner"
        played["dd_tricks"] = result["table"][kind][played["trump"]][played["bidder"]]
    result["played"] = played
    return result


def values_at(solver, deal: Deal, k: int) -> dict:
    """The --at object: the seat to play before play[k], the trick in progress, B-8's barred
    suit, the tricks won so far (per seat; per team in Bid Euchre) and every legal card's
    value, the tricks its side takes from there on (the trick in progress included)."""
    p = deal.position
    if _euchre(deal.case["game"]):
        hands, trick = euchre_ids([[] if s == p.out_seat else h for s, h in enumerate(p.hands)], p.trick)
        values = solver.euchre_card_values(hands, SUITS.index(p.trump), p.seat, trick=trick,
                                           out_seat=-1 if p.out_seat is None else p.out_seat, **_euchre_flags(deal))
        names = {c: euchre_name(c) for c in values}
        trick_out = [[s, c] for s, c in p.trick]
    else:
        from kernels.cards import CARD_IDS, card_name

        trump = -1 if p.trump is None else SUITS.index(p.trump)
        lead = CARD_IDS[p.trick[0]] if p.trick else -1
        barred = -1 if p.barred is None else SUITS.index(p.barred)
        values = solver.contract_card_values([[CARD_IDS[c] for c in h] for h in p.hands], trump, p.seat,
                                             lead, barred, _when_void(deal))
        names = {c: card_name(c) for c in values}
        trick_out = list(p.trick)
    return {"play": k, "seat": p.seat, "trick": trick_out, "barred": p.barred, "tricks_won": list(p.tricks_won),
            "values": {names[c]: v for c, v in sorted(values.items())}}


def solve(deal: Deal, solver, k: int | None) -> dict:
    """One deal's analysis as the JSON object --json prints."""
    result = {"line": deal.line, "game": deal.case["game"], "dealer": deal.case["dealer"],
              **(euchre_deal if _euchre(deal.case["game"]) else contract_deal)(solver, deal)}
    if k is not None:
        result["at"] = values_at(solver, deal, k)
    return result


def card_losses(solver, case: dict) -> list[dict]:
    """Each card of a deal's recorded card play against double dummy: its seat, the card,
    the tricks its side takes from that point on after it (perfect play afterwards) and
    the most any legal card would have taken (``lost``: the difference)."""
    first = deal_from_case(case, None, "deal")
    out = []
    for k in play_range(case, first.outcome):
        at = values_at(solver, deal_from_case(case, k, "deal"), k)
        card = case["play"][k]
        best = max(at["values"].values())
        out.append({"play": k, "seat": at["seat"], "card": card, "value": at["values"][card], "best": best,
                    "lost": best - at["values"][card]})
    return out


def describe_losses(losses: list[dict]) -> list[str]:
    """The cards that cost their side tricks against double dummy, in words."""
    costly = [x for x in losses if x["lost"]]
    lines = [f"  double dummy (every hand seen, perfect play from each card on): "
             f"{len(costly)} of {len(losses)} cards cost tricks"]
    for x in costly:
        lines.append(f"    play[{x['play']}] seat {x['seat']} {x['card']}: {x['value']} tricks from here, "
                     f"{x['best']} with the best card (lost {x['lost']})")
    return lines


# --- Words ------------------------------------------------------------------------------------

def _score(pair) -> str:
    """Per seat (team): "1000 to 0", "-5 to 5"."""
    return f"{pair[0]} to {pair[1]}"


def describe(result: dict) -> list[str]:
    """One deal's analysis in words."""
    game, played = result["game"], result["played"]
    lines = []
    if _euchre(game):
        dd = f" (double dummy {played['dd_tricks']} for the bidder's team)" if "dd_tricks" in played else ""
        what = ("a void deal" if played["bid"] == "pass" else
                f"played {played['bid']} by seat {played['bidder']} in {played['trump']}, team tricks "
                f"{_score(played['tricks'])}{dd}, score {_score(played['score'])}")
        lines.append(f"line {result['line']}: bid-euchre, dealer seat {result['dealer']}: {what}")
        if result["table"] is None:
            lines.append(f"  no table: {result['no_table']}")
        else:
            lines.append("  bidder's team tricks, double dummy, the bidder leading (with partner / alone):")
            lines.append("    bidder  " + "".join(f"{s:>8s}" for s in SUITS))
            for b in range(4):
                lines.append(f"    seat {b}  " + "".join(
                    f"{str(result['table']['partner'][s][b]) + '/' + str(result['table']['alone'][s][b]):>8s}"
                    for s in SUITS))
    else:
        what = ("passed out" if played["contract"] == "pass" else
                f"played {played['contract']}{('', 'X', 'XX')[played['doubled']]} by seat {played['declarer']}, "
                f"tricks {_score(played['tricks'])} (double dummy {played['dd_tricks']} for the declarer), "
                f"score {_score(played['score'])}")
        lines.append(f"line {result['line']}: {game}, dealer seat {result['dealer']}: {what}")
        lines.append("  declarer's tricks, double dummy, the opponent leading:")
        lines.append("    declarer" + "".join(f"{s:>4s}" for s in STRAINS))
        for seat in (0, 1):
            lines.append(f"    seat {seat}  " + "".join(f"{result['table'][s][seat]:>4d}" for s in STRAINS))
        p = result["par"]
        if p["contract"] == "pass":
            lines.append(f"  par: passed out, 0 to 0 (auction {' '.join(p['auction'])})")
        else:
            lines.append(f"  par: {p['contract']}{('', 'X', 'XX')[p['doubled']]} by seat {p['declarer']}, "
                         f"{p['tricks']} tricks, score {_score(p['score'])} (auction {' '.join(p['auction'])})")
    at = result.get("at")
    if at is not None:
        if _euchre(game):
            trick = ", ".join(f"seat {s} {c}" for s, c in at["trick"])
            side = "its team's"
        else:
            trick = " ".join(at["trick"])
            side = "its"
        barred = f" ({at['barred']} barred, B-8)" if at.get("barred") else ""
        state = f"after {trick}" if trick else f"to lead{barred}"
        lines.append(f"  at play[{at['play']}]: seat {at['seat']} {state}; tricks so far {_score(at['tricks_won'])}; "
                     f"{side} tricks from here by card:")
        lines.append("    " + "  ".join(f"{c} {v}" for c, v in at["values"].items()))
    return lines


def main(argv=None) -> int:
    parser = OneLineParser(prog="python -m sim.solve", description=__doc__.split("\n\n")[1])
    parser.add_argument("file", type=path_text, help="deals, one JSON object per line (docs/rules.md replay format)")
    parser.add_argument("--json", action="store_true", help="print one JSON object per deal")
    parser.add_argument("--at", metavar="play[K]",
                        help="also value every legal card just before the card play[K] (K alone works too)")
    args = parser.parse_args(argv)
    k = None
    if args.at is not None:
        try:
            k = _at_k(args.at)
        except ValueError:
            return parser.fail(one_line(f"--at needs play[K] with K a card index of the deal's play list, "
                                        f"got '{args.at}'"))
    try:
        deals = load(args.file, k)
    except BadInput as exc:
        return parser.fail(one_line(exc))
    from sim.dd import Solver

    solver = Solver()
    for deal in deals:
        result = interruptible(lambda: solve(deal, solver, k))  # Ctrl-C heard while a deal is solved
        if args.json:
            print(json.dumps(result), flush=True)
        else:
            print("\n".join(describe(result)), flush=True)
    return 0


if __name__ == "__main__":
    exit_with(main, "python -m sim.solve")
