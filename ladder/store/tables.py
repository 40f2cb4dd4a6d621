"""The store's parts beside the match records: tournaments and their schedules, the registry, the ladder's reads."""

from __future__ import annotations

import functools
import json
import sqlite3
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ladder.store.schema import _JSON, _SEAT_POINTS, _Database
from ladder.tournament.schedule import ScheduledMatch
from referee.record import (
    utc_now,
)
from referee.rules import Rules


def _rowid(cur: sqlite3.Cursor) -> int:
    """The id an INSERT just gave its row (sqlite3 types it optional: it is set after any INSERT)."""
    assert cur.lastrowid is not None
    return cur.lastrowid


def _rules_dict(stored: str) -> dict[str, Any]:
    """A match's rules as its record holds them (``Rules.to_dict()``), from the canonical text stored."""
    return _parsed(stored).to_dict() if not stored.startswith("{") else dict(json.loads(stored))


@functools.lru_cache(maxsize=256)  # a store holds a handful of rulesets; listings read one per match
def _parsed(text: str) -> Rules:
    return Rules.parse(text)


def canonical_rules(rules: dict[str, Any]) -> str:
    """The canonical text of a record's ruleset (``str(Rules)``), computed once per ruleset: every
    match saved would otherwise build its ``Rules`` anew, twice."""
    return _canonical(_json(rules))


@functools.lru_cache(maxsize=64)
def _canonical(key: str) -> str:
    return str(Rules.from_dict(json.loads(key)))


def _by_name(cur: sqlite3.Cursor) -> Iterator[dict[str, Any]]:
    """A query's rows keyed by column name: a reader that does not depend on the columns' order."""
    names = [d[0] for d in cur.description]
    for row in cur:
        yield dict(zip(names, row))


def _insert(conn: sqlite3.Connection, table: str, rows: list[dict[str, Any]]) -> None:
    """Rows of one table, of plain values (text, numbers, NULL), in one ``executemany``: without
    sqlite-utils' per-value conversions, which cost more than SQLite's own insert."""
    if rows:
        columns = list(rows[0])
        conn.executemany(
            f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
            [tuple(r.values()) for r in rows],
        )


def _json(value: Any) -> str:
    return _JSON.encode(value)


@dataclass(frozen=True)
class TournamentRow:
    """A tournament as stored: its settings as written (``bots``, ``settings``: JSON), and how many of
    its scheduled matches there are and are recorded."""

    id: int
    format: str
    rules: str
    seed: int
    rounds: int
    deals: int
    gauntlet: str | None
    bots: str
    settings: str
    status: str
    created_at: str
    finished_at: str | None
    total: int
    done: int


@dataclass(frozen=True)
class Runner:
    """The process playing a tournament. The pid alone is not enough: the system reuses pids (after
    a reboot, an unrelated process may have it), so the host and the process's start go with it."""

    pid: int
    host: str | None  # None: a claim written before runners had a host (store migration 7)
    started: str | None  # the boot id and the start time since boot; None where they are not known


@dataclass(frozen=True)
class SPRTStep:
    """A comparison's sequential test after ``deals`` deals: the mean difference and its sd (points
    per hand, A's minus B's), the LLR and its bounds, and the verdict then (``continue``, ``H0``, ``H1``)."""

    tournament_id: int
    deals: int
    mean: float
    sd: float
    llr: float
    lower: float
    upper: float
    verdict: str


_TOURNAMENT_SQL = (
    "SELECT t.id, t.format, t.rules, t.seed, t.rounds, t.deals, t.gauntlet, t.bots, t.settings, t.status, "
    "t.created_at, t.finished_at, COUNT(tm.idx) AS total, COUNT(tm.match_id) AS done "
    "FROM tournaments t LEFT JOIN tournament_matches tm ON tm.tournament_id = t.id "
)


