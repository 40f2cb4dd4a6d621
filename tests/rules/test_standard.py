"""Edge cases of the standard ruleset (001_7c47ddaca2398b03.txt, the default ``Rules()``).

Each test quotes the sentence it checks and names its source file. Seats: 0..3 clockwise; seat s+1
is to the left of s. In 001's worked trick South=0, West=1, North=2, East=3.
"""

from __future__ import annotations

import random

import pytest
from positions import (
    HEARTS,
    cs,
    end_of_hand,
    m_,
    play_last_trick,
    play_until,
    position,
    random_play,
    random_step,
    seat_holding,
)

from referee.rules import (
    Card,
    CardSet,
    IllegalPlayError,
    Match,
    Phase,
    Rules,
    cards_of,
    deal,
)

STD = Rules()

# A trick-one position: seat 0 leads 2♣ (hands are 13 cards each and hold the whole pack).
T1 = {
    0: "2C 3C 4D 5D 6D 7D 8D 9D 2S 3S 4S 2H 3H",
    1: "5C 6C 7C 10D JD QD KD AD 5S 6S 7S 4H 5H",
    2: "8C 9C 10C JC QC KC AC 8S 9S 10S 6H 7H 8H",
    3: "JS QS KS AS 2D 3D 9H 10H JH QH KH AH 4C",
}


def test_standard_is_the_default_ruleset():
    """001: 'What we play is the standard online ruleset, matching cardgames.io exactly: pass
    left/right/across/hold, 2♣ opens, no penalty cards on trick one, moon adds 26 to opponents, game to
    100 with the tie-continuation rule.'"""
    r = Rules()
    assert r == Rules.preset("standard") == Rules.parse("standard") == Rules.parse("")
    assert r.name == "standard"
    assert r.players == 4
    assert r.pass_cycle == ("left", "right", "across", "hold")
    assert r.first_lead == "lowest-club"
    assert r.points_on_first_trick is False
    assert r.moon == "add-to-others"
    assert r.target == 100
    assert r.tied_lowest == "play-on"
    assert r.bonus_card is None and r.queen_breaks_hearts is False and r.no_tricks_bonus == 0


# -- setup and the deal --------------------------------------------------------------------------


def test_whole_deck_dealt_thirteen_each():
    """001: 'The whole 52-card deck is dealt out, 13 cards to each player.'"""
    for seed in range(20):
        d = deal(STD, seed, 0)
        assert [len(h) for h in d.hands] == [13, 13, 13, 13]
        assert not d.kitty
        union = 0
        for h in d.hands:
            assert not union & h.mask
            union |= h.mask
        assert union == (1 << 52) - 1


GOLDEN_SEED_7 = (
    "5C 6C 10C JC QC 6D 8D 4S 10S KS 4H 5H AH",
    "2C 5D 7D 10D AD 5S 7S 9S JS AS 2H 6H KH",
    "3C 7C 9C JD QD KD 3S 6S QS 7H 8H 9H 10H",
    "4C 8C KC AC 2D 3D 4D 9D 2S 8S 3H JH QH",
)


def test_deal_from_seed_is_golden_and_repeatable():
    """001: 'The whole 52-card deck is dealt out, 13 cards to each player.' The deal is drawn from
    the match seed by a portable generator (state.py), so seed 7 deals these hands on every run and
    machine; a change of the generator must fail this test."""
    m1, m2 = Match(Rules(), 7), Match(Rules(), 7)
    assert [str(CardSet(h)) for h in m1.hand.hands] == list(GOLDEN_SEED_7)
    assert m1.history[0] == m2.history[0] == deal(STD, 7, 0)
    assert tuple(str(h) for h in deal(STD, 7, 0).hands) == GOLDEN_SEED_7
    # another seed and another hand number deal differently
    assert deal(STD, 8, 0) != deal(STD, 7, 0)
    assert deal(STD, 7, 1).hands != deal(STD, 7, 0).hands


def test_aces_high_in_every_suit():
    """001: 'Aces are high, so within each suit the order from strongest to weakest is A, K, Q, J, 10 … 2.'"""
    m = position(hands={0: "10D 3C", 1: "AD 4C", 2: "2D 5C", 3: "JD 6C"}, won_first=0)
    for card in ("10D", "AD", "2D", "JD"):
        m.play(card)
    assert m.hand.tricks[-1].winner == 1  # A♦ beats J♦ and 10♦ (10 beats 2, not sorted as text)
    m2 = position(hands={0: "10S 3C", 1: "9S 4C", 2: "2S 5C", 3: "3S 6C"}, won_first=3)
    for card in ("3S", "10S", "9S", "2S"):
        m2.play(card)
    assert m2.hand.tricks[-1].winner == 0  # 10♠ beats 9♠


