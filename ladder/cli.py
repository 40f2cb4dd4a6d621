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


if __name__ == "__main__":  # pragma: no cover
    main()
