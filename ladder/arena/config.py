"""arena.toml: what an arena plays and how, read with tomllib and checked key by key.

Every error names the key (``ArenaConfigError("arena.toml: [classroom] deadline: ...")``), so a
teacher who mistypes one line is told which. ``TEMPLATE`` is what ``hearts arena init`` writes:
every key, commented, at its default.
"""

from __future__ import annotations

import datetime as dt
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.rules import Rules
from referee.settings import CLOCK_KEYS, TimeControl, TimeControlError

__all__ = ["FINAL_FORMATS", "ArenaConfig", "ArenaConfigError", "HouseBot", "Limits", "TEMPLATE", "load_config"]

CONFIG_NAME = "arena.toml"
FINAL_FORMATS = ("round-robin", "swiss", "knockout")  # [classroom] final_format: how the final is played


class ArenaConfigError(ValueError):
    """arena.toml cannot be used: the message names the file and the key."""


@dataclass(frozen=True)
class HouseBot:
    """A bot of the organiser's that plays on the ladder from the start (e.g. a sample bot)."""

    name: str
    command: str | None = None
    address: str | None = None
    time_control: TimeControl | None = None  # its own clock over [time] (a handicap), None: the arena's


@dataclass(frozen=True)
class Limits:
    """What a submission may be, and what building and running it may take."""

    max_archive_bytes: int = 5 * 1024 * 1024
    max_files: int = 500
    max_unpacked_bytes: int = 50 * 1024 * 1024
    max_stored_bytes: int = 250 * 1024 * 1024  # one participant's versions in all: archives, files, builds
    allow_local_addresses: bool = False  # a submitted address may name this machine (loopback, its own names)
    build_timeout_s: float = 120.0
    start_timeout_s: float = 20.0  # a version's start, or a hosted bot's first answer (validation, each batch)
    memory_mb: int = 512  # the sandbox's memory limit of a submitted bot
    cpu_s: int = 600


@dataclass(frozen=True)
class ArenaConfig:
    name: str = "Hearts arena"
    rules: str = "standard"
    budget_ms: float = 1000.0
    bank_ms: float = 10000.0
    grace_ms: float = 50.0
    max_faults: int = 10
    concurrency: int = 2  # matches at once
    bot_concurrency: int = 2  # matches one bot plays at once
    cluster: str | None = None  # a Dask scheduler's address: the ladder's matches played there (docs/cluster.md)
    host: str = "127.0.0.1"
    port: int = 8765
    limits: Limits = field(default_factory=Limits)
    deadline: dt.datetime | None = None
    final_deals: int = 4  # deals per table of the final tournament
    final_seed: int = 2026
    final_auto: bool = True  # start the final tournament by itself at the deadline
    final_format: str = "round-robin"  # FINAL_FORMATS: a balanced round robin, a Swiss or a knockout
    final_rounds: int = 1  # a Swiss final's rounds (hearts tournament run --rounds's default)
    final_advance: int | None = None  # a knockout final: places of each table that go on (None: half the table)
    anonymous: bool = False
    house: tuple[HouseBot, ...] = ()
    play_guests: bool = False  # visitors (not signed in) may play the house bots at /play
    play_tables: int = 4  # tables of /play at once, all people together
    play_target: int = 0  # the target of a /play match (0: the ladder's ruleset's own)

    @property
    def players(self) -> int:
        return Rules.parse(self.rules).players