# -- the opening lead ----------------------------------------------------------------------------


def test_two_of_clubs_is_the_only_opening_lead():
    """001: 'The holder of the 2 of clubs must lead it to the first trick — no other opening lead is legal.'"""
    m = position(hands=T1)
    assert m.phase is Phase.PLAY
    assert m.to_move == (0,)
    assert m.legal_plays() == cs("2C")
    for other in ("3C", "4D", "2S"):
        with pytest.raises(IllegalPlayError):
            m.play(other)
    # the holder is found wherever the 2♣ is
    hands = dict(T1)
    hands[0], hands[2] = T1[2], T1[0]
    m = position(hands=hands)
    assert m.to_move == (2,) and m.legal_plays() == cs("2C")


def test_two_of_clubs_leads_in_a_real_hold_hand():
    """001: 'the player who holds the 2 of clubs always leads the first trick, whoever that turns
    out to be.'"""
    for seed in range(10):
        m = Match(Rules.preset("no-passing"), seed)
        assert m.phase is Phase.PLAY
        assert m.to_move == (seat_holding(m, "2C"),)
        assert m.legal_plays() == cs("2C")


def test_pass_changes_who_leads():
    """001: 'After the exchange, whoever now holds the 2 of clubs leads the first trick; the pass
    can move the opening lead from one player to another.'"""
    for seed in range(4):
        m = Match(Rules(), seed)  # hand 0 passes left
        holder = seat_holding(m, "2C")
        for s in range(4):
            m.pass_cards(s, cards_of(m.hand.hands[s])[:3])  # the holder's lowest three include 2♣
        assert m.phase is Phase.PLAY
        new = seat_holding(m, "2C")
        assert new == (holder + 1) % 4
        assert m.to_move == (new,) and m.legal_plays() == cs("2C")


def test_play_continues_clockwise_and_winner_leads():
    """001: 'Play then continues clockwise. ... The highest card of the led suit wins the trick, the
    winner collects the four cards, and the winner leads the next trick.'"""
    m = position(hands=T1)
    order = []
    for card in ("2C", "7C", "AC", "4C"):
        order.append(m.to_move[0])
        m.play(card)
    assert order == [0, 1, 2, 3]
    t = m.hand.tricks[0]
    assert t.winner == 2
    assert m.hand.captured[2] == m_("2C 7C AC 4C")
    assert m.to_move == (2,) and m.hand.leader == 2


# -- following suit and discarding -----------------------------------------------------------------


def test_must_follow_suit():
    """001: 'On every trick you must follow suit if you hold a card of the suit that was led.'"""
    m = position(hands=T1)
    m.play("2C")
    assert m.legal_plays() == cs("5C 6C 7C")
    with pytest.raises(IllegalPlayError):
        m.play("AD")
    # later trick: a spade led, seat 1 must play a spade even holding hearts
    m = position(hands={0: "2S 3D", 1: "5S 4H", 2: "8S 6H", 3: "QS 9H"}, won_first=0)
    m.play("2S")
    assert m.legal_plays() == cs("5S")


def test_void_may_discard_any_card_after_the_first_trick():
    """001: 'If you are void in that suit you may discard any card, with the two exceptions below.'
    and 'Everything else is legal — including playing the Queen of Spades whenever the follow-suit
    rule allows it, on any trick after the first.'"""
    m = position(hands={0: "3C 4D", 1: "2H QS KD", 2: "9C 6H 7S", 3: "10C 2D 3S"}, won_first=2)
    m.play("9C")
    m.play("10C")
    m.play("3C")
    # seat 1 is void in clubs: any card, the Queen and a heart included
    assert m.legal_plays() == cs("2H QS KD")


def test_first_trick_no_heart_discard():
    """001: 'First-trick safety rule — no penalty card (no heart and not the Queen of Spades) may be
    discarded on the very first trick. If you cannot follow with a club you must throw a safe card.'"""
    hands = {
        0: "2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC",
        1: "2D 3D 4D 5D 6D 7D 2H 3H 4H 5H 6H 7H 8H",
        2: "8D 9D 10D JD QD KD AD 2S 3S 4S 5S 6S 9H",
        3: "7S 8S 9S 10S JS QS KS AS 10H JH QH KH AH",
    }
    m = position(hands=hands)
    m.play("2C")
    assert m.legal_plays() == cs("2D 3D 4D 5D 6D 7D")
    with pytest.raises(IllegalPlayError):
        m.play("2H")
    m.play("2D")
    assert m.legal_plays() == cs("8D 9D 10D JD QD KD AD 2S 3S 4S 5S 6S")
    m.play("2S")
    # seat 3 holds only spades and hearts: not the Queen, not a heart
    assert m.legal_plays() == cs("7S 8S 9S 10S JS KS AS")
    with pytest.raises(IllegalPlayError):
        m.play("QS")


