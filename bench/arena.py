"""Benchmark the arena's leaderboard endpoint: 100k recorded matches among 200 bots.

Run from the project root: `python bench/arena.py` (a table) or `--json`. A real uvicorn serves the
arena's app (without its background worker) on a free port, and real HTTP asks for the
leaderboard: once to fit the ratings (reported), then `--requests` times; then the server is started
again and asked once more (the first request after a restart, answered from the board the fit
saved). Target: the median answer, after the fit, under 200 ms. `--strict` exits 1 when it is missed.

Then the ladder's pace: the arena's continuous ladder (its worker, with four house bots started by
command) against `hearts tournament run` (``play_tournament``) of the same bots at the same
concurrency, in matches a second from each one's first recorded match to its last (bots' starts
left out of both). Target: the ladder at least 0.9x the tournament.
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
import threading
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # project root

import httpx
import uvicorn

from bench.support.playing_arena import HOUSE, house_arena, match_ends
from ladder.arena.accounts import add_user, hash_token
from ladder.arena.app import build_app
from ladder.arena.config import ArenaConfig
from ladder.arena.store import ArenaStore
from ladder.arena.worker import ArenaWorker, ladder_tournament, settings_of
from ladder.bots.launcher import free_port
from ladder.bots.registry import BotEntry
from ladder.store import Store
from ladder.store.save import save_scheduled
from ladder.tournament.run import TournamentSpec, create_tournament, play_tournament
from ladder.tournament.schedule import ScheduledMatch
from referee.record import HandRecord, MatchRecord, SeatRecord, utc_now
from referee.rules import Rules

TARGET_MS = 200.0
BOT_PAGE_TARGET_MS = 100.0  # a bot's page, from its whole-history tallies
LADDER_TARGET = 0.9  # the ladder's matches/s against the tournament's


def _pace(db: Path) -> tuple[int, float]:
    """The matches of a database, and their pace: matches a second from the first one's end to the last's."""
    ends = match_ends(db)
    if len(ends) < 2:
        return len(ends), 0.0
    return len(ends), (len(ends) - 1) / (ends[-1] - ends[0])


def ladder_pace(folder: Path, matches: int, concurrency: int, rules: str) -> dict[str, float]:
    """The arena's ladder against a tournament of the same bots: matches a second of each."""
    # The tournament: a round robin of the four (each deal played in every seating), as many matches.
    store = Store(folder / "tournament.db")
    entries = [BotEntry(n, command=c) for n, c in HOUSE.items()]
    settings = settings_of(ArenaConfig())
    spec = TournamentSpec(rules=rules, deals=max(1, matches // 4), seed=1, settings=settings)
    tid = create_tournament(store, entries, spec)
    asyncio.run(play_tournament(store, tid, concurrency=concurrency, log_dir=folder / "logs-t", workers=0))
    store.close()
    played_t, pace_t = _pace(folder / "tournament.db")
    # The arena: its worker alone (no web server), until it has recorded as many.
    arena = folder / "ladder-arena"
    arena.mkdir()
    cfg = house_arena(arena, rules, concurrency=concurrency, bot_concurrency=concurrency)
    worker = ArenaWorker(arena, cfg)
    worker.start()
    try:
        while _pace(arena / "arena.db")[0] < played_t:
            time.sleep(0.5)
    finally:
        worker.stop()
    played_a, pace_a = _pace(arena / "arena.db")
    return {
        "tournament_matches": played_t,
        "tournament_matches_per_s": round(pace_t, 3),
        "ladder_matches": played_a,
        "ladder_matches_per_s": round(pace_a, 3),
        "ladder_vs_tournament": round(pace_a / pace_t, 3) if pace_t else 0.0,
        "concurrency": concurrency,
    }


def build(folder: Path, n_matches: int, n_bots: int, seed: int) -> tuple[ArenaConfig, str, float]:
    """An arena database with ``n_bots`` participants' bots and ``n_matches`` recorded matches."""
    cfg = ArenaConfig(rules="standard")
    store = ArenaStore(folder / "arena.db")
    t0 = time.perf_counter()
    _org, _ = add_user(store, "organiser", organiser=True)
    _me, token = add_user(store, "viewer")
    dummy = hash_token("x")  # one scrypt for all the rest: their tokens are never used
    owners = [store.add_user(f"student{i:03d}", "participant", dummy, f"alias-u{i}") for i in range(n_bots // 2)]
    names = []
    for i in range(n_bots):
        bot_id = store.add_bot(f"bot{i:03d}", owners[i % len(owners)], f"alias-b{i}")
        v = store.add_version(bot_id, owners[i % len(owners)], status="valid", kind="address", address="127.0.0.1:1")
        names.append(v.ladder_name)
    tid = ladder_tournament(store, cfg)
    rng = random.Random(seed)
    strength = {n: rng.gauss(0, 1) for n in names}
    record_matches(store, tid, cfg, strength, rng, 0, n_matches)
    store.close()
    return cfg, token, time.perf_counter() - t0


def record_matches(
    store: ArenaStore, tid: int, cfg: ArenaConfig, strength: dict[str, float], rng: random.Random, first: int, n: int
) -> None:
    """``n`` synthetic one-hand matches of the ladder, from index ``first``, in one transaction (each
    saved as the arena saves a match: its live Elo, its bots' tallies)."""
    rules = Rules.parse(cfg.rules).to_dict()
    names = list(strength)
    with store.db.atomic():
        schedule = []
        for i in range(first, first + n):
            seats = rng.sample(names, 4)
            schedule.append(ScheduledMatch(i, 0, i, 0, 0, i, tuple(seats), cfg.rules))
        store.ladder.tournaments.insert_schedule(tid, schedule)
        for m in schedule:
            order = sorted(m.seats, key=lambda n: -(strength[n] + rng.gauss(0, 1.3)))
            place = {n: k + 1 for k, n in enumerate(order)}
            scores = {n: 20 * place[n] for n in m.seats}
            record = MatchRecord(
                match_id=f"t{tid}-{m.index:06d}",
                seed=m.seed,
                rules=rules,
                seats=[SeatRecord(seat=k, bot=n, final_score=scores[n], place=place[n]) for k, n in enumerate(m.seats)],
                started_at=utc_now(),
                finished_at=utc_now(),
                winners=(m.seats.index(order[0]),),
                hands=[
                    HandRecord(
                        hand=0,
                        pass_direction="left",
                        dealer=0,
                        deal=((), (), (), ()),
                        points_taken=tuple(scores[n] for n in m.seats),
                        score=tuple(scores[n] for n in m.seats),
                        totals=tuple(scores[n] for n in m.seats),
                    )
                ],
                tournament_id=tid,
            )
            save_scheduled(store.ladder, tid, m.index, record)  # as the arena saves: its live Elo too


def bot_pages(c: httpx.Client, names: list[str], requests: int) -> dict[str, float]:
    """A bot's page (``/bots/NAME``, as a visitor sees it) ``requests`` times, over the bots in turn."""
    times = []
    for i in range(requests):
        t0 = time.perf_counter()
        r = c.get(f"/bots/{names[i % len(names)]}", headers={"Authorization": ""})
        times.append(1000 * (time.perf_counter() - t0))
        assert r.status_code == 200, r.text[:300]
    return {
        "bot_page_median_ms": round(statistics.median(times), 1),
        "bot_page_max_ms": round(max(times), 1),
        "bot_page_target_ms": BOT_PAGE_TARGET_MS,
    }


def follow_new_matches(
    c: httpx.Client, folder: Path, cfg: ArenaConfig, more: int, seed: int, had: int
) -> dict[str, float]:
    """``more`` matches recorded one by one (its own connection, a save a tenth of a second) while
    the leaderboard is read: each answer's time, and how long after the last save the board showed it."""
    saved_at: list[float] = []

    def record() -> None:
        store = ArenaStore(folder / "arena.db")  # the writer's own connection, in its own thread
        tid = ladder_tournament(store, cfg)
        rng = random.Random(seed + 1)
        strength = {name: rng.gauss(0, 1) for name in sorted(v.ladder_name for v in store.newest_valid())}
        try:
            for i in range(more):
                record_matches(store, tid, cfg, strength, rng, had + i, 1)
                saved_at.append(time.perf_counter())
                time.sleep(0.1)
        finally:
            store.close()

    writer = threading.Thread(target=record)
    writer.start()
    times: list[float] = []
    shown = 0.0
    give_up = time.perf_counter() + 600
    while time.perf_counter() < give_up and (writer.is_alive() or len(saved_at) == more):
        t0 = time.perf_counter()
        r = c.get("/api/leaderboard")
        times.append(1000 * (time.perf_counter() - t0))
        assert r.status_code == 200, r.text
        if r.json()["matches"] == had + more:
            shown = time.perf_counter() - saved_at[-1]
            break
        time.sleep(0.05)
    writer.join()
    assert shown, f"the board never showed the {more} new matches ({len(saved_at)} saved)"
    return {
        "more_matches": more,
        "recording_requests": len(times),
        "recording_median_ms": round(statistics.median(times), 1),
        "recording_max_ms": round(max(times), 1),
        "new_matches_shown_after_s": round(shown, 2),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    ap.add_argument("--matches", type=int, default=100_000)
    ap.add_argument("--bots", type=int, default=200)
    ap.add_argument("--requests", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--ladder-matches", type=int, default=40, help="matches each of the ladder's pace and the tournament's"
    )
    ap.add_argument("--ladder-rules", default="standard")
    ap.add_argument("--concurrency", type=int, default=2, help="matches at once, of the ladder and the tournament")
    ap.add_argument("--more", type=int, default=10, help="matches recorded while the leaderboard is read")
    ap.add_argument("--strict", action="store_true", help="exit 1 if the target is missed")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        cfg, token, build_s = build(folder, args.matches, args.bots, args.seed)
        following: dict[str, float] = {}
        pages: dict[str, float] = {}
        times: list[float] = []
        restart_ms = 0.0
        for start in ("first", "restart"):  # the restart finds the board the first start's fit saved
            port = free_port()
            server = uvicorn.Server(
                uvicorn.Config(
                    build_app(folder, cfg, background=False), host="127.0.0.1", port=port, log_level="warning"
                )
            )
            thread = threading.Thread(target=server.run, daemon=True)
            thread.start()
            while not server.started:
                time.sleep(0.05)
            try:
                with httpx.Client(
                    base_url=f"http://127.0.0.1:{port}", headers={"Authorization": f"Bearer {token}"}, timeout=600
                ) as c:
                    t0 = time.perf_counter()
                    first = c.get("/api/leaderboard")
                    ms = 1000 * (time.perf_counter() - t0)
                    assert first.status_code == 200, first.text
                    if start == "restart":
                        restart_ms = ms
                        continue
                    fit_ms = ms
                    board = first.json()
                    for _ in range(args.requests):
                        t0 = time.perf_counter()
                        r = c.get("/api/leaderboard")
                        times.append(1000 * (time.perf_counter() - t0))
                        assert r.status_code == 200
                    pages = bot_pages(c, [r["bot"] for r in board["rows"]], args.requests)
                    following = follow_new_matches(c, folder, cfg, args.more, args.seed, board["matches"])
            finally:
                server.should_exit = True
                thread.join(10)
        pace = ladder_pace(folder, args.ladder_matches, args.concurrency, args.ladder_rules)
    result = {
        "matches": board["matches"],
        "bots": len(board["rows"]),
        "build_s": round(build_s, 1),
        "first_request_with_fit_ms": round(fit_ms, 1),
        "first_request_after_a_restart_ms": round(restart_ms, 1),
        "median_ms": round(statistics.median(times), 1),
        "max_ms": round(max(times), 1),
        "target_ms": TARGET_MS,
        "ratio_to_target": round(statistics.median(times) / TARGET_MS, 3),
        **pages,
        **following,
        **pace,
        "ladder_target": LADDER_TARGET,
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"arena leaderboard: {result['matches']} matches, {result['bots']} bots (database built in {build_s:.1f} s)"
        )
        print(f"  first request (fits the ratings): {fit_ms:8.1f} ms")
        print(f"  first request after a restart:    {restart_ms:8.1f} ms (the saved board)")
        print(
            f"  after the fit, median of {args.requests}:   {result['median_ms']:8.1f} ms (max {result['max_ms']} ms)"
        )
        print(f"  target: under {TARGET_MS:g} ms -> {'met' if result['median_ms'] < TARGET_MS else 'MISSED'}")
        print(
            f"  a bot's page (its whole history), median of {args.requests}: {pages['bot_page_median_ms']:.1f} ms "
            f"(max {pages['bot_page_max_ms']:.1f} ms; target under {BOT_PAGE_TARGET_MS:g} ms)"
        )
        print(
            f"  while {args.more} more matches were recorded: median {following['recording_median_ms']:.1f} ms, "
            f"max {following['recording_max_ms']:.1f} ms; the board showed them "
            f"{following['new_matches_shown_after_s']:.1f} s after the last one's save"
        )
        ratio = pace["ladder_vs_tournament"]
        print(f"arena ladder against hearts tournament run, the same four bots at concurrency {args.concurrency}:")
        print(f"  tournament: {pace['tournament_matches_per_s']:6.2f} matches/s ({pace['tournament_matches']} matches)")
        print(f"  ladder:     {pace['ladder_matches_per_s']:6.2f} matches/s ({pace['ladder_matches']} matches)")
        verdict = "met" if ratio >= LADDER_TARGET else "MISSED"
        print(f"  ladder / tournament: {ratio:.3f} (target at least {LADDER_TARGET}) -> {verdict}")
    missed = result["median_ms"] >= TARGET_MS or pace["ladder_vs_tournament"] < LADDER_TARGET
    return 1 if args.strict and missed else 0


if __name__ == "__main__":
    sys.exit(main())
