"""Tables other than four players with one pack, from 002: other numbers of players, the kitty,
partnerships, Cancellation Hearts (two packs); and the options, presets and combinations refused.

Each test quotes the sentence it checks and names its source file:
000_93466bf2ef5d25de.txt, 001_7c47ddaca2398b03.txt, 002_9f11e0823e382118.txt, 004_f34b613fe02b4aea.txt.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from positions import (
    HEARTS,
    advance_to_hand,
    cs,
    end_of_hand,
    m_,
    pass_lowest,
    play_cards,
    play_last_trick,
    position,
    random_play,
    random_step,
    seat_holding,
)

from referee.rules import (
    PRESETS,
    Card,
    CardSet,
    IllegalPlayError,
    Match,
    MoonChoice,
    Phase,
    RepeatedCardError,
    Rules,
    cards_of,
    deal,
)
from referee.rules.cards import DECK, CardMultiset, parse_cards
from referee.rules.state import Deal, Hand

QS = Card.parse("QS")


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
