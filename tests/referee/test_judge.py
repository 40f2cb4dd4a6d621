"""The judge's own contract (``referee.judge``), one outcome a test: an answer's time charged to its
seat's clock, then what it says judged by the engine's own check, the seeded substitute standing in
for none or a refused one. Where a rule decides the outcome, the test names its sentence."""

from __future__ import annotations

import pytest

from referee.faults import Fault, fault_from_error, substitute_pass, substitute_play
from referee.judge import failed, in_time, judge, judge_play, trial
from referee.match import DECISIONS
from referee.record import FaultKind
from referee.rules import Card, CardNotLegalError, Match, Phase, Rules
from referee.seats import BotErrorStatus, BotTimeout, BotUnimplemented
from referee.settings import Clock, MatchSettings

STANDARD = Rules.parse("standard")
TWO_OF_CLUBS = Card.parse("2C")


def _clock() -> Clock:
    return Clock(MatchSettings(budget_ms=100, bank_ms=1000, grace_ms=50))


def _value(card: Card) -> int:
    return card.index + 1


def _at_first_lead(seed: int = 3) -> Match:
    m = Match(STANDARD, seed)
    for s in range(4):
        m.pass_cards(s, list(m.observation(s).hand.cards)[:3])
    return m


# -- time --------------------------------------------------------------------------------------------


def test_an_answer_within_its_budget_and_grace_stands_and_costs_the_bank_nothing() -> None:
    clock = _clock()
    assert in_time(clock, 7, 0.140) == (7, 140.0, None)
    assert clock.bank == 1.0


def test_an_answer_over_its_budget_stands_and_the_excess_is_drawn_from_the_bank() -> None:
    clock = _clock()
    assert in_time(clock, 7, 0.350) == (7, 350.0, None)
    assert clock.bank == pytest.approx(0.8)


def test_an_answer_that_overdraws_the_bank_is_refused_as_a_timeout_and_empties_it() -> None:
    clock = _clock()
    answer, latency, fault = in_time(clock, 7, 1.300)
    assert (answer, latency, clock.bank) == (None, 1300.0, 0.0)
    assert fault is not None and fault.kind is FaultKind.TIMEOUT
    assert (fault.detail, fault.received) == ("answered after 1300 ms; 1150 ms allowed", "7 (too late)")


def test_a_call_past_its_deadline_is_a_timeout_and_empties_the_bank() -> None:
    clock = _clock()
    answer, latency, fault = failed(clock, BotTimeout("no answer before the deadline", "nothing"), 0.200)
    assert (answer, latency, clock.bank) == (None, 200.0, 0.0)
    assert (fault.kind, fault.detail, fault.received) == (FaultKind.TIMEOUT, "no answer before the deadline", "nothing")


def test_a_call_that_failed_otherwise_is_its_seat_s_fault_and_costs_its_time_as_an_answer_would() -> None:
    clock = _clock()
    error = BotErrorStatus("the bot answered INTERNAL: oops", "status INTERNAL: oops")
    answer, latency, fault = failed(clock, error, 0.350)
    assert (answer, latency, fault.kind, fault.detail) == (None, 350.0, FaultKind.ERROR_STATUS, error.detail)
    assert clock.bank == pytest.approx(0.8)


# -- a decision's answer -------------------------------------------------------------------------------


def test_a_legal_pass_is_applied_as_answered() -> None:
    """001: 'each player chooses exactly three cards and passes them face down to another player.'"""
    m = Match(STANDARD, 3)
    o = m.observation(0)
    cards = tuple(o.hand.cards[:3])
    assert judge(DECISIONS[Phase.PASS], m, o, [_value(c) for c in cards], None) == (cards, None, False, False)
    assert m.observation(0).passed == cards


def test_a_pass_the_engine_refuses_is_the_fault_its_check_names_and_the_substitute_passes() -> None:
    """001: 'each player chooses exactly three cards': two are refused by the engine as a wrong count."""
    m = Match(STANDARD, 3)
    o = m.observation(0)
    value, fault, substituted, defaulted = judge(
        DECISIONS[Phase.PASS], m, o, [_value(c) for c in o.hand.cards[:2]], None
    )
    assert fault is not None and fault.kind is FaultKind.WRONG_PASS_COUNT and "exactly 3 cards, not 2" in fault.detail
    assert (value, substituted, defaulted) == (substitute_pass(3, o), True, False)
    assert m.observation(0).passed == value


def test_an_answer_that_names_no_card_is_malformed_and_the_substitute_stands_in() -> None:
    m = Match(STANDARD, 3)
    o = m.observation(0)
    value, fault, substituted, _ = judge(DECISIONS[Phase.PASS], m, o, [0] + [_value(c) for c in o.hand.cards[:2]], None)
    assert fault is not None and fault.kind is FaultKind.MALFORMED
    assert fault.detail == "pass holds no card (CARD_UNSPECIFIED)"
    assert (value, substituted) == (substitute_pass(3, o), True)


