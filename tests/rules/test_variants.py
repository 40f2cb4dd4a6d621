"""Rule options and presets from 000, 002 and 004 (and 001's list of variants).

Each test quotes the sentence it checks and names its source file:
000_93466bf2ef5d25de.txt, 001_7c47ddaca2398b03.txt, 002_9f11e0823e382118.txt, 004_f34b613fe02b4aea.txt.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from positions import (
    HEARTS,
    cs,
    end_of_hand,
    m_,
    play_last_trick,
    position,
    random_play,
    random_step,
    seat_holding,
)

from referee.rules import (
    PASS_CYCLES,
    PRESETS,
    Card,
    CardNotHeldError,
    CardNotLegalError,
    CardSet,
    IllegalPlayError,
    Match,
    MoonChoice,
    NotYourTurnError,
    Phase,
    RepeatedCardError,
    Rules,
    WrongCountError,
    cards_of,
    deal,
)
from referee.rules.cards import DECK, CardMultiset, parse_cards
from referee.rules.state import Deal, Hand

QS = Card.parse("QS")


def advance_to_hand(m: Match, k: int, seed: int = 0) -> Match:
    """Random play until hand ``k`` begins (the match must not end first)."""
    rng = random.Random(seed)
    while m.hand_number < k:
        assert not m.over, "the match ended early: use a higher target"
        random_step(m, rng)
    assert m.hand_number == k
    return m


def pass_lowest(m: Match) -> dict[int, tuple[Card, ...]]:
    sent = {}
    for s in range(m.rules.players):
        cards = cards_of(m.hand.hands[s])[: m.rules.pass_count]
        sent[s] = cards
        m.pass_cards(s, cards)
    return sent


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
    assert all(m.hand.received[(s + 2) % 4] == _mask(sent[s]) for s in range(4))
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
        assert m.hand.received[(s + 1) % 4] & _mask(sent[s][:2]) == _mask(sent[s][:2])
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
    pool = sum(_mask(c) for c in sent.values())
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


def _mask(cards) -> int:
    return sum(c.mask for c in cards)


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
    assert m.hand.received[3] == _mask(own[0]) and m.hand.received[0] == _mask(own[3])
    assert m.hand.hands[1] == dealt[1] and m.hand.hands[2] == dealt[2]  # passed on: unchanged hands
    for s in (1, 2):  # 'without looking at them': the cards that went through are never shown to them
        obs = m.observation(s)
        assert not obs.received and obs.passed == ()
        assert not (obs.hand.mask | obs.received.mask) & _mask(own[0])
    assert m.observation(3).received.mask == _mask(own[0])


def test_pass_on_can_give_a_player_their_own_cards_back():
    """002: 'This could result in a player getting their own cards back.'"""
    m = Match(Rules(pass_on=True, pass_cycle="across"), 2)
    dealt = list(m.hand.hands)
    mine = cards_of(dealt[0])[:3]
    m.pass_cards(0, mine)
    m.pass_cards(2, [])  # across from 0 is 2, who passes on across: back to 0
    m.pass_cards(1, cards_of(dealt[1])[-3:])
    m.pass_cards(3, cards_of(dealt[3])[-3:])
    assert m.hand.hands[0] == dealt[0] and m.hand.received[0] == _mask(mine)
    assert m.hand.received[2] == 0 and m.hand.hands[2] == dealt[2]
    assert m.hand.received[1] == _mask(cards_of(dealt[3])[-3:])


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


# -- other numbers of players (002) -------------------------------------------------------------------------


THREE = Rules(players=3, pass_cycle="left-right-hold")


def test_three_players_remove_two_of_diamonds_seventeen_each():
    """002: 'in a three-player game the 2 of diamonds is removed and each player gets 17 cards'"""
    assert THREE.deck_mask == ((1 << 52) - 1) & ~Card.parse("2D").mask
    assert THREE.cards_per_player == 17 and THREE.kitty_size == 0
    assert THREE.moon_total == 26
    for seed in range(5):
        m = Match(THREE, seed)
        assert [h.bit_count() for h in m.hand.hands] == [17, 17, 17]
        assert not any(h & Card.parse("2D").mask for h in m.hand.hands)
        assert m.hand.kitty == 0
        pass_lowest(m)
        assert m.to_move == (seat_holding(m, "2C"),) and m.legal_plays() == cs("2C")


@pytest.mark.parametrize(
    "cycle,directions",
    [
        ("left-right-hold", ["left", "right", "hold", "left"]),
        ("left-right", ["left", "right", "left", "right"]),
    ],
)
def test_three_player_pass_cycles(cycle, directions):
    """002: 'In the 3-player game, the passing may follow any one of these patterns: Left, right, hold,
    repeat. Left, right, repeat.'"""
    r = Rules(players=3, pass_cycle=cycle, target=10_000)
    m = Match(r, 6)
    offsets = {"left": 1, "right": -1}
    for k, d in enumerate(directions):
        advance_to_hand(m, k, seed=k)
        assert m.hand.direction == d
        if d == "hold":
            assert m.phase is Phase.PLAY
            continue
        sent = pass_lowest(m)
        for s in range(3):
            assert m.hand.received[(s + offsets[d]) % 3] == sum(c.mask for c in sent[s])


def test_three_players_default_cycle_has_no_across():
    """002: 'In the 3-player game, the passing may follow any one of these patterns: Left, right, hold,
    repeat.'"""
    r = Rules(players=3)
    assert "across" not in r.pass_cycle
    assert Rules.parse("players=3").pass_cycle == r.pass_cycle


def test_five_players_remove_two_of_clubs_ten_each_three_of_clubs_leads():
    """002: 'in a five-player game the 2 of clubs is removed so that each player gets 10 cards' and 'With
    five players also remove the 2♣, and the holder of the 3♣ leads it to the first trick.'"""
    r = Rules(players=5, pass_cycle="left-right-hold")
    assert not r.deck_mask & Card.parse("2C").mask
    assert r.cards_per_player == 10
    assert r.moon_total == 26
    for seed in range(5):
        m = Match(r, seed)
        assert [h.bit_count() for h in m.hand.hands] == [10] * 5
        pass_lowest(m)
        assert m.to_move == (seat_holding(m, "3C"),)
        assert m.legal_plays() == cs("3C")


