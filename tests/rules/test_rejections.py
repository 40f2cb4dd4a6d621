"""Each rejection of the engine names its kind: a subclass of ``IllegalPlayError`` per reason, so the
referee judges a bot's answer with the engine's own check and learns the fault's kind from it."""

from __future__ import annotations

import pytest
from positions import position

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
    WrongCallError,
    WrongCountError,
)

STANDARD = Rules.parse("standard")


def _at_first_trick(seed: int = 3) -> Match:
    m = Match(STANDARD, seed)
    for s in range(4):
        m.pass_cards(s, list(m.observation(s).hand.cards)[:3])
    return m


def test_a_card_not_held_is_refused_as_not_held() -> None:
    """001: 'On every trick you must follow suit if you hold a card of the suit that was led.' A card the
    seat does not hold is refused as such, whatever the rules would allow."""
    m = _at_first_trick()
    s = m.turn
    held = m.observation(s).hand
    other = next(c for c in (Card.parse(t) for t in ("AH", "KH", "QH", "AS", "KS")) if c not in held)
    with pytest.raises(CardNotHeldError, match=f"seat {s} cannot play {other} .does not hold it.") as e:
        m.play(other, s)
    assert isinstance(e.value, IllegalPlayError) and e.value.seat == s and e.value.tried == other


def test_a_held_card_the_rules_forbid_is_refused_as_not_legal() -> None:
    """001: 'The holder of the 2 of clubs must lead it to the first trick — no other opening lead is legal.'
    The refusal names that rule."""
    m = _at_first_trick()
    s = m.turn
    other = next(c for c in m.observation(s).hand.cards if str(c) != "2C")
    with pytest.raises(CardNotLegalError, match="2♣ must lead the first trick") as e:
        m.play(other, s)
    assert e.value.rule == "2♣ must lead the first trick"


def test_a_pass_of_the_wrong_count_or_a_card_twice_or_one_not_held_says_which() -> None:
    """001: 'each player chooses exactly three cards and passes them face down to another player.'"""
    m = Match(STANDARD, 3)
    hand = list(m.observation(0).hand.cards)
    with pytest.raises(WrongCountError, match="exactly 3 cards, not 2"):
        m.pass_cards(0, hand[:2])
    with pytest.raises(RepeatedCardError, match=f"passed {hand[0]} twice"):
        m.pass_cards(0, [hand[0], hand[1], hand[0]])
    other = next(c for c in m.observation(1).hand.cards)
    with pytest.raises(CardNotHeldError, match="not in its hand"):
        m.pass_cards(0, [hand[0], hand[1], other])
    m.pass_cards(0, hand[:3])
    with pytest.raises(NotYourTurnError, match="already passed"):
        m.pass_cards(0, hand[3:6])


def test_a_discard_and_a_call_name_their_kind() -> None:
    """002: 'adds the kitty to their hand and discards an equal number of cards face down into their tricks':
    a short discard is a wrong count, the same card twice a repeated card; a call of no pass a wrong call."""
    rules = Rules.parse("standard,kitty=first-trick,hand_size=12,kitty_discard=true")
    m = Match(rules, 5)
    for s in range(4):
        m.pass_cards(s, list(m.observation(s).hand.cards)[:3])
    while m.phase.value != "discard":
        m.play(m.legal_plays().cards[0])
    taker = m.turn
    hand = list(m.observation(taker).hand.cards)
    with pytest.raises(WrongCountError, match="exactly 4 cards .as many as the kitty., not 3"):
        m.discard(taker, hand[:3])
    with pytest.raises(RepeatedCardError, match="twice"):
        m.discard(taker, [hand[0], hand[0], hand[1], hand[2]])
    called = Match(Rules.parse("standard,pass_cycle=call"), 2)
    with pytest.raises(WrongCallError, match="expected 3 offsets"):
        called.call_pass(called.to_move[0], (1, 1))
    with pytest.raises(NotYourTurnError):
        called.call_pass((called.to_move[0] + 1) % 4, "left")


