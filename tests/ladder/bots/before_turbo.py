"""A bot written before Turbo Hearts, as one in C++ or Go would be: ``python before_turbo.py PORT``.

Its servicer is generated code's (``bot_pb2_grpc.BotServiceServicer``) with every RPC of its day
written and ChargeCards left out, so gRPC answers UNIMPLEMENTED for it; its handshake speaks protocol
1 and names no presets. It plays the first legal card, serves grpc.health.v1 SERVING on
127.0.0.1:PORT (0: any free port) and prints ``listening on HOST:PORT``, as the launcher expects.
"""

from __future__ import annotations

import signal
import sys
import threading
from concurrent import futures
from pathlib import Path

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "referee"))

from referee_bots import NoCharge  # noqa: E402  # the path above first

from hearts.v1 import bot_pb2_grpc  # noqa: E402


def main() -> None:
    port = int(sys.argv[1])
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8), options=[("grpc.so_reuseport", 0)])
    bot_pb2_grpc.add_BotServiceServicer_to_server(NoCharge(), server)
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
