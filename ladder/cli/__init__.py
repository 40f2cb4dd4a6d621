"""The ``hearts`` command line. Each command is a thin call of one library function.

Command groups live in this file; their work lives in the library (rules, referee, ladder).
docs/cli.md documents every command and option (tests/ladder/test_docs.py checks it).
"""

from __future__ import annotations

import math
import signal
import sqlite3
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.console import Console
from rich.table import Table
from rich.text import Text

from referee.rules import OPTIONS, PRESETS, Rules
from referee.untrusted import inert, inert_text

if TYPE_CHECKING:
    from ladder.bots.registry import BotEntry
    from ladder.ratings.leaderboard import Leaderboard
    from ladder.store import Store, StoreError
    from ladder.tournament.run import RunSummary
    from ladder.venues.venue import Venue

console = Console()


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="hearts-arena")
def main() -> None:
    """hearts-arena: run Hearts bots against each other and rank them.

    \b
    Quick start:
      hearts rules                      the rulesets and every option
      hearts bot serve heuristic        serve a sample bot over gRPC
      hearts validate localhost:50051   check a bot before it plays (or --command CMD)
      hearts tournament run --bots bots.toml --db arena.db
      hearts ladder --db arena.db       the leaderboard
      hearts play                       play against the bots yourself, in your browser
      hearts arena init DIR             an arena service: bots submitted, validated, ranked continuously
    """


# -- rules ---------------------------------------------------------------------------------------


@main.group(invoke_without_command=True)
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


def _parse_rules(spec: str, param_hint: str) -> Rules:
    """``Rules.parse`` with a usage error a person can act on."""
    # Refused here, not read as the default: an empty text or part is a slip (a shell variable
    # that was not set, a comma too many), never a choice.
    if not spec.strip():
        raise click.BadParameter(
            "the ruleset is empty: give a preset such as standard, optionally with "
            "option=value changes (hearts rules lists them)",
            param_hint=param_hint,
        )
    parts = spec.split(",")
    if any(not p.strip() for p in parts):
        fixed = ",".join(p.strip() for p in parts if p.strip())
        raise click.BadParameter(f"{spec!r} has an empty part between commas: write {fixed!r}", param_hint=param_hint)
    try:
        return Rules.parse(spec)
    except ValueError as e:
        raise click.BadParameter(_rules_error(spec, e), param_hint=param_hint) from None


def _rules_error(spec: str, error: ValueError) -> str:
    from referee.rules.cards import parse_cards

    parts = [p.strip() for p in spec.split(",") if p.strip()]
    merged: list[str] = []
    cards_split = False
    for i, p in enumerate(parts):
        if "=" not in p and i > 0 and merged and _key(merged[-1]) == "removed_cards":
            try:
                parse_cards(p)
            except ValueError:
                break
            merged[-1] += " " + p  # a card of a list value split off by a comma
            cards_split = True
        else:
            merged.append(p)
    else:
        if cards_split:
            fixed = ",".join(merged)
            return (
                f"{spec!r}: a comma separates options, so a list of cards is written with spaces: "
                f'"{fixed}" (keep the quotes in the shell)'
            )
    if "is not option=value" in str(error):
        return (
            f"{error}. Write PRESET[,option=value...]: the preset, if any, comes first; a list value "
            f'is written with spaces, e.g. "standard,removed_cards=2C 2D,hand_size=12,kitty=first-trick"'
        )
    return str(error)


def _key(part: str) -> str:
    return part.split("=", 1)[0].strip().replace("-", "_") if "=" in part else ""


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


def _table(title: str, first: str, *columns: str) -> Table:
    """A left-titled table whose first column (what each row is about) is bold."""
    table = Table(title=title, title_justify="left")
    table.add_column(first, style="bold")
    for col in columns:
        table.add_column(col)
    return table


def _fmt(v: object) -> str:
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        return " ".join(map(str, v)) or "none"
    return str(v)


# -- the protocol --------------------------------------------------------------------------------


@main.command("proto")
@click.option("--text", is_flag=True, help="Print the contents of bot.proto instead of its path.")
def proto_command(text: bool) -> None:
    """Print the path of hearts.v1's bot.proto, the bot protocol, as installed with this package.

    The file ships inside the package (hearts/v1/bot.proto): generate a bot's code from it with
    protoc or buf (docs/protocol.md), or print it with --text.
    """
    from importlib.resources import files

    resource = files("hearts.v1") / "bot.proto"
    if not resource.is_file():
        raise click.ClickException("bot.proto is missing from the installed hearts.v1 package: reinstall hearts-arena")
    if text:
        click.echo(resource.read_text(encoding="utf-8"), nl=False)
    elif isinstance(resource, Path):
        click.echo(str(resource))
    else:  # a package inside a zip file has no path of its own
        raise click.ClickException("this installation keeps bot.proto in an archive: use hearts proto --text")


