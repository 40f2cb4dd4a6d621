"""ladder.export and ``hearts export`` / ``hearts replay --json``: every field of every record, read
back against the store; a tournament's matches through the real CLI; memory that does not grow
with the number of matches exported.

Real matches of the sample bots (in-process seats) and of a bot that sometimes plays a card the
rules forbid, under rulesets with a kitty discard and a called pass, saved in a real SQLite file.
"""

from __future__ import annotations

import asyncio
import dataclasses
import enum
import gc
import json
import re
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from cheat import Cheat
from cli_runner import ok, run

from clients.bots import make_bot
from ladder.bots.registry import BotEntry
from ladder.export import (
    SCHEMA,
    VERSION,
    ExportError,
    dumps,
    export_matches,
    match_from_json,
    match_to_json,
    write_jsonl,
)
from ladder.store import Store
from ladder.store.save import save_scheduled
from ladder.tournament.run import TournamentSpec, create_tournament, pending_matches
from ladder.tournament.schedule import match_id
from referee.match import MatchSettings, play_match
from referee.record import (
    ChargeRecord,
    FaultRecord,
    HandRecord,
    MatchRecord,
    NoteKind,
    NoteRecord,
    PassRecord,
    PlayRecord,
    SeatRecord,
)
from referee.rules import Rules
from referee.seats import InProcessSeat

FAST = "standard,target=20"
KITTY_CALL = "standard,kitty=first-trick,hand_size=12,kitty_discard=true,pass_cycle=call,target=20"
TURBO = "turbo"  # turbo-charging: every hand's charges (the random bot charges at random)
RULESETS = (FAST, KITTY_CALL, "nasty,players=3,target=20", TURBO)
HOSTILE_NAME = 'rude "\x1b[31m\u202e\\'  # bot-controlled text: kept, escaped by JSON
IN_TOURNAMENT = 8  # 4 bots at one table, 2 deals, each in 4 seat rotations
NESTED = {"seats": SeatRecord, "hands": HandRecord, "plays": PlayRecord, "faults": FaultRecord, "notes": NoteRecord}


def seat(name: str, i: int) -> InProcessSeat:
    if name == HOSTILE_NAME or name.startswith("cheat"):
        return InProcessSeat(Cheat(7, always=True), name)
    kind = "lowest" if name.startswith("lowest") else "heuristic" if name.startswith("heur") else "random"
    return InProcessSeat(make_bot(kind, seed=i), name)


def play(names: list[str], rules: str, seed: int, **kw: Any) -> MatchRecord:
    seats = [seat(n, i) for i, n in enumerate(names)]
    return asyncio.run(play_match(seats, Rules.parse(rules), seed, settings=MatchSettings(), names=names, **kw))


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    """A database with single matches under three rulesets (faults among them) and one tournament
    played in process and recorded through save_scheduled; returns the file and the tournament id."""
    db = tmp_path_factory.mktemp("export") / "arena.db"
    with Store(db) as store:
        for seed, rules in enumerate(RULESETS * 2):
            players = Rules.parse(rules).players
            names = [HOSTILE_NAME, "lowest", "heur", "rnd", "rnd-2"][:players]
            store.save_match(play(names, rules, seed + 1))
        entries = [BotEntry(n, command="python -m clients.bots.lowest --port {port}") for n in ("cheat", "heur", "rnd")]
        entries.append(BotEntry("lowest", command="python -m clients.bots.lowest --port {port}"))
        tid = create_tournament(store, entries, TournamentSpec(rules=KITTY_CALL, deals=2, seed=3))
        for m in pending_matches(store, tid):
            record = play(list(m.seats), m.rules, m.seed, match_id=match_id(tid, m.index), tournament_id=tid)
            save_scheduled(store, tid, m.index, record)
    return db, tid


def expected(value: Any) -> Any:
    """A record's value as the JSON must hold it: enums by value, tuples as lists."""
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, tuple | list):
        return [expected(v) for v in value]
    return value


