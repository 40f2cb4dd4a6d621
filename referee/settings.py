"""A match's settings (its time control and fault policy), a bot's own time control, and the clock
each seat keeps under them.

A module of their own, importing nothing of the referee's, so that every part of it may name them;
``referee.match`` offers them as its own, where a caller of ``play_match`` finds them.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
from collections.abc import Mapping
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


CLOCK_KEYS = ("budget_ms", "bank_ms", "grace_ms")
"""What a bot's own time control may give, in the order it is written."""

_EXAMPLE = "budget_ms=200,bank_ms=1000"


class TimeControlError(ValueError):
    """A time control that cannot be used: which key, and what it takes."""


@dataclass(frozen=True)
class TimeControl:
    """One bot's own clock: any of its budget, bank and grace, in milliseconds; what it leaves out
    (None) is the match's. Written ``budget_ms=200,bank_ms=1000``: ``parse`` reads what ``str`` writes.

    Checked as the command line checks the match's clock: a budget above 0, a bank and a grace of 0 or
    more, all finite and below 2^32 (the protocol carries them as uint32); at least one given."""

    budget_ms: float | None = None
    bank_ms: float | None = None
    grace_ms: float | None = None

    def __post_init__(self) -> None:
        for name in CLOCK_KEYS:
            value = getattr(self, name)
            if value is None:
                continue
            # A bots file or a stored tournament is text anyone may have written: a bool, a string,
            # a NaN or an infinity is refused here, not met by the referee mid-match.
            # (An int is compared as it is: one too large for a float must not raise OverflowError.)
            number = isinstance(value, int | float) and not isinstance(value, bool)
            finite = number and (isinstance(value, int) or math.isfinite(value))
            if not (finite and (0 < value if name == "budget_ms" else 0 <= value) and value < 2**32):
                least = "above 0" if name == "budget_ms" else "0 or more"
                raise TimeControlError(
                    f"{name} must be a number of milliseconds, {least} and below 2^32 "
                    f"(e.g. {name}={200 if name == 'budget_ms' else 0}), not {repr(value)[:40]}"
                )
            object.__setattr__(self, name, float(value))
        if all(getattr(self, name) is None for name in CLOCK_KEYS):
            raise TimeControlError(f"a time control gives at least one of {', '.join(CLOCK_KEYS)} (e.g. {_EXAMPLE})")

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """``"budget_ms=200,bank_ms=1000"`` as a time control; ``TimeControlError`` saying what to write."""
        parts = [p.strip() for p in text.split(",")]
        if not text.strip() or not all(parts):
            raise TimeControlError(
                f"time control {text!r}: write KEY=MS pairs separated by commas, keys "
                f"{', '.join(CLOCK_KEYS)} (e.g. {_EXAMPLE})"
            )
        given: dict[str, float] = {}
        for part in parts:
            key, sep, value = (x.strip() for x in part.partition("="))
            if not sep:
                raise TimeControlError(f"time control {text!r}: {part!r} is not KEY=MS (e.g. {_EXAMPLE})")
            if key not in CLOCK_KEYS:
                close = difflib.get_close_matches(key.replace("-", "_"), CLOCK_KEYS, n=1)
                guess = f"did you mean {close[0]}? " if close else ""
                raise TimeControlError(
                    f"time control {text!r}: unknown key {key!r}; {guess}the keys are {', '.join(CLOCK_KEYS)}"
                )
            if key in given:
                raise TimeControlError(f"time control {text!r}: {key} is given twice")
            try:
                given[key] = float(value)
            except ValueError:
                raise TimeControlError(
                    f"time control {text!r}: {key}={value!r} is no number of milliseconds (e.g. {key}=200)"
                ) from None
        try:
            return cls(**given)
        except TimeControlError as e:
            raise TimeControlError(f"time control {text!r}: {e}") from None

    def __str__(self) -> str:
        return ",".join(f"{k}={ms_text(v)}" for k, v in self.to_dict().items())

    def to_dict(self) -> dict[str, float]:
        """The keys it gives, in ``CLOCK_KEYS`` order (what a bots file says)."""
        return {k: v for k in CLOCK_KEYS if (v := getattr(self, k)) is not None}

    @classmethod
    def from_dict(cls, data: Mapping[str, object], source: str = "time control") -> TimeControl:
        """A time control from ``data``'s keys; ``TimeControlError`` naming an unknown key or a bad value."""
        unknown = sorted(set(data) - set(CLOCK_KEYS))
        if unknown:
            raise TimeControlError(f"{source}: unknown key(s) {', '.join(unknown)} (known: {', '.join(CLOCK_KEYS)})")
        try:
            return cls(**data)  # type: ignore[arg-type]  # checked in __post_init__
        except TimeControlError as e:
            raise TimeControlError(f"{source}: {e}") from None

    def over(self, settings: MatchSettings) -> MatchSettings:
        """``settings`` with this time control's keys in place of the match's."""
        return dataclasses.replace(
            settings,
            budget_ms=settings.budget_ms if self.budget_ms is None else self.budget_ms,
            bank_ms=settings.bank_ms if self.bank_ms is None else self.bank_ms,
            grace_ms=settings.grace_ms if self.grace_ms is None else self.grace_ms,
        )


def ms_text(value: float) -> str:
    """Milliseconds as written: whole ones without a point, others in the digits that read back the same."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


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
