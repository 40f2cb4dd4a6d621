"""ladder.store: a record's round trip, one transaction per match, migrations, WAL and foreign keys."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from ladder.store import MIGRATIONS, Store
from ladder.store import schema as store_module
from referee.human import HumanSeat
from referee.isolation import FEATURE_DOCS, KINDS, Isolation
from referee.match import MatchSettings, play_match
from referee.record import FaultKind, MatchRecord
from referee.rules import Card, Observation, Rules, cards_of
from referee.seats import InProcessSeat

TABLES = ("bots", "matches", "seats", "hands", "passes", "charges", "hand_plays", "faults", "notes")


class First:
    def pass_cards(self, obs: Observation) -> Any:
        return obs.hand.cards[: obs.rules.pass_count]

    def play_card(self, obs: Observation) -> Any:
        return obs.legal[0]

    def charge_cards(self, obs: Observation) -> Any:  # turbo_charging: the first chargeable card held
        return [c for c in obs.hand if str(c) in ("AH", "QS", "JD", "10C")][:1]


class Sloppy(First):
    """Plays CARD_UNSPECIFIED on every fifth play: a few faults, then a forfeit."""

    def __init__(self) -> None:
        self.n = 0

    def play_card(self, obs: Observation) -> Any:
        self.n += 1
        return 0 if self.n % 5 == 0 else obs.legal[0]


def a_record(
    seed: int = 5, rules: str = "standard,moon=shooter-chooses", tournament_id: int | None = None
) -> MatchRecord:
    seats = [
        InProcessSeat(First(), "alpha"),
        InProcessSeat(Sloppy(), "sloppy"),
        InProcessSeat(First(), "gamma"),
        InProcessSeat(First(), "delta"),
    ]
    return asyncio.run(
        play_match(seats, Rules.parse(rules), seed, settings=MatchSettings(), tournament_id=tournament_id)
    )


def counts(db: Store) -> dict[str, int]:
    return {t: db.db.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES}


def test_a_match_record_round_trips(tmp_path: Path) -> None:
    rec = a_record()
    assert rec.faults and rec.seats[1].forfeit
    with Store(tmp_path / "arena.db") as db:
        db.save_match(rec)
        back = db.load_match(rec.match_id)
    assert back == rec
    assert back.faults[0].kind is FaultKind.MALFORMED


def test_list_matches_gives_newest_first_with_bots_scores_and_places(tmp_path: Path) -> None:
    with Store(tmp_path / "arena.db") as db:
        a, b = a_record(1), a_record(2, tournament_id=9)
        db.save_match(a)
        db.save_match(b)
        listed = db.list_matches()
        assert [m.match_id for m in listed] == [b.match_id, a.match_id]
        m = listed[0]
        assert m.bots == ("alpha", "sloppy", "gamma", "delta") and m.scores == tuple(b.scores)
        assert m.places == tuple(s.place for s in b.seats) and m.faults == len(b.faults) and m.tournament_id == 9
        assert [x.match_id for x in db.list_matches(tournament_id=9)] == [b.match_id]
        assert len(db.list_matches(limit=1)) == 1
        assert db.bots() == ["alpha", "sloppy", "gamma", "delta"]  # registered once, reused


def test_a_failed_insert_mid_match_leaves_nothing_of_that_match(tmp_path: Path) -> None:
    with Store(tmp_path / "arena.db") as db:
        db.save_match(a_record(1))
        before = counts(db)
        # The faults are written last: make their insert fail, after every other table got rows.
        db.db.execute("CREATE TEMP TRIGGER boom BEFORE INSERT ON faults BEGIN SELECT RAISE(ABORT, 'disk on fire'); END")
        rec = a_record(2)
        rec.seats[0].bot = "a-new-bot"
        with pytest.raises(sqlite3.IntegrityError, match="disk on fire"):
            db.save_match(rec)
        assert counts(db) == before
        assert not db.has_match(rec.match_id) and "a-new-bot" not in db.bots()
        db.db.execute("DROP TRIGGER boom")
        db.save_match(rec)
        assert db.load_match(rec.match_id) == rec


def test_a_match_saved_twice_is_refused_whole(tmp_path: Path) -> None:
    with Store(tmp_path / "arena.db") as db:
        rec = a_record(3)
        db.save_match(rec)
        before = counts(db)
        with pytest.raises(sqlite3.IntegrityError):
            db.save_match(rec)
        assert counts(db) == before


def test_a_match_with_kitty_discards_round_trips_and_replays(tmp_path: Path) -> None:
    """kitty_discard: each hand's discard (seat, cards, latency, substitute) is stored and read back."""
    from rich.console import Console

    from referee.report import replay

    rec = a_record(rules="standard,kitty=first-trick,hand_size=12,kitty_discard=true,target=40")
    assert all(h.discard_seat is not None and len(h.discard) == 4 for h in rec.hands)
    # First has no discard_cards: it discards what the kitty brought, no fault, a note once a match for each
    # seat that took the kitty (Sloppy inherits the same); the notes round-trip with the rest.
    assert not any(f.sent.startswith("DiscardCards") for f in rec.faults)
    assert rec.notes and len(rec.notes) == len({h.discard_seat for h in rec.hands})
    with Store(tmp_path / "arena.db") as db:
        db.save_match(rec)
        back = db.load_match(rec.match_id)
    assert back == rec
    console = Console(record=True, width=200)
    console.print(replay(back))
    text = console.export_text()
    h = back.hands[0]
    assert "took the kitty" in text and "discarded" in text and f"{back.seats[h.discard_seat].bot} took" in text


