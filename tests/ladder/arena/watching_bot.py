"""A lowest-card bot that writes down everything it is sent: each call's method (health checks and
reflection too) and each request as proto3 JSON, one JSON line per call, with the time it came.

``python watching_bot.py OUT --port N``: what a hosted bot that wants to tell validation from the
ladder sees of each (the tests compare the two), or whether it was reached at all.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc
from google.protobuf import json_format
from google.protobuf.message import Message
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from clients.bots import make_bot
from clients.sdk import SERVICE_NAME, BotServicer, bot_port
from hearts.v1 import bot_pb2_grpc


class Watch(grpc.aio.ServerInterceptor):
    """Writes each call down before it is served."""

    def __init__(self, out: Path) -> None:
        self.out = out

    def note(self, method: str, request: Any) -> None:
        entry: dict[str, Any] = {"t": time.time(), "method": method}
        if isinstance(request, Message):
            entry["request"] = json_format.MessageToDict(request)
        with self.out.open("a") as f:
            f.write(json.dumps(entry) + "\n")

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        handler = await continuation(details)
        method = details.method
        if handler is None or handler.unary_unary is None:
            self.note(method, None)  # a stream (reflection), or a method it does not serve
            return handler
        inner = handler.unary_unary

        async def served(request: Any, context: grpc.aio.ServicerContext) -> Any:
            self.note(method, request)
            return await inner(request, context)

        return grpc.unary_unary_rpc_method_handler(
            served,
            request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer,
        )


async def main(out: Path, port: int) -> None:
    server = grpc.aio.server(interceptors=[Watch(out)])
    bot_pb2_grpc.add_BotServiceServicer_to_server(BotServicer(make_bot("lowest")), server)
    checks = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(checks, server)
    reflection.enable_server_reflection((SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME), server)
    bound = server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    for service in ("", SERVICE_NAME):
        await checks.set(service, health_pb2.HealthCheckResponse.SERVING)
    print(f"listening on 127.0.0.1:{bound}", flush=True)
    await server.wait_for_termination()


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]), bot_port()))