def test_five_player_cycle_second_player_over():
    """002: 'In the 5-player game, the passing could follow any of these patterns: ... Left, right, 2nd
    person to the left, 2nd person to the right, hold, repeat.'"""
    r = Rules(players=5, pass_cycle="five-player", target=10_000)
    assert r.pass_cycle == ("left", "right", "left2", "right2", "hold")
    m = Match(r, 2)
    offsets = {"left": 1, "right": -1, "left2": 2, "right2": -2}
    for k, d in enumerate(["left", "right", "left2", "right2", "hold"]):
        advance_to_hand(m, k, seed=k)
        assert m.hand.direction == d
        if d == "hold":
            assert m.phase is Phase.PLAY
            continue
        sent = pass_lowest(m)
        for s in range(5):
            assert m.hand.received[(s + offsets[d]) % 5] == sum(c.mask for c in sent[s])


def test_removed_cards_configurable_three_players_without_two_of_clubs():
    """002: 'With three players, remove the 2♣ from the deck, leaving 51 cards.' and 'If the 2 of clubs has
    been removed for the three-handed game, then the 3 of clubs is led.'"""
    r = Rules(players=3, removed_cards="2C", pass_cycle="none")
    assert r.removed == (Card.parse("2C"),)
    assert r.deck_mask & Card.parse("2D").mask
    for seed in range(5):
        m = Match(r, seed)
        assert m.to_move == (seat_holding(m, "3C"),) and m.legal_plays() == cs("3C")
    assert Rules.parse("players=3,removed_cards=2C,pass_cycle=none") == r


# -- the kitty (002) -------------------------------------------------------------------------------------------


KITTY_TRICK = Rules(kitty="first-trick", hand_size=12)
KITTY_POINTS = Rules(kitty="first-points", hand_size=12)


def test_kitty_four_cards_with_twelve_each():
    """002: 'Some play that only 12 cards are dealt to each player. During the deal, four cards are dealt to
    a face-down kitty'"""
    for r in (KITTY_TRICK, KITTY_POINTS):
        assert r.kitty_size == 4 and r.cards_per_player == 12
        d = deal(r, 3, 0)
        assert [len(h) for h in d.hands] == [12] * 4 and len(d.kitty) == 4


def test_kitty_taken_with_the_first_trick_and_shown_only_to_its_taker():
    """002: 'The player who takes the first trick (or alternatively, the first penalty point) takes the kitty
    and places the card(s) with their captured cards (the player may look at them first).'"""
    r = Rules(players=3, kitty="first-trick", pass_cycle="none")
    assert r.kitty_size == 1 and r.cards_per_player == 17
    for seed in range(6):
        m = Match(r, seed)
        kitty = m.hand.kitty
        assert kitty.bit_count() == 1
        for s in range(3):
            assert not m.observation(s).kitty
        rng = random.Random(seed)
        while not m.hand.tricks:
            random_step(m, rng)
        w = m.hand.tricks[0].winner
        assert m.hand.kitty_taker == w
        assert m.hand.captured[w] & kitty == kitty
        for s in range(3):
            obs = m.observation(s)
            assert obs.kitty_taker == w
            assert obs.kitty.mask == (kitty if s == w else 0)


def test_kitty_taken_with_the_first_penalty_card():
    """002: 'During the deal, four cards are dealt to a face-down kitty, which is added to the tricks of the
    first player who takes a penalty card.'"""
    hands = {0: "2C 3H 4D", 1: "5C 6S 5D", 2: "7C 7S 6D", 3: "9C 8S 7D"}
    kitty = "QS AH KH AS"
    m = position(KITTY_POINTS, hands, kitty=kitty)
    for c in ("2C", "5C", "7C", "9C"):
        m.play(c)
    assert m.hand.tricks[0].winner == 3
    assert m.hand.kitty_taker is None  # no penalty card in trick one: the kitty waits
    assert not any(m.observation(s).kitty for s in range(4))
    for c in ("8S", "3H", "6S", "7S"):  # seat 0, void in spades, paints the trick
        m.play(c)
    assert m.hand.tricks[-1].winner == 3
    assert m.hand.kitty_taker == 3
    assert m.hand.captured[3] & m_(kitty) == m_(kitty)
    assert m.observation(3).kitty == cs(kitty)
    for c in ("7D", "4D", "5D", "6D"):
        m.play(c)
    assert m.results[0].points_taken == (0, 0, 0, 16)


def test_kitty_points_are_counted():
    """002: 'The player who takes the first trick ... takes the kitty and places the card(s) with their
    captured cards' — the kitty's cards score for that player."""
    hands = {0: "2C 3D", 1: "5C 4D", 2: "7C 5D", 3: "9C 6D"}
    m = position(KITTY_TRICK, hands, kitty="QS AH KH AS")
    for c in ("2C", "5C", "7C", "9C"):
        m.play(c)
    assert m.hand.kitty_taker == 3
    assert m.observation(3).kitty == cs("QS AH KH AS")
    assert not m.observation(0).kitty
    for c in ("6D", "3D", "4D", "5D"):
        m.play(c)
    res = m.results[0]
    assert res.points_taken == (0, 0, 0, 15)
    assert res.score == (0, 0, 0, 15)


KITTY_DISCARD = KITTY_TRICK.replace(kitty_discard=True)


def test_kitty_discard_the_taker_adds_the_kitty_to_the_hand_then_discards():
    """002: 'As in method 1 above, but the person who takes the first point or trick adds the kitty to their
    hand and discards an equal number of cards face down into their tricks.'"""
    hands = {0: "2C 3D 4S", 1: "5C 4D 5S", 2: "7C 5D 6S", 3: "9C 6D 7S"}
    m = position(KITTY_DISCARD, hands, kitty="QS AH KH 8D")
    for c in ("2C", "5C", "7C", "9C"):
        m.play(c)
    assert m.hand.kitty_taker == 3 and m.phase is Phase.DISCARD and m.to_move == (3,)
    taker = m.observation(3)
    assert taker.hand == cs("6D 7S QS AH KH 8D") and taker.kitty == cs("QS AH KH 8D")
    assert not m.observation(0).kitty and not m.observation(0).hand.mask & m_("QS AH KH 8D")
    assert not m.legal_plays()
    with pytest.raises(IllegalPlayError, match="discard phase"):
        m.play("6D")
    m.discard(3, ["7S", "8D", "KH", "AH"])  # keeps the Q♠ in hand, the two hearts go into its tricks
    assert m.phase is Phase.PLAY and m.turn == 3 and m.observation(3).hand == cs("6D QS")
    assert m.observation(3).discarded == tuple(map(Card.parse, ("7S", "8D", "KH", "AH")))  # as given
    assert m.observation(0).discarded == ()
    assert m.hand.captured[3] & m_("KH AH 7S 8D") == m_("KH AH 7S 8D")
    m.play("QS")  # the taker leads Q♠ and wins it back: 13 + the two discarded hearts
    for c in ("4S", "5S", "6S"):
        m.play(c)
    for c in ("6D", "3D", "4D", "5D"):
        m.play(c)
    assert m.results[0].points_taken == (0, 0, 0, 15)


