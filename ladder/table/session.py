"""One sitting of ``hearts play``: the table's server up, the bots seated, the match played with the
people in their seats once every one of them has asked to start, the record stored, everything stopped.

The bots are seated as ``hearts match`` seats them (``ladder.tournament.run.started_bots``: a command
started and stopped, an address reached, a ``PKG.MOD:CLASS`` played in-process), each person's seat
is a ``referee.human.HumanSeat``, and the match is the referee's ``play_match`` like any other.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import uvicorn

from ladder.bots.registry import BotEntry
from ladder.sandbox import SandboxMode
from ladder.store import Store
from ladder.table.table import Table, table_app
from ladder.venues.here import started_bots
from referee.match import MatchSettings, MatchWatcher, play_match
from referee.record import MatchRecord
from referee.rules import Rules

LINGER_S = 5.0
"""How long the server stays up after the match for an open page to receive its last events."""


class PortTaken(OSError):
    """The port asked for is in use (or may not be used): the message says what to give instead."""


def listen(port: int) -> socket.socket:
    """A socket listening on 127.0.0.1:``port`` (0: any free port), for the table's server."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", port))
        sock.listen(16)
    except OSError as e:
        sock.close()
        raise PortTaken(
            f"cannot listen on 127.0.0.1:{port} ({e.strerror}): give another --port, or 0 for any"
        ) from None
    sock.setblocking(False)
    return sock


class _Server(uvicorn.Server):
    """uvicorn's server, without its own signal handlers: Ctrl-C is the command's, and stops the match
    (nothing recorded), the bots and then the server."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


@dataclass
class Sitting:
    """What ``sit`` needs: the bots (entries, in seat order), the rules and seed, the table (its people,
    ``table.seats``) and where each person sits (``person_seats``, one per person, in the table's order;
    the bots take the other seats in order)."""

    entries: Sequence[BotEntry]
    person_seats: Sequence[int]
    rules: Rules
    seed: int
    table: Table
    db: str
    settings: MatchSettings
    log_dir: Path
    startup_timeout: float
    sandbox: SandboxMode
    told: Callable[[str], dict[str, Any]] | None = None
    """What the people are told of the stored match, given its id (default: the id and ``db``, for
    ``hearts replay``; the arena's site gives the match's page instead of its file)."""
    shown: Sequence[str] | None = None
    """The bots' names as the table is told them, in the order of ``entries`` (default: their names;
    an anonymous arena's site gives its participants' bots by alias, and records the real names)."""
    watcher: MatchWatcher | None = None
    """Told of each play as the record has it (``referee.match.play_match``'s): the arena's live page."""


async def sit(s: Sitting, sock: socket.socket, on_listening: Callable[[list[str]], None]) -> MatchRecord:
    """Serve the table's page, seat the bots, wait for every person's start, play and record the match.
    ``on_listening`` is given each person's address, in the table's order."""
    server = _Server(
        uvicorn.Config(
            table_app(s.table), log_level="warning", access_log=False, lifespan="off", timeout_graceful_shutdown=2
        )
    )
    s.table.port = sock.getsockname()[1]
    serving = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        on_listening(s.table.urls)
        record = await play_and_record(s)
        await _linger(s.table)
        return record
    finally:
        s.table.close()
        await asyncio.sleep(0)
        server.should_exit = True
        with contextlib.suppress(Exception):
            await serving


async def play_and_record(s: Sitting) -> MatchRecord:
    """Seat the bots, wait for every person's start (``s.table.start``), play the match with each person
    in their seat, record it, and tell the people where it is."""
    people = s.table.seats
    if len(s.person_seats) != len(people) or len(set(s.person_seats)) != len(people):
        raise ValueError(f"{len(people)} people need {len(people)} seats of their own, not {list(s.person_seats)}")
    names = [e.name for e in s.entries]
    if s.shown is not None and len(s.shown) != len(names):
        raise ValueError(f"{len(s.shown)} names shown for {len(names)} bots")
    async with started_bots(
        list({e.name: e for e in s.entries}.values()),
        log_dir=s.log_dir,
        startup_timeout=s.startup_timeout,
        sandbox=s.sandbox,
    ) as chairs:
        for i, person in enumerate(people):
            person.tell({"type": "ready", "rules": str(s.rules), **s.table.awaiting(i)})
        await s.table.start.wait()
        bots = iter([chairs[n] for n in names])
        shown_bots = iter(s.shown if s.shown is not None else names)
        recorded_bots = iter(names)
        at = dict(zip(s.person_seats, range(len(people)), strict=True))
        n = len(people) + len(names)
        seats = [people[at[k]] if k in at else next(bots) for k in range(n)]
        person_at = [people[at[k]].name or "person" if k in at else None for k in range(n)]
        shown = [p if p is not None else next(shown_bots) for p in person_at]
        kept = [p if p is not None else next(recorded_bots) for p in person_at]
        own = {e.name: e.time_control for e in s.entries if e.time_control is not None}  # a bot's own clock
        clocks = [None if k in at else own.get(kept[k]) for k in range(n)] if own else None
        record = await play_match(
            seats,
            s.rules,
            s.seed,
            settings=s.settings,
            names=kept,
            shown_names=shown,
            watcher=s.watcher,
            time_controls=clocks,
        )
    await asyncio.to_thread(_save, s.db, record)
    told = s.told(record.match_id) if s.told is not None else {"match_id": record.match_id, "db": s.db}
    for person in people:
        person.tell({"type": "recorded", **told})
    return record


def _save(db: str, record: MatchRecord) -> None:
    with Store(db) as store:
        store.save_match(record)


async def _linger(table: Table) -> None:
    """Give each open page up to ``LINGER_S`` to receive every event (the match over, its record)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + LINGER_S

    def behind() -> bool:
        return any(p and d < len(seat.events) for p, d, seat in zip(table.pages, table.delivered, table.seats))

    while behind() and loop.time() < end:
        await asyncio.sleep(0.05)