def test_migrations_are_idempotent_and_recorded_in_user_version(tmp_path: Path) -> None:
    path = tmp_path / "arena.db"
    Store(path).close()
    with Store(path) as db:  # a second open runs nothing again
        assert db.version == len(MIGRATIONS)
        assert db.db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
        assert set(TABLES) <= set(db.db.table_names())
        assert "tournament_id" in db.db["matches"].columns_dict
    assert store_module.migrate(Store(path).db) == len(MIGRATIONS)


def test_a_new_migration_runs_once_on_an_existing_database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "arena.db"
    with Store(path) as db:
        db.save_match(a_record(4))
    calls = []

    def m2(db: Any) -> None:
        calls.append(1)
        db.execute("CREATE TABLE extra_table (id INTEGER PRIMARY KEY, name TEXT)")

    monkeypatch.setattr(store_module, "MIGRATIONS", [*MIGRATIONS, m2])
    Store(path).close()
    with Store(path) as db:
        assert calls == [1] and db.version == len(MIGRATIONS) + 1 and "extra_table" in db.db.table_names()
        assert len(db.list_matches()) == 1


def test_wal_mode_and_foreign_keys_are_on(tmp_path: Path) -> None:
    with Store(tmp_path / "arena.db") as db:
        assert db.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert db.db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        with pytest.raises(sqlite3.IntegrityError):
            db.db.execute(
                "INSERT INTO seats (match_id, seat, bot_id, final_score, place, faults, forfeit) "
                "VALUES ('no-such-match', 0, 1, 0, 1, 0, 0)"
            )
        rec = a_record(6)
        db.save_match(rec)
        db.delete_match(rec.match_id)  # cascades to every table of the match
        assert {t: n for t, n in counts(db).items() if t != "bots"} == {t: 0 for t in TABLES if t != "bots"}


def test_loading_an_unknown_match_names_it(tmp_path: Path) -> None:
    with Store(tmp_path / "arena.db") as db, pytest.raises(KeyError, match="no match 'nope'"):
        db.load_match("nope")


def test_the_replay_names_the_kitty_a_mix_dealt_not_the_one_dealt_first(tmp_path: Path) -> None:
    """A mix pass shuffles the kitty in (002: 'so that the new kitty can contain some of the discards'):
    the replay's discard line shows the kitty that was taken, found by replaying the match."""
    from rich.console import Console

    from referee.report import replay
    from referee.rules import Match

    rec = a_record(rules="standard,kitty=first-trick,hand_size=12,kitty_discard=true,pass_cycle=mix hold,target=40")
    m = Match(Rules.from_dict(rec.rules), rec.seed)
    h = rec.hands[0]
    for p in h.passes:
        m.pass_cards(p.seat, p.cards)
    taken = m.hand.kitty  # after the mix
    assert taken != sum(Card.parse(c).mask for c in h.kitty), "this seed's mix changed the kitty"
    console = Console(record=True, width=240)
    console.print(replay(rec))
    line = next(x for x in console.export_text().splitlines() if "took the kitty" in x)
    shown = line.split("took the kitty ")[1].split(" and discarded")[0]
    assert shown == " ".join(c.symbol for c in cards_of(taken))


