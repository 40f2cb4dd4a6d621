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
Nothing here plays a match; ``tests/ladder/test_sprt.py`` checks the error rates on simulated data.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["SPRT", "Verdict"]

Verdict = str
"""``"H1"`` (B is better by at least h1), ``"H0"`` (not by more than h0), or ``"continue"``."""

_MIN_SAMPLES = 8  # a variance from fewer differences is too rough to stop on


@dataclass
class SPRT:
    """The running test. ``add(d)`` each paired difference; ``verdict`` says whether to stop."""

    h0: float = 0.0
    h1: float = 0.5
    alpha: float = 0.05
    beta: float = 0.05
    n: int = 0
    _sum: float = 0.0
    _sum_sq: float = 0.0

    def __post_init__(self) -> None:
        if not (0 < self.alpha < 1 and 0 < self.beta < 1):
            raise ValueError(f"alpha and beta are probabilities between 0 and 1, not {self.alpha}, {self.beta}")
        if not self.h1 > self.h0:
            raise ValueError(f"h1 ({self.h1}) must be greater than h0 ({self.h0}): H1 says B is better by more")

    @property
    def lower(self) -> float:
        """The LLR at or below which H0 is accepted."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """The LLR at or above which H1 is accepted."""
        return math.log((1 - self.beta) / self.alpha)

    def add(self, difference: float) -> None:
        if not math.isfinite(difference):
            raise ValueError(f"a paired difference must be a finite number, not {difference!r}")
        self.n += 1
        self._sum += difference
        self._sum_sq += difference * difference

    @property
    def mean(self) -> float:
        return self._sum / self.n if self.n else 0.0

    @property
    def variance(self) -> float:
        """The sample variance of the differences (0 before two)."""
        if self.n < 2:
            return 0.0
        return max(0.0, (self._sum_sq - self.n * self.mean**2) / (self.n - 1))

    @property
    def llr(self) -> float:
        var = self.variance
        if self.n < 2 or var == 0.0:
            return 0.0
        return self.n * (self.h1 - self.h0) * (2 * self.mean - self.h0 - self.h1) / (2 * var)

    def interval(self, z: float = 1.959963984540054) -> tuple[float, float]:
        """The mean difference's 95% interval (normal), as far as the differences so far tell."""
        half = z * math.sqrt(self.variance / self.n) if self.n >= 2 else math.inf
        return self.mean - half, self.mean + half

    @property
    def verdict(self) -> Verdict:
        if self.n < _MIN_SAMPLES:
            return "continue"
        llr = self.llr
        if llr >= self.upper:
            return "H1"
        if llr <= self.lower:
            return "H0"
        return "continue"