TEMPLATE = """\
# The arena's settings (hearts arena serve DIR reads this file at start). See docs/arena.md.

name = "Hearts arena"

[ladder]
# The ruleset every match is played under, as `hearts rules show` accepts it.
rules = "standard"
# Matches played at once, and at most this many at once by one bot.
concurrency = 2
bot_concurrency = 2
# Play the matches on a Dask cluster (docs/cluster.md): every worker needs this arena's folder at
# the same path (its submitted bots) and the harness installed with the cluster extra.
# cluster = "tcp://scheduler.lab:8786"

[time]
# Each decision may take budget_ms (+ grace_ms slack); beyond it the bank is drawn on.
budget_ms = 1000
bank_ms = 10000
grace_ms = 50
# Faults after which a bot forfeits its seat in a match.
max_faults = 10

[server]
# Where the API listens. Binding anything but loopback is a decision: `--host` or this key.
host = "127.0.0.1"
port = 8765

[submissions]
max_archive_bytes = 5242880        # 5 MiB, the .zip as sent
max_files = 500
max_unpacked_bytes = 52428800      # 50 MiB unpacked
max_stored_bytes = 262144000       # 250 MiB: all of one participant's versions (archives, files, builds)
# A submitted address (a bot its author hosts) may not name this machine: the house bots and the
# arena itself listen here. true for a lab where the arena and the students' bots share one machine.
allow_local_addresses = false
build_timeout_s = 120
# How long a bot may take to start (a hosted one: to answer) at its validation and at each batch of
# the ladder before it counts as not started (its validation fails; it sits the batch out).
start_timeout_s = 20

[sandbox]
# Limits of a submitted bot in the sandbox (docs/sandbox.md): its memory, all its processes
# together, and the CPU time of each process over its life (a bot restarts with each batch).
memory_mb = 512
cpu_s = 600

[classroom]
# After the deadline submissions are refused, and the final tournament is played among each
# participant's last valid version. An ISO 8601 time with its zone, e.g. "2026-12-18T17:00:00+01:00".
# deadline = "2026-12-18T17:00:00Z"
final_deals = 4          # deals per table, each played in every rotation (duplicate deals)
final_seed = 2026         # hearts arena init writes a random one: keep it secret (the deals follow from it)
final_auto = true        # start the final by itself at the deadline (else: the organiser's POST)
# How the final is played: "round-robin" (a balanced round robin), "swiss" (final_rounds rounds,
# each drawn from the standings so far) or "knockout" (the top places of each table go on, round
# after round, to one final table). See docs/tournaments.md.
final_format = "round-robin"
final_rounds = 1         # a Swiss: its rounds
# final_advance = 2      # a knockout: the places of each table that go on (default: half the table)
# Aliases instead of names for everyone but a bot's owner, until the organiser reveals them.
anonymous = false

[play]
# /play on the web site: a signed-in participant plays the house bots, in the ladder's ruleset (one
# table each at a time). Such matches are recorded with the person's seat and never rated.
guests = false           # visitors who have not signed in may play too (recorded as "guest")
tables = 4               # tables at once, everyone together
target = 0               # the points that end a table's match (0: the ladder's ruleset's own target)

# House bots: the organiser's, on the ladder from the start. command (started on a free port:
# {port} is replaced; a leading `python` is the arena's own Python) or address = "host:port".
[house.random]
command = "python -m clients.bots.random --port {port} --seed 1"

[house.random-2]
command = "python -m clients.bots.random --port {port} --seed 2"

[house.lowest]
command = "python -m clients.bots.lowest --port {port}"

[house.heuristic]
command = "python -m clients.bots.heuristic --port {port}"

# A house bot may play under its own clock (any of budget_ms, bank_ms, grace_ms; the rest is
# [time]'s): a handicap for a strong one, e.g. the Monte Carlo bot held to 50 ms a card.
# [house.montecarlo]
# command = "python -m clients.bots.montecarlo --port {port}"
# budget_ms = 50
# bank_ms = 0
"""

_SECTIONS: dict[str, set[str]] = {
    "ladder": {"rules", "concurrency", "bot_concurrency", "cluster"},
    "time": {"budget_ms", "bank_ms", "grace_ms", "max_faults"},
    "server": {"host", "port"},
    "submissions": {
        "max_archive_bytes",
        "max_files",
        "max_unpacked_bytes",
        "max_stored_bytes",
        "allow_local_addresses",
        "build_timeout_s",
        "start_timeout_s",
    },
    "sandbox": {"memory_mb", "cpu_s"},
    "classroom": {
        "deadline",
        "final_deals",
        "final_seed",
        "final_auto",
        "final_format",
        "final_rounds",
        "final_advance",
        "anonymous",
    },
    "play": {"guests", "tables", "target"},
}


