"""``Store``: an open database, and the match records it saves and loads whole."""

from __future__ import annotations

import itertools
import json
import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self

from ladder.sandbox import Isolation
from ladder.store.files import _open_readonly, _open_writable, store_error
from ladder.store.schema import _JSON, BUSY_TIMEOUT_S, _Database, _user_version, migrate
from ladder.store.tables import (
    LadderReads,
    Registrations,
    Tournaments,
    _by_name,
    _insert,
    _json,
    _match_filters,
    _rowid,
    _rules_dict,
    canonical_rules,
)
from ladder.store.tricks import trick_starts, tricks_and_positions
from referee.record import (
    ChargeRecord,
    FaultKind,
    FaultRecord,
    ForfeitReason,
    HandRecord,
    MatchRecord,
    MatchStatus,
    NoteKind,
    NoteRecord,
    PassRecord,
    PlayRecord,
    SeatRecord,
    utc_now,
)

# -- the store -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class MatchSummary:
    """One line of ``list_matches``."""

    match_id: str
    tournament_id: int | None
    seed: int
    rules: dict[str, Any]
    status: str
    started_at: str
    finished_at: str | None
    bots: tuple[str, ...]
    scores: tuple[int, ...]
    places: tuple[int, ...]
    winners: tuple[int, ...]
    faults: int