def test_a_forfeit_reason_comes_back_as_its_enum_and_older_sentences_are_migrated(tmp_path: Path) -> None:
    from referee.record import ForfeitReason

    rec = a_record()
    with Store(tmp_path / "arena.db") as db:
        db.save_match(rec)
        assert db.load_match(rec.match_id).seats[1].forfeit_reason is ForfeitReason.FAULTS
        # As a database written before forfeit reasons were an enum holds them.
        db.db.execute("UPDATE seats SET forfeit_reason = '3 faults' WHERE seat = 1")
        db.db.execute(
            "UPDATE seats SET forfeit_reason = 'unreachable (status UNAVAILABLE: Socket closed)', "
            "forfeit = 1 WHERE seat = 2"
        )
        db.db.execute(f"PRAGMA user_version = {MIGRATIONS.index(store_module._m8_forfeit_reasons)}")
        db.db.conn.commit()
    with Store(tmp_path / "arena.db") as db:
        seats = db.load_match(rec.match_id).seats
    assert (seats[1].forfeit_reason, seats[2].forfeit_reason) == (ForfeitReason.FAULTS, ForfeitReason.UNREACHABLE)


def test_every_table_keeps_a_ruleset_as_its_canonical_text_and_older_forms_are_migrated(tmp_path: Path) -> None:
    """``str(Rules)`` is what a table keeps: written differently, rules that play the same compare equal in
    SQL. A database of migration 8 kept a match's rules as ``Rules.to_dict()`` JSON and a tournament's as
    its user's text; migration 9 turns both into the canonical text, and the records read back the same."""
    import json

    from ladder.store import rules_text

    rec = a_record(rules="standard,moon=shooter-chooses,target=100")
    with Store(tmp_path / "arena.db") as db:
        db.save_match(rec)
        assert db.db.execute("SELECT rules FROM matches").fetchone()[0] == "standard,moon=shooter-chooses"
        db.db.execute("UPDATE matches SET rules = ?", [json.dumps(rec.rules)])
        db.db.execute(
            "INSERT INTO tournaments (format, rules, seed, rounds, deals, bots, settings, status, "
            "created_at) VALUES ('round-robin', 'spot,target=500', 1, 1, 1, '[]', '{}', 'pending', 'now')"
        )
        db.db.execute(f"PRAGMA user_version = {MIGRATIONS.index(store_module._m9_canonical_rules)}")
        db.db.conn.commit()
    with Store(tmp_path / "arena.db") as db:
        assert db.db.execute("SELECT rules FROM matches").fetchone()[0] == "standard,moon=shooter-chooses"
        assert db.db.execute("SELECT rules FROM tournaments").fetchone()[0] == "spot"
        assert db.load_match(rec.match_id) == rec
    assert rules_text('{"no_such_option": 1}') is None


def _summed(db: Store, rules: str) -> dict[str, float]:
    """Live Elo changes summed from every match, as the ladder read them before the totals were kept."""
    rows = db.db.execute(
        "SELECT b.name, SUM(l.elo_change) FROM live_elo l JOIN matches m ON m.id = l.match_id "
        "JOIN bots b ON b.id = l.bot_id WHERE m.rules = ? GROUP BY b.name",
        [rules],
    )
    return {name: change for name, change in rows}


