"""Tournaments on a Dask cluster: matches/s of latency-bound bots, 2 workers against 1, and the
cluster path with 1 worker against this process alone.

Four bots that each think ``--think-ms`` (50 ms) before every decision (an async SDK bot, any
number of matches at once) play a round robin of one-hand matches (``standard,target=1``), so a
match is about 53 decisions one after another, ~2.7 s, and the machine's two cores stay idle:

- ``local``: ``play_tournament`` in this process, ``--slots`` matches at once;
- ``cluster, 1 worker``: a LocalCluster of one worker process playing ``--slots`` matches at once;
- ``cluster, 2 workers``: two such workers, ``2 x --slots`` at once (the same per-worker concurrency).

Targets: 2 workers vs 1 worker >= 1.8x; 1 worker vs local >= 0.9x. Throughput is the matches over
the span from the first match's start to the last one's end (from the records): the cluster's and
the bots' start-up are left out, as they are once per run. Also measured, for the estimate of how
the design carries to 100 workers: the client's ``save_scheduled`` (ms per match, the one SQLite
writer, fresh and after ``--saves`` matches) and Dask's round trip for a task that does nothing
(tasks/s through the scheduler).

    python bench/cluster.py [--think-ms MS] [--slots N] [--deals N] [--saves N] [--tasks N] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from clients.sdk import View, serve  # noqa: E402
from referee.rules import Card  # noqa: E402

RULES = "standard,target=1"  # one hand: a match is short, and as long in every run


class Thinker:
    """The lowest legal card, after ``think`` seconds of (asynchronous) thought."""

    def __init__(self, think: float) -> None:
        self.think = think

    async def pass_cards(self, view: View) -> list[Card]:
        await asyncio.sleep(self.think)
        return sorted(view.hand, key=lambda c: c.rank)[-view.rules.pass_count :]

    async def play_card(self, view: View) -> Card:
        await asyncio.sleep(self.think)
        return min(view.legal, key=lambda c: c.rank)


def _span(records: list[Any]) -> float:
    starts = [datetime.fromisoformat(r.started_at) for r in records]
    ends = [datetime.fromisoformat(r.finished_at) for r in records]
    return (max(ends) - min(starts)).total_seconds()


def run(where: str, slots: int, deals: int, think_ms: float, tmp: Path) -> dict[str, Any]:
    """One tournament: ``where`` is local, or cluster-N (N local worker processes)."""
    from ladder.bots.registry import BotEntry
    from ladder.store import Store
    from ladder.tournament.run import TournamentSpec, create_tournament, play_tournament

    command = f"python {Path(__file__).resolve()} --serve --think-ms {think_ms} --port {{port}}"
    bots = [BotEntry(f"thinker-{i}", command=command) for i in range(4)]
    store = Store(tmp / f"{where}.db")
    tid = create_tournament(store, bots, TournamentSpec(rules=RULES, deals=deals, seed=1))
    records: list[Any] = []
    venue = None
    workers = 0
    if where.startswith("cluster-"):
        from ladder.venues.cluster import venue as dask_venue

        workers = int(where.split("-")[1])
        venue = dask_venue(local_workers=workers, slots_per_worker=slots)
    t0 = time.perf_counter()
    summary = asyncio.run(
        play_tournament(
            store,
            tid,
            concurrency=slots * max(1, workers),
            log_dir=tmp / f"logs-{where}",
            on_record=records.append,
            venue=venue,
        )
    )
    wall = time.perf_counter() - t0
    store.close()
    assert summary.played == len(records) and summary.faults == 0, (summary.played, summary.faults)
    span = _span(records)
    return {"matches": len(records), "span_s": round(span, 2), "wall_s": round(wall, 2), "mps": len(records) / span}


def save_cost(tmp: Path, matches: int) -> tuple[float, float]:
    """ms per match of ``save_scheduled`` (the client's one transaction per match) into a fresh file
    among four bots: over the first 10% of ``matches``, and over the last 10% (the live Elo a save
    reads is kept summed per bot and ruleset, so the two should be alike)."""
    from ladder.bots.registry import BotEntry
    from ladder.store import Store
    from ladder.store.save import save_scheduled
    from ladder.tournament.run import TournamentSpec, create_tournament
    from ladder.venues.here import play_one_match
    from referee.rules import Rules

    names = [f"b{i}" for i in range(4)]
    entries = [BotEntry(n, module="clients.bots.heuristic:HeuristicBot") for n in names]
    record = asyncio.run(play_one_match(entries, names, Rules.parse("standard"), 1, log_dir=tmp / "logs-save"))
    store = Store(tmp / "save.db")
    tid = create_tournament(store, entries, TournamentSpec(rules="standard", rounds=max(10, matches), duplicate=False))
    todo = store.tournaments.pending(tid)
    tenth = len(todo) // 10
    times = []
    for m in todo:
        r = dataclasses.replace(record, match_id=f"t{tid}-{m.index:06d}", seed=m.seed, tournament_id=tid)
        r = dataclasses.replace(r, seats=[dataclasses.replace(s, bot=b) for s, b in zip(r.seats, m.seats)])
        t0 = time.perf_counter()
        save_scheduled(store, tid, m.index, r)
        times.append(time.perf_counter() - t0)
    store.close()
    return sum(times[:tenth]) * 1000 / tenth, sum(times[-tenth:]) * 1000 / tenth


async def _nothing() -> None:
    return None


async def _task_rate(n: int) -> float:
    """No-op async tasks per second through a local scheduler and one worker, all in flight at once."""
    from distributed import Client, LocalCluster

    async with LocalCluster(
        n_workers=1, threads_per_worker=8, processes=True, dashboard_address=None, asynchronous=True
    ) as cluster:
        async with Client(cluster, asynchronous=True) as client:
            await client.gather([client.submit(_nothing, pure=False) for _ in range(50)])  # warm
            t0 = time.perf_counter()
            await client.gather([client.submit(_nothing, pure=False) for _ in range(n)])
            return n / (time.perf_counter() - t0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--think-ms", type=float, default=50.0, help="each bot's thought per decision (default 50)")
    parser.add_argument("--slots", type=int, default=4, help="matches at once per worker, and here (default 4)")
    parser.add_argument("--deals", type=int, default=8, help="deals of the round robin: 4 matches each (default 8)")
    parser.add_argument("--tasks", type=int, default=1000, help="no-op tasks for the scheduler's rate (default 1000)")
    parser.add_argument("--saves", type=int, default=2000, help="matches saved for the writer's cost (default 2000)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(Thinker(args.think_ms / 1000), port=args.port)
        return

    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        local = run("local", args.slots, args.deals, args.think_ms, t)
        one = run("cluster-1", args.slots, args.deals, args.think_ms, t)
        two = run("cluster-2", args.slots, args.deals, args.think_ms, t)
        save_ms, save_ms_late = save_cost(t, args.saves)
    tasks_per_s = asyncio.run(_task_rate(args.tasks))
    figures = {
        "think_ms": args.think_ms,
        "slots_per_worker": args.slots,
        "matches": local["matches"],
        "local_matches_per_s": round(local["mps"], 3),
        "cluster_1_worker_matches_per_s": round(one["mps"], 3),
        "cluster_2_workers_matches_per_s": round(two["mps"], 3),
        "two_vs_one_worker": round(two["mps"] / one["mps"], 3),
        "one_worker_vs_local": round(one["mps"] / local["mps"], 3),
        "wall_s": {"local": local["wall_s"], "cluster_1": one["wall_s"], "cluster_2": two["wall_s"]},
        "save_scheduled_ms_per_match": round(save_ms, 2),
        "saves": args.saves,
        "save_scheduled_ms_per_match_late": round(save_ms_late, 2),
        "scheduler_noop_tasks_per_s": round(tasks_per_s, 1),
    }
    if args.json:
        print(json.dumps(figures))
        return
    print(f"{figures['matches']} one-hand matches of 4 bots thinking {args.think_ms:g} ms a decision")
    print(f"{'where':44} {'matches/s':>10} {'span s':>8} {'wall s':>8}")
    for name, r in (
        ("this process, play_tournament", local),
        (f"cluster, 1 worker x {args.slots} slots", one),
        (f"cluster, 2 workers x {args.slots} slots", two),
    ):
        print(f"{name:44} {r['mps']:>10.3f} {r['span_s']:>8.2f} {r['wall_s']:>8.2f}")
    ratio = figures["two_vs_one_worker"]
    print(f"2 workers vs 1 worker: {ratio:.3f}x ({'meets' if ratio >= 1.8 else 'misses'} the 1.8x target)")
    ratio = figures["one_worker_vs_local"]
    print(
        f"cluster with 1 worker vs this process: {ratio:.3f}x ({'meets' if ratio >= 0.9 else 'misses'} the 0.9x target)"
    )
    print(
        f"the client's save_scheduled: {save_ms:.2f} ms a match into a fresh file, {save_ms_late:.2f} ms by the "
        f"{args.saves}th match of the same bots; Dask's scheduler: {tasks_per_s:,.0f} no-op tasks/s "
        "(for the 100-worker estimate in docs/cluster.md)"
    )


if __name__ == "__main__":
    main()
