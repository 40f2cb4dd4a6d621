"""The options and helpers the ``hearts`` commands share: the console, the --db options and the store
they open, the clock, seat and cluster options, rulesets and tables as a person reads them.
"""

from __future__ import annotations

import math
import socket
import sqlite3
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.console import Console
from rich.table import Table

from referee.rules import Rules
from referee.untrusted import inert

if TYPE_CHECKING:
    from ladder.bots.registry import BotEntry
    from ladder.store import Store, StoreError
    from ladder.venues.venue import Venue
    from referee.record import MatchRecord


console = Console()


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


# The replay viewer of a recorded match in the browser: hearts replay --browser, hearts match --browser.
_BROWSER_OPTIONS = (
    click.option(
        "--browser",
        is_flag=True,
        help="Serve the match's replay viewer on 127.0.0.1 from --db (no arena needed) and open it in your "
        "browser; it serves until Ctrl-C.",
    ),
    click.option("--no-browser", is_flag=True, help="With --browser: print the viewer's address, open no browser."),
    click.option(
        "--port",
        type=click.IntRange(0, 65535),
        default=0,
        show_default=True,
        help="With --browser: the viewer's port on 127.0.0.1 (0: any free port).",
    ),
)


def _browser_options(f: Callable[..., Any]) -> Callable[..., Any]:
    for option in reversed(_BROWSER_OPTIONS):
        f = option(f)
    return f


def _check_browser_options(browser: bool, no_browser: bool) -> None:
    """--no-browser and --port go with --browser: alone they would do nothing."""
    ctx = click.get_current_context()
    if browser:
        return
    if no_browser:
        raise click.UsageError("--no-browser goes with --browser (it serves the viewer without opening a browser)")
    if ctx.get_parameter_source("port") is click.core.ParameterSource.COMMANDLINE:
        raise click.UsageError("--port goes with --browser (the replay viewer's port)")


def _viewer_socket(port: int) -> socket.socket:
    """The replay viewer's socket, listening on 127.0.0.1:``port`` (0: any free port)."""
    from ladder.table.session import PortTaken, listen

    try:
        return listen(port)
    except PortTaken as e:
        raise click.ClickException(str(e)) from None


def _serve_replay(db: str, match_id: str, sock: socket.socket, *, open_browser: bool) -> None:
    """Serve the replay viewer of the recorded match ``match_id`` of ``db`` on ``sock``
    (ladder/site/local.py: the site's page, read from the plain database by its owner), print its
    address, open a browser on it unless not ``open_browser``, and serve until Ctrl-C."""
    import webbrowser
    from urllib.parse import quote

    from ladder.arena.local import LocalState
    from ladder.site.local import serve

    url = f"http://127.0.0.1:{sock.getsockname()[1]}/matches/{quote(match_id, safe='')}"
    console.print(f"the replay of match {match_id} is at:", soft_wrap=True, highlight=False, markup=False)
    # On a line of its own and never wrapped, so that it can be copied (and read by a program) whole.
    console.print(f"  {url}", soft_wrap=True, highlight=False, markup=False)
    if open_browser:
        try:
            opened = webbrowser.open(url)
        except Exception:
            opened = False
        if not opened:
            console.print("(no browser could be opened here: open that address in one)")
    console.print("serving it until Ctrl-C")
    sys.stdout.flush()
    try:
        # Ctrl-C stops the server; uvicorn then raises it again, which may or may not reach here as
        # a KeyboardInterrupt (asyncio cancels a task that may already have returned): both are a stop.
        serve(LocalState(Path(db)), sock)
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
    console.print("stopped")


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


SEAT_CLOCK_FORM = "NAME[budget_ms=200,bank_ms=1000]=TARGET, or NAME[budget_ms=200] for a named bot"
"""How a --seat gives its bot a clock of its own, as the errors say it."""


