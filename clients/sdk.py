"""The Python bot SDK: write a class with ``pass_cards`` and ``play_card``, then ``serve(bot)``.

A bot never touches protobuf or gRPC. Each request arrives as a ``View`` (clients/view.py: the
engine's ``Observation`` of the bot's seat plus the match id, the players' names and the clock)
and the bot answers with engine values (``Card``, ``MoonChoice``)::

    class Lowest:
        def pass_cards(self, view):
            return sorted(view.hand, key=lambda c: c.rank)[-view.rules.pass_count:]

        def play_card(self, view):
            return min(view.legal, key=lambda c: c.rank)

    serve(Lowest(), port=50051)

The server is ``grpc.aio`` with the standard health service (SERVING) and server reflection.
Bot methods may be plain functions or coroutines. Plain ones run on the event loop itself: they
are fast for a heuristic, and running them inline costs nothing, but while one runs no other
request is served. A bot that thinks for long should be ``async def`` (and ``await
asyncio.to_thread(...)`` its search) so that concurrent games keep flowing.

A bot method that raises becomes an error status carrying the exception's message: the referee
records a fault and plays a substitute card (see docs/protocol.md).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import os
import signal
import sys
import threading
import traceback
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol, TypeVar, runtime_checkable

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from clients.view import View, view_from_wire
from hearts.v1 import bot_pb2 as pb
from hearts.v1 import bot_pb2_grpc
from hearts.v1.codec import PROTOCOL_VERSION, card_to_wire, trick_from_wire
from referee.rules import Card, MoonChoice, Phase, Trick, pass_call

__all__ = [
    "ADDRESS_ENV",
    "PORT_ENV",
    "PROTOCOL_VERSION",
    "SERVICE_NAME",
    "AnswerError",
    "Bot",
    "BotMethods",
    "BotProtocol",
    "BotServer",
    "BotServicer",
    "ListenError",
    "Notification",
    "ThreadedBotServer",
    "View",
    "answer_failure",
    "as_card",
    "bot_address",
    "bot_port",
    "call_answer",
    "cards_answer",
    "default_charge",
    "default_discard",
    "handshake_of",
    "moon_answer",
    "notification_from_wire",
    "play_answer",
    "serve",
    "serve_async",
    "start_in_thread",
]

SERVICE_NAME = pb.DESCRIPTOR.services_by_name["BotService"].full_name  # "hearts.v1.BotService"

# A second bot started on a taken port must fail loudly, not silently share the port's traffic
# (SO_REUSEPORT is on by default in gRPC: a second server on a taken port binds silently).
SERVER_OPTIONS: tuple[tuple[str, Any], ...] = (("grpc.so_reuseport", 0),)

log = logging.getLogger("hearts.sdk")


class ListenError(OSError):
    """The server cannot listen on the address asked for (most often: the port is taken)."""


T = TypeVar("T")


@runtime_checkable
class BotProtocol(Protocol):
    """What a bot must have. Everything else (``Bot``'s attributes, ``choose_moon``, ``discard_cards``,
    ``call_pass``, ``charge_cards``, ``notify``) is optional."""

    def pass_cards(self, view: View) -> Sequence[Card] | Awaitable[Sequence[Card]]: ...

    def play_card(self, view: View) -> Card | Awaitable[Card]: ...


class Bot:
    """An optional base class: the handshake attributes, ``choose_moon``, ``discard_cards`` and ``call_pass``
    with their defaults.

    Any object with ``pass_cards`` and ``play_card`` is a bot; subclassing only saves typing.
    """

    name: str = ""  # default: the class name
    version: str = "0"
    author: str = ""
    presets: Sequence[str] = ()  # the presets supported; empty means every preset
    options: Sequence[str] = ()  # the rule options supported away from their defaults; empty means all
    max_concurrent_games: int = 0  # 0: no limit

    def pass_cards(self, view: View) -> Sequence[Card]:
        raise NotImplementedError

    def play_card(self, view: View) -> Card:
        raise NotImplementedError

    def choose_moon(self, view: View) -> MoonChoice:
        return MoonChoice.ADD_TO_OTHERS

    def discard_cards(self, view: View) -> Sequence[Card]:
        return default_discard(view)

    def call_pass(self, view: View) -> str | Sequence[int]:
        return "left"

    def charge_cards(self, view: View) -> Sequence[Card]:
        return default_charge(view)


def default_charge(view: View) -> list[Card]:
    """What a bot without ``charge_cards`` charges under turbo_charging: nothing (002 'each player may
    turbo-charge': charging is a choice)."""
    return []


def default_discard(view: View) -> list[Card]:
    """What a bot without ``discard_cards`` discards under kitty_discard: as many cards as the kitty
    held, those that score nothing first (highest first: they would win tricks), then the cheapest."""
    pts = view.rules.card_points
    return sorted(view.hand, key=lambda c: (pts[c.index] != 0, abs(pts[c.index]), -c.rank))[: len(view.kitty)]


@dataclass(frozen=True)
class Notification:
    """A public event of a match, delivered to ``bot.notify`` (only bots that define it ask for them).

    ``kind`` is "trick_completed" (``trick`` set), "hand_scored" (the per-seat tuples and the
    shooters set) or "match_over" (``totals``, ``places`` and ``forfeited`` set). Under
    ``rules.partnership`` the teams' figures come too, team 0 (seats 0 and 2) first: ``team_hand_score``
    and ``team_totals`` of a hand, ``teams`` (each seat's team) and ``team_totals`` at the match's end.
    """

    match_id: str
    seat: int
    kind: str
    hand_number: int | None = None
    trick: Trick | None = None
    points_taken: tuple[int, ...] = ()
    hand_score: tuple[int, ...] = ()
    totals: tuple[int, ...] = ()
    moon_shooter: int | None = None
    sun_shooter: int | None = None
    places: tuple[int, ...] = ()
    forfeited: tuple[int, ...] = ()
    team_hand_score: tuple[int, ...] = ()
    team_totals: tuple[int, ...] = ()
    teams: tuple[int, ...] = ()


def notification_from_wire(msg: pb.NotifyRequest) -> Notification:
    kind = msg.WhichOneof("event") or ""
    if kind == "trick_completed":
        e = msg.trick_completed
        return Notification(msg.match_id, msg.seat, kind, hand_number=e.hand_number, trick=trick_from_wire(e.trick))
    if kind == "hand_scored":
        h = msg.hand_scored
        return Notification(
            msg.match_id,
            msg.seat,
            kind,
            hand_number=h.hand_number,
            points_taken=tuple(h.points_taken),
            hand_score=tuple(h.hand_score),
            totals=tuple(h.totals),
            moon_shooter=h.moon_shooter if h.HasField("moon_shooter") else None,
            sun_shooter=h.sun_shooter if h.HasField("sun_shooter") else None,
            team_hand_score=tuple(h.team_hand_score),
            team_totals=tuple(h.team_totals),
        )
    if kind == "match_over":
        o = msg.match_over
        return Notification(
            msg.match_id,
            msg.seat,
            kind,
            totals=tuple(o.totals),
            places=tuple(o.places),
            forfeited=tuple(o.forfeited),
            teams=tuple(o.teams),
            team_totals=tuple(o.team_totals),
        )
    return Notification(msg.match_id, msg.seat, kind)


class AnswerError(TypeError):
    """A bot's answer that is no answer of its kind (not a card, not a moon choice, not a pass): the
    bot's own mistake, reported as what it returned."""


def as_card(answer: object) -> Card:
    """A bot's card answer as a Card: a Card, or card text such as "QS" (a convenience for quick bots);
    anything else is the bot's error (``AnswerError``)."""
    if isinstance(answer, Card):
        return answer
    if isinstance(answer, str):
        try:
            return Card.parse(answer)
        except ValueError as e:
            raise AnswerError(f"returned {answer!r}, which is no card ({e})") from None
    raise AnswerError(f"returned {type(answer).__name__} {answer!r}, not a Card (nor card text such as 'QS')")


def cards_answer(cards: Iterable[object]) -> list[pb.Card]:
    """A pass or discard answer as wire card values (the referee judges the count and the cards)."""
    if type(cards) is list or type(cards) is tuple:  # the common answers, without the abc checks below
        return [card_to_wire(c if type(c) is Card else as_card(c)) for c in cards]
    if isinstance(cards, (str, Card)) or not isinstance(cards, Iterable):
        raise AnswerError(f"returned {type(cards).__name__} {cards!r}, not a list of cards")
    return [card_to_wire(as_card(c)) for c in cards]


def play_answer(card: object) -> pb.Card:
    """A play answer as a wire card value."""
    return card_to_wire(as_card(card))


def moon_answer(answer: object) -> pb.MoonChoice:
    """A moon choice (a MoonChoice, or its text such as "add-to-others") as its wire value."""
    try:
        choice = MoonChoice(answer)
    except ValueError:
        raise AnswerError(
            f"returned {answer!r}, which is no moon choice (MoonChoice.ADD_TO_OTHERS or SUBTRACT_FROM_SHOOTER)"
        ) from None
    if choice is MoonChoice.ADD_TO_OTHERS:
        return pb.MOON_CHOICE_ADD_TO_OTHERS
    return pb.MOON_CHOICE_SUBTRACT_FROM_SHOOTER


def call_answer(view: View, call: object) -> tuple[bool, list[int]]:
    """The dealer's call ("left", "mix", offsets...) as the wire has it: (mix, offsets). A call that is
    no pass is the bot's error (``AnswerError``), here as on the bot's own server."""
    try:
        direction, offsets = pass_call(view.rules.players, view.rules.pass_count, call)  # type: ignore[arg-type]
    except (ValueError, TypeError) as e:
        raise AnswerError(f"returned {call!r}, which is no pass ({e})") from None
    return direction == "mix", list(offsets)


def answer_failure(what: str, error: BaseException) -> str:
    """A bot method's failure in a line: what it returned that was no answer, or what it raised and
    where (the innermost file and line of its traceback)."""
    if isinstance(error, AnswerError):
        return f"{what} {error}"
    try:
        text = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    except Exception:  # an exception whose __str__ fails is still named
        text = type(error).__name__
    frames = traceback.extract_tb(error.__traceback__)
    where = f" (at {Path(frames[-1].filename).name}:{frames[-1].lineno} in {frames[-1].name})" if frames else ""
    return f"{what} raised {text}{where}"


def handshake_of(bot: object) -> pb.HandshakeResponse:
    """The handshake a bot object answers: its attributes (``Bot``'s), with the SDK's defaults."""
    return pb.HandshakeResponse(
        protocol_version=PROTOCOL_VERSION,
        name=str(getattr(bot, "name", "") or type(bot).__name__),
        version=str(getattr(bot, "version", "") or "0"),
        author=str(getattr(bot, "author", "") or ""),
        language="python",
        presets=list(getattr(bot, "presets", ()) or ()),
        options=list(getattr(bot, "options", ()) or ()),
        max_concurrent_games=int(getattr(bot, "max_concurrent_games", 0) or 0),
        wants_notifications=callable(getattr(bot, "notify", None)),
    )


class BotMethods:
    """A bot object's methods, resolved once with the SDK's defaults: the one way a bot is called,
    by its gRPC server and by a seat that plays it in-process alike."""

    def __init__(self, bot: BotProtocol) -> None:
        if not callable(getattr(bot, "pass_cards", None)) or not callable(getattr(bot, "play_card", None)):
            raise TypeError(f"{type(bot).__name__} is not a bot: it needs pass_cards(view) and play_card(view)")
        for name in ("pass_cards", "play_card"):
            if getattr(type(bot), name, None) is getattr(Bot, name):
                raise TypeError(
                    f"{type(bot).__name__} does not define {name}(view): it inherits Bot.{name}, which only "
                    "raises NotImplementedError"
                )
        self.bot = bot
        self.pass_cards: Callable[[View], Any] = bot.pass_cards
        self.play_card: Callable[[View], Any] = bot.play_card
        self.choose_moon: Callable[[View], Any] | None = getattr(bot, "choose_moon", None)
        self.discard_cards: Callable[[View], Any] = getattr(bot, "discard_cards", None) or default_discard
        self.call_pass: Callable[[View], Any] = getattr(bot, "call_pass", None) or _plain_pass
        self.charge_cards: Callable[[View], Any] = getattr(bot, "charge_cards", None) or default_charge
        self.notify: Callable[[Notification], Any] | None = getattr(bot, "notify", None)


def _plain_pass(view: View) -> str:
    return "left"


async def _maybe_await(value: T | Awaitable[T]) -> T:
    if inspect.isawaitable(value):
        return await value
    return value


class BotServicer(bot_pb2_grpc.BotServiceServicer):
    """hearts.v1.BotService over one bot object: requests become Views, answers become messages."""

    def __init__(self, bot: BotProtocol) -> None:
        self.bot = bot
        self.methods = BotMethods(bot)

    async def _answer(self, context: grpc.aio.ServicerContext, what: str, make: Callable[[], Awaitable[T]]) -> T:
        # Any failure of the bot (an exception, a reply that cannot be encoded) becomes an error
        # status with the message, so the referee records a fault naming it; abort() raises, so it
        # stays outside the try.
        try:
            return await make()
        except (Exception, SystemExit) as e:  # sys.exit in a bot method fails that call, not the server
            if isinstance(e, AnswerError):
                log.error("%s %s", what, e)
            else:
                log.exception("%s failed", what)
            message = answer_failure(what, e)
        # UNKNOWN, as gRPC itself reports an uncaught handler exception.
        await context.abort(grpc.StatusCode.UNKNOWN, message)
        raise AssertionError("unreachable: abort raises")

    async def Handshake(self, request: pb.HandshakeRequest, context: grpc.aio.ServicerContext) -> pb.HandshakeResponse:
        return handshake_of(self.bot)

    async def PassCards(self, request: pb.PassCardsRequest, context: grpc.aio.ServicerContext) -> pb.PassCardsResponse:
        async def make() -> pb.PassCardsResponse:
            view = view_from_wire(request.view, Phase.PASS)
            cards = await _maybe_await(self.methods.pass_cards(view))
            return pb.PassCardsResponse(cards=cards_answer(cards))

        return await self._answer(context, "pass_cards", make)

    async def PlayCard(self, request: pb.PlayCardRequest, context: grpc.aio.ServicerContext) -> pb.PlayCardResponse:
        async def make() -> pb.PlayCardResponse:
            view = view_from_wire(request.view, Phase.PLAY)
            card = await _maybe_await(self.methods.play_card(view))
            return pb.PlayCardResponse(card=play_answer(card))

        return await self._answer(context, "play_card", make)

    async def CallPass(self, request: pb.CallPassRequest, context: grpc.aio.ServicerContext) -> pb.CallPassResponse:
        async def make() -> pb.CallPassResponse:
            view = view_from_wire(request.view, Phase.CALL)
            call = await _maybe_await(self.methods.call_pass(view))
            mix, offsets = call_answer(view, call)
            return pb.CallPassResponse(mix=mix, offsets=offsets)

        return await self._answer(context, "call_pass", make)

    async def DiscardCards(
        self, request: pb.DiscardCardsRequest, context: grpc.aio.ServicerContext
    ) -> pb.DiscardCardsResponse:
        async def make() -> pb.DiscardCardsResponse:
            view = view_from_wire(request.view, Phase.DISCARD)
            cards = await _maybe_await(self.methods.discard_cards(view))
            return pb.DiscardCardsResponse(cards=cards_answer(cards))

        return await self._answer(context, "discard_cards", make)

    async def ChargeCards(
        self, request: pb.ChargeCardsRequest, context: grpc.aio.ServicerContext
    ) -> pb.ChargeCardsResponse:
        async def make() -> pb.ChargeCardsResponse:
            view = view_from_wire(request.view, Phase.CHARGE)
            cards = await _maybe_await(self.methods.charge_cards(view))
            return pb.ChargeCardsResponse(cards=cards_answer(cards or ()))

        return await self._answer(context, "charge_cards", make)

    async def ChooseMoon(
        self, request: pb.ChooseMoonRequest, context: grpc.aio.ServicerContext
    ) -> pb.ChooseMoonResponse:
        async def make() -> pb.ChooseMoonResponse:
            choose = self.methods.choose_moon
            if choose is None:
                return pb.ChooseMoonResponse(choice=pb.MOON_CHOICE_ADD_TO_OTHERS)
            view = view_from_wire(request.view, Phase.MOON, request.moon_points)
            return pb.ChooseMoonResponse(choice=moon_answer(await _maybe_await(choose(view))))

        return await self._answer(context, "choose_moon", make)

    async def Notify(self, request: pb.NotifyRequest, context: grpc.aio.ServicerContext) -> pb.NotifyResponse:
        notify = self.methods.notify
        if notify is not None:

            async def make() -> pb.NotifyResponse:
                await _maybe_await(notify(notification_from_wire(request)))
                return pb.NotifyResponse()

            return await self._answer(context, "notify", make)
        return pb.NotifyResponse()


def _hostport(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


class BotServer:
    """A bot served on ``grpc.aio`` with health and reflection, inside the running event loop.

    ``async with BotServer(bot, port=0) as srv: srv.port`` (port 0 picks a free port). The server
    belongs to the loop that started it (gRPC aio objects are loop-bound).
    """

    def __init__(
        self,
        bot: BotProtocol,
        port: int = 0,
        host: str = "127.0.0.1",
        *,
        grace: float = 1.0,
        listen: str | None = None,
    ) -> None:
        self.servicer = BotServicer(bot)
        self.host = host
        self.requested_port = port
        self.listen = listen  # a whole gRPC address (``unix:/run/hearts/bot.sock``) instead of host and port
        self.grace = grace
        self.port = 0
        self._server: grpc.aio.Server | None = None
        self._health: health.aio.HealthServicer | None = None

    @property
    def address(self) -> str:
        """``HOST:PORT`` with the bound port (or the ``listen`` address), for a client's channel."""
        return self.listen if self.listen is not None else _hostport(self.host, self.port)

    async def start(self) -> BotServer:
        server = grpc.aio.server(options=list(SERVER_OPTIONS))
        bot_pb2_grpc.add_BotServiceServicer_to_server(self.servicer, server)
        self._health = health.aio.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(self._health, server)
        reflection.enable_server_reflection((SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME), server)
        where = self.listen if self.listen is not None else _hostport(self.host, self.requested_port)
        try:
            port = server.add_insecure_port(where)
        except RuntimeError as e:  # grpcio raises on a failed bind; name the address in the error
            raise ListenError(f"cannot listen on {where}: {e}") from None
        if not port:  # older grpcio returned 0 instead of raising (a unix socket returns 1)
            raise ListenError(f"cannot listen on {where}")
        self.port = port
        await server.start()
        for service in ("", SERVICE_NAME):  # "" is the whole server, what a plain health probe asks
            await self._health.set(service, health_pb2.HealthCheckResponse.SERVING)
        self._server = server
        return self

    async def stop(self, grace: float | None = None) -> None:
        """Report NOT_SERVING, then let requests in flight finish for up to ``grace`` seconds."""
        server, self._server = self._server, None
        if server is None:
            return
        if self._health is not None:
            await self._health.enter_graceful_shutdown()
        await server.stop(self.grace if grace is None else grace)

    async def wait_for_termination(self) -> None:
        if self._server is not None:
            await self._server.wait_for_termination()

    async def __aenter__(self) -> BotServer:
        return await self.start()

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.stop()


class ThreadedBotServer:
    """A ``BotServer`` on its own event loop in a daemon thread: for pytest fixtures and sync code.

    ``with start_in_thread(bot) as srv: grpc.insecure_channel(srv.address)``. ``start()``
    returns once the port is bound (or raises what the bind raised); ``stop()`` joins the thread.
    """

    def __init__(self, bot: BotProtocol, port: int = 0, host: str = "127.0.0.1", *, grace: float = 0.5) -> None:
        self._server = BotServer(bot, port, host, grace=grace)
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._run, name=f"bot-server-{host}:{port}", daemon=True)

    @property
    def port(self) -> int:
        return self._server.port

    @property
    def address(self) -> str:
        return self._server.address

    def _run(self) -> None:
        try:
            asyncio.run(self._main())
        except BaseException as e:
            self._error = e
            self._ready.set()

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        async with self._server:
            self._ready.set()
            await self._stop.wait()

    def start(self, timeout: float = 10.0) -> ThreadedBotServer:
        self._thread.start()
        if not self._ready.wait(timeout):
            raise TimeoutError(f"the bot server did not start within {timeout} s")
        if self._error is not None:
            raise self._error
        return self

    def stop(self, timeout: float = 10.0) -> None:
        if self._loop is not None and self._stop is not None and self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(timeout)

    def __enter__(self) -> ThreadedBotServer:
        return self if self._thread.is_alive() else self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


def start_in_thread(bot: BotProtocol, port: int = 0, host: str = "127.0.0.1") -> ThreadedBotServer:
    """Serve ``bot`` in a background thread; returns once it listens (``.port``, ``.address``, ``.stop()``)."""
    return ThreadedBotServer(bot, port, host).start()


PORT_ENV = "HEARTS_BOT_PORT"
"""The port the harness's launcher gives a bot it starts (and ``HEARTS_BOT_NAME`` its name)."""


def bot_port(default: int = 0, argv: Sequence[str] | None = None) -> int:
    """The port a bot listens on: ``--port N`` on its command line, else ``HEARTS_BOT_PORT`` (which the
    launcher sets), else ``default``. So a bot written with a fixed port runs unchanged under the
    launcher, beside other copies of itself."""
    args = list(sys.argv[1:] if argv is None else argv)
    for i, a in enumerate(args):
        text = (
            a.partition("=")[2]
            if a.startswith("--port=")
            else (args[i + 1] if a == "--port" and i + 1 < len(args) else None)
        )
        if text is not None:
            if not text.isdigit() or int(text) > 65535:
                raise ValueError(f"--port {text!r} is not a port number (0 to 65535)")
            return int(text)
    env = os.environ.get(PORT_ENV, "")
    if env:
        if not env.isdigit() or int(env) > 65535:
            raise ValueError(f"{PORT_ENV}={env!r} is not a port number (0 to 65535)")
        return int(env)
    return default


ADDRESS_ENV = "HEARTS_BOT_ADDRESS"
"""A whole address to listen on, e.g. ``unix:/run/hearts/bot.sock``: what the launcher gives a
sandboxed bot, which has no network. It wins over any port."""


def bot_address(argv: Sequence[str] | None = None) -> str | None:
    """The address a bot listens on instead of a port: ``--address A`` on its command line, else
    ``HEARTS_BOT_ADDRESS``, else None (listen on a port: ``bot_port``)."""
    args = list(sys.argv[1:] if argv is None else argv)
    for i, a in enumerate(args):
        if a.startswith("--address="):
            return a.partition("=")[2]
        if a == "--address" and i + 1 < len(args):
            return args[i + 1]
    return os.environ.get(ADDRESS_ENV) or None


async def serve_async(bot: BotProtocol, port: int = 0, host: str = "127.0.0.1") -> None:
    """Serve until SIGTERM or SIGINT, then stop gracefully. Prints ``listening on ADDRESS`` once bound.

    The address is ``bot_address()`` (``--address`` or ``HEARTS_BOT_ADDRESS``, e.g. a unix socket)
    if given, else ``HOST:`` ``bot_port(port)``: ``--port N`` on the command line or
    ``HEARTS_BOT_PORT`` win over ``port``.
    """
    listen = bot_address()
    async with BotServer(bot, 0 if listen else bot_port(port), host, listen=listen) as srv:
        # The line a launcher waits for to learn the port (port 0 picks one): flush it at once.
        print(f"listening on {srv.address}", flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        try:
            await stop.wait()
        finally:
            for sig in (signal.SIGTERM, signal.SIGINT):
                loop.remove_signal_handler(sig)


def serve(bot: BotProtocol, port: int = 0, host: str = "127.0.0.1") -> None:
    """Serve ``bot`` until SIGTERM or SIGINT (blocks), on ``--port N`` from the command line, else
    ``HEARTS_BOT_PORT``, else ``port``. See ``serve_async``."""
    asyncio.run(serve_async(bot, port, host))
