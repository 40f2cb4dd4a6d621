"""The ``hearts`` command line. Each command is a thin call of one library function.

Command groups live in this file; their work lives in the library (rules, referee, ladder).
docs/cli.md documents every command and option (tests/ladder/test_docs.py checks it).
"""

from __future__ import annotations

import click
from rich.console import Console
from rich.table import Table

from referee.rules import OPTIONS, PRESETS, Rules

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
    """Print a recorded match hand by hand, trick by trick (MATCH_ID may be a unique prefix)."""
    from ladder.store import Store
    from referee.report import replay, summary

    with Store(db) as store:
        try:
            record = store.load_match(store.resolve_match_id(match_id))
        except KeyError as e:
            raise click.ClickException(e.args[0]) from None
    console.print(replay(record))
    console.print(summary(record))


if __name__ == "__main__":  # pragma: no cover
    main()
