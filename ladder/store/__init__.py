"""The arena's SQLite store: bots, matches and everything that happened in them.

One module, SQLite through sqlite-utils. WAL mode (readers never block the writer), foreign keys
on, and a schema built by ordered migrations recorded in ``PRAGMA user_version``.

``Store.save_match(record)`` writes one whole match in ONE transaction: a crash or a failed insert
never leaves half a match. ``load_match`` reads it back as the referee's ``MatchRecord``.

To extend the schema (a tournaments table, say), append a function to ``MIGRATIONS``; never edit
or reorder the ones that shipped: databases in the field have already run them. A database whose
``user_version`` is beyond ``SCHEMA_VERSION`` was written by a later version: it is refused
(``SchemaTooNew``) before anything is written to it.

Several processes may write one file at once (two tournaments, a ``hearts bot add``): every write
transaction takes the write lock at its start (``BEGIN IMMEDIATE``) and waits up to
``BUSY_TIMEOUT_S`` for it. A deferred ``BEGIN`` that reads and then writes cannot wait in WAL mode:
once another process has committed since its read, SQLite fails it at once with "database is
locked", whatever the busy timeout.

A commit is durable when the process dies (a SIGKILL, a crash): WAL with ``synchronous=NORMAL``,
which skips the fsync of every commit (on a virtual disk that fsync costs more than writing the whole
match). Only a power loss or an OS crash may roll back the last commits, never corrupting the file;
a tournament's matches lost so are pending again, and ``hearts tournament resume`` plays them from
their seeds. ``Store(path, fsync_commits=True)`` keeps SQLite's full durability (the arena's
accounts and submissions).

``Store(path, readonly=True)`` opens the file read-only (SQLite's ``mode=ro``), for the commands that
only read: they work on a read-only file or filesystem and never write, not even a schema into an
empty file. An older schema (or an empty file) is read through a copy migrated in memory.

Problems with the file itself (not SQLite, a missing directory, read-only, a full disk) are
``StoreError``s that say what is wrong with which file; ``store_error`` turns a ``sqlite3.Error``
met while writing into one.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self

import sqlite_utils

from ladder.sandbox import Isolation
from ladder.tournament.schedule import ScheduledMatch
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
from referee.rules import Rules

# -- schema --------------------------------------------------------------------------------------


def _m1_matches(db: sqlite_utils.Database) -> None:
    """Bots, matches, seats, hands, passes, plays, faults."""
    _executescript_in_transaction(
        db,
        """
    CREATE TABLE bots (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL
    );
    CREATE TABLE matches (
        id TEXT PRIMARY KEY,
        tournament_id INTEGER,            -- a tournaments table comes in a later migration
        seed INTEGER NOT NULL,
        rules TEXT NOT NULL,              -- JSON: Rules.to_dict()
        players INTEGER NOT NULL,
        status TEXT NOT NULL,             -- finished | aborted
        started_at TEXT NOT NULL,         -- ISO 8601, UTC
        finished_at TEXT,
        winners TEXT NOT NULL             -- JSON list of seats
    );
    CREATE INDEX matches_tournament ON matches (tournament_id);
    CREATE TABLE seats (
        match_id TEXT NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
        seat INTEGER NOT NULL,
        bot_id INTEGER NOT NULL REFERENCES bots (id),
        final_score INTEGER NOT NULL,
        place INTEGER NOT NULL,
        faults INTEGER NOT NULL,
        forfeit INTEGER NOT NULL,
        forfeit_reason TEXT,
        address TEXT,
        time_bank_left_ms REAL,
        PRIMARY KEY (match_id, seat)
    );
    CREATE INDEX seats_bot ON seats (bot_id);
    CREATE TABLE hands (
        match_id TEXT NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
        hand INTEGER NOT NULL,
        pass_direction TEXT NOT NULL,
        dealer INTEGER NOT NULL,
        deal TEXT NOT NULL,               -- JSON: each seat's cards as dealt, e.g. [["2C", "QS", ...], ...]
        kitty TEXT NOT NULL,              -- cards, space separated
        points_taken TEXT NOT NULL,       -- JSON list by seat
        score TEXT NOT NULL,              -- JSON list by seat: what the hand added
        totals TEXT NOT NULL,             -- JSON list by seat: totals after the hand
        moon INTEGER,
        sun INTEGER,
        moon_choice TEXT,
        moon_choice_substituted INTEGER NOT NULL DEFAULT 0,
        moon_choice_latency_ms REAL,
        PRIMARY KEY (match_id, hand)
    );
    CREATE TABLE passes (
        match_id TEXT NOT NULL,
        hand INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        cards TEXT NOT NULL,              -- space separated, in the order given
        latency_ms REAL,
        substituted INTEGER NOT NULL,
        PRIMARY KEY (match_id, hand, seat),
        FOREIGN KEY (match_id, hand) REFERENCES hands (match_id, hand) ON DELETE CASCADE
    );
    CREATE TABLE plays (
        match_id TEXT NOT NULL,
        hand INTEGER NOT NULL,
        trick INTEGER NOT NULL,
        position INTEGER NOT NULL,        -- 0 for the leader's card
        seat INTEGER NOT NULL,
        card TEXT NOT NULL,
        latency_ms REAL,
        substituted INTEGER NOT NULL,
        PRIMARY KEY (match_id, hand, trick, position),
        FOREIGN KEY (match_id, hand) REFERENCES hands (match_id, hand) ON DELETE CASCADE
    );
    CREATE TABLE faults (
        id INTEGER PRIMARY KEY,
        match_id TEXT NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
        hand INTEGER,
        trick INTEGER,
        seat INTEGER NOT NULL,
        kind TEXT NOT NULL,
        detail TEXT NOT NULL,
        sent TEXT NOT NULL,
        received TEXT NOT NULL,
        action TEXT NOT NULL
    );
    CREATE INDEX faults_match ON faults (match_id);
    """,
    )


def _m2_tournaments(db: sqlite_utils.Database) -> None:
    """Registered bots (command or address), tournaments with their schedules, live pairwise Elo."""
    _executescript_in_transaction(
        db,
        """
    ALTER TABLE bots ADD COLUMN command TEXT;         -- started by the launcher, {port} filled in
    ALTER TABLE bots ADD COLUMN address TEXT;         -- or a remote bot's host:port
    ALTER TABLE bots ADD COLUMN description TEXT;
    ALTER TABLE bots ADD COLUMN registered_at TEXT;   -- NULL: only seen in matches, or removed
    CREATE TABLE tournaments (
        id INTEGER PRIMARY KEY,
        format TEXT NOT NULL,             -- round-robin | gauntlet
        rules TEXT NOT NULL,              -- the ruleset spec, e.g. "standard"
        seed INTEGER NOT NULL,
        rounds INTEGER NOT NULL,
        deals INTEGER NOT NULL,
        gauntlet TEXT,
        bots TEXT NOT NULL,               -- JSON: [{name, command, address}] as registered at creation
        settings TEXT NOT NULL,           -- JSON: time control and options
        status TEXT NOT NULL,             -- pending | running | finished
        created_at TEXT NOT NULL,
        finished_at TEXT
    );
    CREATE TABLE tournament_matches (
        tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
        idx INTEGER NOT NULL,
        round INTEGER NOT NULL,
        table_no INTEGER NOT NULL,
        deal INTEGER NOT NULL,
        rotation INTEGER NOT NULL,
        seed INTEGER NOT NULL,
        seats TEXT NOT NULL,              -- JSON list of bot names by seat
        rules TEXT NOT NULL,
        match_id TEXT UNIQUE REFERENCES matches (id) ON DELETE SET NULL,  -- set with the record
        status TEXT GENERATED ALWAYS AS (CASE WHEN match_id IS NULL THEN 'pending' ELSE 'done' END) VIRTUAL,
        PRIMARY KEY (tournament_id, idx)
    );
    CREATE TABLE live_elo (               -- live pairwise Elo, K/(N-1) per pair: an indicator only,
        match_id TEXT NOT NULL REFERENCES matches (id) ON DELETE CASCADE,  -- the ladder is the batch fit
        bot_id INTEGER NOT NULL REFERENCES bots (id),
        k REAL NOT NULL,
        elo_before REAL NOT NULL,
        elo_change REAL NOT NULL,
        PRIMARY KEY (match_id, bot_id)
    );
    CREATE INDEX live_elo_bot ON live_elo (bot_id);
    """,
    )


def _m3_runner(db: sqlite_utils.Database) -> None:
    """The process playing a tournament, so that a second one refuses to play it at the same time."""
    _executescript_in_transaction(
        db,
        """
    ALTER TABLE tournaments ADD COLUMN runner_pid INTEGER;  -- NULL: no process is playing it
    """,
    )


def _m4_kitty_discard(db: sqlite_utils.Database) -> None:
    """Under kitty_discard, what the kitty's taker discarded into its tricks, and how it was decided."""
    _executescript_in_transaction(
        db,
        """
    ALTER TABLE hands ADD COLUMN discard_seat INTEGER;                        -- NULL: no discard this hand
    ALTER TABLE hands ADD COLUMN discard TEXT NOT NULL DEFAULT '';            -- cards, space separated
    ALTER TABLE hands ADD COLUMN discard_substituted INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE hands ADD COLUMN discard_latency_ms REAL;
    """,
    )


