"""Rule options from 002 (and 001's list of variants): the moon and the sun, the play of the hand,
scoring, passing cycles.

Each test quotes the sentence it checks and names its source file:
000_93466bf2ef5d25de.txt, 001_7c47ddaca2398b03.txt, 002_9f11e0823e382118.txt, 004_f34b613fe02b4aea.txt.
"""

from __future__ import annotations

import random

import pytest
from positions import (
    HEARTS,
    advance_to_hand,
    cs,
    end_of_hand,
    m_,
    mask_of,
    pass_lowest,
    play_last_trick,
    position,
    random_step,
    seat_holding,
)

from referee.rules import (
    PASS_CYCLES,
    Card,
    IllegalPlayError,
    Match,
    MoonChoice,
    Phase,
    Rules,
    cards_of,
)

QS = Card.parse("QS")


# -- moon options (002) -------------------------------------------------------------------------------------


def test_moon_subtract_from_shooter():
    """002: 'There are variations on the choice of scores for shooting the moon. Possibilities are: the
    shooter always has 26 points deducted;'"""
    m = end_of_hand(Rules(moon="subtract-from-shooter"), captured={1: HEARTS + " QS"}, scores=[40, 50, 60, 70])
    play_last_trick(m)
    r = m.results[0]
    assert r.moon == 1 and r.moon_choice is MoonChoice.SUBTRACT_FROM_SHOOTER
    assert r.score == (0, -26, 0, 0)
    assert m.scores == [40, 24, 60, 70]


@pytest.mark.parametrize(
    "choice,expected",
    [
        (MoonChoice.SUBTRACT_FROM_SHOOTER, [40, 24, 60, 70]),
        (MoonChoice.ADD_TO_OTHERS, [66, 50, 86, 96]),
        ("subtract-from-shooter", [40, 24, 60, 70]),
        ("add-to-others", [66, 50, 86, 96]),
    ],
)
def test_moon_shooter_chooses(choice, expected):
    """002: 'If you manage to win all the scoring cards — all 13 hearts and the queen of spades — this is
    known as a slam or shooting the moon. Instead of losing 26 points, either: your own score is reduced
    by 26 points; or you may choose instead to have all other players' scores increased by 26 points.'"""
    m = end_of_hand(Rules(moon="shooter-chooses"), captured={1: HEARTS + " QS"}, scores=[40, 50, 60, 70])
    play_last_trick(m)
    assert m.phase is Phase.MOON
    assert m.to_move == (1,) and m.turn == 1
    assert m.scores == [40, 50, 60, 70] and not m.results
    obs = m.observation(1)
    assert obs.phase is Phase.MOON and obs.moon_points == 26 and not obs.legal
    with pytest.raises(IllegalPlayError):
        m.choose_moon(0, MoonChoice.ADD_TO_OTHERS)  # only the shooter chooses
    with pytest.raises(IllegalPlayError):
        m.play("2C", 0)
    m.choose_moon(1, choice)
    assert m.scores == expected
    assert m.results[0].moon == 1 and m.results[0].moon_choice is MoonChoice(choice)
    assert m.phase is Phase.PASS and m.hand_number == 1
    with pytest.raises(IllegalPlayError):
        m.choose_moon(1, choice)  # no second choice


def test_moon_shooter_chooses_no_question_without_a_moon():
    """002: 'Instead of losing 26 points, either: ...' — only a moon asks the shooter; an ordinary hand
    scores at once."""
    m = end_of_hand(Rules(moon="shooter-chooses"), captured={1: HEARTS, 2: "QS"})
    play_last_trick(m)
    assert m.phase is Phase.PASS and m.results[0].score == (0, 13, 13, 0)


def test_moon_add_unless_win_adds_normally():
    """002: 'all the other players always have 26 points added unless this would cause one of them to win,
    in which case the shooter has 26 points deducted.'"""
    r = Rules(moon="add-unless-win")
    m = end_of_hand(r, captured={2: HEARTS + " QS"}, scores=[10, 20, 30, 40])
    play_last_trick(m)
    assert m.results[0].score == (26, 26, 0, 26) and m.scores == [36, 46, 30, 66]