def test_live_elo_totals_follow_every_save_and_deleted_match_and_are_rebuilt_by_their_migration(
    tmp_path: Path,
) -> None:
    """The live Elo a match starts from is read from per-ruleset totals, kept by triggers, so a save
    costs the same in the ten-thousandth match as in the first: they equal the sums over the matches."""
    rulesets = ("standard,moon=shooter-chooses", "spot")
    with Store(tmp_path / "arena.db") as db:
        for seed in range(6):
            rec = a_record(seed=seed, rules=rulesets[seed % 2])
            db.save_match(rec)
            ids = [db.bot_id(s.bot) for s in rec.seats]
            db.tournaments.add_live_elo(
                rec.match_id, 16.0, [(i, 1500.0, (seed + 1) * (j - 1.5)) for j, i in enumerate(ids)]
            )
        for rules in rulesets:
            assert db.ladder.live_elo_changes(rules=rules) == pytest.approx(_summed(db, rules))
            assert db.ladder.live_elo_changes(rules=rules, bots=["alpha"]) == pytest.approx(
                {"alpha": _summed(db, rules)["alpha"]}
            )
        gone = db.list_matches()[0].match_id
        db.delete_match(gone)  # its live Elo rows go by the foreign key's cascade
        for rules in rulesets:
            assert db.ladder.live_elo_changes(rules=rules) == pytest.approx(_summed(db, rules))
        expected = {rules: _summed(db, rules) for rules in rulesets}
        # As a database of migration 10 is: live Elo changes, no totals.
        db.db.execute("DROP TABLE live_elo_totals")
        db.db.execute(f"PRAGMA user_version = {MIGRATIONS.index(store_module._m11_live_elo_totals)}")
        db.db.conn.commit()
    with Store(tmp_path / "arena.db") as db:
        for rules in rulesets:
            assert db.ladder.live_elo_changes(rules=rules) == pytest.approx(expected[rules])


def test_a_commit_survives_the_process_and_only_a_power_loss_may_roll_it_back(tmp_path: Path) -> None:
    """WAL with synchronous=NORMAL: a commit is in the file once the process dies (the OS holds it);
    only a power loss can roll back the last ones, which a tournament plays again from their seeds."""
    with Store(tmp_path / "ladder.db") as db:
        assert db.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert db.db.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
    with Store(tmp_path / "full.db", fsync_commits=True) as db:
        assert db.db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_a_partnership_matchs_teams_round_trip(tmp_path: Path) -> None:
    """002 Partnership Hearts: seats.team holds each seat's team (0: seats 0 and 2, 1: seats 1 and 3), saved
    and loaded with the places partners share; NULL without partners; a store of the migration before it
    gains the column, its matches teamless."""
    rec = a_record(rules="partnership,pass_cycle=across")
    assert [s.team for s in rec.seats] == [0, 1, 0, 1]
    places = [s.place for s in rec.seats]
    assert places[0] == places[2] and places[1] == places[3] or rec.seats[1].forfeit
    plain = a_record(seed=6, rules="standard")
    assert all(s.team is None for s in plain.seats)
    with Store(tmp_path / "arena.db") as db:
        db.save_match(rec)
        db.save_match(plain)
        assert db.load_match(rec.match_id) == rec
        assert db.load_match(plain.match_id) == plain
        # As a database of the migration before is: no team column.
        db.db.execute("ALTER TABLE seats DROP COLUMN team")
        db.db.execute(f"PRAGMA user_version = {MIGRATIONS.index(store_module._m14_seat_teams)}")
        db.db.conn.commit()
    with Store(tmp_path / "arena.db") as db:
        assert all(s.team is None for s in db.load_match(rec.match_id).seats)
        assert db.db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)


