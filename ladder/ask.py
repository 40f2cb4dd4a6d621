"""A recorded decision asked again (``hearts ask``): the request the referee sent at one step of a match,
rebuilt from the match's record, sent to a bot, and the bot's answer judged beside the recorded one.

``steps(record)`` re-plays the record through the engine's checked methods (``Decision.apply``, the
referee's own: ``Match.play``, ``Match.pass_cards``, ...), one decision at a time, in the order the referee
asked them: every seat the engine waits on at once (the passes, the turbo-charges) in seat order, each
observed before any of them is applied, as ``referee.match`` does. A step's view is the engine's
observation of that seat alone: its own cards and the public play, never another hand.

``Step.request()`` is the ``referee.seats.Ask`` the referee made: its view encoded by a ``ViewEncoder`` of
the match's id, the names the bots were told and the seat's budget, with the seat's time bank as it
stood and the request's other fields (``Decision.rest``). ``request().wire()`` is the request's bytes, as
a gRPC seat sends them (tested against the bytes a bot received in a recorded match). The bank is
rebuilt by the referee's own ``Clock``, charged each recorded latency (and emptied by each recorded
timeout) in turn; a record keeps latencies to the microsecond, so a bank that stood within a microsecond
of a whole millisecond could read one millisecond apart.

``ask(seat, step)`` sends the step's request through the seat's own method, as the referee does (a gRPC
seat sends those bytes; an in-process seat hands its bot the view of the same observation), charges the
answer to a copy of the step's clock and judges it with ``referee.judge`` on a copy of the engine at the
step: nothing here decides what is legal.
"""

from __future__ import annotations

import dataclasses
import time
from collections import Counter, defaultdict, deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from hearts.v1 import bot_pb2 as pb
from hearts.v1 import codec
from referee.faults import Fault, describe
from referee.judge import Decision, failed, in_time, judge, judge_play
from referee.match import DECISIONS
from referee.record import FaultKind, FaultRecord, HandRecord, MatchRecord, PlayRecord
from referee.rules import Card, Match, MoonChoice, Observation, Phase, Rules, pass_call
from referee.seats import REFEREE_NAME, Ask, Seat
from referee.settings import Clock, MatchSettings
from referee.untrusted import inert

__all__ = [
    "HANDSHAKE_TIMEOUT_S",
    "Asked",
    "RecordError",
    "Step",
    "answer_text",
    "ask",
    "decision_text",
    "differs",
    "greet",
    "recorded_text",
    "same_decision",
    "step_at",
    "steps",
    "verdict_text",
]

HANDSHAKE_TIMEOUT_S = MatchSettings().handshake_ms / 1000
"""How long the bot may take to answer the handshake: the referee's own default deadline."""


class RecordError(ValueError):
    """A record whose decisions the engine does not replay (a record edited, or of another engine)."""


@dataclass(frozen=True)
class Step:
    """One decision of a recorded match, as the referee asked it.

    ``number`` counts the match's decisions from 0, in the order the referee asked them. ``recorded`` is
    the decision applied (a card, the cards of a pass, charge or discard, a call, a moon choice): the
    bot's answer, or the seeded substitute where ``substituted``; ``fault`` the fault recorded at it.
    ``latency_ms`` is None where nothing was asked (a forfeited seat). ``match`` is the engine at this
    step: in ``steps`` the replay's own, good until the next step is drawn (``step_at`` gives a copy).
    """

    number: int
    seat: int
    name: str  # the seat's bot, as the record names it
    kind: str  # who sat there: "bot" or "human"
    decision: Decision
    observation: Observation
    recorded: Any
    latency_ms: float | None
    substituted: bool
    fault: FaultRecord | None
    match_id: str
    names: tuple[str, ...]  # the names the bots were told, in seat order
    settings: MatchSettings  # the seat's clock (its own, or the match's), as the record keeps it
    clock_known: bool  # False: the record keeps no clock for the seat (stored before the store kept it)
    bank_ms: int  # the seat's time bank when it was asked, as the request says it
    match: Match

    @property
    def hand(self) -> int:
        return self.observation.hand_number

    @property
    def trick(self) -> int | None:
        """The trick it was asked in (plays and discards); None outside trick play."""
        return self.decision.trick(self.observation)

    @property
    def phase(self) -> Phase:
        return self.decision.phase

    @property
    def what(self) -> str:
        """The decision in a word: play, pass, charge, call, discard, moon."""
        return self.decision.judge

    @property
    def asked(self) -> bool:
        """Whether a bot was asked this decision: not a person's, nor a forfeited seat's."""
        return self.kind == "bot" and self.latency_ms is not None

    @property
    def not_asked(self) -> str:
        """Why no bot was asked this decision, in words; empty when one was."""
        if self.kind != "bot":
            return f"seat {self.seat} ({self.name}) is a person's seat: a person decided it, no bot was asked"
        if self.latency_ms is None:
            return (
                f"seat {self.seat} ({self.name}) had forfeited the match: the seeded substitute decided it, "
                "nothing was asked"
            )
        return ""

    def clock(self) -> Clock:
        """The seat's clock as it stood at this step (a new one: charging it changes nothing here)."""
        clock = Clock(self.settings)
        clock.bank = self.bank_ms / 1000
        return clock

    def request(self) -> Ask:
        """The referee's ``Ask`` of this decision: ``request().wire()`` is the request's bytes."""
        budget = int(self.settings.budget_ms)
        views = codec.ViewEncoder(self.match_id, self.names, budget)
        return Ask(self.observation, views, self.bank_ms, self.decision.rest(self.observation))