def test_first_trick_no_queen_discard():
    """001: 'First-trick safety rule — no penalty card (no heart and not the Queen of Spades) may be
    discarded on the very first trick.'"""
    hands = {
        0: "2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC",
        1: "QS 2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD",
        2: "AD 2S 3S 4S 5S 6S 7S 8S 9S 10S JS KS AS",
        3: HEARTS,
    }
    m = position(hands=hands)
    m.play("2C")
    assert QS not in m.legal_plays()
    assert m.legal_plays() == cs("2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD")


QS = Card.parse("QS")


def test_all_penalty_hand_may_discard_on_first_trick_and_the_heart_breaks_hearts():
    """001: 'The only exception: a player whose hand is nothing but penalty cards may discard one.'
    and 'First trick, all-penalty hand: if every card you hold is a heart or the Queen of Spades and
    you cannot follow the club lead, you may discard a penalty card on the first trick — the only
    time that is legal.' A heart so discarded breaks hearts: 'Hearts are broken only when a heart
    itself is discarded.'"""
    hands = {
        0: "2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC",
        1: "QS 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH",
        2: "AH 2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD",
        3: "AD 2S 3S 4S 5S 6S 7S 8S 9S 10S JS KS AS",
    }
    m = position(hands=hands)
    m.play("2C")
    assert m.legal_plays() == cs("QS 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH")
    assert not m.hand.hearts_broken
    m.play("KH")
    assert m.hand.hearts_broken
    m.play("2D")
    m.play("2S")
    # seat 0 won with 2♣ and may now lead... only clubs, but the table knows hearts are broken:
    assert m.hand.tricks[0].winner == 0
    obs = m.observation(0)
    assert obs.hearts_broken


def test_all_penalty_hand_may_discard_the_queen_on_first_trick():
    """001: 'First trick, all-penalty hand: if every card you hold is a heart or the Queen of Spades
    and you cannot follow the club lead, you may discard a penalty card on the first trick'"""
    hands = {
        0: "2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC",
        1: "QS 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH",
        2: "AH 2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD",
        3: "AD 2S 3S 4S 5S 6S 7S 8S 9S 10S JS KS AS",
    }
    m = position(hands=hands)
    m.play("2C")
    m.play("QS")
    assert not m.hand.hearts_broken  # the Queen is not a heart
    m.play("2D")
    m.play("2S")
    assert m.hand.captured[0] & QS.mask


def test_heart_broken_on_first_trick_allows_heart_lead_on_second():
    """001: 'Leading hearts — you may not lead a heart until hearts have been broken, meaning a heart
    has already been discarded on an earlier trick.' — an all-penalty hand's heart on trick one counts."""
    hands = {
        0: "2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC AC AD",
        1: "QS 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH",
        2: "KC AH 2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD",
        3: "KD 2S 3S 4S 5S 6S 7S 8S 9S 10S JS KS AS",
    }
    m = position(hands=hands)
    m.play("2C")
    m.play("3H")  # seat 1: nothing but penalty cards
    m.play("KC")
    assert m.legal_plays() == cs("KD 2S 3S 4S 5S 6S 7S 8S 9S 10S JS KS AS")  # seat 3: safe cards only
    m.play("2S")
    assert m.to_move == (2,)
    assert Card.parse("AH") in m.legal_plays()
    m.play("AH")
    assert m.legal_plays() == cs("KD 3S 4S 5S 6S 7S 8S 9S 10S JS KS AS")  # seat 3: void in hearts


# -- leading hearts --------------------------------------------------------------------------------


