"""The SPRT of ``hearts compare`` keeps its promises on simulated paired data: over 1,000 tests at each
hypothesis, it accepts H1 when H0 holds at most ``alpha`` of the time, and H0 when H1 holds at most
``beta`` (within three standard errors of a binomial count), and it stops. A test in normalised Elo is
the same test in points per hand at the current sd, and ``SPRTSpec`` reads and writes ``--sprt``."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from ladder.ratings.sprt import NELO_PER_SD, SPRT, SPRTError, SPRTSpec

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


def test_a_test_in_normalised_elo_is_the_test_in_points_at_the_current_sd() -> None:
    nelo, points = SPRT(h0=0.0, h1=10.0, scale="nelo"), SPRT(h0=0.0, h1=1.0)
    for d in (1.0, -1.0, 2.0, 0.0, 3.0, 0.5):
        nelo.add(d)
    sd = math.sqrt(nelo.variance)
    assert nelo.sd == pytest.approx(sd) and nelo.nelo == pytest.approx(nelo.mean / sd * 800 / math.log(10))
    assert NELO_PER_SD == pytest.approx(347.43, abs=0.01)
    h0, h1 = nelo.in_points()
    assert h0 == 0.0 and h1 == pytest.approx(10.0 / NELO_PER_SD * sd)
    same = SPRT(h0=h0, h1=h1)
    for d in (1.0, -1.0, 2.0, 0.0, 3.0, 0.5):
        same.add(d)
        points.add(d)
    assert nelo.llr == pytest.approx(same.llr) and points.in_points() == (0.0, 1.0)
    assert SPRT(scale="nelo").nelo == 0.0  # no sd yet
    with pytest.raises(SPRTError, match="points or nelo"):
        SPRT(scale="elo")


@pytest.mark.parametrize(
    "text, spec",
    [
        ("elo0=0,elo1=5", SPRTSpec(0.0, 5.0)),
        ("elo0=-1.5, elo1=2.5, alpha=0.1, beta=0.02", SPRTSpec(-1.5, 2.5, 0.1, 0.02)),
        ("h0=0,h1=0.5", SPRTSpec(0.0, 0.5, scale="points")),
        ("beta=0.2,h1=1e-3,h0=-1e-3", SPRTSpec(-0.001, 0.001, beta=0.2, scale="points")),
        ("elo1=100,elo0=0", SPRTSpec(0.0, 100.0)),
    ],
)
def test_a_spec_reads_back_from_its_text(text: str, spec: SPRTSpec) -> None:
    parsed = SPRTSpec.parse(text)
    assert parsed == spec and SPRTSpec.parse(str(parsed)) == parsed
    assert parsed.test().scale == parsed.scale and parsed.test().h1 == parsed.h1


def test_a_spec_is_written_compactly() -> None:
    assert str(SPRTSpec(0.0, 100.0)) == "elo0=0,elo1=100,alpha=0.05,beta=0.05"
    assert str(SPRTSpec(-0.25, 0.5, 0.1, 0.02, scale="points")) == "h0=-0.25,h1=0.5,alpha=0.1,beta=0.02"
    assert SPRTSpec(0.0, 5.0).unit == "normalised Elo" and SPRTSpec(0.0, 5.0, scale="points").unit == "points per hand"


@pytest.mark.parametrize(
    "text, message",
    [
        ("elo0=0,elo2=5", "unknown key 'elo2' (did you mean elo1?)"),
        ("alfa=0.1,elo0=0,elo1=5", "unknown key 'alfa' (did you mean alpha?)"),
        ("elo0=0,h1=5", "give one pair"),
        ("elo0=0", "elo1 missing"),
        ("alpha=0.1", "no hypotheses"),
        ("elo0=0,elo1=five", "elo1='five' is not a number"),
        ("elo0=0,elo1=inf", "not a finite number"),
        ("elo0=0,elo0=1,elo1=5", "elo0 is given twice"),
        ("elo0=0,,elo1=5", "an empty part between commas"),
        ("elo0,elo1=5", "elo0 has no value"),
        ("elo0=5,elo1=0", "h1 (0.0) must be greater than h0 (5.0)"),
        ("elo0=0,elo1=5,alpha=1", "alpha and beta are probabilities"),
        ("", "empty part"),
    ],
)
def test_a_spec_that_cannot_be_read_is_refused_naming_the_text(text: str, message: str) -> None:
    with pytest.raises(SPRTError, match=re.escape(message)) as e:
        SPRTSpec.parse(text)
    assert str(e.value).startswith(f"SPRT {text!r}: ") and isinstance(e.value, ValueError)
