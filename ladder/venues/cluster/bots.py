"""On each Dask worker: the tournament's bots, started and stopped by a worker plugin, and the task
that plays one match there.

``TournamentBots`` is registered by the client (``Client.register_plugin``); Dask runs its
``setup`` on every worker, those that join later too (a worker restarted by its nanny), and its
``teardown`` when the client unregisters it. ``setup`` starts the bots with the ladder's own
``Launcher`` (sandboxed when asked), from the same bots.toml commands, so each worker needs the
bots' files at the same paths: it checks them first. It never raises: a worker where the bots
cannot start keeps the reason, which the client reads (``status``) and reports with the worker's
address, and a match sent there anyway raises ``BotsNotHere`` so the client sends it elsewhere.

``play_on_worker`` is an ``async def`` task: Dask runs it on the worker's event loop, where the
bots' gRPC aio channels were made (they belong to one loop). It returns the whole record; it saves
nothing (the client is the one SQLite writer).
"""

from __future__ import annotations

import re
import shlex
import signal
import socket
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from distributed import WorkerPlugin, get_worker

from ladder.bots.inprocess import load_seat
from ladder.bots.launcher import Launcher
from ladder.venues.here import handshake_limits, launcher_seat, ready_seats, sandbox_options
from ladder.venues.venue import MatchJob, VenueBots, bot_clocks, seat_clocks
from referee.match import play_match
from referee.record import ForfeitReason, MatchRecord
from referee.rules import Rules
from referee.seats import Seat

__all__ = ["BotsNotHere", "TournamentBots", "WorkerStatus", "needed_files", "play_on_worker", "status"]


class BotsNotHere(RuntimeError):
    """A match reached a worker whose bots did not start (the client then plays it elsewhere)."""

    def __init__(self, worker: str, reason: str) -> None:
        super().__init__(worker, reason)  # both args: the exception is pickled back to the client
        self.worker = worker
        self.reason = reason

    def __str__(self) -> str:
        return f"worker {self.worker}: {self.reason}"


@dataclass(frozen=True)
class WorkerStatus:
    """What one worker's plugin made of the tournament's bots."""

    address: str
    error: str | None  # why its bots did not start; None: they run, or are starting
    ready: bool = False  # its bots run: it may be given matches
    declared: dict[str, int] = field(default_factory=dict)  # max_concurrent_games from the handshakes
    slots: int = 0  # matches it plays at once (its Dask threads)
    log_dir: str = ""
    events: tuple[str, ...] = ()  # restarts and give-ups of its launcher


def needed_files(bots: VenueBots) -> dict[str, list[str]]:
    """The files each launched bot's command names that exist here (its script, its binary), as
    absolute paths: every worker must have them at the same paths."""
    out: dict[str, list[str]] = {}
    for name, e in bots.entries.items():
        if e.command is None:
            continue
        try:
            argv = shlex.split(e.command)
        except ValueError:
            continue  # the launcher reports a command it cannot read
        files = []
        for i, a in enumerate(argv):
            if i == 0 and "/" not in a:
                continue  # a program found on PATH (python, node): each machine's own
            p = bots.cwd / a
            if a and not a.startswith("-") and "{" not in a and p.exists():
                files.append(str(p.resolve()))
        out[name] = files
    return out


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", text) or "worker"