class Tournaments:
    """The store's tournaments part: every statement on tournaments, their schedules, their runner
    and their live Elo. Each method is one statement; callers group them with ``db.atomic()``."""

    def __init__(self, db: _Database) -> None:
        self.db = db

    def insert(
        self,
        *,
        format: str,
        rules: str,
        seed: int,
        rounds: int,
        deals: int,
        gauntlet: str | None,
        bots: str,
        settings: str,
    ) -> int:
        """A new tournament, ``pending``; returns its id."""
        cur = self.db.execute(
            "INSERT INTO tournaments (format, rules, seed, rounds, deals, gauntlet, bots, settings, status, "
            "created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?)",
            [format, rules, seed, rounds, deals, gauntlet, bots, settings, utc_now()],
        )
        return _rowid(cur)

    def insert_schedule(self, tournament_id: int, matches: Iterable[ScheduledMatch]) -> None:
        self.db.conn.executemany(
            "INSERT INTO tournament_matches (tournament_id, idx, round, table_no, deal, rotation, seed, seats, "
            "rules) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    tournament_id,
                    m.index,
                    m.round,
                    m.table,
                    m.deal,
                    m.rotation,
                    m.seed,
                    json.dumps(list(m.seats)),
                    m.rules,
                )
                for m in matches
            ],
        )

    def get(self, tournament_id: int) -> TournamentRow | None:
        rows = _by_name(self.db.execute(_TOURNAMENT_SQL + "WHERE t.id = ? GROUP BY t.id", [tournament_id]))
        return next((TournamentRow(**r) for r in rows), None)

    def seed(self, tournament_id: int) -> int | None:
        """A tournament's seed alone (``get`` counts its matches: every one of them is read)."""
        row = self.db.execute("SELECT seed FROM tournaments WHERE id = ?", [tournament_id]).fetchone()
        return None if row is None else int(row[0])

    def all(self) -> list[TournamentRow]:
        return [TournamentRow(**r) for r in _by_name(self.db.execute(_TOURNAMENT_SQL + "GROUP BY t.id ORDER BY t.id"))]

    def delete(self, tournament_id: int) -> None:
        """A tournament and its schedule (the caller checks that nothing of it was recorded)."""
        self.db.execute("DELETE FROM tournament_matches WHERE tournament_id = ?", [tournament_id])
        self.db.execute("DELETE FROM sprt_steps WHERE tournament_id = ?", [tournament_id])
        self.db.execute("DELETE FROM tournaments WHERE id = ?", [tournament_id])

    def drop_pending(self, tournament_id: int) -> int:
        """Remove the scheduled matches not yet recorded (a comparison decided early); how many."""
        cur = self.db.execute(
            "DELETE FROM tournament_matches WHERE tournament_id = ? AND match_id IS NULL", [tournament_id]
        )
        return int(cur.rowcount)

    def set_bots(self, tournament_id: int, bots: str) -> None:
        self.db.execute("UPDATE tournaments SET bots = ? WHERE id = ?", [bots, tournament_id])

    def reseed_unseeded(self, tournament_id: int, seed: int) -> None:
        """Give ``seed`` to the tournament if it has seed 0 (an arena ladder made before its seeds were secret)."""
        self.db.execute("UPDATE tournaments SET seed = ? WHERE id = ? AND seed = 0", [seed, tournament_id])

    def set_status(self, tournament_id: int, status: str) -> None:
        """The status; a finished tournament gets its time."""
        self.db.execute(
            "UPDATE tournaments SET status = ?, finished_at = ? WHERE id = ?",
            [status, utc_now() if status == "finished" else None, tournament_id],
        )

    def pending(self, tournament_id: int) -> list[ScheduledMatch]:
        """The scheduled matches with no record yet, in schedule order."""
        return [
            ScheduledMatch(
                index=r[0],
                round=r[1],
                table=r[2],
                deal=r[3],
                rotation=r[4],
                seed=r[5],
                seats=tuple(json.loads(r[6])),
                rules=r[7],
            )
            for r in self.db.execute(
                "SELECT idx, round, table_no, deal, rotation, seed, seats, rules FROM tournament_matches "
                "WHERE tournament_id = ? AND match_id IS NULL ORDER BY idx",
                [tournament_id],
            )
        ]

    def schedule(self, tournament_id: int) -> list[tuple[ScheduledMatch, bool]]:
        """Every scheduled match, in schedule order, and whether it is recorded."""
        return [
            (
                ScheduledMatch(
                    index=r["idx"],
                    round=r["round"],
                    table=r["table_no"],
                    deal=r["deal"],
                    rotation=r["rotation"],
                    seed=r["seed"],
                    seats=tuple(json.loads(r["seats"])),
                    rules=r["rules"],
                ),
                r["match_id"] is not None,
            )
            for r in _by_name(
                self.db.execute(
                    "SELECT idx, round, table_no, deal, rotation, seed, seats, rules, match_id FROM tournament_matches "
                    "WHERE tournament_id = ? ORDER BY idx",
                    [tournament_id],
                )
            )
        ]

    def seat_results(self, tournament_id: int) -> Iterator[dict[str, Any]]:
        """Each seat of each recorded match of the schedule, in schedule then seat order: its round,
        table, deal, bot, final score, forfeit, the match's hands, and ``saved``: the order the seats
        were saved in (a larger number saved later)."""
        return _by_name(
            self.db.execute(
                "SELECT tm.round, tm.table_no, tm.deal, b.name AS bot, s.final_score, s.forfeit, s.rowid AS saved, "
                "(SELECT COUNT(*) FROM hands h WHERE h.match_id = tm.match_id) AS hands "
                "FROM tournament_matches tm JOIN seats s ON s.match_id = tm.match_id "
                "JOIN bots b ON b.id = s.bot_id WHERE tm.tournament_id = ? ORDER BY tm.idx, s.seat",
                [tournament_id],
            )
        )

    def mark_recorded(self, tournament_id: int, index: int, match_id: str) -> bool:
        """Mark a scheduled match recorded; False if another process did first."""
        cur = self.db.execute(
            "UPDATE tournament_matches SET match_id = ? WHERE tournament_id = ? AND idx = ? AND match_id IS NULL",
            [match_id, tournament_id, index],
        )
        return cur.rowcount == 1

    def add_live_elo(self, match_id: str, k: float, changes: Iterable[tuple[int, float, float]]) -> None:
        """Each bot's live Elo before the match and its change: (bot id, before, change)."""
        self.db.conn.executemany(
            "INSERT INTO live_elo (match_id, bot_id, k, elo_before, elo_change) VALUES (?, ?, ?, ?, ?)",
            [(match_id, bot, k, before, change) for bot, before, change in changes],
        )

    def add_sprt_step(
        self,
        tournament_id: int,
        *,
        deals: int,
        mean: float,
        sd: float,
        llr: float,
        lower: float,
        upper: float,
        verdict: str,
    ) -> None:
        """The test's state after ``deals`` deals; a state already stored stands (the same records give the same)."""
        self.db.execute(
            "INSERT INTO sprt_steps (tournament_id, deals, mean, sd, llr, lower, upper, verdict) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (tournament_id, deals) DO NOTHING",
            [tournament_id, deals, mean, sd, llr, lower, upper, verdict],
        )

    def sprt_steps(self, tournament_id: int) -> list[SPRTStep]:
        """The test's stored states, by deals."""
        return [
            SPRTStep(**r)
            for r in _by_name(
                self.db.execute(
                    "SELECT tournament_id, deals, mean, sd, llr, lower, upper, verdict FROM sprt_steps "
                    "WHERE tournament_id = ? ORDER BY deals",
                    [tournament_id],
                )
            )
        ]

    def runner(self, tournament_id: int) -> Runner | None:
        """The process that claims the tournament, if any."""
        row = self.db.execute(
            "SELECT runner_pid, runner_host, runner_started FROM tournaments WHERE id = ?", [tournament_id]
        ).fetchone()
        return Runner(row[0], row[1], row[2]) if row is not None and row[0] is not None else None

    def set_runner(self, tournament_id: int, runner: Runner) -> None:
        self.db.execute(
            "UPDATE tournaments SET runner_pid = ?, runner_host = ?, runner_started = ? WHERE id = ?",
            [runner.pid, runner.host, runner.started, tournament_id],
        )

    def release_all_runners(self) -> int:
        """Clear every tournament's claim: in a copy of the file they name the processes playing the
        original, which must not keep the copy from being played. How many were cleared."""
        with self.db.atomic():
            cur = self.db.execute(
                "UPDATE tournaments SET runner_pid = NULL, runner_host = NULL, runner_started = NULL "
                "WHERE runner_pid IS NOT NULL"
            )
            return int(cur.rowcount)

    def release_runner(self, tournament_id: int, runner: Runner) -> None:
        """Clear the claim, if it is still ``runner``'s."""
        self.db.execute(
            "UPDATE tournaments SET runner_pid = NULL, runner_host = NULL, runner_started = NULL "
            "WHERE id = ? AND runner_pid = ? AND runner_host IS ? AND runner_started IS ?",
            [tournament_id, runner.pid, runner.host, runner.started],
        )


