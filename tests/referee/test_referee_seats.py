"""GrpcSeat over real gRPC on loopback: the handshake shared per channel, the channel's life."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from referee_bots import SilentHello

from hearts.v1 import bot_pb2 as pb
from hearts.v1 import codec
from referee.match import MatchSettings, play_match
from referee.record import FaultKind
from referee.rules import Observation, Rules
from referee.seats import REFEREE_NAME, BotTimeout, GrpcSeat, InProcessSeat, SeatHooks

HELLO = codec.handshake_request(REFEREE_NAME)
RULES = Rules.parse("standard,pass_cycle=left,target=60")


@pytest.mark.slow
def test_concurrent_handshakes_of_a_silent_bot_share_one_attempt(serve: Callable[..., str]) -> None:
    bot = SilentHello(silent=1)
    seat = GrpcSeat(serve(bot), "silent")

    async def go() -> tuple[int, list[BaseException | pb.HandshakeResponse], pb.HandshakeResponse]:
        replies = await asyncio.gather(*(seat.handshake(HELLO, 0.3) for _ in range(8)), return_exceptions=True)
        asked = bot.handshakes
        await asyncio.sleep(0.2)  # the shared attempt (its own deadline 0.3 s) is over by now
        again = await seat.handshake(HELLO, 2.0)  # the failed attempt was cleared: a new one is made
        await seat.close()
        return asked, replies, again

    asked, replies, again = asyncio.run(go())
    assert all(isinstance(r, Exception) for r in replies), replies
    assert asked == 1  # one attempt, one timeout, for all eight: not eight in a row
    assert again.name == "silent-hello"
    assert bot.handshakes == 2


def test_a_waiter_on_a_shared_handshake_waits_no_longer_than_its_own_timeout(serve: Callable[..., str]) -> None:
    seat = GrpcSeat(serve(SilentHello()), "silent")

    async def go() -> bool:
        first = asyncio.create_task(seat.handshake(HELLO, 30.0))
        await asyncio.sleep(0.05)
        with pytest.raises(BotTimeout):
            await seat.handshake(HELLO, 0.2)
        first_still_waiting = not first.done()
        first.cancel()
        await asyncio.gather(first, return_exceptions=True)
        await seat.close()
        return first_still_waiting

    assert asyncio.run(go())  # it gave up at its own 0.2 s, not at the shared attempt's 30 s


def test_a_silent_bot_in_four_seats_of_two_matches_delays_them_one_handshake_timeout(serve: Callable[..., str]) -> None:
    bot = SilentHello()
    seat = GrpcSeat(serve(bot), "silent")
    settings = MatchSettings(budget_ms=150, bank_ms=200, grace_ms=50, handshake_ms=300)

    async def go() -> list:
        one_hand = Rules.parse("standard,target=1")
        records = await asyncio.gather(*(play_match([seat] * 4, one_hand, seed, settings=settings) for seed in (1, 2)))
        await seat.close()
        return records

    for rec in asyncio.run(go()):
        assert [f.kind for f in rec.faults if f.hand is None] == [FaultKind.TIMEOUT] * 4
    # One attempt that all eight waited on; queued on a lock, each would have made its own in turn.
    assert bot.handshakes == 1


def test_a_closed_seat_stays_closed_and_a_match_holding_it_records_a_transport_fault(good_address: str) -> None:
    from referee.faults import fault_from_error
    from referee.seats import SeatClosed

    async def go() -> None:
        closed = GrpcSeat(good_address, "replaced")
        await closed.handshake(HELLO, 2.0)
        await closed.close()
        with pytest.raises(SeatClosed) as e:
            await closed.handshake(HELLO, 2.0)  # not a channel silently reopened
        assert fault_from_error(e.value).kind is FaultKind.TRANSPORT
        others = [GrpcSeat(good_address, f"g{i}") for i in range(3)]
        rec = await play_match([closed, *others], RULES, 5)
        (f,) = rec.faults
        assert (f.seat, f.kind, f.hand) == (0, FaultKind.TRANSPORT, None)
        assert rec.seats[0].forfeit and all(p.substituted for p in rec.plays if p.seat == 0)
        for s in others:
            await s.close()

    asyncio.run(go())


def test_a_channel_of_another_loop_still_running_is_closed_when_the_seat_moves(good_address: str) -> None:
    import threading

    seat = GrpcSeat(good_address, "mover")
    other = asyncio.new_event_loop()
    thread = threading.Thread(target=other.run_forever, daemon=True)
    thread.start()
    try:
        asyncio.run_coroutine_threadsafe(seat.handshake(HELLO, 2.0), other).result(5)
        old = seat._channel
        assert old is not None

        async def here() -> pb.HandshakeResponse:
            reply = await seat.handshake(HELLO, 2.0)
            for _ in range(100):  # the old loop closes its channel in its own time
                if old._channel.closed():
                    break
                await asyncio.sleep(0.01)
            return reply

        assert asyncio.run(here()).name == "first-legal"
        assert old._channel.closed()  # the core channel: its connections are gone
    finally:
        other.call_soon_threadsafe(other.stop)
        thread.join(5)
        other.close()


def test_a_cancelled_match_leaves_no_notifier_running(serve: Callable[..., str], good_address: str) -> None:
    from referee_bots import SlowListener

    async def go() -> list[asyncio.Task]:
        seats = [GrpcSeat(serve(SlowListener()), "slow")] + [GrpcSeat(good_address, f"g{i}") for i in range(3)]
        match = asyncio.create_task(play_match(seats, RULES, 3, settings=MatchSettings(notify_ms=2000)))
        await asyncio.sleep(0.3)  # tricks played, the listener holding a notification
        match.cancel()
        await asyncio.gather(match, return_exceptions=True)
        left = [t for t in asyncio.all_tasks() if t is not asyncio.current_task() and not t.done()]
        for s in seats:
            await s.close()
        return left

    assert asyncio.run(go()) == []


class _FirstLegal:
    def pass_cards(self, obs: Observation) -> list[object]:
        return list(obs.hand.cards)[: obs.rules.pass_count]

    def play_card(self, obs: Observation) -> object:
        return obs.legal.cards[0]


def test_a_seat_offers_hooks_by_subclassing_seat_hooks_and_an_attribute_of_the_same_name_alone_is_no_hook() -> None:
    """The referee reads a seat's hooks through ``SeatHooks`` only: a subclass's own kind and clock are kept,
    while a seat that merely has attributes of those names is a plain bot's seat on the match's clock."""

    class Person(InProcessSeat, SeatHooks):
        kind = "human"
        time_control = MatchSettings(budget_ms=500, bank_ms=0)

    class Lookalike(InProcessSeat):
        kind = "human"
        time_control = MatchSettings(budget_ms=500, bank_ms=0)

    seats = [Person(_FirstLegal(), "person"), Lookalike(_FirstLegal(), "lookalike")]
    seats += [InProcessSeat(_FirstLegal(), f"bot{s}") for s in (2, 3)]
    record = asyncio.run(play_match(seats, RULES, 5, settings=MatchSettings(bank_ms=2000)))
    assert [(s.kind, s.time_bank_left_ms) for s in record.seats] == [("human", 0.0)] + [("bot", 2000.0)] * 3
