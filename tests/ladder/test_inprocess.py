"""In-process bots (``module = "package.module:ClassName"``): the same View, clocks and faults as over
gRPC, played in-process or over worker processes, named in bots files and on the command line."""

from __future__ import annotations

import asyncio
import gc
import json
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_procs import HEARTS

from clients.bots.lowest import LowestBot
from clients.sdk import Bot, BotServer, View
from clients.view import view_from_wire, view_of, view_of_play
from hearts.v1 import bot_pb2 as pb
from hearts.v1.codec import ViewEncoder
from ladder.bots.inprocess import BotModule, BotModuleError, SdkSeat, is_module_spec
from ladder.bots.registry import BotEntry
from ladder.store import Store
from ladder.tournament.run import TournamentSpec, create_tournament, play_tournament
from ladder.tournament.schedule import match_id
from referee.match import MatchSettings, _Referee, play_match
from referee.record import FaultKind
from referee.rules import Card, Match, MoonChoice, Phase, Rules
from referee.rules.cards import DECK
from referee.seats import GrpcSeat, Seat

FAST = "standard,target=30"


# -- the bot sees what it would see over gRPC ------------------------------------------------------


def _answer(m: Match, rng: random.Random) -> None:
    """One random legal decision of whoever owes one."""
    rules = m.rules
    phase = m.phase
    if phase is Phase.PLAY:
        m.play(rng.choice(m.legal_plays().cards))
    elif phase is Phase.PASS:
        for s in m.to_move:
            m.pass_cards(s, rng.sample(m.observation(s).hand.cards, rules.pass_count))
    elif phase is Phase.MOON:
        m.choose_moon(m.turn, rng.choice(list(MoonChoice)))
    elif phase is Phase.DISCARD:
        o = m.observation(m.to_move[0])
        m.discard(o.seat, rng.sample(o.hand.cards, len(o.kitty)))
    elif phase is Phase.CALL:
        m.call_pass(m.to_move[0], "left")
    else:
        raise AssertionError(phase)


@pytest.mark.parametrize(
    "rules_text",
    [
        "standard",
        "standard,moon=shooter-chooses",
        "standard,players=3",
        "standard,players=5",
        "black-maria",
        "standard,players=3,kitty=first-trick,kitty_discard=true",
        "standard,pass_cycle=call",
    ],
)
def test_an_in_process_bot_is_given_the_very_view_a_grpc_bot_decodes(rules_text: str) -> None:
    """``view_of`` (in-process; ``view_of_play`` for plays) equals ``view_from_wire`` of the bytes the
    referee sends for the same observation, at every decision of whole matches: a bot learns no more,
    and no less, in-process."""
    try:
        rules = Rules.parse(rules_text)
    except ValueError as e:  # an option this engine spells otherwise: say so rather than pass
        pytest.fail(f"{rules_text}: {e}")
    names = tuple(f"p{s}" for s in range(rules.players))
    rng = random.Random(5)
    checked = set()
    for seed in range(3):
        m = Match(rules, seed)
        views = ViewEncoder(f"match-{seed}", names, 250)
        while not m.over:
            for s in m.to_move:
                o = m.observation(s)
                wire = pb.GameView.FromString(views.encode(o, 1234))
                expected = view_from_wire(wire, o.phase, o.moon_points)
                assert view_of(o, f"match-{seed}", names, 250, 1234) == expected
                if o.phase is Phase.PLAY:  # the play's View shares the observation's fields instead
                    play_view = view_of_play(m.observation(s), f"match-{seed}", names, 250, 1234)
                    assert play_view == expected and vars(play_view) == vars(expected)
                checked.add(o.phase)
            _answer(m, rng)
    assert {Phase.PASS, Phase.PLAY} <= checked or rules.pass_count == 0


# -- the same faults as over gRPC ------------------------------------------------------------------


