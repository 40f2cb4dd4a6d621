"""Play one match among seated bots: clocks, the fault policy, and the record.

``play_match(seats, rules, seed)`` is the whole API. It asks each seat for its decisions (passes
and turbo-charges of all seats at once, plays in turn, a moon choice when the engine asks), judges every answer
(``referee.judge``), plays a seeded substitute for any faulty one, and always completes the match. It returns a
``MatchRecord``; it never touches a database (ladder → referee → rules).
"""

from __future__ import annotations

import asyncio
import collections
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol, TypeVar

from hearts.v1 import bot_pb2 as pb
from hearts.v1 import codec
from referee.faults import (
    FORFEIT_AT_ONCE,
    FORFEIT_REASONS,
    Fault,
    answer_text,
    call_of_answer,
    card_of_answer,
    card_text,
    cards_of_answer,
    cards_text,
    describe,
    fault_from_error,
    moon_of_answer,
    safe_repr,
    substitute_call,
    substitute_charge,
    substitute_discard,
    substitute_moon,
    substitute_pass,
    substitute_play,
)
from referee.in_flight import InFlight, semaphores
from referee.isolation import Isolation
from referee.judge import Decision, failed, in_time, judge, judge_play, trial
from referee.record import (
    ChargeRecord,
    FaultKind,
    FaultRecord,
    ForfeitReason,
    HandRecord,
    MatchRecord,
    MatchStatus,
    NoteKind,
    NoteRecord,
    PassRecord,
    PlayRecord,
    SeatRecord,
    utc_now,
)
from referee.rules import (
    Card,
    Match,
    MoonChoice,
    Observation,
    Phase,
    Rules,
    Trick,
    places_of,
)
from referee.rules.cards import card_set
from referee.seats import (
    NO_HOOKS,
    REFEREE_NAME,
    Ask,
    GrpcSeat,
    Seat,
    SeatHooks,
    SeatUnreachable,
    reach,
    unreachable_message,
)
from referee.settings import Clock, MatchSettings, TimeControl

T = TypeVar("T")
_PLAY = Phase.PLAY  # a module global: cheaper than the enum's class attribute on the hot path
_perf_counter = time.perf_counter


NAME_LIMIT = 64
"""Characters kept of a bot's handshake name, where it names its seat (no seat name was given)."""

DEAL_HOLD_S = 3600.0
"""The longest a seat may hold the next deal between hands (``hold_deal``: a person reading the scores)."""


class MatchWatcher(Protocol):
    """Told of a match as its record grows, in this process (the arena's live page): each call comes
    right after the record has it, on the match's own loop, and must return at once. A watcher that
    raises is dropped for the rest of the match; it never changes the match."""

    def began(self, record: MatchRecord, names: Sequence[str]) -> None:
        """The handshakes are done: ``names`` are the seats' ladder names, in seat order."""

    def played(self, record: MatchRecord, trick: Trick | None) -> None:
        """``record.plays[-1]`` was just played; ``trick`` is the trick it completed, as the engine
        gives it (its winner), or None."""

    def scored(self, record: MatchRecord) -> None:
        """``record.hands[-1]`` was just scored by the engine (points taken, score, totals)."""


# -- the referee ---------------------------------------------------------------------------------


def _record_pass(
    rec: MatchRecord, m: Match, o: Observation, cards: Any, latency: float | None, substituted: bool
) -> None:
    rec.hands[-1].passes.append(
        PassRecord(
            hand=o.hand_number, seat=o.seat, cards=tuple(map(str, cards)), latency_ms=latency, substituted=substituted
        )
    )


def _record_play(
    rec: MatchRecord, m: Match, o: Observation, card: Any, latency: float | None, substituted: bool
) -> None:
    rec.plays.append(PlayRecord(o.hand_number, len(o.tricks), o.seat, str(card), latency, substituted))


def _call_text(m: Match) -> str:
    hand = m.hand
    return " ".join(map(str, hand.offsets)) if hand.direction == "split" else hand.direction


def _record_call(
    rec: MatchRecord, m: Match, o: Observation, call: Any, latency: float | None, substituted: bool
) -> None:
    h = rec.hands[-1]
    h.pass_call, h.pass_call_substituted, h.pass_call_latency_ms = _call_text(m), substituted, latency
    h.pass_direction = m.hand.direction


