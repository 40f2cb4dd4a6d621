"""``hearts tournament run --sprt``: a comparison of B against A on duplicate deals that stops as soon as
the sequential test decides, stores the test's state after each deal, and resumes after a SIGKILL with
nothing lost or played twice. Real processes and a real SQLite file; the refusals in this process."""

from __future__ import annotations

import asyncio
import json
import signal
from collections import defaultdict
from pathlib import Path

import pytest
from cli_procs import FAST, hearts, query, running, wait_until
from cli_runner import run

from ladder.bots.registry import BotEntry
from ladder.compare import CompareSpec, compare_spec_of, create_comparison, play_comparison
from ladder.ratings.sprt import SPRT
from ladder.store import Store
from ladder.tournament.run import get_tournament

# In-process bots (no gRPC, no bot processes): what is tested is the comparison.
BOTS = """
[bots.random]
module = "clients.bots.random:RandomBot"
[bots.random-2]
module = "clients.bots.random:RandomBot"
[bots.lowest]
module = "clients.bots.lowest:LowestBot"
[bots.lowest-2]
module = "clients.bots.lowest:LowestBot"
[bots.heuristic]
module = "clients.bots.heuristic:HeuristicBot"
"""

SPRT_RUN = ("tournament", "run", "--bots", "bots.toml", "--rules", FAST, "--workers", "0", "--db", "arena.db")


def rederived(store: Store, tid: int, a: str, b: str, players: int, *, h0: float, h1: float, scale: str) -> SPRT:
    """The test anew from the stored seat results: a deal's difference is A's mean points per hand over
    its seatings (table 0) minus B's (table 1), for every deal both played from every seat."""
    cells: dict[int, dict[str, list[float]]] = defaultdict(lambda: {a: [], b: []})
    for r in store.tournaments.seat_results(tid):
        if (r["table_no"], r["bot"]) in ((0, a), (1, b)):
            cells[r["deal"]][r["bot"]].append(r["final_score"] / r["hands"])
    test = SPRT(h0=h0, h1=h1, scale=scale)
    for deal in sorted(cells):
        if all(len(v) == players for v in cells[deal].values()):
            test.add(sum(cells[deal][a]) / players - sum(cells[deal][b]) / players)
    return test


def stored_steps(db: Path) -> int:
    rows = query(db, "SELECT COUNT(*) FROM sprt_steps")
    return int(rows[0][0]) if rows else 0


@pytest.mark.slow
def test_a_clearly_better_bot_stops_the_run_early_with_h1_and_every_deal_has_its_step(tmp_path: Path) -> None:
    (tmp_path / "bots.toml").write_text(BOTS)
    # One match at a time: the deals complete in order and none after the decision.
    done = hearts(
        tmp_path,
        *SPRT_RUN,
        *("--bot", "random", "--bot", "heuristic", "--sprt", "elo0=0,elo1=100", "--seed", "4"),
        *("--concurrency", "1"),
        timeout=300,
    )
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    assert "a sequential test: is heuristic better than random? field heuristic-2, heuristic-3, heuristic-4" in out
    assert "elo0=0,elo1=100,alpha=0.05,beta=0.05 (normalised Elo), at most 1000 deals" in out
    assert "  deals 1: B better by" in out and "LLR" in out
    assert "H1 accepted: heuristic is better than random (by 100 or more normalised Elo)" in out
    with Store(tmp_path / "arena.db", readonly=True) as store:
        steps = store.tournaments.sprt_steps(1)
        n = steps[-1].deals
        assert [s.deals for s in steps] == list(range(1, n + 1)) and 8 <= n < 1000
        assert [s.verdict for s in steps] == ["continue"] * (n - 1) + ["H1"]
        assert f"  deals {n}: " in out and f"; {n} deals, {8 * n} matches; " in out
        test = rederived(store, 1, "random", "heuristic", 4, h0=0.0, h1=100.0, scale="nelo")
        assert test.n == n and test.verdict == "H1"
        assert steps[-1].llr == pytest.approx(test.llr, rel=1e-12)
        assert (steps[-1].mean, steps[-1].sd) == pytest.approx((test.mean, test.sd), rel=1e-12)
        assert f"LLR {test.llr:+.2f} in [-2.94, 2.94]" in out.splitlines()[-2]
        # Decided: the deals not played are dropped and the comparison is finished.
        row = store.tournaments.get(1)
        assert row is not None and row.status == "finished" and row.done == row.total == 8 * n


