"""One running arena as its readers and writers see it: its folder, arena.toml, the fitted boards,
the worker (when it runs), the live matches' broadcaster, the sign-in guard and the one ask at a
time; the store through a connection of the caller's thread."""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass, field
from pathlib import Path

from ladder.arena.accounts import SignInGuard
from ladder.arena.config import ArenaConfig
from ladder.arena.hosted_address import Resolve, resolve_host
from ladder.arena.live import LiveHub
from ladder.arena.store import ArenaStore
from ladder.arena.worker import ArenaWorker, Ratings

__all__ = ["ArenaState"]


@dataclass
class ArenaState:
    dir: Path
    cfg: ArenaConfig
    ratings: Ratings
    worker: ArenaWorker | None = None
    guard: SignInGuard = field(default_factory=SignInGuard)  # wrong tokens, by client address
    resolve: Resolve = resolve_host  # a hosted bot's host name to its addresses (tests drive their own)
    hub: LiveHub = field(default_factory=LiveHub)  # the matches in play, as played (the worker publishes)
    asking: asyncio.Lock = field(default_factory=asyncio.Lock)  # one bot asked again at a time (ladder.arena.asking)

    def __post_init__(self) -> None:
        self._local = threading.local()

    @property
    def store(self) -> ArenaStore:
        # One connection per thread: SQLite connections are not shared across threads.
        s: ArenaStore | None = getattr(self._local, "store", None)
        if s is None:
            s = ArenaStore(self.dir / "arena.db")
            self._local.store = s
        return s