def _record_discard(
    rec: MatchRecord, m: Match, o: Observation, cards: Any, latency: float | None, substituted: bool
) -> None:
    h = rec.hands[-1]
    h.discard_seat, h.discard = o.seat, tuple(map(str, cards))
    h.discard_substituted, h.discard_latency_ms = substituted, latency


def _record_charge(
    rec: MatchRecord, m: Match, o: Observation, cards: Any, latency: float | None, substituted: bool
) -> None:
    rec.hands[-1].charges.append(
        ChargeRecord(
            hand=o.hand_number, seat=o.seat, cards=tuple(map(str, cards)), latency_ms=latency, substituted=substituted
        )
    )


def _record_moon(
    rec: MatchRecord, m: Match, o: Observation, choice: Any, latency: float | None, substituted: bool
) -> None:
    h = rec.hands[-1]  # still this hand's: the next hand's record opens after the decision
    h.moon_choice_substituted, h.moon_choice_latency_ms = substituted, latency


def _moon_rest(o: Observation) -> bytes:
    # The sun (every trick) is public: every trick of the hand was won by the shooter.
    sun = bool(o.rules.sun_points) and all(t.winner == o.seat for t in o.tricks)
    return pb.ChooseMoonRequest(moon_points=o.moon_points, sun=sun).SerializeToString()


def _no_rest(o: Observation) -> bytes:
    return b""


def _no_trick(o: Observation) -> None:
    return None


DECISIONS: dict[Phase, Decision] = {
    d.phase: d
    for d in (
        Decision(
            Phase.PASS,
            "PassCards",
            "pass_cards",
            "pass",
            _no_rest,
            lambda a, o: cards_of_answer(a, "pass", o, FaultKind.WRONG_PASS_COUNT),
            answer_text,
            lambda m, s, cards: m.pass_cards(s, cards),
            substitute_pass,
            lambda m, cards: f"passed the seeded substitute {cards_text(cards)}",
            _no_trick,
            _record_pass,
        ),
        Decision(
            Phase.PLAY,
            "PlayCard",
            "play_card",
            "play",
            _no_rest,
            lambda a, o: card_of_answer(a),
            lambda a: f"card={card_text(a)}",
            lambda m, s, card: m.play(card, s),
            substitute_play,
            lambda m, card: f"played the seeded substitute {card}",
            lambda o: len(o.tricks),
            _record_play,
        ),
        Decision(
            Phase.CALL,
            "CallPass",
            "call_pass",
            "call",
            _no_rest,
            call_of_answer,
            safe_repr,
            lambda m, s, call: m.call_pass(s, call),
            substitute_call,
            lambda m, call: f"called the seeded substitute {_call_text(m)}",
            _no_trick,
            _record_call,
            needs="pass_cycle=call",
        ),
        Decision(
            Phase.DISCARD,
            "DiscardCards",
            "discard_cards",
            "discard",
            lambda o: pb.DiscardCardsRequest(count=len(o.kitty)).SerializeToString(),
            lambda a, o: cards_of_answer(a, "discard", o, FaultKind.WRONG_DISCARD),
            answer_text,
            lambda m, s, cards: m.discard(s, cards),
            substitute_discard,
            lambda m, cards: f"discarded the seeded substitute {cards_text(cards)}",
            lambda o: len(o.tricks),
            _record_discard,
            needs="kitty_discard=true",
            # As if the kitty went to the taker's tricks unseen (kitty_discard=false): the kitty's own cards.
            default=lambda o: tuple(o.kitty.cards),
            default_words="discarded the cards the kitty brought (as if they went to its tricks unseen)",
        ),
        Decision(
            Phase.CHARGE,
            "ChargeCards",
            "charge_cards",
            "charge",
            _no_rest,
            lambda a, o: cards_of_answer(a, "charge", o, FaultKind.WRONG_CHARGE),
            answer_text,
            lambda m, s, cards: m.charge(s, cards),
            substitute_charge,
            lambda m, cards: "charged nothing (the seeded substitute)",
            _no_trick,
            _record_charge,
            needs="turbo_charging=true",
            default=lambda o: (),  # 002 'each player may turbo-charge': charging is a choice
            default_words="charged nothing",
        ),
        Decision(
            Phase.MOON,
            "ChooseMoon",
            "choose_moon",
            "moon",
            _moon_rest,
            lambda a, o: moon_of_answer(a),
            str,
            lambda m, s, choice: m.choose_moon(s, choice),
            substitute_moon,
            lambda m, choice: f"chose the seeded substitute {choice.value}",
            _no_trick,
            _record_moon,
            default=lambda o: MoonChoice.ADD_TO_OTHERS,  # the moon's scoring when nobody chooses (001)
            default_words="the moon scored add-to-others (the usual scoring)",
        ),
    )
}
"""Every decision a bot is asked, by the engine phase that asks it."""


