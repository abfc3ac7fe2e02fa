"""What a ``pimc`` or ``search`` seat learns besides its own hand: the public facts of the
exchange and the auction, the cards set aside before its eyes, and what each card played
shows of the hand it came from (``seats.may_hold``, public to every seat)."""

from numba import njit

from kernels.cards import (
    ALL_SUITED, CARD_CLASS, EUCHRE_EFF_SUIT, EUCHRE_POWER, EUCHRE_SUIT_OF, ONE, SUIT_MASKS, bit_nb, lowest_nb,
    popcount_nb,
)
from kernels.step import MAX_SEATS

# ``facts`` of the seats record (kernels.step): Bridgette's up-card (card + 1; 0 none known)
# and how many cards each seat discarded (B-3); Bid Euchre's joker dealer (seat + 1; 0: no
# joker discard, E-10).
FACT_UPCARD, FACT_DISCARDS = 0, 1
FACT_JOKER_DEALER = 0


@njit(cache=True)
def note_bridgette_exchange_nb(seats, upcard, discarded0, discarded1):
    """B-3, public once the exchange is over: the up-card and how many cards each seat
    discarded (its draw, set by the rules and the up-card's class)."""
    seats.facts[FACT_UPCARD] = upcard + 1
    seats.facts[FACT_DISCARDS] = popcount_nb(discarded0)
    seats.facts[FACT_DISCARDS + 1] = popcount_nb(discarded1)


@njit(cache=True)
def note_joker_discard_nb(seats, dealer, card):
    """E-10: the joker dealer knows its discard; the others know only that one card lies
    out of play."""
    seats.aside[dealer] |= bit_nb(card)
    seats.facts[FACT_JOKER_DEALER] = dealer + 1


@njit(cache=True)
def note_ask_exchange_nb(seats, bidder, given, returned, trump):
    """E-4, what the asking bidder learns: the cards it gave stay with the partner, who sits
    out; the partner's trumps came back from the top, so the partner keeps none above the
    lowest returned (none at all when it returned fewer trumps than it gave cards)."""
    seats.aside[bidder] |= given
    partner = (bidder + 2) % 4
    trumps = EUCHRE_SUIT_OF[trump, trump]
    forced = returned & trumps
    if popcount_nb(forced) < popcount_nb(given):
        seats.may_hold[bidder, partner] &= ~trumps
        return
    floor = 10**6
    rest = forced
    while rest:
        floor = min(floor, EUCHRE_POWER[trump, lowest_nb(rest)])
        rest &= rest - ONE
    rest = trumps
    while rest:
        c = lowest_nb(rest)
        rest &= rest - ONE
        if EUCHRE_POWER[trump, c] > floor:
            seats.may_hold[bidder, partner] &= ~bit_nb(c)


@njit(cache=True, inline="always")
def _shown_nb(seats, seat, gone):
    """Every seat now knows ``seat`` holds none of ``gone``."""
    for s in range(MAX_SEATS):
        seats.may_hold[s, seat] &= ~gone


@njit(cache=True, inline="always")
def observe_contract_card_nb(seats, seat, card, lead, barred, when_void):
    """C-3 with B-8..B-10: what a legal card shows of the hand it came from. Not following
    a suited lead with a suited card shows a void (so does a Colon outside the lead's range
    under ``when_void``; under ``last_resort`` it shows that only such Colons are left);
    leading a suit barred by B-8 shows that every card left is of that suit. The card itself
    joins what ``seat`` has played (``seats.played``)."""
    seats.played[seat] |= bit_nb(card)
    if lead < 0:
        if barred >= 0 and card < 52 and card // 13 == barred:
            _shown_nb(seats, seat, ~SUIT_MASKS[barred])
        return
    if lead >= 52 or card == 52 + CARD_CLASS[lead] or (card < 52 and card // 13 == lead // 13):
        return
    if card < 52 or when_void:
        _shown_nb(seats, seat, SUIT_MASKS[lead // 13])
    else:
        _shown_nb(seats, seat, ALL_SUITED | bit_nb(52 + CARD_CLASS[lead]))


@njit(cache=True)
def note_euchre_auction_nb(seats, dealer, tricks, stick_the_dealer, bidder, bid):
    """E-3, public once the auction is over: what a ``search`` seat's card play reads of it
    (``seats.calls`` holds the four calls)."""
    a = seats.auction
    a[0], a[1], a[2], a[3], a[4], a[5] = 4, dealer, tricks, stick_the_dealer, bidder, bid


@njit(cache=True, inline="always")
def observe_euchre_card_nb(seats, seat, card, lead, trump):
    """C-3 over E-2: a card off the effective suit led shows a void in that suit. The card
    joins what ``seat`` has played (``seats.played``)."""
    seats.played[seat] |= bit_nb(card)
    if lead >= 0 and EUCHRE_EFF_SUIT[trump, card] != EUCHRE_EFF_SUIT[trump, lead]:
        _shown_nb(seats, seat, EUCHRE_SUIT_OF[trump, EUCHRE_EFF_SUIT[trump, lead]])
