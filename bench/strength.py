"""Strength through the harness: a candidate bot in one seat against a field of three, duplicate deals.

Each deal (a match seed) is played once with the candidate in every seat, the field's bot (the
heuristic unless ``--field``) in the others, through the referee (``play_match``, in-process bots,
``MatchSettings(budget_ms, bank_ms)``), whole matches of a preset (``--rules``, default standard). A
deal's paired difference is the candidate's points per hand minus the field's mean points per hand,
averaged over its rotations (negative: the candidate took fewer); the figure is the mean over deals
with a 95% interval (1.96 standard errors of the per-deal differences). Also: the candidate's win %
(alone or shared first place), an Elo against the field from the pairwise results (lower final
total wins a pair, a tie is half), the moons it shot, the moons it stopped (hands where another
seat took every point but the candidate's own, at least one: its points alone kept that seat from
the moon), and its measured think time (the mean latency of its plays, as the referee recorded it).

    python bench/strength.py                      # make bench: montecarlo at 10 ms, a few deals
    python bench/strength.py --long     # make bench-strength: the search bot's rows at 100 ms (hours)
    python bench/strength.py --bot random --budget-ms 100 --deals 50 --workers 2 [--seconds 600] [--json]
    python bench/strength.py --bot ismcts --field montecarlo --rules turbo --budget-ms 100 --deals 60

Deals are played whole, in worker processes; ``--seconds`` stops handing out deals after that long.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import multiprocessing
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

BOTS = ("random", "lowest", "heuristic", "montecarlo", "ismcts")


def _candidate(name: str, seed: int):  # type: ignore[no-untyped-def]
    from clients.bots.heuristic import HeuristicBot
    from clients.bots.ismcts import SearchBot
    from clients.bots.lowest import LowestBot
    from clients.bots.montecarlo import MonteCarloBot
    from clients.bots.random import RandomBot

    bots = {"random": RandomBot, "lowest": LowestBot, "heuristic": HeuristicBot, "montecarlo": MonteCarloBot}
    return {**bots, "ismcts": SearchBot}[name](seed=seed)


def play_deal(task: tuple[str, int, float, float]) -> dict[str, object]:
    """Every rotation of one deal: the candidate in each seat in turn."""
    from clients.bots.heuristic import HeuristicBot
    from ladder.bots.inprocess import SdkSeat
    from referee.match import MatchSettings, play_match
    from referee.rules import Rules

    bot, seed, budget_ms, bank_ms, field_bot, preset = task
    rules = Rules.preset(preset)
    settings = MatchSettings(budget_ms=budget_ms, bank_ms=bank_ms)
    rotations = []
    for cand in range(rules.players):
        seats = [
            SdkSeat(_candidate(bot, seed), bot)
            if s == cand
            else SdkSeat(
                HeuristicBot() if field_bot == "heuristic" else _candidate(field_bot, seed + 7 * s), f"{field_bot}-{s}"
            )
            for s in range(rules.players)
        ]
        record = asyncio.run(play_match(seats, rules, seed, settings=settings))
        hands = len(record.hands)
        thought = [p.latency_ms for p in record.plays if p.seat == cand and p.latency_ms is not None]
        moon_total = sum(max(0, v) for v in rules.card_points)
        # Stopped: another seat took every point but the candidate's own (at least one): the
        # candidate's points alone kept it from the moon.
        stopped = sum(
            1
            for h in record.hands
            if h.moon is None
            and h.points_taken
            and 0 < h.points_taken[cand]
            and any(s != cand and h.points_taken[s] + h.points_taken[cand] == moon_total for s in range(rules.players))
        )
        mine = sum(h.score[cand] for h in record.hands)
        field = [sum(h.score[s] for h in record.hands) for s in range(rules.players) if s != cand]
        totals = [s.final_score for s in record.seats]
        pairs = [
            1.0 if totals[cand] < totals[s] else 0.5 if totals[cand] == totals[s] else 0.0
            for s in range(4)
            if s != cand
        ]
        rotations.append(
            {
                "hands": hands,
                "diff_per_hand": (mine - statistics.mean(field)) / max(1, hands),
                "points_per_hand": mine / max(1, hands),
                "win": cand in record.winners,
                "pairs": pairs,
                "faults": len(record.faults),
                "timeouts": sum(1 for f in record.faults if "timeout" in str(getattr(f, "kind", f)).lower()),
                "moons": sum(1 for h in record.hands if h.moon == cand),
                "field_moons": sum(1 for h in record.hands if h.moon is not None and h.moon != cand),
                "stopped": stopped,
                "think_ms": thought,
            }
        )
    return {"seed": seed, "rotations": rotations}


def summarise(
    bot: str,
    budget_ms: float,
    deals: list[dict[str, object]],
    seconds: float,
    field_bot: str = "heuristic",
    preset: str = "standard",
) -> dict[str, object]:
    thinks = [t for d in deals for r in d["rotations"] for t in r.get("think_ms", [])]  # type: ignore[attr-defined]
    diffs = [statistics.mean(r["diff_per_hand"] for r in d["rotations"]) for d in deals]  # type: ignore[attr-defined]
    rots = [r for d in deals for r in d["rotations"]]  # type: ignore[attr-defined]
    n = len(diffs)
    mean = statistics.mean(diffs) if diffs else float("nan")
    half = 1.96 * statistics.stdev(diffs) / math.sqrt(n) if n > 1 else float("nan")
    pair_scores = [p for r in rots for p in r["pairs"]]
    s = statistics.mean(pair_scores) if pair_scores else 0.5
    s = min(max(s, 1e-3), 1 - 1e-3)
    return {
        "bot": bot,
        "budget_ms": budget_ms,
        "deals": n,
        "matches": len(rots),
        "hands": sum(r["hands"] for r in rots),
        "points_per_hand": round(statistics.mean(r["points_per_hand"] for r in rots), 3) if rots else None,
        "vs_field_per_hand": round(mean, 3),
        "ci95": [round(mean - half, 3), round(mean + half, 3)],
        "win_pct": round(100 * statistics.mean(1.0 if r["win"] else 0.0 for r in rots), 1) if rots else None,
        "elo_vs_heuristic": round(400 * math.log10(s / (1 - s))),  # against the field, whichever it is
        "faults": sum(r["faults"] for r in rots),
        "timeouts": sum(r["timeouts"] for r in rots),
        "moons": sum(r.get("moons", 0) for r in rots),
        "field_moons": sum(r.get("field_moons", 0) for r in rots),
        "stopped": sum(r.get("stopped", 0) for r in rots),
        "think_ms": round(statistics.mean(thinks), 2) if thinks else None,
        "field": field_bot,
        "rules": preset,
        "seconds": round(seconds, 1),
    }


def run(
    bot: str,
    budget_ms: float,
    deals: int,
    workers: int,
    seconds: float | None,
    first_seed: int = 1,
    field_bot: str = "heuristic",
    preset: str = "standard",
) -> dict:
    bank_ms = 10 * budget_ms
    tasks = [(bot, first_seed + i, budget_ms, bank_ms, field_bot, preset) for i in range(deals)]
    start = time.perf_counter()
    done: list[dict[str, object]] = []
    if workers <= 1:
        for t in tasks:
            if seconds is not None and time.perf_counter() - start > seconds:
                break
            done.append(play_deal(t))
    else:
        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            pending = [pool.apply_async(play_deal, (t,)) for t in tasks]
            for p in pending:
                left = None if seconds is None else max(0.0, seconds - (time.perf_counter() - start))
                try:
                    done.append(p.get(timeout=left if left else 0.001) if seconds is not None else p.get())
                except multiprocessing.TimeoutError:
                    break
            pool.terminate()
    return summarise(bot, budget_ms, done, time.perf_counter() - start, field_bot, preset)


def _line(r: dict) -> str:
    lo, hi = r["ci95"]
    think = f"{r['think_ms']:.1f}" if r.get("think_ms") is not None else "-"
    return (
        f"{r['bot']:<11}{r['field']:<11}{r['rules']:<13}{r['budget_ms']:>7.0f} ms{r['deals']:>7}{r['hands']:>8}"
        f"{r['points_per_hand']:>9.2f}{r['vs_field_per_hand']:>+9.2f}  [{lo:+.2f}, {hi:+.2f}]{r['win_pct']:>8.1f}"
        f"{r['elo_vs_heuristic']:>+7}{r['moons']:>6}{r['stopped']:>8}{think:>9}{r['timeouts']:>6}"
    )


HEADER = (
    f"{'bot':<11}{'field':<11}{'rules':<13}{'budget':>10}{'deals':>7}{'hands':>8}{'pts/hand':>9}{'vs field':>9}  "
    f"{'95% interval':<16}{'win %':>8}{'Elo':>7}{'moons':>6}{'stopped':>8}{'think ms':>9}{'t/o':>6}"
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bot", choices=BOTS, default="montecarlo")
    ap.add_argument("--field", choices=BOTS, default="heuristic", help="the bot of the other seats (default heuristic)")
    ap.add_argument(
        "--rules", default="standard", help="a preset: standard, cancellation, turbo, ... (default standard)"
    )
    ap.add_argument("--budget-ms", type=float, default=10.0)
    ap.add_argument("--deals", type=int, default=4, help="duplicate deals (each played in every seat)")
    ap.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--seconds", type=float, default=None, help="stop handing out deals after this long")
    ap.add_argument("--long", action="store_true", help="the long run: the search bot's rows at 100 ms (hours)")
    ap.add_argument("--table", action="store_true", help="the baselines of docs/strength.md")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if args.long:
        # The search bot against the heuristic field and against montecarlo (the same clock, so the
        # same think time: the rows' think ms say it), both at 100 ms over 60 deals (2,000+ hands),
        # then under two packs and turbo charges; montecarlo's own row beside it, then at 1 s.
        rows = [
            run("ismcts", 100, 60, args.workers, args.seconds),
            run("montecarlo", 100, 60, args.workers, args.seconds),
            run("ismcts", 100, 60, args.workers, args.seconds, field_bot="montecarlo"),
            run("ismcts", 100, 60, args.workers, args.seconds, preset="cancellation"),
            run("ismcts", 100, 60, args.workers, args.seconds, preset="turbo"),
            run("montecarlo", 1000, 20, args.workers, args.seconds),
        ]
    elif args.table:
        rows = [run(b, 100, args.deals, args.workers, args.seconds) for b in ("random", "lowest", "heuristic")]
        rows += [run("montecarlo", ms, args.deals, args.workers, args.seconds) for ms in (10, 100, 1000)]
    else:
        rows = [
            run(
                args.bot,
                args.budget_ms,
                args.deals,
                args.workers,
                args.seconds,
                field_bot=args.field,
                preset=args.rules,
            )
        ]
    if args.json:
        print(json.dumps(rows))
        return
    print(
        "duplicate deals, the candidate against three of the field "
        "(vs field: points per hand minus the field's; lower is better)"
    )
    print(HEADER)
    for r in rows:
        print(_line(r))


if __name__ == "__main__":
    main()
