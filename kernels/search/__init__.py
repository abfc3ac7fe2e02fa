"""Players that search beyond card play (``search``): every decision valued by rollout.

A ``search`` seat plays its cards as ``pimc`` does (kernels.pimc); what it adds is searched
here, a file per decision, over what they share (``rollout``): each values a few candidate
actions over sampled worlds by rolling the deal out to its end with every player modelled
as the heuristic with its own parameters, and scoring the contract reached at its
double-dummy tricks under the game's scoring.

- ``exchange``: Bridgette's B-3 discards.
- ``calls``: the calls of Bridgette and Draw Bridge (C-4 with doubles and redoubles).
- ``draw``: Draw Bridge's D-2 draw phase (which card to play for the stock's top card).
- ``euchre``: Bid Euchre's bids and trump (E-3) and the E-4 exchange of an ask, every
  player modelled as the heuristic, valued by the E-7 score.

**Reproducible.** One number of the policy stream starts each decision's own stream, as in
kernels.pimc, and the worlds are drawn from the seat's unseen cards in card order, so the
choice depends only on what the seat knows.
"""
