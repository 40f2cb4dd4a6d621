"""The throughput benchmark runs end to end (tiny sizes) and reports what docs/referee.md says it does.

Not a timed test: it checks the benchmark's plumbing (paired rounds in both orders, the JSON it
prints), never its figures, which belong to `make bench`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # whole processes and servers

ROOT = Path(__file__).resolve().parents[1]


def _bench(script: str, *args: str) -> str:
    """What ``bench/SCRIPT`` prints (a tiny run: its plumbing, never its figures); a failed run's
    own error output in the test's failure."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / script), *args], capture_output=True, text=True, timeout=300, cwd=ROOT
    )
    assert done.returncode == 0, f"bench/{script} exited {done.returncode}:\n{done.stderr[-3000:]}"
    return done.stdout


def test_harness_pairs_rounds_in_both_orders_and_reports_the_median() -> None:
    out = _bench(
        "harness.py",
        "--single",
        "1",
        "--concurrent",
        "2",
        "--rounds",
        "2",
        "--seat-loop",
        "--tables",
        "8",
        "--window",
        "1",
        "--json",
    )
    r = json.loads(out)
    for key in ("one_match_at_a_time", "16_matches_at_once", "seat_loop_16_in_flight"):
        row = r[key]
        ratios = [x["ratio"] for x in row["each_round"]]
        assert len(ratios) == 2  # round 0 the referee first, round 1 the echo first
        assert min(ratios) <= row["ratio"] <= max(ratios)
        assert row["ratio_range"] == [min(ratios), max(ratios)]
        assert row["decisions_per_s"] > 0 and row["echo_calls_per_s"] > 0 and row["best_of_each_ratio"] > 0
    assert r["16_matches_at_once"]["decisions"] > 500  # two whole matches' decisions, none faulted
    thinking = r["thinking"]  # 8 tables of 200 ms bots: latency-bound at 40 decisions/s
    assert thinking["tables"] == 8 and thinking["latency_bound_per_s"] == 40 and thinking["decisions_per_s"] > 0
    assert thinking["timeouts"] == 0


def test_inprocess_bench_reports_each_figure_and_its_ratios() -> None:
    out = _bench("inprocess.py", "--seconds", "0.2", "--rounds", "1", "--workers", "2", "--matches", "16", "--json")
    r = json.loads(out)
    for key in (
        "bare_matches_per_s",
        "in_process_matches_per_s",
        "tournament_single_process_matches_per_s",
        "tournament_one_worker_matches_per_s",
        "tournament_workers_matches_per_s",
        "tournament_workers_start_up_s",
        "in_process_worker_gc_matches_per_s",
        "side_by_side_matches_per_s",
    ):
        assert r[key] > 0, key
    assert r["tournament_workers_after_start_up_per_s"] >= 0  # 0 when every match came in the first batch
    assert r["in_process_vs_bare"] == round(r["in_process_vs_bare"], 3) > 0
    assert r["workers"] == 2


def test_sandbox_benchmark_pairs_plain_and_sandboxed_in_one_run() -> None:
    out = _bench("sandbox_cost.py", "--starts", "1", "--matches", "1", "--tables", "1", "--rounds", "1", "--json")
    if out.startswith("no sandbox benchmark"):
        return  # bubblewrap cannot run here: the benchmark says so and stops (the sandbox tests say it loudly)
    figures = json.loads(out)
    assert figures["start_ms_sandboxed"] > 0 and figures["decisions_per_s_plain"] > 0
    assert figures["decisions_ratio"] == figures["decisions_per_s_sandboxed"] / figures["decisions_per_s_plain"]


