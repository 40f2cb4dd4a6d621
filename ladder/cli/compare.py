"""``hearts compare``: is B better than A? A sequential test on duplicate deals."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click
from rich.text import Text

from ladder.cli.common import (
    _DB_OPTION,
    _SEED,
    _STARTUP_TIMEOUT_OPTION,
    _WORKERS_OPTION,
    _check_writable,
    _clock_options,
    _cluster_options,
    _open,
    _parse_rules,
    _seat_entries,
    _venue,
    console,
    engine_note,
)
from referee.untrusted import inert

if TYPE_CHECKING:
    from ladder.compare import CompareResult, CompareSpec
    from ladder.ratings.sprt import SPRT


@click.command("compare")
@click.argument("a")
@click.argument("b")
@click.option(
    "--bots",
    "bots_file",
    type=click.Path(exists=True, dir_okay=False),
    help="A bots file whose entries A, B and --field name.",
)
@click.option(
    "--field",
    "field_specs",
    multiple=True,
    metavar="SEAT",
    help="An opponent in the other seats, as --seat of hearts match (NAME, NAME=PKG.MOD:CLASS, NAME=COMMAND, "
    "NAME=HOST:PORT); one per other seat. Default: copies of the heuristic sample bot, in-process.",
)
@click.option("--rules", "ruleset", default="standard", show_default=True, help="PRESET[,option=value...].")
@click.option(
    "--h0", type=float, default=0.0, show_default=True, help="H0: B better than A by this many points per hand."
)
@click.option(
    "--h1", type=float, default=0.5, show_default=True, help="H1: B better than A by this many points per hand."
)
@click.option(
    "--alpha",
    type=click.FloatRange(0, 1, min_open=True, max_open=True),
    default=0.05,
    show_default=True,
    help="The chance of accepting H1 when H0 holds.",
)
@click.option(
    "--beta",
    type=click.FloatRange(0, 1, min_open=True, max_open=True),
    default=0.05,
    show_default=True,
    help="The chance of accepting H0 when H1 holds.",
)
@click.option(
    "--max-deals",
    type=click.IntRange(min=1),
    default=1000,
    show_default=True,
    help="Deals after which the test stops, inconclusive.",
)
@click.option("--seed", type=_SEED, default=0, show_default=True, help="The comparison's seed (its deals).")
@click.option("--concurrency", type=click.IntRange(min=1), default=4, show_default=True, help="Matches at once.")
@_WORKERS_OPTION
@_cluster_options
@_STARTUP_TIMEOUT_OPTION
@_DB_OPTION
@_clock_options
@click.pass_context
def compare_command(
    ctx: click.Context,
    a: str,
    b: str,
    bots_file: str | None,
    field_specs: tuple[str, ...],
    ruleset: str,
    h0: float,
    h1: float,
    alpha: float,
    beta: float,
    max_deals: int,
    seed: int,
    concurrency: int,
    workers: int | None,
    cluster_address: str | None,
    cluster_workers: int | None,
    startup_timeout: float,
    db: str,
    budget_ms: float,
    bank_ms: float,
    grace_ms: float,
    max_faults: int,
) -> None:
    """Is B better than A? Plays both in the same seats of the same duplicate deals against the same
    field, and stops as soon as a sequential test (SPRT) decides: H1 (B better by at least --h1 points
    per hand), H0 (not by more than --h0), or inconclusive at --max-deals. Stored as a tournament.

    At least 8 deals are played before the test may stop (a variance from fewer is too rough).

    \b
    Examples:
      hearts compare old=my_bot_v1:MyBot new=my_bot:MyBot --h1 0.5
      hearts compare "old=python old_bot.py --port {port}" "new=python new_bot.py --port {port}" --h1 0.5
    """
    engine_note()
    import asyncio

    from ladder.bots.inprocess import BotModuleError
    from ladder.bots.launcher import BotStartError
    from ladder.bots.registry import BotEntry, RegistryError
    from ladder.compare import CompareSpec, create_comparison, play_comparison
    from ladder.venues.venue import VenueError
    from ladder.venues.workers import WorkerDied
    from referee.match import MatchSettings

    r = _parse_rules(ruleset, "--rules")
    venue = _venue(cluster_address, cluster_workers, concurrency)
    try:
        pair = _seat_entries([a, b], bots_file, db)
        if field_specs:
            field = _seat_entries(field_specs, bots_file, db)
        else:
            names = ["heuristic"] + [f"heuristic-{i}" for i in range(2, r.players)]
            field = [BotEntry(n, module="clients.bots.heuristic:HeuristicBot") for n in names]
    except (ValueError, RegistryError) as e:
        raise click.BadParameter(str(e), param_hint="A, B or --field") from None
    if h1 <= h0:
        raise click.BadParameter(f"--h1 {h1} must be greater than --h0 {h0}", param_hint="--h1")
    spec = CompareSpec(
        a=pair[0].name,
        b=pair[1].name,
        field=tuple(e.name for e in field),
        rules=ruleset,
        h0=h0,
        h1=h1,
        alpha=alpha,
        beta=beta,
        max_deals=max_deals,
        seed=seed,
        settings=MatchSettings(budget_ms=budget_ms, bank_ms=bank_ms, grace_ms=grace_ms, max_faults=max_faults),
    )
    _check_writable(db)
    with _open(db) as store:
        try:
            tid = create_comparison(store, [*pair, *field], spec)
        except ValueError as e:
            raise click.UsageError(str(e)) from None
        console.print(
            Text(
                f"comparison {tid}: {inert(spec.b)} against {inert(spec.a)}, field "
                f"{', '.join(inert(n) for n in spec.field)}; rules {ruleset}; H0 {h0:+g}, H1 {h1:+g} "
                f"points per hand, alpha {alpha:g}, beta {beta:g}, at most {max_deals} deals"
            ),
            soft_wrap=True,
        )

        def on_deal(test: SPRT) -> None:
            if test.n <= 10 or test.n % 10 == 0 or test.verdict != "continue":
                console.print(Text(f"  {test_line(test)}"), soft_wrap=True)

        from ladder.tournament.run import until_signalled

        try:
            result = asyncio.run(
                until_signalled(
                    play_comparison(
                        store,
                        tid,
                        spec,
                        concurrency=concurrency,
                        on_deal=on_deal,
                        startup_timeout=startup_timeout,
                        workers=workers,
                        venue=venue,
                    )
                )
            )
            if isinstance(result, int):  # SIGINT or SIGTERM, through the loop as tournaments are stopped
                raise KeyboardInterrupt
        except (BotStartError, BotModuleError, WorkerDied, VenueError) as e:
            raise click.ClickException(str(e)) from None
        except KeyboardInterrupt:
            # Stopped midway: the matches and the test's steps are kept, the rest is pending, and a
            # resume rebuilds the test from the records and goes on.
            from ladder.tournament.run import get_tournament

            left = get_tournament(store, tid).pending
            console.print(
                f"comparison {tid} stopped before a verdict: {left} matches pending; resume with: "
                f"hearts tournament resume {tid} --db {db}",
                soft_wrap=True,
            )
            ctx.exit(130)
    console.print(Text(verdict_line(spec, result, r.players, "--max-deals"), style="bold"), soft_wrap=True)
    console.print(f"its matches are tournament {tid}: hearts ladder --db {db} --tournament {tid}", soft_wrap=True)


def test_line(test: SPRT) -> str:
    """The running test in one line: the deals, B's lead with its 95% interval, and the LLR in its bounds."""
    lo, hi = test.interval()
    nelo = f", {test.nelo:+.1f} normalised Elo" if test.scale == "nelo" else ""
    return (
        f"deals {test.n}: B better by {test.mean:+.2f} points per hand (95% {lo:+.2f} to {hi:+.2f}){nelo}; "
        f"LLR {test.llr:+.2f} in [{test.lower:.2f}, {test.upper:.2f}]"
    )