def _clock_of(record: MatchRecord, seat: int) -> tuple[MatchSettings, bool]:
    s = record.seats[seat]
    if s.budget_ms is None or s.bank_ms is None or s.grace_ms is None:
        return MatchSettings(), False
    return MatchSettings(budget_ms=s.budget_ms, bank_ms=s.bank_ms, grace_ms=s.grace_ms), True


def _cards(texts: Sequence[str]) -> tuple[Card, ...]:
    return tuple(Card.parse(c) for c in texts)


_Recorded = tuple[Any, float | None, bool]  # the decision applied, its latency, whether a substitute made it


def _recorded(phase: Phase, h: HandRecord, seat: int, plays: Iterator[PlayRecord]) -> _Recorded | None:
    """The recorded decision of ``seat`` in ``phase`` of hand ``h``; None where the record stops (an
    aborted match)."""
    if phase is Phase.PLAY:
        p = next(plays, None)
        if p is None:
            return None
        if p.hand != h.hand or p.seat != seat:
            raise RecordError(
                f"the record's next play is seat {p.seat}'s {p.card} in hand {p.hand}; the engine asks seat "
                f"{seat} in hand {h.hand}"
            )
        return Card.parse(p.card), p.latency_ms, p.substituted
    if phase is Phase.PASS:
        given = next((p for p in h.passes if p.seat == seat), None)
        return None if given is None else (_cards(given.cards), given.latency_ms, given.substituted)
    if phase is Phase.CHARGE:
        charge = next((c for c in h.charges if c.seat == seat), None)
        return None if charge is None else (_cards(charge.cards), charge.latency_ms, charge.substituted)
    if phase is Phase.CALL:
        if h.pass_call is None:
            return None
        return h.pass_call, h.pass_call_latency_ms, h.pass_call_substituted
    if phase is Phase.DISCARD:
        if h.discard_seat is None:
            return None
        if h.discard_seat != seat:
            raise RecordError(f"hand {h.hand}: the record's discard is seat {h.discard_seat}'s; the engine asks {seat}")
        return _cards(h.discard), h.discard_latency_ms, h.discard_substituted
    if phase is Phase.MOON:
        if h.moon_choice is None:
            return None
        return MoonChoice(h.moon_choice), h.moon_choice_latency_ms, h.moon_choice_substituted
    raise RecordError(f"the engine is in the {phase.value} phase, which asks no decision")


