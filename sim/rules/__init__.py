"""Rule options as data: one frozen dataclass per game, built from RULES.md's option names.

Every option of docs/rules.md is a field of a section dataclass (``exchange``,
``auction``, ...) whose metadata carries the rule id, a one-line meaning and the allowed
values; the same metadata validates variant files and lists the options. Each game's
module (``kernel_rules`` of sim.bridgette, sim.draw_bridge, sim.bid_euchre) turns a
validated rule set into one named object for the kernels: a record of the scalar
options (``params_dtype``: one field per option, named by its key, a choice as the index of
its value among the declared choices) beside the deck and score tables. A choice the record
carries declares its values from ``kernels.options``, where the kernels number them.

The package keeps its concerns apart, a file per concern:

- ``schema``: how an option is declared and checked, the option table, the kernels' record;
- ``bridgette``, ``draw_bridge``, ``bid_euchre``: each game's options;
- ``variants``: rule sets from variant files and --set overrides, and their changes from
  the defaults.

Every name other modules use is importable from ``sim.rules`` itself.
"""

from sim.rules.schema import (  # noqa: F401
    HAND, LISTS, MAX_FACTOR, MAX_GAME_DEALS, MAX_HAND_SCORE, MAX_POINTS, MAX_TARGET, RulesError, RuleSet, STOCK,
    did_you_mean, kernel_params, opt, option_table, params_dtype, points,
)
from sim.rules.bridgette import (  # noqa: F401
    BridgetteAuction, BridgetteDeck, BridgetteExchange, BridgetteGameLength, BridgettePlay, BridgetteRules,
    BridgetteScoring, ContractAuction,
)
from sim.rules.draw_bridge import DrawBridgeDraw, DrawBridgeGameLength, DrawBridgeRules, DrawBridgeScoring  # noqa: F401
from sim.rules.bid_euchre import (  # noqa: F401
    BidEuchreAuction, BidEuchreGameLength, BidEuchreRules, BidEuchreScoring, BidEuchreVariant,
)
from sim.rules.variants import (  # noqa: F401
    GAMES, VARIANTS_DIR, changes_words, dict_tables, load_rules_file, merge_tables, overrides, parse_set, read_variant,
    rules_for, variant_game,
)
