"""The record of one match: plain dataclasses, no I/O.

The referee returns a ``MatchRecord``; ``ladder.store`` writes it to SQLite and reads it back.
Cards are kept as text (``"QS"``, ``"10H"``) so that a record is readable as it stands, survives
JSON and SQLite unchanged, and parses back with ``Card.parse``. A seat's ``isolation`` (what guarded
its bot) is a ``referee.isolation.Isolation``, kept as its text too (``str``; ``Isolation.parse``).

In a notebook a record shows itself as HTML (``MatchRecord._repr_html_``) with the view a layer above
registers (``show_html_with``): the referee draws no HTML and imports nothing of the ladder's.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from referee.isolation import Isolation


def utc_now() -> str:
    """Now, as every record and table of the project writes a time: ISO 8601, UTC, to the millisecond."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class FaultKind(str, enum.Enum):
    """What went wrong with one decision. The value is what the store and the docs show."""

    TIMEOUT = "timeout"  # no answer within budget + bank + grace
    TRANSPORT = "transport"  # the bot could not be reached (UNAVAILABLE, reset, dead process)
    ERROR_STATUS = "error_status"  # the bot answered with an error status (it raised)
    MALFORMED = "malformed"  # CARD_UNSPECIFIED, an unknown enum value, an undecodable reply
    ILLEGAL_CARD = "illegal_card"  # a card the bot holds but the rules forbid now
    CARD_NOT_HELD = "card_not_held"  # a card not in the seat's hand
    WRONG_PASS_COUNT = "wrong_pass_count"  # not exactly pass_count cards
    REPEATED_PASS_CARD = "repeated_pass_card"  # the same card twice in one pass
    OVERSIZED = "oversized"  # a reply larger than the referee's receive limit
    WRONG_DISCARD = "wrong_discard"  # kitty_discard: not as many distinct cards as the kitty held
    WRONG_CALL = "wrong_call"  # pass_cycle call: the dealer's call is no pass (see rules.pass_call)
    WRONG_CHARGE = "wrong_charge"  # turbo_charging: a card not A♥ Q♠ J♦ 10♣, twice, or more than allowed
    RESOURCE_LIMIT = "resource_limit"  # a sandboxed bot was stopped at a limit (the detail names it)
    IMPERSONATION = "impersonation"  # the seat's socket was served by a process not started for the seat


class NoteKind(str, enum.Enum):
    """What a note records: something the referee did for a seat that is no fault. The value is what the
    store and the docs show."""

    UNIMPLEMENTED = "unimplemented"  # an optional RPC the bot does not implement: its do-nothing answer stood


class ForfeitReason(str, enum.Enum):
    """Why a bot forfeited a match. The value is what the store keeps; the fault records say the rest."""

    UNREACHABLE = "unreachable"  # a transport fault: the bot could not be reached, so it cannot come back
    FAULTS = "faults"  # as many faults as the match's fault limit
    RESOURCE_LIMIT = "resource_limit"  # stopped at a resource limit of its sandbox: it cannot come back this match
    IMPERSONATION = "impersonation"  # another process served its seat: nothing it answers can count


class MatchStatus(str, enum.Enum):
    FINISHED = "finished"  # played to the end (forfeits included: a match always completes)
    ABORTED = "aborted"  # stopped by the operator or a referee crash; not produced by play_match


@dataclass
class SeatRecord:
    """One seat of a match and how it ended."""

    seat: int
    bot: str  # the bot's name in the ladder (the ``bots`` table)
    final_score: int = 0
    place: int = 0  # 1 is best; ties share a place; a forfeiter places last
    faults: int = 0
    forfeit: bool = False
    forfeit_reason: ForfeitReason | None = None
    address: str | None = None  # where the bot was served (None for an in-process seat)
    time_bank_left_ms: float | None = None
    team: int | None = None  # under rules.partnership: 0 (seats 0 and 2) or 1 (seats 1 and 3); None without
    isolation: Isolation | None = None  # what guarded the bot (its seat says); None: unknown, as in older stores
    kind: str = "bot"  # who sat there: "bot", or "human" (a person at the table, never rated with the bots)
    # The clock the seat played under (its own, or the match's): None where unknown, as in older stores.
    budget_ms: float | None = None
    bank_ms: float | None = None  # the bank it started with; ``time_bank_left_ms`` is what was left
    grace_ms: float | None = None


@dataclass(slots=True)  # one per decision: no __dict__ each
class PassRecord:
    hand: int
    seat: int
    cards: tuple[str, ...]  # in the order given (it matters for a scatter pass)
    latency_ms: float | None = None  # None when no bot was asked (a forfeited seat)
    substituted: bool = False


@dataclass(slots=True)  # one per decision: no __dict__ each
class ChargeRecord:
    """A seat's turbo-charge (turbo_charging): the cards it placed face up, none or more."""

    hand: int
    seat: int
    cards: tuple[str, ...]
    latency_ms: float | None = None  # None when no bot was asked (a forfeited seat)
    substituted: bool = False


