"""``hearts match``: one match between the bots of the seats given, recorded in --db."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from ladder.cli.common import (
    _DB_OPTION,
    _SANDBOX_OPTION,
    _SEED,
    _STARTUP_TIMEOUT_OPTION,
    _browser_options,
    _check_browser_options,
    _check_writable,
    _clock_options,
    _open,
    _parse_rules,
    _seat_entries,
    _serve_replay,
    _viewer_socket,
    console,
    engine_note,
)


@click.command("match")
@click.option(
    "--seat",
    "seat_specs",
    multiple=True,
    required=True,
    metavar="SEAT",
    help="One per seat, in seat order (as many as the rules' players): NAME=HOST:PORT (a bot served "
    "there), NAME=PKG.MOD:CLASS (an SDK bot class played in-process), NAME=COMMAND (started, as in a bots "
    "file), or NAME (its entry in --bots, or registered in --db). NAME[budget_ms=MS,bank_ms=MS,grace_ms=MS] "
    "in any of them (any of the keys) gives that bot its own clock; the rest is the match's.",
)
@click.option(
    "--bots",
    "bots_file",
    type=click.Path(exists=True, dir_okay=False),
    help="A bots file (bots.toml) whose entries a bare --seat NAME names.",
)
@_STARTUP_TIMEOUT_OPTION
@_SANDBOX_OPTION
@click.option(
    "--rules", "ruleset", default="standard", show_default=True, help="PRESET[,option=value...]; see hearts rules."
)
@click.option(
    "--seed", type=_SEED, default=None, help="The match seed (deals, substitutes), 64 bits signed. Default: random."
)
@_DB_OPTION
@_clock_options
@_browser_options
def match_command(
    seat_specs: tuple[str, ...],
    bots_file: str | None,
    startup_timeout: float,
    sandbox: str,
    ruleset: str,
    seed: int | None,
    db: str,
    budget_ms: float,
    bank_ms: float,
    grace_ms: float,
    max_faults: int,
    browser: bool,
    no_browser: bool,
    port: int,
) -> None:
    """Play one match, record it in --db and print a summary. Bots given by a command (or by name
    from --bots or the registry) are started like a tournament's and stopped after the match.

    \b
    Examples:
      hearts match --seat a=localhost:50051 --seat b=localhost:50052 \\
                   --seat c=localhost:50053 --seat d=localhost:50054 --rules standard --seed 7
      hearts match --seat "me=python my_bot.py" --seat random --seat lowest --seat heuristic --bots bots.toml
      hearts match --seat me=my_bot:MyBot --seat r1=clients.bots.random:RandomBot \\
                   --seat r2=clients.bots.random:RandomBot --seat h=clients.bots.heuristic:HeuristicBot --browser

    With --browser the recorded match opens in the replay viewer (as hearts replay --browser does).
    """
    engine_note()
    import asyncio
    import secrets

    from ladder.bots.registry import RegistryError
    from referee.match import MatchSettings, play_remote
    from referee.report import summary
    from referee.seats import SeatUnreachable

    _check_browser_options(browser, no_browser)
    r = _parse_rules(ruleset, "--rules")
    if len(seat_specs) != r.players:
        raise click.UsageError(
            f"the rules {ruleset!r} need {r.players} seats: give --seat NAME=HOST:PORT, NAME=PKG.MOD:CLASS, "
            "NAME=COMMAND or NAME "
            f"{r.players} times (got {len(seat_specs)})"
        )
    try:
        entries = _seat_entries(seat_specs, bots_file, db)
    except (ValueError, RegistryError) as e:
        raise click.BadParameter(str(e), param_hint="--seat") from None
    clocks: dict[str, Any] = {}
    for entry in entries:  # a bot serves every seat of its name under one clock
        if entry.name in clocks and clocks[entry.name] != entry.time_control:
            one, other = (str(c) if c is not None else "the match's" for c in (clocks[entry.name], entry.time_control))
            raise click.BadParameter(
                f"bot {entry.name!r} is seated with two clocks ({one}; {other}): give each seat its own name, "
                "or the bot one clock",
                param_hint="--seat",
            )
        clocks[entry.name] = entry.time_control
    settings = MatchSettings(budget_ms=budget_ms, bank_ms=bank_ms, grace_ms=grace_ms, max_faults=max_faults)
    seed = seed if seed is not None else secrets.randbelow(2**31)
    _check_writable(db)  # before playing: a match that cannot be recorded is lost
    sock = _viewer_socket(port) if browser else None  # before playing too: a port taken is said at once
    seats = [(e.name, e.address or "") for e in entries]
    from ladder.sandbox import SandboxMode, SandboxUnavailable

    mode = SandboxMode(sandbox)
    if mode is not SandboxMode.OFF or any(e.sandbox for e in entries):
        console.print(f"bots: {mode.label if mode is not SandboxMode.OFF else SandboxMode.FULL.label}")
    for name, clock in clocks.items():
        if clock is not None:
            console.print(f"{name} plays under its own clock: {clock} (the rest as the match's)", soft_wrap=True)
    try:
        if all(e.address is not None for e in entries):
            own = [e.time_control for e in entries]
            record = asyncio.run(play_remote(seats, r, seed, settings=settings, time_controls=own))
        else:
            from ladder.bots.inprocess import BotModuleError
            from ladder.bots.launcher import BotStartError
            from ladder.venues.here import play_one_match

            try:
                record = asyncio.run(
                    play_one_match(
                        list({e.name: e for e in entries}.values()),
                        [e.name for e in entries],
                        r,
                        seed,
                        settings=settings,
                        log_dir=Path(db).resolve().parent / "logs",
                        startup_timeout=startup_timeout,
                        sandbox=mode,
                    )
                )
            except (BotStartError, BotModuleError, SandboxUnavailable) as e:
                raise click.ClickException(str(e)) from None
    except SeatUnreachable as e:
        tries = "".join(
            f"\n  To try with a sample bot there: hearts bot serve random --port {a.rpartition(':')[2]}"
            for a in e.addresses
        )
        raise click.ClickException(f"{e}{tries}") from None
    with _open(db) as store:
        store.save_match(record)
    console.print(summary(record))
    if mode is SandboxMode.LIMITS_ONLY:
        console.print(mode.label)
    names = [name for name, _address in seats]
    if len(set(names)) < len(names):
        console.print(
            "note: one name filled several seats; hearts ladder leaves such a match out "
            "(self-play rates no bot against another)"
        )
    console.print(f"recorded in {db}; replay with:")
    # On a line of its own and never wrapped, so that it can be copied whole.
    console.print(f"  hearts replay {record.match_id} --db {db}", soft_wrap=True)
    if sock is not None:
        _serve_replay(db, record.match_id, sock, open_browser=not no_browser)
