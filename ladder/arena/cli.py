"""The ``hearts`` command line: ladder.cli's commands, and the arena's (``hearts arena ...``, ``hearts submit``).

The arena adds its commands here, on top of ``ladder.cli.main``, so that nothing in ladder/ imports
the arena. Each command is a thin call of the arena's library; docs/cli.md documents them.
"""

from __future__ import annotations

import fcntl
import json
import os
import secrets
import sys
import time
from pathlib import Path
from typing import Any

import click

from ladder.cli import console, main
from referee.untrusted import inert

__all__ = ["main"]


def _fail(message: str, code: int = 1) -> None:
    click.echo(f"Error: {inert(message, limit=4000, multiline=True)}", err=True)
    sys.exit(code)


@main.group()
def arena() -> None:
    """Run an arena: a service where participants submit bots that are validated and ranked continuously.

    \b
      hearts arena init demo-arena          write demo-arena/arena.toml and the organiser's token
      hearts arena serve demo-arena         the API, the pipeline and the continuous ladder
      hearts arena user add alice --dir demo-arena   a participant and their token
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
    import uvicorn

    from ladder.arena.app import build_app
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
    except ValueError as e:
        _fail(str(e))
    finally:
        store.close()
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
        click.echo(json.dumps(made, indent=2))
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


@main.command("submit")
@click.argument("path", required=False, type=click.Path(exists=True, path_type=Path))
@click.option("--arena", "url", required=True, help="The arena's URL, e.g. http://127.0.0.1:8765.")
@click.option("--token", envvar="HEARTS_TOKEN", required=True, help="Your token (or HEARTS_TOKEN in the environment).")
@click.option("--bot", "bot_name", required=True, help="Your bot's name in the arena (made on its first submission).")
@click.option("--address", default=None, help="HOST:PORT of a bot you host yourself, instead of PATH.")
@click.option("--wait/--no-wait", default=True, show_default=True, help="Wait for the validation and print the report.")
@click.option("--timeout", type=float, default=600.0, show_default=True, help="Seconds to wait for the report.")
@click.option("--json", "as_json", is_flag=True, help="Print the version and its reports as JSON.")
def submit(
    path: Path | None,
    url: str,
    token: str,
    bot_name: str,
    address: str | None,
    wait: bool,
    timeout: float,
    as_json: bool,
) -> None:
    """Submit PATH (a directory or a .zip with bot.toml) as a new version of your bot, or --address.

    \b
    bot.toml, at the top of the directory:
      command = "python bot.py --port {port}"   # starts the bot; {port} is filled in
      build = "pip install -r requirements.txt --target deps"   # optional, run once
      language = "python"
    The arena builds it, validates it (hearts validate) and, if it passes, plays it on the ladder.
    Exit status: 0 when the version is valid, 1 when it failed (the report says why), 2 on usage errors.
    """
    import httpx

    from ladder.arena.store import VersionStatus
    from ladder.arena.submissions import ArchiveError, zip_directory

    if (path is None) == (address is None):
        _fail("give PATH (a directory or .zip) or --address HOST:PORT", 2)
    headers = {"Authorization": f"Bearer {token}"}
    endpoint = f"{url.rstrip('/')}/api/bots/{bot_name}/versions"
    try:
        if address is not None:
            r = httpx.post(endpoint, json={"address": address}, headers=headers, timeout=60)
        else:
            assert path is not None
            data = zip_directory(path) if path.is_dir() else path.read_bytes()
            r = httpx.post(endpoint, content=data, headers={**headers, "Content-Type": "application/zip"}, timeout=60)
    except ArchiveError as e:
        _fail(str(e))
    except httpx.HTTPError as e:
        _fail(f"cannot reach the arena at {url}: {e}")
    if r.status_code >= 400:
        _fail(f"the arena refused the submission ({r.status_code}): {_error(r)}")
    v = r.json()
    if not as_json:
        console.print(
            f"submitted {inert(v['bot'])} version {v['number']} ({v['status']})", highlight=False, markup=False
        )
    if not wait:
        if as_json:
            click.echo(json.dumps(v, indent=2))
        return
    deadline = time.monotonic() + timeout
    shown = v["status"]
    while v["status"] not in (VersionStatus.VALID, VersionStatus.FAILED):
        if time.monotonic() > deadline:
            _fail(f"no verdict after {timeout:g} s (status {v['status']}); `--no-wait` and ask the API later")
        time.sleep(1.0)
        try:
            r = httpx.get(f"{endpoint}/{v['number']}", headers=headers, timeout=30)
        except httpx.HTTPError as e:
            _fail(f"cannot reach the arena at {url}: {e}")
        if r.status_code >= 400:
            _fail(f"the arena answered {r.status_code}: {_error(r)}")
        v = r.json()
        if v["status"] != shown and not as_json:
            console.print(f"  {v['status']}", highlight=False, markup=False)
            shown = v["status"]
    if as_json:
        click.echo(json.dumps(v, indent=2))
    else:
        _print_report(v)
    sys.exit(0 if v["status"] == VersionStatus.VALID else 1)


def _error(r: Any) -> str:
    try:
        return str(r.json().get("error", r.text))
    except ValueError:
        return str(r.text[:500])


def _print_report(v: dict[str, Any]) -> None:
    from ladder.arena.store import VersionStatus

    build = v.get("build_report")
    if build is not None and not build.get("ok"):
        console.print("[red]the build failed[/]", highlight=False)
        console.print(inert(build.get("error") or f"exit code {build.get('exit_code')}"), highlight=False, markup=False)
        console.print(inert(build.get("output") or "", limit=8000, multiline=True), highlight=False, markup=False)
    report = v.get("validation_report")
    if report is not None and "checks" in report:
        from ladder.conformance.validate import Report, render

        console.print(render(Report.from_dict(report)))
    elif report is not None:
        console.print(inert(report.get("error", ""), limit=4000, multiline=True), highlight=False, markup=False)
        if report.get("log"):
            console.print(inert(report["log"], limit=4000, multiline=True), highlight=False, markup=False)
    verdict = (
        "[green]valid: it plays on the ladder[/]"
        if v["status"] == VersionStatus.VALID
        else "[red]refused: it never plays[/]"
    )
    console.print(verdict)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
