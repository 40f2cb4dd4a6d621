"""The ladder's SQLite store: bots, matches and everything that happened in them.

One package owns the file and every statement on it, SQLite through sqlite-utils: ``schema`` (the
migrations and the write transaction), ``files`` (what can be wrong with a file, and opening it),
``records`` (``Store``: a match saved and loaded whole), ``tricks`` (where each hand's tricks begin, as
the engine played them), ``tables`` (tournaments, the registry, the ladder's reads) and ``save`` (a
scheduled match's one transaction). WAL mode (readers never block
the writer), foreign keys on, and a schema built by ordered migrations recorded in ``PRAGMA user_version``.

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

from ladder.store.files import NoDatabase, SchemaTooNew, StoreError, store_error, writable_problem
from ladder.store.records import MatchSummary, Store
from ladder.store.schema import BUSY_TIMEOUT_S, MIGRATIONS, SCHEMA_VERSION, migrate, rebuild_live_elo_totals, rules_text
from ladder.store.tables import (
    LadderReads,
    Registrations,
    Runner,
    SPRTStep,
    TournamentRow,
    Tournaments,
    canonical_rules,
)

__all__ = [
    "BUSY_TIMEOUT_S",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "LadderReads",
    "MatchSummary",
    "NoDatabase",
    "Registrations",
    "Runner",
    "SPRTStep",
    "SchemaTooNew",
    "Store",
    "StoreError",
    "TournamentRow",
    "Tournaments",
    "canonical_rules",
    "migrate",
    "rebuild_live_elo_totals",
    "rules_text",
    "store_error",
    "writable_problem",
]
