"""The bots of a ladder: registered by name with a command that starts them, a remote address, or
the Python module of a bot played in-process.

Registrations live in the store's ``bots`` table (columns ``command``, ``address``, ``module``,
``description``, ``max_concurrency``, ``registered_at``), so ``hearts bot add/list/remove`` and a
tournament see the same list. A bots file (TOML, read with tomllib) registers several at once::

    [bots.random]
    command = "python -m clients.bots.random --port {port} --seed 1"

    [bots.student]
    command = "python student.py --port {port}"
    max_concurrency = 1   # it answers one request at a time: never seat it in two matches at once

    [bots.far-away]
    address = "10.0.0.7:50051"

    [bots.mine]
    module = "my_bot:MyBot"   # an SDK bot class, played in-process without gRPC (ladder.bots.inprocess)

    [bots.stranger]
    command = "python stranger/bot.py"
    sandbox = true          # run it in bubblewrap (docs/sandbox.md), whatever the run's --sandbox
    limits = { memory_mb = 256, cpu_share = 0.5 }   # its own limits, over the defaults

    [bots.house]
    module = "clients.bots.montecarlo:MonteCarloBot"
    budget_ms = 100         # its own clock (any of budget_ms, bank_ms, grace_ms); the rest is the run's
    bank_ms = 0

``sandbox``, ``limits`` and the clock belong to the bots file and the tournaments made from it (stored
with each tournament's entries); the registry table keeps none of them.

Removing a bot that has played keeps its row (its matches refer to it) and clears the
registration; a bot that never played is deleted.

A bot's name names its log file (``logs/NAME.log``) and is typed on command lines, so a name being
registered must be letters, digits, ``-``, ``_`` and ``.``, starting with a letter or a digit
(``check_name``). Names already stored (e.g. seen in old matches) are read as they are.
"""

from __future__ import annotations

import dataclasses
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ladder.bots.inprocess import BotModule, BotModuleError
from ladder.sandbox import Limits, LimitsError
from ladder.store import Store
from referee.settings import CLOCK_KEYS, TimeControl, TimeControlError

__all__ = [
    "BotEntry",
    "RegistryError",
    "add_bot",
    "add_bots",
    "check_name",
    "get_bot",
    "list_bots",
    "load_bots_file",
    "parse_bots",
    "remove_bot",
]

_ADDRESS = re.compile(r"^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9_.-]+):\d{1,5}$")
_TEXT_KEYS = {"command", "address", "module", "description"}
_KEYS = _TEXT_KEYS | {"max_concurrency", "sandbox", "limits", *CLOCK_KEYS}
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


class RegistryError(ValueError):
    """A bot entry or bots file that cannot be used, with what is wrong and where."""