def test_moon_add_unless_win_subtracts_when_adding_hands_another_the_win():
    """002: 'all the other players always have 26 points added unless this would cause one of them to win,
    in which case the shooter has 26 points deducted.'"""
    r = Rules(moon="add-unless-win")
    # adding would give 106/10/90/116: seat 1 would win, so the shooter (seat 2) subtracts instead
    m = end_of_hand(r, captured={2: HEARTS + " QS"}, scores=[80, 10, 90, 90])
    play_last_trick(m)
    assert m.results[0].moon_choice is MoonChoice.SUBTRACT_FROM_SHOOTER
    assert m.results[0].score == (0, 0, -26, 0)
    assert m.scores == [80, 10, 64, 90] and not m.over


def test_moon_add_unless_win_adds_when_the_shooter_wins():
    """002: 'all the other players always have 26 points added unless this would cause one of them to win'
    — when adding ends the match with the shooter lowest, nobody else wins: add."""
    r = Rules(moon="add-unless-win")
    m = end_of_hand(r, captured={2: HEARTS + " QS"}, scores=[80, 60, 10, 90])
    play_last_trick(m)
    assert m.results[0].moon_choice is MoonChoice.ADD_TO_OTHERS
    assert m.scores == [106, 86, 10, 116] and m.over and m.winners == (2,)


def test_moon_add_unless_win_with_exact_target_reset():
    """002: 'all the other players always have 26 points added unless this would cause one of them to win'
    together with 002: 'if your score is exactly 100 points at the end of a hand, it is reduced to 50'.
    Adding 26 takes seat 0 from 74 to exactly 100, which resets it to 50: nobody reaches 100, nobody
    wins, so the 26 must be added."""
    r = Rules(moon="add-unless-win", exact_target_reset=50)
    m = end_of_hand(r, captured={2: HEARTS + " QS"}, scores=[74, 10, 30, 40])
    play_last_trick(m)
    assert m.results[0].moon_choice is MoonChoice.ADD_TO_OTHERS
    assert m.scores == [50, 36, 30, 66] and not m.over


def test_moon_add_unless_win_counts_the_bonus_card():
    """002: 'all the other players always have 26 points added unless this would cause one of them to win,
    in which case the shooter has 26 points deducted.' and 'in addition to this, 10 points are deducted
    from the score of the player who took the jack of diamonds'. Totals 80/40/60/90; seat 2 shoots, seat 1
    took the J♦. Adding gives 106/56/60/116: seat 1 (40 + 26 − 10) would win, so the shooter must have
    26 deducted instead: 80/30/34/90 and play goes on."""
    r = Rules.preset("omnibus", moon="add-unless-win")
    m = end_of_hand(r, captured={2: HEARTS + " QS", 1: "JD"}, scores=[80, 40, 60, 90])
    play_last_trick(m)
    assert m.results[0].moon == 2
    assert m.results[0].moon_choice is MoonChoice.SUBTRACT_FROM_SHOOTER
    assert m.scores == [80, 30, 34, 90] and not m.over


def test_moon_add_unless_win_subtracts_when_adding_would_share_the_win():
    """002: 'all the other players always have 26 points added unless this would cause one of them to win,
    in which case the shooter has 26 points deducted.' With tied_lowest=share (000: 'equal lowest totals
    share the win') a share of the win is a win: if adding would leave another player tied with the
    shooter at the bottom of a finished match, the shooter has 26 deducted instead."""
    r = Rules(moon="add-unless-win", tied_lowest="share")
    # adding gives 106/10/10/116: seat 1 would share the win with the shooter, so subtract instead
    m = end_of_hand(r, captured={2: HEARTS + " QS"}, scores=[80, -16, 10, 90])
    play_last_trick(m)
    assert m.results[0].moon_choice is MoonChoice.SUBTRACT_FROM_SHOOTER
    assert m.scores == [80, -16, -16, 90] and not m.over
    # the shooter alone at the bottom after adding: add, and the shooter wins
    m = end_of_hand(r, captured={2: HEARTS + " QS"}, scores=[80, -15, 10, 90])
    play_last_trick(m)
    assert m.results[0].moon_choice is MoonChoice.ADD_TO_OTHERS
    assert m.scores == [106, 11, 10, 116] and m.over and m.winners == (2,)


# -- shooting the sun (002) ------------------------------------------------------------------------------------


