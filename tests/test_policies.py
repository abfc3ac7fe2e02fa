"""Key heuristic decisions on hand-built positions, and the policy registry."""

import numpy as np
import pytest

from kernels import policies as kp
from kernels.calls import CALL_IDS, EUCHRE_PASS
from kernels.cards import CARD_IDS, EUCHRE_CARD_IDS
from sim.policies import PolicyError, defaults, parse_policy

RNG = np.zeros(1, dtype=np.uint64)
CLUBS, DIAMONDS, HEARTS, SPADES, NO_TRUMP = 0, 1, 2, 3, 4


def mask(names, ids=CARD_IDS):
    m = 0
    for n in names.split():
        m |= 1 << ids[n]
    return np.uint64(m)


def row(text="heuristic", game="bridgette"):
    return parse_policy(text, game).row()


def full_deck():
    return mask(" ".join(CARD_IDS))


# --- Bridgette exchange (B-3) -----------------------------------------------------------------

def test_exchange_drops_the_lowest_card_of_the_shortest_suit():
    hand = mask("AS KS QS 5S 4S AH KH 9H 8H AD KD QD 7D 2C")
    assert kp.choose_discard_nb(kp.POLICY_HEURISTIC, row(), hand, RNG) == CARD_IDS["2C"]


def test_exchange_keeps_colons_unless_told_not_to():
    hand = mask("AS KS QS 5S 4S AH KH 9H 8H AD KD QD 2C CL")
    assert kp.choose_discard_nb(kp.POLICY_HEURISTIC, row(), hand, RNG) == CARD_IDS["2C"]
    no_colons = row("heuristic:keep_colons=0")
    assert kp.choose_discard_nb(kp.POLICY_HEURISTIC, no_colons, hand, RNG) == CARD_IDS["CL"]


# --- Bridgette auction (C-4, B-5, B-6) --------------------------------------------------------

def legal_bids_above(cur_bid):
    legal = 0
    for b in range(cur_bid + 1, 36):
        legal |= 1 << b
    return np.uint64(legal | 1 << CALL_IDS["P"])


def test_opens_cheaply_in_its_best_strain_and_stops_where_its_estimate_does():
    hand = mask("AS KS QS JS TS 9S 2S AH KH AD 3D 2C 3C")
    assert kp.estimate_tricks_nb(hand, SPADES) > kp.estimate_tricks_nb(hand, HEARTS)
    call = kp.choose_call_nb(kp.POLICY_HEURISTIC, row(), 0, hand, legal_bids_above(-1), -1, -1, 0, RNG)
    assert call == CALL_IDS["1S"]
    est = kp.estimate_tricks_nb(hand, SPADES) + defaults("heuristic", "bridgette")["aggression"]
    top = CALL_IDS[f"{int(est) - 6}S"]
    above = kp.choose_call_nb(kp.POLICY_HEURISTIC, row(), 0, hand, legal_bids_above(top - 4), top - 4, 1, 0, RNG)
    assert above == top
    beyond = kp.choose_call_nb(kp.POLICY_HEURISTIC, row(), 0, hand, legal_bids_above(top), top, 1, 0, RNG)
    assert beyond != top + 5


def test_passes_a_weak_hand_and_doubles_an_opponent_out_of_reach():
    weak = mask("2S 3S 4H 5H 6H 2D 3D 4D 7C 8C 9C 5S 6S")
    call = kp.choose_call_nb(kp.POLICY_HEURISTIC, row(), 0, weak, legal_bids_above(-1), -1, -1, 0, RNG)
    assert call == CALL_IDS["P"]
    strong = mask("AS KS QS AH KH QH AD KD QD AC KC QC JC")
    seven_hearts = CALL_IDS["7H"]
    legal = np.uint64(1 << CALL_IDS["P"] | 1 << CALL_IDS["X"])
    call = kp.choose_call_nb(kp.POLICY_HEURISTIC, row(), 0, strong, legal, seven_hearts, 1, 0, RNG)
    assert call == CALL_IDS["X"]
    never = row("heuristic:double_margin=99")
    call = kp.choose_call_nb(kp.POLICY_HEURISTIC, never, 0, strong, legal, seven_hearts, 1, 0, RNG)
    assert call != CALL_IDS["X"]