def check_object(obj: dict[str, Any], rec: Any, where: str) -> None:
    """Every field of the dataclass ``rec`` is in ``obj`` with its value, and nothing else is."""
    fields = [f.name for f in dataclasses.fields(rec)]
    extra = {"schema", "version", "seed_text"} if isinstance(rec, MatchRecord) else set()
    assert set(obj) == set(fields) | extra, f"{where}: keys {sorted(obj)} vs fields {fields}"
    for name in fields:
        value, got = getattr(rec, name), obj[name]
        if isinstance(rec, MatchRecord) and name in NESTED:
            assert isinstance(got, list) and len(got) == len(value), f"{where}.{name}"
            for i, (o, r) in enumerate(zip(got, value, strict=True)):
                assert isinstance(r, NESTED[name])
                check_object(o, r, f"{where}.{name}[{i}]")
        elif isinstance(rec, HandRecord) and name in ("passes", "charges"):
            assert len(got) == len(value), f"{where}.{name}"
            for i, (o, r) in enumerate(zip(got, value, strict=True)):
                assert isinstance(r, PassRecord if name == "passes" else ChargeRecord)
                check_object(o, r, f"{where}.{name}[{i}]")
        elif isinstance(rec, SeatRecord) and name == "isolation":
            assert got == (str(value) if value is not None else None), f"{where}.isolation: its text"
        elif isinstance(rec, MatchRecord) and name == "rules":
            assert got == str(Rules.from_dict(value)), f"{where}.rules: the canonical text"
            assert Rules.parse(got).to_dict() == value, f"{where}.rules: reads back"
        else:
            assert got == expected(value), f"{where}.{name}: {got!r} != {value!r}"
            assert type(got) is type(expected(value)), f"{where}.{name}: {type(got)} for {type(value)}"


def test_every_field_of_every_record_is_exported_and_reads_back(arena: tuple[Path, int]) -> None:
    db, _ = arena
    with Store(db, readonly=True) as store:
        exported = [json.loads(dumps(obj)) for obj in export_matches(store)]  # through the text, as written
        ids = list(store.match_ids())
        assert [o["match_id"] for o in exported] == ids == sorted(ids) and len(ids) == 2 * len(RULESETS) + IN_TOURNAMENT
        records = [store.load_match(i) for i in ids]
    for obj, rec in zip(exported, records, strict=True):
        assert (obj["schema"], obj["version"]) == (SCHEMA, VERSION) == ("hearts-arena/match", 5)
        assert list(obj)[:5] == ["schema", "version", "match_id", "seed", "seed_text"]
        assert obj["seed_text"] == str(rec.seed)
        check_object(obj, rec, rec.match_id)
        assert match_from_json(obj) == rec
    # The optional parts were exercised: faults and substitutes, forfeits, discards, called passes, charges,
    # a tournament id, a 3-player table, and the hostile name as it was given.
    hands = [h for r in records for h in r.hands]
    assert any(r.faults for r in records) and any(p.substituted for r in records for p in r.plays)
    assert any(s.forfeit and s.forfeit_reason for r in records for s in r.seats)
    assert any(h.discard_seat is not None and h.discard for h in hands)
    assert any(h.pass_call is not None and h.pass_call_latency_ms is not None for h in hands)
    # 002 Turbo: each seat's charge of each hand, a charged card among them, a substitute's (for the cheat once
    # it forfeited) too; the cheat has no charge_cards: it charges nothing, no fault, and a note says so
    turbo_records = [r for r in records if r.rules == Rules.parse(TURBO).to_dict()]
    turbo = [h for r in turbo_records for h in r.hands]
    assert turbo and all(len(h.charges) == 4 for h in turbo)
    assert any(c.cards for h in turbo for c in h.charges) and any(c.substituted for h in turbo for c in h.charges)
    assert all(
        any(n.kind is NoteKind.UNIMPLEMENTED and "ChargeCards" in n.detail for n in r.notes) for r in turbo_records
    )
    assert not any(f.sent.startswith("ChargeCards") for r in turbo_records for f in r.faults)
    assert not any(h.charges for r in records if r.rules != Rules.parse(TURBO).to_dict() for h in r.hands)
    assert any(r.tournament_id is not None for r in records) and any(len(r.seats) == 3 for r in records)
    assert any(s["bot"] == HOSTILE_NAME for o in exported for s in o["seats"])
    assert all(s["isolation"] == "in-process" for o in exported for s in o["seats"])  # every seat an InProcessSeat
    assert all(o["plays"][0]["latency_ms"] is not None for o in exported)


def test_a_line_is_ascii_json_and_bot_text_stays_data(arena: tuple[Path, int]) -> None:
    db, _ = arena
    with Store(db, readonly=True) as store:
        obj = next(o for o in export_matches(store) if o["seats"][0]["bot"] == HOSTILE_NAME)
    line = dumps(obj)
    assert "\n" not in line and line.isascii() and "\x1b" not in line
    assert json.loads(line)["seats"][0]["bot"] == HOSTILE_NAME


def test_a_reader_refuses_another_schema_or_a_later_version(arena: tuple[Path, int]) -> None:
    db, _ = arena
    with Store(db, readonly=True) as store:
        obj = match_to_json(store.load_match(next(store.match_ids())))
    with pytest.raises(ExportError, match="versions 1 to 5"):
        match_from_json({**obj, "version": 6})
    # A version 2 object has no seat kinds: its seats read as bots.
    older = {**obj, "version": 2, "seats": [{k: v for k, v in s.items() if k != "kind"} for s in obj["seats"]]}
    assert [s.kind for s in match_from_json(older).seats] == ["bot"] * len(obj["seats"])
    with pytest.raises(ExportError, match="not a hearts-arena match"):
        match_from_json({**obj, "schema": "pgn"})
    with pytest.raises(ExportError, match="not a well-formed match"):
        match_from_json({k: v for k, v in obj.items() if k != "seed"})