class _SeatState:
    __slots__ = (
        "budget_ms",
        "clock",
        "faults",
        "forfeit",
        "forfeit_reason",
        "hold_deal",
        "kind",
        "notifier",
        "answers_now",
        "notify_now",
        "play_now",
        "seat",
        "time_control",
        "trials",
        "views",
        "wants_notify",
    )

    def __init__(self, seat: Seat, settings: MatchSettings, clock: TimeControl | None = None) -> None:
        self.seat = seat
        # What the seat offers besides the Seat interface, as ``SeatHooks`` declares it: a person's
        # kind, clock, trials and held deals; an in-process bot's synchronous answers.
        hooks = seat if isinstance(seat, SeatHooks) else NO_HOOKS
        self.kind = hooks.kind
        # A seat with its own time control keeps its own clock, and its views say its own budget;
        # every other seat has the match's. The caller's word for this match (``clock``: a bot's own,
        # over the match's) comes before the seat's own (a person's).
        own = clock.over(settings) if clock is not None else hooks.time_control
        self.time_control = own if own is not None else settings  # what the record says it played under
        self.budget_ms: int | None = int(own.budget_ms) if own is not None else None
        self.views: codec.ViewEncoder | None = None  # set once the names are known (the handshakes)
        self.trials = hooks.tries_answers
        self.hold_deal = hooks.hold_deal
        # Answered synchronously: no coroutine and no in-flight slot (it never waits on anything).
        self.answers_now = hooks.answers_now
        # The play loop calls play_now only for a seat whose play_card is answered synchronously.
        self.play_now = hooks.play_now if "play_card" in self.answers_now else None
        self.notify_now = hooks.notify_now
        self.clock = Clock(own if own is not None else settings)
        self.faults = 0
        self.forfeit = False
        self.forfeit_reason: ForfeitReason | None = None
        self.wants_notify = False
        self.notifier: _Notifier | None = None


class _Notifier:
    """One seat's notifications, sent in order by one background task.

    At most ``MAX_PENDING`` wait; beyond that they are dropped (a listener that cannot keep up
    loses courtesy messages, never the match's pace). ``close`` waits one deadline for the rest.
    """

    MAX_PENDING = 64

    def __init__(self, seat: Seat, timeout: float, in_flight: InFlight) -> None:
        # ``in_flight``: the loop's bound on notifications, never the decisions' one (see referee.in_flight).
        self.seat = seat
        self.timeout = timeout
        self.in_flight = in_flight
        self.pending: collections.deque[pb.NotifyRequest] = collections.deque()
        self.task: asyncio.Task[None] | None = None
        self.dropped = 0

    def send(self, request: pb.NotifyRequest) -> None:
        if len(self.pending) >= self.MAX_PENDING:
            self.dropped += 1
            return
        self.pending.append(request)
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self._drain())

    async def _drain(self) -> None:
        while self.pending:
            request = self.pending.popleft()
            try:
                async with self.in_flight:
                    await self.seat.notify(request, self.timeout)
            except Exception:
                pass

    async def close(self) -> None:
        if self.task is None or self.task.done():
            return
        try:
            await asyncio.wait_for(asyncio.shield(self.task), self.timeout * 2)
        except TimeoutError:
            self.pending.clear()
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)


