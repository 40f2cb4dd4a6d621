"""The Node.js bot (clients/node/bot.js) over real gRPC: handshake, health, reflection, passes, plays, moon, shutdown.

It is started as the launcher would start it (`node clients/node/bot.js --port 0`, reading the
port from its `listening on` line). Its answers are checked by the engine and compared with the
Python "lowest" bot, which follows the same policy and tie-breaks: two languages, one protocol.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from collections.abc import Iterator

import grpc
import pytest
from bot_harness import ROOT, Tally, launch, request_view, step, terminate
from grpc_health.v1 import health_pb2, health_pb2_grpc

from clients.bots.lowest import LowestBot
from clients.view import view_from_wire
from hearts.v1 import bot_pb2 as pb
from hearts.v1 import bot_pb2_grpc
from hearts.v1.codec import card_from_wire
from referee.rules import Match, Phase, Rules

NODE_DIR = ROOT / "clients" / "node"

NODE_BOT = ("node", str(NODE_DIR / "bot.js"), "--port", "0")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed"),
    pytest.mark.skipif(
        not (NODE_DIR / "node_modules").is_dir(),
        reason="clients/node/node_modules is missing: run npm ci --prefix clients/node",
    ),
]


@pytest.fixture(scope="module")
def node_bot() -> Iterator[tuple[subprocess.Popen[str], str]]:
    proc, address = launch(NODE_BOT)
    try:
        yield proc, address
    finally:
        terminate(proc)


@pytest.fixture(scope="module")
def stub(node_bot: tuple[subprocess.Popen[str], str]) -> Iterator[bot_pb2_grpc.BotServiceStub]:
    with grpc.insecure_channel(node_bot[1]) as channel:
        yield bot_pb2_grpc.BotServiceStub(channel)


def test_handshake_and_health(stub: bot_pb2_grpc.BotServiceStub, node_bot: tuple[subprocess.Popen[str], str]) -> None:
    reply = stub.Handshake(pb.HandshakeRequest(protocol_version=1, referee="test"), timeout=5)
    assert (reply.protocol_version, reply.name, reply.language) == (2, "node-lowest", "javascript")
    assert not reply.wants_notifications
    with grpc.insecure_channel(node_bot[1]) as channel:  # what the tournament launcher waits for
        health = health_pb2_grpc.HealthStub(channel)
        for service in ("", "hearts.v1.BotService"):
            status = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=5).status
            assert status == health_pb2.HealthCheckResponse.SERVING
        with pytest.raises(grpc.RpcError) as e:
            health.Check(health_pb2.HealthCheckRequest(service="no.such.Service"), timeout=5)
        assert e.value.code() is grpc.StatusCode.NOT_FOUND


def test_health_and_reflection_come_from_the_npm_packages(node_bot: tuple[subprocess.Popen[str], str]) -> None:
    """grpc-health-check answers Check (SERVING) and Watch; @grpc/reflection lists and describes hearts.v1."""
    from google.protobuf.descriptor_pool import DescriptorPool
    from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase

    assert not (NODE_DIR / "health.proto").exists(), "the hand-written health.proto is replaced by grpc-health-check"
    with grpc.insecure_channel(node_bot[1]) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        watch = health.Watch(health_pb2.HealthCheckRequest(service=""), timeout=5)
        assert next(watch).status == health_pb2.HealthCheckResponse.SERVING
        watch.cancel()
        database = ProtoReflectionDescriptorDatabase(channel)
        assert "hearts.v1.BotService" in list(database.get_services())
        service = DescriptorPool(database).FindServiceByName("hearts.v1.BotService")
        assert sorted(m.name for m in service.methods) == sorted(
            m.name for m in pb.DESCRIPTOR.services_by_name["BotService"].methods
        )
        assert service.FindMethodByName("PlayCard").input_type.full_name == "hearts.v1.PlayCardRequest"


@pytest.mark.parametrize(
    "rules",
    [
        Rules(),
        Rules(players=3, pass_cycle=("scatter",), pass_count=4),
        Rules(players=5, pass_cycle=("left2",), kitty="first-trick", removed_cards=()),
        Rules.preset("booster-nines"),
        Rules.preset("turbo"),
        Rules.parse("partnership,pass_cycle=across"),
        Rules.preset("partnership-individual"),
        Rules.preset("cancellation", players=10, pass_cycle="left-right-hold"),
    ],
    ids=[
        "standard",
        "3p-scatter",
        "5p-left2-kitty",
        "booster-nines",
        "turbo",
        "partnership-across",
        "partnership-individual",
        "cancellation-10p",
    ],
)
def test_passes_and_plays_are_legal_and_match_the_python_lowest_bot(
    rules: Rules, stub: bot_pb2_grpc.BotServiceStub
) -> None:
    match = Match(rules, seed=4)
    python = LowestBot()
    for seat in range(rules.players):  # the pass, compared with the Python bot before the engine checks it
        view = request_view(match, seat)
        reply = stub.PassCards(pb.PassCardsRequest(view=view), timeout=5)
        assert sorted(card_from_wire(v) for v in reply.cards) == sorted(
            python.pass_cards(view_from_wire(view, Phase.PASS))
        )
    tally = Tally()
    while match.hand_number == 0:
        if match.phase is Phase.PLAY:
            view = request_view(match, match.turn)
            reply = stub.PlayCard(pb.PlayCardRequest(view=view), timeout=5)
            assert card_from_wire(reply.card) == python.play_card(view_from_wire(view, Phase.PLAY))
        step(match, lambda s: stub, tally)  # asks again and applies the answer through the engine
    assert tally.requests["pass"] == rules.players
    assert tally.requests["play"] == rules.cards_per_player * rules.players


def test_moon_choice_notify_and_an_error_status(stub: bot_pb2_grpc.BotServiceStub) -> None:
    view = request_view(Match(Rules(moon="shooter-chooses"), seed=1), 0)
    reply = stub.ChooseMoon(pb.ChooseMoonRequest(view=view, moon_points=26), timeout=5)
    assert reply.choice == pb.MOON_CHOICE_ADD_TO_OTHERS
    stub.Notify(pb.NotifyRequest(match_id="m", seat=0, match_over=pb.MatchOver(totals=[1, 2, 3, 4])), timeout=5)
    with pytest.raises(grpc.RpcError) as e:  # a pass request without a view: the bot reports it
        stub.PassCards(pb.PassCardsRequest(), timeout=5)
    assert e.value.code() is grpc.StatusCode.UNKNOWN


def test_a_taken_port_fails_loudly_and_sigterm_stops_it(node_bot: tuple[subprocess.Popen[str], str]) -> None:
    port = int(node_bot[1].rsplit(":", 1)[1])
    clash = subprocess.run(
        ["node", str(NODE_DIR / "bot.js"), "--port", str(port)], cwd=ROOT, capture_output=True, text=True, timeout=10
    )
    assert clash.returncode != 0 and "EADDRINUSE" in clash.stderr
    proc, _ = launch(NODE_BOT)
    assert terminate(proc) == 0


def test_the_referee_plays_a_match_with_the_node_bot_and_sample_bots_without_a_fault(
    node_bot: tuple[subprocess.Popen[str], str],
) -> None:
    """End to end through the real referee (clocks, judging, records) rather than the test harness."""
    from clients.bots import make_bot
    from clients.sdk import BotServer
    from referee.match import play_match
    from referee.seats import GrpcSeat

    async def main() -> list:
        servers = [BotServer(make_bot(n, seed=1)) for n in ("random", "lowest", "heuristic")]
        for srv in servers:
            await srv.start()
        seats = [GrpcSeat(node_bot[1], "node")] + [
            GrpcSeat(srv.address, n) for srv, n in zip(servers, ("random", "lowest", "heuristic"))
        ]
        try:
            return [
                await play_match(seats, rules, seed=3)
                for rules in (
                    Rules(),
                    Rules(pass_cycle=("scatter", "mix"), moon="shooter-chooses"),
                    Rules(kitty="first-points", kitty_discard=True, hand_size=12, pass_on=True, target=60),
                    Rules.preset("nasty", target=150),
                    Rules.preset("booster-nines", target=60),
                    Rules.preset("turbo", target=60),
                    Rules.preset("partnership", target=60),
                    Rules.parse("partnership-individual,pass_cycle=across,target=60"),
                )
            ]
        finally:
            for seat in seats:
                await seat.close()
            for srv in servers:
                await srv.stop()

    records = asyncio.run(main())
    for record in records:
        assert record.faults == [], record.faults
        assert sorted(s.place for s in record.seats)[0] == 1
    discards = [h for h in records[2].hands if h.discard_seat is not None]  # every bot answers DiscardCards
    assert len(discards) == len(records[2].hands) and all(len(h.discard) == 4 for h in discards)
    calls = [h.pass_call for h in records[3].hands]  # every dealer answers CallPass: node and SDK call left
    assert calls and all(c == "left" for c in calls) and not any(h.pass_call_substituted for h in records[3].hands)
    assert not any(h.discard_substituted for h in discards)
    # 002 Booster Nines: some trick took a second round, so some hand has fewer than 13 tricks
    assert any(max(p.trick for p in records[4].plays if p.hand == h.hand) < 12 for h in records[4].hands)
    # 002 Turbo Hearts: every seat answers ChargeCards every hand (the node bot charges nothing)
    charges = [c for h in records[5].hands for c in h.charges]
    assert len(charges) == 4 * len(records[5].hands) and not any(c.substituted for c in charges)
    assert all(c.cards == () for c in charges if c.seat == 0)
    for record in records[6:]:  # 002 Partnership Hearts: partners (node with lowest, random with heuristic) place alike
        places = [s.place for s in record.seats]
        assert places[0] == places[2] and places[1] == places[3] and [s.team for s in record.seats] == [0, 1, 0, 1]


@pytest.mark.parametrize("players", [6, 10])
def test_the_referee_plays_cancellation_with_the_node_bot_and_every_sample_bot(
    players: int, node_bot: tuple[subprocess.Popen[str], str]
) -> None:
    """002 Cancellation Hearts ('for 6 to 10 players using two 52-card packs') through the real referee:
    the Node bot and each sample bot, several seats per server, no fault; hands list a card twice."""
    from clients.bots import make_bot
    from clients.sdk import BotServer
    from referee.match import play_match
    from referee.seats import GrpcSeat

    names = ("random", "lowest", "heuristic", "montecarlo")
    rules = Rules.preset("cancellation", players=players, pass_cycle="left-right-hold", target=60)

    async def main() -> list:
        servers = [BotServer(make_bot(n, seed=1)) for n in names]
        for srv in servers:
            await srv.start()
        seats = [GrpcSeat(node_bot[1], "node")] + [
            GrpcSeat(servers[i % len(names)].address, names[i % len(names)]) for i in range(players - 1)
        ]
        try:
            return [await play_match(seats, rules, seed=seed) for seed in (1, 2)]
        finally:
            for seat in seats:
                await seat.close()
            for srv in servers:
                await srv.stop()

    for record in asyncio.run(main()):
        assert record.faults == [], record.faults
        assert len(record.seats) == players and sorted(s.place for s in record.seats)[0] == 1
        assert len(record.plays) >= players * rules.cards_per_player
