"""``hearts tournament``: run, resume and list tournaments, and print each one's ladder."""

from __future__ import annotations

import signal
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.text import Text

from ladder.cli.common import (
    _AT_LEAST_1,
    _DB_OPTION,
    _SANDBOX_OPTION,
    _SEED,
    _STARTUP_TIMEOUT_OPTION,
    _WORKERS_OPTION,
    _check_tournament,
    _clock_options,
    _cluster_options,
    _count,
    _db_error,
    _open,
    _parse_rules,
    _table,
    _venue,
    _wide_console,
    console,
    engine_note,
)
from referee.untrusted import inert, inert_text

if TYPE_CHECKING:
    from ladder.bots.registry import BotEntry
    from ladder.compare import CompareResult, CompareSpec
    from ladder.ratings.sprt import SPRTSpec
    from ladder.store import Store
    from ladder.tournament.run import RunSummary
    from ladder.tournament.schedule import ScheduledMatch
    from ladder.venues.venue import Venue


class _SPRTType(click.ParamType):
    """``--sprt``'s text as an ``SPRTSpec``: a usage error that says what is wrong with it."""

    name = "TEST"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> SPRTSpec:
        from ladder.ratings.sprt import SPRTError, SPRTSpec

        if isinstance(value, SPRTSpec):
            return value
        try:
            return SPRTSpec.parse(str(value))
        except SPRTError as e:
            self.fail(str(e), param, ctx)


_HOUSE_BOT = "clients.bots.heuristic:HeuristicBot"  # the field of a --sprt run given two bots


@click.group()
def tournament() -> None:
    """Run, resume and list tournaments (schedules of matches among registered bots)."""