def test_an_older_version_reads_as_isolation_unknown_and_a_bad_isolation_is_refused(arena: tuple[Path, int]) -> None:
    """Version 3 added each seat's isolation: an object of version 2 (none) reads as unknown. A seat's
    isolation is its text (``str(Isolation)``) or null: anything else is no match of this schema."""
    db, _ = arena
    with Store(db, readonly=True) as store:
        obj = match_to_json(store.load_match(next(store.match_ids())))
    older = {**obj, "version": 2, "seats": [{k: v for k, v in s.items() if k != "isolation"} for s in obj["seats"]]}
    assert all(s.isolation is None for s in match_from_json(older).seats)
    for bad in ("jail", "sandbox:x-ray", 7, ["sandbox"]):
        hostile = {**obj, "seats": [{**obj["seats"][0], "isolation": bad}, *obj["seats"][1:]]}
        with pytest.raises(ExportError, match="not a well-formed match"):
            match_from_json(hostile)


def test_each_seats_clock_is_exported_an_older_version_reads_as_unknown_and_a_bad_one_is_refused() -> None:
    """Version 4 added the clock each seat played under: numbers, or null where the record has none (a
    match stored before the store kept it), which is then the line it was but for the version and those
    nulls. An object of version 3 (none) reads as unknown; a clock that is no number is no match."""
    rec = play(["lowest", "heur", "rnd", "rnd-2"], FAST, 3)
    rec.seats[0].budget_ms, rec.seats[0].bank_ms, rec.seats[0].grace_ms = 5.0, 0.0, 0.0
    obj = match_to_json(rec)
    assert [(s["budget_ms"], s["bank_ms"], s["grace_ms"]) for s in obj["seats"][:1]] == [(5.0, 0.0, 0.0)]
    assert list(obj["seats"][0])[-3:] == ["budget_ms", "bank_ms", "grace_ms"]  # after every field of version 3
    assert match_from_json(json.loads(dumps(obj))) == rec
    unknown = dataclasses.replace(
        rec, seats=[dataclasses.replace(s, budget_ms=None, bank_ms=None, grace_ms=None) for s in rec.seats]
    )
    line = dumps(match_to_json(unknown))
    assert line.count('"budget_ms":null,"bank_ms":null,"grace_ms":null}') == 4
    older = json.loads(
        re.sub(r',"seed_text":"[-0-9]+"', "", line.replace('"version":5', '"version":3')).replace(
            ',"budget_ms":null,"bank_ms":null,"grace_ms":null', ""
        )
    )
    assert all("budget_ms" not in s for s in older["seats"]) and match_from_json(older) == unknown
    for bad in ("5", True, [5]):
        hostile = {**obj, "seats": [{**obj["seats"][0], "bank_ms": bad}, *obj["seats"][1:]]}
        with pytest.raises(ExportError, match="not a well-formed match"):
            match_from_json(hostile)


def test_a_64_bit_seed_is_exported_as_text_too_which_a_float_reader_does_not_round() -> None:
    """Version 5: a reader whose numbers are 64-bit floats (JavaScript) rounds a seed past 2^53; the
    seed's text is exact, and is what a reader takes. An older object has the number alone."""
    rec = dataclasses.replace(play(["lowest", "heur", "rnd", "rnd-2"], FAST, 3), seed=-5902212948766628122)
    line = dumps(match_to_json(rec))
    assert '"seed":-5902212948766628122,"seed_text":"-5902212948766628122"' in line
    as_javascript = json.loads(line, parse_int=float)  # every number a double, as JSON.parse reads it
    assert as_javascript["seed"] != rec.seed and as_javascript["seed_text"] == str(rec.seed)
    assert match_from_json({**json.loads(line), "seed": as_javascript["seed"]}).seed == rec.seed
    older = {k: v for k, v in json.loads(line).items() if k != "seed_text"} | {"version": 4}
    assert match_from_json(older) == rec
    with pytest.raises(ExportError, match="not a well-formed match"):
        match_from_json({**json.loads(line), "seed_text": "1e3"})


