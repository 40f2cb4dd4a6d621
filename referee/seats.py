"""Seats: how the referee reaches the bot in each chair.

A seat asks its bot for one decision and returns the raw answer (wire enum values); it never
validates: judging an answer is the referee's job, so a gRPC bot and an in-process bot are judged
by the same code. A call that brings no answer raises a ``SeatError`` of the kind the seat itself
observed: ``BotTimeout`` (the deadline passed, by the referee's own clock), ``BotUnreachable`` (no
connection), ``BotErrorStatus`` (the bot answered an error status, or an in-process bot raised),
``OversizedReply`` (more bytes than the receive limit, measured) or ``MalformedReply`` (bytes that
are no reply). What a bot says about itself (a status code, a message) never picks the kind. One
status is told apart within ``BotErrorStatus``: ``BotUnimplemented``, the bot does not implement the
RPC (UNIMPLEMENTED, or an in-process bot without the method); the referee alone decides what that
means for the decision (``referee.judge.judge``): an optional decision takes its do-nothing answer,
which the bot could have given itself, so saying UNIMPLEMENTED gains a bot nothing.

Every decision comes to a seat as one ``Ask``: the seat's observation, from which the referee
builds the wire request only when a seat sends one. A gRPC seat sends those bytes; an in-process
seat hands the observation to its Python object (which then sees no more than a remote bot would),
and no request is built or parsed for it.

A seat may offer more than the ``Seat`` interface: the hooks of the referee's fast path and of a
person's seat, declared once in ``SeatHooks``, which such a seat subclasses.
"""

from __future__ import annotations

import asyncio
import inspect
import re
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, Protocol, TypeVar, runtime_checkable

import grpc

from hearts.v1 import bot_pb2 as pb
from hearts.v1 import bot_pb2_grpc, codec
from referee.isolation import Isolation
from referee.rules import Card, MoonChoice, Observation
from referee.settings import MatchSettings
from referee.untrusted import inert

T = TypeVar("T")
_perf_counter = time.perf_counter

REFEREE_NAME = "hearts-arena referee 0.1"
MAX_RECEIVE_BYTES = 64 * 1024
"""The referee's receive limit: a bigger reply is an ``oversized`` fault, not a memory spike."""

CHANNEL_OPTIONS: tuple[tuple[str, int], ...] = (
    ("grpc.max_receive_message_length", 4 * MAX_RECEIVE_BYTES),  # HARD_RECEIVE_BYTES: see there
    # A channel made before its bot listens otherwise waits ~0.7 s after the bot comes up. Not
    # grpc.min_reconnect_backoff_ms: it is also the least time a connection attempt is given; short, a
    # bot that accepted the connection but had not answered it yet would read as unreachable, where the
    # same silence on a connection already up is a timeout. An attempt runs to the call's deadline:
    # nothing listening is unreachable, accepting but silent a timeout, whenever the call went out.
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 200),
    # A decision is asked once: no hidden retries inside its deadline (and ~10-40 µs less CPU a call).
    ("grpc.enable_retries", 0),
)


HARD_RECEIVE_BYTES = 4 * MAX_RECEIVE_BYTES
"""gRPC's own receive limit on the referee's channels. Replies up to it arrive and are measured
against ``MAX_RECEIVE_BYTES`` by the referee itself; a larger one gRPC cuts off (and says so in
words naming this limit, which is how its error is told from a bot's status)."""

# What gRPC says when it cut off a reply itself: over our own hard receive limit, or a status
# message and metadata over its header limit. A bot may send a status with any text: only these
# exact local forms, the first naming the referee's own limit, are taken as observed.
_CUT_MESSAGE = re.compile(
    r"(?:Stream removed \(CLIENT: )?Received message larger than max "
    r"\(\d+ vs\. (\d+)\)\)?"
)
_CUT_HEADERS = re.compile(
    r"Stream removed \(received metadata size exceeds (hard|soft) limit "
    r"\(value length \d+ vs\. \d+\)\)"
)


class SeatError(Exception):
    """A call that brought no answer, of the kind the seat observed.

    ``detail`` says what happened in a line; ``received`` what came back (a status and its
    message, a size), for the fault record. Bot-controlled text in either is raw: show it with
    ``referee.untrusted.inert``.
    """

    def __init__(self, detail: str, received: str) -> None:
        super().__init__(detail)
        self.detail = detail
        self.received = received