def test_shooting_the_sun_scores_52():
    """002: 'Shooting the sun is taking all the tricks (as opposed to taking all points). Some score this as
    52 points, with the scoring handled in the same way as shooting the moon.'"""
    r = Rules(sun_points=52)
    m = end_of_hand(
        r,
        captured={0: "QS " + HEARTS},
        filler=0,
        tricks_won={0: 12},
        scores=[0, 0, 0, 0],
        last_trick={0: "AC", 1: "2C", 2: "3C", 3: "4C"},
    )
    play_last_trick(m)
    res = m.results[0]
    assert res.sun == 0 and res.tricks_won == (13, 0, 0, 0)
    assert res.score == (0, 52, 52, 52)
    # a moon that is not a sun still scores 26
    m = end_of_hand(r, captured={0: "QS " + HEARTS, 1: "2D"}, tricks_won={0: 11, 1: 1})
    play_last_trick(m)
    assert m.results[0].sun is None and m.results[0].moon == 0
    assert m.results[0].score == (0, 26, 26, 26)


def test_shooting_the_sun_with_subtract_and_choice():
    """002: 'Some score this as 52 points, with the scoring handled in the same way as shooting the moon.'"""
    r = Rules(sun_points=52, moon="subtract-from-shooter")
    m = end_of_hand(
        r,
        captured={0: "QS " + HEARTS},
        filler=0,
        tricks_won={0: 12},
        scores=[60, 0, 0, 0],
        last_trick={0: "AC", 1: "2C", 2: "3C", 3: "4C"},
    )
    play_last_trick(m)
    assert m.results[0].score == (-52, 0, 0, 0)
    r = Rules(sun_points=52, moon="shooter-chooses")
    m = end_of_hand(
        r, captured={0: "QS " + HEARTS}, filler=0, tricks_won={0: 12}, last_trick={0: "AC", 1: "2C", 2: "3C", 3: "4C"}
    )
    play_last_trick(m)
    assert m.phase is Phase.MOON and m.observation(0).moon_points == 52
    m.choose_moon(0, "add-to-others")
    assert m.results[0].score == (0, 52, 52, 52)


# -- play-of-the-hand options (002) ----------------------------------------------------------------------------


def test_queen_breaks_hearts_option():
    """002: 'Some play that the queen of spades breaks hearts. In other words, hearts may be led any time
    after the queen of spades or any heart has been played.'"""
    r = Rules(queen_breaks_hearts=True)
    hands = {0: "3D 5C 10S", 1: "QS 6C 2H", 2: "5D 8C 9S", 3: "6D 10C 9H"}
    m = position(r, hands, won_first=0)
    m.play("3D")
    m.play("QS")
    assert m.hand.hearts_broken
    m.play("5D")
    m.play("6D")
    assert m.to_move == (3,) and m.legal_plays() == cs("10C 9H")
    # the standard rule in the same position: still barred
    m = position(Rules(), hands, won_first=0)
    for c in ("3D", "QS", "5D", "6D"):
        m.play(c)
    assert m.legal_plays() == cs("10C")


def test_queen_breaks_hearts_when_led():
    """002: 'hearts may be led any time after the queen of spades or any heart has been played.'"""
    r = Rules(queen_breaks_hearts=True)
    hands = {0: "QS 5H 3D", 1: "4S 6H 4D", 2: "5S 7H 5D", 3: "6S 8H 6D"}
    m = position(r, hands, won_first=0)
    assert m.legal_plays() == cs("QS 3D")
    for c in ("QS", "4S", "5S", "6S"):
        m.play(c)
    assert m.hand.hearts_broken
    assert m.to_move == (0,) and m.legal_plays() == cs("5H 3D")
    m = position(Rules(), hands, won_first=0)
    for c in ("QS", "4S", "5S", "6S"):
        m.play(c)
    assert m.legal_plays() == cs("3D")  # 001: the Queen does not break hearts


def test_hearts_may_be_led_any_time_option():
    """002: 'Some players allow hearts to be led at any time. This was the original rule, but in the USA
    nearly everyone now plays that heart leads are forbidden unless hearts have been broken.'"""
    r = Rules(hearts_lead="any-time")
    m = position(r, {0: "3C 5H 9H", 1: "4C 6D 7S", 2: "5C 8D 9S", 3: "6C 10D 10S"}, won_first=0)
    assert not m.hand.hearts_broken
    assert m.legal_plays() == cs("3C 5H 9H")
    m.play("5H")
    assert m.hand.hearts_broken
    # the first trick still opens with 2♣
    m = position(r, {0: "2C 5H", 1: "4C 6D", 2: "5C 8D", 3: "6C 10D"})
    assert m.legal_plays() == cs("2C")


