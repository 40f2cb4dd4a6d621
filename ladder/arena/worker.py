"""The arena's background work: the build + validate pipeline and the continuous ladder.

Both run on one asyncio loop in one thread of ``hearts arena serve`` (``ArenaWorker``), with their
own connection to the database; the web requests use theirs. Everything they decide is in the
database (a version's status, the ladder's schedule, paused), so a restart picks up where the
last run stopped: a version caught mid-validation is validated again, the ladder's pending
matches are played first, and a recorded match is never played again (``ladder.tournament.run``).

``start_bot`` is the ONE function by which the arena starts a submitted bot, for validation and
for play alike (through ``bot_entry``): switching to the sandbox is a change here.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import datetime as dt
import functools
import itertools
import json
import logging
import math
import multiprocessing
import os
import re
import secrets
import shlex
import shutil
import signal
import sys
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ladder.arena.config import ArenaConfig
from ladder.arena.hosted_address import AddressRefused, Resolve, pin, resolve_host
from ladder.arena.live import LiveHub, LiveWatcher
from ladder.arena.scheduler import Standing, next_batch
from ladder.arena.store import IN_PIPELINE, ArenaStore, VersionRow, VersionStatus
from ladder.bots.launcher import BotStartError, Launcher
from ladder.bots.registry import BotEntry
from ladder.conformance.session import Guise
from ladder.conformance.validate import validate
from ladder.ratings.leaderboard import Leaderboard, LeaderboardRow, load_leaderboard, load_stored_leaderboard
from ladder.sandbox import (
    SOCKET_DIR,
    Limits,
    SandboxMode,
    SandboxSpec,
    SandboxUnavailable,
    build_argv,
    probe,
    probe_limits,
)
from ladder.sandbox.bwrap import bot_uid
from ladder.sandbox.seccomp import seccomp_fd
from ladder.tournament.run import (
    TournamentSpec,
    create_tournament,
    get_tournament,
    play_tournament,
    seeding_ratings,
)
from ladder.tournament.schedule import match_id
from ladder.venues import cluster
from ladder.venues.here import KeptVenue
from ladder.venues.venue import Venue, VenueError
from referee.match import MatchSettings
from referee.record import MatchRecord, utc_now
from referee.rules import Rules

__all__ = ["ArenaWorker", "bot_entry", "ladder_tournament", "start_bot"]

log = logging.getLogger("arena")
_OUTPUT_KEPT = 8000  # characters of a build's output kept in its report
BENCH_S = 60.0  # how long a bot that could not be started sits out
FINAL_RETRY_S = 10.0  # how long the final waits for a bot that could not be started before trying again


def settings_of(cfg: ArenaConfig) -> MatchSettings:
    return MatchSettings(budget_ms=cfg.budget_ms, bank_ms=cfg.bank_ms, grace_ms=cfg.grace_ms, max_faults=cfg.max_faults)


@functools.cache
def sandbox_mode() -> tuple[SandboxMode, str | None]:
    """How this machine runs submitted bots: the full sandbox (bubblewrap) where it works; else the
    limits alone, with the reason as a warning that ``hearts arena serve`` and /api/status show."""
    try:
        probe()
        return SandboxMode.FULL, None
    except SandboxUnavailable as e:
        why = str(e)
    try:
        probe_limits()
        return SandboxMode.LIMITS_ONLY, f"NO SANDBOX: submitted bots run with resource limits only ({why})"
    except SandboxUnavailable as e:
        return SandboxMode.OFF, f"NO SANDBOX AND NO LIMITS: submitted bots run as this user ({why}; {e})"


def bot_limits(cfg: ArenaConfig) -> Limits:
    return Limits(memory_mb=cfg.limits.memory_mb, cpu_seconds=cfg.limits.cpu_s)


def in_version(command: str, folder: Path) -> str:
    """The command with each word that names a file of the version made absolute, so that the
    sandbox finds the bot's directory (it mounts the directory of the first file named, read-only,
    and starts the bot there)."""
    words = shlex.split(command)
    out = []
    for i, w in enumerate(words):
        if (i > 0 and not w.startswith("-") or "/" in w) and w and (folder / w).exists():
            w = str((folder / w).resolve())
        out.append(w)
    # Quoted only where needed: a placeholder like {port} stays as the author wrote it.
    return " ".join(w if re.fullmatch(r"[\w{}./:=,+@%-]+", w) else shlex.quote(w) for w in out)


def outside_version(command: str, folder: Path) -> str | None:
    """Why a submitted command may not run, or None: a word naming a file or folder of the host
    outside the version's own folder (and outside the system's ``/usr``, which every sandbox holds
    read-only). The sandbox gives a bot the folder of the files its command names, so such a word
    would hand it the host's folder (the arena's database beside it)."""
    try:
        words = shlex.split(command)
    except ValueError as e:
        return f"the command cannot be read ({e}): quote it as a shell would"
    top = folder.resolve()
    for i, w in enumerate(words):
        if not w or w.startswith("-") and "/" not in w:
            continue
        value = w.split("=", 1)[1] if w.startswith("-") and "=" in w else w
        if i == 0 and "/" not in value:
            continue  # a program found on PATH: the system's
        for base in (folder, Path.cwd()):
            p = base / value
            if not p.exists():
                continue
            real = p.resolve()
            if real == top or top in real.parents or Path("/usr") in real.parents:
                break
            return (
                f"the command names {value!r}, which is not a file of this version: a bot may name only "
                "its own files (paths relative to its archive's top folder) and the system's programs"
            )
    return None


def bot_entry(v: VersionRow, cfg: ArenaConfig) -> BotEntry:
    """How the ladder and the validation start or reach version ``v``: a submitted bot in the full
    sandbox, with the arena's limits (``[sandbox]``); where bubblewrap cannot run, through
    ``ladder.arena.jail`` (its directory, its CPU limit) under the limits alone. House bots are the
    organiser's: started as they are, each under its own clock where arena.toml gives one."""
    if v.kind == "house":
        own = next((h.time_control for h in cfg.house if h.name == v.bot), None)
        return BotEntry(
            name=v.ladder_name,
            command=v.command,
            address=v.address,
            max_concurrency=cfg.bot_concurrency,
            time_control=own,
        )
    if v.address is not None:
        return BotEntry(name=v.ladder_name, address=v.address, max_concurrency=cfg.bot_concurrency)
    assert v.command is not None
    assert v.path is not None
    mode, _warning = sandbox_mode()
    if mode is SandboxMode.FULL:
        return BotEntry(
            name=v.ladder_name,
            command=in_version(v.command, Path(v.path)),
            max_concurrency=cfg.bot_concurrency,
            sandbox=True,
            limits=bot_limits(cfg),
        )
    command = f"python -m ladder.arena.jail --cpu {cfg.limits.cpu_s} {shlex.quote(v.path)} {shlex.quote(v.command)}"
    limits = bot_limits(cfg) if mode is SandboxMode.LIMITS_ONLY else None
    return BotEntry(name=v.ladder_name, command=command, max_concurrency=cfg.bot_concurrency, limits=limits)