class BotTimeout(SeatError):
    """No answer before the deadline, measured by the referee's clock."""


class BotUnreachable(SeatError):
    """The bot could not be reached: no connection, a connection lost, or a closed seat."""


class ResourceLimitHit(BotUnreachable):
    """The bot is unreachable because its sandbox stopped it at a resource limit, which the
    launcher observed and names (``memory: ...``); never inferred from what the bot says."""


class Impersonation(SeatError):
    """The seat's socket is served by a process that is not the seat's bot (its launcher looked:
    the socket's kind, owner and listening process), so nothing that answers there is the bot's."""


class SeatClosed(BotUnreachable):
    """A call on a ``GrpcSeat`` after its ``close()`` (the bot is gone for this seat)."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail, detail)


class BotErrorStatus(SeatError):
    """The bot answered with an error status (over gRPC), or raised (in process)."""


class BotUnimplemented(BotErrorStatus):
    """The bot does not implement the RPC: the status UNIMPLEMENTED (what gRPC answers for a method a
    server does not serve, as generated code does for one it leaves out), or an in-process bot without
    the method."""


class OversizedReply(SeatError):
    """A reply of more bytes than the referee's receive limit (or a status over its header limit)."""


class MalformedReply(SeatError):
    """Bytes that are not a reply of the expected message type."""


# A reply the referee's own reader refused: it stands in for the message and is raised by the seat.
class _Refused:
    __slots__ = ("error",)

    def __init__(self, error: SeatError) -> None:
        self.error = error


def _reader(message: Any, method: str, limit: int) -> Callable[[bytes], Any]:
    """The response deserializer of one RPC: the message, or ``_Refused`` for an oversized or
    undecodable reply (measured here, never inferred from a status)."""
    parse = message.FromString

    def read(data: bytes) -> Any:
        if len(data) > limit:
            return _Refused(
                OversizedReply(
                    f"{method} reply of {len(data)} bytes; the referee's receive limit is {limit}", f"{len(data)} bytes"
                )
            )
        try:
            return parse(data)
        except Exception as e:
            return _Refused(
                MalformedReply(
                    f"{method} reply could not be decoded ({type(e).__name__})", f"{len(data)} bytes: {data[:40].hex()}"
                )
            )

    return read


def _refused(reply: object, method: str) -> SeatError:
    if isinstance(reply, _Refused):
        return reply.error
    return MalformedReply(f"{method} reply could not be decoded", repr(reply)[:100])


CONNECTION_SETTLE_S = 0.1
"""How long a connection must stay up after an UNAVAILABLE for the status to be the bot's own."""


async def _still_connected(channel: grpc.aio.Channel | None) -> bool:
    """Whether the connection stays up: then the bot itself answered UNAVAILABLE (a status, not a
    transport fault). A lost connection may still read READY for a moment, so it is given a moment."""
    if channel is None or channel.get_state(try_to_connect=False) is not grpc.ChannelConnectivity.READY:
        return False
    try:
        await asyncio.wait_for(channel.wait_for_state_change(grpc.ChannelConnectivity.READY), CONNECTION_SETTLE_S)
    except TimeoutError:
        return True
    return False


async def _rpc_failure(
    error: grpc.aio.AioRpcError,
    elapsed: float,
    timeout: float,
    method: str,
    channel: grpc.aio.Channel | None,
    hard_limit: int,
) -> SeatError:
    """Classify a failed call by what the referee observed: its own clock, its connection, the sizes
    its own gRPC cut off; anything else is the bot's own status, whatever code or text it claims."""
    code = error.code()
    details = error.details() or ""
    received = f"status {code.name}: {details[:300]}"
    if elapsed >= timeout * 0.999:
        began = " (it had begun a reply but never completed the call)" if "Stream removed" in details else ""
        return BotTimeout(f"no answer before the deadline{began}", received)
    if code is grpc.StatusCode.RESOURCE_EXHAUSTED:
        cut = _CUT_MESSAGE.fullmatch(details)
        if cut is not None and int(cut.group(1)) == hard_limit:
            return OversizedReply(f"{method} reply larger than {hard_limit} bytes, cut off by the referee", received)
        if _CUT_HEADERS.fullmatch(details):
            return OversizedReply(
                f"{method}: the bot's status message or metadata exceeded the referee's header limit", received
            )
    if code is grpc.StatusCode.UNAVAILABLE and not await _still_connected(channel):
        return BotUnreachable("bot unreachable (is it running?)", received)
    said = f"the bot answered {code.name}" + (f": {details[:200]}" if details else "")
    if code is grpc.StatusCode.UNIMPLEMENTED:
        return BotUnimplemented(said, received)
    return BotErrorStatus(said, received)


