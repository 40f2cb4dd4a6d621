"""The client side: ``DaskVenue``, a ``ladder.venues.venue.Venue`` on a Dask distributed cluster.

``open`` connects (a short timeout: an unreachable scheduler is named at once), registers the
tournament's ``TournamentBots`` plugin (every worker starts the bots) and reads each worker's
state: the workers whose bots started are where matches go (``workers=`` on each task, strictly:
Dask's work stealing would hand a loosely restricted task to an idle worker, idle because its bots
did not start; a worker that joins later plays the matches sent after it is ready, and a task whose
workers are all gone is sent again to the others); each other worker is reported with its address
and why (a bot's log tail). ``play`` submits one ``play_on_worker`` task and awaits its record.

A worker that dies mid-match loses nothing: Dask plays the task again on another worker, from the
same job (the same seed), and only the record that comes back is saved, by the client. A task
that lands on a worker without its bots (``BotsNotHere``) is sent again to the others.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import dask
from distributed import Client, KilledWorker, LocalCluster
from distributed.comm.addressing import parse_address, parse_host_port
from distributed.security import Security

from ladder.bots.launcher import Launcher
from ladder.venues.cluster.bots import BotsNotHere, TournamentBots, WorkerStatus, needed_files, play_on_worker, status
from ladder.venues.venue import MatchJob, Played, VenueBots, VenueError
from referee.record import MatchRecord

__all__ = ["DaskVenue", "NoWorkerCanPlay", "SchedulerAddressError", "SchedulerUnreachable", "check_address"]

_REFRESH_S = 2.0  # how often the workers' states are read again (workers join, restart)
_TRIES = 5  # sends of one match to workers without its bots before giving up
_ASK_S = 10.0  # how long the workers' states are waited for


# The workers of a cluster this process starts: Dask's statistical profiler samples every thread
# every 10 ms, CPU taken from the matches for a dashboard nobody opens here.
LOCAL_WORKERS_CONFIG: dict[str, object] = {"distributed.worker.profile.enabled": False}


class SchedulerUnreachable(VenueError):
    """No Dask scheduler answered at the address."""


class SchedulerAddressError(VenueError):
    """The address is not one of a Dask scheduler (tcp://HOST:PORT, tls://HOST:PORT), or a tls:// one
    without Dask's TLS settings for this client."""


def check_address(address: str) -> str:
    """``address`` when Dask can connect to it as given; ``SchedulerAddressError`` naming the form
    expected otherwise (a typo is named before anything is played, not as Dask's traceback)."""
    form = "give the address dask scheduler prints, tcp://HOST:PORT (tcp://lab-01:8786), or tls://HOST:PORT"
    try:
        scheme, location = parse_address(address, strict=False)
        parse_host_port(location)
    except ValueError as e:
        raise SchedulerAddressError(f"{address!r} is not a Dask scheduler's address ({e}): {form}") from None
    if scheme not in ("tcp", "tls"):
        raise SchedulerAddressError(f"{address!r} is not a Dask scheduler's address (scheme {scheme}://): {form}")
    if scheme != "tls":
        return address
    try:
        tls = Security().get_connection_args("client").get("ssl_context")
    except (OSError, ValueError) as e:  # a certificate file that is missing, or not one (ssl.SSLError)
        raise SchedulerAddressError(
            f"{address}: Dask's TLS settings for this client name a certificate it cannot load ({e}): check "
            "the DASK_DISTRIBUTED__COMM__TLS__* variables (or ~/.config/dask/distributed.yaml), docs/cluster.md"
        ) from None
    if tls is None:
        raise SchedulerAddressError(
            f"{address} is a TLS address, but Dask's settings give this client no TLS certificate: set "
            "DASK_DISTRIBUTED__COMM__TLS__CA_FILE, DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT and "
            "DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY (or the same keys in ~/.config/dask/distributed.yaml), "
            "as docs/cluster.md says under 'Securing the cluster'"
        )
    return address


class NoWorkerCanPlay(VenueError):
    """No worker of the cluster could start the tournament's bots; the message gives each one's reason."""


class DaskVenue:
    """Matches played on the Dask cluster at ``address``, or on a local one of ``local_workers``."""

    def __init__(
        self,
        address: str | None = None,
        *,
        local_workers: int | None = None,
        slots_per_worker: int = 1,
        connect_timeout: float = 5.0,
    ) -> None:
        if (address is None) == (local_workers is None):
            raise ValueError("give a scheduler's address or a number of local workers, not both")
        if local_workers is not None and local_workers < 1:
            raise ValueError("a local cluster needs at least one worker")
        self.address = None if address is None else check_address(address)
        self.local_workers = local_workers
        self.slots_per_worker = max(1, slots_per_worker)
        self.connect_timeout = connect_timeout
        self._cluster: LocalCluster | None = None
        self._client: Client | None = None
        self._plugin = ""
        self._good: set[str] = set()
        self._seen: dict[str, str | None] = {}  # each worker's last reported error (None: fine)
        self._refreshed = 0.0
        self._events: list[str] = []
        self.on_event: Callable[[str], None] | None = None  # told each event as it happens
        self._logs: dict[str, Path | None] = {}
        self._slots = 0
        self._reading = asyncio.Lock()

    @property
    def slots(self) -> int:
        return self._slots

    @property
    def events(self) -> list[str]:
        return self._events

    @property
    def logs(self) -> dict[str, Path | None]:
        return self._logs

    @property
    def client(self) -> Client:
        if self._client is None:
            raise RuntimeError("the venue is not open")
        return self._client

    async def _local_cluster(self) -> Client:
        self._cluster = await LocalCluster(
            n_workers=self.local_workers,
            threads_per_worker=self.slots_per_worker,
            processes=True,  # a match's CPU (the referee, in-process bots) on each worker's own core
            dashboard_address=None,
            scheduler_port=0,
            asynchronous=True,
            silence_logs=logging.CRITICAL,  # a match cancelled by Ctrl-C is no error to show
        )
        return await Client(self._cluster, asynchronous=True)

    async def _connect(self) -> Client:
        if self.local_workers is not None:
            with dask.config.set(LOCAL_WORKERS_CONFIG):
                return await self._local_cluster()
        assert self.address is not None
        client = Client(self.address, asynchronous=True, timeout=self.connect_timeout)

        async def started() -> Client:
            return await client

        try:
            # Dask's own timeout covers the connection, not its handshake: a port where something
            # else listens (the scheduler's dashboard, 8787) would be waited on for ever.
            return await asyncio.wait_for(started(), self.connect_timeout + 1)
        except (OSError, TimeoutError) as e:
            try:
                await asyncio.wait_for(client.close(), 2)  # else Dask warns of coroutines never awaited
            except Exception:
                pass
            raise SchedulerUnreachable(
                f"no Dask scheduler answered at {self.address} within {self.connect_timeout:g} s"
                + (f" ({e})" if str(e) else "")
                + ". Start one there (dask scheduler), check the address and port (8786 by default, not the "
                "dashboard's 8787) and the firewall, or play here without --cluster"
            ) from None

    async def open(self, bots: VenueBots) -> dict[str, int]:
        self._client = await self._connect()
        # One name per tournament (its number and its database): registering it again (a resume
        # after a crash) replaces the old plugin, whose teardown stops the bots it left running.
        owner = hashlib.sha1(bots.owner.encode()).hexdigest()[:10]
        self._plugin = f"hearts-bots-t{bots.tournament_id}-{owner}"
        await self._client.register_plugin(
            TournamentBots(bots, needed_files(bots), local=self._cluster is not None), name=self._plugin
        )
        states = await self._states()
        good = [s for s in states if s.ready]
        if not states:
            raise NoWorkerCanPlay(f"the Dask cluster at {self._where()} has no workers: start some (dask worker)")
        if not good:
            raise NoWorkerCanPlay(
                f"no worker of the Dask cluster at {self._where()} could start the tournament's bots:\n"
                + "\n".join(f"worker {s.address}: {s.error}" for s in states if s.error is not None)
            )
        logs = Path(good[0].log_dir).parent
        # Where each worker keeps a bot's log, a pattern (one folder per worker): what the report
        # names for a bot that faulted.
        self._logs = {n: logs / "*" / Launcher(logs).log_path(n).name for n in bots.entries}
        self._event(f"bots' logs: on each worker under {logs}/HOST-WORKER/")
        # The strictest limit any worker's copy declared (they run one command; 0 sets none).
        return {n: min([d for s in good if (d := s.declared.get(n, 0)) > 0], default=0) for n in bots.entries}

    def _event(self, text: str) -> None:
        self._events.append(text)
        if self.on_event is not None:
            self.on_event(text)

    def _where(self) -> str:
        return self.address or f"local ({self.local_workers} workers)"

    async def _states(self) -> list[WorkerStatus]:
        """Every worker's state; a worker that does not answer is left out (it is gone or going)."""
        self._refreshed = time.monotonic()
        try:
            replies: dict[str, Any] = await asyncio.wait_for(
                self.client.run(status, self._plugin, on_error="return"), _ASK_S
            )
        except TimeoutError:
            return []  # a worker dying as it is asked: the workers known so far stay as they are
        states = [r for r in replies.values() if isinstance(r, WorkerStatus)]
        for s in states:
            if s.error is not None and self._seen.get(s.address) != s.error:
                self._event(f"worker {s.address} plays no match: {s.error}")
            self._seen[s.address] = s.error
        self._good = {s.address for s in states if s.ready}
        self._slots = sum(s.slots for s in states if s.ready)  # workers join and leave: the room follows
        return states

    async def _refresh(self) -> None:
        """The workers' states read again when they are old; one reading at a time, however many
        matches start meanwhile (the others go by the workers known)."""
        if time.monotonic() - self._refreshed > _REFRESH_S and not self._reading.locked():
            async with self._reading:
                await self._states()

    async def play(self, job: MatchJob) -> Played:
        """The match played on a worker with its bots; its record comes back to be saved here."""
        for _ in range(_TRIES):
            await self._refresh()
            if not self._good:
                raise NoWorkerCanPlay(
                    f"no worker of the Dask cluster at {self._where()} has the tournament's bots running any "
                    f"more; match {job.match_id} stays pending: start workers, then resume"
                )
            workers = sorted(self._good)
            future = self.client.submit(
                play_on_worker,
                job,
                self._plugin,
                key=f"{job.match_id}-{uuid.uuid4().hex[:8]}",  # unique: a retry is a new task
                pure=False,
                # Only there, strictly: with a loose restriction Dask's work stealing hands a task
                # queued on a busy worker to an idle one, which is idle because it has no bots.
                workers=workers,
                allow_other_workers=False,
            )
            try:
                record = await self._outcome(future, workers)
                if record is None:
                    continue  # its workers are gone (a restart has a new address): sent to the others
                return Played(record)
            except BotsNotHere as e:
                self._good.discard(e.worker)
                self._refreshed = 0.0
            except KilledWorker:
                raise VenueError(
                    f"match {job.match_id} ({', '.join(job.seats)}) was being played each time a worker died, "
                    "and Dask gave it up (does a bot or the match kill its worker?). It stays pending: look at "
                    "the workers' logs, then resume"
                ) from None
        raise NoWorkerCanPlay(f"match {job.match_id} found no worker with the tournament's bots after {_TRIES} tries")

    async def _outcome(self, future: Any, workers: list[str]) -> MatchRecord | None:
        """The task's record; None (the task cancelled) once none of the workers it may run on has
        the bots any more: a worker that died and was restarted has a new address, and a task
        restricted to the old one would wait for it for ever."""

        async def result() -> MatchRecord:
            record: MatchRecord = await future
            return record

        waiting = asyncio.ensure_future(result())
        try:
            while True:
                done, _ = await asyncio.wait({waiting}, timeout=_REFRESH_S)
                if done:
                    return waiting.result()
                await self._refresh()
                if self._good and self._good.isdisjoint(workers):
                    await self.client.cancel([future])
                    return None
        finally:
            waiting.cancel()

    def stop_handing_out(self) -> None:
        """Nothing: every match sent is one the run started, and it finishes."""

    def finish_saving(self) -> None:
        """Nothing: the run saves every record of the cluster."""

    def kill(self) -> None:
        """Nothing here: the bots run on the workers, and ``close`` stops them."""

    async def close(self) -> None:
        client, self._client = self._client, None
        try:
            if client is not None:
                if self._plugin:
                    try:
                        self._client = client
                        for s in await self._states():
                            self._events.extend(f"worker {s.address}: {e}" for e in s.events)
                    except Exception:
                        pass  # the events are a report's extra: never a reason not to stop the bots
                    finally:
                        self._client = None
                    try:
                        await client.unregister_worker_plugin(self._plugin)  # teardown: the bots stop
                    except Exception:
                        pass  # a worker that is gone took its bots with it (they die with their parent)
                await client.close()
        finally:
            if self._cluster is not None:
                cluster, self._cluster = self._cluster, None
                closing = cluster.close()  # a coroutine: the cluster is asynchronous
                if closing is not None:
                    await closing
