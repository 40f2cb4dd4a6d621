"""Fixtures: the sample bots (and the README's minimal bot) served in-process on loopback port 0."""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest
from bot_harness import SAMPLE_BOTS, WireStub

from clients.bots import make_bot
from clients.examples.minimal import Lowest
from clients.sdk import BotProtocol, start_in_thread
from hearts.v1 import bot_pb2_grpc


def _bot(name: str) -> BotProtocol:
    if name == "montecarlo":  # two worlds a decision: the legality tests need its answers (searched), not its strength
        from clients.bots.montecarlo import ThreadedMonteCarloBot

        return ThreadedMonteCarloBot(seed=7, budget_fraction=0.006, bank_fraction=0.0, max_worlds=2)
    if name == "ismcts":  # as the Monte Carlo bot: a few iterations a decision, searched
        from clients.bots.ismcts import ThreadedSearchBot

        return ThreadedSearchBot(seed=7, budget_fraction=0.006, bank_fraction=0.0, max_worlds=8)
    return Lowest() if name == "minimal" else make_bot(name, seed=7)


@pytest.fixture(scope="session")
def bot_stubs() -> Iterator[dict[str, bot_pb2_grpc.BotServiceStub]]:
    """name -> a stub on that bot's server. Servers and channels are closed at the end of the session."""
    servers = [(name, start_in_thread(_bot(name), port=0)) for name in SAMPLE_BOTS]
    channels = [grpc.insecure_channel(srv.address) for _, srv in servers]
    try:
        yield {name: bot_pb2_grpc.BotServiceStub(ch) for (name, _), ch in zip(servers, channels)}
    finally:
        for ch in channels:
            ch.close()
        for _, srv in servers:
            srv.stop()


@pytest.fixture(scope="session")
def wire_stubs() -> Iterator[dict[str, WireStub]]:
    """name -> the same bot called with the bytes of each request and answer, without the socket."""
    stubs = {name: WireStub(_bot(name)) for name in SAMPLE_BOTS}
    try:
        yield stubs
    finally:
        for stub in stubs.values():
            stub.close()
