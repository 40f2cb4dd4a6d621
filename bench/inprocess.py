"""In-process bots: matches/s of four random SDK bots played without gRPC, against a bare engine loop.

- ``bare``: the engine alone playing whole random matches (a random legal card, a random pass),
  no referee, no record: the ceiling.
- ``in-process``: the same matches through the referee (``play_match``) with four ``RandomBot``
  objects seated by ``ladder.bots.inprocess.SdkSeat``: clocks, judging, the full record. Target: at
  least 0.25x bare.
- ``in-process, a worker's collector``: the same, in a process whose garbage collector is set
  as a worker sets its own (``ladder.venues.workers.worker_gc``): what a worker's play gains from that
  alone, so that the workers' ratio can be read against it too.
- ``tournament``: a stored round robin of those bots (``module = ...`` entries) played by
  ``play_tournament`` into a SQLite file: in one process (``workers=0``), in one worker process,
  and over N worker processes, each saving its own batches. Target: matches/s with N workers at
  least 0.8 x N x the single-process in-process figure. Each is timed over the whole run (the
  workers' start-up included) and from its first recorded match on; N workers against N x one
  worker, both after start-up, is how well the workers scale, the store's cost in both.
- ``side by side``: N processes each playing the in-process matches at once, nothing shared (no
  store, no parent): what N cores give this machine's play, the ceiling any N workers share. Its
  ratio to N x the one-process figure is the machine's own parallel efficiency (below 1 where
  the cores share caches, memory bandwidth or a host's hyperthreads).

Each round measures bare and in-process back to back and the ratio reported is the median of the
rounds' ratios (pairing cancels the machine's drift).

    python bench/inprocess.py [--seconds S] [--rounds N] [--workers N] [--matches N] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from clients.bots.random import RandomBot  # noqa: E402
from ladder.bots.inprocess import SdkSeat  # noqa: E402
from referee.match import play_match  # noqa: E402
from referee.rules import Match, Phase, Rules  # noqa: E402
from referee.rules.cards import cards_of  # noqa: E402

RULES = Rules()


def bare(seconds: float, first_seed: int = 0) -> float:
    """Matches/s of the engine alone: random legal plays and passes, whole matches."""
    rng = random.Random(1)
    choice, sample, k = rng.choice, rng.sample, RULES.pass_count
    seed = first_seed
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        m = Match(RULES, seed)
        seed += 1
        while not m.over:
            if m.phase is Phase.PLAY:
                m.play(choice(m.legal_plays().cards))
            else:
                hands = m.hand.hands
                for s in m.to_move:
                    m.pass_cards(s, sample(cards_of(hands[s]), k))
    return (seed - first_seed) / (time.perf_counter() - start)


async def in_process(seconds: float, first_seed: int = 0) -> float:
    """Matches/s of the referee playing four in-process random bots."""
    seats = [SdkSeat(RandomBot(i), f"random-{i}") for i in range(4)]
    seed = first_seed
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        await play_match(seats, RULES, seed)
        seed += 1
    return (seed - first_seed) / (time.perf_counter() - start)


def _in_process_for(seconds: float, first_seed: int) -> float:
    return asyncio.run(in_process(seconds, first_seed))


def _in_process_worker_gc(seconds: float, first_seed: int) -> float:
    from ladder.venues.workers import worker_gc

    worker_gc()
    return asyncio.run(in_process(seconds, first_seed))


def in_process_worker_gc(seconds: float, rounds: int) -> float:
    """Matches/s of ``in_process`` in a spawned process with a worker's collector (median of ``rounds``)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        pool.submit(_in_process_worker_gc, 0.05, 0).result()  # started and warm first
        return statistics.median(
            pool.submit(_in_process_worker_gc, seconds, r * 100_000).result() for r in range(rounds)
        )


def side_by_side(n: int, seconds: float) -> float:
    """Matches/s of ``n`` processes playing in-process matches at once, summed (spawned, as workers are)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(n, mp_context=multiprocessing.get_context("spawn")) as pool:
        list(pool.map(_in_process_for, [0.05] * n, range(n)))  # every process started and warm first
        return sum(pool.map(_in_process_for, [seconds] * n, [i * 100_000 for i in range(n)]))


@dataclass(frozen=True)
class TournamentRun:
    """One stored tournament's pace: over the whole run, and from its first recorded match on."""

    matches_per_s: float  # played / the whole run (start-up included)
    start_up_s: float  # until the first match was recorded (workers spawned and ready, the first batch)
    after_start_up_per_s: float  # the matches after the first record / the time after it


