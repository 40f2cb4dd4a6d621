"""Worker processes for a tournament's in-process matches: every core plays.

A match whose bots are all in-process (``module = ...``) needs nothing of the parent's: no
launcher, no channel. ``MatchWorkers`` hands such matches (their seeds, seats and rules) to a pool
of processes, each with its own copy of every in-process bot (loaded once per process, as one
server per bot would serve all its matches) and its own connection to the tournament's SQLite
file. A worker plays a batch of matches, then saves each with ``ladder.store.save.save_scheduled``,
the very transaction the parent would run, all of the batch in one commit; so the parent is not the
bottleneck: it only hands out batches and counts what comes back, each record without its plays
(``hands`` and ``faults`` kept, for ``on_record``). A batch is sized to take about ``_BATCH_S``:
matches of milliseconds share a commit, a slow bot's go one at a time.

The pool starts its processes by *spawn*: a fork of a parent that has used gRPC breaks the
child's gRPC ("Wrong file descriptor generation"). Workers ignore SIGINT: a Ctrl-C reaches the parent,
which stops handing out matches and waits for the batches in flight (a fraction of a second) to be saved.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import gc
import multiprocessing
import os
import signal
import sys
import time
from collections.abc import Iterator, Mapping
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from ladder.store.save import AlreadyRecorded, save_scheduled
from ladder.venues.venue import MatchJob, seat_clocks
from referee.match import MatchSettings, TimeControl
from referee.record import MatchRecord

__all__ = ["MatchWorkers", "WorkerDied", "default_workers", "worker_gc"]

_BATCH_S = 0.05  # a batch's playing time, about: its matches then share one commit
_BATCH_MAX = 32


class WorkerDied(RuntimeError):
    """A worker process ended in the middle of a match: an in-process bot exited or crashed the
    interpreter. The match stays pending; the message says how to find the bot."""


def default_workers() -> int:
    """One worker per core this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


class MatchWorkers:
    """A pool of ``n`` worker processes playing and saving in-process matches of one tournament, each
    bot named in ``clocks`` under its own time control (over ``settings``)."""

    def __init__(
        self,
        n: int,
        modules: Mapping[str, str],
        db_path: Path | str,
        settings: MatchSettings,
        log_dir: Path | str | None = None,
        *,
        clocks: Mapping[str, TimeControl] | None = None,
    ) -> None:
        if n < 1:
            raise ValueError("a pool needs at least one worker")
        self.n = n
        self._broken = False
        self._waiting: list[tuple[MatchJob, asyncio.Future[MatchRecord | None]]] = []  # not handed out yet
        self._out = 0  # batches handed out and not back
        self._flush_soon = False  # a flush is due at the loop's next turn
        self._stopped = False  # hand_out_no_more was called
        self._batch = 1  # matches a batch: one until the first batch says how long a match takes
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
                dict(clocks or {}),
            ),
        )

        # Every worker now, while the parent's __main__ is out of sight: the workers need nothing of
        # it (their work is in this module), and a script without an ``if __name__ == "__main__"``
        # guard would otherwise run again in each of them, tournament and all.
        with _main_out_of_sight():
            for _ in range(n):
                self._pool.submit(_ready).add_done_callback(_seen)

    @property
    def room(self) -> int:
        """How many matches to keep in flight: four batches a worker (one played, the rest queued)."""
        return 4 * self.n * self._batch

    async def play(self, job: MatchJob) -> MatchRecord | None:
        """Play and save ``job`` in a worker: the record saved (without its plays), or None when
        another process had recorded that match first, or the run stopped (``hand_out_no_more``)
        before any worker had it: it stays to be played."""
        if self._stopped:
            return None
        loop = asyncio.get_running_loop()
        mine: asyncio.Future[MatchRecord | None] = loop.create_future()
        mine.add_done_callback(_retrieved)
        waiting = (job, mine)
        self._waiting.append(waiting)
        if len(self._waiting) >= self._batch:
            self._flush()
        elif not self._flush_soon:  # once the matches started in this turn of the loop have joined
            self._flush_soon = True
            loop.call_soon(self._flush)
        # Shielded: a cancelled run must not cancel a batch's future, which the pool may be failing
        # meanwhile (CPython's pool then raises InvalidStateError in its thread); a match, once
        # handed to a worker, is saved if it ends, and close() waits for it.
        try:
            return await asyncio.shield(mine)
        except asyncio.CancelledError:
            if waiting in self._waiting:  # not handed out yet: nobody plays it
                self._waiting.remove(waiting)
            raise
        except BrokenProcessPool:
            self._broken = True
            raise WorkerDied(
                f"a worker process died while playing match {job.match_id} ({', '.join(job.seats)}): an "
                "in-process bot ended it (os._exit, a crash of the interpreter), or a worker could not "
                "start (see in-process-workers.log in the logs folder). Play the bot as a command to see "
                "its own log: hearts match --seat NAME=COMMAND"
            ) from None

    def _flush(self) -> None:
        """Hand out the waiting matches, a batch at a time, while fewer than four batches a worker
        are out. A batch is played, then saved in one transaction: a commit was a fifth of a
        match's save. Its size follows the matches' own pace (``_BATCH_S`` a batch), so that slow
        bots still report each match as it ends and a Ctrl-C waits for a few matches only."""
        self._flush_soon = False
        while self._waiting and self._out < 4 * self.n:
            batch, self._waiting = self._waiting[: self._batch], self._waiting[self._batch :]
            try:
                submitted = self._pool.submit(_play_batch, [job for job, _ in batch])
            except BrokenProcessPool as e:  # a worker died: every match waiting hears it
                self._broken = True
                for _, mine in batch + self._waiting:
                    if not mine.done():
                        mine.set_exception(e)
                self._waiting = []
                return
            self._out += 1
            asyncio.wrap_future(submitted).add_done_callback(functools.partial(self._settle, batch))

    def _settle(
        self, batch: list[tuple[MatchJob, asyncio.Future[MatchRecord | None]]], future: asyncio.Future[Any]
    ) -> None:
        """A batch came back: each of its matches' outcome to whoever waits for it; the next batch out."""
        self._out -= 1
        error = None if future.cancelled() else future.exception()
        if isinstance(error, BrokenProcessPool):
            self._broken = True
        for i, (_, mine) in enumerate(batch):
            if mine.done():
                continue
            if future.cancelled():
                mine.cancel()
            elif error is not None:
                mine.set_exception(error)
            else:
                record, failure = future.result()[0][i]
                if failure is not None:
                    mine.set_exception(failure)
                else:
                    mine.set_result(record)
        if error is None and not future.cancelled():
            self._batch = _batch_size(future.result()[1] / len(batch))
        self._flush()

    def hand_out_no_more(self) -> None:
        """Hand out no more matches: those not handed out yet end now, unplayed (None). The batches
        out are played and saved."""
        self._stopped = True
        waiting, self._waiting = self._waiting, []
        for _, mine in waiting:
            if not mine.done():
                mine.set_result(None)

    def close(self) -> None:
        """Let the matches in flight finish and be saved, start no more, stop the processes."""
        self._pool.shutdown(wait=True, cancel_futures=not self._broken)  # a broken pool has failed them all


