"""The bits of a deal record's ``activity`` column: rules that decided something in the deal.

A bit is set when the rule's option decided what was legal in that deal: a call or card the
rule took away, or an auction the rule ended, at the run's value; or, for the play options
(``colon_discard``, ``must_follow``, ``trick_winner``), a case where its two values allow
different cards or give the trick to different players, at either value. Bits are numbered by
their index here (as kernels.options numbers choices), so the kernels and sim.activity,
which counts them and words them (docs/rules.md, Rule activity), share one list. Rules
whose activity the records show already (redeals, tie-break deals, scores) have no bit.
"""

import numpy as np

ACTIVITY = (
    "opening_pass",  # C-4: the first call was a pass (it ended the auction, or did not)
    "min_trump_cards",  # B-6: a suit bid was refused for want of cards of the suit
    "nt_needs_all_suits",  # B-6: a no-trump bid was refused for a void
    "jump_min_cards",  # B-6: a jump bid was refused (the suit's lowest bid was not)
    "lead_barred",  # B-8: a leader holding other cards could not lead the barred suit
    "colon_discard",  # B-10: a follower void in the suit led held a non-matching Colon and other cards
    "must_follow",  # D-2: a follower in the draw phase held the suit led and other cards (either value)
    "trick_winner",  # D-2: a draw trick the two readings give to different players
    "stick_the_dealer",  # E-3: the dealer, after three passes, could not pass
)
ACTIVITY_FIELD = ("activity", np.uint16)  # one bit per name above

OPENING_PASS, MIN_TRUMP_CARDS, NT_NEEDS_ALL_SUITS, JUMP_MIN_CARDS, LEAD_BARRED, COLON_DISCARD, MUST_FOLLOW, \
    TRICK_WINNER, STICK_THE_DEALER = (1 << i for i in range(len(ACTIVITY)))
B6 = MIN_TRUMP_CARDS | NT_NEEDS_ALL_SUITS | JUMP_MIN_CARDS
