"""Fixtures: bots served in this process on loopback (port 0), stopped in teardown, and a database
of real matches with one self-play match among them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_procs import FAST
from cli_runner import ok

from clients.bots import make_bot
from clients.sdk import ThreadedBotServer, start_in_thread


@pytest.fixture()
def lowest_servers() -> Iterator[list[ThreadedBotServer]]:
    """Two servers of the lowest bot: an address the bots are at, and one they can move to."""
    srvs = [start_in_thread(make_bot("lowest")) for _ in range(2)]
    yield srvs
    for s in srvs:
        s.stop()


@pytest.fixture(scope="module")
def sample_servers() -> Iterator[dict[str, ThreadedBotServer]]:
    """The sample bots served in this process on loopback (port 0)."""
    srvs = {name: start_in_thread(make_bot(name, seed=3)) for name in ("random", "lowest", "heuristic")}
    yield srvs
    for s in srvs.values():
        s.stop()


@pytest.fixture(scope="module")
def self_play_db(sample_servers: dict[str, ThreadedBotServer], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database with one self-play match (one name in every seat) and two ordinary matches."""
    db = tmp_path_factory.mktemp("selfplay") / "x.db"
    low = sample_servers["lowest"].address
    out = ok(
        "match", *[x for _ in range(4) for x in ("--seat", f"r={low}")], "--rules", FAST, "--seed", "1", "--db", str(db)
    )
    assert "one name filled several seats" in out
    seats = [
        f"rnd={sample_servers['random'].address}",
        f"low={low}",
        f"heur={sample_servers['heuristic'].address}",
        f"low-2={low}",
    ]
    for seed in ("2", "3"):
        ok("match", *[x for s in seats for x in ("--seat", s)], "--rules", FAST, "--seed", seed, "--db", str(db))
    return db