def steps(record: MatchRecord, names: Sequence[str] | None = None) -> Iterator[Step]:
    """Every decision of ``record``, in the order the referee asked them (see the module's text).

    ``names`` are the names the bots were told, in seat order (default: the record's, which they were
    told unless the match told aliases: an anonymous arena's). A record that stops inside a hand (an
    aborted match) ends with its last decision. ``RecordError`` (or the engine's ``IllegalPlayError``)
    for a record the engine does not replay."""
    rules = Rules.from_dict(record.rules)
    m = Match(rules, record.seed)
    told = tuple(names) if names is not None else tuple(record.bots)
    if len(told) != rules.players or len(record.seats) != rules.players:
        raise RecordError(f"the rules ({rules}) seat {rules.players}; the record names {len(record.seats)} seats")
    clocks = [_clock_of(record, s) for s in range(rules.players)]
    banks = [Clock(settings) for settings, _ in clocks]
    # The faults recorded at a decision, found by what the referee wrote of its request (``describe``).
    faults: defaultdict[tuple[int, str], deque[FaultRecord]] = defaultdict(deque)
    for f in record.faults:
        if f.hand is not None:
            faults[(f.seat, f.sent)].append(f)
    plays = iter(record.plays)
    number = 0
    for h in record.hands:
        if m.over or m.hand_number != h.hand:
            raise RecordError(f"the record's hand {h.hand} is not the engine's next hand ({m.hand_number})")
        while not m.over and m.hand_number == h.hand:
            decision = DECISIONS.get(m.phase)
            if decision is None:
                raise RecordError(f"the engine is in the {m.phase.value} phase, which asks no decision")
            observed = [m.observation(s) for s in m.to_move]  # all at once, before any is applied
            decided = [_recorded(decision.phase, h, o.seat, plays) for o in observed]
            if any(d is None for d in decided):
                return  # the record stops here
            for o, d in zip(observed, decided):
                assert d is not None
                seat = o.seat
                queue = faults.get((seat, describe(decision.rpc, o)))
                fault = queue.popleft() if queue else None
                settings, known = clocks[seat]
                yield Step(
                    number=number,
                    seat=seat,
                    name=record.seats[seat].bot,
                    kind=record.seats[seat].kind,
                    decision=decision,
                    observation=o,
                    recorded=d[0],
                    latency_ms=d[1],
                    substituted=d[2],
                    fault=fault,
                    match_id=record.match_id,
                    names=told,
                    settings=settings,
                    clock_known=known,
                    bank_ms=int(banks[seat].bank * 1000),
                    match=m,
                )
                number += 1
                latency = d[1]
                if latency is not None:  # charged as the referee charged it (``judge.in_time``, ``judge.failed``)
                    banks[seat].charge(latency / 1000)
                    if fault is not None and fault.kind is FaultKind.TIMEOUT:
                        banks[seat].bank = 0.0
            for o, d in zip(observed, decided):
                assert d is not None
                decision.apply(m, o.seat, d[0])


def step_at(record: MatchRecord, number: int, names: Sequence[str] | None = None) -> tuple[Step | None, int]:
    """Step ``number`` of ``record`` (its engine a copy, its own to keep) and how many steps the record
    has; (None, the count) when it has no such step."""
    found: Step | None = None
    count = 0
    for step in steps(record, names):
        if step.number == number:
            found = dataclasses.replace(step, match=step.match.clone())
        count += 1
    return found, count


# -- asking a bot ----------------------------------------------------------------------------------


async def greet(seat: Seat, timeout: float = HANDSHAKE_TIMEOUT_S) -> pb.HandshakeResponse:
    """The referee's handshake with ``seat`` (its request, its deadline): the bot's reply."""
    return await seat.handshake(codec.handshake_request(REFEREE_NAME), timeout)


@dataclass(frozen=True)
class Asked:
    """A bot's answer to a step, as the referee would have judged it.

    ``answer`` is the raw answer (wire values, as a seat returns them; None when the call brought none),
    ``latency_ms`` its time as the referee measures it. ``value`` is the decision the referee would have
    applied: the bot's, or the seeded substitute (``substituted``) when ``fault`` refused it, or the
    do-nothing answer of an optional RPC the bot does not implement (``defaulted``).
    """

    answer: object
    latency_ms: float
    value: Any
    fault: Fault | None
    substituted: bool
    defaulted: bool

    @property
    def stands(self) -> bool:
        """Whether the referee would have let the answer stand (legal, in time, well formed)."""
        return self.fault is None and not self.substituted