def play_mode() -> SandboxMode:
    """The mode a batch's launcher runs in: submitted bots ask for the full sandbox by their entry;
    where it cannot run, every bot gets the limits (a house bot is well under them)."""
    mode, _warning = sandbox_mode()
    return SandboxMode.OFF if mode is SandboxMode.FULL else mode


async def start_bot(launcher: Launcher, entry: BotEntry) -> str:
    """Start (or reach) one bot for the arena; returns its address. The ONE place a submitted bot starts."""
    return await launcher.start(
        entry.name,
        entry.command,
        address=entry.address,
        sandbox=SandboxMode.FULL if entry.sandbox else None,
        limits=entry.limits,
    )


def sync_house(store: ArenaStore, cfg: ArenaConfig) -> None:
    """The house bots of arena.toml as valid versions owned by the first organiser (a changed
    command or address makes a new version; the organiser's own bots are not validated)."""
    organisers = [u for u in store.users() if u.role == "organiser"]
    if not organisers:
        raise ValueError("this arena has no organiser: run `hearts arena init` on it")
    for h in cfg.house:
        bot = store.bot(h.name)
        if bot is None:
            bot_id = store.add_bot(h.name, organisers[0].id, f"house-{h.name}", house=True)
        elif not bot.house:
            raise ValueError(f"house bot {h.name!r}: a participant's bot has that name; rename it in arena.toml")
        else:
            bot_id = bot.id
        current = [v for v in store.versions(h.name) if v.status is VersionStatus.VALID]
        if current and (current[-1].command, current[-1].address) == (h.command, h.address):
            continue
        store.add_version(
            bot_id, organisers[0].id, status=VersionStatus.VALID, kind="house", command=h.command, address=h.address
        )


def _secret_seed() -> int:
    """A random tournament seed, never 0 (the seed of the ladders made before seeds were secret)."""
    return secrets.randbits(62) or 1


def ladder_tournament(store: ArenaStore, cfg: ArenaConfig) -> int:
    """The ladder tournament that holds the continuous ladder's matches (made on first use)."""
    key = f"ladder_tournament:{cfg.rules}"
    tid = store.get_meta(key)
    if tid is not None and store.ladder.tournaments.seed(int(tid)) not in (0, None):
        return int(tid)
    with store.db.atomic():
        tid = store.get_meta(key)  # under the write lock: another process may have made it
        if tid is not None:
            # A ladder made with seed 0 dealt from public numbers (a match id names its batch and table):
            # its next batches deal from a secret seed.
            store.ladder.tournaments.reseed_unseeded(int(tid), _secret_seed())
            return int(tid)
        new = store.ladder.tournaments.insert(
            format="arena",
            rules=cfg.rules,
            # Secret: the deals follow from it and a match's id (which every bot is sent), so a known
            # seed would let a bot deal every other hand of its match.
            seed=_secret_seed(),
            rounds=0,
            deals=1,
            gauntlet=None,
            bots="[]",
            settings=json.dumps({**settings_of(cfg).__dict__, "duplicate": True, "max_tables": 0}),
        )
        store.set_meta(key, str(new))
    return new


@dataclass
class Fitted:
    """A leaderboard fitted when the tournament's newest recorded match was ``newest`` (its row: a
    key that moves with every match saved), leaving out those dealt from the seeds ``in_play`` (refit
    when either changes)."""

    newest: int
    in_play: frozenset[int]
    board: Leaderboard
    at: float = field(default_factory=time.time)


FIT_APART_FROM = 20_000
"""A board of this many matches or more is fitted in a process of its own: its fit holds Python's lock
for seconds, and the web's answers in this process would wait for it."""

