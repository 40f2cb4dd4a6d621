"""The arena's own tables, in the ladder's SQLite file: every SQL statement of the arena is here.

The arena's matches are ordinary ladder matches (``ladder.store``), so ``hearts ladder``, ``hearts
replay`` and ``hearts export`` read an arena's database as any other. Beside them the arena keeps
participants (tokens as scrypt hashes only), bots, their immutable versions with build and
validation reports, and a few settings (paused, revealed, the ladder's tournament ids).

Same conventions as ``ladder.store``: WAL, every write in ``db.atomic()`` (``BEGIN IMMEDIATE``),
ordered migrations, here numbered in ``arena_meta.schema`` (``PRAGMA user_version`` is the ladder's).
"""

from __future__ import annotations

import enum
import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ladder.store import Store
from ladder.store.records import match_rows
from referee.record import utc_now

__all__ = [
    "IN_PIPELINE",
    "WAITING",
    "MIGRATIONS",
    "ArenaStore",
    "BotRow",
    "UserRow",
    "VersionRow",
    "VersionStatus",
    "has_arena_tables",
]


class VersionStatus(enum.StrEnum):
    """Where a version stands: its text is what the database stores and the API sends."""

    UPLOADING = "uploading"  # its files are being put in place: not the pipeline's yet
    PENDING = "pending"  # waiting to be built and validated
    BUILDING = "building"
    VALIDATING = "validating"
    VALID = "valid"  # plays on the ladder
    FAILED = "failed"  # refused by its build or its validation: never plays


IN_PIPELINE = (VersionStatus.PENDING, VersionStatus.BUILDING, VersionStatus.VALIDATING)
"""What the pipeline still has to check (an upload is not its until its files are in place)."""
WAITING = (VersionStatus.UPLOADING, *IN_PIPELINE)
"""Submitted and not yet judged: valid or failed to come."""


def _a1(store: Store) -> None:
    for statement in (
        """CREATE TABLE arena_users (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            role TEXT NOT NULL,               -- participant | organiser
            token_hash TEXT NOT NULL,         -- scrypt$n$r$p$salt$hash (hex); the token itself is never stored
            alias TEXT NOT NULL UNIQUE,
            created_at TEXT NOT NULL
        )""",
        """CREATE TABLE arena_bots (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            owner_id INTEGER NOT NULL REFERENCES arena_users (id),
            alias TEXT NOT NULL UNIQUE,
            house INTEGER NOT NULL DEFAULT 0,
            created_at TEXT NOT NULL
        )""",
        """CREATE TABLE arena_versions (
            id INTEGER PRIMARY KEY,
            bot_id INTEGER NOT NULL REFERENCES arena_bots (id),
            number INTEGER NOT NULL,
            ladder_name TEXT NOT NULL UNIQUE, -- the bot's name in the ladder's matches: NAME.vN
            kind TEXT NOT NULL,               -- archive | address | house
            content_hash TEXT,                -- sha256 of the archive as sent
            size INTEGER,
            files INTEGER,
            path TEXT,                        -- the unpacked version, under DIR/versions/
            command TEXT,
            build TEXT,
            language TEXT,
            address TEXT,
            submitted_by INTEGER NOT NULL REFERENCES arena_users (id),
            submitted_at TEXT NOT NULL,
            status TEXT NOT NULL,             -- pending | building | validating | valid | failed
            build_report TEXT,                -- JSON
            validation_report TEXT,           -- JSON: ladder.conformance.validate Report.to_dict()
            updated_at TEXT NOT NULL,
            UNIQUE (bot_id, number)
        )""",
        "CREATE INDEX arena_versions_status ON arena_versions (status)",
        "CREATE TABLE arena_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    ):
        store.db.execute(statement)


MIGRATIONS: list[Callable[[Store], None]] = [_a1]


@dataclass(frozen=True)
class UserRow:
    id: int
    name: str
    role: str
    token_hash: str
    alias: str
    created_at: str


@dataclass(frozen=True)
class BotRow:
    id: int
    name: str
    owner_id: int
    alias: str
    house: bool
    created_at: str
    owner: str


@dataclass(frozen=True)
class VersionRow:
    id: int
    bot_id: int
    number: int
    ladder_name: str
    kind: str
    content_hash: str | None
    size: int | None
    files: int | None
    path: str | None
    command: str | None
    build: str | None
    language: str | None
    address: str | None
    submitted_by: int
    submitted_at: str
    status: VersionStatus
    build_report: dict[str, Any] | None
    validation_report: dict[str, Any] | None
    updated_at: str
    bot: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "bot": self.bot,
            "number": self.number,
            "ladder_name": self.ladder_name,
            "kind": self.kind,
            "content_hash": self.content_hash,
            "size": self.size,
            "files": self.files,
            "language": self.language,
            "command": self.command,
            "build": self.build,
            "address": self.address,
            "submitted_at": self.submitted_at,
            "status": self.status,
            "build_report": self.build_report,
            "validation_report": self.validation_report,
            "updated_at": self.updated_at,
        }


