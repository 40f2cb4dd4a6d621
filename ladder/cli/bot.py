"""``hearts bot``: serve a sample bot; register, list and remove the bots of a ladder."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.text import Text

from ladder.cli.common import _DB_OPTION, _open, _table, console


@click.group()
def bot() -> None:
    """Serve sample bots, and register the bots of a ladder."""


@bot.command("serve")
@click.argument("name", type=click.Choice(["random", "lowest", "heuristic", "montecarlo", "ismcts"]), metavar="NAME")
@click.option(
    "--port", type=click.IntRange(0, 65535), default=0, show_default=True, help="Port to listen on (0: any free port)."
)
@click.option("--seed", type=int, default=None, help="Seed of the bot's own RNG (the random bot).")
def bot_serve(name: str, port: int, seed: int | None) -> None:
    """Serve the sample bot NAME on 127.0.0.1 until SIGTERM or Ctrl-C.

    NAME is random, lowest, heuristic, montecarlo or ismcts. Prints "listening on 127.0.0.1:PORT" once bound. Same as
    python -m clients.bots.NAME.
    """
    from clients.bots import make_bot  # imported here: the other commands need no gRPC server
    from clients.sdk import ListenError, serve

    try:
        serve(make_bot(name, seed=seed), port=port)
    except ListenError as e:
        raise click.ClickException(
            f"{e}\nport {port} is taken (another bot?): choose another --port, "
            f"or --port 0 for any free port (the port is printed)"
        ) from None


@bot.command("add")
@click.argument("name", required=False)
@click.option(
    "--command",
    "command",
    metavar="CMD",
    help='How to start the bot; {port} is replaced by a free port, e.g. "python -m clients.bots.random --port {port}".',
)
@click.option("--address", metavar="HOST:PORT", help="Where a bot that is already running listens.")
@click.option(
    "--module",
    "module",
    metavar="PKG.MOD:CLASS",
    help="An SDK bot class to play in-process, without gRPC (e.g. my_bot:MyBot, imported from the current "
    "directory); its matches spread over worker processes.",
)
@click.option("--description", default=None, help="A line about the bot (kept when updating without it).")
@click.option(
    "--max-concurrency",
    type=click.IntRange(min=0),
    default=None,
    metavar="N",
    help="Never seat the bot in more than N matches at once (0: no limit; kept when updating "
    "without it). A bot that answers one request at a time needs 1.",
)
@click.option(
    "--from",
    "bots_file",
    type=click.Path(dir_okay=False, exists=True),
    help="Register every bot of a bots TOML file instead (see bots.toml).",
)
@_DB_OPTION
def bot_add(
    name: str | None,
    command: str | None,
    address: str | None,
    module: str | None,
    description: str | None,
    max_concurrency: int | None,
    bots_file: str | None,
    db: str,
) -> None:
    """Register bot NAME with a --command that starts it, the --address it serves on, or the --module
    of an SDK bot class played in-process.

    A bot already registered under NAME is updated (its description and limit are kept unless
    --description or --max-concurrency is given; without --command, --address and --module it keeps
    those too). A name is letters, digits, '-', '_' and '.'.
    """
    from ladder.bots.registry import BotEntry, RegistryError, add_bot, add_bots, get_bot, load_bots_file

    try:
        if bots_file is not None:
            if name or command or address or module or description is not None or max_concurrency is not None:
                raise click.UsageError(
                    "give either --from FILE or NAME with --command/--address/--module/--description/--max-concurrency"
                )
            entries = load_bots_file(bots_file)
            with _open(db) as store:
                add_bots(store, entries)
            console.print(f"registered {len(entries)} bots from {bots_file}: {', '.join(e.name for e in entries)}")
            kept = [e.name for e in entries if e.sandbox or e.limits is not None or e.time_control is not None]
            if kept:
                # Said, not dropped in silence: the registry keeps how a bot is reached, never how it is held.
                console.print(
                    f"note: the sandbox, limits and clocks of {', '.join(kept)} stay in {bots_file}, not the "
                    f"registry: give --bots {bots_file} to a run (hearts tournament run, hearts match) to play "
                    "them so",
                    soft_wrap=True,
                )
            return
        if not name:
            raise click.UsageError("give the bot's NAME (or --from FILE)")
        with _open(db) as store:
            current = get_bot(store, name)
            if command is None and address is None and module is None and current is not None:
                # Setting a limit or a description alone keeps how the bot is started.
                command, address, module = current.command, current.address, current.module
            new = add_bot(
                store,
                BotEntry(
                    name,
                    command=command,
                    address=address,
                    module=module,
                    description=description,
                    max_concurrency=max_concurrency,
                ),
            )
    except RegistryError as e:
        raise click.ClickException(str(e)) from None
    console.print(f"{'registered' if new else 'updated'} bot {name!r}")


@bot.command("list")
@_DB_OPTION
def bot_list(db: str) -> None:
    """List the registered bots."""
    from ladder.bots.registry import list_bots

    if not Path(db).exists():  # nothing to list, and a reading command creates nothing
        entries = []
    else:
        with _open(db, readonly=True) as store:
            entries = list_bots(store)
    if not entries:
        console.print(f"no bots registered in {db}: hearts bot add NAME --command CMD, or --from bots.toml")
        return
    table = _table(f"Bots in {db}", "bot", "command, address or module", "description", "limit")
    kinds = {"command": "", "address": "remote ", "module": "in-process "}
    for e in entries:
        # Registered text is the organiser's, but never read as markup (a description may hold "[").
        table.add_row(
            Text(e.name),
            Text(kinds[e.kind] + e.target),
            Text(e.description or ""),
            str(e.max_concurrency) if e.max_concurrency else "",
        )
    console.print(table)
    from ladder.bots.launcher import HARNESS_PYTHON

    if any(e.command is not None and e.command.split()[:1] and e.command.split()[0] in HARNESS_PYTHON for e in entries):
        console.print(
            f"python: a command's leading python or python3 runs as this harness's interpreter ({sys.executable}); "
            "name another by its path to run a bot under it",
            soft_wrap=True,
        )
    if any(e.max_concurrency for e in entries):
        console.print(
            "limit: max_concurrency, the most matches the bot is seated in at once (blank: none "
            "but what its handshake declares)",
            soft_wrap=True,
        )


@bot.command("remove")
@click.argument("name")
@_DB_OPTION
def bot_remove(name: str, db: str) -> None:
    """Unregister bot NAME. Its recorded matches stay, and so does its place on the ladder."""
    from ladder.bots.registry import remove_bot

    with _open(db) as store:
        if not remove_bot(store, name):
            raise click.ClickException(f"no bot {name!r} is registered in {db} (hearts bot list)")
    console.print(f"removed bot {name!r}")
