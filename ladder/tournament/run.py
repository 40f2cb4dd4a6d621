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

The tournament row stores the bots' entries (command or address, limit, and a bots file's sandbox
settings and clock) at creation. ``play_tournament`` takes replacements (``bots=``): ``hearts
tournament resume`` passes the registry's current entries that differ (``registry_changes``), so
fixing a registration with ``hearts bot add`` and resuming works; a replacement keeps the stored
entry's sandbox settings and clock (the registry keeps neither), and the replacements are then
stored in the tournament row. A tournament that played nothing
can be removed with ``delete_tournament`` (``hearts tournament run`` does so when a bot fails to
start before any match).

Live Elo is the pairwise update of ``ladder.ratings.fit.live_elo_update`` (K/(N−1) per pair) applied
in the order matches are saved; it is an in-play indicator stored per match in ``live_elo``. The
ladder's rating is the batch fit (``ladder.ratings.leaderboard``).
"""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import json
import os
import signal
import socket
import sqlite3
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ladder.bots.launcher import DEFAULT_STARTUP_TIMEOUT, process_alive
from ladder.bots.registry import BotEntry, add_bots, get_bot, list_bots
from ladder.sandbox import SandboxMode
from ladder.store import Runner, Store, TournamentRow
from ladder.store.save import AlreadyRecorded, save_scheduled
from ladder.tournament.knockout import bracket_sizes, default_advance, seeding
from ladder.tournament.schedule import DEFAULT_MAX_TABLES, ScheduledMatch, build_schedule, match_id
from ladder.tournament.stages import STAGED_FORMATS, first_round, next_round
from ladder.venues.here import HereVenue, load_in_process
from ladder.venues.venue import MatchJob, Played, Venue, VenueBots
from referee.match import MatchSettings, MatchWatcher
from referee.record import FaultKind, MatchRecord
from referee.rules import Rules
from referee.settings import CLOCK_KEYS, TimeControlError

if TYPE_CHECKING:
    from ladder.ratings.leaderboard import Leaderboard

__all__ = [
    "RunSummary",
    "Runner",
    "TournamentBusy",
    "TournamentInfo",
    "TournamentInterrupted",
    "TournamentSpec",
    "create_tournament",
    "delete_tournament",
    "effective_limit",
    "finish_early",
    "get_tournament",
    "list_tournaments",
    "pending_matches",
    "play_tournament",
    "registry_changes",
    "run_tournament",
    "runner_of",
    "runner_state",
    "seeding_ratings",
    "until_signalled",
]

_LOOKAHEAD = 500  # pending matches examined for one with free bots


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

    format: str = "round-robin"  # or gauntlet, swiss, knockout
    rules: str = "standard"
    rounds: int = 1  # a Swiss: its rounds; a knockout: ignored (the bracket says)
    deals: int = 1
    seed: int = 0
    gauntlet: str | None = None
    duplicate: bool = True
    max_tables: int = DEFAULT_MAX_TABLES
    settings: MatchSettings = field(default_factory=MatchSettings)
    advance: int | None = None  # a knockout: places of each table that go on (default: half the table)


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
    # (or the bot's entry, without its clock) then holds the defaults, and the tournament is listed but
    # never played.
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


def create_tournament(
    store: Store, bots: Sequence[BotEntry], spec: TournamentSpec, *, ratings: Mapping[str, float] | None = None
) -> int:
    """Register the bots, build the schedule and store both; returns the tournament id. A Swiss or a
    knockout is seeded by ``ratings`` (by bot; default: the store's ladder in the spec's rules,
    ``seeding_ratings``), then by name."""
    try:
        rules = Rules.parse(spec.rules)
    except ValueError as e:
        raise ValueError(f"rules {spec.rules!r}: {e}") from None
    names = sorted(b.name for b in bots)
    text = str(rules)  # the canonical text, in the tournament and every scheduled match alike
    if spec.format in STAGED_FORMATS:
        return _create_staged(store, bots, spec, rules, names, text, ratings)
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
    extra = {"duplicate": spec.duplicate, "max_tables": spec.max_tables}
    return _store_tournament(store, bots, spec, text, spec.rounds, spec.gauntlet, extra, schedule)


def _store_tournament(
    store: Store,
    bots: Sequence[BotEntry],
    spec: TournamentSpec,
    text: str,
    rounds: int,
    gauntlet: str | None,
    extra: Mapping[str, object],
    schedule: Sequence[ScheduledMatch],
) -> int:
    """Register the bots and store the tournament with its schedule, in one transaction; its id."""
    with store.db.atomic():
        add_bots(store, bots)
        # An entry without a limit keeps the registered one (add_bot): store the limit in force, so
        # that a resume holds the bot to it whatever the registry says by then.
        bots = [dataclasses.replace(b, max_concurrency=_registered_limit(store, b.name)) for b in bots]
        tid = store.tournaments.insert(
            format=spec.format,
            rules=text,
            seed=spec.seed,
            rounds=rounds,
            deals=spec.deals,
            gauntlet=gauntlet,
            bots=json.dumps([b.to_dict() for b in sorted(bots, key=lambda b: b.name)]),
            settings=json.dumps({**asdict(spec.settings), **extra}),
        )
        store.tournaments.insert_schedule(tid, schedule)
    return tid


def seeding_ratings(board: Leaderboard) -> dict[str, float]:
    """The ratings a Swiss or a knockout is seeded by: each bot of ``board`` that has games."""
    return {r.bot: r.elo for r in board.rows if r.games > 0}


def _create_staged(
    store: Store,
    bots: Sequence[BotEntry],
    spec: TournamentSpec,
    rules: Rules,
    names: list[str],
    text: str,
    ratings: Mapping[str, float] | None,
) -> int:
    """A Swiss or a knockout: its seeding and first round stored; the later rounds are drawn as the
    results come (``ladder.tournament.stages``)."""
    players = rules.players
    if rules.partnership != "none":
        raise ValueError(f"a {spec.format} ranks each bot by its own points: play it without partnership rules")
    if len(names) < players:
        raise ValueError(f"{len(names)} bot(s) cannot fill a table of {players}: give at least {players}")
    if len(set(names)) != len(names):
        raise ValueError("a bot is listed twice")
    advance = spec.advance if spec.advance is not None else default_advance(players)
    if spec.format == "knockout":
        rounds = len(bracket_sizes(len(names), players, advance))
    else:
        if spec.advance is not None:
            raise ValueError("--advance is a knockout's: a Swiss plays every bot in every round")
        rounds = spec.rounds
    if ratings is None:
        from ladder.ratings.leaderboard import load_leaderboard  # numpy's import only where a seeding needs it

        ratings = seeding_ratings(load_leaderboard(store, rules=text))
    seeded = seeding(names, ratings)
    schedule = first_round(spec.format, seeded, players, deals=spec.deals, seed=spec.seed, rules=text, advance=advance)
    return _store_tournament(store, bots, spec, text, rounds, None, {"seeding": seeded, "advance": advance}, schedule)


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
    bots = []
    for b in json.loads(row.bots):
        try:
            bots.append(BotEntry.from_dict(b))
        except TimeControlError as e:  # listed, never played: the clock is dropped, and the reason kept
            bots.append(BotEntry.from_dict({k: v for k, v in b.items() if k not in CLOCK_KEYS}))
            unplayable = unplayable or f"tournament {row.id} was stored with a bot's clock that cannot be played: {e}"
    return TournamentInfo(
        id=row.id,
        format=row.format,
        rules=row.rules,
        seed=row.seed,
        rounds=row.rounds,
        deals=row.deals,
        gauntlet=row.gauntlet,
        bots=tuple(bots),
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


def finish_early(store: Store, tournament_id: int, *, force: bool = False) -> int:
    """Finish a tournament whose pending matches are no longer owed (a comparison whose test has
    decided): they are dropped from its schedule; how many. ``TournamentBusy`` if another process
    plays it (``force`` as for ``play_tournament``)."""
    _claim(store, tournament_id, force=force)
    with store.db.atomic():
        dropped = store.tournaments.drop_pending(tournament_id)
        store.tournaments.set_status(tournament_id, "finished")
        store.tournaments.release_runner(tournament_id, runner_of(os.getpid()))
    return dropped


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
    watcher: MatchWatcher | None = None,
    on_round: Callable[[list[ScheduledMatch]], None] | None = None,
) -> RunSummary:
    """Play every pending match of a tournament at a venue; returns what was played. ``stop``, asked
    before each match starts, ends the run early when it says so (the matches in flight finish and
    are saved). ``sandbox``: how every bot is run (a bot whose entry says ``sandbox = true`` always
    is); a sandbox this machine cannot make raises ``SandboxUnavailable`` before anything is written.
    ``shown_names``: the name each bot is told of the others, by ladder name (an anonymous
    contest's aliases); the records keep the ladder names. ``watcher`` is told of each match the
    default venue plays on this loop as its record grows (``referee.match.MatchWatcher``).

    A Swiss or a knockout is played round after round: once a round is recorded the next is drawn
    from its results and stored (``ladder.tournament.stages.next_round``), ``on_round`` is told of
    its matches, and the same bots play it.

    ``venue`` (a ``ladder.venues.venue.Venue``, e.g. ``ladder.venues.cluster.DaskVenue``) plays every
    match, its bots started there; by default a ``HereVenue``: this process, with ``workers``
    processes (default: one per core, 0: none) for the matches whose bots are all in-process, which
    save them themselves (``on_record`` then sees the record without its plays). This process
    decides which match starts when (each bot's limit holds over all the venue's matches, at most
    ``concurrency`` or the venue's slots, whichever is more, in flight) and saves every other record.

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
    info = get_tournament(store, tournament_id)
    if info.unplayable is not None:
        raise ValueError(info.unplayable)
    staged = info.format in STAGED_FORMATS
    todo = pending_matches(store, tournament_id)
    if not todo and staged:  # stopped between two rounds: the next is drawn now
        todo = _next_round(store, tournament_id, on_round)
    summary = RunSummary(tournament_id=tournament_id)
    t0 = time.monotonic()
    if not todo:
        if info.status != "finished":
            _set_status(store, tournament_id, "finished")
        return summary
    # A later round of a Swiss or a knockout may seat any of its bots: all are started.
    needed = [b.name for b in info.bots] if staged else sorted({b for m in todo for b in m.seats})
    entries, stored = _entries(info, needed, bots)
    mode = SandboxMode(sandbox)
    logs = Path(log_dir) if log_dir is not None else Path(store.path).resolve().parent / "logs"
    # Everything that can refuse the run comes before the claim: a refused run writes nothing.
    if venue is None:
        venue = HereVenue(
            entries,
            db_path=store.path,
            settings=info.settings,
            log_dir=logs,
            startup_timeout=startup_timeout,
            sandbox=mode,
            workers=workers,
            watcher=watcher,
        )
    else:  # the bots run at the venue, each of its machines checks its own sandbox; modules are checked here
        load_in_process(entries, mode, logs)
    summary.sandbox = _sandbox_label(mode, entries)
    _claim(store, tournament_id, force=force)
    if stored is not None:
        _store_entries(store, tournament_id, stored)
    _set_status(store, tournament_id, "running")
    venues = _VENUES.get()
    if venues is not None:
        venues.append(venue)
    failed = True
    try:
        bots_there = VenueBots(
            tournament_id,
            entries,
            info.settings,
            mode,
            startup_timeout,
            logs.resolve(),
            Path.cwd(),
            owner=f"{socket.gethostname()}:{Path(store.path).resolve()}",
        )
        summary.declared = await venue.open(bots_there)
        summary.logs = dict(venue.logs)
        summary.limits = {n: effective_limit(entries[n].max_concurrency, d) for n, d in summary.declared.items()}
        tables = _Tables(store, tournament_id, venue, summary, on_record, dict(shown_names or {}))
        await tables.run(todo, concurrency, stop)
        while staged and not (stop is not None and stop()):
            todo = _next_round(store, tournament_id, on_round)
            if not todo:
                break
            await tables.run(todo, concurrency, stop)
        failed = False
    finally:
        venue.finish_saving()
        # The status before any await: no cancellation (a signal) can come between the end of the
        # run and its status, and the bots are stopped to the end whatever arrives meanwhile.
        status_error: sqlite3.Error | None = None
        try:
            summary.remaining = len(pending_matches(store, tournament_id))
            # A Swiss or a knockout stopped between two rounds is not finished: a round is owed.
            complete = summary.remaining == 0 and not (staged and next_round(store, tournament_id, keep=False))
            _end_run(store, tournament_id, "finished" if complete else "interrupted")
        except sqlite3.Error as e:  # a full disk, say: the claim stays, naming a process about to be gone
            status_error = e
        await _to_the_end(venue.close())
        summary.events = list(venue.events)
        summary.seconds = time.monotonic() - t0
        if status_error is not None and not failed:  # else the run's own error says more
            raise status_error
    return summary


def _next_round(
    store: Store, tid: int, on_round: Callable[[list[ScheduledMatch]], None] | None
) -> list[ScheduledMatch]:
    """The next round of a Swiss or a knockout, drawn and stored (none once it is complete)."""
    matches = next_round(store, tid)
    if matches and on_round is not None:
        on_round(matches)
    return matches


def _entries(
    info: TournamentInfo, needed: Sequence[str], bots: Mapping[str, BotEntry] | None
) -> tuple[dict[str, BotEntry], dict[str, BotEntry] | None]:
    """The entries of the bots ``needed``, by name, with the replacements of ``bots``; and every
    entry of the tournament to store, when a replacement changed one (else None)."""
    entries = {b.name: b for b in info.bots}
    # A replacement from the registry (which keeps no sandbox settings and no clock) keeps the stored entry's.
    changed = {
        n: dataclasses.replace(
            e,
            sandbox=e.sandbox or entries[n].sandbox,
            limits=e.limits or entries[n].limits,
            time_control=e.time_control or entries[n].time_control,
        )
        for n, e in (bots or {}).items()
        if n in entries and not _same_target(e, entries[n])
    }
    entries.update(changed)
    missing = [n for n in needed if n not in entries]
    if missing:
        raise ValueError(f"tournament {info.id} schedules unknown bots: {', '.join(missing)}")
    return {n: entries[n] for n in needed}, (entries if changed else None)


def _sandbox_label(mode: SandboxMode, entries: Mapping[str, BotEntry]) -> str:
    """How the bots ran, as every output labels it."""
    boxed = [n for n, e in entries.items() if e.sandbox]
    if not boxed or mode is SandboxMode.FULL:
        return mode.label
    return f"{mode.label}; sandboxed by their entries: {', '.join(boxed)}"


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


class _Tables:
    """The matches of one run: which start when (within the concurrency and each bot's limit), where
    each is played (the venue), and what each recorded match adds to the summary."""

    def __init__(
        self,
        store: Store,
        tid: int,
        venue: Venue,
        summary: RunSummary,
        on_record: Callable[[MatchRecord], None] | None,
        shown_names: dict[str, str],
    ) -> None:
        self.store, self.tid, self.venue, self.summary, self.on_record = store, tid, venue, summary, on_record
        self.shown_names = shown_names  # the names bots are told, where not their ladder names
        # One semaphore per bot with a limit; unlimited bots get none.
        self.sems = {n: asyncio.Semaphore(lim) for n, lim in summary.limits.items() if lim > 0}
        self.in_flight: dict[str, int] = {}  # by bot: its matches in flight (at the venue)

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

    async def play(self, m: ScheduledMatch) -> Played:
        """One match at the venue; its slots are given back however it ends."""
        try:
            shown = tuple(self.shown_names.get(b, b) for b in m.seats)
            job = MatchJob(self.tid, m.index, match_id(self.tid, m.index), tuple(m.seats), m.rules, m.seed, shown)
            return await self.venue.play(job)
        finally:
            for b in m.seats:
                self.in_flight[b] -= 1
                if b in self.sems:
                    self.sems[b].release()

    def recorded(self, m: ScheduledMatch, played: Played) -> None:
        """Save a finished match (unless another process did first, or the venue saved it) and count
        it in the summary."""
        record = played.record
        if record is None:
            return  # a worker found another process's record: it stands
        if not played.saved:
            try:
                save_scheduled(self.store, self.tid, m.index, record)
            except AlreadyRecorded:
                return  # another process saved it first: its record stands
        summary = self.summary
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
        """Play ``todo``, up to ``concurrency`` matches at once (or as many as the venue has slots),
        saving each as it ends; once ``stop()`` says so, start no more."""
        queue = list(todo)
        running: dict[asyncio.Task[Played], ScheduledMatch] = {}
        try:
            while running or (queue and not (stop is not None and stop())):
                if stop is not None and stop():
                    queue.clear()
                    self.venue.stop_handing_out()
                i = 0
                # Look only so far ahead for a match whose bots are free: when a limited bot sits at
                # every table (a gauntlet), a full scan per finished match would be quadratic.
                # A venue's slots are read each time: workers that join a cluster play at once.
                room = max(concurrency, self.venue.slots)
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
                    self.recorded(m, task.result())
                if error is not None:
                    raise error
        finally:
            for task in running:
                task.cancel()
            if running:
                await asyncio.gather(*running, return_exceptions=True)


def run_tournament(store: Store, tournament_id: int, **kwargs: Any) -> RunSummary:
    """``play_tournament`` on a fresh event loop (for the CLI and scripts).

    In the main thread SIGINT (Ctrl-C) and SIGTERM stop it alike: the matches in flight are
    cancelled (they stay pending), the status becomes ``interrupted``, the bots are stopped, then
    ``TournamentInterrupted`` is raised. A further signal kills the bots at once instead of waiting
    out their grace; the status is written all the same.
    """
    outcome = asyncio.run(until_signalled(play_tournament(store, tournament_id, **kwargs)))
    if isinstance(outcome, int):
        raise TournamentInterrupted(outcome)
    return outcome


_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_T = TypeVar("_T")
# The venues of the run in progress, for a second signal to kill their bots at once.
_VENUES: contextvars.ContextVar[list[Venue] | None] = contextvars.ContextVar("venues", default=None)


async def until_signalled(run: Awaitable[_T]) -> _T | int:
    """What ``run`` (a ``play_tournament``, or a comparison that plays one) returns, or the number of
    the signal (SIGINT, SIGTERM) that stopped it: the first cancels it, a second kills the bots."""
    loop = asyncio.get_running_loop()
    main = asyncio.current_task()
    assert main is not None
    received: list[int] = []
    venues: list[Venue] = []
    token = _VENUES.set(venues)

    def on_signal(signum: int) -> None:
        received.append(signum)
        if len(received) == 1:
            main.cancel()  # play_tournament writes the status, then stops the bots
        else:
            for venue in venues:
                venue.kill()

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
        return await run
    except asyncio.CancelledError:
        if received:
            return received[0]
        raise
    finally:
        for sig, previous in installed.items():
            loop.remove_signal_handler(sig)
            signal.signal(sig, previous if previous is not None else signal.SIG_DFL)
        _VENUES.reset(token)