def _batch_size(per_match_s: float) -> int:
    """Matches a batch, for matches that take ``per_match_s`` seconds each (played and saved)."""
    return max(1, min(_BATCH_MAX, int(_BATCH_S / max(per_match_s, 1e-9))))


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


def worker_gc() -> None:
    """The garbage collector as a worker runs it, once started. What start-up made (modules, bots)
    lives as long as the worker: frozen, the collector stops walking it. A match's own objects die
    by reference counting, so collecting every 20,000 allocations instead of every 700 finds the
    same garbage: a worker had spent about a tenth of its time in the collector."""
    gc.freeze()
    gc.set_threshold(20_000, 10, 10)


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
    clocks: dict[str, TimeControl],
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
    from ladder.bots.inprocess import load_seat  # here, not in the first batch: start-up is all here
    from ladder.store import Store

    _worker["seats"] = {name: load_seat(name, spec, log_dir) for name, spec in modules.items()}
    _worker["store"] = Store(db_path)
    _worker["settings"] = MatchSettings(**settings)
    _worker["clocks"] = clocks
    _worker["rules"] = {}
    _worker["loop"] = asyncio.new_event_loop()
    _worker["saving"] = saving
    worker_gc()


def _play_batch(jobs: list[MatchJob]) -> tuple[list[tuple[MatchRecord | None, Exception | None]], float]:
    """Play ``jobs`` one after another, then save them in one transaction (each in its own
    savepoint, so that a match another process recorded first is left out alone). Each match's
    (record saved without its plays, or None: recorded already; the error that stopped it), and the
    seconds the batch took. A referee error in one match costs only that match."""
    start = time.perf_counter()
    played: list[tuple[MatchJob, MatchRecord | None, Exception | None]] = []
    for job in jobs:
        try:
            played.append((job, _play(job), None))
        except Exception as e:  # a bug: reported for that match, which stays pending
            played.append((job, None, e))
    store = _worker["store"]
    outcomes: list[tuple[MatchRecord | None, Exception | None]] = []
    with _worker["saving"], store.db.atomic():
        for job, record, error in played:
            if record is None:
                outcomes.append((None, error))
                continue
            try:
                save_scheduled(store, job.tournament_id, job.index, record)
            except AlreadyRecorded:
                outcomes.append((None, None))
            else:
                outcomes.append((dataclasses.replace(record, plays=[]), None))
    return outcomes, time.perf_counter() - start


def _play(job: MatchJob) -> MatchRecord:
    from referee.match import play_match
    from referee.rules import Rules

    rules = _worker["rules"].get(job.rules)
    if rules is None:
        rules = _worker["rules"][job.rules] = Rules.parse(job.rules)
    seats = _worker["seats"]
    return _worker["loop"].run_until_complete(
        play_match(
            [seats[b] for b in job.seats],
            rules,
            job.seed,
            settings=_worker["settings"],
            match_id=job.match_id,
            names=list(job.seats),
            tournament_id=job.tournament_id,
            shown_names=list(job.shown) if job.shown else None,
            time_controls=seat_clocks(_worker["clocks"], job.seats),
        )
    )
