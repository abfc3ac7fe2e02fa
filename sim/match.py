"""python -m sim.match --game G --a POLICY --b POLICY --games N [--seed S] [--json] [--cluster ADDRESS]

Duplicate matches: every game is played twice with the same cards, policy A in seat 0
(team 0 in Bid Euchre) the first time and in seat 1 (team 1) the second, so card luck
cancels. Cards come from their own stream, a pure function of (seed, game, deal), so the
two plays of a deal share its cards until the games' courses part (a redeal, or a game
that ends earlier). Reports the mean score difference A minus B per deal and per game
with 95% intervals, A's game win rate with a 95% interval paired the same way (a drawn or
abandoned game counts as half a win), whether points and wins disagree, and how much the
pairing narrowed the interval.
"""

from __future__ import annotations

import json
import math
from contextlib import ExitStack

import numpy as np

from sim.blocks import MAX_BLOCK_ROWS
from sim.cli import exit_with, path_text, plural, stopped
from sim.games import DEFAULT_GAME, GAME_NAMES, game_info, game_module
from sim.dd_run import sampler_refusal
from sim.policies import parse_policy
from sim.resolve import in_argument_words
from sim.rules import changes_words, overrides, variant_game
from sim.store import RunError
from sim.run import USER_ERRORS, OneLineParser, add_cluster_flag, count, seed_value
from sim.ratio import interval, ratio_sums, ratio_variance
from sim.summary import Z95, wilson
from sim.summary import merge as added  # sums of blocks

BLOCK_GAMES = 20_000
# Deals are paired by (game - first game of the block) * DEAL_KEY + deal: more than any game's
# deals (sim.rules.MAX_GAME_DEALS), and far inside int64 however large the game indices.
DEAL_KEY = 2**14


