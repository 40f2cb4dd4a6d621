"""``hearts compare A B``: both play the same duplicate deals in the same seats against the same field,
and the sequential test stops as soon as it decides. Bots in this process and real bot processes, a
real SQLite file."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

from clients.bots import BOTS
from ladder.bots.registry import BotEntry
from ladder.compare import CompareSpec, create_comparison, play_comparison
from ladder.store import Store
from ladder.tournament.run import get_tournament

pytestmark = pytest.mark.slow  # whole processes and servers

HEARTS = str(Path(sys.executable).with_name("hearts"))
FAST = "standard,target=30"  # short matches: what is tested is the comparison


def sample(name: str, module: str) -> BotEntry:
    """A sample bot played in this process (the comparison is under test; the command test below and
    the tournaments' tests start bot processes)."""
    return BotEntry(name, module=":".join(BOTS[module]))


def test_a_clearly_better_bot_is_accepted_as_better_in_few_deals_and_the_rest_is_not_played(tmp_path: Path) -> None:
    entries = [
        sample("rand", "random"),
        sample("heur", "heuristic"),
        sample("f1", "lowest"),
        sample("f2", "lowest"),
        sample("f3", "lowest"),
    ]
    spec = CompareSpec(a="rand", b="heur", field=("f1", "f2", "f3"), rules=FAST, h0=0.0, h1=1.0, max_deals=60, seed=2)
    with Store(tmp_path / "arena.db") as store:
        tid = create_comparison(store, entries, spec)
        assert get_tournament(store, tid).total == 60 * 8
        seen: list[int] = []
        result = asyncio.run(
            play_comparison(
                store, tid, spec, concurrency=4, on_deal=lambda t: seen.append(t.n), log_dir=tmp_path / "logs"
            )
        )
        info = get_tournament(store, tid)
        assert result.verdict == "H1" and result.test.mean > 1.0 and result.test.n < 60
        assert seen == list(range(1, result.test.n + 1))  # live: one report per deal
        # Decided: finished, with every scheduled match recorded (the deals not played were dropped), and in
        # each deal and seat A and B sat against the same field in the same order.
        assert info.status == "finished" and info.done == info.total >= result.test.n * 8
        by_deal: dict[tuple[int, int], list[tuple[str, ...]]] = {}
        for m in store.list_matches(tournament_id=tid):
            by_deal.setdefault((m.seed, m.bots.index("rand") if "rand" in m.bots else m.bots.index("heur")), []).append(
                tuple(b for b in m.bots if b not in ("rand", "heur"))
            )
        paired = [v for v in by_deal.values() if len(v) == 2]  # matches in flight when it decided may be alone
        assert len(paired) >= result.test.n * 4 and all(v[0] == v[1] for v in paired)


def test_the_command_prints_its_progress_and_verdict(tmp_path: Path) -> None:
    bots = tmp_path / "bots.toml"
    bots.write_text('[bots.rand]\ncommand = "python -m clients.bots.random --port {port}"\n')
    run = subprocess.run(
        [
            HEARTS,
            "compare",
            "rand",
            "heur=python -m clients.bots.heuristic --port {port}",
            "--bots",
            str(bots),
            "--rules",
            FAST,
            "--h1",
            "1",
            "--max-deals",
            "40",
            "--db",
            str(tmp_path / "a.db"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "deals 1: B better by" in run.stdout and "LLR" in run.stdout
    assert "H1 accepted: heur is better than rand" in run.stdout and "hearts ladder --db" in run.stdout


def test_an_interrupted_comparison_keeps_its_matches_and_its_deals_for_a_resume(tmp_path: Path) -> None:
    """Ctrl-C has no verdict to give: the matches played and the test's steps stay, the unplayed deals
    stay pending, and the command says how to resume (hearts tournament resume rebuilds the test from
    the records: tests/ladder/test_tournament_sprt.py)."""
    import os
    import signal
    import time

    db = tmp_path / "a.db"
    proc = subprocess.Popen(
        [HEARTS, "compare", "a=clients.bots.random:RandomBot", "b=clients.bots.random:RandomBot"]
        + ["--h0", "0", "--h1", "0.01", "--max-deals", "5000", "--workers", "0", "--db", str(db)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONFAULTHANDLER": "1"},  # SIGABRT then prints where every thread is
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and (not db.exists() or not _recorded(db)):
            time.sleep(0.2)
        os.kill(proc.pid, signal.SIGINT)
        try:
            out, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGABRT)
            out, err = proc.communicate(timeout=30)
            pytest.fail(f"hearts compare did not stop within 60 s of SIGINT; where it was:\n{err[-6000:]}")
    finally:
        proc.kill()
    assert proc.returncode == 130, out + err
    assert "stopped before a verdict" in out and "Traceback" not in err
    assert f"matches pending; resume with: hearts tournament resume 1 --db {db}" in out
    with Store(db, readonly=True) as store:
        info = get_tournament(store, 1)
        assert info.status == "interrupted" and info.done > 0 and info.total == 5000 * 8 > info.done
        assert len(store.tournaments.sprt_steps(1)) <= info.done // 8


def _recorded(db: Path) -> int:
    import sqlite3

    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM matches").fetchone()[0])
    except sqlite3.Error:
        return 0
