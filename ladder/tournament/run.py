"""Tournaments: a stored schedule of matches, played concurrently, resumable at any moment.

``create_tournament`` writes a tournament row and its whole schedule (every match with its seed,
seats and rules) in one transaction. ``play_tournament`` plays whatever is still pending:

- the bots are started by the ``Launcher`` (or reached at their address), and restarted when one
  dies between matches;
- up to ``concurrency`` matches run at once on one asyncio loop; a bot never serves more matches
  at once than its limit: the lower of its entry's ``max_concurrency`` (the organiser's) and its
  handshake's ``max_concurrent_games`` (0 or None = no limit), enforced by a per-bot semaphore. A
  match is only started when all its bots have a free slot, so no match holds one bot's slot while
  it waits for another's. (A bot that answers one request at a time must be held to 1: the clock
  runs from when a call leaves the referee, so time spent in the bot's own queue is charged to it.)
- each finished match is saved with ``Store.save_match`` and marked done, with its live Elo
  change, in ONE transaction. A scheduled match is pending exactly while its ``match_id`` is
  NULL, and it is set only in that transaction, so killing the process at any moment loses no
  completed match and plays none twice. Matches in flight when the process dies were never
  saved; ``resume`` plays them again from their seeds.

The tournament row stores the bots' entries (command or address, and limit) at creation. ``play_tournament``
takes replacements (``bots=``): ``hearts tournament resume`` passes the registry's current entries
that differ (``registry_changes``), so fixing a registration with ``hearts bot add`` and resuming
works; the replacements are then stored in the tournament row. A tournament that played nothing
can be removed with ``delete_tournament`` (``hearts tournament run`` does so when a bot fails to
start before any match).

Live Elo is the pairwise update of ``ladder.ratings.fit.live_elo_update`` (K/(N−1) per pair) applied
in the order matches are saved; it is an in-play indicator stored per match in ``live_elo``. The
ladder's rating is the batch fit (``ladder.ratings.leaderboard``).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import dataclasses
import json
import os
import signal
import socket
import sqlite3
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from hearts.v1 import codec
from ladder.bots.inprocess import BotModuleError, SdkSeat, load_seat
from ladder.bots.launcher import DEFAULT_STARTUP_TIMEOUT, Launcher, process_alive
from ladder.bots.registry import BotEntry, add_bots, get_bot, list_bots
from ladder.ratings.fit import ELO_BASE, live_elo_update
from ladder.ratings.leaderboard import live_elo
from ladder.sandbox import Limits, SandboxMode, probe, probe_limits
from ladder.store import Runner, Store, TournamentRow
from ladder.tournament.schedule import DEFAULT_MAX_TABLES, ScheduledMatch, build_schedule, match_id
from ladder.venues.venue import Venue, VenueBots
from ladder.venues.workers import MatchJob, MatchWorkers, default_workers
from referee.match import MatchSettings, play_match
from referee.record import FaultKind, ForfeitReason, MatchRecord
from referee.rules import Rules
from referee.seats import REFEREE_NAME, GrpcSeat, Seat

__all__ = [
    "LIVE_ELO_K",
    "AlreadyRecorded",
    "RunSummary",
    "Runner",
    "TournamentBusy",
    "TournamentInfo",
    "TournamentInterrupted",
    "TournamentSpec",
    "create_tournament",
    "delete_tournament",
    "effective_limit",
    "get_tournament",
    "handshake_limits",
    "launcher_seat",
    "list_tournaments",
    "live_elo",
    "pending_matches",
    "play_tournament",
    "ready_seats",
    "registry_changes",
    "run_tournament",
    "runner_of",
    "runner_state",
    "sandbox_options",
    "save_scheduled",
]

LIVE_ELO_K: float = 32.0
_HANDSHAKE_TIMEOUT_S = 5.0
_LOOKAHEAD = 500  # pending matches examined for one with free bots


class AlreadyRecorded(RuntimeError):
    """The scheduled match was recorded by another process first (nothing of this one is saved)."""


class TournamentBusy(ValueError):
    """Another process plays the tournament. ``verified``: it surely does (that very process runs
    here); else it may be gone, which this machine cannot tell, and the caller may force a takeover."""

    def __init__(self, message: str, *, runner: Runner | None = None, verified: bool = True) -> None:
        super().__init__(message)
        self.runner = runner
        self.verified = verified


class TournamentInterrupted(KeyboardInterrupt):
    """``run_tournament`` was stopped by a signal (SIGINT, SIGTERM): the matches in flight stay
    pending, the status is ``interrupted`` and the bots are stopped."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"stopped by {signal.Signals(signum).name}")
        self.signum = signum