def _get(src: str, table: dict[str, Any], section: str, key: str, kind: type, default: Any, *, low: float = 0) -> Any:
    if key not in table:
        return default
    value = table[key]
    ok = isinstance(value, kind) and not isinstance(value, bool) if kind is not bool else isinstance(value, bool)
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value, ok = float(value), True
    if not ok:
        raise ArenaConfigError(f"{src}: [{section}] {key}: expected {kind.__name__}, not {value!r}")
    if kind in (int, float) and value < low:
        raise ArenaConfigError(f"{src}: [{section}] {key}: must be at least {low:g}, not {value!r}")
    return value


def parse_config(data: dict[str, Any], src: str = CONFIG_NAME) -> ArenaConfig:
    """The settings of a parsed arena.toml; ``ArenaConfigError`` naming the key otherwise."""
    unknown = set(data) - set(_SECTIONS) - {"name", "house"}
    if unknown:
        raise ArenaConfigError(f"{src}: unknown key(s) {', '.join(sorted(unknown))} (known: {', '.join(_SECTIONS)})")
    t: dict[str, dict[str, Any]] = {}
    for section, keys in _SECTIONS.items():
        table = data.get(section, {})
        if not isinstance(table, dict):
            raise ArenaConfigError(f"{src}: {section} must be a table ([{section}])")
        extra = set(table) - keys
        if extra:
            raise ArenaConfigError(f"{src}: [{section}] unknown key(s) {', '.join(sorted(extra))}")
        t[section] = table
    d = ArenaConfig()
    rules = _get(src, t["ladder"], "ladder", "rules", str, d.rules)
    try:
        rules = str(Rules.parse(rules))
    except ValueError as e:
        raise ArenaConfigError(f"{src}: [ladder] rules: {e}") from None
    deadline = t["classroom"].get("deadline")
    if deadline is not None:
        if isinstance(deadline, str):
            try:
                deadline = dt.datetime.fromisoformat(deadline.replace("Z", "+00:00"))
            except ValueError:
                raise ArenaConfigError(
                    f"{src}: [classroom] deadline: {deadline!r} is not an ISO 8601 time (e.g. 2026-12-18T17:00:00Z)"
                ) from None
        if not isinstance(deadline, dt.datetime) or deadline.tzinfo is None:
            raise ArenaConfigError(f"{src}: [classroom] deadline: give a time with its zone, e.g. 2026-12-18T17:00:00Z")
    final_format, final_advance = _final_format(src, t["classroom"], Rules.parse(rules))
    house = data.get("house", {})
    if not isinstance(house, dict):
        raise ArenaConfigError(f"{src}: house must be tables ([house.NAME])")
    bots = []
    for name, entry in house.items():
        if not isinstance(entry, dict) or len({"command", "address"} & set(entry)) != 1:
            raise ArenaConfigError(f"{src}: [house.{name}]: give exactly one of command or address")
        strange = sorted(set(entry) - {"command", "address", *CLOCK_KEYS})
        if strange:
            raise ArenaConfigError(
                f"{src}: [house.{name}]: unknown key(s) {', '.join(strange)} "
                f"(known: command or address, and {', '.join(CLOCK_KEYS)} for its own clock)"
            )
        clock = {k: entry[k] for k in CLOCK_KEYS if k in entry}
        try:
            own = TimeControl.from_dict(clock, f"{src}: [house.{name}]") if clock else None
        except TimeControlError as e:
            raise ArenaConfigError(str(e)) from None
        bots.append(HouseBot(name=name, command=entry.get("command"), address=entry.get("address"), time_control=own))
    sub, box = t["submissions"], t["sandbox"]
    limits = Limits(
        max_archive_bytes=_get(src, sub, "submissions", "max_archive_bytes", int, Limits.max_archive_bytes, low=1),
        max_files=_get(src, sub, "submissions", "max_files", int, Limits.max_files, low=1),
        max_unpacked_bytes=_get(src, sub, "submissions", "max_unpacked_bytes", int, Limits.max_unpacked_bytes, low=1),
        max_stored_bytes=_get(src, sub, "submissions", "max_stored_bytes", int, Limits.max_stored_bytes, low=1),
        allow_local_addresses=_get(
            src, sub, "submissions", "allow_local_addresses", bool, Limits.allow_local_addresses
        ),
        build_timeout_s=_get(src, sub, "submissions", "build_timeout_s", float, Limits.build_timeout_s, low=1),
        start_timeout_s=_get(src, sub, "submissions", "start_timeout_s", float, Limits.start_timeout_s, low=1),
        memory_mb=_get(src, box, "sandbox", "memory_mb", int, Limits.memory_mb, low=16),
        cpu_s=_get(src, box, "sandbox", "cpu_s", int, Limits.cpu_s, low=1),
    )
    name = data.get("name", d.name)
    if not isinstance(name, str):
        raise ArenaConfigError(f"{src}: name: expected a string, not {name!r}")
    return ArenaConfig(
        name=name,
        rules=rules,
        concurrency=_get(src, t["ladder"], "ladder", "concurrency", int, d.concurrency, low=1),
        bot_concurrency=_get(src, t["ladder"], "ladder", "bot_concurrency", int, d.bot_concurrency, low=1),
        cluster=_get(src, t["ladder"], "ladder", "cluster", str, "") or None,
        budget_ms=_get(src, t["time"], "time", "budget_ms", float, d.budget_ms, low=1),
        bank_ms=_get(src, t["time"], "time", "bank_ms", float, d.bank_ms),
        grace_ms=_get(src, t["time"], "time", "grace_ms", float, d.grace_ms),
        max_faults=_get(src, t["time"], "time", "max_faults", int, d.max_faults, low=1),
        host=_get(src, t["server"], "server", "host", str, d.host),
        port=_get(src, t["server"], "server", "port", int, d.port),
        limits=limits,
        deadline=deadline,
        final_deals=_get(src, t["classroom"], "classroom", "final_deals", int, d.final_deals, low=1),
        final_seed=_get(src, t["classroom"], "classroom", "final_seed", int, d.final_seed),
        final_auto=_get(src, t["classroom"], "classroom", "final_auto", bool, d.final_auto),
        final_format=final_format,
        final_rounds=_get(src, t["classroom"], "classroom", "final_rounds", int, d.final_rounds, low=1),
        final_advance=final_advance,
        anonymous=_get(src, t["classroom"], "classroom", "anonymous", bool, d.anonymous),
        house=tuple(bots),
        play_guests=_get(src, t["play"], "play", "guests", bool, d.play_guests),
        play_tables=_get(src, t["play"], "play", "tables", int, d.play_tables),
        play_target=_get(src, t["play"], "play", "target", int, d.play_target),
    )


