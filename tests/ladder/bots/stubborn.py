"""A server that reports SERVING on grpc.health.v1 and ignores SIGTERM: the launcher must SIGKILL it."""

from __future__ import annotations

import signal
import sys
from concurrent import futures

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc


def main() -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2), options=[("grpc.so_reuseport", 0)])
    h = health.HealthServicer()
    h.set("", health_pb2.HealthCheckResponse.SERVING)
    health_pb2_grpc.add_HealthServicer_to_server(h, server)
    port = server.add_insecure_port(f"127.0.0.1:{sys.argv[1]}")
    server.start()
    print(f"listening on 127.0.0.1:{port}", flush=True)
    server.wait_for_termination()


if __name__ == "__main__":
    main()
