"""The arena's tables: a person plays the arena's bots at ``/play`` (the routes are in routes.py).

Each table is a ``hearts play`` table of one person (``ladder.table``: its ``Table``, its seat's
events, its match ``play_and_record``), played on the arena's own event loop, the one its pages are
served from, so the person's seat, its stream and its answers share one loop. The opponents are the
house bots or any bot of the ladder with a valid version, the person's own included
(``views.table_opponents``: each by the name the person sees, an alias while an anonymous arena hides
names), started as the arena's worker starts them for the ladder: the entry of each one's newest
valid version (``worker.bot_entry``) through the launcher in the worker's mode (``worker.play_mode``),
a process of their own for each table. The live page follows each table's match as it follows the
ladder's (``TableWatcher``).

The match is recorded in the arena's store outside any tournament, with the person's seat of kind
``human``: the ladder's leaderboards fit one tournament each and leave out every match with a person,
its scheduling counts its own tournament's matches, and the final is a tournament of its own, so
such a match is never rated, scheduled by or counted in the final.

Bounds: one table per person at a time, ``[play] tables`` at once in all. A table nobody starts closes
after ``START_S``; in play, each decision has a clock (``DECISION_S``) and a person who lets
``MISSES`` decisions in a row run out counts as away (the referee's substitute plays at once) until
they act again, as one whose page is closed does (``referee.human``): a table left alone completes.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ladder.arena.accounts import Account
from ladder.arena.hosted_address import AddressRefused, pin
from ladder.arena.live import LiveHub, LiveWatcher
from ladder.arena.state import ArenaState
from ladder.arena.views import table_opponents
from ladder.arena.worker import bot_entry, checked_address, play_mode, settings_of
from ladder.table.session import Sitting, play_and_record
from ladder.table.table import Table
from referee.human import HumanSeat
from referee.record import MatchRecord
from referee.rules import Rules
from referee.seats import Ask, BotTimeout
from referee.settings import MatchSettings

__all__ = ["ArenaSeat", "PlayTable", "TableRefused", "Tables", "table_rules"]

log = logging.getLogger("arena")

DECISION_S = 60.0
"""A person's clock for each decision at an arena table: a page left open does not hold the bots."""
MISSES = 2
"""Decisions in a row a person lets run out before they count as away."""
HOLD_S = 120.0
"""The longest a person holds the next deal while reading the scores."""
START_S = 300.0
"""A table nobody starts within this closes."""
KEPT_S = 60.0
"""A finished table is kept this long, for its page to receive its last events (then it is gone)."""
STARTUP_S = 20.0
"""How long a house bot may take to start."""


class TableRefused(Exception):
    """No table for this person now: ``status`` (HTTP) and the reason in words."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class ArenaSeat(HumanSeat):
    """A person at an arena table: ``hearts play``'s seat with a clock on each decision, the deal
    held at most ``HOLD_S``, and away after ``MISSES`` decisions in a row ran out, until a page of
    theirs opens again or they act (``back``)."""

    def __init__(self, name: str) -> None:
        super().__init__(name, time_control=MatchSettings(budget_ms=DECISION_S * 1000, bank_ms=0))
        self.missed = 0

    def back(self) -> None:
        """The person acted (an answer, a start, a deal): they are at the table again."""
        self.missed = 0

    def join(self) -> None:
        self.missed = 0
        super().join()

    def _away_left(self) -> float | None:
        if self.missed >= MISSES:
            return 0.0
        return super()._away_left()

    async def _decide(self, kind: Any, ask: Ask, timeout: float) -> Any:
        try:
            answer = await super()._decide(kind, ask, timeout)
        except BotTimeout:
            self.missed += 1
            raise
        self.missed = 0
        return answer

    async def hold_deal(self, hand_number: int, timeout: float) -> None:
        await super().hold_deal(hand_number, min(timeout, HOLD_S))


@dataclass
class PlayTable:
    """One person's table: its id (in its address), whose it is (``owner``: a participant's id or a
    guest's browser), the person's seat and ``hearts play``'s table around it."""

    id: str
    owner: str
    seat: ArenaSeat
    table: Table
    opponents: list[str]
    rules: str
    task: asyncio.Task[None] | None = None
    done: bool = False
    ended: float = 0.0
    live: TableWatcher | None = None

    def watcher(self, state: ArenaState) -> TableWatcher:
        """What the referee tells of this table's match: the arena's live page shows it as it is played."""
        self.live = TableWatcher(state.hub)
        return self.live


class TableWatcher(LiveWatcher):
    """The live page's watcher of a table's match: always public (it deals no duplicate of a ladder
    deal), and gone from the page when the table closes, recorded or not."""

    def __init__(self, hub: LiveHub) -> None:
        super().__init__(hub, lambda _tournament, _seed: True)
        self.match_id: str | None = None

    def began(self, record: MatchRecord, names: Sequence[str]) -> None:
        self.match_id = record.match_id
        super().began(record, names)

    def gone(self) -> None:
        if self.match_id is not None:
            self.hub.ended(self.match_id)
            self.match_id = None