class Store:
    """An open arena database. ``Store(path)`` creates it if needed and migrates it.

    ``store.tournaments`` is its tournaments part (``Tournaments``), ``store.registrations`` its
    registry part (``Registrations``), ``store.ladder`` what the ladder reads (``LadderReads``)."""

    def __init__(self, path: str | Path, *, readonly: bool = False, fsync_commits: bool = False) -> None:
        """Open (and, unless ``readonly``, create and migrate) the database at ``path``.
        ``StoreError`` says why a file cannot be used; nothing is written to it then.
        ``fsync_commits``: every commit survives a power loss too (see the module's docstring)."""
        self.path = str(path)
        self.readonly = readonly
        copied = False
        if self.path == ":memory:":
            conn = sqlite3.connect(":memory:")
        elif readonly:
            conn, copied = _open_readonly(self.path)
        else:
            conn = _open_writable(self.path)
        self.db = _Database(conn)
        self.db.readonly = readonly and not copied and self.path != ":memory:"  # a copy is ours to migrate
        deadline = time.monotonic() + BUSY_TIMEOUT_S
        while True:
            try:
                self.db.execute("PRAGMA foreign_keys = ON")
                if not readonly and self.path != ":memory:":
                    self.db.enable_wal()
                    self.db.execute(f"PRAGMA synchronous = {'FULL' if fsync_commits else 'NORMAL'}")
                self.version = _user_version(conn) if self.db.readonly else migrate(self.db)
                break
            except sqlite3.OperationalError as e:
                # Processes creating one new file at once: before it is in WAL mode, SQLite answers
                # a possible deadlock between them with "locked" at once, not after the busy
                # timeout. Each step so far committed or rolled back whole: try again.
                if getattr(e, "sqlite_errorname", "").startswith("SQLITE_BUSY") and time.monotonic() < deadline:
                    time.sleep(0.02)
                    continue
                conn.close()
                raise store_error(e, self.path) from None
            except sqlite3.Error as e:
                conn.close()
                raise store_error(e, self.path) from None
        self.tournaments = Tournaments(self.db)
        self.registrations = Registrations(self.db)
        self.ladder = LadderReads(self.db)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- bots --------------------------------------------------------------------------------------

    def bot_id(self, name: str) -> int:
        """The id of the bot called ``name``, registering it if it is new."""
        row = self.db.execute("SELECT id FROM bots WHERE name = ?", [name]).fetchone()
        if row is not None:
            return int(row[0])
        return _rowid(self.db.execute("INSERT INTO bots (name, created_at) VALUES (?, ?)", [name, utc_now()]))

    def bots(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT name FROM bots ORDER BY id")]

    def bot_rows(self) -> list[dict[str, Any]]:
        """Every bot the store knows, in the order it first came (registered, or only seen in a
        match): its name, its registration's description, when it came, whether it is registered,
        and how many matches it sat in (as a bot or as a person)."""
        q = (
            "SELECT b.name, b.description, b.created_at, "
            "(b.command IS NOT NULL OR b.address IS NOT NULL OR b.module IS NOT NULL) AS registered, "
            "(SELECT COUNT(*) FROM seats s WHERE s.bot_id = b.id) AS matches FROM bots b ORDER BY b.id"
        )
        return [{**r, "registered": bool(r["registered"])} for r in _by_name(self.db.execute(q))]

    def recent_matches(
        self,
        *,
        tournament_id: int | None = None,
        after: str | None = None,
        limit: int = 50,
        bots: Sequence[str] | None = None,
    ) -> list[dict[str, Any]]:
        """Recorded matches (of one tournament; those the bots ``bots`` played in), newest first by
        their start, ``limit`` at most from after match ``after`` in that order (keyset-paged): a
        single match's id (32 hex digits) and a tournament's (``t1-000000``) do not sort by age, their
        start does. Each with its seats."""
        where, args = _match_filters(tournament_id, None)
        if after is not None:
            where.append("(m.started_at, m.id) < (SELECT started_at, id FROM matches WHERE id = ?)")
            args.append(after)
        if bots is not None:
            where.append(
                "m.id IN (SELECT s.match_id FROM seats s JOIN bots b ON b.id = s.bot_id "
                f"WHERE b.name IN ({', '.join('?' * len(bots))}))"
            )
            args.extend(bots)
        q = (
            "SELECT m.id, m.tournament_id, m.started_at, m.finished_at, m.status, "
            "json_group_array(json_array(s.seat, b.name, s.final_score, s.place, s.faults, s.forfeit)) "
            "FROM (SELECT * FROM matches m" + (f" WHERE {' AND '.join(where)}" if where else "")
            + " ORDER BY m.started_at DESC, m.id DESC LIMIT ?) m "
            "JOIN seats s ON s.match_id = m.id JOIN bots b ON b.id = s.bot_id "
            "GROUP BY m.id ORDER BY m.started_at DESC, m.id DESC"
        )  # fmt: skip
        return match_rows(self.db.execute(q, [*args, int(limit)]))

    # -- matches -----------------------------------------------------------------------------------

    def save_match(self, record: MatchRecord) -> str:
        """Write one match and all it holds in one transaction; returns its id."""
        mid = record.match_id
        with self.db.atomic():
            bot_ids = [self.bot_id(s.bot) for s in record.seats]
            conn = self.db.conn
            _insert(
                conn,
                "matches",
                [
                    {
                        "id": mid,
                        "tournament_id": record.tournament_id,
                        "seed": record.seed,
                        "rules": canonical_rules(record.rules),
                        "players": len(record.seats),
                        "status": MatchStatus(record.status).value,
                        "started_at": record.started_at,
                        "finished_at": record.finished_at,
                        "winners": _json(list(record.winners)),
                    }
                ],
            )
            _insert(
                conn,
                "seats",
                [
                    {
                        "match_id": mid,
                        "seat": s.seat,
                        "bot_id": bot_ids[i],
                        "final_score": s.final_score,
                        "place": s.place,
                        "faults": s.faults,
                        "forfeit": int(s.forfeit),
                        "forfeit_reason": ForfeitReason(s.forfeit_reason).value
                        if s.forfeit_reason is not None
                        else None,
                        "address": s.address,
                        "time_bank_left_ms": s.time_bank_left_ms,
                        "team": s.team,
                        "isolation": str(s.isolation) if s.isolation is not None else None,
                        "kind": s.kind,
                        "budget_ms": s.budget_ms,
                        "bank_ms": s.bank_ms,
                        "grace_ms": s.grace_ms,
                    }
                    for i, s in enumerate(record.seats)
                ],
            )
            _insert(
                conn,
                "hands",
                [
                    {
                        "match_id": mid,
                        "hand": h.hand,
                        "pass_direction": h.pass_direction,
                        "dealer": h.dealer,
                        "deal": _json([list(d) for d in h.deal]),
                        "kitty": " ".join(h.kitty),
                        "points_taken": _json(list(h.points_taken)),
                        "score": _json(list(h.score)),
                        "totals": _json(list(h.totals)),
                        "moon": h.moon,
                        "sun": h.sun,
                        "moon_choice": h.moon_choice,
                        "moon_choice_substituted": int(h.moon_choice_substituted),
                        "moon_choice_latency_ms": h.moon_choice_latency_ms,
                        "discard_seat": h.discard_seat,
                        "discard": " ".join(h.discard),
                        "discard_substituted": int(h.discard_substituted),
                        "discard_latency_ms": h.discard_latency_ms,
                        "pass_call": h.pass_call,
                        "pass_call_substituted": int(h.pass_call_substituted),
                        "pass_call_latency_ms": h.pass_call_latency_ms,
                    }
                    for h in record.hands
                ],
            )
            # Plays and passes are most of a match's rows: plain tuples.
            conn.executemany(
                "INSERT INTO passes (match_id, hand, seat, cards, latency_ms, substituted) VALUES (?, ?, ?, ?, ?, ?)",
                [
                    (mid, p.hand, p.seat, " ".join(p.cards), p.latency_ms, int(p.substituted))
                    for h in record.hands
                    for p in h.passes
                ],
            )
            charges = [
                (mid, c.hand, c.seat, " ".join(c.cards), c.latency_ms, int(c.substituted))
                for h in record.hands
                for c in h.charges
            ]
            if charges:  # turbo_charging only
                conn.executemany(
                    "INSERT INTO charges (match_id, hand, seat, cards, latency_ms, substituted) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    charges,
                )
            conn.executemany(
                "INSERT INTO hand_plays (match_id, hand, seats, cards, latencies_us, substituted, tricks) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                self._hand_play_rows(record),
            )
            _insert(
                conn,
                "faults",
                [
                    {
                        "match_id": mid,
                        "hand": f.hand,
                        "trick": f.trick,
                        "seat": f.seat,
                        "kind": FaultKind(f.kind).value,
                        "detail": f.detail,
                        "sent": f.sent,
                        "received": f.received,
                        "action": f.action,
                    }
                    for f in record.faults
                ],
            )
            if record.notes:
                conn.executemany(
                    "INSERT INTO notes (match_id, hand, seat, kind, detail) VALUES (?, ?, ?, ?, ?)",
                    [(mid, n.hand, n.seat, NoteKind(n.kind).value, n.detail) for n in record.notes],
                )
        return mid

    @staticmethod
    def _hand_play_rows(record: MatchRecord) -> list[tuple[str, int, str, str, str, str, str | None]]:
        """A row per hand: its plays as ``hand_plays`` keeps them (``_columns``, written out), and where
        its tricks begin when they are not each one card from every seat (``tricks.trick_starts``, from
        the record's trick numbers: the engine's)."""
        mid = record.match_id
        players = len(record.seats)
        hands: dict[int, list[PlayRecord]] = {}
        for p in record.plays:
            plays = hands.get(p.hand)
            if plays is None:
                plays = hands[p.hand] = []
            plays.append(p)
        dumps = _JSON.encode
        return [
            (
                mid,
                hand,
                "".join([str(p.seat) for p in plays]),
                dumps([p.card for p in plays]),
                dumps([None if p.latency_ms is None else int(p.latency_ms * 1000 + 0.5) for p in plays]),
                dumps([i for i, p in enumerate(plays) if p.substituted]),
                None if (starts := trick_starts([p.trick for p in plays], players)) is None else dumps(starts),
            )
            for hand, plays in hands.items()
        ]

    def has_match(self, match_id: str) -> bool:
        return self.db.execute("SELECT 1 FROM matches WHERE id = ?", [match_id]).fetchone() is not None

    def deal_in_play(self, match_id: str) -> bool:
        """Whether this recorded match's deal is still to be played in another seating of its tournament
        (duplicate deals: every rotation of a table plays the same seed). Its record shows every hand of
        that deal until then."""
        row = self.db.execute(
            "SELECT 1 FROM tournament_matches tm JOIN tournament_matches other ON other.tournament_id = "
            "tm.tournament_id AND other.seed = tm.seed AND other.match_id IS NULL WHERE tm.match_id = ? LIMIT 1",
            [match_id],
        ).fetchone()
        return row is not None

    def seeds_in_play(self, tournament_id: int) -> set[int]:
        """The seeds of the tournament's deals still to be played in some seating (duplicate deals)."""
        rows = self.db.execute(
            "SELECT DISTINCT seed FROM tournament_matches WHERE match_id IS NULL AND tournament_id = ?",
            [tournament_id],
        ).fetchall()
        return {int(r[0]) for r in rows}

    def seatings_unrecorded(self, tournament_id: int, seed: int) -> int:
        """How many seatings of the deal dealt from ``seed`` in the tournament are not recorded yet (a
        match in play counts itself: while more than it remain, its plays show the others' deal)."""
        row = self.db.execute(
            "SELECT COUNT(*) FROM tournament_matches WHERE tournament_id = ? AND seed = ? AND match_id IS NULL",
            [tournament_id, seed],
        ).fetchone()
        return int(row[0])

    def deals_in_play(self, match_ids: Sequence[str]) -> set[str]:
        """Those of ``match_ids`` whose deal is still to be played in another seating of their
        tournament (``deal_in_play`` for many at once: the pending seatings are few, and read once)."""
        if not match_ids:
            return set()
        pending = set(
            self.db.execute(
                "SELECT DISTINCT tournament_id, seed FROM tournament_matches WHERE match_id IS NULL"
            ).fetchall()
        )
        if not pending:
            return set()
        marks = ", ".join("?" * len(match_ids))
        rows = self.db.execute(
            f"SELECT match_id, tournament_id, seed FROM tournament_matches WHERE match_id IN ({marks})", list(match_ids)
        ).fetchall()
        return {mid for mid, tid, seed in rows if (tid, seed) in pending}

    def resolve_match_id(self, prefix: str) -> str:
        """The id of the one match whose id is or starts with ``prefix``; ``KeyError`` saying why not."""
        if not prefix.strip():
            raise KeyError(f"no match id given (an empty prefix would name any match in {self.path})")
        if self.has_match(prefix):
            return prefix
        rows = self.db.execute(
            "SELECT id FROM matches WHERE id LIKE ? ESCAPE '\\' LIMIT 3",
            [prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"],
        ).fetchall()
        if len(rows) == 1:
            return str(rows[0][0])
        if not rows:
            raise KeyError(f"no match {prefix!r} in {self.path}")
        raise KeyError(f"{prefix!r} names more than one match in {self.path}: {', '.join(r[0] for r in rows)}, ...")

    def delete_match(self, match_id: str) -> None:
        """Remove a match and everything it holds (foreign keys cascade)."""
        with self.db.atomic():
            self.db.execute("DELETE FROM matches WHERE id = ?", [match_id])

    def load_match(self, match_id: str) -> MatchRecord:
        """The record of one match; ``KeyError`` naming the id when there is none."""
        q = self.db.execute
        row = q(
            "SELECT id, tournament_id, seed, rules, status, started_at, finished_at, winners FROM matches WHERE id = ?",
            [match_id],
        ).fetchone()
        if row is None:
            raise KeyError(f"no match {match_id!r} in {self.path}")
        mid, tid, seed, rules, status, started, finished, winners = row
        seats = [
            SeatRecord(
                seat=r["seat"],
                bot=r["bot"],
                final_score=r["final_score"],
                place=r["place"],
                faults=r["faults"],
                forfeit=bool(r["forfeit"]),
                forfeit_reason=ForfeitReason(r["forfeit_reason"]) if r["forfeit_reason"] else None,
                address=r["address"],
                time_bank_left_ms=r["time_bank_left_ms"],
                team=r["team"],
                isolation=Isolation.parse(r["isolation"]) if r["isolation"] is not None else None,
                kind=r["kind"],
                budget_ms=r["budget_ms"],
                bank_ms=r["bank_ms"],
                grace_ms=r["grace_ms"],
            )
            for r in _by_name(
                q(
                    "SELECT s.seat, b.name AS bot, s.final_score, s.place, s.faults, s.forfeit, s.forfeit_reason, "
                    "s.address, s.time_bank_left_ms, s.team, s.isolation, s.kind, s.budget_ms, s.bank_ms, s.grace_ms "
                    "FROM seats s JOIN bots b ON b.id = s.bot_id WHERE s.match_id = ? ORDER BY s.seat",
                    [mid],
                )
            )
        ]
        passes: dict[int, list[PassRecord]] = {}
        for r in q(
            "SELECT hand, seat, cards, latency_ms, substituted FROM passes WHERE match_id = ? ORDER BY hand, seat",
            [mid],
        ):
            passes.setdefault(r[0], []).append(
                PassRecord(hand=r[0], seat=r[1], cards=tuple(r[2].split()), latency_ms=r[3], substituted=bool(r[4]))
            )
        charges: dict[int, list[ChargeRecord]] = {}
        for r in q(
            "SELECT hand, seat, cards, latency_ms, substituted FROM charges WHERE match_id = ? ORDER BY hand, seat",
            [mid],
        ):
            charges.setdefault(r[0], []).append(
                ChargeRecord(hand=r[0], seat=r[1], cards=tuple(r[2].split()), latency_ms=r[3], substituted=bool(r[4]))
            )
        hands = [
            HandRecord(
                hand=r[0],
                pass_direction=r[1],
                dealer=r[2],
                deal=tuple(tuple(d) for d in json.loads(r[3])),
                kitty=tuple(r[4].split()),
                passes=passes.get(r[0], []),
                points_taken=tuple(json.loads(r[5])),
                score=tuple(json.loads(r[6])),
                totals=tuple(json.loads(r[7])),
                moon=r[8],
                sun=r[9],
                moon_choice=r[10],
                moon_choice_substituted=bool(r[11]),
                moon_choice_latency_ms=r[12],
                discard_seat=r[13],
                discard=tuple(r[14].split()),
                discard_substituted=bool(r[15]),
                discard_latency_ms=r[16],
                pass_call=r[17],
                pass_call_substituted=bool(r[18]),
                pass_call_latency_ms=r[19],
                charges=charges.get(r[0], []),
            )
            for r in q(
                "SELECT hand, pass_direction, dealer, deal, kitty, points_taken, score, totals, moon, "
                "sun, moon_choice, moon_choice_substituted, moon_choice_latency_ms, discard_seat, "
                "discard, discard_substituted, discard_latency_ms, pass_call, pass_call_substituted, "
                "pass_call_latency_ms FROM hands "
                "WHERE match_id = ? ORDER BY hand",
                [mid],
            )
        ]
        players = len(seats)
        plays: list[PlayRecord] = []
        for hand, by_seat, cards, latencies, substituted, starts in q(
            "SELECT hand, seats, cards, latencies_us, substituted, tricks FROM hand_plays WHERE match_id = ? "
            "ORDER BY hand",
            [mid],
        ):
            subs = set(json.loads(substituted))
            # The order gives trick and position where every trick is a card from every seat (tricks NULL);
            # elsewhere (a boosted trick, booster_nines) tricks says where each begins, as the engine played.
            tricks = tricks_and_positions(len(by_seat), players, None if starts is None else json.loads(starts))
            plays.extend(
                PlayRecord(
                    hand=hand,
                    trick=trick,
                    seat=int(seat),
                    card=card,
                    latency_ms=None if us is None else us / 1000,
                    substituted=i in subs,
                )
                for i, (seat, card, us, (trick, _)) in enumerate(
                    zip(by_seat, json.loads(cards), json.loads(latencies), tricks, strict=True)
                )
            )
        faults = [
            FaultRecord(
                hand=r[0],
                trick=r[1],
                seat=r[2],
                kind=FaultKind(r[3]),
                detail=r[4],
                sent=r[5],
                received=r[6],
                action=r[7],
            )
            for r in q(
                "SELECT hand, trick, seat, kind, detail, sent, received, action FROM faults "
                "WHERE match_id = ? ORDER BY id",
                [mid],
            )
        ]
        notes = [
            NoteRecord(hand=r[0], seat=r[1], kind=NoteKind(r[2]), detail=r[3])
            for r in q("SELECT hand, seat, kind, detail FROM notes WHERE match_id = ? ORDER BY id", [mid])
        ]
        return MatchRecord(
            match_id=mid,
            seed=seed,
            rules=_rules_dict(rules),
            seats=seats,
            status=MatchStatus(status),
            started_at=started,
            finished_at=finished,
            winners=tuple(json.loads(winners)),
            hands=hands,
            plays=plays,
            faults=faults,
            tournament_id=tid,
            notes=notes,
        )

    def list_matches(self, *, tournament_id: int | None = None, limit: int | None = None) -> list[MatchSummary]:
        """Matches, newest first, optionally of one tournament."""
        where, args = ("WHERE tournament_id = ?", [tournament_id]) if tournament_id is not None else ("", [])
        limit_sql = f" LIMIT {int(limit)}" if limit is not None else ""
        sql = (
            f"SELECT m.id, m.tournament_id, m.seed, m.rules, m.status, m.started_at, m.finished_at, m.winners, "
            f"b.name, s.final_score, s.place, s.faults "
            f"FROM (SELECT * FROM matches {where} ORDER BY started_at DESC, id{limit_sql}) m "
            f"JOIN seats s ON s.match_id = m.id JOIN bots b ON b.id = s.bot_id "
            f"ORDER BY m.started_at DESC, m.id, s.seat"
        )
        out: list[MatchSummary] = []
        for _, group in itertools.groupby(self.db.execute(sql, args), key=lambda r: r[0]):
            rows = list(group)
            r = rows[0]
            out.append(
                MatchSummary(
                    match_id=r[0],
                    tournament_id=r[1],
                    seed=r[2],
                    rules=_rules_dict(r[3]),
                    status=r[4],
                    started_at=r[5],
                    finished_at=r[6],
                    winners=tuple(json.loads(r[7])),
                    bots=tuple(x[8] for x in rows),
                    scores=tuple(x[9] for x in rows),
                    places=tuple(x[10] for x in rows),
                    faults=sum(x[11] for x in rows),
                )
            )
        return out

    def match_ids(self, *, tournament_id: int | None = None, batch: int = 1000) -> Iterator[str]:
        """Every match id (of one tournament), in id order (a tournament's in schedule order).

        Read ``batch`` ids at a time, each batch after the last id of the one before: memory stays
        constant however many matches there are, and no statement stays open between batches, so
        the caller may read (``load_match``) or write between two ids."""
        where, args = ("tournament_id = ? AND ", [tournament_id]) if tournament_id is not None else ("", [])
        last = ""
        while True:
            ids = [
                str(r[0])
                for r in self.db.execute(
                    f"SELECT id FROM matches WHERE {where}id > ? ORDER BY id LIMIT ?", [*args, last, int(batch)]
                )
            ]
            yield from ids
            if len(ids) < batch:
                return
            last = ids[-1]


def match_rows(rows: Iterable[Sequence[Any]]) -> list[dict[str, Any]]:
    """Matches listed for a page: rows of (id, tournament, started_at, finished_at, status, and the seats as
    a JSON array of [seat, bot, score, place, faults, forfeit]) as dicts, each one's seats in seat order."""
    return [
        {
            "id": r[0],
            "tournament": r[1],
            "started_at": r[2],
            "finished_at": r[3],
            "status": r[4],
            "seats": [
                {"seat": s[0], "bot": s[1], "score": s[2], "place": s[3], "faults": s[4], "forfeit": bool(s[5])}
                for s in sorted(json.loads(r[5]))
            ],
        }
        for r in rows
    ]