def _m5_pass_call(db: sqlite_utils.Database) -> None:
    """Where the dealer calls the pass (pass_cycle call): the call and how it was decided."""
    _executescript_in_transaction(
        db,
        """
    ALTER TABLE hands ADD COLUMN pass_call TEXT;                               -- NULL: no call this hand
    ALTER TABLE hands ADD COLUMN pass_call_substituted INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE hands ADD COLUMN pass_call_latency_ms REAL;
    """,
    )


def _m6_bot_limit(db: sqlite_utils.Database) -> None:
    """The organiser's limit on a bot's concurrent matches (bots.toml max_concurrency)."""
    _executescript_in_transaction(
        db,
        """
    ALTER TABLE bots ADD COLUMN max_concurrency INTEGER;  -- NULL: no limit of the organiser's
    """,
    )


def _m7_runner_identity(db: sqlite_utils.Database) -> None:
    """Who the runner is beyond its pid, which the system reuses (after a reboot, say): its host and
    its start, so that a claim left by a dead runner is told from a live one."""
    _executescript_in_transaction(
        db,
        """
    ALTER TABLE tournaments ADD COLUMN runner_host TEXT;     -- the runner's host name
    ALTER TABLE tournaments ADD COLUMN runner_started TEXT;  -- its boot and start time; NULL: unknown
    """,
    )