_VERSION_COLS = (
    "v.id, v.bot_id, v.number, v.ladder_name, v.kind, v.content_hash, v.size, v.files, v.path, v.command, v.build, "
    "v.language, v.address, v.submitted_by, v.submitted_at, v.status, v.build_report, v.validation_report, "
    "v.updated_at, b.name"
)
_BOT_COLS = "b.id, b.name, b.owner_id, b.alias, b.house, b.created_at, u.name"


def _version(r: Any) -> VersionRow:
    vals = list(r)
    vals[15] = VersionStatus(vals[15])
    vals[16] = json.loads(vals[16]) if vals[16] else None
    vals[17] = json.loads(vals[17]) if vals[17] else None
    return VersionRow(*vals)


def _bot(r: Any) -> BotRow:
    return BotRow(r[0], r[1], r[2], r[3], bool(r[4]), r[5], r[6])


def has_arena_tables(path: str | Path) -> bool:
    """Whether the database at ``path`` holds an arena's tables (``hearts arena init`` made it, or an
    arena ran on it), read without writing anything: a plain tournament database has none, and
    opening it as an ``ArenaStore`` would add them."""
    with Store(path, readonly=True) as store:
        return store.db.execute("SELECT 1 FROM sqlite_master WHERE name = 'arena_meta'").fetchone() is not None


