"""Small test bots written on the raw generated stubs, one per fault kind, and a sync server helper.

Each faulty bot passes and plays well except for the one thing it gets wrong, so every fault in
a match comes from that one kind.
"""

from __future__ import annotations

import threading
import time
from concurrent import futures
from typing import Any

import grpc

from hearts.v1 import bot_pb2 as pb
from hearts.v1 import bot_pb2_grpc
from hearts.v1.codec import PROTOCOL_VERSION

SERVER_OPTIONS = [("grpc.so_reuseport", 0)]  # a clash on a port must fail loudly


def start_server(*handlers: Any, workers: int = 8) -> tuple[grpc.Server, str]:
    """A sync gRPC server on a free loopback port with a servicer or generic handlers."""
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=workers), options=SERVER_OPTIONS)
    for h in handlers:
        if isinstance(h, bot_pb2_grpc.BotServiceServicer):
            bot_pb2_grpc.add_BotServiceServicer_to_server(h, server)
        else:
            server.add_generic_rpc_handlers((h,))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    return server, f"127.0.0.1:{port}"


class FirstLegal(bot_pb2_grpc.BotServiceServicer):
    """A good bot: the first cards of its hand, the first legal card, the usual moon scoring. It answers
    every RPC of the protocol, so its handshake says the newest version."""

    name = "first-legal"
    protocol_version = PROTOCOL_VERSION

    def __init__(self) -> None:
        self.calls = 0
        self.notified = 0
        self.lock = threading.Lock()

    def Handshake(self, request: pb.HandshakeRequest, context: Any) -> pb.HandshakeResponse:
        return pb.HandshakeResponse(
            protocol_version=self.protocol_version, name=self.name, version="1", language="python"
        )

    def PassCards(self, request: pb.PassCardsRequest, context: Any) -> pb.PassCardsResponse:
        with self.lock:
            self.calls += 1
        v = request.view
        return pb.PassCardsResponse(cards=list(v.hand)[: v.rules.pass_count])

    def PlayCard(self, request: pb.PlayCardRequest, context: Any) -> pb.PlayCardResponse:
        with self.lock:
            self.calls += 1
        return pb.PlayCardResponse(card=request.view.legal_cards[0])

    def DiscardCards(self, request: pb.DiscardCardsRequest, context: Any) -> pb.DiscardCardsResponse:
        with self.lock:
            self.calls += 1
        return pb.DiscardCardsResponse(cards=list(request.view.hand)[: request.count])

    def CallPass(self, request: pb.CallPassRequest, context: Any) -> pb.CallPassResponse:
        with self.lock:
            self.calls += 1
        return pb.CallPassResponse(offsets=[1] * request.view.rules.pass_count)

    def ChooseMoon(self, request: pb.ChooseMoonRequest, context: Any) -> pb.ChooseMoonResponse:
        return pb.ChooseMoonResponse(choice=pb.MOON_CHOICE_ADD_TO_OTHERS)

    def ChargeCards(self, request: pb.ChargeCardsRequest, context: Any) -> pb.ChargeCardsResponse:
        with self.lock:
            self.calls += 1
        return pb.ChargeCardsResponse()  # turbo_charging: charges nothing

    def Notify(self, request: pb.NotifyRequest, context: Any) -> pb.NotifyResponse:
        with self.lock:
            self.notified += 1
        return pb.NotifyResponse()


class ShortDiscard(FirstLegal):
    """Under kitty_discard, discards one card too few."""

    name = "short-discard"

    def DiscardCards(self, request: pb.DiscardCardsRequest, context: Any) -> pb.DiscardCardsResponse:
        return pb.DiscardCardsResponse(cards=list(request.view.hand)[: request.count - 1])


class BadCall(FirstLegal):
    """Where the dealer calls the pass, calls one offset too few."""

    name = "bad-call"

    def CallPass(self, request: pb.CallPassRequest, context: Any) -> pb.CallPassResponse:
        return pb.CallPassResponse(offsets=[1] * (request.view.rules.pass_count - 1))


class NoDiscard(FirstLegal):
    """A bot written before kitty_discard: DiscardCards is UNIMPLEMENTED (the generated default)."""

    name = "no-discard"
    DiscardCards = bot_pb2_grpc.BotServiceServicer.DiscardCards


class NoCharge(FirstLegal):
    """A bot written before turbo_charging: ChargeCards is UNIMPLEMENTED (the generated default), and its
    handshake says protocol 1, naming no presets."""

    name = "no-charge"
    protocol_version = 1
    ChargeCards = bot_pb2_grpc.BotServiceServicer.ChargeCards


