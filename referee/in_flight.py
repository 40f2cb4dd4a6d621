"""What the referee has in flight at once: its decisions' bound and its notifications' bound, per event loop.

Bounded apart, so that bots slow to answer hold none of the slots the referee's own work needs.
"""

from __future__ import annotations

import asyncio
import collections
import time
import weakref
from typing import Any

_perf_counter = time.perf_counter

MAX_IN_FLIGHT = 16
"""Decisions the referee works on at once per process (per event loop). Beyond ~16 gRPC throughput
is flat and only latency grows, and client-side queueing counts against the bots' deadlines. A
decision waiting on its bot longer than ``PATIENCE_S`` no longer counts (see ``Decisions``)."""

PATIENCE_S = 0.010
"""A decision whose bot has not answered within this long is waiting on the bot, not on the referee:
its slot passes on. The referee's own work on a decision is well under a millisecond, and its
answer comes back in a few milliseconds at 16 in flight on two cores when bots answer at once; so
the bound keeps limiting the referee's CPU work, and no longer caps bots that think (200 ms bots
on 256 tables would otherwise be held to 16 / 0.2 s = 80 decisions/s)."""

SWEEP_S = 0.0025
"""How often the held slots are swept: a slot is held at most PATIENCE_S + SWEEP_S by a call waiting
on its bot, which caps how fast slots turn over (16 / 12.5 ms = 1,280 new decisions/s at least)."""


class InFlight:
    """A semaphore whose free case costs no call: ``take()`` is True when a slot was taken at once.

    asyncio.Semaphore spends five Python calls on an uncontended ``async with``; the referee
    takes a slot for every decision. Waiters are served in order; a cancelled waiter that had
    already been handed a slot passes it on.
    """

    __slots__ = ("free", "waiters")

    def __init__(self, n: int) -> None:
        self.free = n
        self.waiters: collections.deque[asyncio.Future[None]] = collections.deque()

    def take(self) -> bool:
        if self.free > 0 and not self.waiters:
            self.free -= 1
            return True
        return False

    async def wait(self) -> None:
        """Wait for a slot (after ``take()`` returned False)."""
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.waiters.append(fut)
        try:
            await fut
        except asyncio.CancelledError:
            if fut.done() and not fut.cancelled():
                self.release()  # handed a slot, then cancelled: pass it on
            else:
                try:
                    self.waiters.remove(fut)
                except ValueError:
                    pass
            raise

    def release(self) -> None:
        waiters = self.waiters
        while waiters:
            fut = waiters.popleft()
            if not fut.done():
                fut.set_result(None)  # the slot goes straight to the next waiter
                return
        self.free += 1

    async def __aenter__(self) -> None:
        if not self.take():
            await self.wait()

    async def __aexit__(self, *exc: object) -> None:
        self.release()


class Decisions(InFlight):
    """The decisions' bound: a slot held by a call that has waited on its bot for ``PATIENCE_S``
    passes on, so waiting on slow bots never holds the slots that the referee's own work needs.

    ``hold()`` takes note of a call that holds a slot; ``let_go(held)`` releases its slot unless a
    sweep already did. One timer per loop sweeps, every ``SWEEP_S``, while any slot is held.
    """

    __slots__ = ("held", "timer")

    def __init__(self, n: int) -> None:
        super().__init__(n)
        self.held: collections.deque[list[Any]] = collections.deque()  # [started, slot released], in order
        self.timer: asyncio.TimerHandle | None = None

    def hold(self) -> list[Any]:
        held = [_perf_counter(), False]  # the machine's time: patience is about the referee's own work
        self.held.append(held)
        if self.timer is None:
            self.timer = asyncio.get_running_loop().call_later(SWEEP_S, self._sweep)
        return held

    def let_go(self, held: list[Any]) -> None:
        if not held[1]:
            held[1] = True
            self.release()

    def _sweep(self) -> None:
        self.timer = None
        held = self.held
        patient = _perf_counter() - PATIENCE_S
        while held and (held[0][1] or held[0][0] <= patient):
            oldest = held.popleft()
            if not oldest[1]:
                oldest[1] = True  # waiting on its bot: the slot goes to the next decision
                self.release()
        if held:
            self.timer = asyncio.get_running_loop().call_later(SWEEP_S, self._sweep)


MAX_NOTIFY_IN_FLIGHT = 16
"""Notifications in flight per referee process (per event loop): their own bound, so listeners slow
to answer Notify hold none of the slots decisions need (nor slow any match but by dropped courtesies)."""

_in_flight: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, tuple[Decisions, InFlight]] = (
    weakref.WeakKeyDictionary()
)


def semaphores() -> tuple[Decisions, InFlight]:
    """This loop's bounds: (decisions, notifications)."""
    loop = asyncio.get_running_loop()
    sems = _in_flight.get(loop)
    if sems is None:
        sems = _in_flight[loop] = (Decisions(MAX_IN_FLIGHT), InFlight(MAX_NOTIFY_IN_FLIGHT))
    return sems
