"""The ordered values of the rule options that are choices (docs/rules.md).

The kernels' option record holds a choice as the index of its value here, and the kernels
name the values they test by that index (``UPCARD_DEAD = UPCARD_TO.index("dead")``);
sim.rules declares each option's allowed values from the same tuple, so the numbering has
one source, inside the kernels' compile cache key.
"""

UPCARD_TO = ("nondealer", "dealer", "dead")  # B-3 exchange.upcard_to
OPENING_PASS = ("continues", "ends")  # C-4 auction.opening_pass
PASSED_OUT = ("next_deal", "redeal")  # C-5 auction.passed_out
COLON_DISCARD = ("last_resort", "when_void")  # B-10 play.colon_discard
MADE_BASIS = ("contract", "tricks")  # B-11 scoring.made_basis
EXACT_BONUS = ("ladder", "nt_reduced")  # B-12 scoring.exact_bonus
OVERTRICK_BONUS_RULE = ("exactly3", "atleast3")  # B-12 scoring.overtrick_bonus_rule
PENALTY_LAST_ROW = ("six_or_more_short", "failed_slam")  # B-14 scoring.penalty_last_row
TRICK_WINNER = ("highest_rank", "led_suit")  # D-2 draw.trick_winner
UNDERTRICKS = ("none", "bridge")  # D-6 scoring.undertricks