Trial = Callable[[object], Exception | None]
"""How the referee would judge an answer (a seat's raw answer, as a seat returns it): the fault or
the engine's refusal it would meet, or None when it would stand. Judged on a copy of the match."""


class Ask:
    """One decision asked of a seat: the seat's ``observation``, and ``wire()``, its request as the
    bytes gRPC sends (the view encoded from that observation alone, then the request's other fields,
    ``rest``, already serialised). Nothing is encoded until a seat asks for the bytes.

    ``trial`` is set for a seat that asks for it (``tries_answers``: a person, who may take a card
    back when the referee would refuse it): the referee's own judgement of an answer, without
    applying it."""

    __slots__ = ("bank_ms", "observation", "rest", "trial", "views")

    def __init__(
        self,
        observation: Observation,
        views: codec.ViewEncoder,
        bank_ms: int,
        rest: bytes = b"",
        trial: Trial | None = None,
    ) -> None:
        self.observation = observation
        self.views = views
        self.bank_ms = bank_ms
        self.rest = rest
        self.trial = trial

    def wire(self) -> bytes:
        return codec.request_bytes(self.views.encode(self.observation, self.bank_ms), self.rest)


@runtime_checkable
class Seat(Protocol):
    """The referee's side of one bot. ``timeout`` is the whole deadline of the call, in seconds.
    ``isolation`` is what guards the bot, as whoever made the seat knows it (None: unknown); the
    match record keeps it. A seat that offers any of ``SeatHooks`` subclasses it."""

    name: str | None
    address: str | None
    isolation: Isolation | None

    async def handshake(self, request: pb.HandshakeRequest, timeout: float) -> pb.HandshakeResponse: ...

    async def pass_cards(self, ask: Ask, timeout: float) -> list[int]: ...

    async def play_card(self, ask: Ask, timeout: float) -> int: ...

    async def discard_cards(self, ask: Ask, timeout: float) -> list[int]: ...

    async def call_pass(self, ask: Ask, timeout: float) -> object: ...

    async def charge_cards(self, ask: Ask, timeout: float) -> list[int]: ...

    async def choose_moon(self, ask: Ask, timeout: float) -> int: ...

    async def notify(self, request: pb.NotifyRequest, timeout: float) -> None: ...

    async def close(self) -> None: ...


class SeatHooks:
    """What a seat may offer besides the ``Seat`` interface, each read once a match by the referee.

    A seat that offers any subclasses this and sets those it offers; the rest keep these defaults,
    which are also what a seat that does not subclass it gets (a plain bot's seat).
    """

    kind: str = "bot"
    """Who sits there: "bot", or "human" (a person, substituted while away, never forfeited); the record keeps it."""

    time_control: MatchSettings | None = None
    """The seat's own clock (a person's, untimed or not), kept instead of the match's; its views say its budget."""

    tries_answers: bool = False
    """Whether each decision comes with the referee's own judgement of an answer (``Ask.trial``): a person's."""

    hold_deal: Callable[[int, float], Awaitable[None]] | None = None
    """``hold_deal(hand_number, timeout)``, awaited between hands with no clock running: a person reading the scores."""

    answers_now: Mapping[str, Callable[[Ask], Any]] = MappingProxyType({})
    """Decisions answered synchronously, by method name: ``now(ask) -> answer``, with no coroutine or in-flight slot."""

    play_now: Callable[[Observation, codec.ViewEncoder, int], Any] | None = None
    """``play_now(obs, views, bank_ms)``: ``answers_now["play_card"]`` without an ``Ask``, for the play loop."""

    notify_now: Callable[[pb.NotifyRequest], None] | None = None
    """``notify_now(request)``: a notification taken synchronously, in order, with nothing to wait for."""


