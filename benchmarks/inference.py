"""python -m benchmarks.inference [--deals N] [--worlds W] [--seed S]

How well the worlds a ``pimc`` seat samples for its calls (``pimc:bid_worlds=W``), and in
Bid Euchre for its first card, predict the hands it cannot see. Heuristic seats play N
deals to the end of the auction (the kernels' traces give each deal's hands, discards,
calls and trump); then each seat in turn draws
W worlds two ways from what it knows there: uniform among the deals consistent with what
the rules make public, and conditioned on the other seats' calls as pimc samples them
(``kernels.pimc``: a world is kept when the heuristic with the caller's parameters, holding
that world's cards, would have made those calls, and in Bid Euchre another seat's high bid
the trump it named (E-3: the auction ends with it), within 50 draws per world wanted: only
those, repeated when fewer; when none fits, the seat's uniform worlds, as it then knows no
more). Both ways are pimc's own sampler: the uniform worlds are its
worlds with no call known.

Reported per way: the mean absolute error of the worlds' opponent hands against the true
ones in high-card points (Bridgette: J Q K A = 1 2 3 4, Colons 0; Bid Euchre: the same
table on its 24 cards, whatever the trump), in suit lengths (mean over the four suits)
and, in Bridgette, in Colons held (Bid Euchre: in the tricks the heuristic expects alone
in the best suit, what its bids count); the ratio conditioned / uniform with a 95%
interval over deals (the delta method on the ratio of two means over the same deals); and
how many conditioned worlds do not fit the calls (the uniform worlds of seats whose calls
the model explains in no draw; one that happens to fit is a world of the conditioned law
and is not counted). In Bid Euchre
the opponents are the two seats of the other team. Bridgette is also measured
after the exchange, before any call, where only the counts are public: both ways are then
uniform and the ratio should be 1; Bid Euchre also after the bids, before the trump is
named (what the bidder knows as it names trump). The target: after the auction, the HCP
error of the conditioned worlds at most 0.8 of the uniform worlds', in Bridgette and Bid
Euchre. Draw
Bridge is left out: its auction follows the draw phase, after which each seat knows the
other's hand (D-2), so every world is the true deal.
"""

from __future__ import annotations

import math
import time

import numpy as np
from numba import njit

from benchmarks.throughput import machine_facts, machine_line
from kernels import bid_euchre as ke
from kernels import bridgette as kb
from kernels.calls import MAX_CALLS
from kernels.contract import KIND_CALL, KIND_DISCARD
from kernels.cards import COLONS, HCP, RANK_MASKS, SUIT_MASKS
from kernels.pimc import (
    BID_TRIES, euchre_calling_worlds_nb, euchre_calls_agree_nb, note_bridgette_exchange_nb, note_joker_discard_nb,
    sample_bidding_worlds_nb,
)
from kernels.policies import ODDS_WIDTH, calls_chance_nb, euchre_strength_nb, heuristic_euchre_trump_nb
from kernels.rng import game_stream_nb
from kernels.step import new_deal_nb, seats_for
from sim.api import resolve_policies
from sim.cli import OneLineParser, exit_with
from sim.games import game_info, game_module, kernel_rules
from sim.policies import kernel_policies, parse_policy
from sim.run import count, seed_value

TARGET = 0.8  # after the auction: conditioned HCP error / uniform HCP error at most this
UNIFORM, CONDITIONED = 0, 1
# fit[..., k]: how many uniform worlds fit the calls, how many conditioned worlds do, whether the true hand does
FIT_UNIFORM, FIT_CONDITIONED, FIT_TRUTH = 0, 1, 2
# The worlds' streams start from the seed mixed with this, apart from the games' streams of
# the same seed and indices (kernels.rng).
WORLDS_KEY = np.uint64(0x5851F42D4C957F2D)


def sampling_seats(game: str, worlds: int, players: int) -> np.ndarray:
    """The seats record of ``pimc:bid_worlds=W`` seats: the one place that knows how a
    seat's parameters reach pimc's samplers (each other seat is modelled as the heuristic
    with its own parameters, here the game's defaults, as the heuristic seats played)."""
    policy = parse_policy(f"pimc:bid_worlds={worlds}", game)
    return seats_for(*kernel_policies([policy] * players))


