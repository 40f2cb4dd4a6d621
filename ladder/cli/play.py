"""``hearts play``: a person, or a few people at one table, against bots, through the referee
(docs/play.md)."""

from __future__ import annotations

import getpass
import re
import secrets
import sys
from pathlib import Path
from typing import Any

import click

from ladder.cli.common import (
    _DB_OPTION,
    _SANDBOX_OPTION,
    _SEED,
    _STARTUP_TIMEOUT_OPTION,
    _check_writable,
    _Finite,
    _open,
    _parse_rules,
    _seat_entries,
    console,
    engine_note,
)
from referee.untrusted import inert

SAMPLE_OPPONENTS = ("heuristic", "lowest", "random")
"""The bots a person plays when no --seat names them, in seat order (repeated, numbered, for more seats)."""

_SECONDS = _Finite(min=0, min_open=True, max=2**32 / 1000, max_open=True)
_AWAY = _Finite(min=0, max=86400)


def _opponents(specs: tuple[str, ...], bots: int) -> list[str]:
    """The --seat specs of the ``bots`` bots, one per seat but the people's: the sample bots played
    in-process by default; a bare sample bot's name is that bot too, unless a bots file or the store
    names it."""
    from clients.bots import BOTS

    if specs:
        return list(specs)
    out = []
    for i in range(bots):
        name = SAMPLE_OPPONENTS[i % len(SAMPLE_OPPONENTS)]
        label = name if i < len(SAMPLE_OPPONENTS) else f"{name}-{i // len(SAMPLE_OPPONENTS) + 1}"
        module, cls = BOTS[name]
        out.append(f"{label}={module}:{cls}")
    return out


def _entries(specs: list[str], bots_file: str | None, db: str) -> list[Any]:
    from clients.bots import BOTS
    from ladder.bots.registry import BotEntry

    out = []
    for spec in specs:
        try:
            out += _seat_entries([spec], bots_file, db)
        except ValueError:
            name = spec.strip()
            if "=" in spec or name not in BOTS:
                raise
            module, cls = BOTS[name]
            out.append(BotEntry(name, module=f"{module}:{cls}"))
    return out


def _default_name() -> str:
    try:
        who = getpass.getuser()
    except Exception:
        who = ""
    who = re.sub(r"[^A-Za-z0-9._-]+", "-", who).strip("-_.")
    return who or "person"


def _people_names(names: tuple[str, ...], people: int) -> list[str]:
    """One name per person, in seat order: the --name values given, then your user name for the first
    person if none was given, and ``person-2``, ``person-3``... for the rest."""
    if len(names) > people:
        raise click.UsageError(
            f"--name given {len(names)} times for {people} {'person' if people == 1 else 'people'}: "
            "once per person at most (add --people)"
        )
    out = list(names)
    for i in range(len(out), people):
        out.append(_default_name() if i == 0 else f"person-{i + 1}")
    for i, n in enumerate(out):
        if n in out[:i]:
            raise click.BadParameter(f"{n!r} sits at this table twice: give each person a name", param_hint="--name")
    return out