@pytest.mark.slow
def test_each_seats_isolation_round_trips_and_an_older_store_reads_it_as_unknown(tmp_path: Path) -> None:
    """seats.isolation keeps what guarded each seat's bot as ``str(Isolation)`` (migration 16): every kind,
    a sandbox with every feature, and unknown (None, NULL) read back unchanged. A store of the migration
    before gains the column, its matches' seats unknown; matches saved after keep theirs."""
    from rich.console import Console

    from referee.report import replay

    rec = a_record()
    assert [s.isolation for s in rec.seats] == [Isolation("in-process")] * 4  # the referee took each seat's
    every = a_record(seed=6)
    kinds = [Isolation("sandbox", tuple(FEATURE_DOCS)), Isolation("limits-only", ("rlimits", "watch")), None]
    kinds += [Isolation(k) for k in KINDS if k != "sandbox"]
    for seat, isolation in zip(every.seats, kinds):
        seat.isolation = isolation
    other = a_record(seed=7)
    for seat, isolation in zip(other.seats, kinds[3:]):
        seat.isolation = isolation
    path = tmp_path / "arena.db"
    with Store(path) as db:
        for r in (rec, every, other):
            db.save_match(r)
            assert db.load_match(r.match_id) == r
        stored = db.db.execute("SELECT isolation FROM seats WHERE match_id = ? ORDER BY seat", [every.match_id])
        assert [row[0] for row in stored] == [str(i) if i is not None else None for i in kinds[:4]]
        # As a database of the migration before is: no isolation column.
        db.db.execute("ALTER TABLE seats DROP COLUMN isolation")
        db.db.execute(f"PRAGMA user_version = {MIGRATIONS.index(store_module._m16_seat_isolation)}")
        db.db.conn.commit()
    with Store(path) as db:
        assert db.version == len(MIGRATIONS) and "isolation" in db.db["seats"].columns_dict
        back = db.load_match(every.match_id)
        assert all(s.isolation is None for s in back.seats)
        console = Console(record=True, width=200)
        console.print(replay(back))  # hearts replay's line for each such seat
        text = console.export_text()
        assert (
            "seat 0 alpha: isolation unknown (not recorded); clock: budget 1000 ms, bank 10000 ms, grace 50 ms\n"
            in text
        )
        assert back.decisions() == every.decisions()  # nothing else changed
        later = a_record(seed=8)
        db.save_match(later)
        assert db.load_match(later.match_id) == later


def test_each_seats_clock_round_trips_and_an_older_store_reads_it_as_unknown(tmp_path: Path) -> None:
    """seats.budget_ms, bank_ms and grace_ms keep the clock each seat played under (migration 19), fractions
    and unknown (None, NULL) too. A store of the migration before gains the columns, its matches' seats
    unknown, and hearts replay says no clock for them; matches saved after keep theirs."""
    from rich.console import Console

    from referee.report import replay

    rec = a_record()
    assert all((s.budget_ms, s.bank_ms, s.grace_ms) == (1000.0, 10_000.0, 50.0) for s in rec.seats)  # the match's
    clocks = [(5.0, 0.0, 0.0), (1000.0, 10_000.0, 50.0), (250.5, 1234.25, 0.5), (None, None, None)]
    for seat, (budget, bank, grace) in zip(rec.seats, clocks):
        seat.budget_ms, seat.bank_ms, seat.grace_ms = budget, bank, grace
    path = tmp_path / "arena.db"
    with Store(path) as db:
        db.save_match(rec)
        back = db.load_match(rec.match_id)
        assert back == rec and [(s.budget_ms, s.bank_ms, s.grace_ms) for s in back.seats] == clocks
        # As a database of the migration before is: no clock columns.
        for column in ("budget_ms", "bank_ms", "grace_ms"):
            db.db.execute(f"ALTER TABLE seats DROP COLUMN {column}")
        db.db.execute(f"PRAGMA user_version = {MIGRATIONS.index(store_module._m19_seat_clocks)}")
        db.db.conn.commit()
    with Store(path) as db:
        assert db.version == len(MIGRATIONS) and "grace_ms" in db.db["seats"].columns_dict
        old = db.load_match(rec.match_id)
        assert all((s.budget_ms, s.bank_ms, s.grace_ms) == (None, None, None) for s in old.seats)
        assert old.decisions() == rec.decisions()  # nothing else changed
        console = Console(record=True, width=200)
        console.print(replay(old))
        text = console.export_text()
        assert "seat 0 alpha: in the referee's process (trusted code)\n" in text and "clock" not in text
        db.save_match(later := a_record(seed=8))
        assert db.load_match(later.match_id) == later


