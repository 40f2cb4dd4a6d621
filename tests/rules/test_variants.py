"""Rule presets from 000, 002 and 004: the named games (Omnibus, Spot, Black Maria, Dirty Nasty,
No Passing, Booster Nines, the ten of clubs, Turbo).

Each test quotes the sentence it checks and names its source file:
000_93466bf2ef5d25de.txt, 001_7c47ddaca2398b03.txt, 002_9f11e0823e382118.txt, 004_f34b613fe02b4aea.txt.
"""

from __future__ import annotations

import pytest
from positions import (
    HEARTS,
    advance_to_hand,
    cs,
    end_of_hand,
    m_,
    mask_of,
    pass_lowest,
    play_cards,
    play_last_trick,
    position,
    seat_holding,
)

from referee.rules import (
    Card,
    CardNotHeldError,
    CardNotLegalError,
    IllegalPlayError,
    Match,
    NotYourTurnError,
    Phase,
    RepeatedCardError,
    Rules,
    WrongCountError,
    cards_of,
)

QS = Card.parse("QS")


# -- 000: shared win -----------------------------------------------------------------------------------


def test_000_equal_lowest_totals_share_the_win():
    """000: 'The player with the lowest total wins; equal lowest totals share the win in this online
    version.'"""
    r = Rules(tied_lowest="share")
    m = end_of_hand(r, captured={0: "QS 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH", 3: "AH"}, scores=[90, 30, 30, 50])
    play_last_trick(m)
    assert m.scores == [115, 30, 30, 51]
    assert m.over and m.winners == (1, 2)
    # the standard rule keeps dealing in the same position
    m = end_of_hand(Rules(), captured={0: "QS 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH", 3: "AH"}, scores=[90, 30, 30, 50])
    play_last_trick(m)
    assert not m.over


def test_000_match_ends_when_a_total_reaches_100():
    """000: 'When any player's running total reaches at least 100, the match ends.'"""
    m = end_of_hand(Rules(tied_lowest="share"), captured={2: "QS", 1: HEARTS}, scores=[10, 20, 87, 30])
    play_last_trick(m)
    assert m.over and m.scores == [10, 33, 100, 30] and m.winners == (0,)


# -- Omnibus (004, 002) -------------------------------------------------------------------------------------


OMNI = Rules.preset("omnibus")


def test_omnibus_jack_of_diamonds_minus_ten():
    """004: 'the jack of diamonds is worth minus 10 points to whoever captures it'"""
    assert OMNI.bonus_card == Card.parse("JD") and OMNI.points_of(Card.parse("JD")) == -10
    m = end_of_hand(OMNI, captured={1: "JD 2H 3H", 0: "QS", 2: HEARTS.replace("2H 3H ", "")}, filler=3)
    play_last_trick(m)
    r = m.results[0]
    assert r.score == (13, -8, 11, 0)
    assert sum(r.score) == 16  # 004: '26 (16 net with the jack)'


def test_omnibus_moon_still_26_and_shooter_keeps_the_jack():
    """004: 'Capture every heart plus the queen of spades and you score zero while each opponent takes
    26. If you also captured the jack of diamonds, you keep the minus 10 on top - the strongest hand possible.'"""
    assert OMNI.moon_total == 26
    m = end_of_hand(OMNI, captured={2: HEARTS + " QS JD"}, scores=[0, 0, 0, 0])
    play_last_trick(m)
    r = m.results[0]
    assert r.moon == 2
    assert r.score == (26, 26, -10, 26)


def test_omnibus_moon_does_not_need_the_jack():
    """002: 'To shoot the moon, you need all the hearts and the queen of spades ... in addition to this,
    10 points are deducted from the score of the player who took the jack of diamonds (who may be the
    same player as the shooter).'"""
    m = end_of_hand(OMNI, captured={2: HEARTS + " QS", 0: "JD"})
    play_last_trick(m)
    r = m.results[0]
    assert r.moon == 2
    assert r.score == (16, 26, 0, 26)


def test_omnibus_ten_of_diamonds_as_bonus_card():
    """002: 'Many people play that the jack of diamonds (or sometimes the ten of diamonds) is a bonus card,
    counting minus 10 points for the person taking it.'"""
    r = Rules.preset("omnibus", bonus_card="TD")
    assert r.bonus_card == Card.parse("10D")
    assert r.points_of(Card.parse("10D")) == -10 and r.points_of(Card.parse("JD")) == 0
    assert Rules.parse("bonus_card=10D") == r
    m = end_of_hand(r, captured={3: "10D", 0: "JD QS", 1: HEARTS}, filler=2)
    play_last_trick(m)
    assert m.results[0].score == (13, 13, 0, -10)


def test_omnibus_jack_is_not_a_penalty_card_on_the_first_trick():
    """004: 'no penalty cards may be played on the first trick' — the J♦ is a bonus, not a penalty card,
    so a player void in clubs may throw it on trick one (and may not throw a heart)."""
    hands = {
        0: "2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC",
        1: "JD 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH",
        2: "AH 2D 3D 4D 5D 6D 7D 8D 9D 10D QD KD AD",
        3: "2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS",
    }
    m = position(OMNI, hands)
    m.play("2C")
    assert m.legal_plays() == cs("JD")