# --- Bridgette ---------------------------------------------------------------------------------

@njit(cache=True)
def contract_worlds_nb(seats_row, seed, first, hands, unseen, discards, upcard, dealer, calls, known, lowest_bid,
                       min_trump_cards, nt_needs_all_suits, jump_min_cards, gain, worlds, fit):
    """Deal ``i``'s worlds as each seat ``s`` samples them for a call, ``worlds[i, s, way,
    w]`` the opponent's hand: UNIFORM with no call known, CONDITIONED on the opponent's
    calls among the first ``known[i]`` of ``calls[i]`` (``sample_bidding_worlds_nb``).
    ``hands``: after the exchange; ``unseen[i, s]``: the cards seat ``s`` has not seen;
    ``discards[i, s]``: its discards (their counts are public, B-3). ``fit[i, s]``:
    how many uniform and conditioned worlds fit the known calls, and whether the true hand
    does (FIT_*). Each (deal, seat) samples from its own stream, keyed by ``seed`` and
    deal ``first + i``."""
    seats = seats_row[0]
    memo = np.zeros((2, 5, ODDS_WIDTH))  # the softmax's memo rows: the exact reading here leaves them unread
    for i in range(hands.shape[0]):
        for s in range(2):
            new_deal_nb(seats)
            note_bridgette_exchange_nb(seats, upcard[i], discards[i, 0], discards[i, 1])
            game_stream_nb(seed, 2 * (first + i) + s, seats.rng)
            model = seats.prm[1 - s].heuristic  # the opponent's parameters, as the samplers read it
            for way in range(2):
                got, _ = sample_bidding_worlds_nb(seats, s, hands[i], unseen[i, s], calls[i], known[i] * way,
                                                  dealer[i], lowest_bid, min_trump_cards, nt_needs_all_suits,
                                                  jump_min_cards, gain, seats.prm[s].pimc.bid_worlds, BID_TRIES)
                for w in range(worlds.shape[3]):
                    # Fewer worlds than wanted: they repeat (one only: the seat knows the deal); none
                    # the model explains: the seat knows nothing more than the uniform worlds say.
                    world = got[w % got.shape[0]] if got.shape[0] else worlds[i, s, UNIFORM, w]
                    worlds[i, s, way, w] = world
                    fit[i, s, way] += calls_chance_nb(model, False, world, 1 - s, calls[i], known[i], dealer[i],
                                                      lowest_bid, min_trump_cards, nt_needs_all_suits, jump_min_cards,
                                                      gain, seats.odds[1 - s], memo)
            fit[i, s, FIT_TRUTH] = calls_chance_nb(model, False, hands[i, 1 - s], 1 - s, calls[i], known[i], dealer[i],
                                                   lowest_bid, min_trump_cards, nt_needs_all_suits, jump_min_cards,
                                                   gain, seats.odds[1 - s], memo)


# --- Bid Euchre --------------------------------------------------------------------------------

@njit(cache=True)
def euchre_fits_nb(seats, world, s, dealer, tricks, copies, stick_the_dealer, named_by, trump):
    """Whether the four hands ``world`` explain, to seat ``s``, the four calls in
    ``seats.calls`` and, where ``named_by`` is another seat (-1: none), its naming ``trump``."""
    return euchre_calls_agree_nb(seats.prm, world, 1 << s, seats.calls, 4, dealer, tricks, copies,
                                 stick_the_dealer) and (
        named_by < 0 or named_by == s or heuristic_euchre_trump_nb(seats.prm[named_by].heuristic, world[named_by],
                                                                   copies) == trump)