def test_kitty_discard_must_be_as_many_held_distinct_cards():
    """002: 'adds the kitty to their hand and discards an equal number of cards face down into their tricks.'"""
    m = position(KITTY_DISCARD, {0: "2C 3D", 1: "5C 4D", 2: "7C 5D", 3: "9C 6D"}, kitty="QS AH KH 8D")
    for c in ("2C", "5C", "7C", "9C"):
        m.play(c)
    with pytest.raises(IllegalPlayError, match="exactly 4 cards .as many as the kitty., not 3"):
        m.discard(3, ["QS", "AH", "KH"])
    with pytest.raises(IllegalPlayError, match="discarded QS twice"):
        m.discard(3, ["QS", "QS", "AH", "KH"])
    with pytest.raises(IllegalPlayError, match="cannot discard 3D: not in its hand"):
        m.discard(3, ["QS", "AH", "KH", "3D"])
    with pytest.raises(IllegalPlayError, match="seat 3 took the kitty"):
        m.discard(0, ["3D"])
    m.discard(3, ["6D", "AH", "KH", "8D"])  # it may keep the kitty's Q♠ and throw its own card instead
    assert m.observation(3).hand == cs("QS")


def test_kitty_discard_with_the_first_penalty_card_and_on_the_last_trick():
    """002: 'the person who takes the first point or trick adds the kitty to their hand and discards an equal
    number of cards' — with the kitty taken by the first point, here on the hand's last trick."""
    rules = KITTY_POINTS.replace(kitty_discard=True)
    m = position(rules, {0: "2C 2H", 1: "5C 3S", 2: "7C 4S", 3: "9C 5S"}, kitty="QS AH KH AS")
    for c in ("2C", "5C", "7C", "9C"):
        m.play(c)
    assert m.hand.kitty_taker is None  # no point yet: the kitty waits
    for c in ("5S", "2H", "3S", "4S"):  # the last trick: 2♥ is the first point, seat 3 takes it
        m.play(c)
    assert m.hand.kitty_taker == 3 and m.phase is Phase.DISCARD and m.observation(3).hand == cs("QS AH KH AS")
    m.discard(3, ["QS", "AH", "KH", "AS"])  # nothing else left in hand: the kitty goes into its tricks
    assert len(m.results) == 1 and m.results[0].points_taken == (0, 0, 0, 1 + 13 + 2)


def test_kitty_discard_needs_a_kitty_and_replays():
    """002: 'As in method 1 above, but the person who takes the first point or trick adds the kitty to their
    hand' — an option of the kitty, recorded in the history like any decision."""
    with pytest.raises(ValueError, match="kitty_discard=true needs a kitty"):
        Rules(kitty_discard=True)
    assert Rules.parse("standard,kitty=first-trick,hand_size=12,kitty_discard=true") == KITTY_DISCARD
    m = random_play(Match(KITTY_DISCARD.replace(target=60), 5), 9)
    discards = [e for e in m.history if type(e).__name__ == "Discard"]
    assert len(discards) == len(m.results) and all(len(d.cards) == 4 for d in discards)
    again = Match.replay(m.rules, m.seed, m.history)
    assert again.results == m.results and again.scores == m.scores


def test_two_of_clubs_in_the_kitty_lowest_club_outside_leads():
    """002: 'If it happens that the 2♣ is in the kitty, the holder of the lowest club not in the kitty must
    lead it (if no one has the 2, ask if anyone has the 3, then the 4, and so on).'"""
    two, three = Card.parse("2C").mask, Card.parse("3C").mask
    found = 0
    for seed in range(400):
        d = deal(KITTY_TRICK, seed, 0)
        if d.kitty.mask & two:
            m = Match(KITTY_TRICK.replace(pass_cycle="none"), seed)
            clubs_out = [c for c in cards_of(m_("2C 3C 4C 5C 6C 7C")) if not d.kitty.mask & c.mask]
            lowest = clubs_out[0]
            assert m.to_move == (seat_holding(m, lowest),)
            assert m.legal_plays() == CardSet([lowest])
            found += 1
            if d.kitty.mask & three:
                assert lowest.rank >= 4
    assert found >= 3
    # an exact position: 2♣ and 3♣ in the kitty, 4♣ leads
    m = position(KITTY_TRICK, {0: "5C 6D", 1: "4C 7D", 2: "AS 8D", 3: "KS 9D"}, kitty="2C 3C QS AH")
    assert m.to_move == (1,) and m.legal_plays() == cs("4C")


def test_kitty_for_uneven_deals_five_players():
    """002: 'Deal 17 cards each to three players or 10 each to five players. The one or two remaining cards
    are called the kitty'"""
    r = Rules(players=5, kitty="first-trick", pass_cycle="none")
    assert r.removed == () and r.cards_per_player == 10 and r.kitty_size == 2
    m = Match(r, 9)
    assert m.hand.kitty.bit_count() == 2
    assert m.to_move == (seat_holding(m, "2C"),) or m.hand.kitty & Card.parse("2C").mask


# -- invalid options, presets and combinations ---------------------------------------------------------------


def test_unknown_preset_names_the_presets():
    """README (rules): every variant is an option or a named preset; a wrong name must say what is valid."""
    with pytest.raises(ValueError) as e:
        Rules.preset("bogus")
    msg = str(e.value)
    assert "bogus" in msg
    for name in PRESETS:
        assert name in msg
    with pytest.raises(ValueError):
        Rules.parse("bogus,target=50")