# -- Spot Hearts (004, 002) ------------------------------------------------------------------------------


SPOT = Rules.preset("spot")


def test_spot_pip_values():
    """004: 'Every heart costs its face value: 2 through 10 at pip value, then jack 11, queen 12, king 13
    and ace 14. The queen of spades costs 25. That is 129 points loose in every hand.'"""
    for c in cards_of(m_(HEARTS)):
        assert SPOT.points_of(c) == c.rank
    assert SPOT.points_of(QS) == 25
    assert SPOT.points_of(Card.parse("KS")) == 0 and SPOT.points_of(Card.parse("JD")) == 0
    assert SPOT.moon_total == 129
    m = end_of_hand(SPOT, captured={0: "AH 2H", 1: "QS", 2: "10H JH QH KH", 3: "3H 4H 5H 6H 7H 8H 9H"})
    play_last_trick(m)
    assert m.results[0].score == (16, 25, 46, 42)
    assert sum(m.results[0].score) == 129


def test_spot_moon_is_129_to_each_opponent():
    """004: 'Take everything and you shoot the moon - zero for you, 129 for each opponent.'"""
    m = end_of_hand(SPOT, captured={1: HEARTS + " QS"})
    play_last_trick(m)
    assert m.results[0].moon == 1
    assert m.results[0].score == (129, 0, 129, 129)


def test_spot_game_to_500():
    """004: 'The game ends when a player reaches 500, and the lowest total wins.'"""
    assert SPOT.target == 500
    m = end_of_hand(SPOT, captured={0: "QS", 1: HEARTS}, scores=[470, 100, 250, 300])
    play_last_trick(m)
    assert m.scores == [495, 204, 250, 300] and not m.over
    m = end_of_hand(SPOT, captured={0: "QS", 1: HEARTS}, scores=[475, 100, 250, 300])
    play_last_trick(m)
    assert m.scores == [500, 204, 250, 300] and m.over and m.winners == (1,)


def test_spot_flat_alternative():
    """002: 'As an alternative, some play that hearts from 2–10 are face value, all heart pictures are 10,
    the heart ace is 15, and the spade queen is 25.'"""
    r = Rules(points="spot-flat")
    assert [r.points_of(c) for c in cards_of(m_(HEARTS))] == [2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10, 15]
    assert r.points_of(QS) == 25
    assert r.moon_total == 54 + 30 + 15 + 25


# -- Black Maria (004) ----------------------------------------------------------------------------------


BM = Rules.preset("black-maria")


def test_black_maria_spade_values_43_a_hand():
    """004: 'the ace of spades costs 7 and the king of spades costs 10, so there are 43 penalty points in
    every deal' and 'Each heart you capture costs 1 point, but the top spades sting hardest: the ace of
    spades costs 7, the king costs 10, and the queen - the Black Maria herself - costs 13.'"""
    assert BM.points_of(Card.parse("AS")) == 7
    assert BM.points_of(Card.parse("KS")) == 10
    assert BM.points_of(QS) == 13
    assert BM.points_of(Card.parse("5H")) == 1 and BM.points_of(Card.parse("JS")) == 0
    assert BM.moon_total == 43
    assert BM.target == 100
    m = end_of_hand(BM, captured={0: "AS", 1: "KS 2H", 2: "QS", 3: HEARTS.replace("2H ", "")})
    play_last_trick(m)
    assert m.results[0].score == (7, 11, 13, 12)


def test_black_maria_always_passes_three_right():
    """004: 'Before every hand, each player passes exactly three cards face down to the player on their
    right. There is no rotation and no hold hand - the pass happens every deal.'"""
    assert all(BM.pass_direction(k) == "right" for k in range(12))
    m = Match(BM.replace(target=10_000), 5)
    for k in range(5):
        advance_to_hand(m, k, seed=k)
        assert m.phase is Phase.PASS and m.hand.direction == "right"
        sent = pass_lowest(m)
        for s in range(4):
            # the player on s's right is s-1
            assert m.hand.received[(s - 1) % 4] == sum(c.mask for c in sent[s])


def test_black_maria_moon_is_43():
    """004: 'Capture all 43 points and you shoot the moon: zero for you, 43 for each opponent.'"""
    m = end_of_hand(BM, captured={3: HEARTS + " QS KS AS"})
    play_last_trick(m)
    assert m.results[0].moon == 3 and m.results[0].score == (43, 43, 43, 0)
    # every heart and the Queen without the A♠ is no moon in Black Maria
    m = end_of_hand(BM, captured={3: HEARTS + " QS KS", 1: "AS"})
    play_last_trick(m)
    assert m.results[0].moon is None and m.results[0].score == (0, 7, 0, 36)


