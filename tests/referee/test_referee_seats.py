"""GrpcSeat over real gRPC on loopback: the handshake shared per channel, the channel's life."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import grpc
import pytest
from hearts.v1 import bot_pb2 as pb
from referee_bots import SilentHello

from referee import wire
from referee.match import MatchSettings, play_match
from referee.record import FaultKind
from referee.rules import Rules
from referee.seats import REFEREE_NAME, GrpcSeat

HELLO = pb.HandshakeRequest(protocol_version=wire.PROTOCOL_VERSION, referee=REFEREE_NAME)
RULES = Rules.parse("standard,pass_cycle=left,target=60")


def test_concurrent_handshakes_of_a_silent_bot_share_one_attempt(serve: Callable[..., str]) -> None:
    bot = SilentHello(silent=1)
    seat = GrpcSeat(serve(bot), "silent")

    async def go() -> tuple[float, list[BaseException | pb.HandshakeResponse], pb.HandshakeResponse]:
        t0 = time.perf_counter()
        replies = await asyncio.gather(*(seat.handshake(HELLO, 0.3) for _ in range(8)), return_exceptions=True)
        took = time.perf_counter() - t0
        await asyncio.sleep(0.2)  # the shared attempt (its own deadline 0.3 s) is over by now
        again = await seat.handshake(HELLO, 2.0)  # the failed attempt was cleared: a new one is made
        await seat.close()
        return took, replies, again

    took, replies, again = asyncio.run(go())
    assert all(isinstance(r, Exception) for r in replies), replies
    assert took < 0.3 * 3, took  # one timeout for all eight, not eight in a row
    assert again.name == "silent-hello"
    assert bot.handshakes == 2


def test_a_waiter_on_a_shared_handshake_waits_no_longer_than_its_own_timeout(serve: Callable[..., str]) -> None:
    seat = GrpcSeat(serve(SilentHello()), "silent")

    async def go() -> float:
        first = asyncio.create_task(seat.handshake(HELLO, 2.0))
        await asyncio.sleep(0.05)
        t0 = time.perf_counter()
        with pytest.raises((TimeoutError, grpc.aio.AioRpcError)):
            await seat.handshake(HELLO, 0.2)
        took = time.perf_counter() - t0
        first.cancel()
        await asyncio.gather(first, return_exceptions=True)
        await seat.close()
        return took

    assert asyncio.run(go()) < 0.6


def test_a_silent_bot_in_four_seats_of_two_matches_delays_them_one_handshake_timeout(
        serve: Callable[..., str]) -> None:
    seat = GrpcSeat(serve(SilentHello()), "silent")
    settings = MatchSettings(budget_ms=150, bank_ms=200, grace_ms=50, handshake_ms=300)

    async def go() -> tuple[float, list]:
        t0 = time.perf_counter()
        records = await asyncio.gather(*(play_match([seat] * 4, RULES, seed, settings=settings) for seed in (1, 2)))
        took = time.perf_counter() - t0
        await seat.close()
        return took, records

    took, records = asyncio.run(go())
    for rec in records:
        assert [f.kind for f in rec.faults if f.hand is None] == [FaultKind.TIMEOUT] * 4
    # Queued on a lock, each of 8 handshakes waited a whole timeout in turn: 8 x 0.3 s.
    assert took < 8 * 0.3 / 2, took