def _m8_forfeit_reasons(db: sqlite_utils.Database) -> None:
    # A forfeit reason is a ForfeitReason value; older records kept a sentence ("unreachable (status
    # UNAVAILABLE: ...)", "3 faults"), whose detail the fault records hold anyway.
    db.execute("UPDATE seats SET forfeit_reason = 'unreachable' WHERE forfeit_reason LIKE 'unreachable%'")
    db.execute("UPDATE seats SET forfeit_reason = 'faults' WHERE forfeit_reason LIKE '% faults'")


def rules_text(stored: str) -> str | None:
    """The canonical text (``str(Rules)``) of a ruleset as a table holds it: that text, a ``--rules``
    text or, before migration 9, ``Rules.to_dict()`` JSON; None for one this version cannot read (a
    later version's option)."""
    try:
        rules = Rules.from_dict(json.loads(stored)) if stored.startswith("{") else Rules.parse(stored)
    except (ValueError, TypeError, KeyError):
        return None
    return str(rules)


# Compact, keys sorted: one encoder for every JSON column (json.dumps with options builds one a call,
# ~50 a saved match).
_JSON = json.JSONEncoder(separators=(",", ":"), sort_keys=True)


def _trick_and_position(play: list[Any]) -> tuple[int, int]:
    return play[0], play[1]


def _m9_canonical_rules(db: sqlite_utils.Database) -> None:
    # Every table keeps a ruleset as its canonical text, so rules that play the same compare equal
    # in SQL: matches kept Rules.to_dict() JSON, tournaments and schedules the text their user gave.
    for table in ("matches", "tournaments", "tournament_matches"):
        for (stored,) in db.execute(f"SELECT DISTINCT rules FROM {table}").fetchall():
            text = rules_text(stored)
            if text is not None and text != stored:
                db.execute(f"UPDATE {table} SET rules = ? WHERE rules = ?", [text, stored])


def _m10_bot_module(db: sqlite_utils.Database) -> None:
    """A bot played in-process: its ``package.module:ClassName`` (bots.toml ``module``)."""
    if "module" in db["bots"].columns_dict:  # a store rewound to an earlier version (tests do) has it
        return
    _executescript_in_transaction(
        db,
        """
    ALTER TABLE bots ADD COLUMN module TEXT;  -- NULL unless the bot is registered by its module
    """,
    )


