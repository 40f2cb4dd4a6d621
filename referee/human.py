"""A person's seat: the referee asks a person at the table exactly as it asks a bot.

``HumanSeat`` is a ``Seat`` like ``GrpcSeat``: each decision comes as the seat's ``Ask``, and what
the person is shown is that decision's wire request, decoded (``google.protobuf.json_format``): the
very view a bot in that seat would receive, redacted the same way (the seat's own cards and the
public play, never another hand). Notifications are the bots' own ``NotifyRequest``s. Nothing else
of the match ever reaches the person; ``events`` is everything they were sent, in order.

The person's answers are hostile input: ``answer`` reads them as a bot's raw answer (wire enum
values), then asks the referee's own judgement of it (``Ask.trial``: the engine's check, on a copy of
the match). An answer the referee would refuse is handed back with the engine's reason (a card the
rules forbid names its rule), and the person may answer again within their clock; an answer it
would take is returned to the referee, which judges and applies it as it does a bot's.

Time: untimed by default (``UNTIMED``, a day a decision), or a clock per decision with a bank
(``time_control``), kept by the referee as any seat's clock. Presence: the page that shows the seat
``join``s and ``leave``s. A decision asked while nobody is at the table (or one they leave) waits
``away_s`` for them, then the seat raises ``PersonAway`` (a timeout): the referee plays the seeded
substitute, as it does for a silent bot; a person is never forfeited, and one who comes back (any
page joining again) is asked the next decision, and sent every event they missed.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import Message

from hearts.v1 import bot_pb2 as pb
from hearts.v1 import codec
from referee.faults import MAX_ANSWER_CARDS, Fault
from referee.isolation import Isolation
from referee.rules import Card, CardNotLegalError, IllegalPlayError
from referee.seats import Ask, BotTimeout, SeatHooks
from referee.settings import MatchSettings

UNTIMED = MatchSettings(budget_ms=24 * 3600 * 1000, bank_ms=0)
"""A person's default time control: a day for each decision, which is no clock at all at a table."""

AWAY_S = 10.0
"""How long a decision waits for a person whose page is closed before the substitute plays for them
(a page reloaded is back well within it)."""

MAX_OFFSETS = 52
"""No call of a pass names more offsets than a hand holds cards."""


class PersonAway(BotTimeout):
    """Nobody at the table: the person's page was closed (or never opened) for ``away_s``. A timeout,
    as a silent bot's is: the referee plays the seeded substitute for that decision."""