@dataclass(slots=True)  # one per decision: no __dict__ each
class PlayRecord:
    hand: int
    trick: int  # from 0 within the hand
    seat: int
    card: str
    latency_ms: float | None = None
    substituted: bool = False


@dataclass
class HandRecord:
    hand: int
    pass_direction: str
    dealer: int
    deal: tuple[tuple[str, ...], ...]  # each seat's cards as dealt, before the pass
    kitty: tuple[str, ...] = ()
    passes: list[PassRecord] = field(default_factory=list)
    points_taken: tuple[int, ...] = ()  # points of the cards each seat captured
    score: tuple[int, ...] = ()  # what the hand added to each total
    totals: tuple[int, ...] = ()  # the totals after the hand
    moon: int | None = None  # the seat that shot the moon
    sun: int | None = None  # the seat that shot the sun
    moon_choice: str | None = None  # how the moon (or sun) scored, when one was shot
    moon_choice_substituted: bool = False
    moon_choice_latency_ms: float | None = None
    discard_seat: int | None = None  # kitty_discard: the kitty's taker, once it has discarded
    discard: tuple[str, ...] = ()  # what it discarded face down into its tricks
    discard_substituted: bool = False
    discard_latency_ms: float | None = None
    pass_call: str | None = None  # pass_cycle call: the dealer's call ("left", "mix", "1 1 3" for a split)
    pass_call_substituted: bool = False
    pass_call_latency_ms: float | None = None
    charges: list[ChargeRecord] = field(default_factory=list)  # turbo_charging: each seat's, in seat order


@dataclass
class FaultRecord:
    """One fault: where, who, what, and what the referee did instead."""

    hand: int | None  # None for a fault at the handshake
    trick: int | None  # None outside trick play (a pass, a moon choice, the handshake)
    seat: int
    kind: FaultKind
    detail: str
    sent: str  # a compact text form of the request
    received: str  # what came back (the reply, or the status and its message)
    action: str  # what the referee did instead


@dataclass
class NoteRecord:
    """Something worth knowing about a seat that is no fault, recorded once per match where it first happened."""

    hand: int | None  # the hand it first happened in
    seat: int
    kind: NoteKind
    detail: str  # what happened and what the referee did, in a line


@dataclass
class MatchRecord:
    match_id: str
    seed: int
    rules: dict[str, Any]  # Rules.to_dict(); Rules.from_dict rebuilds them
    seats: list[SeatRecord]
    status: MatchStatus = MatchStatus.FINISHED
    started_at: str = ""  # ISO 8601, UTC
    finished_at: str | None = None
    winners: tuple[int, ...] = ()
    hands: list[HandRecord] = field(default_factory=list)
    plays: list[PlayRecord] = field(default_factory=list)
    faults: list[FaultRecord] = field(default_factory=list)
    tournament_id: int | None = None
    notes: list[NoteRecord] = field(default_factory=list)  # in the order they happened

    @property
    def bots(self) -> list[str]:
        return [s.bot for s in self.seats]

    @property
    def scores(self) -> list[int]:
        return [s.final_score for s in self.seats]

    def decisions(self) -> dict[str, Any]:
        """Everything the seed, the rules and the bots decide: the record without ids, clocks,
        latencies or where and how the bots ran. Two runs of the same seed, rules and deterministic
        bots give equal decisions."""
        d = dataclasses.asdict(self)
        for k in ("match_id", "started_at", "finished_at", "tournament_id"):
            d.pop(k)
        for s in d["seats"]:
            for clock in ("time_bank_left_ms", "budget_ms", "bank_ms", "grace_ms"):
                s.pop(clock)
            s.pop("address")
            s.pop("isolation")
        for h in d["hands"]:
            for latency in ("moon_choice_latency_ms", "discard_latency_ms", "pass_call_latency_ms"):
                h.pop(latency)
            for p in h["passes"]:
                p.pop("latency_ms")
            for c in h["charges"]:
                c.pop("latency_ms")
        for p in d["plays"]:
            p.pop("latency_ms")
        return d

    def _repr_html_(self) -> str | None:
        """The record as HTML, for a notebook (Jupyter asks it of every value it shows): drawn by the view
        registered with ``show_html_with`` (``ladder.notebook`` registers its own when imported: the
        results table and the site's replay viewer). None without one: Jupyter shows the text instead."""
        return _html_view[0](self) if _html_view else None

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        """The record's text in IPython, in one line: the whole dataclass repr is every card played."""
        seats = ", ".join(f"{s.bot!r} {s.final_score}" for s in self.seats)
        status = MatchStatus(self.status).value
        printer.text(f"<MatchRecord {self.match_id} seed {self.seed}, {len(self.hands)} hands, {status}: {seats}>")


_html_view: list[Callable[[MatchRecord], str]] = []


def show_html_with(view: Callable[[MatchRecord], str] | None) -> None:
    """Draw every record with ``view`` where a notebook shows it as HTML (``MatchRecord._repr_html_``);
    None: with none. A layer above the referee registers it (``ladder.notebook``, when imported), so the
    referee never imports what draws it. ``view`` must escape every name and text a bot sent."""
    _html_view[:] = [view] if view is not None else []