class Faulty(Bot):
    """Plays well except for one kind of mistake, once a match: on its first play from the third on
    where the mistake can be made."""

    def __init__(self, mistake: str) -> None:
        self.mistake = mistake
        self.plays: dict[str, int] = {}

    def pass_cards(self, view: View) -> list[Card]:
        return list(view.hand.cards[: view.rules.pass_count])

    def play_card(self, view: View) -> Any:
        n = self.plays[view.match_id] = self.plays.get(view.match_id, 0) + 1
        illegal = [c for c in view.hand.cards if c not in view.legal]
        if n < 3 or n > 3 and self.mistake != "illegal" or n > 3 and self.plays.get(view.match_id + "!"):
            return view.legal.cards[0]
        if self.mistake == "illegal":
            if not illegal:
                return view.legal.cards[0]
            self.plays[view.match_id + "!"] = 1
            return illegal[0]
        if self.mistake == "raise":
            raise ValueError("my bug [bold]")
        if self.mistake == "not-held":
            return next(c for c in DECK if c not in view.hand)
        if self.mistake == "no-card":
            return "ZZ"
        if self.mistake == "slow":
            THINKING.advance(2.0)
        return view.legal.cards[0]


class SlowAsync(Faulty):
    async def play_card(self, view: View) -> Any:  # type: ignore[override]  # a coroutine bot
        n = self.plays[view.match_id] = self.plays.get(view.match_id, 0) + 1
        if n == 3:
            await asyncio.sleep(0)
            THINKING.advance(2.0)
        return view.legal.cards[0]


class _Thinking:
    """The referee's time source in these matches: only a slow bot moves it, so no other answer is
    ever late, however loaded the machine (the calls' own deadlines, 1 s, stay in real time)."""

    now = 0.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


THINKING = _Thinking()
ONE_SECOND = MatchSettings(budget_ms=1000, bank_ms=0, grace_ms=50, max_faults=10)


def _faults(seats: list[Seat]) -> list[tuple[int, str]]:
    record = asyncio.run(play_match(seats, Rules.parse(FAST), 3, settings=ONE_SECOND, time_source=THINKING))
    return [(f.seat, FaultKind(f.kind).value) for f in record.faults]


async def _over_grpc(bot: Bot) -> list[tuple[int, str]]:
    async with BotServer(bot, port=0) as server:
        seats: list[Seat] = [GrpcSeat(server.address, "faulty")]
        seats += [SdkSeat(LowestBot(), f"low{i}") for i in range(3)]
        try:
            record = await play_match(seats, Rules.parse(FAST), 3, settings=ONE_SECOND, time_source=THINKING)
        finally:
            await seats[0].close()
    return [(f.seat, FaultKind(f.kind).value) for f in record.faults]


@pytest.mark.parametrize(
    "bot, kind",
    [
        (Faulty("raise"), "error_status"),
        (Faulty("not-held"), "card_not_held"),
        (Faulty("illegal"), "illegal_card"),
        (Faulty("no-card"), "error_status"),
        (Faulty("slow"), "timeout"),
        (SlowAsync("slow"), "timeout"),
    ],
    ids=["raises", "card-not-held", "illegal-card", "text-of-no-card", "slow-plain", "slow-coroutine"],
)
@pytest.mark.slow
def test_an_in_process_bot_faults_as_the_same_bot_over_grpc(bot: Faulty, kind: str) -> None:
    """An exception, a wrong card and slowness are the faults they are over the wire, in the same seats."""
    local = _faults([SdkSeat(type(bot)(bot.mistake), "faulty")] + [SdkSeat(LowestBot(), f"low{i}") for i in range(3)])
    remote = asyncio.run(_over_grpc(type(bot)(bot.mistake)))
    assert local and local == remote
    assert {k for _, k in local} == {kind}


def test_the_direct_path_of_in_process_plays_agrees_with_the_general_one() -> None:
    """``_play_on`` (a plain play_card called directly) records what ``_decide`` does, faults included."""

    def play(fast: bool) -> dict[str, Any]:
        seats = [SdkSeat(Faulty(m), f"b{i}") for i, m in enumerate(("raise", "not-held", "illegal", "ok"))]
        referee = _Referee(seats, Rules.parse(FAST), 11, MatchSettings(max_faults=1000), "m", None, None, THINKING)
        referee.fast_play = fast
        return asyncio.run(referee.run()).decisions()

    fast, general = play(True), play(False)
    assert fast["faults"] and fast == general


