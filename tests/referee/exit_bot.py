"""A bot in its own process that dies mid-match: serves N plays, then exits without answering.

Run as ``python exit_bot.py N``; prints its port on the first line of stdout.
"""

from __future__ import annotations

import os
import sys
import threading
from concurrent import futures
from typing import Any

import grpc

from hearts.v1 import bot_pb2 as pb
from hearts.v1 import bot_pb2_grpc


class ExitAfter(bot_pb2_grpc.BotServiceServicer):
    def __init__(self, plays: int) -> None:
        self.left = plays
        self.lock = threading.Lock()

    def Handshake(self, request: pb.HandshakeRequest, context: Any) -> pb.HandshakeResponse:
        return pb.HandshakeResponse(protocol_version=1, name="exit-after", language="python")

    def PassCards(self, request: pb.PassCardsRequest, context: Any) -> pb.PassCardsResponse:
        v = request.view
        return pb.PassCardsResponse(cards=list(v.hand)[: v.rules.pass_count])

    def PlayCard(self, request: pb.PlayCardRequest, context: Any) -> pb.PlayCardResponse:
        with self.lock:
            self.left -= 1
            if self.left < 0:
                os._exit(3)  # a crash: no goodbye, the call in flight is cut
        return pb.PlayCardResponse(card=request.view.legal_cards[0])


def main() -> None:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4), options=[("grpc.so_reuseport", 0)])
    bot_pb2_grpc.add_BotServiceServicer_to_server(ExitAfter(int(sys.argv[1])), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    print(port, flush=True)
    server.wait_for_termination()


if __name__ == "__main__":
    main()