# --- Bridgette play (B-7..B-10) ---------------------------------------------------------------

def test_declarer_draws_trumps_with_a_master_trump():
    hand = mask("AS KS 5S AH 2H 3D")
    unseen = full_deck() & ~hand & ~mask("CL CR CG")
    card = kp.choose_card_nb(kp.POLICY_HEURISTIC, row(), hand, hand, -1, SPADES, True, unseen, RNG)
    assert card == CARD_IDS["AS"]


def test_follower_wins_as_cheaply_as_it_can():
    hand = mask("KH QH 4H 2S")
    card = kp.choose_card_nb(kp.POLICY_HEURISTIC, row(), hand, mask("KH QH 4H"), CARD_IDS["JH"],
                             SPADES, False, np.uint64(0), RNG)
    assert card == CARD_IDS["QH"]


def test_blocks_an_honour_lead_with_the_matching_colon():
    """B-8: the Royal Colon follows a face card it cannot beat, barring the suit next lead."""
    hand = mask("CR 5D 9C")
    legal = mask("CR 5D 9C")  # void in hearts
    card = kp.choose_card_nb(kp.POLICY_HEURISTIC, row(), hand, legal, CARD_IDS["KH"], -1, False,
                             np.uint64(0), RNG)
    assert card == CARD_IDS["CR"]
    never = row("heuristic:use_colons=0")
    card = kp.choose_card_nb(kp.POLICY_HEURISTIC, never, hand, legal, CARD_IDS["KH"], -1, False,
                             np.uint64(0), RNG)
    assert card != CARD_IDS["CR"]


def test_leads_a_colon_by_the_odds_that_the_opponent_cannot_beat_it():
    """B-9: a led Grand Colon loses only to an ace or a trump. With one ace unseen among 20
    cards and the opponent holding 5, it survives with odds 15/20."""
    hand = mask("CG 2D 3D 4D 5D")
    unseen = mask("AH 2C 3C 4C 5C 6C 7C 8C 9C TC 6D 7D 8D 9D TD 2H 3H 4H 5H 6H")
    assert kp.none_held_odds_nb(unseen, mask("AS AH AD AC"), 5) == pytest.approx(15 / 20)
    bold = row("heuristic:colon_lead_odds=0.7")
    card = kp.choose_card_nb(kp.POLICY_HEURISTIC, bold, hand, hand, -1, -1, False, unseen, RNG)
    assert card == CARD_IDS["CG"]
    careful = row("heuristic:colon_lead_odds=0.8")
    card = kp.choose_card_nb(kp.POLICY_HEURISTIC, careful, hand, hand, -1, -1, False, unseen, RNG)
    assert card != CARD_IDS["CG"]


# --- Draw Bridge draw phase (D-2) -------------------------------------------------------------

def test_draw_phase_fights_for_a_face_up_king_and_not_for_a_low_card():
    hand = mask("AS 9S 3S 2H 7D")
    fight = kp.choose_draw_card_nb(kp.POLICY_HEURISTIC, row(game="draw-bridge"), hand, mask("AS 9S 3S"),
                                   CARD_IDS["8S"], CARD_IDS["KH"], True, RNG)
    assert fight == CARD_IDS["9S"]  # the cheapest card that wins
    cheap = kp.choose_draw_card_nb(kp.POLICY_HEURISTIC, row(game="draw-bridge"), hand, mask("AS 9S 3S"),
                                   CARD_IDS["8S"], CARD_IDS["4H"], True, RNG)
    assert cheap == CARD_IDS["3S"]


# --- Bid Euchre (E-3..E-6) --------------------------------------------------------------------

def euchre(names):
    return mask(names, EUCHRE_CARD_IDS)