class _Referee:
    def __init__(
        self,
        seats: Sequence[Seat],
        rules: Rules,
        seed: int,
        settings: MatchSettings,
        match_id: str,
        names: Sequence[str] | None,
        tournament_id: int | None,
        time_source: Callable[[], float],
        time_controls: Sequence[TimeControl | None] | None = None,
    ) -> None:
        if len(seats) != rules.players:
            raise ValueError(f"the rules ({rules.name}) need {rules.players} seats, not {len(seats)}")
        if names is not None and len(names) != len(seats):
            raise ValueError(f"{len(names)} names for {len(seats)} seats")
        if time_controls is not None and len(time_controls) != len(seats):
            raise ValueError(f"{len(time_controls)} time controls for {len(seats)} seats")
        self.rules = rules
        self.seed = seed
        self.settings = settings
        self.match_id = match_id
        self.time_source = time_source  # what the bots' thinking is charged by
        self.names = list(names) if names is not None else [""] * len(seats)
        clocks = time_controls if time_controls is not None else [None] * len(seats)
        self.states = [_SeatState(s, settings, c) for s, c in zip(seats, clocks)]
        self.match = Match(rules, seed)
        self.record = MatchRecord(
            match_id=match_id, seed=seed, rules=rules.to_dict(), seats=[], tournament_id=tournament_id
        )
        self.budget_ms = int(settings.budget_ms)
        self.fast_play = True  # plays by the written-out path (False: the general one, to test they agree)
        self.listening = False  # whether any seat asked for notifications (set by the handshakes)
        self.shown_names: list[str] | None = None  # the names the bots are told (None: self.names)
        self.noted: set[tuple[int, str]] = set()  # (seat, RPC) of each optional RPC noted as unimplemented
        self.holders = [st for st in self.states if st.hold_deal is not None]  # who may hold the next deal
        self.watcher: MatchWatcher | None = None

    def _watch(self, call: Callable[[MatchWatcher], None]) -> None:
        watcher = self.watcher
        if watcher is None:
            return
        try:
            call(watcher)
        except Exception:  # an onlooker's failure is never the match's: it stops watching
            self.watcher = None

    def _watch_play(self, trick: Trick | None) -> None:
        record = self.record
        self._watch(lambda w: w.played(record, trick))

    # -- asking ----------------------------------------------------------------------------------

    async def _ask(
        self, s: int, method: Callable[[Ask, float], Awaitable[T]], ask: Ask
    ) -> tuple[T | None, float | None, Fault | None]:
        """The ask stage: seat ``s``'s answer under its clock: (answer, latency ms, fault).

        ``method`` is the seat's bound method, called as ``method(ask, deadline)``.
        """
        st = self.states[s]
        if st.forfeit:
            return None, None, None
        in_flight = self.in_flight
        if not in_flight.take():
            await in_flight.wait()
        clock = st.clock
        # The clock starts once the call can go out: the referee's own queue is not the bot's time.
        time_source = self.time_source
        t0 = time_source()
        held = in_flight.hold()
        try:
            try:
                answer = await method(ask, clock.deadline())
            except Exception as e:
                return failed(clock, e, time_source() - t0)
        finally:
            in_flight.let_go(held)
        return in_time(clock, answer, time_source() - t0)

    def _ask_now(self, clock: Clock, now: Callable[[Ask], T], ask: Ask) -> tuple[T | None, float, Fault | None]:
        """``_ask`` for a seat that answers synchronously (``now``): the same clock and faults."""
        time_source = self.time_source
        t0 = time_source()
        try:
            answer = now(ask)
        except Exception as e:
            return failed(clock, e, time_source() - t0)
        return in_time(clock, answer, time_source() - t0)

    def _asked(self, o: Observation, st: _SeatState, decision: Decision) -> Ask:
        """The one place a decision is put to a seat: from this seat's observation alone (its wire
        request is encoded from it only if the seat sends one)."""
        tried = trial(decision, self.match, o) if st.trials else None
        return Ask(o, st.views or self.views, int(st.clock.bank * 1000), decision.rest(o), tried)

    async def _decide(self, decision: Decision) -> None:
        """Every seat the engine waits on is asked ``decision`` at once (several only for passes and turbo-charges);
        the answers are judged, applied and recorded in seat order, so the record does not depend
        on who answered first. ``_play`` is this, written out for plays (the hot path)."""
        m = self.match
        obs = [m.observation(s) for s in m.to_move]  # observe
        states = [self.states[o.seat] for o in obs]
        nows = [st.answers_now.get(decision.method) for st in states]
        outcomes: Sequence[tuple[Any, float | None, Fault | None]]
        if all(nows):  # every seat asked answers synchronously: one after another, no task each
            outcomes = [
                (None, None, None) if st.forfeit else self._ask_now(st.clock, now, self._asked(o, st, decision))  # type: ignore[arg-type]
                for o, st, now in zip(obs, states, nows)
            ]
        else:
            outcomes = await asyncio.gather(*(self._answer(decision, o) for o in obs))  # ask
        for o, (answer, latency, asked) in zip(obs, outcomes):
            value, fault, substituted, defaulted = judge(decision, m, o, answer, asked)
            if defaulted:
                self._note_unimplemented(o, decision)
            if fault is not None:
                self._fault(
                    o.seat,
                    fault,
                    o.hand_number,
                    decision.trick(o),
                    describe(decision.rpc, o),
                    decision.instead(m, value),
                )
            decision.record(self.record, m, o, value, latency, substituted)

    async def _answer(self, decision: Decision, o: Observation) -> tuple[Any, float | None, Fault | None]:
        st = self.states[o.seat]
        if st.forfeit:
            return None, None, None  # nothing is asked of a forfeited seat
        return await self._ask(o.seat, getattr(st.seat, decision.method), self._asked(o, st, decision))

    def _note_unimplemented(self, o: Observation, decision: Decision) -> None:
        """Note, once per match and seat, an optional RPC the bot does not implement (no fault). In the
        referee's own words: the note holds no text of the bot's."""
        key = (o.seat, decision.rpc)
        if key in self.noted:
            return
        self.noted.add(key)
        self.record.notes.append(
            NoteRecord(
                hand=o.hand_number,
                seat=o.seat,
                kind=NoteKind.UNIMPLEMENTED,
                detail=f"does not implement {decision.rpc}: {decision.default_words}, and so each time it "
                f"is asked this match; not a fault ({decision.rpc} is optional, see docs/protocol.md)",
            )
        )

    def _fault(self, s: int, fault: Fault, hand: int | None, trick: int | None, sent: str, action: str) -> None:
        st = self.states[s]
        st.faults += 1
        forfeits = st.kind != "human"  # a person is substituted while away, never forfeited: they may come back
        if forfeits and not st.forfeit and (fault.kind in FORFEIT_AT_ONCE or st.faults >= self.settings.max_faults):
            st.forfeit = True
            if st.notifier is not None:
                st.notifier.pending.clear()
            st.forfeit_reason = FORFEIT_REASONS.get(fault.kind, ForfeitReason.FAULTS)
            action += "; the bot forfeits: substitutes play the rest of its match"
        self.record.faults.append(
            FaultRecord(
                hand=hand,
                trick=trick,
                seat=s,
                kind=fault.kind,
                detail=fault.detail,
                sent=sent,
                received=fault.received,
                action=action,
            )
        )

    # -- the flow --------------------------------------------------------------------------------

    async def run(self) -> MatchRecord:
        self.in_flight, self.notify_in_flight = semaphores()
        self.record.started_at = utc_now()
        try:
            await self._handshakes()
            if self.watcher is not None:
                self._watch(lambda w: w.began(self.record, list(self.names)))
            m = self.match
            self._open_hand()
            while not m.over:
                phase = m.phase
                if phase is _PLAY and self.fast_play:
                    await self._play()
                else:
                    decision = DECISIONS.get(phase)
                    if decision is None:  # a phase this referee does not know would never end: say so
                        raise AssertionError(f"the referee has no decision for the {phase.value} phase")
                    await self._decide(decision)
                if self._close_hands() and self.holders:
                    await self._hold_deal()
            self._finish()
            self._notify_all(
                lambda s: pb.NotifyRequest(
                    match_id=self.match_id,
                    seat=s,
                    match_over=codec.match_over_to_wire(
                        m.rules,
                        m.scores,
                        [r.place for r in self.record.seats],
                        [i for i, st in enumerate(self.states) if st.forfeit],
                    ),
                )
            )
            await self._close_notifiers()
        finally:
            # Cancelled or failed midway (or a close cut short): no notifier outlives its match.
            tasks = [
                st.notifier.task
                for st in self.states
                if st.notifier is not None and st.notifier.task is not None and not st.notifier.task.done()
            ]
            for task in tasks:
                task.cancel()
            if tasks:
                await asyncio.gather(*tasks, return_exceptions=True)
        self.record.finished_at = utc_now()
        return self.record

    async def _handshakes(self) -> None:
        request = codec.handshake_request(REFEREE_NAME)
        timeout = self.settings.handshake_ms / 1000

        async def one(st: _SeatState) -> pb.HandshakeResponse | BaseException:
            try:
                return await st.seat.handshake(request, timeout)
            except Exception as e:
                return e

        replies = await asyncio.gather(*(one(st) for st in self.states))
        sent = f"Handshake protocol {codec.PROTOCOL_VERSION}"
        for s, (st, reply) in enumerate(zip(self.states, replies)):
            if isinstance(reply, BaseException):
                self._fault(s, fault_from_error(reply), None, None, sent, "the match starts without the handshake")
                name = ""
            else:
                st.wants_notify = reply.wants_notifications
                self.listening = self.listening or st.wants_notify
                name = reply.name[:NAME_LIMIT]  # the bot's own text: kept as data, but bounded
                if reply.protocol_version > codec.PROTOCOL_VERSION:  # 0 (unset) is 1; 1 to ours read alike
                    self._fault(
                        s,
                        Fault(
                            FaultKind.MALFORMED,
                            f"speaks protocol {reply.protocol_version}; "
                            f"the referee speaks 1 to {codec.PROTOCOL_VERSION}",
                            f"protocol_version={reply.protocol_version}",
                        ),
                        None,
                        None,
                        sent,
                        f"plays on under protocol {codec.PROTOCOL_VERSION}",
                    )
            if not self.names[s]:
                self.names[s] = st.seat.name or name or f"seat {s}"
        shown = [n or self.names[s] for s, n in enumerate(self.shown_names)] if self.shown_names else self.names
        self.views = codec.ViewEncoder(self.match_id, shown, self.budget_ms)
        for st in self.states:
            budget = st.budget_ms
            st.views = (
                codec.ViewEncoder(self.match_id, shown, budget) if budget not in (None, self.budget_ms) else self.views
            )

    def _open_hand(self) -> None:
        hand = self.match.hand
        self.record.hands.append(
            HandRecord(
                hand=hand.number,
                pass_direction=hand.direction,
                dealer=hand.dealer,
                # card_set: with two packs (002 Cancellation Hearts) a card dealt twice is listed twice.
                deal=tuple(tuple(str(c) for c in card_set(mask)) for mask in hand.dealt),
                kitty=tuple(str(c) for c in card_set(hand.kitty)),
            )
        )

    def _close_hands(self) -> bool:
        """Record each newly scored hand, tell the bots, and open the next hand's record; whether a
        next hand was opened."""
        m = self.match
        hands = self.record.hands
        if len(m.results) < len(hands) or hands[-1].totals:
            return False
        result = m.results[len(hands) - 1]
        h = hands[-1]
        h.points_taken, h.score, h.totals = result.points_taken, result.score, result.totals
        h.moon, h.sun = result.moon, result.sun
        h.moon_choice = result.moon_choice.value if result.moon_choice is not None else None
        if self.watcher is not None:
            self._watch(lambda w: w.scored(self.record))
        scored = codec.hand_scored_to_wire(result, m.rules)
        self._notify_all(lambda s: pb.NotifyRequest(match_id=self.match_id, seat=s, hand_scored=scored))
        if m.over:
            return False
        self._open_hand()
        return True

    async def _hold_deal(self) -> None:
        """Between hands, the seats that hold the next deal (a person reading the scores) are waited for,
        each at most ``DEAL_HOLD_S``; no decision's clock runs meanwhile, and a hold that fails or runs
        out is never a fault: the next hand is dealt."""
        number = self.match.hand_number

        async def one(st: _SeatState) -> None:
            assert st.hold_deal is not None
            try:
                await asyncio.wait_for(st.hold_deal(number, DEAL_HOLD_S), DEAL_HOLD_S)
            except Exception:
                pass

        await asyncio.gather(*(one(st) for st in self.holders))

    async def _play(self) -> None:
        """``_decide(DECISIONS[Phase.PLAY])`` written out, with no closures: every play's path (tested
        to agree with the general one)."""
        m = self.match
        s = m.turn
        st = self.states[s]
        if st.play_now is not None and not st.forfeit:
            self._play_on()
            return
        o = m.observation(s)
        answer = latency = fault = None
        if not st.forfeit:
            tried = trial(DECISIONS[_PLAY], m, o) if st.trials else None
            answer, latency, fault = await self._ask(
                s, st.seat.play_card, Ask(o, st.views or self.views, int(st.clock.bank * 1000), b"", tried)
            )
        self._played(s, o, answer, latency, fault)

    def _play_on(self) -> None:
        """Plays while their seats answer synchronously (``play_now``: a bot in this process), up to
        the hand's last card: one after another with no coroutine each, under the same clock and
        faults as ``_ask``, so that such a bot costs little more than the engine's own play."""
        m, states, plays, time_source = self.match, self.states, self.record.plays, self.time_source
        observe = m.observation
        while m.phase is _PLAY:
            s = m.turn
            st = states[s]
            now = st.play_now
            if now is None or st.forfeit:
                return
            o = observe(s)
            clock = st.clock
            # ``_ask_now`` then ``_played``, written out for an answer in time: the judge's play, and the
            # record of a card played as answered. Anything else (an error, lateness, a substitute) is
            # recorded the general way.
            t0 = time_source()
            try:
                answer = now(o, st.views or self.views, int(clock.bank * 1000))
            except Exception as e:
                trick = self._played(s, o, *failed(clock, e, time_source() - t0))
            else:
                elapsed = time_source() - t0
                if elapsed <= clock.budget + clock.grace:  # in_time's own test: nothing to charge
                    card, trick, fault, substituted = judge_play(m, o, answer, None)
                    ms = int(elapsed * 1_000_000 + 0.5) / 1000  # in_time's latency, without the call
                    if substituted:
                        self._record_play(s, o, ms, card, trick, fault, substituted)
                    else:
                        plays.append(PlayRecord(o.hand_number, len(o.tricks), s, str(card), ms))
                        if self.watcher is not None:
                            self._watch_play(trick)
                        if trick is not None:
                            self._notify_trick(o.hand_number, trick)
                else:
                    trick = self._played(s, o, *in_time(clock, answer, elapsed))
            if trick is not None and len(m.results) > o.hand_number:
                return  # the hand is scored (hands count from 0): the run records it before the next one

    def _played(self, s: int, o: Observation, answer: Any, latency: float | None, fault: Fault | None) -> Trick | None:
        """The judge and substitute stages of one play, then its record; the trick it completed, if any."""
        return self._record_play(s, o, latency, *judge_play(self.match, o, answer, fault))

    def _record_play(
        self,
        s: int,
        o: Observation,
        latency: float | None,
        card: Card,
        trick: Trick | None,
        fault: Fault | None,
        substituted: bool,
    ) -> Trick | None:
        """The record stages of one judged play: its fault, the play, the trick it completed (returned)."""
        hand_number, trick_number = o.hand_number, len(o.tricks)  # o.trick_number
        if fault is not None:
            self._fault(
                s, fault, hand_number, trick_number, describe("PlayCard", o), f"played the seeded substitute {card}"
            )
        self.record.plays.append(PlayRecord(hand_number, trick_number, s, str(card), latency, substituted))
        if self.watcher is not None:
            self._watch_play(trick)
        if trick is not None:
            self._notify_trick(hand_number, trick)
        return trick

    # -- notifications: best effort, never faults ------------------------------------------------

    def _notify_trick(self, hand: int, trick: Trick) -> None:
        if not self.listening or not any(st.wants_notify and not st.forfeit for st in self.states):
            return
        t = codec.trick_to_wire(trick, players=self.match.rules.players)
        self._notify_all(
            lambda s: pb.NotifyRequest(
                match_id=self.match_id, seat=s, trick_completed=pb.TrickCompleted(hand_number=hand, trick=t)
            )
        )

    def _notify_all(self, build: Callable[[int], pb.NotifyRequest]) -> None:
        # Queued, not awaited: a slow listener must not slow the match (nor the other bots).
        for s, st in enumerate(self.states):
            if st.wants_notify and not st.forfeit:
                if st.notify_now is not None:
                    try:
                        st.notify_now(build(s))
                    except Exception:  # a courtesy: a listener's failure is never a fault (as over gRPC)
                        pass
                    continue
                if st.notifier is None:
                    st.notifier = _Notifier(st.seat, self.settings.notify_ms / 1000, self.notify_in_flight)
                st.notifier.send(build(s))

    async def _close_notifiers(self) -> None:
        await asyncio.gather(*(st.notifier.close() for st in self.states if st.notifier is not None))

    # -- the result ------------------------------------------------------------------------------

    def _finish(self) -> None:
        m = self.match
        scores = m.scores
        live = [s for s, st in enumerate(self.states) if not st.forfeit]
        if len(live) == len(self.states):
            places = list(m.places())
            winners = tuple(m.winners)
        else:
            # A forfeiter places last whatever its substitutes scored; the others rank among themselves
            # (a live seat whose shot won the match, under moon=wins-match, first). With partners the
            # forfeiter places last alone and its partner keeps its team's total, ranked among the
            # live seats: the forfeit is one bot's, not its partner's.
            places = [len(live) + 1] * len(self.states)
            first = live.index(m.shot_winner) if m.shot_winner in live else None
            ranked = m.place_totals()
            for s, place in zip(live, places_of([ranked[s] for s in live], first)):
                places[s] = place
            winners = tuple(s for s in live if places[s] == 1)
        self.record.status = MatchStatus.FINISHED
        self.record.winners = winners
        self.record.seats = [
            SeatRecord(
                seat=s,
                bot=self.names[s],
                final_score=scores[s],
                place=places[s],
                faults=st.faults,
                forfeit=st.forfeit,
                forfeit_reason=st.forfeit_reason,
                address=st.seat.address,
                time_bank_left_ms=round(st.clock.bank * 1000, 1),
                team=s % 2 if m.rules.partnership != "none" else None,
                isolation=getattr(st.seat, "isolation", None),  # a seat that does not say: unknown
                kind=st.kind,
                budget_ms=st.time_control.budget_ms,
                bank_ms=st.time_control.bank_ms,
                grace_ms=st.time_control.grace_ms,
            )
            for s, st in enumerate(self.states)
        ]


