"""Each bot's whole-history tallies (its hands by the points it took, its faults by kind) are kept by
the store as matches are saved and deleted, and made by the migration for a store saved before them:
always what counting every record of the bot says. Its live Elo after each match, in the order saved."""

from __future__ import annotations

import asyncio
import dataclasses
import sqlite3
from collections import Counter
from pathlib import Path

from clients.bots import make_bot
from ladder.store import Store
from ladder.store import schema as schema_module
from ladder.store.save import save_scheduled
from ladder.tournament.schedule import build_schedule, match_id
from referee.match import play_match
from referee.record import FaultKind, FaultRecord, MatchRecord
from referee.rules import Rules
from referee.seats import InProcessSeat

RULES = "standard,target=30"
NAMES = ["a", "b", "c", "d", "e"]


def _counted(records: list[MatchRecord], names: list[str]) -> tuple[dict[int, int], dict[str, int]]:
    """The tallies of bots ``names`` by reading every record."""
    points: Counter[int] = Counter()
    faults: Counter[str] = Counter()
    for r in records:
        seats = [s.seat for s in r.seats if s.bot in names]
        for h in r.hands:
            points.update(h.points_taken[s] for s in seats)
        faults.update(FaultKind(f.kind).value for f in r.faults if f.seat in seats)
    return dict(points), dict(faults)


def _played(store: Store, matches: int) -> list[MatchRecord]:
    """The first ``matches`` of the five bots' round robin (its deal's other seatings still to play),
    saved as a tournament saves them; every third with two faults of the seat that leads."""
    tid = store.tournaments.insert(
        format="round-robin", rules=RULES, seed=1, rounds=1, deals=1, gauntlet=None, bots="[]", settings="{}"
    )
    store.tournaments.insert_schedule(tid, build_schedule(NAMES, rules=RULES, seed=2))
    records = []
    for m in store.tournaments.pending(tid)[:matches]:
        seats = [InProcessSeat(make_bot("random", seed=m.index * 4 + i), b) for i, b in enumerate(m.seats)]
        r = asyncio.run(
            play_match(seats, Rules.parse(m.rules), m.seed, match_id=match_id(tid, m.index), names=list(m.seats),
                       tournament_id=tid)
        )  # fmt: skip
        if m.index % 3 == 0:
            faults = [FaultRecord(1, 0, 0, FaultKind.TIMEOUT, "late", "PlayCard", "", "substituted")]
            r = dataclasses.replace(r, faults=faults + [dataclasses.replace(faults[0], kind=FaultKind.ILLEGAL_CARD)])
        save_scheduled(store, tid, m.index, r)
        records.append(r)
    store.db.conn.commit()  # the tournament's own rows, written outside a save
    return records


def test_the_tallies_are_every_record_counted_as_matches_are_saved_and_deleted(tmp_path: Path) -> None:
    with Store(tmp_path / "t.db") as store:
        records = _played(store, 7)
        for names in (["a"], ["b", "c"], NAMES):
            assert store.ladder.bot_tallies(names) == _counted(records, names), names
        gone = records.pop(3)
        store.delete_match(gone.match_id)
        assert store.ladder.bot_tallies(NAMES) == _counted(records, NAMES)
        # Left out: what the records but those say.
        left = records[0].match_id
        assert store.ladder.bot_tallies(["a", "d"], leave_out={left}) == _counted(records[1:], ["a", "d"])
        assert store.ladder.bot_tallies([]) == ({}, {})


def test_the_migration_tallies_a_store_saved_before_it(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    with Store(path) as store:
        records = _played(store, 5)
    with sqlite3.connect(path) as conn:  # as the version before the tallies left it
        for trigger in ("bot_hand_points_added", "bot_fault_kinds_added", "bot_tallies_match_deleted"):
            conn.execute(f"DROP TRIGGER {trigger}")
        conn.execute("DROP TABLE bot_hand_points")
        conn.execute("DROP TABLE bot_fault_kinds")
        conn.execute(f"PRAGMA user_version = {schema_module.MIGRATIONS.index(schema_module._m22_bot_tallies)}")
    with Store(path) as store:
        assert store.ladder.bot_tallies(NAMES) == _counted(records, NAMES)
        assert store.ladder.bot_tallies(["e"]) == _counted(records, ["e"])


def test_a_bots_live_elo_history_is_in_the_order_saved_and_its_matches_in_play_are_named(tmp_path: Path) -> None:
    with Store(tmp_path / "t.db") as store:
        records = _played(store, 6)
        history = store.ladder.live_elo_history(["a"])
        mine = [r for r in records if "a" in {s.bot for s in r.seats}]
        assert len(history) == len(mine) >= 3
        after = {mid: before + change for mid, before, change in store.db.execute(
            "SELECT l.match_id, l.elo_before, l.elo_change FROM live_elo l JOIN bots b ON b.id = l.bot_id "
            "WHERE b.name = 'a'"
        )}  # fmt: skip
        assert history == [after[r.match_id] for r in mine], "in the order saved"
        assert history[-1] == 1500.0 + store.ladder.live_elo_changes(bots=["a"])["a"]
        # Until a match: the ratings before it.
        assert store.ladder.live_elo_history(["a"], until={mine[2].match_id, "t9-000000"}) == history[:2]
        # Only the deals with a seating still to play: the last one's recorded seatings.
        tid = records[0].tournament_id
        assert tid is not None
        open_seeds = store.seeds_in_play(tid)
        expected = {r.match_id for r in records if r.seed in open_seeds and "b" in {s.bot for s in r.seats}}
        assert open_seeds and store.ladder.in_play_among(["b"]) == expected
        everyone = {r.match_id for r in records if r.seed in open_seeds}
        assert store.ladder.in_play_among() == everyone and store.ladder.in_play_among([]) == set()
        # Until another bot's match: a's ratings saved before it (a later one holds its change through
        # the expected score).
        other = next(i for i, r in enumerate(records) if "a" not in {s.bot for s in r.seats})
        before = sum("a" in {s.bot for s in r.seats} for r in records[:other])
        assert store.ladder.live_elo_history(["a"], until={records[other].match_id}) == history[:before]