class Registrations:
    """The store's registry part: the bots' registrations (how each is started or reached). Rows are
    read by column name (name, command, address, description, max_concurrency, module);
    ``ladder.bots.registry`` makes them entries."""

    _SELECT = "SELECT name, command, address, description, max_concurrency, module FROM bots "
    _REGISTERED = "(command IS NOT NULL OR address IS NOT NULL OR module IS NOT NULL)"

    def __init__(self, db: _Database) -> None:
        self.db = db

    def get(self, name: str) -> dict[str, Any] | None:
        """A registered bot's row (a bot that only played, never registered, has none)."""
        rows = _by_name(self.db.execute(self._SELECT + f"WHERE name = ? AND {self._REGISTERED}", [name]))
        return next(rows, None)

    def all(self) -> list[dict[str, Any]]:
        """Every registered bot's row, by name."""
        return list(_by_name(self.db.execute(self._SELECT + f"WHERE {self._REGISTERED} ORDER BY name")))

    def set(
        self,
        name: str,
        command: str | None,
        address: str | None,
        description: str | None,
        max_concurrency: int | None,
        *,
        changed: bool,
        module: str | None = None,
    ) -> None:
        """Write a registration (the bot's row exists: ``Store.bot_id``); ``changed`` dates it now."""
        self.db.execute(
            "UPDATE bots SET command = ?, address = ?, module = ?, description = ?, max_concurrency = ?, "
            "registered_at = COALESCE(?, registered_at) WHERE name = ?",
            [command, address, module, description, max_concurrency, utc_now() if changed else None, name],
        )

    def has_played(self, name: str) -> bool:
        row = self.db.execute(
            "SELECT 1 FROM seats s JOIN bots b ON b.id = s.bot_id WHERE b.name = ? LIMIT 1", [name]
        ).fetchone()
        return row is not None

    def unregister(self, name: str) -> None:
        """Forget how the bot is started; a bot that played keeps its row (its matches name it)."""
        if self.has_played(name):
            self.db.execute(
                "UPDATE bots SET command = NULL, address = NULL, module = NULL, registered_at = NULL WHERE name = ?",
                [name],
            )
        else:
            self.db.execute("DELETE FROM bots WHERE name = ?", [name])