@dataclass(frozen=True)
class BotEntry:
    """A registered bot: exactly one of ``command`` (a template with ``{port}``), ``address`` and
    ``module`` (``package.module:ClassName``, an SDK bot played in-process).

    ``description`` None (a bots file or a command line without one) means "keep the registered
    description" in ``add_bot``; "" clears it. Entries read from the store have None for no
    description (so an entry read and added again changes nothing).

    ``max_concurrency`` is the organiser's limit on the matches the bot plays at once; a tournament
    uses the lower of it and the handshake's ``max_concurrent_games``. Like ``description``: None
    keeps the registered limit in ``add_bot``, 0 clears it (no limit), and the store reads no limit
    as None.
    """

    name: str
    command: str | None = None
    address: str | None = None
    description: str | None = None
    max_concurrency: int | None = None
    module: str | None = None
    sandbox: bool = False  # always run in the full sandbox (docs/sandbox.md)
    limits: Limits | None = None  # its own sandbox limits (None: the run's)
    time_control: TimeControl | None = None  # its own clock, over the run's (None: the run's)

    def __post_init__(self) -> None:
        if not self.name or self.name != self.name.strip():
            raise RegistryError(f"bot name {self.name!r}: must be non-empty, without surrounding spaces")
        if [self.command, self.address, self.module].count(None) != 2:
            raise RegistryError(f"bot {self.name!r}: give exactly one of command, address or module")
        if self.command is not None and not self.command.strip():
            raise RegistryError(f"bot {self.name!r}: the command is empty")
        if self.address is not None and not _ADDRESS.match(self.address):
            raise RegistryError(f"bot {self.name!r}: address {self.address!r} is not HOST:PORT")
        if self.module is not None:
            try:
                BotModule.parse(self.module)
            except BotModuleError as e:
                raise RegistryError(f"bot {self.name!r}: {e}") from None
            if self.sandbox:
                raise RegistryError(
                    f"bot {self.name!r}: an in-process bot (module = ...) shares the harness's process and "
                    "cannot be sandboxed: give it a command instead"
                )
        limit = self.max_concurrency
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
            raise RegistryError(
                f"bot {self.name!r}: max_concurrency must be a whole number, 0 or more (0: no limit), not {limit!r}"
            )

    @property
    def kind(self) -> str:
        return "command" if self.command is not None else "address" if self.address is not None else "module"

    @property
    def target(self) -> str:
        """How the bot is started or reached: its command, address or module."""
        return self.command or self.address or self.module or ""

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "name": self.name,
            "command": self.command,
            "address": self.address,
            "description": self.description,
            "max_concurrency": self.max_concurrency,
            "module": self.module,
        }
        if self.sandbox:
            d["sandbox"] = True
        if self.limits is not None:
            d["limits"] = self.limits.overrides()
        if self.time_control is not None:
            d.update(self.time_control.to_dict())  # as a bots file writes it: beside the command
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> BotEntry:
        # Tournaments stored before max_concurrency existed have no such key: no limit.
        return cls(
            name=d["name"],
            command=d.get("command"),
            address=d.get("address"),
            description=d.get("description") or None,
            max_concurrency=d.get("max_concurrency") or None,
            module=d.get("module"),
            sandbox=bool(d.get("sandbox", False)),
            limits=Limits.from_dict(d["limits"]) if d.get("limits") is not None else None,
            time_control=_time_control(d, f"bot {d['name']!r}"),
        )


def _time_control(d: Mapping[str, Any], source: str) -> TimeControl | None:
    """The clock keys of an entry (a bots file's table, a stored entry) as a time control; None without any."""
    given = {k: d[k] for k in CLOCK_KEYS if k in d}
    return TimeControl.from_dict(given, source) if given else None


def check_name(name: str) -> str:
    """``name`` if it may be registered; else ``RegistryError`` saying which characters a name may have."""
    if not _NAME.match(name):
        raise RegistryError(
            f"bot name {name!r} is not allowed: use letters, digits, '-', '_' and '.', "
            f"starting with a letter or a digit (e.g. {_suggest(name)!r}); the name "
            f"names its log file, logs/NAME.log"
        )
    return name


def _suggest(name: str) -> str:
    s = re.sub(r"[^A-Za-z0-9._-]+", "-", name.strip()).lstrip("-_.")
    return s or "my-bot"


def parse_bots(data: dict[str, Any], source: str = "bots file") -> list[BotEntry]:
    """The entries of a parsed bots file: a ``bots`` table of ``NAME = {command|address, ...}``."""
    unknown_top = set(data) - {"bots"}
    if unknown_top:
        raise RegistryError(
            f"{source}: unknown top-level key(s) {', '.join(sorted(unknown_top))}; bots go in [bots.NAME] tables"
        )
    bots = data.get("bots")
    if not isinstance(bots, dict) or not bots:
        raise RegistryError(
            f'{source}: no [bots.NAME] tables (each with command = "...", address = "..." or module = "...")'
        )
    out = []
    for name, spec in bots.items():
        if not isinstance(spec, dict):
            raise RegistryError(f"{source}: bots.{name} must be a table with command, address or module")
        unknown = set(spec) - _KEYS
        if unknown:
            raise RegistryError(
                f"{source}: bots.{name}: unknown key(s) {', '.join(sorted(unknown))} "
                f"(expected {', '.join(sorted(_KEYS))})"
            )
        try:
            check_name(name)
        except RegistryError as e:
            raise RegistryError(f"{source}: {e}") from None
        for key in _TEXT_KEYS & set(spec):
            if not isinstance(spec[key], str):
                raise RegistryError(f"{source}: bots.{name}.{key} must be a string")
        limit = spec.get("max_concurrency")
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
            raise RegistryError(
                f"{source}: bots.{name}.max_concurrency must be a whole number, 0 or more "
                f"(0: no limit), e.g. max_concurrency = 1"
            )
        sandbox = spec.get("sandbox", False)
        if not isinstance(sandbox, bool):
            raise RegistryError(f"{source}: bots.{name}.sandbox must be true or false, e.g. sandbox = true")
        limits = spec.get("limits")
        if limits is not None:
            if not isinstance(limits, dict):
                raise RegistryError(
                    f"{source}: bots.{name}.limits must be a table, e.g. limits = {{ memory_mb = 256 }}"
                )
            try:
                limits = Limits.from_dict(limits, source=f"bots.{name}.limits")
            except LimitsError as e:
                raise RegistryError(f"{source}: {e}") from None
        try:
            clock = _time_control(spec, f"bots.{name}")
        except TimeControlError as e:
            raise RegistryError(f"{source}: {e}") from None
        try:
            out.append(
                BotEntry(
                    name=name,
                    command=spec.get("command"),
                    address=spec.get("address"),
                    description=spec.get("description"),
                    max_concurrency=limit,
                    module=spec.get("module"),
                    sandbox=sandbox,
                    limits=limits,
                    time_control=clock,
                )
            )
        except RegistryError as e:
            raise RegistryError(f"{source}: {e}") from None
    return out