@click.command("play")
@click.option(
    "--seat",
    "seat_specs",
    multiple=True,
    metavar="SEAT",
    help="A bot to play against, one per seat but the people's, in seat order after theirs: NAME=HOST:PORT, "
    "NAME=PKG.MOD:CLASS, NAME=COMMAND or NAME (an entry of --bots, a registered bot, or a sample bot: "
    "random, lowest, heuristic, montecarlo, ismcts). Default: the sample bots heuristic, lowest and random.",
)
@click.option(
    "--bots",
    "bots_file",
    type=click.Path(exists=True, dir_okay=False),
    help="A bots file (bots.toml) whose entries a bare --seat NAME names.",
)
@click.option(
    "--people",
    type=click.IntRange(1, 10),
    default=1,
    show_default=True,
    help="How many people sit at the table, in seats 0, 1, ... (the bots take the rest): each gets an "
    "address of their own, and the match starts once every one of them has pressed start.",
)
@click.option(
    "--name",
    "names",
    multiple=True,
    help="Your name at the table and in the record; with --people, once per person in seat order. "
    "Default: your user name, then person-2, person-3...",
)
@click.option(
    "--rules", "ruleset", default="standard", show_default=True, help="PRESET[,option=value...]; see hearts rules."
)
@click.option(
    "--seed", type=_SEED, default=None, help="The match seed (deals, substitutes), 64 bits signed. Default: random."
)
@click.option(
    "--clock",
    type=_SECONDS,
    default=None,
    metavar="SECONDS",
    help="Your time for each decision, in seconds, shown on the page. Default: untimed (a day a decision).",
)
@click.option(
    "--bank",
    type=_Finite(min=0, max=2**32 / 1000, max_open=True),
    default=0,
    show_default=True,
    metavar="SECONDS",
    help="With --clock: a bank of seconds for the whole match, drawn on when a decision runs over.",
)
@click.option(
    "--away",
    type=_AWAY,
    default=10,
    show_default=True,
    metavar="SECONDS",
    help="How long a decision waits for you once your page is closed; then the referee's substitute plays it.",
)
@click.option(
    "--port", type=click.IntRange(0, 65535), default=0, show_default=True, help="The page's port on 127.0.0.1 (0: any)."
)
@click.option("--no-browser", is_flag=True, help="Print the page's address instead of opening a browser.")
@click.option(
    "--tui", is_flag=True, help="Play in this terminal instead of a browser, with the same keys (no server at all)."
)
@_STARTUP_TIMEOUT_OPTION
@_SANDBOX_OPTION
@_DB_OPTION
def play_command(
    seat_specs: tuple[str, ...],
    bots_file: str | None,
    people: int,
    names: tuple[str, ...],
    ruleset: str,
    seed: int | None,
    clock: float | None,
    bank: float,
    away: float,
    port: int,
    no_browser: bool,
    tui: bool,
    startup_timeout: float,
    sandbox: str,
    db: str,
) -> None:
    """Play Hearts yourself against bots, through the referee: a page on 127.0.0.1 (opened in your
    browser, or its address printed) shows your seat. The match is recorded in --db like any other,
    with your seat's kind human; the ladder never rates it. With --people 2 (or more) each person is
    printed an address of their own, which shows their seat only.

    \b
    On the page: Space or Enter starts; choose cards with the arrow keys, Space selects or plays,
    Enter confirms a pass; tap or click works too. After each hand, Space deals again.

    \b
    Examples:
      hearts play
      hearts play --rules spot --seat heuristic --seat montecarlo --seat lowest
      hearts play --seat "me2=python my_bot.py" --clock 20 --bank 60 --no-browser
      hearts play --people 2 --name ann --name bob --no-browser
      hearts play --tui
    """
    engine_note()
    import asyncio

    from ladder.bots.inprocess import BotModuleError
    from ladder.bots.launcher import BotStartError
    from ladder.bots.registry import RegistryError, check_name, get_bot
    from ladder.sandbox import SandboxMode, SandboxUnavailable
    from ladder.table.session import PortTaken, Sitting, listen, sit
    from ladder.table.table import Table
    from referee.human import UNTIMED, HumanSeat
    from referee.match import MatchSettings

    r = _parse_rules(ruleset, "--rules")
    if tui and people > 1:
        raise click.UsageError("--tui seats one person (one terminal): play --people in a browser")
    if tui:
        from ladder.table.tui import has_terminal

        if not has_terminal():
            raise click.UsageError("--tui needs a terminal (its input and output): run it in one, or play in a browser")
    if people > r.players:
        raise click.UsageError(f"the rules {ruleset!r} seat {r.players} players: --people {people} is too many")
    bots = r.players - people
    if seat_specs and len(seat_specs) != bots:
        who = "you" if people == 1 else f"{people} people"
        raise click.UsageError(
            f"the rules {ruleset!r} seat {r.players} players: {who} and {bots} bots; give --seat "
            f"{bots} times, or none for the sample bots (got {len(seat_specs)})"
        )
    person_names = _people_names(names, people)
    try:
        for n in person_names:
            check_name(n)
        entries = _entries(_opponents(seat_specs, bots), bots_file, db)
    except (ValueError, RegistryError) as e:
        raise click.BadParameter(str(e), param_hint="--name" if "bot name" in str(e) and names else "--seat") from None
    for n in person_names:
        if n in {e.name for e in entries}:
            raise click.BadParameter(f"{n!r} is a bot at this table: give yourself another name", param_hint="--name")
    if Path(db).exists():
        with _open(db, readonly=True) as store:
            for n in person_names:
                if get_bot(store, n) is not None:
                    raise click.BadParameter(
                        f"{n!r} is a bot registered in {db}: give yourself another name", param_hint="--name"
                    )
    _check_writable(db)  # before playing: a match that cannot be recorded is lost
    if clock is None:
        time_control = UNTIMED
    else:
        time_control = MatchSettings(budget_ms=clock * 1000, bank_ms=bank * 1000)
    table = Table(*(HumanSeat(n, time_control=time_control, away_s=away) for n in person_names))
    sitting = Sitting(
        entries=entries,
        person_seats=range(people),
        rules=r,
        seed=seed if seed is not None else secrets.randbelow(2**31),
        table=table,
        db=db,
        settings=MatchSettings(),
        log_dir=Path(db).resolve().parent / "logs",
        startup_timeout=startup_timeout,
        sandbox=SandboxMode(sandbox),
    )
    if tui:
        from ladder.table.tui import at_terminal

        try:
            record = asyncio.run(at_terminal(sitting, console))
        except (BotStartError, BotModuleError, SandboxUnavailable) as e:
            raise click.ClickException(inert(str(e), limit=4000, multiline=True)) from None
        except KeyboardInterrupt:
            raise click.ClickException("stopped: the match was not finished, nothing was recorded") from None
        _recorded(record, db)
        return
    try:
        sock = listen(port)
    except PortTaken as e:
        raise click.ClickException(str(e)) from None

    def listening(urls: list[str]) -> None:
        if len(urls) == 1:
            console.print("your table is at:")
            console.print(f"  {urls[0]}", soft_wrap=True, highlight=False, markup=False)
        else:
            console.print(
                "the table is at, one address for each person (each shows that person's seat only):", soft_wrap=True
            )
            for i, (n, url) in enumerate(zip(person_names, urls, strict=True)):
                console.print(f"  seat {i} {n}: {url}", soft_wrap=True, highlight=False, markup=False)
        if not no_browser:
            import webbrowser

            try:
                opened = webbrowser.open(urls[0])
            except Exception:
                opened = False
            if not opened:
                which = "that address" if len(urls) == 1 else "the first address"
                console.print(f"(no browser could be opened here: open {which} in one)")
        sys.stdout.flush()

    try:
        record = asyncio.run(sit(sitting, sock, listening))
    except (BotStartError, BotModuleError, SandboxUnavailable) as e:
        raise click.ClickException(inert(str(e), limit=4000, multiline=True)) from None
    except KeyboardInterrupt:
        raise click.ClickException("stopped: the match was not finished, nothing was recorded") from None
    finally:
        sock.close()
    _recorded(record, db)


def _recorded(record: Any, db: str) -> None:
    from referee.report import summary

    console.print(summary(record))
    console.print(f"recorded in {db}; replay with:")
    console.print(f"  hearts replay {record.match_id} --db {db}", soft_wrap=True)