def test_black_maria_top_spades_are_penalty_cards_on_the_first_trick():
    """004: 'no penalty cards may fall on the first trick.' In Black Maria the A♠ and K♠ are penalty cards."""
    hands = {
        0: "2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC",
        1: "AS KS 2D 2H 3H 4H 5H 6H 7H 8H 9H 10H JH",
        2: "QH KH AH 3D 4D 5D 6D 7D 8D 9D 10D JD QD",
        3: "KD AD 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS",
    }
    m = position(BM, hands)
    m.play("2C")
    assert m.legal_plays() == cs("2D")


# -- Dirty Nasty Filthy Hearts (002) ---------------------------------------------------------------------

NASTY = Rules.preset("nasty")
QUEENS = "QC QD QH QS"


def test_nasty_queens_and_jack_of_diamonds():
    """002: 'The jack of diamonds counts as minus 10' and 'The penalty for the queen of spades ("The Queen
    Bitch") is 26 points, and the other three queens cost 13 points apiece.'"""
    assert [NASTY.points_of(Card.parse(c)) for c in ("QS", "QC", "QD", "QH")] == [26, 13, 13, 13]
    assert NASTY.points_of(Card.parse("2H")) == 1 and NASTY.points_of(Card.parse("AH")) == 1
    assert NASTY.points_of(Card.parse("KS")) == 0 and NASTY.bonus_card == Card.parse("JD")
    assert NASTY.moon_total == 12 + 26 + 3 * 13
    m = end_of_hand(NASTY, captured={0: "QS JD", 1: "QC QD", 2: "QH 2H 3H", 3: ""}, scores=(10, 20, 30, 40))
    play_last_trick(m)
    r = m.results[0]
    assert r.score[:3] == (26 - 10, 26, 15) and r.moon is None and not m.over


def test_nasty_game_is_played_to_300():
    """002: 'Because of the larger number of penalty points in play, the game is played to 300 points. When
    someone reaches or goes over 300, the player with the lowest score wins.'"""
    assert NASTY.target == 300
    m = end_of_hand(NASTY, captured={0: "QS", 1: "QC", 2: "QD", 3: "QH"}, scores=(270, 100, 150, 280))
    play_last_trick(m)
    assert not m.over  # 296 and 293: below 300
    m = end_of_hand(NASTY, captured={0: "QS 2H 3H 4H 5H", 1: "QC", 2: "QD", 3: "QH"}, scores=(270, 100, 150, 280))
    play_last_trick(m)
    assert m.over and m.winners == (1,) and m.places() == (4, 1, 2, 3)


def test_nasty_shooting_wins_the_game_at_once():
    """002: 'If you successfully shoot — that is, take all the counting cards in your tricks — you win the
    game' and 'You now need the queen of each suit in order to shoot.'"""
    m = end_of_hand(NASTY, captured={2: HEARTS.replace("QH ", "") + " " + QUEENS}, scores=(10, 20, 250, 40))
    play_last_trick(m)
    r = m.results[0]
    assert r.moon == 2 and r.score == (0, 0, 0, -10) and m.over and m.winners == (2,)  # J♦ still counts
    assert m.places() == (2, 3, 1, 4)  # the shooter first whatever its total; the others by total
    # Without one queen there is no shoot: the hand scores as usual and the game goes on.
    m = end_of_hand(NASTY, captured={2: HEARTS.replace("QH ", "") + " QH QS QD", 3: "QC"}, scores=(10, 20, 30, 40))
    play_last_trick(m)
    assert m.results[0].moon is None and not m.over and m.results[0].score[3] == 13 - 10  # Q♣, and J♦


def test_nasty_first_trick_is_calm_unless_wide_open():
    """002: 'No points may be thrown on the first trick ("The Calm"). As a variation, some people play "Wide
    Open", which means that anything can be thrown on the first trick.'"""
    hands = {0: "2C 3D", 1: "QH 4D", 2: "5C QD", 3: "6C 7D"}
    calm = position(NASTY, hands)
    calm.play("2C")
    assert calm.legal_plays() == cs("4D")  # void in clubs: Q♥ (13) may not be thrown
    wide = position(NASTY.replace(points_on_first_trick=True), hands)
    wide.play("2C")
    assert wide.legal_plays() == cs("QH 4D")


def test_nasty_the_dealer_calls_the_pass_before_anyone_passes():
    """002: 'After the cut, but before the start of the deal, the dealer "calls pass", that is, specifies how
    cards will be passed for that hand.'"""
    m = Match(NASTY, 3)
    assert NASTY.pass_cycle == ("call",) and m.phase is Phase.CALL and m.to_move == (m.hand.dealer,) == (0,)
    assert m.observation(2).pass_direction == "call" and not m.legal_plays()
    assert all(not m.observation(s).hand for s in range(4))  # 'before the start of the deal': no cards seen
    with pytest.raises(IllegalPlayError, match="in the call phase"):
        m.pass_cards(1, cards_of(m.hand.hands[1])[:3])
    with pytest.raises(IllegalPlayError, match="seat 1 cannot call the pass: seat 0 deals this hand"):
        m.call_pass(1, "left")
    m.call_pass(0, "across")
    assert m.phase is Phase.PASS and m.hand.direction == "across" and m.observation(3).pass_direction == "across"
    sent = pass_lowest(m)
    assert all(m.hand.received[(s + 2) % 4] == mask_of(sent[s]) for s in range(4))
    advance_to_hand(m, 1)
    assert m.phase is Phase.CALL and m.to_move == (1,)  # the next dealer calls the next hand


