"""Double-dummy solvers: the tricks a side takes when every hand is seen and everyone plays
perfectly, for the two-hand contract play of Bridgette and Draw Bridge (B-7..B-10, D-4) and
for Bid Euchre (E-2, E-6, C-3).

Both solvers answer one question, "can this side take at least ``target`` of the tricks
left?", by a depth-first search with cut-offs (a zero-window search) over an explicit
stack; the exact value is found by a binary search over the target, or by stepping from
a close guess, every search sharing the table. What makes them fast:

- a transposition table at trick boundaries (``TT_DTYPE``), keyed on the *relative* ranks of
  the cards still in play: each segment of the deck (a suit; Bid Euchre: an E-2 effective
  suit) is reduced to the sequence of owners of its cards in play, so positions that
  differ only in which low cards are gone share an entry. The key holds the hands' cards
  compressed over the cards in play (``compress_nb``, a pext) and each segment's count.
  Bridgette's Colons make rank classes matter (B-8, B-9, B-10 read a card's class, not its
  rank), but only the classes of the cards facing a Colon: the key adds, for each hand,
  how many of its cards lie in each range that the other hand's Colons read
  (``classes_key_nb``). The entry holds bounds on the leader's side's tricks and the best
  lead found; its bucket is fetched ahead (``prefetch_nb``) while the bounds are tried;
- equivalent cards searched once: cards of one hand with no other card in play between
  them (in Bridgette also of one class where the other hand holds or has led the Colon of
  that range; found for all cards at once by an occluded fill; in the double deck equal
  copies count as in play between them unless held by the same hand);
- move ordering: the table's best lead first, then cards that win the trick, cheapest first,
  a follower's blocking Colon next (Bid Euchre: side-suit leads before trumps, a suit an
  opponent can ruff left to the last, and a follower's cheapest card that the opponent
  still to play cannot beat);
- bounds: the winners the leader can cash at once, and a hand's run of top trumps (each
  takes a trick of its own; in Bid Euchre, a hand's trumps above all of the other team's);
  the last two tricks are played out directly;
- Bid Euchre: a follower with one legal card goes straight to the child, unordered.

Bid Euchre's cards are searched in a *solver layout* per trump (``euchre_layout``): each
effective suit a contiguous run of bits in power order, so the follow rule, the trick
winner, equivalences and relative ranks are the same bit operations as the contract game's.
"""

import numpy as np
from numba import njit

from kernels.cards import (
    ALL_SUITED, COLONS, EUCHRE_BITS, EUCHRE_EFF_SUIT, EUCHRE_JOKER, EUCHRE_POWER, ONE, RANGE_MASKS, SUIT_MASKS, ZERO,
    bit_nb, compress_nb, highest_nb, lowest_nb, popcount_nb, prefetch_nb,
)
from kernels.records import record_dtype
from kernels.tricks import beaters_nb, follow_legal_nb, lead_legal_nb, trick_nb

# Techniques, as bits of ``flags`` (benchmarks switch them off one at a time).
USE_TT, USE_EQUIV, USE_ORDER, USE_BOUNDS = 1, 2, 4, 8
ALL_TECHNIQUES = USE_TT | USE_EQUIV | USE_ORDER | USE_BOUNDS

TT_DTYPE = np.dtype([
    ("k0", np.uint64), ("k1", np.uint64), ("k2", np.uint64), ("k3", np.uint64),
    ("gen", np.int32), ("meta", np.int8), ("lo", np.int8), ("hi", np.int8), ("best", np.int8),
], align=True)
# A search's state, one record that every node reads and writes (a pointer: no reference
# counting per call): the hands, the layout tables (Bid Euchre), the search stack and its
# move lists by depth (no allocation per node), statistics and settings.
MAX_DEPTH = 64
# A context's own table: 2^17 entries (5 MB) for the contract games, whose opening leads
# search tens of thousands of nodes per world (2^15 entries took 1.09x their nodes and ran
# 1.1x slower, timed in turn; 2^18 ran slower), and the first 2^14 for Bid Euchre, whose
# searches of a few hundred nodes run faster in a table that stays in the cache.
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
    ("flags", np.int64), ("trump", np.int64), ("when_void", np.int8), ("double_deck", np.int8), ("out_seat", np.int64),
    ("side", np.int64),  # the side (seat, or Bid Euchre team) whose target is searched
    ("rules", np.int64),  # what the table's entries were searched under (``renew_nb``; 0: unknown)
    # A table of its own, for searches inside the game kernels (the dd and pimc seats, --dd
    # runs; ``search_table_nb``). A Solver passes a larger one for the contract games.
    ("tt", TT_DTYPE, (1 << CONTEXT_TT_BITS,)),
])
# A frame of the search stack: the node's position and where its move loop stands. FR_BOUND
# (contract games): the bound on the searched side's tricks from the node that its answer
# carries (a lower bound, at least the target, when it reaches it; else an upper bound),
# and while its moves are tried, the best of its children's bounds so far.
(FR_LEADER, FR_LEAD, FR_BARRED, FR_TARGET, FR_TO_PLAY, FR_PLAYED, FR_BEST, FR_BEST_SEAT,
 FR_I, FR_N, FR_T_LEAD, FR_META, FR_BOUND) = range(13)
RESOLVED_FALSE, RESOLVED_TRUE, EXPAND = 0, 1, 2

TT_BITS = 18

# Statistics kept per search context: nodes visited, table hits, searches.
ST_NODES, ST_TT_HITS, ST_SEARCHES, ST_GEN = 0, 1, 2, 3
N_STATS = 4

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_M3 = np.uint64(0x9E3779B97F4A7C15)
_M4 = np.uint64(0xD6E8FEB86659FD93)
_S29, _S43 = np.uint64(29), np.uint64(43)


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
    ctx["flags"] = flags
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
def _hash_nb(k0, k1, k2, k3, meta):
    """A key's hash: one multiply per word, none waiting on another (the bucket's address is
    wanted early, ``contract_enter_nb``), high bits folded down to the index bits."""
    h = k0 * _M1 ^ (k1 + np.uint64(meta)) * _M2 ^ k2 * _M3 ^ k3 * _M4
    return h ^ (h >> _S29) ^ (h >> _S43)


@njit(cache=True, inline="always")
def tt_bucket_nb(tt, k0, k1, k2, k3, meta):
    """Where a key's entry may lie: this index or the next."""
    return np.int64(_hash_nb(k0, k1, k2, k3, meta) & np.uint64(tt.shape[0] - 2))


@njit(cache=True, inline="always")
def tt_probe_nb(tt, ctx, k0, k1, k2, k3, meta):
    """The entry holding this key (index), or -1."""
    return tt_find_nb(tt, ctx, tt_bucket_nb(tt, k0, k1, k2, k3, meta), k0, k1, k2, k3, meta)


@njit(cache=True, inline="always")
def tt_find_nb(tt, ctx, i, k0, k1, k2, k3, meta):
    """``tt_probe_nb`` in the bucket at ``i``."""
    gen = ctx.stats[ST_GEN]
    for j in range(i, i + 2):
        e = tt[j]
        if e.gen == gen and e.meta == meta and e.k0 == k0 and e.k1 == k1 and e.k2 == k2 and e.k3 == k3:
            return j
    return -1


@njit(cache=True, inline="always")
def tt_store_nb(tt, ctx, k0, k1, k2, k3, meta, is_lower, bound, best, n_max):
    """Narrow the bounds of a key's entry (new entry: [0, n_max]) with one search result:
    the value is >= ``bound`` (``is_lower``) or < ``bound``."""
    i = tt_bucket_nb(tt, k0, k1, k2, k3, meta)
    j = tt_find_nb(tt, ctx, i, k0, k1, k2, k3, meta)
    if j < 0:
        # Take a stale slot first, else either one (by the node count's parity): keeping the
        # entry of the larger subtree instead would fill the table with positions of searches
        # long done, as entries stay fresh while the rules do (``renew_nb``).
        gen = ctx.stats[ST_GEN]
        j = i if tt[i].gen != gen else (i + 1 if tt[i + 1].gen != gen else i + (ctx.stats[ST_NODES] & 1))
        e = tt[j]
        e.k0, e.k1, e.k2, e.k3, e.meta, e.gen = k0, k1, k2, k3, meta, ctx.stats[ST_GEN]
        e.lo, e.hi, e.best = 0, n_max, -1
    e = tt[j]
    if is_lower:
        if bound > e.lo:
            e.lo = bound
    elif bound - 1 < e.hi:
        e.hi = bound - 1
    if best >= 0:
        e.best = best


# --- Bridgette and Draw Bridge: two hands, C-3 with B-7..B-10 ------------------------------