def test_real_play_hearts_break_only_by_a_heart_discard_or_a_forced_lead():
    """001: 'Leading hearts — you may not lead a heart until hearts have been broken, meaning a heart has
    already been discarded on an earlier trick. If your hand is nothing but hearts, you may lead one anyway.'
    In real (seeded random) play, the first heart of every hand is a discard on another suit or the lead
    of a hand holding nothing but hearts, and the Queen never breaks hearts."""
    seen = 0
    for seed in range(40):
        m = Match(Rules(), seed)
        rng = random.Random(seed)
        for _ in range(3):  # the first hands of the match
            number = m.hand_number

            def first_heart(match: Match, number: int = number) -> bool:
                return match.hand_number == number and match.phase is Phase.PLAY and match.hand.hearts_broken

            if not play_until(m, first_heart, rng):
                break
            hand = m.hand
            last = m.history[-1]
            assert last.card.suit.name == "HEARTS"
            trick = hand.trick_cards if hand.trick_cards else list(hand.tricks[-1].cards)
            if trick[0] is last.card:  # a heart lead: the leader held nothing but hearts
                assert hand.hands[last.seat] & ~m_(HEARTS) == 0
            else:  # a heart on another suit's trick: the player was void in the led suit
                assert trick[0].suit.name != "HEARTS"
                assert not any(c.suit is trick[0].suit for c in cards_of(hand.hands[last.seat]))
            # the Queen alone never broke hearts: before this heart, no heart had been played
            earlier = [c for t in hand.tricks for c in t.cards] + list(hand.trick_cards)
            assert [c for c in earlier if c.suit.name == "HEARTS"] == [last.card]
            seen += 1
            while m.hand_number == number and not m.over:
                random_step(m, rng)
            if m.over:
                break
    assert seen >= 60


def test_cannot_lead_hearts_until_broken():
    """001: 'Leading hearts — you may not lead a heart until hearts have been broken, meaning a heart
    has already been discarded on an earlier trick.'"""
    m = position(hands={0: "3C 5H 9H", 1: "4C 6D 7S", 2: "5C 8D 9S", 3: "6C 10D 10S"}, won_first=0)
    assert m.legal_plays() == cs("3C")
    with pytest.raises(IllegalPlayError) as e:
        m.play("5H")
    assert e.value.seat == 0 and str(e.value.tried) == "5H"


def test_hand_of_only_hearts_may_lead_one_and_it_breaks_hearts():
    """001: 'Forced heart lead: holding nothing but hearts, you may lead a heart even though hearts
    are unbroken. This lead breaks hearts for everyone.'"""
    m = position(hands={0: "5H 9H", 1: "4C 2H", 2: "5C 8D", 3: "6C 10D"}, won_first=0)
    assert m.legal_plays() == cs("5H 9H")
    m.play("5H")
    assert m.hand.hearts_broken
    m.play("2H")
    m.play("5C")
    m.play("6C")
    # seat 0 won with 5♥ and leads: the table knows hearts are broken; seat 1 may lead 2H later
    assert m.hand.tricks[-1].winner == 0
    assert m.observation(1).hearts_broken


def test_only_hearts_and_queen_must_lead_the_queen():
    """001: 'If your hand is nothing but hearts, you may lead one anyway.' A hand of hearts and the
    Queen of Spades is not 'nothing but hearts': 'the Queen is an ordinary spade for leading
    purposes', so the Queen is the only legal lead."""
    m = position(hands={0: "QS 5H 9H", 1: "4C 6D 7S", 2: "5C 8D 9S", 3: "6C 10D 10S"}, won_first=0)
    assert m.legal_plays() == cs("QS")


def test_queen_does_not_break_hearts():
    """001: 'The Queen of Spades does not break hearts. Hearts are broken only when a heart itself is
    discarded. You can drop the Queen on trick two and still be barred from leading hearts.'"""
    m = position(hands={0: "3D 5C 10S", 1: "QS 6C 2H", 2: "5D 8C 9S", 3: "6D 10C 9H"}, won_first=0)
    m.play("3D")
    m.play("QS")  # seat 1, void in diamonds, drops the Queen on trick two
    m.play("5D")
    m.play("6D")  # seat 3 wins trick two with the Queen in it
    assert not m.hand.hearts_broken
    assert m.to_move == (3,)
    assert m.legal_plays() == cs("10C")  # still barred from leading the 9♥


def test_queen_may_be_led_on_trick_two_while_hearts_unbroken():
    """001: 'the Queen of Spades is a spade and may be led at any time, even on the second trick of
    the hand while hearts are still unbroken.'"""
    m = position(hands={0: "QS 5H 9H 3D", 1: "4C 6D 7S 8S", 2: "5C 8D 9S 2S", 3: "6C 10D 10S AS"}, won_first=0)
    assert not m.hand.hearts_broken
    assert m.legal_plays() == cs("QS 3D")
    m.play("QS")
    assert m.legal_plays() == cs("7S 8S")