def test_points_on_first_trick_option():
    """002: 'As a variation, some people play "Wide Open", which means that anything can be thrown on the
    first trick.' (the default follows 001's first-trick safety rule)."""
    r = Rules(points_on_first_trick=True)
    hands = {
        0: "2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC",
        1: "QS 2D 3D 4D 5D 6D 2H 3H 4H 5H 6H 7H 8H",
        2: "8D 9D 10D JD QD KD AD 2S 3S 4S 5S 6S 9H",
        3: "7S 8S 9S 10S JS 7D KS AS 10H JH QH KH AH",
    }
    m = position(r, hands)
    m.play("2C")
    assert m.legal_plays() == cs(hands[1])
    m.play("QS")
    assert m.legal_plays() == cs(hands[2])
    m.play("9H")
    assert m.hand.hearts_broken


def test_first_lead_left_of_dealer_any_card_but_a_heart():
    """002: 'The original rule was that the player to the left of the dealer always leads to the first
    trick (rather than the holder of the 2 of clubs leading it), and may lead any card. Some people still
    play that way. If you play with the now usual restriction on leading hearts, then the opening lead can
    be anything but a heart.'"""
    r = Rules(first_lead="left-of-dealer", pass_cycle="none", points_on_first_trick=True, target=10_000)
    m = Match(r, 11)
    for k in range(4):
        advance_to_hand(m, k, seed=k)
        dealer = m.hand.dealer
        assert m.to_move == ((dealer + 1) % 4,)
        seat = m.to_move[0]
        h = m.hand.hands[seat]
        non_hearts = h & ~m_(HEARTS)
        assert m.legal_plays().mask == (non_hearts or h)
    # dealer rotates: hand 0 dealt by seat 0, so seat 1 leads; hand 1: seat 2
    m = Match(r, 11)
    assert m.hand.dealer == 0 and m.to_move == (1,)


def test_first_lead_left_of_dealer_with_hearts_any_time():
    """002: 'the player to the left of the dealer always leads to the first trick ... and may lead any
    card.' — with hearts_lead=any-time and points allowed on trick one, the whole hand is legal."""
    r = Rules(first_lead="left-of-dealer", hearts_lead="any-time", points_on_first_trick=True, pass_cycle="none")
    for seed in range(5):
        m = Match(r, seed)
        assert m.to_move == (1,)
        assert m.legal_plays().mask == m.hand.hands[1]


def test_first_lead_left_of_dealer_may_lead_the_queen_when_points_are_allowed_on_trick_one():
    """002: 'If you play with the now usual restriction on leading hearts, then the opening lead can be
    anything but a heart.' With points_on_first_trick the opening leader may lead Q♠ (only the hearts
    restriction applies); with hearts_lead=any-time, 'may lead any card', hearts included."""
    hands = {
        0: "2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC",
        1: "QS 2D 3D 4D 5D 6D 2H 3H 4H 5H 6H 7H 8H",
        2: "8D 9D 10D JD QD KD AD 2S 3S 4S 5S 6S 9H",
        3: "7S 8S 9S 10S JS 7D KS AS 10H JH QH KH AH",
    }
    r = Rules(first_lead="left-of-dealer", pass_cycle="none", points_on_first_trick=True)
    m = position(r, hands)
    assert m.to_move == (1,) and m.legal_plays() == cs("QS 2D 3D 4D 5D 6D")
    m = position(r.replace(hearts_lead="any-time"), hands)
    assert m.legal_plays() == cs(hands[1])


def test_first_lead_left_of_dealer_keeps_first_trick_safety():
    """002: 'Some play that it is illegal to play points on the very first trick, unless of course you have
    nothing but penalty cards in your hand.' With the default first-trick rule the opening leader (left of
    the dealer) may lead any card but a heart or the Queen."""
    r = Rules(first_lead="left-of-dealer", pass_cycle="none")
    hands = {
        0: "2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC",
        1: "QS 2D 3D 4D 5D 6D 2H 3H 4H 5H 6H 7H 8H",
        2: "8D 9D 10D JD QD KD AD 2S 3S 4S 5S 6S 9H",
        3: "7S 8S 9S 10S JS 7D KS AS 10H JH QH KH AH",
    }
    m = position(r, hands)
    assert m.to_move == (1,)
    assert m.legal_plays() == cs("2D 3D 4D 5D 6D")


