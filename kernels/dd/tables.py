"""Whole deals: a contract deal's table (each seat's tricks as declarer in each strain) and a
batch of Bid Euchre deals solved from the leader's lead."""

from numba import njit

from kernels.cards import NONE, NOUGHT, popcount_nb
from kernels.dd.context import ST_GEN, contract_at_nb, contract_rules_nb, renew_nb
from kernels.dd.value import euchre_value_nb, value_near_nb


@njit(cache=True, inline="always")
def declarer_tricks_nb(tt, ctx, strain, declarer, guess):
    """B-7, D-4: the tricks ``declarer`` takes in ``strain`` (0-3 the suits, 4 no-trump)
    with the opponent leading, from ``ctx.hands``: one entry of a deal's table, searched
    stepping from ``guess`` (negative: none). The table's entries are renewed for the
    strain (``renew_nb``)."""
    ctx.trump = strain if strain < 4 else -1
    renew_nb(ctx, contract_rules_nb(ctx.trump, ctx.when_void))
    n = popcount_nb(ctx.hands[declarer])
    at = contract_at_nb(ctx, 1 - declarer, -1, -1, 1 - declarer)  # the opponent leads
    return n - value_near_nb(tt, ctx, False, at, guess, NOUGHT, n)


@njit(cache=True, nogil=True)  # nogil: a command waits for it in another thread
def contract_table_nb(tt, ctx_arr, table):
    """B-7, D-4: ``table[strain, declarer]``, the tricks each seat takes as declarer in each
    strain (0-3 the suits, 4 no-trump) with the opponent leading, from ``ctx.hands``. The two
    declarers of a strain share the table's entries (each strain starts a new generation:
    the keys leave out the trump), and the second search steps from the first one's value:
    a seat takes about as many tricks whoever leads."""
    ctx = ctx_arr[0]
    for strain in range(5):
        guess = NONE
        for declarer in range(2):
            table[strain, declarer] = guess = declarer_tricks_nb(tt, ctx, strain, declarer, guess)
            # the first declarer's tricks, now on lead: the second's guess


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
