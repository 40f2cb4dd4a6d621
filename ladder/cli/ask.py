"""``hearts ask``: a recorded decision sent again to a bot (the request the referee sent then, rebuilt from
the record), its answer beside the recorded one; ``--all`` every decision of one seat, ``--list`` the steps."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.table import Table
from rich.text import Text

from ladder.cli.common import (
    _EXISTING_DB_OPTION,
    _STARTUP_TIMEOUT_OPTION,
    _count,
    _load_match,
    _wide_console,
    console,
)
from referee.untrusted import inert

if TYPE_CHECKING:
    from ladder.ask import Asked, Step
    from referee.record import MatchRecord
    from referee.seats import Seat

NAME_LIMIT = 40
"""Characters of a bot's name shown (a name may come from a bot's own handshake)."""

_BOT = "ask"
"""The name the asked bot is started under: its log is ``logs/ask.log`` beside --db."""


@click.command("ask")
@click.argument("match_id")
@click.option(
    "--step",
    "step_number",
    type=click.IntRange(min=0),
    default=None,
    metavar="N",
    help="The decision to ask, by its step number (from 0, in the order the referee asked them: hearts ask "
    "MATCH_ID --list shows them).",
)
@click.option(
    "--all",
    "ask_all",
    is_flag=True,
    help="Ask every decision of the seat --seat gives, and list the steps where the answer differs from the "
    "recorded one.",
)
@click.option(
    "--list",
    "list_steps",
    is_flag=True,
    help="List the match's steps (step, hand, trick, seat, decision, the recorded answer and its latency); "
    "with --seat, that seat's only. Asks no bot.",
)
@click.option(
    "--seat",
    "seat_spec",
    default=None,
    metavar="SEAT",
    help="A seat: its number (from 0) or the name of the bot the record seats there. For --all and --list.",
)
@click.option(
    "--bot",
    "bot_spec",
    default=None,
    metavar="BOT",
    help="The bot to ask: a command that starts it (with {port}, as in a bots file), HOST:PORT (a bot served "
    "there) or PKG.MOD:CLASS (an SDK bot class, in this process).",
)
@_STARTUP_TIMEOUT_OPTION
@_EXISTING_DB_OPTION
def ask_command(
    match_id: str,
    step_number: int | None,
    ask_all: bool,
    list_steps: bool,
    seat_spec: str | None,
    bot_spec: str | None,
    startup_timeout: float,
    db: str,
) -> None:
    """Send a bot the exact request the referee sent at one decision of a recorded match, and show its
    answer beside the recorded one: whether they differ, whether the referee would have let it stand,
    and how long it took. MATCH_ID may be a unique prefix.

    The request is rebuilt from the record through the rules engine: the same bytes the seat's bot
    was sent (the seat's own view only, never another hand). --all asks every decision of one seat.

    \b
    Examples:
      hearts ask t1-000003 --list --db arena.db
      hearts ask t1-000003 --step 41 --bot "python my_bot.py --port {port}" --db arena.db
      hearts ask t1-000003 --seat 2 --all --bot my_bot:MyBot --db arena.db
    """
    modes = [m for m, on in (("--step", step_number is not None), ("--all", ask_all), ("--list", list_steps)) if on]
    if len(modes) != 1:
        what = f", not {' and '.join(modes)} together" if modes else ""
        raise click.UsageError(
            f"give one of --step N (one decision), --seat SEAT --all (every decision of a seat) or --list "
            f"(the steps){what}"
        )
    if ask_all and seat_spec is None:
        raise click.UsageError("--all asks every decision of one seat: give --seat SEAT (its number or its bot's name)")
    if step_number is not None and seat_spec is not None:
        raise click.UsageError("--step N names one decision, and so its seat: give no --seat with it")
    if list_steps and bot_spec is not None:
        raise click.UsageError("--list asks no bot: give --bot with --step N or --all")
    if not list_steps and bot_spec is None:
        raise click.UsageError(
            "give --bot BOT, the bot to ask: a command (python my_bot.py --port {port}), HOST:PORT, or PKG.MOD:CLASS"
        )

    record = _load_match(db, match_id)
    seat = _seat_of(record, seat_spec) if seat_spec is not None else None
    every = _replayed(record, db)
    if list_steps:
        _list(record, every, seat, db)
        return
    assert bot_spec is not None
    if step_number is not None:
        if step_number >= len(every):
            raise click.ClickException(
                f"match {record.match_id} has no step {step_number}: its steps are 0 to {len(every) - 1} "
                f"(hearts ask {record.match_id} --list --db {db} shows them)"
            )
        step = every[step_number]
        if not step.asked:
            asked = [s.number for s in every if s.seat == step.seat and s.asked]
            last = f"; its last step asked is {asked[-1]}" if asked else ""
            raise click.ClickException(
                f"step {step_number} was not asked of a bot: {step.not_asked}{last} "
                f"(hearts ask {record.match_id} --list --db {db} shows every step)"
            )
    else:
        assert seat is not None
        if not any(s.seat == seat and s.asked for s in every):
            raise click.ClickException(
                f"no decision of seat {seat} ({_name(record, seat)}) was asked of a bot: "
                + next((s.not_asked for s in every if s.seat == seat), "the record has none")
            )
    _run_ask(record, bot_spec, step_number, seat, db, startup_timeout)


def _name(record: MatchRecord, seat: int) -> str:
    return inert(record.seats[seat].bot, NAME_LIMIT)


def _seat_of(record: MatchRecord, spec: str) -> int:
    """--seat as a seat number: a number from 0, or the name of the one seat's bot."""
    n = len(record.seats)
    text = spec.strip()
    if text.isdigit():
        if int(text) < n:
            return int(text)
        raise click.BadParameter(f"seat {text}: match {record.match_id} has seats 0 to {n - 1}", param_hint="--seat")
    found = [s.seat for s in record.seats if s.bot == text]
    if len(found) == 1:
        return found[0]
    seated = ", ".join(f"{s.seat} {inert(s.bot, NAME_LIMIT)}" for s in record.seats)
    if found:
        raise click.BadParameter(
            f"{inert(text, NAME_LIMIT)} sits in seats {', '.join(map(str, found))}: give the seat's number",
            param_hint="--seat",
        )
    raise click.BadParameter(
        f"no seat of match {record.match_id} is {inert(text, NAME_LIMIT)!r}: give a seat number or a bot's name "
        f"({seated})",
        param_hint="--seat",
    )


def _replayed(record: MatchRecord, db: str) -> list[Step]:
    """Every step of the record, for the list and the checks: their engine is the replay's, at its end
    (the asking re-plays the record again, and asks each step as it comes)."""
    from ladder.ask import RecordError, steps
    from referee.rules import IllegalPlayError

    try:
        return list(steps(record))
    except (RecordError, IllegalPlayError, ValueError) as e:
        raise click.ClickException(
            f"match {record.match_id} in {db} does not replay through the engine: {inert(e, 300)}"
        ) from None


def _latency(ms: float | None) -> str:
    return "-" if ms is None else f"{ms:.2f}"


def _where(step: Step) -> str:
    trick = f", trick {step.trick}" if step.trick is not None else ""
    return f"hand {step.hand}{trick}, seat {step.seat} {inert(step.name, NAME_LIMIT)}"


def _list(record: MatchRecord, every: list[Step], seat: int | None, db: str) -> None:
    from ladder.ask import recorded_text

    shown = [s for s in every if seat is None or s.seat == seat]
    whose = f", {len(shown)} of seat {seat} ({_name(record, seat)})" if seat is not None else ""
    console.print(
        Text(
            f"Match {record.match_id}: {_count(len(every), 'decision')} (steps 0 to {len(every) - 1}){whose}",
            style="bold",
        ),
        soft_wrap=True,
    )
    table = Table(box=None, padding=(0, 1))
    for col, right in (("step", True), ("hand", True), ("trick", True), ("seat", False), ("decision", False)):
        table.add_column(col, justify="right" if right else "left")
    table.add_column("recorded")
    table.add_column("latency ms", justify="right")
    for s in shown:
        note = s.not_asked.split(":")[0] if not s.asked else ""
        table.add_row(
            str(s.number),
            str(s.hand),
            "" if s.trick is None else str(s.trick),
            Text(f"{s.seat} {inert(s.name, NAME_LIMIT)}"),
            s.what,
            Text(recorded_text(s) + (f"  [{note}]" if note else "")),
            _latency(s.latency_ms),
        )
    _wide_console().print(table)
    console.print(
        f"ask one with: hearts ask {record.match_id} --step N --bot BOT --db {db} "
        f"(or every decision of a seat: --seat SEAT --all --bot BOT)",
        soft_wrap=True,
    )


def _run_ask(
    record: MatchRecord, bot_spec: str, step_number: int | None, seat: int | None, db: str, startup_timeout: float
) -> None:
    import asyncio

    from ladder.bots.inprocess import BotModuleError
    from ladder.bots.launcher import BotStartError
    from ladder.bots.registry import RegistryError
    from ladder.cli.common import _seat_entries

    try:
        entries = _seat_entries([f"{_BOT}={bot_spec}"], None, db)
    except (ValueError, RegistryError) as e:
        raise click.BadParameter(
            str(e).replace(f"seat '{_BOT}={bot_spec}'", repr(bot_spec)), param_hint="--bot"
        ) from None
    log_dir = Path(db).resolve().parent / "logs"
    try:
        asyncio.run(_asking(record, entries[0], bot_spec, step_number, seat, log_dir, startup_timeout))
    except (BotStartError, BotModuleError) as e:
        said = str(e).replace(f"bot {_BOT!r}: ", "--bot: ", 1).replace(f"bot {_BOT!r} ", "--bot ", 1)
        raise click.ClickException(
            f"{said}\n  Check that --bot {bot_spec!r} starts a bot: run it yourself, or try hearts validate with it"
        ) from None


async def _asking(
    record: MatchRecord,
    entry: Any,
    bot_spec: str,
    step_number: int | None,
    seat: int | None,
    log_dir: Path,
    startup_timeout: float,
) -> None:
    from hearts.v1 import codec
    from ladder.ask import greet, steps
    from ladder.venues.here import started_bots

    async with started_bots([entry], log_dir=log_dir, startup_timeout=startup_timeout) as chairs:
        chair = chairs[entry.name]
        try:
            hello = await greet(chair)
        except Exception as e:
            detail = getattr(e, "detail", None) or repr(e)
            raise click.ClickException(
                f"the bot ({inert(bot_spec, 200)}) did not answer the handshake: {inert(detail, 300)}; "
                "check it with hearts validate"
            ) from None
        told = inert(hello.name, NAME_LIMIT) or "(no name)"
        console.print(
            Text(f"bot: {inert(bot_spec, 200)}, its handshake: name {told}, protocol {hello.protocol_version or 1}"),
            soft_wrap=True,
        )
        if hello.protocol_version > codec.PROTOCOL_VERSION:
            console.print(
                f"note: it speaks protocol {hello.protocol_version}; the referee speaks 1 to {codec.PROTOCOL_VERSION}"
            )
        if step_number is not None:
            for step in steps(record):
                if step.number == step_number:
                    await _ask_one(record, chair, step)
                    return
        else:
            assert seat is not None
            await _ask_every(record, chair, seat)


def _request_line(step: Step) -> str:
    """What the request says of the clock, and whether the record kept it."""
    budget = int(step.settings.budget_ms)
    line = f"the request as recorded: its view only, budget {budget} ms, time bank {step.bank_ms} ms"
    if not step.clock_known:
        line += " (the record keeps no clock for the seat: the defaults stand in, and the bytes may differ)"
    return line


def _view_lines(step: Step) -> list[tuple[str, str]]:
    """The seat's view, as a person reads it: its hand and what the decision depends on."""
    from referee.rules import Phase

    o = step.observation
    rows = [("hand", " ".join(c.symbol for c in o.hand) or "(none yet: the dealer calls before the deal)")]
    if step.phase is Phase.PASS:
        rows.append(("pass", f"{o.rules.pass_count} cards {o.pass_direction}"))
    if step.phase is Phase.PLAY:
        t = o.current_trick
        leader = f"seat {t.leader} {inert(step.names[t.leader], NAME_LIMIT)}"
        led = f"led by {leader}: " + " ".join(c.symbol for c in t.cards) if t.cards else "its lead"
        rows.append(("trick", led))
        rows.append(("legal", " ".join(c.symbol for c in o.legal)))
    if step.phase is Phase.DISCARD:
        rows.append(("kitty", " ".join(c.symbol for c in o.kitty)))
    if step.phase is Phase.MOON:
        rows.append(("moon points", str(o.moon_points)))
    return rows


async def _ask_one(record: MatchRecord, chair: Seat, step: Step) -> None:
    from ladder.ask import answer_text, ask, decision_text, differs, recorded_text, verdict_text

    asked = await ask(chair, step)
    console.print(
        Text(f"Match {record.match_id}  step {step.number}: {_where(step)}: {step.what} ({step.decision.rpc})"),
        soft_wrap=True,
    )
    console.print(f"  {_request_line(step)}", soft_wrap=True)
    rows: list[tuple[str, str]] = [*_view_lines(step)]
    rows.append(("recorded", f"{recorded_text(step)} in {_latency(step.latency_ms)} ms"))
    rows.append(("answer", f"{answer_text(step, asked)} in {_latency(asked.latency_ms)} ms"))
    rows.append(("judged", verdict_text(step, asked)))
    if differs(step, asked):
        said = decision_text(step, asked.value) if asked.stands or asked.defaulted else answer_text(step, asked)
        rows.append(("differs", f"yes: recorded {decision_text(step, step.recorded)}, the bot {said}"))
    else:
        rows.append(("differs", f"no: the same {step.what} as recorded"))
    width = max(len(label) for label, _ in rows)
    for label, value in rows:
        console.print(Text(f"  {label:<{width}}  {value}"), soft_wrap=True)


def _fault_kind(asked: Asked) -> str:
    return f"refused: {asked.fault.kind.value}" if asked.fault is not None else "refused"


async def _ask_every(record: MatchRecord, chair: Seat, seat: int) -> None:
    from ladder.ask import answer_text, ask, recorded_text, same_decision, steps

    table = Table(title_justify="left")
    for col, right in (("step", True), ("hand", True), ("trick", True), ("decision", False)):
        table.add_column(col, justify="right" if right else "left")
    table.add_column("recorded")
    table.add_column("answer")
    table.add_column("judged")
    table.add_column("latency ms", justify="right")
    asked_n = differ = refused = not_asked = 0
    latencies: list[float] = []
    for step in steps(record):
        if step.seat != seat:
            continue
        if not step.asked:
            not_asked += 1
            continue
        asked = await ask(chair, step)
        asked_n += 1
        latencies.append(asked.latency_ms)
        if asked.stands and same_decision(step, asked.value):
            continue
        differ += 1
        refused += not asked.stands and not asked.defaulted
        judged = "legal" if asked.stands else "not implemented" if asked.defaulted else _fault_kind(asked)
        table.add_row(
            str(step.number),
            str(step.hand),
            "" if step.trick is None else str(step.trick),
            step.what,
            Text(recorded_text(step)),
            Text(answer_text(step, asked)),
            judged,
            _latency(asked.latency_ms),
        )
    console.print(
        Text(
            f"Match {record.match_id}: every decision of seat {seat} ({_name(record, seat)}) asked again",
            style="bold",
        ),
        soft_wrap=True,
    )
    if differ:
        table.title = f"The {_count(differ, 'step')} where the answer differs from the recorded one"
        _wide_console().print(table)
    skipped = f"; {not_asked} not asked (the seat had forfeited, or a person sat there)" if not_asked else ""
    illegal = f" ({refused} refused by the referee)" if refused else ""
    median = sorted(latencies)[len(latencies) // 2] if latencies else 0.0
    console.print(
        f"{differ} of {_count(asked_n, 'decision')} differ{illegal}{skipped}; "
        f"latency median {median:.2f} ms, max {max(latencies, default=0.0):.2f} ms",
        soft_wrap=True,
    )
