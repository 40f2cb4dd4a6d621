"""Problems with a database file (missing, read-only, not SQLite, too new) as ``StoreError``s, and opening it."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from ladder.store import schema
from ladder.store.schema import BUSY_TIMEOUT_S, _user_version


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
    if version > len(schema.MIGRATIONS):
        raise SchemaTooNew(
            path,
            f"schema version {version}, newer than this hearts-arena's ({len(schema.MIGRATIONS)}): "
            "a later version wrote it",
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
        if version < len(schema.MIGRATIONS):
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
