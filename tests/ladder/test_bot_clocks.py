"""Time controls per bot: a bots-file entry's ``budget_ms``, ``bank_ms`` and ``grace_ms`` and ``--seat
NAME[budget_ms=...]=TARGET`` give one bot its own clock, the rest of it the run's.

The same program, tests/ladder/bots/sleepy.py (20 ms over every decision), sits at one table under two
names: under its own 5 ms budget with no bank and no grace it times out until it forfeits, under the
run's clock never. Played through the real ``hearts`` command: ``hearts match`` (in-process, and over
gRPC as commands), ``hearts tournament run --bots FILE`` (in a worker process) and ``hearts tournament
resume`` after the registry changed the bot; every seat's clock is read back from the store. Nothing
here bounds the wall clock: the faults follow from 20 ms against 5, and 20 ms against a second.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from cli_procs import FAST
from cli_runner import ok, run

from ladder.bots.registry import BotEntry, RegistryError, add_bot, get_bot, load_bots_file, parse_bots
from ladder.cli.common import _seat_entries
from ladder.store import Store
from ladder.tournament.run import TournamentSpec, create_tournament, get_tournament
from referee.record import FaultKind, MatchRecord
from referee.settings import TimeControl

ROOT = Path(__file__).resolve().parents[2]
BOTS_DIR = Path(__file__).resolve().parent / "bots"
HEARTS = str(Path(sys.executable).with_name("hearts"))
OWN = TimeControl(budget_ms=5, bank_ms=0, grace_ms=0)
RUNS = (1000.0, 10_000.0, 50.0)  # the run's clock: the defaults of --budget-ms, --bank-ms, --grace-ms
BOTS_TOML = """
[bots.hasty]
module = "sleepy:Sleepy"
budget_ms = 5
bank_ms = 0
grace_ms = 0

[bots.calm]
module = "sleepy:Sleepy"

[bots.low]
module = "clients.bots.lowest:LowestBot"