@njit(cache=True)
def euchre_worlds_nb(seats_row, seed, first, hands, dealer, calls, joker_discard, bidder, trump, tricks, double_deck,
                     joker, stick_the_dealer, worlds, fit):
    """Deal ``i``'s worlds as each seat ``s`` samples them, ``worlds[i, s, way, w]`` the four
    hands: UNIFORM with no call known, CONDITIONED on the other seats' four ``calls[i]`` and,
    where ``bidder[i]`` is another seat, its naming ``trump[i]`` (E-3; -1: left out, as for
    the bidder's own trump), drawn by the sampler of a ``search`` seat's calls
    (``euchre_calling_worlds_nb``), which reads the trump as a ``pimc`` seat's card play
    does (``euchre_explained_worlds_nb``; that one reads neither after a 6A, whose
    exchange it reads instead). ``hands``: at the auction (the E-10 joker discard,
    ``joker_discard[i]`` or -1, taken out). ``fit`` as ``contract_worlds_nb``'s; the
    streams are keyed by ``seed`` and deal ``first + i``."""
    seats = seats_row[0]
    copies = 1 + double_deck
    for i in range(hands.shape[0]):
        for s in range(4):
            new_deal_nb(seats)
            if joker_discard[i] >= 0:
                note_joker_discard_nb(seats, dealer[i], joker_discard[i])
            seats.calls[:4] = calls[i]
            game_stream_nb(seed, 4 * (first + i) + s, seats.rng)
            for way in range(2):
                named_by = bidder[i] if way == CONDITIONED else -1
                got = euchre_calling_worlds_nb(seats, s, hands[i], 4 * way, dealer[i], tricks, double_deck, joker,
                                               stick_the_dealer, seats.prm[s].pimc.bid_worlds, BID_TRIES, named_by,
                                               trump[i])
                for w in range(worlds.shape[3]):
                    # As in contract_worlds_nb: repeated, or the uniform worlds when none is explained.
                    world = got[w % got.shape[0]] if got.shape[0] else worlds[i, s, UNIFORM, w]
                    worlds[i, s, way, w] = world
                    fit[i, s, way] += euchre_fits_nb(seats, world, s, dealer[i], tricks, copies, stick_the_dealer,
                                                     bidder[i], trump[i])
            fit[i, s, FIT_TRUTH] = euchre_fits_nb(seats, hands[i], s, dealer[i], tricks, copies, stick_the_dealer,
                                                  bidder[i], trump[i])


# --- Deals at the end of the auction -----------------------------------------------------------

def traced_blocks(game: str, rules, seed: int, n: int, kind_call: int, games: int, policies=None):
    """Lists of (deal header, its trace rows) of the first ``n`` deals with calls dealt in
    games 0, 1, ... with ``seed`` (the games ``sim.run`` plays), ``games`` games at a time,
    of heuristic seats or of the seats' ``policies``."""
    module = game_module(game)
    policies = policies or resolve_policies(game, {"all": "heuristic"})
    first, left = 0, n
    while left > 0:
        _, headers, _, trace = module.trace_raw(rules, policies, seed, range(first, first + games))
        first += games
        block = []
        for head in headers:
            rows = trace[head["actions_start"]:head["actions_end"]]
            if len(block) < left and (rows[:, 0] == kind_call).any():
                block.append((head, rows))
        left -= len(block)
        yield block


def bridgette_block(kr, block) -> dict:
    """The arrays of ``contract_worlds_nb`` for traced Bridgette deals."""
    deck = np.uint64(sum(1 << int(c) for c in kr.deck))
    cols = {k: [] for k in ("dealer", "upcard", "hands", "discards", "unseen", "calls", "n_calls")}
    for head, rows in block:
        hands = head["hands"].copy()
        dead = kb.draw_nb(kr.params[0], int(head["dealer"]), hands, head["stock"].astype(np.int64))
        discards = np.zeros(2, dtype=np.uint64)
        for _, seat, card, _ in rows[rows[:, 0] == KIND_DISCARD]:
            discards[seat] |= np.uint64(1) << np.uint64(card)
        hands &= ~discards
        said = rows[rows[:, 0] == KIND_CALL, 2]
        calls = np.zeros(MAX_CALLS, dtype=np.int64)
        calls[:len(said)] = said
        cols["dealer"].append(head["dealer"])
        cols["upcard"].append(head["stock"][0])
        cols["hands"].append(hands)
        cols["discards"].append(discards)
        cols["unseen"].append(deck & ~np.uint64(dead) & ~discards & ~hands)
        cols["calls"].append(calls)
        cols["n_calls"].append(len(said))
    masks = ("hands", "discards", "unseen")
    return {k: np.array(v, dtype=np.uint64 if k in masks else np.int64) for k, v in cols.items()}