def table_rules(state: ArenaState) -> Rules:
    """The ladder's ruleset, with ``[play] target`` when it is set."""
    rules = Rules.parse(state.cfg.rules)
    return rules.replace(target=state.cfg.play_target) if state.cfg.play_target else rules


class Tables:
    """The arena's tables, by id: at most one open per owner, ``[play] tables`` open in all."""

    def __init__(self) -> None:
        self.by_id: dict[str, PlayTable] = {}

    def _forget_old(self) -> None:
        now = time.monotonic()
        for tid in [t.id for t in self.by_id.values() if t.done and now - t.ended > KEPT_S]:
            del self.by_id[tid]

    def open_tables(self) -> list[PlayTable]:
        self._forget_old()
        return [t for t in self.by_id.values() if not t.done]

    def of(self, owner: str) -> PlayTable | None:
        """The owner's open table, if any."""
        return next((t for t in self.open_tables() if t.owner == owner), None)

    def get(self, table_id: str, owner: str) -> PlayTable | None:
        """Table ``table_id`` if it is ``owner``'s (another's is as good as none)."""
        self._forget_old()
        t = self.by_id.get(table_id)
        return t if t is not None and secrets.compare_digest(t.owner, owner) else None

    async def open(self, state: ArenaState, owner: str, name: str, opponents: list[str], viewer: Account) -> PlayTable:
        """Seat ``name`` against ``opponents`` (bots by the names ``viewer`` sees them by, in seat order
        after the person: ``views.table_opponents``) and start the sitting; ``TableRefused`` when this
        owner has a table, all are taken, or the opponents are not bots a table of this ruleset may seat
        (a participant's hosted bot is reached only at the address its name resolves to now, checked
        as the ladder checks it: never this machine)."""
        if self.of(owner) is not None:
            raise TableRefused(409, "you have a table already: finish that match (or leave it) first")
        if len(self.open_tables()) >= state.cfg.play_tables:
            raise TableRefused(503, "every table is taken: try again in a few minutes")
        rules = table_rules(state)
        by_name = {shown["name"]: v for shown, v in table_opponents(state, viewer)}
        if len(opponents) != rules.players - 1:
            raise TableRefused(400, f"choose {rules.players - 1} opponents")
        if len(set(opponents)) != len(opponents) or any(o not in by_name for o in opponents):
            raise TableRefused(400, "choose different bots, each from the list")
        entries = []
        for o in opponents:
            v = by_name[o]
            entry = bot_entry(v, state.cfg)
            if checked_address(state.store, state.cfg, v):
                assert v.address is not None
                try:
                    literal = await asyncio.to_thread(pin, v.address, resolve=state.resolve)
                except AddressRefused:
                    raise TableRefused(400, f"{o} cannot be reached from this arena now: choose another") from None
                entry = dataclasses.replace(entry, address=literal)
            entries.append(entry)
        # Checked again: while an address was checked, another request may have taken a table.
        if self.of(owner) is not None:
            raise TableRefused(409, "you have a table already: finish that match (or leave it) first")
        if len(self.open_tables()) >= state.cfg.play_tables:
            raise TableRefused(503, "every table is taken: try again in a few minutes")
        seat = ArenaSeat(name)
        t = PlayTable(
            id=secrets.token_urlsafe(12),
            owner=owner,
            seat=seat,
            table=Table(seat),
            opponents=opponents,
            rules=str(rules),
        )
        sitting = Sitting(
            entries=entries,
            person_seats=[0],
            rules=rules,
            seed=secrets.randbits(62),
            table=t.table,
            db=str(state.dir / "arena.db"),
            settings=settings_of(state.cfg),
            log_dir=state.dir / "logs" / "play",
            startup_timeout=STARTUP_S,
            sandbox=play_mode(),
            told=lambda match_id: {"match_id": match_id, "url": f"/matches/{match_id}"},
            shown=list(opponents),  # as this person sees them: an anonymous arena's rivals by alias
            watcher=t.watcher(state),
        )
        self.by_id[t.id] = t
        t.task = asyncio.get_running_loop().create_task(self._sit(state, t, sitting))
        return t

    async def _sit(self, state: ArenaState, t: PlayTable, sitting: Sitting) -> None:
        play = asyncio.ensure_future(play_and_record(sitting))
        started = asyncio.ensure_future(t.table.start.wait())
        try:
            either: set[asyncio.Future[Any]] = {play, started}
            await asyncio.wait(either, timeout=START_S, return_when=asyncio.FIRST_COMPLETED)
            if not started.done() and not play.done():
                play.cancel()  # nobody started it: nothing is recorded
            with contextlib.suppress(asyncio.CancelledError):
                await play
        except Exception as e:  # a house bot that would not start, the store: said, and the table closes
            log.exception("a table of %s", t.seat.name)
            if state.worker is not None:
                state.worker.events.append(f"a /play table could not be played: {e}")
        finally:
            if t.live is not None:
                t.live.gone()  # recorded or not, it is no longer in play
            started.cancel()
            if not play.done():  # the arena stops under it: its bots are stopped before it goes
                play.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await play
            t.table.close()
            t.done = True
            t.ended = time.monotonic()