# -- bots ----------------------------------------------------------------------------------------


@main.group()
def bot() -> None:
    """Serve sample bots, and register the bots of a ladder."""


@bot.command("serve")
@click.argument("name", type=click.Choice(["random", "lowest", "heuristic", "montecarlo"]), metavar="NAME")
@click.option(
    "--port", type=click.IntRange(0, 65535), default=0, show_default=True, help="Port to listen on (0: any free port)."
)
@click.option("--seed", type=int, default=None, help="Seed of the bot's own RNG (the random bot).")
def bot_serve(name: str, port: int, seed: int | None) -> None:
    """Serve the sample bot NAME on 127.0.0.1 until SIGTERM or Ctrl-C.

    NAME is random, lowest, heuristic or montecarlo. Prints "listening on 127.0.0.1:PORT" once bound. Same as
    python -m clients.bots.NAME.
    """
    from clients.bots import make_bot  # imported here: the other commands need no gRPC server
    from clients.sdk import ListenError, serve

    try:
        serve(make_bot(name, seed=seed), port=port)
    except ListenError as e:
        raise click.ClickException(
            f"{e}\nport {port} is taken (another bot?): choose another --port, "
            f"or --port 0 for any free port (the port is printed)"
        ) from None


class _Finite(click.FloatRange):
    """A FloatRange that refuses nan and inf: click's lets nan through (every comparison with it is
    false), and a tournament stored with it could never be resumed."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = click.FLOAT.convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value} is not a finite number.", param, ctx)
        return super().convert(number, param, ctx)


# Ranges of the time control, fault and schedule options, checked by click before anything is
# created. Milliseconds stay below 2^32: the protocol carries them as uint32.
_MS_LIMIT = 2**32
_POSITIVE = _Finite(min=0, min_open=True)
_POSITIVE_MS = _Finite(min=0, min_open=True, max=_MS_LIMIT, max_open=True)
_NON_NEGATIVE_MS = _Finite(min=0, max=_MS_LIMIT, max_open=True)
_AT_LEAST_1 = click.IntRange(min=1)
# A seed is stored as an SQLite INTEGER: 64 bits, signed.
_SEED = click.IntRange(min=-(2**63), max=2**63 - 1)

_DB_OPTION = click.option(
    "--db", type=click.Path(dir_okay=False), default="arena.db", show_default=True, help="The arena's SQLite file."
)
_EXISTING_DB_OPTION = click.option(
    "--db",
    type=click.Path(dir_okay=False, exists=True),
    default="arena.db",
    show_default=True,
    help="The arena's SQLite file.",
)
# The time control and fault limit of every match, the same for hearts match and hearts tournament run.
_CLOCK_OPTIONS = (
    click.option(
        "--budget-ms",
        type=_POSITIVE_MS,
        default=1000,
        show_default=True,
        help="Time for one decision (ms, more than 0, below 2^32).",
    ),
    click.option(
        "--bank-ms",
        type=_NON_NEGATIVE_MS,
        default=10000,
        show_default=True,
        help="Time bank per bot per match, drawn on when a decision runs over budget (ms, 0 or more, below 2^32).",
    ),
    click.option(
        "--grace-ms",
        type=_NON_NEGATIVE_MS,
        default=50,
        show_default=True,
        help="Network slack on every decision (ms, 0 or more, below 2^32).",
    ),
    click.option(
        "--max-faults",
        type=_AT_LEAST_1,
        default=3,
        show_default=True,
        help="Faults before a bot forfeits (at least 1).",
    ),
)


def _clock_options(f: Callable[..., Any]) -> Callable[..., Any]:
    for option in reversed(_CLOCK_OPTIONS):
        f = option(f)
    return f


@contextmanager
def _open(db: str, *, readonly: bool = False) -> Iterator[Store]:
    """The store at --db (``readonly``: opened read-only, never written). A file that cannot be used,
    or an SQLite error while using it (a full disk...), is one ``Error:`` line naming --db."""
    from ladder.store import Store, StoreError, store_error

    try:
        store = Store(db, readonly=readonly)
    except StoreError as e:
        raise click.ClickException(_db_error(db, e)) from None
    try:
        yield store
    except sqlite3.Error as e:
        raise click.ClickException(_db_error(db, store_error(e, db))) from None
    finally:
        store.close()


def _db_error(db: str, e: StoreError, then: str = "") -> str:
    return f"--db {db}: {e.problem}; {then or e.hint or 'check the file'}"


def _check_writable(db: str) -> None:
    """Refuse a --db that could not be written, without creating or writing anything."""
    from ladder.store import writable_problem

    problem = writable_problem(db)
    if problem is not None:
        raise click.ClickException(_db_error(db, problem))
    if Path(db).exists():
        with _open(db, readonly=True):  # an arena database this version can write
            pass


@bot.command("add")
@click.argument("name", required=False)
@click.option(
    "--command",
    "command",
    metavar="CMD",
    help='How to start the bot; {port} is replaced by a free port, e.g. "python -m clients.bots.random --port {port}".',
)
@click.option("--address", metavar="HOST:PORT", help="Where a bot that is already running listens.")
@click.option(
    "--module",
    "module",
    metavar="PKG.MOD:CLASS",
    help="An SDK bot class to play in-process, without gRPC (e.g. my_bot:MyBot, imported from the current "
    "directory); its matches spread over worker processes.",
)
@click.option("--description", default=None, help="A line about the bot (kept when updating without it).")
@click.option(
    "--max-concurrency",
    type=click.IntRange(min=0),
    default=None,
    metavar="N",
    help="Never seat the bot in more than N matches at once (0: no limit; kept when updating "
    "without it). A bot that answers one request at a time needs 1.",
)
@click.option(
    "--from",
    "bots_file",
    type=click.Path(dir_okay=False, exists=True),
    help="Register every bot of a bots TOML file instead (see bots.toml).",
)
@_DB_OPTION
def bot_add(
    name: str | None,
    command: str | None,
    address: str | None,
    module: str | None,
    description: str | None,
    max_concurrency: int | None,
    bots_file: str | None,
    db: str,
) -> None:
    """Register bot NAME with a --command that starts it, the --address it serves on, or the --module
    of an SDK bot class played in-process.

    A bot already registered under NAME is updated (its description and limit are kept unless
    --description or --max-concurrency is given; without --command, --address and --module it keeps
    those too). A name is letters, digits, '-', '_' and '.'.
    """
    from ladder.bots.registry import BotEntry, RegistryError, add_bot, add_bots, get_bot, load_bots_file

    try:
        if bots_file is not None:
            if name or command or address or module or description is not None or max_concurrency is not None:
                raise click.UsageError(
                    "give either --from FILE or NAME with --command/--address/--module/--description/--max-concurrency"
                )
            entries = load_bots_file(bots_file)
            with _open(db) as store:
                add_bots(store, entries)
            console.print(f"registered {len(entries)} bots from {bots_file}: {', '.join(e.name for e in entries)}")
            return
        if not name:
            raise click.UsageError("give the bot's NAME (or --from FILE)")
        with _open(db) as store:
            current = get_bot(store, name)
            if command is None and address is None and module is None and current is not None:
                # Setting a limit or a description alone keeps how the bot is started.
                command, address, module = current.command, current.address, current.module
            new = add_bot(
                store,
                BotEntry(
                    name,
                    command=command,
                    address=address,
                    module=module,
                    description=description,
                    max_concurrency=max_concurrency,
                ),
            )
    except RegistryError as e:
        raise click.ClickException(str(e)) from None
    console.print(f"{'registered' if new else 'updated'} bot {name!r}")


@bot.command("list")
@_DB_OPTION
def bot_list(db: str) -> None:
    """List the registered bots."""
    from ladder.bots.registry import list_bots

    if not Path(db).exists():  # nothing to list, and a reading command creates nothing
        entries = []
    else:
        with _open(db, readonly=True) as store:
            entries = list_bots(store)
    if not entries:
        console.print(f"no bots registered in {db}: hearts bot add NAME --command CMD, or --from bots.toml")
        return
    table = _table(f"Bots in {db}", "bot", "command, address or module", "description", "limit")
    kinds = {"command": "", "address": "remote ", "module": "in-process "}
    for e in entries:
        # Registered text is the organiser's, but never read as markup (a description may hold "[").
        table.add_row(
            Text(e.name),
            Text(kinds[e.kind] + e.target),
            Text(e.description or ""),
            str(e.max_concurrency) if e.max_concurrency else "",
        )
    console.print(table)
    from ladder.bots.launcher import HARNESS_PYTHON

    if any(e.command is not None and e.command.split()[:1] and e.command.split()[0] in HARNESS_PYTHON for e in entries):
        console.print(
            f"python: a command's leading python or python3 runs as this harness's interpreter ({sys.executable}); "
            "name another by its path to run a bot under it",
            soft_wrap=True,
        )
    if any(e.max_concurrency for e in entries):
        console.print(
            "limit: max_concurrency, the most matches the bot is seated in at once (blank: none "
            "but what its handshake declares)",
            soft_wrap=True,
        )


@bot.command("remove")
@click.argument("name")
@_DB_OPTION
def bot_remove(name: str, db: str) -> None:
    """Unregister bot NAME. Its recorded matches stay, and so does its place on the ladder."""
    from ladder.bots.registry import remove_bot

    with _open(db) as store:
        if not remove_bot(store, name):
            raise click.ClickException(f"no bot {name!r} is registered in {db} (hearts bot list)")
    console.print(f"removed bot {name!r}")


# -- match and replay ----------------------------------------------------------------------------


_STARTUP_TIMEOUT_OPTION = click.option(
    "--startup-timeout",
    type=_POSITIVE,
    default=15,
    show_default=True,
    help="Seconds a bot may take to report SERVING (more than 0).",
)


_WORKERS_OPTION = click.option(
    "--workers",
    type=click.IntRange(min=0),
    default=None,
    metavar="N",
    help="Worker processes for the matches whose bots are all in-process (module = ...); 0 plays them in "
    "this process. Default: one per core.",
)


def _cluster_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """``--cluster ADDRESS`` and ``--cluster-workers N``: the matches played on a Dask cluster (docs/cluster.md)."""
    f = click.option(
        "--cluster-workers",
        type=click.IntRange(min=1),
        default=None,
        metavar="N",
        help="Play every match on a Dask cluster of N worker processes started on this machine for the run "
        "(not with --cluster), each starting the bots itself and playing ceil(concurrency / N) matches at "
        "once (needs the cluster extra; docs/cluster.md).",
    )(f)
    return click.option(
        "--cluster",
        "cluster_address",
        metavar="ADDRESS",
        default=None,
        help="Play every match on the Dask cluster whose scheduler is at ADDRESS (tcp://HOST:8786, as dask "
        "scheduler prints it, or tls://HOST:8786 with Dask's TLS settings); each worker starts the bots from "
        "the same commands, so their files must be at the same paths there. This process decides which match "
        "starts when and records them; a resume takes the same option (docs/cluster.md).",
    )(f)


def _venue(address: str | None, local_workers: int | None, concurrency: int) -> Venue | None:
    """The Dask venue the options ask for (None: play here). Each local worker gets its share of
    ``concurrency``, so that ``--concurrency`` stays the matches played at once."""
    if address is None and local_workers is None:
        return None
    if address is not None and local_workers is not None:
        raise click.UsageError(
            "--cluster and --cluster-workers: give one (a cluster that runs elsewhere, or one started here)"
        )
    from ladder.venues.cluster import ClusterUnavailable, venue
    from ladder.venues.venue import VenueError

    try:
        if local_workers is not None:
            return venue(local_workers=local_workers, slots_per_worker=math.ceil(concurrency / local_workers))
        return venue(address)
    except ClusterUnavailable as e:
        raise click.ClickException(str(e)) from None
    except VenueError as e:  # an address that is none (a typo), checked before anything is stored
        raise click.BadParameter(str(e), param_hint="'--cluster'") from None


_SANDBOX_OPTION = click.option(
    "--sandbox",
    type=click.Choice(["on", "limits-only", "off"]),
    default="off",
    is_flag=False,
    flag_value="on",
    show_default=True,
    help="Run the bots it starts in a sandbox: --sandbox (on) is bubblewrap, each bot alone with its own "
    "directory read-only, no network, no other process in sight, under memory, CPU, process, file and "
    "log limits (docs/sandbox.md); --sandbox=limits-only applies the limits alone, with no isolation. "
    "A bot whose bots-file entry says sandbox = true is always sandboxed.",
)


@main.command("match")
@click.option(
    "--seat",
    "seat_specs",
    multiple=True,
    required=True,
    metavar="SEAT",
    help="One per seat, in seat order (as many as the rules' players): NAME=HOST:PORT (a bot served "
    "there), NAME=PKG.MOD:CLASS (an SDK bot class played in-process), NAME=COMMAND (started, as in a bots "
    "file), or NAME (its entry in --bots, or registered in --db).",
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
) -> None:
    """Play one match, record it in --db and print a summary. Bots given by a command (or by name
    from --bots or the registry) are started like a tournament's and stopped after the match.

    \b
    Examples:
      hearts match --seat a=localhost:50051 --seat b=localhost:50052 \\
                   --seat c=localhost:50053 --seat d=localhost:50054 --rules standard --seed 7
      hearts match --seat "me=python my_bot.py" --seat random --seat lowest --seat heuristic --bots bots.toml
      hearts match --seat me=my_bot:MyBot --seat r1=clients.bots.random:RandomBot \\
                   --seat r2=clients.bots.random:RandomBot --seat h=clients.bots.heuristic:HeuristicBot
    """
    import asyncio
    import secrets

    from ladder.bots.registry import RegistryError
    from referee.match import MatchSettings, play_remote
    from referee.report import summary
    from referee.seats import SeatUnreachable

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
    settings = MatchSettings(budget_ms=budget_ms, bank_ms=bank_ms, grace_ms=grace_ms, max_faults=max_faults)
    seed = seed if seed is not None else secrets.randbelow(2**31)
    _check_writable(db)  # before playing: a match that cannot be recorded is lost
    seats = [(e.name, e.address or "") for e in entries]
    from ladder.sandbox import SandboxMode, SandboxUnavailable

    mode = SandboxMode(sandbox)
    if mode is not SandboxMode.OFF or any(e.sandbox for e in entries):
        console.print(f"bots: {mode.label if mode is not SandboxMode.OFF else SandboxMode.FULL.label}")
    try:
        if all(e.address is not None for e in entries):
            record = asyncio.run(play_remote(seats, r, seed, settings=settings))
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


def _seat_entries(specs: Sequence[str], bots_file: str | None, db: str) -> list[Any]:
    """Each --seat as a bot entry: NAME=HOST:PORT an address, NAME=PKG.MOD:CLASS a module, NAME=COMMAND
    a command, a bare NAME its entry in the bots file, else in the registry of --db. ``ValueError``
    naming the seat otherwise."""
    from ladder.bots.inprocess import is_module_spec
    from ladder.bots.registry import BotEntry, check_name, get_bot, load_bots_file
    from referee.seats import parse_seat

    from_file = {e.name: e for e in load_bots_file(bots_file)} if bots_file is not None else {}
    out: list[BotEntry] = []
    for spec in specs:
        name, sep, rest = spec.partition("=")
        name = check_name(name.strip())
        if sep and is_module_spec(rest):
            out.append(BotEntry(name, module=rest.strip()))
        elif sep:
            try:
                out.append(BotEntry(name, address=parse_seat(spec)[1]))
            except ValueError:
                if not rest.strip():
                    raise ValueError(f"seat {spec!r}: give NAME=HOST:PORT, NAME=COMMAND or NAME") from None
                out.append(BotEntry(name, command=rest.strip()))
        elif name in from_file:
            out.append(from_file[name])
        else:
            entry = None
            if Path(db).exists():
                with _open(db, readonly=True) as store:
                    entry = get_bot(store, name)
            if entry is None:
                import difflib

                where = f"in {bots_file} or " if bots_file is not None else ""
                close = difflib.get_close_matches(name, list(from_file), n=1)
                guess = f"did you mean {close[0]!r}? " if close else ""
                raise ValueError(
                    f"seat {name!r}: no bot of that name {where}registered in {db}; {guess}"
                    "(give NAME=HOST:PORT, NAME=PKG.MOD:CLASS, NAME=COMMAND, or --bots FILE)"
                )
            out.append(entry)
    return out


# -- validate ------------------------------------------------------------------------------------


@main.command("validate")
@click.argument("address", required=False)
@click.option(
    "--command",
    "command",
    metavar="CMD",
    help="Start the bot with CMD as a tournament does ({port} is a free port), validate it, stop it, e.g. "
    '"python my_bot.py --port {port}". Instead of ADDRESS.',
)
@click.option(
    "--rules",
    "rulesets",
    multiple=True,
    metavar="RULES",
    help="A ruleset to check, PRESET[,option=value...] (repeat for more). Default: every ruleset the "
    "bot's handshake claims.",
)
@_CLOCK_OPTIONS[0]
@_CLOCK_OPTIONS[1]
@_CLOCK_OPTIONS[2]
@_STARTUP_TIMEOUT_OPTION
@_SANDBOX_OPTION
@click.option("--verbose", "-v", is_flag=True, help="One row per check: every passing position too.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON instead of the table.")
@click.pass_context
def validate_command(
    ctx: click.Context,
    address: str | None,
    command: str | None,
    rulesets: tuple[str, ...],
    budget_ms: float,
    bank_ms: float,
    grace_ms: float,
    startup_timeout: float,
    sandbox: str,
    verbose: bool,
    as_json: bool,
) -> None:
    """Check that the bot at ADDRESS (HOST:PORT, or an SDK bot class PKG.MOD:CLASS served here on the
    SDK's own server), or started by --command, plays by the protocol:
    health, reflection, the handshake, a legal answer on every edge-case position of each ruleset
    it claims, statelessness, concurrency, cancelled calls, one complete match and its latency.
    Exit status 0 when no check fails (warnings are fine), 1 when one does.

    \b
    Examples:
      hearts validate localhost:50051
      hearts validate --command "python my_bot.py --port {port}" --rules standard
      hearts validate my_bot:MyBot
      hearts validate --command "python my_bot.py --port {port}" --sandbox
    """
    import asyncio
    import json

    from ladder.bots.inprocess import BotModuleError, is_module_spec
    from ladder.bots.launcher import BotStartError
    from ladder.conformance.validate import Check, render
    from ladder.sandbox import SandboxUnavailable

    if (address is None) == (command is None):
        raise click.UsageError(
            "give the bot's ADDRESS (HOST:PORT), its class (PKG.MOD:CLASS, e.g. my_bot:MyBot) or --command CMD "
            "(one of them)"
        )
    if address is not None and not is_module_spec(address):
        host, colon, port = address.rpartition(":")
        if not address.startswith("unix:") and (not colon or not host or not port.isdigit()):
            hint = f", nor PKG.MOD:CLASS (e.g. {address.removesuffix('.py')}:MyBot)" if address.endswith(".py") else ""
            raise click.BadParameter(f"{address!r} is not HOST:PORT (e.g. localhost:50051){hint}", param_hint="ADDRESS")
    if sandbox != "off" and command is None:
        raise click.UsageError(
            "--sandbox runs a bot that hearts validate starts: give --command CMD (a bot at an address runs "
            "wherever it runs; a class PKG.MOD:CLASS would share this process)"
        )
    rules = [_parse_rules(text, "--rules") for text in rulesets]
    shown = console.is_terminal and not as_json
    status = console.status("validating") if shown else None

    def on_check(check: Check) -> None:
        if status is not None:
            status.update(f"validating: {inert(check.name)}")

    try:
        if status is not None:
            status.start()
        report = asyncio.run(
            _validated(address, command, rules, budget_ms, bank_ms, grace_ms, startup_timeout, on_check, sandbox)
        )
    except (BotStartError, BotModuleError, SandboxUnavailable) as e:
        raise click.ClickException(str(e)) from None
    finally:
        if status is not None:
            status.stop()
    if as_json:
        click.echo(json.dumps(report.to_dict(), indent=2, ensure_ascii=True))
    else:
        console.print(render(report, verbose=verbose))
        if (command is not None or address is not None and is_module_spec(address)) and not report.ok:
            console.print(f"the bot's own output is in {VALIDATE_LOGS / 'validate.log'}", soft_wrap=True)
    if not report.ok:
        ctx.exit(1)


VALIDATE_LOGS = Path("logs")
"""Where a bot started by hearts validate --command logs (validate.log), as a tournament's bots do."""


async def _validated(
    address: str | None,
    command: str | None,
    rules: list[Rules],
    budget_ms: float,
    bank_ms: float,
    grace_ms: float,
    startup_timeout: float,
    on_check: Callable[[Any], None],
    sandbox: str = "off",
) -> Any:
    """The validation of the bot at ``address`` (an SDK bot class is served here on port 0 by the SDK's
    own server), or of the bot ``command`` starts (stopped after)."""
    from ladder.bots.inprocess import BotModule, is_module_spec
    from ladder.bots.launcher import Launcher
    from ladder.conformance.validate import validate
    from ladder.sandbox import Isolation

    if address is not None and is_module_spec(address):
        import logging

        from clients.sdk import BotServer
        from clients.sdk import log as sdk_log
        from ladder.bots.inprocess import print_to

        bot = BotModule.parse(address).load()
        VALIDATE_LOGS.mkdir(parents=True, exist_ok=True)
        with open(VALIDATE_LOGS / "validate.log", "a", buffering=1, encoding="utf-8", errors="replace") as log:
            # The bot's prints and its server's tracebacks go to the log, as a started bot's do: the
            # screen (and --json) keep the report alone.
            handler = logging.StreamHandler(log)
            sdk_log.addHandler(handler)
            sdk_log.propagate = False
            try:
                async with BotServer(bot, port=0) as server:
                    print_to(log, server.servicer.methods)
                    return await validate(
                        server.address,
                        rules=rules,
                        budget_ms=budget_ms,
                        bank_ms=bank_ms,
                        grace_ms=grace_ms,
                        on_check=on_check,
                        isolation=Isolation("in-process"),  # served by the SDK's server in this process
                    )
            finally:
                sdk_log.removeHandler(handler)
                sdk_log.propagate = True
    if command is None:
        assert address is not None
        return await validate(
            address,
            rules=rules,
            budget_ms=budget_ms,
            bank_ms=bank_ms,
            grace_ms=grace_ms,
            on_check=on_check,
            isolation=Isolation("remote"),
            startup_timeout=startup_timeout,
        )
    from ladder.sandbox import SandboxMode

    async with Launcher(VALIDATE_LOGS, startup_timeout=startup_timeout, sandbox=SandboxMode(sandbox)) as launcher:
        started = await launcher.start("validate", command)

        async def diagnose() -> str | None:  # a limit the sandbox stopped the bot at: resource_limit
            return await launcher.diagnose("validate", started)

        async def vouch() -> str | None:  # another process serving its address: impersonation
            return await launcher.vouch("validate", started)

        return await validate(
            started,
            rules=rules,
            budget_ms=budget_ms,
            bank_ms=bank_ms,
            grace_ms=grace_ms,
            on_check=on_check,
            command=command,
            diagnose=diagnose,
            vouch=vouch,
            isolation=launcher.isolation("validate"),
        )


@main.command("replay")
@click.argument("match_id")
@_EXISTING_DB_OPTION
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print the match as one line of JSON (docs/export.md), as hearts export does.",
)
def replay_command(match_id: str, db: str, as_json: bool) -> None:
    """Print a recorded match hand by hand, trick by trick (MATCH_ID may be a unique prefix).

    hearts match prints the id of the match it recorded; a tournament's matches are
    t{ID}-{NNNNNN}, e.g. t1-000000 (a short prefix such as t1-0 names many of them).
    hearts matches lists the ids.
    """
    from referee.report import replay, summary

    with _open(db, readonly=True) as store:
        try:
            record = store.load_match(store.resolve_match_id(match_id))
        except KeyError as e:
            hint = "list them with" if e.args[0].startswith("no match") else "give more of the id;"
            raise click.ClickException(f"{e.args[0]}: {hint} hearts matches --db {db}") from None
    if as_json:
        from ladder.export import dumps, match_to_json

        click.echo(dumps(match_to_json(record)))
        return
    console.print(replay(record))
    console.print(summary(record))


