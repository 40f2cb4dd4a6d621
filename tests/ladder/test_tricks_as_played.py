"""Tricks and positions as played, under every ruleset, in the store, its ``plays`` view, the export and
``hearts replay``: a boosted trick (002 Booster Nines) is two rounds, one trick of 2 × players cards; a
trick without a winner (two packs) is a trick of one card from every seat; a kitty's cards are never
played. Real seeded matches of the sample bots (in-process seats, one of them faulting now and then),
saved in a real SQLite file and exported, against the engine's replay of the referee's own record
(``referee.report.replay_hands``); migration 21 rewriting a store that numbered a booster hand's plays
as if every trick were a card from every seat; and the booster-nines match of the bug report through
the real ``hearts match``, ``hearts export`` and ``hearts replay``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from cheat import Cheat
from cli_runner import ok
from rich.console import Console

from clients.bots import make_bot
from ladder.export import export_matches, match_from_json, match_to_json
from ladder.store import MIGRATIONS, Store
from ladder.store import schema as store_module
from ladder.store.tricks import may_differ, trick_starts, tricks_and_positions
from referee.match import MatchSettings, play_match
from referee.record import MatchRecord
from referee.report import replay, replay_hands
from referee.rules import PRESETS, Rules
from referee.seats import InProcessSeat

# Every preset, played to a lower target where its own is far (a few hands each), and the mixes whose
# tricks or deals differ most: booster nines at 3 and 5 seats (removed cards) and with a kitty (and its
# discard) and at 5 seats with one card removed and a kitty, booster nines with turbo charges, two packs
# at 10 seats, a kitty of an uneven deal (3 seats, 52 cards).
TARGET = {"spot": 150, "nasty": 120}
RULESETS = [f"{name},target={TARGET.get(name, 40)}" for name in PRESETS] + [
    "booster-nines,players=3,target=40",
    "booster-nines,players=5,target=40",
    "booster-nines,kitty=first-trick,hand_size=12,kitty_discard=true,target=40",
    "booster-nines,players=5,removed_cards=2C,kitty=first-trick,target=40",
    "turbo,booster_nines=true,target=40",
    "cancellation,players=10,target=40",
    "standard,players=3,kitty=first-points,target=40",
]
KINDS = ("heuristic", "random", "lowest", "random")
FAST = "standard,target=40"

Row = tuple[int, int, int, int, str]  # hand, trick, position, seat, card


def _play(rules: str, seed: int, *, cheat: int | None = 11) -> MatchRecord:
    r = Rules.parse(rules)
    names = [f"{KINDS[i % 4]}-{i}" for i in range(r.players)]
    seats = [InProcessSeat(make_bot(KINDS[i % 4], seed=i), names[i]) for i in range(r.players)]
    if cheat is not None:
        names[0] = "cheat"
        seats[0] = InProcessSeat(Cheat(cheat, always=True), "cheat")
    return asyncio.run(play_match(seats, r, seed, settings=MatchSettings(), names=names))


def _engine_rows(record: MatchRecord) -> list[Row]:
    """Every card of the record as the engine replays it: its hand, trick, position and seat."""
    n = len(record.seats)
    return [
        (h.hand, t, i, trick.seat_of(i, n), str(card))
        for h in replay_hands(record)
        for t, trick in enumerate(h.tricks)
        for i, card in enumerate(trick.cards)
    ]


def _sizes(record: MatchRecord) -> list[list[int]]:
    """Each hand's tricks' sizes, as the engine replays the record."""
    return [[len(t.cards) for t in h.tricks] for h in replay_hands(record)]


def _exported_rows(obj: dict[str, Any]) -> list[Row]:
    """The export's plays as (hand, trick, position, seat, card): position is the place in the trick."""
    at: Counter[tuple[int, int]] = Counter()
    rows = []
    for p in obj["plays"]:
        rows.append((p["hand"], p["trick"], at[p["hand"], p["trick"]], p["seat"], p["card"]))
        at[p["hand"], p["trick"]] += 1
    return rows


def _view_rows(store: Store, match_id: str) -> list[Row]:
    return [
        (r[0], r[1], r[2], r[3], r[4])
        for r in store.db.execute(
            "SELECT hand, trick, position, seat, card FROM plays WHERE match_id = ? ORDER BY hand, trick, position",
            [match_id],
        )
    ]


