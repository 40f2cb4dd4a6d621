"""A consistent copy of a live arena (``hearts arena backup DIR DEST``), and an arena's version paths
set again after its folder moved.

The database is copied with SQLite's online backup API from inside one read transaction on the
source: in WAL mode that transaction is a snapshot which the server's writers never block nor
change, so the copy is the database as it stood at one instant, however long the copy takes and
however many matches are saved meanwhile. Beside it go arena.toml and the folder (and archive) of
every version the snapshot names, nothing newer; logs only when asked (they are the bots' output:
nothing the arena needs to serve, and they grow as the copy runs). The copy is checked before it is
reported: ``PRAGMA integrity_check``, the schema versions, every table's rows against the snapshot,
and each version folder its database names. The tournaments' runner claims (the source's server,
playing them) are cleared in the copy, so that its own server plays them.

A version's row holds its folder as an absolute path (``versions/BOT/N`` of the arena that took it):
the copy's rows are pointed at the copy's folders, and ``rehome_versions`` does the same for an arena
moved whole (``hearts arena serve`` runs it at its start).
"""

from __future__ import annotations

import dataclasses
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from ladder.arena.config import CONFIG_NAME
from ladder.arena.store import MIGRATIONS, ArenaStore, VersionStatus, has_arena_tables
from ladder.store import SCHEMA_VERSION, StoreError
from ladder.store.backup import Progress, Snapshot, check_copy, copy_database

__all__ = [
    "BackupError",
    "BackupReport",
    "backup_arena",
    "rehome_versions",
]

DATABASE = "arena.db"
VERSIONS = "versions"
LOGS = "logs"


class BackupError(Exception):
    """The backup cannot be made or is not sound: the message names the folder and what to do."""


@dataclass(frozen=True)
class BackupReport:
    """What ``backup_arena`` copied, where, and how long it took."""

    source: Path
    dest: Path
    snapshot: Snapshot
    versions: int  # the version rows of the snapshot
    version_folders: int  # of them, the folders copied (a hosted or house version has none)
    database_bytes: int
    file_bytes: int  # arena.toml, the versions' folders and archives, the logs if copied
    logs: bool
    left_out: tuple[str, ...]  # what of the source's top level was not copied
    seconds: float

    @property
    def matches(self) -> int:
        return self.snapshot.rows.get("matches", 0)

    @property
    def hands(self) -> int:
        return self.snapshot.rows.get("hands", 0)