def test_heart_discarded_in_current_trick_allows_heart_lead_next_trick():
    """001: 'Leading hearts — you may not lead a heart until hearts have been broken, meaning a heart
    has already been discarded on an earlier trick.'"""
    m = position(hands={0: "3D 5C 10S", 1: "2H 6C 4S", 2: "5D 8C 9S", 3: "6D 10C 9H"}, won_first=0)
    m.play("3D")
    assert m.legal_plays() == cs("2H 6C 4S")
    m.play("2H")  # the heart is discarded in this trick
    assert m.hand.hearts_broken
    m.play("5D")
    m.play("6D")  # seat 3 wins and leads the next trick
    assert m.to_move == (3,)
    assert m.legal_plays() == cs("10C 9H")


# -- winning tricks ----------------------------------------------------------------------------------


def test_worked_trick_example():
    """001: 'A worked trick: South leads the 9♦, West follows with the K♦, North is void in diamonds
    and discards the 5♥, East follows with the 2♦. West's king is the highest diamond, so West wins the
    trick and takes the heart with it — North's discard can never win because it is not the led suit.
    West now leads the next trick, hearts are officially broken, and West is one penalty point worse off.'"""
    south, west, north, east = 0, 1, 2, 3
    m = position(hands={south: "9D 3C", west: "KD 4C", north: "5H 5C", east: "2D 6C"}, won_first=south)
    assert not m.hand.hearts_broken
    m.play("9D")
    m.play("KD")
    m.play("5H")
    m.play("2D")
    t = m.hand.tricks[-1]
    assert t.winner == west
    assert m.to_move == (west,)
    assert m.hand.hearts_broken
    assert m.hand.captured[west] == m_("9D KD 5H 2D")
    assert sum(m.rules.card_points[c.index] for c in cards_of(m.hand.captured[west])) == 1


def test_off_suit_high_cards_never_win():
    """001: 'There is no trump suit in Hearts: a trick can only be won by a card of the suit that was led.'"""
    m = position(hands={0: "2D 3C", 1: "AS 4C", 2: "AH 5C", 3: "AC 6C"}, won_first=0, hearts_broken=True)
    for c in ("2D", "AS", "AH", "AC"):
        m.play(c)
    assert m.hand.tricks[-1].winner == 0  # the 2♦ is the only diamond


def test_thirteen_tricks_in_every_hand():
    """001: 'There are 13 tricks in every hand.'"""
    m = Match(Rules(), 3)
    rng = random.Random(3)
    hands_seen = 0
    while not m.over and hands_seen < 6:
        number = m.hand_number
        tricks = m.hand.tricks
        while m.hand_number == number and not m.over:
            tricks = m.hand.tricks
            random_step(m, rng)
        assert len(tricks) == 13
        assert sum(m.results[-1].tricks_won) == 13
        hands_seen += 1
    assert hands_seen == 6


def test_twenty_six_points_per_hand():
    """001: 'At the end of each 13-trick hand, every player counts the penalty cards in the tricks
    they captured. There are always exactly 26 penalty points in a hand'"""
    for seed in range(5):
        m = random_play(Match(Rules(), seed), seed)
        for r in m.results:
            assert sum(r.points_taken) == 26
            assert sum(r.score) in (26, 78)


def test_hearts_one_point_queen_thirteen():
    """001 Scoring: 'every player counts the penalty cards in the tricks they captured. There are
    always exactly 26 penalty points in a hand' — each heart 1, the Queen 13 ('every heart plus the
    Queen of Spades' make the 26)."""
    m = end_of_hand(captured={0: "QS 2H", 1: "3H 4H 5H", 2: "6H 7H 8H 9H 10H JH QH KH AH", 3: "AS KS"})
    play_last_trick(m)
    r = m.results[0]
    assert r.points_taken == (14, 3, 9, 0)
    assert r.score == (14, 3, 9, 0)
    assert m.scores == [14, 3, 9, 0]


# -- shooting the moon -------------------------------------------------------------------------------


def test_moon_adds_26_to_each_opponent_and_0_to_shooter():
    """001: 'if one player captures all 26 penalty points in a single hand — every heart plus the
    Queen of Spades — the scoring flips. The shooter scores 0 for the hand and each of the other three
    players scores 26.'"""
    m = end_of_hand(captured={2: HEARTS + " QS"}, scores=[10, 20, 30, 40])
    play_last_trick(m)
    r = m.results[0]
    assert r.moon == 2
    assert r.points_taken == (0, 0, 26, 0)
    assert r.score == (26, 26, 0, 26)
    assert m.scores == [36, 46, 30, 66]
    assert not m.over


