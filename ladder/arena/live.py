"""The matches in play, as they are played: the worker publishes, the web pages follow.

``LiveWatcher`` is the referee's ``MatchWatcher`` for the worker's matches: it copies each play and
each scored hand out of the growing record (the engine's trick winner with the play that completed
a trick, the engine's points and totals with a scored hand) into the ``LiveHub``. Nothing here
re-derives a rule: what the page shows is what the record and the engine said.

``LiveHub`` is the one broadcaster of a running arena, shared by the worker's thread (which
publishes) and the web's loop (whose streams read). Everything in it is bounded, because the
viewers are anyone: at most ``MAX_SUBSCRIBERS`` streams (``MAX_PER_ADDRESS`` from one address), each
with a queue of ``QUEUE`` events; a stream that falls behind is not waited for, its queue is emptied
and it is sent the whole board afresh (``lagged``). The last ``RING`` events are kept so that a page
that reconnects with ``Last-Event-ID`` is sent what it missed; older than that, the board afresh.

Withholding is decided here, once, for every viewer alike: a match's plays are ``public`` only when
no other seating of its deal is still to be recorded (duplicate deals: its plays would show the
others' cards), as ``ladder.arena.views`` withholds a recorded match's record; an organiser sees
every play. An event that a viewer may not see is never put in that viewer's queue. Events carry
seats by number, never names: the names, as each viewer may see them, come with the board
(``views.live_board``), and no address, fault text or seed is ever published.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import secrets
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from referee.record import MatchRecord
from referee.rules import Trick

__all__ = [
    "KEEPALIVE_S",
    "MAX_PER_ADDRESS",
    "MAX_SUBSCRIBERS",
    "QUEUE",
    "RING",
    "LiveHub",
    "LiveMatch",
    "LiveWatcher",
    "Subscriber",
    "stream",
]

MAX_SUBSCRIBERS = 64
"""Streams open at once, all viewers together; one more is refused (503) until one closes."""
MAX_PER_ADDRESS = 8
"""Streams open at once from one client address."""
QUEUE = 512
"""Events waiting for one stream; past it the stream is sent the board afresh instead."""
RING = 4096
"""Events kept for a page that reconnects (``Last-Event-ID``)."""
MAX_PLAYS = 20000
"""Plays kept of one match in play (a match ends long before; a bound all the same)."""
KEEPALIVE_S = 15.0
"""A comment line on a quiet stream this often, so that a page that has gone is noticed."""
BOARD_EVERY_S = 0.5
"""The board is sent to one stream at most this often (matches that start and end come together)."""
STREAM_S = 1800.0
"""A stream ends after this long; the page reconnects and resumes (nothing is held forever)."""


@dataclass
class LiveMatch:
    """A match in play: its seats' ladder names, whether its plays may be shown to all, and its
    plays and scored hands so far, as the record has them."""

    id: str
    tournament: int | None
    seed: int
    names: list[str]
    public: bool
    plays: list[dict[str, Any]] = field(default_factory=list)
    hands: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class Event:
    seq: int
    kind: str  # play, hand, shown (a match's plays so far, now public), board (the matches changed)
    public: bool  # whether every viewer may have it (else an organiser alone)
    data: dict[str, Any] | None = None


@dataclass(eq=False)
class Subscriber:
    """One stream: what it may see, its queue, and how to wake it on the web's loop."""

    organiser: bool
    address: str
    loop: asyncio.AbstractEventLoop
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    queue: collections.deque[Event] = field(default_factory=collections.deque)
    lagged: bool = True  # owes the board afresh (a new stream, or one that fell behind)
    woken: bool = False  # a wake is on its way (one at a time, however much is published)
    dropped: int = 0  # times its queue was emptied for falling behind

    def may_see(self, e: Event) -> bool:
        return self.organiser or e.public