def _contract_segs(live: int) -> np.ndarray:
    """Packing segments while the Colons of the bit set ``live`` (Little 1, Royal 2, Grand
    4) are in play: each suit, cut where a live Colon's range (B-1) begins or ends."""
    cuts = set()
    if live & 0b011:  # Little or Royal: 2-10 against J-K-A
        cuts.add(9)
    if live & 0b110:  # Royal or Grand: J-K against A
        cuts.add(12)
    segs = []
    for s in range(4):
        edges = [0, *sorted(cuts), 13]
        segs += [sum(1 << (13 * s + r) for r in range(lo, hi)) for lo, hi in zip(edges, edges[1:])]
    return np.array(segs + [0] * (12 - len(segs)), dtype=np.uint64)


CONTRACT_SEGS = np.array([_contract_segs(live) for live in range(8)], dtype=np.uint64)
# The highest bit of each segment, by the same index.
CONTRACT_SEG_TOPS = np.array([sum(1 << (int(seg).bit_length() - 1) for seg in segs if seg) for segs in CONTRACT_SEGS],
                             dtype=np.uint64)
_S52 = np.uint64(52)


@njit(cache=True, inline="always")
def _live_colons_nb(in_play):
    return np.int64((in_play & COLONS) >> _S52)


@njit(cache=True, inline="always")
def contract_segs_nb(in_play):
    return CONTRACT_SEGS[_live_colons_nb(in_play)]


@njit(cache=True, inline="always")
def segment_counts_nb(in_play, segs):
    """How many cards each segment has in play, 4 bits per segment (at most 12 segments of
    at most 15 cards): the boundaries of a key's compressed owner sequence."""
    counts = ZERO
    for k in range(segs.shape[0]):
        counts |= np.uint64(popcount_nb(in_play & segs[k])) << np.uint64(4 * k)
    return counts


_S12, _S40, _S56 = np.uint64(12), np.uint64(40), np.uint64(56)
_LITTLE, _ROYAL, _GRAND = (np.uint64(1 << (52 + k)) for k in range(3))


@njit(cache=True, inline="always")
def classes_key_nb(hand, other):
    """The classes of ``hand``'s cards that the Colons ``other`` holds can read: B-8 blocks
    and B-10 discards on a led card of a Colon's range, B-9 a card of its range beating the
    led Colon. Per suit, how many of its cards are 2-10 (for the Little Colon, and for the
    Royal one where the hand has J-K cards of the suit: they lie above those) and J-K
    (Royal), and which aces it holds (Grand). A suit's cards keep their order among the
    cards in play, so these counts say which of them lie in each range. Nothing reads the
    classes of a Colon holder's own cards: a Colon acts only on the other hand's cards."""
    key = ZERO
    little, royal = other & _LITTLE != ZERO, other & _ROYAL != ZERO
    if little or royal:
        for s in range(4):
            suit = hand & SUIT_MASKS[s]
            face = popcount_nb(suit & RANGE_MASKS[1]) if royal else 0
            low = popcount_nb(suit & RANGE_MASKS[0]) if little or face else 0
            key |= np.uint64(low) << (_S40 + np.uint64(4 * s)) | np.uint64(face) << (_S56 + np.uint64(2 * s))
    if other & _GRAND:
        key |= (hand & RANGE_MASKS[2]) >> _S12
    return key


@njit(cache=True, inline="always")
def contract_key_nb(leader_hand, follower_hand, in_play):
    """A trick boundary's table key, by relative rank: the leader's suited cards numbered by
    their place among the suited cards in play, with the Colons it holds (bits 52-54); how
    many cards each suit has in play (4 bits each), with the follower's Colons; and each
    hand's classes that the other's Colons read (``classes_key_nb``). Two positions share a
    key when each suit holds the same sequence of owners and the Colons read the same
    classes."""
    return (compress_nb(leader_hand, in_play & ALL_SUITED) | (leader_hand & COLONS),
            segment_counts_nb(in_play, CONTRACT_SEGS[0]) | (follower_hand & COLONS),
            classes_key_nb(leader_hand, follower_hand), classes_key_nb(follower_hand, leader_hand))


@njit(cache=True, inline="always")
def representatives_nb(legal, hand, in_play, segmented, tops):
    """One card per run of equivalent cards of ``legal``: a card of the ``segmented`` cards
    is left out when the next card in play above it in its segment (``tops``: each
    segment's highest bit) is in ``hand`` too, as that card stands for both; other cards
    (Colons) are each their own run. For all cards at once: ``hand`` fills down through the
    cards out of play of each segment (an occluded fill, steps 1, 2, 4, 8: segments of up
    to 16 cards), and a card whose upper neighbour is filled has such a card above it."""
    filled = hand & segmented
    gaps = segmented & ~in_play & ~tops  # out of play, and below another card of its segment
    for step in (1, 2, 4, 8):
        filled |= gaps & (filled >> np.uint64(step))
        gaps &= gaps >> np.uint64(step)
    return legal & ~((filled >> ONE) & segmented & ~tops)


@njit(cache=True, inline="always")
def contract_representatives_nb(legal, hand, in_play, facing):
    """``representatives_nb`` over the suits, cut at the ranges of the Colons in ``facing``
    (those the other hand holds or has led): B-8..B-10 read the class of a card only where
    such a Colon faces it."""
    return representatives_nb(legal, hand, in_play, ALL_SUITED, CONTRACT_SEG_TOPS[_live_colons_nb(facing)])


@njit(cache=True, inline="always")
def _above_nb(cards):
    """The bits above the highest card of ``cards`` (every bit when empty)."""
    return ~ZERO if cards == ZERO else ~((bit_nb(highest_nb(cards)) << ONE) - ONE)


@njit(cache=True)
def top_run_nb(hand, other, trumps):
    """How many of the highest trumps in play ``hand`` holds in a row: each takes a trick of
    its own whoever leads (C-3; a Colon never beats a trump, B-8..B-10)."""
    return popcount_nb(hand & trumps & _above_nb(other & trumps))


@njit(cache=True)
def quick_tricks_nb(hand, other, trump, barred):
    """A lower bound on the tricks the leader (``hand``) takes against ``other``: the winners
    it can cash one after another. In each suit, the top cards in play that it holds (in a
    trump contract, a side suit only while ``other`` must follow or has no trump), and each
    Colon ``other`` cannot beat (B-9). The leader cashes a winner of a suit it is not barred
    from; it is stuck only when barred from the one suit whose winners remain. A block by
    a Colon of ``other`` (B-8) still loses the trick and bars the suit, and is possible only
    in a suit whose winners include a card of that Colon's range: stuck after it, the leader
    loses at most the rest of that suit, so at most the largest such suit's winners but
    one; barred from the start, at most the barred suit's."""
    n = 0
    other_trumps = trump >= 0 and other & SUIT_MASKS[trump] != ZERO
    blockable = ZERO  # the ranges of the Colons ``other`` holds
    for k in range(3):
        colon = ONE << np.uint64(52 + k)
        if hand & colon and not other_trumps and other & RANGE_MASKS[k] == ZERO:
            n += 1
        if other & colon:
            blockable |= RANGE_MASKS[k]
    barred_winners = most = 0
    for s in range(4):
        mine = hand & SUIT_MASKS[s]
        theirs = other & SUIT_MASKS[s]
        run = mine & _above_nb(theirs)
        top = popcount_nb(run)
        if other_trumps and s != trump:
            top = min(top, popcount_nb(theirs))
        n += top
        if run & blockable:
            most = max(most, top)
        if s == barred:
            barred_winners = top
    if most > 0:
        return n - max(most - 1, barred_winners)
    return n if n > barred_winners else 0


@njit(cache=True)
def last_tricks_nb(lead_hand, follow_hand, lead, barred, trump, when_void):
    """Tricks the leader takes of the last one or two, with best play by both: the leader
    picks its lead (``lead`` >= 0: already led), the follower its answer, then the last
    cards fall (B-8's bar cannot matter with one card left)."""
    leads = bit_nb(lead) if lead >= 0 else lead_legal_nb(lead_hand, barred)
    best = -1
    while leads:
        c = lowest_nb(leads)
        leads &= leads - ONE
        rest_lead = lead_hand & ~bit_nb(c)
        worst = 3
        follows = follow_legal_nb(follow_hand, c, when_void)
        while follows:
            f = lowest_nb(follows)
            follows &= follows - ONE
            rest_follow = follow_hand & ~bit_nb(f)
            leader_wins, _ = trick_nb(c, f, trump)
            won = 1 if leader_wins else 0
            if rest_follow:
                if leader_wins:
                    won += trick_nb(lowest_nb(rest_lead), lowest_nb(rest_follow), trump)[0]
                else:
                    won += not trick_nb(lowest_nb(rest_follow), lowest_nb(rest_lead), trump)[0]
            worst = min(worst, won)
        best = max(best, worst)
    return best


