"""The search context: one record (``CTX_DTYPE``) that every node reads and writes, with
the hands, Bid Euchre's layout tables, the explicit stack of frames (``FR_*``), the move
lists by depth, the statistics (``ST_*``) and a transposition table of its own; the
techniques a search may use (``USE_*``); the rules codes that say when the table's entries
go stale (``renew_nb``); and where the next searches start (``contract_at_nb``,
``euchre_at_nb``)."""

import numpy as np
from numba import njit

from kernels.records import record_dtype


# Techniques, as bits of the context's ``techniques`` (benchmarks switch them off one at a time;
# not ``flags``: a numpy record has an attribute of that name, which hides the field when the
# kernels run as Python with the JIT disabled).
USE_TT, USE_EQUIV, USE_ORDER, USE_BOUNDS = 1, 2, 4, 8
ALL_TECHNIQUES = USE_TT | USE_EQUIV | USE_ORDER | USE_BOUNDS

TT_DTYPE = record_dtype([
    ("k0", np.uint64), ("k1", np.uint64), ("k2", np.uint64), ("k3", np.uint64),
    ("gen", np.int32), ("meta", np.int8), ("lo", np.int8), ("hi", np.int8), ("best", np.int8),
])
# A search's state, one record that every node reads and writes (a pointer: no reference
# counting per call): the hands, the layout tables (Bid Euchre), the search stack and its
# move lists by depth (no allocation per node), statistics and settings.
MAX_DEPTH = 64
# A context's own table: 2^17 entries (5 MB) for the contract games' dd and pimc seats,
# whose opening leads search tens of thousands of nodes per world (2^15 entries took 1.09x
# their nodes and ran 1.1x slower, timed in turn; 2^18 ran slower); the first 2^15 for a --dd
# run's contract searches (``TT_BITS``, below); the first 2^14 for the single deck's Bid
# Euchre, whose searches of a few hundred nodes run faster in a table that stays in the cache.
CONTEXT_TT_BITS, EUCHRE_TT = 17, 1 << 14
CTX_DTYPE = record_dtype([
    ("hands", np.uint64, (4,)),
    ("segs", np.uint64, (4,)), ("seg_of", np.int64, (64,)), ("power", np.int64, (64,)), ("group", np.uint64, (64,)),
    ("order", np.int64, (MAX_DEPTH, 16)),
    ("fr", np.int64, (MAX_DEPTH, 13)),  # the search stack: one frame (FR_* slots) per depth
    ("keys", np.uint64, (MAX_DEPTH, 4)),  # each frame's table key
    ("stats", np.int64, (4,)),
    ("lost", np.int64, (4,)),  # a --dd run: what each seat's cards lost so far in the deal (kernels.dd_run)
    ("at", np.int64, (7,)),  # where the next searches start (``contract_at_nb``, ``euchre_at_nb``, ``after_card_nb``)
    ("techniques", np.int64), ("trump", np.int64), ("when_void", np.int8), ("double_deck", np.int8),
    ("out_seat", np.int64),
    ("contract_only", np.int8),  # a --dd run of the contract games that values only the contract reached (dd_run)
    ("side", np.int64),  # the side (seat, or Bid Euchre team) whose target is searched
    ("rules", np.int64),  # what the table's entries were searched under (``renew_nb``; 0: unknown)
    # A table of its own, for searches inside the game kernels (the dd and pimc seats,
    # ``search_table_nb``; --dd runs, kernels.dd_run). A Solver passes its own (``TT_BITS``)
    # for the contract games.
    ("tt", TT_DTYPE, (1 << CONTEXT_TT_BITS,)),
])
# A frame of the search stack: the node's position and where its move loop stands. FR_BOUND
# (contract games): the bound on the searched side's tricks from the node that its answer
# carries (a lower bound, at least the target, when it reaches it; else an upper bound),
# and while its moves are tried, the best of its children's bounds so far.
(FR_LEADER, FR_LEAD, FR_BARRED, FR_TARGET, FR_TO_PLAY, FR_PLAYED, FR_BEST, FR_BEST_SEAT,
 FR_I, FR_N, FR_T_LEAD, FR_META, FR_BOUND) = range(13)
