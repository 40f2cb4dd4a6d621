"""A bot slow to start, driven by what it sees, not by a clock: ``python slow_start.py PORT SILENT``.

It listens on 127.0.0.1:PORT at once but does not speak gRPC yet (as a server bound before its
bot has loaded): it accepts connections and holds them without a byte. Once it has accepted SILENT
of them it closes them, and serves a good bot (tests/referee/referee_bots.py FirstLegal, with
grpc.health.v1 SERVING) on the same port; SILENT 0 serves at once, a negative SILENT never does. It
prints ``bound`` once something listens on the port, then ``listening on HOST:PORT`` once it serves.
"""

from __future__ import annotations

import signal
import socket
import sys
import threading
from concurrent import futures
from pathlib import Path

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "referee"))

from referee_bots import FirstLegal  # noqa: E402  # the path above first

from hearts.v1 import bot_pb2_grpc  # noqa: E402


def hold_silent(port: int, count: int) -> None:
    """Accept ``count`` connections on the port (every one if negative) and say nothing on them."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(64)
    print("bound", flush=True)
    held = []
    while count < 0 or len(held) < count:
        held.append(listener.accept()[0])
    for conn in held:
        conn.close()
    listener.close()


def main() -> None:
    port, silent = int(sys.argv[1]), int(sys.argv[2])
    if silent:
        hold_silent(port, silent)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8), options=[("grpc.so_reuseport", 0)])
    bot_pb2_grpc.add_BotServiceServicer_to_server(FirstLegal(), server)
    status = health.HealthServicer()
    status.set("", health_pb2.HealthCheckResponse.SERVING)
    health_pb2_grpc.add_HealthServicer_to_server(status, server)
    bound = server.add_insecure_port(f"127.0.0.1:{port}")
    server.start()
    if not silent:
        print("bound", flush=True)
    print(f"listening on 127.0.0.1:{bound}", flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    stop.wait()
    server.stop(0.2)


if __name__ == "__main__":
    main()