def _m11_live_elo_totals(db: sqlite_utils.Database) -> None:
    """Each bot's sum of live Elo changes per ruleset, kept by triggers: the live Elo a match starts
    from is read at every save, and summing every earlier match of the ruleset made a long
    tournament's saves slower and slower (quadratic in its matches)."""
    _executescript_in_transaction(
        db,
        """
    CREATE TABLE IF NOT EXISTS live_elo_totals (  -- IF NOT EXISTS: a store rewound to an earlier version (tests do)
        bot_id INTEGER NOT NULL REFERENCES bots (id),
        rules TEXT NOT NULL,              -- matches.rules: the canonical text
        elo_change REAL NOT NULL,
        PRIMARY KEY (bot_id, rules)
    ) WITHOUT ROWID;
    """,
    )
    # A trigger's body holds semicolons: one statement each, not through the script splitter.
    db.execute(
        "CREATE TRIGGER IF NOT EXISTS live_elo_added AFTER INSERT ON live_elo BEGIN "
        "INSERT INTO live_elo_totals (bot_id, rules, elo_change) "
        "VALUES (NEW.bot_id, (SELECT rules FROM matches WHERE id = NEW.match_id), NEW.elo_change) "
        "ON CONFLICT (bot_id, rules) DO UPDATE SET elo_change = elo_change + excluded.elo_change; END"
    )
    # Before: the cascade that deletes the match's live_elo rows runs once the match is gone.
    db.execute(
        "CREATE TRIGGER IF NOT EXISTS live_elo_match_deleted BEFORE DELETE ON matches BEGIN "
        "UPDATE live_elo_totals SET elo_change = elo_change - (SELECT l.elo_change FROM live_elo l "
        "WHERE l.match_id = OLD.id AND l.bot_id = live_elo_totals.bot_id) "
        "WHERE rules = OLD.rules AND bot_id IN (SELECT bot_id FROM live_elo WHERE match_id = OLD.id); END"
    )
    rebuild_live_elo_totals(db)


def rebuild_live_elo_totals(db: sqlite_utils.Database) -> None:
    """The totals anew from every live Elo change: for a migration that rewrites ``matches.rules``."""
    db.execute("DELETE FROM live_elo_totals")
    db.execute(
        "INSERT INTO live_elo_totals (bot_id, rules, elo_change) SELECT l.bot_id, m.rules, SUM(l.elo_change) "
        "FROM live_elo l JOIN matches m ON m.id = l.match_id GROUP BY l.bot_id, m.rules"
    )


def _m12_hand_plays(db: sqlite_utils.Database) -> None:
    """A hand's plays in one row (JSON, in play order), and ``plays`` a view of them a play a row:
    a match is ~600 plays, and inserting them a row each was most of the time a save takes."""
    if "hand_plays" in db.table_names():  # a store rewound to an earlier version (tests do) has it
        return
    _executescript_in_transaction(
        db,
        """
    CREATE TABLE hand_plays (
        match_id TEXT NOT NULL,
        hand INTEGER NOT NULL,
        plays TEXT NOT NULL,  -- JSON in play order: [[trick, position, seat, card, latency_ms, substituted]]
        PRIMARY KEY (match_id, hand),
        FOREIGN KEY (match_id, hand) REFERENCES hands (match_id, hand) ON DELETE CASCADE
    );
    """,
    )
    # Packed here, not by SQLite's json_group_array: SQLite writes a REAL to 15 digits, Python's json
    # to the digits that read back the same float.
    rows = db.conn.execute(
        "SELECT match_id, hand, trick, position, seat, card, latency_ms, substituted FROM plays "
        "ORDER BY match_id, hand, trick, position"
    )
    for _, group in itertools.groupby(rows, key=lambda r: (r[0], r[1])):
        plays = list(group)
        db.conn.execute(
            "INSERT INTO hand_plays (match_id, hand, plays) VALUES (?, ?, ?)",
            [plays[0][0], plays[0][1], _JSON.encode([p[2:] for p in plays])],
        )
    db.execute("DROP TABLE plays")
    db.execute(_PLAYS_VIEW_12)


# The plays a row each, as the table of that name had them, over migration 12's JSON rows.
_PLAYS_VIEW_12 = (
    "CREATE VIEW plays AS SELECT h.match_id AS match_id, h.hand AS hand, "
    "json_extract(p.value, '$[0]') AS trick, json_extract(p.value, '$[1]') AS position, "
    "json_extract(p.value, '$[2]') AS seat, json_extract(p.value, '$[3]') AS card, "
    "json_extract(p.value, '$[4]') AS latency_ms, json_extract(p.value, '$[5]') AS substituted "
    "FROM hand_plays h, json_each(h.plays) p"
)


def _m13_turbo_charges(db: sqlite_utils.Database) -> None:
    """Under turbo_charging, each seat's turbo-charge of each hand (the cards it placed face up). And the
    rulesets' texts again: the turbo preset is the shortest text of some (``omnibus,ten_of_clubs_doubles=
    true`` reads ``turbo,turbo_charging=false`` now), and rules that play the same must keep one text."""
    _m9_canonical_rules(db)
    rebuild_live_elo_totals(db)
    _executescript_in_transaction(
        db,
        """
    CREATE TABLE IF NOT EXISTS charges (  -- IF NOT EXISTS: a store rewound to an earlier version (tests do)
        match_id TEXT NOT NULL,
        hand INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        cards TEXT NOT NULL,              -- space separated; '' charged nothing
        latency_ms REAL,
        substituted INTEGER NOT NULL,
        PRIMARY KEY (match_id, hand, seat),
        FOREIGN KEY (match_id, hand) REFERENCES hands (match_id, hand) ON DELETE CASCADE
    );
    """,
    )


