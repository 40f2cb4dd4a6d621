"""Drive real engine matches through bots over gRPC, the way the referee will.

Every request is built with ``referee.codec.view_to_wire`` from the engine's observation of the
seat, sent to the seat's bot stub, and the answer applied to the ``Match`` with its checked
methods: an illegal answer raises ``IllegalPlayError`` and fails the test.
"""

from __future__ import annotations

import asyncio
import signal
import subprocess
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import grpc
from google.protobuf.message import Message

from clients.bots import BOTS
from clients.sdk import BotProtocol, BotServicer
from hearts.v1 import bot_pb2 as pb
from hearts.v1 import bot_pb2_grpc
from hearts.v1.codec import card_from_wire, moon_choice_from_wire, view_to_wire
from referee.rules import Match, Phase, Rules

SAMPLE_BOTS: tuple[str, ...] = (*BOTS, "minimal")  # the sample bots and the README's minimal bot
TIMEOUT_S = 5.0  # generous: a loopback call takes ~1 ms; this only stops a hung test


def request_view(match: Match, seat: int, match_id: str = "test") -> pb.GameView:
    return view_to_wire(
        match.observation(seat),
        match_id=match_id,
        player_names=[f"p{s}" for s in range(match.rules.players)],
        budget_ms=1000,
        time_bank_ms=10_000,
    )


@dataclass
class Tally:
    """What the bots were asked: to show a test covered what it claims."""

    requests: Counter[str] = field(default_factory=Counter)
    directions: Counter[str] = field(default_factory=Counter)
    charged: int = 0  # cards charged (turbo_charging)


def step(
    match: Match, stub_of: Callable[[int], bot_pb2_grpc.BotServiceStub], tally: Tally, match_id: str = "test"
) -> None:
    """One decision: every seat's pass (all asked, as the referee does), one play, or a moon choice."""
    phase = match.phase
    if phase is Phase.PASS:
        tally.directions[match.hand.direction] += 1
        for seat in match.to_move:
            reply = stub_of(seat).PassCards(
                pb.PassCardsRequest(view=request_view(match, seat, match_id)), timeout=TIMEOUT_S
            )
            match.pass_cards(seat, [card_from_wire(v) for v in reply.cards])
            tally.requests["pass"] += 1
    elif phase is Phase.PLAY:
        seat = match.turn
        reply = stub_of(seat).PlayCard(pb.PlayCardRequest(view=request_view(match, seat, match_id)), timeout=TIMEOUT_S)
        match.play(card_from_wire(reply.card), seat)
        tally.requests["play"] += 1
    elif phase is Phase.MOON:
        seat = match.turn
        obs = match.observation(seat)
        reply = stub_of(seat).ChooseMoon(
            pb.ChooseMoonRequest(view=request_view(match, seat, match_id), moon_points=obs.moon_points),
            timeout=TIMEOUT_S,
        )
        match.choose_moon(seat, moon_choice_from_wire(reply.choice))
        tally.requests["moon"] += 1
    elif phase is Phase.CALL:  # the dealer calls the pass (pass_cycle call)
        seat = match.to_move[0]
        reply = stub_of(seat).CallPass(pb.CallPassRequest(view=request_view(match, seat, match_id)), timeout=TIMEOUT_S)
        match.call_pass(seat, "mix" if reply.mix else tuple(reply.offsets))
        tally.requests["call"] += 1
    elif phase is Phase.DISCARD:  # the kitty's taker discards (kitty_discard)
        seat = match.to_move[0]
        reply = stub_of(seat).DiscardCards(
            pb.DiscardCardsRequest(view=request_view(match, seat, match_id), count=match.rules.kitty_size),
            timeout=TIMEOUT_S,
        )
        match.discard(seat, [card_from_wire(v) for v in reply.cards])
        tally.requests["discard"] += 1
    elif phase is Phase.CHARGE:  # every seat's turbo-charge (turbo_charging), all asked, as for passes
        for seat in match.to_move:
            reply = stub_of(seat).ChargeCards(
                pb.ChargeCardsRequest(view=request_view(match, seat, match_id)), timeout=TIMEOUT_S
            )
            match.charge(seat, [card_from_wire(v) for v in reply.cards])
            tally.requests["charge"] += 1
            tally.charged += len(reply.cards)
    else:
        raise AssertionError(f"no decision in phase {phase}")


def play_match(
    rules: Rules, seed: int, stubs: Sequence[bot_pb2_grpc.BotServiceStub], tally: Tally, max_hands: int | None = None
) -> Match:
    """Play a match to its end (or through ``max_hands`` hands) with ``stubs[seat]`` at each seat."""
    match = Match(rules, seed)
    while not match.over and (max_hands is None or match.hand_number < max_hands):
        step(match, lambda s: stubs[s], tally, match_id=f"m{seed}")
    return match


class _Aborted(Exception):
    """What a ``WireStub``'s call raises where gRPC would end the call with an error status."""


class _Context:
    """The part of a servicer context the SDK's servicer uses: ``abort``."""

    async def abort(self, code: grpc.StatusCode, details: str) -> None:
        raise _Aborted(f"{code.name}: {details}")


class WireStub:
    """A bot's servicer called with the very bytes a gRPC call carries, without the transport: each
    request is serialized and parsed again on the bot's side, each answer likewise back (the codec
    and the SDK under test, the loopback socket not). Real gRPC has its own tests (``bot_stubs``)."""

    def __init__(self, bot: BotProtocol) -> None:
        self._servicer = BotServicer(bot)
        self._loop = asyncio.new_event_loop()

    def __getattr__(self, rpc: str) -> Callable[..., Message]:
        handler = getattr(self._servicer, rpc)

        def call(request: Message, timeout: float | None = None) -> Message:
            sent = type(request).FromString(request.SerializeToString())
            reply = self._loop.run_until_complete(asyncio.wait_for(handler(sent, _Context()), timeout))
            return type(reply).FromString(reply.SerializeToString())

        return call

    def close(self) -> None:
        self._loop.close()


ROOT = Path(__file__).resolve().parents[2]


def launch(args: Sequence[str]) -> tuple[subprocess.Popen[str], str]:
    """Start a bot process as the launcher does; return it and the address of its ``listening on`` line."""
    proc = subprocess.Popen(list(args), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line.startswith("listening on 127.0.0.1:"):
        proc.kill()
        raise AssertionError(f"{' '.join(args)} printed {line!r}; stderr: {proc.communicate()[1]}")
    return proc, line.split()[-1]


def terminate(proc: subprocess.Popen[str], timeout: float = 10.0) -> int:
    """SIGTERM, then the exit code (killed if it does not stop in time, and the test fails)."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            return proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            raise
    return proc.returncode


def cpu_timed(bot_class: type) -> type:
    """``bot_class`` (a searching sample bot: montecarlo, ismcts) on the CPU time of its own thread,
    each play's spend kept in ``spent_ms``: its search and its spend are the same whatever else the
    machine runs (a loaded machine delays an answer; it does not make it think longer)."""

    class CPUTimed(bot_class):  # type: ignore[misc, valid-type]
        def __init__(self, seed: int) -> None:
            super().__init__(seed=seed, clock=time.thread_time)
            self.spent_ms: list[float] = []

        def play_card(self, view):  # type: ignore[no-untyped-def]
            t0 = time.thread_time()
            try:
                return super().play_card(view)
            finally:
                self.spent_ms.append((time.thread_time() - t0) * 1000)

    return CPUTimed
