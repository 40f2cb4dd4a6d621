"""Where a tournament's matches are played: the ``Venue`` protocol, and the job and outcome of one match.

``play_tournament`` opens one venue, runs the schedule through it and closes it, and keeps every
decision that makes a tournament what it is in this process: which match starts when (each bot's
limit over every match in flight, wherever it is played), the saving of each record in one
transaction (``ladder.store.save``), the summary. A venue only plays: it starts the bots where it
plays, takes a ``MatchJob`` and gives back what was ``Played``. ``ladder.venues.here.HereVenue``
plays in this process (and in its worker processes); ``ladder.venues.cluster.DaskVenue`` on a Dask
cluster, handed in by the CLI or the arena, so the ladder's core needs nothing of Dask.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from ladder.bots.registry import BotEntry
from ladder.sandbox import SandboxMode
from referee.match import MatchSettings, TimeControl
from referee.record import MatchRecord

__all__ = ["MatchJob", "Played", "Venue", "VenueBots", "VenueError", "bot_clocks", "seat_clocks"]


class VenueError(RuntimeError):
    """The venue cannot play: unreachable, or no place of it can start the bots. The message says
    what to do; nothing of the tournament was lost (its matches stay pending)."""


@dataclass(frozen=True)
class MatchJob:
    """One scheduled match, as a venue needs it (a worker process or a cluster too: it pickles)."""

    tournament_id: int
    index: int
    match_id: str
    seats: tuple[str, ...]
    rules: str
    seed: int
    shown: tuple[str, ...] = ()  # the names the bots are told (empty: the seats' own)


@dataclass(frozen=True)
class Played:
    """What a venue gives back for a job: the record, and whether the venue saved it already."""

    record: MatchRecord | None  # None: another process had recorded this match first (its record stands)
    # True: saved where it was played (a worker process, in ``save_scheduled``'s transaction), the
    # record then without its plays; False: the run saves it, the one writer of its database.
    saved: bool = False


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


def bot_clocks(entries: Mapping[str, BotEntry]) -> dict[str, TimeControl]:
    """The bots of ``entries`` that have a clock of their own, with it: what every venue seats them under."""
    return {n: e.time_control for n, e in entries.items() if e.time_control is not None}


def seat_clocks(clocks: Mapping[str, TimeControl], seats: Sequence[str]) -> list[TimeControl | None] | None:
    """Each seat's own time control for ``play_match``, by its bot's name; None when no bot of the
    table has one (every seat on the match's clock)."""
    if not clocks:
        return None
    own = [clocks.get(b) for b in seats]
    return own if any(c is not None for c in own) else None


class Venue(Protocol):
    """A place that plays matches: opened once per run, then ``play`` for each match started, then
    ``finish_saving`` (before the run's status is written) and ``close``."""

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

    async def play(self, job: MatchJob) -> Played:
        """Play one match: its whole record, or one the venue saved itself (``Played.saved``)."""
        ...

    def stop_handing_out(self) -> None:
        """Start no more matches of those queued at the venue (they stay pending); those under way finish."""
        ...

    def finish_saving(self) -> None:
        """Wait for the matches the venue saves itself to be saved (before the run's status is written)."""
        ...

    def kill(self) -> None:
        """Kill the bots the venue started in this process at once (a second Ctrl-C): close then ends fast."""
        ...

    async def close(self) -> None:
        """Stop the bots and let go of the venue; matches in flight are abandoned (they stay pending)."""
        ...