def test_moon_is_automatic_no_choice():
    """001: 'In our game this is automatic and there is no choice offered: the moon always adds 26 to
    each opponent rather than subtracting 26 from the shooter'"""
    m = end_of_hand(captured={1: HEARTS + " QS"})
    play_last_trick(m)
    assert m.phase is not Phase.MOON
    assert m.results[0].score == (26, 0, 26, 26)
    assert m.phase is Phase.PASS  # the next hand is dealt at once


def test_twenty_five_points_is_not_a_moon():
    """001: 'Taking 25 of the 26 points is not a moon — you simply score the 25.'"""
    m = end_of_hand(captured={1: "QS 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH", 3: "AH"})
    play_last_trick(m)
    r = m.results[0]
    assert r.moon is None
    assert r.score == (0, 25, 0, 1)


def test_moon_at_99_shooter_stays_at_99():
    """001: 'Moon at 99: shooting the moon never lowers your own score; it raises everyone else by 26.
    A player sitting at 99 gains nothing personally from shooting except that opponents may cross 100.'"""
    m = end_of_hand(captured={0: HEARTS + " QS"}, scores=[99, 50, 60, 70])
    play_last_trick(m)
    assert m.scores == [99, 76, 86, 96]
    assert not m.over  # nobody reached 100
    m = end_of_hand(captured={0: HEARTS + " QS"}, scores=[99, 80, 60, 70])
    play_last_trick(m)
    assert m.scores == [99, 106, 86, 96]
    assert m.over and m.winners == (2,)


# -- the end of the game -------------------------------------------------------------------------------


def test_hundred_checked_only_between_hands():
    """001: 'Points only land when a hand is fully scored, so the 100-point threshold is checked
    strictly between hands — nobody "reaches 100" mid-hand'"""
    m = position(hands={0: "3D 5C", 1: "2H 6C", 2: "5D 8C", 3: "AD 10C"}, won_first=2, scores=[95, 60, 10, 99])
    m.play("5D")
    m.play("AD")
    m.play("3D")
    m.play("2H")  # seat 3 takes a heart: it would be at 100 if points landed now — they do not
    assert m.hand.captured[3] & m_("2H")
    assert not m.over and m.phase is Phase.PLAY and m.to_move == (3,)
    assert m.scores == [95, 60, 10, 99]
    for c in ("10C", "5C", "6C", "8C"):
        m.play(c)
    assert m.scores == [95, 60, 10, 100]
    assert m.over and m.winners == (2,)


def test_game_ends_when_a_total_reaches_100_at_end_of_hand():
    """001: 'Hands are played until at least one player has 100 points or more at the end of a hand.
    The player with the lowest total then wins.'"""
    m = end_of_hand(captured={0: "QS", 1: "2H 3H", 2: HEARTS.replace("2H 3H ", "")}, scores=[87, 50, 40, 60])
    play_last_trick(m)
    assert m.scores == [100, 52, 51, 60]  # exactly 100 is enough
    assert m.over and m.phase is Phase.OVER
    assert m.winners == (2,)
    with pytest.raises(IllegalPlayError):
        m.play("2C")


def test_game_continues_below_100():
    """001: 'Hands are played until at least one player has 100 points or more at the end of a hand.'"""
    m = end_of_hand(captured={0: "QS", 1: HEARTS}, scores=[86, 50, 40, 60])
    play_last_trick(m)
    assert m.scores == [99, 63, 40, 60]
    assert not m.over and m.hand_number == 1 and m.phase is Phase.PASS


def test_moon_in_same_hand_counts_toward_the_check():
    """001: 'a moon scored in the same hand is already included in the totals being checked.'"""
    m = end_of_hand(captured={3: HEARTS + " QS"}, scores=[80, 75, 90, 70])
    play_last_trick(m)
    assert m.scores == [106, 101, 116, 70]
    assert m.over and m.winners == (3,)


# seat 0 takes 25, seat 3 one heart: from 90/30/30/50 that is 115/30/30/51, a tie at the bottom
TIE_HAND = {0: "QS 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH", 3: "AH"}


def test_tie_for_lowest_keeps_dealing():
    """001: 'reaching 100 only ends the game if there is a sole lowest score. If two or more players are
    tied for the least points when someone crosses 100, the game continues — more full hands are dealt
    and played — until the tie at the bottom breaks.'"""
    m = end_of_hand(captured=TIE_HAND, scores=[90, 30, 30, 50])
    play_last_trick(m)
    assert m.scores == [115, 30, 30, 51]
    assert not m.over and m.winners == ()
    assert m.hand_number == 1 and m.phase is Phase.PASS


