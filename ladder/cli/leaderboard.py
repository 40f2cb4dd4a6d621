"""``hearts ladder``: the leaderboard of one ruleset, with the commands that rate the others."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.text import Text

from ladder.cli.common import _DB_OPTION, _check_tournament, _count, _open, _parse_rules, _wide_console, console

if TYPE_CHECKING:
    from ladder.ratings.leaderboard import Leaderboard


@click.command("ladder")
@_DB_OPTION
@click.option("--tournament", "tournament_id", type=int, help="Only this tournament's matches.")
@click.option(
    "--rules", "ruleset", help="The ruleset to rate (a ladder is per ruleset). Default: the latest tournament's."
)
@click.option("--anchor", metavar="BOT", help="Fix this bot at 1500 (default: the field's mean is 1500).")
@click.option(
    "--provisional-games",
    type=click.IntRange(min=0),
    default=20,
    show_default=True,
    help="Fewer games than this marks a rating provisional (0 or more).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the ladder as JSON.")
@click.option("--csv", "as_csv", is_flag=True, help="Print the ladder as CSV.")
def ladder_command(
    db: str,
    tournament_id: int | None,
    ruleset: str | None,
    anchor: str | None,
    provisional_games: int,
    as_json: bool,
    as_csv: bool,
) -> None:
    """The leaderboard of one ruleset: Elo (batch Plackett–Luce) with ±95%, and per-bot figures.

    It rates the matches in --db played under --rules, by default under the ruleset of the latest
    tournament, and lists the other rulesets with the command that shows each.
    """
    from ladder.ratings.leaderboard import load_leaderboard, render_table, to_csv, to_json

    if as_json and as_csv:
        raise click.UsageError("give at most one of --json and --csv")
    if not Path(db).exists():
        raise click.ClickException(f"no database {db} (run a tournament first, or give --db)")
    if ruleset is not None:
        _parse_rules(ruleset, "--rules")
    try:
        with _open(db, readonly=True) as store:
            if tournament_id is not None:
                _check_tournament(store, tournament_id, db)
            lb = load_leaderboard(
                store, tournament_id=tournament_id, rules=ruleset, anchor=anchor, provisional_games=provisional_games
            )
    except ValueError as e:
        raise click.ClickException(str(e)) from None
    others = _other_rulesets(lb, db, tournament_id, "--csv" if as_csv else None)
    if as_json:
        click.echo(to_json(lb))  # the other rulesets are in the JSON itself
    elif as_csv:
        click.echo(to_csv(lb), nl=False)
        for line in others:  # stdout stays one CSV table
            click.echo(line.plain, err=True)
    elif not lb.rows:
        shown = lb.rules or ruleset
        under = f" under rules {shown}" if shown else ""
        console.print(
            Text(
                f"no matches to rate in {db}{under}"
                if lb.self_play or lb.with_people
                else f"no matches recorded in {db}{under}"
            ),
            soft_wrap=True,
        )
        for note in lb.notes:
            console.print(f"note: {note}")
        for line in others:
            console.print(line, soft_wrap=True)
    else:
        _wide_console().print(render_table(lb))
        for line in others:
            console.print(line, soft_wrap=True)


def _other_rulesets(lb: Leaderboard, db: str, tournament_id: int | None, output: str | None) -> list[Text]:
    """Lines naming the rulesets the ladder left out, each with the exact command that rates it."""
    import shlex

    if not lb.other_rulesets:
        return []
    lines = [Text(f"other rulesets in {db}, each rated on a ladder of its own:")]
    for r in lb.other_rulesets:
        matches = _count(r.matches, "match", "matches")
        if r.rules is None:
            lines.append(Text(f"  a ruleset this version cannot read: {matches}"))
            continue
        command = ["hearts", "ladder", "--db", db, "--rules", r.rules]
        if tournament_id is not None:
            command += ["--tournament", str(tournament_id)]
        if output is not None:
            command.append(output)
        lines.append(Text(f"  {r.rules}: {matches}: {shlex.join(command)}"))
    return lines
