"""What a validation found: each check's outcome and evidence, the bot's handshake, the latency, and the
report as the JSON of ``hearts validate --json`` (what the store keeps of a submission's validation)."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from hearts.v1 import bot_pb2 as pb
from hearts.v1 import codec
from ladder.sandbox import Isolation
from referee.record import FaultKind
from referee.report import percentile
from referee.rules import Rules

SCHEMA = "hearts-arena/validate"
VERSION = 2  # bump on any change a reader of the last version would misread; adding a field is one too
# 2: isolation (str(Isolation), or null: unknown); a version 1 report reads as unknown.


class Outcome(str, enum.Enum):
    PASS = "pass"
    WARN = "warn"  # worth fixing, but a match would record no fault for it
    FAIL = "fail"  # a match would record a fault (or the launcher would not seat the bot)
    SKIP = "skip"  # not run: the bot stopped answering, or the rules cannot build the position


@dataclass(frozen=True)
class Check:
    """One check and what it found. ``kind`` groups checks (``"position"``, ``"handshake"``...);
    ``fault`` is the kind the referee would record; ``request`` is the request in a line,
    ``request_json`` the whole message (proto3 JSON, kept for failures and warnings);
    ``received`` what came back. Bot-controlled text (details, replies) is raw: show it inert."""

    kind: str
    name: str
    outcome: Outcome
    detail: str
    rules: str | None = None
    fault: FaultKind | None = None
    request: str = ""
    request_json: dict[str, Any] | None = None
    received: str = ""
    cites: str = ""

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["outcome"] = self.outcome.value
        d["fault"] = self.fault.value if self.fault is not None else None
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Check:
        return cls(
            **{
                **d,
                "outcome": Outcome(d["outcome"]),
                "fault": FaultKind(d["fault"]) if d.get("fault") is not None else None,
            }
        )


@dataclass(frozen=True)
class BotInfo:
    """The bot's handshake, as it answered (raw text: show it inert)."""

    name: str
    version: str
    author: str
    language: str
    protocol_version: int
    presets: tuple[str, ...]
    options: tuple[str, ...]
    max_concurrent_games: int
    wants_notifications: bool

    @classmethod
    def of(cls, hello: pb.HandshakeResponse) -> BotInfo:
        return cls(
            hello.name,
            hello.version,
            hello.author,
            hello.language,
            hello.protocol_version,
            tuple(hello.presets),
            tuple(hello.options),
            hello.max_concurrent_games,
            hello.wants_notifications,
        )

    @property
    def claimed_presets(self) -> tuple[str, ...]:
        """The presets the handshake claims: those it names, else those of its protocol version."""
        return self.presets or codec.presets_of(self.protocol_version)

    @property
    def claimed_options(self) -> tuple[str, ...]:
        """The rule options the handshake claims: those it names, else those of its protocol version."""
        return self.options or codec.options_of(self.protocol_version)

    def claims(self, rules: Rules) -> bool:
        """Whether the handshake claims these rules: their preset among ``claimed_presets``, and every
        option they set away from that preset among ``claimed_options`` (a bot that names none claims
        those its protocol version knew: a bot written before a variant never claims it). The options
        are those the canonical text names (``standard,players=5``: players; the pass cycle it implies
        is not asked for)."""
        base, *changes = str(rules).split(",")
        if base not in self.claimed_presets:
            return False
        return {change.split("=", 1)[0] for change in changes} <= set(self.claimed_options)


@dataclass(frozen=True)
class Latency:
    """The decisions' latencies (ms): how many, the median, the 99th percentile (nearest rank), the slowest."""

    decisions: int
    p50_ms: float | None
    p99_ms: float | None
    max_ms: float | None

    @classmethod
    def of(cls, values: Sequence[float]) -> Latency:
        if not values:
            return cls(0, None, None, None)
        return cls(len(values), percentile(values, 50), percentile(values, 99), max(values))


@dataclass(frozen=True)
class Report:
    """A validation: the bot, where it was reached, the rules checked, every check, the latency."""

    address: str
    bot: BotInfo | None
    rules: tuple[str, ...]
    budget_ms: float
    bank_ms: float
    grace_ms: float
    checks: tuple[Check, ...]
    latency: Latency
    started_at: str
    finished_at: str
    command: str | None = None
    isolation: Isolation | None = None  # what guarded the bot while it was checked; None: unknown

    @property
    def ok(self) -> bool:
        """No check failed (warnings and skips for positions the rules cannot build are fine)."""
        return not any(c.outcome is Outcome.FAIL for c in self.checks)

    def counts(self) -> dict[str, int]:
        return {o.value: sum(1 for c in self.checks if c.outcome is o) for o in Outcome}

    def failures(self) -> list[Check]:
        return [c for c in self.checks if c.outcome is Outcome.FAIL]

    def to_dict(self) -> dict[str, Any]:
        """The report as plain JSON values (``Report.from_dict`` reads it back)."""
        return {
            "schema": SCHEMA,
            "version": VERSION,
            "ok": self.ok,
            "counts": self.counts(),
            "address": self.address,
            "command": self.command,
            "isolation": str(self.isolation) if self.isolation is not None else None,
            "bot": _plain(asdict(self.bot)) if self.bot is not None else None,
            "rules": list(self.rules),
            "budget_ms": self.budget_ms,
            "bank_ms": self.bank_ms,
            "grace_ms": self.grace_ms,
            "latency": asdict(self.latency),
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "checks": [c.to_dict() for c in self.checks],
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Report:
        if d.get("schema") != SCHEMA or d.get("version") not in range(1, VERSION + 1):
            raise ValueError(
                f"not a {SCHEMA} report of versions 1 to {VERSION}: {d.get('schema')!r} {d.get('version')!r}"
            )
        bot = d["bot"]
        isolation = d.get("isolation")  # none in version 1
        return cls(
            address=d["address"],
            command=d["command"],
            isolation=Isolation.parse(isolation) if isolation is not None else None,
            bot=BotInfo(**{**bot, "presets": tuple(bot["presets"]), "options": tuple(bot["options"])})
            if bot is not None
            else None,
            rules=tuple(d["rules"]),
            budget_ms=d["budget_ms"],
            bank_ms=d["bank_ms"],
            grace_ms=d["grace_ms"],
            latency=Latency(**d["latency"]),
            started_at=d["started_at"],
            finished_at=d["finished_at"],
            checks=tuple(Check.from_dict(c) for c in d["checks"]),
        )


def _plain(d: dict[str, Any]) -> dict[str, Any]:
    return {k: list(v) if isinstance(v, tuple) else v for k, v in d.items()}