def _seat_clock(spec: str) -> tuple[str, Any]:
    """A --seat without its clock, and the clock (a ``TimeControl``, or None without one). The clock
    comes right after the name, in brackets, before any ``=``: so a bracket in a command (after the
    ``=``) is the command's own. ``ValueError`` naming the seat and the form expected."""
    from referee.settings import TimeControl, TimeControlError

    bracket, equals = spec.find("["), spec.find("=")
    if bracket < 0 or 0 <= equals < bracket:
        return spec, None
    close = spec.find("]", bracket)
    if close < 0:
        raise ValueError(f"seat {spec!r}: the clock after the name has no closing ']': write {SEAT_CLOCK_FORM}")
    rest = spec[close + 1 :]
    if rest.strip() and not rest.lstrip().startswith("="):
        raise ValueError(f"seat {spec!r}: after the clock's ']' comes =TARGET or nothing: write {SEAT_CLOCK_FORM}")
    try:
        clock = TimeControl.parse(spec[bracket + 1 : close])
    except TimeControlError as e:
        raise ValueError(f"seat {spec!r}: {e}") from None
    return spec[:bracket] + rest.lstrip(), clock


def _seat_entries(specs: Sequence[str], bots_file: str | None, db: str) -> list[Any]:
    """Each --seat as a bot entry: NAME=HOST:PORT an address, NAME=PKG.MOD:CLASS a module, NAME=COMMAND
    a command, a bare NAME its entry in the bots file, else in the registry of --db; ``NAME[KEY=MS,...]``
    before any of them gives the bot a clock of its own (its keys over the bots file's, if it has one).
    ``ValueError`` naming the seat otherwise."""
    import dataclasses

    from ladder.bots.inprocess import is_module_spec
    from ladder.bots.registry import BotEntry, check_name, get_bot, load_bots_file
    from referee.seats import parse_seat
    from referee.settings import TimeControl

    from_file = {e.name: e for e in load_bots_file(bots_file)} if bots_file is not None else {}
    out: list[BotEntry] = []
    for given in specs:
        spec, clock = _seat_clock(given)
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
        if clock is not None:
            entry = out[-1]
            own = entry.time_control.to_dict() if entry.time_control is not None else {}
            out[-1] = dataclasses.replace(entry, time_control=TimeControl.from_dict(own | clock.to_dict()))
    return out


def _check_tournament(store: Store, tournament_id: int, db: str) -> None:
    from ladder.tournament.run import get_tournament

    try:
        get_tournament(store, tournament_id)
    except KeyError:
        raise click.ClickException(
            f"no tournament {tournament_id} in {db} (hearts tournament list --db {db})"
        ) from None


def _count(n: int, noun: str, plural: str | None = None) -> str:
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def _wide_console() -> Console:
    # Piped or captured output gets rich's default 80 columns, too few for the ladder's 14 columns.
    return console if console.is_terminal else Console(width=170)


def _fail(message: str, code: int = 1) -> None:
    """An arena command's error: the message, made inert, on stderr, and exit status ``code``."""
    click.echo(f"Error: {inert(message, limit=4000, multiline=True)}", err=True)
    sys.exit(code)


def engine_note() -> None:
    """One line on stderr when the rules engine runs as pure Python for want of a build (an installed
    wheel, a checkout before make engine): it plays about three times slower, and how to compile it."""
    from referee.rules import ENGINE, ENGINE_REASON

    if ENGINE == "pure" and ENGINE_REASON == "no compiled build":
        click.echo(
            "note: the rules engine runs as pure Python (no compiled build here); "
            "hearts engine build compiles it, about three times as fast",
            err=True,
        )


def _load_match(db: str, match_id: str) -> MatchRecord:
    """The recorded match ``match_id`` names (a unique prefix will do); an error that says how to find it."""
    with _open(db, readonly=True) as store:
        try:
            return store.load_match(store.resolve_match_id(match_id))
        except KeyError as e:
            hint = "list them with" if e.args[0].startswith("no match") else "give more of the id;"
            raise click.ClickException(f"{e.args[0]}: {hint} hearts matches --db {db}") from None