# -- each rule that rules a held card out names itself (what a person at the table is told) ---------


def _refusal(m: Match, card: str) -> CardNotLegalError:
    """The engine's refusal of ``card`` for the seat to play: the error ``play`` raises, and the same
    error ``Hand.refused`` gives without playing."""
    s = m.turn
    before = m.observation(s)
    with pytest.raises(CardNotLegalError) as e:
        m.play(card, s)
    refused = m.hand.refused(s, Card.parse(card))
    assert type(refused) is CardNotLegalError and str(refused) == str(e.value) and refused.rule == e.value.rule
    assert m.observation(s) == before  # refusing changes nothing
    assert e.value.rule and f"({e.value.rule})" in str(e.value)
    return e.value


def test_following_suit_is_named_with_the_suit_led() -> None:
    """003: 'You must follow the suit that was led' ... 'Cards you cannot play are dimmed.' The refusal
    names the rule and the suit, as a person asking why is told."""
    m = position(STANDARD, {0: "3D 5C", 1: "4D 6C 2H", 2: "5D 8S", 3: "6D 10S"}, won_first=0)
    m.play("3D")
    assert _refusal(m, "6C").rule == "must follow suit: diamonds led"


def test_unbroken_hearts_are_named_and_their_breaker() -> None:
    """003: 'hearts cannot be led until broken'; 002: 'Some play that the queen of spades breaks hearts.'
    The rule says which cards break them."""
    hands = {0: "3D 5H", 1: "4D 6C", 2: "5D 8S", 3: "6D 10S"}
    assert _refusal(position(STANDARD, hands, won_first=0), "5H").rule == (
        "hearts are not broken: no heart may be led until one has been played"
    )
    queen = Rules.parse("standard,queen_breaks_hearts=true")
    assert "until a heart or Q♠ has been played" in _refusal(position(queen, hands, won_first=0), "5H").rule


def test_no_points_on_the_first_trick_is_named() -> None:
    """003: 'the first trick must start with the 2♣ and cannot take points if avoidable'."""
    hands = {
        0: "2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC",
        1: "QS 2D 3D 4D 5D 6D 2H 3H 4H 5H 6H 7H 8H",
        2: "8D 9D 10D JD QD KD AD 2S 3S 4S 5S 6S 9H",
        3: "7S 8S 9S 10S JS 7D KS AS 10H JH QH KH AH",
    }
    m = position(STANDARD, hands)
    m.play("2C")
    assert _refusal(m, "QS").rule.startswith("no points on the first trick")
    assert _refusal(m, "2H").rule.startswith("no points on the first trick")


def test_a_charged_card_and_the_queen_at_first_safe_chance_are_named() -> None:
    """002: 'A player may not play a turbo-charged card the first time a card of that suit is led.' And
    002: 'you must play the queen of spades as soon as it is safe to do so'."""
    turbo = Rules.parse("turbo")
    hands = {
        0: "2C 3C 4C 5C 6C 7C 8C JC QC KC AC 2D 3D",
        1: "9C 10C 4D 5D 6D 7D 8D 9D 10D JD QD KD AD",
        2: "2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS",
        3: "2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH",
    }
    m = position(turbo, hands)
    h = m.hand
    h.phase, h.charges = Phase.CHARGE, [None] * 4
    for s, charge in enumerate(("", "10C", "", "")):
        m.charge(s, [Card.parse(charge)] if charge else [])
    m.play("2C")
    assert _refusal(m, "10C").rule == "a turbo-charged card may not be played the first time its suit is led"
    queen = Rules(queen_at_first_safe_chance=True)
    m = position(queen, {0: "3D 5C", 1: "QS 2H 6C", 2: "5D 8S", 3: "6D 10S"}, won_first=0)
    m.play("3D")
    assert _refusal(m, "2H").rule == "Q♠ must be played at the first safe chance"
