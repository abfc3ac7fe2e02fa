"""Players that search: card play by sampling worlds and solving them double dummy (``pimc``).

At each card with a choice, a ``pimc`` seat deals the cards it cannot see ``worlds``
times, each deal drawn uniformly among those consistent with everything the seat knows,
values every legal card in each world with the double-dummy solver (kernels.dd: its side's
tricks from here, the trick in progress included; no more exactly than the choice needs,
``card_sums_nb``) and plays the card with the highest average, the lowest of equals (the
``dd`` seat's tie rule, so a seat whose knowledge fixes every hand plays exactly as
``dd``). With ``bid_worlds`` above 0 its calls are sampled as well: the call whose likely
contract has the best expected score over worlds in which the other seats' calls so far
are the heuristic's (``pimc_call_nb``; Bid Euchre's ``pimc_euchre_bid_nb``, and its trump,
``pimc_euchre_trump_nb``), only those worlds: with none the seat makes the heuristic's call
and the deal counts it ``unexplained``; otherwise its calls, and always its exchanges and
draws, are the heuristic's.

**What a seat knows.** Its own hand and every card played; in Bridgette its own discards
and the up-card (B-3: ``unseen`` of the deal kernel, which leaves out its discards and a
dead up-card; an up-card the seat cannot see is with the opponent: in its hand or among its
discards, never in the stock), how many cards each side discarded; in Draw Bridge the
draw phase, after which the unseen cards are exactly the opponent's hand (D-2: the stock
is gone); in Bid Euchre its own joker discard (E-10), and, as the asking bidder, the cards
it gave its partner and what the forced returns say of the partner's other trumps (E-4).
Play shows the rest (``observe_*``): a seat that does not follow suit holds none of it
(C-3, E-2's effective suits: a trump void is a void in the bowers too); a Colon played as a
B-10 last resort says every card left is such a Colon; leading a suit barred by B-8 says
every card left is of that suit. These are public and go to every seat's ``may_hold`` row.

**Uniform worlds.** The unseen cards go to *holders*: the hands of the other seats and the
places cards lie out of play (Bridgette: the opponent's discards and the undrawn stock;
Bid Euchre: the joker discard, the hand of a partner who sits out), each holder taking a
known number of cards from the set it may hold. ``world_table_nb`` counts, for every card
(in a fixed order) and every vector of holders' remaining room, the ways to place that
card and the later ones; ``sample_world_nb`` places the cards one by one, each in a
holder with probability (ways after it) / (ways before). The product of these
probabilities is 1 / (number of consistent deals): every consistent deal has the same
chance, whatever the constraints (no rejection, no bias from placing constrained cards
first). The counts are float64 (below 2**63 for every deal of these games: exact enough
that the bias is under 1e-15). Should the constraints admit no deal (a replayed renege
that showed a false void), they are dropped and the counts and places alone apply.

**Kept worlds (Bridgette's ``keep``, on by default).** A seat that keeps its worlds starts
each card from the worlds of its last card that are still consistent (``kept_worlds_nb``):
those whose opponent held the cards played since and still fits every void shown, less
those cards; fresh draws make up the number. A world drawn uniformly among the deals
consistent then that is still consistent is uniform among the deals consistent now; but
the kept worlds are not independent of the card the seat chose on them: it keeps to the
reading of the hands it played by. Their positions are in the table from the last card's
searches, so they cost little (a third of a Bridgette seat's worlds are kept; it searches
about 12% fewer nodes). Where the seat has learned anything else (a draw, a count that
moved, dropped constraints), every world is drawn afresh.

**Reproducible.** Each decision with a choice takes one number from the game's policy
stream (kernels.rng, SplitMix64) and samples its worlds from a SplitMix64 stream started
there, so a game's choices are a pure function of (seed, game index) for any thread count,
block size or cluster, and a decision consumes the same amount of the shared stream
however many worlds it samples. The search context ``dd`` (kernels.dd, with its table) is
the game's own; positions of different worlds share its table safely (entries are keyed on
the whole position and kept while the trump and rules stay the same, ``renew_nb``).

The package keeps its concerns apart, a file per concern:

- ``knowledge``: what a seat learns besides its hand (the public facts of the exchange and
  the auction, cards set aside, what each card played shows);
- ``worlds``: uniform consistent worlds, how many a decision solves, its stream;
- ``choice``: each card's value summed over the worlds, exact only where the choice needs it;
- ``contract``: the seat of Bridgette and Draw Bridge (its deals, kept and explained worlds,
  its card, its sampled calls);
- ``euchre``: the seat of Bid Euchre (where its unseen cards lie, its card, its sampled bids
  and trump).

Every name other modules use is importable from ``kernels.pimc`` itself.
"""

from kernels.pimc.knowledge import (  # noqa: F401
    FACT_DISCARDS, FACT_JOKER_DEALER, FACT_UPCARD, note_ask_exchange_nb, note_bridgette_exchange_nb,
    note_euchre_auction_nb, note_joker_discard_nb, observe_contract_card_nb, observe_euchre_card_nb,
)
from kernels.pimc.worlds import (  # noqa: F401
    BID_TRIES, EXPLAINED_TRIES, REJECTION_TRIES, deal_table_nb, decision_stream_nb, sample_world_nb,
    unexplained_worlds_nb, world_table_nb, worlds_of_nb,
)
from kernels.pimc.choice import best_of_nb, card_sums_nb  # noqa: F401
from kernels.pimc.contract import (  # noqa: F401
    contract_deals_nb, expected_scores_nb, explained_worlds_nb, keep_worlds_nb, kept_worlds_nb,
    pimc_call_nb, pimc_contract_card_nb, sample_bidding_worlds_nb,
)
from kernels.pimc.euchre import (  # noqa: F401
    MAX_HOLDERS, best_trump_nb, bid_tricks_nb, calls_as_heuristic_nb, euchre_bid_tricks_nb, euchre_calling_worlds_nb,
    euchre_calls_agree_nb, euchre_explained_worlds_nb, euchre_holders_nb, euchre_unseen_nb, pimc_euchre_bid_nb,
    pimc_euchre_card_nb, pimc_euchre_trump_nb, sample_euchre_calling_worlds_nb,
)