class NoCall(FirstLegal):
    """A bot written before the dealer's call: CallPass is UNIMPLEMENTED (the generated default)."""

    name = "no-call"
    CallPass = bot_pb2_grpc.BotServiceServicer.CallPass


class SaysUnimplemented(FirstLegal):
    """Fails each ChargeCards with another status whose message claims UNIMPLEMENTED: the bot's own error."""

    name = "says-unimplemented"

    def ChargeCards(self, request: pb.ChargeCardsRequest, context: Any) -> pb.ChargeCardsResponse:
        context.abort(grpc.StatusCode.INTERNAL, "UNIMPLEMENTED: Method not found!")
        raise AssertionError("abort raises")


class OverCharge(FirstLegal):
    """Charges its whole hand under turbo_charges=one: more cards than allowed, most not chargeable."""

    name = "over-charge"

    def ChargeCards(self, request: pb.ChargeCardsRequest, context: Any) -> pb.ChargeCardsResponse:
        return pb.ChargeCardsResponse(cards=list(request.view.hand))


class Listener(FirstLegal):
    """A good bot that asks for notifications; a Notify that fails must never be a fault."""

    name = "listener"

    def Handshake(self, request: pb.HandshakeRequest, context: Any) -> pb.HandshakeResponse:
        return pb.HandshakeResponse(protocol_version=self.protocol_version, name=self.name, wants_notifications=True)


class BrokenListener(Listener):
    name = "broken-listener"

    def Notify(self, request: pb.NotifyRequest, context: Any) -> pb.NotifyResponse:
        with self.lock:
            self.notified += 1
        raise RuntimeError("notifications crash this bot")


class SlowListener(Listener):
    """Asks for notifications, then never answers one before its deadline."""

    name = "slow-listener"

    held_now = 0  # notifications held at this moment by every slow listener of the process
    held_lock = threading.Lock()

    def __init__(self) -> None:
        super().__init__()
        self.holding = 0
        self.plays_while_holding = 0  # plays asked of it while it held a notification unanswered

    def Notify(self, request: pb.NotifyRequest, context: Any) -> pb.NotifyResponse:
        with self.lock:
            self.notified += 1
            self.holding += 1
        with SlowListener.held_lock:
            SlowListener.held_now += 1
        try:
            while context.is_active():
                time.sleep(0.005)
        finally:
            with SlowListener.held_lock:
                SlowListener.held_now -= 1
            with self.lock:
                self.holding -= 1
        return pb.NotifyResponse()

    def PlayCard(self, request: pb.PlayCardRequest, context: Any) -> pb.PlayCardResponse:
        with self.lock:
            self.plays_while_holding += self.holding > 0
        return super().PlayCard(request, context)


class HeldCounter(FirstLegal):
    """A good bot that notes, at each play, how many slow listeners' notifications are held."""

    name = "held-counter"

    def __init__(self) -> None:
        super().__init__()
        self.held_seen: list[int] = []

    def PlayCard(self, request: pb.PlayCardRequest, context: Any) -> pb.PlayCardResponse:
        with SlowListener.held_lock:
            held = SlowListener.held_now
        with self.lock:
            self.held_seen.append(held)
        return super().PlayCard(request, context)


class Sleeper(FirstLegal):
    """Never answers a play: waits until the referee's deadline has passed."""

    name = "sleeper"

    def PlayCard(self, request: pb.PlayCardRequest, context: Any) -> pb.PlayCardResponse:
        while context.is_active():
            time.sleep(0.005)
        return pb.PlayCardResponse(card=request.view.legal_cards[0])


class Raiser(FirstLegal):
    name = "raiser"

    def PlayCard(self, request: pb.PlayCardRequest, context: Any) -> pb.PlayCardResponse:
        raise RuntimeError("this bot has a bug")


class Unspecified(FirstLegal):
    """Answers CARD_UNSPECIFIED (an empty reply: the field is missing)."""

    name = "unspecified"

    def PlayCard(self, request: pb.PlayCardRequest, context: Any) -> pb.PlayCardResponse:
        return pb.PlayCardResponse()


class UnknownEnum(FirstLegal):
    name = "unknown-enum"

    def PlayCard(self, request: pb.PlayCardRequest, context: Any) -> pb.PlayCardResponse:
        return pb.PlayCardResponse(card=99)  # proto3 enums are open: 99 goes on the wire as is