def test_nasty_a_called_split_two_to_the_left_one_to_the_right():
    """002: 'The dealer may choose any variant (for example: two to the left, one to the right)'"""
    m = Match(NASTY, 8)
    m.call_pass(0, (1, 1, 3))  # the first two cards passed go left, the third right (3 seats to the left)
    obs = m.observation(2)
    assert obs.pass_direction == "split" and obs.pass_offsets == (1, 1, 3)
    sent = pass_lowest(m)
    for s in range(4):
        assert m.hand.received[(s + 1) % 4] & mask_of(sent[s][:2]) == mask_of(sent[s][:2])
        assert m.hand.received[(s + 3) % 4] & sent[s][2].mask
        assert m.hand.received[s].bit_count() == 3


def test_nasty_a_call_passes_and_receives_three_the_same_for_all():
    """002: 'as long as each player passes and receives three cards and the method is the same for all four
    players.'"""
    m = Match(NASTY, 8)
    for bad, why in (
        ("hold", "not a pass call: 'hold'"),
        ((1, 1), "expected 3 offsets"),
        ((1, 1, 4), "expected 3 offsets from 1 to 3"),
        ((0, 1, 2), "from 1 to 3"),
    ):
        with pytest.raises(IllegalPlayError, match=why):
            m.call_pass(0, bad)
    assert m.phase is Phase.CALL
    assert [m.rules.pass_count] * 4 == [3, 3, 3, 3]
    m.call_pass(0, "2 2 2")  # offsets as text: across, by its name
    assert m.hand.direction == "across"


def test_nasty_the_dealer_may_call_everything_to_the_middle():
    """002: 'everyone passes to the middle, and those 12 cards are shuffled and dealt by the dealer.'"""
    m = Match(NASTY, 5)
    m.call_pass(0, "mix")
    assert m.hand.direction == "mix"
    sent = pass_lowest(m)
    pool = sum(mask_of(c) for c in sent.values())
    assert all(m.hand.received[s].bit_count() == 3 and not m.hand.received[s] & ~pool for s in range(4))
    assert sum(m.hand.received) == pool
    again = Match.replay(m.rules, m.seed, m.history)
    assert again.hand.hands == m.hand.hands


# -- No Passing (004) -------------------------------------------------------------------------------------


def test_no_passing_mode_plays_the_deal():
    """004: 'In No Passing mode you skip this step and play the cards you are dealt.'"""
    r = Rules.preset("no-passing")
    m = Match(r.replace(target=10_000), 3)
    for k in range(5):
        advance_to_hand(m, k, seed=k)
        assert m.hand.direction == "hold"
        assert m.phase is Phase.PLAY
        assert m.hand.hands == list(m.hand.dealt)
        assert m.to_move == (seat_holding(m, "2C"),)


# -- Booster Nines (002) -----------------------------------------------------------------------------------

BOOST = Rules.preset("booster-nines")
# After an opening club trick won by seat 1 (won_first), three cards each: seat 1 leads.
BOOST_HANDS = {
    1: "9D KD 5S",
    2: "3D 4D 6S",
    3: "5D AD 7S",
    0: "6D 7D 8S",
}


def test_booster_nine_led_adds_a_round_in_the_same_suit():
    """002: 'If a nine is led to a trick or played while following suit, then there is a boost: one more
    round is played in the same suit — i.e. a further card from each player, in rotation. The suit of the
    first of the eight cards played is the led suit, and the highest card of this suit takes the
    eight-card trick.'"""
    m = position(BOOST, BOOST_HANDS, won_first=1)
    assert play_cards(m, "9D 3D 5D 6D") == []  # the nine was led: no trick after four cards
    assert m.observation(1).boosted and m.to_move == (1,)  # 'in rotation': the leader plays again
    assert m.legal_plays() == cs("KD")  # 'in the same suit': following suit still binds
    m.play("KD")
    assert m.legal_plays() == cs("4D")
    (trick,) = play_cards(m, "4D AD 7D")
    assert trick.leader == 1 and len(trick.cards) == 8 and trick.winner == 3  # A♦, played by seat 3
    assert not m.observation(3).boosted and m.to_move == (3,)
    assert m.hand.tricks_won == [0, 1, 0, 1]
    (last,) = play_cards(m, "7S 8S 5S 6S")  # one card each is left: a plain trick ends the hand
    assert len(last.cards) == 4 and m.results[0].tricks_won == (1, 1, 0, 1)