# -- the runner: which process plays a tournament ------------------------------------------------


def _proc_stat(pid: int) -> tuple[str, str] | None:
    """(state, start) of process ``pid`` from /proc: the start is the boot id with the start time in
    clock ticks since boot, unique across reboots. None where /proc cannot tell (not Linux, no such
    process)."""
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()  # after the command name, which may hold spaces and ')'
    return fields[0], f"{boot}:{fields[19]}"  # fields 3 (state) and 22 (starttime) of proc(5)


def runner_of(pid: int) -> Runner:
    """The identity of process ``pid`` of this host, as a claim records it."""
    stat = _proc_stat(pid)
    return Runner(pid=pid, host=socket.gethostname(), started=stat[1] if stat is not None else None)


def runner_state(runner: Runner) -> str:
    """``alive``: that very process runs (on this host); ``gone``: it does not, its pid is free or
    names another process; ``unknown``: this host cannot tell (the runner is on another host, or
    nothing says when it started)."""
    if runner.host is not None and runner.host != socket.gethostname():
        return "unknown"
    if not process_alive(runner.pid):
        return "gone"
    stat = _proc_stat(runner.pid)
    if stat is not None and stat[0] in ("Z", "X"):
        return "gone"  # a zombie: it has exited, only its parent has not reaped it yet
    if runner.host is None or runner.started is None or stat is None:
        return "unknown"
    return "alive" if stat[1] == runner.started else "gone"


def _is(runner: Runner, me: Runner) -> bool:
    # An older claim (no host, no start) of this very pid is this process's own.
    return runner.pid == me.pid and runner.host in (None, me.host) and runner.started in (None, me.started)


def _busy(tid: int, runner: Runner, state: str) -> TournamentBusy:
    message = f"tournament {tid} is being played by process {runner.pid}; wait for it or stop it"
    if state == "alive":
        return TournamentBusy(message, runner=runner)
    if runner.host is not None and runner.host != socket.gethostname():
        why = f"it runs on {runner.host}, so this machine cannot check it"
    else:
        why = f"a process {runner.pid} runs here, but nothing tells whether it is the one that claimed it"
    return TournamentBusy(f"{message} ({why})", runner=runner, verified=False)


def _claim(store: Store, tid: int, *, force: bool = False) -> None:
    """Record this process as the tournament's runner; ``TournamentBusy`` if another one plays it.
    A runner that is gone (killed, crashed, its pid reused) is taken over, and with ``force`` one
    whose state cannot be checked; a runner known to be alive never is."""
    me = runner_of(os.getpid())
    with store.db.atomic():  # BEGIN IMMEDIATE: two claims never both see the tournament free
        other = store.tournaments.runner(tid)
        if other is not None:
            if not _is(other, me):
                state = runner_state(other)
                if state == "alive" or (state == "unknown" and not force):
                    raise _busy(tid, other, state)
        store.tournaments.set_runner(tid, me)


def _end_run(store: Store, tid: int, status: str) -> None:
    """The run's status, and the release of this process's claim: one transaction."""
    me = runner_of(os.getpid())
    with store.db.atomic():
        store.tournaments.set_status(tid, status)
        store.tournaments.release_runner(tid, me)


@dataclass(frozen=True)
class TournamentSpec:
    """What to play. ``settings`` is the referee's time control and fault policy."""

    format: str = "round-robin"
    rules: str = "standard"
    rounds: int = 1
    deals: int = 1
    seed: int = 0
    gauntlet: str | None = None
    duplicate: bool = True
    max_tables: int = DEFAULT_MAX_TABLES
    settings: MatchSettings = field(default_factory=MatchSettings)


@dataclass(frozen=True)
class TournamentInfo:
    id: int
    format: str
    rules: str
    seed: int
    rounds: int
    deals: int
    gauntlet: str | None
    bots: tuple[BotEntry, ...]
    settings: MatchSettings
    status: str  # pending | running | interrupted | finished
    created_at: str
    finished_at: str | None
    total: int  # scheduled matches
    done: int  # recorded matches
    # Why the stored time control cannot be played (a NaN a script wrote, say), or None; ``settings``
    # then holds the defaults, and the tournament is listed but never played.
    unplayable: str | None = None

    @property
    def pending(self) -> int:
        return self.total - self.done


