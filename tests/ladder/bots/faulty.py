"""A bot wrong in exactly one way, for each fault kind the referee records: ``python faulty.py KIND PORT``.

KIND is a ``FaultKind`` value (``timeout``, ``illegal_card``, ...) or ``hostile`` (a good player
whose handshake name and error messages hold rich markup and terminal escapes). Each serves one of
the faulty bots of tests/referee/referee_bots.py (they pass and play well but for their one
mistake) with grpc.health.v1 SERVING, on 127.0.0.1:PORT (0: any free port), and prints
``listening on HOST:PORT``, as the launcher expects.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from concurrent import futures
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "referee"))

from referee_bots import (  # noqa: E402  # the path above first
    BadCall,
    FirstLegal,
    Illegal,
    NotHeld,
    OverCharge,
    OversizedPass,
    Raiser,
    RepeatPass,
    ShortDiscard,
    ShortPass,
    Sleeper,
    Unspecified,
)

from hearts.v1 import bot_pb2 as pb  # noqa: E402
from hearts.v1 import bot_pb2_grpc  # noqa: E402


class ExitsMidway(FirstLegal):
    """Plays two cards, then its process dies under the third play (a crash: the call is cut)."""

    name = "exits-midway"

    def __init__(self) -> None:
        super().__init__()
        self.plays = 0

    def PlayCard(self, request: pb.PlayCardRequest, context: Any) -> pb.PlayCardResponse:
        with self.lock:
            self.plays += 1
            if self.plays > 2:
                os._exit(3)
        return super().PlayCard(request, context)


HOSTILE_NAME = "[bold]boss[/bold]\x1b[2J\x1b]0;pwned\x07"
HOSTILE_ERROR = "[red]crash[/red] \x1b[31mred\x1b[0m \u202eevil"


class Hostile(FirstLegal):
    """Names itself with markup and escapes, and fails each play with a message full of them."""

    name = HOSTILE_NAME

    def PlayCard(self, request: pb.PlayCardRequest, context: Any) -> pb.PlayCardResponse:
        raise RuntimeError(HOSTILE_ERROR)


FAULTY: dict[str, type[FirstLegal]] = {
    "timeout": Sleeper,
    "transport": ExitsMidway,
    "error_status": Raiser,
    "malformed": Unspecified,
    "illegal_card": Illegal,
    "card_not_held": NotHeld,
    "wrong_pass_count": ShortPass,
    "repeated_pass_card": RepeatPass,
    "oversized": OversizedPass,
    "wrong_discard": ShortDiscard,
    "wrong_call": BadCall,
    "wrong_charge": OverCharge,
    "hostile": Hostile,
}
"""Each fault kind's bot (by ``FaultKind`` value); the test of every kind looks its bot up here."""


def main() -> None:
    kind, port = sys.argv[1], int(sys.argv[2])
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=16), options=[("grpc.so_reuseport", 0)])
    bot_pb2_grpc.add_BotServiceServicer_to_server(FAULTY[kind](), server)
    status = health.HealthServicer()
    status.set("", health_pb2.HealthCheckResponse.SERVING)
    health_pb2_grpc.add_HealthServicer_to_server(status, server)
    bound = server.add_insecure_port(f"127.0.0.1:{port}")
    server.start()
    print(f"listening on 127.0.0.1:{bound}", flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    stop.wait()
    server.stop(0.2)


if __name__ == "__main__":
    main()