def test_lead_hearts_with_queen_option():
    """002: 'If hearts have not been played and a player is on lead holding nothing but hearts and the
    queen of spades, many people allow hearts to be led, instead of forcing the player to lead the queen
    of spades.'"""
    hands = {0: "QS 5H 9H", 1: "4C 6D 7S", 2: "5C 8D 9S", 3: "6C 10D 10S"}
    m = position(Rules(lead_hearts_with_queen=True), hands, won_first=0)
    assert m.to_move == (0,)
    assert m.legal_plays() == cs("QS 5H 9H")
    m = position(Rules(), hands, won_first=0)
    assert m.legal_plays() == cs("QS")
    # a hand with another spade is not 'nothing but hearts and the queen'
    m = position(
        Rules(lead_hearts_with_queen=True), {0: "QS 2S 5H", 1: "4C 6D 7S", 2: "5C 8D 9S", 3: "6C 10D 10S"}, won_first=0
    )
    assert m.legal_plays() == cs("QS 2S")


QUEEN_SAFE = Rules(queen_at_first_safe_chance=True)


def test_queen_at_first_safe_chance_when_void():
    """002: 'Some players insist that you must play the queen of spades as soon as it is safe to do so.
    This could be when you are void in the suit led, or to a spade trick when the ace or king of spades has
    already been played.'"""
    m = position(QUEEN_SAFE, {0: "3D 5C", 1: "QS 2H 6C", 2: "5D 8S", 3: "6D 10S"}, won_first=0)
    m.play("3D")
    assert m.legal_plays() == cs("QS")
    with pytest.raises(IllegalPlayError):
        m.play("2H")
    # without the option the void player may throw anything
    m = position(Rules(), {0: "3D 5C", 1: "QS 2H 6C", 2: "5D 8S", 3: "6D 10S"}, won_first=0)
    m.play("3D")
    assert m.legal_plays() == cs("QS 2H 6C")


@pytest.mark.parametrize("high", ["AS", "KS"])
def test_queen_at_first_safe_chance_under_a_higher_spade(high):
    """002: 'This could be when you are void in the suit led, or to a spade trick when the ace or king of
    spades has already been played.'"""
    m = position(QUEEN_SAFE, {0: "3S 5C", 1: f"{high} 6C", 2: "QS 2S 8D", 3: "6D 10S"}, won_first=0)
    m.play("3S")
    m.play(high)
    assert m.legal_plays() == cs("QS")


def test_queen_at_first_safe_chance_not_forced_when_unsafe_or_leading():
    """002: 'you must play the queen of spades as soon as it is safe to do so' — a spade trick without the
    A♠ or K♠ is not safe (the Queen could win), and leading is never forced."""
    m = position(QUEEN_SAFE, {0: "3S 5C", 1: "JS 6C", 2: "QS 2S 8D", 3: "6D 10S"}, won_first=0)
    m.play("3S")
    m.play("JS")
    assert m.legal_plays() == cs("QS 2S")
    m = position(QUEEN_SAFE, {0: "QS 2S 8D", 1: "JS 6C", 2: "3S 5C", 3: "6D 10S"}, won_first=0)
    assert m.legal_plays() == cs("QS 2S 8D")


def test_queen_at_first_safe_chance_not_on_the_first_trick():
    """002: 'you must play the queen of spades as soon as it is safe to do so' — on trick one the Queen may
    not be thrown at all (001 first-trick safety rule), so nothing is forced."""
    hands = {
        0: "2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC",
        1: "QS 2D 3D 4D 5D 6D 2H 3H 4H 5H 6H 7H 8H",
        2: "8D 9D 10D JD QD KD AD 2S 3S 4S 5S 6S 9H",
        3: "7S 8S 9S 10S JS 7D KS AS 10H JH QH KH AH",
    }
    m = position(QUEEN_SAFE, hands)
    m.play("2C")
    assert m.legal_plays() == cs("2D 3D 4D 5D 6D")


# -- scoring options -------------------------------------------------------------------------------------


@pytest.mark.parametrize("reset", [50, 0])
def test_exact_target_reset(reset):
    """002: 'For some people, reaching certain scores has a special effect. For example, if your score is
    exactly 100 points at the end of a hand, it is reduced to 50 (or zero).'"""
    r = Rules(exact_target_reset=reset)
    m = end_of_hand(r, captured={0: "QS", 1: HEARTS}, scores=[87, 10, 20, 30])
    play_last_trick(m)
    assert m.scores == [reset, 23, 20, 30]
    assert m.results[0].totals == (reset, 23, 20, 30)
    assert not m.over
    # 101 is not exactly 100: the game ends
    m = end_of_hand(r, captured={0: "QS", 1: HEARTS}, scores=[88, 10, 20, 30])
    play_last_trick(m)
    assert m.scores == [101, 23, 20, 30] and m.over and m.winners == (2,)