def _m14_seat_teams(db: sqlite_utils.Database) -> None:
    """002 Partnership Hearts: each seat's team (0: seats 0 and 2, 1: seats 1 and 3), NULL without
    partners (every match before this migration)."""
    if "team" in db["seats"].columns_dict:  # a store rewound to an earlier version (tests do) has it
        return
    _executescript_in_transaction(
        db,
        """
    ALTER TABLE seats ADD COLUMN team INTEGER;  -- NULL unless the rules have partners
    """,
    )


def _m15_hand_plays_by_column(db: sqlite_utils.Database) -> None:
    """A hand's plays as columns in play order: the seats a digit each, the cards, the latencies in
    whole microseconds, the positions of the substituted plays. Migration 12's JSON of one
    [trick, position, seat, card, latency_ms, substituted] list per play cost a save more than all
    its inserts (a latency's 17 digits were most of it); trick and position follow from the order,
    every trick being one card from every seat. Older latencies are kept to the microsecond, as the
    referee now records them (the digits beyond were the timer's noise)."""
    if "seats" in db["hand_plays"].columns_dict:  # a store rewound to an earlier version (tests do) has it
        return
    _executescript_in_transaction(
        db,
        """
    CREATE TABLE hand_plays_by_column (
        match_id TEXT NOT NULL,
        hand INTEGER NOT NULL,
        seats TEXT NOT NULL,         -- the seat of each play, a digit each, in play order
        cards TEXT NOT NULL,         -- JSON: the card of each play, in play order
        latencies_us TEXT NOT NULL,  -- JSON: each play's latency in whole microseconds (null: nobody asked)
        substituted TEXT NOT NULL,   -- JSON: the positions (in play order) of the plays a substitute made
        PRIMARY KEY (match_id, hand),
        FOREIGN KEY (match_id, hand) REFERENCES hands (match_id, hand) ON DELETE CASCADE
    );
    """,
    )
    rows = db.conn.execute("SELECT match_id, hand, plays FROM hand_plays")
    db.conn.executemany(
        "INSERT INTO hand_plays_by_column (match_id, hand, seats, cards, latencies_us, substituted) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        (
            (
                mid,
                hand,
                *_columns([(p[2], p[3], p[4], p[5]) for p in sorted(json.loads(text), key=_trick_and_position)]),
            )
            for mid, hand, text in rows
        ),
    )
    db.execute("DROP VIEW plays")
    db.execute("DROP TABLE hand_plays")
    db.execute("ALTER TABLE hand_plays_by_column RENAME TO hand_plays")
    db.execute(_PLAYS_VIEW)


def _columns(plays: list[tuple[int, str, float | None, Any]]) -> tuple[str, str, str, str]:
    """``hand_plays``' columns of one hand's (seat, card, latency_ms, substituted) in play order."""
    return (
        "".join([str(p[0]) for p in plays]),
        _JSON.encode([p[1] for p in plays]),
        _JSON.encode([None if p[2] is None else int(p[2] * 1000 + 0.5) for p in plays]),
        _JSON.encode([i for i, p in enumerate(plays) if p[3]]),
    )


# The plays a row each, as the table of that name had them: for queries (the store reads hand_plays).
_PLAYS_VIEW = (
    "CREATE VIEW plays AS SELECT h.match_id AS match_id, h.hand AS hand, "
    "c.key / m.players AS trick, c.key % m.players AS position, "
    "CAST(substr(h.seats, c.key + 1, 1) AS INTEGER) AS seat, c.value AS card, "
    "json_extract(h.latencies_us, '$[' || c.key || ']') / 1000.0 AS latency_ms, "
    "c.key IN (SELECT value FROM json_each(h.substituted)) AS substituted "
    "FROM hand_plays h JOIN matches m ON m.id = h.match_id, json_each(h.cards) c"
)


def _m16_seat_isolation(db: sqlite_utils.Database) -> None:
    """What guarded each seat's bot (``str(Isolation)``: ``none``, ``in-process``, ``remote``,
    ``limits-only``, ``sandbox:FEATURE,...``); NULL where it is unknown, as for every match before
    this migration."""
    if "isolation" in db["seats"].columns_dict:  # a store rewound to an earlier version (tests do) has it
        return
    _executescript_in_transaction(
        db,
        """
    ALTER TABLE seats ADD COLUMN isolation TEXT;  -- NULL: not known
    """,
    )


