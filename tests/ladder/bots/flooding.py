"""A bot that answers every decision with the largest reply the referee's receive limit admits.

``python flooding.py PORT``: a pass or discard of ~65,000 cards, a call of ~65,000 offsets, a play
or moon choice repeated ~32,000 times (protobuf keeps the last). Every answer is refused; what is
tested is that refusing it costs the referee time linear in what was sent, so the bots of other
matches on the same event loop keep their pace.
"""

from __future__ import annotations

import sys
from concurrent import futures
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2_grpc

from hearts.v1 import bot_pb2 as pb

LIMIT = 64 * 1024  # referee.seats.MAX_RECEIVE_BYTES


def _largest_repeated(message: Any, field: str, value: int) -> bytes:
    """A packed repeated field of ``value`` as long as fits in LIMIT bytes."""
    n = LIMIT - 8
    while len(data := message(**{field: [value] * n}).SerializeToString()) > LIMIT:
        n -= 1
    return data


def _largest_singular(message: Any, field: str, value: int) -> bytes:
    """One field written over and over (a parser keeps the last), as many times as fit."""
    one = message(**{field: value}).SerializeToString()
    return one * (LIMIT // len(one))


REPLIES = {
    "PassCards": _largest_repeated(pb.PassCardsResponse, "cards", 5),
    "DiscardCards": _largest_repeated(pb.DiscardCardsResponse, "cards", 5),
    "CallPass": _largest_repeated(pb.CallPassResponse, "offsets", 1),
    "PlayCard": _largest_singular(pb.PlayCardResponse, "card", 5),
    "ChooseMoon": _largest_singular(pb.ChooseMoonResponse, "choice", 1),
}


class Flooding(grpc.GenericRpcHandler):
    def service(self, details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler | None:
        method = details.method.rsplit("/", 1)[-1]
        if method == "Handshake":
            hello = pb.HandshakeResponse(protocol_version=1, name="flooding", language="python").SerializeToString()
            return grpc.unary_unary_rpc_method_handler(lambda request, context: hello)
        if method in REPLIES:
            reply = REPLIES[method]
            return grpc.unary_unary_rpc_method_handler(lambda request, context: reply)
        return None


if __name__ == "__main__":
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8), options=[("grpc.so_reuseport", 0)])
    server.add_generic_rpc_handlers((Flooding(),))
    health_pb2_grpc.add_HealthServicer_to_server(health.HealthServicer(), server)  # SERVING: the launcher waits for it
    server.add_insecure_port(f"127.0.0.1:{sys.argv[1]}")
    server.start()
    server.wait_for_termination()