@main.command("matches")
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


@main.command("export")
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


def _check_tournament(store: Store, tournament_id: int, db: str) -> None:
    from ladder.tournament.run import get_tournament

    try:
        get_tournament(store, tournament_id)
    except KeyError:
        raise click.ClickException(
            f"no tournament {tournament_id} in {db} (hearts tournament list --db {db})"
        ) from None


# -- tournaments and the ladder ------------------------------------------------------------------


@main.group()
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
    type=click.Choice(["round-robin", "gauntlet"]),
    default="round-robin",
    show_default=True,
    help="Every group of bots at a table, or one bot against the pool.",
)
@click.option("--gauntlet", metavar="BOT", help="The bot that plays every table (implies --format gauntlet).")
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
    "--rounds", type=_AT_LEAST_1, default=1, show_default=True, help="Times the table design is played (at least 1)."
)
@click.option(
    "--deals",
    type=_AT_LEAST_1,
    default=1,
    show_default=True,
    help="Deals per table per round (at least 1); each is played in every seat rotation (duplicate).",
)
@click.option("--no-duplicate", is_flag=True, help="Play each deal once (seats still rotate across deals).")
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
    ruleset: str,
    seed: int | None,
    rounds: int,
    deals: int,
    no_duplicate: bool,
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
    Example:
      hearts tournament run --bots bots.toml --format round-robin --concurrency 8 --db arena.db
    """
    import secrets

    from ladder.bots.registry import RegistryError, list_bots, load_bots_file
    from ladder.tournament.run import TournamentSpec, create_tournament
    from referee.match import MatchSettings

    _parse_rules(ruleset, "--rules")
    if gauntlet:
        fmt = "gauntlet"
    elif fmt == "gauntlet":
        raise click.UsageError("--format gauntlet needs --gauntlet BOT, the bot that plays every table")
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
        spec = TournamentSpec(
            format=fmt,
            rules=ruleset,
            rounds=rounds,
            deals=deals,
            seed=seed,
            gauntlet=gauntlet,
            duplicate=not no_duplicate,
            settings=MatchSettings(budget_ms=budget_ms, bank_ms=bank_ms, grace_ms=grace_ms, max_faults=max_faults),
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
    from ladder.tournament.run import get_tournament, registry_changes

    venue = _venue(cluster_address, cluster_workers, concurrency)
    with _open(db) as store:
        _check_tournament(store, tournament_id, db)
        info = get_tournament(store, tournament_id)
        if info.format == "compare":
            raise click.ClickException(
                f"tournament {tournament_id} is a comparison (hearts compare): resumed as a tournament it would "
                "play every deal with no test to stop it. Run hearts compare again to start a new comparison"
            )
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
            "in range (its recorded matches stay)"
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
    from ladder.tournament.run import TournamentBusy, delete_tournament, get_tournament, run_tournament
    from ladder.venues.venue import VenueError
    from ladder.venues.workers import WorkerDied

    _check_tournament(store, tid, db)
    info = get_tournament(store, tid)
    on = _venue_option(venue)  # a resume's hint plays the rest where this run played
    console.print(
        f"tournament {tid}: {info.format}, rules {info.rules}, seed {info.seed}, {len(info.bots)} bots, "
        f"{info.done}/{info.total} matches recorded; concurrency {concurrency}"
        + (
            f"; on the Dask cluster {_venue_name(venue)} (or as many at once as its workers have threads, if more)"
            if venue is not None
            else ""
        )
        + (f"; bots: {SandboxMode(sandbox).label}" if sandbox != "off" else "")
    )
    told: set[str] = set()  # the venue's events said as they happened: not again in the report
    if venue is not None:

        def tell(event: str) -> None:
            told.add(event)
            console.print(inert_text(event, style="yellow"))

        venue.on_event = tell
    try:
        with Progress(info.total, info.done, title=f"tournament {tid}") as progress:
            summary = run_tournament(
                store,
                tid,
                concurrency=concurrency,
                on_record=progress.on_record,
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
    _wide_console().print(render_table(load_leaderboard(store, tournament_id=tid), title=f"Tournament {tid}"))


def _venue_option(venue: Any) -> str:
    """The option that plays on ``venue`` again (`` --cluster ADDRESS``), for a resume's hint."""
    if venue is None:
        return ""
    local = getattr(venue, "local_workers", None)
    return f" --cluster-workers {local}" if local is not None else f" --cluster {getattr(venue, 'address', '?')}"