def _m17_notes(db: sqlite_utils.Database) -> None:
    """Each match's notes: what the referee did for a seat that is no fault (an optional RPC the bot
    does not implement, answered by its do-nothing answer), once per match where it first happened."""
    _executescript_in_transaction(
        db,
        """
    CREATE TABLE IF NOT EXISTS notes (  -- IF NOT EXISTS: a store rewound to an earlier version (tests do)
        id INTEGER PRIMARY KEY,
        match_id TEXT NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
        hand INTEGER,
        seat INTEGER NOT NULL,
        kind TEXT NOT NULL,               -- referee.record.NoteKind
        detail TEXT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS notes_match ON notes (match_id);
    """,
    )


def _m18_seat_kinds(db: sqlite_utils.Database) -> None:
    """Who sat in each seat: a bot, or a person at the table (``hearts play``), whom the ladder never
    rates. Every match before this migration was among bots."""
    if "kind" in db["seats"].columns_dict:  # a store rewound to an earlier version (tests do) has it
        return
    _executescript_in_transaction(
        db,
        """
    ALTER TABLE seats ADD COLUMN kind TEXT NOT NULL DEFAULT 'bot';  -- bot | human
    """,
    )


MIGRATIONS: list[Callable[[sqlite_utils.Database], None]] = [
    _m1_matches,
    _m2_tournaments,
    _m3_runner,
    _m4_kitty_discard,
    _m5_pass_call,
    _m6_bot_limit,
    _m7_runner_identity,
    _m8_forfeit_reasons,
    _m9_canonical_rules,
    _m10_bot_module,
    _m11_live_elo_totals,
    _m12_hand_plays,
    _m13_turbo_charges,
    _m14_seat_teams,
    _m15_hand_plays_by_column,
    _m16_seat_isolation,
    _m17_notes,
    _m18_seat_kinds,
    # Append new migrations here (each runs once, in its own transaction, in order). One that
    # rewrites matches.rules calls rebuild_live_elo_totals.
]

# The schema this code writes; a database of a higher user_version is refused.
SCHEMA_VERSION: int = len(MIGRATIONS)
BUSY_TIMEOUT_S: float = 30.0  # how long a writer waits for another process's write to end


def _executescript_in_transaction(db: sqlite_utils.Database, script: str) -> None:
    # sqlite3's executescript() commits first; run statement by statement to stay in the migration's
    # transaction so that a failing migration leaves the schema as it was.
    for statement in _statements(script):
        db.execute(statement)


def _statements(script: str) -> Iterator[str]:
    lines = [line.split("--", 1)[0] for line in script.splitlines()]
    for part in "\n".join(lines).split(";"):
        if part.strip():
            yield part.strip()


def migrate(db: sqlite_utils.Database) -> int:
    """Bring the schema up to date; returns its version. Safe to call again (it does nothing), and
    from two processes at once: each step re-reads the version under the write lock."""
    for number, step in enumerate(MIGRATIONS, start=1):
        if _user_version(db.conn) >= number:
            continue
        with _write_transaction(db.conn):
            if _user_version(db.conn) < number:  # another process may have run it meanwhile
                step(db)
                db.execute(f"PRAGMA user_version = {number}")  # in the same transaction as the step
    return len(MIGRATIONS)


def _user_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


@contextlib.contextmanager
def _write_transaction(conn: sqlite3.Connection) -> Iterator[None]:
    """One transaction that holds the write lock from its start (waiting for it up to the busy
    timeout), so that what it reads stays true until it commits."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        if conn.in_transaction:  # some errors (a full disk) have rolled it back already
            conn.execute("ROLLBACK")
        raise
    try:
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


class _Database(sqlite_utils.Database):
    """sqlite-utils' Database whose outermost ``atomic()`` is ``BEGIN IMMEDIATE`` (nested ones stay
    savepoints). sqlite-utils' own writes (``insert``...) go through ``atomic()`` too."""

    readonly = False

    @contextlib.contextmanager
    def atomic(self) -> Iterator[sqlite_utils.Database]:
        if self.conn.in_transaction or self.readonly:
            with super().atomic():
                yield self
        else:
            with _write_transaction(self.conn):
                yield self


# -- problems with the file ----------------------------------------------------------------------


class StoreError(Exception):
    """A database file that cannot be used as asked: ``problem`` says what is wrong with ``path``,
    ``hint`` what to do about it."""

    def __init__(self, path: str, problem: str, hint: str = "") -> None:
        self.path, self.problem, self.hint = path, problem, hint
        super().__init__(f"{path}: {problem}" + (f"; {hint}" if hint else ""))