def test_exact_reset_is_at_100_whatever_the_target():
    """002: 'if your score is exactly 100 points at the end of a hand, it is reduced to 50 (or zero).' The
    sentence names 100, not the target: under Spot (game to 500) a total of exactly 100 resets, and 500
    does not (it ends the match)."""
    r = Rules.preset("spot", exact_target_reset=50)
    assert r.exact_reset_at == 100
    m = end_of_hand(r, captured={0: "QS", 1: HEARTS}, scores=[75, 10, 20, 30])  # 75 + Q♠ 25
    play_last_trick(m)
    assert m.scores == [50, 114, 20, 30] and not m.over
    m = end_of_hand(r, captured={0: "QS", 1: HEARTS}, scores=[475, 10, 20, 30])
    play_last_trick(m)
    assert m.scores == [500, 114, 20, 30] and m.over and m.winners == (2,)


def test_exact_reset_at_the_target_is_the_other_reading():
    """002: 'For some people, reaching certain scores has a special effect.' Resetting at the game's
    end instead of at 100 is an option: exact_reset_at=500 under Spot resets 500 and leaves 100 alone."""
    r = Rules.preset("spot", exact_target_reset=250, exact_reset_at=500)
    m = end_of_hand(r, captured={0: "QS", 1: HEARTS}, scores=[75, 10, 20, 30])
    play_last_trick(m)
    assert m.scores == [100, 114, 20, 30] and not m.over
    m = end_of_hand(r, captured={0: "QS", 1: HEARTS}, scores=[475, 10, 20, 30])
    play_last_trick(m)
    assert m.scores == [250, 114, 20, 30] and not m.over
    assert Rules.parse(str(r)) == r and "exact_reset_at=500" in str(r)
    # where no reset is played, where it would happen is no part of the rules
    assert Rules(exact_reset_at=500) == Rules()
    with pytest.raises(ValueError, match="exact_reset_at"):
        Rules(exact_target_reset=100)


def test_no_tricks_bonus():
    """001: 'No-tricks bonus — a small reward for taking zero tricks in a hand. Not played here.' As an
    option: the bonus is added to each player who took no trick."""
    r = Rules(no_tricks_bonus=-5)
    m = end_of_hand(r, captured={0: "QS", 1: HEARTS}, tricks_won={0: 4, 1: 4, 3: 4}, filler=3)
    play_last_trick(m)
    res = m.results[0]
    assert res.tricks_won[2] == 0
    assert res.score == (13, 13, -5, 0)
    assert Rules().no_tricks_bonus == 0


@pytest.mark.parametrize("target", [50, 150])
def test_target_option(target):
    """001: 'Games to 50 or 150 — the target here is always 100.' — as an option, the match ends at the
    target."""
    r = Rules(target=target)
    m = end_of_hand(r, captured={0: "QS", 1: HEARTS}, scores=[target - 14, 0, 0, 1])
    play_last_trick(m)
    assert not m.over
    m = end_of_hand(r, captured={0: "QS", 1: HEARTS}, scores=[target - 13, 0, 0, 1])
    play_last_trick(m)
    assert m.over and m.winners == (2,)
    assert Rules.parse(f"target={target}") == r
    assert Rules.parse("spot,target=300").target == 300 and Rules.parse("spot,target=300").points == "spot"


# -- passing cycles (002) -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name,cycle",
    [
        ("no-hold", ("left", "right", "across")),
        ("always-right", ("right",)),
        ("always-left", ("left",)),
        ("none", ("hold",)),
        ("scatter", ("left", "right", "across", "scatter")),
        ("scatter-hold", ("left", "right", "across", "scatter", "hold")),
        ("mix", ("left", "right", "across", "mix")),
    ],
)
def test_named_pass_cycles(name, cycle):
    """002: 'Different passing cycles may be used, for example: pass left, pass right, pass across, then
    repeat (no hold hand); scatter instead of hold (players pass one card to every other player); both
    scatter and hold hands are played (the cycle is left, right, across, scatter, then hold); another
    passing method that can be included in the cycle is mix'"""
    r = Rules(pass_cycle=name)
    assert r.pass_cycle == cycle == PASS_CYCLES[name]
    assert [r.pass_direction(k) for k in range(2 * len(cycle))] == list(cycle) * 2
    assert Rules.parse(f"pass_cycle={name}") == r


