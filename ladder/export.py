"""Matches as JSON: the harness's PGN. One JSON object per match, documented in docs/export.md.

``match_to_json(record)`` is one match as a JSON-ready dict, ``match_from_json(obj)`` reads it back
into the referee's ``MatchRecord``; ``export_matches(store)`` yields them one match at a time and
``write_jsonl(store, out)`` writes them one line each (``hearts export --format jsonl``). Memory
stays constant however many matches the store holds: the ids are read in batches
(``Store.match_ids``) and one record at a time is loaded, converted and written.

The object is the record as it stands (``referee/record.py``), field for field, with the rules as
their canonical text (``str(Rules)``; ``Rules.parse`` reads it back), enums as their values and
tuples as lists. Bot-controlled text (names, fault details, what a bot sent back) is data: JSON
escapes it, and ``dumps`` writes only ASCII, so no byte of it reaches a terminal as it was sent.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import re
from collections.abc import Iterator
from typing import Any, TextIO

from ladder.sandbox import Isolation
from ladder.store import Store
from referee.record import (
    ChargeRecord,
    FaultKind,
    FaultRecord,
    ForfeitReason,
    HandRecord,
    MatchRecord,
    MatchStatus,
    NoteKind,
    NoteRecord,
    PassRecord,
    PlayRecord,
    SeatRecord,
)
from referee.rules import Rules

SCHEMA = "hearts-arena/match"
VERSION = 5  # bump on any change a reader of the last version would misread; adding a field is one too
# 2: hands[].charges (turbo_charging); a version 1 object has none, and reads as charging nothing.
# 3: seats[].isolation (str(Isolation), or null: unknown), seats[].kind ("bot" or "human") and notes (what
#    the referee did for a seat that is no fault); an object of version 1 or 2 reads as bots whose
#    isolation is unknown, and no notes.
# 4: seats[].budget_ms, bank_ms and grace_ms (the clock each seat played under, or null: unknown); an object
#    of an earlier version reads as every seat's clock unknown.


class ExportError(ValueError):
    """An object that is not a match of a schema version this harness reads."""


def _plain(value: Any) -> Any:
    """A record's value as JSON holds it: enums by value, tuples (nested too) as lists."""
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


def _fields(obj: Any, **override: Any) -> dict[str, Any]:
    """Every field of a record dataclass, in declaration order, ``override`` replacing some."""
    return {
        f.name: override[f.name] if f.name in override else _plain(getattr(obj, f.name))
        for f in dataclasses.fields(obj)
    }


def match_to_json(record: MatchRecord) -> dict[str, Any]:
    """One match as a JSON-ready dict: ``schema`` and ``version`` first, then every field of the record,
    the seed also as ``seed_text`` (a JSON reader with 64-bit floats, as JavaScript's, rounds the number)."""
    fields = _fields(
        record,
        rules=str(Rules.from_dict(record.rules)),
        seats=[_fields(s, isolation=str(s.isolation) if s.isolation is not None else None) for s in record.seats],
        hands=[
            _fields(h, passes=[_fields(p) for p in h.passes], charges=[_fields(c) for c in h.charges])
            for h in record.hands
        ],
        plays=[_fields(p) for p in record.plays],
        faults=[_fields(f) for f in record.faults],
        notes=[_fields(n) for n in record.notes],
    )
    head = {"match_id": fields.pop("match_id"), "seed": fields.pop("seed"), "seed_text": str(record.seed)}
    return {"schema": SCHEMA, "version": VERSION, **head, **fields}


def _seed(obj: dict[str, Any]) -> int:
    """The seed: ``seed_text`` where the object has it (exact whatever read the number), else ``seed``."""
    number = obj["seed"]
    text = obj.get("seed_text")
    if text is None:
        return int(number)
    if not isinstance(text, str) or not re.fullmatch(r"-?[0-9]{1,20}", text):
        raise ValueError(f"seed_text {text!r} is not a decimal integer")
    return int(text)