@dataclass
class RunSummary:
    """What one ``play_tournament`` call did."""

    tournament_id: int
    played: int = 0
    faults: int = 0
    forfeits: int = 0
    seconds: float = 0.0
    remaining: int = 0
    events: list[str] = field(default_factory=list)  # bot restarts and give-ups
    max_in_flight: dict[str, int] = field(default_factory=dict)  # most matches a bot served at once
    # The limit each bot was held to: the lower of its entry's max_concurrency and its handshake's
    # max_concurrent_games (0: neither set one).
    limits: dict[str, int] = field(default_factory=dict)
    declared: dict[str, int] = field(default_factory=dict)  # max_concurrent_games from the handshakes
    # Faults of each bot in the matches played: kind -> count (bots without faults are left out).
    bot_faults: dict[str, dict[str, int]] = field(default_factory=dict)
    bot_forfeits: dict[str, int] = field(default_factory=dict)  # forfeits by bot (none: left out)
    logs: dict[str, Path | None] = field(default_factory=dict)  # each bot's log file (None: a remote bot)
    sandbox: str = SandboxMode.OFF.label  # how the bots ran, as every output labels it


# -- creating and reading ------------------------------------------------------------------------


def create_tournament(store: Store, bots: Sequence[BotEntry], spec: TournamentSpec) -> int:
    """Register the bots, build the schedule and store both; returns the tournament id."""
    try:
        rules = Rules.parse(spec.rules)
    except ValueError as e:
        raise ValueError(f"rules {spec.rules!r}: {e}") from None
    names = sorted(b.name for b in bots)
    text = str(rules)  # the canonical text, in the tournament and every scheduled match alike
    schedule = build_schedule(
        names,
        spec.format,
        rules=text,
        players=rules.players,
        rounds=spec.rounds,
        deals=spec.deals,
        seed=spec.seed,
        gauntlet=spec.gauntlet,
        max_tables=spec.max_tables,
        duplicate=spec.duplicate,
        partners=rules.partnership != "none",
    )
    with store.db.atomic():
        add_bots(store, bots)
        # An entry without a limit keeps the registered one (add_bot): store the limit in force, so
        # that a resume holds the bot to it whatever the registry says by then.
        bots = [dataclasses.replace(b, max_concurrency=_registered_limit(store, b.name)) for b in bots]
        tid = store.tournaments.insert(
            format=spec.format,
            rules=text,
            seed=spec.seed,
            rounds=spec.rounds,
            deals=spec.deals,
            gauntlet=spec.gauntlet,
            bots=json.dumps([b.to_dict() for b in sorted(bots, key=lambda b: b.name)]),
            settings=json.dumps({**asdict(spec.settings), "duplicate": spec.duplicate, "max_tables": spec.max_tables}),
        )
        store.tournaments.insert_schedule(tid, schedule)
    return tid


def _info(row: TournamentRow) -> TournamentInfo:
    stored = json.loads(row.settings)
    known = set(MatchSettings.__dataclass_fields__)
    unplayable = None
    try:
        settings = MatchSettings(**{k: v for k, v in stored.items() if k in known})
    except ValueError as e:
        settings, unplayable = (
            MatchSettings(),
            f"tournament {row.id} was stored with a time control that cannot be played: {e}",
        )
    return TournamentInfo(
        id=row.id,
        format=row.format,
        rules=row.rules,
        seed=row.seed,
        rounds=row.rounds,
        deals=row.deals,
        gauntlet=row.gauntlet,
        bots=tuple(BotEntry.from_dict(b) for b in json.loads(row.bots)),
        settings=settings,
        status=row.status,
        created_at=row.created_at,
        finished_at=row.finished_at,
        total=row.total,
        done=row.done,
        unplayable=unplayable,
    )


def get_tournament(store: Store, tournament_id: int) -> TournamentInfo:
    """One tournament; ``KeyError`` naming the id if there is none."""
    row = store.tournaments.get(tournament_id)
    if row is None:
        raise KeyError(f"no tournament {tournament_id} in {store.path}")
    return _info(row)


def list_tournaments(store: Store) -> list[TournamentInfo]:
    return [_info(r) for r in store.tournaments.all()]