[bots.rnd]
module = "clients.bots.random:RandomBot"
"""


@pytest.fixture()
def sleepy_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """``sleepy:Sleepy`` importable here (and in the worker processes, which take this path)."""
    monkeypatch.syspath_prepend(str(BOTS_DIR))


def clocks(record: MatchRecord) -> dict[str, tuple[float | None, float | None, float | None]]:
    return {s.bot: (s.budget_ms, s.bank_ms, s.grace_ms) for s in record.seats}


def check_only_hasty_timed_out(record: MatchRecord, max_faults: int = 3) -> None:
    """The bot under its own 5 ms clock timed out until it forfeited; nobody else faulted; each seat's
    record says the clock it played under."""
    hasty = next(s.seat for s in record.seats if s.bot == "hasty")
    assert record.faults and {f.seat for f in record.faults} == {hasty}, record.faults
    assert [f.kind for f in record.faults] == [FaultKind.TIMEOUT] * max_faults
    assert [s.bot for s in record.seats if s.forfeit] == ["hasty"]
    assert clocks(record) == {"hasty": (5.0, 0.0, 0.0), **{b: RUNS for b in ("calm", "low", "rnd")}}


# -- the --seat syntax ---------------------------------------------------------------------------


def test_a_seat_gives_its_bot_a_clock_in_brackets_after_the_name(tmp_path: Path) -> None:
    """The clock comes right after the name, before any ``=``: the target is as it would be without it,
    a command with brackets, ``=`` and ``:`` of its own included."""
    db = str(tmp_path / "none.db")
    command = "python bot.py --opt=[a:b] --x=1"
    entries = _seat_entries(
        [
            f"hasty[budget_ms=5,bank_ms=0,grace_ms=0]={command}",
            f"plain={command}",
            "far[ grace_ms = 0 ]=localhost:50051",
            "inproc[bank_ms=0]=clients.bots.random:RandomBot",
        ],
        None,
        db,
    )
    assert [(e.name, e.kind, e.target, e.time_control) for e in entries] == [
        ("hasty", "command", command, OWN),
        ("plain", "command", command, None),
        ("far", "address", "localhost:50051", TimeControl(grace_ms=0)),
        ("inproc", "module", "clients.bots.random:RandomBot", TimeControl(bank_ms=0)),
    ]


def test_a_named_bot_takes_a_seats_clock_over_its_bots_files(tmp_path: Path) -> None:
    bots = tmp_path / "bots.toml"
    bots.write_text(BOTS_TOML)
    db = str(tmp_path / "none.db")
    hasty, calm = _seat_entries(["hasty[budget_ms=40]", "calm[bank_ms=0]"], str(bots), db)
    assert hasty.time_control == TimeControl(budget_ms=40, bank_ms=0, grace_ms=0)  # the file's, the seat's budget
    assert calm.time_control == TimeControl(bank_ms=0) and calm.module == "sleepy:Sleepy"
    assert _seat_entries(["hasty"], str(bots), db)[0].time_control == OWN


@pytest.mark.parametrize(
    "spec, said",
    [
        ("hasty[budget_ms=5=python bot.py", "the clock after the name has no closing ']'"),
        ("hasty[budget_ms=5]python bot.py", "after the clock's ']' comes =TARGET or nothing"),
        ("hasty[budget=5]=python bot.py", "unknown key 'budget'; did you mean budget_ms?"),
        ("hasty[]=python bot.py", "write KEY=MS pairs separated by commas"),
        ("hasty[budget_ms=0]=python bot.py", "budget_ms must be a number of milliseconds, above 0"),
        ("hasty[bank_ms=lots]=python bot.py", "bank_ms='lots' is no number of milliseconds"),
        ("[budget_ms=5]=python bot.py", "bot name '' is not allowed"),
    ],
)
def test_a_seats_bad_clock_is_a_usage_error_that_says_what_to_write(tmp_path: Path, spec: str, said: str) -> None:
    seats = [
        spec,
        "b=clients.bots.random:RandomBot",
        "c=clients.bots.random:RandomBot",
        "d=clients.bots.lowest:LowestBot",
    ]
    r = run("match", *[x for s in seats for x in ("--seat", s)], "--db", str(tmp_path / "arena.db"))
    assert r.exit_code == 2 and "--seat" in r.output, r.output
    assert said in " ".join(r.output.split()), r.output  # click wraps the message
    assert not (tmp_path / "arena.db").exists()


def test_one_bot_seated_under_two_clocks_is_refused(tmp_path: Path) -> None:
    seats = ["a[budget_ms=5]=clients.bots.random:RandomBot", "a=clients.bots.random:RandomBot"]
    seats += ["c=clients.bots.random:RandomBot", "d=clients.bots.lowest:LowestBot"]
    r = run("match", *[x for s in seats for x in ("--seat", s)], "--db", str(tmp_path / "arena.db"))
    assert r.exit_code == 2 and "bot 'a' is seated with two clocks (budget_ms=5; the match's)" in r.output


# -- bots files and stored entries ---------------------------------------------------------------


def test_a_bots_file_entry_gives_any_of_budget_bank_and_grace() -> None:
    entries = parse_bots(
        {
            "bots": {
                "house": {"module": "clients.bots.montecarlo:MonteCarloBot", "budget_ms": 100, "bank_ms": 0},
                "student": {"command": "python student.py --port {port}", "grace_ms": 12.5},
                "plain": {"address": "localhost:50051"},
            }
        }
    )
    assert [e.time_control for e in entries] == [
        TimeControl(budget_ms=100, bank_ms=0),
        TimeControl(grace_ms=12.5),
        None,
    ]


@pytest.mark.parametrize(
    "spec, said",
    [
        ({"budget_ms": "fast"}, "bots.hasty: budget_ms must be a number of milliseconds, above 0"),
        ({"bank_ms": -1}, "bots.hasty: bank_ms must be a number of milliseconds, 0 or more"),
        ({"grace_ms": True}, "bots.hasty: grace_ms must be"),
        ({"budget_ms": 2**32}, "below 2^32"),
        ({"budget": 5}, "unknown key(s) budget"),
    ],
)
def test_a_bad_clock_in_a_bots_file_is_named_with_its_bot(spec: dict[str, object], said: str) -> None:
    with pytest.raises(RegistryError, match="bots file") as e:
        parse_bots({"bots": {"hasty": {"command": "python bot.py", **spec}}})
    assert said in str(e.value)


def test_the_clock_is_kept_in_the_tournaments_entries_not_in_the_registry(tmp_path: Path) -> None:
    """Like a bots file's sandbox settings: stored with the tournament (beside the command, as the file
    writes it), read back the same; the registry keeps the bot and not its clock."""
    entry = BotEntry("hasty", module="sleepy:Sleepy", time_control=TimeControl(budget_ms=5, grace_ms=0))
    assert entry.to_dict()["budget_ms"] == 5 and "bank_ms" not in entry.to_dict()
    assert BotEntry.from_dict(entry.to_dict()) == entry
    assert BotEntry.from_dict(BotEntry("old", command="python old.py").to_dict()).time_control is None
    with Store(tmp_path / "arena.db") as store:
        others = [BotEntry(n, module="clients.bots.random:RandomBot") for n in ("b", "c", "d")]
        tid = create_tournament(store, [entry, *others], TournamentSpec(rules=FAST))
        (stored,) = [b for b in json.loads(store.tournaments.get(tid).bots) if b["name"] == "hasty"]
        assert (stored["budget_ms"], stored["grace_ms"]) == (5.0, 0.0)
        assert next(b for b in get_tournament(store, tid).bots if b.name == "hasty") == entry
        registered = get_bot(store, "hasty")
        assert registered is not None and registered.time_control is None
        add_bot(store, entry)  # hearts bot add --from a bots file: the registry keeps no clock
        assert get_bot(store, "hasty") == registered


def test_hearts_bot_add_from_a_file_says_which_clocks_stay_in_the_file(tmp_path: Path) -> None:
    (tmp_path / "bots.toml").write_text(
        '[bots.hasty]\nmodule = "sleepy:Sleepy"\nbudget_ms = 5\n'
        '[bots.boxed]\ncommand = "python b.py --port {port}"\nsandbox = true\n'
        '[bots.plain]\nmodule = "clients.bots.random:RandomBot"\n'
    )
    out = " ".join(ok("bot", "add", "--from", str(tmp_path / "bots.toml"), "--db", str(tmp_path / "a.db")).split())
    assert "registered 3 bots" in out
    assert "the sandbox, limits and clocks of hasty, boxed stay in" in out and "give --bots" in out
    plain = tmp_path / "plain.toml"
    plain.write_text('[bots.plain]\nmodule = "clients.bots.random:RandomBot"\n')
    assert "note:" not in ok("bot", "add", "--from", str(plain), "--db", str(tmp_path / "a.db"))


def test_a_tournament_stored_with_a_bad_clock_is_listed_and_never_played(tmp_path: Path) -> None:
    with Store(tmp_path / "arena.db") as store:
        bots = [BotEntry(n, module="clients.bots.random:RandomBot") for n in "abcd"]
        tid = create_tournament(store, bots, TournamentSpec(rules=FAST))
        row = json.loads(store.tournaments.get(tid).bots)
        row[0]["budget_ms"] = float("nan")  # what a script may write
        with store.db.atomic():
            store.tournaments.set_bots(tid, json.dumps(row))
        info = get_tournament(store, tid)
        assert info.unplayable is not None and "a bot's clock that cannot be played: bot 'a'" in info.unplayable
        assert info.bots[0].time_control is None
    r = run("tournament", "resume", str(tid), "--db", str(tmp_path / "arena.db"))
    assert r.exit_code == 1 and "cannot be resumed" in r.output and "budget_ms" in r.output


# -- through the real hearts command -------------------------------------------------------------


def test_hearts_compare_gives_a_field_bot_its_own_clock(tmp_path: Path) -> None:
    """``--field`` takes ``--seat``'s syntax: the clock is stored with the comparison's entries and every
    match it plays seats that bot under it."""
    db = tmp_path / "arena.db"
    ok(
        "compare",
        "a=clients.bots.random:RandomBot",
        "b=clients.bots.lowest:LowestBot",
        "--field",
        "house[budget_ms=300,bank_ms=0]=clients.bots.heuristic:HeuristicBot",
        "--field",
        "f2=clients.bots.random:RandomBot",
        "--field",
        "f3=clients.bots.random:RandomBot",
        "--max-deals",
        "1",
        "--rules",
        FAST,
        "--workers",
        "0",
        "--db",
        str(db),
    )
    with Store(db, readonly=True) as store:
        house = next(b for b in get_tournament(store, 1).bots if b.name == "house")
        assert house.time_control == TimeControl(budget_ms=300, bank_ms=0)
        records = [store.load_match(m) for m in store.match_ids(tournament_id=1)]
    assert len(records) == 8 and all(clocks(r)["house"] == (300.0, 0.0, 50.0) for r in records)
    assert all(clocks(r)[b] == RUNS for r in records for b in clocks(r) if b != "house")


def test_hearts_plays_bots_keep_their_own_clocks_and_the_person_theirs(tmp_path: Path) -> None:
    """A sitting of ``hearts play`` (``ladder.table.session.play_and_record``): each bot's entry's clock over the
    match's, the person's own clock kept."""
    import asyncio

    from ladder.sandbox import SandboxMode
    from ladder.table.session import Sitting, play_and_record
    from ladder.table.table import Table
    from referee.human import HumanSeat
    from referee.match import MatchSettings
    from referee.rules import Rules

    person = HumanSeat("alice", time_control=MatchSettings(budget_ms=60_000, bank_ms=0))
    entries = [
        BotEntry("house", module="clients.bots.heuristic:HeuristicBot", time_control=TimeControl(budget_ms=300)),
        BotEntry("low", module="clients.bots.lowest:LowestBot"),
        BotEntry("rnd", module="clients.bots.random:RandomBot"),
    ]
    sitting = Sitting(
        entries, [0], Rules.parse(FAST), 3, Table(person), str(tmp_path / "arena.db"), MatchSettings(),
        tmp_path / "logs", 10.0, SandboxMode.OFF,
    )  # fmt: skip

    async def at_table() -> MatchRecord:
        person.join()

        async def answer() -> None:  # the first cards a person may give, as the page would send them
            seen = 0
            while True:
                for e in await person.next_events(seen):
                    seen = e["seq"]
                    if e["type"] == "ready":
                        sitting.table.ask_to_start(0)
                    elif e["type"] == "ask":
                        view = e["request"]["view"]
                        first = (
                            {"cards": view["hand"][:3]} if e["rpc"] == "PassCards" else {"card": view["legal_cards"][0]}
                        )
                        person.answer(e["id"], first)
                    elif e["type"] == "hold":
                        person.deal_again()

        task = asyncio.create_task(answer())
        try:
            return await play_and_record(sitting)
        finally:
            task.cancel()

    record = asyncio.run(at_table())
    assert clocks(record) == {
        "alice": (60_000.0, 0.0, 50.0),
        "house": (300.0, 10_000.0, 50.0),
        "low": RUNS,
        "rnd": RUNS,
    }


@pytest.mark.usefixtures("sleepy_on_path")
def test_hearts_match_times_out_only_the_bot_under_its_own_clock(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    out = ok(
        "match",
        "--seat",
        "hasty[budget_ms=5,bank_ms=0,grace_ms=0]=sleepy:Sleepy",
        "--seat",
        "calm=sleepy:Sleepy",
        "--seat",
        "low=clients.bots.lowest:LowestBot",
        "--seat",
        "rnd=clients.bots.random:RandomBot",
        "--rules",
        FAST,
        "--seed",
        "5",
        "--db",
        str(db),
    )
    assert "hasty plays under its own clock: budget_ms=5,bank_ms=0,grace_ms=0" in out
    with Store(db, readonly=True) as store:
        (match_id,) = store.match_ids()
        check_only_hasty_timed_out(store.load_match(match_id))
    replay = " ".join(ok("replay", match_id, "--db", str(db)).split())
    assert "seat 0 hasty: in the referee's process (trusted code); clock: budget 5 ms, bank 0 ms, grace 0 ms" in replay
    assert (
        "seat 1 calm: in the referee's process (trusted code); clock: budget 1000 ms, bank 10000 ms, grace 50 ms"
        in replay
    )


@pytest.mark.slow
@pytest.mark.usefixtures("sleepy_on_path")
def test_hearts_tournament_run_from_a_bots_file_in_a_worker_then_resume_keeps_the_clock(tmp_path: Path) -> None:
    """``hearts tournament run --bots FILE`` plays its in-process bots in a worker process, the clock of the
    file's entry with them. A second tournament of the same file, resumed after ``hearts bot add`` changed
    the bot's registration, is played by the registration and still under the entry's clock, which the
    tournament keeps."""
    bots = tmp_path / "bots.toml"
    bots.write_text(BOTS_TOML)
    db = tmp_path / "arena.db"
    out = ok(
        "tournament", "run", "--bots", str(bots), "--rules", FAST, "--seed", "3", "--workers", "1", "--db", str(db)
    )
    assert "played 4 matches" in out and "hasty plays under its own clock: budget_ms=5,bank_ms=0,grace_ms=0" in out
    with Store(db, readonly=True) as store:
        records = [store.load_match(m) for m in store.match_ids(tournament_id=1)]
    assert len(records) == 4
    for record in records:
        check_only_hasty_timed_out(record)

    with Store(db) as store:
        tid = create_tournament(store, load_bots_file(bots), TournamentSpec(rules=FAST, seed=4))
    ok("bot", "add", "hasty", "--module", "sleepy:Sleepy", "--max-concurrency", "1", "--db", str(db))
    out = ok("tournament", "resume", str(tid), "--workers", "0", "--db", str(db))
    assert "bot 'hasty': started by its current registration" in out and "played 4 matches" in out
    with Store(db, readonly=True) as store:
        for m in store.match_ids(tournament_id=tid):
            check_only_hasty_timed_out(store.load_match(m))
        hasty = next(b for b in get_tournament(store, tid).bots if b.name == "hasty")
    assert hasty.max_concurrency == 1 and hasty.time_control == OWN  # the registration's limit, the entry's clock


@pytest.mark.slow
def test_hearts_match_over_grpc_times_out_only_the_command_under_its_own_clock(tmp_path: Path) -> None:
    """The same, with both sleepy bots started as commands and asked over gRPC: the RPC's deadline is the
    seat's own clock (5 ms), and the calm one's the match's."""
    sleepy = f"python {BOTS_DIR / 'sleepy.py'} --port {{port}}"
    db = tmp_path / "arena.db"
    done = subprocess.run(
        [
            HEARTS,
            "match",
            "--seat",
            f"hasty[budget_ms=5,bank_ms=0,grace_ms=0]={sleepy}",
            "--seat",
            f"calm={sleepy}",
            "--seat",
            "low=clients.bots.lowest:LowestBot",
            "--seat",
            "rnd=clients.bots.random:RandomBot",
            "--rules",
            FAST,
            "--seed",
            "6",
            "--db",
            str(db),
        ],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    with Store(db, readonly=True) as store:
        (match_id,) = store.match_ids()
        record = store.load_match(match_id)
    check_only_hasty_timed_out(record)
    assert all(f.detail.startswith("no answer before the deadline") for f in record.faults)
