"""A synchronous bot, the commonest student bot: a grpc server with ONE worker thread.

``python synchronous.py PORT THINK_MS [DECLARED]``: answers one request at a time, each after
THINK_MS of "thinking" (a sleep), on the raw generated stubs. Its handshake declares
``max_concurrent_games = DECLARED`` (default 0: no limit, the student's usual mistake). Requests
from several matches at once wait in its own queue, and the referee's clock counts that wait.
"""

from __future__ import annotations

import signal
import sys
import time
from concurrent import futures
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from hearts.v1 import bot_pb2 as pb
from hearts.v1 import bot_pb2_grpc


class Synchronous(bot_pb2_grpc.BotServiceServicer):
    def __init__(self, think_s: float, declared: int) -> None:
        self.think_s = think_s
        self.declared = declared

    def Handshake(self, request: pb.HandshakeRequest, context: Any) -> pb.HandshakeResponse:
        return pb.HandshakeResponse(
            protocol_version=1, name="synchronous", version="1", language="python", max_concurrent_games=self.declared
        )

    def PassCards(self, request: pb.PassCardsRequest, context: Any) -> pb.PassCardsResponse:
        time.sleep(self.think_s)
        v = request.view
        return pb.PassCardsResponse(cards=list(v.hand)[: v.rules.pass_count])

    def PlayCard(self, request: pb.PlayCardRequest, context: Any) -> pb.PlayCardResponse:
        time.sleep(self.think_s)
        return pb.PlayCardResponse(card=request.view.legal_cards[0])

    def CallPass(self, request: pb.CallPassRequest, context: Any) -> pb.CallPassResponse:
        return pb.CallPassResponse(offsets=[1] * request.view.rules.pass_count)

    def DiscardCards(self, request: pb.DiscardCardsRequest, context: Any) -> pb.DiscardCardsResponse:
        return pb.DiscardCardsResponse(cards=list(request.view.hand)[: request.count])

    def ChooseMoon(self, request: pb.ChooseMoonRequest, context: Any) -> pb.ChooseMoonResponse:
        return pb.ChooseMoonResponse(choice=pb.MOON_CHOICE_ADD_TO_OTHERS)

    def Notify(self, request: pb.NotifyRequest, context: Any) -> pb.NotifyResponse:
        return pb.NotifyResponse()


def main() -> None:
    port, think_ms = int(sys.argv[1]), float(sys.argv[2])
    declared = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    # One worker: the point of this bot. Further requests queue in the server.
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=1), options=[("grpc.so_reuseport", 0)])
    bot_pb2_grpc.add_BotServiceServicer_to_server(Synchronous(think_ms / 1000, declared), server)
    h = health.HealthServicer()
    h.set("", health_pb2.HealthCheckResponse.SERVING)
    health_pb2_grpc.add_HealthServicer_to_server(h, server)
    bound = server.add_insecure_port(f"127.0.0.1:{port}")
    server.start()
    print(f"listening on 127.0.0.1:{bound}", flush=True)
    signal.signal(signal.SIGTERM, lambda *_: server.stop(0))
    server.wait_for_termination()


if __name__ == "__main__":
    main()