class Awaited:
    """A bot's every method as a coroutine: the seat's awaited path, instead of its direct one."""

    def __init__(self, bot: Faulty) -> None:
        self.bot = bot

    async def pass_cards(self, view: View) -> Any:
        return self.bot.pass_cards(view)

    async def play_card(self, view: View) -> Any:
        return self.bot.play_card(view)

    async def choose_moon(self, view: View) -> Any:
        return MoonChoice.SUBTRACT_FROM_SHOOTER


def test_a_bot_answered_directly_records_what_the_same_bot_awaited_does() -> None:
    """Plain methods are called directly (``answers_now``), coroutine ones awaited: the same answers,
    faults and substitutes either way, passes and moon choices included."""

    def play(wrap: bool) -> dict[str, Any]:
        bots = [Faulty(m) for m in ("raise", "not-held", "illegal", "ok")]
        for b in bots:
            b.choose_moon = lambda view: MoonChoice.SUBTRACT_FROM_SHOOTER  # type: ignore[method-assign]
        seats = [SdkSeat(Awaited(b) if wrap else b, f"b{i}") for i, b in enumerate(bots)]
        rules = Rules.parse("standard,target=60,moon=shooter-chooses")
        return asyncio.run(play_match(seats, rules, 11, settings=MatchSettings(max_faults=1000))).decisions()

    direct, awaited = play(False), play(True)
    assert direct["faults"] and direct == awaited


def test_notifications_reach_an_in_process_bot_in_order() -> None:
    class Listener(LowestBot):
        def __init__(self) -> None:
            self.kinds: list[str] = []

        def notify(self, note: Any) -> None:
            self.kinds.append(note.kind)

    listener = Listener()
    seats = [SdkSeat(listener, "listener")] + [SdkSeat(LowestBot(), f"low{i}") for i in range(3)]
    record = asyncio.run(play_match(seats, Rules.parse(FAST), 4))
    tricks = len(record.plays) // 4
    assert listener.kinds.count("trick_completed") == tricks  # none dropped, whatever the pace
    assert listener.kinds.count("hand_scored") == len(record.hands)
    assert listener.kinds[-1] == "match_over"


# -- naming a bot by its module -------------------------------------------------------------------


def test_module_specs_parse_round_trip_and_are_told_from_addresses_and_commands() -> None:
    spec = BotModule.parse("clients.bots.random:RandomBot")
    assert (spec.module, spec.attribute, str(spec)) == (
        "clients.bots.random",
        "RandomBot",
        "clients.bots.random:RandomBot",
    )
    assert is_module_spec("my_bot:MyBot")
    assert not is_module_spec("localhost:50051")
    assert not is_module_spec("python my_bot.py")
    with pytest.raises(BotModuleError, match="is not package.module:ClassName"):
        BotModule.parse("localhost:50051")


@pytest.mark.parametrize(
    "spec, says",
    [
        ("no_such_bot_module:Bot", "no module named 'no_such_bot_module'"),
        ("clients.bots.random:Nope", "has no 'Nope'; bot classes there: RandomBot"),
        ("clients.bots.random:Sequence", "raised TypeError"),
        ("referee.rules:Rules", "made a Rules, which is no bot"),
    ],
)
def test_a_module_that_names_no_bot_says_what_is_wrong(spec: str, says: str) -> None:
    with pytest.raises(BotModuleError, match=says.replace("(", r"\(")):
        BotModule.parse(spec).load()


BOT_FILE = '''
import random
import re
from clients.sdk import Bot


class SeededRandom(Bot):
    """Deterministic: its RNG is seeded per match, so a match replays exactly in any process."""

    def __init__(self):
        self.rngs = {}

    def _rng(self, view):
        return self.rngs.setdefault(view.match_id, random.Random(view.match_id))

    def pass_cards(self, view):
        return self._rng(view).sample(view.hand.cards, view.rules.pass_count)

    def play_card(self, view):
        return self._rng(view).choice(view.legal.cards)


class Exits(SeededRandom):
    def play_card(self, view):
        import os
        os._exit(3)
'''


def _hearts(cwd: Path, argv: list[str], *, timeout: float) -> subprocess.CompletedProcess[str]:
    """The real ``hearts`` command (``argv`` starts with it) run in ``cwd``, as a student runs it there."""
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=timeout)


