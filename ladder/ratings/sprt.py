"""A sequential probability ratio test on paired differences: "is version B better than A?".

As fishtest and fastchess decide between two chess engines, but on the Hearts analogue of a game
pair: the difference of A's and B's points per hand on the same duplicate deal, in the same seats,
against the same opponents (``d = A − B``: positive when B takes fewer points). The test weighs
H0: mean d = ``h0`` against H1: mean d = ``h1`` (points per hand) and stops as soon as the evidence
allows, with error rates ``alpha`` (accepting H1 when H0 holds) and ``beta`` (accepting H0 when H1
holds).

The log-likelihood ratio is the normal approximation fishtest uses for its normalised SPRT, with the
variance estimated from the differences seen so far:

    LLR = n · (h1 − h0) · (2·mean − h0 − h1) / (2·var)

and Wald's bounds: accept H1 at LLR ≥ ln((1 − beta) / alpha), H0 at LLR ≤ ln(beta / (1 − alpha)).

The hypotheses are in points per hand (``scale="points"``), or in normalised Elo (``scale="nelo"``,
as fastchess's and fishtest's ``elo0``/``elo1``): the mean difference over its standard deviation,
times ``NELO_PER_SD`` (800 / ln 10, so that a small nelo reads like Elo). A test in nelo weighs the
same LLR with its hypotheses turned into points per hand by the current standard deviation
(``in_points``). ``SPRTSpec`` is a test as a person writes it (``elo0=0,elo1=5``, ``--sprt``).
Nothing here plays a match; ``tests/ladder/test_sprt.py`` checks the error rates on simulated data.
"""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass

__all__ = ["NELO_PER_SD", "SCALES", "SPRT", "SPRTError", "SPRTSpec", "Verdict"]

Verdict = str
"""``"H1"`` (B is better by at least h1), ``"H0"`` (not by more than h0), or ``"continue"``."""

_MIN_SAMPLES = 8  # a variance from fewer differences is too rough to stop on

NELO_PER_SD = 800 / math.log(10)
"""Normalised Elo per standard deviation of the paired difference: nelo = mean / sd · NELO_PER_SD."""

SCALES = ("points", "nelo")
"""What h0 and h1 are in: points per hand, or normalised Elo."""


class SPRTError(ValueError):
    """A test that cannot be run: its text, its hypotheses or its error rates, named."""


@dataclass
class SPRT:
    """The running test. ``add(d)`` each paired difference; ``verdict`` says whether to stop."""

    h0: float = 0.0
    h1: float = 0.5
    alpha: float = 0.05
    beta: float = 0.05
    scale: str = "points"  # or "nelo": h0 and h1 in normalised Elo
    n: int = 0
    _sum: float = 0.0
    _sum_sq: float = 0.0

    def __post_init__(self) -> None:
        _check(self.h0, self.h1, self.alpha, self.beta, self.scale)

    @property
    def lower(self) -> float:
        """The LLR at or below which H0 is accepted."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """The LLR at or above which H1 is accepted."""
        return math.log((1 - self.beta) / self.alpha)

    def add(self, difference: float) -> None:
        """One paired difference (A's points per hand minus B's on one deal)."""
        if not math.isfinite(difference):
            raise SPRTError(f"a paired difference must be a finite number, not {difference!r}")
        self.n += 1
        self._sum += difference
        self._sum_sq += difference * difference

    @property
    def mean(self) -> float:
        """The mean difference, points per hand (positive: B took fewer)."""
        return self._sum / self.n if self.n else 0.0

    @property
    def variance(self) -> float:
        """The sample variance of the differences (0 before two)."""
        if self.n < 2:
            return 0.0
        return max(0.0, (self._sum_sq - self.n * self.mean**2) / (self.n - 1))

    @property
    def sd(self) -> float:
        """The differences' sample standard deviation (0 before two)."""
        return math.sqrt(self.variance)

    @property
    def nelo(self) -> float:
        """The mean difference in normalised Elo: mean / sd · ``NELO_PER_SD`` (0 while sd is 0)."""
        sd = self.sd
        return self.mean / sd * NELO_PER_SD if sd > 0 else 0.0

    def in_points(self) -> tuple[float, float]:
        """H0 and H1 in points per hand: as given, or from normalised Elo by the current sd."""
        if self.scale == "points":
            return self.h0, self.h1
        sd = self.sd
        return self.h0 / NELO_PER_SD * sd, self.h1 / NELO_PER_SD * sd

    @property
    def llr(self) -> float:
        """The log-likelihood ratio of H1 against H0 so far (0 before a variance)."""
        var = self.variance
        if self.n < 2 or var == 0.0:
            return 0.0
        h0, h1 = self.in_points()
        return self.n * (h1 - h0) * (2 * self.mean - h0 - h1) / (2 * var)

    def interval(self, z: float = 1.959963984540054) -> tuple[float, float]:
        """The mean difference's 95% interval (normal), as far as the differences so far tell."""
        half = z * math.sqrt(self.variance / self.n) if self.n >= 2 else math.inf
        return self.mean - half, self.mean + half

    @property
    def verdict(self) -> Verdict:
        """``H1``, ``H0``, or ``continue`` (always before 8 differences)."""
        if self.n < _MIN_SAMPLES:
            return "continue"
        llr = self.llr
        if llr >= self.upper:
            return "H1"
        if llr <= self.lower:
            return "H0"
        return "continue"