class NoDatabase(StoreError):
    """A read-only open of a file that does not exist (nothing is created)."""


class SchemaTooNew(StoreError):
    """A database written by a later version of hearts-arena, with a schema this one does not know."""


_NOT_ARENA_HINT = "give the arena's database file, or the name of a new file to start one"


def store_error(error: sqlite3.Error, path: str) -> StoreError:
    """What a ``sqlite3.Error`` on ``path`` means, as a ``StoreError`` a user can act on."""
    name = getattr(error, "sqlite_errorname", "") or ""
    if name == "SQLITE_FULL":
        return StoreError(path, f"the disk is full ({error})", "free some space on it")
    if name.startswith("SQLITE_READONLY"):
        return StoreError(path, f"read-only ({error})", "give a writable file, or copy it somewhere writable")
    if name == "SQLITE_NOTADB":
        return StoreError(path, f"not an SQLite database ({error})", _NOT_ARENA_HINT)
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
        return StoreError(
            path,
            f"locked by another process for more than {BUSY_TIMEOUT_S:g} s ({error})",
            "try again once the other process is done writing",
        )
    if name.startswith("SQLITE_CORRUPT"):
        return StoreError(path, f"damaged ({error})", "restore it from a copy, or give another file")
    if name.startswith("SQLITE_IOERR"):
        return StoreError(path, f"a disk error ({error})", "check the disk")
    if name.startswith("SQLITE_CANTOPEN"):
        return StoreError(path, f"cannot be opened ({error})", "check the path and its permissions")
    return StoreError(path, str(error))


def writable_problem(path: str | Path) -> StoreError | None:
    """Why ``path`` cannot be opened for writing, found before anything is written; None if it can."""
    p = Path(path)
    where = str(path)
    directory = p.parent
    if p.is_dir():
        return StoreError(where, "a directory, not a database file", _NOT_ARENA_HINT)
    if not directory.is_dir():
        return StoreError(where, f"the directory {directory} does not exist", "create it, or give another path")
    # SQLite writes its journal (-wal, -shm) beside the file: the directory must be writable too.
    if not os.access(directory, os.W_OK) or (p.exists() and not os.access(p, os.W_OK)):
        what = "read-only" if p.exists() else f"cannot be created: the directory {directory} is read-only"
        return StoreError(where, what, "give a writable file, or copy it somewhere writable")
    return None


def _check_schema(conn: sqlite3.Connection, path: str) -> int:
    """The file's schema version, once it is known to be an arena database this code can read
    (``sqlite3.Error`` if SQLite cannot read it at all)."""
    # One snapshot for both reads: another process creating the file may commit its first
    # migration (tables and version together) between them.
    snapshot = not conn.in_transaction
    if snapshot:
        conn.execute("BEGIN")
    try:
        version = _user_version(conn)
        tables = [
            r[0]
            for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name LIMIT 4"
            )
        ]
    finally:
        if snapshot and conn.in_transaction:
            conn.execute("COMMIT")
    if version == 0:  # ours or empty, or another program's database: never add tables to that
        if tables:
            raise StoreError(
                path,
                f"an SQLite database of another program (tables {', '.join(tables)}), not an arena's",
                _NOT_ARENA_HINT,
            )
    if version > len(MIGRATIONS):
        raise SchemaTooNew(
            path,
            f"schema version {version}, newer than this hearts-arena's ({len(MIGRATIONS)}): a later version wrote it",
            "upgrade hearts-arena to use it (nothing was written)",
        )
    return version


def _open_writable(path: str) -> sqlite3.Connection:
    problem = writable_problem(path)
    if problem is not None:
        raise problem
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S)
    try:
        _check_schema(conn, path)  # before anything is written, WAL mode included
    except sqlite3.Error as e:
        conn.close()
        raise store_error(e, path) from None
    except BaseException:
        conn.close()
        raise
    return conn