def delete_tournament(store: Store, tournament_id: int) -> None:
    """Remove a tournament that has recorded no match, with its schedule (``ValueError`` if it has)."""
    with store.db.atomic():
        info = get_tournament(store, tournament_id)
        if info.done:
            raise ValueError(f"tournament {tournament_id} has {info.done} recorded matches: it is kept")
        store.tournaments.delete(tournament_id)


def _registered_limit(store: Store, name: str) -> int | None:
    entry = get_bot(store, name)
    return entry.max_concurrency if entry is not None else None


def _same_target(a: BotEntry, b: BotEntry) -> bool:
    return (a.command, a.address, a.max_concurrency or None) == (b.command, b.address, b.max_concurrency or None)


def effective_limit(max_concurrency: int | None, declared: int) -> int:
    """The matches a bot may play at once: the lower of the organiser's ``max_concurrency`` and the
    bot's declared ``max_concurrent_games``, where 0 or None sets no limit; 0 if neither does."""
    limits = [x for x in (max_concurrency or 0, declared) if x > 0]
    return min(limits) if limits else 0


def registry_changes(store: Store, tournament_id: int) -> dict[str, BotEntry]:
    """The tournament's bots whose registry entry now starts or reaches them differently (another
    command, address or limit) from the entry stored with the tournament: name -> current entry
    (bots no longer registered are left out)."""
    stored = {b.name: b for b in get_tournament(store, tournament_id).bots}
    return {e.name: e for e in list_bots(store) if e.name in stored and not _same_target(e, stored[e.name])}


def _store_entries(store: Store, tid: int, entries: Mapping[str, BotEntry]) -> None:
    with store.db.atomic():
        store.tournaments.set_bots(tid, json.dumps([entries[n].to_dict() for n in sorted(entries)]))


def pending_matches(store: Store, tournament_id: int) -> list[ScheduledMatch]:
    """The scheduled matches with no record yet, in schedule order."""
    return store.tournaments.pending(tournament_id)


def _set_status(store: Store, tid: int, status: str) -> None:
    with store.db.atomic():
        store.tournaments.set_status(tid, status)


def save_scheduled(store: Store, tid: int, index: int, record: MatchRecord, k: float = LIVE_ELO_K) -> None:
    """Save a match record, mark its scheduled match done and store its live Elo change: one transaction."""
    with store.db.atomic():
        try:
            store.save_match(record)
        except sqlite3.IntegrityError:
            if store.has_match(record.match_id):  # another process saved this scheduled match
                raise AlreadyRecorded(f"tournament {tid} match {index} is already recorded") from None
            raise
        if not store.tournaments.mark_recorded(tid, index, record.match_id):
            # another process recorded it first: roll the whole match back
            raise AlreadyRecorded(f"tournament {tid} match {index} is already recorded")
        players = [s.bot for s in record.seats]
        ids = [store.bot_id(p) for p in players]
        # Over every match of this ruleset: live Elo carries across tournaments, never across
        # rulesets (a ladder is per ruleset).
        current = live_elo(store, bots=players, rules=record.rules)
        before = {p: current.get(p, ELO_BASE) for p in players}
        # Places, not scores: a forfeiter places last whatever its substitutes scored.
        after = live_elo_update(before, players, [float(s.place) for s in record.seats], k=k)
        store.tournaments.add_live_elo(
            record.match_id, k, [(i, before[p], after[p] - before[p]) for p, i in zip(players, ids)]
        )


# -- playing -------------------------------------------------------------------------------------


