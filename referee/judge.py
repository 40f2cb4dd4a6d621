"""The judge: every answer a seat gives is judged here, the same way on every path that asks one.

An answer meets the judge twice. First its time, charged to the seat's clock (``in_time``): an answer
that overdrew the bank is refused as a timeout; a call that brought no answer is the fault its seat
observed, charged too (``failed``). Then what it says: a decision's answer (``judge``) and a play's
(``judge_play``, every play's path) are decoded, then handed to the engine, whose own check decides
what is legal; its refusal (an ``IllegalPlayError``) names the fault's kind. The judge never works out
a legal card itself. With no answer, or a refused one, the seeded substitute stands in. ``trial`` is
the same judgement on a copy of the match, for a seat that may take an answer back (a person).

The referee's paths (``referee.match``) and ``hearts validate`` call these; nothing else judges an answer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from referee.faults import Fault, card_of_answer, fault_from_error, fault_from_rejection, substitute_play
from referee.record import FaultKind, MatchRecord
from referee.rules import Card, IllegalPlayError, Match, Observation, Phase, Trick
from referee.rules.cards import DECK
from referee.seats import Trial
from referee.settings import Clock

T = TypeVar("T")


# -- time: charged to the seat's clock -----------------------------------------------------------


def _ms(elapsed: float) -> float:
    """A latency in ms as the record keeps it: to the microsecond, the clock's own resolution here
    (the digits beyond are the timer's noise), so that it reads back exact from the store's integers."""
    return int(elapsed * 1_000_000 + 0.5) / 1000


def failed(clock: Clock, error: Exception, elapsed: float) -> tuple[None, float, Fault]:
    """A call that brought no answer: its fault, charged to the seat's clock (a timeout empties the
    bank; any other failure costs the bot its time as an answer would). Returns (no answer, latency ms, fault)."""
    fault = fault_from_error(error)
    if fault.kind is FaultKind.TIMEOUT:
        clock.bank = 0.0
    else:
        clock.charge(elapsed)
    return None, _ms(elapsed), fault


def in_time(clock: Clock, answer: T, elapsed: float) -> tuple[T | None, float, Fault | None]:
    """An answer that took ``elapsed`` seconds, charged to the clock: refused (a timeout) when it
    overdrew the bank. Within the budget and its grace there is nothing to charge. Returns (the answer,
    or None when refused; latency ms; the fault, if any)."""
    if elapsed > clock.budget + clock.grace:
        allowed = clock.deadline()
        if not clock.charge(elapsed):
            return None, _ms(elapsed), _late(answer, elapsed, allowed)
    return answer, _ms(elapsed), None


def _late(answer: object, elapsed: float, allowed: float) -> Fault:
    """The timeout of an answer that came after its deadline (it is refused)."""
    return Fault(
        FaultKind.TIMEOUT,
        f"answered after {elapsed * 1000:.0f} ms; {allowed * 1000:.0f} ms allowed",
        f"{answer!r} (too late)"[:300],
    )


# -- what an answer says: the engine's own check --------------------------------------------------


@dataclass(frozen=True)
class Decision:
    """One kind of decision, described once; ``_Referee._decide`` runs every kind through the same
    named stages: observe, ask, judge (with the engine's own check, as it applies the answer),
    substitute, record the fault, record the decision.

    ``rest`` gives the request's fields besides the view, serialised; ``decode`` reads the answer's
    wire values (a ``Fault`` for what is no card or no choice); ``show`` is the answer's text for a
    fault record; ``apply`` hands a decision to the engine; ``substitute`` is the seeded stand-in;
    ``instead`` says in words what the referee did instead (after the decision was applied);
    ``trick`` is the trick a fault names (None outside trick play); ``record`` writes the decision
    into the match record. ``needs`` names the rule option that asks this RPC of bots written before it.
    ``default`` is the do-nothing answer of an optional decision (None: a required one), what stands when
    the bot does not implement the RPC: always legal, and what the rules would do without the option that
    asks it, so a bot could give it itself; ``default_words`` says it for the match's note.
    """

    phase: Phase
    rpc: str
    method: str
    judge: str
    rest: Callable[[Observation], bytes]
    decode: Callable[[Any, Observation], Any]
    show: Callable[[Any], str]
    apply: Callable[[Match, int, Any], object]
    substitute: Callable[[int, Observation], Any]
    instead: Callable[[Match, Any], str]
    trick: Callable[[Observation], int | None]
    record: Callable[[MatchRecord, Match, Observation, Any, float | None, bool], None]
    needs: str = ""
    default: Callable[[Observation], Any] | None = None
    default_words: str = ""


def judge(
    decision: Decision, m: Match, o: Observation, answer: object, fault: Fault | None
) -> tuple[Any, Fault | None, bool, bool]:
    """The judge and substitute stages of a decision (every decision of a match but plays, which
    ``judge_play`` writes out, and every answer of ``hearts validate``): decoded, then applied with the
    engine's own check. An RPC the bot does not implement is the do-nothing answer of an optional
    decision (``Decision.default``), no fault; of a required one, the fault, naming the rule that asks
    it. No answer, or a refused one, gets the seeded substitute. Returns (the decision applied, the
    fault if any, whether the substitute stood in, whether the do-nothing answer did)."""
    if fault is not None and fault.unimplemented:
        if decision.default is not None:
            value = decision.default(o)
            decision.apply(m, o.seat, value)
            return value, None, False, True
        if decision.needs:
            fault = Fault(
                fault.kind,
                f"the bot does not implement {decision.rpc}, which {decision.needs} needs (see docs/protocol.md)",
                fault.received,
                unimplemented=True,
            )
    if answer is not None:
        try:
            value = decision.decode(answer, o)
            decision.apply(m, o.seat, value)
            return value, fault, False, False
        except Fault as f:
            fault = f
        except IllegalPlayError as e:
            fault = fault_from_rejection(e, decision.judge, decision.show(answer))
    value = decision.substitute(m.seed, o)
    decision.apply(m, o.seat, value)
    return value, fault, True, False


def judge_play(
    m: Match, o: Observation, answer: Any, fault: Fault | None
) -> tuple[Card, Trick | None, Fault | None, bool]:
    """``judge`` of a play, written out (every play's path): the card the answer names, played with
    the engine's own check, else the seeded substitute. Returns (the card played, the trick it
    completed if any, the fault if any, whether the substitute stood in)."""
    if answer is not None:
        card = None
        try:
            # card_of_answer, its common case written out: a card's value
            card = DECK[answer - 1] if type(answer) is int and 0 < answer < 53 else card_of_answer(answer)
            return card, m.play(card, o.seat), fault, False
        except Fault as f:
            fault = f
        except IllegalPlayError as e:
            fault = fault_from_rejection(e, "play", f"card={card}")
    card = substitute_play(m.seed, o)
    return card, m.play(card, o.seat), fault, True


def trial(decision: Decision, m: Match, o: Observation) -> Trial:
    """How this decision's answer would be judged (``Ask.trial``): the judge stage, run on a copy of
    the match as it is when the answer comes, so nothing is applied. Its refusals speak of the seat's
    own cards and the public play alone, as any fault record of the seat does."""

    def tried(answer: object) -> Exception | None:
        try:
            decision.apply(m.clone(), o.seat, decision.decode(answer, o))
        except (Fault, IllegalPlayError) as e:
            return e
        return None

    return tried
