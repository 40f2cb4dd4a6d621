"""Benchmark the arena's storage: its database's bytes a match and a hand, and the online backup's speed.

Run from the project root: `python bench/storage.py` (a table) or `--json`. A few dozen real matches
are played in process (four random bots, the arena's default ruleset, the full record: every pass,
play and clock), then saved again and again under new ids, seated among `--bots` participants'
versions, each scheduled and recorded as the ladder records it, until the arena holds `--matches`
matches. At each size of `--matches` (several sizes show whether the bytes a match stay flat) it
reports the database's size, the bytes a match and a hand, the tables that hold them, and how long
`hearts arena backup`'s copy of the database (SQLite's online backup, the same function) and its
check take. docs/arena.md ("Keeping an arena") quotes its figures.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import random
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # project root

from clients.bots.random import RandomBot
from ladder.arena.accounts import add_user, hash_token
from ladder.arena.config import ArenaConfig
from ladder.arena.store import ArenaStore
from ladder.arena.worker import ladder_tournament
from ladder.bots.inprocess import SdkSeat
from ladder.store import Store
from ladder.store.backup import check_copy, copy_database
from ladder.store.save import save_scheduled
from ladder.tournament.schedule import ScheduledMatch
from referee.match import play_match
from referee.record import MatchRecord
from referee.rules import Rules

SAMPLE_MATCHES = 40  # real matches played once, saved again under new ids (their hands vary as played)
BATCH = 1000  # matches scheduled at once, as the ladder schedules a batch
MILLION = 1_000_000  # the size asked about: extrapolated from the largest size measured


def sample(rules: str, n: int, seed: int) -> list[MatchRecord]:
    """``n`` whole matches of four random bots, played by the referee as the ladder plays them."""
    seats = [SdkSeat(RandomBot(seed + i), f"random-{i}") for i in range(4)]
    parsed = Rules.parse(rules)
    return [asyncio.run(play_match(seats, parsed, seed + k)) for k in range(n)]


def grow(
    store: Store, tid: int, rules: str, names: list[str], records: list[MatchRecord], start: int, stop: int
) -> int:
    """Save matches ``start`` .. ``stop`` - 1 of the ladder ``tid`` (copies of ``records``, new
    seats); the hands saved."""
    rng = random.Random(start)
    hands = 0
    for first in range(start, stop, BATCH):
        schedule = [
            ScheduledMatch(i, i // BATCH, i % BATCH, 0, 0, i, tuple(rng.sample(names, 4)), rules)
            for i in range(first, min(first + BATCH, stop))
        ]
        with store.db.atomic():
            store.tournaments.insert_schedule(tid, schedule)
        for m in schedule:
            r = records[m.index % len(records)]
            record = dataclasses.replace(
                r,
                match_id=f"t{tid}-{m.index:07d}",
                seed=m.seed,
                tournament_id=tid,
                seats=[dataclasses.replace(s, bot=m.seats[s.seat]) for s in r.seats],
            )
            save_scheduled(store, tid, m.index, record)  # the ladder's own save: one transaction a match
            hands += len(record.hands)
    return hands


def table_bytes(db: Path) -> dict[str, int]:
    """Bytes of each table with its indexes (SQLite's dbstat), largest first."""
    conn = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
    try:
        q = (
            "SELECT COALESCE(m.tbl_name, s.name), SUM(s.pgsize) FROM dbstat s "
            "LEFT JOIN sqlite_master m ON m.name = s.name GROUP BY 1 ORDER BY 2 DESC"
        )
        return {str(name): int(size) for name, size in conn.execute(q)}
    except sqlite3.OperationalError:  # a SQLite built without dbstat
        return {}
    finally:
        conn.close()


def show(r: dict[str, Any]) -> None:
    """One size's lines of the table, printed as soon as it is measured (the sizes take minutes)."""
    print(
        f"  {r['matches']:>9} matches {r['hands']:>10} hands: {r['database_bytes'] / 1e6:9.1f} MB, "
        f"{r['bytes_per_match']:>6} B/match, {r['bytes_per_hand']:>5} B/hand (built in {r['build_s']} s)"
    )
    print(f"  {'':>9} online backup {r['backup_s']} s ({r['backup_mb_per_s']} MB/s), its check {r['check_s']} s")
    shares = ", ".join(f"{t} {b / r['database_bytes']:.0%}" for t, b in r["largest_tables"].items())
    print(f"  {'':>9} bytes by table: {shares}", flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    ap.add_argument("--matches", type=int, nargs="+", default=[100_000], help="the sizes measured, growing")
    ap.add_argument("--bots", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    sizes = sorted(args.matches)
    cfg = ArenaConfig(rules="standard")
    records = sample(cfg.rules, SAMPLE_MATCHES, args.seed)
    results: list[dict[str, Any]] = []
    if not args.json:
        print(f"arena storage: real matches of four random bots ({cfg.rules}), {args.bots} bots", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        db = folder / "arena.db"
        store = ArenaStore(db)
        add_user(store, "organiser", organiser=True)
        dummy = hash_token("x")  # one scrypt for all: these tokens are never used
        owners = [store.add_user(f"student{i:03d}", "participant", dummy, f"alias-u{i}") for i in range(args.bots)]
        names = []
        for i, owner in enumerate(owners):
            bot_id = store.add_bot(f"bot{i:03d}", owner, f"alias-b{i}")
            v = store.add_version(bot_id, owner, status="valid", kind="address", address="127.0.0.1:1")
            names.append(v.ladder_name)
        tid = ladder_tournament(store, cfg)
        store.close()
        # The ladder's matches through a plain Store, as the worker saves them: no fsync a commit (the
        # arena's accounts and submissions have it); the same pages either way.
        ladder = Store(db)
        done, hands = 0, 0
        for size in sizes:
            t0 = time.perf_counter()
            hands += grow(ladder, tid, cfg.rules, names, records, done, size)
            build_s = time.perf_counter() - t0
            done = size
            ladder.close()  # a checkpoint: the WAL's pages are in the file, which is measured alone
            db_bytes = db.stat().st_size
            copy = folder / "copy.db"
            snapshot = copy_database(db, copy)
            t0 = time.perf_counter()
            problems = check_copy(copy, snapshot)
            check_s = time.perf_counter() - t0
            assert not problems, problems
            for made in folder.glob("copy.db*"):  # its -wal and -shm too
                made.unlink()
            tables = table_bytes(db)
            results.append(
                {
                    "matches": size,
                    "hands": hands,
                    "hands_per_match": round(hands / size, 2),
                    "database_bytes": db_bytes,
                    "bytes_per_match": round(db_bytes / size),
                    "bytes_per_hand": round(db_bytes / hands),
                    "largest_tables": dict(list(tables.items())[:6]),
                    "build_s": round(build_s, 1),
                    "backup_s": round(snapshot.seconds, 2),
                    "backup_mb_per_s": round(snapshot.bytes / 1e6 / snapshot.seconds, 1),
                    "check_s": round(check_s, 2),
                }
            )
            if not args.json:
                show(results[-1])
            ladder = Store(db)
        ladder.close()
    last = results[-1]
    extrapolated = {
        "matches": MILLION,
        "database_bytes": last["bytes_per_match"] * MILLION,
        "backup_s": round(last["bytes_per_match"] * MILLION / 1e6 / last["backup_mb_per_s"], 1),
    }
    if args.json:
        print(json.dumps({"sizes": results, "at_1m_extrapolated": extrapolated}))
    else:
        print(
            f"  at {MILLION:,} matches (extrapolated at {last['bytes_per_match']} B/match): "
            f"{extrapolated['database_bytes'] / 1e9:.1f} GB, its backup about {extrapolated['backup_s']} s"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
