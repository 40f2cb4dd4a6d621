"""Each rejection of the engine names its kind: a subclass of ``IllegalPlayError`` per reason, so the
referee judges a bot's answer with the engine's own check and learns the fault's kind from it."""

from __future__ import annotations

import pytest

from referee.rules import (
    Card,
    CardNotHeldError,
    CardNotLegalError,
    IllegalPlayError,
    Match,
    NotYourTurnError,
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
    """001: 'The holder of the 2 of clubs must lead it to the first trick — no other opening lead is legal.'"""
    m = _at_first_trick()
    s = m.turn
    other = next(c for c in m.observation(s).hand.cards if str(c) != "2C")
    with pytest.raises(CardNotLegalError, match="the rules forbid it now"):
        m.play(other, s)


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