BOARD_KEY = "board:"
"""arena_meta's key prefix of each tournament's last fitted board (by tournament id)."""


def saved_board(store: ArenaStore, tournament_id: int) -> Fitted | None:
    """The board the last fit saved for ``tournament_id`` (by this run or an earlier one), or None."""
    text = store.get_meta(f"{BOARD_KEY}{tournament_id}")
    if text is None:
        return None
    try:
        data = json.loads(text)
        board = Leaderboard(
            rows=[LeaderboardRow(**r) for r in data["rows"]],
            warnings=list(data["warnings"]),
            matches=int(data["matches"]),
            rules=data["rules"],
        )
        return Fitted(int(data["newest"]), frozenset(int(x) for x in data["in_play"]), board)
    except (ValueError, KeyError, TypeError):
        return None  # written by another version of the arena: fitted again


def save_board(store: ArenaStore, tournament_id: int, fitted: Fitted) -> None:
    """Keep a fitted board in the arena's database, so that a restarted arena shows it at once."""
    b = fitted.board
    data = {
        "newest": fitted.newest,
        "in_play": sorted(fitted.in_play),
        "rows": [dataclasses.asdict(r) for r in b.rows],
        "warnings": b.warnings,
        "matches": b.matches,
        "rules": b.rules,
    }
    store.set_meta(f"{BOARD_KEY}{tournament_id}", json.dumps(data))


