"""Where a tournament's matches are played, when not in this process: the ``Venue`` protocol.

``play_tournament(venue=...)`` keeps every decision that makes a tournament what it is in this
process: which match starts when (each bot's limit over every match in flight, wherever it is
played), the one SQLite writer saving each record in one transaction, the live Elo, the summary.
A venue only plays: it starts the bots where it plays, takes a ``MatchJob`` and gives back its
``MatchRecord``. ``cluster.DaskVenue`` plays them on a Dask cluster; the ladder never imports it
(it is handed in by the CLI or the arena), so the ladder needs nothing of Dask.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from ladder.bots.registry import BotEntry
from ladder.sandbox import SandboxMode
from ladder.venues.workers import MatchJob
from referee.match import MatchSettings
from referee.record import MatchRecord

__all__ = ["Venue", "VenueBots", "VenueError"]


class VenueError(RuntimeError):
    """The venue cannot play: unreachable, or no place of it can start the bots. The message says
    what to do; nothing of the tournament was lost (its matches stay pending)."""


@dataclass(frozen=True)
class VenueBots:
    """What a venue needs to start a tournament's bots where it plays them."""

    tournament_id: int
    entries: Mapping[str, BotEntry]  # the bots the pending matches seat, by name
    settings: MatchSettings
    sandbox: SandboxMode
    startup_timeout: float
    log_dir: Path  # each place of the venue keeps its bots' logs under it
    cwd: Path  # where bots' commands run (relative paths in them are from here)
    # Whose tournament: this host and database. Two tournaments numbered alike (two databases) on
    # one venue are told apart by it; a resume of the same one is the same owner.
    owner: str = ""


class Venue(Protocol):
    """A place that plays matches: opened once per run, then ``play`` for each match started."""

    # Told each event as it happens (a worker that plays no match, mid-run too), so that a long
    # run's user hears of it then; ``events`` keeps them all for the report.
    on_event: Callable[[str], None] | None

    @property
    def slots(self) -> int:
        """Matches it can play at once (after ``open``; read before each match starts, so it may grow)."""
        ...

    @property
    def events(self) -> list[str]:
        """What the run's report should say (a bot that cannot start on one machine, say)."""
        ...

    @property
    def logs(self) -> dict[str, Path | None]:
        """Where each bot's log is (after ``open``)."""
        ...

    async def open(self, bots: VenueBots) -> dict[str, int]:
        """Start the bots; each bot's ``max_concurrent_games`` from its handshake (0: no limit).
        ``VenueError`` when it cannot play at all, ``BotModuleError`` for a module that names no bot."""
        ...

    async def play(self, job: MatchJob) -> MatchRecord:
        """Play one match and return its whole record (never saved by the venue)."""
        ...

    async def close(self) -> None:
        """Stop the bots and let go of the venue; matches in flight are abandoned (they stay pending)."""
        ...