def _bots_dir(tmp_path: Path) -> Path:
    (tmp_path / "student_bot.py").write_text(BOT_FILE)
    return tmp_path


@pytest.mark.slow
def test_a_tournament_over_worker_processes_records_exactly_what_one_process_does(tmp_path: Path) -> None:
    """Every match a worker plays is saved whole (plays included), once, and equals the same match
    played in this process: the workers change where matches run, never what they record."""
    folder = _bots_dir(tmp_path)
    sys.path.insert(0, str(folder))
    try:
        entries = [
            BotEntry("seeded", module="student_bot:SeededRandom"),
            BotEntry("lowest", module="clients.bots.lowest:LowestBot"),
            BotEntry("heuristic", module="clients.bots.heuristic:HeuristicBot"),
            BotEntry("seeded-2", module="student_bot:SeededRandom"),
            BotEntry("lowest-2", module="clients.bots.lowest:LowestBot"),
        ]
        decisions = []
        for workers in (0, 2):
            store = Store(tmp_path / f"w{workers}.db")
            tid = create_tournament(store, entries, TournamentSpec(rules=FAST, seed=9))
            seen: list[int] = []
            count = seen.append
            summary = asyncio.run(
                play_tournament(
                    store,
                    tid,
                    workers=workers,
                    log_dir=tmp_path / "logs",
                    on_record=lambda r, count=count: count(len(r.hands)),
                )
            )
            assert summary.played == 20 and len(seen) == 20 and all(seen)
            records = {mid: store.load_match(mid) for mid in store.match_ids()}
            assert len(records) == 20 and all(r.plays for r in records.values())
            assert all(str(s.isolation) == "in-process" for r in records.values() for s in r.seats)
            decisions.append({mid: r.decisions() for mid, r in records.items()})
            store.close()
        assert decisions[0] == decisions[1]
    finally:
        sys.path.remove(str(folder))