def test_booster_nine_played_while_following_suit_boosts():
    """002: 'If a nine is led to a trick or played while following suit, then there is a boost'."""
    hands = {1: "KD 9S 5S", 2: "9D 4D 6S", 3: "5D AD 7S", 0: "6D 7D 8S"}
    m = position(BOOST, hands, won_first=1)
    assert play_cards(m, "KD 9D 5D 6D") == [] and m.observation(1).boosted
    (trick,) = play_cards(m, "9S 4D AD 7D")  # void in the second round: any card
    assert len(trick.cards) == 8 and trick.winner == 3


def test_booster_a_sloughed_nine_does_not_boost():
    """002: 'If a nine is sloughed (discarded on a lead of a different suit) or played in the last trick,
    there is no boost — the trick consists of just four cards as usual.'"""
    hands = {1: "5S KD 3D", 2: "9D 4D 2D", 3: "7S AD 5D", 0: "8S 7D 6D"}
    m = position(BOOST, hands, won_first=1)
    (trick,) = play_cards(m, "5S 9D 7S 8S")  # seat 2 has no spade: its nine is sloughed
    assert len(trick.cards) == 4 and trick.winner == 0


def test_booster_a_nine_in_the_last_trick_does_not_boost():
    """002: 'If a nine is sloughed (discarded on a lead of a different suit) or played in the last trick,
    there is no boost — the trick consists of just four cards as usual.'"""
    m = position(BOOST, {1: "9D", 2: "3D", 3: "AD", 0: "6D"}, won_first=1)
    (trick,) = play_cards(m, "9D 3D AD 6D")
    assert len(trick.cards) == 4 and m.results and m.results[0].tricks_won == (0, 1, 0, 1)


def test_booster_nines_is_an_option():
    """002: 'Richard Garfield recommends the following variation, introduced around 1990.' Without the
    option a nine is an ordinary card."""
    m = position(Rules(), BOOST_HANDS, won_first=1)
    (trick,) = play_cards(m, "9D 3D 5D 6D")
    assert len(trick.cards) == 4 and not m.observation(0).boosted
    assert BOOST.booster_nines and BOOST.name == "booster-nines" and str(BOOST) == "booster-nines"
    assert Rules.parse("standard,booster_nines=true") == BOOST


def test_booster_on_the_first_trick_keeps_first_trick_safety():
    """002: 'one more round is played in the same suit' — a boost of trick one is still trick one, so
    001: 'If you cannot follow with a club you must throw a safe card' holds in its second round too."""
    hands = {
        0: "2C 4C 8D 9D 10D JD QD KD AD 2S 3S 4S 5S",
        1: "3C 9C 6S 7S 8S 9S 10S JS KS AS 7H 8H 9H",
        2: "5C QS 2H 3H 4H 5H 6H 2D 3D 4D 5D 6D 7D",
        3: "6C 7C 8C 10C JC QC KC AC 10H JH QH KH AH",
    }
    m = position(BOOST, hands)
    assert play_cards(m, "2C 9C 5C 6C 4C 3C") == [] and m.observation(2).boosted
    assert m.legal_plays() == cs("2D 3D 4D 5D 6D 7D")  # void in clubs: no Q♠ nor heart on trick one
    (trick,) = play_cards(m, "2D 7C")
    assert len(trick.cards) == 8 and trick.winner == 1 and not m.hand.hearts_broken


# -- Turbo Hearts (002): the ten of clubs ---------------------------------------------------------------


TEN = Rules.preset("omnibus", ten_of_clubs_doubles=True)


def test_turbo_ten_of_clubs_doubles_its_captors_score():
    """002: 'The jack of diamonds is used as in the scoring variations above. Whoever captures the ten of
    clubs doubles their score for that hand.'"""
    m = end_of_hand(TEN, captured={1: "10C QS 2H 3H", 2: "JD 4H", 3: "5H 6H"}, filler=0)
    play_last_trick(m)
    r = m.results[0]
    assert r.points_taken[1] == 15 and r.score[1] == 30  # 13 + 2, doubled
    assert r.score[2] == -9 and r.score[3] == 2  # no ten: as usual
    # gains are doubled too: the J♦ with the 10♣ is −20
    m = end_of_hand(TEN, captured={1: "10C JD", 2: "QS " + HEARTS.replace("2H ", ""), 3: "2H"}, filler=0)
    play_last_trick(m)
    assert m.results[0].score == (0, -20, 25, 1)


def test_turbo_ten_of_clubs_doubles_a_moon_score():
    """002: 'Whoever captures the ten of clubs doubles their score for that hand' — the score for the hand
    is what the hand adds to the total, so a moon's 26 added to the 10♣'s captor counts 52 (seat 3 took
    the J♦: 26 − 10)."""
    m = end_of_hand(TEN, captured={2: HEARTS + " QS", 0: "10C"}, filler=3)
    play_last_trick(m)
    r = m.results[0]
    assert r.moon == 2 and r.score == (52, 26, 0, 16)
    # The shortest text: the turbo preset without its charging (which is all it adds to these rules).
    assert Rules.parse(str(TEN)) == TEN and str(TEN) == "turbo,turbo_charging=false"
    with pytest.raises(ValueError, match="10♣"):
        Rules(ten_of_clubs_doubles=True, removed_cards="10C", kitty="first-trick")


