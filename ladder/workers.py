"""Worker processes for a tournament's in-process matches: every core plays.

A match whose bots are all in-process (``module = ...``) needs nothing of the parent's: no
launcher, no channel. ``MatchWorkers`` hands such matches (their seeds, seats and rules) to a pool
of processes, each with its own copy of every in-process bot (loaded once per process, as one
server per bot would serve all its matches) and its own connection to the tournament's SQLite
file. A worker plays the match and saves it with ``save_scheduled``, the very transaction the
parent would run, so that the parent is not the bottleneck: it only hands out matches and counts
what comes back, the record without its plays (``hands`` and ``faults`` kept, for ``on_record``).

The pool starts its processes by *spawn*: a fork of a parent that has used gRPC breaks the
child's gRPC (shared/notes/grpc-python.md). Workers ignore SIGINT: a Ctrl-C reaches the parent,
which stops handing out matches and waits for those in flight (milliseconds each) to be saved.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import multiprocessing
import os
import signal
import sys
from collections.abc import Iterator, Mapping
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.match import MatchSettings
from referee.record import MatchRecord

__all__ = ["MatchJob", "MatchWorkers", "WorkerDied", "default_workers"]


class WorkerDied(RuntimeError):
    """A worker process ended in the middle of a match: an in-process bot exited or crashed the
    interpreter. The match stays pending; the message says how to find the bot."""


def default_workers() -> int:
    """One worker per core this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


@dataclass(frozen=True)
class MatchJob:
    """One scheduled match, as a worker needs it."""

    tournament_id: int
    index: int
    match_id: str
    seats: tuple[str, ...]
    rules: str
    seed: int
    shown: tuple[str, ...] = ()  # the names the bots are told (empty: the seats' own)


class MatchWorkers:
    """A pool of ``n`` worker processes playing and saving in-process matches of one tournament."""

    def __init__(
        self,
        n: int,
        modules: Mapping[str, str],
        db_path: Path | str,
        settings: MatchSettings,
        log_dir: Path | str | None = None,
    ) -> None:
        if n < 1:
            raise ValueError("a pool needs at least one worker")
        self.n = n
        self._broken = False
        context = multiprocessing.get_context("spawn")
        # One writer at a time, by turns: SQLite's own busy handler would have the others sleep and
        # poll in growing steps, which on a few cores costs more than the writes themselves.
        saving = context.Lock()
        self._pool = ProcessPoolExecutor(
            n,
            mp_context=context,
            initializer=_start,
            initargs=(
                dict(modules),
                str(Path(db_path).resolve()),
                dataclasses.asdict(settings),
                list(sys.path),
                saving,
                None if log_dir is None else str(Path(log_dir).resolve()),
            ),
        )

        # Every worker now, while the parent's __main__ is out of sight: the workers need nothing of
        # it (their work is in this module), and a script without an ``if __name__ == "__main__"``
        # guard would otherwise run again in each of them, tournament and all.
        with _main_out_of_sight():
            for _ in range(n):
                self._pool.submit(_ready).add_done_callback(_seen)

    async def play(self, job: MatchJob) -> MatchRecord | None:
        """Play and save ``job`` in a worker: the record saved (without its plays), or None when
        another process had recorded that match first."""
        # Shielded: a cancelled run must not cancel the pool's own future, which the pool may be
        # failing meanwhile (CPython's pool then raises InvalidStateError in its thread); the
        # match, if it ends, is saved, and close() waits for it.
        played = asyncio.wrap_future(self._pool.submit(_play, job))
        played.add_done_callback(_retrieved)
        try:
            return await asyncio.shield(played)
        except BrokenProcessPool:
            self._broken = True
            raise WorkerDied(
                f"a worker process died while playing match {job.match_id} ({', '.join(job.seats)}): an "
                "in-process bot ended it (os._exit, a crash of the interpreter), or a worker could not "
                "start (see in-process-workers.log in the logs folder). Play the bot as a command to see "
                "its own log: hearts match --seat NAME=COMMAND"
            ) from None

    def close(self) -> None:
        """Let the matches in flight finish and be saved, start no more, stop the processes."""
        self._pool.shutdown(wait=True, cancel_futures=not self._broken)  # a broken pool has failed them all


def _retrieved(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()  # seen, also when nobody awaits it any more (a cancelled run)


@contextlib.contextmanager
def _main_out_of_sight() -> Iterator[None]:
    """While workers are spawned: ``__main__`` without the file and spec that multiprocessing's spawn
    would import again in each child."""
    main = sys.modules.get("__main__")
    if main is None:
        yield
        return
    saved: dict[str, Any] = {k: main.__dict__[k] for k in ("__file__", "__spec__") if k in main.__dict__}
    main.__dict__.pop("__file__", None)
    main.__dict__["__spec__"] = None
    try:
        yield
    finally:
        main.__dict__.pop("__spec__", None)
        main.__dict__.update(saved)


def _seen(future: Future[None]) -> None:
    if not future.cancelled():
        future.exception()  # a worker that could not start breaks the pool: the first match says so


# -- inside a worker -----------------------------------------------------------------------------


def _ready() -> None:
    """Nothing: a first task, which makes the pool start a worker for it."""


_worker: dict[str, Any] = {}


def _start(
    modules: dict[str, str],
    db_path: str,
    settings: dict[str, Any],
    path: list[str],
    saving: Any,
    log_dir: str | None,
) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and stops the pool
    for folder in reversed(path):
        if folder not in sys.path:
            sys.path.insert(0, folder)
    if log_dir is not None:
        # What the bots print outside their methods (at import, say) goes to a log, not the screen.
        Path(log_dir).mkdir(parents=True, exist_ok=True)
        sys.stdout = sys.stderr = open(  # the worker's, for its life
            Path(log_dir) / "in-process-workers.log", "a", buffering=1, encoding="utf-8", errors="replace"
        )
    from ladder.inprocess import load_seat
    from ladder.store import Store

    _worker["seats"] = {name: load_seat(name, spec, log_dir) for name, spec in modules.items()}
    _worker["store"] = Store(db_path)
    _worker["settings"] = MatchSettings(**settings)
    _worker["rules"] = {}
    _worker["loop"] = asyncio.new_event_loop()
    _worker["saving"] = saving


def _play(job: MatchJob) -> MatchRecord | None:
    from ladder.tournament import AlreadyRecorded, save_scheduled
    from referee.match import play_match
    from referee.rules import Rules

    rules = _worker["rules"].get(job.rules)
    if rules is None:
        rules = _worker["rules"][job.rules] = Rules.parse(job.rules)
    seats = _worker["seats"]
    record = _worker["loop"].run_until_complete(
        play_match(
            [seats[b] for b in job.seats],
            rules,
            job.seed,
            settings=_worker["settings"],
            match_id=job.match_id,
            names=list(job.seats),
            tournament_id=job.tournament_id,
            shown_names=list(job.shown) if job.shown else None,
        )
    )
    try:
        with _worker["saving"]:
            save_scheduled(_worker["store"], job.tournament_id, job.index, record)
    except AlreadyRecorded:
        return None
    return dataclasses.replace(record, plays=[])
