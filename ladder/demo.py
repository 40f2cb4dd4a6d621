"""``make demo``: a local round robin of the sample bots, then the ladder.

Starts the sample bots as subprocesses (random three times with different seeds, lowest, heuristic,
montecarlo thinking 20 ms a decision), plays a duplicate round robin among them with the standard
rules, records it in ``demo.db`` (made afresh each run; ``*.db`` is git-ignored) and prints the
leaderboard: 60 matches (one deal a table, in every rotation), about 45 s on two cores. Afterwards
``hearts ladder --db demo.db`` and ``hearts replay MATCH --db demo.db`` work on it.

    python -m ladder.demo [--db demo.db] [--deals 1] [--concurrency 4] [--seed 1]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console

from ladder.bots.registry import BotEntry
from ladder.ratings.leaderboard import load_leaderboard, render_table
from ladder.store import Store
from ladder.tournament.progress import Progress
from ladder.tournament.run import (
    TournamentSpec,
    create_tournament,
    get_tournament,
    run_tournament,
)
from referee.untrusted import inert_text

__all__ = ["DEMO_BOTS", "main", "run_demo"]

DEMO_BOTS: tuple[BotEntry, ...] = (
    BotEntry(
        "random",
        command="python -m clients.bots.random --port {port} --seed 1",
        description="uniformly random legal moves",
    ),
    BotEntry(
        "random-2",
        command="python -m clients.bots.random --port {port} --seed 2",
        description="the random bot with another seed",
    ),
    BotEntry(
        "random-3", command="python -m clients.bots.random --port {port} --seed 3", description="and a third seed"
    ),
    BotEntry(
        "lowest", command="python -m clients.bots.lowest --port {port}", description="always the lowest legal card"
    ),
    BotEntry(
        "heuristic",
        command="python -m clients.bots.heuristic --port {port}",
        description="pass high spades and hearts, duck, dump Q♠",
    ),
    BotEntry(
        "montecarlo",
        command="python -m clients.bots.montecarlo --port {port} --budget-fraction 0.02 --bank-fraction 0",
        description="Monte Carlo over sampled worlds, 20 ms a decision (of the 1 s budget)",
    ),
)


def run_demo(db: Path, *, deals: int = 1, concurrency: int = 4, seed: int = 1, console: Console | None = None) -> float:
    """Play the demo tournament into a fresh ``db`` and print its ladder; returns the seconds taken."""
    console = console or Console()
    t0 = time.monotonic()
    for suffix in ("", "-wal", "-shm"):  # the demo's own file: start afresh so runs do not pile up
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    with Store(db) as store:
        tid = create_tournament(store, DEMO_BOTS, TournamentSpec(rules="standard", deals=deals, seed=seed))
        info = get_tournament(store, tid)
        console.print(
            f"[bold]hearts-arena demo[/]: {len(DEMO_BOTS)} sample bots as subprocesses over gRPC, a "
            f"duplicate round robin of {info.total} matches (each deal from every seat), "
            f"{concurrency} at a time, recorded in {db}"
        )
        with Progress(info.total, title="demo", stream=sys.stdout) as progress:
            summary = run_tournament(store, tid, concurrency=concurrency, on_record=progress.on_record)
        for event in summary.events:
            console.print(inert_text(event, style="yellow"))
        lb = load_leaderboard(store, tournament_id=tid)
        console.print(render_table(lb, title="Demo ladder"))
        first = store.list_matches(tournament_id=tid, limit=1)
    seconds = time.monotonic() - t0
    console.print(
        f"{summary.played} matches in {seconds:.1f} s ({summary.faults} faults). Explore: "
        f"hearts ladder --db {db}" + (f"; hearts replay {first[0].match_id} --db {db}" if first else "")
    )
    return seconds


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m ladder.demo", description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, default=Path("demo.db"), help="SQLite file, made afresh (default demo.db)")
    parser.add_argument("--deals", type=int, default=1, help="deals per table, each in every rotation (default 1)")
    parser.add_argument("--concurrency", type=int, default=4, help="matches at once (default 4)")
    parser.add_argument("--seed", type=int, default=1, help="tournament seed (default 1)")
    args = parser.parse_args(argv)
    console = Console() if sys.stdout.isatty() else Console(width=170)  # piped: room for the ladder's columns
    run_demo(args.db, deals=args.deals, concurrency=args.concurrency, seed=args.seed, console=console)


if __name__ == "__main__":
    main()