@njit(cache=True, inline="always")
def contract_enter_nb(tt, ctx, d):
    """Open the node of frame ``d``: RESOLVED_TRUE or RESOLVED_FALSE when its question
    ("can ``ctx.side`` take ``target`` of the tricks left?") is answered at once (too many or
    no tricks wanted, the last trick, quick tricks, the table), else EXPAND with its moves
    in ``ctx.order[d]``. The frame holds ``leader``, ``lead`` (the card led, -1 at a trick
    boundary), ``barred`` (B-8: the suit the leader may not lead) and ``target``."""
    fr = ctx.fr[d]
    hands = ctx.hands
    leader, lead, barred, target, side = fr[FR_LEADER], fr[FR_LEAD], fr[FR_BARRED], fr[FR_TARGET], ctx.side
    follower = 1 - leader
    n = popcount_nb(hands[follower])
    if target <= 0:
        fr[FR_BOUND] = 0
        return RESOLVED_TRUE
    if target > n:
        fr[FR_BOUND] = n
        return RESOLVED_FALSE
    ctx.stats[ST_NODES] += 1
    flags, trump = ctx.flags, ctx.trump
    if n <= 2:  # the last two tricks, played out
        won = last_tricks_nb(hands[leader], hands[follower], lead, barred, trump, ctx.when_void != 0)
        return _resolved_nb(fr, leader == side, n, won, won)
    in_play = hands[0] | hands[1]
    if lead >= 0:
        in_play |= bit_nb(lead)
    order = ctx.order[d]
    if lead < 0:
        # A trick boundary: the table holds bounds on the leader's tricks.
        t_lead = target if leader == side else n - target + 1
        fr[FR_T_LEAD] = t_lead
        if barred >= 0 and (hands[leader] & SUIT_MASKS[barred] == ZERO or hands[leader] & ~SUIT_MASKS[barred] == ZERO):
            barred = -1  # the bar (B-8) leaves the leads as they are: the position without it
        if flags & USE_TT:
            # The key first, and its bucket fetched while the bounds are tried: a probe waits
            # for memory more than any other step of a node.
            k0, k1, k2, k3 = contract_key_nb(hands[leader], hands[follower], in_play)
            i = tt_bucket_nb(tt, k0, k1, k2, k3, barred + 1)
            prefetch_nb(tt, i)
            prefetch_nb(tt, i + 1)
        if flags & USE_BOUNDS:
            quick = quick_tricks_nb(hands[leader], hands[follower], trump, barred)
            if quick >= t_lead:
                return _resolved_nb(fr, leader == side, n, quick, n)
            if trump >= 0:
                most = n - top_run_nb(hands[follower], hands[leader], SUIT_MASKS[trump])
                if most < t_lead:
                    return _resolved_nb(fr, leader == side, n, 0, most)
        best = -1
        if flags & USE_TT:
            ctx.keys[d, 0], ctx.keys[d, 1], ctx.keys[d, 2], ctx.keys[d, 3] = k0, k1, k2, k3
            fr[FR_META] = barred + 1
            j = tt_find_nb(tt, ctx, i, k0, k1, k2, k3, barred + 1)
            if j >= 0:
                if tt[j].lo >= t_lead or tt[j].hi < t_lead:
                    ctx.stats[ST_TT_HITS] += 1
                    return _resolved_nb(fr, leader == side, n, np.int64(tt[j].lo), np.int64(tt[j].hi))
                best = tt[j].best
        fr[FR_TO_PLAY] = leader
        moves = lead_legal_nb(hands[leader], barred)
        if flags & USE_EQUIV:
            moves = contract_representatives_nb(moves, hands[leader], in_play, hands[follower])
        fr[FR_N] = _order_leads_nb(order, moves, hands[follower], trump, best, flags)
    else:
        # The follower's turn: C-3 with B-8..B-10.
        fr[FR_TO_PLAY] = follower
        moves = follow_legal_nb(hands[follower], lead, ctx.when_void != 0)
        if flags & USE_EQUIV:
            moves = contract_representatives_nb(moves, hands[follower], in_play, hands[leader] | bit_nb(lead))
        fr[FR_N] = _order_follows_nb(order, moves, lead, trump, flags)
    fr[FR_I] = 0
    fr[FR_BOUND] = -1 if fr[FR_TO_PLAY] == side else n  # no child's bound yet
    return EXPAND


@njit(cache=True, inline="always")
def _resolved_nb(fr, leader_searched, n, lo, hi):
    """Answer a node at once from bounds on the leader's tricks, ``lo`` <= tricks <= ``hi``,
    one of which settles the frame's question: RESOLVED_TRUE or RESOLVED_FALSE, with the
    bound on the searched side's tricks that settles it in ``FR_BOUND``."""
    if not leader_searched:
        lo, hi = n - hi, n - lo
    found = lo >= fr[FR_TARGET]
    fr[FR_BOUND] = lo if found else hi
    return RESOLVED_TRUE if found else RESOLVED_FALSE


@njit(cache=True, inline="always")
def contract_child_nb(ctx, d, c):
    """Play card ``c`` at frame ``d`` and set up the next frame."""
    fr, child = ctx.fr[d], ctx.fr[d + 1]
    leader, lead = fr[FR_LEADER], fr[FR_LEAD]
    ctx.hands[fr[FR_TO_PLAY]] &= ~bit_nb(c)
    if lead < 0:
        child[FR_LEADER], child[FR_LEAD], child[FR_BARRED], child[FR_TARGET] = leader, c, -1, fr[FR_TARGET]
    else:
        leader_wins, bar = trick_nb(lead, c, ctx.trump)
        nxt = leader if leader_wins else 1 - leader
        child[FR_LEADER], child[FR_LEAD], child[FR_BARRED] = nxt, -1, bar
        child[FR_TARGET] = fr[FR_TARGET] - (nxt == ctx.side)


@njit(cache=True, inline="always")
def contract_close_nb(tt, ctx, d, found, chosen):
    """A trick boundary's answer goes to the table as a bound on the leader's tricks: its
    ``FR_BOUND``, turned to the leader's side."""
    fr = ctx.fr[d]
    if fr[FR_LEAD] < 0 and ctx.flags & USE_TT:
        leader = fr[FR_LEADER]
        n = popcount_nb(ctx.hands[1 - leader])
        bound = fr[FR_BOUND]
        is_lower = found == (leader == ctx.side)
        if leader != ctx.side:
            bound = n - bound
        tt_store_nb(tt, ctx, ctx.keys[d, 0], ctx.keys[d, 1], ctx.keys[d, 2], ctx.keys[d, 3], fr[FR_META],
                    is_lower, bound if is_lower else bound + 1, chosen, n)


@njit(cache=True)
def contract_search_nb(tt, ctx, leader, lead, barred, side, target):
    """Can ``side`` take at least ``target`` of the tricks left (counting the trick in
    progress)? ``lead``: the card the leader has led, or -1 at a trick boundary, where
    ``barred`` is the suit the leader may not lead (B-8, -1: none). A depth-first search
    over the frames of ``ctx`` (an explicit stack: no recursion), failing soft: it returns
    a bound on the tricks ``side`` takes, at least ``target`` (a lower bound) exactly when
    the answer is yes, else an upper bound. Each node's bound is what its children's
    bounds prove (the bound of the move that settles it, or the mover's best over all its
    moves when none does), so the table keeps bounds tighter than the target, for the next
    searches at other targets."""
    ctx.side = side
    root = ctx.fr[0]
    root[FR_LEADER], root[FR_LEAD], root[FR_BARRED], root[FR_TARGET] = leader, lead, barred, target
    d = 0
    state = contract_enter_nb(tt, ctx, 0)
    while True:
        if state == EXPAND:
            fr = ctx.fr[d]
            if fr[FR_I] < fr[FR_N]:
                contract_child_nb(ctx, d, ctx.order[d, fr[FR_I]])
                d += 1
                state = contract_enter_nb(tt, ctx, d)
                continue
            found = fr[FR_TO_PLAY] != side  # every move tried: the mover could not
            contract_close_nb(tt, ctx, d, found, -1)
        else:
            found = state == RESOLVED_TRUE
        # Hand the answer up until a parent still has moves to try.
        while True:
            if d == 0:
                return ctx.fr[0, FR_BOUND]
            child = ctx.fr[d]
            d -= 1
            fr = ctx.fr[d]
            bound = child[FR_BOUND] + fr[FR_TARGET] - child[FR_TARGET]  # with the trick the move won
            c = ctx.order[d, fr[FR_I]]
            ctx.hands[fr[FR_TO_PLAY]] |= bit_nb(c)
            if found == (fr[FR_TO_PLAY] == side):  # the mover's wish: this move settles the node
                fr[FR_BOUND] = bound
                contract_close_nb(tt, ctx, d, found, c)
                continue
            fr[FR_BOUND] = min(fr[FR_BOUND], bound) if found else max(fr[FR_BOUND], bound)
            fr[FR_I] += 1
            state = EXPAND
            break