def verdict_line(spec: CompareSpec, result: CompareResult, players: int, limit: str) -> str:
    """The verdict in one line (made inert): H1 accepted, H0 accepted, or inconclusive after N deals
    (``limit``: the option that set N), with the deals, the matches, B's lead and the LLR in its bounds."""
    t = result.test
    unit = spec.sprt.unit
    words = {
        "H1": f"H1 accepted: {spec.b} is better than {spec.a} (by {spec.h1:g} or more {unit})",
        "H0": f"H0 accepted: {spec.b} is not better than {spec.a} by more than {spec.h0:g} {unit}",
        "inconclusive": f"inconclusive after {t.n} deals ({limit})",
    }
    lo, hi = t.interval()
    nelo = f", {t.nelo:+.1f} normalised Elo" if t.scale == "nelo" else ""
    return inert(
        f"{words[result.verdict]}; {t.n} deals, {result.matches} matches{_in_flight(result, players)}; "
        f"difference {t.mean:+.2f} (95% {lo:+.2f} to {hi:+.2f}) points per hand{nelo}; "
        f"LLR {t.llr:+.2f} in [{t.lower:.2f}, {t.upper:.2f}]",
        limit=1000,
    )


def _in_flight(result: Any, players: int) -> str:
    """A note on the matches of deals that were under way when the test decided (they are recorded)."""
    extra = result.matches - result.test.n * 2 * players
    if extra <= 0:
        return ""
    return f" ({extra} of deals under way when it decided)" if result.test.verdict != "continue" else ""