@pytest.mark.parametrize("number,next_direction", [(3, "left"), (4, "right"), (5, "across"), (6, "hold")])
def test_tie_continuation_keeps_the_pass_cycle(number, next_direction):
    """001: 'Tie continuation: a 100-point game where the two lowest players are level keeps dealing
    new hands (with the normal passing cycle continuing) until one of them is alone at the bottom.'"""
    m = end_of_hand(captured=TIE_HAND, scores=[90, 30, 30, 50], hand_number=number)
    play_last_trick(m)
    assert not m.over
    assert m.hand_number == number + 1
    assert m.hand.direction == next_direction
    assert m.hand.phase is (Phase.PLAY if next_direction == "hold" else Phase.PASS)


def test_tie_broken_by_a_later_hand_gives_one_winner():
    """001: 'A finished game of Hearts therefore always has exactly one winner; there are no shared wins.'"""
    m = end_of_hand(captured=TIE_HAND, scores=[90, 30, 30, 50])
    play_last_trick(m)
    assert not m.over
    # the next hand: seat 1 takes one heart, the tie breaks
    m2 = end_of_hand(captured={1: "2H", 0: HEARTS.replace("2H ", "") + " QS"}, scores=m.scores, hand_number=1)
    play_last_trick(m2)
    assert m2.scores == [140, 31, 30, 51]
    assert m2.over and m2.winners == (2,)


def test_standard_match_always_has_exactly_one_winner():
    """001: 'A finished game of Hearts therefore always has exactly one winner; there are no shared wins.'"""
    for seed in range(8):
        m = random_play(Match(Rules(), seed), seed)
        assert m.over and len(m.winners) == 1
        w = m.winners[0]
        assert all(m.scores[w] < m.scores[s] for s in range(4) if s != w)
        assert max(m.scores) >= 100


def test_no_jack_of_diamonds_bonus():
    """001: 'No jack of diamonds rule: some house variants award −10 for capturing the J♦. This game
    does not — only hearts and the Queen score.'"""
    m = end_of_hand(captured={0: "JD 10D", 1: "QS", 2: HEARTS}, filler=3)
    play_last_trick(m)
    assert m.results[0].score == (0, 13, 13, 0)
    assert Rules().points_of(Card.parse("JD")) == 0 and Rules().points_of(Card.parse("10D")) == 0


# -- passing ------------------------------------------------------------------------------------------


def _receive_map(m: Match) -> dict[int, int]:
    """Pass each seat's three lowest cards and return receiver -> sender."""
    sent = {}
    for s in range(m.rules.players):
        cards = cards_of(m.hand.hands[s])[: m.rules.pass_count]
        sent[s] = set(cards)
        m.pass_cards(s, cards)
    got = {}
    for r in range(m.rules.players):
        rec = set(cards_of(m.hand.received[r]))
        senders = [s for s in sent if sent[s] == rec]
        assert len(senders) == 1
        got[r] = senders[0]
    return got


def test_pass_cycle_left_right_across_hold():
    """001: 'The direction rotates on a fixed four-hand cycle' (pass left/right/across/hold) and
    'You receive three cards from the player passing in your direction — pass left and you receive
    from your right.'"""
    expected = {0: "left", 1: "right", 2: "across", 3: "hold", 4: "left", 5: "right", 6: "across", 7: "hold"}
    sender_offset = {"left": -1, "right": 1, "across": 2}  # receiver r gets from r + offset
    seen = set()
    for seed in range(6):
        m = Match(Rules(), seed)
        rng = random.Random(seed)
        while not m.over and m.hand_number < 8:
            k = m.hand_number
            assert m.hand.direction == expected[k]
            if expected[k] == "hold":
                assert m.phase is Phase.PLAY and m.to_move == (seat_holding(m, "2C"),)
                assert m.hand.hands == list(m.hand.dealt)
            else:
                got = _receive_map(m)
                for r, s in got.items():
                    assert s == (r + sender_offset[expected[k]]) % 4
            seen.add(k)
            while m.hand_number == k and not m.over:
                random_step(m, rng)
    assert seen >= {0, 1, 2, 3, 4}


def test_pass_left_receive_from_right():
    """001: 'pass left and you receive from your right.'"""
    m = Match(Rules(), 7)
    assert m.hand.direction == "left"
    got = _receive_map(m)
    assert got == {1: 0, 2: 1, 3: 2, 0: 3}  # seat s+1 (left of s) receives from s


