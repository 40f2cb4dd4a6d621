"""The SPRT of ``hearts compare`` keeps its promises on simulated paired data: over 1,000 tests at each
hypothesis, it accepts H1 when H0 holds at most ``alpha`` of the time, and H0 when H1 holds at most
``beta`` (within three standard errors of a binomial count), and it stops."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ladder.ratings.sprt import SPRT

TESTS = 1000
MAX_DEALS = 20_000


def _run(
    mu: float, sigma: float, rng: np.random.Generator, h0: float, h1: float, alpha: float, beta: float
) -> tuple[str, int]:
    t = SPRT(h0=h0, h1=h1, alpha=alpha, beta=beta)
    # Differences of points per hand are skewed in Hearts (a moon moves 26): a normal with a rare
    # large jump, of mean mu, is closer to them than a plain normal.
    draws = rng.normal(mu, sigma, MAX_DEALS) + np.where(
        rng.random(MAX_DEALS) < 0.02, rng.choice([-6.0, 6.0], MAX_DEALS), 0.0
    )
    for d in draws:
        t.add(float(d))
        if t.verdict != "continue":
            return t.verdict, t.n
    return "continue", t.n


def _tolerance(p: float) -> float:
    return 3 * math.sqrt(p * (1 - p) / TESTS)


@pytest.mark.parametrize("alpha, beta", [(0.05, 0.05), (0.1, 0.02)])
@pytest.mark.slow
def test_the_error_rates_are_within_alpha_and_beta(alpha: float, beta: float) -> None:
    rng = np.random.default_rng(7)
    h0, h1, sigma = 0.0, 0.5, 3.0
    under_h0 = [_run(h0, sigma, rng, h0, h1, alpha, beta) for _ in range(TESTS)]
    under_h1 = [_run(h1, sigma, rng, h0, h1, alpha, beta) for _ in range(TESTS)]
    type_1 = sum(v == "H1" for v, _ in under_h0) / TESTS
    type_2 = sum(v == "H0" for v, _ in under_h1) / TESTS
    assert type_1 <= alpha + _tolerance(alpha), type_1
    assert type_2 <= beta + _tolerance(beta), type_2
    assert all(v != "continue" for v, _ in under_h0 + under_h1)  # every test decided
    # And it decides the clear cases quickly: a B better by 2 points per hand is seen in few deals.
    clear = [_run(2.0, sigma, rng, h0, h1, alpha, beta) for _ in range(100)]
    assert all(v == "H1" for v, _ in clear) and np.median([n for _, n in clear]) < 100


def test_the_bounds_and_the_interval_follow_wald_and_the_sample() -> None:
    t = SPRT(h0=0.0, h1=0.5, alpha=0.05, beta=0.05)
    assert t.upper == pytest.approx(math.log(19)) and t.lower == pytest.approx(-math.log(19))
    for d in (1.0, -1.0, 2.0, 0.0):
        t.add(d)
    assert t.mean == 0.5 and t.variance == pytest.approx(5 / 3)
    lo, hi = t.interval()
    assert lo < t.mean < hi and hi - t.mean == pytest.approx(1.96 * math.sqrt(5 / 3 / 4), rel=1e-3)
    assert t.verdict == "continue"  # too few differences to stop on
    with pytest.raises(ValueError, match="h1"):
        SPRT(h0=1.0, h1=0.5)
    with pytest.raises(ValueError, match="finite"):
        t.add(math.nan)