@pytest.mark.slow
def test_a_run_killed_midway_resumes_to_its_last_deal_with_each_step_and_match_stored_once(tmp_path: Path) -> None:
    (tmp_path / "bots.toml").write_text(BOTS)
    db = tmp_path / "arena.db"
    bots = ("--bot", "random", "--bot", "random-2", "--bot", "lowest", "--bot", "lowest-2", "--bot", "heuristic")
    # Hypotheses a hair apart: 24 deals of two random bots cannot tell them apart.
    args = (*SPRT_RUN, *bots, "--sprt", "elo0=0,elo1=2", "--deals", "24", "--seed", "7", "--concurrency", "2")
    with running(tmp_path, *args) as first:
        wait_until(lambda: stored_steps(db) >= 3, 120, "3 deals are stored", first)
        first.proc.send_signal(signal.SIGKILL)
        assert first.wait(30) == -signal.SIGKILL
    [(steps_before, recorded_before)] = query(
        db, "SELECT (SELECT COUNT(*) FROM sprt_steps), (SELECT COUNT(match_id) FROM tournament_matches)"
    )
    assert 3 <= steps_before < 24 and recorded_before < 24 * 8
    resumed = hearts(tmp_path, "tournament", "resume", "1", "--workers", "0", "--db", "arena.db", timeout=300)
    out = resumed.stdout
    assert resumed.returncode == 0, out + resumed.stderr
    assert "a sequential test: is random-2 better than random? field lowest, lowest-2, heuristic" in out
    assert f"  recorded so far: {steps_before} deals; LLR " in out
    assert "inconclusive after 24 deals (--deals); 24 deals, 192 matches; " in out
    assert f"played {24 * 8 - recorded_before} matches" in out
    with Store(db, readonly=True) as store:
        steps = store.tournaments.sprt_steps(1)
        assert [s.deals for s in steps] == list(range(1, 25)) and {s.verdict for s in steps} == {"continue"}
        test = rederived(store, 1, "random", "random-2", 4, h0=0.0, h1=2.0, scale="nelo")
        assert test.n == 24 and steps[-1].llr == pytest.approx(test.llr, rel=1e-9)
        row = store.tournaments.get(1)
        assert row is not None and row.status == "finished"
    # Every scheduled match recorded exactly once, and nothing else recorded.
    assert query(
        db,
        "SELECT COUNT(*), COUNT(match_id), COUNT(DISTINCT match_id) FROM tournament_matches WHERE tournament_id = 1",
    ) == [(192, 192, 192)]
    assert query(db, "SELECT COUNT(*) FROM matches WHERE tournament_id = 1") == [(192,)]


@pytest.mark.parametrize(
    "option",
    [
        ("--format", "swiss"),
        ("--format", "knockout"),
        ("--gauntlet", "random"),
        ("--rounds", "2"),
        ("--rounds", "1"),
        ("--no-duplicate",),
        ("--advance", "2"),
    ],
    ids=lambda o: " ".join(o),
)
def test_sprt_refuses_the_options_of_other_schedules(tmp_path: Path, option: tuple[str, ...]) -> None:
    (tmp_path / "bots.toml").write_text(BOTS)
    db = tmp_path / "arena.db"
    args = ("tournament", "run", "--bots", str(tmp_path / "bots.toml"), "--db", str(db))
    result = run(*args, "--bot", "random", "--bot", "heuristic", "--sprt", "elo0=0,elo1=5", *option)
    assert result.exit_code == 2, result.output
    assert "--sprt plays its own schedule" in result.output and f"leave {option[0]} out" in result.output
    assert not db.exists()  # refused before anything is written