NO_HOOKS = SeatHooks()
"""The hooks of a seat that offers none."""


def _serialize(request: Any) -> bytes:
    # A request the referee already serialised goes as it is; a message is serialised as the stub would.
    return request if type(request) is bytes else request.SerializeToString()


class GrpcSeat:
    """A bot served over gRPC at ``address`` (``host:port``, or ``unix:PATH``).

    One channel per bot, made lazily inside the running event loop (aio channels belong to one
    loop) and reused by every match that seats this bot, concurrent ones included. The handshake
    is asked once per channel and remembered.

    Each decision sends its ``Ask``'s bytes, encoded once from the seat's observation: those very
    bytes go on the wire. Every reply is read by the seat's own
    deserializer, which measures it against ``max_receive_bytes`` (gRPC's own limit on the channel
    is four times that, so the referee sees an oversized reply rather than a gRPC error about it).
    """

    def __init__(
        self,
        address: str,
        name: str | None = None,
        *,
        max_receive_bytes: int = MAX_RECEIVE_BYTES,
        diagnose: Callable[[], Awaitable[str | None]] | None = None,
        vouch: Callable[[], Awaitable[str | None]] | None = None,
        isolation: Isolation | None = None,
    ) -> None:
        """``isolation``: what guards the bot, from whoever started it (its launcher); None when
        nobody here knows."""
        self.address: str | None = address  # always set: typed as the Seat interface has it
        self.name = name
        self.isolation = isolation
        # Asked when the bot is unreachable: the resource limit its launcher stopped it at, if any.
        self.diagnose = diagnose
        # Asked before every handshake: what its launcher saw serving the address, when that is not
        # the seat's own bot (None when it is).
        self.vouch = vouch
        self.max_receive_bytes = max_receive_bytes
        self._hard_limit = 4 * max_receive_bytes
        self._options = [o for o in CHANNEL_OPTIONS if o[0] != "grpc.max_receive_message_length"]
        self._options.append(("grpc.max_receive_message_length", self._hard_limit))
        self._channel: grpc.aio.Channel | None = None
        self._stub: bot_pb2_grpc.BotServiceStub | None = None
        self._handshake: Any = None
        self._pass_cards: Any = None
        self._play_card: Any = None
        self._choose_moon: Any = None
        self._discard_cards: Any = None
        self._call_pass: Any = None
        self._charge_cards: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._hello: pb.HandshakeResponse | None = None
        self._hello_task: asyncio.Task[pb.HandshakeResponse] | None = None
        self._closed = False

    def __repr__(self) -> str:
        return f"GrpcSeat({self.address!r}, name={self.name!r})"

    def stub(self) -> bot_pb2_grpc.BotServiceStub:
        if self._closed:
            raise SeatClosed(f"the seat of {self.name or self.address} at {self.address} was closed")
        loop = asyncio.get_running_loop()
        if self._stub is None or self._loop is not loop:
            # A channel of another loop cannot be used here: start afresh, closing the old one.
            self._close_foreign_channel()
            self._channel = grpc.aio.insecure_channel(self.address, options=self._options)
            self._stub = bot_pb2_grpc.BotServiceStub(self._channel)
            # The handshake and the six decisions, read by the seat's own measuring reader and
            # taking serialised requests too.
            (
                self._handshake,
                self._pass_cards,
                self._play_card,
                self._choose_moon,
                self._discard_cards,
                self._call_pass,
                self._charge_cards,
            ) = (
                self._channel.unary_unary(
                    f"/hearts.v1.BotService/{name}",
                    request_serializer=_serialize,
                    response_deserializer=_reader(reply, name, self.max_receive_bytes),
                    _registered_method=True,
                )
                for name, reply in (
                    ("Handshake", pb.HandshakeResponse),
                    ("PassCards", pb.PassCardsResponse),
                    ("PlayCard", pb.PlayCardResponse),
                    ("ChooseMoon", pb.ChooseMoonResponse),
                    ("DiscardCards", pb.DiscardCardsResponse),
                    ("CallPass", pb.CallPassResponse),
                    ("ChargeCards", pb.ChargeCardsResponse),
                )
            )
            self._loop = loop
            self._hello = None
            self._hello_task = None
        return self._stub

    def _close_foreign_channel(self) -> None:
        """Close the channel of another event loop, if any (``close()`` is a coroutine of that loop).

        A loop still running (in another thread) closes it there. A finished loop cannot run
        ``close()`` any more; dropping the channel is all that can be done, and grpc.aio's
        ``Channel.__del__`` then closes its core channel (its connections) synchronously.
        """
        channel, old_loop = self._channel, self._loop
        self._channel = self._stub = None
        if channel is None or old_loop is None or old_loop.is_closed():
            return
        if old_loop.is_running():
            asyncio.run_coroutine_threadsafe(channel.close(), old_loop)

    async def _call(self, rpc: Any, request: Any, timeout: float, method: str, reply_type: type[T]) -> T:
        """One call of ``rpc``; its reply, or the ``SeatError`` the seat observed."""
        t0 = _perf_counter()
        try:
            reply = await rpc(request, timeout=timeout)
        except grpc.aio.AioRpcError as e:
            raise await self._diagnosed(
                await _rpc_failure(e, _perf_counter() - t0, timeout, method, self._channel, self._hard_limit)
            ) from None
        if type(reply) is not reply_type:
            raise _refused(reply, method)
        return reply

    async def _diagnosed(self, error: SeatError) -> SeatError:
        """An unreachable bot's error made a ``ResourceLimitHit`` when its launcher names a limit."""
        if self.diagnose is None or not isinstance(error, BotUnreachable):
            return error
        why = await self.diagnose()
        if why is None:
            return error
        return ResourceLimitHit(f"stopped at a resource limit of its sandbox: {why}", error.received)

    async def handshake(self, request: pb.HandshakeRequest, timeout: float) -> pb.HandshakeResponse:
        """The bot's handshake, asked once per channel and remembered.

        Concurrent callers (a bot in several seats, of one match or several) share one attempt,
        each waiting at most its own ``timeout``; an attempt that fails is forgotten, so the next
        caller asks again.
        """
        stub = self.stub()
        if self.vouch is not None and (seen := await self.vouch()) is not None:
            raise Impersonation(f"the seat is not served by its own bot: {seen}", seen)
        if self._hello is not None:
            return self._hello
        task = self._hello_task
        if task is None:
            task = self._hello_task = asyncio.get_running_loop().create_task(self._greet(stub, request, timeout))
            task.add_done_callback(self._greeted)
        t0 = _perf_counter()
        try:
            return await asyncio.wait_for(asyncio.shield(task), timeout)
        except TimeoutError:
            raise BotTimeout(
                "no handshake before the deadline", f"nothing in {(_perf_counter() - t0) * 1000:.0f} ms"
            ) from None

    async def _greet(
        self, stub: bot_pb2_grpc.BotServiceStub, request: pb.HandshakeRequest, timeout: float
    ) -> pb.HandshakeResponse:
        hello = await self._call(self._handshake, request, timeout, "Handshake", pb.HandshakeResponse)
        if self._stub is stub:  # not a channel closed or replaced meanwhile
            self._hello = hello
        return hello

    def _greeted(self, task: asyncio.Task[pb.HandshakeResponse]) -> None:
        if self._hello_task is task:
            self._hello_task = None  # remembered in _hello when it succeeded; else asked afresh next time
        if not task.cancelled():
            task.exception()  # retrieved: every waiter may have given up before it failed

    async def pass_cards(self, ask: Ask, timeout: float) -> list[int]:
        self.stub()
        reply = await self._call(self._pass_cards, ask.wire(), timeout, "PassCards", pb.PassCardsResponse)
        return list(reply.cards)

    async def play_card(self, ask: Ask, timeout: float) -> int:
        self.stub()
        request = ask.wire()
        t0 = _perf_counter()  # _call written out: this is every play's path
        try:
            reply = await self._play_card(request, timeout=timeout)
        except grpc.aio.AioRpcError as e:
            raise await self._diagnosed(
                await _rpc_failure(e, _perf_counter() - t0, timeout, "PlayCard", self._channel, self._hard_limit)
            ) from None
        if type(reply) is not pb.PlayCardResponse:
            raise _refused(reply, "PlayCard")
        return reply.card

    async def discard_cards(self, ask: Ask, timeout: float) -> list[int]:
        self.stub()
        reply = await self._call(self._discard_cards, ask.wire(), timeout, "DiscardCards", pb.DiscardCardsResponse)
        return list(reply.cards)

    async def call_pass(self, ask: Ask, timeout: float) -> object:
        """``"mix"`` or the offsets the dealer called (judged by the referee)."""
        self.stub()
        reply = await self._call(self._call_pass, ask.wire(), timeout, "CallPass", pb.CallPassResponse)
        return "mix" if reply.mix else tuple(reply.offsets)

    async def charge_cards(self, ask: Ask, timeout: float) -> list[int]:
        self.stub()
        reply = await self._call(self._charge_cards, ask.wire(), timeout, "ChargeCards", pb.ChargeCardsResponse)
        return list(reply.cards)

    async def choose_moon(self, ask: Ask, timeout: float) -> int:
        self.stub()
        reply = await self._call(self._choose_moon, ask.wire(), timeout, "ChooseMoon", pb.ChooseMoonResponse)
        return reply.choice

    async def notify(self, request: pb.NotifyRequest, timeout: float) -> None:
        await self.stub().Notify(request, timeout=timeout)

    async def close(self) -> None:
        """Close the channel, for good: any later call raises ``SeatClosed`` (a transport fault)."""
        self._closed = True
        channel, self._channel, self._stub, self._hello = self._channel, None, None, None
        task, self._hello_task = self._hello_task, None
        if task is not None and task.get_loop() is asyncio.get_running_loop():
            task.cancel()
        self._handshake = self._pass_cards = self._play_card = self._choose_moon = None
        self._discard_cards = self._call_pass = self._charge_cards = None
        if channel is not None:
            if self._loop is asyncio.get_running_loop():
                await channel.close()
            else:
                self._channel = channel
                self._close_foreign_channel()