@tournament.command("run")
@click.option(
    "--bots",
    "bots_file",
    type=click.Path(dir_okay=False, exists=True),
    help="A bots TOML file; its bots are registered and play. Default: every registered bot.",
)
@click.option("--bot", "only", multiple=True, metavar="NAME", help="Play only these registered bots (repeatable).")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["round-robin", "gauntlet", "swiss", "knockout"]),
    default="round-robin",
    show_default=True,
    help="Every group of bots at a table; one bot against the pool; rounds paired by the standings (swiss); "
    "or tables whose top places go on to one final table (knockout). See docs/tournaments.md.",
)
@click.option("--gauntlet", metavar="BOT", help="The bot that plays every table (implies --format gauntlet).")
@click.option(
    "--advance",
    type=_AT_LEAST_1,
    default=None,
    help="A knockout: the places of each table that go on to the next round. Default: half the table.",
)
@click.option(
    "--rules", "ruleset", default="standard", show_default=True, help="PRESET[,option=value...]; see hearts rules."
)
@click.option(
    "--seed",
    type=_SEED,
    default=None,
    help="Tournament seed (all deals follow from it), 64 bits signed. Default: random.",
)
@click.option(
    "--rounds",
    type=_AT_LEAST_1,
    default=1,
    show_default=True,
    help="Times the table design is played; a Swiss: its rounds (a knockout's follow from its bracket).",
)
@click.option(
    "--deals",
    type=_AT_LEAST_1,
    default=None,
    help="Deals per table per round (at least 1; default 1); each is played in every seat rotation "
    "(duplicate). With --sprt: the most deals before the test stops, inconclusive (default 1000).",
)
@click.option("--no-duplicate", is_flag=True, help="Play each deal once (seats still rotate across deals).")
@click.option(
    "--sprt",
    type=_SPRTType(),
    default=None,
    help="Stop as soon as a sequential test decides whether the second --bot (B) is better than the "
    "first (A), as fastchess's -sprt: both play the same duplicate deals in the same seats against the "
    "same field (the other --bot, or copies of the heuristic house bot). E.g. --sprt elo0=0,elo1=5: "
    "elo0 and elo1 are normalised Elo (B's mean lead in points per hand over its standard deviation, "
    "times 800/ln 10), or h0=0,h1=0.5 in points per hand; alpha and beta (default 0.05) the chances "
    "of accepting H1 when H0 holds and H0 when H1 holds. See docs/tournaments.md.",
)
@click.option(
    "--concurrency", type=_AT_LEAST_1, default=4, show_default=True, help="Matches played at once (at least 1)."
)
@_WORKERS_OPTION
@_cluster_options
@_clock_options
@_STARTUP_TIMEOUT_OPTION
@_SANDBOX_OPTION
@_DB_OPTION
def tournament_run(
    bots_file: str | None,
    only: tuple[str, ...],
    fmt: str,
    gauntlet: str | None,
    advance: int | None,
    ruleset: str,
    seed: int | None,
    rounds: int,
    deals: int | None,
    no_duplicate: bool,
    sprt: SPRTSpec | None,
    concurrency: int,
    workers: int | None,
    cluster_address: str | None,
    cluster_workers: int | None,
    budget_ms: float,
    bank_ms: float,
    grace_ms: float,
    max_faults: int,
    startup_timeout: float,
    sandbox: str,
    db: str,
) -> None:
    """Create a tournament, play it, and print its ladder.

    \b
    Examples:
      hearts tournament run --bots bots.toml --format round-robin --concurrency 8 --db arena.db
      hearts tournament run --bots class.toml --format swiss --rounds 5 --deals 2 --db final.db
      hearts tournament run --bots class.toml --format knockout --advance 2 --db final.db
      hearts tournament run --bots bots.toml --bot old --bot new --sprt elo0=0,elo1=5 --db ab.db
    """
    engine_note()
    import secrets

    from ladder.bots.registry import RegistryError, list_bots, load_bots_file
    from ladder.tournament.run import TournamentSpec, create_tournament
    from referee.match import MatchSettings

    rules = _parse_rules(ruleset, "--rules")
    if sprt is not None:
        _check_sprt_options(fmt, gauntlet, no_duplicate, advance)
    if gauntlet:
        fmt = "gauntlet"
    elif fmt == "gauntlet":
        raise click.UsageError("--format gauntlet needs --gauntlet BOT, the bot that plays every table")
    if no_duplicate and fmt in ("swiss", "knockout"):
        raise click.UsageError(f"a {fmt} plays every deal in every rotation of its tables: leave --no-duplicate out")
    if advance is not None and fmt != "knockout":
        raise click.UsageError("--advance is a knockout's: give --format knockout, or leave --advance out")
    seed = seed if seed is not None else secrets.randbelow(2**31)
    venue = _venue(cluster_address, cluster_workers, concurrency)  # before anything is written
    try:  # the file before the database: a broken bots file leaves no database behind
        from_file = load_bots_file(bots_file) if bots_file else None
    except RegistryError as e:
        raise click.ClickException(str(e)) from None
    with _open(db) as store:
        entries = from_file if from_file is not None else list_bots(store)
        if only:
            unknown = sorted(set(only) - {e.name for e in entries})
            if unknown:
                raise click.BadParameter(f"not registered: {', '.join(unknown)}", param_hint="--bot")
            entries = [e for e in entries if e.name in only]
        if not entries:
            raise click.ClickException(f"no bots: give --bots FILE or register some (hearts bot add) in {db}")
        settings = MatchSettings(budget_ms=budget_ms, bank_ms=bank_ms, grace_ms=grace_ms, max_faults=max_faults)
        if sprt is not None:
            tid = _create_comparison(
                store, entries, list(only), sprt, rules.players, ruleset, deals or 1000, seed, settings
            )
        else:
            spec = TournamentSpec(
                format=fmt,
                rules=ruleset,
                rounds=rounds,
                deals=deals or 1,
                seed=seed,
                gauntlet=gauntlet,
                duplicate=not no_duplicate,
                advance=advance,
                settings=settings,
            )
            try:
                tid = create_tournament(store, entries, spec)
            except ValueError as e:
                raise click.ClickException(str(e)) from None
        _play_tournament(
            store,
            db,
            tid,
            concurrency,
            startup_timeout,
            created=True,
            bots_file=bots_file,
            workers=workers,
            sandbox=sandbox,
            venue=venue,
        )