async def play_tournament(
    store: Store,
    tournament_id: int,
    *,
    concurrency: int = 4,
    log_dir: Path | str | None = None,
    startup_timeout: float = DEFAULT_STARTUP_TIMEOUT,
    on_record: Callable[[MatchRecord], None] | None = None,
    bots: Mapping[str, BotEntry] | None = None,
    force: bool = False,
    stop: Callable[[], bool] | None = None,
    workers: int | None = None,
    sandbox: SandboxMode | str = SandboxMode.OFF,
    shown_names: Mapping[str, str] | None = None,
    venue: Venue | None = None,
) -> RunSummary:
    """Play every pending match of a tournament; returns what was played. ``stop``, asked before each
    match starts, ends the run early when it says so (the matches in flight finish and are saved).
    ``sandbox``: how every bot is run (a bot whose entry says ``sandbox = true`` always is); a
    sandbox this machine cannot make raises ``SandboxUnavailable`` before anything is written.
    ``shown_names``: the name each bot is told of the others, by ladder name (an anonymous
    contest's aliases); the records keep the ladder names.

    Bots with a ``module`` entry are played in-process (``ladder.bots.inprocess``). A match whose bots
    all are goes to one of ``workers`` processes (``ladder.venues.workers``; default: one per core, 0:
    none, every match in this process), which saves it itself; ``on_record`` then sees the record
    without its plays. Matches with a bot served over gRPC are played here.

    ``venue`` (a ``ladder.venues.venue.Venue``, e.g. ``cluster.DaskVenue``): every match is played there
    instead, its bots started there (``workers`` is then unused). This process still decides which
    match starts when (each bot's limit holds over all the venue's matches, at most ``concurrency``
    or the venue's slots, whichever is more, in flight) and saves every record, one transaction each.

    The bots are started (or reached) by the entries stored with the tournament, except those
    named in ``bots`` (e.g. ``registry_changes``): their entries replace the stored ones, in the
    tournament row too. Raises ``BotStartError`` if a bot cannot be started at the beginning
    (nothing is played then), ``TournamentBusy`` if another process plays it (``force`` takes
    over a runner whose state this machine cannot check).
    Cancelling (Ctrl-C) stops the matches in flight, which stay pending, and stops the bots; the
    status is written before the bots are stopped, and a second cancellation does not stop that.
    """
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    if workers is not None and workers < 0:
        raise ValueError("workers must be 0 or more")
    info = get_tournament(store, tournament_id)
    if info.unplayable is not None:
        raise ValueError(info.unplayable)
    todo = pending_matches(store, tournament_id)
    summary = RunSummary(tournament_id=tournament_id)
    t0 = time.monotonic()
    if not todo:
        if info.status != "finished":
            _set_status(store, tournament_id, "finished")
        return summary
    rules = {text: Rules.parse(text) for text in {m.rules for m in todo}}  # parsed once per ruleset, for every match
    needed = sorted({b for m in todo for b in m.seats})
    entries = {b.name: b for b in info.bots}
    # A replacement from the registry (which keeps no sandbox settings) keeps the stored entry's.
    changed = {
        n: dataclasses.replace(e, sandbox=e.sandbox or entries[n].sandbox, limits=e.limits or entries[n].limits)
        for n, e in (bots or {}).items()
        if n in entries and not _same_target(e, entries[n])
    }
    entries.update(changed)
    missing = [n for n in needed if n not in entries]
    if missing:
        raise ValueError(f"tournament {tournament_id} schedules unknown bots: {', '.join(missing)}")
    # In-process bots are loaded before anything is written: a module that names no bot
    # (BotModuleError) leaves the tournament as it was.
    logs = Path(log_dir) if log_dir is not None else Path(store.path).resolve().parent / "logs"
    modules = {n: e.module for n in needed if (e := entries[n]).module is not None}
    launched = [n for n in needed if n not in modules]
    seats: dict[str, Seat] = {n: load_seat(n, spec, logs) for n, spec in modules.items()}
    if modules and (SandboxMode(sandbox) is not SandboxMode.OFF or any(entries[n].sandbox for n in modules)):
        raise BotModuleError(
            f"in-process bots cannot run in the sandbox: {', '.join(sorted(modules))} (module = ...) would share "
            "the harness's process. Give each a command instead (python -m ... --port {port}), or run without "
            "--sandbox"
        )
    mode = SandboxMode(sandbox)
    if venue is not None:
        pass  # the bots run at the venue: each of its machines checks its own sandbox
    elif mode is SandboxMode.FULL or any(entries[n].sandbox for n in needed):
        probe()  # before the claim: a run that cannot sandbox writes nothing
    elif mode is SandboxMode.LIMITS_ONLY:
        probe_limits()
    summary.sandbox = (
        mode.label
        if not any(entries[n].sandbox for n in needed) or mode is SandboxMode.FULL
        else (f"{mode.label}; sandboxed by their entries: {', '.join(n for n in needed if entries[n].sandbox)}")
    )
    _claim(store, tournament_id, force=force)  # first: a refused run writes nothing
    if changed:
        _store_entries(store, tournament_id, entries)
    _set_status(store, tournament_id, "running")
    in_workers = default_workers() if workers is None else workers
    pool = None
    if venue is None and in_workers and any(all(b in modules for b in m.seats) for m in todo):
        pool = MatchWorkers(in_workers, modules, store.path, info.settings, logs)
        concurrency = max(concurrency, 2 * in_workers)  # a match queued per worker keeps each one busy
    launcher = Launcher(logs, startup_timeout=startup_timeout, sandbox=mode)
    launchers = _LAUNCHERS.get()
    if launchers is not None:
        launchers.append(launcher)
    failed = True
    opened = False
    try:
        if venue is not None:
            opened = True  # closed however its opening ends: a half-open venue may hold bots
            bots_there = VenueBots(
                tournament_id,
                {n: entries[n] for n in needed},
                info.settings,
                mode,
                startup_timeout,
                logs.resolve(),
                Path.cwd(),
                owner=f"{socket.gethostname()}:{Path(store.path).resolve()}",
            )
            summary.declared = await venue.open(bots_there)
            summary.logs = dict(venue.logs)
        else:
            await launcher.start_many(
                ((n, entries[n].command, entries[n].address) for n in launched), sandbox_options(entries)
            )
            for n in launched:
                seats[n] = launcher_seat(launcher, n, launcher.bots[n].address or "")
            summary.logs = {n: launcher.bots[n].log_path for n in launched} | {n: logs / f"{n}.log" for n in modules}
            summary.declared = await handshake_limits(seats)
        summary.limits = {n: effective_limit(entries[n].max_concurrency, d) for n, d in summary.declared.items()}
        tables = _Tables(store, tournament_id, rules, info.settings, launcher, seats, summary, on_record)
        tables.workers = pool
        tables.venue = venue
        tables.shown_names = dict(shown_names or {})
        await tables.run(todo, concurrency, stop)
        failed = False
    finally:
        if pool is not None:
            pool.close()  # the matches in flight are saved before the status is written
        # The status before any await: no cancellation (a signal) can come between the end of the
        # run and its status, and the bots are stopped to the end whatever arrives meanwhile.
        status_error: sqlite3.Error | None = None
        try:
            summary.remaining = len(pending_matches(store, tournament_id))
            _end_run(store, tournament_id, "finished" if summary.remaining == 0 else "interrupted")
        except sqlite3.Error as e:  # a full disk, say: the claim stays, naming a process about to be gone
            status_error = e
        await _to_the_end(_stop(seats, launcher))
        summary.events = list(launcher.events)
        if venue is not None and opened:
            await _to_the_end(venue.close())
            summary.events += venue.events
        summary.seconds = time.monotonic() - t0
        if status_error is not None and not failed:  # else the run's own error says more
            raise status_error
    return summary


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