def _match_filters(tournament_id: int | None, rules: str | None) -> tuple[list[str], list[object]]:
    """SQL conditions on ``matches m`` (and their arguments): one tournament's, one ruleset's
    (its canonical text)."""
    where: list[str] = []
    args: list[object] = []
    if tournament_id is not None:
        where.append("m.tournament_id = ?")
        args.append(tournament_id)
    if rules is not None:
        where.append("m.rules = ?")
        args.append(rules)
    return where, args


class LadderReads:
    """The store's reads for the ladder: finished matches, selected by tournament and ruleset (its
    canonical text, as ``matches.rules`` holds it)."""

    def __init__(self, db: _Database) -> None:
        self.db = db

    def ruleset_counts(self, tournament_id: int | None = None) -> list[tuple[str, int]]:
        """(ruleset, finished matches), most matches first."""
        where, args = _match_filters(tournament_id, None)
        sql = (
            "SELECT m.rules, COUNT(*) FROM matches m WHERE "
            + " AND ".join(["m.status = 'finished'", *where])
            + " GROUP BY m.rules ORDER BY COUNT(*) DESC, m.rules"
        )
        return [(str(key), int(n)) for key, n in self.db.execute(sql, args)]

    def latest_ruleset(self, tournament_id: int | None = None) -> str | None:
        """The ruleset of the latest tournament with a finished match, else that of the latest finished
        single match; None if there is no finished match."""
        where, args = _match_filters(tournament_id, None)
        cond = " AND ".join(["m.status = 'finished'", *where])
        row = self.db.execute(
            f"SELECT m.rules FROM matches m WHERE {cond} AND m.tournament_id IS NOT NULL "
            "ORDER BY m.tournament_id DESC LIMIT 1",
            args,
        ).fetchone()
        if row is None:
            row = self.db.execute(
                f"SELECT m.rules FROM matches m WHERE {cond} "
                "ORDER BY COALESCE(m.finished_at, m.started_at) DESC, m.id DESC LIMIT 1",
                args,
            ).fetchone()
        return None if row is None else str(row[0])

    def seat_results(self, tournament_id: int | None = None, rules: str | None = None) -> Iterator[tuple[Any, ...]]:
        """Each seat of each finished match, by match and seat: (match id, seed, rules, hands, seat,
        bot, final score, place, forfeit, faults, moons and suns shot, who sat: ``bot`` or ``human``)."""
        filters, args = _match_filters(tournament_id, rules)
        where = ["m.status = 'finished'", *filters]
        sql = (
            "SELECT m.id, m.seed, m.rules, COALESCE(hc.n, 0), s.seat, b.name, s.final_score, s.place, s.forfeit, "
            "s.faults, "
            # A sun takes every penalty card too; the engine records it as sun with moon NULL.
            "(SELECT COUNT(*) FROM hands h WHERE h.match_id = m.id AND (h.moon = s.seat OR h.sun = s.seat)), "
            "s.kind FROM matches m "
            "JOIN seats s ON s.match_id = m.id JOIN bots b ON b.id = s.bot_id "
            "LEFT JOIN (SELECT match_id, COUNT(*) AS n FROM hands GROUP BY match_id) hc ON hc.match_id = m.id "
            f"WHERE {' AND '.join(where)} ORDER BY m.id, s.seat"
        )
        return iter(self.db.execute(sql, args))

    def live_elo_changes(
        self, tournament_id: int | None = None, rules: str | None = None, bots: Iterable[str] | None = None
    ) -> dict[str, float]:
        """Each bot's sum of live Elo changes over the selected matches (``bots``: only those names)."""
        if tournament_id is None and rules is not None:  # a ruleset's whole ladder: kept summed
            where: list[str] = ["t.rules = ?"]
            args: list[object] = [rules]
            source, value, group = "live_elo_totals t JOIN bots b ON b.id = t.bot_id", "t.elo_change", ""
        else:
            where, args = _match_filters(tournament_id, rules)
            source = "live_elo l JOIN matches m ON m.id = l.match_id JOIN bots b ON b.id = l.bot_id"
            value, group = "SUM(l.elo_change)", " GROUP BY b.name"
        if bots is not None:
            names = list(bots)
            where.append(f"b.name IN ({', '.join('?' * len(names))})")
            args.extend(names)
        sql = f"SELECT b.name, {value} FROM {source}" + (f" WHERE {' AND '.join(where)}" if where else "") + group
        return {str(name): float(change) for name, change in self.db.execute(sql, args)}

    def bot_tallies(
        self, names: Sequence[str], leave_out: Collection[str] = ()
    ) -> tuple[dict[int, int], dict[str, int]]:
        """The hands of the bots ``names`` by the points one of their seats took in it, and their faults
        by kind, over every match they played (kept summed as matches are saved), less the matches
        ``leave_out``."""
        if not names:
            return {}, {}
        bots = f"b.name IN ({', '.join('?' * len(names))})"
        points = {
            int(r["points"]): int(r["hands"])
            for r in self.db.query(
                "SELECT t.points AS points, SUM(t.hands) AS hands FROM bot_hand_points t "
                f"JOIN bots b ON b.id = t.bot_id WHERE {bots} GROUP BY t.points",
                list(names),
            )
        }
        faults = {
            str(r["kind"]): int(r["faults"])
            for r in self.db.query(
                "SELECT t.kind AS kind, SUM(t.faults) AS faults FROM bot_fault_kinds t "
                f"JOIN bots b ON b.id = t.bot_id WHERE {bots} GROUP BY t.kind",
                list(names),
            )
        }
        if leave_out:
            matches = f"IN ({', '.join('?' * len(leave_out))})"
            args = [*names, *leave_out]
            for r in self.db.query(
                f"SELECT {_SEAT_POINTS.format(hand='h')} AS points, "
                "COUNT(*) AS hands FROM hands h JOIN seats s ON s.match_id = h.match_id JOIN bots b ON b.id = s.bot_id "
                f"WHERE {bots} AND h.match_id {matches} AND s.seat < json_array_length(h.points_taken) GROUP BY 1",
                args,
            ):
                points[int(r["points"])] -= int(r["hands"])
            for r in self.db.query(
                "SELECT f.kind AS kind, COUNT(*) AS faults FROM faults f JOIN seats s ON s.match_id = f.match_id "
                f"AND s.seat = f.seat JOIN bots b ON b.id = s.bot_id WHERE {bots} AND f.match_id {matches} GROUP BY 1",
                args,
            ):
                faults[str(r["kind"])] -= int(r["faults"])
        return {k: n for k, n in points.items() if n > 0}, {k: n for k, n in faults.items() if n > 0}

    def live_elo_history(self, names: Sequence[str], *, until: Collection[str] = ()) -> list[float]:
        """The live Elo of the bots ``names`` after each of their matches, in the order the matches were
        saved; up to the first of the matches ``until`` (saved before it), if any."""
        if not names:
            return []
        bots = f"SELECT id FROM bots WHERE name IN ({', '.join('?' * len(names))})"
        stop, args = "", list(names)
        if until:
            first = self.db.execute(
                f"SELECT MIN(rowid) FROM live_elo WHERE match_id IN ({', '.join('?' * len(until))})", list(until)
            ).fetchone()[0]
            if first is not None:
                stop, args = " AND rowid < ?", [*names, first]
        # Tuples, not rows by name: a bot of a big arena has tens of thousands of them.
        q = f"SELECT elo_before + elo_change FROM live_elo WHERE bot_id IN ({bots}){stop} ORDER BY rowid"
        return [float(r[0]) for r in self.db.execute(q, args)]

    def in_play_among(self, names: Sequence[str] | None = None) -> set[str]:
        """The recorded matches (of the bots ``names``; of everyone, without) whose deal other
        seatings of their tournament still play (their records are withheld until then)."""
        if names is not None and not names:
            return set()
        bots = (
            f" CROSS JOIN seats s ON s.match_id = tm.match_id CROSS JOIN bots b ON b.id = s.bot_id "
            f"WHERE b.name IN ({', '.join('?' * len(names))})"
            if names is not None
            else ""
        )
        rows = self.db.query(
            # CROSS JOIN keeps this order: the few open deals, their recorded seatings (by the deal
            # index), their seats; not every match of the bots, which at a big arena is thousands.
            "SELECT DISTINCT tm.match_id AS id FROM (SELECT DISTINCT tournament_id, seed FROM tournament_matches "
            "WHERE match_id IS NULL) open CROSS JOIN tournament_matches tm ON tm.tournament_id = open.tournament_id "
            "AND tm.seed = open.seed AND tm.match_id IS NOT NULL" + bots,
            list(names or []),
        )
        return {str(r["id"]) for r in rows}