@njit(cache=True, inline="always")
def _push_lowest_first_nb(order, n, cards):
    """Append the cards of ``cards`` to ``order[n:]`` from the lowest; the new length."""
    while cards:
        order[n] = lowest_nb(cards)
        cards &= cards - ONE
        n += 1
    return n


@njit(cache=True, inline="always")
def _order_leads_nb(order, moves, other, trump, best, flags):
    """Leads to try, best first: the table's best lead, then side-suit cards that win the
    trick as they stand, other side-suit cards, winning trumps, other trumps; where the
    other hand holds trumps, the winning trumps first and cards of suits it can ruff last;
    then Colons from the lowest. Each group suit by suit, from the suit the other hand
    holds fewest cards of, and from the highest card (a winner to cash, or a card to drive
    one out)."""
    n = 0
    if best >= 0 and moves & bit_nb(best):
        order[n] = best
        n += 1
        moves &= ~bit_nb(best)
    if not flags & USE_ORDER:
        return _push_lowest_first_nb(order, n, moves)
    trumps = SUIT_MASKS[trump] if trump >= 0 else ZERO
    can_ruff = other & trumps != ZERO
    winners, ruffed = ZERO, ZERO
    # The suits as (the other hand's cards << 2 | suit), sorted by a five-swap network.
    k0, k1 = popcount_nb(other & SUIT_MASKS[0]) << 2, popcount_nb(other & SUIT_MASKS[1]) << 2 | 1
    k2, k3 = popcount_nb(other & SUIT_MASKS[2]) << 2 | 2, popcount_nb(other & SUIT_MASKS[3]) << 2 | 3
    k0, k1 = min(k0, k1), max(k0, k1)
    k2, k3 = min(k2, k3), max(k2, k3)
    k0, k2 = min(k0, k2), max(k0, k2)
    k1, k3 = min(k1, k3), max(k1, k3)
    k1, k2 = min(k1, k2), max(k1, k2)
    for s in range(4):
        mine = moves & SUIT_MASKS[s]
        if mine == ZERO:
            continue
        theirs = other & SUIT_MASKS[s]
        if theirs != ZERO:
            winners |= mine & _above_nb(theirs)
        elif s == trump or not can_ruff:
            winners |= mine
        else:
            ruffed |= mine
    rest = moves & ~winners
    side_winners, side_rest = winners & ~trumps, rest & ALL_SUITED & ~trumps & ~ruffed
    if can_ruff:
        parts = (winners & trumps, side_winners, side_rest, rest & trumps, ruffed)
    else:
        parts = (side_winners, side_rest, winners & trumps, rest & trumps, ruffed)  # none ruffable
    for part in parts:
        for k in (k0, k1, k2, k3):
            cards = part & SUIT_MASKS[k & 3]
            while cards:
                top = highest_nb(cards)
                order[n] = top
                cards &= ~bit_nb(top)
                n += 1
    return _push_lowest_first_nb(order, n, moves & ~ALL_SUITED)


@njit(cache=True, inline="always")
def _order_follows_nb(order, moves, lead, trump, flags):
    """Follows to try: the cheapest card that wins the trick, then a Colon (a B-8 block, or a
    discard), then the others from the lowest, trumps last."""
    n = 0
    if not flags & USE_ORDER:
        return _push_lowest_first_nb(order, n, moves)
    trumps = SUIT_MASKS[trump] if trump >= 0 else ZERO
    suited = moves & ALL_SUITED
    # C-3, B-9: a led Colon loses to a trump or a card of its range; a Colon never wins.
    winners = suited & (trumps | RANGE_MASKS[lead - 52]) if lead >= 52 else beaters_nb(suited, lead, trump)
    if winners:
        order[0] = lowest_nb(winners)
        n = 1
        moves &= ~bit_nb(order[0])
    for part in (moves & COLONS, moves & ~trumps & ~COLONS, moves & trumps):
        n = _push_lowest_first_nb(order, n, part)
    return n


@njit(cache=True)
def contract_best_nb(tt, ctx, leader, lead, barred, side, floor=0):
    """The most tricks ``side`` takes from here (known to be at least ``floor``): zero-window
    searches halving [floor, tricks left] until they meet, the table shared between them."""
    at = contract_at_nb(ctx, leader, lead, barred, side)
    return value_near_nb(tt, ctx, False, at, -1, floor, popcount_nb(ctx.hands[1 - leader]))


@njit(cache=True)
def contract_value_nb(tt, ctx_arr, to_move, lead, barred):
    """Tricks the side to move takes from here with perfect play. ``lead`` >= 0: the other
    seat has led it and ``to_move`` follows; else ``to_move`` leads, barred from ``barred``."""
    ctx = ctx_arr[0]
    renew_nb(ctx, contract_rules_nb(ctx.trump, ctx.when_void))
    return contract_best_nb(tt, ctx, to_move if lead < 0 else 1 - to_move, lead, barred, to_move)


@njit(cache=True)
def contract_card_values_nb(tt, ctx_arr, to_move, lead, barred, values):
    """``values[card]``: tricks the side to move takes from here after playing that legal
    card (-1 for the others, ``card_values_nb``); returns the best of them."""
    ctx = ctx_arr[0]
    renew_nb(ctx, contract_rules_nb(ctx.trump, ctx.when_void))
    hands = ctx.hands
    values[:] = -1
    if lead < 0:
        legal = lead_legal_nb(hands[to_move], barred)
    else:
        legal = follow_legal_nb(hands[to_move], lead, ctx.when_void != 0)
    return card_values_nb(tt, ctx, False, to_move, np.array([lead]), legal, values)


@njit(cache=True, inline="always")
def contract_after_card_nb(c, to_move, lead, trump):
    """C-3 with B-8: the position after ``to_move`` plays ``c`` (``lead``: the card led to
    it, -1 when ``c`` is the lead): (the trick for ``to_move`` if ``c`` ends it, 0 or 1;
    the leader; the card led, -1 at the next trick's start; the suit that leader may not
    lead)."""
    if lead < 0:
        return 0, to_move, c, -1
    leader_wins, barred = trick_nb(lead, c, trump)
    leader = 1 - to_move if leader_wins else to_move
    return int(leader == to_move), leader, -1, barred


# --- Bid Euchre: four hands in partnerships, E-2 effective suits ---------------------------

def euchre_layout(trump: int, double_deck: bool, joker: bool):
    """The solver layout for one trump suit (E-2): (to_layout[card], from_layout[bit],
    segs[effective suit], seg_of[bit], power[bit], group[bit]). Each effective suit is a run of bits in
    power order, trump the first (suit 0 of the layout); the double deck's two copies of a
    card sit side by side in a pair (``group``: the pair's bits), every pair starting at an
    even bit, so that copies are told apart only by the order they are played in."""
    copies = 2 if double_deck else 1
    cards = [c + 24 * k for k in range(copies) for c in range(24)] + ([EUCHRE_JOKER] if joker else [])
    suits = [trump] + [s for s in range(4) if s != trump]
    to_layout = np.full(EUCHRE_BITS, -1, dtype=np.int64)
    from_layout = np.full(64, -1, dtype=np.int64)
    segs = np.zeros(4, dtype=np.uint64)
    seg_of = np.zeros(64, dtype=np.int64)
    power = np.zeros(64, dtype=np.int64)
    group = np.zeros(64, dtype=np.uint64)
    bit = 0
    for k, suit in enumerate(suits):
        members = sorted((c for c in cards if EUCHRE_EFF_SUIT[trump, c] == suit), key=lambda c: EUCHRE_POWER[trump, c])
        powers = sorted({int(EUCHRE_POWER[trump, c]) for c in members})
        for p in powers:
            same = [c for c in members if EUCHRE_POWER[trump, c] == p]
            start = bit
            for c in same:
                to_layout[c] = bit
                from_layout[bit] = c
                power[bit] = p
                seg_of[bit] = k
                bit += 1
            pair = sum(1 << b for b in range(start, bit))
            for b in range(start, bit):
                group[b] = pair
            if double_deck:
                bit += bit % 2
        segs[k] = sum(1 << int(to_layout[c]) for c in members)
    return to_layout, from_layout, segs, seg_of, power, group


@njit(cache=True, inline="always")
def euchre_follow_nb(hand, lead, segs, seg_of):
    """C-3 over E-2 in the solver layout: the lead's effective suit if held, else any card."""
    if lead < 0:
        return hand
    held = hand & segs[seg_of[lead]]
    return held if held != ZERO else hand


@njit(cache=True, inline="always")
def euchre_layout_beats_nb(card, best, power, seg_of):
    """E-2, C-3 in the solver layout (trump is effective suit 0): a trump beats any other
    suit; within a suit the higher power, and an identical copy does not beat."""
    if seg_of[card] == seg_of[best]:
        return power[card] > power[best]
    return seg_of[card] == 0