def match_from_json(obj: dict[str, Any]) -> MatchRecord:
    """The ``MatchRecord`` an exported object holds; ``ExportError`` for another schema or a later version."""
    if obj.get("schema") != SCHEMA:
        raise ExportError(f"not a hearts-arena match (schema {obj.get('schema')!r}, expected {SCHEMA!r})")
    version = obj.get("version")
    if not isinstance(version, int) or not 1 <= version <= VERSION:
        raise ExportError(f"match schema version {version!r}: this hearts-arena reads versions 1 to {VERSION}")
    try:
        return MatchRecord(
            match_id=obj["match_id"],
            seed=_seed(obj),
            rules=Rules.parse(obj["rules"]).to_dict(),
            seats=[
                SeatRecord(
                    **{
                        **s,
                        "forfeit_reason": ForfeitReason(s["forfeit_reason"]) if s["forfeit_reason"] else None,
                        "isolation": _isolation(s.get("isolation")),
                        **{k: _milliseconds(s.get(k), k) for k in ("budget_ms", "bank_ms", "grace_ms")},
                    }
                )
                for s in obj["seats"]
            ],
            status=MatchStatus(obj["status"]),
            started_at=obj["started_at"],
            finished_at=obj["finished_at"],
            winners=tuple(obj["winners"]),
            hands=[
                HandRecord(
                    **{
                        **h,
                        "deal": tuple(tuple(d) for d in h["deal"]),
                        "kitty": tuple(h["kitty"]),
                        "passes": [PassRecord(**{**p, "cards": tuple(p["cards"])}) for p in h["passes"]],
                        "points_taken": tuple(h["points_taken"]),
                        "score": tuple(h["score"]),
                        "totals": tuple(h["totals"]),
                        "discard": tuple(h["discard"]),
                        "charges": [ChargeRecord(**{**c, "cards": tuple(c["cards"])}) for c in h.get("charges", ())],
                    }
                )
                for h in obj["hands"]
            ],
            plays=[PlayRecord(**p) for p in obj["plays"]],
            faults=[FaultRecord(**{**f, "kind": FaultKind(f["kind"])}) for f in obj["faults"]],
            tournament_id=obj["tournament_id"],
            notes=[NoteRecord(**{**n, "kind": NoteKind(n["kind"])}) for n in obj.get("notes", ())],
        )
    except (KeyError, TypeError, ValueError) as e:
        raise ExportError(f"not a well-formed match of version {version}: {type(e).__name__}: {e}") from None


def _isolation(value: Any) -> Isolation | None:
    """A seat's exported isolation read back: null (or absent, before version 3) is unknown."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise TypeError(f"a seat's isolation is text or null, not {type(value).__name__}")
    return Isolation.parse(value)


def _milliseconds(value: Any, key: str) -> float | None:
    """A seat's exported clock read back: a number, or null (or absent, before version 4) for unknown."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"a seat's {key} is a number or null, not {type(value).__name__}")
    return float(value)


def dumps(obj: dict[str, Any]) -> str:
    """One object as one line of JSON: compact, ASCII only, keys in schema order."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=True)


def export_matches(store: Store, tournament_id: int | None = None) -> Iterator[dict[str, Any]]:
    """Every match of the store (or of one tournament) as ``match_to_json`` gives it, in id order
    (a tournament's in schedule order), one record in memory at a time."""
    for match_id in store.match_ids(tournament_id=tournament_id):
        yield match_to_json(store.load_match(match_id))


def write_jsonl(store: Store, out: TextIO, tournament_id: int | None = None) -> int:
    """Write ``export_matches`` to ``out``, one line per match, each as soon as it is made; returns
    how many were written."""
    n = 0
    for obj in export_matches(store, tournament_id):
        out.write(dumps(obj) + "\n")
        n += 1
    return n