@pytest.mark.parametrize("rules", RULESETS)
def test_the_store_the_plays_view_and_the_export_keep_the_engines_tricks(rules: str, tmp_path: Path) -> None:
    """002: 'If a nine is led to a trick or played while following suit, then there is a boost: one more
    round is played in the same suit — i.e. a further card from each player, in rotation.' and 'the
    highest card of this suit takes the eight-card trick' (one trick, not two); 002: 'If all the cards
    played of the suit led are in cancelling pairs, the trick remains on the table, the same player leads
    again' (a trick too, of one card from every seat). Under every preset and the mixes, each card's
    trick and position in the store (read back whole), the ``plays`` view and the export are the
    engine's, and every trick is one card from every seat but a boosted one (two)."""
    record = _play(rules, seed=3)
    n = len(record.seats)
    expected = _engine_rows(record)
    assert len(expected) == len(record.plays) and record.faults  # every card in a trick; the cheat's faults
    sizes = [s for hand in _sizes(record) for s in hand]
    if may_differ(Rules.parse(rules)):
        assert 2 * n in sizes, "no boosted trick in this match: pick another seed"
        assert set(sizes) == {n, 2 * n}
    else:
        assert set(sizes) == {n}
    path = tmp_path / "arena.db"
    with Store(path) as store:
        store.save_match(record)
    with Store(path, readonly=True) as store:  # as hearts export opens it
        assert store.load_match(record.match_id) == record
        assert _view_rows(store, record.match_id) == expected
        (obj,) = list(export_matches(store))
    assert _exported_rows(obj) == expected
    assert match_from_json(obj) == record
    # The faults' tricks are the plays': each faulty play's substitute is a card of the fault's trick.
    substituted = {(p.hand, p.trick, p.seat) for p in record.plays if p.substituted}
    assert {(f.hand, f.trick, f.seat) for f in record.faults if f.trick is not None} <= substituted


def test_a_regular_hand_stores_no_trick_starts_and_a_boosted_one_where_each_begins() -> None:
    """Tricks of a card from every seat need no column (NULL: play i is in trick i // players); a hand
    with a boosted trick (002: 'the highest card of this suit takes the eight-card trick') keeps where
    each trick begins; trick numbers the engine never makes (a trick skipped, one gone back to) are
    refused, not stored as something else."""
    assert trick_starts([0, 0, 0, 0, 1, 1, 1, 1], 4) is None
    assert trick_starts([], 4) is None
    assert trick_starts([0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2], 4) == [0, 8, 12]
    assert tricks_and_positions(13, 4, [0, 8, 12]) == [(0, i) for i in range(8)] + [(1, i) for i in range(4)] + [(2, 0)]
    assert tricks_and_positions(5, 4, None) == [(0, 0), (0, 1), (0, 2), (0, 3), (1, 0)]
    for bad in ([0, 0, 2, 2], [1, 1], [0, 1, 0]):
        with pytest.raises(ValueError, match="tricks go one by one"):
            trick_starts(bad, 2)


def _trick_rows(text: str) -> list[list[str]]:
    """``hearts replay``'s trick tables, a list of rows (its cells' text) per hand."""
    hands = []
    for section in re.split(r"\nHand \d+: ", text)[1:]:
        rows = []
        for line in section.splitlines():
            cells = line.split()
            if cells and cells[0].isdigit() and len(cells) > 2 and re.search(r"[♣♦♠♥]", line):
                rows.append(cells)
        hands.append(rows)
    return hands


def test_hearts_replay_shows_a_boosted_trick_on_one_row_with_each_substitute_marked_where_it_played() -> None:
    """002: 'The suit of the first of the eight cards played is the led suit, and the highest card of
    this suit takes the eight-card trick.' The text replay has a row a trick as the engine replays it,
    a boosted trick's eight cards on one, each seat's two in the order played, and a substitute's mark
    on the very cards a substitute played (a seat plays twice in a boosted trick: its other card may be
    the bot's own)."""
    record = _play("booster-nines,target=60", seed=5, cheat=3)
    n = len(record.seats)
    console = Console(width=250, record=True)
    console.print(replay(record))
    tables = _trick_rows(console.export_text())
    replayed = list(replay_hands(record))
    assert [len(rows) for rows in tables] == [len(h.tricks) for h in replayed]
    plays = iter(record.plays)
    boosted_with_one_mark = 0
    for rows, h in zip(tables, replayed, strict=True):
        for row, trick in zip(rows, h.tricks, strict=True):
            marks = [next(plays).substituted for _ in trick.cards]
            shown = [cell for cell in row if re.search(r"[♣♦♠♥]", cell)]
            by_seat = [
                card.symbol + ("*" if marks[i] else "")
                for s in range(n)
                for i, card in enumerate(trick.cards)
                if trick.seat_of(i, n) == s
            ]
            assert shown == by_seat
            if len(trick.cards) == 2 * n and any(marks) and not all(marks):
                boosted_with_one_mark += 1
    assert next(plays, None) is None  # every play in a trick shown
    assert boosted_with_one_mark, "no boosted trick with a substitute's card and a bot's: pick another seed"