def _tree_bytes(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.lstat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def _check_source(source: Path) -> None:
    if not (source / CONFIG_NAME).is_file() or not (source / DATABASE).is_file():
        raise BackupError(
            f"{source} is not an arena (no {CONFIG_NAME} and {DATABASE}): "
            "give the folder that hearts arena serve serves"
        )
    try:
        arena = has_arena_tables(source / DATABASE)
    except StoreError as e:
        raise BackupError(f"{source / DATABASE}: {e}") from None
    if not arena:
        raise BackupError(f"{source / DATABASE} holds no arena (a ladder's database?): back it up with sqlite3 .backup")


def _check_dest(source: Path, dest: Path) -> None:
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise BackupError(f"{dest} exists and is not an empty folder: name a new folder (the backup makes it)")
    if dest.resolve().is_relative_to(source.resolve()):
        raise BackupError(f"{dest} is inside the arena {source}: put the backup outside it")


def _verify(dest: Path, snapshot: Snapshot, store: ArenaStore) -> None:
    """The copy is sound: SQLite finds nothing wrong, its schemas and rows are the snapshot's, and
    every version folder its database names is there."""
    problems = check_copy(dest / DATABASE, snapshot)
    if problems:
        raise BackupError(f"{dest / DATABASE}: {'; '.join(problems)}: make the backup again")
    if store.schema_version() != len(MIGRATIONS):
        raise BackupError(f"{dest / DATABASE}: arena schema {store.schema_version()}, not {len(MIGRATIONS)}")
    # A failed version's folder may be gone: a build that outgrew the limit has its files removed.
    missing = [
        v.ladder_name
        for v in store.versions()
        if v.path is not None and v.status is not VersionStatus.FAILED and not Path(v.path).is_dir()
    ]
    if missing:
        raise BackupError(
            f"{dest}: no folder for the versions {', '.join(missing[:10])}: the source arena lacks them too "
            f"(look in {VERSIONS}/ of the source)"
        )


def backup_arena(source: Path, dest: Path, *, logs: bool = False, progress: Progress | None = None) -> BackupReport:
    """Copy the arena of ``source`` (served or not) to the new folder ``dest``, which ``hearts arena
    serve DEST`` serves; ``BackupError`` says what stops it."""
    t0 = time.perf_counter()
    _check_source(source)
    _check_dest(source, dest)
    dest.mkdir(parents=True, exist_ok=True)
    try:
        report = _backup(source, dest, logs=logs, progress=progress)
    except BaseException:
        # Half a backup looks like an arena: what was made goes (DEST was new or empty).
        for made in list(dest.iterdir()):
            if made.is_dir() and not made.is_symlink():
                shutil.rmtree(made)
            else:
                made.unlink()
        raise
    return dataclasses.replace(report, seconds=time.perf_counter() - t0)


def _backup(source: Path, dest: Path, *, logs: bool, progress: Progress | None) -> BackupReport:
    snapshot = copy_database(source / DATABASE, dest / DATABASE, progress=progress)
    if snapshot.user_version > SCHEMA_VERSION:
        raise BackupError(
            f"{source / DATABASE} was written by a newer hearts-arena (schema {snapshot.user_version}): "
            "back it up with that version"
        )
    file_bytes = 0
    shutil.copy2(source / CONFIG_NAME, dest / CONFIG_NAME)
    file_bytes += (dest / CONFIG_NAME).stat().st_size
    store = ArenaStore(dest / DATABASE)
    try:
        # The source's server claims its ladder and final as their runner: the copy is no one's yet.
        store.ladder.tournaments.release_all_runners()
        versions = store.versions()
        copied = 0
        for v in versions:
            if v.path is None:
                continue
            bot, number = Path(v.path).parts[-2:]  # the arena writes each version at versions/BOT/N
            folder = source / VERSIONS / bot / number
            target = dest / VERSIONS / bot / number
            if folder.is_dir():
                target.parent.mkdir(parents=True, exist_ok=True)
                # symlinks=True: a link in a submission is copied as a link, never followed out of it
                shutil.copytree(folder, target, symlinks=True)
                copied += 1
                file_bytes += _tree_bytes(target)
            archive = folder.with_suffix(".zip")
            if archive.is_file():
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(archive, target.with_suffix(".zip"))
                file_bytes += archive.stat().st_size
            store.set_version_path(v.id, str(target.resolve()))
        _verify(dest, snapshot, store)
    finally:
        store.close()
    if logs and (source / LOGS).is_dir():
        shutil.copytree(source / LOGS, dest / LOGS, symlinks=True)
        file_bytes += _tree_bytes(dest / LOGS)
    kept = {DATABASE, CONFIG_NAME, VERSIONS, *([LOGS] if logs else [])}
    # The -wal and -shm files are part of the source's database, copied through the backup API.
    left_out = tuple(
        sorted(p.name for p in source.iterdir() if p.name not in kept and not p.name.startswith(f"{DATABASE}-"))
    )
    return BackupReport(
        source=source,
        dest=dest,
        snapshot=snapshot,
        versions=len(versions),
        version_folders=copied,
        database_bytes=(dest / DATABASE).stat().st_size,
        file_bytes=file_bytes,
        logs=logs,
        left_out=left_out,
        seconds=0.0,
    )


def rehome_versions(store: ArenaStore, directory: Path) -> int:
    """Point each version whose folder is not where its row says, but under ``directory``'s
    versions/, at that folder (the arena was moved, or is a backup moved into place); how many."""
    moved = 0
    for v in store.versions():
        if v.path is None or Path(v.path).is_dir():
            continue
        here = (directory / VERSIONS).joinpath(*Path(v.path).parts[-2:]).resolve()
        if here.is_dir():
            store.set_version_path(v.id, str(here))
            moved += 1
    return moved