def test_match_ids_pages_by_key_and_filters_by_tournament(arena: tuple[Path, int]) -> None:
    db, tid = arena
    with Store(db, readonly=True) as store:
        every = list(store.match_ids())
        assert list(store.match_ids(batch=1)) == list(store.match_ids(batch=5)) == every
        of_t = list(store.match_ids(tournament_id=tid, batch=3))
        assert of_t == [f"t{tid}-{i:06d}" for i in range(IN_TOURNAMENT)]
        assert of_t == [m for m in every if m.startswith(f"t{tid}-")]
        assert list(store.match_ids(tournament_id=99)) == []


def test_hearts_export_and_replay_json_through_the_cli(arena: tuple[Path, int]) -> None:
    db, tid = arena
    with Store(db, readonly=True) as store:
        want = {i: match_to_json(store.load_match(i)) for i in store.match_ids()}
    lines = ok("export", "--format", "jsonl", "--tournament", str(tid), "--db", str(db)).splitlines()
    got = [json.loads(line) for line in lines]
    assert [o["match_id"] for o in got] == [f"t{tid}-{i:06d}" for i in range(IN_TOURNAMENT)]
    assert all(o == want[o["match_id"]] and o["tournament_id"] == tid for o in got)
    everything = ok("export", "--db", str(db)).splitlines()  # jsonl is the default format
    assert [json.loads(line) for line in everything] == list(want.values())
    # replay --json: the same line as the export's, for an id or a unique prefix of it
    assert ok("replay", f"t{tid}-000005", "--json", "--db", str(db)) == lines[5] + "\n"
    single = next(i for i in want if not i.startswith("t"))
    assert json.loads(ok("replay", single[:12], "--json", "--db", str(db))) == want[single]


def test_hearts_export_errors(arena: tuple[Path, int], tmp_path: Path) -> None:
    db, _ = arena
    r = run("export", "--tournament", "99", "--db", str(db))
    assert r.exit_code == 1 and "no tournament 99 in" in r.output
    r = run("export", "--format", "csv", "--db", str(db))
    assert r.exit_code == 2 and "'csv' is not 'jsonl'" in r.output
    r = run("replay", "zzz", "--json", "--db", str(db))
    assert r.exit_code == 1 and "no match 'zzz'" in r.output
    empty = tmp_path / "empty.db"
    Store(empty).close()
    assert ok("export", "--db", str(empty)) == ""


class Sink:
    """A stream that keeps nothing of what is written to it but its size."""

    def __init__(self) -> None:
        self.lines = 0
        self.chars = 0

    def write(self, text: str) -> int:
        self.lines += text.count("\n")
        self.chars += len(text)
        return len(text)


def peak_bytes(fn: Any) -> int:
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.slow
def test_export_memory_does_not_grow_with_the_number_of_matches(tmp_path: Path) -> None:
    """The peak of Python's allocations (tracemalloc) while exporting 200 matches is about that of
    exporting 20, and below that of holding 20; collecting the same export into a list instead grows
    about tenfold, which shows the measure would catch an export that holds its matches."""
    records = [play(["lowest", "heur", "rnd", "cheat"], FAST, seed) for seed in range(1, 21)]
    for n in (20, 200):
        with Store(tmp_path / f"{n}.db") as store:
            for i in range(n):  # the 20 matches, saved again under new ids up to n
                store.save_match(dataclasses.replace(records[i % 20], match_id=f"m{i:06d}"))
    del records
    stores = {n: Store(tmp_path / f"{n}.db", readonly=True) for n in (20, 200)}
    peaks: dict[int, int] = {}
    held: dict[int, int] = {}
    # The cyclic collector is off while measuring: a full collection empties CPython's free lists of
    # small tuples (up to 2,000 of each size), whose refilling tracemalloc counts, at moments that
    # depend on the count. Off, it also frees no garbage cycle: one left per match would show here.
    gc.disable()
    try:
        # Warm up on the larger export: imports, caches, the rules' parse, the free lists filled.
        write_jsonl(stores[200], Sink())
        for n, store in stores.items():
            sink = Sink()
            peaks[n] = peak_bytes(lambda store=store, sink=sink: write_jsonl(store, sink))
            assert sink.lines == n
    finally:
        gc.enable()
    for n, store in stores.items():
        held[n] = peak_bytes(lambda store=store: list(export_matches(store)))
        store.close()
    print(f"peak while exporting: 20 matches {peaks[20]} B, 200 matches {peaks[200]} B")
    print(f"peak holding the export in a list: 20 matches {held[20]} B, 200 matches {held[200]} B")
    # What is left of the difference is bounded (CPython's free lists filling up; it stops growing
    # by some hundreds of matches): under a twentieth of what holding the 180 more matches costs.
    assert peaks[200] - peaks[20] < (held[200] - held[20]) / 20
    assert peaks[200] < held[20]  # streaming 200 takes less than holding 20
    assert held[200] > held[20] * 5  # the control: holding the matches does show