def _final_format(src: str, table: dict[str, Any], rules: Rules) -> tuple[str, int | None]:
    """``final_format`` and ``final_advance``, checked against each other and the ladder's rules."""
    fmt = _get(src, table, "classroom", "final_format", str, ArenaConfig.final_format)
    if fmt not in FINAL_FORMATS:
        raise ArenaConfigError(
            f"{src}: [classroom] final_format: {fmt!r} is not a format of the final: give one of "
            + ", ".join(f'"{f}"' for f in FINAL_FORMATS)
        )
    if fmt != "round-robin" and rules.partnership != "none":
        raise ArenaConfigError(
            f"{src}: [classroom] final_format: a {fmt} ranks each bot by its own points, and [ladder] rules "
            'play in partnerships: give final_format = "round-robin", or rules without partners'
        )
    advance = _get(src, table, "classroom", "final_advance", int, None, low=1)
    if advance is not None:
        if fmt != "knockout":
            raise ArenaConfigError(
                f"{src}: [classroom] final_advance: a knockout's (the places of each table that go on): "
                'give final_format = "knockout", or leave final_advance out'
            )
        if advance >= rules.players:
            raise ArenaConfigError(
                f"{src}: [classroom] final_advance: give 1 to {rules.players - 1} (tables of {rules.players}), "
                f"not {advance}"
            )
    return fmt, advance


def load_config(arena_dir: Path | str) -> ArenaConfig:
    path = Path(arena_dir) / CONFIG_NAME
    try:
        data = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise ArenaConfigError(f"{path}: no such file; create the arena with `hearts arena init {arena_dir}`") from None
    except tomllib.TOMLDecodeError as e:
        raise ArenaConfigError(f"{path}: not valid TOML: {e}") from None
    return parse_config(data, str(path))