@pytest.mark.slow
def test_a_worker_starts_without_the_rating_fits_imports() -> None:
    """A worker imports what playing and saving need, not scipy (0.3 s a process, a tenth of a short
    run): only the fits of ``ladder.ratings.fit`` import it."""
    code = (
        "import sys, ladder.venues.workers, ladder.bots.inprocess, ladder.store, ladder.tournament.run; "
        "from ladder.venues.workers import _start; print('scipy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.slow
def test_workers_batch_fast_matches_and_report_each_match_as_it_was(tmp_path: Path) -> None:
    """Fast matches go to a worker in batches saved in one transaction each: every match is counted
    once, each record handed back is the one stored (without its plays), and matches of slow bots
    go one at a time; once told to hand out no more, the matches not handed out stay pending."""
    from ladder.venues import workers as workers_module
    from ladder.venues.venue import MatchJob
    from ladder.venues.workers import MatchWorkers

    entries = [BotEntry(f"low-{i}", module="clients.bots.lowest:LowestBot") for i in range(4)]
    store = Store(tmp_path / "arena.db")
    tid = create_tournament(store, entries, TournamentSpec(rules=FAST, seed=3, rounds=12, format="round-robin"))
    todo = store.tournaments.pending(tid)
    pool = MatchWorkers(2, {e.name: str(e.module) for e in entries}, store.path, MatchSettings(), None)
    # Batches sized for 1 s of play, not 50 ms: a match of a few ms here may take ten times that on a
    # loaded machine, and a batch must still hold several.
    batch_s, workers_module._BATCH_S = workers_module._BATCH_S, 1.0
    try:
        jobs = [MatchJob(tid, m.index, match_id(tid, m.index), tuple(m.seats), m.rules, m.seed) for m in todo]

        async def play_all() -> tuple[list[Any], list[Any]]:
            played = await asyncio.gather(*(pool.play(j) for j in jobs[:-3]))
            assert pool._batch > 3  # matches of a few ms each: batches of several
            # The last three join a batch at the loop's next turn; a stop before it hands none out.
            last = [asyncio.ensure_future(pool.play(j)) for j in jobs[-3:]]
            await asyncio.sleep(0)
            pool.hand_out_no_more()
            return played, await asyncio.gather(*last)

        records, unplayed = asyncio.run(play_all())
    finally:
        workers_module._BATCH_S = batch_s
        pool.close()
    assert unplayed == [None, None, None]
    assert len(records) == len(todo) - 3 == len(list(store.match_ids()))
    assert len(store.tournaments.pending(tid)) == 3
    for r in records:
        stored = store.load_match(r.match_id)
        assert r.plays == [] and stored.plays and r.hands == stored.hands and r.seats == stored.seats
    store.close()
    size = workers_module._batch_size
    assert size(1.0) == 1 and size(0.2) == 1  # a slow bot's matches: each reported as it ends
    assert size(0.003) == 16 and size(1e-9) == workers_module._BATCH_MAX


@pytest.mark.slow
def test_a_ctrl_c_stops_the_workers_batches_whole_and_a_resume_plays_the_rest(tmp_path: Path) -> None:
    """Ctrl-C in a tournament whose matches are played in batches: the parent hands out no more,
    every batch out is saved whole (each recorded match has all its plays), and the resume plays the
    rest, each match once."""
    import signal

    from cli_procs import recorded, running, tournament, wait_until

    (tmp_path / "bots.toml").write_text(
        "".join(f'[bots.r{i}]\nmodule = "clients.bots.random:RandomBot"\n' for i in range(4))
    )
    db = tmp_path / "arena.db"
    # 600 matches: far more than the batches in flight when the Ctrl-C lands, few for the resume to play.
    args = ["tournament", "run", "--bots", "bots.toml", "--rules", FAST, "--deals", "150", "--workers", "2"]
    with running(tmp_path, *args) as run:
        wait_until(lambda: recorded(db, 1) >= 20, 120, "a few batches are recorded", run)
        run.proc.send_signal(signal.SIGINT)
        code = run.wait(60)
        out = run.output()
    assert code == 130, out
    assert "Traceback" not in out
    row = tournament(db, 1)
    assert row["status"] == "interrupted" and 20 <= row["done"] == row["distinct"] < row["total"]
    with Store(db, readonly=True) as store:
        ids = list(store.match_ids())
        assert len(ids) == row["done"]
        for mid in ids[-40:]:  # the last batches saved, the ones in flight at the Ctrl-C among them
            record = store.load_match(mid)
            assert record.plays and len(record.plays) == sum(52 for _ in record.hands)
    resumed = _hearts(tmp_path, [HEARTS, "tournament", "resume", "1"], timeout=600)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    row = tournament(db, 1)
    assert row["status"] == "finished" and row["done"] == row["distinct"] == row["total"]


@pytest.mark.slow
def test_hearts_runs_a_students_module_bot_from_the_current_directory(tmp_path: Path) -> None:
    """``--seat me=student_bot:SeededRandom`` and ``module =`` in a bots file, run by the real
    ``hearts`` from the folder holding the bot, as a student would."""
    folder = _bots_dir(tmp_path)
    match = _hearts(
        folder,
        [
            HEARTS,
            "match",
            "--seat",
            "me=student_bot:SeededRandom",
            "--seat",
            "low=clients.bots.lowest:LowestBot",
            "--seat",
            "heur=clients.bots.heuristic:HeuristicBot",
            "--seat",
            "r=clients.bots.random:RandomBot",
            "--rules",
            FAST,
            "--seed",
            "2",
        ],
        timeout=60,
    )
    assert match.returncode == 0, match.stdout + match.stderr
    assert "recorded in arena.db" in match.stdout
    (folder / "bots.toml").write_text(
        "".join(
            f'[bots.{n}]\nmodule = "{m}"\n'
            for n, m in [
                ("me", "student_bot:SeededRandom"),
                ("low", "clients.bots.lowest:LowestBot"),
                ("heur", "clients.bots.heuristic:HeuristicBot"),
                ("r", "clients.bots.random:RandomBot"),
            ]
        )
    )
    run = _hearts(
        folder,
        [HEARTS, "tournament", "run", "--bots", "bots.toml", "--rules", FAST, "--deals", "2", "--workers", "2"],
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "played 8 matches" in run.stdout
    listed = _hearts(folder, [HEARTS, "bot", "list"], timeout=30)
    assert "in-process student_bot:SeededRandom" in listed.stdout
    checked = _hearts(
        folder, [HEARTS, "validate", "student_bot:SeededRandom", "--rules", "standard", "--json"], timeout=120
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert json.loads(checked.stdout)["ok"] is True


@pytest.mark.slow
def test_a_module_that_names_no_bot_stops_the_run_before_anything_is_written(tmp_path: Path) -> None:
    folder = _bots_dir(tmp_path)
    (folder / "bots.toml").write_text(
        '[bots.me]\nmodule = "studnet_bot:SeededRandom"\n'
        + "".join(f'[bots.low{i}]\nmodule = "clients.bots.lowest:LowestBot"\n' for i in range(3))
    )
    run = _hearts(folder, [HEARTS, "tournament", "run", "--bots", "bots.toml", "--rules", FAST], timeout=60)
    assert run.returncode == 1
    assert "no module named 'studnet_bot'" in run.stderr and "Traceback" not in run.stderr
    assert "was not kept" in run.stderr


@pytest.mark.slow
def test_a_worker_whose_bot_exits_is_a_clear_error_and_nothing_half_played_is_kept(tmp_path: Path) -> None:
    folder = _bots_dir(tmp_path)
    (folder / "bots.toml").write_text(
        '[bots.quitter]\nmodule = "student_bot:Exits"\n'
        + "".join(f'[bots.low{i}]\nmodule = "clients.bots.lowest:LowestBot"\n' for i in range(3))
    )
    run = _hearts(
        folder, [HEARTS, "tournament", "run", "--bots", "bots.toml", "--rules", FAST, "--workers", "1"], timeout=60
    )
    assert run.returncode == 1, run.stdout + run.stderr
    assert "a worker process died" in run.stderr and "Traceback" not in run.stderr
    with Store(folder / "arena.db", readonly=True) as store:
        assert not list(store.match_ids())


# -- a student's mistakes, each said plainly -------------------------------------------------------


class Exits(LowestBot):
    def play_card(self, view: View) -> Card:
        if len(view.tricks) == 2:
            raise SystemExit("bye")
        return super().play_card(view)


def test_sys_exit_in_a_bot_method_is_that_decisions_fault_in_process_and_over_grpc() -> None:
    """``sys.exit`` in a method fails the decision (error_status), never the harness nor the bot's server."""
    seats: list[Seat] = [SdkSeat(Exits(), "exits")] + [SdkSeat(LowestBot(), f"low{i}") for i in range(3)]
    record = asyncio.run(play_match(seats, Rules.parse(FAST), 3, settings=MatchSettings(max_faults=100)))
    assert record.faults and {FaultKind(f.kind) for f in record.faults} == {FaultKind.ERROR_STATUS}
    assert "play_card raised SystemExit: bye" in record.faults[0].detail
    assert "test_inprocess.py" in record.faults[0].detail  # where it came from
    assert asyncio.run(_over_grpc(Exits())) and True  # the server served the whole match


class Sloppy(LowestBot):
    def play_card(self, view: View) -> Any:
        return None


def test_an_answer_that_is_no_card_is_reported_as_what_the_bot_returned() -> None:
    seats = [SdkSeat(Sloppy(), "sloppy")] + [SdkSeat(LowestBot(), f"low{i}") for i in range(3)]
    record = asyncio.run(play_match(seats, Rules.parse(FAST), 3, settings=MatchSettings(max_faults=100)))
    assert "the bot's play_card returned NoneType None, not a Card" in record.faults[0].detail


@pytest.mark.slow
def test_a_bot_class_that_inherits_an_unwritten_method_is_refused_when_loaded(tmp_path: Path) -> None:
    (tmp_path / "half_bot.py").write_text(
        "from clients.sdk import Bot\nclass Half(Bot):\n    def pass_cards(self, view):\n        return []\n"
    )
    run = _hearts(
        tmp_path,
        [HEARTS, "match", "--seat", "me=half_bot:Half", "--seat", "a=clients.bots.lowest:LowestBot"]
        + ["--seat", "b=clients.bots.lowest:LowestBot", "--seat", "c=clients.bots.lowest:LowestBot"],
        timeout=60,
    )
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert "Half does not define play_card(view)" in run.stderr


@pytest.mark.parametrize(
    "spec, says",
    [
        ("my_bot.py:MyBot", "without .py: my_bot:MyBot"),
        ("serves_on_import:MyBot", "put that under if __name__ == '__main__'"),
    ],
)
@pytest.mark.filterwarnings("ignore:coroutine 'serve_async' was never awaited:RuntimeWarning")
def test_the_commonest_module_mistakes_say_how_to_fix_them(spec: str, says: str, tmp_path: Path) -> None:
    (tmp_path / "serves_on_import.py").write_text(
        "from clients.sdk import serve\nfrom clients.bots.lowest import LowestBot as MyBot\nserve(MyBot())\n"
    )
    sys.path.insert(0, str(tmp_path))
    try:
        with pytest.raises(BotModuleError, match=re.escape(says)):

            async def load() -> None:  # inside a running loop, as the harness loads bots
                BotModule.parse(spec).load()

            asyncio.run(load())
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("serves_on_import", None)
        gc.collect()  # the module's unawaited serve() is let go here, under this test's filter


CHATTY = """
from clients.bots.lowest import LowestBot


class Chatty(LowestBot):
    def play_card(self, view):
        print("thinking very hard", view.hand)
        return super().play_card(view)
"""


@pytest.mark.slow
def test_what_an_in_process_bot_prints_goes_to_its_log_not_the_harness_output(tmp_path: Path) -> None:
    (tmp_path / "chatty.py").write_text(CHATTY)
    match = _hearts(
        tmp_path,
        [HEARTS, "match", "--seat", "me=chatty:Chatty", "--seat", "a=clients.bots.lowest:LowestBot"]
        + ["--seat", "b=clients.bots.lowest:LowestBot", "--seat", "c=clients.bots.lowest:LowestBot", "--rules", FAST],
        timeout=60,
    )
    assert match.returncode == 0 and "thinking very hard" not in match.stdout + match.stderr
    assert "thinking very hard" in (tmp_path / "logs" / "me.log").read_text()
    checked = _hearts(tmp_path, [HEARTS, "validate", "chatty:Chatty", "--rules", "standard", "--json"], timeout=120)
    assert checked.returncode == 0, checked.stderr
    assert json.loads(checked.stdout)["ok"] is True  # the report alone on stdout
    assert "thinking very hard" in (tmp_path / "logs" / "validate.log").read_text()


@pytest.mark.slow
def test_a_seat_naming_a_python_file_as_a_command_says_how_to_play_it(tmp_path: Path) -> None:
    (tmp_path / "my_bot.py").write_text(CHATTY)
    run = _hearts(
        tmp_path,
        [HEARTS, "match", "--seat", "me=my_bot", "--seat", "a=clients.bots.lowest:LowestBot"]
        + ["--seat", "b=clients.bots.lowest:LowestBot", "--seat", "c=clients.bots.lowest:LowestBot"],
        timeout=60,
    )
    assert run.returncode == 1
    assert '"python my_bot.py --port {port}"' in run.stderr and "my_bot:ClassName" in run.stderr


def test_bots_are_told_the_shown_names_and_the_record_keeps_the_real_ones() -> None:
    """An anonymous contest tells each bot the others' aliases (``shown_names``), never their names."""

    class Curious(LowestBot):
        def __init__(self) -> None:
            self.seen: set[tuple[str, ...]] = set()

        def play_card(self, view: View) -> Card:
            self.seen.add(view.player_names)
            return super().play_card(view)

    curious = Curious()
    seats = [SdkSeat(curious, "mallory.v1")] + [SdkSeat(LowestBot(), f"low{i}") for i in range(3)]
    names = ["mallory.v1", "alice.v2", "low1", "low2"]
    shown = ["lucky-seal.v1", "nimble-lynx.v2", "low1", "low2"]
    record = asyncio.run(play_match(seats, Rules.parse(FAST), 5, names=names, shown_names=shown))
    assert curious.seen == {tuple(shown)}
    assert [s.bot for s in record.seats] == names