@njit(cache=True, inline="always")
def euchre_representatives_nb(legal, hand, in_play, segs, group, double_deck):
    """One card per run of equivalent cards of ``legal``: a card is left out when the next
    card in play above it in its effective suit is in ``hand`` too, and so is every card in
    play of equal power to either (a double-deck copy elsewhere breaks the run). The single
    deck has no equal powers: ``representatives_nb`` over the effective suits."""
    if not double_deck:
        tops = ZERO
        for k in range(4):
            tops |= bit_nb(highest_nb(segs[k]))
        return representatives_nb(legal, hand, in_play, segs[0] | segs[1] | segs[2] | segs[3], tops)
    keep = legal
    for k in range(4):
        seg = segs[k]
        rest = legal & seg
        while rest:
            low = rest & (~rest + ONE)
            rest ^= low
            above = in_play & seg & ~((low << ONE) - ONE) & ~group[lowest_nb(low)]
            if above:
                nxt = above & (~above + ONE)
                span = in_play & (group[lowest_nb(low)] | group[lowest_nb(nxt)])
                if span & ~hand == ZERO:
                    keep &= ~low
    return keep


@njit(cache=True, inline="always")
def euchre_key_nb(hands, in_play, segs):
    """A trick boundary's table key in the single deck, by relative rank: three hands' cards
    numbered by their place among the cards in play (the fourth holds the rest), and how
    many cards each effective suit has in play (4 bits each). Two positions share a key
    when each effective suit holds the same sequence of owners."""
    return (compress_nb(hands[0], in_play), compress_nb(hands[1], in_play), compress_nb(hands[2], in_play),
            segment_counts_nb(in_play, segs))


_EVEN = np.uint64(0x5555555555555555)


@njit(cache=True, inline="always")
def copies_key_nb(hand):
    """A double-deck hand's table key: how many copies of each card it holds (the pair's
    low bit: one or more, high bit: both), whichever copies they are."""
    low = hand & _EVEN
    high = (hand >> ONE) & _EVEN
    return (low | high) | ((low & high) << ONE)


@njit(cache=True, inline="always")
def last_trick_nb(ctx, played, trick_best, trick_best_seat, to_play):
    """The winner of the last trick, every seat from ``to_play`` on holding one card."""
    best, best_seat = trick_best, trick_best_seat
    n_active = 4 if ctx.out_seat < 0 else 3
    seat = to_play
    for _ in range(n_active - played):
        c = lowest_nb(ctx.hands[seat])
        if best < 0 or euchre_layout_beats_nb(c, best, ctx.power, ctx.seg_of):
            best, best_seat = c, seat
        seat = (seat + 1) % 4
        if seat == ctx.out_seat:
            seat = (seat + 1) % 4
    return best_seat


@njit(cache=True, inline="always")
def sure_trumps_nb(hands, trumps):
    """(team 0's, team 1's) sure tricks from trumps (single deck): a trump above every trump
    the other team holds wins the trick it is played to, and one hand's cards go to
    different tricks, so a team takes at least as many tricks as either of its hands holds
    such trumps; the other team takes at most the rest."""
    t0 = (hands[0] | hands[2]) & trumps
    t1 = (hands[1] | hands[3]) & trumps
    above1, above0 = _above_nb(t1), _above_nb(t0)
    sure0 = max(popcount_nb(hands[0] & trumps & above1), popcount_nb(hands[2] & trumps & above1))
    sure1 = max(popcount_nb(hands[1] & trumps & above0), popcount_nb(hands[3] & trumps & above0))
    return sure0, sure1


@njit(cache=True, inline="always")
def _next_seat_nb(seat, out_seat):
    """E-6: the seat after ``seat`` in play, skipping the one that sits out."""
    nxt = (seat + 1) % 4
    return (nxt + 1) % 4 if nxt == out_seat else nxt


@njit(cache=True, inline="always")
def _winner_nb(c0, c1, c2, c3, s1, s2, s3, leader, power, seg_of):
    """The seat winning a trick led by ``leader`` with ``c0``, then ``c1`` by ``s1`` ... (c3
    -1 in a three-card trick)."""
    best, best_seat = c0, leader
    if euchre_layout_beats_nb(c1, best, power, seg_of):
        best, best_seat = c1, s1
    if euchre_layout_beats_nb(c2, best, power, seg_of):
        best, best_seat = c2, s2
    if c3 >= 0 and euchre_layout_beats_nb(c3, best, power, seg_of):
        best_seat = s3
    return best_seat


@njit(cache=True)
def last_two_tricks_nb(ctx, leader, side, target):
    """Can team ``side`` take ``target`` of the last two tricks, every active hand holding
    two cards and ``leader`` to lead? The ways to play the first trick (at most 16), each
    followed by the forced last trick, by plain minimax that stops at a seat as soon as one
    card settles the answer for its team."""
    hands, power, seg_of, segs, out = ctx.hands, ctx.power, ctx.seg_of, ctx.segs, ctx.out_seat
    s1 = _next_seat_nb(leader, out)
    s2 = _next_seat_nb(s1, out)
    s3 = _next_seat_nb(s2, out) if out < 0 else -1
    h0, h1, h2 = hands[leader], hands[s1], hands[s2]
    # At each seat: a card that reaches the target settles it for the side (``mine``), one
    # that misses it for the other team.
    mine0, mine1, mine2, mine3 = leader % 2 == side, s1 % 2 == side, s2 % 2 == side, s3 % 2 == side
    ok0, rest0 = not mine0, h0
    while rest0:
        c0 = lowest_nb(rest0)
        rest0 &= rest0 - ONE
        ok1, rest1 = not mine1, euchre_follow_nb(h1, c0, segs, seg_of)
        while rest1:
            c1 = lowest_nb(rest1)
            rest1 &= rest1 - ONE
            ok2, rest2 = not mine2, euchre_follow_nb(h2, c0, segs, seg_of)
            while rest2:
                c2 = lowest_nb(rest2)
                rest2 &= rest2 - ONE
                # Three-handed (E-6): one pass with no fourth card.
                ok3, rest3 = not mine3, euchre_follow_nb(hands[s3], c0, segs, seg_of) if s3 >= 0 else ONE
                while rest3:
                    c3 = lowest_nb(rest3) if s3 >= 0 else -1
                    rest3 &= rest3 - ONE
                    w = _winner_nb(c0, c1, c2, c3, s1, s2, s3, leader, power, seg_of)
                    # The last trick: every hand's other card, the first trick's winner leading.
                    gone = ~(bit_nb(c0) | bit_nb(c1) | bit_nb(c2) | (bit_nb(c3) if c3 >= 0 else ZERO))
                    t1 = _next_seat_nb(w, out)
                    t2 = _next_seat_nb(t1, out)
                    t3 = _next_seat_nb(t2, out) if out < 0 else -1
                    w2 = _winner_nb(lowest_nb(hands[w] & gone), lowest_nb(hands[t1] & gone),
                                    lowest_nb(hands[t2] & gone), lowest_nb(hands[t3] & gone) if t3 >= 0 else -1,
                                    t1, t2, t3, w, power, seg_of)
                    if (int(w % 2 == side) + int(w2 % 2 == side) >= target) == mine3:
                        ok3 = mine3
                        break
                if ok3 == mine2:
                    ok2 = mine2
                    break
            if ok2 == mine1:
                ok1 = mine1
                break
        if ok1 == mine0:
            ok0 = mine0
            break
    return ok0