def tournament(workers: int, matches: int) -> TournamentRun:
    """A stored tournament of four in-process random bots, ``workers`` processes (0: this one)."""
    from ladder.bots.registry import BotEntry
    from ladder.store import Store
    from ladder.tournament.run import TournamentSpec, create_tournament, play_tournament

    bots = [BotEntry(f"random-{i}", module="clients.bots.random:RandomBot") for i in range(4)]
    times: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "bench.db")
        tid = create_tournament(store, bots, TournamentSpec(format="round-robin", rounds=max(1, matches // 4), seed=1))
        start = time.perf_counter()
        summary = asyncio.run(
            play_tournament(
                store,
                tid,
                workers=workers,
                log_dir=Path(tmp) / "logs",
                on_record=lambda _: times.append(time.perf_counter()),
            )
        )
        end = time.perf_counter()
        store.close()
    first = times[0]
    # The first batch's matches are recorded together: "after" counts from the last of them.
    firsts = sum(1 for t in times if t == first)
    return TournamentRun(
        summary.played / (end - start), first - start, (summary.played - firsts) / max(end - first, 1e-9)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="seconds per measurement (default 2)")
    parser.add_argument("--rounds", type=int, default=3, help="paired rounds of bare and in-process (default 3)")
    parser.add_argument(
        "--workers", type=int, default=os.cpu_count() or 1, help="worker processes (default: the cores)"
    )
    parser.add_argument("--matches", type=int, default=2400, help="matches of the tournament rows (default 2400)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()

    rounds = []
    for r in range(args.rounds):
        b = bare(args.seconds, first_seed=r * 100_000)
        p = asyncio.run(in_process(args.seconds, first_seed=r * 100_000))
        rounds.append((b, p, p / b))
    bare_mps = statistics.median(b for b, _, _ in rounds)
    single = statistics.median(p for _, p, _ in rounds)
    ratio = statistics.median(x for _, _, x in rounds)
    tuned = in_process_worker_gc(args.seconds, args.rounds)
    one = tournament(0, args.matches)
    lone = tournament(1, args.matches)
    many = tournament(args.workers, args.matches)
    beside = side_by_side(args.workers, args.seconds)
    n = args.workers
    scaling = many.matches_per_s / (n * single)
    figures = {
        "bare_matches_per_s": round(bare_mps, 1),
        "in_process_matches_per_s": round(single, 1),
        "in_process_vs_bare": round(ratio, 3),
        "in_process_worker_gc_matches_per_s": round(tuned, 1),
        "tournament_single_process_matches_per_s": round(one.matches_per_s, 1),
        "tournament_one_worker_matches_per_s": round(lone.matches_per_s, 1),
        "workers": n,
        "tournament_workers_matches_per_s": round(many.matches_per_s, 1),
        "tournament_workers_start_up_s": round(many.start_up_s, 3),
        "tournament_workers_after_start_up_per_s": round(many.after_start_up_per_s, 1),
        "workers_vs_workers_x_in_process": round(scaling, 3),
        "workers_after_start_up_vs_workers_x_in_process": round(many.after_start_up_per_s / (n * single), 3),
        "workers_vs_workers_x_in_process_worker_gc": round(many.matches_per_s / (n * tuned), 3),
        "workers_vs_single_process_tournament": round(many.matches_per_s / one.matches_per_s, 3),
        "workers_vs_workers_x_one_worker": round(many.after_start_up_per_s / (n * lone.after_start_up_per_s), 3),
        "side_by_side_matches_per_s": round(beside, 1),
        "side_by_side_vs_workers_x_in_process": round(beside / (n * single), 3),
    }
    if args.json:
        print(json.dumps(figures))
        return
    print(f"{'measure':52} {'matches/s':>10}")
    for label, value in (
        ("bare engine loop", bare_mps),
        ("in-process, one process (play_match)", single),
        ("in-process, one process, with a worker's collector", tuned),
        ("tournament into SQLite, one process", one.matches_per_s),
        ("tournament into SQLite, 1 worker process", lone.matches_per_s),
        (f"tournament into SQLite, {n} worker processes", many.matches_per_s),
        (f"  the same after its start-up ({many.start_up_s:.2f} s)", many.after_start_up_per_s),
        (f"{n} processes of in-process play side by side", beside),
    ):
        print(f"{label:52} {value:>10,.1f}")
    verdict = "meets" if ratio >= 0.25 else "misses"
    print(f"in-process vs bare: {ratio:.3f}x, median of {args.rounds} paired rounds ({verdict} the 0.25x target)")
    verdict = "meets" if scaling >= 0.8 else "misses"
    print(
        f"{n} workers vs {n} x in-process: {scaling:.3f} ({verdict} the 0.8 target), "
        f"{many.after_start_up_per_s / (n * single):.3f} after start-up, "
        f"{many.matches_per_s / (n * tuned):.3f} against in-process with a worker's collector"
    )
    print(
        f"{n} workers vs the one-process tournament: {many.matches_per_s / one.matches_per_s:.2f}x; "
        f"vs {n} x one worker (after start-up): {figures['workers_vs_workers_x_one_worker']:.3f}"
    )
    print(
        f"this machine's own ceiling: {n} processes side by side give "
        f"{beside / (n * single):.3f} of {n} x in-process, sharing nothing"
    )


if __name__ == "__main__":
    main()