# -- Turbo Hearts (002): turbo-charging -------------------------------------------------------------------


TURBO = Rules.preset("turbo")
TURBO_ANY = TURBO.replace(turbo_charges="any")
TURBO_SLOUGH = TURBO.replace(charged_singleton="may-slough")


def charged_position(rules: Rules, hands: dict[int, str], charges: dict[int, str]) -> Match:
    """The first lead of a hand, each seat having charged ``charges[seat]`` through the engine."""
    m = position(rules, hands)
    h = m.hand
    h.phase, h.charges = Phase.CHARGE, [None] * rules.players
    for s in range(rules.players):
        m.charge(s, cs(charges.get(s, "")).cards)
    assert m.phase is Phase.PLAY
    return m


def scored_with_charges(rules: Rules, charges: dict[int, str], **kw) -> Match:
    """An ``end_of_hand`` position whose hand had these charges (every suit led long since), scored."""
    m = end_of_hand(rules, **kw)
    shown = tuple((s, c) for s in sorted(charges) for c in cs(charges[s]))
    m.hand.charged = sum(c.mask for _, c in shown)
    m.hand.shown_charges = shown
    play_last_trick(m)
    return m


def test_turbo_preset_and_options():
    """002: 'The jack of diamonds is used as in the scoring variations above. Whoever captures the ten of
    clubs doubles their score for that hand.'"""
    assert TURBO.turbo_charging and TURBO.ten_of_clubs_doubles and str(TURBO.bonus_card) == "JD"
    assert TURBO.bonus_points == -10 and TURBO.name == "turbo" and str(TURBO) == "turbo"
    assert TURBO.turbo_charges == "one" and TURBO.charged_singleton == "must-play"
    assert Rules.parse("turbo,turbo_charges=any") == TURBO_ANY and Rules.parse(str(TURBO_SLOUGH)) == TURBO_SLOUGH
    # Without charging, how many and the singleton's reading do not matter: the same rules.
    assert Rules(turbo_charges="any", charged_singleton="may-slough") == Rules()
    with pytest.raises(ValueError, match="turbo_charges"):
        Rules(turbo_charging=True, turbo_charges="two")


def test_turbo_charge_comes_after_the_pass_and_before_the_first_lead():
    """002: 'After the pass but before the first lead, each player may turbo-charge one of the following
    cards: ace of hearts, queen of spades, jack of diamonds, or ten of clubs.' Every seat at once, as
    they pass; on a hold hand, right after the deal."""
    m = Match(TURBO, 3)
    assert m.phase is Phase.PASS
    pass_lowest(m)
    assert m.phase is Phase.CHARGE and m.to_move == (0, 1, 2, 3) and not m.legal_plays()
    m.charge(2, ())
    assert m.to_move == (0, 1, 3)
    for s in (0, 1, 3):
        m.charge(s, ())
    assert m.phase is Phase.PLAY and m.hand.charged == 0
    hold = Match(TURBO.replace(pass_cycle="hold"), 3)
    assert hold.phase is Phase.CHARGE and hold.to_move == (0, 1, 2, 3)
    assert Match(Rules(pass_cycle="hold"), 3).phase is Phase.PLAY  # no charging without the option


def test_turbo_charge_is_one_card_of_the_four_or_none():
    """002: 'each player may turbo-charge one of the following cards: ace of hearts, queen of spades,
    jack of diamonds, or ten of clubs' — one (option turbo_charges=any: several), only those, held."""
    hands = {
        0: "2C AH QS JD TC 3C 4C 5C 6C 7C 8C 9C JC",
        1: "2D 3D 4D 5D 6D 7D 8D 9D TD QD KD AD QC",
        2: "2S 3S 4S 5S 6S 7S 8S 9S TS JS KS AS KC",
        3: "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AC",
    }
    m = position(TURBO, hands)
    m.hand.phase, m.hand.charges = Phase.CHARGE, [None] * 4
    with pytest.raises(WrongCountError):
        m.charge(0, cs("AH QS").cards)
    with pytest.raises(CardNotLegalError):
        m.charge(0, cs("2C").cards)
    with pytest.raises(CardNotHeldError):
        m.charge(1, cs("QS").cards)
    m.charge(0, cs("QS").cards)
    with pytest.raises(NotYourTurnError):
        m.charge(0, cs("AH").cards)
    m2 = position(TURBO_ANY, hands)
    m2.hand.phase, m2.hand.charges = Phase.CHARGE, [None] * 4
    m2.charge(0, cs("AH QS JD TC").cards)
    with pytest.raises(RepeatedCardError):
        m2.charge(1, [Card.parse("QD")] * 2)


