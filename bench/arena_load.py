"""Benchmark the site under load while the ladder plays: many browsers at once.

Run from the project root: `python bench/arena_load.py` (a table) or `--json`. A real uvicorn serves
an arena whose ladder plays (its worker, four house bots started by command, short matches). First
the ladder plays for `--seconds` with nobody on the site: its pace, in matches a second from the
records. Then `--browsers` browsers, a small asyncio client (httpx, each browser one connection,
from distinct loopback addresses), each open a page, wait `--think` seconds as a reader does, and
open the next (the leaderboard, the matches, a bot's page, a replay, the live page, in turn), for as
long again. Reported: the pages' times (median, p99, max), the errors (any answer but 200, or none),
and the ladder's pace under the load against its idle pace. Targets: no error, and the pace within
10% of the idle one.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # project root

import httpx

from bench.support.playing_arena import house_arena, match_ends, served

PACE_TARGET = 0.9  # the ladder's pace under the load, against its idle pace
PER_ADDRESS = 8


def _pace(ends: list[float], start: float, stop: float) -> float:
    return sum(start <= t < stop for t in ends) / (stop - start)


async def _browse(
    url: str,
    address: str,
    paths: list[str],
    until: float,
    think: float,
    times: list[tuple[str, float]],
    errors: list[str],
) -> None:
    """One browser: page after page, a reader's pause between them, until ``until``."""
    transport = httpx.AsyncHTTPTransport(local_address=address)
    async with httpx.AsyncClient(base_url=url, transport=transport, timeout=60) as c:
        i = 0
        while time.time() < until:
            path = paths[i % len(paths)]
            i += 1
            t0 = time.perf_counter()
            try:
                r = await c.get(path)
                if r.status_code != 200:
                    errors.append(f"{path}: {r.status_code}")
            except httpx.HTTPError as e:
                errors.append(f"{path}: {type(e).__name__}")
            else:
                times.append((_kind(path), 1000 * (time.perf_counter() - t0)))
            await asyncio.sleep(think)


def _kind(path: str) -> str:
    """A page's kind: its path with a bot's name or a match's id left out."""
    return re.sub(r"^/(bots|matches)/.+", r"/\1/…", path)


async def _load(url: str, browsers: int, seconds: float, think: float) -> tuple[list[tuple[str, float]], list[str]]:
    async with httpx.AsyncClient(base_url=url, timeout=60) as c:
        listing = (await c.get("/matches")).text
    matches = sorted(set(re.findall(r'href="(/matches/[^"?#/]+)"', listing)))
    bots = sorted(set(re.findall(r'href="(/bots/[^"?#/]+)"', listing)))
    times: list[tuple[str, float]] = []
    errors: list[str] = []
    until = time.time() + seconds
    tasks = []
    for b in range(browsers):
        # Each browser its own walk through the site, the pages in turn from a different start.
        paths = ["/", "/matches", bots[b % len(bots)], matches[b % len(matches)], "/live"]
        paths = paths[b % len(paths) :] + paths[: b % len(paths)]
        address = f"127.0.0.{2 + b // PER_ADDRESS}"
        tasks.append(_browse(url, address, paths, until, think, times, errors))
        await asyncio.sleep(think / browsers)  # arriving over one pause, not all in the same instant
    await asyncio.gather(*tasks)
    return times, errors


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    ap.add_argument("--browsers", type=int, default=200)
    ap.add_argument("--seconds", type=float, default=30.0, help="how long the ladder plays idle, then under the load")
    ap.add_argument("--think", type=float, default=5.0, help="seconds a browser waits between two pages")
    ap.add_argument("--rules", default="standard,target=30")
    ap.add_argument("--strict", action="store_true", help="exit 1 if a target is missed")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        cfg = house_arena(folder, args.rules)
        with served(folder, cfg, backlog=4096) as url:
            began = time.monotonic()
            while len(match_ends(folder / "arena.db")) < 4:  # the bots up and playing: a pace to measure
                if time.monotonic() - began > 120:
                    raise SystemExit("the arena's ladder recorded no 4 matches in 120 s: see its bots' logs")
                time.sleep(0.2)
            idle_from = time.time()
            time.sleep(args.seconds)
            loaded_from = time.time()
            timed, errors = asyncio.run(_load(url, args.browsers, args.seconds, args.think))
            loaded_to = time.time()
        ends = match_ends(folder / "arena.db")
    idle, loaded = _pace(ends, idle_from, loaded_from), _pace(ends, loaded_from, loaded_to)
    by_kind = {k: round(statistics.median(t for kk, t in timed if kk == k), 1) for k in sorted({k for k, _ in timed})}
    times = sorted(t for _, t in timed)
    result = {
        "browsers": args.browsers,
        "think_s": args.think,
        "seconds": args.seconds,
        "pages": len(times),
        "pages_per_s": round(len(times) / (loaded_to - loaded_from), 1),
        "median_ms": round(statistics.median(times), 1) if times else None,
        "p99_ms": round(times[min(len(times) - 1, int(0.99 * len(times)))], 1) if times else None,
        "max_ms": round(times[-1], 1) if times else None,
        "median_ms_by_page": by_kind,
        "errors": len(errors),
        "error_kinds": sorted(set(errors))[:10],
        "idle_matches_per_s": round(idle, 3),
        "loaded_matches_per_s": round(loaded, 3),
        "loaded_vs_idle": round(loaded / idle, 3) if idle else 0.0,
        "pace_target": PACE_TARGET,
    }
    met = not errors and result["loaded_vs_idle"] >= PACE_TARGET
    if args.json:
        print(json.dumps(result))
    else:
        print(f"site under load: {args.browsers} browsers, a page each every {args.think:g} s, for {args.seconds:g} s")
        print(
            f"  pages: {result['pages']} ({result['pages_per_s']}/s): median {result['median_ms']} ms, "
            f"p99 {result['p99_ms']} ms, max {result['max_ms']} ms; errors {result['errors']} {result['error_kinds']}"
        )
        print("  median by page: " + ", ".join(f"{k} {v} ms" for k, v in by_kind.items()))
        print(
            f"  the ladder: {idle:.2f} matches/s idle, {loaded:.2f} under the load: {result['loaded_vs_idle']:.3f} "
            f"(target at least {PACE_TARGET}) -> {'met' if met else 'MISSED'}"
        )
    return 1 if args.strict and not met else 0


if __name__ == "__main__":
    sys.exit(main())
