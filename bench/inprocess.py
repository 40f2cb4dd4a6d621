"""In-process bots: matches/s of four random SDK bots played without gRPC, against a bare engine loop.

- ``bare``: the engine alone playing whole random matches (a random legal card, a random pass),
  no referee, no record: the ceiling.
- ``in-process``: the same matches through the referee (``play_match``) with four ``RandomBot``
  objects seated by ``ladder.inprocess.SdkSeat``: clocks, judging, the full record. Target: at
  least 0.25x bare.
- ``tournament``: a stored round robin of those bots (``module = ...`` entries) played by
  ``play_tournament`` into a SQLite file, in one process (``workers=0``) and over N worker
  processes, each saving its own matches. Target: matches/s with N workers at least
  0.8 x N x the single-process in-process figure.
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
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from clients.bots.random import RandomBot  # noqa: E402
from ladder.inprocess import SdkSeat  # noqa: E402
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


def side_by_side(n: int, seconds: float) -> float:
    """Matches/s of ``n`` processes playing in-process matches at once, summed (spawned, as workers are)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(n, mp_context=multiprocessing.get_context("spawn")) as pool:
        list(pool.map(_in_process_for, [0.05] * n, range(n)))  # every process started and warm first
        return sum(pool.map(_in_process_for, [seconds] * n, [i * 100_000 for i in range(n)]))


def tournament(workers: int, matches: int) -> float:
    """Matches/s of a stored tournament of four in-process random bots, ``workers`` processes."""
    from ladder.registry import BotEntry
    from ladder.store import Store
    from ladder.tournament import TournamentSpec, create_tournament, play_tournament

    bots = [BotEntry(f"random-{i}", module="clients.bots.random:RandomBot") for i in range(4)]
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "bench.db")
        tid = create_tournament(store, bots, TournamentSpec(format="round-robin", rounds=max(1, matches // 4), seed=1))
        start = time.perf_counter()
        summary = asyncio.run(play_tournament(store, tid, workers=workers, log_dir=Path(tmp) / "logs"))
        seconds = time.perf_counter() - start
        store.close()
    return summary.played / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="seconds per measurement (default 2)")
    parser.add_argument("--rounds", type=int, default=3, help="paired rounds of bare and in-process (default 3)")
    parser.add_argument(
        "--workers", type=int, default=os.cpu_count() or 1, help="worker processes (default: the cores)"
    )
    parser.add_argument("--matches", type=int, default=600, help="matches of the tournament rows (default 600)")
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
    one = tournament(0, args.matches)
    many = tournament(args.workers, args.matches)
    beside = side_by_side(args.workers, args.seconds)
    scaling = many / (args.workers * single)
    figures = {
        "bare_matches_per_s": round(bare_mps, 1),
        "in_process_matches_per_s": round(single, 1),
        "in_process_vs_bare": round(ratio, 3),
        "tournament_single_process_matches_per_s": round(one, 1),
        "workers": args.workers,
        "tournament_workers_matches_per_s": round(many, 1),
        "workers_vs_workers_x_in_process": round(scaling, 3),
        "workers_vs_single_process_tournament": round(many / one, 3),
        "side_by_side_matches_per_s": round(beside, 1),
        "side_by_side_vs_workers_x_in_process": round(beside / (args.workers * single), 3),
    }
    if args.json:
        print(json.dumps(figures))
        return
    print(f"{'measure':48} {'matches/s':>10}")
    print(f"{'bare engine loop':48} {bare_mps:>10,.1f}")
    print(f"{'in-process, one process (play_match)':48} {single:>10,.1f}")
    print(f"{'tournament into SQLite, one process':48} {one:>10,.1f}")
    print(f"{f'tournament into SQLite, {args.workers} worker processes':48} {many:>10,.1f}")
    print(f"{f'{args.workers} processes of in-process play side by side':48} {beside:>10,.1f}")
    verdict = "meets" if ratio >= 0.25 else "misses"
    print(f"in-process vs bare: {ratio:.3f}x, median of {args.rounds} paired rounds ({verdict} the 0.25x target)")
    verdict = "meets" if scaling >= 0.8 else "misses"
    print(
        f"{args.workers} workers vs {args.workers} x in-process: {scaling:.3f} ({verdict} the 0.8 target); "
        f"vs the one-process tournament: {many / one:.2f}x"
    )
    print(
        f"this machine's own ceiling: {args.workers} processes side by side give "
        f"{beside / (args.workers * single):.3f} of {args.workers} x in-process, sharing nothing"
    )


if __name__ == "__main__":
    main()