RESOLVED_FALSE, RESOLVED_TRUE, EXPAND, ENTER = 0, 1, 2, 3

# A Solver's table (sim.dd), and the part of a context's own that a --dd run of the
# contract games searches in (kernels.dd_run): 2^15 entries, 1.3 MB. Whole tables of
# plain, played and three-Colon deals ran 1.1-1.15x faster in it than in 2^18 entries with
# 0.1% more nodes, and --dd runs 1.1x faster than in 2^17 (docs/dd.md, "Speed").
TT_BITS = 15

# Statistics kept per search context: nodes visited, table hits, searches.
ST_NODES, ST_TT_HITS, ST_SEARCHES, ST_GEN = 0, 1, 2, 3
N_STATS = 4


def new_table(bits: int = TT_BITS) -> np.ndarray:
    """A transposition table of 2**bits entries; entries of an older generation are empty."""
    tt = np.zeros(1 << bits, dtype=TT_DTYPE)
    tt["gen"] = -1
    return tt


def new_context(flags: int = ALL_TECHNIQUES, count: int = 1) -> np.ndarray:
    """A search context (1-element record array; ``count`` of them for a parallel run,
    kernels.engine.game_context_nb), its own table empty; set its hands (and layout) per
    solve."""
    ctx = np.zeros(count, dtype=CTX_DTYPE)
    ctx["techniques"] = flags
    ctx["out_seat"] = -1
    ctx["tt"]["gen"] = -1
    return ctx


@njit(cache=True)
def renew_nb(ctx, rules):
    """Make the table's entries stale (a new generation) unless they were searched under
    ``rules``, a code of what the keys leave out (``contract_rules_nb``,
    ``euchre_rules_nb``). A position's value does not depend on how play reached it, so
    the entries of one search serve the next: the following cards of a deal, other deals."""
    if ctx.rules != rules:
        ctx.stats[ST_GEN] += 1
        ctx.rules = rules


@njit(cache=True, inline="always")
def contract_rules_nb(trump, when_void):
    """The rules code of contract play: the trump (-1 no-trump) and ``play.colon_discard``."""
    return 1 + (trump + 1) + 5 * np.int64(when_void)


@njit(cache=True, inline="always")
def euchre_rules_nb(trump, out_seat, double_deck, joker):
    """The rules code of Bid Euchre: the solver layout (trump, deck) and the seat sitting out."""
    return 16 + trump + 4 * (out_seat + 1) + 20 * np.int64(double_deck) + 40 * np.int64(joker)


@njit(cache=True, inline="always")
def contract_at_nb(ctx, leader, lead, barred, side):
    """A bridge-game search's start, written into ``ctx.at``: the leader, the card it led
    (-1 at a trick boundary), the suit it may not lead (B-8, -1 none) and the seat searched.
    Searches from one start never nest, so one slot serves every caller."""
    at = ctx.at
    at[0], at[1], at[2], at[3] = leader, lead, barred, side
    return at


@njit(cache=True, inline="always")
def euchre_at_nb(ctx, leader, played, best, best_seat, lead, to_play, side):
    """A Bid Euchre search's start, written into ``ctx.at``, in the solver layout."""
    at = ctx.at
    at[0], at[1], at[2], at[3], at[4], at[5], at[6] = leader, played, best, best_seat, lead, to_play, side
    return at


@njit(cache=True, inline="always")
def search_table_nb(dd, euchre):
    """The part of the context's own table that a game's searches use (``EUCHRE_TT``): all
    of it but for the single deck's Bid Euchre (the double deck's twelve tricks search up to
    millions of nodes)."""
    return dd.tt[:EUCHRE_TT if euchre and not dd.double_deck else dd.tt.shape[0]]
