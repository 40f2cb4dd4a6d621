"""The SDK's server: concurrency, health, reflection, errors, the handshake, start-up and shutdown."""

from __future__ import annotations

import asyncio
import random
import sys
from collections.abc import Sequence

import grpc
import pytest
from bot_harness import launch, request_view, terminate
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from clients.bots.heuristic import HeuristicBot
from clients.sdk import Bot, BotServer, Notification, View, start_in_thread
from hearts.v1 import bot_pb2 as pb
from hearts.v1 import bot_pb2_grpc
from hearts.v1.codec import card_from_wire
from referee.rules import QUEEN_OF_SPADES, Card, Match, MoonChoice, Phase, Rules


def _play_positions(n: int) -> list[tuple[pb.GameView, frozenset[Card]]]:
    """``n`` distinct play requests from real matches (various rules and points of a hand), with their legal sets."""
    rng = random.Random(11)
    out: list[tuple[pb.GameView, frozenset[Card]]] = []
    rulesets = [
        Rules(),
        Rules(players=3, pass_cycle="left-right"),
        Rules(players=5, pass_cycle="five-player"),
        Rules.preset("omnibus"),
    ]
    seed = 0
    while len(out) < n:
        match = Match(rulesets[seed % len(rulesets)], seed)
        stop_at = rng.randrange(1, 40)
        plays = 0
        while not match.over and plays < stop_at:
            if match.phase is Phase.PASS:
                for s in match.to_move:
                    match.pass_cards(s, rng.sample(match.observation(s).hand.cards, match.rules.pass_count))
            elif match.phase is Phase.PLAY:
                match.play(rng.choice(match.legal_plays().cards))
                plays += 1
            else:
                match.choose_moon(match.turn, MoonChoice.ADD_TO_OTHERS)
        if match.phase is Phase.PLAY:
            seat = match.turn
            out.append((request_view(match, seat, match_id=f"m{seed}"), frozenset(match.legal_plays())))
        seed += 1
    return out


class SlowRandomBot(Bot):
    """An async bot that answers after a random short wait, so that 64 requests really overlap."""

    name = "slow"

    def __init__(self) -> None:
        self.rng = random.Random(1)
        self.in_flight = 0
        self.most_in_flight = 0

    def pass_cards(self, view: View) -> Sequence[Card]:
        return view.hand.cards[: view.rules.pass_count]

    async def play_card(self, view: View) -> Card:
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            await asyncio.sleep(self.rng.uniform(0.001, 0.02))
            return self.rng.choice(view.legal.cards)
        finally:
            self.in_flight -= 1


@pytest.mark.parametrize("bot_class", [HeuristicBot, SlowRandomBot])
def test_64_concurrent_play_requests_each_get_a_legal_answer_for_their_own_view(bot_class: type) -> None:
    positions = _play_positions(64)
    assert len({v.SerializeToString() for v, _ in positions}) == 64
    bot = bot_class()

    async def main() -> list[pb.PlayCardResponse]:
        async with BotServer(bot, port=0) as srv:
            async with grpc.aio.insecure_channel(srv.address) as channel:  # created inside the loop
                stub = bot_pb2_grpc.BotServiceStub(channel)
                return await asyncio.gather(
                    *(stub.PlayCard(pb.PlayCardRequest(view=v), timeout=10) for v, _ in positions)
                )

    replies = asyncio.run(main())
    for (view, legal), reply in zip(positions, replies):
        assert card_from_wire(reply.card) in legal, f"illegal answer for match {view.match_id}"
    if isinstance(bot, SlowRandomBot):
        assert bot.most_in_flight > 8  # the requests were served concurrently, not one by one


def test_health_answers_serving_and_reflection_lists_the_service() -> None:
    with start_in_thread(HeuristicBot()) as srv, grpc.insecure_channel(srv.address) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        for service in ("", "hearts.v1.BotService"):
            reply = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=5)
            assert reply.status == health_pb2.HealthCheckResponse.SERVING
        refl = reflection_pb2_grpc.ServerReflectionStub(channel)
        answers = list(
            refl.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")]), timeout=5)
        )
        names = {s.name for s in answers[0].list_services_response.service}
        assert "hearts.v1.BotService" in names
        assert "grpc.health.v1.Health" in names


class Broken(Bot):
    def pass_cards(self, view: View) -> Sequence[Card]:
        raise RuntimeError("no idea what to pass")

    def play_card(self, view: View) -> Card:
        return None  # type: ignore[return-value] - a wrong answer type, on purpose

    def choose_moon(self, view: View) -> MoonChoice:
        return "shoot"


