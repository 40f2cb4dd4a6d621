"""The ``hearts`` command line. Each command is a thin call of one library function.

Command groups live in this file; their work lives in the library (rules, referee, ladder).
docs/cli.md documents every command and option (tests/ladder/test_docs.py checks it).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.console import Console
from rich.table import Table

from referee.rules import OPTIONS, PRESETS, Rules

if TYPE_CHECKING:
    from ladder.store import Store

console = Console()


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="hearts-arena")
def main() -> None:
    """hearts-arena: run Hearts bots against each other and rank them.

    \b
    Quick start:
      hearts rules                      the rulesets and every option
      hearts bot serve heuristic        serve a sample bot over gRPC
      hearts tournament run --bots bots.toml --db arena.db
      hearts ladder --db arena.db       the leaderboard
    """


# -- rules ---------------------------------------------------------------------------------------


@main.group(invoke_without_command=True)
@click.pass_context
def rules(ctx: click.Context) -> None:
    """List the presets and every rule option with its default and its source.

    A ruleset is written PRESET[,option=value...], e.g. "spot,target=300" or
    "standard,moon=shooter-chooses,pass_cycle=no-hold". Use it wherever --rules is asked.
    """
    if ctx.invoked_subcommand is not None:
        return
    presets = Table(title="Presets", title_justify="left")
    presets.add_column("preset", style="bold")
    presets.add_column("changes from standard")
    for name, r in PRESETS.items():
        ch = r.changes()
        presets.add_row(name, ", ".join(f"{k}={_fmt(v)}" for k, v in ch.items()) or "(the default: 001)")
    console.print(presets)
    opts = Table(title="Options", title_justify="left", show_lines=False)
    opts.add_column("option", style="bold")
    opts.add_column("default")
    opts.add_column("values")
    opts.add_column("source")
    opts.add_column("meaning")
    for o in OPTIONS:
        opts.add_row(o.name, _fmt(Rules().to_dict()[o.name]), o.values, o.source, o.help)
    console.print(opts)


@rules.command("show")
@click.argument("ruleset", default="standard")
def rules_show(ruleset: str) -> None:
    """Print one ruleset: RULESET is a preset name, optionally with option=value changes."""
    try:
        r = Rules.parse(ruleset)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="RULESET") from None
    table = Table(title=f"Ruleset {ruleset} ({r.name})", title_justify="left")
    table.add_column("option", style="bold")
    table.add_column("value")
    table.add_column("source")
    changed = r.changes()
    for o in OPTIONS:
        value = _fmt(r.to_dict()[o.name])
        table.add_row(o.name, f"[yellow]{value}[/]" if o.name in changed else value, o.source)
    console.print(table)
    console.print(f"penalty points a hand (the moon): {r.moon_total}; cards each: {r.cards_per_player}; "
                  f"kitty: {r.kitty_size}; removed: {' '.join(str(c) for c in r.removed) or 'none'}")


def _fmt(v: object) -> str:
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        return " ".join(map(str, v)) or "none"
    return str(v)


# -- bots ----------------------------------------------------------------------------------------


@main.group()
def bot() -> None:
    """Serve sample bots, and register the bots of a ladder."""


@bot.command("serve")
@click.argument("name", type=click.Choice(["random", "lowest", "heuristic"]))
@click.option("--port", type=int, default=0, show_default=True, help="Port to listen on (0: any free port).")
@click.option("--seed", type=int, default=None, help="Seed of the bot's own RNG (the random bot).")
def bot_serve(name: str, port: int, seed: int | None) -> None:
    """Serve the sample bot NAME on 127.0.0.1 until SIGTERM or Ctrl-C.

    Prints "listening on 127.0.0.1:PORT" once bound. Same as python -m clients.bots.NAME.
    """
    from clients.bots import make_bot  # imported here: the other commands need no gRPC server
    from clients.sdk import serve

    serve(make_bot(name, seed=seed), port=port)


_DB_OPTION = click.option("--db", type=click.Path(dir_okay=False), default="arena.db", show_default=True,
                          help="The arena's SQLite file.")


@bot.command("add")
@click.argument("name", required=False)
@click.option("--command", "command", metavar="CMD",
              help='How to start the bot; {port} is replaced by a free port, e.g. '
                   '"python -m clients.bots.random --port {port}".')
@click.option("--address", metavar="HOST:PORT", help="Where a bot that is already running listens.")
@click.option("--description", default="", help="A line about the bot.")
@click.option("--from", "bots_file", type=click.Path(dir_okay=False, exists=True),
              help="Register every bot of a bots TOML file instead (see bots.toml).")
@_DB_OPTION
def bot_add(name: str | None, command: str | None, address: str | None, description: str,
            bots_file: str | None, db: str) -> None:
    """Register bot NAME with a --command that starts it or the --address it serves on.

    A bot already registered under NAME is updated.
    """
    from ladder.registry import BotEntry, RegistryError, add_bot, add_bots, load_bots_file
    from ladder.store import Store

    try:
        if bots_file is not None:
            if name or command or address:
                raise click.UsageError("give either --from FILE or NAME with --command/--address")
            entries = load_bots_file(bots_file)
            with Store(db) as store:
                add_bots(store, entries)
            console.print(f"registered {len(entries)} bots from {bots_file}: {', '.join(e.name for e in entries)}")
            return
        if not name:
            raise click.UsageError("give the bot's NAME (or --from FILE)")
        entry = BotEntry(name, command=command, address=address, description=description)
        with Store(db) as store:
            new = add_bot(store, entry)
    except RegistryError as e:
        raise click.ClickException(str(e)) from None
    console.print(f"{'registered' if new else 'updated'} bot {name!r}")


@bot.command("list")
@_DB_OPTION
def bot_list(db: str) -> None:
    """List the registered bots."""
    from ladder.registry import list_bots
    from ladder.store import Store

    with Store(db) as store:
        entries = list_bots(store)
    if not entries:
        console.print(f"no bots registered in {db}: hearts bot add NAME --command CMD, or --from bots.toml")
        return
    table = Table(title=f"Bots in {db}", title_justify="left")
    for col in ("bot", "command or address", "description"):
        table.add_column(col)
    for e in entries:
        table.add_row(e.name, e.command if e.command is not None else f"remote {e.address}", e.description)
    console.print(table)


@bot.command("remove")
@click.argument("name")
@_DB_OPTION
def bot_remove(name: str, db: str) -> None:
    """Unregister bot NAME. Its recorded matches stay, and so does its place on the ladder."""
    from ladder.registry import remove_bot
    from ladder.store import Store

    with Store(db) as store:
        if not remove_bot(store, name):
            raise click.ClickException(f"no bot {name!r} is registered in {db} (hearts bot list)")
    console.print(f"removed bot {name!r}")


# -- match and replay ----------------------------------------------------------------------------


@main.command("match")
@click.option("--seat", "seat_specs", multiple=True, required=True, metavar="NAME=HOST:PORT",
              help="A bot served over gRPC, one per seat in seat order (as many as the rules' players).")
@click.option("--rules", "ruleset", default="standard", show_default=True,
              help="PRESET[,option=value...]; see hearts rules.")
@click.option("--seed", type=int, default=None, help="The match seed (deals, substitutes). Default: random.")
@click.option("--db", type=click.Path(dir_okay=False), default="arena.db", show_default=True,
              help="SQLite file to record the match in.")
@click.option("--budget-ms", type=float, default=1000, show_default=True, help="Time for one decision.")
@click.option("--bank-ms", type=float, default=10000, show_default=True,
              help="Time bank per bot per match, drawn on when a decision runs over budget.")
@click.option("--grace-ms", type=float, default=50, show_default=True, help="Network slack on every decision.")
@click.option("--max-faults", type=int, default=3, show_default=True, help="Faults before a bot forfeits.")
def match_command(seat_specs: tuple[str, ...], ruleset: str, seed: int | None, db: str, budget_ms: float,
                  bank_ms: float, grace_ms: float, max_faults: int) -> None:
    """Play one match among bots served over gRPC, record it in --db and print a summary.

    \b
    Example:
      hearts match --seat a=localhost:50051 --seat b=localhost:50052 \\
                   --seat c=localhost:50053 --seat d=localhost:50054 --rules standard --seed 7
    """
    import asyncio
    import secrets

    from ladder.store import Store
    from referee.match import MatchSettings, play_remote
    from referee.report import summary
    from referee.seats import SeatUnreachable, parse_seat

    try:
        r = Rules.parse(ruleset)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--rules") from None
    try:
        seats = [parse_seat(s) for s in seat_specs]
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--seat") from None
    if len(seats) != r.players:
        raise click.UsageError(f"the rules {ruleset!r} need {r.players} seats: give --seat NAME=HOST:PORT "
                               f"{r.players} times (got {len(seats)})")
    settings = MatchSettings(budget_ms=budget_ms, bank_ms=bank_ms, grace_ms=grace_ms, max_faults=max_faults)
    seed = seed if seed is not None else secrets.randbelow(2**31)
    try:
        record = asyncio.run(play_remote(seats, r, seed, settings=settings))
    except SeatUnreachable as e:
        raise click.ClickException(str(e)) from None
    with Store(db) as store:
        store.save_match(record)
    console.print(summary(record))
    console.print(f"recorded in {db}; replay with: hearts replay {record.match_id} --db {db}")


@main.command("replay")
@click.argument("match_id")
@click.option("--db", type=click.Path(dir_okay=False, exists=True), default="arena.db", show_default=True,
              help="SQLite file the match is recorded in.")
def replay_command(match_id: str, db: str) -> None:
    """Print a recorded match hand by hand, trick by trick (MATCH_ID may be a unique prefix).

    hearts match prints the id of the match it recorded; a tournament's matches are
    t{ID}-{NNNNNN}, e.g. t1-000000 (a short prefix such as t1-0 names many of them).
    """
    from ladder.store import Store
    from referee.report import replay, summary

    with Store(db) as store:
        try:
            record = store.load_match(store.resolve_match_id(match_id))
        except KeyError as e:
            raise click.ClickException(e.args[0]) from None
    console.print(replay(record))
    console.print(summary(record))


# -- tournaments and the ladder ------------------------------------------------------------------


@main.group()
def tournament() -> None:
    """Run, resume and list tournaments (schedules of matches among registered bots)."""


@tournament.command("run")
@click.option("--bots", "bots_file", type=click.Path(dir_okay=False, exists=True),
              help="A bots TOML file; its bots are registered and play. Default: every registered bot.")
@click.option("--bot", "only", multiple=True, metavar="NAME", help="Play only these registered bots (repeatable).")
@click.option("--format", "fmt", type=click.Choice(["round-robin", "gauntlet"]), default="round-robin",
              show_default=True, help="Every group of bots at a table, or one bot against the pool.")
@click.option("--gauntlet", metavar="BOT", help="The bot that plays every table (implies --format gauntlet).")
@click.option("--rules", "ruleset", default="standard", show_default=True,
              help="PRESET[,option=value...]; see hearts rules.")
@click.option("--seed", type=int, default=None, help="Tournament seed (all deals follow from it). Default: random.")
@click.option("--rounds", type=int, default=1, show_default=True, help="Times the table design is played.")
@click.option("--deals", type=int, default=1, show_default=True,
              help="Deals per table per round; each is played in every seat rotation (duplicate).")
@click.option("--no-duplicate", is_flag=True, help="Play each deal once (seats still rotate across deals).")
@click.option("--concurrency", type=int, default=4, show_default=True, help="Matches played at once.")
@click.option("--budget-ms", type=float, default=1000, show_default=True, help="Time for one decision.")
@click.option("--bank-ms", type=float, default=10000, show_default=True, help="Time bank per bot per match.")
@click.option("--max-faults", type=int, default=3, show_default=True, help="Faults before a bot forfeits.")
@click.option("--startup-timeout", type=float, default=15, show_default=True,
              help="Seconds a bot may take to report SERVING.")
@_DB_OPTION
def tournament_run(bots_file: str | None, only: tuple[str, ...], fmt: str, gauntlet: str | None, ruleset: str,
                   seed: int | None, rounds: int, deals: int, no_duplicate: bool, concurrency: int,
                   budget_ms: float, bank_ms: float, max_faults: int, startup_timeout: float, db: str) -> None:
    """Create a tournament, play it, and print its ladder.

    \b
    Example:
      hearts tournament run --bots bots.toml --format round-robin --concurrency 8 --db arena.db
    """
    import secrets

    from ladder.registry import RegistryError, list_bots, load_bots_file
    from ladder.store import Store
    from ladder.tournament import TournamentSpec, create_tournament
    from referee.match import MatchSettings

    try:
        Rules.parse(ruleset)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--rules") from None
    if gauntlet:
        fmt = "gauntlet"
    seed = seed if seed is not None else secrets.randbelow(2**31)
    with Store(db) as store:
        try:
            entries = load_bots_file(bots_file) if bots_file else list_bots(store)
        except RegistryError as e:
            raise click.ClickException(str(e)) from None
        if only:
            unknown = sorted(set(only) - {e.name for e in entries})
            if unknown:
                raise click.BadParameter(f"not registered: {', '.join(unknown)}", param_hint="--bot")
            entries = [e for e in entries if e.name in only]
        if not entries:
            raise click.ClickException(f"no bots: give --bots FILE or register some (hearts bot add) in {db}")
        spec = TournamentSpec(format=fmt, rules=ruleset, rounds=rounds, deals=deals, seed=seed, gauntlet=gauntlet,
                              duplicate=not no_duplicate,
                              settings=MatchSettings(budget_ms=budget_ms, bank_ms=bank_ms, max_faults=max_faults))
        try:
            tid = create_tournament(store, entries, spec)
        except ValueError as e:
            raise click.ClickException(str(e)) from None
        _play_tournament(store, db, tid, concurrency, startup_timeout)


@tournament.command("resume")
@click.argument("tournament_id", type=int)
@click.option("--concurrency", type=int, default=4, show_default=True, help="Matches played at once.")
@click.option("--startup-timeout", type=float, default=15, show_default=True,
              help="Seconds a bot may take to report SERVING.")
@_DB_OPTION
def tournament_resume(tournament_id: int, concurrency: int, startup_timeout: float, db: str) -> None:
    """Play what is missing of tournament TOURNAMENT_ID (after a crash, a kill or Ctrl-C).

    The bots are started with the commands, and reached at the addresses, stored when the tournament
    was created: re-registering a bot (hearts bot add) does not change what a resume runs. The
    rules, seeds and time limits are the stored ones too.
    """
    from ladder.store import Store

    with Store(db) as store:
        _play_tournament(store, db, tournament_id, concurrency, startup_timeout)


@tournament.command("list")
@_DB_OPTION
def tournament_list(db: str) -> None:
    """List the tournaments with how much of each has been played."""
    from ladder.store import Store
    from ladder.tournament import list_tournaments

    with Store(db) as store:
        infos = list_tournaments(store)
    if not infos:
        console.print(f"no tournaments in {db}")
        return
    table = Table(title=f"Tournaments in {db}", title_justify="left")
    for col in ("id", "format", "rules", "bots", "matches", "status", "seed", "created"):
        table.add_column(col)
    for t in infos:
        fmt = t.format + (f" ({t.gauntlet})" if t.gauntlet else "")
        table.add_row(str(t.id), fmt, t.rules, str(len(t.bots)), f"{t.done}/{t.total}", t.status, str(t.seed),
                      t.created_at[:19].replace("T", " "))
    console.print(table)


def _play_tournament(store: Store, db: str, tid: int, concurrency: int, startup_timeout: float) -> None:
    from ladder.launcher import BotStartError
    from ladder.leaderboard import load_leaderboard, render_table
    from ladder.tournament import Progress, get_tournament, run_tournament

    try:
        info = get_tournament(store, tid)
    except KeyError as e:
        raise click.ClickException(e.args[0]) from None
    console.print(f"tournament {tid}: {info.format}, rules {info.rules}, seed {info.seed}, {len(info.bots)} bots, "
                  f"{info.done}/{info.total} matches recorded; concurrency {concurrency}")
    try:
        with Progress(info.total, info.done, title=f"tournament {tid}") as progress:
            summary = run_tournament(store, tid, concurrency=concurrency, progress=progress,
                                     startup_timeout=startup_timeout)
    except BotStartError as e:
        raise click.ClickException(f"{e}\nnothing more was played; fix the bot, then: "
                                   f"hearts tournament resume {tid} --db {db}") from None
    except KeyboardInterrupt:
        left = get_tournament(store, tid).pending
        console.print(f"interrupted: {left} matches pending; resume with: hearts tournament resume {tid} --db {db}")
        raise SystemExit(130) from None
    for event in summary.events:
        console.print(f"[yellow]{event}[/]")
    console.print(f"played {summary.played} matches in {summary.seconds:.1f} s "
                  f"({summary.faults} faults, {summary.forfeits} forfeits); logs in "
                  f"{(Path(db).resolve().parent / 'logs')}")
    _wide_console().print(render_table(load_leaderboard(store, tournament_id=tid), title=f"Tournament {tid}"))


@main.command("ladder")
@_DB_OPTION
@click.option("--tournament", "tournament_id", type=int, help="Only this tournament's matches.")
@click.option("--rules", "ruleset", help="Only matches played under this ruleset.")
@click.option("--anchor", metavar="BOT", help="Fix this bot at 1500 (default: the field's mean is 1500).")
@click.option("--provisional-games", type=int, default=20, show_default=True,
              help="Fewer games than this marks a rating provisional.")
@click.option("--json", "as_json", is_flag=True, help="Print the ladder as JSON.")
@click.option("--csv", "as_csv", is_flag=True, help="Print the ladder as CSV.")
def ladder_command(db: str, tournament_id: int | None, ruleset: str | None, anchor: str | None,
                   provisional_games: int, as_json: bool, as_csv: bool) -> None:
    """The leaderboard: Elo (batch Plackett–Luce) with ±95%, and per-bot figures, from every match in --db."""
    from ladder.leaderboard import load_leaderboard, render_table, to_csv, to_json
    from ladder.store import Store

    if as_json and as_csv:
        raise click.UsageError("give at most one of --json and --csv")
    if not Path(db).exists():
        raise click.ClickException(f"no database {db} (run a tournament first, or give --db)")
    try:
        with Store(db) as store:
            lb = load_leaderboard(store, tournament_id=tournament_id, rules=ruleset, anchor=anchor,
                                  provisional_games=provisional_games)
    except ValueError as e:
        raise click.ClickException(str(e)) from None
    if as_json:
        click.echo(to_json(lb))
    elif as_csv:
        click.echo(to_csv(lb), nl=False)
    elif not lb.rows:
        console.print(f"no matches recorded in {db}")
    else:
        _wide_console().print(render_table(lb))


def _wide_console() -> Console:
    # Piped or captured output gets rich's default 80 columns, too few for the ladder's 14 columns.
    return console if console.is_terminal else Console(width=170)


if __name__ == "__main__":  # pragma: no cover
    main()