def _check_sprt_options(fmt: str, gauntlet: str | None, no_duplicate: bool, advance: int | None) -> None:
    """Refuse what a --sprt run cannot take: it draws its own schedule (A's and B's seatings of each
    deal in every rotation), played until the test decides."""
    from click.core import ParameterSource

    ctx = click.get_current_context()
    given = (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT)
    refused = [
        ("--format", fmt != "round-robin"),
        ("--gauntlet", gauntlet is not None),
        ("--rounds", ctx.get_parameter_source("rounds") in given),
        ("--no-duplicate", no_duplicate),
        ("--advance", advance is not None),
    ]
    for option, bad in refused:
        if bad:
            raise click.UsageError(
                f"--sprt plays its own schedule (B and A on the same duplicate deals, every rotation, until the "
                f"test decides, at most --deals deals): leave {option} out, or run the tournament without --sprt"
            )


def _create_comparison(
    store: Store,
    entries: list[BotEntry],
    order: list[str],
    sprt: SPRTSpec,
    players: int,
    ruleset: str,
    deals: int,
    seed: int,
    settings: Any,
) -> int:
    """A --sprt run's comparison, stored: the first --bot is A (the baseline), the second B (the
    candidate), the rest the field (copies of the heuristic house bot when there is none)."""
    from ladder.bots.registry import BotEntry as Entry
    from ladder.bots.registry import list_bots
    from ladder.compare import CompareSpec, create_comparison

    if len(order) < 2:
        raise click.UsageError(
            "--sprt compares two bots: give --bot A --bot B (A the baseline, B the candidate), then the field's "
            "bots, if not copies of the heuristic house bot"
        )
    if len(set(order)) != len(order):
        raise click.UsageError(f"--bot {', '.join(order)}: a bot is given twice; A, B and the field are distinct bots")
    by_name = {e.name: e for e in entries}
    a, b, field = order[0], order[1], order[2:]
    need = players - 1
    chosen = [by_name[n] for n in order]
    if not field:
        known = {e.name: e for e in [*list_bots(store), *entries]}
        names = (n for i in range(1, 1000) for n in [f"heuristic-{i}" if i > 1 else "heuristic"])
        free = (n for n in names if n not in (a, b) and (n not in known or known[n].module == _HOUSE_BOT))
        chosen += [Entry(next(free), module=_HOUSE_BOT, description="the heuristic house bot") for _ in range(need)]
    elif len(field) != need:
        raise click.UsageError(
            f"--sprt: the rules seat {players}, so B and A need a field of {need} (one bot in each other seat), "
            f"not {len(field)}: give {need} more --bot after the two compared, or none (copies of the heuristic "
            "house bot)"
        )
    spec = CompareSpec(
        a=a,
        b=b,
        field=tuple(e.name for e in chosen[2:]),
        rules=ruleset,
        h0=sprt.h0,
        h1=sprt.h1,
        alpha=sprt.alpha,
        beta=sprt.beta,
        max_deals=deals,
        seed=seed,
        settings=settings,
        scale=sprt.scale,
    )
    try:
        return create_comparison(store, chosen, spec)
    except ValueError as e:
        raise click.ClickException(str(e)) from None


@tournament.command("resume")
@click.argument("tournament_id", type=int)
@click.option(
    "--concurrency", type=_AT_LEAST_1, default=4, show_default=True, help="Matches played at once (at least 1)."
)
@click.option(
    "--force",
    is_flag=True,
    help="Take the tournament over from a runner this machine cannot check (another host, or a "
    "claim without its start); never from one known to be alive.",
)
@_WORKERS_OPTION
@_cluster_options
@_STARTUP_TIMEOUT_OPTION
@_SANDBOX_OPTION
@_DB_OPTION
def tournament_resume(
    tournament_id: int,
    concurrency: int,
    force: bool,
    workers: int | None,
    cluster_address: str | None,
    cluster_workers: int | None,
    startup_timeout: float,
    sandbox: str,
    db: str,
) -> None:
    """Play what is missing of tournament TOURNAMENT_ID (after a crash, a kill, Ctrl-C or a bot that
    would not start).

    A bot that is registered is started (or reached) by its current registration, so a command or
    address fixed with hearts bot add is used; a bot no longer registered by the entry stored with
    the tournament. The rules, seeds and time limits are the stored ones.
    """
    engine_note()
    from ladder.tournament.run import get_tournament, registry_changes

    venue = _venue(cluster_address, cluster_workers, concurrency)
    with _open(db) as store:
        _check_tournament(store, tournament_id, db)
        info = get_tournament(store, tournament_id)
        _check_clock(info)
        changes = registry_changes(store, tournament_id)
        for name, e in sorted(changes.items()):
            how = f"{e.kind} {e.target}"
            how += f", max_concurrency {e.max_concurrency}" if e.max_concurrency else ", no max_concurrency"
            console.print(
                f"bot {name!r}: started by its current registration ({how}), not the entry stored "
                f"with tournament {tournament_id}",
                soft_wrap=True,
            )
        _play_tournament(
            store,
            db,
            tournament_id,
            concurrency,
            startup_timeout,
            bots=changes,
            force=force,
            workers=workers,
            sandbox=sandbox,
            venue=venue,
        )


