"""A participant asks their own bot again at a decision of a match it played (the site's match page,
``POST /api/matches/{id}/ask``): the step of ``ladder.ask``, rebuilt from the record with the names
the ladder told the bots (aliases while the arena is anonymous), sent to one of the participant's
valid versions of that bot, started as the ladder starts it (``start_bot``: the sandbox and the
arena's limits; a hosted bot at the address it resolves to, checked) and stopped after.

Guards, each because of what a view holds: only the owner of the bot that sat in the step's seat
asks it (a seat's view is that seat's hand, and it goes to the owner's bot); no match whose deal
other seatings still play (its cards would reach a bot before it plays them); one ask at a time in
the arena (each starts a process), the next refused with a word to try again."""

from __future__ import annotations

import asyncio
import dataclasses
from dataclasses import dataclass
from typing import Any

from ladder.arena.accounts import Account
from ladder.arena.errors import BadRequest, Forbidden, NotFound, NotNow, TooMany
from ladder.arena.hosted_address import AddressRefused, pin
from ladder.arena.state import ArenaState
from ladder.arena.store import ArenaStore, VersionRow, VersionStatus
from ladder.arena.worker import bot_entry, checked_address, play_mode, start_bot, told_names
from ladder.ask import (
    Step,
    answer_text,
    ask,
    decision_text,
    differs,
    greet,
    recorded_text,
    step_at,
    steps,
    verdict_text,
)
from ladder.bots.launcher import BotStartError, Launcher
from ladder.venues.here import launcher_seat
from referee.record import MatchRecord
from referee.rules import Phase
from referee.untrusted import inert

__all__ = ["SCHEMA", "Askable", "AskableStep", "ask_again", "askable"]

SCHEMA = "hearts-arena/ask"
VERSION = 1
LOG_FOLDER = "ask"
"""Where an asked bot's output goes, under the arena's logs/ (its owner reads it with the version's log)."""


@dataclass(frozen=True)
class AskableStep:
    """One decision the viewer may ask their bot again: ``step`` numbers it as ``hearts ask`` does;
    ``play`` counts the match's plays before it (a play's place in the replay), None for other decisions."""

    step: int
    seat: int
    hand: int
    trick: int | None
    what: str
    recorded: str
    latency_ms: float | None
    play: int | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "seat": self.seat,
            "hand": self.hand,
            "trick": self.trick,
            "decision": self.what,
            "recorded": self.recorded,
            "latency_ms": self.latency_ms,
        }


@dataclass(frozen=True)
class Askable:
    """What the viewer may ask of a match: their seats' decisions, and the versions of each seat's bot
    that may answer (valid ones, newest first)."""

    match_id: str
    steps: list[AskableStep]
    versions: dict[int, list[VersionRow]]  # seat -> its bot's valid versions

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": "hearts-arena/askable",
            "version": VERSION,
            "match": self.match_id,
            "seats": {
                str(seat): {"bot": vs[0].bot, "versions": [v.number for v in vs]}
                for seat, vs in sorted(self.versions.items())
                if vs
            },
            "steps": [s.to_dict() for s in self.steps],
        }


def _record(state: ArenaState, viewer: Account, match_id: str) -> MatchRecord:
    store = state.store
    if not store.ladder.has_match(match_id):
        raise NotFound(f"no match {match_id!r}")
    if store.ladder.deal_in_play(match_id):
        raise NotNow(
            f"match {match_id}'s deal is still to be played in other seats: a bot may be asked again once "
            "every seating of it is recorded"
        )
    return store.ladder.load_match(match_id)


def _own_seats(store: ArenaStore, viewer: Account, record: MatchRecord) -> dict[int, list[VersionRow]]:
    """The seats whose bot is one of the viewer's own (no house bot), each with that bot's valid
    versions, newest first."""
    bots = {b.id: b for b in store.bots()}
    versions = store.versions()
    by_name = {v.ladder_name: v for v in versions}
    out: dict[int, list[VersionRow]] = {}
    for seat, name in enumerate(record.bots):
        v = by_name.get(name)
        bot = bots.get(v.bot_id) if v is not None else None
        if v is None or bot is None or bot.house or bot.owner_id != viewer.id:
            continue
        valid = [w for w in versions if w.bot_id == v.bot_id and w.status is VersionStatus.VALID]
        out[seat] = sorted(valid, key=lambda w: -w.number)
    return out


def _told(store: ArenaStore, state: ArenaState, record: MatchRecord) -> list[str]:
    """The names the bots were told, in seat order: what the ladder tells them now (the aliases of
    an anonymous arena; once revealed, the names)."""
    shown = told_names(store, state.cfg)
    return [shown.get(name, name) for name in record.bots]