def test_turbo_charged_cards_are_face_up():
    """002: 'They do this by placing the card face up in front of them.' Once every seat has charged, every
    seat's observation shows who charged what; before, a seat sees its own charge only."""
    m = Match(TURBO.replace(pass_cycle="hold"), 5)
    holders = {c: seat_holding(m, c) for c in ("QS", "AH")}
    m.charge(holders["QS"], [QS])
    for s in range(4):
        assert m.observation(s).charges == (((s, QS),) if s == holders["QS"] else ())
    for s in m.to_move:
        m.charge(s, [Card.parse("AH")] if s == holders["AH"] and s != holders["QS"] else [])
    want = sorted(
        ((holders["QS"], QS), *([(holders["AH"], Card.parse("AH"))] if holders["AH"] != holders["QS"] else []))
    )
    for s in range(4):
        assert sorted(m.observation(s).charges) == want
    assert m.history[-1].__class__.__name__ == "ChargeCards"
    assert Match.replay(m.rules, m.seed, m.history).observation(0).charges == m.observation(0).charges


def test_turbo_charged_queen_or_jack_doubles_that_card():
    """002: 'A turbo-charged queen of spades or jack of diamonds doubles the value of that card for that
    hand.'"""
    m = scored_with_charges(TURBO, {1: "QS", 2: "JD"}, captured={1: "QS 2H", 2: "JD 3H", 3: "4H"}, filler=0)
    r = m.results[0]
    assert r.points_taken[1] == 27 and r.points_taken[2] == -19 and r.points_taken[3] == 1
    assert r.charges == ((1, QS), (2, Card.parse("JD")))


def test_turbo_charged_ace_of_hearts_doubles_every_heart():
    """002: 'A turbo-charged ace of hearts doubles the value of all hearts for that hand.'"""
    m = scored_with_charges(TURBO, {3: "AH"}, captured={1: "QS 2H 3H", 2: "AH"}, filler=0)
    r = m.results[0]
    assert r.points_taken[1] == 13 + 4 and r.points_taken[2] == 2
    assert sum(r.points_taken) == 13 + 26 - 10  # every heart twice; the J♦ (filler's) −10


def test_turbo_charged_ten_of_clubs_quadruples_its_captors_score():
    """002: 'A turbo-charged ten of clubs quadruples the score for that hand of the player who captures
    it.' Quadruples, not doubled twice over the uncharged 10♣'s doubling."""
    m = scored_with_charges(TURBO, {0: "TC"}, captured={1: "TC QS 2H", 2: "3H"}, filler=0)
    assert m.results[0].score[1] == 4 * 14 and m.results[0].score[2] == 1


def test_turbo_moon_needs_every_penalty_card_and_is_worth_their_charged_value():
    """002: 'To shoot the moon, you need all the hearts and the queen of spades, and as usual you can choose
    to have 26 points deducted from your score or added to everyone else's' — charging changes no card into
    or out of the penalty cards; the moon is worth what they are worth that hand ('Instead of losing 26
    points' — the shooter would have lost 26 + 13 with a charged Q♠), and a charged 10♣ quadruples it."""
    m = scored_with_charges(TURBO, {2: "QS"}, captured={2: HEARTS + " QS", 0: "JD"}, filler=3)
    r = m.results[0]
    assert r.moon == 2 and r.score == (39 - 10, 39, 0, 2 * 39)  # seat 3, the filler, took the 10♣
    m = scored_with_charges(TURBO, {2: "QS AH", 1: "TC"}, captured={2: HEARTS + " QS", 0: "TC"}, filler=3)
    r = m.results[0]
    assert r.moon == 2 and r.score == (4 * 52, 52, 0, 52 - 10)
    m = Match(TURBO.replace(moon="shooter-chooses"), 0)
    m.hand.charged = QS.mask
    m._moon_shooter = 0
    assert m.observation(0).moon_points == 39


CHARGED_HANDS = {
    0: "2C QS 3S 4S 5D 6D 7D 8D 9D TD QD KD AD",
    1: "3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC 2S",
    2: "2D 3D 4D JD 6S 7S 8S 9S TS JS 2H 3H 4H",
    3: "KS AS 5S 5H 6H 7H 8H 9H TH JH QH KH AH",
}


def test_turbo_charged_card_may_not_be_played_the_first_time_its_suit_is_led():
    """002: 'A player may not play a turbo-charged card the first time a card of that suit is led.' On a
    later lead of the suit it plays freely."""
    m = charged_position(TURBO, CHARGED_HANDS, {0: "QS", 1: "TC"})
    assert m.turn == 0  # 2♣ opens
    play_cards(m, "2C")
    assert m.legal_plays() == cs("3C 4C 5C 6C 7C 8C 9C JC QC KC AC")  # not the charged 10♣: clubs' first lead
    play_cards(m, "AC 2D 5S")  # seat 1 wins and leads
    assert Card.parse("TC") in m.legal_plays()  # clubs have been led
    play_cards(m, "2S 6S AS")  # the first spade lead
    assert m.turn == 0 and m.legal_plays() == cs("3S 4S")  # not the charged Q♠
    play_cards(m, "4S")  # seat 3 wins with A♠ and leads spades again
    play_cards(m, "KS")
    assert m.legal_plays() == cs("QS 3S")