def euchre_block(block) -> dict:
    """The arrays of ``euchre_worlds_nb`` for traced Bid Euchre hands."""
    cols = {k: [] for k in ("dealer", "hands", "calls", "joker_discard", "bidder", "trump")}
    for head, rows in block:
        hands = head["hands"].copy()
        dealer = int(head["dealer"])
        discard = rows[rows[:, 0] == ke.KIND_DISCARD, 2]
        if len(discard):
            hands[dealer] &= ~(np.uint64(1) << np.uint64(discard[0]))
        cols["dealer"].append(dealer)
        cols["hands"].append(hands)
        cols["calls"].append(rows[rows[:, 0] == ke.KIND_CALL, 2])
        cols["joker_discard"].append(discard[0] if len(discard) else -1)
        named = rows[rows[:, 0] == ke.KIND_TRUMP]  # (kind, seat, trump, legal): none when all four passed
        cols["bidder"].append(named[0, 1] if len(named) else -1)
        cols["trump"].append(named[0, 2] if len(named) else -1)
    return {k: np.array(v, dtype=np.uint64 if k == "hands" else np.int64) for k, v in cols.items()}


# --- Sampling, per game ------------------------------------------------------------------------

def bridgette_worlds(kr, deals: dict, seats, seed: int, first: int, after_auction: bool, n_worlds: int):
    """``contract_worlds_nb`` over ``bridgette_block`` arrays, every call known after the
    auction, none before it: (worlds[i, seat, way, w], fit[i, seat, FIT_*])."""
    p = kr.params[0]
    n = len(deals["dealer"])
    worlds = np.zeros((n, 2, 2, n_worlds), dtype=np.uint64)
    fit = np.zeros((n, 2, 3), dtype=np.int64)
    known = deals["n_calls"] if after_auction else np.zeros(n, dtype=np.int64)
    contract_worlds_nb(seats, np.uint64(seed) ^ WORLDS_KEY, first, deals["hands"], deals["unseen"], deals["discards"],
                       deals["upcard"], deals["dealer"], deals["calls"], known, 0, int(p["min_trump_cards"]),
                       bool(p["nt_needs_all_suits"]), int(p["jump_min_cards"]), kr.tables["gain"][0], worlds,
                       fit)
    return worlds, fit


def euchre_worlds(kr, deals: dict, seats, seed: int, first: int, after_auction: bool, n_worlds: int):
    """``euchre_worlds_nb`` over ``euchre_block`` arrays, the trump named known after the
    auction, only the bids before it: (worlds[i, seat, way, w, hand], fit[i, seat, FIT_*])."""
    p = kr.params[0]
    n = len(deals["dealer"])
    worlds = np.zeros((n, 4, 2, n_worlds, 4), dtype=np.uint64)
    fit = np.zeros((n, 4, 3), dtype=np.int64)
    bidder = deals["bidder"] if after_auction else np.full(n, -1, dtype=np.int64)
    euchre_worlds_nb(seats, np.uint64(seed) ^ WORLDS_KEY, first, deals["hands"], deals["dealer"], deals["calls"],
                     deals["joker_discard"], bidder, deals["trump"], int(p["tricks"]), int(p["double_deck"]),
                     int(p["joker"]), bool(p["stick_the_dealer"]), worlds, fit)
    return worlds, fit


# --- What a world gets wrong -------------------------------------------------------------------

def _euchre_masks(ranks=range(6), suits=range(4)) -> np.uint64:
    """Bid Euchre's cards of the given ranks (9 T J Q K A = 0..5) and suits, both copies."""
    return np.uint64(sum(1 << (c * 24 + s * 6 + r) for c in (0, 1) for s in suits for r in ranks))


# Per game: (points, cards) of each high rank, the suits, and the Colons (None: no such cards).
MEASURES = {
    "bridgette": ([(int(HCP[r]), RANK_MASKS[r]) for r in range(9, 13)], SUIT_MASKS, COLONS),
    "bid-euchre": ([(r - 1, _euchre_masks(ranks=[r])) for r in range(2, 6)],
                   [_euchre_masks(suits=[s]) for s in range(4)], None),
}


@njit(cache=True)
def best_suit_tricks_nb(hands, out):
    """``out[i]``: the tricks the Bid Euchre heuristic expects ``hands[i]`` to take alone in
    its best suit (``euchre_strength_nb``, one deck): what its bid is made of."""
    for i in range(hands.shape[0]):
        best = 0.0
        for trump in range(4):
            best = max(best, euchre_strength_nb(hands[i], trump, 1))
        out[i] = best