def test_sprt_needs_a_field_of_one_bot_per_other_seat(tmp_path: Path) -> None:
    (tmp_path / "bots.toml").write_text(BOTS)
    args = ("tournament", "run", "--bots", str(tmp_path / "bots.toml"), "--db", str(tmp_path / "a.db"))
    result = run(*args, "--bot", "random", "--bot", "heuristic", "--bot", "lowest", "--sprt", "elo0=0,elo1=5")
    assert result.exit_code == 2 and "need a field of 3" in result.output and "not 1" in result.output
    result = run(*args, "--bot", "random", "--sprt", "elo0=0,elo1=5")
    assert result.exit_code == 2 and "give --bot A --bot B" in result.output
    result = run(*args, "--bot", "random", "--bot", "heuristic", "--sprt", "elo0=0,elo2=5")
    assert result.exit_code == 2 and "unknown key 'elo2' (did you mean elo1?)" in result.output
    with Store(tmp_path / "a.db", readonly=True) as store:
        assert store.tournaments.all() == []


def in_process(name: str, module: str) -> BotEntry:
    return BotEntry(name, module=f"clients.bots.{module}")


def test_a_resume_stores_the_steps_a_kill_left_out_and_plays_nothing_once_the_test_has_decided(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In the library: a run killed between a deal's last save and its step (the steps are deleted
    here), or between the decision and the comparison's end (``finish_early`` is skipped here)."""
    import ladder.compare as compare

    entries = [
        in_process("rand", "random:RandomBot"),
        in_process("heur", "heuristic:HeuristicBot"),
        *(in_process(f"low-{i}", "lowest:LowestBot") for i in range(3)),
    ]
    spec = CompareSpec(
        a="rand", b="heur", field=("low-0", "low-1", "low-2"), rules=FAST, h0=0, h1=100, scale="nelo", seed=3
    )
    with Store(tmp_path / "arena.db") as store:
        tid = create_comparison(store, entries, spec)
        with monkeypatch.context() as m:
            m.setattr(compare, "finish_early", lambda *a, **k: 0)  # killed once the test had decided
            first = asyncio.run(play_comparison(store, tid, spec, concurrency=1, workers=0, log_dir=tmp_path / "l"))
        assert first.verdict == "H1" and get_tournament(store, tid).pending > 0
        steps = store.tournaments.sprt_steps(tid)
        n = steps[-1].deals
        store.db.execute("DELETE FROM sprt_steps WHERE tournament_id = ? AND deals > 2", [tid])
        store.db.conn.commit()
        again = asyncio.run(play_comparison(store, tid, concurrency=1, workers=0, log_dir=tmp_path / "l"))
        assert again.verdict == "H1" and again.test.n == n and again.matches == first.matches
        assert again.summary is not None and again.summary.played == 0
        rebuilt = store.tournaments.sprt_steps(tid)
        assert [(s.deals, s.verdict) for s in rebuilt] == [(s.deals, s.verdict) for s in steps]
        assert [x for s in rebuilt for x in (s.mean, s.sd, s.llr)] == pytest.approx(
            [x for s in steps for x in (s.mean, s.sd, s.llr)]
        )
        info = get_tournament(store, tid)
        assert info.status == "finished" and info.pending == 0 and info.done == first.matches
        assert compare_spec_of(store, tid) == spec


def test_the_spec_of_a_comparison_stored_before_scales_is_in_points(tmp_path: Path) -> None:
    spec = CompareSpec(a="a", b="b", field=("c", "d", "e"), h0=0, h1=0.5, max_deals=3, seed=9)
    with Store(tmp_path / "arena.db") as store:
        tid = create_comparison(store, [in_process(n, "lowest:LowestBot") for n in "abcde"], spec)
        settings = json.loads(store.db.execute("SELECT settings FROM tournaments").fetchone()[0])
        assert settings["compare"]["scale"] == "points"
        del settings["compare"]["scale"]
        store.db.execute("UPDATE tournaments SET settings = ?", [json.dumps(settings)])
        store.db.conn.commit()
        assert compare_spec_of(store, tid) == spec and compare_spec_of(store, tid).test.scale == "points"