class Ratings:
    """Fitted leaderboards by tournament, refit only when its recorded matches changed.

    Each fit is kept in the arena's database too (``save_board``): after a restart the first reader
    is answered from it at once, while a fit runs. A reader (``max_age`` above 0) never waits for a
    fit another thread is making: it is shown the board before. A board older than ``max_age`` is
    fitted again: by the reader, when it is small; behind it, in a thread of its own, from
    ``behind_from`` matches on (a big board's fit takes seconds; fitted there, and from
    ``apart_from`` on in a process of its own, it never holds up a page). Each fit searches from the
    board before's ratings (a warm start: the same maximum, sooner).

    A match whose deal other seatings still play is left out until they are played (its record is
    withheld, and the board's games, scores and places would tell its result): a table counts on
    the board once all of it is played."""

    def __init__(self, *, apart_from: int = FIT_APART_FROM, behind_from: int | None = None) -> None:
        self._cache: dict[int, Fitted] = {}
        self._lock = threading.Lock()
        self._fitting: dict[int, threading.Lock] = {}
        self._apart_from = apart_from
        self._behind_from = apart_from if behind_from is None else behind_from
        self._pool: ProcessPoolExecutor | None = None

    def close(self) -> None:
        """Stop the process the big boards are fitted in, if one was started."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)

    def get(self, store: ArenaStore, tournament_id: int, rules: str, *, max_age: float = 0.0) -> Leaderboard:
        """The fitted leaderboard; refit when matches came in since. A reader's ``max_age`` (seconds):
        the board there is, at once, and fitted again behind it when older than that (a board younger
        is shown as it is); without it (the worker), no board older than the matches."""
        key = self._key(store, tournament_id)
        hit = self._cached(store, tournament_id)
        if hit is not None and ((hit.newest, hit.in_play) == key or max_age > 0):
            if (hit.newest, hit.in_play) != key and time.time() - hit.at >= max_age:
                if key[0] >= self._behind_from:
                    self._fit_behind(store, tournament_id, rules)
                elif (board := self._fit(store, tournament_id, rules, wait=False)) is not None:
                    return board  # a small board is fitted at once (a second or so), unless it is being fitted
            return hit.board
        board = self._fit(store, tournament_id, rules, wait=True)
        assert board is not None  # a fit that waits for its turn always ends with a board
        return board

    @staticmethod
    def _key(store: ArenaStore, tournament_id: int) -> tuple[int, frozenset[int]]:
        return store.newest_match(tournament_id), frozenset(store.ladder.seeds_in_play(tournament_id))

    def _cached(self, store: ArenaStore, tournament_id: int) -> Fitted | None:
        with self._lock:
            hit = self._cache.get(tournament_id)
        if hit is None:
            hit = saved_board(store, tournament_id)
            if hit is not None:
                with self._lock:
                    hit = self._cache.setdefault(tournament_id, hit)
        return hit

    def _board_lock(self, tournament_id: int) -> threading.Lock:
        """Held while the board is fitted: one fit at a time per board."""
        with self._lock:
            return self._fitting.setdefault(tournament_id, threading.Lock())

    def _fit(self, store: ArenaStore, tournament_id: int, rules: str, *, wait: bool) -> Leaderboard | None:
        """Fit the board now (``wait`` for a fit being made, or give up to it: None), unless the board
        there is fits the matches as they are."""
        fitting = self._board_lock(tournament_id)
        if not fitting.acquire(blocking=wait):
            return None
        try:
            key = self._key(store, tournament_id)
            with self._lock:
                hit = self._cache.get(tournament_id)
            if hit is not None and (hit.newest, hit.in_play) == key:
                return hit.board
            start = {r.bot: r.elo for r in hit.board.rows if math.isfinite(r.elo)} if hit is not None else None
            board = self._load(store, key, tournament_id, rules, start)
            fitted = Fitted(key[0], key[1], board)
            with self._lock:
                self._cache[tournament_id] = fitted
            save_board(store, tournament_id, fitted)
            return board
        finally:
            fitting.release()

    def _load(
        self,
        store: ArenaStore,
        key: tuple[int, frozenset[int]],
        tournament_id: int,
        rules: str,
        start: Mapping[str, float] | None,
    ) -> Leaderboard:
        """The board fitted here, or, from ``apart_from`` matches on, in a process of its own."""
        here = functools.partial(
            load_leaderboard,
            store.ladder,
            tournament_id=tournament_id,
            rules=rules,
            leave_out_seeds=key[1],
            start=start,
        )
        if key[0] < self._apart_from:  # rows, nearly all of them the tournament's: its size, roughly
            return here()
        with self._lock:
            if self._pool is None:  # spawned, not forked: this process runs threads (the server's, gRPC's)
                self._pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
            pool = self._pool
        apart = functools.partial(
            load_stored_leaderboard,
            store.ladder.path,
            tournament_id=tournament_id,
            rules=rules,
            leave_out_seeds=sorted(key[1]),
            start=start,
        )
        try:
            return pool.submit(apart).result()
        except BrokenProcessPool:  # its process died (killed, out of memory): a new one next time, this one here
            with self._lock:
                if self._pool is pool:
                    self._pool = None
            return here()

    def _fit_behind(self, store: ArenaStore, tournament_id: int, rules: str) -> None:
        """Fit the board again in a thread of its own (its own connection), unless a fit is being made."""
        if self._board_lock(tournament_id).locked():
            return

        def refit() -> None:
            own = ArenaStore(store.ladder.path)
            try:
                self._fit(own, tournament_id, rules, wait=False)
            finally:
                own.close()

        threading.Thread(target=refit, name=f"refit-{tournament_id}", daemon=True).start()


class ArenaWorker:
    """Runs the pipeline and the ladder on their own loop and thread until ``stop()``."""

    def __init__(
        self,
        arena_dir: Path,
        cfg: ArenaConfig,
        ratings: Ratings | None = None,
        *,
        resolve: Resolve = resolve_host,
        hub: LiveHub | None = None,
    ) -> None:
        self.dir = arena_dir
        self.cfg = cfg
        self.resolve = resolve  # a hosted bot's host name to its addresses, once per check
        self.pinned: dict[str, str] = {}  # ladder name -> the checked address literal its matches reach
        self.db_path = arena_dir / "arena.db"
        self.ratings = ratings or Ratings()
        self.live: dict[str, dict[str, Any]] = {}  # scheduled matches of the batch in play
        self.hub = hub or LiveHub()  # each play of the matches played here, for the live page
        self._watcher: LiveWatcher | None = None
        self.playing = False
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._main: asyncio.Task[None] | None = None
        self.events: list[str] = []  # for the organiser: bots that could not be started
        self._kept: KeptVenue | None = None  # the ladder's bots, up from one batch to the next
        self.benched: dict[str, float] = {}  # ladder name -> monotonic time it may play again

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="arena-worker", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 30.0) -> None:
        self._stopping.set()
        if self._loop is not None and self._main is not None:
            self._loop.call_soon_threadsafe(self._main.cancel)
        if self._thread is not None:
            self._thread.join(timeout)

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            self._main = loop.create_task(self._both())
            with contextlib.suppress(asyncio.CancelledError):
                loop.run_until_complete(self._main)
        finally:
            loop.close()

    async def _both(self) -> None:
        store = ArenaStore(self.db_path)
        try:
            # return_exceptions: on stop() both are cancelled, and gather would otherwise end as soon as
            # the first of them does, the loop closing on the other's cleanup (the ladder stopping its
            # bots, a cluster's among them, and saving the batch's status).
            for outcome in await asyncio.gather(self._pipeline(store), self._ladder(store), return_exceptions=True):
                if isinstance(outcome, BaseException) and not isinstance(outcome, asyncio.CancelledError):
                    raise outcome
        finally:
            store.close()

    # -- the pipeline ------------------------------------------------------------------------------

    async def _pipeline(self, store: ArenaStore) -> None:
        while not self._stopping.is_set():
            try:
                todo = store.versions_in(IN_PIPELINE)
            except Exception:
                log.exception("reading the queue")
                await asyncio.sleep(5.0)
                continue
            if not todo:
                await asyncio.sleep(0.3)
                continue
            try:
                await self.check_version(store, todo[0])
            except Exception as e:  # a bug here must not stop the arena: the version says what happened
                log.exception("checking %s", todo[0].ladder_name)
                if self._stopping.is_set():  # cut short by the stop, not judged: checked again at the next start
                    return
                self.events.append(f"{utc_now()} checking {todo[0].ladder_name} failed: {e}")
                try:
                    store.set_status(
                        todo[0].id, VersionStatus.FAILED, build_report={"ok": False, "error": f"internal error: {e}"}
                    )
                except Exception:  # the database itself (a full disk): wait, then try again
                    log.exception("recording the failure of %s", todo[0].ladder_name)
                    await asyncio.sleep(5.0)

    async def check_version(self, store: ArenaStore, v: VersionRow) -> None:
        """Build (if it has a build command) and validate one version; its status and reports say how it went."""
        if v.command is not None and v.path is not None and v.kind != "house":
            problem = outside_version(v.command, Path(v.path))
            if problem is not None:
                store.set_status(v.id, VersionStatus.FAILED, validation_report={"ok": False, "error": problem})
                return
        if v.build and v.path is not None:
            store.set_status(v.id, VersionStatus.BUILDING)
            report = await _build(v.build, Path(v.path), self.cfg.limits.build_timeout_s, bot_limits(self.cfg))
            cap = self.cfg.limits.max_unpacked_bytes
            size = await asyncio.to_thread(_tree_bytes, Path(v.path))
            if report["ok"] and size > cap:
                # A build may not make the version bigger than an archive may unpack to: the arena's
                # disk is every participant's. Its files go (the archive it came from stays).
                await asyncio.to_thread(shutil.rmtree, Path(v.path), True)
                report = {
                    **report,
                    "ok": False,
                    "error": f"the build left {size} bytes; this arena keeps at most {cap}",
                }
            if not report["ok"]:
                store.set_status(v.id, VersionStatus.FAILED, build_report=report)
                return
            store.set_status(v.id, VersionStatus.VALIDATING, build_report=report)
        else:
            store.set_status(v.id, VersionStatus.VALIDATING)
        logs = self.dir / "logs" / "validate"
        try:
            entry = await self._reached(store, v)
        except AddressRefused as e:
            store.set_status(v.id, VersionStatus.FAILED, validation_report={"ok": False, "error": str(e)})
            return
        try:
            async with Launcher(logs, startup_timeout=self.cfg.limits.start_timeout_s, sandbox=play_mode()) as launcher:
                address = await start_bot(launcher, entry)

                async def diagnose() -> str | None:
                    return await launcher.diagnose(entry.name, address)

                async def vouch() -> str | None:
                    return await launcher.vouch(entry.name, address)

                result = await validate(
                    address,
                    rules=[Rules.parse(self.cfg.rules)],
                    budget_ms=self.cfg.budget_ms,
                    bank_ms=self.cfg.bank_ms,
                    grace_ms=self.cfg.grace_ms,
                    command=v.command,
                    diagnose=diagnose,
                    vouch=vouch,
                    isolation=launcher.isolation(entry.name),
                    guise=self.guise(store, v),
                )
            report = result.to_dict()
        except BotStartError as e:
            report = {"ok": False, "error": f"the bot did not start: {e.reason}", "log": e.tail}
        store.set_status(v.id, VersionStatus.VALID if report["ok"] else VersionStatus.FAILED, validation_report=report)

    def guise(self, store: ArenaStore, v: VersionRow) -> Guise:
        """What version ``v`` is told while it is validated: what the ladder tells it. Each match
        is the ladder's next id but a few (``match_id``); it is named, and the
        stand-ins are, as the ladder names them (``shown_names``: aliases on an anonymous board),
        the stand-ins after bots it could meet (not its owner's); the deals come from a secret seed."""
        tid = ladder_tournament(store, self.cfg)
        shown = self.shown_names(store)
        owners = self.owners(store)
        owner = owners.get(v.ladder_name)
        others = [
            shown.get(o.ladder_name, o.ladder_name)
            for o in store.newest_valid()
            if o.bot_id != v.bot_id and (owner is None or owners.get(o.ladder_name) != owner)
        ]
        index = itertools.count(store.next_index(tid) + secrets.randbelow(2 * self.cfg.concurrency + 8))
        return Guise(
            match_id=lambda: match_id(tid, next(index)),
            name=shown.get(v.ladder_name, v.ladder_name),
            others=others,
            seed=_secret_seed(),
        )

    async def _reached(self, store: ArenaStore, v: VersionRow) -> BotEntry:
        """How version ``v`` is started or reached now: a participant's hosted bot at the address
        literal its name resolves to, checked (``pin``) and kept in ``pinned``; ``AddressRefused``
        if it names this machine (or does not resolve)."""
        entry = bot_entry(v, self.cfg)
        if not checked_address(store, self.cfg, v):
            return entry
        assert v.address is not None
        try:
            literal = await asyncio.to_thread(pin, v.address, resolve=self.resolve)
        except AddressRefused:
            self.pinned.pop(v.ladder_name, None)
            raise
        self.pinned[v.ladder_name] = literal
        return dataclasses.replace(entry, address=literal)

    # -- the ladder --------------------------------------------------------------------------------

    def entries(self, store: ArenaStore, names: set[str]) -> list[BotEntry]:
        """The entries the ladder plays ``names`` by: a hosted bot's at the literal it was checked at."""
        by_name = {v.ladder_name: v for v in store.versions()}
        out = []
        for n in sorted(names):
            if n not in by_name:
                continue
            entry = bot_entry(by_name[n], self.cfg)
            if checked_address(store, self.cfg, by_name[n]):
                entry = dataclasses.replace(entry, address=self.pinned[n])  # _reached checked it for this batch
            out.append(entry)
        return out

    def paused(self, store: ArenaStore) -> bool:
        return store.get_meta("paused") == "1"

    async def _ladder(self, store: ArenaStore) -> None:
        # The bots stay up from one batch to the next (restarted for a new version, a fault or a limit).
        self._kept = KeptVenue(
            log_dir=self.dir / "logs", startup_timeout=self.cfg.limits.start_timeout_s, sandbox=play_mode()
        )
        try:
            while not self._stopping.is_set():
                try:
                    await self._ladder_steps(store)
                except Exception as e:  # a bug or a full disk must not end the arena: said, then tried again
                    log.exception("the ladder")
                    self.events.append(f"{utc_now()} the ladder stopped on an error and starts again in 5 s: {e}")
                    del self.events[:-50]
                    await asyncio.sleep(5.0)
        finally:
            await self._kept.shutdown()
            self._kept = None

    async def _ladder_steps(self, store: ArenaStore) -> None:
        tid = ladder_tournament(store, self.cfg)
        players = Rules.parse(self.cfg.rules).players
        while not self._stopping.is_set():
            final = store.get_meta("final_tournament")
            if final is not None and get_tournament(store.ladder, int(final)).status != "finished":
                await self._play(store, int(final), self._stopping.is_set)
                continue
            if self.paused(store):
                await asyncio.sleep(0.3)
                continue
            now = time.monotonic()
            newest = [v for v in store.newest_valid() if self.benched.get(v.ladder_name, 0.0) <= now]
            for v in newest:
                await self._bench_if_refused(store, v, now)  # again: a name may resolve elsewhere since
            active = {v.ladder_name for v in newest if self.benched.get(v.ladder_name, 0.0) <= now}
            pending = store.ladder.tournaments.pending(tid)
            if pending:  # a batch left by the last run: each of its hosted bots is checked for it too
                by_name = {v.ladder_name: v for v in store.versions()}
                for name in sorted({b for m in pending for b in m.seats} - active):
                    if name in by_name:
                        await self._bench_if_refused(store, by_name[name], now)
                if any(self.benched.get(b, 0.0) > now for m in pending for b in m.seats):
                    with store.db.atomic():  # nothing of it reaches a refused bot: the rest of it goes
                        store.ladder.tournaments.drop_pending(tid)
                    pending = []
            if not pending:
                if len(active) < players:
                    await asyncio.sleep(0.5)
                    continue
                board = self.ratings.get(store, tid, self.cfg.rules)
                standings = {r.bot: Standing(r.elo, r.ci95, r.games) for r in board.rows}
                pending = next_batch(
                    sorted(active),
                    standings,
                    players=players,
                    tables=max(4, 2 * self.cfg.concurrency),
                    start=store.next_index(tid),
                    rules=self.cfg.rules,
                    seed=get_tournament(store.ladder, tid).seed,
                    owners=self.owners(store),
                )
                seats = {b for m in pending for b in m.seats}
                with store.db.atomic():
                    store.ladder.tournaments.set_bots(
                        tid, json.dumps([e.to_dict() for e in self.entries(store, seats | active)])
                    )
                    store.ladder.tournaments.insert_schedule(tid, pending)
            else:  # a batch left by the last run (killed, say): played first, as scheduled
                seats = {b for m in pending for b in m.seats}
                with store.db.atomic():
                    store.ladder.tournaments.set_bots(
                        tid, json.dumps([e.to_dict() for e in self.entries(store, seats | active)])
                    )
            valid_now = len(store.versions_in((VersionStatus.VALID,)))
            final_asked = store.get_meta("final_tournament")

            def stop(valid_now: int = valid_now, final_asked: str | None = final_asked) -> bool:
                # Between matches: stop for a pause, a new valid version (its tables come first) or the final.
                return (
                    self._stopping.is_set()
                    or self.paused(store)
                    or len(store.versions_in((VersionStatus.VALID,))) != valid_now
                    or store.get_meta("final_tournament") != final_asked
                )

            self.live = {match_id(tid, m.index): m.to_dict() for m in pending}
            await self._play(store, tid, stop)
            self.live = {}
            if len(store.versions_in((VersionStatus.VALID,))) != valid_now:
                # A new version: its tables come next, not the rest of this batch (never played, so
                # dropping it loses nothing).
                with store.db.atomic():
                    store.ladder.tournaments.drop_pending(tid)

    async def _bench_if_refused(self, store: ArenaStore, v: VersionRow, now: float) -> None:
        """Check (and pin) a hosted bot's address for the next batch; one that is refused sits out."""
        try:
            await self._reached(store, v)
        except AddressRefused as e:
            self.benched[v.ladder_name] = now + BENCH_S
            self.events.append(f"{utc_now()} {v.ladder_name} benched: {e}")
            del self.events[:-50]

    def _recorded(self, record: MatchRecord) -> None:
        self.live.pop(record.match_id, None)
        if self._watcher is not None:
            self._watcher.recorded(record.match_id)

    def owners(self, store: ArenaStore) -> dict[str, str]:
        """Each participant's versions by ladder name -> the participant (house bots left out)."""
        bots = {b.id: b for b in store.bots()}
        return {
            v.ladder_name: str(bots[v.bot_id].owner_id)
            for v in store.versions()
            if v.bot_id in bots and not bots[v.bot_id].house
        }

    def shown_names(self, store: ArenaStore) -> dict[str, str]:
        return told_names(store, self.cfg)

    async def _play(self, store: ArenaStore, tid: int, stop: Callable[[], bool]) -> None:
        self.playing = True

        def public(tournament: int | None, seed: int) -> bool:
            # No other seating of the deal left to record (the match in play is one of them).
            return tournament is not None and store.ladder.seatings_unrecorded(tournament, seed) <= 1

        self._watcher = LiveWatcher(self.hub, public)
        self.hub.changed()
        try:
            # On a cluster, a venue per batch: a scheduler that went away costs one batch, and the
            # next one tries again. Here, the one kept venue, told of this batch's plays.
            venue: Venue
            if self.cfg.cluster:
                venue = cluster.venue(self.cfg.cluster)
            else:
                assert self._kept is not None
                venue = self._kept
                venue.watcher = self._watcher
            await play_tournament(
                store.ladder,
                tid,
                shown_names=self.shown_names(store),
                sandbox=play_mode(),
                concurrency=self.cfg.concurrency,
                log_dir=self.dir / "logs",
                startup_timeout=self.cfg.limits.start_timeout_s,
                workers=0,
                stop=stop,
                force=True,
                on_record=self._recorded,
                venue=venue,
                watcher=self._watcher,
            )
        except VenueError as e:
            # The cluster cannot play now (unreachable, no worker with the bots): nothing of this
            # batch was lost; its unplayed matches are dropped and the next batch tries again. The
            # final's are its schedule (a round of a Swiss or a knockout is drawn from them all): kept,
            # and played when the cluster can.
            self.events.append(f"{utc_now()} the cluster at {self.cfg.cluster} cannot play: {e}")
            del self.events[:-50]
            log.warning("%s", e)
            if not self._is_final(store, tid):
                with store.db.atomic():
                    store.ladder.tournaments.drop_pending(tid)
            await asyncio.sleep(5.0)
        except BotStartError as e:
            # A bot that cannot be started (or reached) at the beginning of a batch: the batch, of
            # which nothing was played, is dropped, and the bot sits out the next batches for a
            # while (a participant's own server may be down for a minute); the others go on. The
            # final keeps every match and tries again after a while.
            if self._is_final(store, tid):
                said = f"the final waits for it and tries again in {FINAL_RETRY_S:g} s"
                wait = FINAL_RETRY_S
            else:
                said = f"it sits out {BENCH_S:g} s"
                wait = 0.5
                self.benched[e.name] = time.monotonic() + BENCH_S
                with store.db.atomic():
                    store.ladder.tournaments.drop_pending(tid)
            self.events.append(f"{utc_now()} {e.name} could not be started; {said}: {e.reason}")
            del self.events[:-50]
            log.warning("%s", e)
            await asyncio.sleep(wait)
        finally:
            self.playing = False
            self._watcher = None
            self.hub.clear()  # a match still in it was stopped: it stays to be played

    # -- the final tournament --------------------------------------------------------------------

    @staticmethod
    def _is_final(store: ArenaStore, tid: int) -> bool:
        return store.get_meta("final_tournament") == str(tid)

    def start_final(self, store: ArenaStore) -> int:
        return start_final(store, self.cfg, resolve=self.resolve)


def told_names(store: ArenaStore, cfg: ArenaConfig) -> dict[str, str]:
    """What the bots are told of each other, by ladder name: in an anonymous arena not yet revealed,
    each participant's bot by its alias (as the pages show it), never its name; else their names."""
    if not cfg.anonymous or store.get_meta("revealed") == "1":
        return {}
    bots = {b.id: b for b in store.bots()}
    return {
        v.ladder_name: f"{bots[v.bot_id].alias}.v{v.number}"
        for v in store.versions()
        if v.bot_id in bots and not bots[v.bot_id].house
    }


def checked_address(store: ArenaStore, cfg: ArenaConfig, v: VersionRow) -> bool:
    """Whether ``v`` is a participant's hosted bot, whose address is checked (``pin``) each time
    before it is reached: the organiser's bots may be anywhere, and ``allow_local_addresses``
    lets every bot be here."""
    if v.address is None or v.kind == "house" or cfg.limits.allow_local_addresses:
        return False
    by = store.user(v.submitted_by)
    return by is None or by.role != "organiser"


def final_versions(
    store: ArenaStore, cfg: ArenaConfig, reachable: Callable[[VersionRow], bool] = lambda v: True
) -> list[VersionRow]:
    """Each participant's last valid version submitted before the deadline that is ``reachable``
    (house bots fill a short table)."""
    before = utc_iso(cfg) if cfg.deadline is not None else None
    newest: dict[int, VersionRow] = {}
    for v in store.newest_valid(before=before):
        bot = store.bot(v.bot)
        if bot is None or bot.house or not reachable(v):
            continue
        if bot.owner_id not in newest or v.submitted_at > newest[bot.owner_id].submitted_at:
            newest[bot.owner_id] = v
    chosen = sorted(newest.values(), key=lambda v: v.ladder_name)
    players = Rules.parse(cfg.rules).players
    if len(chosen) < players:
        house = [v for v in store.newest_valid() if (b := store.bot(v.bot)) is not None and b.house]
        chosen += house[: players - len(chosen)]
    return chosen


def utc_iso(cfg: ArenaConfig) -> str:
    """The deadline as the records write times (ISO 8601, UTC, milliseconds), to compare with them."""
    assert cfg.deadline is not None
    return cfg.deadline.astimezone(dt.UTC).isoformat(timespec="milliseconds")


_FINAL = threading.Lock()  # the API's threads and the deadline's may ask at once: one final is made


def start_final(store: ArenaStore, cfg: ArenaConfig, *, resolve: Resolve = resolve_host) -> int:
    """Create the final tournament (once): fixed seed, duplicate deals, in ``[classroom] final_format``:
    a balanced round robin, or a Swiss or a knockout seeded by the ladder's ratings of the versions
    (the board the arena shows), whose later rounds the worker draws as the results come
    (``play_tournament``). A participant's hosted bot plays it at the address literal its name
    resolves to now, checked (``pin``): a name cannot point the final at this machine later; one
    refused now sits it out."""
    with _FINAL:
        return _start_final(store, cfg, resolve)


def _start_final(store: ArenaStore, cfg: ArenaConfig, resolve: Resolve) -> int:
    existing = store.get_meta("final_tournament")
    if existing is not None:
        return int(existing)
    pinned: dict[str, str] = {}

    def reachable(v: VersionRow) -> bool:
        if not checked_address(store, cfg, v):
            return True
        assert v.address is not None
        try:
            pinned[v.ladder_name] = pin(v.address, resolve=resolve)
        except AddressRefused:
            return False
        return True

    chosen = final_versions(store, cfg, reachable)
    if len(chosen) < Rules.parse(cfg.rules).players:
        raise ValueError(f"the final needs {Rules.parse(cfg.rules).players} valid bots; there are {len(chosen)}")
    staged = cfg.final_format != "round-robin"
    spec = TournamentSpec(
        format=cfg.final_format,
        rules=cfg.rules,
        rounds=cfg.final_rounds if cfg.final_format == "swiss" else 1,
        deals=cfg.final_deals,
        seed=cfg.final_seed,
        duplicate=True,
        settings=settings_of(cfg),
        advance=cfg.final_advance if cfg.final_format == "knockout" else None,
    )
    entries = [bot_entry(v, cfg) for v in chosen]
    entries = [dataclasses.replace(e, address=pinned[e.name]) if e.name in pinned else e for e in entries]
    # A Swiss or a knockout is seeded by the ladder's board as the arena shows it (each version's
    # rating; a deal still played in other seatings left out), then by name.
    ratings = seeding_ratings(Ratings().get(store, ladder_tournament(store, cfg), cfg.rules)) if staged else None
    tid = create_tournament(store.ladder, entries, spec, ratings=ratings)
    store.set_meta("final_tournament", str(tid))
    store.set_meta("final_started_at", utc_now())
    return tid


def _build_argv(
    command: str, folder: Path, timeout: float, limits: Limits, filter_fd: int | None = None
) -> tuple[list[str], int | None]:
    """The command line of a build, and the uid it runs as (None: this process's). In the full
    sandbox the version's directory is the one writable directory it has, mounted where the
    sandbox shares a directory (``SOCKET_DIR``), with no network; else through ``ladder.arena.jail``."""
    mode, _warning = sandbox_mode()
    cpu = int(timeout) + 1
    if mode is not SandboxMode.FULL:
        return [
            sys.executable,
            "-m",
            "ladder.arena.jail",
            "--cpu",
            str(cpu),
            str(folder),
            shlex.join(["sh", "-c", command]),
        ], None
    uid = bot_uid() if os.geteuid() == 0 else None
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8"}
    spec = SandboxSpec(
        argv=["/bin/sh", "-c", f"cd {SOCKET_DIR} && {command}"],
        socket_dir=folder,
        limits=dataclasses.replace(limits, cpu_seconds=cpu),
        env=env,
        uid=uid,
        seccomp_fd=filter_fd,
    )
    return build_argv(spec, probe()), uid


def _chown_tree(folder: Path, uid: int) -> None:
    for path in [folder, *folder.rglob("*")]:
        os.lchown(path, uid, uid)


def _tree_bytes(folder: Path) -> int:
    """The bytes of the files under ``folder`` (links not followed)."""
    total = 0
    for root, _dirs, files in os.walk(folder):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(root, name)).st_size
    return total