async def play_match(
    seats: Sequence[Seat],
    rules: Rules,
    seed: int,
    *,
    settings: MatchSettings | None = None,
    match_id: str | None = None,
    names: Sequence[str] | None = None,
    tournament_id: int | None = None,
    shown_names: Sequence[str] | None = None,
    time_source: Callable[[], float] = _perf_counter,
    watcher: MatchWatcher | None = None,
    time_controls: Sequence[TimeControl | None] | None = None,
) -> MatchRecord:
    """Play one complete match among ``seats`` (one per seat, in seat order) and return its record.

    ``settings`` are the match's clock and fault policy. ``time_controls`` give seats their own clock,
    one per seat in seat order (None: the match's): each ``TimeControl``'s keys over ``settings``,
    before any clock the seat keeps itself (``SeatHooks.time_control``, a person's); the seat's views
    say its own budget, and its record the clock it played under.
    ``names`` are the bots' ladder names (default: each seat's name, else its handshake name).
    ``shown_names`` are the names the bots are told, in every view (default: ``names``): an
    anonymous contest tells bots aliases, and records the real names. ``time_source`` (seconds)
    measures each answer for the clocks: a test passes one it advances itself, so what a bot is
    charged is what the test says, not what the machine's load made it. The calls' own deadlines
    stay in real time. ``watcher`` is told of each play and each scored hand as the record gets it.
    Seats are not closed: a caller may reuse them (and their channels) for the next match.
    Raises ``ValueError`` only for a wrong number of seats, names or time controls; a bot's failures are faults.
    """
    referee = _Referee(
        seats,
        rules,
        seed,
        settings or MatchSettings(),
        match_id or uuid.uuid4().hex,
        names,
        tournament_id,
        time_source,
        time_controls,
    )
    if shown_names is not None:
        if len(shown_names) != len(seats):
            raise ValueError(f"{len(shown_names)} shown names for {len(seats)} seats")
        referee.shown_names = list(shown_names)
    referee.watcher = watcher
    return await referee.run()


