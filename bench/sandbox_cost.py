"""What the sandbox costs, measured against unsandboxed bots in the same run.

- bot start: from ``Launcher.start`` to a SERVING health check, of the SDK's ``lowest`` bot, plain
  and in bubblewrap (target: at most +200 ms);
- decisions per second: whole matches among four trivial bots (``lowest``) played ``--tables`` at
  once, plain and sandboxed (target: >= 0.95x). The sandboxed run includes everything the
  sandbox adds: the unix socket, the watch's thread reading /proc in the referee's process, the
  log pump, the check of who serves each seat before every handshake (seated as a tournament seats them).

Rounds alternate which goes first; the figure reported is the median of the rounds' ratios
(pairing cancels this shared machine's drift, the median ignores a round other work disturbed).

    python bench/sandbox_cost.py [--starts N] [--matches N] [--tables N] [--rounds N] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ladder.bots.launcher import Launcher  # noqa: E402
from ladder.sandbox import SandboxMode, SandboxUnavailable, probe  # noqa: E402
from ladder.venues.here import launcher_seat  # noqa: E402
from referee.match import MatchSettings, play_match  # noqa: E402
from referee.rules import Rules  # noqa: E402

BOT = "python -m clients.bots.lowest --port {port}"
RULES = "standard"


async def start_ms(mode: SandboxMode, logs: Path) -> float:
    async with Launcher(logs, sandbox=mode) as launcher:
        t0 = time.perf_counter()
        await launcher.start("b", BOT)
        return (time.perf_counter() - t0) * 1000


async def decisions_per_s(mode: SandboxMode, logs: Path, matches: int, tables: int) -> float:
    rules = Rules.parse(RULES)
    settings = MatchSettings()
    async with Launcher(logs, sandbox=mode) as launcher:
        names = [f"b{i}" for i in range(4)]
        addresses = await launcher.start_many((n, BOT, None) for n in names)
        seats = [launcher_seat(launcher, n, addresses[n]) for n in names]  # as a tournament seats them
        sem = asyncio.Semaphore(tables)

        async def one(seed: int) -> int:
            async with sem:
                r = await play_match(seats, rules, seed, settings=settings, names=names)
                return len(r.plays) + sum(len(h.passes) for h in r.hands)

        await one(0)  # warm: channels connected, handshakes done
        t0 = time.perf_counter()
        counts = await asyncio.gather(*(one(s) for s in range(1, matches + 1)))
        seconds = time.perf_counter() - t0
        for s in seats:
            await s.close()
        return sum(counts) / seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--starts", type=int, default=5, help="bot starts per mode per round")
    ap.add_argument("--matches", type=int, default=12, help="matches per mode per round")
    ap.add_argument("--tables", type=int, default=4, help="matches played at once")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    try:
        probe()
    except SandboxUnavailable as e:
        print(f"no sandbox benchmark: {e}")
        return
    plain, boxed = SandboxMode.OFF, SandboxMode.FULL
    starts: dict[SandboxMode, list[float]] = {plain: [], boxed: []}
    rates: dict[SandboxMode, list[float]] = {plain: [], boxed: []}
    ratios: list[float] = []
    extra: list[float] = []
    with tempfile.TemporaryDirectory() as d:
        logs = Path(d)
        for r in range(args.rounds):
            order = (plain, boxed) if r % 2 == 0 else (boxed, plain)
            round_starts: dict[SandboxMode, list[float]] = {plain: [], boxed: []}
            for _ in range(args.starts):
                for mode in order:
                    round_starts[mode].append(asyncio.run(start_ms(mode, logs)))
            for mode in order:
                starts[mode] += round_starts[mode]
            extra.append(statistics.median(round_starts[boxed]) - statistics.median(round_starts[plain]))
            round_rates = {mode: asyncio.run(decisions_per_s(mode, logs, args.matches, args.tables)) for mode in order}
            for mode in order:
                rates[mode].append(round_rates[mode])
            ratios.append(round_rates[boxed] / round_rates[plain])
    figures: dict[str, Any] = {
        "start_ms_plain": statistics.median(starts[plain]),
        "start_ms_sandboxed": statistics.median(starts[boxed]),
        "start_extra_ms": statistics.median(extra),
        "decisions_per_s_plain": statistics.median(rates[plain]),
        "decisions_per_s_sandboxed": statistics.median(rates[boxed]),
        "decisions_ratio": statistics.median(ratios),
        "rounds": args.rounds,
    }
    if args.json:
        print(json.dumps(figures))
        return
    print(f"{'':28}{'plain':>12}{'sandboxed':>12}{'':>4}figure (target)")
    print(
        f"{'bot start, ms (median)':28}{figures['start_ms_plain']:12.0f}{figures['start_ms_sandboxed']:12.0f}"
        f"{'':>4}{figures['start_extra_ms']:+.0f} ms (at most +200 ms)"
    )
    print(
        f"{'decisions/s, ' + str(args.tables) + ' tables':28}{figures['decisions_per_s_plain']:12.0f}"
        f"{figures['decisions_per_s_sandboxed']:12.0f}{'':>4}{figures['decisions_ratio']:.3f}x (>= 0.95x)"
    )
    print(f"median of {args.rounds} paired rounds; ratios {', '.join(f'{x:.3f}' for x in ratios)}")


if __name__ == "__main__":
    main()