class AnswerRefused(ValueError):
    """A person's answer that is none (no card, no choice) or that the referee would refuse: ``reason``
    in words, ``rule`` the rule that forbids a card (empty otherwise)."""

    def __init__(self, reason: str, rule: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.rule = rule


def _message(m: Message) -> dict[str, Any]:
    """A protobuf message as the person's page reads it: field names as in bot.proto, enums by name."""
    return json_format.MessageToDict(m, preserving_proto_field_name=True)


def _card(value: object) -> int:
    """A card the page names (``"CARD_QUEEN_OF_SPADES"``) as its wire value."""
    if not isinstance(value, str) or not value.startswith("CARD_") or len(value) > 40:
        raise AnswerRefused("that is no card")
    try:
        card = pb.Card.Value(value)
    except ValueError:
        raise AnswerRefused("that is no card") from None
    if card == pb.CARD_UNSPECIFIED:
        raise AnswerRefused("that is no card")
    return card


def _cards(answer: dict[str, Any]) -> list[int]:
    cards = answer.get("cards")
    if not isinstance(cards, list):
        raise AnswerRefused("give the cards as a list")
    if len(cards) > MAX_ANSWER_CARDS:  # bounded before any card is read
        raise AnswerRefused(f"{len(cards)} cards: no hand holds that many")
    return [_card(c) for c in cards]


def _play(answer: dict[str, Any]) -> int:
    return _card(answer.get("card"))


def _call(answer: dict[str, Any]) -> object:
    if answer.get("mix") is True:
        return "mix"
    offsets = answer.get("offsets")
    if not isinstance(offsets, list) or len(offsets) > MAX_OFFSETS:
        raise AnswerRefused("call a pass: mix, or one offset per card passed")
    if not all(type(o) is int and 0 <= o < 100 for o in offsets):
        raise AnswerRefused("each offset is a number of seats to the left")
    return tuple(offsets)


def _moon(answer: dict[str, Any]) -> int:
    choice = answer.get("choice")
    if choice not in ("MOON_CHOICE_ADD_TO_OTHERS", "MOON_CHOICE_SUBTRACT_FROM_SHOOTER"):
        raise AnswerRefused("choose MOON_CHOICE_ADD_TO_OTHERS or MOON_CHOICE_SUBTRACT_FROM_SHOOTER")
    return int(pb.MoonChoice.Value(choice))


@dataclass(frozen=True)
class _Kind:
    """One kind of decision as the person's seat asks it: its request message, and how an answer from
    the page is read into the raw answer a seat returns."""

    rpc: str
    request: type[Message]
    read: Callable[[dict[str, Any]], object]


_PASS = _Kind("PassCards", pb.PassCardsRequest, _cards)
_PLAY = _Kind("PlayCard", pb.PlayCardRequest, _play)
_DISCARD = _Kind("DiscardCards", pb.DiscardCardsRequest, _cards)
_CALL = _Kind("CallPass", pb.CallPassRequest, _call)
_CHARGE = _Kind("ChargeCards", pb.ChargeCardsRequest, _cards)
_MOON = _Kind("ChooseMoon", pb.ChooseMoonRequest, _moon)


def refusal_text(error: Exception) -> AnswerRefused:
    """The referee's refusal of an answer in the person's words: a forbidden card's rule, else the
    engine's (or the fault's) own message."""
    if isinstance(error, CardNotLegalError) and error.rule:
        card = error.tried.symbol if isinstance(error.tried, Card) else error.tried
        return AnswerRefused(f"{card} cannot be played: {error.rule}", error.rule)
    if isinstance(error, Fault):
        return AnswerRefused(error.detail)
    if isinstance(error, IllegalPlayError):
        return AnswerRefused(str(error))
    return AnswerRefused(f"refused: {type(error).__name__}")


class _Pending:
    __slots__ = ("answer", "ask", "id", "kind")

    def __init__(self, number: int, kind: _Kind, ask: Ask, answer: asyncio.Future[object]) -> None:
        self.id = number
        self.kind = kind
        self.ask = ask
        self.answer = answer


class HumanSeat(SeatHooks):
    """A person's seat (the ``referee.seats.Seat`` interface). ``events`` is every message the person
    was sent, in order, each a JSON-ready dict with its ``seq`` (from 1); a page reads them with
    ``next_events`` and answers with ``answer``. ``clock`` is the seat's clock for presence (monotonic
    seconds; a test may drive it). Of ``SeatHooks`` it offers ``kind``, ``time_control``,
    ``tries_answers``, ``hold_deal`` and ``notify_now``."""

    kind = "human"
    address: str | None = None
    tries_answers = True  # the referee hands each decision its own judgement (Ask.trial)
    isolation: Isolation | None = Isolation("person")  # no program of theirs runs: nothing to guard

    def __init__(
        self,
        name: str,
        *,
        time_control: MatchSettings = UNTIMED,
        away_s: float = AWAY_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.name: str | None = name
        self.time_control = time_control
        self.away_s = away_s
        self.clock = clock
        self.events: list[dict[str, Any]] = []
        self.decisions = 0  # decisions asked so far
        self._waiters: list[asyncio.Future[None]] = []
        self._present = 0
        self._left_at: float | None = clock()  # nobody has come yet
        self._presence: asyncio.Future[None] | None = None
        self._pending: _Pending | None = None
        self._hold: asyncio.Future[None] | None = None

    def __repr__(self) -> str:
        return f"HumanSeat({self.name!r})"

    # -- what the person is sent ------------------------------------------------------------------

    def tell(self, event: dict[str, Any]) -> None:
        """Send the person one event (the referee's messages, or the table's own: the match recorded)."""
        event = {"seq": len(self.events) + 1, **event}
        self.events.append(event)
        waiters, self._waiters = self._waiters, []
        for w in waiters:
            if not w.done():
                w.set_result(None)

    async def next_events(self, after: int) -> list[dict[str, Any]]:
        """The events after the first ``after``, waiting for one when there is none yet."""
        while len(self.events) <= after:
            waiter = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
            await waiter
        return self.events[after:]

    # -- presence -----------------------------------------------------------------------------------

    @property
    def present(self) -> bool:
        return self._present > 0

    def join(self) -> None:
        """A page showing the seat opened (the person is at the table)."""
        self._present += 1
        self._left_at = None
        self._presence_changed()

    def leave(self) -> None:
        """A page showing the seat closed."""
        self._present = max(0, self._present - 1)
        if not self._present:
            self._left_at = self.clock()
        self._presence_changed()

    def _presence_changed(self) -> None:
        if self._presence is not None and not self._presence.done():
            self._presence.set_result(None)
        self._presence = None

    def _away_left(self) -> float | None:
        """Seconds the person may still stay away before the substitute plays; None while present."""
        if self._present:
            return None
        left = self._left_at if self._left_at is not None else self.clock()
        return max(0.0, self.away_s - (self.clock() - left))

    async def _until(self, done: asyncio.Future[Any], timeout: float) -> bool:
        """Wait for ``done`` at most ``timeout`` seconds or until the person has been away ``away_s``;
        whether it is done."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while not done.done():
            away = self._away_left()
            if away is not None and away <= 0:
                return False
            wait = end - loop.time()
            if wait <= 0:
                return False
            if away is not None:
                wait = min(wait, away)
            if self._presence is None:
                self._presence = loop.create_future()
            await asyncio.wait({done, self._presence}, timeout=wait, return_when=asyncio.FIRST_COMPLETED)
        return True

    # -- answers ----------------------------------------------------------------------------------

    def answer(self, decision: object, answer: object) -> None:
        """The person's answer to decision number ``decision`` (hostile: read, then judged by the
        referee's own check before it is taken). ``AnswerRefused`` says why it is not taken; the
        decision then stays open."""
        p = self._pending
        if p is None or type(decision) is not int or decision != p.id or p.answer.done():
            raise AnswerRefused("that decision is over: wait for the next one")
        if not isinstance(answer, dict):
            raise AnswerRefused('an answer is an object, e.g. {"card": "CARD_TWO_OF_CLUBS"}')
        raw = p.kind.read(answer)
        refused = p.ask.trial(raw) if p.ask.trial is not None else None
        if refused is not None:
            raise refusal_text(refused)
        p.answer.set_result(raw)

    def deal_again(self) -> bool:
        """The person is ready for the next hand (after reading the scores); whether a deal was held."""
        hold = self._hold
        if hold is None or hold.done():
            return False
        hold.set_result(None)
        return True

    # -- the Seat interface -----------------------------------------------------------------------

    async def handshake(self, request: pb.HandshakeRequest, timeout: float) -> pb.HandshakeResponse:
        return pb.HandshakeResponse(
            protocol_version=codec.PROTOCOL_VERSION, name=self.name or "", language="human", wants_notifications=True
        )

    async def _decide(self, kind: _Kind, ask: Ask, timeout: float) -> Any:
        """Show the person the decision's request and wait for an answer the referee would take."""
        request = kind.request.FromString(ask.wire())  # the very request a bot in this seat is sent
        self.decisions += 1
        number = self.decisions
        event: dict[str, Any] = {
            "type": "ask",
            "id": number,
            "rpc": kind.rpc,
            "request": _message(request),
            "deadline_ms": int(timeout * 1000),
        }
        if kind in (_PLAY, _CHARGE) and ask.trial is not None:
            event["refusals"] = self._refusals(ask, kind is _CHARGE)
        pending = _Pending(number, kind, ask, asyncio.get_running_loop().create_future())
        self._pending = pending
        self.tell(event)
        how = "timeout"
        try:
            if await self._until(pending.answer, timeout):
                how = "answered"
                return pending.answer.result()
            if self._away_left() == 0:
                how = "away"
                raise PersonAway(
                    f"nobody at the table: the person's page was closed for {self.away_s:g} s", "no page open"
                )
            raise BotTimeout("no answer before the deadline", "nothing")
        finally:
            self._pending = None
            self.tell({"type": "done", "id": number, "how": how})

    def _refusals(self, ask: Ask, charge: bool) -> dict[str, str]:
        """Each held card the rules forbid now (to play, or to charge alone), with the referee's
        refusal of it: what a dimmed card says when the person asks why."""
        o = ask.observation
        assert ask.trial is not None
        out: dict[str, str] = {}
        for c in sorted(set(o.hand.cards), key=lambda c: c.index):
            if not charge and c in o.legal:
                continue
            error = ask.trial([c.index + 1] if charge else c.index + 1)
            if error is not None:
                refused = refusal_text(error)
                out[pb.Card.Name(c.index + 1)] = refused.rule or refused.reason
        return out

    async def pass_cards(self, ask: Ask, timeout: float) -> list[int]:
        return await self._decide(_PASS, ask, timeout)

    async def play_card(self, ask: Ask, timeout: float) -> int:
        return await self._decide(_PLAY, ask, timeout)

    async def discard_cards(self, ask: Ask, timeout: float) -> list[int]:
        return await self._decide(_DISCARD, ask, timeout)

    async def call_pass(self, ask: Ask, timeout: float) -> object:
        return await self._decide(_CALL, ask, timeout)

    async def charge_cards(self, ask: Ask, timeout: float) -> list[int]:
        return await self._decide(_CHARGE, ask, timeout)

    async def choose_moon(self, ask: Ask, timeout: float) -> int:
        return await self._decide(_MOON, ask, timeout)

    def notify_now(self, request: pb.NotifyRequest) -> None:
        """A public event, sent to the person as the bots' notification."""
        self.tell({"type": "notify", "notify": _message(request)})

    async def notify(self, request: pb.NotifyRequest, timeout: float) -> None:
        self.notify_now(request)

    async def hold_deal(self, hand_number: int, timeout: float) -> None:
        """Hold the next deal until the person asks for it (``deal_again``), or has been away ``away_s``."""
        hold = self._hold = asyncio.get_running_loop().create_future()
        self.tell({"type": "hold", "hand": hand_number})
        try:
            await self._until(hold, timeout)
        finally:
            self._hold = None
            self.tell({"type": "dealt", "hand": hand_number})

    async def close(self) -> None:
        return None