class TournamentBots(WorkerPlugin):
    """The bots of one tournament on one worker, for as long as the plugin is registered."""

    def __init__(self, bots: VenueBots, files: dict[str, list[str]], *, local: bool = False) -> None:
        self.bots = bots
        self.files = files
        self.local = local  # the worker is a process of a cluster the client started for this run
        self._reset()

    def _reset(self) -> None:
        self.address = ""
        self.error: str | None = None
        self.launcher: Launcher | None = None
        self.seats: dict[str, Seat] = {}
        self.declared: dict[str, int] = {}
        self.unreachable: set[str] = set()
        self.rules: dict[str, Rules] = {}
        self.clocks = bot_clocks(self.bots.entries)  # the bots with a clock of their own
        self.log_dir: Path | None = None
        self.ready = False  # set once every bot serves and has answered its handshake

    def __getstate__(self) -> dict[str, Any]:
        # What the client sends; the rest is the worker's.
        return {"bots": self.bots, "files": self.files, "local": self.local}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.bots, self.files, self.local = state["bots"], state["files"], state["local"]
        self._reset()

    async def setup(self, worker: Any) -> None:
        self.address = str(worker.address)
        if self.local and threading.current_thread() is threading.main_thread():
            # A Ctrl-C at the terminal reaches this process too (one process group): the client
            # handles it and closes the cluster, so the worker need not die with a traceback.
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            await self._start(worker)
        except Exception as e:  # kept for the client, which names this worker: a raise here is only logged
            self.error = str(e) or type(e).__name__
            await self._stop()

    async def _start(self, worker: Any) -> None:
        b = self.bots
        if not b.cwd.is_dir():
            raise FileNotFoundError(
                f"the folder the tournament runs from, {b.cwd}, is missing here: every worker needs the "
                "bots' files at the same paths as the machine running hearts (docs/cluster.md)"
            )
        for name, files in sorted(self.files.items()):
            missing = [f for f in files if not Path(f).exists()]
            if missing:
                raise FileNotFoundError(
                    f"bot {name!r}: {', '.join(missing)} missing here: every worker needs the bots' files at "
                    "the same paths as the machine running hearts (docs/cluster.md)"
                )
        host = _safe(socket.gethostname())
        self.log_dir = b.log_dir / "cluster" / f"{host}-{_safe(str(worker.name))}"
        self.log_dir.mkdir(parents=True, exist_ok=True)
        if str(b.cwd) not in sys.path:
            sys.path.insert(0, str(b.cwd))  # in-process bots' modules, as `python -m` there would find them
        modules = {n: e.module for n, e in b.entries.items() if e.module is not None}
        self.seats = {n: load_seat(n, spec, self.log_dir) for n, spec in modules.items()}
        self.launcher = Launcher(self.log_dir, startup_timeout=b.startup_timeout, sandbox=b.sandbox, cwd=b.cwd)
        launched = [(n, e.command, e.address) for n, e in b.entries.items() if n not in modules]
        await self.launcher.start_many(launched, sandbox_options(b.entries))
        for n, _c, _a in launched:
            self.seats[n] = launcher_seat(self.launcher, n, self.launcher.bots[n].address or "")
        self.declared = await handshake_limits(self.seats)
        self.ready = True

    async def teardown(self, worker: Any) -> None:
        await self._stop()

    async def _stop(self) -> None:
        for s in self.seats.values():
            await s.close()
        if self.launcher is not None:
            await self.launcher.stop_all()


def status(plugin: str, dask_worker: Any = None) -> WorkerStatus:
    """This worker's state of the tournament's bots (run by ``Client.run`` on every worker)."""
    bots = dask_worker.plugins.get(plugin)
    address = str(dask_worker.address)
    if not isinstance(bots, TournamentBots):
        return WorkerStatus(address, None)  # a worker that joined a moment ago: its setup is to come
    return WorkerStatus(
        address,
        bots.error,
        bots.ready,
        dict(bots.declared),
        int(dask_worker.state.nthreads),
        str(bots.log_dir or ""),
        tuple(bots.launcher.events) if bots.launcher is not None else (),
    )


async def play_on_worker(job: MatchJob, plugin: str) -> MatchRecord:
    """Play ``job`` with this worker's bots (a Dask task, on the worker's event loop)."""
    worker = get_worker()
    bots = worker.plugins.get(plugin)
    if not isinstance(bots, TournamentBots) or not bots.ready or bots.launcher is None:
        why = bots.error if isinstance(bots, TournamentBots) and bots.error else "its bots are still starting"
        raise BotsNotHere(str(worker.address), why)
    rules = bots.rules.get(job.rules)
    if rules is None:
        rules = bots.rules[job.rules] = Rules.parse(job.rules)
    table = await ready_seats(bots.launcher, bots.seats, job.seats, bots.unreachable)
    record = await play_match(
        table,
        rules,
        job.seed,
        settings=bots.bots.settings,
        match_id=job.match_id,
        names=list(job.seats),
        tournament_id=job.tournament_id,
        shown_names=list(job.shown) if job.shown else None,
        time_controls=seat_clocks(bots.clocks, job.seats),
    )
    # Checked before its next match here: a bot that dropped its connection may be on its way out.
    bots.unreachable.update(job.seats[s.seat] for s in record.seats if s.forfeit_reason is ForfeitReason.UNREACHABLE)
    return record