def _as_before_migration_21(path: Path) -> None:
    """Rewind a store to what the code before migration 21 wrote: no ``tricks`` column, and migration
    15's ``plays`` view, which reads every trick as one card from every seat."""
    with Store(path) as store:
        db = store.db
        db.execute("DROP VIEW plays")
        db.execute("ALTER TABLE hand_plays DROP COLUMN tricks")
        db.execute(store_module._PLAYS_VIEW)
        db.execute(f"PRAGMA user_version = {MIGRATIONS.index(store_module._m21_tricks_as_played)}")
        db.conn.commit()


def test_migration_21_rewrites_a_booster_hands_tricks_as_the_engine_replays_them(tmp_path: Path) -> None:
    """002: 'one more round is played in the same suit — i.e. a further card from each player, in
    rotation.' A store written before migration 21 read a boosted hand's plays four to a trick, every
    trick and position off from the hand's first boost on; the migration replays each booster_nines
    match through the engine and writes its tricks: the store, the view and the export then have the
    engine's. A standard match keeps its rows as they were (NULL: a card from every seat), and a
    booster match whose plays the engine refuses from some hand on keeps what it had from there."""
    booster, other, broken = (_play(r, seed) for r, seed in (("booster-nines,target=60", 3), (FAST, 3),
                                                             ("booster-nines,target=60", 4)))  # fmt: skip
    assert trick_starts([p.trick for p in broken.plays if p.hand == 0], 4) is not None  # hand 0 has a boost
    path = tmp_path / "arena.db"
    with Store(path) as store:
        for r in (booster, other, broken):
            store.save_match(r)
        rows_before = store.db.execute("SELECT * FROM hand_plays ORDER BY match_id, hand").fetchall()
    _as_before_migration_21(path)
    with contextlib.closing(sqlite3.connect(path)) as conn:
        old = conn.execute(
            "SELECT hand, trick, position, seat, card FROM plays WHERE match_id = ? ORDER BY hand, trick, position",
            [booster.match_id],
        ).fetchall()
        # The bug: the same cards in the same order, read four to a trick.
        assert [r[3:] for r in old] == [r[3:] for r in _engine_rows(booster)]
        assert [r[1:3] for r in old] == [(i // 4, i % 4) for h in _sizes(booster) for i in range(sum(h))]
        assert old != _engine_rows(booster)
        # The engine cannot replay the third match past its hand 0: two of hand 1's cards swapped.
        (cards,) = conn.execute(
            "SELECT cards FROM hand_plays WHERE match_id = ? AND hand = 1", [broken.match_id]
        ).fetchone()
        swapped = json.loads(cards)
        swapped[0], swapped[1] = swapped[1], swapped[0]
        conn.execute(
            "UPDATE hand_plays SET cards = ? WHERE match_id = ? AND hand = 1", [json.dumps(swapped), broken.match_id]
        )
        conn.commit()
    with Store(path, readonly=True) as store:  # an older store, read through a copy migrated in memory
        assert _view_rows(store, booster.match_id) == _engine_rows(booster)
    with contextlib.closing(sqlite3.connect(path)) as conn:  # the file itself unwritten
        assert conn.execute("PRAGMA user_version").fetchone()[0] == MIGRATIONS.index(store_module._m21_tricks_as_played)
    with Store(path) as store:
        assert store.version == len(MIGRATIONS)
        assert store.load_match(booster.match_id) == booster
        assert _view_rows(store, booster.match_id) == _engine_rows(booster)
        assert store.load_match(other.match_id) == other
        rows_after = store.db.execute("SELECT * FROM hand_plays ORDER BY match_id, hand").fetchall()
        untouched = [r for r in rows_before if r[0] == other.match_id]
        assert [r for r in rows_after if r[0] == other.match_id] == untouched
        assert all(r[-1] is None for r in untouched)
        # the refused match: its hand 0 rewritten as played, hand 1 on as the old code read them
        back = store.load_match(broken.match_id)
        assert [p.trick for p in back.plays if p.hand == 0] == [p.trick for p in broken.plays if p.hand == 0]
        later = [r[-1] for r in rows_after if r[0] == broken.match_id and r[1] >= 1]
        assert later and all(t is None for t in later)
        exported = {o["match_id"]: o for o in export_matches(store)}
    assert _exported_rows(exported[booster.match_id]) == _engine_rows(booster)
    assert exported[other.match_id] == match_to_json(other)


def test_hearts_match_export_and_replay_of_booster_nines_seed_11(tmp_path: Path) -> None:
    """002: 'If a nine is led to a trick or played while following suit, then there is a boost: one more
    round is played in the same suit'. The bug report's match (hearts match --rules booster-nines --seed
    11, the random bots unseeded), then hearts export and hearts replay: each hand's tricks, in the
    export and in the replay's rows, as the engine replays the exported record (four cards, or eight
    for a boosted trick, 13 less the boosts a hand); with the deterministic bots in every seat, the same
    seed's hand 2 is 12 tricks, its trick 2 of eight cards (the store read 13 of four)."""
    db = str(tmp_path / "b9.db")
    seats = {
        "report": ("heuristic:HeuristicBot", "random:RandomBot", "lowest:LowestBot", "random:RandomBot"),
        "fixed": ("heuristic:HeuristicBot", "lowest:LowestBot", "lowest:LowestBot", "heuristic:HeuristicBot"),
    }
    lines = {}
    for case, classes in seats.items():
        args = [a for seat, cls in zip("abcd", classes) for a in ("--seat", f"{seat}=clients.bots.{cls}")]
        ok("match", *args, "--rules", "booster-nines", "--seed", "11", "--db", db)
        (line,) = [o for o in map(json.loads, ok("export", "--db", db).splitlines()) if o["match_id"] not in lines]
        lines[line["match_id"]] = case
        record = match_from_json(line)
        assert record.rules == Rules.parse("booster-nines").to_dict() and record.seed == 11
        assert _exported_rows(line) == _engine_rows(record)
        sizes = _sizes(record)
        for hand in sizes:
            assert set(hand) <= {4, 8} and sum(hand) == 52 and len(hand) == 13 - hand.count(8)
        assert any(8 in hand for hand in sizes)  # the bug's premise: a boost
        text = ok("replay", line["match_id"], "--db", db)
        assert [len(rows) for rows in _trick_rows(text)] == [len(hand) for hand in sizes]
        if case == "fixed":
            assert sizes[2] == [4, 4, 8] + [4] * 9
            assert [p["trick"] for p in line["plays"] if p["hand"] == 2][8:17] == [2] * 8 + [3]


def test_a_booster_match_stored_a_play_a_row_before_migration_12_comes_through_every_migration_as_played(
    tmp_path: Path,
) -> None:
    """002: 'the highest card of this suit takes the eight-card trick'. A store of migration 11 kept a
    play a row with the referee's trick and position; migration 15 kept only their order, and migration
    21 gives the tricks back from the engine's replay: the store and the view end as the engine played."""
    record = _play("booster-nines,target=60", 3)
    path = tmp_path / "arena.db"
    with Store(path) as store:
        store.save_match(record)
        as_rows = store.db.execute(
            "SELECT match_id, hand, trick, position, seat, card, latency_ms, substituted FROM plays"
        ).fetchall()
        assert [r[1:6] for r in as_rows] == _engine_rows(record)
        # As a database of migration 11 holds them: the table a play a row, no hand_plays.
        db = store.db
        db.execute("DROP VIEW plays")
        db.execute("DROP TABLE hand_plays")
        db.execute(
            "CREATE TABLE plays (match_id TEXT NOT NULL, hand INTEGER NOT NULL, trick INTEGER NOT NULL, "
            "position INTEGER NOT NULL, seat INTEGER NOT NULL, card TEXT NOT NULL, latency_ms REAL, "
            "substituted INTEGER NOT NULL, PRIMARY KEY (match_id, hand, trick, position))"
        )
        db.conn.executemany("INSERT INTO plays VALUES (?, ?, ?, ?, ?, ?, ?, ?)", reversed(as_rows))
        db.execute(f"PRAGMA user_version = {MIGRATIONS.index(store_module._m12_hand_plays)}")
        db.conn.commit()
    with Store(path) as store:
        assert store.version == len(MIGRATIONS)
        assert store.load_match(record.match_id) == record
        assert _view_rows(store, record.match_id) == _engine_rows(record)
