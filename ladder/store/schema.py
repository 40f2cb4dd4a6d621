"""The store's schema: ordered migrations recorded in ``PRAGMA user_version``, and the write transaction.

To extend the schema, append a function to ``MIGRATIONS``; never edit or reorder the ones that
shipped: databases in the field have already run them.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import sqlite3
from collections.abc import Callable, Iterator
from typing import Any

import sqlite_utils

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
# Migration 15's; migration 21 replaces it with ``_PLAYS_VIEW_21``, which reads each hand's tricks.
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


def _m19_seat_clocks(db: sqlite_utils.Database) -> None:
    """The clock each seat played under: its budget, its bank at the start and its grace (milliseconds),
    its own (a bot's time control, a person's) or the match's; NULL where it is unknown, as for every
    match before this migration."""
    if "budget_ms" in db["seats"].columns_dict:  # a store rewound to an earlier version (tests do) has it
        return
    _executescript_in_transaction(
        db,
        """
    ALTER TABLE seats ADD COLUMN budget_ms REAL;  -- NULL: not known
    ALTER TABLE seats ADD COLUMN bank_ms REAL;    -- the bank it started with (time_bank_left_ms: what was left)
    ALTER TABLE seats ADD COLUMN grace_ms REAL;
    """,
    )


def _m20_sprt_steps(db: sqlite_utils.Database) -> None:
    """A sequential test's state after each deal of a comparison (``hearts tournament run --sprt``,
    ``hearts compare``): the deals so far, the mean difference and its sd (points per hand), the LLR,
    its bounds and the verdict then."""
    _executescript_in_transaction(
        db,
        """
    CREATE TABLE IF NOT EXISTS sprt_steps (  -- IF NOT EXISTS: a store rewound to an earlier version (tests do)
        tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
        deals INTEGER NOT NULL,           -- deals in the test, this one included
        mean REAL NOT NULL,               -- A's points per hand minus B's, the mean over those deals
        sd REAL NOT NULL,                 -- their sample standard deviation (0 before two)
        llr REAL NOT NULL,
        lower REAL NOT NULL,              -- H0 at or below
        upper REAL NOT NULL,              -- H1 at or above
        verdict TEXT NOT NULL,            -- continue | H0 | H1
        PRIMARY KEY (tournament_id, deals)
    );
    """,
    )


def _m21_tricks_as_played(db: sqlite_utils.Database) -> None:
    """Each hand's tricks as the engine played them. Migration 15 kept a hand's plays in play order and
    read trick and position from it, every trick being one card from every seat; but under 002 Booster
    Nines a boosted trick is two rounds ('a further card from each player, in rotation'): from a hand's
    first boost on, every play's trick and position were off. ``hand_plays.tricks``: where the hand's
    tricks are not each one card from every seat, the play-order index of each trick's first card
    (JSON), else NULL (``ladder.store.tricks``); the ``plays`` view reads it. Every stored match of
    rules under which a trick may differ (booster_nines) is replayed through the engine, whose tricks
    are written; one the engine cannot replay (a later version's rules, plays it refuses) is left as
    it was. Robust to running after any migration before it, and again on a store rewound to before it."""
    from ladder.store.tricks import may_differ

    if "tricks" not in db["hand_plays"].columns_dict:  # a store rewound to an earlier version (tests do) has it
        _executescript_in_transaction(
            db,
            """
    ALTER TABLE hand_plays ADD COLUMN tricks TEXT;  -- JSON: each trick's first play; NULL: a card from every seat
    """,
        )
    db.execute("DROP VIEW IF EXISTS plays")
    db.execute(_PLAYS_VIEW_21)
    for (stored,) in db.execute("SELECT DISTINCT rules FROM matches").fetchall():
        try:
            rules = Rules.from_dict(json.loads(stored)) if stored.startswith("{") else Rules.parse(stored)
        except (ValueError, TypeError, KeyError):
            continue  # a later version's option: this version cannot replay it
        if not may_differ(rules):
            continue
        for mid, seed, players in db.execute(
            "SELECT id, seed, players FROM matches WHERE rules = ? ORDER BY id", [stored]
        ).fetchall():
            _rewrite_tricks(db, mid, seed, rules, players)


def _rewrite_tricks(db: sqlite_utils.Database, mid: str, seed: int, rules: Rules, players: int) -> None:
    """Migration 21 for one match: its record as the store holds it at this version (read here, not by
    ``Store.load_match``, which reads the store's latest schema), replayed through the engine, and each
    replayed hand's trick starts written to its ``hand_plays`` row."""
    from ladder.store.tricks import replayed_tricks, trick_starts
    from referee.record import ChargeRecord, HandRecord, MatchRecord, PassRecord, PlayRecord, SeatRecord
    from referee.report import replay_hands

    q = db.conn.execute
    passes: dict[int, list[PassRecord]] = {}
    for hand, seat, cards in q("SELECT hand, seat, cards FROM passes WHERE match_id = ? ORDER BY hand, seat", [mid]):
        passes.setdefault(hand, []).append(PassRecord(hand, seat, tuple(cards.split())))
    charges: dict[int, list[ChargeRecord]] = {}
    for hand, seat, cards in q("SELECT hand, seat, cards FROM charges WHERE match_id = ? ORDER BY hand, seat", [mid]):
        charges.setdefault(hand, []).append(ChargeRecord(hand, seat, tuple(cards.split())))
    hands = [
        HandRecord(
            hand=hand,
            pass_direction=direction,
            dealer=dealer,
            deal=tuple(tuple(d) for d in json.loads(deal)),
            kitty=tuple(kitty.split()),
            passes=passes.get(hand, []),
            moon_choice=moon_choice,
            discard=tuple(discard.split()),
            pass_call=pass_call,
            charges=charges.get(hand, []),
        )
        for hand, direction, dealer, deal, kitty, moon_choice, discard, pass_call in q(
            "SELECT hand, pass_direction, dealer, deal, kitty, moon_choice, discard, pass_call FROM hands "
            "WHERE match_id = ? ORDER BY hand",
            [mid],
        )
    ]
    rows = q("SELECT hand, seats, cards FROM hand_plays WHERE match_id = ? ORDER BY hand", [mid]).fetchall()
    counts = {hand: len(seats) for hand, seats, _ in rows}
    plays = [
        PlayRecord(hand, 0, int(seat), card)
        for hand, seats, cards in rows
        for seat, card in zip(seats, json.loads(cards))
    ]
    record = MatchRecord(
        match_id=mid,
        seed=seed,
        rules=rules.to_dict(),
        seats=[SeatRecord(seat=s, bot="") for s in range(players)],
        hands=hands,
        plays=plays,
    )
    replayed = replay_hands(record)
    while True:
        try:
            h = next(replayed, None)
        except (ValueError, TypeError, KeyError, IndexError):  # plays the engine refuses (IllegalPlayError):
            return  # this hand and the rest keep what they had
        if h is None:
            return
        if counts.get(h.hand) != len(h.plays):  # the store's hand and the engine's differ: stop here
            return
        starts = trick_starts(replayed_tricks(h), players)
        db.conn.execute(
            "UPDATE hand_plays SET tricks = ? WHERE match_id = ? AND hand = ?",
            [None if starts is None else _JSON.encode(starts), mid, h.hand],
        )


def _m22_bot_tallies(db: sqlite_utils.Database) -> None:
    """Each bot's hands by the points it took in them, and its faults by kind, over every match it
    played, kept by triggers as matches are saved and deleted: a bot's page shows its whole history,
    and reading every record of a bot with tens of thousands of matches for it took seconds."""
    _executescript_in_transaction(
        db,
        """
    CREATE TABLE IF NOT EXISTS bot_hand_points (  -- IF NOT EXISTS: a store rewound to an earlier version (tests do)
        bot_id INTEGER NOT NULL REFERENCES bots (id),
        points INTEGER NOT NULL,          -- what one seat of the bot took in one hand
        hands INTEGER NOT NULL,
        PRIMARY KEY (bot_id, points)
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS bot_fault_kinds (
        bot_id INTEGER NOT NULL REFERENCES bots (id),
        kind TEXT NOT NULL,
        faults INTEGER NOT NULL,
        PRIMARY KEY (bot_id, kind)
    ) WITHOUT ROWID;
    """,
    )
    # A hand's seats are saved before it, a fault's seat before the fault. ``WHERE true``: an upsert
    # from a SELECT needs a WHERE for SQLite to tell its ON CONFLICT from a join's ON.
    db.execute(
        "CREATE TRIGGER IF NOT EXISTS bot_hand_points_added AFTER INSERT ON hands BEGIN "
        "INSERT INTO bot_hand_points (bot_id, points, hands) "
        f"SELECT s.bot_id, {_SEAT_POINTS.format(hand='NEW')}, 1 FROM seats s "
        "WHERE s.match_id = NEW.match_id AND s.seat < json_array_length(NEW.points_taken) "
        "ON CONFLICT (bot_id, points) DO UPDATE SET hands = hands + 1; END"
    )
    db.execute(
        "CREATE TRIGGER IF NOT EXISTS bot_fault_kinds_added AFTER INSERT ON faults BEGIN "
        "INSERT INTO bot_fault_kinds (bot_id, kind, faults) "
        "SELECT s.bot_id, NEW.kind, 1 FROM seats s WHERE s.match_id = NEW.match_id AND s.seat = NEW.seat "
        "ON CONFLICT (bot_id, kind) DO UPDATE SET faults = faults + 1; END"
    )
    # Before: the cascade that deletes the match's hands, faults and seats runs once the match is gone.
    db.execute(
        "CREATE TRIGGER IF NOT EXISTS bot_tallies_match_deleted BEFORE DELETE ON matches BEGIN "
        "UPDATE bot_hand_points SET hands = hands - (SELECT COUNT(*) FROM hands h JOIN seats s "
        f"ON s.match_id = h.match_id WHERE h.match_id = OLD.id AND s.bot_id = bot_hand_points.bot_id "
        f"AND {_SEAT_POINTS.format(hand='h')} = bot_hand_points.points) "
        "WHERE bot_id IN (SELECT bot_id FROM seats WHERE match_id = OLD.id); "
        "UPDATE bot_fault_kinds SET faults = faults - (SELECT COUNT(*) FROM faults f JOIN seats s "
        "ON s.match_id = f.match_id AND s.seat = f.seat WHERE f.match_id = OLD.id "
        "AND s.bot_id = bot_fault_kinds.bot_id AND f.kind = bot_fault_kinds.kind) "
        "WHERE bot_id IN (SELECT bot_id FROM seats WHERE match_id = OLD.id); END"
    )
    db.execute("DELETE FROM bot_hand_points")
    db.execute(
        f"INSERT INTO bot_hand_points (bot_id, points, hands) SELECT s.bot_id, {_SEAT_POINTS.format(hand='h')}, "
        "COUNT(*) FROM hands h JOIN seats s ON s.match_id = h.match_id "
        "WHERE s.seat < json_array_length(h.points_taken) GROUP BY 1, 2"
    )
    db.execute("DELETE FROM bot_fault_kinds")
    db.execute(
        "INSERT INTO bot_fault_kinds (bot_id, kind, faults) SELECT s.bot_id, f.kind, COUNT(*) FROM faults f "
        "JOIN seats s ON s.match_id = f.match_id AND s.seat = f.seat GROUP BY 1, 2"
    )


def _m23_page_indexes(db: sqlite_utils.Database) -> None:
    """Matches in the order of their start, a tournament's scheduled matches by deal, a bot's seats by
    match: the newest page of a big store's matches (or of one bot's), and the recorded seatings of the
    deals still in play, read from an index, not by reading every match."""
    db.execute("CREATE INDEX IF NOT EXISTS matches_started ON matches (started_at, id)")
    db.execute("CREATE INDEX IF NOT EXISTS tournament_matches_deal ON tournament_matches (tournament_id, seed)")
    # A bot's seats in the order of their matches (a bot's own pages of matches, down it from a key);
    # it begins with the bot as the index it replaces did, and serves those reads as well.
    db.execute("CREATE INDEX IF NOT EXISTS seats_bot_match ON seats (bot_id, match_id)")
    db.execute("DROP INDEX IF EXISTS seats_bot")


# What the seat ``s`` took in a hand (``{hand}``: the hands row): its entry of ``points_taken``.
_SEAT_POINTS = "CAST(json_extract({hand}.points_taken, '$[' || s.seat || ']') AS INTEGER)"


# The plays a row each, as migration 15's view, with each hand's tricks as played (migration 21): where
# ``tricks`` lists the play-order index of each trick's first card, a play's trick is the last one begun
# at or before it, and its position its distance from that trick's first card.
_PLAYS_VIEW_21 = (
    "CREATE VIEW plays AS SELECT h.match_id AS match_id, h.hand AS hand, "
    "CASE WHEN h.tricks IS NULL THEN c.key / m.players "
    "ELSE (SELECT count(*) FROM json_each(h.tricks) s WHERE s.value <= c.key) - 1 END AS trick, "
    "CASE WHEN h.tricks IS NULL THEN c.key % m.players "
    "ELSE c.key - (SELECT max(s.value) FROM json_each(h.tricks) s WHERE s.value <= c.key) END AS position, "
    "CAST(substr(h.seats, c.key + 1, 1) AS INTEGER) AS seat, c.value AS card, "
    "json_extract(h.latencies_us, '$[' || c.key || ']') / 1000.0 AS latency_ms, "
    "c.key IN (SELECT value FROM json_each(h.substituted)) AS substituted "
    "FROM hand_plays h JOIN matches m ON m.id = h.match_id, json_each(h.cards) c"
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
    _m19_seat_clocks,
    _m20_sprt_steps,
    _m21_tricks_as_played,
    _m22_bot_tallies,
    _m23_page_indexes,
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