def hand_errors(game: str, worlds: np.ndarray, truth: np.ndarray) -> dict:
    """The absolute error of each world's hand against the true hand (``truth``, broadcast
    against ``worlds``), by measure: high-card points, suit length (mean over the suits),
    with Colons in the game Colons held, and in Bid Euchre the best suit's tricks
    (``best_suit_tricks_nb``)."""
    points, suits, colons = MEASURES[game]

    def count(hands, mask):
        return np.bitwise_count(hands & mask).astype(np.int64)

    def hcp(hands):
        return sum(value * count(hands, mask) for value, mask in points)

    errors = {"HCP": np.abs(hcp(worlds) - hcp(truth)),
              "suit length": sum(np.abs(count(worlds, m) - count(truth, m)) for m in suits) / len(suits)}
    if colons is not None:
        errors["Colons"] = np.abs(count(worlds, colons) - count(truth, colons))
    if game == "bid-euchre":
        errors["best-suit tricks"] = np.abs(best_suit_tricks(worlds) - best_suit_tricks(truth))
    return errors


def best_suit_tricks(hands: np.ndarray) -> np.ndarray:
    """``best_suit_tricks_nb`` of an array of hands of any shape."""
    flat = np.ascontiguousarray(hands).ravel()
    out = np.empty(flat.size)
    best_suit_tricks_nb(flat, out)
    return out.reshape(hands.shape)


def deal_errors(game: str, deals: dict, worlds: np.ndarray) -> dict:
    """Per deal and way, each measure's error averaged over the seats, their worlds and
    (Bid Euchre) the seat's two opponents: {measure: array[deal, way]}."""
    hands = deals["hands"]
    if game == "bridgette":
        truth = hands[:, ::-1][:, :, None, None]  # seat s: the hand of seat 1 - s
        return {k: v.mean(axis=(1, 3)) for k, v in hand_errors(game, worlds, truth).items()}
    opponents = [[(s + 1) % 4, (s + 3) % 4] for s in range(4)]
    mine = np.stack([worlds[:, s][..., opponents[s]] for s in range(4)], axis=1)
    truth = np.stack([hands[:, opponents[s]] for s in range(4)], axis=1)[:, :, None, None, :]
    return {k: v.mean(axis=(1, 3, 4)) for k, v in hand_errors(game, mine, truth).items()}


def ratio_interval(conditioned: np.ndarray, uniform: np.ndarray) -> tuple[float, float, float]:
    """mean(conditioned) / mean(uniform) over the same deals and its 95% interval (the delta
    method: the spread of conditioned - ratio * uniform, deal by deal)."""
    ratio = conditioned.mean() / uniform.mean()
    se = np.std(conditioned - ratio * uniform, ddof=1) / math.sqrt(len(uniform)) / uniform.mean()
    return ratio, ratio - 1.96 * se, ratio + 1.96 * se


# --- The study ---------------------------------------------------------------------------------

GAMES_PER_TRACE = {"bridgette": 100, "bid-euchre": 60}  # about 600 deals, 700 hands


def study(game: str, n_deals: int, n_worlds: int, seed: int, after_auction: bool = True) -> dict:
    """Both ways' worlds for the first ``n_deals`` deals of heuristic games with ``seed``,
    the last stage ``after_auction`` or before it (Bridgette: before any call; Bid Euchre:
    the bids known, not the trump named): {"errors": {measure: array[deal, way]}, "fit": array[deal, seat, FIT_*],
    "worlds": W, "seconds": sampling time}."""
    module = game_module(game)
    rules = module.RULES()
    kr = kernel_rules(rules)
    players = 2 if game == "bridgette" else 4
    seats = sampling_seats(game, n_worlds, players)
    kind_call = KIND_CALL if game == "bridgette" else ke.KIND_CALL
    errors, fits, first, seconds = [], [], 0, 0.0
    for block in traced_blocks(game, rules, seed, n_deals, kind_call, GAMES_PER_TRACE[game]):
        start = time.perf_counter()
        if game == "bridgette":
            deals = bridgette_block(kr, block)
            worlds, fit = bridgette_worlds(kr, deals, seats, seed, first, after_auction, n_worlds)
        else:
            deals = euchre_block(block)
            worlds, fit = euchre_worlds(kr, deals, seats, seed, first, after_auction, n_worlds)
        seconds += time.perf_counter() - start
        errors.append(deal_errors(game, deals, worlds))
        fits.append(fit)
        first += len(block)
    return {"errors": {k: np.concatenate([e[k] for e in errors]) for k in errors[0]},
            "fit": np.concatenate(fits), "worlds": n_worlds, "seconds": seconds}


