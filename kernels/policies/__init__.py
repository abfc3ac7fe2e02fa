"""Decision functions, dispatched by integer policy id (DESIGN point 5).

Each ``choose_*`` function receives only what the deciding seat may see: its own hand,
the legal actions, the public auction and play, and the cards it has itself discarded
or seen dead (``unseen`` is the deck less all of those). A seat's parameters come as one
``POLICY_PARAMS`` record, a named record per policy (``prm.heuristic.aggression``,
``prm.pimc.worlds``); the heuristic's functions read only its own record. Defaults,
meanings and ranges live in ``sim/policies.py``.

The package keeps its concerns apart, a file per concern:

- ``kinds``: the policy ids, the parameter record each policy reads, which decisions each
  one searches or samples, the random policy's pick, and the distinct candidates a
  searching player keeps;
- ``contract``: the heuristic of Bridgette and Draw Bridge (discards, calls, card play,
  the draw phase) and each of those decisions' dispatch;
- ``euchre``: the heuristic of Bid Euchre and each of its decisions' dispatch;
- ``reading``: the chance that a player made its calls from a given hand, under the model
  of its policy (the heuristic exactly, a searching player by a softmax over its candidates).

Every name other modules use is importable from ``kernels.policies`` itself.
"""

from kernels.policies.kinds import (  # noqa: F401
    HEURISTIC_PARAMS, OBJECTIVE_GAMES, OBJECTIVE_POINTS, PIMC_PARAMS, POLICY_DD, POLICY_HEURISTIC, POLICY_PARAMS,
    POLICY_PIMC, POLICY_RANDOM, POLICY_SEARCH, SEARCH_PARAMS, add_distinct_nb, calls_by_worlds_nb, pick_random_nb,
    plays_by_worlds_nb, reads_calls_in_play_nb, searches_calls_nb, searches_draw_nb, searches_exchange_nb,
)
from kernels.policies.contract import (  # noqa: F401
    AVERAGE_HCP, COLON_KEEP, ODDS_WIDTH, TRICK_SPREAD, bid_tricks_nb, cheapest_nb, choose_call_nb, choose_card_nb,
    choose_discard_nb, choose_draw_card_nb, competing_bid_nb, defence_estimate_nb, estimate_tricks_nb, expected_gain_nb,
    expected_tricks_nb, heuristic_call_nb, heuristic_card_nb, heuristic_discard_nb, heuristic_draw_card_nb,
    highest_rank_nb, none_held_odds_nb, trick_odds_nb,
)
from kernels.policies.euchre import (  # noqa: F401
    choose_euchre_bid_nb, choose_euchre_card_nb, choose_euchre_discard_nb, choose_euchre_give_nb,
    choose_euchre_return_nb, choose_euchre_trump_nb, euchre_strength_nb, heuristic_euchre_bid_nb,
    heuristic_euchre_card_nb, heuristic_euchre_discard_nb, heuristic_euchre_give_nb, heuristic_euchre_return_nb,
    heuristic_euchre_trump_nb,
)
from kernels.policies.reading import (  # noqa: F401
    CALL_MODEL, MAX_CALL_CANDIDATES, call_candidates_nb, calls_chance_nb, kept_nb, read_as_search_nb,
    searched_call_chance_nb,
)
