"""This process as a venue: ``HereVenue``, and the seating of bots started here.

The bots are started by the ``Launcher`` (or reached at their address, or loaded in-process), and
restarted when one dies between matches; each match is played on this process's asyncio loop. A
match whose bots are all in-process (``module = ...``) goes to a pool of worker processes
(``ladder.venues.workers``), which saves it itself in the same transaction the run would.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from pathlib import Path

from hearts.v1 import codec
from ladder.bots.inprocess import BotModuleError, SdkSeat, load_seat
from ladder.bots.launcher import DEFAULT_STARTUP_TIMEOUT, Launcher
from ladder.bots.registry import BotEntry
from ladder.sandbox import Limits, SandboxMode, probe, probe_limits
from ladder.venues.venue import MatchJob, Played, VenueBots, bot_clocks, seat_clocks
from ladder.venues.workers import MatchWorkers, default_workers
from referee.match import MatchSettings, MatchWatcher, play_match
from referee.record import ForfeitReason, MatchRecord
from referee.rules import Rules
from referee.seats import REFEREE_NAME, GrpcSeat, Seat

__all__ = [
    "HereVenue",
    "KeptVenue",
    "handshake_limits",
    "launcher_seat",
    "load_in_process",
    "play_one_match",
    "ready_seats",
    "sandbox_options",
    "started_bots",
]

_HANDSHAKE_TIMEOUT_S = 5.0


class HereVenue:
    """This process: its launcher's bots and its in-process bots, and ``workers`` processes (default:
    one per core, 0: none) for the matches whose bots are all in-process. ``watcher`` is told of each
    match played on this process's loop as its record grows (not of the workers' matches).

    Made before anything of the run is written: the in-process bots are loaded (``BotModuleError``
    for a module that names no bot, or one asked to run in the sandbox) and the sandbox is probed
    (``SandboxUnavailable``), so a run that cannot play writes nothing."""

    on_event: Callable[[str], None] | None = None

    def __init__(
        self,
        entries: Mapping[str, BotEntry],
        *,
        db_path: Path | str,
        settings: MatchSettings,
        log_dir: Path,
        startup_timeout: float = DEFAULT_STARTUP_TIMEOUT,
        sandbox: SandboxMode | str = SandboxMode.OFF,
        workers: int | None = None,
        watcher: MatchWatcher | None = None,
    ) -> None:
        if workers is not None and workers < 0:
            raise ValueError("workers must be 0 or more")
        mode = SandboxMode(sandbox)
        self.entries, self.settings, self.log_dir, self.db_path = dict(entries), settings, log_dir, db_path
        self.modules = {n: e.module for n, e in self.entries.items() if e.module is not None}
        self.clocks = bot_clocks(self.entries)  # the bots with a clock of their own
        self.seats: dict[str, Seat] = dict(load_in_process(self.entries, mode, log_dir))
        if mode is SandboxMode.FULL or any(e.sandbox for e in self.entries.values()):
            probe()
        elif mode is SandboxMode.LIMITS_ONLY:
            probe_limits()
        self.launcher = Launcher(log_dir, startup_timeout=startup_timeout, sandbox=mode)
        self.n_workers = default_workers() if workers is None else workers
        self.pool: MatchWorkers | None = None
        self.rules: dict[str, Rules] = {}  # parsed once per ruleset, for every match
        self.watcher = watcher
        self.unreachable: set[str] = set()  # unreachable in their last match: checked before seating
        self._logs: dict[str, Path | None] = {}

    @property
    def slots(self) -> int:
        """With workers, a match queued per worker keeps each busy; when every match is theirs, as many
        as the pool asks for (it batches them)."""
        if self.pool is None:
            return 0
        every = len(self.modules) == len(self.entries)
        return max(2 * self.n_workers, self.pool.room if every else 0)

    @property
    def events(self) -> list[str]:
        return list(self.launcher.events)

    @property
    def logs(self) -> dict[str, Path | None]:
        return dict(self._logs)

    async def open(self, bots: VenueBots) -> dict[str, int]:
        """Start (or reach) the launched bots; each bot's ``max_concurrent_games`` from its handshake."""
        if self.n_workers and self.modules:
            self.pool = MatchWorkers(
                self.n_workers, self.modules, self.db_path, self.settings, self.log_dir, clocks=self.clocks
            )
        launched = [n for n in self.entries if n not in self.modules]
        entries = self.entries
        await self.launcher.start_many(
            ((n, entries[n].command, entries[n].address) for n in launched), sandbox_options(entries)
        )
        for n in launched:
            self.seats[n] = launcher_seat(self.launcher, n, self.launcher.bots[n].address or "")
        self._logs = {n: self.launcher.bots[n].log_path for n in launched} | {
            n: self.log_dir / f"{n}.log" for n in self.modules
        }
        return await handshake_limits(self.seats)

    def _pooled(self, job: MatchJob) -> bool:
        return self.pool is not None and all(isinstance(self.seats[b], SdkSeat) for b in job.seats)

    async def play(self, job: MatchJob) -> Played:
        if self.pool is not None and self._pooled(job):
            return Played(await self.pool.play(job), saved=True)
        rules = self.rules.get(job.rules)
        if rules is None:
            rules = self.rules[job.rules] = Rules.parse(job.rules)
        table = await ready_seats(self.launcher, self.seats, job.seats, self.unreachable)
        record = await play_match(
            table,
            rules,
            job.seed,
            settings=self.settings,
            match_id=job.match_id,
            names=list(job.seats),
            tournament_id=job.tournament_id,
            shown_names=list(job.shown) if job.shown else None,
            watcher=self.watcher,
            time_controls=seat_clocks(self.clocks, job.seats),
        )
        self.unreachable.update(
            job.seats[s.seat] for s in record.seats if s.forfeit_reason is ForfeitReason.UNREACHABLE
        )
        return Played(record)

    def stop_handing_out(self) -> None:
        if self.pool is not None:
            self.pool.hand_out_no_more()  # matches queued for a batch stay pending

    def finish_saving(self) -> None:
        if self.pool is not None:
            self.pool.close()  # the matches in flight are saved before the status is written

    def kill(self) -> None:
        for bp in self.launcher.bots.values():
            if bp.proc is not None:
                try:
                    os.killpg(bp.proc.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass  # gone already, or not ours to kill: the launcher's stop deals with it

    async def close(self) -> None:
        for s in self.seats.values():
            await s.close()
        await self.launcher.stop_all()


class KeptVenue(HereVenue):
    """This process, its bots kept running from one run to the next: an arena's ladder plays batch
    after batch of mostly the same bots, and a bot's start costs more than many of its decisions.

    ``open`` starts only the bots not up already as their entries say, and stops those the run does
    not seat or whose entry changed (a new version); ``close`` keeps the rest up for the next run;
    ``shutdown`` stops them all. A bot that forfeited a match, or was given up on (too many
    restarts), starts afresh at the next run, as it would in a run of its own; one reached at an
    address is checked again at each. Its bots all have a command or an address (no in-process
    bots, no worker pool)."""

    def __init__(
        self,
        *,
        log_dir: Path,
        startup_timeout: float = DEFAULT_STARTUP_TIMEOUT,
        sandbox: SandboxMode | str = SandboxMode.OFF,
    ) -> None:
        super().__init__(
            {},
            db_path="",
            settings=MatchSettings(),
            log_dir=log_dir,
            startup_timeout=startup_timeout,
            sandbox=sandbox,
            workers=0,
        )
        self._events_from = 0
        self._forfeited: set[str] = set()  # bots that forfeited a match: started afresh at the next run

    @property
    def events(self) -> list[str]:
        return self.launcher.events[self._events_from :]

    async def play(self, job: MatchJob) -> Played:
        played = await super().play(job)
        if played.record is not None:
            self._forfeited.update(job.seats[s.seat] for s in played.record.seats if s.forfeit)
        return played

    async def open(self, bots: VenueBots) -> dict[str, int]:
        """Start the bots of ``bots`` not up already (``BotStartError`` names the first that cannot
        start: the others stay up); each bot's ``max_concurrent_games`` from its handshake."""
        modules = sorted(n for n, e in bots.entries.items() if e.module is not None)
        if modules:
            raise ValueError(f"a kept venue runs no in-process bots: {', '.join(modules)}")
        if bots.sandbox is not self.launcher.sandbox:
            raise ValueError(f"this venue's bots run {self.launcher.sandbox.value}, not {bots.sandbox.value}")
        entries = dict(bots.entries)
        self.settings, self.clocks = bots.settings, bot_clocks(entries)
        self._events_from = len(self.launcher.events)
        for name, bp in list(self.launcher.bots.items()):
            changed = entries.get(name) != self.entries.get(name)
            if changed or bp.remote or bp.failed is not None or name in self._forfeited:
                await self._let_go(name)
        self._forfeited.clear()
        self.entries = entries
        new = [n for n in entries if n not in self.launcher.bots]
        options = sandbox_options(entries)
        started = await asyncio.gather(
            *(
                self.launcher.start(n, entries[n].command, address=entries[n].address, sandbox=own[0], limits=own[1])
                for n in new
                for own in [options.get(n, (None, None))]
            ),
            return_exceptions=True,
        )
        failed: BaseException | None = None
        for name, outcome in zip(new, started):
            if isinstance(outcome, BaseException):
                failed = failed or outcome
                if name in self.launcher.bots:
                    await self.launcher.stop(name)
            else:
                self.seats[name] = launcher_seat(self.launcher, name, outcome)
        if failed is not None:
            raise failed
        self._logs = {n: self.launcher.bots[n].log_path for n in entries}
        return await handshake_limits({n: self.seats[n] for n in entries})

    async def _let_go(self, name: str) -> None:
        seat = self.seats.pop(name, None)
        if seat is not None:
            await seat.close()
        self.unreachable.discard(name)
        await self.launcher.stop(name)

    async def close(self) -> None:
        """Keep the bots up for the next run."""

    async def shutdown(self) -> None:
        """Stop every bot and let go of the venue."""
        await super().close()


def load_in_process(entries: Mapping[str, BotEntry], sandbox: SandboxMode, log_dir: Path) -> dict[str, SdkSeat]:
    """The seats of the in-process bots (``module = ...``) among ``entries``, loaded now: ``BotModuleError``
    for a module that names no bot, or for any when the run is sandboxed (they would share this process)."""
    modules = {n: e.module for n, e in entries.items() if e.module is not None}
    seats = {n: load_seat(n, spec, log_dir) for n, spec in modules.items()}
    if modules and (sandbox is not SandboxMode.OFF or any(entries[n].sandbox for n in modules)):
        raise BotModuleError(
            f"in-process bots cannot run in the sandbox: {', '.join(sorted(modules))} (module = ...) would "
            "share the harness's process. Give each a command instead (python -m ... --port {port}), or run "
            "without --sandbox"
        )
    return seats


def sandbox_options(entries: Mapping[str, BotEntry]) -> dict[str, tuple[SandboxMode | None, Limits | None]]:
    """Each bot's own sandbox settings from its entry (``sandbox = true``, ``limits``)."""
    return {
        n: (SandboxMode.FULL if e.sandbox else None, e.limits)
        for n, e in entries.items()
        if e.sandbox or e.limits is not None
    }


def launcher_seat(launcher: Launcher, name: str, address: str) -> GrpcSeat:
    """The bot's seat, with the isolation its launcher runs it under (the record keeps it); an
    unreachable sandboxed bot is asked of its launcher, which knows whether its sandbox stopped it
    at a limit (a ``resource_limit`` fault, not a transport one), and before every handshake the
    launcher vouches that the bot it started serves the address."""

    async def diagnose() -> str | None:
        return await launcher.diagnose(name, address)

    async def vouch() -> str | None:
        return await launcher.vouch(name, address)

    return GrpcSeat(
        address,
        name,
        diagnose=diagnose if launcher.bots[name].sandbox is not SandboxMode.OFF else None,
        vouch=vouch,
        isolation=launcher.isolation(name),
    )


async def handshake_limits(seats: dict[str, Seat]) -> dict[str, int]:
    """Each bot's max_concurrent_games from its handshake (0: no limit, also when it does not answer)."""
    request = codec.handshake_request(REFEREE_NAME)

    async def one(seat: Seat) -> int:
        try:
            return int((await seat.handshake(request, _HANDSHAKE_TIMEOUT_S)).max_concurrent_games)
        except Exception:
            return 0

    values = await asyncio.gather(*(one(s) for s in seats.values()))
    return dict(zip(seats, values))


async def ready_seats(
    launcher: Launcher, seats: dict[str, Seat], names: Sequence[str], unreachable: set[str]
) -> list[Seat]:
    """The seats of one table, in seat order: each launched bot restarted first if it has died (or,
    named in ``unreachable``, if it does not answer its health check), its channel replaced when it
    came back on a new address. In-process seats are taken as they are."""
    table: list[Seat] = []
    for b in names:
        if isinstance(seats[b], SdkSeat):  # in-process: nothing to start
            table.append(seats[b])
            continue
        check = b in unreachable
        unreachable.discard(b)
        addr = await launcher.ensure(b, check=check)
        if seats[b].address != addr:  # restarted on a new port: a new channel
            # Replace before closing: while the old one closes, another match must see the new one.
            old, seats[b] = seats[b], launcher_seat(launcher, b, addr)
            await old.close()
        table.append(seats[b])
    return table


async def play_one_match(
    entries: Sequence[BotEntry],
    seats: Sequence[str],
    rules: Rules,
    seed: int,
    *,
    settings: MatchSettings | None = None,
    log_dir: Path | str = "logs",
    startup_timeout: float = DEFAULT_STARTUP_TIMEOUT,
    sandbox: SandboxMode | str = SandboxMode.OFF,
) -> MatchRecord:
    """One match among bots started (or reached, or loaded in-process) by their entries, as a
    tournament has them: ``seats`` names each seat's bot, in seat order (a bot may fill several),
    each under its entry's clock, if any, over ``settings``. The bots are stopped when the match
    ends, however it ends. ``BotStartError`` if one cannot be started, ``BotModuleError`` if a module
    names no bot."""
    by_name = {e.name: e for e in entries}
    wanted = [by_name[n] for n in dict.fromkeys(seats)]
    async with started_bots(wanted, log_dir=log_dir, startup_timeout=startup_timeout, sandbox=sandbox) as chairs:
        return await play_match(
            [chairs[n] for n in seats],
            rules,
            seed,
            settings=settings,
            names=list(seats),
            time_controls=seat_clocks(bot_clocks(by_name), seats),
        )


@contextlib.asynccontextmanager
async def started_bots(
    entries: Sequence[BotEntry],
    *,
    log_dir: Path | str = "logs",
    startup_timeout: float = DEFAULT_STARTUP_TIMEOUT,
    sandbox: SandboxMode | str = SandboxMode.OFF,
) -> AsyncIterator[dict[str, Seat]]:
    """Each bot of ``entries`` seated, by name: started by its command, reached at its address or
    loaded in-process, as a tournament has them; stopped when the block ends, however it ends.
    ``BotStartError`` if one cannot be started, ``BotModuleError`` if a module names no bot."""
    by_name = {e.name: e for e in entries}
    chairs: dict[str, Seat] = {
        n: load_seat(n, module, log_dir) for n, e in by_name.items() if (module := e.module) is not None
    }
    if chairs and SandboxMode(sandbox) is not SandboxMode.OFF:
        raise BotModuleError(
            f"in-process bots cannot run in the sandbox: {', '.join(sorted(chairs))}; give each a command instead"
        )
    async with Launcher(log_dir, startup_timeout=startup_timeout, sandbox=sandbox) as launcher:
        started = ((n, e.command, e.address) for n, e in by_name.items() if n not in chairs)
        addresses = await launcher.start_many(started, sandbox_options(by_name))
        chairs.update((n, launcher_seat(launcher, n, a)) for n, a in addresses.items())
        try:
            yield chairs
        finally:
            for chair in chairs.values():
                await chair.close()