def describe(game: str, stage: str, result: dict) -> list[str]:
    """The report lines of one study: each measure's errors and ratio, and how often the
    worlds fit the calls."""
    errors, fit, w = result["errors"], result["fit"], result["worlds"]
    n = len(fit)
    unit = game_info(game).deal + "s"
    lines = [f"{game}, {stage}: {n:,} {unit}, {w} worlds per seat and way, every seat in turn "
             f"(sampling {result['seconds']:.1f} s, {n / result['seconds']:,.0f} {unit}/s)",
             f"  {'error in':18s}{'uniform':>9s}{'conditioned':>13s}   ratio [95% interval]"]
    for measure, values in errors.items():
        ratio, low, high = ratio_interval(values[:, CONDITIONED], values[:, UNIFORM])
        lines.append(f"  {measure:18s}{values[:, UNIFORM].mean():9.3f}{values[:, CONDITIONED].mean():13.3f}"
                     f"   {ratio:.3f} [{low:.3f}, {high:.3f}]")
    if stage != BEFORE:
        draws = fit[..., FIT_CONDITIONED]
        lines.append(f"  conditioned worlds that do not fit the calls: {1 - draws.mean() / w:.1%} "
                     f"(in {(draws < w).mean():.1%} of the draws); uniform worlds that fit: "
                     f"{fit[..., FIT_UNIFORM].mean() / w:.1%}; true hands that fit: {fit[..., FIT_TRUTH].mean():.1%}")
    if stage == AFTER:
        ratio, low, high = ratio_interval(errors["HCP"][:, CONDITIONED], errors["HCP"][:, UNIFORM])
        verdict = "met" if high <= TARGET else ("not met" if low > TARGET else "not settled at this N")
        lines.append(f"  target: HCP error ratio <= {TARGET}: {verdict} ({ratio:.3f} [{low:.3f}, {high:.3f}], "
                     f"N = {n:,})")
    return lines


AFTER, BEFORE = "after the auction", "after the exchange, before any call"
BIDS = "after the bids, before the trump is named"  # what a Bid Euchre bidder knows as it names trump
MAX_WORLDS = 256


def main(argv=None) -> int:
    parser = OneLineParser(prog="python -m benchmarks.inference", description=__doc__.split("\n\n")[1])
    parser.add_argument("--deals", type=count, default=2000, help="deals per game, at least 2 (default 2000)")
    parser.add_argument("--worlds", type=count, default=16,
                        help=f"worlds per seat and way, at most {MAX_WORLDS} (default 16)")
    parser.add_argument("--seed", type=seed_value, default=1,
                        help="the seed of the heuristic games and of the worlds (default 1)")
    args = parser.parse_args(argv)
    if args.deals < 2:
        return parser.fail("--deals: the intervals need at least 2 deals")
    if args.worlds > MAX_WORLDS:
        return parser.fail(f"--worlds: at most {MAX_WORLDS} (a block's worlds are held in memory)")
    n_deals, n_worlds, seed = args.deals, args.worlds, args.seed
    print(machine_line(machine_facts()) + "; one thread")
    print(f"seed {seed}; time {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    study("bridgette", 1, 1, seed)  # compile or load the kernels: the times below are warm
    study("bid-euchre", 1, 1, seed)
    for game, stage in (("bridgette", AFTER), ("bridgette", BEFORE), ("bid-euchre", AFTER), ("bid-euchre", BIDS)):
        print("\n".join(describe(game, stage, study(game, n_deals, n_worlds, seed, stage == AFTER))))
    return 0


if __name__ == "__main__":
    exit_with(main, "python -m benchmarks.inference")