@njit(cache=True, inline="always")
def euchre_enter_nb(tt, ctx, d):
    """Open the node of frame ``d`` (see ``contract_enter_nb``): can team ``ctx.side`` take
    ``target`` of the tricks left, counting the trick in progress? The frame holds the
    trick's ``leader`` and ``lead`` (-1: not led yet), the cards ``played`` to it, the card
    winning it (``best``, by ``best_seat``) and the seat ``to_play``; cards and suits are in
    the solver layout (``ctx``'s tables); ``ctx.out_seat`` sits out."""
    fr = ctx.fr[d]
    hands = ctx.hands
    leader, played, to_play, target, side = fr[FR_LEADER], fr[FR_PLAYED], fr[FR_TO_PLAY], fr[FR_TARGET], ctx.side
    n = popcount_nb(hands[to_play])
    if target <= 0:
        return RESOLVED_TRUE
    if target > n:
        return RESOLVED_FALSE
    ctx.stats[ST_NODES] += 1
    flags = ctx.flags
    segs, seg_of = ctx.segs, ctx.seg_of
    if n == 1:
        won = last_trick_nb(ctx, played, fr[FR_BEST], fr[FR_BEST_SEAT], to_play) % 2 == side
        return RESOLVED_TRUE if won else RESOLVED_FALSE
    in_play = hands[0] | hands[1] | hands[2] | hands[3]
    best = -1
    hand = hands[to_play]
    if played == 0:
        t_lead = target if leader % 2 == side else n - target + 1
        fr[FR_T_LEAD] = t_lead
        if flags & USE_BOUNDS and not ctx.double_deck:
            sure0, sure1 = sure_trumps_nb(hands, segs[0])
            mine, theirs = (sure0, sure1) if side == 0 else (sure1, sure0)
            if mine >= target:
                return RESOLVED_TRUE
            if n - theirs < target:
                return RESOLVED_FALSE
        if n == 2:
            return RESOLVED_TRUE if last_two_tricks_nb(ctx, leader, side, target) else RESOLVED_FALSE
        if flags & USE_TT:
            if ctx.double_deck:
                k0, k1 = copies_key_nb(hands[0]), copies_key_nb(hands[1])
                k2, k3 = copies_key_nb(hands[2]), copies_key_nb(hands[3])
            else:
                k0, k1, k2, k3 = euchre_key_nb(hands, in_play, segs)
            ctx.keys[d, 0], ctx.keys[d, 1], ctx.keys[d, 2], ctx.keys[d, 3] = k0, k1, k2, k3
            j = tt_probe_nb(tt, ctx, k0, k1, k2, k3, leader)
            if j >= 0:
                if tt[j].lo >= t_lead or tt[j].hi < t_lead:
                    ctx.stats[ST_TT_HITS] += 1
                    return RESOLVED_TRUE if (tt[j].lo >= t_lead) == (leader % 2 == side) else RESOLVED_FALSE
                best = tt[j].best
        moves = hand
    else:
        in_play |= bit_nb(fr[FR_BEST])  # the card to beat parts runs it falls between
        moves = euchre_follow_nb(hand, fr[FR_LEAD], segs, seg_of)
        if moves & (moves - ONE) == ZERO:  # one legal card
            ctx.order[d, 0] = lowest_nb(moves)
            fr[FR_N], fr[FR_I] = 1, 0
            return EXPAND
    if flags & USE_EQUIV:
        moves = euchre_representatives_nb(moves, hand, in_play, segs, ctx.group, ctx.double_deck)
    fr[FR_N] = _order_euchre_nb(ctx.order[d], moves, ctx, to_play, played, fr[FR_LEAD], fr[FR_BEST], fr[FR_BEST_SEAT],
                                best, in_play)
    fr[FR_I] = 0
    return EXPAND


@njit(cache=True, inline="always")
def euchre_child_nb(ctx, d, c):
    """Play card ``c`` at frame ``d`` and set up the next frame (E-6: the seat that sits out
    is skipped; a complete trick's winner leads the next)."""
    fr, child = ctx.fr[d], ctx.fr[d + 1]
    seat = fr[FR_TO_PLAY]
    ctx.hands[seat] &= ~bit_nb(c)
    best, best_seat, lead = fr[FR_BEST], fr[FR_BEST_SEAT], fr[FR_LEAD]
    if fr[FR_PLAYED] == 0:
        best, best_seat, lead = c, seat, c
    elif euchre_layout_beats_nb(c, best, ctx.power, ctx.seg_of):
        best, best_seat = c, seat
    if fr[FR_PLAYED] + 1 == (4 if ctx.out_seat < 0 else 3):
        child[FR_LEADER], child[FR_PLAYED], child[FR_TO_PLAY] = best_seat, 0, best_seat
        child[FR_LEAD], child[FR_BEST], child[FR_BEST_SEAT] = -1, -1, -1
        child[FR_TARGET] = fr[FR_TARGET] - (best_seat % 2 == ctx.side)
    else:
        nxt = (seat + 1) % 4
        if nxt == ctx.out_seat:
            nxt = (nxt + 1) % 4
        child[FR_LEADER], child[FR_PLAYED], child[FR_TO_PLAY] = fr[FR_LEADER], fr[FR_PLAYED] + 1, nxt
        child[FR_LEAD], child[FR_BEST], child[FR_BEST_SEAT] = lead, best, best_seat
        child[FR_TARGET] = fr[FR_TARGET]


@njit(cache=True, inline="always")
def euchre_close_nb(tt, ctx, d, found, chosen):
    """A trick boundary's answer goes to the table as a bound on the leader's team's tricks."""
    fr = ctx.fr[d]
    if fr[FR_PLAYED] == 0 and ctx.flags & USE_TT:
        leader = fr[FR_LEADER]
        tt_store_nb(tt, ctx, ctx.keys[d, 0], ctx.keys[d, 1], ctx.keys[d, 2], ctx.keys[d, 3], leader,
                    found == (leader % 2 == ctx.side), fr[FR_T_LEAD], chosen, popcount_nb(ctx.hands[leader]))


@njit(cache=True)
def euchre_search_nb(tt, ctx, leader, played, best, best_seat, lead, to_play, side, target):
    """Can team ``side`` take at least ``target`` of the tricks left? The frame of the root
    is the position (see ``euchre_enter_nb``); a depth-first search over an explicit stack."""
    ctx.side = side
    root = ctx.fr[0]
    root[FR_LEADER], root[FR_PLAYED], root[FR_BEST], root[FR_BEST_SEAT] = leader, played, best, best_seat
    root[FR_LEAD], root[FR_TO_PLAY], root[FR_TARGET] = lead, to_play, target
    d = 0
    state = euchre_enter_nb(tt, ctx, 0)
    while True:
        if state == EXPAND:
            fr = ctx.fr[d]
            if fr[FR_I] < fr[FR_N]:
                euchre_child_nb(ctx, d, ctx.order[d, fr[FR_I]])
                d += 1
                state = euchre_enter_nb(tt, ctx, d)
                continue
            found = fr[FR_TO_PLAY] % 2 != side
            euchre_close_nb(tt, ctx, d, found, -1)
        else:
            found = state == RESOLVED_TRUE
        while True:
            if d == 0:
                return found
            d -= 1
            fr = ctx.fr[d]
            c = ctx.order[d, fr[FR_I]]
            ctx.hands[fr[FR_TO_PLAY]] |= bit_nb(c)
            if found == (fr[FR_TO_PLAY] % 2 == side):
                euchre_close_nb(tt, ctx, d, found, c)
                continue
            fr[FR_I] += 1
            state = EXPAND
            break


@njit(cache=True, inline="always")
def _order_euchre_nb(order, moves, ctx, seat, played, lead, trick_best, trick_best_seat, best, in_play):
    """Cards to try: the table's best lead first, then (leading) ``_order_euchre_leads_nb``
    or (following) the cheapest card that takes the trick from the opponents for good; then
    the rest from the lowest, side cards before trumps."""
    n = 0
    if best >= 0 and moves & bit_nb(best):
        order[0] = best
        n = 1
        moves &= ~bit_nb(best)
    if ctx.flags & USE_ORDER and moves:
        if played == 0:
            n, moves = _order_euchre_leads_nb(order, n, moves, ctx.hands, seat, ctx.segs, in_play)
        else:
            c = _euchre_overtake_nb(moves, ctx, seat, played, lead, trick_best, trick_best_seat)
            if c >= 0:
                order[n] = c
                n += 1
                moves &= ~bit_nb(c)
    for part in (moves & ~ctx.segs[0], moves & ctx.segs[0]):
        n = _push_lowest_first_nb(order, n, part)
    return n


@njit(cache=True, inline="always")
def _order_euchre_leads_nb(order, n, moves, hands, seat, segs, in_play):
    """Leads to try, side suits before trumps (cut-offs come sooner that way), each in
    steps: the top card in play of a suit; a low card of a suit whose top card the partner
    holds; a low card of a suit the partner can ruff; the highest card of any other suit.
    A suit an opponent can ruff (void, holding trumps) is left to the rest."""
    partner, opp1, opp2 = hands[(seat + 2) % 4], hands[(seat + 1) % 4], hands[(seat + 3) % 4]
    trumps = segs[0]
    for trump_suit in (False, True):
        for step in range(4):
            for k in range(0 if trump_suit else 1, 1 if trump_suit else 4):
                mine = moves & segs[k]
                if mine == ZERO:
                    continue
                if k > 0 and ((opp1 & segs[k] == ZERO and opp1 & trumps != ZERO)
                              or (opp2 & segs[k] == ZERO and opp2 & trumps != ZERO)):
                    continue
                top = highest_nb(in_play & segs[k])
                if step == 0 and highest_nb(mine) == top:
                    c = top
                elif step == 1 and partner & bit_nb(top):
                    c = lowest_nb(mine)
                elif step == 2 and k > 0 and partner & segs[k] == ZERO and partner & trumps != ZERO:
                    c = lowest_nb(mine)
                elif step == 3:
                    c = highest_nb(mine)
                else:
                    continue
                order[n] = c
                n += 1
                moves &= ~bit_nb(c)
    return n, moves


