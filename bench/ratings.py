"""Benchmark the ladder fit: 1e6 synthetic four-player matches among 5,000 bots.

Run from the project root: `python bench/ratings.py` (readable table) or `--json` (one JSON object).
Target: fit plus 95% intervals within 20 s. `--strict` exits 1 when the target is missed.
Then the warm start: the same bots over 1% more matches, fitted from the first fit's ratings (what the
arena does as matches come in), against the cold fit of the same data, both in this run.
Ties are made the Hearts way (a finisher's score coincides with the one just ahead: adjacent places
of a PL-drawn order merge; ~11% of matches tied), which the fit models exactly (sum over the
orderings consistent with the tie), so the reported 95% coverage should be near 0.95.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # project root

from ladder.ratings.fit import fit_arrays

TARGET_SECONDS = 20.0


def synthetic_matches(
    n_matches: int, n_bots: int, seats: int, seed: int, tie_prob: float = 0.04
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Plackett–Luce draws (Gumbel trick) with Hearts-like ties; returns places, players, θ."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(0.0, 1.0, n_bots)
    players = rng.integers(0, n_bots, size=(n_matches, seats))
    while True:  # redraw the few rows that picked a bot twice
        srt = np.sort(players, axis=1)
        bad = np.flatnonzero((srt[:, 1:] == srt[:, :-1]).any(axis=1))
        if bad.size == 0:
            break
        players[bad] = rng.integers(0, n_bots, size=(bad.size, seats))
    key = theta[players] + rng.gumbel(size=players.shape)
    order = np.argsort(-key, axis=1)  # finishing order, best first
    tie = rng.random((n_matches, seats)) < tie_prob  # tie with the player just ahead
    tie[:, 0] = False
    pos = np.arange(seats)
    sorted_place = np.maximum.accumulate(np.where(tie, 0, pos + 1), axis=1)  # competition ranks
    places = np.empty_like(sorted_place)
    np.put_along_axis(places, order, sorted_place, axis=1)
    return places, players, theta


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    ap.add_argument("--matches", type=int, default=1_000_000)
    ap.add_argument("--bots", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--strict", action="store_true", help="exit 1 if the target is missed")
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    places, players, theta = synthetic_matches(args.matches, args.bots, 4, args.seed)
    gen = time.perf_counter() - t0
    tied = float(np.mean((places[:, :, None] == places[:, None, :]).sum(axis=(1, 2)) > places.shape[1]))

    t1 = time.perf_counter()
    res = fit_arrays(places, players, args.bots)
    total = time.perf_counter() - t1
    fit_s = res.timings["prepare"] + res.timings["fit"]
    int_s = res.timings["intervals"]

    from scipy.stats import spearmanr

    est = np.asarray(res.theta)
    rho = float(spearmanr(est, theta).statistic)
    truth = theta - theta.mean()
    sd = np.array([b.ci95 for b in sorted(res.bots, key=lambda b: int(b.name))]) / 1.96
    cover = float(np.mean(np.abs(est - truth) * 400 / np.log(10) <= 1.96 * sd))
    ok = total <= TARGET_SECONDS

    more = args.matches + max(1, args.matches // 100)
    places2, players2, _theta = synthetic_matches(more, args.bots, 4, args.seed)  # the same bots' strengths
    del places, players
    cold = fit_arrays(places2, players2, args.bots, intervals=False)
    start = np.array([b.elo for b in sorted(res.bots, key=lambda b: int(b.name))])
    warm = fit_arrays(places2, players2, args.bots, intervals=False, start=start)
    cold_s, warm_s = cold.timings["fit"], warm.timings["fit"]
    apart = max(abs(cold.elo[n] - warm.elo[n]) for n in cold.elo)  # the same maximum, found either way
    figures = {
        "matches": args.matches,
        "bots": args.bots,
        "tied_match_share": round(tied, 4),
        "generate_seconds": round(gen, 3),
        "fit_seconds": round(fit_s, 3),
        "interval_seconds": round(int_s, 3),
        "total_seconds": round(total, 3),
        "target_seconds": TARGET_SECONDS,
        "pass": ok,
        "spearman": round(rho, 5),
        "coverage95": round(cover, 4),
        "median_ci95_elo": round(float(np.median(sd * 1.96)), 2),
        "peak_memory_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "more_matches": more,
        "cold_refit_seconds": round(cold_s, 3),
        "warm_refit_seconds": round(warm_s, 3),
        "warm_vs_cold": round(warm_s / cold_s, 3) if cold_s else 0.0,
        "warm_cold_max_elo_apart": round(apart, 4),
    }
    if args.json:
        print(json.dumps(figures))
    else:
        rows = [
            ("matches", f"{args.matches:,}"),
            ("bots", f"{args.bots}"),
            ("matches with a tie", f"{tied:.1%}"),
            ("data generation (s, not timed)", f"{gen:.2f}"),
            ("fit (s)", f"{fit_s:.2f}"),
            ("intervals (s)", f"{int_s:.2f}"),
            ("total (s)", f"{total:.2f}"),
            ("target (s)", f"{TARGET_SECONDS:.0f}"),
            ("result", "PASS" if ok else "FAIL"),
            ("spearman vs truth", f"{rho:.4f}"),
            ("95% coverage vs truth (exact ties)", f"{cover:.3f}"),
            ("median ±95% (Elo)", f"{np.median(sd * 1.96):.1f}"),
            ("peak memory of the process (MB)", f"{figures['peak_memory_mb']:,}"),
            (f"refit of {more:,} matches, cold (s)", f"{cold_s:.2f}"),
            ("the same, warm from the first fit (s)", f"{warm_s:.2f}"),
            ("warm / cold", f"{figures['warm_vs_cold']:.3f}"),
            ("warm and cold at most apart (Elo)", f"{apart:.4f}"),
        ]
        w = max(len(k) for k, _ in rows)
        print("ratings benchmark: batch Plackett-Luce, 4-player matches")
        for k, v in rows:
            print(f"  {k:<{w}}  {v:>12}")
    return 1 if (args.strict and not ok) else 0


if __name__ == "__main__":
    raise SystemExit(main())