def test_a_bot_exception_becomes_an_error_status_with_its_message() -> None:
    match = Match(Rules(), seed=1)
    with start_in_thread(Broken()) as srv, grpc.insecure_channel(srv.address) as channel:
        stub = bot_pb2_grpc.BotServiceStub(channel)
        with pytest.raises(grpc.RpcError) as e:
            stub.PassCards(pb.PassCardsRequest(view=request_view(match, 0)), timeout=5)
        assert e.value.code() is grpc.StatusCode.UNKNOWN
        assert "RuntimeError: no idea what to pass" in e.value.details()
        with pytest.raises(grpc.RpcError) as e:
            stub.PlayCard(pb.PlayCardRequest(view=request_view(match, 0)), timeout=5)
        assert e.value.code() is grpc.StatusCode.UNKNOWN and "play_card returned" in e.value.details()
        assert "not a Card" in e.value.details()
        with pytest.raises(grpc.RpcError) as e:
            stub.ChooseMoon(pb.ChooseMoonRequest(view=request_view(match, 0), moon_points=26), timeout=5)
        assert e.value.code() is grpc.StatusCode.UNKNOWN and "shoot" in e.value.details()
        # The server keeps serving after a bot failure.
        assert stub.Handshake(pb.HandshakeRequest(protocol_version=1), timeout=5).name == "Broken"


class Described(Bot):
    name = "described"
    version = "2.1"
    author = "someone"
    presets = ("standard", "omnibus")
    options = ("moon",)
    max_concurrent_games = 8

    def __init__(self) -> None:
        self.notes: list[Notification] = []

    def pass_cards(self, view: View) -> Sequence[str]:  # text cards are accepted too
        return ["QS", "2C", "3C"][: view.rules.pass_count]

    def play_card(self, view: View) -> Card:
        return view.legal[0]

    def notify(self, note: Notification) -> None:
        self.notes.append(note)


def test_handshake_reports_the_bots_attributes_and_notifications_reach_notify() -> None:
    bot = Described()
    with start_in_thread(bot) as srv, grpc.insecure_channel(srv.address) as channel:
        stub = bot_pb2_grpc.BotServiceStub(channel)
        hs = stub.Handshake(pb.HandshakeRequest(protocol_version=1, referee="test"), timeout=5)
        assert (hs.name, hs.version, hs.author, hs.language) == ("described", "2.1", "someone", "python")
        assert list(hs.presets) == ["standard", "omnibus"] and list(hs.options) == ["moon"]
        assert hs.max_concurrent_games == 8 and hs.wants_notifications
        reply = stub.PassCards(pb.PassCardsRequest(view=request_view(Match(Rules(), 1), 0)), timeout=5)
        assert [card_from_wire(v) for v in reply.cards] == [QUEEN_OF_SPADES, Card.parse("2C"), Card.parse("3C")]
        stub.Notify(
            pb.NotifyRequest(
                match_id="m",
                seat=2,
                trick_completed=pb.TrickCompleted(
                    hand_number=0, trick=pb.Trick(leader=1, cards=[1, 5, 9, 13], winner=0)
                ),
            ),
            timeout=5,
        )
        stub.Notify(
            pb.NotifyRequest(
                match_id="m",
                seat=2,
                hand_scored=pb.HandScored(
                    hand_number=0,
                    points_taken=[26, 0, 0, 0],
                    hand_score=[0, 26, 26, 26],
                    totals=[0, 26, 26, 26],
                    moon_shooter=0,
                ),
            ),
            timeout=5,
        )
        stub.Notify(
            pb.NotifyRequest(
                match_id="m",
                seat=2,
                match_over=pb.MatchOver(totals=[0, 100, 100, 100], places=[1, 2, 2, 2], forfeited=[3]),
            ),
            timeout=5,
        )
    trick, scored, over = bot.notes
    assert trick.kind == "trick_completed" and trick.trick is not None and trick.trick.winner == 0
    assert str(trick.trick.cards[-1]) == "AC"
    assert scored.kind == "hand_scored" and scored.moon_shooter == 0 and scored.sun_shooter is None
    assert over.kind == "match_over" and over.places == (1, 2, 2, 2) and over.forfeited == (3,)


def test_a_taken_port_fails_loudly() -> None:
    with start_in_thread(HeuristicBot()) as srv:
        with pytest.raises(OSError, match=f"127.0.0.1:{srv.port}"):
            start_in_thread(HeuristicBot(), port=srv.port)


def test_a_non_bot_is_refused() -> None:
    with pytest.raises(TypeError, match="pass_cards"):
        start_in_thread(object())


@pytest.mark.parametrize(
    "command",
    [
        [sys.executable, "-m", "clients.bots.random", "--port", "0", "--seed", "3"],
        [sys.executable, "-m", "ladder.cli", "bot", "serve", "heuristic", "--port", "0"],
    ],
    ids=["python -m clients.bots.random", "hearts bot serve heuristic"],
)
def test_a_bot_process_prints_its_port_answers_and_stops_on_sigterm(command: list[str]) -> None:
    proc, address = launch(command)
    try:
        with grpc.insecure_channel(address) as channel:
            stub = bot_pb2_grpc.BotServiceStub(channel)
            hs = stub.Handshake(pb.HandshakeRequest(protocol_version=1), timeout=5)
            assert hs.name in ("random", "heuristic")
            match = Match(Rules(), 2)
            reply = stub.PassCards(pb.PassCardsRequest(view=request_view(match, 0)), timeout=5)
            match.pass_cards(0, [card_from_wire(v) for v in reply.cards])
    finally:
        code = terminate(proc)
    assert code == 0
