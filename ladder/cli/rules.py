"""``hearts rules``: the presets, every rule option, and one ruleset shown whole."""

from __future__ import annotations

import click

from ladder.cli.common import _fmt, _parse_rules, _table, console
from referee.rules import OPTIONS, PRESETS, Rules


@click.group(invoke_without_command=True)
@click.pass_context
def rules(ctx: click.Context) -> None:
    """List the presets and every rule option with its default and its source.

    A ruleset is written PRESET[,option=value...], e.g. "spot,target=300" or
    "standard,moon=shooter-chooses,pass_cycle=no-hold". Use it wherever --rules is asked.
    A comma separates options, so a list value is written with spaces, and the ruleset quoted:

    \b
      "standard,removed_cards=2C 2D,hand_size=12,kitty=first-trick"
    """
    if ctx.invoked_subcommand is not None:
        return
    presets = _table("Presets", "preset", "changes from standard")
    for name, r in PRESETS.items():
        ch = r.changes()
        presets.add_row(name, ", ".join(f"{k}={_fmt(v)}" for k, v in ch.items()) or "(the default: 001)")
    console.print(presets)
    opts = _table("Options", "option", "default", "values", "source")
    opts.add_column("meaning")
    defaults = Rules().to_dict()
    for o in OPTIONS:
        opts.add_row(o.name, _fmt(defaults[o.name]), _VALUES.get(o.name, o.values), o.source, o.help)
    console.print(opts)


# How values are written on a command line, where they differ from the engine's own text: a comma
# separates the options of a ruleset, so a list of cards is written with spaces.
_VALUES = {"removed_cards": 'cards separated by spaces, e.g. 2D or "2C 2D" (quote the whole ruleset)'}


@rules.command("show")
@click.argument("ruleset", default="standard")
def rules_show(ruleset: str) -> None:
    """Print one ruleset: RULESET is a preset name, optionally with option=value changes."""
    r = _parse_rules(ruleset, "RULESET")
    table = _table(f"Ruleset {ruleset} ({r.name})", "option", "value", "source")
    changed, values = r.changes(), r.to_dict()
    for o in OPTIONS:
        value = _fmt(values[o.name])
        table.add_row(o.name, f"[yellow]{value}[/]" if o.name in changed else value, o.source)
    console.print(table)
    console.print(
        f"penalty points a hand (the moon): {r.moon_total}; cards each: {r.cards_per_player}; "
        f"kitty: {r.kitty_size}; removed: {' '.join(str(c) for c in r.removed) or 'none'}"
    )