async def _stop(seats: Mapping[str, Seat], launcher: Launcher) -> None:
    for s in seats.values():
        await s.close()
    await launcher.stop_all()


async def _to_the_end(step: Awaitable[None]) -> None:
    """Await ``step`` to its end even if this task is cancelled meanwhile; the cancellation is
    passed on once it is done."""
    task = asyncio.ensure_future(step)
    cancelled = False
    while not task.done():
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            if task.cancelled():
                raise
            cancelled = True
    task.result()
    if cancelled:
        raise asyncio.CancelledError


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


class _Tables:
    """The matches of one run: which start when (within the concurrency and each bot's limit), how
    each is seated and played, and what each recorded match adds to the summary."""

    def __init__(
        self,
        store: Store,
        tid: int,
        rules: dict[str, Rules],
        settings: MatchSettings,
        launcher: Launcher,
        seats: dict[str, Seat],
        summary: RunSummary,
        on_record: Callable[[MatchRecord], None] | None,
    ) -> None:
        self.store, self.tid, self.rules, self.settings = store, tid, rules, settings
        self.launcher, self.seats, self.summary, self.on_record = launcher, seats, summary, on_record
        self.workers: MatchWorkers | None = None  # where matches of in-process bots only are played
        self.venue: Venue | None = None  # where every match is played, when not here (a cluster)
        self.shown_names: dict[str, str] = {}  # the names bots are told, where not their ladder names
        # One semaphore per bot with a limit; unlimited bots get none.
        self.sems = {n: asyncio.Semaphore(lim) for n, lim in summary.limits.items() if lim > 0}
        self.in_flight: dict[str, int] = {}  # by bot: its matches in flight (here or at the venue)
        self.unreachable: set[str] = set()  # unreachable in their last match: checked before seating

    def free(self, m: ScheduledMatch) -> bool:
        """Whether every bot of the table has a slot now (no match holds one bot's slot waiting for another's)."""
        return all(b not in self.sems or not self.sems[b].locked() for b in m.seats)

    async def seat(self, m: ScheduledMatch) -> None:
        """Take the table's bots' slots (never blocks: ``free`` saw a slot for every one)."""
        for b in m.seats:
            if b in self.sems:
                await self.sems[b].acquire()
            self.in_flight[b] = self.in_flight.get(b, 0) + 1
            self.summary.max_in_flight[b] = max(self.summary.max_in_flight.get(b, 0), self.in_flight[b])

    async def play(self, m: ScheduledMatch) -> tuple[MatchRecord | None, bool]:
        """One match, each bot started or restarted as needed; its slots are given back however it
        ends. (its record, whether a worker saved it already); no record: a worker found the match
        recorded by another process."""
        seats = self.seats
        try:
            if self.workers is not None and self._to_workers(m):
                job = MatchJob(
                    self.tid, m.index, match_id(self.tid, m.index), tuple(m.seats), m.rules, m.seed, self._shown(m)
                )
                return await self.workers.play(job), True
            if self.venue is not None:
                job = MatchJob(
                    self.tid, m.index, match_id(self.tid, m.index), tuple(m.seats), m.rules, m.seed, self._shown(m)
                )
                return await self.venue.play(job), False  # saved here, by the one writer
            table = await ready_seats(self.launcher, seats, m.seats, self.unreachable)
            record = await play_match(
                table,
                self.rules[m.rules],
                m.seed,
                settings=self.settings,
                match_id=match_id(self.tid, m.index),
                names=list(m.seats),
                tournament_id=self.tid,
                shown_names=list(self._shown(m)) if self.shown_names else None,
            )
            return record, False
        finally:
            for b in m.seats:
                self.in_flight[b] -= 1
                if b in self.sems:
                    self.sems[b].release()

    def _to_workers(self, m: ScheduledMatch) -> bool:
        """Whether the worker processes play ``m``: every bot of its table is in-process."""
        return self.workers is not None and all(isinstance(self.seats[b], SdkSeat) for b in m.seats)

    def _shown(self, m: ScheduledMatch) -> tuple[str, ...]:
        return tuple(self.shown_names.get(b, b) for b in m.seats)

    def recorded(self, m: ScheduledMatch, record: MatchRecord | None, *, saved: bool = False) -> None:
        """Save a finished match (unless another process did first, or a worker saved it: ``saved``)
        and count it in the summary."""
        if record is None:
            return  # a worker found another process's record: it stands
        if not saved:
            try:
                save_scheduled(self.store, self.tid, m.index, record)
            except AlreadyRecorded:
                return  # another process saved it first: its record stands
        summary = self.summary
        self.unreachable.update(m.seats[s.seat] for s in record.seats if s.forfeit_reason is ForfeitReason.UNREACHABLE)
        summary.played += 1
        summary.faults += len(record.faults)
        summary.forfeits += sum(s.forfeit for s in record.seats)
        for f in record.faults:
            kinds = summary.bot_faults.setdefault(m.seats[f.seat], {})
            kind = FaultKind(f.kind).value
            kinds[kind] = kinds.get(kind, 0) + 1
        for s in record.seats:
            if s.forfeit:
                summary.bot_forfeits[m.seats[s.seat]] = summary.bot_forfeits.get(m.seats[s.seat], 0) + 1
        if self.on_record is not None:
            self.on_record(record)

    async def run(self, todo: list[ScheduledMatch], concurrency: int, stop: Callable[[], bool] | None = None) -> None:
        """Play ``todo``, up to ``concurrency`` matches at once, saving each as it ends; once ``stop()``
        says so, start no more."""
        queue = list(todo)
        running: dict[asyncio.Task[tuple[MatchRecord | None, bool]], ScheduledMatch] = {}
        # Workers alone: as many in flight as the pool asks for (it batches them); with matches of
        # other bots too, the concurrency counts them all.
        pooled = self.workers is not None and all(self._to_workers(m) for m in todo)
        try:
            while running or (queue and not (stop is not None and stop())):
                if stop is not None and stop():
                    queue.clear()
                    if self.workers is not None:
                        self.workers.hand_out_no_more()  # matches queued for a batch stay pending
                i = 0
                # Look only so far ahead for a match whose bots are free: when a limited bot sits at
                # every table (a gauntlet), a full scan per finished match would be quadratic.
                # A venue's slots are read each time: workers that join a cluster play at once.
                room = concurrency if self.venue is None else max(concurrency, self.venue.slots)
                if pooled and self.workers is not None:
                    room = max(room, self.workers.room)
                while len(running) < room and i < min(len(queue), _LOOKAHEAD):
                    m = queue[i]
                    if not self.free(m):
                        i += 1
                        continue
                    queue.pop(i)
                    await self.seat(m)
                    running[asyncio.create_task(self.play(m))] = m
                done, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
                error: BaseException | None = None
                for task in done:
                    m = running.pop(task)
                    if task.cancelled() or task.exception() is not None:
                        # A referee error (a bug) stops the run, that match staying pending, once the
                        # other matches of this batch are saved.
                        error = error or (asyncio.CancelledError() if task.cancelled() else task.exception())
                        continue
                    record, saved = task.result()
                    self.recorded(m, record, saved=saved)
                if error is not None:
                    raise error
        finally:
            for task in running:
                task.cancel()
            if running:
                await asyncio.gather(*running, return_exceptions=True)


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
    tournament has them: ``seats`` names each seat's bot, in seat order (a bot may fill several).
    The bots are stopped when the match ends, however it ends. ``BotStartError`` if one cannot be
    started, ``BotModuleError`` if a module names no bot."""
    by_name = {e.name: e for e in entries}
    wanted = [by_name[n] for n in dict.fromkeys(seats)]
    async with started_bots(wanted, log_dir=log_dir, startup_timeout=startup_timeout, sandbox=sandbox) as chairs:
        return await play_match([chairs[n] for n in seats], rules, seed, settings=settings, names=list(seats))


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


def run_tournament(store: Store, tournament_id: int, **kwargs: Any) -> RunSummary:
    """``play_tournament`` on a fresh event loop (for the CLI and scripts).

    In the main thread SIGINT (Ctrl-C) and SIGTERM stop it alike: the matches in flight are
    cancelled (they stay pending), the status becomes ``interrupted``, the bots are stopped, then
    ``TournamentInterrupted`` is raised. A further signal kills the bots at once instead of waiting
    out their grace; the status is written all the same.
    """
    outcome = asyncio.run(_play_until_signalled(store, tournament_id, kwargs))
    if isinstance(outcome, int):
        raise TournamentInterrupted(outcome)
    return outcome


_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
# The launchers of the run in progress, for a second signal to kill their bots at once.
_LAUNCHERS: contextvars.ContextVar[list[Launcher] | None] = contextvars.ContextVar("launchers", default=None)


async def _play_until_signalled(store: Store, tournament_id: int, kwargs: dict[str, Any]) -> RunSummary | int:
    """The run's summary, or the number of the signal that stopped it."""
    loop = asyncio.get_running_loop()
    main = asyncio.current_task()
    assert main is not None
    received: list[int] = []
    launchers: list[Launcher] = []
    token = _LAUNCHERS.set(launchers)

    def on_signal(signum: int) -> None:
        received.append(signum)
        if len(received) == 1:
            main.cancel()  # play_tournament writes the status, then stops the bots
        else:
            for launcher in launchers:
                _kill_bots(launcher)

    # Through the loop, never as an exception raised anywhere: asyncio's own second Ctrl-C raises
    # KeyboardInterrupt in the middle of the cleanup, and the status stayed "running".
    installed: dict[signal.Signals, Any] = {}
    for sig in _STOP_SIGNALS:
        previous = signal.getsignal(sig)
        try:
            loop.add_signal_handler(sig, on_signal, sig)
        except (NotImplementedError, RuntimeError, ValueError):  # not the main thread, or no such support
            continue
        installed[sig] = previous
    try:
        return await play_tournament(store, tournament_id, **kwargs)
    except asyncio.CancelledError:
        if received:
            return received[0]
        raise
    finally:
        for sig, previous in installed.items():
            loop.remove_signal_handler(sig)
            signal.signal(sig, previous if previous is not None else signal.SIG_DFL)
        _LAUNCHERS.reset(token)


def _kill_bots(launcher: Launcher) -> None:
    """SIGKILL every bot process group of ``launcher`` now (its stop then ends at once)."""
    for bp in launcher.bots.values():
        if bp.proc is not None:
            try:
                os.killpg(bp.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass  # gone already, or not ours to kill: the launcher's stop deals with it