def test_no_answer_gets_the_seeded_substitute_and_keeps_the_call_s_fault() -> None:
    m = Match(STANDARD, 3)
    o = m.observation(0)
    timeout = Fault(FaultKind.TIMEOUT, "no answer before the deadline", "nothing")
    assert judge(DECISIONS[Phase.PASS], m, o, None, timeout) == (substitute_pass(3, o), timeout, True, False)


def test_an_optional_decision_the_bot_does_not_implement_takes_its_do_nothing_answer_without_a_fault() -> None:
    """002: 'each player may turbo-charge': charging nothing is a choice, the do-nothing answer of ChargeCards."""
    m = Match(Rules.parse("standard,turbo_charging=true"), 3)
    for s in range(4):
        m.pass_cards(s, list(m.observation(s).hand.cards)[:3])
    assert m.phase is Phase.CHARGE
    o = m.observation(0)
    unimplemented = fault_from_error(BotUnimplemented("the bot has no charge_cards method", "no charge_cards"))
    assert judge(DECISIONS[Phase.CHARGE], m, o, None, unimplemented) == ((), None, False, True)


def test_a_required_decision_the_bot_does_not_implement_is_a_fault_naming_the_rule_that_asks_it() -> None:
    """pass_cycle=call: the dealer calls the pass; a bot without CallPass cannot, and the substitute calls."""
    m = Match(Rules.parse("standard,pass_cycle=call"), 3)
    assert m.phase is Phase.CALL
    o = m.observation(m.to_move[0])
    unimplemented = fault_from_error(BotUnimplemented("the bot answered UNIMPLEMENTED", "status UNIMPLEMENTED: "))
    _, fault, substituted, defaulted = judge(DECISIONS[Phase.CALL], m, o, None, unimplemented)
    assert fault is not None and fault.unimplemented and fault.kind is FaultKind.ERROR_STATUS
    assert fault.detail == "the bot does not implement CallPass, which pass_cycle=call needs (see docs/protocol.md)"
    assert (substituted, defaulted, m.phase) == (True, False, Phase.PASS)


# -- a play -------------------------------------------------------------------------------------------------


def test_a_legal_card_is_played_as_answered() -> None:
    """001: 'The holder of the 2 of clubs must lead it to the first trick.'"""
    m = _at_first_lead()
    o = m.observation(m.turn)
    assert judge_play(m, o, _value(TWO_OF_CLUBS), None) == (TWO_OF_CLUBS, None, None, False)
    assert m.turn == (o.seat + 1) % 4


def test_a_held_card_the_rules_forbid_is_an_illegal_card_naming_the_rule_and_the_substitute_plays() -> None:
    """001: 'The holder of the 2 of clubs must lead it to the first trick — no other opening lead is legal.'"""
    m = _at_first_lead()
    o = m.observation(m.turn)
    other = next(c for c in o.hand.cards if c != TWO_OF_CLUBS)
    card, trick, fault, substituted = judge_play(m, o, _value(other), None)
    assert fault is not None and fault.kind is FaultKind.ILLEGAL_CARD and "2♣ must lead the first trick" in fault.detail
    assert fault.received == f"card={other}"
    assert (card, trick, substituted) == (TWO_OF_CLUBS, None, True)  # the only legal card: the substitute's


def test_a_card_not_held_is_refused_as_not_held() -> None:
    m = _at_first_lead()
    o = m.observation(m.turn)
    other = next(c for c in (Card.parse(t) for t in ("AH", "KH", "QH", "AS", "KS")) if c not in o.hand)
    card, _, fault, substituted = judge_play(m, o, _value(other), None)
    assert fault is not None and fault.kind is FaultKind.CARD_NOT_HELD and fault.received == f"card={other}"
    assert (card, substituted) == (substitute_play(3, o), True)


def test_a_play_of_no_card_is_malformed() -> None:
    m = _at_first_lead()
    o = m.observation(m.turn)
    _, _, fault, substituted = judge_play(m, o, 0, None)
    assert fault is not None and fault.kind is FaultKind.MALFORMED and substituted
    assert (fault.detail, fault.received) == ("no card (CARD_UNSPECIFIED or missing)", "card=0")


def test_a_play_with_no_answer_and_no_fault_is_the_substitute_s_alone() -> None:
    """A forfeited seat is asked nothing: the substitute plays for it, with no new fault."""
    m = _at_first_lead()
    o = m.observation(m.turn)
    assert judge_play(m, o, None, None) == (substitute_play(3, o), None, None, True)


# -- a trial ----------------------------------------------------------------------------------------------


def test_a_trial_says_what_the_engine_would_refuse_and_applies_nothing() -> None:
    """001: 'The holder of the 2 of clubs must lead it to the first trick': a person told so may answer again."""
    m = _at_first_lead()
    o = m.observation(m.turn)
    tried = trial(DECISIONS[Phase.PLAY], m, o)
    other = next(c for c in o.hand.cards if c != TWO_OF_CLUBS)
    refused = tried(_value(other))
    assert isinstance(refused, CardNotLegalError) and refused.rule == "2♣ must lead the first trick"
    assert isinstance(tried(0), Fault)
    assert tried(_value(TWO_OF_CLUBS)) is None
    assert (m.turn, m.observation(o.seat).hand) == (o.seat, o.hand)  # nothing was played