async def play_remote(
    seats: Sequence[tuple[str, str]],
    rules: Rules,
    seed: int,
    *,
    settings: MatchSettings | None = None,
    match_id: str | None = None,
    reach_timeout: float = 3.0,
    time_controls: Sequence[TimeControl | None] | None = None,
) -> MatchRecord:
    """Play one match among bots served over gRPC: ``seats`` are (name, address) in seat order, and
    ``time_controls`` each seat's own clock as ``play_match`` takes them.

    Checks every bot answers a handshake first and raises ``SeatUnreachable`` (saying what to
    check) if one does not; a bot seated twice shares one channel. Closes its channels.
    """
    if len(seats) != rules.players:
        raise ValueError(f"the rules ({rules.name}) need {rules.players} seats, not {len(seats)}")
    channels: dict[str, GrpcSeat] = {}
    for name, address in seats:
        channels.setdefault(address, GrpcSeat(address, name, isolation=Isolation("remote")))
    try:
        errors = await reach(list(channels.values()), reach_timeout)
        problems, missing = [], []
        for (address, seat), error in zip(channels.items(), errors):
            message = unreachable_message(seat.name or address, address, error) if error is not None else None
            if message is not None:
                problems.append(message)
                missing.append(address)
        if problems:
            raise SeatUnreachable("\n".join(problems), missing)
        return await play_match(
            [channels[a] for _, a in seats],
            rules,
            seed,
            settings=settings,
            match_id=match_id,
            names=[n for n, _ in seats],
            time_controls=time_controls,
        )
    finally:
        for seat in channels.values():
            await seat.close()