def test_euchre_moon_with_every_top_trump_and_pass_with_nothing():
    legal = np.uint64((1 << 5) - 1 | 1 << EUCHRE_PASS)  # 3, 4, 5, 6A, 6M, pass
    perfect = euchre("JH JD AH KH QH AS")
    bid = kp.choose_euchre_bid_nb(kp.POLICY_HEURISTIC, row(game="bid-euchre"), perfect, legal, -1, -1, 1, 6, 1, RNG)
    assert bid == 4  # 6M: shoot the moon
    nothing = euchre("9C TC 9D TD 9S QS")
    bid = kp.choose_euchre_bid_nb(kp.POLICY_HEURISTIC, row(game="bid-euchre"), nothing, legal, -1, -1, 1, 6, 1, RNG)
    assert bid == EUCHRE_PASS


def test_euchre_does_not_overtake_a_partner_winning_with_an_ace():
    hand = euchre("KS QS 9H")
    legal = euchre("KS QS")
    prm = row(game="bid-euchre")
    # Seat 3 plays last; partner (seat 1) leads the ace of spades, hearts are trump.
    card = kp.choose_euchre_card_nb(kp.POLICY_HEURISTIC, prm, hand, legal, EUCHRE_CARD_IDS["AS"],
                                    EUCHRE_CARD_IDS["AS"], 1, 3, HEARTS, 1, np.uint64(0), RNG)
    assert card == EUCHRE_CARD_IDS["QS"]
    # Void in diamonds: no trump over partner's winning ace, unless told to ignore partner.
    card = kp.choose_euchre_card_nb(kp.POLICY_HEURISTIC, prm, euchre("9S TH"), euchre("9S TH"),
                                    EUCHRE_CARD_IDS["AD"], EUCHRE_CARD_IDS["AD"], 1, 3, HEARTS, 1,
                                    np.uint64(0), RNG)
    assert card == EUCHRE_CARD_IDS["9S"]
    greedy = row("heuristic:partner_aware=0", "bid-euchre")
    card = kp.choose_euchre_card_nb(kp.POLICY_HEURISTIC, greedy, euchre("9S TH"), euchre("9S TH"),
                                    EUCHRE_CARD_IDS["AD"], EUCHRE_CARD_IDS["AD"], 1, 3, HEARTS, 1,
                                    np.uint64(0), RNG)
    assert card == EUCHRE_CARD_IDS["TH"]


def test_euchre_bidder_leads_its_right_bower():
    hand = euchre("JH AS 9C")
    card = kp.choose_euchre_card_nb(kp.POLICY_HEURISTIC, row(game="bid-euchre"), hand, hand, -1, -1, -1,
                                    2, HEARTS, 2, np.uint64(0), RNG)
    assert card == EUCHRE_CARD_IDS["JH"]


# --- Registry ----------------------------------------------------------------------------------

def test_game_defaults_apply_and_show_only_real_changes():
    assert parse_policy("heuristic", "draw-bridge").row()[kp.H_AGGRESSION] == 4.0
    assert parse_policy("heuristic").row()[kp.H_AGGRESSION] == 0.0
    assert str(parse_policy("heuristic", "draw-bridge")) == "heuristic"
    assert str(parse_policy("heuristic:aggression=0", "draw-bridge")) == "heuristic:aggression=0"


@pytest.mark.parametrize("text", ["nobody", "heuristic:bogus=1", "heuristic:aggression=high"])
def test_bad_policies_are_refused(text):
    with pytest.raises(PolicyError):
        parse_policy(text)


# --- Duplicate matches: each default beats a deliberately weaker setting of itself -----------

@pytest.mark.parametrize("game, weaker, rules, games", [
    ("bridgette", "heuristic:use_colons=0", None, 1500),
    ("bridgette", "heuristic:double_margin=99", None, 1500),
    ("draw-bridge", "heuristic:aggression=0", None, 300),
    ("draw-bridge", "heuristic:draw_fight=15", "draw-bridge-show-stock-top", 300),
    ("bid-euchre", "heuristic:partner_aware=0", None, 300),
])
def test_default_heuristic_beats_a_weaker_setting(game, weaker, rules, games):
    from sim.api import resolve_rules
    from sim.match import play_match

    result = play_match(game, parse_policy("heuristic", game), parse_policy(weaker, game), games,
                        seed=5, rules=resolve_rules(game, rules))
    assert result["ci95"][0] > 0