class LiveHub:
    """The matches in play and the streams that follow them (see the module's docstring)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.epoch = secrets.token_hex(4)  # a new hub (a restart): old event ids mean nothing
        self.seq = 0
        self.matches: dict[str, LiveMatch] = {}
        self.ring: collections.deque[Event] = collections.deque(maxlen=RING)
        self.subscribers: set[Subscriber] = set()
        # The board each kind of viewer was last sent, by (account id, role): every visitor's is one.
        self._boards: dict[tuple[int, str], tuple[int, float, dict[str, Any]]] = {}

    # -- the worker's side -------------------------------------------------------------------------

    def _publish(self, kind: str, public: bool, data: dict[str, Any] | None = None) -> None:
        # Under the lock.
        self.seq += 1
        e = Event(self.seq, kind, public, data)
        self.ring.append(e)
        for sub in self.subscribers:
            if not sub.may_see(e):
                continue
            if len(sub.queue) >= QUEUE:
                sub.queue.clear()
                sub.lagged = True
                sub.dropped += 1
            else:
                sub.queue.append(e)
            if not sub.woken:
                sub.woken = True
                with contextlib.suppress(RuntimeError):  # its loop has closed: the stream is gone
                    sub.loop.call_soon_threadsafe(sub.wake.set)

    def began(self, match_id: str, tournament: int | None, seed: int, names: Sequence[str], public: bool) -> None:
        with self._lock:
            self.matches[match_id] = LiveMatch(match_id, tournament, seed, list(names), public)
            self._publish("board", True)

    def played(self, match_id: str, play: dict[str, Any]) -> None:
        with self._lock:
            m = self.matches.get(match_id)
            if m is None or len(m.plays) >= MAX_PLAYS:
                return
            m.plays.append(play)
            self._publish("play", m.public, {"type": "play", "match": match_id, "play": play})

    def scored(self, match_id: str, hand: dict[str, Any]) -> None:
        with self._lock:
            m = self.matches.get(match_id)
            if m is None:
                return
            m.hands.append(hand)
            self._publish("hand", m.public, {"type": "hand", "match": match_id, "hand": hand})

    def show(self, match_id: str) -> None:
        """Its deal's other seatings are recorded: its plays so far, and from now on, to everyone."""
        with self._lock:
            m = self.matches.get(match_id)
            if m is None or m.public:
                return
            m.public = True
            data = {"type": "shown", "match": match_id, "plays": list(m.plays), "hands": list(m.hands)}
            self._publish("shown", True, data)

    def ended(self, match_id: str) -> None:
        """Recorded (its record is the match page's now), or never to be (a batch stopped)."""
        with self._lock:
            self.matches.pop(match_id, None)
            self._publish("board", True)

    def changed(self) -> None:
        """The matches listed as in play changed (a batch began or ended)."""
        with self._lock:
            self._publish("board", True)

    def clear(self) -> None:
        """The batch is over: a match still here was stopped, and stays to be played."""
        with self._lock:
            self.matches.clear()
            self._publish("board", True)

    def in_play(self) -> list[LiveMatch]:
        """The matches in play, as they are now (copies: the worker goes on meanwhile)."""
        with self._lock:
            return [
                LiveMatch(m.id, m.tournament, m.seed, list(m.names), m.public, list(m.plays), list(m.hands))
                for m in self.matches.values()
            ]

    # -- the streams' side -------------------------------------------------------------------------

    def subscribe(self, *, organiser: bool, address: str, after: str | None = None) -> Subscriber | None:
        """A new stream, or None when there are too many. ``after``: the last event id the page had;
        what it missed (that it may see) is queued when the ring still holds it, else it gets the board."""
        loop = asyncio.get_running_loop()
        with self._lock:
            if len(self.subscribers) >= MAX_SUBSCRIBERS:
                return None
            if sum(s.address == address for s in self.subscribers) >= MAX_PER_ADDRESS:
                return None
            sub = Subscriber(organiser=organiser, address=address, loop=loop)
            seq = self._seq_of(after)
            if seq is not None and (seq == self.seq or (self.ring and self.ring[0].seq <= seq + 1)):
                missed = [e for e in self.ring if e.seq > seq and sub.may_see(e)]
                if len(missed) < QUEUE:
                    sub.queue.extend(missed)
                    sub.lagged = False
            self.subscribers.add(sub)
            return sub

    def _seq_of(self, event_id: str | None) -> int | None:
        if not event_id or len(event_id) > 40:
            return None
        epoch, _, seq = event_id.partition(".")
        if epoch != self.epoch or not seq.isdigit():
            return None
        n = int(seq)
        return n if n <= self.seq else None

    def room(self, address: str) -> bool:
        """Whether a stream from ``address`` would be taken now."""
        with self._lock:
            mine = sum(s.address == address for s in self.subscribers)
            return len(self.subscribers) < MAX_SUBSCRIBERS and mine < MAX_PER_ADDRESS

    def unsubscribe(self, sub: Subscriber) -> None:
        with self._lock:
            self.subscribers.discard(sub)

    def take(self, sub: Subscriber) -> tuple[list[Event], bool, int]:
        """What the stream has waiting: its events, whether it owes the board afresh, the current seq."""
        with self._lock:
            events = list(sub.queue)
            sub.queue.clear()
            lagged, sub.lagged = sub.lagged, False
            sub.woken = False
            sub.wake.clear()
            return events, lagged, self.seq

    async def board(
        self, viewer: tuple[int, str], seq: int, render: Callable[[], Awaitable[dict[str, Any]]]
    ) -> dict[str, Any]:
        """The board for a viewer at ``seq``: rendered once for all the streams of one viewer (all
        visitors are one) while nothing changed, and at most a second old."""
        hit = self._boards.get(viewer)
        if hit is not None and hit[0] == seq and time.monotonic() - hit[1] < 1.0:
            return hit[2]
        data = await render()
        if len(self._boards) >= MAX_SUBSCRIBERS:
            self._boards.clear()
        self._boards[viewer] = (seq, time.monotonic(), data)
        return data

    def event_id(self, seq: int) -> str:
        return f"{self.epoch}.{seq}"


