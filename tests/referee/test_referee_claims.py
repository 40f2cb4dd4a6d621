"""The fault kind follows what the referee observed, never what the bot claims.

Each bot here answers its plays with something a careless or cunning bot might send: a status
whose code or text names a fault of another kind (a timeout, an oversized reply, a cut connection),
two replies to one call, a status message larger than the referee's header limit, or replies
over the receive limit. Real gRPC servers on loopback; the referee's own clock, connection and
reader decide the kind.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest
from referee_bots import FirstLegal, raw_play_bot
from test_referee_faults import FAULTY, run, table

from hearts.v1 import bot_pb2 as pb
from referee.match import MatchSettings
from referee.record import FaultKind, MatchRecord
from referee.seats import HARD_RECEIVE_BYTES, MAX_RECEIVE_BYTES

pytestmark = pytest.mark.slow  # whole processes and servers

SLOW = MatchSettings(budget_ms=400, bank_ms=400, grace_ms=50, handshake_ms=3000)


def aborting_play(code: grpc.StatusCode, message: str) -> grpc.GenericRpcHandler:
    """FirstLegal, but every PlayCard answers at once with status ``code`` and ``message``."""
    good = FirstLegal()

    def play(request: pb.PlayCardRequest, context: grpc.ServicerContext) -> pb.PlayCardResponse:
        context.abort(code, message)
        raise AssertionError("abort raises")

    return _bot(
        good,
        play=grpc.unary_unary_rpc_method_handler(
            play,
            request_deserializer=pb.PlayCardRequest.FromString,
            response_serializer=pb.PlayCardResponse.SerializeToString,
        ),
    )


def two_replies() -> grpc.GenericRpcHandler:
    """FirstLegal, but every PlayCard writes two replies to the one call (a unary-stream handler)."""
    good = FirstLegal()

    def play(request: pb.PlayCardRequest, context: Any) -> Iterator[pb.PlayCardResponse]:
        card = request.view.legal_cards[0]
        yield pb.PlayCardResponse(card=card)
        yield pb.PlayCardResponse(card=card)

    return _bot(
        good,
        play=grpc.unary_stream_rpc_method_handler(
            play,
            request_deserializer=pb.PlayCardRequest.FromString,
            response_serializer=pb.PlayCardResponse.SerializeToString,
        ),
    )


def _bot(good: FirstLegal, play: grpc.RpcMethodHandler) -> grpc.GenericRpcHandler:
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
            "PlayCard": play,
        },
    )


def faults_of(rec: MatchRecord) -> list[Any]:
    mine = [f for f in rec.faults if f.seat == FAULTY]
    assert mine and len(mine) == len(rec.faults), rec.faults
    return mine


@pytest.mark.parametrize(
    "code, message",
    [
        (grpc.StatusCode.DEADLINE_EXCEEDED, "Deadline Exceeded"),
        (grpc.StatusCode.RESOURCE_EXHAUSTED, "Received message larger than max (70000 vs. 65536)"),
        (
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            f"Stream removed (CLIENT: Received message larger than max (70000 vs. {HARD_RECEIVE_BYTES + 1}))",
        ),
        (grpc.StatusCode.CANCELLED, "Cancelled"),
        (grpc.StatusCode.UNAVAILABLE, "Stream removed (Socket closed)"),
        (grpc.StatusCode.INTERNAL, "Exception deserializing response!"),
    ],
    ids=["deadline", "larger-than-max", "cut-by-another-limit", "cancelled", "unavailable", "deserializing"],
)
def test_a_status_claiming_another_kind_is_the_bots_error_status(
    serve: Callable[..., str], good_address: str, code: grpc.StatusCode, message: str
) -> None:
    rec = run(table(good_address, serve(aborting_play(code, message))), settings=SLOW)
    faults = faults_of(rec)
    assert [f.kind for f in faults] == [FaultKind.ERROR_STATUS] * 3
    assert all(code.name in f.detail and message[:20] in f.detail for f in faults)
    bad = rec.seats[FAULTY]
    assert bad.forfeit and bad.forfeit_reason == "faults"  # three faults, never 'unreachable' at the first
    # Answered at once: its bank is untouched (a timeout would have emptied it, a wait drawn on it).
    assert bad.time_bank_left_ms == SLOW.bank_ms


def test_two_replies_to_one_call_are_a_timeout_that_says_the_bot_began_its_reply(
    serve: Callable[..., str], good_address: str
) -> None:
    """A unary call cannot complete while a second reply is unread: gRPC waits out the deadline. The
    referee can only see that at the deadline (reading every reply as a stream would cost each call
    ~60 µs); what it records says the bot had begun to answer, unlike a bot that never did."""
    rec = run(table(good_address, serve(two_replies())), settings=SLOW)
    faults = faults_of(rec)
    assert faults[0].kind is FaultKind.TIMEOUT and "begun a reply but never completed the call" in faults[0].detail


def test_a_status_message_over_the_header_limit_is_an_oversized_reply(
    serve: Callable[..., str], good_address: str
) -> None:
    rec = run(table(good_address, serve(aborting_play(grpc.StatusCode.INTERNAL, "x" * 200_000))), settings=SLOW)
    faults = faults_of(rec)
    assert [f.kind for f in faults] == [FaultKind.OVERSIZED] * 3
    assert "header limit" in faults[0].detail and len(faults[0].received) < 400


@pytest.mark.parametrize("size", [MAX_RECEIVE_BYTES + 2, HARD_RECEIVE_BYTES + 2])
def test_a_reply_over_the_receive_limit_is_measured_as_oversized(
    serve: Callable[..., str], good_address: str, size: int
) -> None:
    """Between the referee's limit and gRPC's own (four times it) the referee's reader measures the reply;
    beyond, gRPC cuts it off, in words that name the referee's own limit."""
    rec = run(table(good_address, serve(raw_play_bot(b"\x08\x01" * (size // 2)))), settings=SLOW)
    faults = faults_of(rec)
    assert [f.kind for f in faults] == [FaultKind.OVERSIZED] * 3
    limit = MAX_RECEIVE_BYTES if size < HARD_RECEIVE_BYTES else HARD_RECEIVE_BYTES
    assert str(limit) in faults[0].detail
