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

The package keeps its concerns apart, a file per concern:

- ``context``: the search context (``CTX_DTYPE``), its frames, statistics and techniques,
  the rules codes that renew its table, and where searches start;
- ``table``: the transposition table (probe, store, buckets);
- ``ranks``: relative ranks, the table keys and the equivalent cards;
- ``layout``: Bid Euchre's solver layout and loading a deal into a context;
- ``bounds``: quick tricks, sure trumps and the last tricks played out;
- ``ordering``: move ordering in both families;
- ``contract``, ``euchre``: the two zero-window searches;
- ``value``: exact values and bounds from zero-window searches, one card's value, the
  ``dd`` seat's best card;
- ``tables``: whole deals (a contract deal's table, a batch of Bid Euchre deals);
- ``seat``: the ``dd`` seat's entry points and Bid Euchre's card values for ``sim.dd``.

Every name other modules use is importable from ``kernels.dd`` itself.
"""

from kernels.dd.context import (  # noqa: F401
    ALL_TECHNIQUES, CONTEXT_TT_BITS, CTX_DTYPE, EUCHRE_TT, EXPAND, FR_BARRED, FR_BEST, FR_BEST_SEAT, FR_BOUND, FR_I,
    FR_LEAD, FR_LEADER, FR_META, FR_N, FR_PLAYED, FR_TARGET, FR_TO_PLAY, FR_T_LEAD, MAX_DEPTH, N_STATS,
    RESOLVED_FALSE, RESOLVED_TRUE, ST_GEN, ST_NODES, ST_SEARCHES, ST_TT_HITS, TT_BITS, TT_DTYPE, USE_BOUNDS,
    USE_EQUIV, USE_ORDER, USE_TT, contract_at_nb, contract_rules_nb, euchre_at_nb, euchre_rules_nb, new_context,
    new_table, renew_nb, search_table_nb,
)
from kernels.dd.table import tt_bucket_nb, tt_find_nb, tt_probe_nb, tt_store_nb  # noqa: F401
from kernels.dd.ranks import (  # noqa: F401
    CONTRACT_SEGS, CONTRACT_SEG_TOPS, classes_key_nb, contract_key_nb, contract_representatives_nb, contract_segs_nb,
    copies_key_nb, double_deck_key_nb, euchre_key_nb, euchre_representatives_nb, representatives_nb, segment_counts_nb,
)
from kernels.dd.layout import (  # noqa: F401
    EUCHRE_FROM_LAYOUT, EUCHRE_GROUP, EUCHRE_LAYOUT_POWER, EUCHRE_SEGS, EUCHRE_SEG_OF, EUCHRE_TO_LAYOUT,
    euchre_after_card_nb, euchre_follow_nb, euchre_layout, euchre_layout_beats_nb, euchre_load_nb, next_seat_nb,
)
from kernels.dd.bounds import (  # noqa: F401
    above_nb, last_trick_nb, last_tricks_nb, last_two_tricks_nb, later_tricks_nb, quick_tricks_nb, sure_trumps_nb,
    top_run_nb,
)
from kernels.dd.ordering import order_euchre_nb, order_follows_nb, order_leads_nb  # noqa: F401
from kernels.dd.contract import (  # noqa: F401
    contract_after_card_nb, contract_child_nb, contract_close_nb, contract_enter_nb, contract_search_nb,
)
from kernels.dd.euchre import euchre_child_nb, euchre_close_nb, euchre_enter_nb, euchre_search_nb  # noqa: F401
from kernels.dd.value import (  # noqa: F401
    after_card_nb, bound_nb, card_bound_nb, card_value_nb, card_values_nb, contract_best_nb, contract_card_values_nb,
    contract_value_nb, dd_best_card_nb, euchre_value_nb, value_near_nb,
)
from kernels.dd.tables import contract_table_nb, declarer_tricks_nb, euchre_batch_nb  # noqa: F401
from kernels.dd.seat import (  # noqa: F401
    contract_dd_card_nb, euchre_card_values_nb, euchre_dd_card_nb, euchre_share_runs_nb,
)