class LiveWatcher:
    """The referee's watcher of the worker's matches: publishes to ``hub``; ``public`` says whether
    a deal's other seatings are all recorded (the worker's store answers it)."""

    def __init__(self, hub: LiveHub, public: Callable[[int | None, int], bool]) -> None:
        self.hub = hub
        self.public = public

    def began(self, record: MatchRecord, names: Sequence[str]) -> None:
        shown = self.public(record.tournament_id, record.seed)
        self.hub.began(record.match_id, record.tournament_id, record.seed, names, shown)

    def played(self, record: MatchRecord, trick: Trick | None) -> None:
        p = record.plays[-1]
        play: dict[str, Any] = {
            "n": len(record.plays) - 1,  # its place in the record's plays: a page takes each once
            "hand": p.hand,
            "trick": p.trick,
            "seat": p.seat,
            "card": p.card,
            "substituted": p.substituted,
            "won_by": trick.winner if trick is not None else None,  # the engine's: the trick it completed
        }
        self.hub.played(record.match_id, play)

    def scored(self, record: MatchRecord) -> None:
        h = record.hands[-1]
        hand = {
            "hand": h.hand,
            "points_taken": list(h.points_taken),
            "score": list(h.score),
            "totals": list(h.totals),
            "moon": h.moon,
            "sun": h.sun,
        }
        self.hub.scored(record.match_id, hand)

    def recorded(self, match_id: str) -> None:
        """A match was recorded: it leaves the hub, and the matches whose deal it was the last other
        seating of are shown to everyone."""
        self.hub.ended(match_id)
        for m in self.hub.in_play():
            if not m.public and self.public(m.tournament, m.seed):
                self.hub.show(m.id)


def _message(event_id: str, data: dict[str, Any]) -> bytes:
    return b"id: %s\ndata: %s\n\n" % (event_id.encode(), json.dumps(data, separators=(",", ":")).encode())


async def stream(
    hub: LiveHub,
    board: Callable[[int], Awaitable[dict[str, Any]]],
    *,
    organiser: bool,
    address: str,
    after: str | None = None,
    keepalive: float = KEEPALIVE_S,
    lifetime: float = STREAM_S,
    plays: bool = True,
) -> AsyncIterator[bytes]:
    """One viewer's server-sent events: the board (``board(seq)``: the live page's data for this
    viewer) first and whenever the matches change, each play and scored hand it may see in between
    (with ``plays``; without, the board alone: the leaderboard's stream). Each message is one
    ``data:`` line of JSON with its ``id:``. Subscribed here, so that a stream is counted exactly
    while it runs (a response never started holds nothing); ends at once when the hub is full."""
    sub = hub.subscribe(organiser=organiser, address=address, after=after)
    if sub is None:
        yield b": too many pages follow the live matches\n\n"
        return
    try:
        yield b"retry: 2000\n\n"
        ends = time.monotonic() + lifetime
        last_board = 0.0
        owed = False
        resync = False  # a new stream, or one that fell behind: nothing but the board until it is sent
        while time.monotonic() < ends:
            events, lagged, seq = hub.take(sub)
            owed = owed or lagged
            resync = resync or lagged
            # A stream owing the board afresh sends no play before it: the board holds every play up
            # to ``seq``, and a play sent first would reach a page that lacks the ones before it.
            out = (
                []
                if resync or not plays
                else [_message(hub.event_id(e.seq), e.data) for e in events if e.data is not None]
            )
            owed = owed or any(e.kind == "board" for e in events)
            if out:
                yield b"".join(out)
            wait = keepalive
            if owed:
                wait = last_board + BOARD_EVERY_S - time.monotonic()
                if wait <= 0:
                    owed = resync = False
                    last_board = time.monotonic()
                    # Read after the events taken: a play in both is taken once by the page (its "n").
                    yield _message(hub.event_id(seq), {"type": "board", **(await board(seq))})
                    continue
            if out:
                continue
            try:
                await asyncio.wait_for(sub.wake.wait(), max(0.0, min(wait, ends - time.monotonic())))
            except TimeoutError:
                if not owed:
                    yield b": still here\n\n"
    finally:
        hub.unsubscribe(sub)