def _open_readonly(path: str) -> tuple[sqlite3.Connection, bool]:
    """A read-only connection to ``path``, and whether it is to a copy in memory (to be migrated)."""
    p = Path(path)
    if not p.is_file():
        raise NoDatabase(path, "no such file", "give the arena's database file")
    uri = p.resolve().as_uri()
    conn = sqlite3.connect(f"{uri}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_S)
    try:
        try:
            version = _check_schema(conn, path)
        except sqlite3.OperationalError as e:
            if getattr(e, "sqlite_errorname", "") != "SQLITE_CANTOPEN" or not _unwritable_wal(p):
                raise
            # A WAL database where SQLite cannot make its -shm file: a read-only filesystem, which
            # nothing can write either, so reading the file as immutable sees exactly what is there.
            conn.close()
            conn = sqlite3.connect(f"{uri}?mode=ro&immutable=1", uri=True)
            version = _check_schema(conn, path)
        if version < len(MIGRATIONS):
            # An older schema, or an empty file: read a copy, migrated in memory.
            copy = sqlite3.connect(":memory:")
            conn.backup(copy)
            conn.close()
            return copy, True
        conn.execute("PRAGMA query_only = 1")
    except sqlite3.Error as e:
        conn.close()
        raise store_error(e, path) from None
    except BaseException:
        conn.close()
        raise
    return conn, False


def _unwritable_wal(p: Path) -> bool:
    """Whether ``p`` is a WAL database whose directory cannot be written and that has no journal
    left beside it (nothing can be missing from the file itself)."""
    wal = p.with_name(p.name + "-wal")
    return not os.access(p.parent, os.W_OK) and (not wal.exists() or wal.stat().st_size == 0)


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


_TOURNAMENT_SQL = (
    "SELECT t.id, t.format, t.rules, t.seed, t.rounds, t.deals, t.gauntlet, t.bots, t.settings, t.status, "
    "t.created_at, t.finished_at, COUNT(tm.idx), COUNT(tm.match_id) "
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
        row = self.db.execute(_TOURNAMENT_SQL + "WHERE t.id = ? GROUP BY t.id", [tournament_id]).fetchone()
        return TournamentRow(*row) if row is not None else None

    def all(self) -> list[TournamentRow]:
        return [TournamentRow(*r) for r in self.db.execute(_TOURNAMENT_SQL + "GROUP BY t.id ORDER BY t.id")]

    def delete(self, tournament_id: int) -> None:
        """A tournament and its schedule (the caller checks that nothing of it was recorded)."""
        self.db.execute("DELETE FROM tournament_matches WHERE tournament_id = ?", [tournament_id])
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

    def release_runner(self, tournament_id: int, runner: Runner) -> None:
        """Clear the claim, if it is still ``runner``'s."""
        self.db.execute(
            "UPDATE tournaments SET runner_pid = NULL, runner_host = NULL, runner_started = NULL "
            "WHERE id = ? AND runner_pid = ? AND runner_host IS ? AND runner_started IS ?",
            [tournament_id, runner.pid, runner.host, runner.started],
        )


class Registrations:
    """The store's registry part: the bots' registrations (how each is started or reached). Rows are
    (name, command, address, description, max_concurrency, module); ``ladder.bots.registry`` makes them entries."""

    _SELECT = "SELECT name, command, address, description, max_concurrency, module FROM bots "
    _REGISTERED = "(command IS NOT NULL OR address IS NOT NULL OR module IS NOT NULL)"

    def __init__(self, db: _Database) -> None:
        self.db = db

    def get(self, name: str) -> tuple[Any, ...] | None:
        """A registered bot's row (a bot that only played, never registered, has none)."""
        row = self.db.execute(self._SELECT + f"WHERE name = ? AND {self._REGISTERED}", [name]).fetchone()
        return None if row is None else tuple(row)

    def all(self) -> list[tuple[Any, ...]]:
        """Every registered bot's row, by name."""
        sql = self._SELECT + f"WHERE {self._REGISTERED} ORDER BY name"
        return [tuple(r) for r in self.db.execute(sql)]

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
                "INSERT INTO hand_plays (match_id, hand, seats, cards, latencies_us, substituted) "
                "VALUES (?, ?, ?, ?, ?, ?)",
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
    def _hand_play_rows(record: MatchRecord) -> list[tuple[str, int, str, str, str, str]]:
        """A row per hand: its plays as ``hand_plays`` keeps them (``_columns``, written out)."""
        mid = record.match_id
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
            )
            for r in _by_name(
                q(
                    "SELECT s.seat, b.name AS bot, s.final_score, s.place, s.faults, s.forfeit, s.forfeit_reason, "
                    "s.address, s.time_bank_left_ms, s.team, s.isolation, s.kind "
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
        players = len(seats)  # every trick is a card from every seat: the order gives trick and position
        plays: list[PlayRecord] = []
        for hand, by_seat, cards, latencies, substituted in q(
            "SELECT hand, seats, cards, latencies_us, substituted FROM hand_plays WHERE match_id = ? ORDER BY hand",
            [mid],
        ):
            subs = set(json.loads(substituted))
            plays.extend(
                PlayRecord(
                    hand=hand,
                    trick=i // players,
                    seat=int(seat),
                    card=card,
                    latency_ms=None if us is None else us / 1000,
                    substituted=i in subs,
                )
                for i, (seat, card, us) in enumerate(
                    zip(by_seat, json.loads(cards), json.loads(latencies), strict=True)
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