def load_bots_file(path: Path | str) -> list[BotEntry]:
    """Read a bots TOML file."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except FileNotFoundError:
        raise RegistryError(f"bots file {p} does not exist") from None
    try:
        text = raw.decode("utf-8")  # TOML is UTF-8; tomllib would raise a bare UnicodeDecodeError
    except UnicodeDecodeError as e:
        line = raw[: e.start].count(b"\n") + 1
        raise RegistryError(
            f"bots file {p} is not UTF-8 text (byte 0x{raw[e.start]:02x} on line {line}): save it as UTF-8"
        ) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise RegistryError(f"bots file {p} is not valid TOML: {e}") from None
    return parse_bots(data, str(p))


def add_bot(store: Store, entry: BotEntry, *, replace: bool = True) -> bool:
    """Register (or update) a bot; returns True if it was new. ``replace=False`` refuses a change.

    An entry whose ``description`` (or ``max_concurrency``) is None keeps the registered one (none
    for a new bot). ``RegistryError`` if the name is not allowed (``check_name``).
    """
    check_name(entry.name)
    entry = dataclasses.replace(entry, sandbox=False, limits=None, time_control=None)  # the registry keeps none
    with store.db.atomic():
        current = get_bot(store, entry.name)
        if entry.description is None:
            entry = dataclasses.replace(entry, description=current.description if current is not None else None)
        elif not entry.description:
            entry = dataclasses.replace(entry, description=None)  # "" clears: stored as NULL, read as None
        if entry.max_concurrency is None:
            entry = dataclasses.replace(entry, max_concurrency=current.max_concurrency if current else None)
        elif not entry.max_concurrency:
            entry = dataclasses.replace(entry, max_concurrency=None)  # 0 clears: no limit is NULL
        if current is not None and current != entry and not replace:
            raise RegistryError(
                f"bot {entry.name!r} is already registered ({current.kind}: {current.target}); remove it first"
            )
        store.bot_id(entry.name)  # the store's own insert keeps its created_at and id rules
        store.registrations.set(
            entry.name,
            entry.command,
            entry.address,
            entry.description or None,
            entry.max_concurrency,
            changed=current != entry,
            module=entry.module,
        )
    return current is None


def add_bots(store: Store, entries: Iterable[BotEntry]) -> list[BotEntry]:
    """Register several bots in one transaction (a bots file); returns them."""
    entries = list(entries)
    with store.db.atomic():
        for e in entries:
            add_bot(store, e)
    return entries


def _entry(row: Mapping[str, Any]) -> BotEntry:
    return BotEntry(
        name=row["name"],
        command=row["command"],
        address=row["address"],
        description=row["description"] or None,
        max_concurrency=row["max_concurrency"] or None,
        module=row["module"],
    )


def get_bot(store: Store, name: str) -> BotEntry | None:
    row = store.registrations.get(name)
    return None if row is None else _entry(row)


def list_bots(store: Store) -> list[BotEntry]:
    """Registered bots, by name."""
    return [_entry(r) for r in store.registrations.all()]


def remove_bot(store: Store, name: str) -> bool:
    """Unregister a bot; False if it was not registered. Its matches (and ratings) stay."""
    with store.db.atomic():
        if get_bot(store, name) is None:
            return False
        store.registrations.unregister(name)
    return True