def _check_clock(info: Any) -> None:
    """Refuse a tournament stored with a time control that cannot be played (a NaN a script wrote,
    say): every resume of it would fail the same way."""
    if info.unplayable is not None:
        raise click.ClickException(
            f"{info.unplayable}; it cannot be resumed: run a new tournament with --budget-ms and --bank-ms "
            "(and each bots-file entry's budget_ms, bank_ms and grace_ms) in range (its recorded matches stay)"
        )


@tournament.command("list")
@_DB_OPTION
def tournament_list(db: str) -> None:
    """List the tournaments with how much of each has been played."""
    from ladder.tournament.run import list_tournaments

    infos = []
    if Path(db).exists():  # nothing to list, and a reading command creates nothing
        with _open(db, readonly=True) as store:
            infos = list_tournaments(store)
    if not infos:
        console.print(f"no tournaments in {db}")
        return
    table = _table(f"Tournaments in {db}", "id", "format", "rules", "bots", "matches", "status", "seed", "created")
    for t in infos:
        fmt = t.format + (f" ({t.gauntlet})" if t.gauntlet else "")
        table.add_row(
            str(t.id),
            fmt,
            t.rules,
            str(len(t.bots)),
            f"{t.done}/{t.total}",
            t.status,
            str(t.seed),
            t.created_at[:19].replace("T", " "),
        )
    console.print(table)


