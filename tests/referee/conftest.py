"""Fixtures: real gRPC bot servers on loopback (port 0), stopped in teardown."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from referee_bots import FirstLegal, start_server


@pytest.fixture
def serve() -> Iterator[Callable[..., str]]:
    """``serve(bot_or_handler, ...)`` starts a server and returns its address."""
    servers = []

    def start(*handlers: Any) -> str:
        server, address = start_server(*handlers)
        servers.append(server)
        return address

    yield start
    for s in servers:
        s.stop(0)


@pytest.fixture(scope="module")
def good_address() -> Iterator[str]:
    """One well-behaved bot serving every good seat of a module's matches."""
    server, address = start_server(FirstLegal(), workers=16)
    yield address
    server.stop(0)


@pytest.fixture
def exit_bot() -> Iterator[Callable[[int], str]]:
    """``exit_bot(n)`` starts a bot in a subprocess that dies after n plays; returns its address."""
    procs: list[subprocess.Popen[str]] = []

    def start(plays: int) -> str:
        p = subprocess.Popen(
            [sys.executable, str(Path(__file__).with_name("exit_bot.py")), str(plays)],
            stdout=subprocess.PIPE,
            text=True,
        )
        procs.append(p)
        assert p.stdout is not None
        return f"127.0.0.1:{int(p.stdout.readline())}"

    yield start
    for p in procs:
        if p.poll() is None:
            p.kill()
        p.wait(timeout=10)