class Illegal(FirstLegal):
    """Plays a card it holds that the rules forbid, whenever there is one."""

    name = "illegal"

    def PlayCard(self, request: pb.PlayCardRequest, context: Any) -> pb.PlayCardResponse:
        v = request.view
        forbidden = [c for c in v.hand if c not in set(v.legal_cards)]
        return pb.PlayCardResponse(card=forbidden[0] if forbidden else v.legal_cards[0])


class NotHeld(FirstLegal):
    """Plays a card it does not hold."""

    name = "not-held"

    def PlayCard(self, request: pb.PlayCardRequest, context: Any) -> pb.PlayCardResponse:
        held = set(request.view.hand)
        return pb.PlayCardResponse(card=next(c for c in range(1, 53) if c not in held))


class ShortPass(FirstLegal):
    name = "short-pass"

    def PassCards(self, request: pb.PassCardsRequest, context: Any) -> pb.PassCardsResponse:
        v = request.view
        return pb.PassCardsResponse(cards=list(v.hand)[: v.rules.pass_count - 1])


class PassOn(FirstLegal):
    """Passes no cards: under rules.pass_on that passes on what it is passed; otherwise a wrong count."""

    name = "pass-on"

    def PassCards(self, request: pb.PassCardsRequest, context: Any) -> pb.PassCardsResponse:
        return pb.PassCardsResponse()


class RepeatPass(FirstLegal):
    name = "repeat-pass"

    def PassCards(self, request: pb.PassCardsRequest, context: Any) -> pb.PassCardsResponse:
        v = request.view
        cards = list(v.hand)[: v.rules.pass_count]
        cards[-1] = cards[0]
        return pb.PassCardsResponse(cards=cards)


class OversizedPass(FirstLegal):
    """Passes 70,000 cards: a reply over the referee's 64 KiB receive limit."""

    name = "oversized-pass"

    def PassCards(self, request: pb.PassCardsRequest, context: Any) -> pb.PassCardsResponse:
        return pb.PassCardsResponse(cards=[1] * 70_000)


def raw_play_bot(reply: bytes) -> grpc.GenericRpcHandler:
    """A whole bot on one generic handler whose PlayCard answers raw bytes (oversized or
    undecodable); the other methods are FirstLegal's."""
    good = FirstLegal()

    def method(fn: Any, request_type: Any) -> grpc.RpcMethodHandler:
        return grpc.unary_unary_rpc_method_handler(
            fn, request_deserializer=request_type.FromString, response_serializer=lambda m: m.SerializeToString()
        )

    return grpc.method_handlers_generic_handler(
        "hearts.v1.BotService",
        {
            "Handshake": method(good.Handshake, pb.HandshakeRequest),
            "PassCards": method(good.PassCards, pb.PassCardsRequest),
            "ChooseMoon": method(good.ChooseMoon, pb.ChooseMoonRequest),
            "Notify": method(good.Notify, pb.NotifyRequest),
            "PlayCard": grpc.unary_unary_rpc_method_handler(
                lambda request, context: reply,
                request_deserializer=pb.PlayCardRequest.FromString,
                response_serializer=lambda b: b,
            ),
        },
    )


OVERSIZED_PLAY = b"\x08\x01" * 40_000  # 80 kB of valid PlayCardResponse (card=1, repeated)
UNDECODABLE_PLAY = b"\xff\xff\xff"  # not a protobuf message


class SilentHello(FirstLegal):
    """Never answers its first ``silent`` handshakes (waits out the deadline); then a good bot."""

    name = "silent-hello"

    def __init__(self, silent: int = 1_000_000) -> None:
        super().__init__()
        self.silent = silent
        self.handshakes = 0

    def Handshake(self, request: pb.HandshakeRequest, context: Any) -> pb.HandshakeResponse:
        with self.lock:
            self.handshakes += 1
            silent = self.handshakes <= self.silent
        while silent and context.is_active():
            time.sleep(0.005)
        return super().Handshake(request, context)


class DrivenClock:
    """A time source for the referee that moves only when a test moves it: what a bot is charged is
    what the test says, whatever the machine's load (the calls' deadlines stay in real time)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class SlowRaiser(FirstLegal):
    """Thinks 250 ms (on ``clock``) over each play, then fails with an error status."""

    name = "slow-raiser"

    def __init__(self, clock: DrivenClock) -> None:
        super().__init__()
        self.clock = clock

    def PlayCard(self, request: pb.PlayCardRequest, context: Any) -> pb.PlayCardResponse:
        self.clock.advance(0.25)
        raise RuntimeError("this bot thinks, then crashes")