def _play_tournament(
    store: Store,
    db: str,
    tid: int,
    concurrency: int,
    startup_timeout: float,
    *,
    created: bool = False,
    bots_file: str | None = None,
    bots: dict[str, BotEntry] | None = None,
    force: bool = False,
    workers: int | None = None,
    sandbox: str = "off",
    venue: Venue | None = None,
) -> None:
    """Play tournament ``tid`` and print its ladder. ``created``: this command created it (from
    ``bots_file``, or the registry), so if a bot fails to start before any match, it is removed.
    ``force``: take it over from a runner that cannot be checked. ``workers``: processes for the
    matches of in-process bots (None: one per core)."""
    from ladder.bots.inprocess import BotModuleError
    from ladder.bots.launcher import BotStartError
    from ladder.ratings.leaderboard import load_leaderboard, render_table
    from ladder.sandbox import SandboxMode, SandboxUnavailable
    from ladder.store import store_error
    from ladder.tournament.progress import Progress
    from ladder.tournament.report import final_lines, round_lines
    from ladder.tournament.run import TournamentBusy, delete_tournament, get_tournament, run_tournament
    from ladder.venues.venue import VenueError
    from ladder.venues.workers import WorkerDied

    _check_tournament(store, tid, db)
    info = get_tournament(store, tid)
    on = _venue_option(venue)  # a resume's hint plays the rest where this run played
    console.print(
        f"tournament {tid}: {info.format}, rules {info.rules}, seed {info.seed}, {len(info.bots)} bots, "
        + (
            f"{info.done} matches recorded (at most {info.total}, if the test decides nothing sooner); "
            if info.format == "compare"
            else f"{info.done}/{info.total} matches recorded; "
        )
        + f"concurrency {concurrency}"
        + (
            f"; on the Dask cluster {_venue_name(venue)} (or as many at once as its workers have threads, if more)"
            if venue is not None
            else ""
        )
        + (f"; bots: {SandboxMode(sandbox).label}" if sandbox != "off" else ""),
        soft_wrap=True,
    )
    for b in info.bots:
        if b.time_control is not None:
            console.print(
                Text(f"{inert(b.name)} plays under its own clock: {b.time_control} (the rest as the tournament's)"),
                soft_wrap=True,
            )
    told: set[str] = set()  # the venue's events said as they happened: not again in the report
    if venue is not None:

        def tell(event: str) -> None:
            told.add(event)
            console.print(inert_text(event, style="yellow"))

        venue.on_event = tell
    compared: CompareResult | None = None
    try:
        if info.format == "compare":
            compared = _play_comparison(
                store,
                tid,
                concurrency=concurrency,
                startup_timeout=startup_timeout,
                bots=bots,
                force=force,
                workers=workers,
                sandbox=sandbox,
                venue=venue,
            )
            assert compared.summary is not None
            summary = compared.summary
        else:
            with Progress(info.total, info.done, title=f"tournament {tid}") as progress:

                def on_round(matches: list[ScheduledMatch]) -> None:
                    progress.grow(len(matches))
                    for line in round_lines(store, tid, matches):
                        progress.say(line)

                summary = run_tournament(
                    store,
                    tid,
                    concurrency=concurrency,
                    on_record=progress.on_record,
                    on_round=on_round,
                    startup_timeout=startup_timeout,
                    bots=bots,
                    force=force,
                    workers=workers,
                    sandbox=sandbox,
                    venue=venue,
                )
    except (BotModuleError, WorkerDied, SandboxUnavailable, VenueError) as e:
        if created and get_tournament(store, tid).done == 0:
            delete_tournament(store, tid)
            raise click.ClickException(f"{e}\nnothing was played, so tournament {tid} was not kept") from None
        raise click.ClickException(f"{e}\nresume with: hearts tournament resume {tid}{on} --db {db}") from None
    except BotStartError as e:
        if e.command is not None:
            register = f'hearts bot add {e.name} --command "..." --db {db}'
        else:
            register = f"hearts bot add {e.name} --address HOST:PORT --db {db}"
        if created and get_tournament(store, tid).done == 0:
            delete_tournament(store, tid)
            where = f"its registration ({register})" if bots_file is None else f"its entry in {bots_file}"
            raise click.ClickException(
                f"{e}\nnothing was played, so tournament {tid} was not kept. Fix the bot's "
                f"program, or {where}, then run the same command again (with --seed "
                f"{info.seed} for the same deals)."
            ) from None
        raise click.ClickException(
            f"{e}\nnothing more was played. Fix the bot's program, or its registration ({register}; a resume "
            f"starts a registered bot by its current registration), then: hearts tournament resume {tid}{on} --db {db}"
        ) from None
    except TournamentBusy as e:
        force_it = (
            ""
            if e.verified
            else (
                f"; if that process is gone, take the tournament over with: "
                f"hearts tournament resume {tid} --force{on} --db {db}"
            )
        )
        raise click.ClickException(f"{e}{force_it}") from None
    except sqlite3.Error as e:  # a full disk at a commit, say: what was saved stays, the rest is pending
        problem = store_error(e, db)
        then = (
            f"the matches in progress were not saved: {problem.hint or 'fix that'}, then: "
            f"hearts tournament resume {tid}{on} --db {db}"
        )
        raise click.ClickException(_db_error(db, problem, then)) from None
    except KeyboardInterrupt as e:  # Ctrl-C, or SIGTERM (TournamentInterrupted): stopped cleanly
        signum = getattr(e, "signum", signal.SIGINT)
        how = "interrupted" if signum == signal.SIGINT else f"stopped by {signal.Signals(signum).name}"
        left = get_tournament(store, tid).pending
        console.print(
            f"{how}: {left} matches pending; resume with: hearts tournament resume {tid}{on} --db {db}", soft_wrap=True
        )
        raise SystemExit(128 + signum) from None
    for event in summary.events:
        if event not in told:
            console.print(inert_text(event, style="yellow"))
    console.print(
        Text(
            f"played {summary.played} matches in {summary.seconds:.1f} s "
            f"({_count(summary.faults, 'fault')}, {_count(summary.forfeits, 'forfeit')}); logs in "
            f"{(Path(db).resolve().parent / 'logs')}"
            + (f"; bots: {summary.sandbox}" if summary.sandbox != SandboxMode.OFF.label else "")
        ),
        soft_wrap=True,
    )
    for line in _faults_by_bot(summary):
        console.print(line, soft_wrap=True)
    if compared is not None:
        from ladder.cli.compare import verdict_line
        from ladder.compare import compare_spec_of
        from referee.rules import Rules

        players = Rules.parse(info.rules).players
        console.print(
            Text(verdict_line(compare_spec_of(store, tid), compared, players, "--deals"), style="bold"), soft_wrap=True
        )
        console.print(f"its matches: hearts ladder --db {db} --tournament {tid}", soft_wrap=True)
        return
    if info.format in ("swiss", "knockout"):
        for said in final_lines(store, tid):
            console.print(inert_text(said), soft_wrap=True)
    _wide_console().print(render_table(load_leaderboard(store, tournament_id=tid), title=f"Tournament {tid}"))