def test_arena_bench_serves_the_leaderboard_over_http_and_reports_its_figures() -> None:
    ladder = ("--ladder-matches", "4", "--ladder-rules", "standard,target=20")
    out = _bench("arena.py", "--matches", "300", "--bots", "12", "--requests", "3", *ladder, "--json")
    r = json.loads(out)
    assert r["matches"] == 300 and r["bots"] == 12
    assert r["median_ms"] > 0 and r["first_request_with_fit_ms"] > 0 and r["target_ms"] == 200
    # The ladder's pace against a tournament of the same bots: as many matches of each, and their ratio.
    assert r["tournament_matches"] == 4 and r["ladder_matches"] >= 4 and r["ladder_target"] == 0.9
    ratio = r["ladder_matches_per_s"] / r["tournament_matches_per_s"]  # of the figures as rounded
    assert r["ladder_vs_tournament"] == pytest.approx(ratio, rel=0.01)


def test_signin_bench_floods_from_distinct_addresses_and_reports_each_answer() -> None:
    r = json.loads(_bench("signin.py", "--addresses", "2", "--wrong", "3", "--json"))
    assert r["wrong_tokens"] == 6 and r["wrong_answers"] == {"401": 6}
    assert r["during_status"] == {"first_sign_in": 200, "leaderboard_api": 200, "page": 200}
    assert all(v > 0 for v in (*r["idle_ms"].values(), *r["during_ms"].values()))


def test_cluster_bench_reports_both_ratios_and_the_writers_cost() -> None:
    out = _bench(
        "cluster.py", "--deals", "1", "--think-ms", "5", "--slots", "2", "--tasks", "50", "--saves", "40", "--json"
    )
    r = json.loads(out)
    assert r["matches"] == 4
    for key in ("local_matches_per_s", "cluster_1_worker_matches_per_s", "cluster_2_workers_matches_per_s"):
        assert r[key] > 0, key
    assert r["two_vs_one_worker"] > 0 and r["one_worker_vs_local"] > 0
    assert r["save_scheduled_ms_per_match"] > 0 and r["save_scheduled_ms_per_match_late"] > 0
    assert r["scheduler_noop_tasks_per_s"] > 0


def test_storage_bench_reports_bytes_a_match_and_a_hand_at_each_size() -> None:
    r = json.loads(_bench("storage.py", "--matches", "40", "120", "--bots", "8", "--json"))
    small, large = r["sizes"]
    assert (small["matches"], large["matches"]) == (40, 120) and large["hands"] > small["hands"] >= 40
    for row in (small, large):
        assert row["bytes_per_match"] == round(row["database_bytes"] / row["matches"])
        assert row["bytes_per_hand"] == round(row["database_bytes"] / row["hands"])
        assert row["backup_mb_per_s"] > 0 and row["check_s"] >= 0 and row["largest_tables"]


def test_push_bench_follows_an_arena_from_both_streams_and_reports_each_delay() -> None:
    r = json.loads(_bench("arena_push.py", "--pages", "4", "--seconds", "200", "--until-matches", "2", "--json"))
    assert r["pages"] == 4 and r["target_ms"] == 1000 and r["seconds"] == 200
    assert r["leaderboard"]["pages"] == r["live"]["pages"] == 2
    # Matches were recorded while the pages followed: each page had each new count, after its save.
    assert r["matches"] > 0 and r["leaderboard"]["delays"] > 0 and r["live"]["delays"] > 0
    for row in (r["leaderboard"], r["live"]):
        assert 0 < row["median_ms"] <= row["p99_ms"] <= row["max_ms"] <= r["max_ms"]


def test_load_bench_browses_every_kind_of_page_while_the_ladder_plays_and_reports_both_paces() -> None:
    r = json.loads(_bench("arena_load.py", "--browsers", "5", "--seconds", "6", "--think", "0.5", "--json"))
    assert r["browsers"] == 5 and r["pages"] > 0 and r["errors"] == 0, r["error_kinds"]
    assert set(r["median_ms_by_page"]) <= {"/", "/matches", "/bots/…", "/matches/…", "/live"}
    assert 0 < r["median_ms"] <= r["p99_ms"] <= r["max_ms"]
    assert r["idle_matches_per_s"] > 0 and r["pace_target"] == 0.9
    assert r["loaded_vs_idle"] == pytest.approx(r["loaded_matches_per_s"] / r["idle_matches_per_s"], rel=0.01)