def _check(h0: float, h1: float, alpha: float, beta: float, scale: str) -> None:
    if scale not in SCALES:
        raise SPRTError(f"the scale of h0 and h1 is points or nelo, not {scale!r}")
    if not all(math.isfinite(x) for x in (h0, h1)):
        raise SPRTError(f"h0 and h1 must be finite numbers, not {h0}, {h1}")
    if not (0 < alpha < 1 and 0 < beta < 1):
        raise SPRTError(f"alpha and beta are probabilities between 0 and 1, not {alpha}, {beta}")
    if not h1 > h0:
        raise SPRTError(f"h1 ({h1}) must be greater than h0 ({h0}): H1 says B is better by more")


def _num(x: float) -> str:
    """A number as short as reads back the same: ``0``, ``100``, ``0.05``, ``-2.5``."""
    return str(int(x)) if x.is_integer() and abs(x) < 1e15 else repr(x)


_KEYS = {"nelo": ("elo0", "elo1"), "points": ("h0", "h1")}
_ALL_KEYS = ("elo0", "elo1", "h0", "h1", "alpha", "beta")
_HOW = "elo0=E0,elo1=E1 (normalised Elo) or h0=P0,h1=P1 (points per hand), and optionally alpha=A,beta=B"


@dataclass(frozen=True)
class SPRTSpec:
    """A test as a person writes it: ``elo0=0,elo1=5`` (normalised Elo) or ``h0=0,h1=0.5`` (points per hand)."""

    h0: float
    h1: float
    alpha: float = 0.05
    beta: float = 0.05
    scale: str = "nelo"

    def __post_init__(self) -> None:
        _check(self.h0, self.h1, self.alpha, self.beta, self.scale)

    @classmethod
    def parse(cls, text: str) -> SPRTSpec:
        """``KEY=VALUE,...`` of elo0 and elo1 or h0 and h1, alpha and beta; ``SPRTError`` naming ``text``."""
        values: dict[str, float] = {}
        for part in text.split(","):
            key, sep, value = (s.strip() for s in part.partition("="))
            if not key and not sep:
                raise SPRTError(f"SPRT {text!r}: an empty part between commas; give {_HOW}")
            if key not in _ALL_KEYS:
                close = difflib.get_close_matches(key.lower(), _ALL_KEYS, n=1)
                hint = f" (did you mean {close[0]}?)" if close else ""
                raise SPRTError(f"SPRT {text!r}: unknown key {key!r}{hint}; give {_HOW}")
            if not sep:
                raise SPRTError(f"SPRT {text!r}: {key} has no value: write {key}=NUMBER")
            if key in values:
                raise SPRTError(f"SPRT {text!r}: {key} is given twice")
            try:
                number = float(value)
            except ValueError:
                raise SPRTError(f"SPRT {text!r}: {key}={value!r} is not a number") from None
            if not math.isfinite(number):
                raise SPRTError(f"SPRT {text!r}: {key}={value} is not a finite number")
            values[key] = number
        scales = [s for s, keys in _KEYS.items() if any(k in values for k in keys)]
        if len(scales) > 1:
            raise SPRTError(
                f"SPRT {text!r}: elo0/elo1 (normalised Elo) and h0/h1 (points per hand) are two ways to give "
                "the hypotheses: give one pair"
            )
        if not scales:
            raise SPRTError(f"SPRT {text!r}: no hypotheses; give {_HOW}")
        scale = scales[0]
        lo, hi = _KEYS[scale]
        missing = [k for k in (lo, hi) if k not in values]
        if missing:
            raise SPRTError(f"SPRT {text!r}: {' and '.join(missing)} missing; give {_HOW}")
        try:
            return cls(values[lo], values[hi], values.get("alpha", 0.05), values.get("beta", 0.05), scale)
        except SPRTError as e:
            raise SPRTError(f"SPRT {text!r}: {e}") from None

    def __str__(self) -> str:
        lo, hi = _KEYS[self.scale]
        return f"{lo}={_num(self.h0)},{hi}={_num(self.h1)},alpha={_num(self.alpha)},beta={_num(self.beta)}"

    @property
    def unit(self) -> str:
        """What h0 and h1 are in, in words."""
        return "normalised Elo" if self.scale == "nelo" else "points per hand"

    def test(self) -> SPRT:
        """A new running test of these hypotheses."""
        return SPRT(self.h0, self.h1, self.alpha, self.beta, self.scale)