def test_a_persons_seat_round_trips_and_older_stores_hold_bots(tmp_path: Path) -> None:
    """seats.kind keeps who sat in each seat: a person at the table (a ``HumanSeat``) as ``human``, the
    bots as ``bot``; a store of the migration before gains the column, every seat of its matches a bot."""
    person = HumanSeat("alice")

    async def at_table() -> MatchRecord:
        person.join()
        seats = [
            person,
            InProcessSeat(First(), "beta"),
            InProcessSeat(First(), "gamma"),
            InProcessSeat(First(), "delta"),
        ]

        async def answer() -> None:
            seen = 0
            while True:
                for e in await person.next_events(seen):
                    seen = e["seq"]
                    if e["type"] == "ask":
                        view = e["request"]["view"]
                        first = (
                            {"cards": view["hand"][:3]} if e["rpc"] == "PassCards" else {"card": view["legal_cards"][0]}
                        )
                        person.answer(e["id"], first)
                    elif e["type"] == "hold":
                        person.deal_again()

        task = asyncio.create_task(answer())
        try:
            return await play_match(seats, Rules.parse("standard,target=30"), 4)
        finally:
            task.cancel()

    rec = asyncio.run(at_table())
    assert [s.kind for s in rec.seats] == ["human", "bot", "bot", "bot"] and rec.seats[0].bot == "alice"
    with Store(tmp_path / "arena.db") as db:
        db.save_match(rec)
        assert db.load_match(rec.match_id) == rec
        # As a database of the migration before is: no kind column.
        db.db.execute("ALTER TABLE seats DROP COLUMN kind")
        db.db.execute(f"PRAGMA user_version = {MIGRATIONS.index(store_module._m18_seat_kinds)}")
        db.db.conn.commit()
    with Store(tmp_path / "arena.db") as db:
        assert [s.kind for s in db.load_match(rec.match_id).seats] == ["bot"] * 4
        assert db.db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)


def test_plays_kept_a_row_each_by_older_databases_are_migrated_into_a_row_per_hand(tmp_path: Path) -> None:
    """Migration 12 packs the ``plays`` table into ``hand_plays`` (a row per hand) and leaves a view
    ``plays`` with the old table's columns: the records read back the same, and queries written
    for the table still run."""
    rec = a_record()
    path = tmp_path / "arena.db"
    with Store(path) as db:
        db.save_match(rec)
        before = db.load_match(rec.match_id)
        as_rows = db.db.execute(
            "SELECT match_id, hand, trick, position, seat, card, latency_ms, substituted FROM plays"
        ).fetchall()
        # As a database of migration 11 holds them: the table a play a row, no hand_plays.
        db.db.execute("DROP VIEW plays")
        db.db.execute("DROP TABLE hand_plays")
        db.db.execute(
            "CREATE TABLE plays (match_id TEXT NOT NULL, hand INTEGER NOT NULL, trick INTEGER NOT NULL, "
            "position INTEGER NOT NULL, seat INTEGER NOT NULL, card TEXT NOT NULL, latency_ms REAL, "
            "substituted INTEGER NOT NULL, PRIMARY KEY (match_id, hand, trick, position))"
        )
        db.db.conn.executemany("INSERT INTO plays VALUES (?, ?, ?, ?, ?, ?, ?, ?)", reversed(as_rows))
        db.db.execute(f"PRAGMA user_version = {MIGRATIONS.index(store_module._m12_hand_plays)}")
        db.db.conn.commit()
    with Store(path) as db:
        assert db.version == len(MIGRATIONS)
        assert db.load_match(rec.match_id) == before
        assert len(rec.plays) == len(as_rows) > 0
        assert sorted(db.db.execute("SELECT * FROM plays").fetchall()) == sorted(as_rows)
        assert db.db.execute("SELECT count(*) FROM hand_plays").fetchone()[0] == len(rec.hands)


def test_the_plays_view_gives_every_play_of_any_table_size_with_its_trick_and_position(tmp_path: Path) -> None:
    """``hand_plays`` keeps a hand's plays as columns in play order; the ``plays`` view reads them
    back a play a row, trick and position from the order (every trick is a card from every seat),
    at 4 seats with faults and substitutes and at 10 seats with two packs."""
    ten = asyncio.run(
        play_match([InProcessSeat(First(), f"bot-{i}") for i in range(10)], Rules.parse("cancellation,players=10"), 4)
    )
    four = a_record()
    assert any(p.substituted for p in four.plays) and any(p.latency_ms is None for p in four.plays)
    with Store(tmp_path / "arena.db") as db:
        for rec in (four, ten):
            db.save_match(rec)
            assert db.load_match(rec.match_id) == rec
            rows = db.db.execute(
                "SELECT hand, trick, position, seat, card, latency_ms, substituted FROM plays "
                "WHERE match_id = ? ORDER BY hand, trick, position",
                [rec.match_id],
            ).fetchall()
            positions: dict[tuple[int, int], int] = {}
            expected = []
            for p in rec.plays:
                n = positions[p.hand, p.trick] = positions.get((p.hand, p.trick), -1) + 1
                expected.append((p.hand, p.trick, n, p.seat, p.card, p.latency_ms, int(p.substituted)))
            assert rows == expected