def block_games(rules) -> int:
    """Games per block: BLOCK_GAMES, fewer where the rules let a game run so long that a
    block could need more than sim.blocks.MAX_BLOCK_ROWS deal records."""
    return max(1, min(BLOCK_GAMES, MAX_BLOCK_ROWS // rules.most_deals()))


class _Moments:
    """Running sums of paired differences and of each play's differences alone."""

    def __init__(self):
        self.n = 0
        self.sums = np.zeros(6)  # paired d, d^2; first play x, x^2; second play y, y^2

    def add(self, first, second):
        x, y = np.asarray(first, np.float64), np.asarray(second, np.float64)
        d = (x + y) / 2
        self.n += len(d)
        self.sums += [d.sum(), (d * d).sum(), x.sum(), (x * x).sum(), y.sum(), (y * y).sum()]

    def merge(self, other: "_Moments") -> None:
        self.n += other.n
        self.sums += other.sums

    def result(self) -> dict:
        n = self.n
        if n < 2:  # one pair has a mean but no spread
            return {"n": n, "mean": self.sums[0] / n if n else None, "ci95": None, "variance_reduction": None}
        def var(total, squares):
            return (squares - total * total / n) / (n - 1)
        mean = self.sums[0] / n
        var_paired = var(self.sums[0], self.sums[1])
        half = Z95 * math.sqrt(max(var_paired, 0.0) / n)
        # Unpaired, the two plays would be independent samples: the variance of their
        # average would be (var_x + var_y) / 4 per pair; pairing leaves var_paired.
        unpaired = (var(self.sums[2], self.sums[3]) + var(self.sums[4], self.sums[5])) / 4
        reduction = 1 - var_paired / unpaired if unpaired > 0 else None
        return {"n": n, "mean": mean, "ci95": [mean - half, mean + half], "variance_reduction": reduction}


class _PerDeal:
    """A minus B per paired deal, as a ratio over game pairs (sim.ratio): a game's deals are
    not independent draws (one game's swing runs through all of them), so each duplicate
    game pair is one observation, its paired deals' summed differences over their number.
    Each play's own sums too, for how much the pairing narrowed the variance."""

    PARTS = ("both", "first", "second")  # the two plays' differences summed, and each alone

    def __init__(self):
        self.sums = {part: ratio_sums([], []) for part in self.PARTS}
        self.pairs = 0  # game pairs with a paired deal: those the interval's spread comes from

    def add(self, counts, first, second):
        """Per game: its paired deals' number and the two plays' summed differences."""
        first, second = np.asarray(first, np.int64), np.asarray(second, np.int64)
        for part, y in zip(self.PARTS, (first + second, first, second)):
            self.sums[part] = added(self.sums[part], ratio_sums(y, counts))
        self.pairs += int(np.count_nonzero(counts))

    def merge(self, other: "_PerDeal") -> None:
        self.sums = added(self.sums, other.sums)
        self.pairs += other.pairs

    def result(self) -> dict:
        """The mean of the two plays' differences per deal: half the ratio of their sum."""
        r, var = ratio_variance(self.sums["both"])
        deals = self.sums["both"]["n"]
        if r is None:
            return {"n": 0, "mean": None, "ci95": None, "variance_reduction": None}
        if var is None or self.pairs < 2:  # one pair with paired deals has a mean but no spread
            return {"n": deals, "mean": float(r / 2), "ci95": None, "variance_reduction": None}
        paired = var / 4
        unpaired = (ratio_variance(self.sums["first"])[1] + ratio_variance(self.sums["second"])[1]) / 4
        return {"n": deals, "mean": float(r / 2), "ci95": interval(r / 2, paired),
                "variance_reduction": float(1 - paired / unpaired) if unpaired > 0 else None}


def _lineups(game: str, a, b) -> tuple[list, list]:
    """Seats of the first play (A on side 0: seat 0, or team 0) and of the second."""
    sides = game_info(game).seat_sides
    return [a if side == 0 else b for side in sides], [b if side == 0 else a for side in sides]


def _a_result(winner, a_side: int) -> np.ndarray:
    """A's result of each game: 1 won, 0 lost, 1/2 drawn or abandoned (winner -1)."""
    winner = np.asarray(winner)
    return np.where(winner < 0, 0.5, (winner == a_side).astype(np.float64))


def match_block(game: str, rules, a, b, seed: int, first: int, n: int):
    """Games ``first .. first+n-1`` played both ways: (first, deal moments, game moments,
    A's wins, drawn or abandoned games, A's result moments, deals played in both plays);
    blocks merged in order give the same sums wherever each was played."""
    module = game_module(game)
    first_lineup, second_lineup = _lineups(game, a, b)
    per_deal, per_game, per_win = _PerDeal(), _Moments(), _Moments()
    deals_1, games_1 = module.run_block(rules, first_lineup, seed, first, n)
    deals_2, games_2 = module.run_block(rules, second_lineup, seed, first, n)
    # A is seat (team) 0 in the first play and 1 in the second: pair deals by (game, deal).
    key_1 = (deals_1["game"].astype(np.int64) - first) * DEAL_KEY + deals_1["deal"]
    key_2 = (deals_2["game"].astype(np.int64) - first) * DEAL_KEY + deals_2["deal"]
    _, i1, i2 = np.intersect1d(key_1, key_2, assume_unique=True, return_indices=True)
    diff_1 = deals_1["score0"].astype(np.int64) - deals_1["score1"]
    diff_2 = deals_2["score1"].astype(np.int64) - deals_2["score0"]
    pair_game = key_1[i1] // DEAL_KEY  # each paired deal's game, counted from the block's first
    per_deal.add(np.bincount(pair_game, minlength=n), np.bincount(pair_game, diff_1[i1], minlength=n),
                 np.bincount(pair_game, diff_2[i2], minlength=n))
    per_game.add(games_1["total0"].astype(np.int64) - games_1["total1"],
                 games_2["total1"].astype(np.int64) - games_2["total0"])
    a_wins = int((games_1["winner"] == 0).sum() + (games_2["winner"] == 1).sum())
    undecided = int((games_1["winner"] < 0).sum() + (games_2["winner"] < 0).sum())
    per_win.add(_a_result(games_1["winner"], 0), _a_result(games_2["winner"], 1))
    return first, per_deal, per_game, a_wins, undecided, per_win, len(deals_1) + len(deals_2)


@in_argument_words
def play_match(game: str, a, b, games: int, seed: int, rules=None, cluster=None, threads=None) -> dict:
    """A duplicate match of policy ``a`` against ``b``; the JSON-ready result.

    ``cluster`` (a Dask scheduler address, ``local:N`` or a ``distributed.Client``) plays
    the blocks on its workers, ``threads`` numba threads each (without one, this process's
    threads); the result is the same.
    """
    from sim.cli import whole_count
    from sim.resolve import checked, use_threads

    module = game_module(game)
    games, seed, rules = _checked_arguments(game, module, a, b, games, seed, rules)
    if threads is not None:
        threads = checked("threads", whole_count, threads)
        if cluster is None:
            use_threads(threads)
    block = block_games(rules)
    jobs = ((game, rules, a, b, seed, first, min(block, games - first)) for first in range(0, games, block))
    per_deal, per_game, per_win = _PerDeal(), _Moments(), _Moments()
    a_wins = undecided = played = 0
    with ExitStack() as stack:
        if cluster is None:
            parts = (match_block(*job) for job in jobs)
        else:
            from sim.cluster import open_cluster

            pool = stack.enter_context(open_cluster(cluster, threads))
            pool.warm_up(game, rules, _lineups(game, a, b)[0])
            parts = pool.map(match_block, jobs, ordered=True)
        # Played as they are merged, so any number of games; in block order, as floating sums depend on it.
        for _, deal_part, game_part, wins, drawn, win_part, deals in parts:
            per_deal.merge(deal_part)
            per_game.merge(game_part)
            per_win.merge(win_part)
            a_wins += wins
            undecided += drawn
            played += deals
    deal_stats, game_stats, win_stats = per_deal.result(), per_game.result(), per_win.result()
    if deal_stats["n"] == 0:  # not a finding: the rules left the players nothing to do
        raise RunError(f"no deal counted in any of the {2 * games:,} games played: each ended with its deals "
                       f"passed out, at the redeal limit (C-5); nothing to compare under these rules")
    win_rate = (a_wins + undecided / 2) / (2 * games)
    points_ci = deal_stats["ci95"]
    alike = deal_stats["mean"] == 0 and points_ci is not None and points_ci[0] == points_ci[1]
    win_ci = _win_interval(win_stats["ci95"], win_rate, games, alike)
    return {
        "game": game, "a": str(a), "b": str(b), "seed": seed, "rules": overrides(rules),
        "games": games, "deals": deal_stats["n"], "deals_played": played,
        "mean_diff_per_deal": deal_stats["mean"], "ci95": deal_stats["ci95"],
        "mean_diff_per_game": game_stats["mean"], "game_ci95": game_stats["ci95"],
        "a_game_win_rate": win_rate, "a_game_win_ci95": win_ci, "a_games_won": a_wins, "drawn_games": undecided,
        "points_and_wins_disagree": disagreement(deal_stats["mean"], points_ci, win_rate, win_ci),
        "pairing_variance_reduction": deal_stats["variance_reduction"],
    }


def _checked_arguments(game, module, a, b, games, seed, rules):
    """play_match's arguments, checked as sim.simulate checks its own: the two policies
    parsed for ``game`` (sim.policies.parse_policy), a whole count of games, a seed, rules
    of the game or None (its defaults); (games, seed, rules), or a ValueError naming the
    argument (a RunError, PolicyError or RulesError)."""
    from sim.cli import seed_number, whole_count
    from sim.policies import Policy, PolicyError
    from sim.resolve import checked
    from sim.rules import RulesError

    for name, policy in (("a", a), ("b", b)):
        if not isinstance(policy, Policy) or policy.game not in (None, game):
            raise PolicyError(f"{name} must be a policy of {game}, as sim.policies.parse_policy(text, "
                              f"{game!r}) gives it, got {policy!r:.80}")
    if rules is None:
        rules = module.RULES()
    elif not isinstance(rules, module.RULES):
        raise RulesError(f"rules must be {game}'s rules (sim.rules.rules_for({game!r}, ...)), got "
                         f"{type(rules).__name__}")
    for name, policy in (("a", a), ("b", b)):
        reason = sampler_refusal(game, rules, [policy], f"--{name} {policy}")
        if reason:
            raise RunError(reason)
    return int(checked("games", whole_count, games)), int(checked("seed", seed_number, seed)), rules


def _win_interval(bounds, win_rate: float, pairs: int, alike: bool = False):
    """A win rate's normal interval over game pairs, cut to [0, 1], where few games can carry
    it past. Where every pair won (or lost) both games it has no width, which no few games
    can show: the Wilson interval of the rate over the pairs stands in for it, as for any
    rate at its bound. Where every pair split its games, the share of pairs that would not
    lies in the Wilson interval of none in ``pairs``, each moving the rate by half a pair:
    the rate lies within half that share of one half. Only players that played ``alike``
    (every deal's points the same in both plays, a player against itself) are an exact half."""
    if bounds is None:
        return None
    if bounds[0] == bounds[1] and win_rate in (0.0, 1.0):
        return wilson(win_rate * pairs, pairs)
    if bounds[0] == bounds[1] == win_rate == 0.5 and not alike:
        half = wilson(0, pairs)[1] / 2
        return [0.5 - half, 0.5 + half]
    return [max(0.0, bounds[0]), min(1.0, bounds[1])]


def disagreement(mean_diff: float | None, points_ci, win_rate: float, wins_ci) -> str | None:
    """The line saying that points per deal favour one side and game wins the other, or None:
    a disagreement where both intervals are clear of no difference, else a lean that the
    intervals do not settle."""
    if mean_diff is None or mean_diff == 0 or win_rate == 0.5 or (mean_diff > 0) == (win_rate > 0.5):
        return None
    gains, wins = ("gains", "fewer") if mean_diff > 0 else ("loses", "more")
    points_clear = points_ci is not None and (points_ci[0] > 0 or points_ci[1] < 0)
    wins_clear = wins_ci is not None and (wins_ci[0] > 0.5 or wins_ci[1] < 0.5)
    if points_clear and wins_clear:
        return f"points and wins disagree: A {gains} points per deal but wins {wins} games than B"
    lean = f"points and wins lean apart (A {gains} points per deal but wins {wins} games than B)"
    if points_ci is None or wins_ci is None:
        return f"{lean}, with no interval to settle it"
    unclear = "both intervals hold" if not points_clear and not wins_clear else \
        "the points' interval holds" if not points_clear else "the win rate's interval holds"
    return f"{lean}, but {unclear} no difference: not a clear disagreement"


def _ci(bounds, form: str) -> str:
    """'95% CI [lo, hi]', or a note where one pair gives no interval."""
    if bounds is None:
        return "(no interval from one pair)"
    return f"95% CI [{form.format(bounds[0])}, {form.format(bounds[1])}]"


def add_match_flags(parser, games_help: str, json_help: str) -> None:
    """The flags of the commands that play duplicate matches (this one, sim.decisions):
    the game, its size and seed, the rules and the cluster."""
    parser.add_argument("--game", choices=GAME_NAMES, default=DEFAULT_GAME)
    parser.add_argument("--games", type=count, required=True, help=games_help)
    parser.add_argument("--seed", type=seed_value, default=1)
    parser.add_argument("--rules", type=path_text, metavar="FILE_OR_NAME", help="variant file or shipped variant name")
    parser.game_of_rules = variant_game
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="set_options")
    parser.add_argument("--json", action="store_true", help=json_help)
    add_cluster_flag(parser)


def interrupted(what: str = "a match keeps nothing, so rerun the command to play it") -> int:
    """A match command stopped by the user: say what was kept (nothing) and how to go on."""
    return stopped(what)


def main(argv=None) -> int:
    parser = OneLineParser(prog="python -m sim.match", description=__doc__.split("\n\n")[1])
    parser.add_argument("--a", required=True, metavar="POLICY", help="policy A, e.g. heuristic:aggression=0.5")
    parser.add_argument("--b", required=True, metavar="POLICY", help="policy B")
    add_match_flags(parser, "games, each played twice", "print one JSON object instead of the report")
    args = parser.parse_args(argv)
    from sim.resolve import resolve_rules

    try:
        rules = resolve_rules(args.game, args.rules, args.set_options)
        a, b = parse_policy(args.a, args.game), parse_policy(args.b, args.game)
        result = play_match.__wrapped__(args.game, a, b, args.games, args.seed, rules, args.cluster)
    except USER_ERRORS as exc:
        return parser.fail(exc)
    except KeyboardInterrupt:
        return interrupted()
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"{args.game}: {result['a']} (A) against {result['b']} (B), {plural(args.games, 'duplicate game')}, "
          f"{plural(result['deals'], 'paired deal')}, seed {args.seed}")
    print(f"  rules: {changes_words(result['rules'])}")
    print(f"  A minus B per deal: {result['mean_diff_per_deal']:+z.2f}  {_ci(result['ci95'], '{:+z.2f}')}")
    print(f"  A minus B per game: {result['mean_diff_per_game']:+z.2f}  {_ci(result['game_ci95'], '{:+z.2f}')}")
    print(f"  A's game win rate: {100 * result['a_game_win_rate']:.1f}%  "
          f"{_ci(result['a_game_win_ci95'], '{:.1%}')}  ({plural(result['a_games_won'], 'game')} won, "
          f"{result['drawn_games']} drawn or abandoned, counted as half, of {2 * args.games:,})")
    if result["points_and_wins_disagree"]:
        print(f"  {result['points_and_wins_disagree']}")
    reduction = result["pairing_variance_reduction"]
    if reduction is not None:
        print(f"  pairing {'narrowed' if reduction >= 0 else 'widened'} the variance by {100 * abs(reduction):.0f}% "
              f"against unpaired play")
    else:
        print("  pairing against unpaired play: no figure ("
              + ("no interval from one pair" if result["ci95"] is None else "A minus B does not vary") + ")")
    return 0


if __name__ == "__main__":
    exit_with(main, "python -m sim.match")
