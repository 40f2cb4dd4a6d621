"""A ladder is per ruleset. Real short matches of the sample bots (in-process seats), saved in a
real SQLite file under three rulesets: two tournaments and some single matches."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from clients.bots import make_bot
from ladder.bots.registry import BotEntry
from ladder.cli import main
from ladder.ratings.leaderboard import load_leaderboard, ruleset_key, ruleset_text, rulesets
from ladder.store import Store
from ladder.store.save import save_scheduled
from ladder.tournament.run import TournamentSpec, create_tournament, pending_matches
from ladder.tournament.schedule import match_id
from referee.match import play_match
from referee.rules import Rules
from referee.seats import InProcessSeat

STANDARD = "standard,target=20"  # tournament 1
THREE = "standard,players=3,target=20"  # tournament 2, the latest
NASTY = "nasty,target=20"  # single matches, no tournament
# Each ruleset's bots; "lowest" plays under all three.
BOTS = {
    STANDARD: ["lowest", "rnd", "heur", "rnd-2"],
    THREE: ["lowest", "heur-3", "rnd-3"],
    NASTY: ["lowest", "n-rnd", "n-heur", "n-rnd-2"],
}


def bot(name: str) -> InProcessSeat:
    kind = "lowest" if name.startswith("lowest") else "heuristic" if "heur" in name else "random"
    return InProcessSeat(make_bot(kind, seed=len(name)), name)


def play_tournament_in_process(store: Store, rules: str, seed: int) -> int:
    entries = [BotEntry(n, command="python -m clients.bots.lowest --port {port}") for n in BOTS[rules]]
    tid = create_tournament(store, entries, TournamentSpec(rules=rules, seed=seed))
    for m in pending_matches(store, tid):
        record = asyncio.run(
            play_match(
                [bot(n) for n in m.seats],
                Rules.parse(m.rules),
                m.seed,
                match_id=match_id(tid, m.index),
                names=list(m.seats),
                tournament_id=tid,
            )
        )
        save_scheduled(store, tid, m.index, record)
    return tid


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("rulesets") / "arena.db"
    with Store(path) as store:
        play_tournament_in_process(store, STANDARD, 1)  # 4 matches
        play_tournament_in_process(store, THREE, 2)  # 3 matches
        for seed in (5, 6):  # single matches, saved with Store.save_match
            store.save_match(asyncio.run(play_match([bot(n) for n in BOTS[NASTY]], Rules.parse(NASTY), seed)))
    return path


COUNTS = {STANDARD: 4, THREE: 3, NASTY: 2}


def games_in_store(store: Store, rules: str) -> dict[str, tuple[int, int, int]]:
    """Per bot, straight from the tables: (games, points, hands) of its matches under ``rules``."""
    return {
        name: (g, p, h)
        for name, g, p, h in store.db.execute(
            "SELECT b.name, COUNT(*), SUM(s.final_score), SUM((SELECT COUNT(*) FROM hands h WHERE h.match_id = m.id)) "
            "FROM seats s JOIN matches m ON m.id = s.match_id JOIN bots b ON b.id = s.bot_id "
            "WHERE m.rules = ? GROUP BY b.name",
            [ruleset_key(rules)],
        )
    }


def test_each_rulesets_ladder_holds_only_its_own_games(db: Path) -> None:
    with Store(db) as store:
        for rules, n in COUNTS.items():
            lb = load_leaderboard(store, rules=rules, provisional_games=1)
            truth = games_in_store(store, rules)
            assert lb.rules == rules and lb.matches == n
            assert {r.bot for r in lb.rows} == set(BOTS[rules]) == set(truth)
            for r in lb.rows:
                games, points, hands = truth[r.bot]
                assert r.games == games and r.points_per_hand == pytest.approx(points / hands)
            assert lb["lowest"].games == n  # not its games under the other rulesets
            assert set(lb.live_elo) <= set(BOTS[rules])
            assert {(o.rules, o.matches) for o in lb.other_rulesets} == {
                (other, c) for other, c in COUNTS.items() if other != rules
            }


def test_the_default_is_the_latest_tournaments_ruleset(db: Path) -> None:
    with Store(db) as store:
        lb = load_leaderboard(store)
        assert lb.rules == THREE and lb.matches == 3 and {r.bot for r in lb.rows} == set(BOTS[THREE])
        assert [(o.rules, o.matches) for o in lb.other_rulesets] == [(STANDARD, 4), (NASTY, 2)]  # most first
        one = load_leaderboard(store, tournament_id=1)
        assert one.rules == STANDARD and one.matches == 4 and one.other_rulesets == []


def test_without_tournaments_the_default_is_the_latest_matchs_ruleset(tmp_path: Path) -> None:
    with Store(tmp_path / "arena.db") as store:
        store.save_match(asyncio.run(play_match([bot(n) for n in BOTS[NASTY]], Rules.parse(NASTY), 1)))
        store.save_match(asyncio.run(play_match([bot(n) for n in BOTS[STANDARD]], Rules.parse(STANDARD), 1)))
        lb = load_leaderboard(store)
        assert lb.rules == STANDARD and [(o.rules, o.matches) for o in lb.other_rulesets] == [(NASTY, 1)]


def ladder(*args: str) -> str:
    result = CliRunner().invoke(main, ["ladder", *args])
    assert result.exit_code == 0, result.output
    return result.output


def test_hearts_ladder_lists_the_other_rulesets_with_the_command_for_each(db: Path) -> None:
    out = ladder("--db", str(db), "--provisional-games", "1")
    assert f"Ladder: 3 matches, rules {THREE}" in out
    assert "n-rnd" not in out.split("other rulesets")[0] and "rnd-2" not in out.split("other rulesets")[0]
    lines = out.splitlines()
    at = lines.index(f"other rulesets in {db}, each rated on a ladder of its own:")
    listed = lines[at + 1 : at + 3]
    assert listed == [
        f"  {STANDARD}: 4 matches: hearts ladder --db {shlex.quote(str(db))} --rules {STANDARD}",
        f"  {NASTY}: 2 matches: hearts ladder --db {shlex.quote(str(db))} --rules {NASTY}",
    ]
    for line, rules in zip(listed, (STANDARD, NASTY)):
        command = shlex.split(line.split(": ", 2)[2])
        assert command[:2] == ["hearts", "ladder"]
        shown = ladder(*command[2:])  # the exact command shows that ruleset's ladder
        assert f"Ladder: {COUNTS[rules]} matches, rules {rules}" in shown
        assert all(b in shown for b in BOTS[rules]) and "heur-3" not in shown.split("other rulesets")[0]


def test_json_and_csv_follow_the_same_filter(db: Path) -> None:
    data = json.loads(ladder("--db", str(db), "--json"))
    assert data["rules"] == THREE and data["matches"] == 3
    assert {r["bot"] for r in data["rows"]} == set(BOTS[THREE])
    assert data["other_rulesets"] == [{"rules": STANDARD, "matches": 4}, {"rules": NASTY, "matches": 2}]
    nasty = json.loads(ladder("--db", str(db), "--json", "--rules", NASTY))
    assert {r["bot"] for r in nasty["rows"]} == set(BOTS[NASTY]) and {r["games"] for r in nasty["rows"]} == {2}

    result = CliRunner().invoke(main, ["ladder", "--db", str(db), "--csv", "--rules", STANDARD])
    assert result.exit_code == 0
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert {r["bot"] for r in rows} == set(BOTS[STANDARD]) and {r["games"] for r in rows} == {"4"}
    # stdout stays one CSV table; the other rulesets are named on stderr, with the command for each.
    assert f"--rules {THREE} --csv" in result.stderr and f"--rules {NASTY} --csv" in result.stderr


def test_an_empty_ruleset_says_so_and_lists_the_others(db: Path) -> None:
    out = ladder("--db", str(db), "--rules", "spot")
    assert "no matches recorded in" in out and "under rules spot" in out
    assert f"--rules {THREE}" in out and f"--rules {STANDARD}" in out and f"--rules {NASTY}" in out


@pytest.mark.parametrize(
    "spec",
    [
        "standard",
        "spot,target=500",
        "spot,target=200",
        THREE,
        NASTY,
        "standard,removed_cards=2C 2D,kitty=first-trick",
        "black-maria,players=5",
        "standard,moon=shooter-chooses,pass_cycle=no-hold",
    ],
)
def test_ruleset_text_reads_back_as_the_same_ruleset(spec: str) -> None:
    d = Rules.parse(spec).to_dict()
    text = ruleset_text(d)
    assert text is not None and Rules.parse(text).to_dict() == d
    assert len(text) <= len(spec)
    assert ruleset_text({"no_such_option": 1}) is None


def test_rulesets_counts_finished_matches_by_ruleset(db: Path) -> None:
    with Store(db) as store:
        assert {r.rules: r.matches for r in rulesets(store)} == COUNTS
        assert {r.rules: r.matches for r in rulesets(store, tournament_id=2)} == {THREE: 3}