def _play_comparison(store: Store, tid: int, **options: Any) -> CompareResult:
    """Play comparison ``tid`` (a --sprt run, or a resumed one) until its test decides, a line per
    deal; ``TournamentInterrupted`` on SIGINT or SIGTERM, as ``run_tournament``."""
    import asyncio

    from ladder.cli.compare import test_line
    from ladder.compare import compare_spec_of, play_comparison
    from ladder.tournament.run import TournamentInterrupted, until_signalled

    try:
        spec = compare_spec_of(store, tid)
    except ValueError as e:
        raise click.ClickException(str(e)) from None
    console.print(Text(_sprt_header(spec)), soft_wrap=True)
    steps = store.tournaments.sprt_steps(tid)
    if steps:
        last = steps[-1]
        console.print(
            f"  recorded so far: {_count(last.deals, 'deal')}; LLR {last.llr:+.2f} in [{last.lower:.2f}, "
            f"{last.upper:.2f}]",
            soft_wrap=True,
        )

    def on_deal(test: Any) -> None:
        console.print(Text(f"  {test_line(test)}"), soft_wrap=True)

    outcome = asyncio.run(until_signalled(play_comparison(store, tid, spec, on_deal=on_deal, **options)))
    if isinstance(outcome, int):
        raise TournamentInterrupted(outcome)
    return outcome


def _sprt_header(spec: CompareSpec) -> str:
    """What a --sprt run tests, in one line (made inert)."""
    return inert(
        f"a sequential test: is {spec.b} better than {spec.a}? field {', '.join(spec.field)}; "
        f"{spec.sprt} ({spec.sprt.unit}), at most {spec.max_deals} deals",
        limit=2000,
    )


def _venue_option(venue: Any) -> str:
    """The option that plays on ``venue`` again (`` --cluster ADDRESS``), for a resume's hint."""
    if venue is None:
        return ""
    local = getattr(venue, "local_workers", None)
    return f" --cluster-workers {local}" if local is not None else f" --cluster {getattr(venue, 'address', '?')}"


def _venue_name(venue: Any) -> str:
    local = getattr(venue, "local_workers", None)
    return f"of {local} local workers" if local is not None else f"at {getattr(venue, 'address', '?')}"


def _faults_by_bot(summary: RunSummary) -> list[Text]:
    """One line per bot that faulted or forfeited, most faults first: how often, of which kinds,
    and where its log is (what a closing "12 faults, 4 forfeits" alone cannot say)."""
    names = set(summary.bot_faults) | set(summary.bot_forfeits)
    if not names:
        return []
    lines = [Text("faults by bot:")]
    for name in sorted(names, key=lambda n: (-sum(summary.bot_faults.get(n, {}).values()), n)):
        kinds = summary.bot_faults.get(name, {})
        what = _count(sum(kinds.values()), "fault")
        if kinds:
            what += " (" + ", ".join(f"{n} {k}" for k, n in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0]))) + ")"
        if summary.bot_forfeits.get(name):
            what += ", " + _count(summary.bot_forfeits[name], "forfeit")
        log = summary.logs.get(name)
        where = f"log {log}" if log is not None else "a remote bot: its log is wherever it runs"
        lines.append(Text(f"  {inert(name)}: {what}; {where}"))
    return lines