def test_unknown_option_names_the_options():
    """README (rules): 'Where they disagree, the project makes the difference a rule option' — an unknown
    option is rejected with the list of options."""
    for bad in (
        lambda: Rules.parse("standard,frobnicate=1"),
        lambda: Rules.preset("standard", frobnicate=1),
        lambda: Rules().replace(frobnicate=1),
        lambda: Rules.parse("standard,target"),
    ):
        with pytest.raises(ValueError) as e:
            bad()
        assert "target" in str(e.value) and "moon" in str(e.value)


@pytest.mark.parametrize(
    "kwargs,names",
    [
        ({"moon": "sideways"}, ["add-to-others", "subtract-from-shooter", "shooter-chooses", "add-unless-win"]),
        ({"kitty": "pot"}, ["first-trick", "first-points"]),
        ({"first_lead": "dealer"}, ["lowest-club", "left-of-dealer"]),
        ({"hearts_lead": "never"}, ["broken", "any-time"]),
        ({"points": "double"}, ["standard", "spot", "black-maria"]),
        ({"tied_lowest": "coin"}, ["play-on", "share"]),
        ({"players": 6}, ["3, 4 or 5"]),
        ({"pass_cycle": "sideways"}, ["left", "right", "across", "hold"]),
    ],
)
def test_invalid_option_values_name_the_valid_values(kwargs, names):
    """README (rules): options are checked; a wrong value is a ValueError naming the valid values."""
    with pytest.raises(ValueError) as e:
        Rules(**kwargs)
    for n in names:
        assert n in str(e.value)
    text = {k: str(v) for k, v in kwargs.items()}
    with pytest.raises(ValueError):
        Rules().replace(**text)


def test_across_with_three_players_is_rejected():
    """002: 'In the 3-player game, the passing may follow any one of these patterns: Left, right, hold,
    repeat. Left, right, repeat.' — there is no 'across' at a table of three."""
    with pytest.raises(ValueError) as e:
        Rules(players=3, pass_cycle="standard")
    assert "across" in str(e.value)
    with pytest.raises(ValueError):
        Rules(players=5, pass_cycle=("left", "across"))
    with pytest.raises(ValueError) as e:
        Rules(pass_cycle="five-player")  # left2/right2 need five players
    assert "5" in str(e.value)


def test_scatter_needs_a_pass_count_that_divides():
    """002: 'If you pass 4 cards instead of 3 you can also scatter by passing 2 cards to each other player.'
    — with three players a scatter of 3 cards cannot be even."""
    with pytest.raises(ValueError) as e:
        Rules(players=3, pass_cycle="left right scatter")
    assert "pass_count" in str(e.value)
    with pytest.raises(ValueError):
        Rules(pass_cycle="scatter", pass_count=4)
    Rules(players=3, pass_cycle="left right scatter", pass_count=4)
    Rules(pass_cycle="scatter", pass_count=6)


def test_uneven_deal_without_kitty_is_rejected():
    """002: 'A kitty can also be used to cope with the fact that the cards cannot be dealt evenly when there
    are more or fewer than four players.'"""
    with pytest.raises(ValueError) as e:
        Rules(players=3, removed_cards=(), pass_cycle="left-right")
    assert "kitty" in str(e.value)
    with pytest.raises(ValueError):
        Rules(removed_cards="2D")
    with pytest.raises(ValueError):
        Rules(kitty="first-trick")  # 52 cards deal evenly to four: nothing for a kitty
    with pytest.raises(ValueError):
        Rules(hand_size=14)
    with pytest.raises(ValueError):
        Rules(pass_count=13)
    with pytest.raises(ValueError):
        Rules(exact_target_reset=100)
    with pytest.raises(ValueError):
        Rules.preset("omnibus", removed_cards="JD", kitty="first-trick", hand_size=12)


def test_presets_are_named_rulesets():
    """004: 'If you're brand new, start with classic Hearts, chase the bonus jack in Omnibus, count pips in
    Spot Hearts, or brave the British spades of Black Maria.' (plus the No Passing mode)"""
    assert set(PRESETS) >= {"standard", "omnibus", "spot", "black-maria", "no-passing"}
    for name, r in PRESETS.items():
        assert r.name == name
        assert Rules.parse(name) == r == Rules.preset(name)
        assert Rules.from_dict(r.to_dict()) == r
    assert Rules.parse("spot,target=300").name == "custom"


def test_bonus_card_must_not_be_a_penalty_card():
    """002: 'Many people play that the jack of diamonds (or sometimes the ten of diamonds) is a bonus card,
    counting minus 10 points for the person taking it. ... To shoot the moon, you need all the hearts and the
    queen of spades' — a bonus card that is itself a penalty card breaks both sentences, so it is rejected."""
    for card in ("QS", "2H", "AH"):
        with pytest.raises(ValueError) as e:
            Rules(bonus_card=card)
        assert "bonus_card" in str(e.value)