class InProcessSeat:
    """A Python object seated directly: fast local play and tests.

    The object has ``pass_cards(obs)``, ``play_card(obs)`` and, for the rules that ask them,
    ``choose_moon(obs)``, ``discard_cards(obs)`` (under kitty_discard), ``charge_cards(obs)`` (every seat,
    under turbo_charging), ``call_pass(obs)`` (the dealer, where the pass cycle says call) and
    ``notify(request)``; each may be a coroutine function (then the deadline applies) or a plain one
    (then the referee can only measure it afterwards). A method the object lacks is
    ``BotUnimplemented``, as UNIMPLEMENTED is over gRPC: the referee decides what stands instead.
    Answers may be Cards, card text, wire enum values or MoonChoices; anything else goes to the
    referee as a malformed answer.
    """

    address: str | None = None
    isolation: Isolation | None = Isolation("in-process")

    def __init__(self, bot: Any, name: str | None = None) -> None:
        self.bot = bot
        self.name = name if name is not None else getattr(bot, "name", None) or type(bot).__name__

    def __repr__(self) -> str:
        return f"InProcessSeat({self.bot!r}, name={self.name!r})"

    async def _call(self, method: str, arg: Any, timeout: float) -> Any:
        call = getattr(self.bot, method, None)
        if not callable(call):  # looked up first: an AttributeError raised inside a method is the bot's error
            raise BotUnimplemented(f"the bot has no {method} method", f"no {method}")
        t0 = _perf_counter()
        try:
            result = call(arg)
            if inspect.isawaitable(result):
                result = await asyncio.wait_for(result, timeout)
        except Exception as e:
            if isinstance(e, TimeoutError) and _perf_counter() - t0 >= timeout * 0.999:
                raise BotTimeout("no answer before the deadline", "nothing") from None
            raise BotErrorStatus(f"the bot raised {type(e).__name__}: {_message(e)}"[:300], _message(e, repr)) from None
        return result

    async def handshake(self, request: pb.HandshakeRequest, timeout: float) -> pb.HandshakeResponse:
        return pb.HandshakeResponse(
            protocol_version=codec.PROTOCOL_VERSION,
            name=self.name or "",
            language="python",
            wants_notifications=hasattr(self.bot, "notify"),
        )

    async def pass_cards(self, ask: Ask, timeout: float) -> list[int]:
        return _card_values(await self._call("pass_cards", ask.observation, timeout))

    async def play_card(self, ask: Ask, timeout: float) -> int:
        return _card_value(await self._call("play_card", ask.observation, timeout))

    async def discard_cards(self, ask: Ask, timeout: float) -> list[int]:
        return _card_values(await self._call("discard_cards", ask.observation, timeout))

    async def charge_cards(self, ask: Ask, timeout: float) -> list[int]:
        answer = await self._call("charge_cards", ask.observation, timeout)
        return [] if answer is None else _card_values(answer)  # None (or an empty list) charges nothing

    async def call_pass(self, ask: Ask, timeout: float) -> object:
        answer = await self._call("call_pass", ask.observation, timeout)
        return "" if answer is None else answer  # None is an answer (no call: a fault), not a missing one

    async def choose_moon(self, ask: Ask, timeout: float) -> int:
        answer = await self._call("choose_moon", ask.observation, timeout)
        if isinstance(answer, int):
            return answer
        try:
            choice = MoonChoice(answer)
        except ValueError:
            return pb.MOON_CHOICE_UNSPECIFIED
        return {
            MoonChoice.ADD_TO_OTHERS: pb.MOON_CHOICE_ADD_TO_OTHERS,
            MoonChoice.SUBTRACT_FROM_SHOOTER: pb.MOON_CHOICE_SUBTRACT_FROM_SHOOTER,
        }[choice]

    async def notify(self, request: pb.NotifyRequest, timeout: float) -> None:
        if hasattr(self.bot, "notify"):
            await self._call("notify", request, timeout)

    async def close(self) -> None:
        return None