def test_no_hold_cycle_in_play():
    """002: 'pass left, pass right, pass across, then repeat (no hold hand);'"""
    m = Match(Rules(pass_cycle="no-hold", target=10_000), 2)
    offsets = {"left": 1, "right": -1, "across": 2}
    for k, d in enumerate(["left", "right", "across", "left", "right"]):
        advance_to_hand(m, k, seed=k)
        assert m.phase is Phase.PASS and m.hand.direction == d
        sent = pass_lowest(m)
        for s in range(4):
            assert m.hand.received[(s + offsets[d]) % 4] == sum(c.mask for c in sent[s])


def test_scatter_passes_one_card_to_each_other_player():
    """002: 'scatter instead of hold (players pass one card to every other player);'"""
    m = Match(Rules(pass_cycle=("scatter",)), 4)
    dealt = list(m.hand.hands)
    sent = pass_lowest(m)
    for r in range(4):
        got = m.hand.received[r]
        assert got.bit_count() == 3
        for s in range(4):
            if s != r:
                assert (got & sum(c.mask for c in sent[s])).bit_count() == 1
        assert not got & sum(c.mask for c in sent[r])
        assert m.hand.hands[r] == dealt[r] & ~sum(c.mask for c in sent[r]) | got


def test_scatter_two_each_with_three_players_passing_four():
    """002: 'If you pass 4 cards instead of 3 you can also scatter by passing 2 cards to each other player.'"""
    r = Rules(players=3, pass_count=4, pass_cycle="left right scatter")
    assert r.pass_direction(2) == "scatter"
    m = Match(r.replace(pass_cycle=("scatter",)), 1)
    sent = pass_lowest(m)
    for rec in range(3):
        got = m.hand.received[rec]
        assert got.bit_count() == 4
        for s in range(3):
            if s != rec:
                assert (got & sum(c.mask for c in sent[s])).bit_count() == 2
    assert all(h.bit_count() == 17 for h in m.hand.hands)


def _all_cards(m: Match) -> list[int]:
    return list(m.hand.hands) + [m.hand.kitty]


def test_mix_keeps_every_card_exactly_once():
    """002: 'another passing method that can be included in the cycle is mix: everyone discards three cards
    to a pile in the centre, which is shuffled and then redealt to the players.'"""
    for seed in range(10):
        m = Match(Rules(pass_cycle=("mix",)), seed)
        dealt = list(m.hand.hands)
        sent = pass_lowest(m)
        pool = sum(c.mask for cards in sent.values() for c in cards)
        union = 0
        for s in range(4):
            h = m.hand.hands[s]
            assert h.bit_count() == 13
            assert not union & h
            union |= h
            got = m.hand.received[s]
            assert got.bit_count() == 3 and got & ~pool == 0
            assert h == (dealt[s] & ~sum(c.mask for c in sent[s])) | got
        assert union == (1 << 52) - 1
        # the redeal is chance recorded in the history
        assert any(type(e).__name__ == "MixRedeal" for e in m.history)
        assert m.phase is Phase.PLAY and m.to_move == (seat_holding(m, "2C"),)


def test_mix_with_a_kitty_shuffles_the_kitty_in():
    """002: 'If you play with a kitty, this can be shuffled in too, so that the new kitty can contain some of
    the discards.'"""
    r = Rules(pass_cycle=("mix",), kitty="first-trick", hand_size=12)
    new_kitty_has_discard = False
    for seed in range(20):
        m = Match(r, seed)
        old_kitty = m.hand.kitty
        sent = pass_lowest(m)
        pool = sum(c.mask for cards in sent.values() for c in cards) | old_kitty
        assert m.hand.kitty.bit_count() == 4
        assert m.hand.kitty & ~pool == 0
        got = 0
        for s in range(4):
            assert m.hand.hands[s].bit_count() == 12
            got |= m.hand.received[s]
        assert got | m.hand.kitty == pool
        new_kitty_has_discard |= bool(m.hand.kitty & ~old_kitty)
    assert new_kitty_has_discard


@pytest.mark.parametrize("count", [1, 2, 4])
def test_pass_count_option(count):
    """002: 'If you pass 4 cards instead of 3 you can also scatter by passing 2 cards to each other player.'
    — the number of cards passed is an option; exactly that many must be passed."""
    m = Match(Rules(pass_count=count), 3)
    with pytest.raises(IllegalPlayError):
        m.pass_cards(0, cards_of(m.hand.hands[0])[: count + 1])
    sent = pass_lowest(m)
    for s in range(4):
        assert m.hand.received[(s + 1) % 4] == sum(c.mask for c in sent[s])
        assert m.hand.received[(s + 1) % 4].bit_count() == count