@njit(cache=True, inline="always")
def _euchre_overtake_nb(moves, ctx, seat, played, lead, trick_best, trick_best_seat):
    """A follower's card to try first, or -1: while the opponents win the trick, or could
    still overtake the partner's card, the cheapest card that takes it beyond the reach of
    the opponents still to play (failing that, while the opponents win, the cheapest that
    takes it at all)."""
    power, seg_of = ctx.power, ctx.seg_of
    # The strongest card the opponent still to play (at most one: seats alternate between
    # the teams) can put on the trick, -1 if none.
    threat = -1
    s = seat
    for _ in range((4 if ctx.out_seat < 0 else 3) - played - 1):
        s = _next_seat_nb(s, ctx.out_seat)
        if s % 2 != seat % 2:
            hand = ctx.hands[s]
            held = hand & ctx.segs[seg_of[lead]]
            if held:
                threat = highest_nb(held)
            elif hand & ctx.segs[0]:
                threat = highest_nb(hand & ctx.segs[0])
    theirs = trick_best_seat % 2 != seat % 2
    if not theirs and (threat < 0 or not euchre_layout_beats_nb(threat, trick_best, power, seg_of)):
        return -1
    first = -1
    rest = moves
    while rest:
        c = lowest_nb(rest)
        rest &= rest - ONE
        if euchre_layout_beats_nb(c, trick_best, power, seg_of):
            if threat < 0 or not euchre_layout_beats_nb(threat, c, power, seg_of):
                return c
            if first < 0 and theirs:
                first = c
    return first


@njit(cache=True)
def euchre_value_nb(tt, ctx, leader, played, best, best_seat, lead, to_play, side, floor):
    """The most tricks team ``side`` takes from this position (known to be at least
    ``floor``): zero-window searches halving [floor, tricks left], the table shared
    between them."""
    at = euchre_at_nb(ctx, leader, played, best, best_seat, lead, to_play, side)
    return value_near_nb(tt, ctx, True, at, -1, floor, popcount_nb(ctx.hands[to_play]))


# --- Whole deals ------------------------------------------------------------------------------

@njit(cache=True)
def contract_table_nb(tt, ctx_arr, table):
    """B-7, D-4: ``table[strain, declarer]``, the tricks each seat takes as declarer in each
    strain (0-3 the suits, 4 no-trump) with the opponent leading, from ``ctx.hands``. The two
    declarers of a strain share the table's entries (each strain starts a new generation:
    the keys leave out the trump), and the second search steps from the first one's value:
    a seat takes about as many tricks whoever leads."""
    ctx = ctx_arr[0]
    n = popcount_nb(ctx.hands[0])
    for strain in range(5):
        ctx.trump = strain if strain < 4 else -1
        renew_nb(ctx, contract_rules_nb(ctx.trump, ctx.when_void))
        guess = -1
        for declarer in range(2):
            at = contract_at_nb(ctx, 1 - declarer, -1, -1, 1 - declarer)  # the opponent leads
            table[strain, declarer] = n - value_near_nb(tt, ctx, False, at, guess, 0, n)
            guess = table[strain, declarer]  # the first declarer's tricks, now on lead


@njit(cache=True)
def euchre_batch_nb(tt, ctx_arr, hands, trumps, leaders, segs, seg_of, power, group, out):
    """Tricks the leader's team takes in each of a batch of deals (``hands[i]`` in the solver
    layout of ``trumps[i]``; ``segs[t]`` ... that layout's tables)."""
    ctx = ctx_arr[0]
    for i in range(hands.shape[0]):
        t = trumps[i]
        ctx.hands[:] = hands[i]
        ctx.segs[:] = segs[t]
        ctx.seg_of[:] = seg_of[t]
        ctx.power[:] = power[t]
        ctx.group[:] = group[t]
        ctx.stats[ST_GEN] += 1  # independent deals: each solved cold
        ctx.rules = 0
        out[i] = euchre_value_nb(tt, ctx, leaders[i], 0, -1, -1, -1, leaders[i], leaders[i] % 2, 0)


# --- A seat that plays double dummy (the ``dd`` policy) ---------------------------------------

@njit(cache=True)
def contract_dd_card_nb(dd, hands, to_move, lead, barred, trump, when_void):
    """B-7..B-10: the legal card of ``to_move`` whose double-dummy value is highest (the
    lowest of equals), every hand seen."""
    dd.hands[0], dd.hands[1] = hands[0], hands[1]
    dd.trump, dd.when_void = trump, when_void
    renew_nb(dd, contract_rules_nb(trump, when_void))
    legal = lead_legal_nb(hands[to_move], barred) if lead < 0 else follow_legal_nb(hands[to_move], lead, when_void)
    return dd_best_card_nb(dd, False, to_move, np.array([lead]), legal)


def _euchre_layouts():
    """Every solver layout, indexed [double deck, joker, trump]: to_layout, from_layout,
    segs, seg_of, power, group (see ``euchre_layout``), as arrays the kernels read."""
    tables = [[[euchre_layout(t, bool(d), bool(j)) for t in range(4)] for j in range(2)] for d in range(2)]
    return tuple(np.array([[[tables[d][j][t][k] for t in range(4)] for j in range(2)] for d in range(2)])
                 for k in range(6))


(EUCHRE_TO_LAYOUT, EUCHRE_FROM_LAYOUT, EUCHRE_SEGS, EUCHRE_SEG_OF, EUCHRE_LAYOUT_POWER,
 EUCHRE_GROUP) = _euchre_layouts()


@njit(cache=True)
def euchre_load_nb(dd, hands, trump, out_seat, double_deck, joker):
    """Set the context ``dd`` for Bid Euchre play with ``trump``: that solver layout's
    tables (E-2), the seat sitting out (E-6, holding no cards) and the ``hands`` (kernel
    card ids) in the layout, the table renewed (``renew_nb``). Returns the layout's map
    from kernel card ids."""
    d, j = int(double_deck), int(joker)
    to_layout = EUCHRE_TO_LAYOUT[d, j, trump]
    dd.segs[:] = EUCHRE_SEGS[d, j, trump]
    dd.seg_of[:] = EUCHRE_SEG_OF[d, j, trump]
    dd.power[:] = EUCHRE_LAYOUT_POWER[d, j, trump]
    dd.group[:] = EUCHRE_GROUP[d, j, trump]
    dd.double_deck, dd.out_seat = d, out_seat
    renew_nb(dd, euchre_rules_nb(trump, out_seat, d, j))
    for s in range(4):
        h = ZERO
        rest = hands[s] if s != out_seat else ZERO
        while rest:
            h |= bit_nb(to_layout[lowest_nb(rest)])
            rest &= rest - ONE
        dd.hands[s] = h
    return to_layout


@njit(cache=True)
def euchre_after_card_nb(dd, b, to_move, out_seat, side, leader, played, lead, best, best_seat):
    """The position after ``to_move`` plays ``b`` (solver layout) into the trick in progress,
    led by ``leader`` with ``lead`` and won so far by ``best`` (of ``best_seat``) after
    ``played`` cards: (the trick for ``side`` if this card ends it, 0 or 1; the next trick's
    leader, cards in it, best, best seat, lead; the seat to move)."""
    nb, nbs, nlead = best, best_seat, lead
    if played == 0:
        nb, nbs, nlead = b, to_move, b
    elif euchre_layout_beats_nb(b, best, dd.power, dd.seg_of):
        nb, nbs = b, to_move
    if played + 1 == (4 if out_seat < 0 else 3):  # the trick is complete: its winner leads the next
        return int(nbs % 2 == side), nbs, 0, -1, -1, -1, nbs
    nxt = (to_move + 1) % 4
    if nxt == out_seat:
        nxt = (nxt + 1) % 4
    return 0, leader if played > 0 else to_move, played + 1, nb, nbs, nlead, nxt


# --- One card's value, in either family ------------------------------------------------------
# A position before ``to_move`` plays (``pos``): Bid Euchre's (leader, cards played to the
# trick, lead, best card, its seat) in the solver layout, or the bridge games' (lead,). A
# position a search starts from (``at``): Bid Euchre's (leader, cards played, best card, its
# seat, lead, seat to play, team searched), or the bridge games' (leader, lead, barred suit,
# seat searched).

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


@njit(cache=True)
def after_card_nb(dd, euchre, to_move, pos, c, at):
    """Take ``c`` from the hand of ``to_move`` in ``dd.hands`` and set ``at`` to the position
    after it is played from ``pos``; returns the trick its side wins if ``c`` ends one (0
    or 1). The caller puts the card back."""
    dd.hands[to_move] &= ~bit_nb(c)
    if euchre:
        side = to_move % 2
        won, at[0], at[1], at[2], at[3], at[4], at[5] = euchre_after_card_nb(dd, c, to_move, dd.out_seat, side,
                                                                            pos[0], pos[1], pos[2], pos[3], pos[4])
        at[6] = side
        return won
    won, at[0], at[1], at[2] = contract_after_card_nb(c, to_move, pos[0], dd.trump)
    at[3] = to_move
    return won