class ArenaStore:
    """The arena's tables over a ladder ``Store`` (one connection; one per thread)."""

    def __init__(self, path: str | Path) -> None:
        self.ladder = Store(path, fsync_commits=True)  # an accepted submission must survive a power loss
        self.db = self.ladder.db
        self._migrate()

    def close(self) -> None:
        self.ladder.close()

    def _migrate(self) -> None:
        for number, step in enumerate(MIGRATIONS, start=1):
            with self.db.atomic():
                if self._schema() < number:  # re-read under the write lock: another process may have run it
                    step(self.ladder)
                    self.db.execute(
                        "INSERT INTO arena_meta (key, value) VALUES ('schema', ?) "
                        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                        [str(number)],
                    )

    def schema_version(self) -> int:
        """The arena's own schema (its migrations run), beside the ladder's ``PRAGMA user_version``."""
        return self._schema()

    def _schema(self) -> int:
        exists = self.db.execute("SELECT 1 FROM sqlite_master WHERE name = 'arena_meta'").fetchone()
        if exists is None:
            return 0
        row = self.db.execute("SELECT value FROM arena_meta WHERE key = 'schema'").fetchone()
        return int(row[0]) if row else 0

    # -- settings ----------------------------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM arena_meta WHERE key = ?", [key]).fetchone()
        return str(row[0]) if row is not None else None

    def meta_keys(self, prefix: str) -> list[str]:
        """The settings' keys starting with ``prefix`` (``ladder_tournament:`` names each ruleset's ladder)."""
        q = "SELECT key FROM arena_meta WHERE substr(key, 1, ?) = ? ORDER BY key"
        return [str(r[0]) for r in self.db.execute(q, [len(prefix), prefix])]

    def set_meta(self, key: str, value: str) -> None:
        with self.db.atomic():
            self.db.execute(
                "INSERT INTO arena_meta (key, value) VALUES (?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                [key, value],
            )

    # -- users -------------------------------------------------------------------------------------

    def add_user(self, name: str, role: str, token_hash: str, alias: str) -> int:
        with self.db.atomic():
            cur = self.db.execute(
                "INSERT INTO arena_users (name, role, token_hash, alias, created_at) VALUES (?, ?, ?, ?, ?)",
                [name, role, token_hash, alias, utc_now()],
            )
            return int(cur.lastrowid or 0)

    def set_token(self, user_id: int, token_hash: str) -> None:
        with self.db.atomic():
            self.db.execute("UPDATE arena_users SET token_hash = ? WHERE id = ?", [token_hash, user_id])

    def user(self, user_id: int) -> UserRow | None:
        r = self.db.execute("SELECT * FROM arena_users WHERE id = ?", [user_id]).fetchone()
        return UserRow(*r) if r is not None else None

    def user_by_name(self, name: str) -> UserRow | None:
        r = self.db.execute("SELECT * FROM arena_users WHERE name = ?", [name]).fetchone()
        return UserRow(*r) if r is not None else None

    def users(self) -> list[UserRow]:
        return [UserRow(*r) for r in self.db.execute("SELECT * FROM arena_users ORDER BY id")]

    def alias_taken(self, alias: str) -> bool:
        q = "SELECT 1 FROM arena_users WHERE alias = ? UNION SELECT 1 FROM arena_bots WHERE alias = ?"
        return self.db.execute(q, [alias, alias]).fetchone() is not None

    # -- bots and versions -------------------------------------------------------------------------

    def add_bot(self, name: str, owner_id: int, alias: str, *, house: bool = False) -> int:
        with self.db.atomic():
            cur = self.db.execute(
                "INSERT INTO arena_bots (name, owner_id, alias, house, created_at) VALUES (?, ?, ?, ?, ?)",
                [name, owner_id, alias, int(house), utc_now()],
            )
            return int(cur.lastrowid or 0)

    def bot(self, name: str) -> BotRow | None:
        r = self.db.execute(
            f"SELECT {_BOT_COLS} FROM arena_bots b JOIN arena_users u ON u.id = b.owner_id WHERE b.name = ?", [name]
        ).fetchone()
        return _bot(r) if r is not None else None

    def bots(self) -> list[BotRow]:
        q = f"SELECT {_BOT_COLS} FROM arena_bots b JOIN arena_users u ON u.id = b.owner_id ORDER BY b.id"
        return [_bot(r) for r in self.db.execute(q)]

    def add_version(
        self, bot_id: int, submitted_by: int, *, status: VersionStatus = VersionStatus.PENDING, **fields: Any
    ) -> VersionRow:
        """The bot's next version, numbered in the same transaction that inserts it."""
        with self.db.atomic():
            name, number = self.db.execute(
                "SELECT b.name, COALESCE(MAX(v.number), 0) + 1 FROM arena_bots b "
                "LEFT JOIN arena_versions v ON v.bot_id = b.id WHERE b.id = ? GROUP BY b.id",
                [bot_id],
            ).fetchone()
            cols = ["bot_id", "number", "ladder_name", "submitted_by", "submitted_at", "status", "updated_at", *fields]
            now = utc_now()
            vals = [bot_id, number, f"{name}.v{number}", submitted_by, now, status, now, *fields.values()]
            cur = self.db.execute(
                f"INSERT INTO arena_versions ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})", vals
            )
            vid = int(cur.lastrowid or 0)
        v = self.version_by_id(vid)
        assert v is not None
        return v

    def version_by_id(self, version_id: int) -> VersionRow | None:
        r = self.db.execute(
            f"SELECT {_VERSION_COLS} FROM arena_versions v JOIN arena_bots b ON b.id = v.bot_id WHERE v.id = ?",
            [version_id],
        ).fetchone()
        return _version(r) if r is not None else None

    def version(self, bot: str, number: int) -> VersionRow | None:
        r = self.db.execute(
            f"SELECT {_VERSION_COLS} FROM arena_versions v JOIN arena_bots b ON b.id = v.bot_id "
            "WHERE b.name = ? AND v.number = ?",
            [bot, number],
        ).fetchone()
        return _version(r) if r is not None else None

    def versions(self, bot: str | None = None) -> list[VersionRow]:
        where, args = ("WHERE b.name = ?", [bot]) if bot is not None else ("", [])
        q = f"SELECT {_VERSION_COLS} FROM arena_versions v JOIN arena_bots b ON b.id = v.bot_id {where} ORDER BY v.id"
        return [_version(r) for r in self.db.execute(q, args)]

    def versions_in(self, statuses: tuple[VersionStatus, ...]) -> list[VersionRow]:
        q = (
            f"SELECT {_VERSION_COLS} FROM arena_versions v JOIN arena_bots b ON b.id = v.bot_id "
            f"WHERE v.status IN ({', '.join('?' * len(statuses))}) ORDER BY v.id"
        )
        return [_version(r) for r in self.db.execute(q, list(statuses))]

    def set_status(self, version_id: int, status: VersionStatus, **reports: dict[str, Any] | None) -> None:
        sets = ["status = ?", "updated_at = ?"]
        vals: list[Any] = [status, utc_now()]
        for key in ("build_report", "validation_report"):
            if key in reports:
                sets.append(f"{key} = ?")
                vals.append(json.dumps(reports[key]) if reports[key] is not None else None)
        with self.db.atomic():
            self.db.execute(f"UPDATE arena_versions SET {', '.join(sets)} WHERE id = ?", [*vals, version_id])

    def set_uploaded(self, version_id: int, path: str) -> None:
        """The version's directory is in place: the pipeline may take it."""
        with self.db.atomic():
            self.db.execute(
                "UPDATE arena_versions SET path = ?, status = ?, updated_at = ? WHERE id = ?",
                [path, VersionStatus.PENDING, utc_now(), version_id],
            )

    def set_version_path(self, version_id: int, path: str) -> None:
        """The version's folder is now ``path`` (its arena was copied or moved); nothing else changes."""
        with self.db.atomic():
            self.db.execute("UPDATE arena_versions SET path = ? WHERE id = ?", [path, version_id])

    def newest_valid(self, *, before: str | None = None) -> list[VersionRow]:
        """The newest valid version of each bot (submitted before ``before``, an ISO time, if given)."""
        cond, args = ("AND v.submitted_at < ?", [before]) if before is not None else ("", [])
        q = (
            f"SELECT {_VERSION_COLS} FROM arena_versions v JOIN arena_bots b ON b.id = v.bot_id "
            f"WHERE v.status = ? {cond} AND v.number = (SELECT MAX(w.number) FROM arena_versions w "
            f"WHERE w.bot_id = v.bot_id AND w.status = ? {cond.replace('v.', 'w.')}) ORDER BY b.id"
        )
        valid = [VersionStatus.VALID]
        return [_version(r) for r in self.db.execute(q, valid + args + valid + args)]

    def next_index(self, tournament_id: int) -> int:
        """The next free index of a tournament's schedule (dropped pending matches leave gaps)."""
        q = "SELECT COALESCE(MAX(idx) + 1, 0) FROM tournament_matches WHERE tournament_id = ?"
        return int(self.db.execute(q, [tournament_id]).fetchone()[0])

    def newest_match(self, tournament_id: int) -> int:
        """The row of the tournament's newest recorded match (0 for none): a key for a cached fit that
        moves with every match saved, read from the end of an index (counting them read every one)."""
        q = "SELECT MAX(rowid) FROM matches WHERE tournament_id = ?"
        return int(self.db.execute(q, [tournament_id]).fetchone()[0] or 0)

    def match_page(
        self, tournament_ids: list[int], *, after: str | None, limit: int, bots: Sequence[str] | None = None
    ) -> list[dict[str, Any]]:
        """Recorded matches of the tournaments (those of the bots ``bots`` played in, given), newest
        first, keyset-paged by match id."""
        marks = ", ".join("?" * len(tournament_ids))
        cond, args = ("AND m.id < ?", [after]) if after is not None else ("", [])
        if bots is not None:
            ids = self._bot_page_ids(tournament_ids, after=after, limit=limit, bots=bots)
            if not ids:
                return []
            cond, args = f"AND m.id IN ({', '.join('?' * len(ids))})", ids
        # The page's matches first, down the primary key from ``after`` (``+``: not by the tournament
        # index, which would sort every match of the ladder to find the newest), then their seats.
        q = (
            "SELECT m.id, m.tournament_id, m.started_at, m.finished_at, m.status, "
            "json_group_array(json_array(s.seat, b.name, s.final_score, s.place, s.faults, s.forfeit)) "
            f"FROM (SELECT * FROM matches m WHERE +m.tournament_id IN ({marks}) {cond} ORDER BY m.id DESC LIMIT ?) m "
            "JOIN seats s ON s.match_id = m.id JOIN bots b ON b.id = s.bot_id GROUP BY m.id ORDER BY m.id DESC"
        )
        return match_rows(self.db.execute(q, [*tournament_ids, *args, limit]))

    def _bot_page_ids(
        self, tournament_ids: list[int], *, after: str | None, limit: int, bots: Sequence[str]
    ) -> list[str]:
        """The ids of a page of the bots' matches: down each one's seats by match (an index) from
        ``after``, ``limit`` of each, the newest ``limit`` of them all."""
        marks = ", ".join("?" * len(tournament_ids))
        ids: set[str] = set()
        for bot_id in [r[0] for r in self.db.execute(
            f"SELECT id FROM bots WHERE name IN ({', '.join('?' * len(bots))})", list(bots)
        )]:  # fmt: skip
            q = (
                "SELECT s.match_id FROM seats s JOIN matches m ON m.id = s.match_id WHERE s.bot_id = ? "
                f"AND +m.tournament_id IN ({marks})" + (" AND s.match_id < ?" if after is not None else "")
                + " ORDER BY s.match_id DESC LIMIT ?"
            )  # fmt: skip
            args = [bot_id, *tournament_ids, *([after] if after is not None else []), limit]
            ids.update(r[0] for r in self.db.execute(q, args))
        return sorted(ids, reverse=True)[:limit]

    def match_tournament(self, match_id: str) -> int | None:
        r = self.db.execute("SELECT tournament_id FROM matches WHERE id = ?", [match_id]).fetchone()
        return int(r[0]) if r is not None and r[0] is not None else None

    def iter_users(self) -> Iterator[UserRow]:
        yield from self.users()
