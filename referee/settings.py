"""A match's settings (its time control and fault policy) and the clock each seat keeps under them.

A module of their own, importing nothing of the referee's, so that every part of it may name them;
``referee.match`` offers both as its own, where a caller of ``play_match`` finds them.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_FAULTS = 3
"""Faults after which a bot forfeits the match."""


@dataclass(frozen=True)
class MatchSettings:
    """Time control and fault policy of a match. Times in milliseconds."""

    budget_ms: float = 1000.0  # what one decision may take without touching the bank
    bank_ms: float = 10000.0  # per seat per match, drawn on when a decision runs over budget
    grace_ms: float = 50.0  # network and scheduling slack on every decision, never charged
    max_faults: int = MAX_FAULTS  # faults after which a bot forfeits
    handshake_ms: float = 5000.0  # the deadline of the handshake at the start of a match
    notify_ms: float = 500.0  # the deadline of a notification (a miss is never a fault)

    def __post_init__(self) -> None:
        # Checked here, not only at the command line: a NaN stored with a tournament would fail
        # every later resume the same way, and an infinite deadline never ends a silent bot's call.
        for name in ("budget_ms", "bank_ms", "grace_ms", "handshake_ms", "notify_ms"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 2**32:
                raise ValueError(f"{name} must be a finite number of milliseconds from 0 to below 2^32, not {value!r}")
        if isinstance(self.max_faults, bool) or not isinstance(self.max_faults, int) or self.max_faults < 1:
            raise ValueError(f"max_faults must be a whole number from 1, not {self.max_faults!r}")


class Clock:
    """One seat's clock in one match.

    A decision may take ``budget + grace`` for free; beyond that the excess is drawn from the
    bank; a decision that would overdraw the bank is a timeout (the RPC deadline is set to that
    very point: budget + bank left + grace), and the bank is then empty.
    """

    __slots__ = ("bank", "budget", "grace")

    def __init__(self, settings: MatchSettings) -> None:
        self.budget = settings.budget_ms / 1000
        self.bank = settings.bank_ms / 1000
        self.grace = settings.grace_ms / 1000

    def deadline(self) -> float:
        """Seconds the next decision may take in all."""
        return self.budget + self.bank + self.grace

    def charge(self, elapsed: float) -> bool:
        """Charge a decision that took ``elapsed`` seconds; False when it ran out of time."""
        over = elapsed - self.budget - self.grace
        if over <= 0:
            return True
        if over > self.bank:
            self.bank = 0.0
            return False
        self.bank -= over
        return True
