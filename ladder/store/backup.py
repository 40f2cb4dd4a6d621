"""A consistent copy of a store's file while other processes write it, and the copy's check.

``copy_database`` runs SQLite's online backup API from inside one read transaction on the source: in
WAL mode that transaction is a snapshot the writers neither wait for nor change, so the copy is the
file as it stood at one instant however long the copy takes. (Outside a transaction each step would
see the writers' commits, and SQLite would start the copy over after each one.) ``check_copy`` says
what, if anything, the copy lacks: SQLite's own check, the schema and every table's rows.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

__all__ = ["STEP_PAGES", "Progress", "Snapshot", "check_copy", "copy_database"]

STEP_PAGES = 4096  # pages copied a step (16 MiB at SQLite's default page size): one progress call each

Progress = Callable[[int, int], None]
"""Called after each step of the copy with (pages copied, pages in all)."""


@dataclass(frozen=True)
class Snapshot:
    """The source database at the instant of the copy, and what copying it took."""

    rows: dict[str, int]  # every table's rows, counted in the copy's read transaction
    user_version: int  # the ladder's schema (PRAGMA user_version)
    pages: int
    page_size: int
    seconds: float

    @property
    def bytes(self) -> int:
        """The database's size at the snapshot."""
        return self.pages * self.page_size


def _rows(conn: sqlite3.Connection) -> dict[str, int]:
    tables = [str(r[0]) for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    return {t: int(conn.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0]) for t in tables}


def _read_only(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None, timeout=30)


def copy_database(source: Path, dest: Path, *, progress: Progress | None = None) -> Snapshot:
    """Copy the SQLite file ``source`` to the new file ``dest`` as it stands at one instant, while
    other processes go on writing it; the snapshot's rows and schema come with it."""
    t0 = time.perf_counter()
    src = _read_only(source)
    try:
        src.execute("BEGIN")
        rows = _rows(src)  # the first read opens the snapshot: the counts and the copy are of one instant
        user_version = int(src.execute("PRAGMA user_version").fetchone()[0])
        page_size = int(src.execute("PRAGMA page_size").fetchone()[0])
        pages = int(src.execute("PRAGMA page_count").fetchone()[0])
        out = sqlite3.connect(dest)
        try:
            step = (lambda _status, remaining, total: progress(total - remaining, total)) if progress else None
            src.backup(out, pages=STEP_PAGES, progress=step)
        finally:
            out.close()
        src.execute("COMMIT")
    finally:
        src.close()
    return Snapshot(rows, user_version, pages, page_size, time.perf_counter() - t0)


def check_copy(dest: Path, snapshot: Snapshot) -> list[str]:
    """What is wrong with the copy ``dest`` of ``snapshot``: SQLite's integrity check, its schema,
    each table whose rows differ. Empty when it is sound."""
    conn = _read_only(dest)
    try:
        problems = [str(r[0]) for r in conn.execute("PRAGMA integrity_check")]
        if problems != ["ok"]:
            return [f"integrity_check: {p}" for p in problems[:5]]
        out = []
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        if version != snapshot.user_version:
            out.append(f"schema {version}, the source's {snapshot.user_version}")
        rows = _rows(conn)
        out += [
            f"{t}: {rows.get(t)} rows, the snapshot's {snapshot.rows.get(t)}"
            for t in sorted(set(rows) | set(snapshot.rows))
            if rows.get(t) != snapshot.rows.get(t)
        ]
        return out
    finally:
        conn.close()