def test_lowest_club_lead_without_any_club_is_rejected_up_front():
    """002: 'The person who holds the 2 of clubs must lead it to the first trick. (If the 2 of clubs has been
    removed for the three-handed game, then the 3 of clubs is led.)' — with no club left in the pack nobody
    can lead one: the ruleset is either refused when built (naming first_lead), or its matches play to the
    end; it must not crash mid-hand."""
    clubs = " ".join(f"{r}C" for r in ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"))
    with pytest.raises(ValueError, match="first_lead"):
        Rules(players=3, removed_cards=clubs)


def test_a_kitty_that_could_hold_every_club_is_refused():
    """002: 'If it happens that the 2♣ is in the kitty, the holder of the lowest club not in the kitty must
    lead it (if no one has the 2, ask if anyone has the 3, then the 4, and so on).' — the ruleset is either
    refused when built, or every deal it allows can be played."""
    # 36 cards in the kitty could hold all 13 clubs: refused when built, naming first_lead.
    with pytest.raises(ValueError, match="first_lead"):
        Rules(kitty="first-trick", hand_size=4, pass_cycle="none")
    r = Rules(kitty="first-trick", hand_size=12)  # a 4-card kitty can never hold every club
    for seed in range(20):
        m = Match(r, seed)
        random_play(m, seed)
        assert m.over


def test_a_first_points_kitty_that_could_hold_every_penalty_card_is_refused():
    """001: 'There are always exactly 26 penalty points in a hand' and 002: 'four cards are dealt to a
    face-down kitty, which is added to the tricks of the first player who takes a penalty card.' — when the
    kitty holds every penalty card, no trick ever does; the ruleset must be refused when built, or the
    kitty's points must still be scored by someone (e.g. the winner of the last trick)."""
    with pytest.raises(ValueError, match="kitty=first-points"):
        Rules(kitty="first-points", hand_size=4, pass_cycle="none", first_lead="left-of-dealer")


# -- Booster Nines (002) -----------------------------------------------------------------------------------

BOOST = Rules.preset("booster-nines")
# After an opening club trick won by seat 1 (won_first), three cards each: seat 1 leads.
BOOST_HANDS = {
    1: "9D KD 5S",
    2: "3D 4D 6S",
    3: "5D AD 7S",
    0: "6D 7D 8S",
}


def play_cards(m: Match, text: str) -> list:
    """Play these cards in turn; the tricks they completed."""
    done = []
    for c in text.split():
        t = m.play(c)
        if t is not None:
            done.append(t)
    return done


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


# -- 002 Partnership Hearts --------------------------------------------------------------------------------

TEAM = Rules.preset("partnership")  # partnership=team, moon=shooter-chooses
SOLO = Rules.preset("partnership-individual")  # partnership=individual


def test_partnership_team_scores_the_partners_tricks_together():
    """002: 'Partners keep their tricks together. On each hand your team scores the total number of penalty
    points you have taken in your tricks.' — seats 0 and 2 took 2 + 14 points, seats 1 and 3 took 1 + 9:
    both partners of a team score (and carry) the team's total; points_taken stays what each seat took."""
    m = end_of_hand(TEAM, captured={0: "2H 3H", 2: "QS 4H", 1: "5H"}, filler=3, scores=[10, 20, 10, 20])
    play_last_trick(m)
    r = m.results[0]
    assert r.points_taken == (2, 1, 14, 9)
    assert r.score == (16, 10, 16, 10) and m.scores == [26, 30, 26, 30]
    assert TEAM.team_totals(m.scores) == (26, 30) and TEAM.partner(1) == 3 and Rules().partner(1) is None


@pytest.mark.parametrize(
    "choice,expected",
    [(MoonChoice.SUBTRACT_FROM_SHOOTER, [14, 50, 14, 50]), (MoonChoice.ADD_TO_OTHERS, [40, 76, 40, 76])],
)
def test_partnership_team_slam_the_team_chooses(choice, expected):
    """002: 'A slam occurs if one team takes all 14 penalty cards in a hand; they can choose to give the
    opponents 26 penalty points or to subtract 26 penalty points from their own score.' — seat 0 took the
    hearts, its partner seat 2 the Q♠: a slam between partners. The partner who took Q♠ chooses for the
    team (one seat, known to all from the play); the other partner has no choice to make."""
    m = end_of_hand(TEAM, captured={0: HEARTS, 2: "QS"}, filler=1, scores=[40, 50, 40, 50])
    play_last_trick(m)
    assert m.phase is Phase.MOON and m.to_move == (2,)
    assert m.observation(2).moon_points == 26
    with pytest.raises(IllegalPlayError):
        m.choose_moon(0, choice)
    m.choose_moon(2, choice)
    assert m.scores == expected and m.results[0].moon == 2 and m.results[0].moon_choice is choice


def test_partnership_team_slam_asks_the_queens_taker():
    """002: 'A slam occurs if one team takes all 14 penalty cards in a hand' — here seat 3 took the Q♠ and
    seat 1 twelve hearts, seat 3 the last: seat 3 speaks for the team."""
    m = end_of_hand(TEAM, captured={1: HEARTS.replace(" AH", ""), 3: "QS AH"}, filler=0)
    play_last_trick(m)
    assert m.to_move == (3,)
    m.choose_moon(3, "subtract-from-shooter")
    assert m.results[0].score == (0, -26, 0, -26)


def test_partnership_team_slam_follows_the_moon_option():
    """002: 'they can choose to give the opponents 26 penalty points or to subtract 26 penalty points from
    their own score.' — with another moon option (add-to-others, subtract-from-shooter) no one is asked and
    the option scores the team's slam; a split of the penalty cards is no slam."""
    add = Rules(partnership="team")
    m = end_of_hand(add, captured={1: HEARTS, 3: "QS"}, filler=0)
    play_last_trick(m)
    assert m.phase is Phase.PASS and m.results[0].score == (26, 0, 26, 0) and m.results[0].moon == 3
    sub = Rules(partnership="team", moon="subtract-from-shooter")
    m = end_of_hand(sub, captured={1: HEARTS, 3: "QS"}, filler=0)
    play_last_trick(m)
    assert m.results[0].score == (0, -26, 0, -26)
    m = end_of_hand(add, captured={1: HEARTS, 2: "QS"}, filler=0)
    play_last_trick(m)
    assert m.results[0].moon is None and m.results[0].score == (13, 13, 13, 13)


def test_partnership_team_add_unless_win_adds_when_the_team_wins():
    """002: 'all the other players always have 26 points added unless this would cause one of them to win'
    — the opponents at 90 + 26 end the match with the slamming team lower: that is the team's own win,
    so the 26 is added."""
    r = Rules(partnership="team", moon="add-unless-win")
    m = end_of_hand(r, captured={0: HEARTS, 2: "QS"}, filler=1, scores=[60, 90, 60, 90])
    play_last_trick(m)
    assert m.results[0].moon_choice is MoonChoice.ADD_TO_OTHERS
    assert m.over and m.winners == (0, 2) and m.places() == (1, 3, 1, 3)


def test_partnership_team_game_ends_at_a_team_total():
    """002: 'Partners keep their tricks together.' — the team total is the game's total: the match ends
    when it reaches the target, as a player's total does alone, the lower team
    winning; partners share the team's place."""
    m = end_of_hand(TEAM, captured={1: "QS"}, filler=0, scores=[90, 80, 90, 80])
    play_last_trick(m)
    assert m.scores == [103, 93, 103, 93] and m.over and m.winners == (1, 3)
    assert m.places() == (3, 1, 3, 1)


def test_partnership_tied_teams_play_on_or_share():
    """002: 'the partnership with fewer points wins.' With equal team totals nobody has fewer:
    tied_lowest=play-on (001: 'If two or more players are tied for the least points when someone crosses
    100, the game continues') keeps dealing; tied_lowest=share (000) gives all four the win, each in place 1."""
    m = end_of_hand(TEAM, captured={0: "QS"}, filler=1, scores=[90, 90, 90, 90])
    play_last_trick(m)
    assert m.scores == [103, 103, 103, 103] and not m.over
    share = TEAM.replace(tied_lowest="share")
    m = end_of_hand(share, captured={0: "QS"}, filler=1, scores=[90, 90, 90, 90])
    play_last_trick(m)
    assert m.over and m.winners == (0, 1, 2, 3) and m.places() == (1, 1, 1, 1)
    # individual scores: seat 1 reaches 100, and the teams tie at 150
    s = end_of_hand(SOLO, captured={0: "QS"}, filler=1, scores=[37, 87, 100, 50])
    play_last_trick(s)
    assert s.scores == [50, 100, 100, 50] and not s.over
    s = end_of_hand(SOLO.replace(tied_lowest="share"), captured={0: "QS"}, filler=1, scores=[37, 87, 100, 50])
    play_last_trick(s)
    assert s.over and s.winners == (0, 1, 2, 3)


def test_partnership_individual_moon_needs_one_player():
    """002: 'Each player keeps an individual score, and in order to shoot the moon, an individual player
    has to win all the penalty cards.' — partners together taking every penalty card score as usual; one
    player taking them all shoots the moon as in the standard game (the partner gets 26 too)."""
    m = end_of_hand(SOLO, captured={0: HEARTS, 2: "QS"}, filler=1)
    play_last_trick(m)
    assert m.results[0].moon is None and m.results[0].score == (13, 0, 13, 0)
    m = end_of_hand(SOLO, captured={0: HEARTS + " QS"}, filler=1)
    play_last_trick(m)
    assert m.results[0].moon == 0 and m.results[0].score == (0, 26, 26, 26)


def test_partnership_individual_example_105_34_beats_78_69():
    """002: 'The game continues until an individual player's score reaches 100 or more; then the scores of
    the partners are totalled and the partnership with fewer points wins.' and 002: 'For example, if you
    have 105, your partner has 34, and your opponents have 78 and 69, then your team wins by 139 points to
    147.' (002: 'Thus it is possible for your team to win even if it is you who go over 100.')"""
    m = end_of_hand(SOLO, captured={0: "QS", 1: "2H 3H"}, filler=3, scores=[92, 76, 34, 58])
    play_last_trick(m)
    assert m.scores == [105, 78, 34, 69]
    assert m.over and m.winners == (0, 2) and SOLO.team_totals(m.scores) == (139, 147)
    assert m.places() == (1, 3, 1, 3)


def test_partnership_individual_game_goes_on_below_100():
    """002: 'The game continues until an individual player's score reaches 100 or more' — team totals over
    100 do not end it (60 + 60)."""
    m = end_of_hand(SOLO, captured={1: "QS"}, filler=0, scores=[60, 20, 60, 20])
    play_last_trick(m)
    assert SOLO.team_totals(m.scores)[0] > 100 and max(m.scores) < 100 and not m.over


def test_partnership_individual_add_unless_win_reads_teams():
    """002: 'all the other players always have 26 points added unless this would cause one of them to win,
    in which case the shooter has 26 points deducted.' With partners, 'one of them' is an opponent: the
    shooter's partner winning is the shooter's team winning, so the 26 is added then."""
    r = Rules(partnership="individual", moon="add-unless-win")
    # adding gives 70/36/106/46: the match ends and seats 1 & 3 (82 against 176) would win: subtract
    m = end_of_hand(r, captured={0: HEARTS + " QS"}, filler=1, scores=[70, 10, 80, 20])
    play_last_trick(m)
    assert m.results[0].moon_choice is MoonChoice.SUBTRACT_FROM_SHOOTER and m.scores == [44, 10, 80, 20]
    # adding gives 50/86/106/96: the partner goes over 100 but the team wins, 156 to 182: add
    m = end_of_hand(r, captured={0: HEARTS + " QS"}, filler=1, scores=[50, 60, 80, 70])
    play_last_trick(m)
    assert m.results[0].moon_choice is MoonChoice.ADD_TO_OTHERS
    assert m.over and m.winners == (0, 2)


def test_partnership_needs_four_players():
    """002: 'There are two ways that four players can play Hearts in fixed partnerships, partners sitting
    opposite each other.' — any other table is a clear error naming the option."""
    for value in ("team", "individual"):
        for players in (3, 5):
            with pytest.raises(ValueError, match=f"partnership={value} needs 4 players.*players={players}"):
                Rules(partnership=value, players=players)
        with pytest.raises(ValueError, match="wins-match"):
            Rules(partnership=value, moon="wins-match")
    with pytest.raises(ValueError, match="none | team | individual"):
        Rules.parse("partnership=pairs")
    assert Rules.parse("partnership") == TEAM and Rules.parse("partnership-individual") == SOLO
    assert str(TEAM) == "partnership" and str(Rules.parse("partnership-individual,pass_cycle=across")) == (
        "partnership-individual,pass_cycle=across"
    )


@pytest.mark.parametrize("preset", ["partnership", "partnership-individual"])
def test_partnership_passing_to_partner_on_every_deal(preset):
    """002: 'Some prefer to play this game passing three cards to partner on every deal.' — pass_cycle=across
    with either preset: every hand passes three cards to the seat opposite, the partner."""
    rules = Rules.parse(f"{preset},pass_cycle=across")
    m = Match(rules, seed=3)
    for k in range(3):
        advance_to_hand(m, k, seed=k)
        assert m.phase is Phase.PASS and m.hand.direction == "across"
        sent = pass_lowest(m)
        for s in range(4):
            assert set(cards_of(m.hand.received[rules.partner(s)])) == set(sent[s])


# -- Cancellation Hearts (002): two packs ---------------------------------------------------------------

CANCEL = Rules.preset("cancellation")


def cancel_table(hands: dict[int, str], rules: Rules = CANCEL, kitty: str = "", dealer: int | None = None) -> Match:
    """A two-pack match at the start of play with exactly these hands (a card listed twice is held twice);
    seat 0 leads (the dealer is the seat to its right) unless ``dealer`` says otherwise."""
    n = rules.players
    m = Match(rules, 0)
    deal_ = Deal(0, tuple(CardMultiset(parse_cards(hands[s])) for s in range(n)), CardMultiset(parse_cards(kitty)))
    m.hand = Hand(rules, deal_, "hold", (n - 1) if dealer is None else dealer)
    return m


def test_cancellation_is_for_six_to_ten_players_with_two_packs():
    """002: 'This is a version of Hearts for 6 to 10 players using two 52-card packs shuffled together.'"""
    assert "cancellation" in PRESETS and CANCEL.packs == 2 and CANCEL.players == 6
    assert str(CANCEL) == "cancellation" and Rules.parse("cancellation") == CANCEL
    for n in range(6, 11):
        r = Rules.parse(f"cancellation,players={n}")
        assert r.players == n and Rules.parse(str(r)) == r
        d = deal(r, 3, 0)
        every = Counter(c for h in d.hands for c in h) + Counter(d.kitty)
        assert every == Counter({c: 2 for c in DECK})  # each card of the two packs once
    with pytest.raises(ValueError, match="players=5 .*6 to 10"):
        Rules.parse("cancellation,players=5")
    with pytest.raises(ValueError, match="players=11 .*6 to 10"):
        Rules.parse("cancellation,players=11")
    with pytest.raises(ValueError, match="players=6 .*packs=2"):
        Rules(players=6)
    with pytest.raises(ValueError, match="packs=3"):
        Rules.parse("cancellation,packs=3")
    with pytest.raises(ValueError, match="first_lead=left-of-dealer"):
        Rules.parse("cancellation,first_lead=lowest-club")
    assert Rules().packs == 1 and all(p.packs == 1 for k, p in PRESETS.items() if k != "cancellation")


def test_cancellation_deals_as_far_as_the_cards_go_and_the_rest_is_a_kitty():
    """002: 'The cards are dealt out as far as they will go, any left-over cards being placed in a face-down
    kitty which is taken by the winner of the first trick.'"""
    for n, per, left in ((6, 17, 2), (7, 14, 6), (8, 13, 0), (9, 11, 5), (10, 10, 4)):
        r = Rules.preset("cancellation", players=n)
        d = deal(r, 11, 2)
        assert r.cards_per_player == per and r.kitty_size == left
        assert [len(h) for h in d.hands] == [per] * n and len(d.kitty) == left
    # the first trick's winner (seat 2, 3♣ the only club not duplicated) takes the kitty with it
    m = cancel_table({0: "2C 2D", 1: "2C 3D", 2: "3C 4D", 3: "4C 5D", 4: "4C 6D", 5: "5S 7D"}, kitty="QS 2H", dealer=5)
    (t,) = play_cards(m, "2C 2C 3C 4C 4C 5S")
    assert t.winner == 2 and m.hand.kitty_taker == 2
    play_cards(m, "4D 5D 6D 7D 2D 3D")
    assert m.results[0].points_taken == (0, 0, 14, 0, 0, 0)  # Q♠ 13 + 2♥ 1, from the kitty


def test_cancellation_left_of_dealer_leads_anything():
    """002: 'The player to the dealer's left leads first and can lead anything.'"""
    m = Match(CANCEL, 5)
    assert m.phase is Phase.PLAY and m.to_move == ((m.hand.dealer + 1) % 6,)
    m = cancel_table({0: "QS 5H 2C", 1: "3C 3C 4C", 2: "5C 6C 7C", 3: "8C 9C TC", 4: "JC QC KC", 5: "AC 2D 3D"})
    assert m.legal_plays() == cs("2C QS")  # Q♠ too on the first trick; hearts still wait to be broken


def test_cancellation_identical_cards_cancel_and_still_carry_their_points():
    """002: 'When two identical cards are played to a trick, they cancel each other out in terms of
    trick-taking power (but still carry penalty points if they are penalty cards).' and 002: 'The trick is
    taken by the highest card of the suit led which is not duplicated.'"""
    m = cancel_table(
        {0: "QS 2C", 1: "QS 3C", 2: "3S 4C", 3: "AS 5C", 4: "AS 6C", 5: "2S 7C"},
    )
    (t,) = play_cards(m, "QS QS 3S AS AS 2S")  # both Q♠ and both A♠ cancel: 3♠ is the highest left
    assert t.winner == 2 and m.to_move == (2,)
    play_cards(m, "4C 5C 6C 7C 2C 3C")
    r = m.results[0]
    assert r.points_taken == (0, 0, 26, 0, 0, 0) and r.tricks_won == (0, 0, 1, 0, 0, 1)


def test_cancellation_a_trick_of_cancelling_pairs_stays_on_the_table():
    """002: 'If all the cards played of the suit led are in cancelling pairs, the trick remains on the
    table, the same player leads again, and the cards go to the winner of the next trick.'"""
    m = cancel_table(
        {0: "7S 4D 2C", 1: "7S 5D 3C", 2: "9S 6D 4C", 3: "9S 7D 5C", 4: "2D 8D 6C", 5: "2H 9D 7C"},
    )
    (t,) = play_cards(m, "7S 7S 9S 9S 2D 2H")  # the spades all pair; the 2♦ and 2♥ were sloughed
    assert t.winner is None and m.to_move == (0,) and m.hand.tricks_won == [0] * 6
    obs = m.observation(0)
    assert Counter(obs.table) == Counter(parse_cards("7S 7S 9S 9S 2D 2H")) and obs.tricks == (t,)
    assert obs.hearts_broken  # a heart was played, if to a trick without a winner
    (t2,) = play_cards(m, "4D 5D 6D 7D 8D 9D")
    assert t2.winner == 5 and not m.observation(0).table
    play_cards(m, "7C 2C 3C 4C 5C 6C")
    r = m.results[0]
    assert r.tricks_won == (0, 0, 0, 0, 0, 3) and r.points_taken == (0, 0, 0, 0, 0, 1)


def test_cancellation_a_winnerless_last_trick_goes_to_the_previous_winner():
    """002: 'If the very last trick has no winner, its cards go to the winner of the previous trick.'"""
    m = cancel_table({0: "2C 5H", 1: "3C 5H", 2: "4C 6H", 3: "AC 6H", 4: "5C QS", 5: "6C QS"})
    (t,) = play_cards(m, "2C 3C 4C AC 5C 6C")
    assert t.winner == 3
    (last,) = play_cards(m, "6H QS QS 5H 5H 6H")
    assert last.winner is None
    r = m.results[0]
    assert r.points_taken == (0, 0, 0, 30, 0, 0) and r.tricks_won == (0, 0, 0, 2, 0, 0)


def test_cancellation_several_winnerless_tricks_at_the_end_go_to_the_last_winner():
    """002: 'If the very last trick has no winner, its cards go to the winner of the previous trick.' — when
    the previous trick had none either, its cards were already waiting for a winner: all of them go to the
    winner of the last trick that had one. A hand in which no trick has a winner scores for nobody."""
    m = cancel_table({0: "2C 5H 8D", 1: "3C 5H 8D", 2: "4C 6H 9D", 3: "AC 6H 9D", 4: "5C 7H TD", 5: "6C 7H TD"})
    play_cards(m, "2C 3C 4C AC 5C 6C")  # seat 3 wins
    play_cards(m, "9D TD TD 8D 8D 9D")  # all diamonds pair: seat 3 leads again
    (last,) = play_cards(m, "6H 7H 7H 5H 5H 6H")
    assert last.winner is None
    r = m.results[0]
    assert r.points_taken == (0, 0, 0, 6, 0, 0) and r.tricks_won == (0, 0, 0, 3, 0, 0)
    m = cancel_table({s: "5H 5H 6H 6H 7H 7H".split()[s] for s in range(6)})
    (only,) = play_cards(m, "5H 5H 6H 6H 7H 7H")
    assert only.winner is None
    r = m.results[0]
    assert r.points_taken == (0,) * 6 and r.tricks_won == (0,) * 6 and r.moon is None


def test_cancellation_a_hand_holds_a_card_twice_and_plays_one_at_a_time():
    """002: 'This is a version of Hearts for 6 to 10 players using two 52-card packs shuffled together.' — a
    hand may hold two identical cards: it lists the card twice, and playing it gives up one copy."""
    m = cancel_table({0: "2C 9D", 1: "5C 5C 3D", 2: "6C 4D 4D", 3: "7C 5D 5D", 4: "8C 6D 6D", 5: "9C 7D 8D"})
    obs = m.observation(1)
    assert (
        [str(c) for c in obs.hand] == ["5C", "5C", "3D"]
        and len(obs.hand) == 3
        and obs.hand.count(Card.parse("5C")) == 2
    )
    m.play("2C")
    assert m.legal_plays() == cs("5C")  # the legal set names the card once
    m.play("5C")
    assert [str(c) for c in m.observation(1).hand] == ["5C", "3D"]
    play_cards(m, "6C 7C 8C 9C")  # seat 5 wins with 9♣
    assert [str(c) for c in m.observation(1).hand] == ["5C", "3D"]
    play_cards(m, "7D 9D")
    assert m.legal_plays() == cs("3D")
    with pytest.raises(IllegalPlayError):
        m.play("5C")


def test_cancellation_the_moon_is_every_penalty_card_of_both_packs():
    """002: 'If you manage to win all the scoring cards — all 13 hearts and the queen of spades — this is
    known as a slam or shooting the moon.' — with two packs the scoring cards are 26 hearts and two Q♠: 52
    points, added to every other player."""
    assert CANCEL.moon_total == 52
    hands = {0: "2C", 1: "3C", 2: "AC", 3: "4C", 4: "5C", 5: "6C"}
    m = cancel_table(hands)
    m.hand.captured[2] = CANCEL.penalty_mask
    play_cards(m, "2C 3C AC 4C 5C 6C")
    r = m.results[0]
    assert r.moon == 2 and r.score == (52, 52, 0, 52, 52, 52)
    m = cancel_table(hands)
    m.hand.captured[2] = CANCEL.penalty_mask & ~(Card.parse("AH").mask << 52)  # one A♥ short
    m.hand.captured[4] = Card.parse("AH").mask
    play_cards(m, "2C 3C AC 4C 5C 6C")
    r = m.results[0]
    assert r.moon is None and r.score == (0, 0, 51, 0, 1, 0)


def test_cancellation_plays_no_pass_unless_asked():
    """002: 'The cards are dealt out as far as they will go, any left-over cards being placed in a face-down
    kitty which is taken by the winner of the first trick. The player to the dealer's left leads first and
    can lead anything.' — nothing is said of a pass: the deal is followed by the lead. A pass cycle may be
    set; a seat may then pass both copies of a card."""
    assert CANCEL.pass_cycle == ("hold",) and Match(CANCEL, 1).phase is Phase.PLAY
    r = Rules.parse("cancellation,pass_cycle=left-right-hold")
    m = Match(r, 0)
    two = [c for c in DECK if m.hand.doubles[0] & c.mask]
    seed = 0
    while not two:
        seed += 1
        m = Match(r, seed)
        two = [c for c in DECK if m.hand.doubles[0] & c.mask]
    c = two[0]
    others = [x for x in m.observation(0).hand if x is not c]
    with pytest.raises(IllegalPlayError, match="three times"):
        m.pass_cards(0, [c, c, c])
    once = next(x for x in others if x not in two)
    with pytest.raises(RepeatedCardError, match="holding one copy"):
        m.pass_cards(0, [once, once, c])
    m.pass_cards(0, [c, c, others[0]])
    for s in range(1, 6):
        m.pass_cards(s, list(m.observation(s).hand)[:3])
    assert Counter(m.observation(1).received)[c] == 2 and c not in m.observation(0).hand


def test_cancellation_the_first_trick_is_the_first_played_even_without_a_winner():
    """001: 'no penalty card (no heart and not the Queen of Spades) may be discarded on the very first
    trick' (points_on_first_trick=false) and 002: 'the trick remains on the table, the same player leads
    again' — the very first trick is the first played: once it is on the table, the next may take points."""
    rules = Rules.parse("cancellation,points_on_first_trick=false")
    hands = {0: "2C 3D 2S", 1: "2C 4D 3S", 2: "QS 5D JS", 3: "2H 6D 4S", 4: "3H 7D 5S", 5: "4H 8D 6S"}
    m = cancel_table(hands, rules=rules)
    play_cards(m, "2C 2C")
    assert m.legal_plays() == cs("5D JS")  # void in clubs on trick one: no Q♠
    (t,) = play_cards(m, "5D 6D 7D 8D")
    assert t.winner is None and m.to_move == (0,)
    m.play("3D")
    assert m.legal_plays() == cs("4D")
    m.play("4D")
    assert m.legal_plays() == cs("QS JS")  # trick two: void in diamonds, Q♠ may go