def _message(error: BaseException, show: Callable[[object], str] = str) -> str:
    """An in-process bot's exception as text (capped); an exception whose ``__str__`` fails is still named."""
    try:
        return show(error)[:300]
    except Exception:
        return f"<{type(error).__name__}>"


def _card_values(answer: Any) -> list[int]:
    """A bot's answer of several cards (a pass, a discard) as wire enum values; a lone card or
    ``None`` is one value, for the referee to judge as a wrong count."""
    if answer is None or isinstance(answer, (str, int, Card)):
        return [_card_value(answer)]
    return [_card_value(c) for c in answer]


def _card_value(answer: object) -> int:
    """A bot's card answer as a wire enum value; 0 (CARD_UNSPECIFIED) when it is no card at all."""
    if isinstance(answer, Card):
        return answer.index + 1
    if isinstance(answer, int) and not isinstance(answer, bool):
        return answer
    if isinstance(answer, str):
        try:
            return Card.parse(answer).index + 1
        except ValueError:
            return 0
    return 0


class SeatUnreachable(Exception):
    """Bots that cannot be reached before a match; the message says what to check, and
    ``addresses`` are the addresses where nothing answered."""

    def __init__(self, message: str, addresses: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.addresses = tuple(addresses)


def parse_seat(spec: str) -> tuple[str, str]:
    """``"NAME=HOST:PORT"`` → ``(name, "host:port")``; ``ValueError`` saying what was expected."""
    name, sep, address = spec.partition("=")
    host, colon, port = address.rpartition(":")
    if not sep or not name.strip() or not colon or not host or not port.isdigit():
        raise ValueError(f"seat {spec!r} is not NAME=HOST:PORT (e.g. random=localhost:50051)")
    return name.strip(), address.strip()


def unreachable_message(name: str, address: str, error: BaseException) -> str | None:
    """A message a person can act on when ``error`` means the bot is not there; else None."""
    if isinstance(error, (BotUnreachable, BotTimeout)):
        why = inert(f"{error.detail}; {error.received}")  # the status text may be the bot's own
    elif isinstance(error, (TimeoutError, OSError)):  # asyncio.TimeoutError is TimeoutError
        why = repr(error)
    else:
        return None
    port = address.rpartition(":")[2]
    return (
        f"cannot reach bot {name!r} at {address} ({why}).\n"
        f"  Is the bot running? Is it listening on port {port} of that host?"
    )


async def reach(seats: Sequence[Seat], timeout: float = 3.0) -> list[BaseException | None]:
    """Handshake every seat once; for each, ``None`` or the error (for a friendly check up front)."""
    request = codec.handshake_request(REFEREE_NAME)

    async def one(seat: Seat) -> BaseException | None:
        try:
            await seat.handshake(request, timeout)
        except Exception as e:
            return e
        return None

    return list(await asyncio.gather(*(one(s) for s in seats)))
