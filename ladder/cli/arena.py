"""``hearts arena``: make an arena, serve it, and add its participants and organisers (docs/arena.md)."""

from __future__ import annotations

import fcntl
import json
import os
import secrets
import sys
from pathlib import Path
from typing import Any

import click

from ladder.cli.common import _fail, console, engine_note
from referee.untrusted import inert


@click.group()
def arena() -> None:
    """Run an arena: a service where participants submit bots that are validated and ranked continuously.

    \b
      hearts arena init demo-arena          write demo-arena/arena.toml and the organiser's token
      hearts arena serve demo-arena         the API, the pipeline and the continuous ladder
      hearts arena user add alice --dir demo-arena   a participant and their token
      hearts arena backup demo-arena demo-copy       a consistent copy, while it is served
    See docs/arena.md.
    """


@arena.command("init")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@click.option("--force", is_flag=True, help="Write arena.toml even if the directory has one (the database is kept).")
def arena_init(directory: Path, force: bool) -> None:
    """Create an arena in DIRECTORY: a commented arena.toml, the database, an organiser (token printed once)."""
    from ladder.arena.accounts import add_user
    from ladder.arena.config import CONFIG_NAME, TEMPLATE
    from ladder.arena.store import ArenaStore

    config = directory / CONFIG_NAME
    if config.exists() and not force:
        _fail(f"{config} exists already: edit it, or pass --force to write the template again")
    directory.mkdir(parents=True, exist_ok=True)
    # The final deals from final_seed and each match's id (sent to every bot): a seed of its own, kept secret.
    config.write_text(TEMPLATE.replace("final_seed = 2026", f"final_seed = {secrets.randbits(62)}", 1))
    store = ArenaStore(directory / "arena.db")
    try:
        if any(u.role == "organiser" for u in store.users()):
            click.echo(f"wrote {config}; the arena's organiser exists already (`hearts arena user token organiser`)")
            return
        _account, token = add_user(store, "organiser", organiser=True)
    finally:
        store.close()
    click.echo(f"wrote {config} and {directory / 'arena.db'}")
    click.echo("the organiser's token (shown once; keep it: it is stored only as a hash):")
    click.echo(token)
    click.echo(f"next: hearts arena serve {directory}")


@arena.command("serve")
@click.argument("directory", type=click.Path(file_okay=False, exists=True, path_type=Path))
@click.option("--host", default=None, help="Address to listen on (default: [server] host of arena.toml, 127.0.0.1).")
@click.option("--port", type=int, default=None, help="Port to listen on (default: [server] port of arena.toml, 8765).")
def arena_serve(directory: Path, host: str | None, port: int | None) -> None:
    """Serve the arena of DIRECTORY: the API over HTTP, the build + validate pipeline and the continuous ladder.

    Stop it with Ctrl-C; it can be killed at any moment and started again: nothing recorded is lost
    and no recorded match is played again.
    """
    engine_note()
    import uvicorn

    from ladder.arena.app import build_app
    from ladder.arena.backup import rehome_versions
    from ladder.arena.config import ArenaConfigError, load_config
    from ladder.arena.store import ArenaStore
    from ladder.arena.worker import sandbox_mode, sync_house

    try:
        cfg = load_config(directory)
    except ArenaConfigError as e:
        _fail(str(e), 2)
    # One arena serve per directory: a second would play the same ladder against the first.
    lock = open(directory / "arena.lock", "a+")  # held for the life of the process
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        lock.seek(0)
        _fail(f"another `hearts arena serve` runs on {directory} (pid {lock.read().strip() or '?'}): stop it first")
    lock.truncate(0)
    lock.write(str(os.getpid()))
    lock.flush()
    store = ArenaStore(directory / "arena.db")
    try:
        sync_house(store, cfg)
        moved = rehome_versions(store, directory)
    except ValueError as e:
        _fail(str(e))
    finally:
        store.close()
    if moved:  # a folder moved (or a backup put in place): its versions' rows named the old place
        console.print(f"{moved} versions found under {directory}/versions: their paths updated", highlight=False)
    mode, warning = sandbox_mode()
    if warning is not None:  # loud: a teacher must know that students' code runs unconfined
        click.echo(f"WARNING: {warning}", err=True)
        click.echo("WARNING: run this arena only for people you trust, or on a machine of its own.", err=True)
    else:
        console.print(f"submitted bots and their builds run {mode.label}", highlight=False, markup=False)
    host = host or cfg.host
    port = port if port is not None else cfg.port
    if host not in ("127.0.0.1", "localhost", "::1"):
        console.print(f"[yellow]note:[/] listening on {host}, not only this machine (--host)", highlight=False)
    console.print(
        f"arena {inert(cfg.name)!r} on http://{host}:{port}/api/status (Ctrl-C stops it)", highlight=False, markup=False
    )
    uvicorn.run(build_app(directory.resolve(), cfg), host=host, port=port, log_level="warning")


@arena.group("user")
def arena_user() -> None:
    """Add participants and organisers, list them, make new tokens."""