@njit(cache=True, inline="always")
def bound_nb(tt, dd, euchre, at, target):
    """One zero-window search: does the side searched take at least ``target`` of the
    tricks left from the position ``at``? A bound on its tricks: a lower one, at least
    ``target``, when it does, else an upper one (the contract search fails soft; Bid
    Euchre's answers ``target`` or ``target - 1``)."""
    dd.stats[ST_SEARCHES] += 1
    if euchre:
        found = euchre_search_nb(tt, dd, at[0], at[1], at[2], at[3], at[4], at[5], at[6], target)
        return target if found else target - 1
    return contract_search_nb(tt, dd, at[0], at[1], at[2], at[3], target)


@njit(cache=True)
def value_near_nb(tt, dd, euchre, at, guess, lo, hi):
    """The most tricks the side searched takes from the position ``at``, known to lie in
    [lo, hi]: zero-window searches stepping from ``guess``, cheap when the guess is close
    (negative: halving the range), each narrowing the range by the bound it returns."""
    up = True  # stepping up from a target reached, or down from one missed
    if guess >= 0:
        target = min(max(guess, lo), hi)
        if target > lo:
            bound = bound_nb(tt, dd, euchre, at, target)
            up = bound >= target
            lo, hi = (max(lo, bound), hi) if up else (lo, min(hi, bound))
    while lo < hi:
        target = (lo + hi + 1) // 2 if guess < 0 else (lo + 1 if up else hi)
        bound = bound_nb(tt, dd, euchre, at, target)
        lo, hi = (max(lo, bound), hi) if bound >= target else (lo, min(hi, bound))
    return lo


@njit(cache=True, inline="always")
def search_table_nb(dd, euchre):
    """The part of the context's own table that a game's searches use (``EUCHRE_TT``)."""
    return dd.tt[:EUCHRE_TT if euchre else dd.tt.shape[0]]


@njit(cache=True)
def card_bound_nb(tt, dd, euchre, to_move, pos, c, target):
    """Whether the side of ``to_move`` takes at least ``target`` of the tricks left, the
    trick in progress included, after it plays ``c`` from ``pos`` in ``dd.hands``, as a
    bound on those tricks (``bound_nb``): at least ``target`` exactly when it does."""
    won = after_card_nb(dd, euchre, to_move, pos, c, dd.at)
    bound = won + bound_nb(tt, dd, euchre, dd.at, target - won)
    dd.hands[to_move] |= bit_nb(c)
    return bound


@njit(cache=True)
def card_value_nb(tt, dd, euchre, to_move, pos, c, guess, lo, hi):
    """The tricks the side of ``to_move`` takes, the trick in progress included, after it
    plays ``c`` from ``pos`` in ``dd.hands``, known to lie in [lo, hi]: ``value_near_nb``
    stepping from ``guess`` (negative: halving)."""
    won = after_card_nb(dd, euchre, to_move, pos, c, dd.at)
    v = won + value_near_nb(tt, dd, euchre, dd.at, max(guess - won, 0) if guess >= 0 else -1, max(lo - won, 0),
                            hi - won)
    dd.hands[to_move] |= bit_nb(c)
    return v


@njit(cache=True)
def card_values_nb(tt, dd, euchre, to_move, pos, moves, values):
    """``values[c]`` for each card ``c`` of ``moves``: the tricks the side of ``to_move``
    takes after playing it from ``pos`` (``card_value_nb``), each card valued from the value
    of the card before (values move little between cards); returns the best of them."""
    n = popcount_nb(dd.hands[to_move])
    best, guess = 0, -1
    while moves:
        c = lowest_nb(moves)
        moves &= moves - ONE
        values[c] = guess = card_value_nb(tt, dd, euchre, to_move, pos, c, guess, 0, n)
        best = max(best, guess)
    return best


@njit(cache=True)
def dd_best_card_nb(dd, euchre, to_move, pos, legal):
    """The card of ``legal`` whose double-dummy value is highest, the lowest of equals (the
    ``dd`` seat): the first is valued exactly, each other is searched once, for one trick
    more than the best so far, and valued exactly, upwards from the bound that search
    returns, only when it reaches that."""
    n = popcount_nb(dd.hands[to_move])
    tt = search_table_nb(dd, euchre)
    chosen, best = -1, -1
    while legal:
        c = lowest_nb(legal)
        legal &= legal - ONE
        if chosen < 0:
            chosen, best = c, card_value_nb(tt, dd, euchre, to_move, pos, c, -1, 0, n)
        elif best < n:
            bound = card_bound_nb(tt, dd, euchre, to_move, pos, c, best + 1)
            if bound > best:
                chosen, best = c, card_value_nb(tt, dd, euchre, to_move, pos, c, bound + 1, bound, n)
    return chosen


@njit(cache=True)
def euchre_share_runs_nb(skipped, hand, segs, seg_of, group, values):
    """Give each card of ``skipped`` (cards of ``hand`` that ``euchre_representatives_nb``
    left out) the value of the next card of ``hand`` above it in its effective suit, past
    its own copies: the card that stands for its run, or one that took its value already
    (highest first)."""
    while skipped:
        b = highest_nb(skipped)
        skipped &= ~bit_nb(b)
        above = hand & segs[seg_of[b]] & ~((bit_nb(b) << ONE) - ONE) & ~group[b]
        values[b] = values[lowest_nb(above)]


@njit(cache=True)
def euchre_card_values_nb(ctx_arr, hands, to_move, trump, out_seat, double_deck, joker, leader, played, lead,
                          best, best_seat, values):
    """E-6 from Python (``sim.dd.Solver``): the tricks the team of ``to_move`` takes from this
    position (kernel card ids; the trick in progress as for ``euchre_dd_card_nb``) and, when
    ``values`` has room, ``values[card]`` for each legal card: the tricks after playing it
    (-1 for the others; a double-deck card under the first copy held)."""
    dd = ctx_arr[0]
    to_layout = euchre_load_nb(dd, hands, trump, out_seat, double_deck, joker)
    from_layout = EUCHRE_FROM_LAYOUT[int(double_deck), int(joker), trump]
    lead_b = to_layout[lead] if lead >= 0 else -1
    best_b = to_layout[best] if best >= 0 else -1
    tt = search_table_nb(dd, True)
    if values.shape[0] == 0:
        return euchre_value_nb(tt, dd, leader, played, best_b, best_seat, lead_b, to_move, to_move % 2, 0)
    hand = dd.hands[to_move]
    in_play = dd.hands[0] | dd.hands[1] | dd.hands[2] | dd.hands[3]
    if best_b >= 0:
        in_play |= bit_nb(best_b)
    legal = euchre_follow_nb(hand, lead_b, dd.segs, dd.seg_of)
    moves = legal
    if dd.flags & USE_EQUIV:
        moves = euchre_representatives_nb(legal, hand, in_play, dd.segs, dd.group, dd.double_deck)
    by_bit = np.full(64, -1, dtype=np.int64)
    card_values_nb(tt, dd, True, to_move, np.array([leader, played, lead_b, best_b, best_seat]), moves, by_bit)
    euchre_share_runs_nb(legal & ~moves, hand, dd.segs, dd.seg_of, dd.group, by_bit)
    values[:] = -1
    top = 0
    while legal:
        b = lowest_nb(legal)
        legal &= legal - ONE
        card = from_layout[b] % 24 if from_layout[b] < 48 else from_layout[b]
        if values[card] < 0:  # else the other copy of a double-deck card, of equal value
            values[card] = by_bit[b]
            top = max(top, by_bit[b])
    return top


@njit(cache=True)
def euchre_dd_card_nb(dd, hands, to_move, trump, out_seat, double_deck, joker, leader, played, lead, best,
                      best_seat):
    """E-6: the legal card of ``to_move`` (kernel card ids) whose double-dummy value for its
    team is highest (the lowest of equals), every hand seen; the trick in progress was led
    by ``leader`` with ``lead``, ``best`` (by ``best_seat``) winning it after ``played``
    cards (-1s at a trick boundary)."""
    to_layout = euchre_load_nb(dd, hands, trump, out_seat, double_deck, joker)
    lead_b = to_layout[lead] if lead >= 0 else -1
    best_b = to_layout[best] if best >= 0 else -1
    legal = euchre_follow_nb(dd.hands[to_move], lead_b, dd.segs, dd.seg_of)
    chosen = dd_best_card_nb(dd, True, to_move, np.array([leader, played, lead_b, best_b, best_seat]), legal)
    return EUCHRE_FROM_LAYOUT[int(double_deck), int(joker), trump, chosen]