PASS_ON = "002: 'Some play that players are not required to pass any cards if they do not wish to.'"


def test_pass_on_sends_on_unseen_the_cards_passed_to_a_seat():
    """002: 'Some play that players are not required to pass any cards if they do not wish to. They simply pass
    on the cards that were passed to them without looking at them.'"""
    m = Match(Rules(pass_on=True, pass_cycle="left"), 5)
    dealt = list(m.hand.hands)
    own = {s: cards_of(dealt[s])[:3] for s in (0, 3)}
    m.pass_cards(0, own[0])
    m.pass_cards(1, [])  # seats 1 and 2 pass on: seat 0's cards travel 0 -> 1 -> 2 -> 3
    m.pass_cards(2, ())
    m.pass_cards(3, own[3])  # and seat 3's reach seat 0 directly
    assert m.phase is Phase.PLAY
    assert m.hand.received[3] == mask_of(own[0]) and m.hand.received[0] == mask_of(own[3])
    assert m.hand.hands[1] == dealt[1] and m.hand.hands[2] == dealt[2]  # passed on: unchanged hands
    for s in (1, 2):  # 'without looking at them': the cards that went through are never shown to them
        obs = m.observation(s)
        assert not obs.received and obs.passed == ()
        assert not (obs.hand.mask | obs.received.mask) & mask_of(own[0])
    assert m.observation(3).received.mask == mask_of(own[0])


def test_pass_on_can_give_a_player_their_own_cards_back():
    """002: 'This could result in a player getting their own cards back.'"""
    m = Match(Rules(pass_on=True, pass_cycle="across"), 2)
    dealt = list(m.hand.hands)
    mine = cards_of(dealt[0])[:3]
    m.pass_cards(0, mine)
    m.pass_cards(2, [])  # across from 0 is 2, who passes on across: back to 0
    m.pass_cards(1, cards_of(dealt[1])[-3:])
    m.pass_cards(3, cards_of(dealt[3])[-3:])
    assert m.hand.hands[0] == dealt[0] and m.hand.received[0] == mask_of(mine)
    assert m.hand.received[2] == 0 and m.hand.hands[2] == dealt[2]
    assert m.hand.received[1] == mask_of(cards_of(dealt[3])[-3:])


def test_when_every_seat_passes_on_no_card_moves():
    """002: 'They simply pass on the cards that were passed to them without looking at them.'"""
    m = Match(Rules(pass_on=True), 9)
    dealt = list(m.hand.hands)
    for s in range(4):
        m.pass_cards(s, [])
    assert m.phase is Phase.PLAY and m.hand.hands == dealt and not any(m.hand.received)


def test_pass_on_is_an_option_and_only_for_passes_to_one_seat():
    """002: 'Some play that players are not required to pass any cards if they do not wish to.' Without the option
    a pass is exactly pass_count cards; a scatter or mix pass has no single seat to pass on to."""
    with pytest.raises(IllegalPlayError, match=r"exactly 3 cards, not 0"):
        Match(Rules(), 1).pass_cards(0, [])
    with pytest.raises(
        IllegalPlayError, match=r"exactly 3 cards \(or none, to pass on the cards passed to it\), not 2"
    ):
        m = Match(Rules(pass_on=True), 1)
        m.pass_cards(0, cards_of(m.hand.hands[0])[:2])
    for direction in ("scatter", "mix"):
        with pytest.raises(IllegalPlayError, match=r"exactly 3 cards, not 0"):
            Match(Rules(pass_on=True, pass_cycle=(direction,)), 1).pass_cards(0, [])
    five = Rules(players=5, pass_on=True, pass_cycle="left2")
    assert five.may_pass_on("left2") and five.may_pass_on("right") and not five.may_pass_on("hold")
    assert Rules.parse("standard,pass_on=true") == Rules(pass_on=True)


def test_a_match_with_passing_on_replays_from_its_history():
    """002: 'They simply pass on the cards that were passed to them without looking at them.' Passing on is a
    decision in the history like any pass, so the match replays from its seed."""
    rng = random.Random(4)
    m = Match(Rules(pass_on=True, pass_cycle="left right across"), 11)
    while not m.over:
        if m.phase is Phase.PASS:
            for s in m.to_move:
                m.pass_cards(s, [] if rng.random() < 0.5 else cards_of(m.hand.hands[s])[:3])
        else:
            random_step(m, rng)
    again = Match.replay(m.rules, m.seed, m.history)
    assert again.scores == m.scores and again.results == m.results