def _store(directory: Path) -> Any:
    from ladder.arena.store import ArenaStore

    if not (directory / "arena.db").exists():
        _fail(f"{directory} is not an arena (no arena.db): `hearts arena init {directory}` makes one, or pass --dir")
    return ArenaStore(directory / "arena.db")


_DIR_OPTION = click.option(
    "--dir",
    "directory",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("."),
    show_default=True,
    help="The arena's directory.",
)


@arena_user.command("add")
@click.argument("name", required=False)
@_DIR_OPTION
@click.option(
    "--roster",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    default=None,
    help="A class roster (CSV, a column 'name' or names in the first column): one participant each.",
)
@click.option("--organiser", is_flag=True, help="An organiser (admin actions) instead of a participant.")
@click.option("--json", "as_json", is_flag=True, help="Print the names and tokens as JSON.")
def arena_user_add(name: str | None, directory: Path, roster: Path | None, organiser: bool, as_json: bool) -> None:
    """Add participant NAME (or everyone of --roster) and print each token, once: hand them out."""
    from ladder.arena.accounts import AccountError, add_user, read_roster

    if (name is None) == (roster is None):
        _fail("give a NAME or --roster FILE", 2)
    store = _store(directory)
    made = []
    try:
        names = [name] if name is not None else read_roster(roster) if roster is not None else []
        for n in names:
            _acc, token = add_user(store, n, organiser=organiser)
            made.append({"name": n, "token": token})
    except AccountError as e:
        _fail(f"{e}" + (f" ({len(made)} added before it)" if made else ""))
    finally:
        store.close()
    if as_json:
        click.echo(json.dumps({"schema": "hearts-arena/tokens", "version": 1, "users": made}, indent=2))
        return
    console.print("tokens (shown once; stored only as hashes):")
    for m in made:
        click.echo(f"{m['name']}\t{m['token']}")


@arena_user.command("list")
@_DIR_OPTION
def arena_user_list(directory: Path) -> None:
    """List the arena's users with their role and alias (tokens are never shown again)."""
    store = _store(directory)
    try:
        for u in store.users():
            click.echo(f"{u.name}\t{u.role}\t{u.alias}")
    finally:
        store.close()


@arena_user.command("token")
@click.argument("name")
@_DIR_OPTION
def arena_user_token(name: str, directory: Path) -> None:
    """Make a new token for NAME (a lost one); the old token stops working."""
    from ladder.arena.accounts import AccountError, new_token

    store = _store(directory)
    try:
        click.echo(new_token(store, name))
    except AccountError as e:
        _fail(str(e))
    finally:
        store.close()


@arena.command("backup")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@click.argument("dest", type=click.Path(path_type=Path))
@click.option("--logs", is_flag=True, help="Copy logs/ too (the bots' output: not needed to serve the copy).")
def arena_backup(directory: Path, dest: Path, logs: bool) -> None:
    """Copy the arena of DIRECTORY, served or not, to the new folder DEST, which `hearts arena serve DEST` serves.

    The database is copied as it stands at one instant while the ladder goes on saving matches
    (SQLite's online backup), with arena.toml and every version's folder it names; the copy is
    checked (integrity, schema, every table's rows, the version folders) before it is reported.

    \b
      hearts arena backup demo-arena backups/demo-2026-12-03
      hearts arena serve backups/demo-2026-12-03 --port 8766     serve the copy
    """
    from ladder.arena.backup import BackupError, backup_arena
    from ladder.store.backup import STEP_PAGES

    tty = sys.stderr.isatty()
    shown = [-1]

    def progress(done: int, total: int) -> None:
        if total <= 4 * STEP_PAGES:  # up to 64 MiB (4 KiB pages): copied in a moment, no progress line
            return
        percent = 100 * done // total
        if tty:
            click.echo(f"\rcopying arena.db: {percent:3d}% of {total} pages", err=True, nl=done == total)
        elif percent // 25 > shown[0]:  # a log, not a terminal: a line every quarter
            shown[0] = percent // 25
            click.echo(f"copying arena.db: {percent}% of {total} pages", err=True)

    try:
        report = backup_arena(directory, dest, logs=logs, progress=progress)
    except BackupError as e:
        raise click.ClickException(str(e)) from None
    mb = report.snapshot.bytes / 1e6
    rate = mb / report.snapshot.seconds if report.snapshot.seconds > 0 else 0.0
    click.echo(
        f"backed up {directory} to {dest} in {report.seconds:.2f} s: {report.matches} matches, "
        f"{report.hands} hands, {report.versions} versions ({report.version_folders} with a folder)"
    )
    click.echo(
        f"  arena.db {report.database_bytes} bytes (copied in {report.snapshot.seconds:.2f} s, {rate:.0f} MB/s); "
        f"files {report.file_bytes} bytes"
    )
    click.echo(f"  checked: integrity ok, schema {report.snapshot.user_version}, rows of every table as at the copy")
    if report.left_out:
        hint = " (--logs copies logs/)" if "logs" in report.left_out else ""
        click.echo(f"  left out: {', '.join(report.left_out)}{hint}")
    click.echo(f"next: hearts arena serve {dest} --port PORT (another port while {directory} is served)")