def with_charges(m: Match, charges: dict[int, str]) -> Match:
    """Set a later position's charges: restricted while their suit has not been led in a completed trick."""
    h = m.hand
    shown = tuple((s, c) for s in sorted(charges) for c in cs(charges[s]))
    h.charged = sum(c.mask for _, c in shown)
    h.shown_charges = shown
    led = {t.cards[0].suit for t in h.tricks}
    h._restricted = sum(c.mask for _, c in shown if c.suit not in led)
    h._legal = -1
    return m


LEADS = {
    0: "QS AS 5D 6D 7D 8D 9D TD QD KD AD 2H",
    1: "3S 4S 5S 6S 7S 8S 9S TS JS KS 3H 4H",
    2: "2D 3D 4D JD 5H 6H 7H 8H 9H TH JH QH",
    3: "KH AH 2S KC QC JC TC 9C 8C 7C 6C 5C",
}


def test_turbo_a_charged_card_may_not_be_led_before_its_suit_is():
    """002: 'A player may not play a turbo-charged card the first time a card of that suit is led.'
    Leading it would be that first time: the seat leads another card; once the suit has been led, it may.
    A charged card of another suit than the one led may be sloughed."""
    m = with_charges(position(TURBO, LEADS, won_first=0), {0: "QS"})
    assert m.turn == 0 and m.legal_plays() == cs("AS 5D 6D 7D 8D 9D TD QD KD AD")
    assert position(TURBO, LEADS, won_first=0).legal_plays() == cs("QS AS 5D 6D 7D 8D 9D TD QD KD AD")
    hands = {
        0: "QS 5D 6D 7D 8D 9D TD QD KD AD 2H",
        1: "4S 5S 6S 7S 8S 9S TS JS KS 3H 4H",
        2: "2D 3D 4D JD 6H 7H 8H 9H TH JH QH",
        3: "KH AH KC QC JC TC 9C 8C 7C 6C 5C",
    }
    m = with_charges(position(TURBO, hands, won_first=0, tricks=[(0, "AS 3S 5H 2S")]), {0: "QS"})
    assert m.turn == 0 and QS in m.legal_plays()  # spades have been led
    m = with_charges(position(TURBO, LEADS, won_first=2), {0: "QS", 3: "AH"})
    play_cards(m, "2D")
    assert m.turn == 3 and m.legal_plays() == cs(LEADS[3])  # void: it may slough its charged A♥ on diamonds
    play_cards(m, "AH")
    assert m.legal_plays() == cs("5D 6D 7D 8D 9D TD QD KD AD")


def test_turbo_a_charged_singleton_of_the_led_suit():
    """002: 'A player may not play a turbo-charged card the first time a card of that suit is led.' A seat
    whose only card of the led suit is charged must play it
    (charged_singleton=must-play, the default: the restriction never leaves it without a legal card), or
    may play any other card, as if void (may-slough). 002: 'must follow suit — play a card of the suit which
    was led — if possible'."""
    hands = {
        0: "2C QS 5D 6D 7D 8D 9D TD QD KD AD 2H 3H",
        1: "3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC 2S",
        2: "2D 3D 4D JD 6S 7S 8S 9S TS JS 4H 5H 6H",
        3: "KS AS 5S 3S 4S 7H 8H 9H TH JH QH KH AH",
    }
    for rules, want in ((TURBO, "QS"), (TURBO_SLOUGH, "5D 6D 7D 8D 9D TD QD KD AD 2H 3H")):
        m = charged_position(rules, hands, {0: "QS"})
        play_cards(m, "2C AC 2D 5S")  # seat 1 wins and leads its 2♠: the first spade lead
        play_cards(m, "2S 6S AS")
        assert m.turn == 0 and m.legal_plays() == cs(want)


def test_turbo_a_hand_of_nothing_but_a_charged_card_plays_it():
    """002: 'A player may not play a turbo-charged card the first time a card of that suit is led.' — but
    a seat holding nothing else must play it: the rules never leave a seat without a legal card."""
    hands = {0: "QS", 1: "2S", 2: "3S", 3: "4S"}
    for rules in (TURBO, TURBO_SLOUGH):
        for leader, plays in ((1, "2S 3S 4S"), (0, "")):  # following, and leading
            m = position(rules, hands, leader=leader)
            m.hand.opening = 0  # a later trick: nobody holds the 2♣
            m.hand.tricks = [m.hand.tricks[0]] if m.hand.tricks else []
            m.hand.charged = m.hand._restricted = QS.mask
            play_cards(m, plays)
            assert m.turn == 0 and m.legal_plays() == cs("QS")
