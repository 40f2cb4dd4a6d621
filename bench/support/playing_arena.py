"""What the arena's benchmarks share: an arena of four house bots started by command, served by a
real uvicorn on a free port while its ladder plays, and the times its matches ended."""

from __future__ import annotations

import contextlib
import datetime as dt
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import uvicorn

from ladder.arena.accounts import add_user
from ladder.arena.app import build_app
from ladder.arena.config import ArenaConfig, HouseBot
from ladder.arena.store import ArenaStore
from ladder.arena.worker import sync_house
from ladder.bots.launcher import free_port

HOUSE = {
    "random": "python -m clients.bots.random --port {port} --seed 1",
    "random-2": "python -m clients.bots.random --port {port} --seed 2",
    "lowest": "python -m clients.bots.lowest --port {port}",
    "heuristic": "python -m clients.bots.heuristic --port {port}",
}


def house_arena(folder: Path, rules: str, **settings: Any) -> ArenaConfig:
    """An arena in ``folder`` whose house bots are ``HOUSE``: its organiser made, its bots' versions in."""
    cfg = ArenaConfig(rules=rules, house=tuple(HouseBot(n, command=c) for n, c in HOUSE.items()), **settings)
    store = ArenaStore(folder / "arena.db")
    add_user(store, "organiser", organiser=True)
    sync_house(store, cfg)
    store.close()
    return cfg


@contextlib.contextmanager
def served(folder: Path, cfg: ArenaConfig, **config: Any) -> Iterator[str]:
    """The arena served, its ladder playing, for the block: its URL."""
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(build_app(folder, cfg), host="127.0.0.1", port=port, log_level="warning", **config)
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(30)


def match_ends(db: Path) -> list[float]:
    """When each recorded match of a database ended (its record's ``finished_at``), in order."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT finished_at FROM matches").fetchall()
    return sorted(dt.datetime.fromisoformat(t).timestamp() for (t,) in rows)