def _venue_name(venue: Any) -> str:
    local = getattr(venue, "local_workers", None)
    return f"of {local} local workers" if local is not None else f"at {getattr(venue, 'address', '?')}"


def _count(n: int, noun: str, plural: str | None = None) -> str:
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


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


@main.command("ladder")
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


def _wide_console() -> Console:
    # Piped or captured output gets rich's default 80 columns, too few for the ladder's 14 columns.
    return console if console.is_terminal else Console(width=170)


@main.command("compare")
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

        def on_deal(test: Any) -> None:
            if test.n <= 10 or test.n % 10 == 0 or test.verdict != "continue":
                lo, hi = test.interval()
                console.print(
                    Text(
                        f"  deals {test.n}: B better by {test.mean:+.2f} points per hand "
                        f"(95% {lo:+.2f} to {hi:+.2f}); LLR {test.llr:+.2f} in "
                        f"[{test.lower:.2f}, {test.upper:.2f}]"
                    ),
                    soft_wrap=True,
                )

        try:
            result = asyncio.run(
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
        except (BotStartError, BotModuleError, WorkerDied, VenueError) as e:
            raise click.ClickException(str(e)) from None
        except KeyboardInterrupt:
            # A comparison stopped midway has no verdict, and a resume would play its every deal with
            # no test: its unplayed deals are dropped, its matches kept.
            with store.db.atomic():
                store.tournaments.drop_pending(tid)
                store.tournaments.set_status(tid, "interrupted")
            console.print(
                f"comparison {tid} stopped before a verdict; its matches are kept (hearts ladder --db {db} "
                f"--tournament {tid}). Run hearts compare again to start a new one.",
                soft_wrap=True,
            )
            ctx.exit(130)
    t = result.test
    lo, hi = t.interval()
    words = {
        "H1": f"H1 accepted: {spec.b} is better than {spec.a} (by {h1:g} or more points per hand)",
        "H0": f"H0 accepted: {spec.b} is not better than {spec.a} by more than {h0:g} points per hand",
        "inconclusive": f"inconclusive after {t.n} deals (--max-deals)",
    }
    console.print(
        Text(
            f"{inert(words[result.verdict])}; {t.n} deals, {result.matches} matches{_in_flight(result, r.players)}; "
            "difference "
            f"{t.mean:+.2f} (95% {lo:+.2f} to {hi:+.2f}) points per hand",
            style="bold",
        ),
        soft_wrap=True,
    )
    console.print(f"its matches are tournament {tid}: hearts ladder --db {db} --tournament {tid}", soft_wrap=True)


def _in_flight(result: Any, players: int) -> str:
    """A note on the matches of deals that were under way when the test decided (they are recorded)."""
    extra = result.matches - result.test.n * 2 * players
    return f" ({extra} of deals under way when it decided)" if extra > 0 else ""


if __name__ == "__main__":  # pragma: no cover
    main()