def test_latencies_are_recorded_to_the_microsecond_and_older_stores_are_migrated_to_columns(tmp_path: Path) -> None:
    """Migration 15 turns migration 12's JSON (a list per play, latencies to 17 digits) into
    ``hand_plays``' columns: the record reads back as the referee now makes it, to the microsecond."""
    rec = a_record()
    assert all(p.latency_ms is None or int(p.latency_ms * 1000 + 0.5) / 1000 == p.latency_ms for p in rec.plays)
    path = tmp_path / "arena.db"
    with Store(path) as db:
        db.save_match(rec)
        view = db.db.execute("SELECT * FROM plays ORDER BY hand, trick, position").fetchall()
        # As migration 14 left them: a JSON list per play, the timer's noise below the microsecond kept.
        db.db.execute("DROP VIEW plays")
        db.db.execute("DROP TABLE hand_plays")
        db.db.execute(
            "CREATE TABLE hand_plays (match_id TEXT NOT NULL, hand INTEGER NOT NULL, plays TEXT NOT NULL, "
            "PRIMARY KEY (match_id, hand))"
        )
        by_hand: dict[int, list[list[Any]]] = {}
        for r in view:
            noisy = None if r[6] is None else r[6] + 0.0003141592
            by_hand.setdefault(r[1], []).append([r[2], r[3], r[4], r[5], noisy, r[7]])
        for hand, plays in by_hand.items():
            db.db.execute(
                "INSERT INTO hand_plays VALUES (?, ?, ?)", [rec.match_id, hand, store_module._JSON.encode(plays[::-1])]
            )
        db.db.execute(store_module._PLAYS_VIEW_12)
        db.db.execute(f"PRAGMA user_version = {MIGRATIONS.index(store_module._m15_hand_plays_by_column)}")
        db.db.conn.commit()
        assert db.db.execute("SELECT count(*) FROM plays").fetchone()[0] == len(view)
    with Store(path) as db:
        assert db.version == len(MIGRATIONS)
        assert db.load_match(rec.match_id) == rec
        assert db.db.execute("SELECT * FROM plays ORDER BY hand, trick, position").fetchall() == view
        assert "seats" in db.db["hand_plays"].columns_dict


def test_turbo_charges_round_trip_and_migration_13_keeps_one_text_per_ruleset(tmp_path: Path) -> None:
    """002 Turbo Hearts: each seat's charge of each hand is saved and read back (table charges, migration
    13). The turbo preset is now the shortest text of omnibus with ten_of_clubs_doubles: a store of
    migration 12 holding the old text is rewritten to the new one, so rules that play the same compare equal."""
    rec = a_record(rules="turbo,target=60")
    assert all(len(h.charges) == 4 for h in rec.hands) and any(c.cards for h in rec.hands for c in h.charges)
    old = a_record(rules="omnibus,ten_of_clubs_doubles=true,target=60")
    with Store(tmp_path / "arena.db") as db:
        db.save_match(rec)
        db.save_match(old)
        assert db.load_match(rec.match_id) == rec
        assert db.db.execute("SELECT count(*) FROM charges").fetchone()[0] == 4 * len(rec.hands)
        db.db.execute(
            "UPDATE matches SET rules = 'omnibus,ten_of_clubs_doubles=true,target=60' WHERE id = ?", [old.match_id]
        )
        db.db.execute(f"PRAGMA user_version = {MIGRATIONS.index(store_module._m13_turbo_charges)}")
        db.db.conn.commit()
    with Store(tmp_path / "arena.db") as db:
        text = db.db.execute("SELECT rules FROM matches WHERE id = ?", [old.match_id]).fetchone()[0]
        assert text == "turbo,turbo_charging=false,target=60" == str(Rules.parse(text))
        assert db.load_match(rec.match_id) == rec and db.load_match(old.match_id) == old