def askable(state: ArenaState, viewer: Account, match_id: str) -> Askable:
    """The decisions of ``match_id`` the viewer may ask their own bot again (run in a thread: it
    replays the match). ``Forbidden`` when no seat of the match is the viewer's bot."""
    record = _record(state, viewer, match_id)
    seats = _own_seats(state.store, viewer, record)
    if not seats:
        raise Forbidden(f"none of match {match_id}'s bots is yours: a bot is asked again by its owner")
    out: list[AskableStep] = []
    plays = 0
    for step in steps(record, _told(state.store, state, record)):
        play = plays if step.phase is Phase.PLAY else None
        plays += step.phase is Phase.PLAY
        if step.seat in seats and step.asked:
            out.append(
                AskableStep(
                    step.number,
                    step.seat,
                    step.hand,
                    step.trick,
                    step.what,
                    recorded_text(step),
                    step.latency_ms,
                    play,
                )
            )
    return Askable(record.match_id, out, seats)


@dataclass(frozen=True)
class _Chosen:
    step: Step
    version: VersionRow
    count: int


def _choose(state: ArenaState, viewer: Account, match_id: str, number: int, version: int | None) -> _Chosen:
    record = _record(state, viewer, match_id)
    seats = _own_seats(state.store, viewer, record)
    if not seats:
        raise Forbidden(f"none of match {match_id}'s bots is yours: a bot is asked again by its owner")
    step, count = step_at(record, number, _told(state.store, state, record))
    if step is None:
        raise BadRequest(f"match {match_id} has no step {number}: its steps are 0 to {count - 1}")
    if step.seat not in seats:
        raise Forbidden(
            f"step {number} is seat {step.seat}'s decision, and that seat's bot is not yours: you may ask "
            f"your own bot's decisions (seat {', '.join(map(str, sorted(seats)))})"
        )
    if not step.asked:
        raise BadRequest(f"step {number} was not asked of a bot: {step.not_asked}")
    valid = seats[step.seat]
    if not valid:
        raise NotNow(f"{record.bots[step.seat]}'s bot has no valid version now to ask")
    if version is None:
        return _Chosen(step, valid[0], count)
    chosen = next((v for v in valid if v.number == version), None)
    if chosen is None:
        numbers = ", ".join(str(v.number) for v in valid)
        raise BadRequest(f"{valid[0].bot} has no valid version {version}: ask one of {numbers}")
    return _Chosen(step, chosen, count)


async def ask_again(
    state: ArenaState, viewer: Account, match_id: str, number: int, version: int | None = None
) -> dict[str, Any]:
    """Ask step ``number`` of ``match_id`` of the viewer's bot (``version``, else its newest valid
    one): the answer beside the recorded one, judged by the referee's judge, with its latency."""
    chosen = await asyncio.to_thread(_choose, state, viewer, match_id, number, version)
    step, v = chosen.step, chosen.version
    entry = bot_entry(v, state.cfg)
    if checked_address(state.store, state.cfg, v):
        assert v.address is not None
        try:
            literal = await asyncio.to_thread(pin, v.address, resolve=state.resolve)
        except AddressRefused as e:
            raise BadRequest(str(e)) from None
        entry = dataclasses.replace(entry, address=literal)
    if state.asking.locked():
        raise TooMany("another bot is being asked on this arena right now: try again in a few seconds")
    async with state.asking:
        logs = state.dir / "logs" / LOG_FOLDER
        try:
            async with Launcher(
                logs, startup_timeout=state.cfg.limits.start_timeout_s, sandbox=play_mode()
            ) as launcher:
                address = await start_bot(launcher, entry)
                seat = launcher_seat(launcher, entry.name, address)
                try:
                    try:
                        hello = await greet(seat)
                    except Exception as e:
                        detail = getattr(e, "detail", None) or type(e).__name__
                        raise NotNow(f"{v.ladder_name} did not answer the handshake: {inert(detail, 300)}") from None
                    asked = await ask(seat, step)
                finally:
                    await seat.close()
        except BotStartError as e:
            raise NotNow(f"{v.ladder_name} did not start: {inert(e.reason, 300)}") from None
    return {
        "schema": SCHEMA,
        "version": VERSION,
        "match": match_id,
        "step": step.number,
        "steps": chosen.count,
        "seat": step.seat,
        "hand": step.hand,
        "trick": step.trick,
        "decision": step.what,
        "rpc": step.decision.rpc,
        "bot": v.ladder_name,
        "handshake_name": inert(hello.name, 80),
        "recorded": recorded_text(step),
        "recorded_latency_ms": step.latency_ms,
        "answer": answer_text(step, asked),
        "latency_ms": round(asked.latency_ms, 3),
        "judged": verdict_text(step, asked),
        "stands": asked.stands,
        "differs": differs(step, asked),
        "recorded_decision": decision_text(step, step.recorded),
    }