async def ask(seat: Seat, step: Step, time_source: Callable[[], float] = time.perf_counter) -> Asked:
    """Ask ``seat`` ``step``'s decision: its request through the seat's own method, under the step's
    deadline (budget, the bank left then, grace), charged to a copy of the step's clock, judged by
    ``referee.judge`` on a copy of the engine at the step (``step.match`` must still be at the step)."""
    decision = step.decision
    clock = step.clock()
    request = step.request()
    method = getattr(seat, decision.method)
    t0 = time_source()
    raw: object = None
    answer: object
    latency: float
    fault: Fault | None
    try:
        raw = await method(request, clock.deadline())
    except Exception as e:
        answer, latency, fault = failed(clock, e, time_source() - t0)
    else:
        answer, latency, fault = in_time(clock, raw, time_source() - t0)
    engine = step.match.clone()
    if decision.phase is Phase.PLAY:
        value, _trick, fault, substituted = judge_play(engine, step.observation, answer, fault)
        defaulted = False
    else:
        value, fault, substituted, defaulted = judge(decision, engine, step.observation, answer, fault)
    return Asked(raw, latency, value, fault, substituted, defaulted)


# -- the decisions, compared and shown --------------------------------------------------------------


def _ordered(step: Step) -> bool:
    """Whether the order of a pass's cards is part of the decision: the engine sends the k-th card of a
    scatter or a called split pass its own way (``Hand.exchange``); any other pass, charge or discard is
    a set of cards."""
    return step.phase is Phase.PASS and step.observation.pass_direction in ("scatter", "split")


def same_decision(step: Step, value: Any) -> bool:
    """Whether ``value`` (a decision as the judge applies it) is the step's recorded decision: the same
    card, the same cards (in the same order where the order sends them apart), the same call as the
    engine reads it (``pass_call``), the same moon choice."""
    recorded = step.recorded
    phase = step.phase
    if phase is Phase.CALL:
        rules = step.observation.rules
        try:
            return pass_call(rules.players, rules.pass_count, value) == pass_call(
                rules.players, rules.pass_count, recorded
            )
        except ValueError:
            return False
    if phase in (Phase.PASS, Phase.CHARGE, Phase.DISCARD):
        mine, theirs = tuple(value), tuple(recorded)
        return mine == theirs if _ordered(step) else Counter(mine) == Counter(theirs)
    return bool(value == recorded)


def decision_text(step: Step, value: Any) -> str:
    """A decision as a person reads it: ``Q♠``, ``A♠ K♠ Q♥``, ``none``, ``left``, ``1 1 3``, ``add-to-others``."""
    phase = step.phase
    if phase is Phase.PLAY:
        return str(value.symbol) if isinstance(value, Card) else str(value)
    if phase in (Phase.PASS, Phase.CHARGE, Phase.DISCARD):
        cards = " ".join(c.symbol if isinstance(c, Card) else str(c) for c in value)
        if cards:
            return cards
        return "none (passed on)" if phase is Phase.PASS else "none"
    if phase is Phase.MOON:
        return str(value.value) if isinstance(value, MoonChoice) else str(value)
    if phase is Phase.CALL:
        if isinstance(value, str):
            return value
        return " ".join(map(str, value))
    return str(value)


def recorded_text(step: Step) -> str:
    """The recorded decision in words, saying where the referee's seeded substitute made it."""
    text = decision_text(step, step.recorded)
    if step.substituted and step.latency_ms is None:
        return f"{text} (the seeded substitute: the seat had forfeited)"
    if step.substituted:
        why = f": {step.fault.kind.value}, {inert(step.fault.detail, 200)}" if step.fault is not None else ""
        return f"{text} (the seeded substitute: the bot's answer was refused{why})"
    return text


def answer_text(step: Step, asked: Asked) -> str:
    """The bot's answer: the decision it names, or, refused, what it sent (inert: a bot's text)."""
    if asked.stands or asked.defaulted:
        return decision_text(step, asked.value)
    if asked.answer is None:
        return "no answer"
    try:
        return inert(step.decision.show(asked.answer), 200)
    except Exception:
        return inert(repr(asked.answer), 200)


def verdict_text(step: Step, asked: Asked) -> str:
    """The referee's judgement of the bot's answer, in words."""
    if asked.defaulted:
        return f"it does not implement {step.decision.rpc}: {step.decision.default_words} (no fault)"
    if asked.stands:
        return "legal: the referee would have let it stand"
    assert asked.fault is not None
    fault = asked.fault
    return (
        f"refused: {fault.kind.value}, {inert(fault.detail, 300)}; "
        f"the seeded substitute {decision_text(step, asked.value)} would have stood"
    )


def differs(step: Step, asked: Asked) -> bool:
    """Whether the answer differs from the recorded decision: another decision, or one refused."""
    return not asked.stands or not same_decision(step, asked.value)