async def _build(command: str, folder: Path, timeout: float, limits: Limits) -> dict[str, Any]:
    """Run a version's build command in its directory, within ``timeout`` seconds."""
    t0 = time.monotonic()
    filter_fd = seccomp_fd() if sandbox_mode()[0] is SandboxMode.FULL else None  # the bots' seccomp filter
    argv, uid = _build_argv(command, folder, timeout, limits, filter_fd)
    if uid is not None:  # the build's own uid writes the directory; root owns it again after
        await asyncio.to_thread(_chown_tree, folder, uid)
    try:
        return await _run_build(argv, command, folder, timeout, t0, filter_fd)
    finally:
        if filter_fd is not None:
            os.close(filter_fd)
        if uid is not None:
            await asyncio.to_thread(_chown_tree, folder, 0)


async def _run_build(
    argv: list[str], command: str, folder: Path, timeout: float, t0: float, filter_fd: int | None = None
) -> dict[str, Any]:
    proc = await asyncio.create_subprocess_exec(
        *argv,
        cwd=folder,
        pass_fds=() if filter_fd is None else (filter_fd,),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
    )
    out = bytearray()

    async def pump() -> None:  # read as it comes: what a build printed before its timeout is kept
        assert proc.stdout is not None
        while data := await proc.stdout.read(1 << 16):
            out.extend(data)
            del out[: max(0, len(out) - 4 * _OUTPUT_KEPT)]  # a chatty build keeps its tail only

    reader = asyncio.create_task(pump())
    try:
        await asyncio.wait_for(proc.wait(), timeout)
        timed_out = False
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)  # the whole group: what the build started too
        await proc.wait()
        timed_out = True
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(reader, 5.0)
    text = out.decode("utf-8", "replace")[-_OUTPUT_KEPT:]
    return {
        "ok": proc.returncode == 0 and not timed_out,
        "command": command,
        "exit_code": proc.returncode,
        "timed_out": timed_out,
        "seconds": round(time.monotonic() - t0, 3),
        "output": text,
        "error": f"the build took longer than {timeout:g} s" if timed_out else None,
    }
