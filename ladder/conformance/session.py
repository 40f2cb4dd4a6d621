"""A validation's session: one clock, one channel and the checks so far, and each position asked and
judged as the referee asks and judges a match's decisions (under a ``Guise``, as a tournament's)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from google.protobuf import json_format

from hearts.v1 import bot_pb2 as pb
from hearts.v1 import codec
from ladder.bots.launcher import DEFAULT_STARTUP_TIMEOUT
from ladder.conformance.positions import Position
from ladder.conformance.report import BotInfo, Check, Outcome
from ladder.sandbox import Isolation
from referee.faults import MAX_FAULTS, Fault, describe
from referee.judge import Decision, failed, in_time, judge
from referee.match import DECISIONS, Clock, MatchSettings
from referee.record import FaultKind
from referee.rules import Observation, SeededRandom
from referee.seats import Ask, GrpcSeat

# -- what the bot is told ------------------------------------------------------------------------


@dataclass(frozen=True)
class Guise:
    """How a validation looks to the bot: as a tournament's matches rather than its own. A bot that
    could tell would answer well under validation and otherwise after. ``match_id()`` gives each
    match it is asked about a new id, of the tournament's shape; at each table it is ``name`` (as
    the tournament names it) among seats named from ``others`` (its other bots'); ``seed`` deals
    every position and the complete match (secret: a bot cannot know the cards in advance). The
    complete match is played to the rules' own target, the bot in a seat ``seed`` draws, and server
    reflection, which no match asks, is not asked."""

    match_id: Callable[[], str]
    name: str
    others: Sequence[str]
    seed: int


# -- the session: one clock, one channel, the checks so far ----------------------------------------


class Stop(Exception):
    """The bot is asked nothing more; the reason is the skipped row's detail."""


@dataclass
class _Asked:
    """One request and its judged answer: ``value`` is the decision the engine accepted, else None."""

    decision: Decision
    observation: Observation
    request: bytes
    answer: Any
    value: Any
    fault: Fault | None
    latency_ms: float
    defaulted: bool = False  # an optional RPC the bot does not implement: its do-nothing answer stood


@dataclass
class Session:
    address: str
    settings: MatchSettings
    on_check: Callable[[Check], None] | None
    diagnose: Callable[[], Awaitable[str | None]] | None = None
    vouch: Callable[[], Awaitable[str | None]] | None = None
    isolation: Isolation | None = None
    startup_s: float = DEFAULT_STARTUP_TIMEOUT  # how long the bot may take to report SERVING
    seat: GrpcSeat = field(init=False)
    clock: Clock = field(init=False)
    checks: list[Check] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    timeouts: int = 0
    bot: BotInfo | None = None
    guise: Guise | None = None
    tables: dict[tuple[str, int], tuple[str, list[str]]] = field(default_factory=dict)  # the guise's

    def __post_init__(self) -> None:
        self.seat = GrpcSeat(
            self.address, "validate", diagnose=self.diagnose, vouch=self.vouch, isolation=self.isolation
        )
        self.clock = Clock(self.settings)

    def seed(self, default: int) -> int:
        """A deal's seed: ``default``, or with a guise one drawn from its secret seed."""
        return default if self.guise is None else self.guise.seed + default

    def table(self, match_id: str, players: int, seat: int) -> tuple[str, list[str]]:
        """The match id and the names (in seat order) the bot is told for the check's match
        ``match_id``, with the bot in ``seat``: the check's own, or the guise's, one per match and
        seat (a check that asks the bot every seat of a match asks as many matches: a tournament
        seats a bot once at a table)."""
        if self.guise is None:
            return match_id, [f"player {s}" for s in range(players)]
        key = (match_id, seat)
        if key not in self.tables:
            others = list(dict.fromkeys(n for n in self.guise.others if n != self.guise.name))
            SeededRandom(self.guise.seed, "names", match_id, seat).shuffle(others)
            self.tables[key] = (self.guise.match_id(), others)
        disguised, others = self.tables[key]
        names = [others[i % len(others)] if others else self.guise.name for i in range(players - 1)]
        names.insert(seat, self.guise.name)
        return disguised, names

    @property
    def budget_ms(self) -> int:
        return int(self.settings.budget_ms)

    def add(self, check: Check) -> None:
        self.checks.append(check)
        if self.on_check is not None:
            self.on_check(check)
        if check.fault is FaultKind.TRANSPORT:
            raise Stop("not run: the bot could not be reached (a match forfeits it at once)")
        if check.fault is FaultKind.TIMEOUT:
            self.timeouts += 1
            if self.timeouts >= MAX_FAULTS:
                raise Stop(f"not run: the bot timed out {self.timeouts} times (a match forfeits it after {MAX_FAULTS})")

    async def ask(self, position: Position, match_id: str, *, clock: Clock | None = None) -> _Asked:
        """Ask the position's decision as the referee does (``referee.match._Referee._ask``) and judge
        the answer as it does (``referee.judge``): its time on ``clock``, what it says on a copy of the
        match, so the request's own match is never changed."""
        clock = clock or self.clock
        decision = DECISIONS[position.phase]
        obs = position.observation()
        match_id, names = self.table(match_id, position.rules.players, position.seat)
        ask = Ask(obs, codec.ViewEncoder(match_id, names, self.budget_ms), int(clock.bank * 1000), decision.rest(obs))
        request = ask.wire()
        t0 = time.perf_counter()
        try:
            answer = await getattr(self.seat, decision.method)(ask, clock.deadline())
        except Exception as e:
            elapsed = time.perf_counter() - t0
            _, _, fault = failed(clock, e, elapsed)
            self.latencies.append(elapsed * 1000)
            return _judged(decision, position, obs, request, None, fault, elapsed * 1000)
        elapsed = time.perf_counter() - t0
        self.latencies.append(elapsed * 1000)
        _, _, late = in_time(clock, answer, elapsed)
        if late is not None:  # refused for its time: what it says is not judged
            return _Asked(decision, obs, request, answer, None, late, elapsed * 1000)
        return _judged(decision, position, obs, request, answer, None, elapsed * 1000)


def _judged(
    decision: Decision,
    position: Position,
    obs: Observation,
    request: bytes,
    answer: Any,
    fault: Fault | None,
    latency_ms: float,
) -> _Asked:
    """The referee's own judgement of an answer or a failure (``referee.judge.judge``), on a copy of
    the position's match: the decision the engine accepted (or the do-nothing answer of an optional RPC
    the bot does not implement), else None and the fault."""
    value, fault, substituted, defaulted = judge(decision, position.match.clone(), obs, answer, fault)
    return _Asked(decision, obs, request, answer, None if substituted else value, fault, latency_ms, defaulted)


def _request_json(decision: Decision, request: bytes) -> dict[str, Any]:
    message = getattr(pb, f"{decision.rpc}Request").FromString(request)
    return json_format.MessageToDict(message)


def asked_check(kind: str, name: str, position: Position, asked: _Asked, passed: str) -> Check:
    """The check of one judged request: pass with ``passed`` as its detail, or fail with the evidence."""
    sent = describe(asked.decision.rpc, asked.observation)
    cites = str(position.cites) if position.cites is not None else ""
    rules = str(position.rules)
    if asked.fault is None and asked.defaulted:
        d = asked.decision
        return Check(
            kind,
            name,
            Outcome.WARN,
            f"the bot does not implement {d.rpc}: the referee takes its do-nothing answer ({d.default_words}), "
            f"noted once a match, not a fault ({d.rpc} is optional)",
            rules,
            request=sent,
            cites=cites,
        )
    if asked.fault is None:
        return Check(kind, name, Outcome.PASS, passed, rules, request=sent, received=shown(asked), cites=cites)
    return Check(
        kind,
        name,
        Outcome.FAIL,
        asked.fault.detail,
        rules,
        fault=asked.fault.kind,
        request=sent,
        request_json=_request_json(asked.decision, asked.request),
        received=asked.fault.received,
        cites=cites,
    )


def shown(asked: _Asked) -> str:
    return asked.decision.show(asked.answer) if asked.answer is not None else ""