@pytest.mark.parametrize("count", [2, 4, 0])
def test_must_pass_exactly_three(count):
    """001: 'Before play starts, each player chooses exactly three cards and passes them face down to
    another player.'"""
    m = Match(Rules(), 7)
    cards = cards_of(m.hand.hands[0])[:count]
    with pytest.raises(IllegalPlayError) as e:
        m.pass_cards(0, cards)
    assert e.value.seat == 0 and "seat 0" in str(e.value) and "3" in str(e.value)
    assert m.hand.passed[0] is None and m.to_move == (0, 1, 2, 3)


def test_pass_repeated_card_rejected():
    """001: 'each player chooses exactly three cards' — the same card twice is not three cards."""
    m = Match(Rules(), 7)
    a, b = cards_of(m.hand.hands[0])[:2]
    with pytest.raises(IllegalPlayError) as e:
        m.pass_cards(0, [a, a, b])
    assert e.value.seat == 0 and str(a) in str(e.value) and "seat 0" in str(e.value)
    assert m.hand.passed[0] is None


def test_pass_card_not_held_rejected():
    """001: 'each player chooses exactly three cards and passes them' — from their own hand."""
    m = Match(Rules(), 7)
    mine = cards_of(m.hand.hands[0])
    theirs = cards_of(m.hand.hands[1])[-1]
    with pytest.raises(IllegalPlayError) as e:
        m.pass_cards(0, [mine[0], mine[1], theirs])
    assert isinstance(e.value, ValueError)
    assert e.value.seat == 0 and str(theirs) in str(e.value) and "seat 0" in str(e.value)
    assert m.hand.passed[0] is None
    m.pass_cards(0, mine[:3])
    with pytest.raises(IllegalPlayError):
        m.pass_cards(0, mine[3:6])  # a seat passes once
    assert m.hand.passed[0] == mine[:3]


def test_everyone_chooses_before_the_exchange():
    """001: 'All four players choose their cards before any are exchanged, so you cannot see what you
    are receiving before you decide what to give.'"""
    m = Match(Rules(), 7)
    dealt = list(m.hand.hands)
    for s in (0, 1, 2):
        m.pass_cards(s, cards_of(m.hand.hands[s])[:3])
        assert m.phase is Phase.PASS
        assert m.hand.hands == dealt  # no card has moved yet
        for seat in range(4):
            obs = m.observation(seat)
            assert not obs.received
            assert obs.hand.mask == dealt[seat]
        with pytest.raises(IllegalPlayError):
            m.play("2C")
    assert m.to_move == (3,)
    m.pass_cards(3, cards_of(m.hand.hands[3])[:3])
    assert m.phase is Phase.PLAY
    for seat in range(4):
        obs = m.observation(seat)
        assert len(obs.received) == 3
        assert obs.received.mask & dealt[(seat - 1) % 4] == obs.received.mask


def test_hold_hand_has_no_pass():
    """001: 'On the fourth, no-pass hand none of that repair work is available — the deal you get is the
    deal you play'"""
    m = end_of_hand(captured={0: "QS", 1: HEARTS}, hand_number=2)
    play_last_trick(m)
    assert m.hand_number == 3 and m.hand.direction == "hold"
    assert m.phase is Phase.PLAY
    assert m.hand.hands == list(m.hand.dealt)
    with pytest.raises(IllegalPlayError):
        m.pass_cards(0, cards_of(m.hand.hands[0])[:3])


# -- illegal decisions --------------------------------------------------------------------------------


def test_illegal_play_names_seat_card_and_legal_set():
    """001: 'On every trick you must follow suit if you hold a card of the suit that was led.' — a play
    against it raises IllegalPlayError (a ValueError) naming the seat, the card and the legal set."""
    m = position(hands=T1)
    m.play("2C")
    with pytest.raises(ValueError) as e:
        m.play("AD")
    err = e.value
    assert isinstance(err, IllegalPlayError)
    assert err.seat == 1 and err.tried == Card.parse("AD")
    assert err.legal == cs("5C 6C 7C")
    msg = str(err)
    assert "seat 1" in msg and "AD" in msg and "5C 6C 7C" in msg
    # a card the seat does not hold
    with pytest.raises(IllegalPlayError) as e2:
        m.play("AC")
    assert e2.value.seat == 1 and "AC" in str(e2.value)
    # playing out of turn
    with pytest.raises(IllegalPlayError) as e3:
        m.play("8C", seat=2)
    assert e3.value.seat == 2 and "turn" in str(e3.value)
    # nothing changed
    assert len(m.hand.trick_cards) == 1 and m.to_move == (1,)
