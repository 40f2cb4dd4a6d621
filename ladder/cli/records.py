"""``hearts replay``, ``hearts matches`` and ``hearts export``: the recorded matches, read back."""

from __future__ import annotations

import click
from rich.table import Table

from ladder.cli.common import (
    _AT_LEAST_1,
    _EXISTING_DB_OPTION,
    _browser_options,
    _check_browser_options,
    _check_tournament,
    _fmt,
    _load_match,
    _open,
    _serve_replay,
    _viewer_socket,
    _wide_console,
    console,
)
from referee.rules import Rules


@click.command("replay")
@click.argument("match_id")
@_EXISTING_DB_OPTION
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print the match as one line of JSON (docs/export.md), as hearts export does.",
)
@_browser_options
def replay_command(match_id: str, db: str, as_json: bool, browser: bool, no_browser: bool, port: int) -> None:
    """Print a recorded match hand by hand, trick by trick (MATCH_ID may be a unique prefix), or
    with --browser show it in the site's replay viewer, served from --db on 127.0.0.1.

    hearts match prints the id of the match it recorded; a tournament's matches are
    t{ID}-{NNNNNN}, e.g. t1-000000 (a short prefix such as t1-0 names many of them).
    hearts matches lists the ids.

    \b
    Examples:
      hearts replay t1-000005 --db arena.db
      hearts replay t1-000005 --db arena.db --browser
    """
    from referee.report import replay, summary

    _check_browser_options(browser, no_browser)
    if browser and as_json:
        raise click.UsageError("give at most one of --json and --browser")
    record = _load_match(db, match_id)
    if browser:
        _serve_replay(db, record.match_id, _viewer_socket(port), open_browser=not no_browser)
        return
    if as_json:
        from ladder.export import dumps, match_to_json

        click.echo(dumps(match_to_json(record)))
        return
    console.print(replay(record))
    console.print(summary(record))


@click.command("matches")
@_EXISTING_DB_OPTION
@click.option("--tournament", "tournament_id", type=int, help="Only this tournament's matches.")
@click.option("--limit", type=_AT_LEAST_1, default=50, show_default=True, help="Show at most this many, newest first.")
def matches_command(db: str, tournament_id: int | None, limit: int) -> None:
    """List the recorded matches, newest first: id (for hearts replay), seats with scores and places.

    \b
    Example:
      hearts matches --db arena.db --tournament 1 --limit 10
    """
    with _open(db, readonly=True) as store:
        if tournament_id is not None:
            _check_tournament(store, tournament_id, db)
        found = store.list_matches(tournament_id=tournament_id, limit=limit)
    if not found:
        where = f" of tournament {tournament_id}" if tournament_id is not None else ""
        console.print(f"no matches{where} recorded in {db}")
        return
    table = Table(
        title=f"Matches in {db}" + (f", tournament {tournament_id}" if tournament_id is not None else ""),
        title_justify="left",
    )
    table.add_column("id", no_wrap=True)
    for col in ("tournament", "rules", "seats: score (place)", "winner", "faults", "finished"):
        table.add_column(col)
    for m in found:
        seats = ", ".join(f"{b} {sc} ({pl})" for b, sc, pl in zip(m.bots, m.scores, m.places))
        winners = ", ".join(m.bots[w] for w in m.winners if 0 <= w < len(m.bots))
        finished = (m.finished_at or "")[:19].replace("T", " ") if m.status == "finished" else m.status
        table.add_row(
            m.match_id,
            "" if m.tournament_id is None else str(m.tournament_id),
            _rules_text(m.rules),
            seats,
            winners,
            str(m.faults),
            finished,
        )
    _wide_console().print(table)
    if len(found) == limit:
        console.print(f"the {limit} newest shown; --limit N shows more")
    console.print(f"replay one with: hearts replay ID --db {db} (a unique prefix of the id will do)", soft_wrap=True)


@click.command("export")
@_EXISTING_DB_OPTION
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["jsonl"]),
    default="jsonl",
    show_default=True,
    help="jsonl: one JSON object per match, one per line (docs/export.md).",
)
@click.option("--tournament", "tournament_id", type=int, help="Only this tournament's matches.")
def export_command(db: str, fmt: str, tournament_id: int | None) -> None:
    """Write every recorded match to stdout as JSON, one line per match, in id order.

    Each line is a whole match: rules, seed, seats, every pass and play with its latency, the
    faults, each hand's score and the places (schema: docs/export.md). It streams: one match at a
    time is read and written, however many the database holds.

    \b
    Example:
      hearts export --format jsonl --tournament 1 --db arena.db > t1.jsonl
    """
    import sys

    from ladder.export import write_jsonl

    with _open(db, readonly=True) as store:
        if tournament_id is not None:
            _check_tournament(store, tournament_id, db)
        try:
            write_jsonl(store, sys.stdout, tournament_id)
            sys.stdout.flush()
        except BrokenPipeError:  # hearts export | head: the reader has all it wants
            _silence_stdout()


def _silence_stdout() -> None:
    """After a broken pipe: point stdout at /dev/null, so that the flush at exit cannot fail again."""
    import os
    import sys

    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


def _rules_text(rules: dict[str, object]) -> str:
    """A recorded ruleset as a --rules text: its preset's name, or the options changed from standard."""
    try:
        r = Rules.from_dict(rules)
    except (TypeError, ValueError):
        return "?"
    if r.name != "custom":
        return r.name
    return ",".join(f"{k}={_fmt(v)}" for k, v in r.changes().items())
